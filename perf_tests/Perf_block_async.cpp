// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Block-asynchronous relaxation async-(k) and mixed-precision iterative refinement (Anzt, Tomov, Dongarra,
// Heuveline 2011; Anzt, Luszczek, Dongarra, Heuveline 2012):
//   BM_iteration_time/<matrix>/<k>   average time per global iteration of async-(k), k = 1..9 (the paper's
//                                    Table VI: overhead of the local iterations), 100 global iterations per
//                                    measurement, 10 per launch, no residual checks; baselines in the same run:
//                                    device synchronous Jacobi, Kokkos-Kernels Gauss–Seidel (device), sequential
//                                    Gauss–Seidel (host) — time per sweep.
//   BM_time_to_tol/<matrix>/<variant>  time from x0 = 0 to ||b - A x|| / ||b|| <= 1e-10 (b = ones) of plain double
//                                    async-(5), mixed-precision IR (float async-(5) inner) and double IR (paper
//                                    Fig. 6), set-up excluded and reported as a counter.
// Matrices: fv1, fv2, fv3, trefethen_2000 and "LAP": a 2D Laplacian shifted by 0.5 I (cond(D^-1 A) = 17, close to
// fv1's 12.8), m x m grid with m = 2048 (4.2M rows, paper scale / GPUs) or 256 (host). The bare Laplacian of that
// size is no relaxation test problem: Jacobi-type methods would need ~10^7 sweeps to reach 1e-10 on it.
#include "PerfHelpers.hpp"

#include <asyncsparse/relaxation/AsyncSparse_block_async.hpp>
#include <asyncsparse/relaxation/AsyncSparse_kk_gauss_seidel.hpp>
#include <asyncsparse/solvers/AsyncSparse_iterative_refinement.hpp>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;

const CsrHost<double>& problem(const std::string& name) {
  if (name != "LAP") return host_matrix(name);
  static std::unique_ptr<CsrHost<double>> lap;
  if (!lap) {
    lap.reset(new CsrHost<double>(generate(paper_scale() ? "gen:lap2d:2048" : "gen:lap2d:256")));
    for (ordinal_t i = 0; i < lap->nrows; ++i)
      for (offset_t k = lap->row_ptr[i]; k < lap->row_ptr[i + 1]; ++k)
        if (lap->col_idx[k] == i) lap->values[k] += 0.5;
  }
  return *lap;
}

/// Bytes of one async-(k) global iteration if the block's local part stays in cache across the k sweeps (the
/// paper's premise): A, b, x read once, x written once.
double iteration_bytes(const CsrHost<double>& A, std::size_t scalar) {
  return static_cast<double>(A.nnz()) * (scalar + sizeof(ordinal_t)) + 2.0 * (A.nrows + 1) * sizeof(offset_t) +
         3.0 * A.nrows * scalar;
}

void set_stats_counters(benchmark::State& state, const BlockAsyncStats& s) {
  state.counters["block_size"] = s.block_size;
  state.counters["teams"] = s.teams;
  state.counters["team_size"] = s.launch.team_size;
  state.counters["vector_length"] = s.launch.vector_length;
}

