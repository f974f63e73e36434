// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse ilut / ict — ParILUT (GMRES) and ParICT (PCG) preconditioner quality after 0..S steps, next to
// ILU(0)/IC(0) and a serial ILUT/ICT with the same number of nonzeros: the tables of Anzt, Ribizel, Flegar, Chow
// & Dongarra (IPDPS 2019 slides, "Convergence: GMRES / CG iterations"), plus the pattern size, the residual and
// the time of each phase (candidates, sweeps, select, remove) per step. With --runs R the steps (and their solves)
// run R times: median, quartiles and worst case of the iterations and the ILU residual per step.
//
// Conventions (DESIGN.md): b = ones, x0 = 0, relative residual 1e-6; matrix files are RCM-ordered, generators
// keep their natural order; every factorization is of the unit-diagonal scaled matrix A_s = S A S and applied as
// S (L U)^{-1} S. The serial ILUT/ICT is Reference::ilut_nnz / ict_nnz on A_s with the final ParILUT nnz(L),
// nnz(U) as budgets.
#include <asyncsparse/core/AsyncSparse_rcm.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>
#include <utility>

#include "cmd_ilut_options.hpp"
#include "driver_device.hpp"

namespace AsyncSparse {
namespace Driver {
namespace cmd_ilut_local {

using CrsD = Crs<double, Device>;
using Prec = PreconditionerBase<double, Device>;

// ---------------------------------------------------------------------------------------------------------
// prepare
// ---------------------------------------------------------------------------------------------------------

/// The prepared run: the ordered matrix, its unit-diagonal scaling, the solver settings and the handle.
struct Setup {
  Setup(bool ict_, const Options& o, Json& rec);
  bool ict;
  std::string cmd, P;  ///< "ilut" / "ict", "ParILUT" / "ParICT"
  Problem problem;
  std::string ordering, solver;
  bool spd = false, baselines = true, all_steps = false, compare = false;
  double baseline_seconds = 1.5;
  SolverParams sp;
  TriSolveKind tri = TriSolveKind::Auto;
  int tri_sweeps = -1;
  std::string tri_mode, tri_reason;  ///< the resolved triangular-solve mode of the ParILUT/ParICT solves, and why
  CrsD A;
  ScaledMatrix<double> scaled;
  Kokkos::View<double*, Device> s;
  ExecSpace exec;
  ParIlutHandle<double, Device> h;
};

Setup::Setup(bool ict_, const Options& o, Json& rec)
    : ict(ict_), cmd(ict_ ? "ict" : "ilut"), P(ict_ ? "ParICT" : "ParILUT") {
  problem = load_problem(cmd, o.problem, rec);
  ordering = o.ordering == "auto" ? (is_generator_spec(problem.spec) ? "natural" : "rcm") : o.ordering;
  if (ordering == "rcm") problem.A = permute_symmetric(problem.A, rcm_permutation(problem.A));
  const auto props = analyze(problem.A);
  if (ict && !(props.symmetric_values && props.positive_diagonal))
    throw InvalidInput(cmd + ": ParICT needs a symmetric matrix with positive diagonal");
  solver = o.solver == "auto" ? (ict ? "cg" : "gmres") : o.solver;
  spd = solver == "cg";
  sp.tol = o.tol;
  sp.max_iterations = o.max_iters;
  sp.restart = o.restart;
  sp.record_history = false;
  tri = tri_solve_kind_from_string(o.tri_solve);
  tri_sweeps = o.tri_solve_sweeps;
  baselines = !o.no_baselines;
  rec["ordering"] = ordering;
  rec["solver"] = solver;
  A = to_device<Device>(problem.A);
  scaled = scale_unit_diagonal(problem.A);
  s = to_device<Device>(scaled.s);
  all_steps = o.all_steps;
  compare = o.compare;
  baseline_seconds = o.baseline_seconds;
  if (!(baseline_seconds > 0)) throw InvalidInput(cmd + ": --baseline-seconds must be > 0");
  h.params.initial_sweeps = o.initial_sweeps;
  h.params.sweep_tolerance = o.sweep_tolerance;
  h.params.max_sweeps = o.max_sweeps;
  h.params.initial_sweep_tolerance = o.initial_sweep_tolerance;
  h.params.initial_max_sweeps = o.initial_max_sweeps;
  h.params.pivot_tolerance = o.pivot_tolerance;
  h.params.diagonal_shift = o.diagonal_shift;
  h.params.max_steps = o.steps;
  h.params.stagnation_tolerance = o.stagnation_tolerance;
  h.params.fill_in_limit = o.fill_limit;
  h.params.selection = threshold_selection_from_string(o.select);
  h.params.mode = sweep_mode_from_string(o.mode);
  h.params.sweep_order = sweep_order_from_string(o.sweep_order);
  h.params.shift_initial_only = !o.shift_whole_phase;
  h.params.select.counting =
      o.bucket_counting == "global" ? BucketCounting::GlobalAtomics : BucketCounting::TeamAtomics;
  h.params.candidate_kernel = candidate_kernel_from_string(o.candidate_kernel);
  h.params.sweep_kernel = par_ilut_sweep_kernel_from_string(o.sweep_kernel);
  h.params.team_select_max = o.team_select_max;
  h.params.bucket_select_max = o.bucket_select_max;
  h.launch = launch_config(o.launch);
}

// ---------------------------------------------------------------------------------------------------------
// run
// ---------------------------------------------------------------------------------------------------------

/// A solve, or the breakdown of the factorization that should have produced its preconditioner.
struct Outcome {
  bool ran = false;
  SolverResult result;
  std::string error;  ///< what() of a BreakdownError or DivergenceError
  bool diverged = false;
  offset_t nnz = 0;
  double factor_seconds = -1.0;  ///< time of the factorization (-1: not measured)
  double residual = -1.0;        ///< relative ILU residual of the factors (-1: not computed)
  offset_t pivots_replaced = 0;
  double shift = 0.0;  ///< diagonal shift of the factors (--diagonal-shift)
  std::string note;    ///< e.g. why a baseline stopped early
};

template <class F>
Outcome guarded(F&& f) {
  Outcome o;
  try {
    f(o);
    o.ran = true;
  } catch (const BreakdownError& e) {
    o.error = e.what();
  } catch (const DivergenceError& e) {
    o.error = e.what();
    o.diverged = true;
  } catch (const Reference::TimeLimitExceeded&) {  // the note says why
  }
  return o;
}

/// The solver with the preconditioner S (L U)^{-1} S of the given factors (on the host or the device).
/// With `tri` given, the resolved triangular-solve mode and the auto rule's reason are written there.
template <class Factor>
SolverResult solve_with(const Setup& s, const Factor& L, const Factor& U, bool unit_lower, const std::string& label,
                        std::pair<std::string, std::string>* tri = nullptr, double max_seconds = 0.0) {
  const auto to_dev = [](const auto& M) {
    if constexpr (std::is_same<std::decay_t<decltype(M)>, CrsD>::value)
      return M;
    else
      return to_device<Device>(M);
  };
  IncompleteFactorPreconditioner<double, Device> M(s.A, to_dev(L), to_dev(U), unit_lower, s.s, s.tri, s.tri_sweeps,
                                                   label);
  M.compute();
  if (tri) *tri = {M.tri_solve_mode(), M.tri_solve_reason()};
  SolverParams sp = s.sp;
  sp.max_seconds = max_seconds;
  return solve_ones(s.A, &M, s.spd, sp);
}

/// A breakdown in step `step` (run one at a time): the whole factorization again with `step` steps through
/// par_ilut_numeric, which restarts on A_s + alpha I (Params::diagonal_shift) and with ordered sweeps
/// (Params::sweep_order auto) where it breaks down; its factors replace the step's, the note says so. Returns the
/// step's outcome (the old one when this fails too).
Outcome recompute_with_shift(Setup& s, int step, const Outcome& failed) {
  const auto params = s.h.params;
  s.h.params.max_steps = step;
  s.h.params.compute_residual = false;
  Outcome o = guarded([&](Outcome& out) {
    par_ilut_numeric(s.exec, s.h, s.A);
    out.result = solve_with(s, par_ilut_lower(s.exec, s.h), par_ilut_upper(s.exec, s.h), !s.ict, s.P);
  });
  s.h.params = params;
  if (!o.ran) return failed;
  o.note = "step " + std::to_string(step) + (failed.diverged ? " diverged (" : " broke down (") + failed.error +
           "); recomputed with " + std::to_string(s.h.stats().steps_done) + " steps by par_ilut_numeric" +
           (s.h.stats().ordered ? ", ordered sweeps" : "") +
           (s.h.stats().shift > 0 ? std::string(s.h.stats().shift_initial_only ? ", initial guess" : "") +
                                        ", on A_s + " + fmt("%g", s.h.stats().shift) + " I"
                                  : std::string());
  return o;
}

/// ParILUT / ParICT, one step at a time, a solve after each; then the residual of the final factors.
std::vector<Outcome> par_steps(Setup& s, std::string& breakdown, std::string& note) {
  s.h.params.kind = s.ict ? ParIlutKind::Ict : ParIlutKind::Ilut;
  std::vector<Outcome> runs;
  {  // the initial guess and its sweeps (step 0, no residual); the steps one at a time below
    const auto params = s.h.params;
    s.h.params.max_steps = 0;
    s.h.params.compute_residual = false;
    par_ilut_symbolic(s.exec, s.h, s.A);
    const auto o = guarded([&](Outcome&) { par_ilut_numeric(s.exec, s.h, s.A); });
    s.h.params = params;
    if (!o.ran) {  // reported with the baselines, which still run
      breakdown = o.error;
      runs.push_back(o);
      return runs;
    }
  }
  {
    Progress prog(s.cmd + " steps", s.h.params.max_steps);
    for (int step = 0; step <= s.h.params.max_steps; ++step) {
      prog.update(step, step > 0 ? "(step " + std::to_string(step) + ", solve)" : "(solve)");
      bool stagnated = false;  // par_ilut_step declined: the last step improved the residual too little
      auto o = guarded([&](Outcome& out) {
        if (step > 0 && !par_ilut_step(s.exec, s.h, !s.all_steps)) {
          stagnated = true;
          return;
        }
        std::pair<std::string, std::string> tri;
        out.result = solve_with(s, par_ilut_lower(s.exec, s.h), par_ilut_upper(s.exec, s.h), !s.ict, s.P, &tri);
        std::tie(s.tri_mode, s.tri_reason) = tri;
      });
      if (stagnated) {  // the step before improved the residual by less than the tolerance
        const double r0 = s.h.stats().steps.end()[-2].residual, r1 = s.h.stats().steps.back().residual;
        note = "steps " + std::to_string(step) + ".." + std::to_string(s.h.params.max_steps) + " not run: step " +
               std::to_string(step - 1) + " improved the ILU residual by less than --stagnation-tolerance " +
               fmt("%g (", s.h.params.stagnation_tolerance) + fmt("%.3e -> ", r0) + fmt("%.3e, ", r1) +
               fmt("%+.2g", 100.0 * (r1 / r0 - 1.0)) + " %; par_ilut_numeric stops there too; --all-steps runs them)";
        break;
      }
      if (!o.ran && step > 0 && (s.h.params.diagonal_shift > 0 || s.h.params.sweep_order == SweepOrder::Auto))
        o = recompute_with_shift(s, step, o);
      runs.push_back(o);
      if (!o.ran) {
        breakdown = o.error;
        break;
      }
      const auto& last = s.h.stats().steps.back();
      if (step > 0 && step < s.h.params.max_steps && last.pattern_unchanged && !s.all_steps) {
        note = "steps " + std::to_string(step + 1) + ".." + std::to_string(s.h.params.max_steps) + " not run: step " +
               std::to_string(step) + " removed all " + std::to_string(last.candidates_L + last.candidates_U) +
               " candidates again and left the pattern unchanged (a fixed point of the pattern iteration; "
               "--all-steps runs them)";
        break;
      }
    }
  }
  if (breakdown.empty()) {  // residual of the final factors
    const auto o = guarded([&](Outcome&) { par_ilut_residual(s.exec, s.h); });
    if (!o.ran) {
      breakdown = o.error;
      runs.back() = o;
    }
  }
  return runs;
}

struct Baselines {
  Outcome none, level0, serial;  ///< no preconditioner, ILU(0) / IC(0), ILUT / ICT of equal nnz
};

/// The unpreconditioned solve within Setup::baseline_seconds (SolverParams::max_seconds): one that cannot converge
/// within it is reported as hopeless rather than run to the iteration limit.
Outcome unpreconditioned(const Setup& s) {
  return guarded([&](Outcome& o) {
    SolverParams sp = s.sp;
    sp.max_seconds = s.baseline_seconds;
    o.result = solve_ones(s.A, nullptr, s.spd, sp);
    if (o.result.status == SolverStatus::MaxIterations && o.result.iterations < s.sp.max_iterations)
      o.note = "no preconditioner: not converged in " + std::to_string(o.result.iterations) + " iterations (" +
               fmt("%.2f", o.result.time_seconds) + " s, budget --baseline-seconds " + fmt("%g", s.baseline_seconds) +
               "); stopped as hopeless instead of running to --max-iters " + std::to_string(s.sp.max_iterations);
  });
}

/// A serial reference factorization as a baseline: factors (timed), their ILU residual with --compare, the solve.
template <class Factorize>
Outcome serial_baseline(const Setup& s, const std::string& label, Factorize&& factorize) {
  return guarded([&](Outcome& o) {
    const auto& As = s.scaled.A;
    Reference::FactorOptions rule;
    rule.pivot_tolerance = s.h.params.pivot_tolerance;
    rule.pivots_replaced = &o.pivots_replaced;
    rule.max_seconds = s.baseline_seconds;
    rule.diagonal_shift = s.h.params.diagonal_shift;
    rule.shift_used = &o.shift;
    Kokkos::Timer timer;
    Reference::IluFactors F;
    try {
      F = factorize(As, rule);
    } catch (const Reference::TimeLimitExceeded& e) {
      o.note = label + ": skipped, " + e.what() +
               " — its fill during the elimination grows without bound here; "
               "--baseline-seconds raises the limit";
      throw;
    }
    o.factor_seconds = timer.seconds();
    o.nnz = F.L.nnz() + (s.ict ? 0 : F.U.nnz());
    if (s.compare)
      o.residual = (s.ict ? Reference::ilu_residual(As, F.L) : Reference::ilu_residual(As, F.L, F.U)) /
                   Reference::frobenius_norm(As);
    // the solve of a baseline is bounded too (2 x --baseline-seconds; SolverResult::message says so)
    o.result = solve_with(s, F.L, F.U, !s.ict, label, nullptr, 2.0 * s.baseline_seconds);
    if (o.result.status == SolverStatus::MaxIterations && o.result.iterations < s.sp.max_iterations)
      o.note = label + ": solve stopped after " + std::to_string(o.result.iterations) +
               " iterations by the time limit (2 x --baseline-seconds)";
  });
}

Baselines baselines(const Setup& s, offset_t nnzL, offset_t nnzU) {
  using Rule = Reference::FactorOptions;
  using CH = CsrHost<double>;
  Baselines b;
  b.none = unpreconditioned(s);
  if (s.ict) {
    b.level0 = serial_baseline(s, "IC(0)", [](const CH& As, Rule r) {
      auto L = Reference::ic0(As, r);
      return Reference::IluFactors{L, Reference::transpose(L)};
    });
    b.serial = serial_baseline(s, "ICT", [nnzL](const CH& As, Rule r) {
      auto L = Reference::ict_nnz(As, nnzL, r);
      return Reference::IluFactors{L, Reference::transpose(L)};
    });
  } else {
    b.level0 = serial_baseline(s, "ILU(0)", [](const CH& As, Rule r) { return Reference::ilu0(As, r); });
    b.serial = serial_baseline(s, "ILUT",
                               [nnzL, nnzU](const CH& As, Rule r) { return Reference::ilut_nnz(As, nnzL, nnzU, r); });
  }
  return b;
}

/// --pattern-study: the fixed point (L U)_S = A_S of the sweeps on the serial ILUT/ICT pattern and on the final
/// ParILUT/ParICT pattern, next to the values ILUT/ICT and the sweeps produced on them.
struct StudyRow {
  std::string pattern, values;
  offset_t nnz = 0;
  double residual = -1.0;
  Outcome run;
};

std::vector<StudyRow> pattern_study(Setup& s, offset_t nnzL, offset_t nnzU) {
  std::vector<StudyRow> study;
  const auto& As = s.scaled.A;
  const double a_norm = Reference::frobenius_norm(As);
  auto add = [&](const std::string& pattern, const std::string& values, const CsrHost<double>& L,
                 const CsrHost<double>& U, bool unit_lower) {
    StudyRow r;
    r.pattern = pattern;
    r.values = values;
    r.nnz = L.nnz() + (s.ict ? 0 : U.nnz());
    r.residual = Reference::ilu_residual(As, L, U) / a_norm;
    r.run = guarded([&](Outcome& o) {
      o.nnz = r.nnz;
      o.result = solve_with(s, L, U, unit_lower, pattern + ", " + values);
    });
    study.push_back(r);
  };
  auto add_fixed_point = [&](const std::string& pattern, const CsrHost<double>& L, const CsrHost<double>& U) {
    try {
      if (s.ict) {
        const auto Lf = Reference::ic_on_pattern(As, L);
        add(pattern, "fixed point", Lf, Reference::transpose(Lf), false);
      } else {
        const auto Ff = Reference::ilu_on_pattern(As, Reference::IluFactors{L, U});
        add(pattern, "fixed point", Ff.L, Ff.U, true);
      }
    } catch (const BreakdownError& e) {
      StudyRow r;
      r.pattern = pattern;
      r.values = "fixed point";
      r.run.error = e.what();
      study.push_back(r);
    }
  };
  const std::string serial = s.ict ? "ICT" : "ILUT";
  if (s.ict) {
    const auto Lt = Reference::ict_nnz(As, nnzL);
    const auto Ut = Reference::transpose(Lt);
    add(serial, serial, Lt, Ut, false);
    add_fixed_point(serial, Lt, Ut);
  } else {
    const auto Ft = Reference::ilut_nnz(As, nnzL, nnzU);
    add(serial, serial, Ft.L, Ft.U, true);
    add_fixed_point(serial, Ft.L, Ft.U);
  }
  const std::string par = s.P + " " + std::to_string(s.h.stats().steps_done);
  const auto Lp = to_host(par_ilut_lower(s.exec, s.h));
  const auto Up = to_host(par_ilut_upper(s.exec, s.h));
  add(par, "sweeps", Lp, Up, !s.ict);
  add_fixed_point(par, Lp, Up);
  return study;
}

// ---------------------------------------------------------------------------------------------------------
// report
// ---------------------------------------------------------------------------------------------------------

std::string its(const Outcome& o) {
  if (!o.ran) return !o.error.empty() ? (o.diverged ? "diverged" : "breakdown") : (o.note.empty() ? "-" : "skipped");
  const auto& r = o.result;
  return std::to_string(r.iterations) + (r.converged() ? "" : std::string("(") + to_string(r.status) + ")");
}

Json outcome_json(const Outcome& o) {
  Json j = o.ran ? Json(o.result) : Json::object();
  if (!o.error.empty()) j["breakdown"] = o.error;
  if (o.diverged) j["diverged"] = true;
  if (!o.note.empty()) j["note"] = o.note;
  j["nnz"] = o.nnz;
  j["pivots_replaced"] = o.pivots_replaced;
  if (o.shift > 0) j["shift"] = o.shift;
  if (o.factor_seconds >= 0) j["factor_seconds"] = o.factor_seconds;
  if (o.residual >= 0) j["ilu_residual"] = o.residual;
  return j;
}

/// Table 1 (iterations, as in the slides) and table 2 (per step: pattern, residual, phase times).
Json step_tables(const Setup& s, const std::vector<Outcome>& par_runs, const Baselines& b) {
  const auto& st = s.h.stats();
  const bool ict = s.ict;
  std::vector<std::string> head = {
      "matrix", "n", "nnz", "solver", "no prec.", ict ? "IC(0)" : "ILU(0)", ict ? "ICT" : "ILUT"};
  for (std::size_t k = 0; k < par_runs.size(); ++k) head.push_back(s.P + " " + std::to_string(k));
  Table t1(head);
  std::vector<std::string> row = {s.problem.name,
                                  std::to_string(s.problem.A.nrows),
                                  std::to_string(s.problem.A.nnz()),
                                  s.solver,
                                  s.baselines ? its(b.none) : "-",
                                  s.baselines ? its(b.level0) : "-",
                                  s.baselines ? its(b.serial) : "-"};
  for (const auto& r : par_runs) row.push_back(its(r));
  t1.row(row);
  t1.print();
  std::cout << "\n";
  const offset_t budget = st.budget_L + (ict ? 0 : st.budget_U);
  Table t2({"step",     "nnz(L)",    "nnz(U)",     "nnz/budget",   "+cand L",    "+cand U",      "kept new",
            "thresh L", "thresh U",  "sweeps",     "pattern res.", "ILU resid.", "pivots repl.", "iters",
            "cand [s]", "sweep [s]", "select [s]", "remove [s]",   "step [s]",   "allocs"});
  Json steps = Json::array();
  for (std::size_t k = 0; k < st.steps.size(); ++k) {
    const auto& ss = st.steps[k];
    const offset_t nn = ss.nnz_L + (ict ? 0 : ss.nnz_U);
    t2.row({std::to_string(ss.step),
            std::to_string(ss.nnz_L),
            ict ? "-" : std::to_string(ss.nnz_U),
            fmt("%.3f", static_cast<double>(nn) / static_cast<double>(budget)),
            std::to_string(ss.candidates_L),
            ict ? "-" : std::to_string(ss.candidates_U),
            k == 0 ? "-" : std::to_string(ss.kept_new_L + ss.kept_new_U),
            fmt("%.2e", ss.threshold_L),
            ict ? "-" : fmt("%.2e", ss.threshold_U),
            std::to_string(ss.sweeps),
            ss.pattern_residual >= 0 ? fmt("%.2e", ss.pattern_residual) : "-",
            fmt("%.3e", ss.residual),
            std::to_string(ss.pivots_replaced),
            k < par_runs.size() ? its(par_runs[k]) : "-",
            fmt("%.4f", ss.candidates_seconds),
            fmt("%.4f", ss.sweep_seconds),
            fmt("%.4f", ss.select_seconds),
            fmt("%.4f", ss.remove_seconds),
            fmt("%.4f", ss.total_seconds),
            k == 0 ? "-" : std::to_string(ss.workspace_allocations)});
    Json j = ss;
    if (k < par_runs.size()) j["solve"] = outcome_json(par_runs[k]);
    steps.push_back(j);
  }
  t2.print();
  return steps;
}

Json study_table(const Setup& s, const std::vector<StudyRow>& study) {
  std::cout << "\npattern vs values (fixed point: the exact incomplete factorization on that pattern, (L U)_S = A_S, "
               "which the sweeps converge to)\n";
  Table t3({"pattern", "values", s.ict ? "nnz(L)" : "nnz(L+U)", "ILU resid.", "iters"});
  Json js = Json::array();
  for (const auto& r : study) {
    t3.row({r.pattern, r.values, r.run.ran ? std::to_string(r.nnz) : "-",
            r.residual >= 0.0 ? fmt("%.3e", r.residual) : "-", its(r.run)});
    Json j = outcome_json(r.run);
    j["pattern"] = r.pattern;
    j["values"] = r.values;
    j["ilu_residual"] = r.residual;
    js.push_back(j);
  }
  t3.print();
  for (const auto& r : study)
    if (!r.run.error.empty()) std::cout << r.pattern << ", " << r.values << ": " << r.run.error << "\n";
  return js;
}

/// --compare: one row per preconditioner — none, ILU(0)/IC(0), serial ILUT/ICT, ParILUT/ParICT after 0..S steps —
/// with iterations, ILU residual ||A_s - L U||_F / ||A_s||_F, nnz, replaced pivots and the times of the
/// factorization (ParILUT k: set-up and steps 1..k) and of the solve.
Json compare_table(const Setup& s, const std::vector<Outcome>& par_runs, const Baselines& b) {
  const auto& st = s.h.stats();
  const std::string L0 = s.ict ? "IC(0)" : "ILU(0)", T = s.ict ? "ICT" : "ILUT";
  std::cout << "\ncomparison (" << s.solver << ", b = ones, x0 = 0, tol " << fmt("%g", s.sp.tol)
            << "; factor time: host reference / device factorization)\n";
  Table t({"preconditioner", s.ict ? "nnz(L)" : "nnz(L+U)", "ILU resid.", "pivots repl.", "factor [s]", "solve [s]",
           "iters"});
  Json rows = Json::array();
  auto add = [&](const std::string& name, const Outcome& o, offset_t nnz, double residual, double factor_s,
                 std::int64_t pivots) {
    const bool solved = o.ran;
    t.row({name, nnz > 0 ? std::to_string(nnz) : "-", residual >= 0 ? fmt("%.3e", residual) : "-",
           std::to_string(pivots), factor_s >= 0 ? fmt("%.4f", factor_s) : "-",
           solved ? fmt("%.4f", o.result.time_seconds) : "-", its(o)});
    Json j = outcome_json(o);
    j["preconditioner"] = name;
    j["nnz"] = nnz;
    j["ilu_residual"] = residual;
    j["factor_seconds"] = factor_s;
    j["pivots_replaced"] = pivots;
    rows.push_back(j);
  };
  if (s.baselines) {
    add("none", b.none, 0, -1.0, -1.0, 0);
    add(L0, b.level0, b.level0.nnz, b.level0.residual, b.level0.factor_seconds, b.level0.pivots_replaced);
    add(T, b.serial, b.serial.nnz, b.serial.residual, b.serial.factor_seconds, b.serial.pivots_replaced);
  }
  double factor = st.setup_seconds;
  for (std::size_t k = 0; k < par_runs.size() && k < st.steps.size(); ++k) {
    const auto& ss = st.steps[k];
    factor += ss.total_seconds;
    add(s.P + " " + std::to_string(k), par_runs[k], ss.nnz_L + (s.ict ? 0 : ss.nnz_U), ss.residual, factor,
        ss.pivots_replaced);
  }
  t.print();
  return rows;
}

/// Acceptance-style checks of the final step (a breakdown fails them; a baseline that broke down or did not
/// converge counts as no bound). True when the final ParILUT/ParICT solve converged.
bool checks(const Setup& s, const std::vector<Outcome>& par_runs, const Baselines& b, double fill_limit, Json& checks,
            Json& rec) {
  const auto& st = s.h.stats();
  const bool ict = s.ict;
  const offset_t budget = st.budget_L + (ict ? 0 : st.budget_U);
  const offset_t nnz_final = st.steps.back().nnz_L + (ict ? 0 : st.steps.back().nnz_U);
  std::cout << "budget nnz(L" << (ict ? "" : "+U") << ") = " << budget << " (fill limit " << fmt("%g", fill_limit)
            << "); sweep launch: " << st.launch.to_string() << "\n";
  // the rule's quantities, as far as it computed them (the span only where the gathered columns asked for it)
  std::string rule = "requested " + std::string(to_string(s.h.params.candidate_kernel));
  if (st.candidate_gathered_per_row >= 0)
    rule += "; " + fmt("%.1f", st.candidate_gathered_per_row) + " columns gathered per row (bitmap from " +
            fmt("%g", Impl::cand_bitmap_min_gathered(Impl::is_gpu_space<ExecSpace>())) + ")";
  if (st.candidate_span_words > 0)
    rule += "; widest row span " + std::to_string(32 * st.candidate_span_words) + " columns";
  if (st.candidate_mean_span_words >= 0)
    rule += "; mean span " + fmt("%.1f", st.candidate_mean_span_words) + " words (bitmap up to " +
            fmt("%g", Impl::cand_bitmap_max_words_per_gathered) + " per gathered column)";
  std::cout << "candidate kernel: " << to_string(st.candidate_kernel) << " (" << rule << ")\n";
  std::cout << "sweep kernel of the last concurrent sweep: " << to_string(st.sweep_kernel) << " ("
            << st.sweep_kernel_rule << ")";
  if (st.sweep_kernel == ParIlutSweepKernel::List)
    std::cout << "; " << st.sweep_products << " products"
              << (st.sweep_gather_group > 1 ? ", loaded " + std::to_string(st.sweep_gather_group) + " at a time" : "");
  if (st.sweep_exact_stretches) std::cout << "; lanes on the shorter of the exact stretches";
  std::cout << "\n";
  std::cout << "working arrays: " << st.workspace.allocations << " device allocations, " << st.workspace.reuses
            << " reuses (numeric phase); " << fmt("%.1f", static_cast<double>(st.workspace.bytes) / 1e6)
            << " MB pooled in the handle (at most "
            << fmt("%.1f", static_cast<double>(st.workspace.peak_bytes_in_use) / 1e6) << " MB in use at once)\n";
  if (!s.tri_mode.empty())
    std::cout << "triangular solves: " << s.tri_mode << (s.tri_reason.empty() ? "" : " (" + s.tri_reason + ")") << "\n";
  rec["tri_solve"] = Json{{"mode", s.tri_mode}, {"reason", s.tri_reason}};
  const bool par_ok = par_runs.back().ran && par_runs.back().result.converged();
  const int it_par = par_runs.back().result.iterations;
  auto bound = [](const Outcome& o) {
    return o.ran && o.result.converged() ? static_cast<double>(o.result.iterations) : 1e300;
  };
  const double nnz_dev = std::abs(static_cast<double>(nnz_final) / static_cast<double>(budget) - 1.0);
  checks = Json::object();
  checks["nnz_within_5_percent_of_budget"] = nnz_dev <= 0.05;
  std::cout << "check: nnz(L" << (ict ? "" : "+U") << ") after step " << st.steps_done << " = " << nnz_final << ", "
            << fmt("%.2f", 100.0 * nnz_dev) << " % from the budget -> " << (nnz_dev <= 0.05 ? "ok" : "NOT within 5 %")
            << "\n";
  if (s.baselines) {
    const bool le0 = par_ok && it_par <= bound(b.level0);
    const bool leT = par_ok && it_par <= 1.15 * bound(b.serial);
    std::cout << "check: " << s.P << " " << st.steps_done << " iterations " << its(par_runs.back())
              << " <= " << (ict ? "IC(0) " : "ILU(0) ") << its(b.level0) << " -> " << (le0 ? "ok" : "NO")
              << "; <= 1.15 x " << (ict ? "ICT " : "ILUT ") << its(b.serial) << " (nnz " << b.serial.nnz << ") -> "
              << (leT ? "ok" : "NO") << "\n";
    checks["iterations_le_level0"] = le0;
    checks["iterations_le_1.15_threshold_serial"] = leT;
    rec["no_preconditioner"] = outcome_json(b.none);
    rec["level0"] = outcome_json(b.level0);
    rec["serial_threshold"] = outcome_json(b.serial);
  }
  return par_ok;
}

// ---------------------------------------------------------------------------------------------------------
// --runs: the outcome of the asynchronous steps as statistics
// ---------------------------------------------------------------------------------------------------------

/// Per step of one run: solver iterations and ILU residual; NaN where the step was not reached, the
/// factorization broke down or diverged, or the solve did not converge (a failure ranks as the worst case).
struct RunOutcome {
  std::vector<double> iterations, residual;
};

RunOutcome outcome_of(const Setup& s, const std::vector<Outcome>& runs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto& steps = s.h.stats().steps;
  RunOutcome o;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const bool ok = runs[k].ran && runs[k].result.converged();
    o.iterations.push_back(ok ? static_cast<double>(runs[k].result.iterations) : nan);
    o.residual.push_back(runs[k].ran && k < steps.size() && steps[k].residual >= 0 ? steps[k].residual : nan);
  }
  return o;
}

/// Runs 2..R of the steps (launch seed + run), after the report of the first; prints and returns, per step, the
/// statistics over all R runs.
Json repeated_runs(Setup& s, const std::vector<Outcome>& first, int runs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<RunOutcome> all{outcome_of(s, first)};
  const std::uint64_t seed0 = s.h.launch.seed;
  for (int r = 1; r < runs; ++r) {
    s.h.launch.seed = seed0 + static_cast<std::uint64_t>(r);
    std::string breakdown, note;  // a run's breakdown shows in its outcome (worst case); notes are not repeated
    all.push_back(outcome_of(s, par_steps(s, breakdown, note)));
  }
  s.h.launch.seed = seed0;
  std::size_t reached = 0;  // a run that stopped earlier (stagnation, unchanged pattern): its final factors
  for (const auto& o : all) reached = std::max(reached, o.iterations.size());
  for (auto& o : all)
    for (std::size_t k = o.iterations.size(); k > 0 && k < reached && !std::isnan(o.iterations.back()); ++k)
      o.iterations.push_back(o.iterations.back()), o.residual.push_back(o.residual.back());
  Table t({"step", "iterations median [q1, q3] max", "ILU resid. median [q1, q3] max", "failed runs"});
  Json steps = Json::array();
  for (int k = 0; k < static_cast<int>(reached); ++k) {
    std::vector<double> its, res;
    int failed = 0;
    for (const auto& o : all) {
      const std::size_t q = static_cast<std::size_t>(k);
      its.push_back(q < o.iterations.size() ? o.iterations[q] : nan);
      res.push_back(q < o.residual.size() ? o.residual[q] : nan);
      failed += std::isnan(its.back()) ? 1 : 0;
    }
    const SampleSummary si = summarize_samples(its), sr = summarize_samples(res);
    t.row({std::to_string(k), spread_text(si, "%.0f"), spread_text(sr, "%.3e"), std::to_string(failed)});
    steps.push_back(Json{{"step", k},
                         {"iterations", si},
                         {"ilu_residual", sr},
                         {"failed_runs", failed},
                         {"iterations_values", its},
                         {"ilu_residual_values", res}});
  }
  std::cout << "\n"
            << s.P << " over " << runs << " runs (launch seed --seed + run; a run that stopped earlier counts with "
            << "its final factors; failed: the run broke down, diverged or did not converge; it counts as the worst "
            << "case, nan)\n";
  t.print();
  return Json{{"runs", runs}, {"steps", steps}};
}

class Threshold : public Command {
 public:
  explicit Threshold(bool ict) : ict_(ict) {}
  void define(Cli& cli) override { cmd_ilut_local::define(cli, o_, ict_); }
  int run(Json& rec) override {
    if (o_.runs < 1)
      throw InvalidInput(std::string(ict_ ? "ict" : "ilut") + ": --runs must be >= 1, got " + std::to_string(o_.runs));
    Setup s(ict_, o_, rec);
    std::string breakdown, note;
    const std::vector<Outcome> par_runs = par_steps(s, breakdown, note);
    const auto& st = s.h.stats();
    const offset_t nnzL = st.steps.back().nnz_L, nnzU = ict_ ? 0 : st.steps.back().nnz_U;
    const Baselines b = s.baselines ? baselines(s, nnzL, nnzU) : Baselines();
    const bool study = o_.pattern_study && breakdown.empty();
    const std::vector<StudyRow> rows = study ? pattern_study(s, nnzL, nnzU) : std::vector<StudyRow>();
    // report
    const Json steps = step_tables(s, par_runs, b);
    if (!breakdown.empty()) std::cout << s.P << ": " << breakdown << "\n";
    if (!note.empty()) std::cout << s.P << ": " << note << "\n";
    for (const auto& r : par_runs)
      if (!r.note.empty()) std::cout << s.P << ": " << r.note << "\n";
    if (st.pivots_replaced > 0)
      std::cout << s.P << ": " << st.pivots_replaced << " pivot(s) below --pivot-tolerance "
                << fmt("%g", s.h.params.pivot_tolerance) << " replaced in the final factors\n";
    if (!b.none.note.empty()) std::cout << b.none.note << "\n";
    if (st.shift > 0)
      std::cout << s.P << ": " << (st.shift_initial_only ? "initial guess" : "factors") << " of A_s + "
                << fmt("%g", st.shift) << " I" << (st.shift_initial_only ? ", steps on A_s," : "") << " after "
                << st.shift_retries << " restart(s) (--diagonal-shift); the first: " << st.shift_reason << "\n";
    if (st.ordered)
      std::cout << s.P << ": ordered sweeps (--sweep-order " << to_string(s.h.params.sweep_order) << "; "
                << st.ordered_levels << " levels, " << st.ordered_launches << " launches per sweep)"
                << (st.ordered_reason.empty() ? std::string() : "; the concurrent ones failed: " + st.ordered_reason)
                << "\n";
    for (const auto* o : {&b.level0, &b.serial}) {
      if (!o->note.empty()) std::cout << o->note << "\n";
      if (o->shift > 0)
        std::cout << (o == &b.level0 ? (ict_ ? "IC(0)" : "ILU(0)") : (ict_ ? "ICT" : "ILUT")) << ": factors of A_s + "
                  << fmt("%g", o->shift) << " diag(|a_ii|) (--diagonal-shift)\n";
      if (o->pivots_replaced > 0)
        std::cout << (o == &b.level0 ? (ict_ ? "IC(0)" : "ILU(0)") : (ict_ ? "ICT" : "ILUT")) << ": "
                  << o->pivots_replaced << " pivot(s) replaced (--pivot-tolerance)\n";
    }
    if (o_.compare) rec["compare"] = compare_table(s, par_runs, b);
    if (study) rec["pattern_study"] = study_table(s, rows);
    if (!b.level0.error.empty()) std::cout << (ict_ ? "IC(0): " : "ILU(0): ") << b.level0.error << "\n";
    if (!b.serial.error.empty()) std::cout << (ict_ ? "ICT: " : "ILUT: ") << b.serial.error << "\n";
    Json check_record;
    const bool ok = checks(s, par_runs, b, o_.fill_limit, check_record, rec);
    rec["kind"] = s.cmd;
    rec["budget_L"] = st.budget_L;
    rec["budget_U"] = st.budget_U;
    rec["steps"] = steps;
    rec["pivot_tolerance"] = s.h.params.pivot_tolerance;
    rec["pivots_replaced"] = st.pivots_replaced;
    rec["diagonal_shift"] = st.shift;
    rec["shift_initial_only"] = st.shift_initial_only;
    rec["sweep_order"] = Json{{"requested", to_string(s.h.params.sweep_order)},
                              {"used", st.ordered ? "ordered" : "concurrent"},
                              {"reason", st.ordered_reason},
                              {"levels", st.ordered_levels},
                              {"launches", st.ordered_launches}};
    rec["initial_sweeps"] = st.steps.front().sweeps;
    if (!note.empty()) rec["note"] = note;
    rec["launch"] = st.launch;
    rec["candidate_kernel"] = Json{{"used", to_string(st.candidate_kernel)},
                                   {"requested", to_string(s.h.params.candidate_kernel)},
                                   {"span_columns", 32 * st.candidate_span_words},
                                   {"gathered_per_row", st.candidate_gathered_per_row},
                                   {"mean_span_words", st.candidate_mean_span_words}};
    rec["sweep_kernel"] = Json{{"kernel", to_string(st.sweep_kernel)},
                               {"rule", st.sweep_kernel_rule},
                               {"products", st.sweep_products},
                               {"gather_group", st.sweep_gather_group},
                               {"exact_stretches", st.sweep_exact_stretches}};
    rec["workspace"] = Json{{"allocations", st.workspace.allocations},
                            {"reuses", st.workspace.reuses},
                            {"bytes", st.workspace.bytes},
                            {"peak_bytes_in_use", st.workspace.peak_bytes_in_use}};
    rec["checks"] = check_record;
    if (!breakdown.empty()) rec["breakdown"] = breakdown;
    if (o_.runs > 1) rec["run_statistics"] = repeated_runs(s, par_runs, o_.runs);
    return ok ? 0 : 3;
  }

 private:
  bool ict_;
  Options o_;
};

Registrar reg_ilut("ilut", "ParILUT steps vs ILU(0) and serial ILUT of equal nnz (GMRES iterations, phase times)",
                   [] { return std::unique_ptr<Command>(new Threshold(false)); });
Registrar reg_ict("ict", "ParICT steps vs IC(0) and serial ICT of equal nnz (PCG iterations, phase times)",
                  [] { return std::unique_ptr<Command>(new Threshold(true)); });

}  // namespace cmd_ilut_local
}  // namespace Driver
}  // namespace AsyncSparse
