// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Google Benchmark main for the AsyncSparse perf tests: initialises Kokkos and records its
// configuration (version, execution space, concurrency, GPU) in the benchmark context.
#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <cstdlib>

#include <asyncsparse/diagnostics/AsyncSparse_run_info.hpp>

#include "PerfHelpers.hpp"

int main(int argc, char** argv) {
  if (!std::getenv("OMP_PROC_BIND")) setenv("OMP_PROC_BIND", "spread", 1);
  if (!std::getenv("OMP_PLACES")) setenv("OMP_PLACES", "threads", 1);
  Kokkos::initialize(argc, argv);
  {
    const auto info = AsyncSparse::kokkos_info();
    benchmark::AddCustomContext("kokkos_version", info.find("kokkos_version")->string());
    benchmark::AddCustomContext("execution_space", Kokkos::DefaultExecutionSpace::name());
    benchmark::AddCustomContext("concurrency", std::to_string(Kokkos::DefaultExecutionSpace().concurrency()));
    benchmark::AddCustomContext("device", AsyncSparse::device_name().empty() ? "host" : AsyncSparse::device_name());
    benchmark::AddCustomContext("problem_scale", AsyncSparse::Perf::paper_scale() ? "paper" : "small");
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  }
  Kokkos::finalize();
  return 0;
}
