#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The acceptance table of ParICT / ParILUT (issue 19) from `asyncsparse ict|ilut` runs.

  par_ilut_acceptance.py ASYNCSPARSE OUT.md [--quick] [--matrices DIR] [--extra ARGS]

Runs the driver with --json on the rotated anisotropic diffusion problems (ParICT, CG), the upwinded
convection-diffusion problems (ParILUT, GMRES), every matrix file in DIR (ParILUT; ParICT too where the file is
symmetric) and gen:trefethen:20000 (wall time), and writes one markdown table per group: iterations of IC(0)/ILU(0),
the serial ICT/ILUT at the same fill (same pivot rule) and ParICT/ParILUT after the last step, the two acceptance
checks (<= level 0, <= 1.15 x serial), breakdowns, replaced pivots and the wall time of the run. The same script
serves a CUDA build (pass its driver).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time


def run(exe, kind, spec, extra, tmp):
    out = os.path.join(tmp, "r.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = [exe, kind, spec, "--json", out] + extra
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.time() - t0
    rec = {}
    if os.path.exists(out):
        with open(out) as f:
            rec = json.load(f)
    return cmd, p.returncode, p.stdout, rec, wall


def its(o):
    if not o:
        return "-"
    if "breakdown" in o:
        return "breakdown"
    if "iterations" not in o:
        return "skipped" if "note" in o else "-"
    s = str(o["iterations"])
    return s if o.get("status") == "converged" else s + "(" + str(o.get("status")) + ")"


def row(kind, spec, cmd, rc, stdout, rec, wall):
    res = rec.get("result", rec)
    steps = res.get("steps", [])
    last = steps[-1] if steps else {}
    par = its(last.get("solve"))
    checks = res.get("checks", {})
    ok0 = checks.get("iterations_le_level0")
    okT = checks.get("iterations_le_1.15_threshold_serial")
    notes = []
    if "breakdown" in res:
        notes.append(res["breakdown"])
    if "note" in res:
        notes.append(res["note"])
    for k in ("no_preconditioner", "level0", "serial_threshold"):
        o = res.get(k, {})
        if "note" in o:
            notes.append(o["note"].split(" — ")[0])
        if "breakdown" in o:
            notes.append(k + ": " + o["breakdown"])
        if o.get("pivots_replaced"):
            notes.append(f"{k}: {o['pivots_replaced']} pivots replaced")
    if res.get("pivots_replaced"):
        notes.append(f"{res['pivots_replaced']} pivots replaced")
    if res.get("diagonal_shift"):
        notes.append(f"shift {res['diagonal_shift']:g}"
                     + (" of the initial guess" if res.get("shift_initial_only") else ""))
    if res.get("sweep_order", {}).get("used") == "ordered":
        notes.append("ordered sweeps")
    for k in ("level0", "serial_threshold"):
        if res.get(k, {}).get("shift"):
            notes.append(f"{k}: shift {res[k]['shift']:g}")
    if not rec:
        notes.append(f"exit {rc}: " + stdout.strip().splitlines()[-1] if stdout.strip() else f"exit {rc}")
    yes = lambda b: "-" if b is None else ("yes" if b else "**no**")
    return (f"| {spec} | {kind} | {its(res.get('level0'))} | {its(res.get('serial_threshold'))} | "
            f"{len(steps) - 1 if steps else '-'} | {par} | {yes(ok0)} | {yes(okT)} | {wall:.1f} | "
            f"{'; '.join(notes)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("exe")
    ap.add_argument("out")
    ap.add_argument("--matrices", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "matrices"))
    ap.add_argument("--quick", action="store_true", help="only the 128^2 grids and no matrix files")
    ap.add_argument("--extra", default="", help="more driver arguments for every run")
    ap.add_argument("--matrix-steps", type=int, default=0,
                    help="most steps for the matrix files (0, default: the driver's, i.e. steps until the ILU residual "
                         "stagnates, at most 30; the acceptance there names no step count)")
    a = ap.parse_args()
    extra = a.extra.split()
    groups = []
    grids = [128] if a.quick else [128, 256]
    groups.append(("Rotated anisotropic diffusion, ParICT (CG)",
                   [("ict", f"gen:aniso2d:{m}:{e}:{t}") for m in grids for e in ("1e-2", "1e-3", "1e-4")
                    for t in (15, 30, 45)]))
    groups.append(("Upwinded convection-diffusion, ParILUT (GMRES)",
                   [("ilut", f"gen:convdiff2d:{m}:{p}") for m in grids for p in (0.3, 1, 10, 100)]))
    if not a.quick and os.path.isdir(a.matrices):
        files = sorted(f for f in os.listdir(a.matrices) if f.endswith(".mtx.gz") or f.endswith(".mtx"))
        cases = []
        for f in files:
            path = os.path.join(a.matrices, f)
            more = ["--steps", str(a.matrix_steps)] if a.matrix_steps > 0 else []
            cases.append(("ilut", path, more))
            cases.append(("ict", path, more))  # the driver refuses a non-symmetric matrix with a message
        groups.append(("Matrix files (RCM order)", cases))
        shifted = [f for f in ("bcsstk13", "bcsstk14", "bcsstk15", "bcsstk18") if f + ".mtx.gz" in files]
        groups.append(("Matrix files whose IC(0) / ICT break down, with diagonal shift and retry "
                       "(--diagonal-shift 1e-3, both factorizations)",
                       [("ict", os.path.join(a.matrices, f + ".mtx.gz"),
                         (["--steps", str(a.matrix_steps)] if a.matrix_steps > 0 else []) +
                         ["--diagonal-shift", "1e-3"]) for f in shifted]))
    # the acceptance names the plain command: no --extra here
    groups.append(("Trefethen 20000 (time of the whole run, default options)", [("ilut", "gen:trefethen:20000", None)]))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    lines = [f"# ParICT / ParILUT acceptance (issue 19)", "",
             f"Date: {datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M UTC')}; commit {commit}; "
             f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}, "
             f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '-')}.", "",
             f"Command: `{' '.join([os.path.basename(sys.argv[0])] + sys.argv[1:])}`; each row is "
             f"`asyncsparse KIND MATRIX --json R {' '.join(extra)}` (fill limit 1, default steps: until a step improves the "
             f"ILU residual by less than 1 %, at most 30"
             f"{'; matrix files --steps ' + str(a.matrix_steps) if a.matrix_steps > 0 else ''}). Columns: Krylov iterations (b = ones, x0 = 0, 1e-6) of the level-0 "
             "factorization, of the serial threshold factorization at the parallel one's final nnz (same pivot rule) "
             "and of the parallel one after its last step.", ""]
    with tempfile.TemporaryDirectory() as tmp:
        for title, cases in groups:
            lines += [f"## {title}", "",
                      "| matrix | kind | level 0 | serial | steps | parallel | <= level 0 | <= 1.15 serial | wall [s] "
                      "| notes |",
                      "|---|---|---|---|---|---|---|---|---|---|"]
            for case in cases:
                kind, spec = case[0], case[1]
                more = case[2] if len(case) > 2 else []
                cmd, rc, stdout, rec, wall = run(a.exe, kind, spec, [] if more is None else extra + more, tmp)
                if not rec and "symmetric" in stdout and kind == "ict":
                    continue  # not symmetric: no ParICT
                name = os.path.basename(spec) if os.path.sep in spec else spec
                lines.append(row(kind, name, cmd, rc, stdout, rec, wall))
                print(lines[-1], flush=True)
            lines.append("")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
