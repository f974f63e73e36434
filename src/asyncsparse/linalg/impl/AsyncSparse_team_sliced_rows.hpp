// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — a triangle's off-diagonal entries in slices of 32 rows, for the Jacobi sweeps of the one-team GMRES
// cycle (Impl::SlicedJacobiPairTeamApply).
//
// The cycle's passes give every row a thread, so a warp sweeps 32 consecutive rows. In CRS order the k-th entries of
// those rows lie scattered over the rows' whole stretch of the entry and value arrays: each of the warp's loads of an
// entry index or a value touches several times the sectors it uses, and on the one multiprocessor that runs the cycle
// the L1's throughput sets the pace of a sweep. In a slice the k-th entries of its 32 rows are adjacent (column-major
// within the slice, as in the SELL-C-sigma format of Kreutzer, Hager, Wellein, Fehske & Bishop, SISC 2014, with C = 32
// and no sorting): one load reads 128 bytes of indices or 256 bytes of values. Each row keeps its entries in CRS
// order, so that a sweep sums them in the same order as Impl::JacobiPairOneTeam. Rows are padded to their slice's
// longest (the pads are never read: each row's length is stored). The rows a pass leaves to a thread's lanes (the
// listed long rows, Impl::team_long_rows) have length -1 and no place in their slice.
// perf_tests/results/MEASUREMENTS.md#team-sliced-rows.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/linalg/impl/AsyncSparse_team_long_rows.hpp>
#include <asyncsparse/linalg/impl/AsyncSparse_trisolve_kernels.hpp>  // off_diagonal_range, JacobiPairOneTeam

namespace AsyncSparse {
namespace Impl {

/// Rows per slice: a warp of CUDA (the pass's consecutive rows per warp).
constexpr int kTeamSliceRows = 32;

/// A triangle's off-diagonal entries by slices (see the header comment): entry k of row i at
/// off(i / kTeamSliceRows) + k * kTeamSliceRows + i % kTeamSliceRows for k < len(i); len(i) = -1 for a row the pass
/// leaves to a thread's lanes. Empty views: not made.
template <class Scalar, class Device>
struct TeamSlicedRows {
  Kokkos::View<int*, Device> len;
  Kokkos::View<std::int64_t*, Device> off;
  Kokkos::View<ordinal_t*, Device> ent;
  Kokkos::View<Scalar*, Device> val;
  KOKKOS_INLINE_FUNCTION std::int64_t base(ordinal_t i) const { return off(i / kTeamSliceRows) + i % kTeamSliceRows; }
};

/// The sliced copy of the off-diagonal entries (off_diagonal_range) of the n-row triangle (rm, ent, val) whose passes
/// leave the rows above kTeamLongRowEntries to a thread's lanes where `long_rows` lists any (team_long_row_count, as
/// Impl::JacobiPairOneTeam::solve decides), on `exec`: three kernels and one read of the total size.
template <class Device, class ExecSpace, class RowMap, class Entries, class Values, class List>
TeamSlicedRows<typename Values::non_const_value_type, Device> team_sliced_rows(const ExecSpace& exec, const RowMap& rm,
                                                                               const Entries& ent, const Values& val,
                                                                               ordinal_t n, bool lower,
                                                                               const List& long_rows) {
  using Scalar = typename Values::non_const_value_type;
  constexpr int W = kTeamSliceRows;
  TeamSlicedRows<Scalar, Device> s;
  const std::int64_t slices = (static_cast<std::int64_t>(n) + W - 1) / W;
  s.len = Kokkos::View<int*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::team_sliced::len"),
                                     static_cast<std::size_t>(n));
  s.off = Kokkos::View<std::int64_t*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::team_sliced::off"),
      static_cast<std::size_t>(slices + 1));
  const auto len = s.len;
  const auto off = s.off;
  Kokkos::parallel_for(
      "AsyncSparse::team_sliced::lengths", Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t r) {
        const auto i = static_cast<ordinal_t>(r);
        offset_t beg, end;
        off_diagonal_range(rm, i, lower, beg, end);
        len(i) =
            team_long_row_count(long_rows) > 0 && team_long_row_length(end - beg) ? -1 : static_cast<int>(end - beg);
      });
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "AsyncSparse::team_sliced::offsets",
      Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, slices + 1),
      KOKKOS_LAMBDA(const std::int64_t q, std::int64_t& upd, const bool final) {
        if (final) off(q) = upd;
        if (q == slices) return;
        int widest = 0;
        for (std::int64_t i = q * W; i < (q + 1) * W && i < n; ++i) widest = len(i) > widest ? len(i) : widest;
        upd += static_cast<std::int64_t>(widest) * W;
      },
      total);
  s.ent = Kokkos::View<ordinal_t*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::team_sliced::entries"),
      static_cast<std::size_t>(total));
  s.val =
      Kokkos::View<Scalar*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::team_sliced::values"),
                                    static_cast<std::size_t>(total));
  const auto sent = s.ent;
  const auto sval = s.val;
  Kokkos::parallel_for(
      "AsyncSparse::team_sliced::fill", Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t r) {
        const auto i = static_cast<ordinal_t>(r);
        const int l = len(i);
        if (l <= 0) return;
        offset_t beg, end;
        off_diagonal_range(rm, i, lower, beg, end);
        const std::int64_t b = off(i / W) + i % W;
        for (int k = 0; k < l; ++k) {
          sent(b + static_cast<std::int64_t>(k) * W) = static_cast<ordinal_t>(ent(beg + k));
          sval(b + static_cast<std::int64_t>(k) * W) = val(beg + k);
        }
      });
  return s;
}

