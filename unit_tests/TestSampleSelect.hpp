// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// SampleSelect: exact selection equals std::nth_element on random, sorted, reversed, all-equal and adversarial
// inputs (both counting variants, float and double, by value and by magnitude, deep recursions); approximate
// selection within its stated rank bound; every bad input rejected with a clear message.
#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/factorization/AsyncSparse_select.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_bucket_select.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_team_select.hpp>
#include <support/TestHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace test_sample_select {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;

template <class T>
T host_nth(std::vector<T> v, std::int64_t k, SelectOrder order) {
  if (order == SelectOrder::Magnitude)
    for (auto& x : v) x = std::abs(x);
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[static_cast<std::size_t>(k)];
}

template <class T>
std::vector<std::pair<std::string, std::vector<T>>> inputs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<std::pair<std::string, std::vector<T>>> out;
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(u(rng));
  out.push_back({"random", v});
  std::sort(v.begin(), v.end());
  out.push_back({"sorted", v});
  std::reverse(v.begin(), v.end());
  out.push_back({"reversed", v});
  out.push_back({"all_equal", std::vector<T>(n, T(0.25))});
  std::vector<T> d(n);
  for (auto& x : d) x = static_cast<T>(static_cast<int>(rng() % 7) - 3);  // few distinct values, many duplicates
  out.push_back({"seven_values", d});
  std::vector<T> two(n);
  for (std::size_t i = 0; i < n; ++i) two[i] = (rng() % 100) == 0 ? T(2) : T(-1);  // skewed two values
  out.push_back({"two_values_skewed", two});
  std::vector<T> outlier(n, T(1));
  outlier[n / 3] = static_cast<T>(1e30);
  out.push_back({"one_outlier", outlier});
  std::vector<T> organ(n);  // organ pipe: duplicates in pairs, ascending then descending
  for (std::size_t i = 0; i < n; ++i) organ[i] = static_cast<T>(i < n / 2 ? i : n - i);
  out.push_back({"organ_pipe", organ});
  std::vector<T> inf(n);
  for (std::size_t i = 0; i < n; ++i)
    inf[i] =
        i % 5 == 0 ? std::numeric_limits<T>::infinity() : (i % 5 == 1 ? -std::numeric_limits<T>::infinity() : T(i % 3));
  out.push_back({"infinities", inf});
  std::vector<T> zeros(n);
  for (std::size_t i = 0; i < n; ++i) zeros[i] = i % 2 ? T(0) : -T(0);  // signed zeros compare equal
  out.push_back({"signed_zeros", zeros});
  return out;
}

template <class T>
void check_exact(std::size_t n, const SampleSelectParams& base, std::uint64_t seed) {
  for (const auto& in : inputs<T>(n, seed)) {
    auto d = to_device<Dev>(in.second);
    std::mt19937_64 rng(seed + 7);
    std::vector<std::int64_t> ks = {0, static_cast<std::int64_t>(n) - 1, static_cast<std::int64_t>(n) / 2};
    for (int r = 0; r < 4; ++r) ks.push_back(static_cast<std::int64_t>(rng() % n));
    for (SelectOrder order : {SelectOrder::Value, SelectOrder::Magnitude})
      for (BucketCounting counting : {BucketCounting::TeamAtomics, BucketCounting::GlobalAtomics}) {
        SampleSelectParams p = base;
        p.order = order;
        p.counting = counting;
        SampleSelectHandle<T, Dev> h(p);
        for (auto k : ks) {
          const T got = sample_select(TEST_EXECSPACE(), h, d, k);
          const T want = host_nth(in.second, k, order);
          EXPECT_EQ(got, want) << in.first << " n=" << n << " k=" << k << " order=" << to_string(order)
                               << " counting=" << to_string(counting) << " levels=" << h.stats.levels;
          // the counts around the answer, which SampleSelect keeps from its buckets and base case
          std::int64_t greater = 0, equal = 0;
          for (const T& x : in.second) {
            const T key = order == SelectOrder::Magnitude ? std::abs(x) : x;
            greater += key > want ? 1 : 0;
            equal += key == want ? 1 : 0;
          }
          EXPECT_EQ(h.stats.count_greater, greater) << in.first << " n=" << n << " k=" << k;
          EXPECT_EQ(h.stats.count_equal, equal) << in.first << " n=" << n << " k=" << k;
        }
      }
  }
}

