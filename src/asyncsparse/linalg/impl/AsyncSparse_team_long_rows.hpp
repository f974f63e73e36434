// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the long rows of a CRS pattern, for the passes of one-team kernels that give every row a thread
// (Impl::JacobiPairOneTeam's sweeps, the product with A in Impl::GmresTeamCycle).
//
// Such a pass ends at the team's barrier, so its slowest thread sets its pace: one row much longer than the others (a
// dense row or column of the matrix, as watt_2's 128 entries among rows of at most 7) keeps one thread summing entry
// after entry while the rest of the team waits. The passes therefore leave the rows listed here to a thread's vector
// lanes each (TeamThreadRange over the list, ThreadVectorRange over the row), beside the thread-per-row pass over the
// others and before the same barrier. A list is a device array of at least kTeamLongRowsMax + 1 ints: the number of
// long rows found, then the rows; when more are found than it holds, none is listed and every row keeps its thread.
// perf_tests/results/MEASUREMENTS.md#team-long-rows.
#pragma once

#include <Kokkos_Core.hpp>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>

namespace AsyncSparse {
namespace Impl {

/// A row with more entries than this (off the diagonal, for a triangle whose passes skip it) is long.
constexpr int kTeamLongRowEntries = 32;
/// The most long rows a list holds.
constexpr int kTeamLongRowsMax = 64;

/// The long rows listed in `list` (made by team_long_rows; an empty view lists none): how many (0 when more were found
/// than the list holds), and the q-th.
template <class List>
KOKKOS_INLINE_FUNCTION int team_long_row_count(const List& list) {
  if (list.extent(0) == 0) return 0;
  const int found = list(0);
  return found <= kTeamLongRowsMax ? found : 0;
}
template <class List>
KOKKOS_INLINE_FUNCTION ordinal_t team_long_row(const List& list, int q) {
  return static_cast<ordinal_t>(list(q + 1));
}

/// Whether a row of `len` entries (those a pass sums) is long.
KOKKOS_INLINE_FUNCTION bool team_long_row_length(offset_t len) { return len > kTeamLongRowEntries; }

/// The listed long rows' part of a one-team pass, a thread's vector lanes each (`count` of them, team_long_row_count):
/// for the listed row i, `range(i, beg, end)` names the entries the pass sums, `term(k)` is entry k's term, and
/// `write(i, s)` stores the row's result from its sum s, added in the lanes' order. No barrier: the caller's pass over
/// the other rows ends at the same one.
template <class Scalar, class Member, class List, class Range, class Term, class Write>
KOKKOS_INLINE_FUNCTION void team_long_rows_pass(const Member& t, const List& list, int count, const Range& range,
                                                const Term& term, const Write& write) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(t, count), [&](const int q) {
    const ordinal_t i = team_long_row(list, q);
    offset_t beg = 0, end = 0;
    range(i, beg, end);
    Scalar s = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(t, end - beg), [&](const offset_t k, Scalar& acc) { acc += term(beg + k); }, s);
    Kokkos::single(Kokkos::PerThread(t), [&] { write(i, s); });
  });
}

/// Lists the rows i < n of the row map `rm` with more than kTeamLongRowEntries entries, not counting `diagonal`
/// stored ones (1 for a triangle that stores its diagonal, 0 for A), asynchronously on `exec`. The list's order
/// depends on the threads' timing; the passes treat every listed row alike.
template <class Device, class ExecSpace, class RowMap>
Kokkos::View<int*, Device> team_long_rows(const ExecSpace& exec, const RowMap& rm, ordinal_t n, int diagonal) {
  using List = Kokkos::View<int*, Device>;
  const auto list = cached_uninitialized<List>("AsyncSparse::team_long_rows", kTeamLongRowsMax + 1);
  Kokkos::deep_copy(exec, Kokkos::subview(list, 0), 0);
  Kokkos::parallel_for(
      "AsyncSparse::team_long_rows", Impl::RangePolicy<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        if (!team_long_row_length(rm(i + 1) - rm(i) - diagonal)) return;
        const int q = Kokkos::atomic_fetch_add(&list(0), 1);
        if (q < kTeamLongRowsMax) list(q + 1) = static_cast<int>(i);
      });
  return list;
}

}  // namespace Impl
}  // namespace AsyncSparse
