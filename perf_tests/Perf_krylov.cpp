// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Krylov iterations against the matrix-vector product they are built on, in the same process: the time of
// one CG iteration (unpreconditioned and Jacobi-preconditioned; fused kernels and the textbook Reference
// loop) and of one GMRES(30) iteration, on the 2D 5-point and 3D 27-point Laplacians, with the counter
// iteration_over_spmv = iteration time / one Kokkos-Kernels spmv (the krylov_spmv/<matrix>/kokkos_kernels
// benchmark of this run). krylov_spmv also times AsyncSparse's own CRS product (the fused kernel without and
// with its pᵀAp reduction), which must not be slower than Kokkos-Kernels', and on GPUs the product-and-dot with
// each vector length (asyncsparse_dot_vl<k>: lanes per row, team size by the launch rule) to check the rule's
// choice (the counter vector_length of asyncsparse_dot).
//
// Iteration time: a solve of K iterations (b = ones, x0 = 0, a tolerance it cannot reach) and the per-iteration
// times recorded by the solver: (t_K − t_1) / (K − 1), i.e. the steady-state period of the loop without its
// set-up and the final true-residual check. The spmv is timed alone with a fence before and after (as in
// Perf_spmv), so the ratio includes the one synchronisation an iteration needs.
//
//   AsyncSparse_Perf_krylov                         (ASYNCSPARSE_PERF_SCALE=paper: L2D 1024^2, L3D 64^3)
#include "PerfHelpers.hpp"

#include <KokkosSparse_spmv.hpp>

#include <asyncsparse/linalg/AsyncSparse_krylov_kernels.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_preconditioner.hpp>
#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;
using Vec = Kokkos::View<double*, Device>;

/// Seconds of one Kokkos-Kernels spmv per matrix, measured by krylov_spmv/<matrix>/kokkos_kernels.
std::map<std::string, double>& spmv_seconds() {
  static std::map<std::string, double> m;
  return m;
}

const Crs<double, Device>& device_matrix(const std::string& name) {
  static std::map<std::string, Crs<double, Device>> cache;
  static bool hooked = false;
  if (!hooked) {  // the cached Views must go before Kokkos::finalize
    Kokkos::push_finalize_hook([] { cache.clear(); });
    hooked = true;
  }
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, to_device<Device>(host_matrix(name))).first;
  return it->second;
}

enum class SpmvKind { KokkosKernels, Fused, FusedDot };

void BM_krylov_spmv(benchmark::State& state, const std::string& name, SpmvKind kind, int vector_length) {
  const auto& Ah = host_matrix(name);
  const auto& A = device_matrix(name);
  Vec x("x", Ah.ncols), y("y", Ah.nrows), s("s", 1);
  Kokkos::deep_copy(x, 1.0);
  LaunchConfig cfg;
  cfg.vector_length = vector_length;
  const auto launch = Impl::spmv_launch<ExecSpace>(Ah.nrows, Ah.nnz(), cfg);
  const Impl::TeamSumScratch<Device> team_sums(launch);
  auto run = [&] {
    if (kind == SpmvKind::KokkosKernels)
      KokkosSparse::spmv("N", 1.0, A, x, 0.0, y);
    else
      Impl::spmv_dot<double, Device>(A, x, y, kind == SpmvKind::FusedDot ? s : Vec(), 0, launch, team_sums);
  };
  run();  // warm-up
  const double t = run_timed(state, run);
  set_matrix_counters(state, Ah);
  state.counters["GB/s"] = spmv_bytes(Ah.nrows, Ah.nnz()) * 1e-9 / t;
  if (kind == SpmvKind::KokkosKernels) {
    spmv_seconds()[name] = t;
  } else {
    state.counters["vector_length"] = launch.vector_length;
    state.counters["team_size"] = launch.team_size;
    if (spmv_seconds().count(name)) state.counters["time_over_kk_spmv"] = t / spmv_seconds()[name];
  }
}