TEST(TEST_CATEGORY, sample_select_exact_matches_nth_element) {
  // one counting level then the host base case (defaults), in double and float
  check_exact<double>(20000, SampleSelectParams{}, 1);
  check_exact<float>(20000, SampleSelectParams{}, 2);
  // deep recursion: few buckets, tiny base case
  SampleSelectParams deep;
  deep.num_buckets = 4;
  deep.oversampling = 2;
  deep.base_case_size = 3;
  check_exact<double>(3000, deep, 3);
  check_exact<float>(3000, deep, 4);
  // small inputs: n = 1, n < sample size, n just above the base case
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(5), std::size_t(100), std::size_t(1030)}) {
    SampleSelectParams p;
    p.base_case_size = 1;  // force counting passes even on tiny inputs
    check_exact<double>(n, p, 10 + n);
    check_exact<double>(n, SampleSelectParams{}, 20 + n);
  }
}

// The splitters drawn and sorted in one team (GPUs' path, run here on every backend): the values at ranks j S / nb of
// the sample sorted on the host, the sample taken at the same positions, on every input, both orders, float and
// double, samples of 1 to 4,096 values (every value when n is not larger than the sample; padded to powers of two).
template <class T>
void check_team_splitters(std::size_t n, int buckets, int oversampling, std::uint64_t seed) {
  for (const auto& in : inputs<T>(n, seed)) {
    const auto d = to_device<Dev>(in.second);
    for (SelectOrder order : {SelectOrder::Value, SelectOrder::Magnitude}) {
      SampleSelectParams p;
      p.order = order;
      p.num_buckets = buckets;
      p.oversampling = oversampling;
      p.seed = seed;
      SampleSelectHandle<T, Dev> h(p);
      const int level = static_cast<int>(seed % 3);
      const auto smp = Impl::select_sample(p, static_cast<std::int64_t>(n), level);
      Impl::select_team_splitters(TEST_EXECSPACE(), h, d, order == SelectOrder::Magnitude, smp);
      std::vector<T> sample(static_cast<std::size_t>(smp.size));
      for (std::int64_t j = 0; j < smp.size; ++j) {
        const T x = in.second[static_cast<std::size_t>(smp.position(j))];
        sample[static_cast<std::size_t>(j)] = order == SelectOrder::Magnitude ? std::abs(x) : x;
      }
      std::sort(sample.begin(), sample.end());
      std::int64_t nan_index = -1;  // the kernel also resets the counting kernel's NaN index to n
      Kokkos::deep_copy(nan_index, h.nan_index_);
      EXPECT_EQ(nan_index, static_cast<std::int64_t>(n));
      std::vector<T> got(static_cast<std::size_t>(buckets - 1));
      Kokkos::deep_copy(
          Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(got.data(), got.size()),
          Kokkos::subview(h.splitters_, std::make_pair(0, buckets - 1)));
      for (int j = 1; j < buckets; ++j)
        ASSERT_EQ(got[static_cast<std::size_t>(j - 1)],
                  sample[static_cast<std::size_t>((static_cast<std::int64_t>(j) * smp.size) / buckets)])
            << in.first << " n=" << n << " buckets=" << buckets << " oversampling=" << oversampling
            << " order=" << to_string(order) << " splitter " << j;
    }
  }
}

