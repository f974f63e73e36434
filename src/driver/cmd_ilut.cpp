// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse ilut / ict — ParILUT (GMRES) and ParICT (PCG) preconditioner quality after 0..S steps, next to
// ILU(0)/IC(0) and a serial ILUT/ICT with the same number of nonzeros: the tables of Anzt, Ribizel, Flegar, Chow
// & Dongarra (IPDPS 2019 slides, "Convergence: GMRES / CG iterations"), plus the pattern size, the residual and
// the time of each phase (candidates, sweeps, select, remove) per step.
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
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>

#include <cmath>
#include <memory>

#include "driver_common.hpp"

namespace AsyncSparse {
namespace Driver {
namespace {

using Prec = PreconditionerBase<double, Device>;

std::unique_ptr<Prec> factor_prec(const Crs<double, Device>& A, const CsrHost<double>& L, const CsrHost<double>& U,
                                  bool unit_lower, const Kokkos::View<double*, Device>& s, TriSolveKind kind,
                                  int sweeps, const std::string& label) {
  std::unique_ptr<Prec> M(new IncompleteFactorPreconditioner<double, Device>(
      A, to_device<Device>(L), to_device<Device>(U), unit_lower, s, kind, sweeps, label));
  M->compute();
  return M;
}

std::unique_ptr<Prec> factor_prec(const Crs<double, Device>& A, const Crs<double, Device>& L,
                                  const Crs<double, Device>& U, bool unit_lower, const Kokkos::View<double*, Device>& s,
                                  TriSolveKind kind, int sweeps, const std::string& label) {
  std::unique_ptr<Prec> M(
      new IncompleteFactorPreconditioner<double, Device>(A, L, U, unit_lower, s, kind, sweeps, label));
  M->compute();
  return M;
}

/// A solve, or the breakdown of the factorization that should have produced its preconditioner.
struct Outcome {
  bool ran = false;
  SolverResult result;
  std::string error;  ///< what() of a BreakdownError or DivergenceError
  bool diverged = false;
  offset_t nnz = 0;
};

std::string its(const Outcome& o) {
  if (!o.ran) return o.error.empty() ? "-" : (o.diverged ? "diverged" : "breakdown");
  const auto& r = o.result;
  return std::to_string(r.iterations) + (r.converged() ? "" : std::string("(") + to_string(r.status) + ")");
}

Json to_json(const Outcome& o) {
  Json j = o.ran ? Driver::to_json(o.result) : Json::object();
  if (!o.error.empty()) j["breakdown"] = o.error;
  if (o.diverged) j["diverged"] = true;
  j["nnz"] = o.nnz;
  return j;
}

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

int run_threshold(int argc, char** argv, bool ict) {
  const std::string cmd = ict ? "ict" : "ilut";
  Cli cli(cmd, ict ? "ParICT (PCG) after 0..S steps vs IC(0) and a serial ICT of equal nnz; b = ones, x0 = 0."
                   : "ParILUT (GMRES) after 0..S steps vs ILU(0) and a serial ILUT of equal nnz; b = ones, x0 = 0.");
  cli.positional("matrix", "Matrix Market file or gen:... spec");
  cli.option("steps", "5", "ParILUT steps S (the table shows 0..S)");
  cli.option("fill-limit", "1", "fill budget per factor, times the entries of the ILU(0) factor");
  cli.option("select", "exact", "threshold selection: exact | approx");
  cli.option("mode", "async", "sweeps: async | deterministic");
  cli.option("ordering", "auto", "auto (rcm for files, natural for generators) | rcm | natural");
  cli.option("solver", "auto", ict ? "cg | gmres | auto (cg)" : "cg | gmres | auto (gmres)");
  cli.option("tol", "1e-6", "relative residual tolerance");
  cli.option("max-iters", "5000", "iteration limit");
  cli.option("restart", "30", "GMRES restart length");
  cli.option("tri-solve", "exact", "triangular solves of every preconditioner: exact | jacobi");
  cli.option("tri-solve-sweeps", "5", "Jacobi sweeps per triangular solve");
  cli.option("bucket-counting", "team", "SampleSelect bucket counts: team | global");
  cli.flag("no-baselines", "skip the unpreconditioned solve and the serial ILU(0)/ILUT references");
  cli.flag("pattern-study",
           ict ? "also solve with the exact IC on the ICT pattern and on the final ParICT pattern (pattern vs values)"
               : "also solve with the exact ILU on the ILUT pattern and on the final ParILUT pattern (pattern vs "
                 "values)");
  cli.option("json", "", "write a JSON record to this file");
  cli.launch_options();
  if (!cli.parse(argc, argv)) return 0;
  Json rec = run_record(cmd, cli);

  // matrix, ordering, scaling
  auto Ah = load_for_command(cli.arg("matrix"), &rec);
  check_square(Ah, cmd);
  check_nonempty(Ah, cmd);
  check_finite(Ah, cmd);
  std::string ordering = cli.str("ordering");
  if (ordering == "auto") ordering = is_generator_spec(cli.arg("matrix")) ? "natural" : "rcm";
  if (ordering == "rcm")
    Ah = permute_symmetric(Ah, rcm_permutation(Ah));
  else if (ordering != "natural")
    throw InvalidInput(cmd + ": --ordering must be auto, rcm or natural, got '" + ordering + "'");
  const auto props = analyze(Ah);
  if (ict && !(props.symmetric_values && props.positive_diagonal))
    throw InvalidInput(cmd + ": ParICT needs a symmetric matrix with positive diagonal");
  std::string solver = cli.str("solver");
  if (solver == "auto") solver = ict ? "cg" : "gmres";
  if (solver != "cg" && solver != "gmres") throw InvalidInput(cmd + ": --solver must be cg, gmres or auto");
  const bool spd = solver == "cg";
  SolverParams sp;
  sp.tol = cli.real("tol");
  sp.max_iterations = static_cast<int>(cli.integer("max-iters"));
  sp.restart = static_cast<int>(cli.integer("restart"));
  sp.record_history = false;
  const TriSolveKind tri = tri_solve_kind_from_string(cli.str("tri-solve"));
  const int tri_sweeps = static_cast<int>(cli.integer("tri-solve-sweeps"));
  const bool baselines = !cli.flag_set("no-baselines");
  const std::string name = matrix_display_name(cli.arg("matrix"));
  rec["ordering"] = ordering;
  rec["solver"] = solver;

  auto A = to_device<Device>(Ah);
  const auto scaled = scale_unit_diagonal(Ah);
  const auto s = to_device<Device>(scaled.s);

  // ParILUT / ParICT, one step at a time, a solve after each
  ParIlutHandle<double, Device> h;
  h.params.max_steps = static_cast<int>(cli.integer("steps"));
  h.params.fill_in_limit = cli.real("fill-limit");
  h.params.selection = threshold_selection_from_string(cli.str("select"));
  h.params.mode = sweep_mode_from_string(cli.str("mode"));
  h.params.select.counting =
      cli.str("bucket-counting") == "global" ? BucketCounting::GlobalAtomics : BucketCounting::TeamAtomics;
  if (cli.str("bucket-counting") != "global" && cli.str("bucket-counting") != "team")
    throw InvalidInput(cmd + ": --bucket-counting must be team or global");
  h.launch = cli.launch_config();
  const ExecSpace exec;
  h.params.kind = ict ? ParIlutKind::Ict : ParIlutKind::Ilut;
  {  // the initial guess (no step, no residual); the steps one at a time below
    const auto params = h.params;
    h.params.max_steps = 0;
    h.params.compute_residual = false;
    par_ilut_symbolic(exec, h, A);
    par_ilut_numeric(exec, h, A);
    h.params = params;
  }
  std::vector<Outcome> par_runs;
  std::string par_breakdown;
  {
    Progress prog(cmd + " steps", h.params.max_steps);
    for (int step = 0; step <= h.params.max_steps; ++step) {
      auto o = guarded([&](Outcome& out) {
        if (step > 0) par_ilut_step(exec, h);
        auto M = factor_prec(A, par_ilut_lower(exec, h), par_ilut_upper(exec, h), !ict, s, tri, tri_sweeps,
                             "Par" + std::string(ict ? "ICT" : "ILUT"));
        out.result = solve_ones(A, M.get(), spd, sp);
      });
      par_runs.push_back(o);
      prog.update(step);
      if (!o.ran) {
        par_breakdown = o.error;
        break;
      }
    }
  }
  if (par_breakdown.empty()) {  // residual of the final factors
    const auto o = guarded([&](Outcome&) { par_ilut_residual(exec, h); });
    if (!o.ran) {
      par_breakdown = o.error;
      par_runs.back() = o;
    }
  }
  const auto& st = h.stats();
  const offset_t nnzL = st.steps.back().nnz_L, nnzU = ict ? 0 : st.steps.back().nnz_U;
  const offset_t budget = st.budget_L + (ict ? 0 : st.budget_U);
  const offset_t nnz_final = nnzL + nnzU;

  // baselines
  Outcome none_run, ilu0_run, ilut_run;
  if (baselines) {
    none_run = guarded([&](Outcome& o) { o.result = solve_ones(A, nullptr, spd, sp); });
    if (ict) {
      ilu0_run = guarded([&](Outcome& o) {
        const auto L0 = Reference::ic0(scaled.A);
        o.nnz = L0.nnz();
        o.result = solve_ones(A, factor_prec(A, L0, Reference::transpose(L0), false, s, tri, tri_sweeps, "IC(0)").get(),
                              spd, sp);
      });
      ilut_run = guarded([&](Outcome& o) {
        const auto Lt = Reference::ict_nnz(scaled.A, nnzL);
        o.nnz = Lt.nnz();
        o.result = solve_ones(A, factor_prec(A, Lt, Reference::transpose(Lt), false, s, tri, tri_sweeps, "ICT").get(),
                              spd, sp);
      });
    } else {
      ilu0_run = guarded([&](Outcome& o) {
        const auto F0 = Reference::ilu0(scaled.A);
        o.nnz = F0.L.nnz() + F0.U.nnz();
        o.result = solve_ones(A, factor_prec(A, F0.L, F0.U, true, s, tri, tri_sweeps, "ILU(0)").get(), spd, sp);
      });
      ilut_run = guarded([&](Outcome& o) {
        const auto Ft = Reference::ilut_nnz(scaled.A, nnzL, nnzU);
        o.nnz = Ft.L.nnz() + Ft.U.nnz();
        o.result = solve_ones(A, factor_prec(A, Ft.L, Ft.U, true, s, tri, tri_sweeps, "ILUT").get(), spd, sp);
      });
    }
  }

  // pattern study: the fixed point (L U)_S = A_S of the sweeps on the serial ILUT/ICT pattern and on the final
  // ParILUT/ParICT pattern, next to the values ILUT/ICT and the sweeps produced on them
  struct StudyRow {
    std::string pattern, values;
    offset_t nnz = 0;
    double residual = -1.0;
    Outcome run;
  };
  std::vector<StudyRow> study;
  const bool pattern_study = cli.flag_set("pattern-study") && par_breakdown.empty();
  if (pattern_study) {
    const double a_norm = Reference::frobenius_norm(scaled.A);
    auto add = [&](const std::string& pattern, const std::string& values, const CsrHost<double>& L,
                   const CsrHost<double>& U, bool unit_lower) {
      StudyRow r;
      r.pattern = pattern;
      r.values = values;
      r.nnz = L.nnz() + (ict ? 0 : U.nnz());
      r.residual = Reference::ilu_residual(scaled.A, L, U) / a_norm;
      r.run = guarded([&](Outcome& o) {
        o.nnz = r.nnz;
        o.result = solve_ones(A, factor_prec(A, L, U, unit_lower, s, tri, tri_sweeps, pattern + ", " + values).get(),
                              spd, sp);
      });
      study.push_back(r);
    };
    auto add_fixed_point = [&](const std::string& pattern, const CsrHost<double>& L, const CsrHost<double>& U) {
      try {
        if (ict) {
          const auto Lf = Reference::ic_on_pattern(scaled.A, L);
          add(pattern, "fixed point", Lf, Reference::transpose(Lf), false);
        } else {
          const auto Ff = Reference::ilu_on_pattern(scaled.A, Reference::IluFactors{L, U});
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
    const std::string serial = ict ? "ICT" : "ILUT";
    if (ict) {
      const auto Lt = Reference::ict_nnz(scaled.A, nnzL);
      const auto Ut = Reference::transpose(Lt);
      add(serial, serial, Lt, Ut, false);
      add_fixed_point(serial, Lt, Ut);
    } else {
      const auto Ft = Reference::ilut_nnz(scaled.A, nnzL, nnzU);
      add(serial, serial, Ft.L, Ft.U, true);
      add_fixed_point(serial, Ft.L, Ft.U);
    }
    const std::string par = std::string(ict ? "ParICT" : "ParILUT") + " " + std::to_string(st.steps_done);
    const auto Lp = to_host(par_ilut_lower(exec, h));
    const auto Up = to_host(par_ilut_upper(exec, h));
    add(par, "sweeps", Lp, Up, !ict);
    add_fixed_point(par, Lp, Up);
  }

  // table 1: iterations, as in the slides
  const std::string P = ict ? "ParICT" : "ParILUT";
  std::vector<std::string> head = {
      "matrix", "n", "nnz", "solver", "no prec.", ict ? "IC(0)" : "ILU(0)", ict ? "ICT" : "ILUT"};
  for (std::size_t k = 0; k < par_runs.size(); ++k) head.push_back(P + " " + std::to_string(k));
  Table t1(head);
  std::vector<std::string> row = {name,
                                  std::to_string(Ah.nrows),
                                  std::to_string(Ah.nnz()),
                                  solver,
                                  baselines ? its(none_run) : "-",
                                  baselines ? its(ilu0_run) : "-",
                                  baselines ? its(ilut_run) : "-"};
  for (const auto& r : par_runs) row.push_back(its(r));
  t1.row(row);
  t1.print();
  std::cout << "\n";

  // table 2: per step pattern, residual and phase times
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
    Json j = Json::object();
    j["step"] = ss.step;
    j["nnz_L"] = ss.nnz_L;
    j["nnz_U"] = ss.nnz_U;
    j["candidates_L"] = ss.candidates_L;
    j["candidates_U"] = ss.candidates_U;
    j["threshold_L"] = ss.threshold_L;
    j["threshold_U"] = ss.threshold_U;
    j["residual"] = ss.residual;
    j["candidates_seconds"] = ss.candidates_seconds;
    j["sweep_seconds"] = ss.sweep_seconds;
    j["select_seconds"] = ss.select_seconds;
    j["remove_seconds"] = ss.remove_seconds;
    j["total_seconds"] = ss.total_seconds;
    if (k < par_runs.size()) j["solve"] = to_json(par_runs[k]);
    steps.push_back(j);
  }
  t2.print();
  if (!par_breakdown.empty()) std::cout << P << ": " << par_breakdown << "\n";
  if (pattern_study) {
    std::cout << "\npattern vs values (fixed point: the exact incomplete factorization on that pattern, (L U)_S = A_S, "
                 "which the sweeps converge to)\n";
    Table t3({"pattern", "values", ict ? "nnz(L)" : "nnz(L+U)", "ILU resid.", "iters"});
    Json js = Json::array();
    for (const auto& r : study) {
      t3.row({r.pattern, r.values, r.run.ran ? std::to_string(r.nnz) : "-",
              r.residual >= 0.0 ? fmt("%.3e", r.residual) : "-", its(r.run)});
      Json j = to_json(r.run);
      j["pattern"] = r.pattern;
      j["values"] = r.values;
      j["ilu_residual"] = r.residual;
      js.push_back(j);
    }
    t3.print();
    for (const auto& r : study)
      if (!r.run.error.empty()) std::cout << r.pattern << ", " << r.values << ": " << r.run.error << "\n";
    rec["pattern_study"] = js;
  }
  if (!ilu0_run.error.empty()) std::cout << (ict ? "IC(0): " : "ILU(0): ") << ilu0_run.error << "\n";
  if (!ilut_run.error.empty()) std::cout << (ict ? "ICT: " : "ILUT: ") << ilut_run.error << "\n";
  std::cout << "budget nnz(L" << (ict ? "" : "+U") << ") = " << budget << " (fill limit " << cli.str("fill-limit")
            << "); sweep launch: " << st.launch.to_string() << "\n";

  // acceptance-style checks of the final step (a breakdown fails them; a baseline that broke down or did not
  // converge counts as no bound)
  const bool par_ok = par_runs.back().ran && par_runs.back().result.converged();
  const int it_par = par_runs.back().result.iterations;
  auto bound = [](const Outcome& o) {
    return o.ran && o.result.converged() ? static_cast<double>(o.result.iterations) : 1e300;
  };
  const double nnz_dev = std::abs(static_cast<double>(nnz_final) / static_cast<double>(budget) - 1.0);
  Json checks = Json::object();
  checks["nnz_within_5_percent_of_budget"] = nnz_dev <= 0.05;
  std::cout << "check: nnz(L" << (ict ? "" : "+U") << ") after step " << st.steps_done << " = " << nnz_final << ", "
            << fmt("%.2f", 100.0 * nnz_dev) << " % from the budget -> " << (nnz_dev <= 0.05 ? "ok" : "NOT within 5 %")
            << "\n";
  if (baselines) {
    const bool le0 = par_ok && it_par <= bound(ilu0_run);
    const bool leT = par_ok && it_par <= 1.15 * bound(ilut_run);
    std::cout << "check: " << P << " " << st.steps_done << " iterations " << its(par_runs.back())
              << " <= " << (ict ? "IC(0) " : "ILU(0) ") << its(ilu0_run) << " -> " << (le0 ? "ok" : "NO")
              << "; <= 1.15 x " << (ict ? "ICT " : "ILUT ") << its(ilut_run) << " (nnz " << ilut_run.nnz << ") -> "
              << (leT ? "ok" : "NO") << "\n";
    checks["iterations_le_level0"] = le0;
    checks["iterations_le_1.15_threshold_serial"] = leT;
    rec["no_preconditioner"] = to_json(none_run);
    rec["level0"] = to_json(ilu0_run);
    rec["serial_threshold"] = to_json(ilut_run);
  }
  rec["kind"] = cmd;
  rec["budget_L"] = st.budget_L;
  rec["budget_U"] = st.budget_U;
  rec["steps"] = steps;
  rec["launch"] = to_json(st.launch);
  rec["checks"] = checks;
  if (!par_breakdown.empty()) rec["breakdown"] = par_breakdown;
  if (!cli.str("json").empty()) rec.save(cli.str("json"));
  return par_ok ? 0 : 3;
}

int run_ilut(int argc, char** argv) { return run_threshold(argc, argv, false); }
int run_ict(int argc, char** argv) { return run_threshold(argc, argv, true); }

Registrar reg_ilut("ilut", "ParILUT steps vs ILU(0) and serial ILUT of equal nnz (GMRES iterations, phase times)",
                   run_ilut);
Registrar reg_ict("ict", "ParICT steps vs IC(0) and serial ICT of equal nnz (PCG iterations, phase times)", run_ict);

}  // namespace
}  // namespace Driver
}  // namespace AsyncSparse