struct IterationSetup {
  bool gmres = false;
  bool jacobi = false;
  KrylovImplementation impl = KrylovImplementation::Fused;
};

void BM_iteration(benchmark::State& state, const std::string& name, IterationSetup is) {
  const auto& Ah = host_matrix(name);
  const auto& A = device_matrix(name);
  const int K = paper_scale() ? 200 : 60;
  SolverParams p;
  p.tol = 1e-300;  // never reached: exactly K iterations
  p.max_iterations = K;
  p.restart = 30;
  p.divergence_factor = 1e300;
  p.implementation = is.impl;
  JacobiPreconditioner<double, Device> jac(A);
  jac.compute();
  Preconditioner<double, Device>* M = is.jacobi ? &jac : nullptr;
  Vec b("b", Ah.nrows), x("x", Ah.nrows);
  Kokkos::deep_copy(b, 1.0);
  auto solve = [&] {
    Kokkos::deep_copy(x, 0.0);
    return is.gmres ? gmres<double, Device>(A, b, x, M, p) : cg<double, Device>(A, b, x, M, p);
  };
  solve();  // warm-up
  double total = 0;
  int runs = 0, iterations = 0;
  for (auto _ : state) {
    const auto r = solve();
    iterations = r.iterations;
    if (r.iterations < 2 || r.time_history.size() < static_cast<std::size_t>(r.iterations) + 1) {
      state.SkipWithError(("the solve stopped after " + std::to_string(r.iterations) +
                           " iterations: " + to_string(r.status) + " " + r.message)
                              .c_str());
      return;
    }
    const double t = (r.time_history[r.iterations] - r.time_history[1]) / (r.iterations - 1);
    state.SetIterationTime(t);
    total += t;
    ++runs;
  }
  const double t = runs ? total / runs : 0.0;
  set_matrix_counters(state, Ah);
  state.counters["iterations_per_solve"] = iterations;
  if (spmv_seconds().count(name)) state.counters["iteration_over_spmv"] = t / spmv_seconds()[name];
}

void register_all() {
  auto reg = [](const std::string& label, auto... args) {
    benchmark::RegisterBenchmark(label.c_str(), args...)->UseManualTime()->Unit(benchmark::kMicrosecond);
  };
  for (const std::string m : {"L2D", "L3D"}) {
    reg("krylov_spmv/" + m + "/kokkos_kernels", BM_krylov_spmv, m, SpmvKind::KokkosKernels, -1);
    reg("krylov_spmv/" + m + "/asyncsparse", BM_krylov_spmv, m, SpmvKind::Fused, -1);
    reg("krylov_spmv/" + m + "/asyncsparse_dot", BM_krylov_spmv, m, SpmvKind::FusedDot, -1);
    if (Impl::is_gpu_space<ExecSpace>())
      for (int vl : {1, 2, 4, 8, 16, 32})
        reg("krylov_spmv/" + m + "/asyncsparse_dot_vl" + std::to_string(vl), BM_krylov_spmv, m, SpmvKind::FusedDot,
            vl);
    const std::pair<const char*, IterationSetup> variants[] = {
        {"cg_iteration/%s/fused", {false, false, KrylovImplementation::Fused}},
        {"cg_iteration/%s/reference", {false, false, KrylovImplementation::Reference}},
        {"cg_iteration/%s/fused_jacobi", {false, true, KrylovImplementation::Fused}},
        {"cg_iteration/%s/reference_jacobi", {false, true, KrylovImplementation::Reference}},
        {"gmres_iteration/%s/fused", {true, false, KrylovImplementation::Fused}},
    };
    for (const auto& v : variants) {
      std::string label = v.first;
      label.replace(label.find("%s"), 2, m);
      reg(label, BM_iteration, m, v.second);
    }
  }
}

const bool registered = (register_all(), true);

}  // namespace