TEST(TEST_CATEGORY, sample_select_team_splitters_match_host_sort) {
  for (std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(100), std::size_t(1000), std::size_t(1024),
                        std::size_t(1500), std::size_t(20000)}) {
    check_team_splitters<double>(n, 256, 4, 30 + n);
    check_team_splitters<float>(n, 256, 4, 40 + n);
  }
  check_team_splitters<double>(3000, 4, 2, 5);      // 8 values: a short network
  check_team_splitters<double>(20000, 2048, 2, 6);  // 4,096 doubles: the largest sample sorted in one team
  check_team_splitters<float>(20000, 1000, 3, 7);   // 3,000 values padded to 4,096
  // the rule: GPUs only, samples up to 32 KB padded (the default 1,024 doubles; not 2,048 x 4)
  const bool gpu = Impl::is_gpu_space<TEST_EXECSPACE>();
  EXPECT_EQ((Impl::select_team_sort<TEST_EXECSPACE, double>(Impl::select_sample(SampleSelectParams{}, 20000, 0))), gpu);
  SampleSelectParams large;
  large.num_buckets = 2048;
  EXPECT_FALSE((Impl::select_team_sort<TEST_EXECSPACE, double>(Impl::select_sample(large, 20000, 0))));
  EXPECT_EQ((Impl::select_team_sort<TEST_EXECSPACE, float>(Impl::select_sample(large, 20000, 0))), gpu);
}

/// Impl::bucket_select_launch's result, read back.
template <class T, class Values>
Impl::TeamSelection<T> bucket_select_magnitude(SampleSelectHandle<T, Dev>& h, const Values& d, std::int64_t n,
                                               std::int64_t k) {
  Kokkos::View<std::int64_t*, Dev> bucket("bucket", Impl::kBucketEntries), out("out", 4);
  Impl::bucket_select_launch(TEST_EXECSPACE(), h, d, n, k, bucket, out);
  std::int64_t r[4];
  Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(r, 4), out);
  return Impl::team_select_result<T>(r);
}

// The one-team radix select of ParILUT's short arrays, and the one SampleSelect level it finishes on the device
// (bucket_select: 256 buckets, and 4 buckets, whose large strict buckets the one-team select ranks): the k-th smallest
// magnitude as std::nth_element finds it, the counts of larger and of equal magnitudes, NaN reported, on the same
// inputs (ties, signed zeros, infinities, an outlier).
template <class T>
void check_team_select(std::size_t n, std::uint64_t seed) {
  Kokkos::View<std::int64_t*, Dev> out("out", 4);
  SampleSelectParams few;
  few.num_buckets = 4;
  few.oversampling = 2;
  SampleSelectHandle<T, Dev> bucketed[2] = {SampleSelectHandle<T, Dev>(), SampleSelectHandle<T, Dev>(few)};
  for (const auto& in : inputs<T>(n, seed)) {
    auto d = to_device<Dev>(in.second);
    std::mt19937_64 rng(seed + 11);
    std::vector<std::int64_t> ks = {0, static_cast<std::int64_t>(n) - 1, static_cast<std::int64_t>(n) / 2};
    for (int r = 0; r < 4; ++r) ks.push_back(static_cast<std::int64_t>(rng() % n));
    for (auto k : ks)
      for (int variant = 0; variant < 3; ++variant) {
        const auto r = variant == 0
                           ? Impl::team_select_magnitude(TEST_EXECSPACE(), d, static_cast<std::int64_t>(n), k, out)
                           : bucket_select_magnitude(bucketed[variant - 1], d, static_cast<std::int64_t>(n), k);
        const T want = host_nth(in.second, k, SelectOrder::Magnitude);
        std::int64_t greater = 0, equal = 0;
        for (T x : in.second) {
          greater += std::abs(x) > want ? 1 : 0;
          equal += std::abs(x) == want ? 1 : 0;
        }
        const std::string at =
            in.first + " n=" + std::to_string(n) + " k=" + std::to_string(k) + " variant=" + std::to_string(variant);
        EXPECT_EQ(r.value, want) << at;
        EXPECT_EQ(r.equal, equal) << at;
        EXPECT_FALSE(std::signbit(r.value)) << at;  // a magnitude, -0 as +0
        EXPECT_EQ(r.greater, greater) << at;
        EXPECT_EQ(r.nan_count, 0) << at;
      }
  }
}

