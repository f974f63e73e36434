// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — CSR graph helpers on the device: comparison of two graphs (the numeric phases of the methods check
// that the matrix they get has the pattern their symbolic phase was given), binary search in a sorted row, and the
// walk over a level schedule that the ordered sweeps of the factorizations launch by.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <vector>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>

namespace AsyncSparse {
namespace Impl {

/// First position p in [lo, hi) of the sorted `ent` with ent(p) >= key, or hi. Device-callable.
template <class Entries>
KOKKOS_INLINE_FUNCTION offset_t lower_bound_sorted(const Entries& ent, offset_t lo, offset_t hi, ordinal_t key) {
  while (lo < hi) {
    const offset_t mid = lo + (hi - lo) / 2;
    if (ent(mid) < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// Position of column `col` in row `row` of a sorted pattern (binary search), or -1. Device-callable.
template <class RowMap, class Entries>
KOKKOS_INLINE_FUNCTION offset_t find_sorted(const RowMap& rm, const Entries& ent, ordinal_t row, ordinal_t col) {
  const offset_t p = lower_bound_sorted(ent, rm(row), rm(row + 1), col);
  return p < rm(row + 1) && ent(p) == col ? p : offset_t(-1);
}

/// True when the two graphs of `n` rows (row maps rma / rmb of n + 1 entries, column indices ea / eb) have the
/// same content. The same Views are equal without a kernel.
template <class ExecSpace, class RmA, class EntA, class RmB, class EntB>
bool same_graph(const ExecSpace& exec, ordinal_t n, const RmA& rma, const EntA& ea, const RmB& rmb, const EntB& eb) {
  if (rma.data() == rmb.data() && ea.data() == eb.data()) return true;
  if (ea.extent(0) != eb.extent(0)) return false;
  int diff = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::same_graph", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, int& d) {
        if (rma(i) != rmb(i) || rma(i + 1) != rmb(i + 1)) {
          d = 1;
          return;
        }
        for (offset_t k = rma(i); k < rma(i + 1); ++k)
          if (ea(k) != eb(k)) d = 1;
      },
      Kokkos::Max<int>(diff));
  return diff <= 0;  // Max identity is the lowest int
}

/// Launches a level-scheduled functor level by level (`level_ptr`: level l holds the rows level_ptr[l] ..
/// level_ptr[l + 1] - 1): each run of consecutive levels of at most `wide` rows in one team (g.level_begin /
/// g.level_end set to the run, launch(1); the functor puts a barrier between two levels), each wider level in a launch
/// of its own (g.begin / g.count set to its rows, launch(teams) with a team per `rows_per_team` rows).
template <class Functor, class Launch>
void launch_level_runs(const std::vector<offset_t>& level_ptr, offset_t wide, offset_t rows_per_team, Functor& g,
                       Launch&& launch) {
  const std::size_t levels = level_ptr.empty() ? 0 : level_ptr.size() - 1;
  for (std::size_t l = 0; l < levels;) {
    std::size_t e = l;
    while (e < levels && level_ptr[e + 1] - level_ptr[e] <= wide) ++e;
    if (e > l) {
      g.level_begin = static_cast<offset_t>(l);
      g.level_end = static_cast<offset_t>(e);
      launch(1);
      g.level_begin = g.level_end = 0;
      l = e;
      continue;
    }
    g.begin = level_ptr[l];
    g.count = level_ptr[l + 1] - level_ptr[l];
    launch(static_cast<int>((g.count + rows_per_team - 1) / rows_per_team));
    ++l;
  }
}

}  // namespace Impl
}  // namespace AsyncSparse
