#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The JSON records of the asyncsparse driver keep their keys.

Runs every subcommand of the driver on a tiny problem with --json, reduces each record to its set of key paths
("options.sweeps", "rows[].iterations.median": objects give their keys, arrays the union over their elements;
values are not compared) and compares the sets with the reference file recorded from an earlier driver:

  driver_json_keys.py ASYNCSPARSE REFERENCE [--commands ic;solve] [--record]

--record writes REFERENCE instead of comparing. A key renamed on purpose is listed in RENAMED below (old path ->
new path) and in CHANGELOG.md; the reference keeps the old names, so that the list documents every rename. A key
added on purpose is listed in ADDED (subcommand -> key paths) and in CHANGELOG.md; no key may disappear.
Exit status 0: every key set is equal; 1: a difference (printed); 2: a run failed.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# One tiny, well-conditioned run per subcommand; deterministic modes where there is one, so that no run ends in a
# status with optional keys (message, note, breakdown). Every optional record part the options can switch on is on.
CASES = {
    "info": ["info", "gen:lap2d:8"],
    "solve": ["solve", "gen:lap2d:8", "--prec", "jacobi"],
    "demo": ["demo", "--matrix", "gen:lap2d:8"],
    "ic": ["ic", "gen:lap2d:8", "--sweeps", "2", "--mode", "deterministic", "--exact", "host", "--ilu-residual",
           "--factor-error", "--runs", "2", "--guard-tol", "0.5"],
    "ilu": ["ilu", "gen:lap2d:8", "--sweeps", "1,3", "--mode", "deterministic", "--exact", "host"],
    "ilut": ["ilut", "gen:lap2d:8", "--steps", "2", "--mode", "deterministic", "--pattern-study", "--compare",
             "--all-steps", "--runs", "2"],
    "ict": ["ict", "gen:lap2d:8", "--steps", "2", "--mode", "deterministic", "--pattern-study", "--compare",
            "--all-steps", "--runs", "2"],
    "jacobi": ["jacobi", "gen:lap2d:8", "--updates", "40", "--points", "2", "--runs", "2", "--warmup", "0",
               "--tol", "1e-2", "--trace"],
    "relax": ["relax", "gen:lap2d:8", "--method", "block-async,jacobi,gauss-seidel,jacobi-host,kk-gauss-seidel",
              "--deterministic", "--runs", "2", "--iters", "5000", "--tol", "1e-6"],
    "ir": ["ir", "gen:lap2d:8", "--compare", "--deterministic", "--tol", "1e-10"],
}

# Key paths renamed on purpose: old path (as in the reference) -> new path. Also listed in CHANGELOG.md.
RENAMED = {}

# Key paths added on purpose since the reference, per subcommand. Also listed in CHANGELOG.md.
_TRI_SOLVE = {"tri_solve", "tri_solve.mode", "tri_solve.reason"}
_TRI_SOLVE_ROWS = {"rows[].tri_solve", "rows[].tri_solve_setup_ms", "rows[].tri_solve_setup_ms.values",
                   "rows[].tri_solve_setup_ms.median", "rows[].tri_solve_setup_ms.min", "rows[].tri_solve_setup_ms.max"}
# ilut / ict: the start, adaptive sweeps, pivot strategy, bounded baselines and --compare (issue 19)
_THRESHOLD = {"compare", "initial_sweeps", "pivot_tolerance", "pivots_replaced", "diagonal_shift",
              "options.diagonal-shift",
              "level0.factor_seconds", "level0.ilu_residual", "level0.pivots_replaced",
              "serial_threshold.factor_seconds", "serial_threshold.ilu_residual", "serial_threshold.pivots_replaced",
              "no_preconditioner.pivots_replaced", "pattern_study[].pivots_replaced", "steps[].solve.pivots_replaced",
              "options.all-steps", "options.baseline-seconds", "options.compare", "options.initial-sweeps",
              "options.max-sweeps", "options.pivot-tolerance", "options.sweep-tolerance",
              "options.initial-sweep-tolerance", "options.initial-max-sweeps"} | {
    "steps[]." + k for k in ("kept_new_L", "kept_new_U", "pattern_residual", "pattern_unchanged", "pivots_replaced",
                             "sweeps")} | {
    "compare[]." + k for k in ("factor_seconds", "final_relative_residual", "ilu_residual", "iterations", "nnz",
                               "pivots_replaced", "preconditioner", "residual_history", "status", "time_history",
                               "time_seconds")}
# ilut / ict: the kernel of the candidate phase (issue 17)
_CANDIDATE_KERNEL = {"candidate_kernel", "candidate_kernel.used", "candidate_kernel.requested",
                     "candidate_kernel.span_columns", "candidate_kernel.gathered_per_row", "candidate_kernel.mean_span_words",
                     "options.candidate-kernel"}
# The pooled working arrays of ilut/ict: per step and for the numeric phase.
_WORKSPACE = {"steps[].workspace_allocations", "workspace", "workspace.allocations", "workspace.bytes",
              "workspace.reuses", "workspace.peak_bytes_in_use", "options.team-select-max",
              "options.bucket-select-max"}
