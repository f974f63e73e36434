// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Iterative (Chow–Patel) IC / ILU sweeps (Chow, Anzt & Dongarra 2015): the time of one sweep and of 5 sweeps,
// against baselines measured in the same run on the same (scaled) matrix — one Kokkos-Kernels spmv, the
// Kokkos-Kernels spiluk numeric phase, the exact host IC(0)/ILU(0) (Reference), and cuSPARSE csric02/csrilu02
// (CUDA builds, incl. analysis). Counters: x_spmv = time / spmv time, GB/s of a sweep (minimum traffic: the task
// list, the factors' indices and values, the written values, each once), residual after the sweeps, and the
// speedup of 5 sweeps over each exact factorization (Table 2). A launch benchmark on L3D varies the block order
// and the occupancy limit (Tables 3 and 5). The sweeps' bandwidth is also reported as a fraction of a STREAM-like
// copy measured in the same process (x_stream; BM_baseline_stream_copy: the copy's GB/s).
//
// On host backends BM_baseline_ic_chain/L2D measures the latency floor of an IC sweep in row order (each row waits
// for its predecessor's pivot: chain_floor_seconds) and the copy fraction a sweep can reach within it.
//
//   AsyncSparse_Perf_par_ilu --benchmark_filter='par_ic'          (ASYNCSPARSE_PERF_SCALE=paper for L2D 1024^2)
#include "PerfHelpers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_run_info.hpp>
#include <asyncsparse/factorization/AsyncSparse_cusparse_baseline.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;
using CrsD = Crs<double, Device>;

/// Baselines of one matrix, measured once per process (lazily, inside the first benchmark that needs them).
struct Baselines {
  CrsD A, As;  // A and S A S on the device
  double spmv = 0, spiluk_numeric = 0, host_ic0 = 0, host_ilu0 = 0, cusparse_ic = 0, cusparse_ilu = 0;
  bool ic0_exists = true;
  std::string ic0_problem;  ///< why IC(0) does not exist (a breakdown, or a matrix that is not symmetric)
};

const Baselines& baselines(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Baselines>> cache;
  static bool hooked = false;
  if (!hooked) {  // the cached Views must go before Kokkos::finalize
    Kokkos::push_finalize_hook([] { cache.clear(); });
    hooked = true;
  }
  auto& p = cache[name];
  if (p) return *p;
  p.reset(new Baselines);
  Baselines& b = *p;
  const auto& Ah = host_matrix(name);
  b.A = to_device<Device>(Ah);
  b.As = scale_unit_diagonal(ExecSpace(), b.A).A;
  Kokkos::View<double*, Device> x("x", Ah.ncols), y("y", Ah.nrows);
  Kokkos::deep_copy(x, 1.0);
  std::vector<double> t;
  Blas<double, Device>::spmv(1.0, b.As, x, 0.0, y);
  for (int r = 0; r < 20; ++r) t.push_back(timed([&] { Blas<double, Device>::spmv(1.0, b.As, x, 0.0, y); }));
  b.spmv = median(t);
  KkSpiluk<double, Device> kk;
  kk.symbolic(b.As, 0);
  t.assign(1, kk.numeric(b.As));
  if (t[0] < 1.0)  // repeat unless it is slow anyway (level scheduling on host backends)
    for (int r = 0; r < 3; ++r) t.push_back(kk.numeric(b.As));
  b.spiluk_numeric = median(t);
  const auto Ash = to_host(b.As);
  const int reps = Ah.nnz() > 2000000 ? 1 : 3;
  t.clear();
  try {
    for (int r = 0; r < reps; ++r) {
      Kokkos::Timer tm;
      const auto L = Reference::ic0(Ash);
      t.push_back(tm.seconds());
    }
    b.host_ic0 = median(t);
  } catch (const BreakdownError& e) {
    b.ic0_exists = false;
    b.ic0_problem = e.what();
  } catch (const InvalidInput& e) {  // not symmetric: the IC benchmarks of this matrix are skipped, not the rest
    b.ic0_exists = false;
    b.ic0_problem = e.what();
  }
  t.clear();
  for (int r = 0; r < reps; ++r) {
    Kokkos::Timer tm;
    const auto F = Reference::ilu0(Ash);
    t.push_back(tm.seconds());
  }
  b.host_ilu0 = median(t);
#if ASYNCSPARSE_HAVE_CUSPARSE
  for (bool ic : {true, false}) {
    try {
      CusparseIncompleteFactor<Device> cf;
      cf.setup(b.As, ic);
      cf.factor();
      t.clear();
      for (int r = 0; r < 3; ++r) t.push_back(cf.factor());
      (ic ? b.cusparse_ic : b.cusparse_ilu) = median(t);
    } catch (const Error&) {
    }
  }
#endif
  return b;
}

