// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Shared pieces of the perf tests: problem sizes, timing with fences, counters. Matrix location and loading come
// from asyncsparse_test_support (<support/TestMatrices.hpp>), shared with the unit and Ifpack2 tests.
#pragma once

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_load.hpp>

#include <support/TestMatrices.hpp>

namespace AsyncSparse {
namespace Perf {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using Device = ExecSpace::device_type;

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
  return Test::matrix_spec(name);
}

/// Host matrices are loaded once per process and cached (Test::host_matrix).
inline const CsrHost<double>& host_matrix(const std::string& name) { return Test::host_matrix(problem_spec(name)); }

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

}  // namespace Perf
}  // namespace AsyncSparse
