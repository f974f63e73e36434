// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the row-team form of the asynchronous iterative ILU / IC sweep (SweepKernel::RowTeam).
//
// A team takes `rows_per_team` consecutive rows, `threads_per_row` of its threads each. Those threads first copy row
// i of L and, ILU, row i of Ut (column i of U) into team scratch; then each takes unknowns of the row in turn, and its
// vector lanes walk the *other* operand of the unknown's sparse dot product contiguously, looking each index up in the
// staged row (binary search):
//   ILU l_ij, j < i:   lanes over row j of Ut left of its diagonal (u_kj, k < j), k looked up in row i of L left of
//                      column j;                            l_ij = (a_ij - sum l_ik u_kj) / u_jj
//   ILU u_ki, k <= i:  lanes over row k of L left of its diagonal (l_km, m < k), m looked up in row i of Ut left of
//                      position k;                          u_ki = a_ki - sum l_km u_mi
//   IC  l_ij, j < i:   lanes over row j of L left of its diagonal, looked up in row i of L left of column j;
//                      l_ij = (a_ij - sum l_ik l_jk) / l_jj;  after a team barrier l_ii = sqrt(a_ii - sum l_ik^2)
// Why: no product lists are needed (the list kernel's cost 1.2 ms of a 4.4 ms one-time numeric phase of ILU on the
// 27-point 64^3 grid), and a row's operand is read once per row. Per sweep it is no faster than the list kernel (ILU
// on the 27-point 64^3 grid the same, IC 1.3-1.8x slower; MEASUREMENTS.md#row-team-probe): the one-time numeric phase
// on large 3D grids is where it gains (0.65-0.95x ILU, 0.63-0.88x IC there). Many rows per team matter: a GPU keeps
// only so many teams resident per SM, and with one row per team too few unknowns are in flight (2.3-15x slower on the
// 27-point 64^3 grid).
//
// Asynchronous mode only: the vector reduction adds in another order than the host reference, which the deterministic
// mode must reproduce. Races as ParIluSweepFunctor: every unknown has one writer per sweep (its row's threads); the
// staged values are those of row i when the team copied it (a value of this sweep or the last), the other operand's
// values are read with relaxed loads (old or new, never torn). Bit reproducibility is not promised.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_kernels.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>  // Impl::lower_bound_sorted

namespace AsyncSparse {
namespace Impl {

/// Position of `k` in the sorted staged indices c[0, n), or -1 (Impl::lower_bound_sorted over the scratch array, as
/// ParILUT's ordered sweeps look columns up in their staged rows).
KOKKOS_FORCEINLINE_FUNCTION int scratch_find(const ordinal_t* c, int n, ordinal_t k) {
  const auto at = [c](offset_t m) { return c[m]; };
  const offset_t p = lower_bound_sorted(at, offset_t(0), offset_t(n), k);
  return p < n && c[p] == k ? static_cast<int>(p) : -1;
}

template <ParIluKind Kind, class Scalar, class Device>
struct ParIluRowTeamSweepFunctor : RowSweepOperands<Scalar, Device> {
  static constexpr bool ic = Kind == ParIluKind::Ic;
  using Base = RowSweepOperands<Scalar, Device>;
  using Base::a_l, Base::a_u, Base::flag, Base::l_ent, Base::l_read, Base::l_rm, Base::l_write, Base::u_ent,
      Base::u_read, Base::u_rm, Base::u_write;
  using off_view_t = typename Base::off_view;
  using ord_view_t = typename Base::ord_view;
  int max_row = 0;          ///< the longest row of L and (ILU) of Ut
  int rows_per_team = 1;    ///< rows of a team
  int threads_per_row = 1;  ///< team threads per row (the team size is rows_per_team x threads_per_row)
  int scratch_level = 0;    ///< 0: team memory; 1 where the staged rows do not fit there (very long rows)
  ordinal_t nrows = 0;

  /// Scratch bytes of a team of `rows` rows whose longest row (L, Ut) holds `max_row` entries.
  static std::size_t scratch_bytes(int max_row, int rows) {
    return std::size_t(ic ? 1 : 2) * std::size_t(max_row) * std::size_t(rows) * (sizeof(ordinal_t) + sizeof(Scalar)) +
           256;  // alignment slack of the four arrays
  }