TEST(TEST_CATEGORY, team_select_matches_nth_element) {
  // up to 512 values the one-team select ranks by counting, beyond by radix passes; 4 buckets of 20,000 values hold
  // more than 512
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(7), std::size_t(300), std::size_t(512),
                        std::size_t(5000), std::size_t(20000)}) {
    check_team_select<double>(n, 40 + n);
    check_team_select<float>(n, 50 + n);
  }
  // a prefix of the View: only the first n values take part
  std::vector<double> v = {5, -1, 3, 2, 100, -200};
  auto d = to_device<Dev>(v);
  Kokkos::View<std::int64_t*, Dev> out("out", 4);
  const auto r = Impl::team_select_magnitude(TEST_EXECSPACE(), d, 4, 3, out);
  EXPECT_EQ(r.value, 5.0);
  EXPECT_EQ(r.greater, 0);
  EXPECT_EQ(r.equal, 1);
  // too little work space for the four results
  Kokkos::View<std::int64_t*, Dev> short_out("short_out", 3);
  ASYNCSPARSE_EXPECT_THROW_MSG(Impl::team_select_magnitude(TEST_EXECSPACE(), d, 4, 3, short_out), InvalidInput,
                               "team_select_magnitude: `out` needs 4 entries");
  // values a few ulps apart: the lower digits decide
  std::vector<double> close(257);
  for (std::size_t i = 0; i < close.size(); ++i) close[i] = std::nextafter(1.0, 2.0) + (i % 3 ? 0 : 1e-16 * (i % 7));
  for (std::size_t i = 0; i < close.size(); ++i)
    for (std::size_t r = 0; r < i % 5; ++r) close[i] = std::nextafter(close[i], 2.0);
  auto dc = to_device<Dev>(close);
  for (std::int64_t k : {0, 1, 100, 128, 255, 256}) {
    const auto rc = Impl::team_select_magnitude(TEST_EXECSPACE(), dc, 257, k, out);
    std::int64_t greater = 0, equal = 0;
    const double want = host_nth(close, k, SelectOrder::Magnitude);
    for (double x : close) {
      greater += x > want ? 1 : 0;
      equal += x == want ? 1 : 0;
    }
    EXPECT_EQ(rc.value, want) << "k=" << k;
    EXPECT_EQ(rc.greater, greater) << "k=" << k;
    EXPECT_EQ(rc.equal, equal) << "k=" << k;
  }
  // a rank outside [0, n) is refused
  ASYNCSPARSE_EXPECT_THROW_MSG(Impl::team_select_magnitude(TEST_EXECSPACE(), d, 4, 4, out), InvalidInput,
                               "team_select_magnitude: k = 4 is out of range [0, 4)");
  // NaN: counted, not ranked
  v[2] = std::numeric_limits<double>::quiet_NaN();
  v[4] = -std::numeric_limits<double>::quiet_NaN();
  d = to_device<Dev>(v);
  EXPECT_EQ(Impl::team_select_magnitude(TEST_EXECSPACE(), d, 6, 0, out).nan_count, 2);
  SampleSelectHandle<double, Dev> h;
  if (Impl::select_team_sort<TEST_EXECSPACE, double>(Impl::select_sample(h.params, 6, 0)))
    EXPECT_EQ(bucket_select_magnitude(h, d, 6, 0).nan_count, 1);  // found on the device, not counted
  else                                                            // the sample, sorted on the host, holds it
    ASYNCSPARSE_EXPECT_THROW_MSG(bucket_select_magnitude(h, d, 6, 0), InvalidInput,
                                 "bucket_select: values(2) is NaN; NaN cannot be ranked");
  ASYNCSPARSE_EXPECT_THROW_MSG(bucket_select_magnitude(h, d, 6, 6), InvalidInput,
                               "bucket_select: k = 6 is out of range [0, 6)");
}

