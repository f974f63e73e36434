// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Row launches (core/AsyncSparse_row_launch.hpp): every entry of every row handled once by its row's lanes, the lane
// rule; the row-team launch with and without its register bound (core/AsyncSparse_policies.hpp); and the transpose's
// row sort with rows longer than its scratch.
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/AsyncSparse_row_launch.hpp>
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>
#include <support/TestHelpers.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace test_row_launch {
using namespace AsyncSparse;
using Exec = TEST_EXECSPACE;
using Dev = TEST_DEVICE;

/// A pattern of `n` rows with irregular lengths (0 to `max_len` random columns, some rows empty) and column
/// `dense_col` in every row.
CsrHost<double> irregular(ordinal_t n, ordinal_t dense_col, unsigned seed, int max_len = 70) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> len(0, max_len), col(0, n - 1);
  CsrHost<double> A(n, n);
  A.row_ptr.assign(1, 0);
  for (ordinal_t i = 0; i < n; ++i) {
    std::vector<ordinal_t> c{dense_col};
    const int l = i % 17 == 5 ? 0 : len(g);
    for (int k = 0; k < l; ++k) c.push_back(col(g));
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    for (const ordinal_t j : c) {
      A.col_idx.push_back(j);
      A.values.push_back(1.0 + 0.001 * i + 0.5 * j);
    }
    A.row_ptr.push_back(static_cast<offset_t>(A.col_idx.size()));
  }
  return A;
}

// (device lambdas live in free functions: CUDA forbids them inside a TEST body)
/// hits(k) += 1 for every entry k by its row's lanes; once(i) += 1 by one lane of row i's thread (single).
void run_rows(const Crs<double, Dev>& A, Kokkos::View<int*, Dev> hits, Kokkos::View<int*, Dev> once) {
  auto rm = A.graph.row_map;
  const ordinal_t n = A.numRows();
  Impl::parallel_for_rows(
      "test::rows", Exec(), n, A.nnz(), KOKKOS_LAMBDA(const Impl::RowMember<Exec>& m, const ordinal_t i) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rm(i), rm(i + 1)),
                             [&](const offset_t k) { Kokkos::atomic_add(&hits(k), 1); });
        Kokkos::single(Kokkos::PerThread(m), [&]() { Kokkos::atomic_add(&once(i), 1); });
      });
}

TEST(TEST_CATEGORY, row_launch_handles_every_entry_once) {
  for (const ordinal_t n : {1, 7, 300, 1029}) {
    SCOPED_TRACE(n);
    auto H = irregular(n, n - 1, 11u + static_cast<unsigned>(n));
    const auto A = to_device<Dev>(H);
    Kokkos::View<int*, Dev> hits("hits", static_cast<std::size_t>(A.nnz()));
    Kokkos::View<int*, Dev> once("once", static_cast<std::size_t>(n));
    run_rows(A, hits, once);
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hits);
    const auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), once);
    for (std::size_t k = 0; k < h.extent(0); ++k) ASSERT_EQ(h(k), 1) << "entry " << k;
    for (ordinal_t i = 0; i < n; ++i) ASSERT_EQ(f(i), 1) << "row " << i;
  }
}

TEST(TEST_CATEGORY, row_launch_lanes_rule) {
  EXPECT_EQ(Impl::row_lanes(1.0), 1);
  EXPECT_EQ(Impl::row_lanes(3.0), 1);
  EXPECT_EQ(Impl::row_lanes(4.0), 2);
  EXPECT_EQ(Impl::row_lanes(5.0), 2);
  EXPECT_EQ(Impl::row_lanes(13.6), 4);
  EXPECT_EQ(Impl::row_lanes(26.2), 8);
  EXPECT_EQ(Impl::row_lanes(64.0), 32);
  EXPECT_EQ(Impl::row_lanes(1000.0), 32);
  const auto l = Impl::row_launch<Exec>(1000, 27.0);
  EXPECT_GE(l.league * l.rows_per_team, 1000);
  EXPECT_LT((l.league - 1) * l.rows_per_team, 1000);
  EXPECT_EQ(Impl::row_launch<Exec>(0, 27.0).league, 0);
}

