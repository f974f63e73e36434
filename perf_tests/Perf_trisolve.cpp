// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Triangular solves of the incomplete-factorization preconditioners (AsyncSparse_trisolve.hpp): the time of one
// lower + one upper solve with the IC(0) factors of the scaled matrix (L2D, L3D and shared SPD matrices) in each
// mode — exact (GPUs: one team for triangles that fit its scratch memory, else cuSPARSE SpSV on CUDA; serial
// substitution on host backends; Kokkos-Kernels level sets as
// "exact_levelset"), Jacobi with 1–3 sweeps, adaptive Jacobi, ISAI with 0 or 1 correction step — against one
// Kokkos-Kernels spmv of A measured in the same run (counter x_spmv = time / spmv time). Counters: setup_ms (the
// solver's setup: checks, value copy, ISAI / level sets / cuSPARSE analysis), sweeps (Jacobi modes, per solve),
// GB/s (bytes of the two triangles read by one solve: passes x (values + indices) + vectors).
// BM_exact_one_team/<matrix>/<team> times both solves in one launch of one team (ExactAlgorithm::OneTeam, the
// matrices that fit) with `team` threads (0: the default; sizes the backend does not allow are skipped), counters
// n, team, levels (of both triangles), spmv_us, x_spmv and us_per_level.
// On CUDA builds, BM_cusparse_spsv_* times cuSPARSE SpSV alone: the analysis of both triangles, and a solve of
// both with the analysis reused.
// BM_pcg_par_ic runs what a user waits for: ParIc setup (5 sweeps) + PCG to relative residual 1e-6 (b = ones,
// x0 = 0) per mode ("diag": diagonal-Jacobi PCG, the baseline), on the Laplacians at several sizes and every SPD
// shared matrix (counters iterations (-1: not converged), setup_ms, solve_ms, x_diag = time / diagonal PCG time).
//
//   AsyncSparse_Perf_trisolve --benchmark_filter='L2D'        (ASYNCSPARSE_PERF_SCALE=paper for L2D 1024^2)
#include "PerfHelpers.hpp"

#include <algorithm>
#include <vector>

#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#include <asyncsparse/linalg/AsyncSparse_cusparse_spsv.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/solvers/AsyncSparse_cg.hpp>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;
using CrsD = Crs<double, Device>;
using Vec = Kokkos::View<double*, Device>;

/// A matrix, its scaled form, its IC(0) factors (host reference, scaled matrix) and its spmv time, once per process.
struct Problem {
  CrsD A, As, L, U;
  double spmv = 0;
  bool ic0_exists = true;
};

const Problem& problem(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Problem>> cache;
  static bool hooked = false;
  if (!hooked) {  // the cached Views must go before Kokkos::finalize
    Kokkos::push_finalize_hook([] { cache.clear(); });
    hooked = true;
  }
  auto& p = cache[name];
  if (p) return *p;
  p.reset(new Problem);
  const auto& Ah = host_matrix(name);
  p->A = to_device<Device>(Ah);
  const auto sc = scale_unit_diagonal(Ah);
  p->As = to_device<Device>(sc.A);
  try {
    const auto Lh = Reference::ic0(sc.A);
    p->L = to_device<Device>(Lh);
    p->U = to_device<Device>(Reference::transpose(Lh));
  } catch (const BreakdownError&) {
    p->ic0_exists = false;
  }
  Vec x("x", Ah.ncols), y("y", Ah.nrows);
  Kokkos::deep_copy(x, 1.0);
  Blas<double, Device>::spmv(1.0, p->A, x, 0.0, y);
  std::vector<double> t;
  for (int r = 0; r < 20; ++r) t.push_back(timed([&] { Blas<double, Device>::spmv(1.0, p->A, x, 0.0, y); }));
  p->spmv = median(t);
  return *p;
}

void BM_spmv_A(benchmark::State& state, const std::string& name) {
  const auto& p = problem(name);
  Vec x("x", p.A.numCols()), y("y", p.A.numRows());
  Kokkos::deep_copy(x, 1.0);
  const double t = run_timed(state, [&] { Blas<double, Device>::spmv(1.0, p.A, x, 0.0, y); });
  state.counters["n"] = p.A.numRows();
  state.counters["nnz"] = p.A.nnz();
  state.counters["GB/s"] = spmv_bytes(p.A.numRows(), p.A.nnz()) * 1e-9 / t;
}

