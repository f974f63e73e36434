// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the row-merge form of the iterative ILU / IC sweep (SweepKernel::RowMerge), the default on host
// backends.
//
// One work unit = one row i, one thread: IC, the entries of row i of L left to right (l_ij = (a_ij - sum_{k<j} l_ik
// l_jk) / l_jj, then l_ii = sqrt(a_ii - sum_{k<i} l_ik^2)); ILU, row i of L (l_ij, j < i), then row i of Ut (column
// i of U: u_ki, k <= i, u_ii last). Each sum merges two sorted index lists, as the entry kernel
// (ParIluSweepFunctor) does — no product lists, so nothing to build per pattern. Same sums, same order, same bits:
// the deterministic sweeps equal the host reference, and an asynchronous IC sweep run by one thread in row order
// equals the entry kernel's.
//
// Why a kernel of its own on host backends: a CPU thread runs a chunk's rows one after the other, and in row order
// the last divisor of a row is often the pivot of the row just before it (l_{i,i-1} / l_{i-1,i-1} in most rows of
// a naturally ordered grid). The entry kernel stores that pivot and loads it back one task later, and re-derives the
// row's start and its task's row, column and destination from memory per task; the dependent chain division -> square
// -> square root -> next row's division then waits on each of those trips. Here the row's start is read once, the IC
// diagonal sums the squares of the values just computed (held in a register; the memory holds the same values),
// and with `run_sequence` (ChunkedLaunch calls it on host backends with one-thread teams, once per pass over a chunk:
// once per chunk with unit stride 1) the pivot of the row just finished is carried to the next row in a register. Every
// carried value is the one this thread has just stored — each entry has one writer per sweep and no other thread writes
// it during the sweep — so the carry changes no result, only the latency of the chain. On the 5-point 1024^2 Laplacian
// (2 threads) that takes an IC sweep from 8.6-9.1 ms (entry kernel) to about 5 ms, the chain floor of row order
// (perf_tests/results/MEASUREMENTS.md#host-row-merge).
//
// Races (asynchronous mode): as ParIluSweepFunctor — every unknown has one writer per sweep (its row's unit); reads
// of other rows return the old or the new value of an entry, never a torn one (relaxed atomics).
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_kernels.hpp>

namespace AsyncSparse {
namespace Impl {

/// What one thread carries from the row it has just finished to the next (asynchronous mode): that row and its
/// pivot (IC: l_ii, ILU: u_ii), or row -1.
template <class Scalar>
struct RowCarry {
  ordinal_t row = -1;
  Scalar pivot = Scalar(0);
};

template <ParIluKind Kind, bool Async, class Scalar, class Device>
struct ParIluRowMergeSweepFunctor : RowSweepOperands<Scalar, Device> {
  static constexpr bool ic = Kind == ParIluKind::Ic;
  /// ChunkedLaunch: on host backends with one-thread teams, each pass over a chunk's units goes to run_sequence in
  /// one call (one pass per chunk with unit stride 1).
  static constexpr bool host_sequence = true;
  using Base = RowSweepOperands<Scalar, Device>;
  using Base::a_l, Base::a_u, Base::flag, Base::l_ent, Base::l_read, Base::l_rm, Base::l_write, Base::u_ent,
      Base::u_read, Base::u_rm, Base::u_write;
  using typename Base::off_view;
  using typename Base::ord_view;

  /// The pivot of column j at position `pos` of its operand array: carried when row j is the one just finished.
  KOKKOS_FORCEINLINE_FUNCTION Scalar pivot_of(ordinal_t j, const Scalar* cr, offset_t pos,
                                              const RowCarry<Scalar>& c) const {
    if constexpr (Async) {
      if (j == c.row) return c.pivot;
    }
    return read_entry<Async>(cr + pos);
  }

  /// Row i; `c` in: the row just finished by this thread, out: row i (or -1 when its pivot was not written).
  KOKKOS_INLINE_FUNCTION void row(const ordinal_t i, RowCarry<Scalar>& c) const {
    using std::sqrt;
    const Scalar* lr = l_read;
    const off_view& c_rm = ic ? l_rm : u_rm;
    const ord_view& c_ent = ic ? l_ent : u_ent;
    const Scalar* cr = ic ? lr : u_read;
    const offset_t rb = l_rm(i), le = l_rm(i + 1) - 1;  // le: the diagonal (IC: l_ii; ILU: the unit diagonal)
    Scalar diag = ic ? a_l(le) : Scalar(0);             // IC: a_ii - the squares so far (asynchronous mode)
    for (offset_t p = rb; p < le; ++p) {
      const ordinal_t j = l_ent(p);
      const offset_t qe = c_rm(j + 1) - 1;
      const Scalar s = merge_sub<Async>(a_l(p), l_ent, lr, rb, p, c_ent, cr, c_rm(j), qe);
      const Scalar pivot = pivot_of(j, cr, qe, c);
      bool written = false;
      Scalar v = Scalar(0);
      if (!ic && (pivot == Scalar(0) || !is_finite(pivot))) {
        report_breakdown(flag, j, pivot == Scalar(0) ? kZeroPivot : kNonFinite);
      } else {
        v = s / pivot;
        if (!is_finite(v)) {
          report_breakdown(flag, i, kNonFinite);
        } else {
          write_entry<Async>(l_write + p, v);
          written = true;
        }
      }
      if constexpr (ic && Async) {  // what the memory now holds at p
        const Scalar w = written ? v : read_entry<Async>(lr + p);
        diag = mul_sub(diag, w, w);
      }
    }
    c.row = -1;
    if constexpr (ic) {
      if constexpr (!Async)  // the previous sweep's values
        for (offset_t q = rb; q < le; ++q) {
          const Scalar w = lr[q];
          diag = mul_sub(diag, w, w);
        }
      if (!(diag > Scalar(0)) || !is_finite(diag)) {
        report_breakdown(flag, i, is_finite(diag) ? kNonPositivePivot : kNonFinite);
      } else {
        const Scalar d = sqrt(diag);
        write_entry<Async>(l_write + le, d);
        c.row = i;
        c.pivot = d;
      }
    } else {  // column i of U: u_ki = a_ki - sum_{m<k} l_km u_mi, k <= i (row i of Ut, u_ii last)
      const offset_t ub = u_rm(i), ue = u_rm(i + 1);
      for (offset_t q = ub; q < ue; ++q) {
        const ordinal_t k = u_ent(q);
        const Scalar s = merge_sub<Async>(a_u(q), l_ent, lr, l_rm(k), l_rm(k + 1) - 1, u_ent, u_read, ub, q);
        if (!is_finite(s)) {
          report_breakdown(flag, k, kNonFinite);
        } else if (k == i && s == Scalar(0)) {
          report_breakdown(flag, k, kZeroPivot);
        } else {
          write_entry<Async>(u_write + q, s);
          if (k == i) {
            c.row = i;
            c.pivot = s;
          }
        }
      }
    }
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member&, const std::int64_t unit) const {
    RowCarry<Scalar> c;
    row(static_cast<ordinal_t>(unit), c);
  }

  /// Units first, first + step, ... (< end) in this order, by the calling thread alone (host backends).
  template <class Member>
  KOKKOS_INLINE_FUNCTION void run_sequence(const Member&, std::int64_t first, std::int64_t end,
                                           std::int64_t step) const {
    RowCarry<Scalar> c;
    for (std::int64_t u = first; u < end; u += step) row(static_cast<ordinal_t>(u), c);
  }
};

}  // namespace Impl
}  // namespace AsyncSparse
