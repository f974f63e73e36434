// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kokkos-Kernels spmv bandwidth (Blas::spmv, compiled in the library) on the 2D/3D Laplacians and the larger shared
// matrices: the roofline every fixed-point sweep benchmark is compared with (a sweep reads at least A once).
#include "PerfHelpers.hpp"

#include <asyncsparse/linalg/AsyncSparse_blas.hpp>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;

void BM_spmv(benchmark::State& state, const std::string& name) {
  const auto& Ah = host_matrix(name);
  auto A = to_device<Device>(Ah);
  Kokkos::View<double*, Device> x("x", Ah.ncols), y("y", Ah.nrows);
  Kokkos::deep_copy(x, 1.0);
  Blas<double, Device>::spmv(1.0, A, x, 0.0, y);  // warm-up
  const double t = run_timed(state, [&] { Blas<double, Device>::spmv(1.0, A, x, 0.0, y); });
  set_matrix_counters(state, Ah);
  state.counters["GB/s"] = spmv_bytes(Ah.nrows, Ah.nnz()) * 1e-9 / t;
}

BENCHMARK_CAPTURE(BM_spmv, L2D, std::string("L2D"))->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_spmv, L3D, std::string("L3D"))->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_spmv, bcsstk16, std::string("bcsstk16"))->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_spmv, bodyy6, std::string("bodyy6"))->UseManualTime()->Unit(benchmark::kMicrosecond);
}  // namespace