struct ModeSpec {
  TriSolveOptions opt;
  int passes;  // reads of the triangle per solve (for GB/s); 0: not counted
};

ModeSpec mode_spec(const std::string& mode) {
  ModeSpec m;
  auto& o = m.opt;
  m.passes = 1;
  if (mode == "exact") {
    o.kind = TriSolveKind::Exact;
  } else if (mode == "exact_levelset") {
    o.kind = TriSolveKind::Exact;
    o.exact_algorithm = ExactAlgorithm::LevelSet;
  } else if (mode.rfind("jacobi_adaptive", 0) == 0) {
    o.kind = TriSolveKind::JacobiAdaptive;
    m.passes = 0;
  } else if (mode.rfind("jacobi", 0) == 0) {
    o.kind = TriSolveKind::Jacobi;
    o.sweeps = std::stoi(mode.substr(6));
    m.passes = std::max(1, o.sweeps);
  } else if (mode == "isai") {  // on T's own pattern, as measured before isai_power_rule
    o.kind = TriSolveKind::Isai;
    o.sweeps = 0;
    o.isai_power = 1;
  } else if (mode == "isai+1") {
    o.kind = TriSolveKind::Isai;
    o.sweeps = 1;
    o.isai_power = 1;
    m.passes = 3;
  } else {
    o.kind = TriSolveKind::Auto;
    m.passes = 0;
  }
  return m;
}

// One lower + one upper solve with the IC(0) factors, as an apply of the preconditioner does.
void BM_trisolve(benchmark::State& state, const std::string& name, const std::string& mode) {
  const auto& p = problem(name);
  if (!p.ic0_exists) {
    state.SkipWithError("IC(0) does not exist for this matrix");
    return;
  }
  const ModeSpec m = mode_spec(mode);
  TriangularSolver<double, Device> lower, upper;
  try {
    lower.setup(p.L, true, false, m.opt);
    upper.setup(p.U, false, false, m.opt);
  } catch (const Error& e) {
    state.SkipWithError(e.what());
    return;
  }
  const ordinal_t n = p.L.numRows();
  Vec b("b", n), w("w", n), x("x", n);
  Kokkos::deep_copy(b, 1.0);
  auto apply = [&] {
    lower.solve(b, w);
    upper.solve(w, x);
  };
  apply();  // warm-up
  const double t = run_timed(state, apply);
  state.counters["n"] = n;
  state.counters["nnz_L"] = p.L.nnz();
  state.counters["spmv_us"] = 1e6 * p.spmv;
  state.counters["x_spmv"] = t / p.spmv;
  state.counters["setup_ms"] = 1e3 * (lower.stats().setup_seconds + upper.stats().setup_seconds);
  state.counters["sweeps"] = lower.stats().last_sweeps;
  if (m.passes > 0) state.counters["GB/s"] = 2.0 * m.passes * spmv_bytes(n, p.L.nnz()) * 1e-9 / t;
  state.SetLabel(lower.stats().mode());
}

// Launch study of the one-team exact solve (ExactAlgorithm::OneTeam): one lower and one upper solve in one launch,
// as FactorApply runs them, with `team` threads (0: Impl::exact_one_team_size, the default).
void BM_exact_one_team(benchmark::State& state, const std::string& name, int team) {
  using Solver = TriangularSolver<double, Device>;
  const auto& p = problem(name);
  if (!p.ic0_exists) {
    state.SkipWithError("IC(0) does not exist for this matrix");
    return;
  }
  Solver lower, upper;
  try {
    TriSolveOptions o;
    o.kind = TriSolveKind::Exact;
    o.exact_algorithm = ExactAlgorithm::OneTeam;
    lower.setup(p.L, true, false, o);
    upper.setup(p.U, false, false, o);
  } catch (const Error& e) {
    state.SkipWithError(e.what());
    return;
  }
  const ordinal_t n = p.L.numRows();
  Vec b("b", n), x("x", n);
  Kokkos::deep_copy(b, 1.0);
  const auto f = Solver::exact_one_team_functor(lower, &upper, b, x);
  const int largest = Impl::exact_one_team_size<Device::execution_space>(f);
  if (team > largest) {
    state.SkipWithError(("team of " + std::to_string(team) + " threads: more than the backend allows here (" +
                         std::to_string(largest) + ")")
                            .c_str());
    return;
  }
  const int size = team > 0 ? team : largest;
  auto apply = [&] { Impl::exact_one_team_launch<Device::execution_space>(f, size); };
  apply();
  const double t = run_timed(state, apply);
  state.counters["n"] = n;
  state.counters["team"] = size;
  state.counters["levels"] = lower.stats().levels + upper.stats().levels;
  state.counters["spmv_us"] = 1e6 * p.spmv;
  state.counters["x_spmv"] = t / p.spmv;
  state.counters["us_per_level"] = 1e6 * t / std::max(1, lower.stats().levels + upper.stats().levels);
}