/// Minimum bytes of one sweep: per task a_ij, the written value and the kernel's own lists (entry kernel: the task
/// list's row, column and destination; row kernel: the start of each factor entry's product list, and two
/// positions per product; list kernel: both; row-merge kernel: none), the indices and values of the factors (read
/// once), the row pointers.
double sweep_bytes(const ParIluHandle<double, Device>& h) {
  const auto& s = h.stats();
  const double factors = static_cast<double>(s.nnz_L + s.nnz_U);
  const double tasks = static_cast<double>(s.num_tasks) * 3 * sizeof(int);
  const double products = factors * sizeof(offset_t) + static_cast<double>(s.sweep_products) * 2 * sizeof(offset_t);
  const double lists = s.sweep_kernel == SweepKernel::Row        ? products
                       : s.sweep_kernel == SweepKernel::List     ? tasks + products
                       : s.sweep_kernel == SweepKernel::RowMerge ? 0.0
                                                                 : tasks;
  return lists + static_cast<double>(s.num_tasks) * 2 * sizeof(double) + factors * (sizeof(int) + sizeof(double)) +
         2.0 * (h.num_rows() + 1) * sizeof(int);
}

/// The sweep kernel and launch of a benchmark variant: the defaults (auto), or an explicit kernel and team size /
/// vector length (-1: that kernel's default).
struct Variant {
  SweepKernel kernel = SweepKernel::Auto;
  int team_size = -1;
  int vector_length = -1;
  std::string suffix() const {
    std::string v = kernel == SweepKernel::Auto ? "" : std::string("_") + to_string(kernel);
    if (team_size > 0) v += "_team" + std::to_string(team_size);
    if (vector_length > 0) v += "_lanes" + std::to_string(vector_length);
    return v;
  }
};

/// STREAM-like copy bandwidth of the device memory, measured once per process (PerfHelpers.hpp).
double stream_gbs() {
  static const double gbs = stream_copy_gbs<ExecSpace>();
  return gbs;
}

void common_counters(benchmark::State& state, const Baselines& b, const ParIluHandle<double, Device>& h) {
  state.counters["n"] = h.num_rows();
  state.counters["nnz"] = b.A.nnz();
  state.counters["tasks"] = static_cast<double>(h.stats().num_tasks);
  state.counters["team_size"] = h.stats().launch.team_size;
  state.counters["vector_length"] = h.stats().launch.vector_length;
  state.counters["row_kernel"] = h.stats().sweep_kernel == SweepKernel::Row ? 1 : 0;
  state.counters["row_merge_kernel"] = h.stats().sweep_kernel == SweepKernel::RowMerge ? 1 : 0;
  state.counters["list_kernel"] = h.stats().sweep_kernel == SweepKernel::List ? 1 : 0;
  state.counters["row_team_kernel"] = h.stats().sweep_kernel == SweepKernel::RowTeam ? 1 : 0;
  state.counters["products"] = static_cast<double>(h.stats().sweep_products);
  state.counters["chunk_size"] = h.stats().launch.chunk_size;
  state.counters["spmv_us"] = 1e6 * b.spmv;
}