TEST(TEST_CATEGORY, sample_select_recursion_statistics) {
  const std::size_t n = 100000;
  std::vector<double> v(n);
  std::mt19937_64 rng(5);
  for (auto& x : v) x = std::ldexp(static_cast<double>(rng() >> 11), -53);
  auto d = to_device<Dev>(v);
  SampleSelectParams p;
  p.num_buckets = 16;
  p.base_case_size = 64;
  SampleSelectHandle<double, Dev> h(p);
  const std::int64_t k = 31337;
  EXPECT_EQ(sample_select(TEST_EXECSPACE(), h, d, k), host_nth(v, k, SelectOrder::Value));
  EXPECT_GE(h.stats.levels, 3);  // 1e5 / 16^2 > 64
  ASSERT_EQ(static_cast<int>(h.stats.level_sizes.size()), h.stats.levels);
  EXPECT_EQ(h.stats.level_sizes[0], static_cast<std::int64_t>(n));
  for (std::size_t l = 1; l < h.stats.level_sizes.size(); ++l)
    EXPECT_LT(h.stats.level_sizes[l], h.stats.level_sizes[l - 1]);
  EXPECT_GT(h.stats.base_case_size, 0);
  EXPECT_LE(h.stats.base_case_size, 64);
  EXPECT_EQ(h.stats.n, static_cast<std::int64_t>(n));
  EXPECT_EQ(h.stats.k, k);
  EXPECT_GE(h.stats.launch.league_size, 1);
  // all-equal input: answered from the first level's equality bucket, no extraction
  auto e = to_device<Dev>(std::vector<double>(5000, 3.0));
  EXPECT_EQ(sample_select(TEST_EXECSPACE(), h, e, 4321), 3.0);
  EXPECT_TRUE(h.stats.equality_bucket_hit);
  EXPECT_EQ(h.stats.levels, 1);
  // the same handle works for a larger input afterwards (workspace grows)
  std::vector<double> big(3 * n);
  for (auto& x : big) x = std::ldexp(static_cast<double>(rng() >> 11), -53);
  EXPECT_EQ(sample_select(TEST_EXECSPACE(), h, to_device<Dev>(big), 3 * n - 2),
            host_nth(big, 3 * n - 2, SelectOrder::Value));
  // one-shot form, strided (non-contiguous) input
  Kokkos::View<double**, Kokkos::LayoutRight, Dev> m("m", 1000, 2);
  auto mh = Kokkos::create_mirror_view(m);
  std::vector<double> col(1000);
  for (int i = 0; i < 1000; ++i) {
    col[i] = std::sin(0.37 * i);
    mh(i, 0) = col[i];
    mh(i, 1) = 1e9;
  }
  Kokkos::deep_copy(m, mh);
  auto strided = Kokkos::subview(m, Kokkos::ALL, 0);
  SampleSelectParams small;
  small.base_case_size = 10;
  EXPECT_EQ(sample_select(TEST_EXECSPACE(), strided, 777, small), host_nth(col, 777, SelectOrder::Value));
}

template <class T>
void check_approx(std::size_t n, std::uint64_t seed, BucketCounting counting) {
  for (const auto& in : inputs<T>(n, seed)) {
    auto d = to_device<Dev>(in.second);
    for (SelectOrder order : {SelectOrder::Value, SelectOrder::Magnitude}) {
      SampleSelectParams p;
      p.order = order;
      p.counting = counting;
      SampleSelectHandle<T, Dev> h(p);
      std::vector<T> keys = in.second;
      if (order == SelectOrder::Magnitude)
        for (auto& x : keys) x = std::abs(x);
      for (std::int64_t k : {std::int64_t(0), static_cast<std::int64_t>(n / 3), static_cast<std::int64_t>(n - 1)}) {
        const auto r = sample_select_approximate(TEST_EXECSPACE(), h, d, k);
        const std::int64_t less = std::count_if(keys.begin(), keys.end(), [&](T x) { return x < r.value; });
        EXPECT_NE(std::find(keys.begin(), keys.end(), r.value), keys.end())
            << in.first << ": threshold not an input value";
        EXPECT_EQ(r.count_less, less) << in.first << " k=" << k;
        EXPECT_LE(r.count_less, k) << in.first << " k=" << k;
        EXPECT_LT(k - r.count_less, r.rank_error_bound) << in.first << " k=" << k;
        EXPECT_EQ(h.stats.levels, 1);
        EXPECT_EQ(h.stats.rank_error_bound, r.rank_error_bound);
        EXPECT_EQ(h.stats.count_greater, -1);  // exact selections only
        if (in.first == "random") EXPECT_LE(r.rank_error_bound, static_cast<std::int64_t>(4 * n / 256)) << "k=" << k;
      }
    }
  }
}