#if ASYNCSPARSE_HAVE_CUSPARSE
// cuSPARSE SpSV alone on the IC(0) factors: analysis of both triangles (fresh descriptors every time), and the solve
// of both with the analysis reused.
void BM_cusparse_spsv(benchmark::State& state, const std::string& name, bool analysis) {
  const auto& p = problem(name);
  if (!p.ic0_exists) {
    state.SkipWithError("IC(0) does not exist for this matrix");
    return;
  }
  const int n = p.L.numRows();
  const auto l_rm = row_map_as_int(p.L.graph.row_map, p.L.nnz(), "BM_cusparse_spsv");
  const auto u_rm = row_map_as_int(p.U.graph.row_map, p.U.nnz(), "BM_cusparse_spsv");
  auto setup = [&](CusparseSpsv<double>& l, CusparseSpsv<double>& u) {
    l.setup(n, static_cast<int>(p.L.nnz()), l_rm.data(), p.L.graph.entries.data(), p.L.values.data(), true, false);
    u.setup(n, static_cast<int>(p.U.nnz()), u_rm.data(), p.U.graph.entries.data(), p.U.values.data(), false, false);
  };
  if (analysis) {
    run_timed(state, [&] {
      CusparseSpsv<double> l, u;
      setup(l, u);
      Kokkos::fence();
    });
  } else {
    CusparseSpsv<double> l, u;
    setup(l, u);
    Vec b("b", n), w("w", n), x("x", n);
    Kokkos::deep_copy(b, 1.0);
    auto apply = [&] {
      l.solve(b.data(), w.data());
      u.solve(w.data(), x.data());
    };
    apply();
    const double t = run_timed(state, apply);
    state.counters["x_spmv"] = t / p.spmv;
  }
  state.counters["n"] = n;
  state.counters["spmv_us"] = 1e6 * p.spmv;
}
#endif

// Setup + PCG to 1e-6 with ParIc(5 sweeps) and a triangular-solve mode, or with diagonal Jacobi ("diag").
struct PcgRun {
  int iterations = -1;  // -1: not converged
  double setup = 0, solve = 0;
  std::string label;
  double total() const { return setup + solve; }
};

PcgRun pcg_run(const Problem& p, const std::string& mode) {
  ParameterList params;
  std::string method = "jacobi";
  if (mode != "diag") {
    method = "par_ic";
    params.set("sweeps", 5);
    const ModeSpec m = mode_spec(mode);
    params.set("tri_solve", std::string(to_string(m.opt.kind)));
    if (m.opt.sweeps >= 0 && m.opt.kind != TriSolveKind::Exact) params.set("tri_solve_sweeps", m.opt.sweeps);
  }
  const ordinal_t n = p.A.numRows();
  Vec b("b", n), x("x", n);
  Kokkos::deep_copy(b, 1.0);
  SolverParams sp;
  sp.tol = 1e-6;
  sp.max_iterations = 20000;
  sp.record_history = false;
  PcgRun r;
  ExecSpace().fence();
  Kokkos::Timer timer;
  auto M = make_preconditioner<double, Device>(method, p.A, params);
  M->compute();
  ExecSpace().fence();
  r.setup = timer.seconds();
  const auto res = cg<double, Device>(p.A, b, x, M.get(), sp);
  ExecSpace().fence();
  r.solve = timer.seconds() - r.setup;
  r.iterations = res.converged() ? res.iterations : -1;
  r.label = M->description();
  return r;
}

