// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The device scans of exec/AsyncSparse_device_scan.hpp (what the ParILUT / ParICT steps and SampleSelect run) by
// each implementation, from a thousand to four million items: an exclusive scan of counts into 32-bit prefixes
// (device_scan/<path>/<n>) and a stream compaction of every third item (device_compact/<path>/<n>). <path>: `cub`
// (CUB on Cuda; elsewhere the same as kokkos), `kokkos` (Kokkos::parallel_scan), `auto` (the library's rule,
// Impl::kCubScanMinItems). Each iteration is one call, timed until the device is done; the counter `submit_us` is the
// host's time in the call before it returns (no wait): what a step that is bound by launches pays per scan.
//
// Run e.g.  AsyncSparse_Perf_device_scan --benchmark_out=scan.json --benchmark_out_format=json
#include "PerfHelpers.hpp"

#include <cstdint>
#include <string>

#include <asyncsparse/exec/AsyncSparse_device_scan.hpp>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;

const char* path_name(Impl::ScanPath p) {
  return p == Impl::ScanPath::Auto ? "auto" : p == Impl::ScanPath::Cub ? "cub" : "kokkos";
}

/// The scratch of the device scans: one View, large enough for every call here.
struct Scratch {
  Kokkos::View<double*, Device> words;
  void* operator()(std::size_t bytes) {
    if (words.extent(0) * sizeof(double) < bytes)
      words = Kokkos::View<double*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "scratch"),
                                            bytes / sizeof(double) + 1);
    return words.data();
  }
};

/// counts 0, 1, 2, 0, 1, 2, ...
Kokkos::View<int*, Device> counts(std::int64_t n) {
  Kokkos::View<int*, Device> c(Kokkos::view_alloc(Kokkos::WithoutInitializing, "counts"), n);
  Kokkos::parallel_for(
      "counts", Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(ExecSpace(), 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { c(i) = static_cast<int>(i % 3); });
  ExecSpace().fence();
  return c;
}

/// value(i) = i; flag(i): count(i) == 0 (every third item)
struct Index {
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(const std::int64_t i) const { return i; }
};
struct EveryThird {
  Kokkos::View<int*, Device> c;
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int64_t i) const { return c(i) == 0; }
};

/// Runs `call` (one scan or compaction) per iteration; the time until the device is done and, as a counter, the
/// host's time in the call.
template <class Call>
void run(benchmark::State& state, Call&& call) {
  const ExecSpace exec;
  call();  // warm-up: the scratch, first launches
  exec.fence();
  double submit = 0.0;
  std::int64_t iterations = 0;
  for (auto _ : state) {
    Kokkos::Timer t;
    call();
    submit += t.seconds();
    exec.fence();
    state.SetIterationTime(t.seconds());
    ++iterations;
  }
  state.counters["submit_us"] = 1e6 * submit / static_cast<double>(iterations > 0 ? iterations : 1);
  state.counters["items"] = static_cast<double>(state.range(0));
}

void BM_device_scan(benchmark::State& state, Impl::ScanPath path) {
  const std::int64_t n = state.range(0);
  const auto c = counts(n);
  Kokkos::View<int*, Device> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "prefixes"), n + 1);
  Scratch temp;
  const ExecSpace exec;
  run(state, [&] { Impl::scan_counts(exec, temp, out, c, n, 2 * n, "device_scan", false, path); });
  // the last prefix: 0 + 1 + 2 per three items
  const std::int64_t want = (n / 3) * 3 + (n % 3 == 2 ? 1 : 0);
  if (Impl::scan_read_last(exec, out, n) != want) state.SkipWithError("wrong total");
}

void BM_device_compact(benchmark::State& state, Impl::ScanPath path) {
  const std::int64_t n = state.range(0);
  const auto c = counts(n);
  Kokkos::View<std::int64_t*, Device> dst(Kokkos::view_alloc(Kokkos::WithoutInitializing, "selected"), (n + 2) / 3);
  Scratch temp;
  const ExecSpace exec;
  const Index value;
  const EveryThird flag{c};
  run(state, [&] { Impl::compact_flagged(exec, temp, dst, value, flag, n, "device_compact", path); });
  const std::int64_t selected = (n + 2) / 3;  // 0, 3, 6, ...
  if (Impl::scan_read_last(exec, dst, selected - 1) != 3 * (selected - 1))
    state.SkipWithError("wrong last selected item");
}

int register_all() {
  for (auto path : {Impl::ScanPath::Auto, Impl::ScanPath::Cub, Impl::ScanPath::Kokkos})
    for (std::int64_t n : {1000, 4000, 16000, 64000, 256000, 1000000, 4000000}) {
      benchmark::RegisterBenchmark((std::string("device_scan/") + path_name(path)).c_str(),
                                   [path](benchmark::State& s) { BM_device_scan(s, path); })
          ->Arg(n)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->MinTime(0.05);
      benchmark::RegisterBenchmark((std::string("device_compact/") + path_name(path)).c_str(),
                                   [path](benchmark::State& s) { BM_device_compact(s, path); })
          ->Arg(n)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->MinTime(0.05);
    }
  return 0;
}
const int registered = register_all();

}  // namespace