/// hits(t * team + r) += 1 by thread r of team t, through its team's scratch (written by the thread, read back by the
/// next one after a barrier), launched by Impl::parallel_for_row_team with `extra` more bytes of team scratch.
void run_row_team(int league, int team, Kokkos::View<int*, Dev> hits, std::size_t extra = 0) {
  using Member = typename Impl::TeamPolicy<Exec>::member_type;
  using Scratch = Kokkos::View<int*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Impl::parallel_for_row_team(
      "test::row_team", Exec(), league, team, 1, 0, Scratch::shmem_size(team) + extra, KOKKOS_LAMBDA(const Member& m) {
        Scratch s(m.team_scratch(0), m.team_size());
        s(m.team_rank()) = m.league_rank() * m.team_size() + m.team_rank();
        m.team_barrier();
        const int from = (m.team_rank() + 1) % m.team_size();
        Kokkos::atomic_add(&hits(s(from)), 1);
      });
}

// Impl::parallel_for_row_team runs every thread of every team once with its scratch, in teams that take the register
// bound (at most kRowTeamBoundThreads threads; GPUs) and in larger ones, which launch without it; and in teams of
// 29 KB of team memory, of which kRowTeamBoundMinBlocks do not fit a GPU multiprocessor (the bound's block count
// cannot be met: launched without it, where Kokkos refused the bounded launch).
TEST(TEST_CATEGORY, row_team_launch_runs_every_thread_with_and_without_the_register_bound) {
  const int most = Impl::is_gpu_space<Exec>() ? 2 * static_cast<int>(Impl::kRowTeamBoundThreads)
                                              : static_cast<int>(std::min<std::int64_t>(Exec().concurrency(), 4));
  const std::size_t large = 29 * 1024;  // over an H100's 228 KB / 8 per team; within every backend's team memory
  ASSERT_LE(large + 4 * std::size_t(most) + 64, static_cast<std::size_t>(Impl::TeamPolicy<Exec>::scratch_size_max(0)));
  for (const std::size_t extra : {std::size_t(0), large})
    for (const int team :
         {1, std::min(most, 128), std::min(most, static_cast<int>(Impl::kRowTeamBoundThreads)), most}) {
      SCOPED_TRACE(std::to_string(team) + " threads, " + std::to_string(extra) + " extra bytes");
      const int league = 37;
      Kokkos::View<int*, Dev> hits("hits", static_cast<std::size_t>(league) * team);
      run_row_team(league, team, hits, extra);
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hits);
      for (std::size_t k = 0; k < h.extent(0); ++k) ASSERT_EQ(h(k), 1) << "slot " << k;
    }
}

// The transpose's rows are sorted in scratch memory up to a capacity that depends on the lanes (GPUs); longer rows
// take the fallback sort. Column n - 1 is in every row: that row of the transpose holds n entries, beyond any
// capacity; the others are short or empty. With at most 4 random columns per row the average is short (one lane,
// the smallest capacity) and the dense row and the longer rows of the transpose exceed it.
TEST(TEST_CATEGORY, transpose_sorts_rows_longer_than_the_scratch) {
  for (const auto& [n, max_len] : std::vector<std::pair<ordinal_t, int>>{{300, 70}, {700, 70}, {2000, 4}}) {
    SCOPED_TRACE(n);
    const auto H = irregular(n, n - 1, 5u, max_len);
    const auto T = to_host(transpose(to_device<Dev>(H)));
    const auto R = Reference::transpose(H);
    EXPECT_EQ(T.row_ptr, R.row_ptr);
    EXPECT_EQ(T.col_idx, R.col_idx);
    EXPECT_EQ(T.values, R.values);
  }
}

}  // namespace test_row_launch