TEST(TEST_CATEGORY, sample_select_approximate_within_bound) {
  check_approx<double>(1 << 16, 11, BucketCounting::TeamAtomics);
  check_approx<float>(1 << 16, 12, BucketCounting::GlobalAtomics);
  // when rank k is held by an equality bucket the answer is exact
  std::vector<double> v(40000, 1.0);
  for (std::size_t i = 0; i < v.size(); i += 2) v[i] = 2.0;
  auto r = sample_select_approximate(TEST_EXECSPACE(), to_device<Dev>(v), 10);
  EXPECT_EQ(r.value, 1.0);
  EXPECT_EQ(r.count_less, 0);
}

TEST(TEST_CATEGORY, sample_select_rejects_bad_input) {
  auto d = to_device<Dev>(std::vector<double>{3.0, 1.0, 2.0});
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select(TEST_EXECSPACE(), d, 3), InvalidInput, "k = 3 is out of range [0, 3)");
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select(TEST_EXECSPACE(), d, -1), InvalidInput, "k = -1 is out of range");
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select_approximate(TEST_EXECSPACE(), d, 7), InvalidInput,
                               "sample_select_approximate: k = 7 is out of range");
  Kokkos::View<double*, Dev> empty("empty", 0);
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select(TEST_EXECSPACE(), empty, 0), InvalidInput, "no values (empty view)");
  // NaN: reported with the index of the first NaN, in the base case and in a counting pass
  std::vector<double> v(5000, 1.0);
  v[4000] = std::numeric_limits<double>::quiet_NaN();
  v[4500] = std::numeric_limits<double>::quiet_NaN();
  auto dn = to_device<Dev>(v);
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select(TEST_EXECSPACE(), dn, 10), InvalidInput, "values(4000) is NaN");
  SampleSelectParams big_base;
  big_base.base_case_size = 100000;
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select(TEST_EXECSPACE(), dn, 10, big_base), InvalidInput, "values(4000) is NaN");
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select_approximate(TEST_EXECSPACE(), dn, 10), InvalidInput,
                               "values(4000) is NaN");
  std::vector<float> allnan(3000, std::numeric_limits<float>::quiet_NaN());  // the sample holds NaN
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select(TEST_EXECSPACE(), to_device<Dev>(allnan), 5), InvalidInput,
                               "values(0) is NaN");
  // parameters
  SampleSelectParams p;
  p.num_buckets = 1;
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select(TEST_EXECSPACE(), d, 0, p), InvalidInput,
                               "num_buckets must be in [2, 2048]");
  p = SampleSelectParams();
  p.oversampling = 0;
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select(TEST_EXECSPACE(), d, 0, p), InvalidInput, "oversampling must be >= 1");
  p = SampleSelectParams();
  p.base_case_size = 0;
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select(TEST_EXECSPACE(), d, 0, p), InvalidInput, "base_case_size must be >= 1");
  SampleSelectHandle<double, Dev> h;
  h.launch.vector_length = 4;
  ASYNCSPARSE_EXPECT_THROW_MSG(sample_select(TEST_EXECSPACE(), h, d, 0), InvalidInput, "vector_length must be -1 or 1");
  h.launch.vector_length = -1;
  h.launch.max_concurrent_teams = 2;  // explicit league
  EXPECT_EQ(sample_select(TEST_EXECSPACE(), h, d, 1), 2.0);
}

}  // namespace test_sample_select
