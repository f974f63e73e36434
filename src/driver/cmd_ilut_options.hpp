// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse ilut / ict — the command's options and their definition on the command line (cmd_ilut.cpp runs it).
#pragma once

#include <string>

#include "driver_device.hpp"

namespace AsyncSparse {
namespace Driver {
namespace cmd_ilut_local {

struct Options {
  ProblemOptions problem;
  int steps = 30;
  double fill_limit = 1, stagnation_tolerance = 0.01;
  std::string select = "exact", mode = "async", ordering = "auto", solver = "auto", sweep_order = "auto";
  double tol = 1e-6;
  int max_iters = 5000, restart = 30;
  std::string tri_solve = "auto";
  int tri_solve_sweeps = -1;
  std::string bucket_counting = "team", candidate_kernel = "auto", sweep_kernel = "auto";
  long long team_select_max = -1;
  long long bucket_select_max = -1;
  bool no_baselines = false, pattern_study = false, compare = false, all_steps = false, shift_whole_phase = false;
  int initial_sweeps = -1, max_sweeps = 10, initial_max_sweeps = 30;
  // the driver shifts on a breakdown by default (the library's default is no shift): a study should show what the
  // method can do, and IC(0) / ParICT starting from it do not exist for e.g. bcsstk14, whose ICT does
  double sweep_tolerance = 0.1, initial_sweep_tolerance = 1e-3, pivot_tolerance = 1e-8, diagonal_shift = 1e-3;
  double baseline_seconds = 1.5;
  LaunchOptions launch;
  int runs = 1;
};

inline void define(Cli& cli, Options& o, bool ict) {
  cli.about(ict ? "ParICT (PCG) after 0..S steps vs IC(0) and a serial ICT of equal nnz; b = ones, x0 = 0."
                : "ParILUT (GMRES) after 0..S steps vs ILU(0) and a serial ILUT of equal nnz; b = ones, x0 = 0.");
  add_matrix_argument(cli, o.problem);
  cli.option("steps", o.steps, "most ParILUT steps S (the table shows 0..S; fewer: --stagnation-tolerance)");
  cli.option("stagnation-tolerance", o.stagnation_tolerance,
             "stop when a step improved the ILU residual by less than this fraction, as par_ilut_numeric does");
  cli.option("fill-limit", o.fill_limit, "fill budget per factor, times the entries of the ILU(0) factor");
  cli.choice("select", o.select, {"exact", "approx", "approximate"}, "threshold selection");
  cli.choice("mode", o.mode, {"async", "deterministic"}, "sweeps");
  cli.choice("sweep-order", o.sweep_order, {"auto", "concurrent", "ordered"},
             "order of the updates in a sweep: concurrent, ordered (row order, level by level: Gauss-Seidel), auto "
             "(concurrent; ordered where that breaks down or diverges, as the preconditioners do; the library's "
             "default is concurrent)");
  cli.choice("ordering", o.ordering, {"auto", "rcm", "natural"}, "auto: rcm for files, natural for generators");
  cli.choice("solver", o.solver, {"cg", "gmres", "auto"},
             ict ? "Krylov solver (auto: cg)" : "Krylov solver (auto: gmres)");
  cli.option("tol", o.tol, "relative residual tolerance");
  cli.option("max-iters", o.max_iters, "iteration limit");
  cli.option("restart", o.restart, "GMRES restart length");
  cli.tri_solve_options(o.tri_solve, o.tri_solve_sweeps);
  cli.choice("bucket-counting", o.bucket_counting, {"team", "global"}, "SampleSelect bucket counts");
  cli.choice("candidate-kernel", o.candidate_kernel, {"auto", "bitmap", "sort"},
             "pattern of the candidate phase (auto: bitmap where a row's column span fits the scratch memory)");
  cli.choice(
      "sweep-kernel", o.sweep_kernel, {"auto", "entry", "list", "row_team"},
      "kernel of the concurrent sweeps (auto: the library's rule: on GPUs row_team for matrices of many rows, list for "
      "pattern-reusing phases, entry otherwise; list: each entry sums a product list built once per pattern; row_team: "
      "a team stages each row of L once for the row's updates, --vector-length lanes, --chunk-size rows and "
      "--team-size threads per team)");
  cli.option("team-select-max", o.team_select_max,
             "exact selection of at most this many magnitudes in one kernel of one team instead of SampleSelect "
             "(-1: the default rule, GPUs 32768, host 0; 0: always SampleSelect)");
  cli.option(
      "bucket-select-max", o.bucket_select_max,
      "exact selection of more magnitudes than --team-select-max and at most this many by one SampleSelect level "
      "and the one-team select on its bucket, all on the device, instead of SampleSelect (-1: the default rule, "
      "GPUs 1048576, host 0; 0: never)");
  cli.flag("no-baselines", o.no_baselines, "skip the unpreconditioned solve and the serial ILU(0)/ILUT references");
  cli.option("initial-sweeps", o.initial_sweeps,
             "sweeps on the pattern of A before step 1 (toward the fixed-point ILU(0)/IC(0)); -1 adaptive, 0 none");
  cli.option("sweep-tolerance", o.sweep_tolerance,
             "adaptive sweeps: sweep again while the pattern residual > this x the phase's first (0: one sweep)");
  cli.option("max-sweeps", o.max_sweeps, "most sweeps of an adaptive phase");
  cli.option("initial-sweep-tolerance", o.initial_sweep_tolerance,
             "the same rule for the adaptive initial sweeps (stricter: step 0 starts far from its fixed point)");
  cli.option("initial-max-sweeps", o.initial_max_sweeps, "most adaptive initial sweeps");
  cli.option("pivot-tolerance", o.pivot_tolerance,
             "pivots below this (scaled matrix) are replaced, in the parallel and the serial factorizations alike "
             "(0: a zero / non-positive pivot is a breakdown)");
  cli.option("diagonal-shift", o.diagonal_shift,
             "on a breakdown, start over on A_s + alpha I, alpha = this, 10x, ... <= 1 (the parallel and the serial "
             "factorizations alike; 0: no retry; the library's default is 0)");
  cli.flag("shift-whole-phase", o.shift_whole_phase,
           "with a diagonal shift, shift the steps too (default: the initial guess only, the steps factor A_s, and "
           "the whole phase only where that fails)");
  cli.option("baseline-seconds", o.baseline_seconds,
             "time budget of each baseline: the unpreconditioned solve stops (and says so) when it cannot converge "
             "within it, the serial ILUT/ICT is skipped (with a note) when it has not finished");
  cli.flag("all-steps", o.all_steps, "run all S steps, also after an unchanged pattern or a stagnating step");
  cli.flag("compare", o.compare,
           ict ? "one table: IC(0), serial ICT, ParICT 0..S with iterations, ILU residual, nnz, time"
               : "one table: ILU(0), serial ILUT, ParILUT 0..S with iterations, ILU residual, nnz, time");
  cli.flag("pattern-study", o.pattern_study,
           ict ? "also solve with the exact IC on the ICT pattern and on the final ParICT pattern (pattern vs values)"
               : "also solve with the exact ILU on the ILUT pattern and on the final ParILUT pattern (pattern vs "
                 "values)");
  cli.launch_options(o.launch);
  cli.option(
      "runs", o.runs,
      "runs of the steps and their solves (median, quartiles and worst case per step; launch seed --seed + run)");
}

}  // namespace cmd_ilut_local
}  // namespace Driver
}  // namespace AsyncSparse
