// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Shared pieces of the perf tests: problem sizes, timing with fences, counters. Matrix location and loading come
// from asyncsparse_test_support (<support/TestMatrices.hpp>), shared with the unit and Ifpack2 tests.
#pragma once

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_load.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>

#include <support/TestEnvironment.hpp>
#include <support/TestMatrices.hpp>

namespace AsyncSparse {
namespace Perf {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using Device = ExecSpace::device_type;

/// Runs `read`, which reads a perf test's numeric environment settings (Test::env_integer / env_number), when the
/// test registers its benchmarks, before Kokkos starts: a malformed setting ends the program at once with its message
/// (exit status 2) instead of later inside a benchmark, after the problems of the ones before have been set up.
template <class Read>
void check_settings(Read&& read) {
  try {
    read();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    std::exit(2);
  }
}

/// "paper" sizes (L2D 1024², L3D 64³, ...) or "small" ones for CPUs/CI; ASYNCSPARSE_PERF_SCALE overrides.
inline bool paper_scale() {
  if (const char* s = std::getenv("ASYNCSPARSE_PERF_SCALE")) return std::string(s) == "paper";
  return !std::is_same<ExecSpace::memory_space, Kokkos::HostSpace>::value;
}

using Test::matrix_dir;
using Test::shared_matrix_names;

/// Resolve a perf-test problem name: "L2D" / "L3D" (paper sizes or small), else as Test::matrix_spec ("gen:...",
/// a path, or a shared matrix name).
inline std::string problem_spec(const std::string& name) {
  const bool big = paper_scale();
  if (name == "L2D") return big ? "gen:lap2d:1024" : "gen:lap2d:256";
  if (name == "L3D") return big ? "gen:lap3d27:64" : "gen:lap3d27:24";
  if (name == "L2D_small") return "gen:lap2d:128";  // latency-bound size (16 k rows, as the shared FEM matrices)
  return Test::matrix_spec(name);
}

/// Host matrices are loaded once per process and cached (Test::host_matrix).
inline const CsrHost<double>& host_matrix(const std::string& name) { return Test::host_matrix(problem_spec(name)); }

/// The ';'-separated items of environment variable `var` (matrix names or generator specs); empty when unset.
inline std::vector<std::string> env_list(const char* var) {
  std::vector<std::string> v;
  if (const char* env = std::getenv(var)) {
    std::string s = env;
    for (std::size_t b = 0; b <= s.size();) {
      const std::size_t e = std::min(s.find(';', b), s.size());
      if (e > b) v.push_back(s.substr(b, e - b));
      b = e + 1;
    }
  }
  return v;
}

/// Median of `v` (the upper of the two middle values for an even count; 0 for none).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Time `f` with fences before and after; report as manual time.
template <class F>
double timed(F&& f) {
  ExecSpace().fence();
  Kokkos::Timer t;
  f();
  ExecSpace().fence();
  return t.seconds();
}

/// Bytes moved by one CSR spmv y = A x (values, column indices, row pointers, x once, y once).
inline double spmv_bytes(std::int64_t n, std::int64_t nnz) {
  return static_cast<double>(nnz) * (sizeof(double) + sizeof(ordinal_t)) +
         static_cast<double>(n + 1) * sizeof(offset_t) + 2.0 * static_cast<double>(n) * sizeof(double);
}

/// Manual-time loop: runs `f` once per benchmark iteration, reports its time, returns the mean seconds.
template <class F>
double run_timed(benchmark::State& state, F&& f) {
  double total = 0;
  std::int64_t iters = 0;
  for (auto _ : state) {
    const double t = timed(f);
    state.SetIterationTime(t);
    total += t;
    ++iters;
  }
  return iters ? total / static_cast<double>(iters) : 0.0;
}

inline void set_matrix_counters(benchmark::State& state, const CsrHost<double>& A) {
  state.counters["n"] = A.nrows;
  state.counters["nnz"] = A.nnz();
}


/// The test system of the asynchronous-Jacobi paper on device type `D`: A scaled to unit diagonal, b uniform in
/// (-0.125, 0.125) (seed 0), a work vector x; built once per problem spec and device type, freed before
/// Kokkos::finalize.
template <class D>
struct RelaxationSystem {
  CsrHost<double> Ah;
  Crs<double, D> A;
  Kokkos::View<double*, D> b, x;
};
template <class D>
RelaxationSystem<D>& relaxation_system(const std::string& spec) {
  static std::map<std::string, std::unique_ptr<RelaxationSystem<D>>> cache;
  static const bool hooked = (Kokkos::push_finalize_hook([] { cache.clear(); }), true);
  (void)hooked;
  auto& s = cache[spec];
  if (!s) {
    s.reset(new RelaxationSystem<D>);
    s->Ah = scale_unit_diagonal(host_matrix(spec)).A;
    std::mt19937_64 rng(0);
    std::vector<double> b(s->Ah.nrows);
    for (auto& v : b) v = -0.125 + 0.25 * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
    s->A = to_device<D>(s->Ah);
    s->b = to_device<D>(b);
    s->x = Kokkos::View<double*, D>("x", s->Ah.nrows);
  }
  return *s;
}

/// STREAM-like copy bandwidth of a memory space, measured in this process: c(i) = a(i) over `n` doubles by a
/// parallel_for of `Exec`, the best of `reps` runs (as STREAM reports), 16 bytes per element (STREAM's count:
/// one read, one write). The arrays (2 x 256 MiB by default) are far larger than any last-level cache.
template <class Exec = ExecSpace>
double stream_copy_gbs(std::int64_t n = std::int64_t(1) << 25, int reps = 10) {
  using MemSpace = typename Exec::memory_space;
  Kokkos::View<double*, MemSpace> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "stream_a"), n);
  Kokkos::View<double*, MemSpace> c(Kokkos::view_alloc(Kokkos::WithoutInitializing, "stream_c"), n);
  Kokkos::parallel_for("stream_init", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
    a(i) = 1.0 + static_cast<double>(i % 7);
    c(i) = 0.0;
  });
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    Exec().fence();
    Kokkos::Timer t;
    Kokkos::parallel_for("stream_copy", Kokkos::RangePolicy<Exec>(0, n),
                         KOKKOS_LAMBDA(const std::int64_t i) { c(i) = a(i); });
    Exec().fence();
    best = std::min(best, t.seconds());
  }
  return 16.0 * static_cast<double>(n) / best * 1e-9;
}