# ilut / ict: the stagnation rule of the steps (--stagnation-tolerance, the library's default rule), the sweep order
# (--sweep-order) and the scope of the diagonal shift (--shift-whole-phase)
_STEPS_RULE = {"options.stagnation-tolerance", "options.sweep-order", "options.shift-whole-phase", "sweep_order",
               "sweep_order.requested", "sweep_order.used", "sweep_order.reason", "sweep_order.levels", "sweep_order.launches",
               "shift_initial_only"}
# The quartiles beside every median/min/max of the runs' statistics (q1, q3), the tail guard of ic/ilu
# (--guard-tol) and the run statistics of ilut/ict (--runs).
_QUARTILES = (".q1", ".q3")
_SUMMARY = (".median", ".min", ".max") + _QUARTILES


def _with(prefixes, suffixes):
    return {p + s for p in prefixes for s in suffixes}


_ROW_SAMPLES = ["rows[]." + k for k in ("iterations", "nonlinear_residual", "sweep_ms", "total_ms", "solve_seconds",
                                        "tri_solve_setup_ms")]
_GUARD = {"options.guard-tol", "options.guard-max-sweeps"}
_GUARD_RECORD = {"guard", "guard.tolerance", "guard.max_sweeps", "runs[].guard_sweeps", "rows[].guard_sweeps",
                 "rows[].guard_sweeps.values"} | _with(["rows[].guard_sweeps"], _SUMMARY)
_RUN_STATISTICS = {"options.runs", "run_statistics", "run_statistics.runs", "run_statistics.steps",
                   "run_statistics.steps[].step", "run_statistics.steps[].iterations",
                   "run_statistics.steps[].ilu_residual", "run_statistics.steps[].failed_runs",
                   "run_statistics.steps[].iterations_values", "run_statistics.steps[].ilu_residual_values"} | \
    _with(["run_statistics.steps[].iterations", "run_statistics.steps[].ilu_residual"], _SUMMARY)
_JACOBI_QUARTILES = _with(["variants[].curve[].residual", "variants[].curve[].seconds",
                           "variants[].curve[].time_per_update_us", "variants[].time_per_update_us",
                           "variants[].time_to_tol.seconds", "variants[].time_to_tol.update_seconds",
                           "variants[].time_to_tol.updates", "variants[].value_age.seconds_with",
                           "variants[].value_age.seconds_without"], _QUARTILES)
# ic / ilu / ilut / ict: the kernel of the (concurrent) sweeps (--sweep-kernel, the library's rules
# choose_sweep_kernel and ilut_sweep_kernel)
_SWEEP_KERNEL = {"options.sweep-kernel", "sweep_kernel", "sweep_kernel.kernel", "sweep_kernel.rule",
                 "sweep_kernel.products", "sweep_kernel.gather_group"}
ADDED = {"ic": _TRI_SOLVE | _TRI_SOLVE_ROWS | _GUARD | _GUARD_RECORD | _SWEEP_KERNEL |
         _with(_ROW_SAMPLES + ["rows[].ilu_residual", "rows[].max_factor_error"], _QUARTILES),
         "ilu": _TRI_SOLVE | _TRI_SOLVE_ROWS | _GUARD | _SWEEP_KERNEL | _with(_ROW_SAMPLES, _QUARTILES),
         "ilut": _TRI_SOLVE | _THRESHOLD | _RUN_STATISTICS | _CANDIDATE_KERNEL | _WORKSPACE | _STEPS_RULE | _SWEEP_KERNEL,
         "ict": _TRI_SOLVE | _THRESHOLD | _RUN_STATISTICS | _CANDIDATE_KERNEL | _WORKSPACE | _STEPS_RULE | _SWEEP_KERNEL,
         "jacobi": _JACOBI_QUARTILES,
         "solve": {"krylov_kernels"},
         # relax: the fused mode's host mapping (a rebalanced range of blocks per thread)
         "relax": {"results[].setup.host_rebalances", "results[].setup.host_max_lead"}}
# The resolved launch's schedule of the chunks on host backends (static | dynamic), wherever a launch is recorded.
for _cmd, _path in (("ic", "launch"), ("ilu", "launch"), ("ilut", "launch"), ("ict", "launch"),
                    ("jacobi", "variants[].launch"), ("relax", "results[].setup.launch"), ("ir", "runs[].inner_launch")):
    ADDED.setdefault(_cmd, set()).update({_path + ".schedule", _path + ".unit_stride"})
# ... and the driver's --schedule and --unit-stride options, wherever the launch options are offered.
for _cmd in ("ic", "ilu", "ilut", "ict", "relax", "ir"):
    ADDED.setdefault(_cmd, set()).update({"options.schedule", "options.unit-stride"})

# ir: the refinement's measuring steps and their stagnation window, and the driver's --stagnation-checks.
ADDED["ir"] = ADDED.get("ir", set()) | {"runs[].measuring_steps", "runs[].stagnation_window",
                                        "options.stagnation-checks"}