void setup_handle(ParIluHandle<double, Device>& h, const Baselines& b, int sweeps, const Variant& v = Variant()) {
  h.params.sweeps = sweeps;
  h.params.sweep_kernel = v.kernel;
  h.launch.team_size = v.team_size;
  h.launch.vector_length = v.vector_length;
  par_ilu_symbolic(ExecSpace(), h, b.A);
  par_ilu_numeric(ExecSpace(), h, b.A);
}

/// setup_handle, or false with the benchmark skipped where it throws (the reason as the error message): a failing
/// variant ends its own benchmark, not the process and the benchmarks after it.
bool setup_or_skip(benchmark::State& state, ParIluHandle<double, Device>& h, const Baselines& b, int sweeps,
                   const Variant& v = Variant()) {
  try {
    setup_handle(h, b, sweeps, v);
    return true;
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return false;
  }
}

/// True (the benchmark skipped, with the reason) for IC on a matrix without IC(0).
bool skip_without_ic0(benchmark::State& state, const Baselines& b, ParIluKind kind) {
  if (kind != ParIluKind::Ic || b.ic0_exists) return false;
  state.SkipWithError(("IC(0) does not exist for this matrix: " + b.ic0_problem).c_str());
  return true;
}

// Time of one sweep (in place, asynchronous), repeated on the evolving factors. No suffix: the defaults (the
// kernel rule choose_sweep_kernel and its launch); "_entry" / "_list" / "_row": that kernel with its default
// launch; "_entry_team256": the entry kernel's highest-throughput launch; "_row_team<T>_lanes<V>" and
// "_list_team<T>_lanes<V>": the launch studies of the row and list kernels.
void BM_sweep(benchmark::State& state, const std::string& name, ParIluKind kind, Variant v) {
  const auto& b = baselines(name);
  if (skip_without_ic0(state, b, kind)) return;
  ParIluHandle<double, Device> h(kind);
  if (!setup_or_skip(state, h, b, 0, v)) return;
  par_ilu_sweep(ExecSpace(), h, 1);  // warm-up
  for (auto _ : state) {
    const std::size_t before = h.stats().sweep_times.size();
    par_ilu_sweep(ExecSpace(), h, 1);
    state.SetIterationTime(h.stats().sweep_times[before]);
  }
  common_counters(state, b, h);
  const double t = h.stats().sweep_times.back();
  state.counters["GB/s"] = benchmark::Counter(sweep_bytes(h) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["x_spmv"] = median(h.stats().sweep_times) / b.spmv;
  state.counters["last_sweep_us"] = 1e6 * t;
  // bandwidth of the median sweep against the copy of the same run
  state.counters["x_stream"] = sweep_bytes(h) / median(h.stats().sweep_times) * 1e-9 / stream_gbs();
}

// Time of 5 sweeps from the paper's initial guess (the numeric phase without its set-up), with the residual and
// the speedups over the exact factorizations (Table 2).
void BM_five_sweeps(benchmark::State& state, const std::string& name, ParIluKind kind, Variant v) {
  const auto& b = baselines(name);
  if (skip_without_ic0(state, b, kind)) return;
  ParIluHandle<double, Device> h(kind);
  if (!setup_or_skip(state, h, b, 5, v)) return;
  std::vector<double> setup;
  for (auto _ : state) {
    par_ilu_numeric(ExecSpace(), h, b.A);
    state.SetIterationTime(h.stats().sweep_seconds);
    setup.push_back(h.stats().setup_seconds);
  }
  common_counters(state, b, h);
  const double t5 = h.stats().sweep_seconds;
  state.counters["residual"] = par_ilu_nonlinear_residual(ExecSpace(), h);
  state.counters["setup_us"] = 1e6 * median(setup);
  state.counters["x_spmv"] = t5 / b.spmv;
  state.counters["spiluk_numeric_us"] = 1e6 * b.spiluk_numeric;
  state.counters["speedup_vs_spiluk"] = b.spiluk_numeric / t5;
  const double host = kind == ParIluKind::Ic ? b.host_ic0 : b.host_ilu0;
  state.counters["host_exact_us"] = 1e6 * host;
  state.counters["speedup_vs_host_exact"] = host / t5;
  const double cus = kind == ParIluKind::Ic ? b.cusparse_ic : b.cusparse_ilu;
  if (cus > 0) {
    state.counters["cusparse_us"] = 1e6 * cus;
    state.counters["speedup_vs_cusparse"] = cus / t5;
  }
}

// Time of a one-time factorization: the numeric phase (its set-up, the product lists where the kernel takes them,
// 5 sweeps) right after a fresh symbolic phase, as a user who factors a matrix once pays it (kernels loaded by an
// earlier iteration). The lists of the list kernel are built in every iteration, unlike BM_five_sweeps, which reuses
// them with the pattern. Counters: the symbolic phase, the numeric set-up and the sweeps separately.
void BM_factorization(benchmark::State& state, const std::string& name, ParIluKind kind, Variant v) {
  const auto& b = baselines(name);
  if (skip_without_ic0(state, b, kind)) return;
  ParIluHandle<double, Device> h(kind);
  if (!setup_or_skip(state, h, b, 5, v)) return;  // warm-up: every kernel of the variant loaded
  std::vector<double> symbolic, setup, sweeps;
  for (auto _ : state) {
    Kokkos::Timer ts;
    par_ilu_symbolic(ExecSpace(), h, b.A);
    ExecSpace().fence();
    symbolic.push_back(ts.seconds());
    Kokkos::Timer tn;
    par_ilu_numeric(ExecSpace(), h, b.A);
    ExecSpace().fence();
    state.SetIterationTime(tn.seconds());
    setup.push_back(h.stats().setup_seconds);
    sweeps.push_back(h.stats().sweep_seconds);
  }
  common_counters(state, b, h);
  state.counters["symbolic_us"] = 1e6 * median(symbolic);
  state.counters["setup_us"] = 1e6 * median(setup);
  state.counters["sweeps_us"] = 1e6 * median(sweeps);
  state.counters["x_spmv"] = median(sweeps) / b.spmv;
}

/// The latency floor of the asynchronous IC sweep on L2D on host backends: in row order each row i divides by the
/// pivot l_{i-1,i-1} its predecessor has just written and takes its own pivot from that quotient, so a thread's rows
/// form one chain of dependent operations — a division, a multiply-subtract and a square root per row — whatever
/// the memory does. Here each worker of the execution space runs that chain over its share of the rows with every
/// operand in registers (no loads, no stores), the order of the sweep's arithmetic (s = a_ii - l_far^2, then
/// s - l_{i,i-1}^2, l_{i,i-1} = a_{i,i-1} / l_{i-1,i-1}). Median of 5. No sweep that runs each thread's rows as one
/// contiguous sequence in row order can be faster; orders with several independent sequences per thread can.
double chain_floor_seconds(std::int64_t rows) {
  const int workers = std::max(1, static_cast<int>(ExecSpace().concurrency()));
  Kokkos::View<double*, Kokkos::HostSpace> out("chain_out", static_cast<std::size_t>(workers));
  Kokkos::View<double[3], Kokkos::HostSpace> in("chain_in");  // read at run time: nothing is folded away
  in(0) = -1.0;
  in(1) = 4.0;
  in(2) = -0.5;
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    Kokkos::Timer tm;
    Kokkos::parallel_for("chain_floor", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, workers),
                         [=](const int w) {
                           const double a = in(0), a_ii = in(1), far = in(2);
                           const std::int64_t mine = rows / workers + (w < rows % workers ? 1 : 0);
                           double d = 2.0;
                           for (std::int64_t i = 0; i < mine; ++i) {
                             const double lw = a / d;
                             d = std::sqrt((a_ii - far * far) - lw * lw);
                           }
                           out(w) = d;
                         });
    Kokkos::DefaultHostExecutionSpace().fence();
    t.push_back(tm.seconds());
  }
  double sink = 0;
  for (int w = 0; w < workers; ++w) sink += out(w);
  if (!(sink > 0)) throw std::runtime_error("chain_floor: unexpected result");
  return median(t);
}

