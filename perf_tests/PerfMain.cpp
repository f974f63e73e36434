// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Google Benchmark main for the AsyncSparse perf tests: initialises Kokkos and records its
// configuration (version, execution space, concurrency, GPU) in the benchmark context.
#include <benchmark/benchmark.h>
#include <Kokkos_Core.hpp>

#include <cstdlib>

#include <asyncsparse/diagnostics/AsyncSparse_run_info.hpp>

#include "PerfHelpers.hpp"

int main(int argc, char** argv) {
  if (!std::getenv("OMP_PROC_BIND")) setenv("OMP_PROC_BIND", "spread", 1);
  if (!std::getenv("OMP_PLACES")) setenv("OMP_PLACES", "threads", 1);
  Kokkos::initialize(argc, argv);
  {
    const auto info = AsyncSparse::kokkos_info();
    benchmark::AddCustomContext("kokkos_version", info.kokkos_version);
    benchmark::AddCustomContext("execution_space", info.default_execution_space);
    benchmark::AddCustomContext("concurrency", std::to_string(info.concurrency));
    benchmark::AddCustomContext("device", info.device.empty() ? "host" : info.device);
    benchmark::AddCustomContext("problem_scale", AsyncSparse::Perf::paper_scale() ? "paper" : "small");
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  }
  Kokkos::finalize();
  return 0;
}