# ilut / ict: whether the last concurrent sweep's lanes walked the exact stretches (Stats::sweep_exact_stretches).
for _cmd in ("ilut", "ict"):
    ADDED[_cmd] = ADDED[_cmd] | {"sweep_kernel.exact_stretches"}

# Every recorded Krylov result: the iterations replayed as a CUDA graph (SolverResult::graph_replays).
_GRAPH_REPLAYS = {"solve": {"result.graph_replays"}, "demo": {"runs[].graph_replays"},
                  "ilut": {p + "graph_replays" for p in ("compare[].", "level0.", "no_preconditioner.",
                                                         "pattern_study[].", "serial_threshold.", "steps[].solve.")}}
_GRAPH_REPLAYS["ict"] = _GRAPH_REPLAYS["ilut"]
for _cmd, _paths in _GRAPH_REPLAYS.items():
    ADDED.setdefault(_cmd, set()).update(_paths)
    # ... and whether GMRES orthogonalized in one launch of one team (SolverResult::one_team_orthogonalization)
    ADDED[_cmd].update({p.replace("graph_replays", "one_team_orthogonalization") for p in _paths})
    # ... and the GMRES cycles run whole in one launch of one team (SolverResult::one_team_cycles)
    ADDED[_cmd].update({p.replace("graph_replays", "one_team_cycles") for p in _paths})

# jacobi: the bound on the updates per launch of the asynchronous modes (--max-updates-per-launch, the statistics).
ADDED["jacobi"] = ADDED["jacobi"] | {"options.max-updates-per-launch", "variants[].last_run.max_updates_per_launch"}
# jacobi: the residual checks of a run (the rule of check_interval = 0 adapts the asynchronous modes' interval).
_CHECKS = ["variants[].time_to_tol.checks", "variants[].time_to_tol.check_interval"]
ADDED["jacobi"] = ADDED["jacobi"] | {"variants[].last_run.checks", "variants[].last_run.check_interval"} | \
    set(_CHECKS) | _with(_CHECKS, _SUMMARY)

# Added to the record of every subcommand: the offset width of the build (32 or 64), whether the array cache is on
# (recorded on every backend since the cache serves host memory too).
ADDED_EVERYWHERE = {"offset_bits", "kokkos.device_cache"}

# Keys that depend on the build, not on the driver: present only where the build has a GPU.
BUILD_DEPENDENT = {"kokkos.device"}


def key_paths(value, prefix=""):
    paths = set()
    if isinstance(value, dict):
        for k, v in value.items():
            p = f"{prefix}.{k}" if prefix else k
            paths.add(p)
            paths |= key_paths(v, p)
    elif isinstance(value, list):
        for v in value:
            paths |= key_paths(v, prefix + "[]")
    return paths


def renamed(path):
    for old, new in RENAMED.items():
        if path == old or path.startswith(old + ".") or path.startswith(old + "["):
            return new + path[len(old):]
    return path


def run_case(exe, args, workdir):
    out = os.path.join(workdir, args[0] + ".json")
    cmd = [os.path.abspath(exe)] + args + ["--json", out]
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "2")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=workdir)
    if p.returncode != 0:
        print(f"FAILED ({p.returncode}): {' '.join(cmd)}\n{p.stdout}", file=sys.stderr)
        return None
    with open(out) as f:
        return sorted(key_paths(json.load(f)) - BUILD_DEPENDENT)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("exe")
    ap.add_argument("reference")
    ap.add_argument("--commands", default="", help="';'-separated subcommands built into the driver (default: all)")
    ap.add_argument("--record", action="store_true", help="write the reference instead of comparing")
    a = ap.parse_args()
    names = [c for c in a.commands.split(";") if c] or list(CASES)
    unknown = [c for c in names if c not in CASES]
    if unknown:
        print(f"no test case for subcommand(s) {', '.join(unknown)}: add them to CASES", file=sys.stderr)
        return 2
    got = {}
    with tempfile.TemporaryDirectory() as tmp:
        for c in names:
            keys = run_case(a.exe, CASES[c], tmp)
            if keys is None:
                return 2
            got[c] = keys
    if a.record:
        with open(a.reference, "w") as f:
            json.dump({"cases": {c: CASES[c] for c in names}, "keys": got}, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"recorded {sum(len(v) for v in got.values())} key paths of {len(got)} subcommands in {a.reference}")
        return 0
    with open(a.reference) as f:
        ref = json.load(f)["keys"]
    status = 0
    for c in names:
        if c not in ref:
            print(f"{c}: no reference key set (record one with --record)")
            status = 1
            continue
        want = {renamed(p) for p in ref[c]} | ADDED.get(c, set()) | ADDED_EVERYWHERE
        have = set(got[c])
        missing, extra = sorted(want - have), sorted(have - want)
        if missing or extra:
            status = 1
            print(f"{c}: key set differs from the reference")
            for p in missing:
                print(f"  missing: {p}")
            for p in extra:
                print(f"  new:     {p}")
        else:
            print(f"{c}: {len(have)} key paths, as in the reference")
    return status


if __name__ == "__main__":
    sys.exit(main())