void BM_iteration_time(benchmark::State& state, const std::string& name) {
  const auto& Ah = problem(name);
  const int k = static_cast<int>(state.range(0));
  const int iters = 100;
  auto A = to_device<Device>(Ah);
  Kokkos::View<double*, Device> b("b", Ah.nrows), x("x", Ah.nrows);
  Kokkos::deep_copy(b, 1.0);
  BlockAsyncParams p;
  p.local_iters = k;
  BlockAsyncHandle<double, Device> h(p);
  ExecSpace exec;
  block_async_symbolic(exec, h, A);
  block_async_numeric(exec, h, A);
  h.params().global_iters = 10;
  block_async_apply(exec, h, b, x);  // warm-up
  h.params().global_iters = iters;
  for (auto _ : state) {
    Kokkos::deep_copy(x, 0.0);
    state.SetIterationTime(timed([&] { block_async_apply(exec, h, b, x); }));
  }
  set_matrix_counters(state, Ah);
  set_stats_counters(state, h.stats());
  state.counters["local_iters"] = k;
  state.counters["global_iters"] = iters;
  state.counters["time/global_iter"] =
      benchmark::Counter(iters, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["GB/s"] = benchmark::Counter(iteration_bytes(Ah, sizeof(double)) * iters * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void BM_sync_jacobi_sweep(benchmark::State& state, const std::string& name) {
  const auto& Ah = problem(name);
  const int iters = 100;
  auto A = to_device<Device>(Ah);
  Kokkos::View<double*, Device> b("b", Ah.nrows), x("x", Ah.nrows);
  Kokkos::deep_copy(b, 1.0);
  BlockAsyncHandle<double, Device> h(sync_jacobi_params());
  h.params().global_iters = iters;
  ExecSpace exec;
  block_async_symbolic(exec, h, A);
  block_async_numeric(exec, h, A);
  for (auto _ : state) {
    Kokkos::deep_copy(x, 0.0);
    state.SetIterationTime(timed([&] { block_async_apply(exec, h, b, x); }));
  }
  set_matrix_counters(state, Ah);
  state.counters["time/sweep"] =
      benchmark::Counter(iters, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_kk_gauss_seidel_sweep(benchmark::State& state, const std::string& name) {
  const auto& Ah = problem(name);
  const int sweeps = 20;
  auto A = to_device<Device>(Ah);
  Kokkos::View<double*, Device> b("b", Ah.nrows), x("x", Ah.nrows);
  Kokkos::deep_copy(b, 1.0);
  double setup = 0;
  for (auto _ : state) {
    Kokkos::deep_copy(x, 0.0);
    RelaxationResult r;
    const double t = timed([&] { r = kk_gauss_seidel_solve(ExecSpace(), A, b, x, 0.0, sweeps, sweeps, &setup); });
    state.SetIterationTime(t - setup);
  }
  set_matrix_counters(state, Ah);
  state.counters["setup_s"] = setup;
  state.counters["time/sweep"] =
      benchmark::Counter(sweeps, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_host_gauss_seidel_sweep(benchmark::State& state, const std::string& name) {
  const auto& Ah = problem(name);
  const int sweeps = 10;
  std::vector<double> b(Ah.nrows, 1.0);
  for (auto _ : state) {
    std::vector<double> x(Ah.nrows, 0.0);
    Kokkos::Timer t;
    Reference::gauss_seidel(Ah, b, x, sweeps);  // includes one residual evaluation per sweep
    state.SetIterationTime(t.seconds());
  }
  set_matrix_counters(state, Ah);
  state.counters["time/sweep"] =
      benchmark::Counter(sweeps, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

enum Variant { PlainDouble = 0, MixedIR = 1, DoubleIR = 2 };

void BM_time_to_tol(benchmark::State& state, const std::string& name) {
  const auto& Ah = problem(name);
  const auto variant = static_cast<Variant>(state.range(0));
  const double tol = 1e-10;
  auto A = to_device<Device>(Ah);
  Kokkos::View<double*, Device> b("b", Ah.nrows), x("x", Ah.nrows);
  Kokkos::deep_copy(b, 1.0);
  ExecSpace exec;
  double setup = 0, residual = 0;
  long long iterations = 0;
  int outer = 0;
  bool converged = true;
  if (variant == PlainDouble) {
    BlockAsyncParams p;
    p.tol = tol;
    p.max_global_iters = 200000;
    p.record_history = false;
    BlockAsyncHandle<double, Device> h(p);
    block_async_symbolic(exec, h, A);
    block_async_numeric(exec, h, A);
    setup = h.stats().setup_seconds;
    for (auto _ : state) {
      Kokkos::deep_copy(x, 0.0);
      RelaxationResult r;
      state.SetIterationTime(timed([&] { r = block_async_solve(exec, h, b, x); }));
      iterations = r.iterations;
      residual = r.final_residual;
      converged = converged && r.converged();
    }
    set_stats_counters(state, h.stats());
  } else {
    IterativeRefinementParams p;
    p.tol = tol;
    p.inner_precision = variant == MixedIR ? InnerPrecision::Single : InnerPrecision::Double;
    IterativeRefinementHandle<Device> h(p);
    iterative_refinement_symbolic(exec, h, A);
    iterative_refinement_numeric(exec, h, A);
    setup = h.setup_seconds();
    for (auto _ : state) {
      Kokkos::deep_copy(x, 0.0);
      IterativeRefinementResult r;
      state.SetIterationTime(timed([&] { r = iterative_refinement_solve(exec, h, b, x); }));
      iterations = r.inner_iterations;
      outer = r.outer_iterations;
      residual = r.final_relative_residual;
      converged = converged && r.converged();
    }
    set_stats_counters(state, h.inner_stats());
    state.counters["outer"] = outer;
  }
  if (!converged) state.SkipWithError("did not converge to 1e-10");
  set_matrix_counters(state, Ah);
  state.counters["global_iters"] = static_cast<double>(iterations);
  state.counters["rel_residual"] = residual;
  state.counters["setup_s"] = setup;
}

const std::vector<std::string> kMatrices = {"fv1", "fv2", "fv3", "trefethen_2000", "LAP"};

int register_all() {
  for (const auto& m : kMatrices) {
    benchmark::RegisterBenchmark(("BM_iteration_time/" + m).c_str(), BM_iteration_time, m)
        ->DenseRange(1, 9)
        ->ArgName("k")
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_sync_jacobi_sweep/" + m).c_str(), BM_sync_jacobi_sweep, m)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_kk_gauss_seidel_sweep/" + m).c_str(), BM_kk_gauss_seidel_sweep, m)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    if (m != "LAP" || !paper_scale())  // sequential host Gauss-Seidel on 4M rows: seconds per sweep
      benchmark::RegisterBenchmark(("BM_host_gauss_seidel_sweep/" + m).c_str(), BM_host_gauss_seidel_sweep, m)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_time_to_tol/" + m).c_str(), BM_time_to_tol, m)
        ->Arg(PlainDouble)
        ->Arg(MixedIR)
        ->Arg(DoubleIR)
        ->ArgName("variant")  // 0 plain double async-(5), 1 mixed IR, 2 double IR
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  return 0;
}
const int registered = register_all();

}  // namespace
