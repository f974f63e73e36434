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

#include <cmath>
#include <limits>
#include <memory>
#include <tuple>
#include <utility>

#include "driver_device.hpp"

namespace AsyncSparse {
namespace Driver {
namespace {

using CrsD = Crs<double, Device>;
using Prec = PreconditionerBase<double, Device>;

// ---------------------------------------------------------------------------------------------------------
// parse
// ---------------------------------------------------------------------------------------------------------

struct Options {
  ProblemOptions problem;
  int steps = 5;
  double fill_limit = 1;
  std::string select = "exact", mode = "async", ordering = "auto", solver = "auto";
  double tol = 1e-6;
  int max_iters = 5000, restart = 30;
  std::string tri_solve = "auto";
  int tri_solve_sweeps = -1;
  std::string bucket_counting = "team";
  bool no_baselines = false, pattern_study = false;
  LaunchOptions launch;
  int runs = 1;
};

void define(Cli& cli, Options& o, bool ict) {
  cli.about(ict ? "ParICT (PCG) after 0..S steps vs IC(0) and a serial ICT of equal nnz; b = ones, x0 = 0."
                : "ParILUT (GMRES) after 0..S steps vs ILU(0) and a serial ILUT of equal nnz; b = ones, x0 = 0.");
  add_matrix_argument(cli, o.problem);
  cli.option("steps", o.steps, "ParILUT steps S (the table shows 0..S)");
  cli.option("fill-limit", o.fill_limit, "fill budget per factor, times the entries of the ILU(0) factor");
  cli.choice("select", o.select, {"exact", "approx", "approximate"}, "threshold selection");
  cli.choice("mode", o.mode, {"async", "deterministic"}, "sweeps");
  cli.choice("ordering", o.ordering, {"auto", "rcm", "natural"}, "auto: rcm for files, natural for generators");
  cli.choice("solver", o.solver, {"cg", "gmres", "auto"},
             ict ? "Krylov solver (auto: cg)" : "Krylov solver (auto: gmres)");
  cli.option("tol", o.tol, "relative residual tolerance");
  cli.option("max-iters", o.max_iters, "iteration limit");
  cli.option("restart", o.restart, "GMRES restart length");
  cli.tri_solve_options(o.tri_solve, o.tri_solve_sweeps);
  cli.choice("bucket-counting", o.bucket_counting, {"team", "global"}, "SampleSelect bucket counts");
  cli.flag("no-baselines", o.no_baselines, "skip the unpreconditioned solve and the serial ILU(0)/ILUT references");
  cli.flag("pattern-study", o.pattern_study,
           ict ? "also solve with the exact IC on the ICT pattern and on the final ParICT pattern (pattern vs values)"
               : "also solve with the exact ILU on the ILUT pattern and on the final ParILUT pattern (pattern vs "
                 "values)");
  cli.launch_options(o.launch);
  cli.option("runs", o.runs,
             "runs of the steps and their solves (median, quartiles and worst case per step; launch seed --seed + run)");
}

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
  bool spd = false, baselines = true;
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
  h.params.max_steps = o.steps;
  h.params.fill_in_limit = o.fill_limit;
  h.params.selection = threshold_selection_from_string(o.select);
  h.params.mode = sweep_mode_from_string(o.mode);
  h.params.select.counting =
      o.bucket_counting == "global" ? BucketCounting::GlobalAtomics : BucketCounting::TeamAtomics;
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
  }
  return o;
}

/// The solver with the preconditioner S (L U)^{-1} S of the given factors (on the host or the device).
/// With `tri` given, the resolved triangular-solve mode and the auto rule's reason are written there.
template <class Factor>
SolverResult solve_with(const Setup& s, const Factor& L, const Factor& U, bool unit_lower, const std::string& label,
                        std::pair<std::string, std::string>* tri = nullptr) {
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
  return solve_ones(s.A, &M, s.spd, s.sp);
}

/// ParILUT / ParICT, one step at a time, a solve after each; then the residual of the final factors.
std::vector<Outcome> par_steps(Setup& s, std::string& breakdown) {
  s.h.params.kind = s.ict ? ParIlutKind::Ict : ParIlutKind::Ilut;
  {  // the initial guess (no step, no residual); the steps one at a time below
    const auto params = s.h.params;
    s.h.params.max_steps = 0;
    s.h.params.compute_residual = false;
    par_ilut_symbolic(s.exec, s.h, s.A);
    par_ilut_numeric(s.exec, s.h, s.A);
    s.h.params = params;
  }
  std::vector<Outcome> runs;
  {
    Progress prog(s.cmd + " steps", s.h.params.max_steps);
    for (int step = 0; step <= s.h.params.max_steps; ++step) {
      prog.update(step, step > 0 ? "(step " + std::to_string(step) + ", solve)" : "(solve)");
      auto o = guarded([&](Outcome& out) {
        if (step > 0) par_ilut_step(s.exec, s.h);
        std::pair<std::string, std::string> tri;
        out.result = solve_with(s, par_ilut_lower(s.exec, s.h), par_ilut_upper(s.exec, s.h), !s.ict, s.P, &tri);
        std::tie(s.tri_mode, s.tri_reason) = tri;
      });
      runs.push_back(o);
      if (!o.ran) {
        breakdown = o.error;
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

Baselines baselines(const Setup& s, offset_t nnzL, offset_t nnzU) {
  Baselines b;
  const auto& As = s.scaled.A;
  b.none = guarded([&](Outcome& o) { o.result = solve_ones(s.A, nullptr, s.spd, s.sp); });
  if (s.ict) {
    b.level0 = guarded([&](Outcome& o) {
      const auto L0 = Reference::ic0(As);
      o.nnz = L0.nnz();
      o.result = solve_with(s, L0, Reference::transpose(L0), false, "IC(0)");
    });
    b.serial = guarded([&](Outcome& o) {
      const auto Lt = Reference::ict_nnz(As, nnzL);
      o.nnz = Lt.nnz();
      o.result = solve_with(s, Lt, Reference::transpose(Lt), false, "ICT");
    });
  } else {
    b.level0 = guarded([&](Outcome& o) {
      const auto F0 = Reference::ilu0(As);
      o.nnz = F0.L.nnz() + F0.U.nnz();
      o.result = solve_with(s, F0.L, F0.U, true, "ILU(0)");
    });
    b.serial = guarded([&](Outcome& o) {
      const auto Ft = Reference::ilut_nnz(As, nnzL, nnzU);
      o.nnz = Ft.L.nnz() + Ft.U.nnz();
      o.result = solve_with(s, Ft.L, Ft.U, true, "ILUT");
    });
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
  if (!o.ran) return o.error.empty() ? "-" : (o.diverged ? "diverged" : "breakdown");
  const auto& r = o.result;
  return std::to_string(r.iterations) + (r.converged() ? "" : std::string("(") + to_string(r.status) + ")");
}

Json outcome_json(const Outcome& o) {
  Json j = o.ran ? Json(o.result) : Json::object();
  if (!o.error.empty()) j["breakdown"] = o.error;
  if (o.diverged) j["diverged"] = true;
  j["nnz"] = o.nnz;
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
  Table t2({"step", "nnz(L)", "nnz(U)", "nnz/budget", "+cand L", "+cand U", "thresh L", "thresh U", "ILU resid.",
            "iters", "cand [s]", "sweep [s]", "select [s]", "remove [s]", "step [s]"});
  Json steps = Json::array();
  for (std::size_t k = 0; k < st.steps.size(); ++k) {
    const auto& ss = st.steps[k];
    const offset_t nn = ss.nnz_L + (ict ? 0 : ss.nnz_U);
    t2.row({std::to_string(ss.step), std::to_string(ss.nnz_L), ict ? "-" : std::to_string(ss.nnz_U),
            fmt("%.3f", static_cast<double>(nn) / static_cast<double>(budget)), std::to_string(ss.candidates_L),
            ict ? "-" : std::to_string(ss.candidates_U), fmt("%.2e", ss.threshold_L),
            ict ? "-" : fmt("%.2e", ss.threshold_U), fmt("%.3e", ss.residual),
            k < par_runs.size() ? its(par_runs[k]) : "-", fmt("%.4f", ss.candidates_seconds),
            fmt("%.4f", ss.sweep_seconds), fmt("%.4f", ss.select_seconds), fmt("%.4f", ss.remove_seconds),
            fmt("%.4f", ss.total_seconds)});
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
    std::string breakdown;
    all.push_back(outcome_of(s, par_steps(s, breakdown)));
  }
  s.h.launch.seed = seed0;
  Table t({"step", "iterations median [q1, q3] max", "ILU resid. median [q1, q3] max", "failed runs"});
  Json steps = Json::array();
  for (int k = 0; k <= s.h.params.max_steps; ++k) {
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
    steps.push_back(Json{{"step", k}, {"iterations", si}, {"ilu_residual", sr}, {"failed_runs", failed},
                         {"iterations_values", its}, {"ilu_residual_values", res}});
  }
  std::cout << "\n" << s.P << " over " << runs << " runs (launch seed --seed + run; failed: the run broke down, "
            << "diverged, did not converge or did not reach the step; it counts as the worst case, nan)\n";
  t.print();
  return Json{{"runs", runs}, {"steps", steps}};
}

class Threshold : public Command {
 public:
  explicit Threshold(bool ict) : ict_(ict) {}
  void define(Cli& cli) override { Driver::define(cli, o_, ict_); }
  int run(Json& rec) override {
    if (o_.runs < 1) throw InvalidInput(std::string(ict_ ? "ict" : "ilut") + ": --runs must be >= 1, got " +
                                        std::to_string(o_.runs));
    Setup s(ict_, o_, rec);
    std::string breakdown;
    const std::vector<Outcome> par_runs = par_steps(s, breakdown);
    const auto& st = s.h.stats();
    const offset_t nnzL = st.steps.back().nnz_L, nnzU = ict_ ? 0 : st.steps.back().nnz_U;
    const Baselines b = s.baselines ? baselines(s, nnzL, nnzU) : Baselines();
    const bool study = o_.pattern_study && breakdown.empty();
    const std::vector<StudyRow> rows = study ? pattern_study(s, nnzL, nnzU) : std::vector<StudyRow>();
    // report
    const Json steps = step_tables(s, par_runs, b);
    if (!breakdown.empty()) std::cout << s.P << ": " << breakdown << "\n";
    if (study) rec["pattern_study"] = study_table(s, rows);
    if (!b.level0.error.empty()) std::cout << (ict_ ? "IC(0): " : "ILU(0): ") << b.level0.error << "\n";
    if (!b.serial.error.empty()) std::cout << (ict_ ? "ICT: " : "ILUT: ") << b.serial.error << "\n";
    Json check_record;
    const bool ok = checks(s, par_runs, b, o_.fill_limit, check_record, rec);
    rec["kind"] = s.cmd;
    rec["budget_L"] = st.budget_L;
    rec["budget_U"] = st.budget_U;
    rec["steps"] = steps;
    rec["launch"] = st.launch;
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

}  // namespace
}  // namespace Driver
}  // namespace AsyncSparse
