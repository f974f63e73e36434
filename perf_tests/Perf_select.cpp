// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// SampleSelect (exact and approximate; bucket counts with per-team scratch atomics or global atomics) versus
// sort-based selection: Kokkos::sort of a copy then the k-th element (BinSort on GPUs, std::sort on host
// backends), and std::nth_element on the host — on n = 2^20 ... 2^28 uniformly distributed floats and doubles
// (2^20 ... 2^22 unless the problem scale is "paper"), rank k = n / 3. The slides' claim to check on a GPU:
// SampleSelect exact is several times faster than sorting (the acceptance target: >= 2x on 2^26 values).
//
// Run e.g.  AsyncSparse_Perf_select --benchmark_filter='/67108864$' --benchmark_out=select.json
#include "PerfHelpers.hpp"

#include <Kokkos_Random.hpp>
#include <Kokkos_Sort.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <asyncsparse/factorization/AsyncSparse_select.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_team_select.hpp>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;

template <class T>
Kokkos::View<T*, Device> random_values(std::int64_t n) {
  Kokkos::View<T*, Device> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, "values"), n);
  Kokkos::Random_XorShift64_Pool<ExecSpace> pool(12345);
  Kokkos::fill_random(v, pool, T(-1), T(1));
  ExecSpace().fence();
  return v;
}

enum class Method { Exact, Approximate, KokkosSort, NthElement };

template <class T>
void BM_select(benchmark::State& state, Method method, BucketCounting counting) {
  const std::int64_t n = state.range(0);
  const std::int64_t k = n / 3;
  auto v = random_values<T>(n);
  SampleSelectHandle<T, Device> h;
  h.params.counting = counting;
  const ExecSpace exec;
  double levels = 0, bound = 0;
  if (method == Method::Exact || method == Method::Approximate) {
    if (method == Method::Exact)
      sample_select(exec, h, v, k);  // warm-up (allocates the workspace)
    else
      sample_select_approximate(exec, h, v, k);
    for (auto _ : state) {
      state.SetIterationTime(timed([&] {
        if (method == Method::Exact)
          benchmark::DoNotOptimize(sample_select(exec, h, v, k));
        else
          benchmark::DoNotOptimize(sample_select_approximate(exec, h, v, k));
      }));
      levels = h.stats.levels;
      bound = static_cast<double>(h.stats.rank_error_bound);
    }
    state.counters["levels"] = levels;
    if (method == Method::Approximate) state.counters["rank_error_bound"] = bound;
    state.counters["team_size"] = h.stats.launch.team_size;
    state.counters["league"] = h.stats.launch.league_size;
  } else if (method == Method::KokkosSort) {
    Kokkos::View<T*, Device> w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "copy"), n);
    for (auto _ : state) {
      T kth{};
      state.SetIterationTime(timed([&] {
        Kokkos::deep_copy(w, v);
        Kokkos::sort(w);
        Kokkos::deep_copy(Kokkos::View<T, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(&kth),
                          Kokkos::subview(w, k));
      }));
      benchmark::DoNotOptimize(kth);
    }
  } else {  // std::nth_element on a host copy (the copy is not timed)
    std::vector<T> host(static_cast<std::size_t>(n)), work;
    Kokkos::deep_copy(
        Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(), host.size()), v);
    for (auto _ : state) {
      work = host;
      Kokkos::Timer t;
      std::nth_element(work.begin(), work.begin() + k, work.end());
      state.SetIterationTime(t.seconds());
      benchmark::DoNotOptimize(work[static_cast<std::size_t>(k)]);
    }
  }
  state.counters["n"] = static_cast<double>(n);
  state.counters["Gvalues/s"] =
      benchmark::Counter(static_cast<double>(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

/// Short arrays, as ParILUT's threshold selection on small matrices sees them: the k-th smallest magnitude with
/// SampleSelect (exact, default parameters) or with the one-team radix select (Impl::team_select_magnitude), same
/// run. The crossover sets ParIlutHandle::Params::team_select_max's default.
template <class T>
void BM_select_short(benchmark::State& state, bool one_team) {
  const std::int64_t n = state.range(0);
  const std::int64_t k = n / 3;
  auto v = random_values<T>(n);
  const ExecSpace exec;
  SampleSelectHandle<T, Device> h;
  h.params.order = SelectOrder::Magnitude;
  Kokkos::View<std::int64_t*, Device> out("out", 4);
  auto once = [&] {
    return one_team ? Impl::team_select_magnitude(exec, v, n, k, out).value : sample_select(exec, h, v, k);
  };
  const T want = once();  // warm-up (SampleSelect allocates its workspace)
  for (auto _ : state) {
    T got{};
    state.SetIterationTime(timed([&] { got = once(); }));
    if (got != want) {
      state.SkipWithError("the selection changed between calls");
      return;
    }
  }
  state.counters["n"] = static_cast<double>(n);
}

int register_all() {
  for (int lg = 10; lg <= 20; ++lg)
    for (bool one_team : {false, true})
      benchmark::RegisterBenchmark(
          (std::string("select_short/double/") + (one_team ? "one_team" : "sample_select")).c_str(),
          [one_team](benchmark::State& s) { BM_select_short<double>(s, one_team); })
          ->Arg(std::int64_t(1) << lg)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->MinTime(0.1);
  const int max_log = paper_scale() ? 28 : 22;
  for (int lg = 20; lg <= max_log; lg += 2) {
    const std::int64_t n = std::int64_t(1) << lg;
    auto add = [&](const std::string& name, auto fn) {
      benchmark::RegisterBenchmark(name.c_str(), fn)
          ->Arg(n)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->MinTime(0.2);
    };
    add("select_exact_team/float",
        [](benchmark::State& s) { BM_select<float>(s, Method::Exact, BucketCounting::TeamAtomics); });
    add("select_exact_global/float",
        [](benchmark::State& s) { BM_select<float>(s, Method::Exact, BucketCounting::GlobalAtomics); });
    add("select_approx_team/float",
        [](benchmark::State& s) { BM_select<float>(s, Method::Approximate, BucketCounting::TeamAtomics); });
    add("select_approx_global/float",
        [](benchmark::State& s) { BM_select<float>(s, Method::Approximate, BucketCounting::GlobalAtomics); });
    add("kokkos_sort/float",
        [](benchmark::State& s) { BM_select<float>(s, Method::KokkosSort, BucketCounting::TeamAtomics); });
    add("select_exact_team/double",
        [](benchmark::State& s) { BM_select<double>(s, Method::Exact, BucketCounting::TeamAtomics); });
    add("select_exact_global/double",
        [](benchmark::State& s) { BM_select<double>(s, Method::Exact, BucketCounting::GlobalAtomics); });
    add("select_approx_team/double",
        [](benchmark::State& s) { BM_select<double>(s, Method::Approximate, BucketCounting::TeamAtomics); });
    add("select_approx_global/double",
        [](benchmark::State& s) { BM_select<double>(s, Method::Approximate, BucketCounting::GlobalAtomics); });
    add("kokkos_sort/double",
        [](benchmark::State& s) { BM_select<double>(s, Method::KokkosSort, BucketCounting::TeamAtomics); });
    if (lg <= 26) {  // host baseline; 2^28 takes seconds per run
      add("std_nth_element/float",
          [](benchmark::State& s) { BM_select<float>(s, Method::NthElement, BucketCounting::TeamAtomics); });
      add("std_nth_element/double",
          [](benchmark::State& s) { BM_select<double>(s, Method::NthElement, BucketCounting::TeamAtomics); });
    }
  }
  return 0;
}
const int registered = register_all();

}  // namespace