  /// Sum over the other operand's positions y in [cb, ce) (indices `ent`, values `other`) whose index is among the
  /// staged row's first n indices c[0, n): staged value x other value, by the calling thread's vector lanes.
  template <class Member>
  KOKKOS_INLINE_FUNCTION Scalar staged_dot(const Member& team, const ordinal_t* c, const Scalar* v, int n,
                                           const ord_view_t& ent, const Scalar* other, offset_t cb, offset_t ce) const {
    Scalar sum = Scalar(0);
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, static_cast<int>(ce - cb)),
        [&](const int k, Scalar& acc) {
          const offset_t y = cb + k;
          const int x = scratch_find(c, n, ent(y));
          if (x >= 0) acc += v[x] * read_shared<true, true>(other + y);
        },
        sum);
    return sum;
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    using std::sqrt;
    const int slot = team.team_rank() / threads_per_row, tr = team.team_rank() % threads_per_row;
    const ordinal_t i = static_cast<ordinal_t>(team.league_rank()) * rows_per_team + slot;
    const bool live = i < nrows;
    const int R = rows_per_team;
    Scalar* lv0 = static_cast<Scalar*>(team.team_scratch(scratch_level).get_shmem(sizeof(Scalar) * max_row * R));
    Scalar* uv0 =
        ic ? nullptr : static_cast<Scalar*>(team.team_scratch(scratch_level).get_shmem(sizeof(Scalar) * max_row * R));
    ordinal_t* lc0 =
        static_cast<ordinal_t*>(team.team_scratch(scratch_level).get_shmem(sizeof(ordinal_t) * max_row * R));
    ordinal_t* uc0 =
        ic ? nullptr
           : static_cast<ordinal_t*>(team.team_scratch(scratch_level).get_shmem(sizeof(ordinal_t) * max_row * R));
    Scalar* lv = lv0 + slot * max_row;
    ordinal_t* lc = lc0 + slot * max_row;
    Scalar* uv = ic ? nullptr : uv0 + slot * max_row;
    ordinal_t* uc = ic ? nullptr : uc0 + slot * max_row;
    offset_t rb = 0, re = 0, ub = 0;
    int nl = 0, nu = 0;
    if (live) {
      rb = l_rm(i);
      re = l_rm(i + 1);
      nl = static_cast<int>(re - rb);
      if constexpr (!ic) {
        ub = u_rm(i);
        nu = static_cast<int>(u_rm(i + 1) - ub);
      }
      const int cl = nl > tr ? (nl - tr + threads_per_row - 1) / threads_per_row : 0;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, cl), [&](const int v) {
        const int x = tr + v * threads_per_row;
        lc[x] = l_ent(rb + x);
        lv[x] = read_shared<true, true>(l_read + rb + x);
      });
      if constexpr (!ic) {
        const int cu = nu > tr ? (nu - tr + threads_per_row - 1) / threads_per_row : 0;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, cu), [&](const int v) {
          const int x = tr + v * threads_per_row;
          uc[x] = u_ent(ub + x);
          uv[x] = read_shared<true, true>(u_read + ub + x);
        });
      }
    }
    team.team_barrier();
    const off_view_t& c_rm = ic ? l_rm : u_rm;
    const ord_view_t& c_ent = ic ? l_ent : u_ent;
    const Scalar* cr = ic ? l_read : u_read;
    const int ntask = live ? (nl - 1) + nu : 0;
    for (int t = tr; t < ntask; t += threads_per_row) {
      if (t < nl - 1) {  // l_ij at position rb + t: the other operand is row j of Ut (IC: of L)
        const ordinal_t j = lc[t];
        const offset_t cb = c_rm(j), ce = c_rm(j + 1) - 1;
        const Scalar sum = staged_dot(team, lc, lv, t, c_ent, cr, cb, ce);
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          const Scalar pivot = read_shared<true, true>(cr + ce);
          if (!ic && (pivot == Scalar(0) || !is_finite(pivot))) {
            report_breakdown(flag, j, pivot == Scalar(0) ? kZeroPivot : kNonFinite);
            return;
          }
          const Scalar val = (a_l(rb + t) - sum) / pivot;
          if (!is_finite(val))
            report_breakdown(flag, i, kNonFinite);
          else
            write_entry<true>(l_write + rb + t, val);
        });
      } else if constexpr (!ic) {  // u_ki at position ub + tq of row i of Ut: the other operand is row k of L
        const int tq = t - (nl - 1);
        const ordinal_t k = uc[tq];
        const offset_t cb = l_rm(k), ce = l_rm(k + 1) - 1;
        const Scalar sum = staged_dot(team, uc, uv, tq, l_ent, l_read, cb, ce);
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          const Scalar s = a_u(ub + tq) - sum;
          if (!is_finite(s))
            report_breakdown(flag, k, kNonFinite);
          else if (k == i && s == Scalar(0))
            report_breakdown(flag, k, kZeroPivot);
          else
            write_entry<true>(u_write + ub + tq, s);
        });
      }
    }
    if constexpr (ic) {  // l_ii from the row's new values
      team.team_barrier();
      if (live && tr == 0) {
        Scalar sq = Scalar(0);
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, nl - 1),
            [&](const int x, Scalar& acc) {
              const Scalar w = read_entry<true>(l_read + rb + x);
              acc += w * w;
            },
            sq);
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          const Scalar s = a_l(re - 1) - sq;
          if (!(s > Scalar(0)) || !is_finite(s))
            report_breakdown(flag, i, is_finite(s) ? kNonPositivePivot : kNonFinite);
          else
            write_entry<true>(l_write + re - 1, Scalar(sqrt(s)));
        });
      }
    }
  }
};

}  // namespace Impl
}  // namespace AsyncSparse