/// A competing CPU load for the contention benchmarks: one thread that spins on arithmetic, pinned to the last
/// core of the affinity mask it starts with (Linux; elsewhere unpinned): the creating thread's mask, i.e. the last
/// core the process may use, or the master thread's own core when OpenMP binds its threads (core 0 with
/// OMP_PROC_BIND=true OMP_PLACES=threads); from construction until stop() or the destructor, and
/// never longer than `max_seconds` (it stops itself then, so a benchmark that hangs cannot leave it running).
class CompetingLoad {
 public:
  explicit CompetingLoad(double max_seconds = 120.0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_seconds);
    worker_ = std::thread([this, deadline] {
      pin_to_last_core();
      double v = 1.0;
      while (!stop_.load(std::memory_order_relaxed)) {
        for (int k = 0; k < 100000; ++k) v = v * 1.0000001 + 1e-9;
        sink_.store(v, std::memory_order_relaxed);
        if (std::chrono::steady_clock::now() > deadline) break;
      }
    });
  }
  CompetingLoad(const CompetingLoad&) = delete;
  CompetingLoad& operator=(const CompetingLoad&) = delete;
  ~CompetingLoad() { stop(); }
  void stop() {
    stop_.store(true);
    if (worker_.joinable()) worker_.join();
  }
  /// The core the load runs on (-1: not pinned).
  int core() const { return core_.load(); }

 private:
  void pin_to_last_core() {
#if defined(__linux__)
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
    int last = -1;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) last = c;
    if (last < 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(last, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0) core_.store(last);
#endif
  }
  std::atomic<bool> stop_{false};
  std::atomic<double> sink_{0.0};
  std::atomic<int> core_{-1};
  std::thread worker_;
};

}  // namespace Perf
}  // namespace AsyncSparse
