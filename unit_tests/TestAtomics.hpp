// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Relaxed atomics and fences: teams exchanging values see each other's writes.
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <support/TestHelpers.hpp>

#include <limits>

namespace test_atomics {
using namespace AsyncSparse;

// (device lambdas live in free functions: CUDA forbids them inside a TEST body, a private member)
void run_roundtrip(Kokkos::View<double*, TEST_DEVICE> v, Kokkos::View<int*, TEST_DEVICE> flags) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Kokkos::parallel_for(
      "store", Kokkos::RangePolicy<TEST_EXECSPACE>(0, 1), KOKKOS_LAMBDA(int) {
        store_relaxed(&v(0), 1.5);
        store_relaxed(&v(1), -2.25);
        fence();
        v(2) = load_relaxed(&v(0)) + load_relaxed(&v(1));
        flags(0) = is_finite(v(2));
        flags(1) = is_finite(inf);
        flags(2) = is_finite(nan);
        flags(3) = is_finite(-inf);
      });
}

TEST(TEST_CATEGORY, relaxed_load_store_roundtrip_and_is_finite) {
  Kokkos::View<double*, TEST_DEVICE> v("v", 4);
  Kokkos::View<int*, TEST_DEVICE> flags("flags", 4);
  run_roundtrip(v, flags);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), flags);
  EXPECT_EQ(h(2), -0.75);
  EXPECT_EQ(f(0), 1);
  EXPECT_EQ(f(1), 0);
  EXPECT_EQ(f(2), 0);
  EXPECT_EQ(f(3), 0);
}

// Two teams: each publishes a value (store_relaxed + fence) and then polls the other's slot with
// load_relaxed, a bounded number of times. When the backend runs both teams concurrently (OpenMP with
// >= 2 threads, GPUs), each must observe the other's write while both are still running — this is what
// asynchronous methods rely on. With one thread the second team always sees the first's write.
void run_exchange(Kokkos::View<double[2], TEST_DEVICE> slot, Kokkos::View<int[2], TEST_DEVICE> seen,
                  Kokkos::View<long[2], TEST_DEVICE> polls) {
  const long max_polls = 200000000L;
  using policy = Kokkos::TeamPolicy<TEST_EXECSPACE>;
  Kokkos::parallel_for(
      "exchange", policy(2, 1), KOKKOS_LAMBDA(const policy::member_type& team) {
        const int me = team.league_rank(), other = 1 - me;
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          store_relaxed(&slot(me), 10.0 + me);
          fence();
          long k = 0;
          double v = 0;
          while (k < max_polls) {
            v = load_relaxed(&slot(other));
            if (v != 0.0) break;
            ++k;
          }
          seen(me) = (v == 10.0 + other) ? 1 : 0;
          polls(me) = k;
        });
      });
}

TEST(TEST_CATEGORY, two_teams_see_each_others_writes) {
  const bool concurrent = TEST_EXECSPACE().concurrency() >= 2;
  Kokkos::View<double[2], TEST_DEVICE> slot("slot");
  Kokkos::View<int[2], TEST_DEVICE> seen("seen");
  Kokkos::View<long[2], TEST_DEVICE> polls("polls");
  run_exchange(slot, seen, polls);
  auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), seen);
  auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), polls);
  // at least the team that runs second sees the first one's value
  EXPECT_GE(s(0) + s(1), 1);
  if (concurrent) {
    EXPECT_EQ(s(0), 1) << "team 0 never saw team 1's write (polls " << p(0) << ")";
    EXPECT_EQ(s(1), 1) << "team 1 never saw team 0's write (polls " << p(1) << ")";
  }
}
// Entries of v that every one of `league` teams reads through load_relaxed_cached as other than i + 1 (stored) or 0.
int cached_mismatches(Kokkos::View<double*, TEST_DEVICE> v, int league, bool stored) {
  using policy = Kokkos::TeamPolicy<TEST_EXECSPACE>;
  using member = policy::member_type;
  const int n = static_cast<int>(v.extent(0));
  int bad = 0;
  Kokkos::parallel_reduce(
      "cached_reads", policy(league, Kokkos::AUTO),
      KOKKOS_LAMBDA(const member& team, int& sum) {
        int t = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, n),
            [&](const int i, int& c) {
              c += load_relaxed_cached(&v(i)) != (stored ? static_cast<double>(i + 1) : 0.0);
            },
            t);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { sum += t; });
      },
      bad);
  return bad;
}

void store_all(Kokkos::View<double*, TEST_DEVICE> v) {
  using policy = Kokkos::TeamPolicy<TEST_EXECSPACE>;
  const int n = static_cast<int>(v.extent(0));
  Kokkos::parallel_for(
      "store", policy(1, Kokkos::AUTO), KOKKOS_LAMBDA(const policy::member_type& team) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                             [&](const int i) { store_relaxed(&v(i), static_cast<double>(i + 1)); });
      });
}

// load_relaxed_cached may return a value cached in a GPU SM's L1 earlier in the same kernel, never one older than
// the kernel's start. Every team first reads the whole 16 KB array (its old values into each SM's L1, which holds
// it whole), one team then stores new values, and every team reads the whole array again through the cache: every
// read must see the new value (it would not, were L1 kept across the launches). Host backends: relaxed loads.
TEST(TEST_CATEGORY, cached_loads_see_the_previous_kernels_stores) {
  Kokkos::View<double*, TEST_DEVICE> v("v", 2048);
  EXPECT_EQ(cached_mismatches(v, 1024, false), 0);  // the zeros, now in every SM's L1
  store_all(v);
  EXPECT_EQ(cached_mismatches(v, 1024, true), 0);
}

}  // namespace test_atomics
