// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device scans (exec/AsyncSparse_device_scan.hpp): scan_counts equals the host's prefix sums for lengths from 0 to
// several tiles, into 32- and 64-bit arrays, with and without a bound of the total; a total beyond 32 bit comes back
// exact; compact_flagged keeps the flagged values in index order; on CUDA, sort_pairs_stable sorts by key and keeps
// the input order of equal keys.
#include <asyncsparse/exec/AsyncSparse_device_scan.hpp>
#include <support/TestHelpers.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace test_device_scan {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using Exec = TEST_EXECSPACE;

/// device scratch for the scans: a View kept by the test, grown on request
struct Scratch {
  Kokkos::View<double*, Dev> buf;
  void* operator()(std::size_t bytes) {
    if (buf.extent(0) * sizeof(double) < bytes) buf = Kokkos::View<double*, Dev>("test::scan_temp", bytes / 8 + 1);
    return buf.data();
  }
};

/// each implementation (CUB where the backend has it, Kokkos::parallel_scan) and the rule's choice
const Impl::ScanPath kPaths[] = {Impl::ScanPath::Auto, Impl::ScanPath::Cub, Impl::ScanPath::Kokkos};

template <class T>
void check_scan(const std::vector<int>& counts, std::int64_t bound, const std::string& what_, Impl::ScanPath path) {
  const std::string what = what_ + ", path " + std::to_string(static_cast<int>(path));
  const auto n = static_cast<std::int64_t>(counts.size());
  Kokkos::View<int*, Dev> c("counts", counts.size());
  Kokkos::deep_copy(c, Kokkos::View<const int*, Kokkos::HostSpace>(counts.data(), counts.size()));
  Kokkos::View<T*, Dev> out("out", counts.size() + 2);  // out(n + 1): a guard no scan may write
  Kokkos::deep_copy(out, T(-7));
  std::vector<std::int64_t> want(counts.size() + 1, 0);
  for (std::size_t i = 0; i < counts.size(); ++i) want[i + 1] = want[i] + counts[i];
  Scratch s;
  EXPECT_EQ(Impl::scan_counts(Exec(), s, out, c, n, bound, "test::scan_counts", true, path), want.back()) << what;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::int64_t wrong = 0, first = -1;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (static_cast<std::int64_t>(h(i)) != want[i] && wrong++ == 0) first = static_cast<std::int64_t>(i);
  EXPECT_EQ(wrong, 0) << what << ": first wrong prefix at " << first;
  EXPECT_EQ(h(counts.size() + 1), T(-7)) << what << ": written past the n + 1 prefixes";
  // without the total: the same prefixes
  Kokkos::deep_copy(out, T(-7));
  EXPECT_EQ(Impl::scan_counts(Exec(), s, out, c, n, bound, "test::scan_counts", false, path), -1) << what;
  Kokkos::deep_copy(h, out);
  for (std::size_t i = 0; i < want.size(); ++i) wrong += static_cast<std::int64_t>(h(i)) != want[i] ? 1 : 0;
  EXPECT_EQ(wrong, 0) << what << ", total not read";
}

TEST(TEST_CATEGORY, device_scan_counts_match_host_prefix_sums) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> u(0, 9);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(300001)}) {
    std::vector<int> counts(n);
    for (auto& x : counts) x = u(rng);
    std::int64_t total = 0;
    for (int x : counts) total += x;
    // no bound, the exact total, and a bound beyond 32 bit (the 64-bit path for 32-bit prefixes)
    for (std::int64_t bound : {std::int64_t(-1), total, std::int64_t(1) << 40}) {
      const std::string what = "n = " + std::to_string(n) + ", bound " + std::to_string(bound);
      for (auto path : kPaths) {
        check_scan<int>(counts, bound, what + ", 32-bit prefixes", path);
        check_scan<std::int64_t>(counts, bound, what + ", 64-bit prefixes", path);
      }
    }
  }
}

/// 2^30 per item: five items exceed a 32-bit total
struct Huge {
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(const std::int64_t) const { return std::int64_t(1) << 30; }
};

TEST(TEST_CATEGORY, device_scan_counts_total_beyond_32_bit_is_exact) {
  for (auto path : kPaths) {
    Kokkos::View<int*, Dev> out("out", 6);
    Scratch s;
    EXPECT_EQ(Impl::scan_counts(Exec(), s, out, Huge{}, 5, -1, "test::scan_counts", true, path), std::int64_t(5) << 30);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    EXPECT_EQ(h(0), 0);  // the prefixes that fit are exact too
    EXPECT_EQ(h(1), 1 << 30);
  }
}

struct Half {
  KOKKOS_INLINE_FUNCTION double operator()(const std::int64_t i) const { return 0.5 * static_cast<double>(i); }
};
/// flag(i): i a multiple of m (m = 0: none, m = 1: all)
struct Multiples {
  std::int64_t m;
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int64_t i) const { return m > 0 && i % m == 0; }
};

TEST(TEST_CATEGORY, device_compact_flagged_keeps_index_order) {
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(2), std::int64_t(250000)})
    for (std::int64_t m : {std::int64_t(0), std::int64_t(1), std::int64_t(3)})
      for (auto path : kPaths) {
        const Multiples flag{m};
        std::vector<double> want;
        for (std::int64_t i = 0; i < n; ++i)
          if (flag(i)) want.push_back(Half{}(i));
        Kokkos::View<double*, Dev> dst("dst", want.size() + 1);
        Kokkos::deep_copy(dst, -1.0);
        Scratch s;
        Impl::compact_flagged(Exec(), s, dst, Half{}, flag, n, "test::compact_flagged", path);
        auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst);
        std::int64_t wrong = 0;
        for (std::size_t i = 0; i < want.size(); ++i) wrong += h(i) != want[i] ? 1 : 0;
        const std::string what = "n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", path " +
                                 std::to_string(static_cast<int>(path));
        EXPECT_EQ(wrong, 0) << what;
        EXPECT_EQ(h(want.size()), -1.0) << what << ": written past the flagged values";
      }
}

TEST(TEST_CATEGORY, device_sort_pairs_is_stable) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (Impl::scans_by_cub<Exec>()) {
    const int n = 200003, range = 1000;  // keys below 2^10, many equal
    std::vector<int> keys(n), vals(n);
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> u(0, range - 1);
    for (int p = 0; p < n; ++p) {
      keys[p] = u(rng);
      vals[p] = p;
    }
    Kokkos::View<int*, Dev> kin("kin", n), kout("kout", n), vin("vin", n), vout("vout", n);
    Kokkos::deep_copy(kin, Kokkos::View<const int*, Kokkos::HostSpace>(keys.data(), keys.size()));
    Kokkos::deep_copy(vin, Kokkos::View<const int*, Kokkos::HostSpace>(vals.data(), vals.size()));
    Scratch s;
    Impl::sort_pairs_stable(Exec(), s, kin.data(), kout.data(), vin.data(), vout.data(), n, 10, "test::sort");
    std::stable_sort(vals.begin(), vals.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), kout);
    auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), vout);
    int wrong = 0;
    for (int p = 0; p < n; ++p) wrong += hv(p) != vals[p] || hk(p) != keys[vals[p]] ? 1 : 0;
    EXPECT_EQ(wrong, 0);
    return;
  }
#endif
  GTEST_SKIP() << "sort_pairs_stable runs on CUDA only";
}

}  // namespace test_device_scan