// Baselines on their own (time = their measured median; one iteration).
void BM_baseline(benchmark::State& state, const std::string& name, const std::string& which) {
  if (which == "stream_copy") {  // not a matrix baseline: the copy's bandwidth (GB/s counter), time of 2^25 doubles
    const double gbs = stream_gbs();
    for (auto _ : state) state.SetIterationTime(16.0 * static_cast<double>(std::int64_t(1) << 25) / (gbs * 1e9));
    state.counters["GB/s"] = gbs;
    return;
  }
  const auto& b = baselines(name);
  if (which == "ic_chain") {  // host backends, L2D: the sweep's latency floor, and the copy fraction it allows
    if (Impl::is_gpu_space<ExecSpace>() || name != "L2D") {
      state.SkipWithError("the chain floor is measured for L2D on host backends");
      return;
    }
    ParIluHandle<double, Device> h(ParIluKind::Ic);
    if (!setup_or_skip(state, h, b, 0)) return;
    const double t = chain_floor_seconds(b.A.numRows());
    for (auto _ : state) state.SetIterationTime(t);
    state.counters["workers"] = ExecSpace().concurrency();
    state.counters["ns_per_row"] = 1e9 * t * ExecSpace().concurrency() / b.A.numRows();
    // the highest x_stream a sweep in row order can reach: its minimum bytes in the floor's time, against the copy
    state.counters["x_stream_max"] = sweep_bytes(h) / t * 1e-9 / stream_gbs();
    return;
  }
  double t = 0;
  if (which == "spmv") t = b.spmv;
  if (which == "spiluk_numeric") t = b.spiluk_numeric;
  if (which == "host_ic0") t = b.host_ic0;
  if (which == "host_ilu0") t = b.host_ilu0;
  if (which == "cusparse_csric02") t = b.cusparse_ic;
  if (which == "cusparse_csrilu02") t = b.cusparse_ilu;
  if (t <= 0) {
    state.SkipWithError("not available in this build / for this matrix");
    return;
  }
  for (auto _ : state) state.SetIterationTime(t);
  state.counters["n"] = b.A.numRows();
  state.counters["nnz"] = b.A.nnz();
}