/// z = U⁻¹ L⁻¹ x by both triangles' Jacobi sweeps in a one-team GMRES cycle (Impl::GmresTeamCycle): the sweeps of
/// Impl::JacobiPairOneTeam::solve (`Pair`, FactorApply's one-team functor with its arrays and long rows set) into the
/// same vectors, each row's sum over the same entries in the same order, with the entries of the rows a thread sums
/// read from the triangle's sliced copy (`L`, `U`: team_sliced_rows); the lower solve's result in pair.w.
template <class Pair, class Sliced>
struct SlicedJacobiPairTeamApply {
  static constexpr bool identity = false;
  using Scalar = typename Pair::Scalar;
  using Tri = typename Pair::Tri;
  Pair pair;
  Sliced L, U;

  template <class Member, class BV, class XV>
  KOKKOS_INLINE_FUNCTION void solve(const Member& t, const Tri& T, const Sliced& S, const BV& bv, const XV& x) const {
    const int k = T.sweeps;
    const int longs = team_long_row_count(T.long_rows);
    XV cur = x;  // the previous sweep's output (not read by the first sweep)
    for (int s = 1; s <= k; ++s) {
      const XV xout = (k - s) % 2 == 0 ? x : T.work;
      const bool first = s == 1;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(t, pair.n), [&](const ordinal_t i) {
        const int l = S.len(i);
        if (l < 0) return;
        const std::int64_t b = S.base(i);
        Scalar sum = 0;
        for (int q = 0; q < l; ++q) {
          const std::int64_t p = b + static_cast<std::int64_t>(q) * kTeamSliceRows;
          sum += S.val(p) * pair.x_in(T, bv, cur, first, S.ent(p));
        }
        xout(i) = T.dinv(i) * (bv(i) - sum);
      });
      team_long_rows_pass<Scalar>(
          t, T.long_rows, longs,
          [&](const ordinal_t i, offset_t& beg, offset_t& end) { off_diagonal_range(T.rm, i, T.lower, beg, end); },
          [&](const offset_t j) { return T.val(j) * pair.x_in(T, bv, cur, first, T.ent(j)); },
          [&](const ordinal_t i, const Scalar sum_i) { xout(i) = T.dinv(i) * (bv(i) - sum_i); });
      t.team_barrier();
      cur = xout;
    }
  }
  template <class Member, class XV, class ZV>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& t, const XV& x, const ZV& z) const {
    solve(t, pair.L, L, x, pair.w);
    solve(t, pair.U, U, pair.w, z);
  }
};

}  // namespace Impl
}  // namespace AsyncSparse