/// Diagonal-Jacobi PCG of a problem, once per process.
const PcgRun& pcg_diag(const std::string& name) {
  static std::map<std::string, PcgRun> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  pcg_run(problem(name), "diag");  // warm-up (first launches, allocations)
  return cache[name] = pcg_run(problem(name), "diag");
}

void BM_pcg_par_ic(benchmark::State& state, const std::string& name, const std::string& mode) {
  PcgRun r;
  try {
    const auto& p = problem(name);
    if (!p.ic0_exists && mode != "diag") {
      state.SkipWithError("IC(0) does not exist for this matrix");
      return;
    }
    const PcgRun& d = pcg_diag(name);
    for (auto _ : state) {
      r = mode == "diag" ? d : pcg_run(p, mode);
      state.SetIterationTime(r.total());
    }
    state.counters["iterations_diag"] = d.iterations;
    state.counters["x_diag"] = r.total() / d.total();
    state.counters["n"] = p.A.numRows();
    state.counters["nnz"] = p.A.nnz();
  } catch (const Error& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.counters["iterations"] = r.iterations;
  state.counters["setup_ms"] = 1e3 * r.setup;
  state.counters["solve_ms"] = 1e3 * r.solve;
  state.SetLabel(r.label);
}

const std::vector<std::string>& problems() {
  // the last four: triangles small enough for the one-team exact solve on GPUs
  static const std::vector<std::string> v = {"L2D", "L3D", "bodyy6", "bcsstk16", "1138_bus", "494_bus", "nos5", "nos7"};
  return v;
}
const std::vector<std::string>& modes() {
  static const std::vector<std::string> v = {"exact",           "exact_levelset", "jacobi1", "jacobi2", "jacobi3",
                                             "jacobi_adaptive", "isai",           "isai+1",  "auto"};
  return v;
}
// PCG: the 2D/3D Laplacians at several sizes and every SPD shared matrix.
const std::vector<std::string>& pcg_problems() {
  static const std::vector<std::string> v = {
      "L2D",      "L3D",      "gen:lap2d:256", "gen:lap2d:512", "gen:lap3d27:32", "gen:lap3d27:48",
      "1138_bus", "494_bus",  "bcsstk01",      "bcsstk13",      "bcsstk14",       "bcsstk15",
      "bcsstk16", "bcsstk18", "bcsstk27",      "bodyy4",        "bodyy5",         "bodyy6",
      "fv1",      "fv2",      "fv3",           "nos1",          "nos2",           "nos3",
      "nos4",     "nos5",     "nos6",          "nos7",          "ted_b",          "trefethen_2000"};
  return v;
}
const std::vector<std::string>& pcg_modes() {
  static const std::vector<std::string> v = {"diag", "exact",  "jacobi1", "jacobi2",        "jacobi3",
                                             "isai", "isai+1", "auto",    "jacobi_adaptive"};
  return v;
}

int register_all() {
  for (const auto& p : problems()) {
    benchmark::RegisterBenchmark(("BM_spmv_A/" + p).c_str(), BM_spmv_A, p)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
    for (const auto& m : modes())
      benchmark::RegisterBenchmark(("BM_trisolve/" + p + "/" + m).c_str(), BM_trisolve, p, m)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    for (int team : {0, 32, 64, 128, 256, 512, 1024})
      benchmark::RegisterBenchmark(("BM_exact_one_team/" + p + "/" + std::to_string(team)).c_str(), BM_exact_one_team,
                                   p, team)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
#if ASYNCSPARSE_HAVE_CUSPARSE
    benchmark::RegisterBenchmark(("BM_cusparse_spsv_analysis/" + p).c_str(), BM_cusparse_spsv, p, true)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_cusparse_spsv_solve/" + p).c_str(), BM_cusparse_spsv, p, false)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
#endif
  }
  for (const auto& p : pcg_problems())
    for (const auto& m : pcg_modes())
      benchmark::RegisterBenchmark(("BM_pcg_par_ic/" + p + "/" + m).c_str(), BM_pcg_par_ic, p, m)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
  return 0;
}
const int registered = register_all();

}  // namespace