// L3D, IC, 5 sweeps: block order (0 forward, 1 backward, 2 random) x occupancy limit (max concurrent teams,
// -1 unlimited). Reports the residual after 5 sweeps (median over the iterations) and the time (Tables 3, 5).
void BM_launch(benchmark::State& state) {
  const auto& b = baselines("L3D");
  ParIluHandle<double, Device> h(ParIluKind::Ic);
  h.launch.block_order = state.range(0) == 0   ? BlockOrder::Forward
                         : state.range(0) == 1 ? BlockOrder::Backward
                                               : BlockOrder::Random;
  h.launch.max_concurrent_teams = static_cast<int>(state.range(1));
  if (!setup_or_skip(state, h, b, 5)) return;
  std::vector<double> res;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    h.launch.seed = seed++;
    par_ilu_numeric(ExecSpace(), h, b.A);
    state.SetIterationTime(h.stats().sweep_seconds);
    res.push_back(par_ilu_nonlinear_residual(ExecSpace(), h));
  }
  common_counters(state, b, h);
  state.counters["residual_median"] = median(res);
  state.counters["league"] = h.stats().launch.league_size;
}

/// The matrices: L2D, L3D and four shared ones, or those listed in ASYNCSPARSE_PAR_ILU_PROBLEMS (names or generator
/// specs separated by ';').
const std::vector<std::string>& problems() {
  static const std::vector<std::string> p = [] {
    std::vector<std::string> v = env_list("ASYNCSPARSE_PAR_ILU_PROBLEMS");
    if (v.empty()) v = {"L2D", "L3D", "bcsstk16", "bodyy6", "ted_b", "fv1"};
    return v;
  }();
  return p;
}

struct Registration {
  Registration() {
    for (const auto& name : problems()) {
      for (auto kind : {ParIluKind::Ic, ParIluKind::Ilu}) {
        const std::string k = kind == ParIluKind::Ic ? "par_ic" : "par_ilu";
        const bool grid = name == "L2D" || name == "L3D";
        std::vector<Variant> variants = {Variant{},
                                         Variant{SweepKernel::Entry},
                                         Variant{SweepKernel::List},
                                         Variant{SweepKernel::Row},
                                         Variant{SweepKernel::RowMerge},
                                         Variant{SweepKernel::RowTeam}};
        if (grid) variants.push_back(Variant{SweepKernel::Entry, 256});
        if (grid || name == "bcsstk16") {
          for (int threads : {64, 256})  // the row kernel's launch study: rows per team x lanes per row
            for (int lanes : {1, 2, 4, 8, 16, 32})
              variants.push_back(Variant{SweepKernel::Row, threads / lanes, lanes});
          for (int threads : {16, 64, 256})  // the list kernel's: unknowns per team x lanes per unknown
            for (int lanes : {1, 2, 4, 8, 16})
              if (threads >= lanes) variants.push_back(Variant{SweepKernel::List, threads / lanes, lanes});
        }
        for (const auto& v : variants) {
          benchmark::RegisterBenchmark(("BM_" + k + "_sweep" + v.suffix() + "/" + name).c_str(), BM_sweep, name, kind,
                                       v)
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond);
          benchmark::RegisterBenchmark(("BM_" + k + "_5sweeps" + v.suffix() + "/" + name).c_str(), BM_five_sweeps, name,
                                       kind, v)
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond);
        }
        for (const auto& v :
             {Variant{}, Variant{SweepKernel::Entry}, Variant{SweepKernel::List}, Variant{SweepKernel::RowTeam}})
          benchmark::RegisterBenchmark(("BM_" + k + "_factorization" + v.suffix() + "/" + name).c_str(),
                                       BM_factorization, name, kind, v)
              ->UseManualTime()
              ->Iterations(10)
              ->Unit(benchmark::kMicrosecond);
      }
      for (const char* w : {"spmv", "spiluk_numeric", "host_ic0", "host_ilu0", "cusparse_csric02", "cusparse_csrilu02"})
        benchmark::RegisterBenchmark(("BM_baseline_" + std::string(w) + "/" + name).c_str(), BM_baseline, name,
                                     std::string(w))
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMicrosecond);
    }
    benchmark::RegisterBenchmark("BM_baseline_stream_copy", BM_baseline, std::string(), std::string("stream_copy"))
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
    if (!Impl::is_gpu_space<ExecSpace>())
      benchmark::RegisterBenchmark("BM_baseline_ic_chain/L2D", BM_baseline, std::string("L2D"), std::string("ic_chain"))
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    auto* l = benchmark::RegisterBenchmark("BM_par_ic_launch/L3D", BM_launch)
                  ->UseManualTime()
                  ->Unit(benchmark::kMicrosecond)
                  ->Iterations(10)
                  ->ArgNames({"order", "max_teams"});
    for (int order : {0, 1, 2})
      for (int teams : {-1, 4096, 1024, 256, 64}) l->Args({order, teams});
  }
};
const Registration registration;

}  // namespace
