// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT fixed-point sweeps (Ginkgo: par_ilut_sweep) and the breakdown checks of their
// results. Layout of the factors: AsyncSparse_par_ilut_common.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>  // offsetof
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_chunked_launch.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_kernels.hpp>  // list_sub, squares_sub
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_sweep.hpp>    // the list kernel's launch and group rules
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_common.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_lists.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_ordered.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_row_sweep.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>  // Impl::lower_bound_sorted

namespace AsyncSparse {
namespace Impl {

// ------------------------------------------------------------------------------------------------------------
// Sweeps
// ------------------------------------------------------------------------------------------------------------
//
// Asynchronous mode — races and why they are benign: a task writes only its own unknown (one writer per
// entry) but reads the entries of row i of L and column j of U (ParICT: rows i and j of L) while other tasks
// may be writing them. A read returns either the value before or after a concurrent update, never a torn
// value (relaxed atomic loads/stores, exec/AsyncSparse_atomics.hpp). Using whichever value is available is
// exactly the asynchronous fixed-point iteration of Chow & Patel (SISC 2015, sect. 2.3; Chow, Anzt & Dongarra
// 2015, sect. 3.1), which converges for bounded delays; ParILUT uses the same sweep (Anzt, Chow & Dongarra,
// SISC 2018, sect. 3; Ginkgo's par_ilut compute_l_u_factors). An update that is not finite (division by a zero
// pivot, square root of a negative number) is skipped as in Ginkgo and recorded in `breakdown` (atomic min).
//
// Deterministic mode: every task reads only the input buffer and writes only the output buffer (Jacobi
// style), so there are no races and the result does not depend on the execution order.

/// The sum of ilut_merge_dot split over the vector lanes of a thread: each lane takes entries of X's row and looks its
/// column up in Y's row (binary search). All lanes return the sum.
template <class Member, class Cols, class Vals>
KOKKOS_INLINE_FUNCTION typename Vals::non_const_value_type ilut_vector_dot(const Member& team, const Cols& xcol,
                                                                           const Vals& xval, offset_t xb, offset_t xe,
                                                                           const Cols& ycol, const Vals& yval,
                                                                           offset_t yb, offset_t ye, ordinal_t bound) {
  using S = typename Vals::non_const_value_type;
  S sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(team, xb, xe),
      [&](const offset_t p, S& acc) {
        const ordinal_t k = xcol(p);
        if (k >= bound) return;
        const offset_t lo = lower_bound_sorted(ycol, yb, ye, k);
        if (lo < ye && ycol(lo) == k) acc += ilut_mul(load_relaxed(&xval(p)), load_relaxed(&yval(lo)));
      },
      sum);
  return sum;
}

/// sum_k X(k) Y(k) over the common columns of the sorted stretches [xb, xe) of X and [yb, ye) of Y, split over the
/// vector lanes of a thread: the lanes walk the shorter stretch and look each column up in the longer one (binary
/// search). The callers pass exactly the entries left of the update's bound. All lanes return the sum.
template <class Member, class Cols, class Vals>
KOKKOS_INLINE_FUNCTION typename Vals::non_const_value_type ilut_vector_dot_shorter(const Member& team, const Cols& xcol,
                                                                                   const Vals& xval, offset_t xb,
                                                                                   offset_t xe, const Cols& ycol,
                                                                                   const Vals& yval, offset_t yb,
                                                                                   offset_t ye) {
  using S = typename Vals::non_const_value_type;
  const bool walk_y = ye - yb < xe - xb;
  const Cols& wcol = walk_y ? ycol : xcol;
  const Cols& scol = walk_y ? xcol : ycol;
  const Vals& wval = walk_y ? yval : xval;
  const Vals& sval = walk_y ? xval : yval;
  const offset_t wb = walk_y ? yb : xb, we = walk_y ? ye : xe, sb = walk_y ? xb : yb, se = walk_y ? xe : ye;
  S sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(team, wb, we),
      [&](const offset_t p, S& acc) {
        const ordinal_t k = wcol(p);
        const offset_t lo = lower_bound_sorted(scol, sb, se, k);
        if (lo < se && scol(lo) == k) acc += ilut_mul(load_relaxed(&wval(p)), load_relaxed(&sval(lo)));
      },
      sum);
  return sum;
}

/// One fixed-point update per task, for ParILUT (Kind = IlutKind) or ParICT (IctKind). The dot products pair row i
/// of L with row j of Y: Ut, the columns of U (ParILUT), or L itself (ParICT); both keep their diagonal last. Values
/// are read from the `in` buffers and written to the `out` buffers (the same Views in the asynchronous mode).
/// Group = 0: the entry kernel (the index lists merged per task); Group >= 1: the list kernel (ParIlutSweepKernel::
/// List), each task summing its product list (State::lists) with one lane, `Group` products loaded at a time in the
/// asynchronous mode (list_sub; reads through L1 as ParILU's list kernel) — the same products in the same order as
/// the merge, hence the same sum. Exact (entry kernel, ParILUT, more than one lane): the dot products by
/// ilut_vector_dot_shorter over the exact stretches (ilut_exact_stretches); a template parameter, so that the kernels
/// without it compile as before (a run-time flag made ParICT's and the short rows' sweeps 3-8 % slower on an H100).
/// TeamSum: the updates add their residual terms to an accumulator of the calling thread instead of r2(t); only the
/// row-team kernel (RowStagedSweepFunctor), which passes one to every update and reduces it per team, instantiates it.
template <class Kind, class ExecSpace, class Scalar, class Device, int Group = 0, bool Exact = false,
          bool TeamSum = false>
struct SweepFunctor {
  static_assert(!Exact || (Group == 0 && !Kind::ict), "SweepFunctor: exact stretches in ParILUT's entry kernel only");
  using kind = Kind;
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  using VV = Kokkos::View<Scalar*, Device>;
  using PV = Kokkos::View<offset_t*, Device>;
  using OV = Kokkos::View<ordinal_t*, Device>;
  VV a;
  PV tasks;       ///< ParILUT: the task list (State::tasks); ParICT: task t is L entry t
  offset_t nnzL;  ///< ParILUT: tasks >= nnzL are U entries
  PV lptr, lapos;
  OV lcol, lrow;
  VV lin, lout;
  OV ucol, urow;  ///< ParILUT: U by rows (pattern), and umap into Y = Ut
  PV uapos, umap;
  PV yptr;
  OV ycol;
  VV yin, yout;
  PV pair_ptr, pair_x, pair_y;  ///< Group >= 1: the product lists (unknown u: L entry p, or nnzL + Ut position)
  Kokkos::View<ParIlutSweepStatus, Device> status;  ///< breakdowns and replaced pivots (State::status)
  /// per task the squared residual of the factors the update read (the nonlinear residual on the pattern, see
  /// ilut_sweep); empty: not computed
  Kokkos::View<double*, Device> r2;
  Scalar pivot_tolerance;  ///< 0: no replacement
  int vector_length;
  bool deterministic;
  bool ordered = false;  ///< run by an ordered sweep (OrderedLevelFunctor): no reads through L1
  /// TeamSum (the row-team kernel's sweeps with a residual): the updates add their residual terms to the caller's
  /// accumulator (write's `acc`), which the kernel reduces per team into State::status's r2, instead of r2(t)
  static constexpr bool team_sum = TeamSum;
  /// Whether the updates compute the residual of the values they read.
  KOKKOS_INLINE_FUNCTION bool want_residual() const { return TeamSum || r2.data() != nullptr; }

  /// Group >= 1: sum_k x_k y_k over the product list of unknown u (x: the unknown's own row, y: the other operand),
  /// ascending k. list_sub returns 0 - p_1 - p_2 - ..., and 0 - that is bit for bit the merge's p_1 + p_2 + ...
  /// (negation is exact and rounding symmetric).
  KOKKOS_INLINE_FUNCTION Scalar list_dot(const member_type& team, offset_t u, const VV& x, const VV& y) const {
    constexpr int G = Group > 0 ? Group : 1;
    if (deterministic)
      return Scalar(0) - list_sub<false>(team, 1, Scalar(0), pair_ptr, pair_x, pair_y, u, x.data(), y.data());
    return Scalar(0) - list_sub<true, true, G>(team, 1, Scalar(0), pair_ptr, pair_x, pair_y, u, x.data(), y.data());
  }

  /// The dot product of L entry p (row i, column j): sum_{k<j} l_ik y_jk; ParICT's diagonal sum_{k<i} l_ik^2.
  KOKKOS_INLINE_FUNCTION Scalar dot_l(const member_type& team, offset_t p, ordinal_t i, ordinal_t j) const {
    if constexpr (Group == 0) {
      // one lane: exactly the entries left of column j (row i of L before p, row j of Y before its diagonal)
      if (vector_length == 1) return range_dot(lptr(i), p, yptr(j), yptr(j + 1) - 1);
      if constexpr (Exact)
        return ilut_vector_dot_shorter(team, lcol, lin, lptr(i), p, ycol, yin, yptr(j), yptr(j + 1) - 1);
      return dot(team, i, j, j);
    } else {
      constexpr int G = Group;
      if (!(Kind::ict && i == j)) return list_dot(team, p, lin, yin);
      if (deterministic) return Scalar(0) - squares_sub<false>(team, 1, Scalar(0), lin.data(), lptr(i), p);
      return Scalar(0) - squares_sub<true, true, G>(team, 1, Scalar(0), lin.data(), lptr(i), p);
    }
  }

  /// One lane: ilut_range_dot of row stretches [xb, xe) of L and [yb, ye) of Y. Ordered sweeps read without L1
  /// (`ordered`): they promise the values of the row-order sweep, which a cached read of an earlier level in the same
  /// launch need not return.
  KOKKOS_INLINE_FUNCTION Scalar range_dot(offset_t xb, offset_t xe, offset_t yb, offset_t ye) const {
    if (deterministic) return ilut_range_dot<false, false>(lcol, lin, xb, xe, ycol, yin, yb, ye);
    if (ordered) return ilut_range_dot<true, false>(lcol, lin, xb, xe, ycol, yin, yb, ye);
    return ilut_range_dot<true, true>(lcol, lin, xb, xe, ycol, yin, yb, ye);
  }

  /// More lanes: sum_{k < bound} of row i of L and row j of Y (ilut_vector_dot).
  KOKKOS_INLINE_FUNCTION Scalar dot(const member_type& team, ordinal_t i, ordinal_t j, ordinal_t bound) const {
    return ilut_vector_dot(team, lcol, lin, lptr(i), lptr(i + 1), ycol, yin, yptr(j), yptr(j + 1), bound);
  }

  /// One lane writes the update v of entry p (row i); an update with a breakdown `code` (> 0) is skipped and
  /// reported. TeamSum: `acc` is the calling thread's accumulator (never null there); otherwise unused.
  KOKKOS_INLINE_FUNCTION void write(const member_type& team, const VV& in, const VV& out, offset_t p, Scalar v,
                                    ordinal_t i, int code, std::int64_t t, double r, bool pivot_replaced,
                                    double* acc) const {
    if constexpr (TeamSum) {
      if (!code) *acc += r * r;  // every lane: the team reduction takes the lanes of a thread as one
    } else {
      (void)acc;
    }
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      if (code) Kokkos::atomic_fetch_min(&status().breakdown, 4 * static_cast<std::int64_t>(i) + code);
      if (pivot_replaced) Kokkos::atomic_add(&status().replaced, std::int64_t(1));
      if (r2.data() != nullptr) r2(t) = code ? 0.0 : r * r;
      if (deterministic)
        out(p) = code ? in(p) : v;
      else if (!code)
        store_relaxed(&out(p), v);
    });
  }

  /// l_ij = (a_ij - sum_{k<j} l_ik y_jk) / y_jj;  ParICT: l_ii = sqrt(a_ii - sum_{k<i} l_ik^2), with
  /// a_ii - sum < pivot_tolerance replaced by pivot_tolerance (a_ii = 1 in the scaled matrix). The residual of the
  /// entry read: (a - L Y^T)_ij = (a_ij - s) - l_ij y_jj (diagonal of ParICT: (a_ii - s) - l_ii^2; an off-diagonal
  /// entry of ParICT stands for r_ij and r_ji).
  KOKKOS_INLINE_FUNCTION void update_l(const member_type& team, offset_t p, std::int64_t t, double* acc) const {
    const ordinal_t i = lrow(p), j = lcol(p);
    const Scalar aij = lapos(p) >= 0 ? a(lapos(p)) : Scalar(0);
    const Scalar s = dot_l(team, p, i, j);
    const Scalar yjj = Kind::ict && i == j ? Scalar(1) : load_relaxed(&yin(yptr(j + 1) - 1));
    const Scalar old = want_residual() ? load_relaxed(&lin(p)) : Scalar(0);
    Scalar v;
    finish_l(team, p, t, i, j, aij, s, yjj, old, v, acc);
  }

  /// update_l of entry p (row i, column j) from its inputs: s = sum_{k<j} l_ik y_jk, y_jj (ParICT diagonal: unused)
  /// and the entry's old value (read for the residual only). Returns whether the update v was written (false: a
  /// breakdown skipped it).
  KOKKOS_INLINE_FUNCTION bool finish_l(const member_type& team, offset_t p, std::int64_t t, ordinal_t i, ordinal_t j,
                                       Scalar aij, Scalar s, Scalar yjj, Scalar old, Scalar& v,
                                       double* acc = nullptr) const {
    using std::sqrt;
    int code = 0;
    bool replace = false;
    double r = 0.0;
    const bool want_r = want_residual();
    if (Kind::ict && i == j) {
      Scalar d = aij - s;
      if (want_r) r = static_cast<double>(d - ilut_mul(old, old));
      if (pivot_tolerance > Scalar(0) && !(d >= pivot_tolerance) && is_finite(d)) {
        d = pivot_tolerance;
        replace = true;
      }
      if (!(d > Scalar(0))) code = 2;
      v = sqrt(d);
    } else {
      v = (aij - s) / yjj;
      if (want_r)  // ParICT: sqrt(2) r, as r^2 counts twice
        r = (Kind::ict ? 1.4142135623730951 : 1.0) * static_cast<double>((aij - s) - ilut_mul(old, yjj));
    }
    if (code == 0 && !is_finite(v)) code = 1;
    write(team, lin, lout, p, v, i, code, t, r, replace && code == 0, acc);
    return code == 0;
  }

  /// ParILUT: u_ij = a_ij - sum_{k<i} l_ik u_kj, U entry q; a pivot u_ii with |u_ii| < pivot_tolerance is replaced
  /// by pivot_tolerance with the sign of u_ii (+ for 0).
  KOKKOS_INLINE_FUNCTION void update_u(const member_type& team, offset_t q, std::int64_t t, double* acc) const {
    const ordinal_t i = urow(q), j = ucol(q);
    const Scalar aij = uapos(q) >= 0 ? a(uapos(q)) : Scalar(0);
    const offset_t m = umap(q);
    // one lane: exactly the entries left of column i (row i of L before its diagonal, row j of Ut before m)
    const Scalar s = Group > 0            ? list_dot(team, nnzL + m, yin, lin)
                     : vector_length == 1 ? range_dot(lptr(i), lptr(i + 1) - 1, yptr(j), m)
                     : Exact ? ilut_vector_dot_shorter(team, lcol, lin, lptr(i), lptr(i + 1) - 1, ycol, yin, yptr(j), m)
                             : dot(team, i, j, i);
    finish_u(team, m, t, i, j, aij, s, want_residual() ? load_relaxed(&yin(m)) : Scalar(0), acc);
  }

  /// update_u of the U entry at position m of Y = Ut (row i, column j) from s = sum_{k<i} l_ik u_kj and its old value
  /// (for the residual).
  KOKKOS_INLINE_FUNCTION void finish_u(const member_type& team, offset_t m, std::int64_t t, ordinal_t i, ordinal_t j,
                                       Scalar aij, Scalar s, Scalar old, double* acc = nullptr) const {
    Scalar v = aij - s;
    const double r = want_residual() ? static_cast<double>(v - old) : 0.0;
    bool replace = false;
    if (i == j && pivot_tolerance > Scalar(0) && ilut_abs(v) < pivot_tolerance) {
      v = v < Scalar(0) ? -pivot_tolerance : pivot_tolerance;
      replace = true;
    }
    const int code = is_finite(v) ? 0 : 1;
    write(team, yin, yout, m, v, i, code, t, r, replace && code == 0, acc);
  }

  /// Task t (TeamSum: its residual term added to `*acc`).
  KOKKOS_INLINE_FUNCTION void task(const member_type& team, const std::int64_t t, double* acc) const {
    if constexpr (Kind::ict) {
      update_l(team, static_cast<offset_t>(t), t, acc);
    } else {
      const offset_t p = tasks(t);
      if (p < nnzL)
        update_l(team, p, t, acc);
      else
        update_u(team, p - nnzL, t, acc);
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, const std::int64_t t) const {
    task(team, t, nullptr);
  }
};

/// Default lanes per entry of the asynchronous sweeps on GPUs: the smallest power of two that puts `entries` x lanes
/// >= 6x the device's resident threads (`concurrency`), at most the first power of two >= the average row length of L
/// (the dot product's first operand) and 32. `entries` = nnz(L) + nnz(U) (ParICT: 2 nnz(L), the same work per matrix).
/// Measured on an H100 (par_il*_sweep/<matrix>/lanes<k>, 1..32 lanes, one run): one lane per entry on the 5-point
/// 1024^2 and 27-point 64^3 Laplacians (4-6x faster than the 8-32 lanes of the generic rule before), 8 on bcsstk16,
/// 4 on Trefethen 20,000 — the fastest of the six tried on each, for ParILUT and ParICT.
inline int ilut_sweep_lanes(std::int64_t entries, double avg_row, std::int64_t concurrency) {
  int lanes = 1;
  while (lanes < 32 && lanes < avg_row && entries * lanes < 6 * concurrency) lanes *= 2;
  return lanes;
}

/// Whether the sweeps read one buffer and write the other: the deterministic mode's concurrent sweeps. Ordered
/// sweeps (State::ordered) update in place in both modes: their fixed order makes them reproducible.
template <class Handle>
bool ilut_double_buffered(const Handle& h) {
  return h.params.mode == SweepMode::Deterministic && !h.state().ordered;
}

/// Whether the entry kernel's dot products with `lanes` > 1 lanes walk the exact stretches, the shorter one by the
/// lanes (ilut_vector_dot_shorter): ParILUT where the rows of L (average `avg_l` entries) are longer than the lanes.
inline bool ilut_exact_stretches(bool ict, int lanes, double avg_l) { return !ict && lanes > 1 && avg_l > lanes; }

/// The sweep functor of Kind on the handle's current factors (deterministic mode: in = val, out = val2); Group >= 1:
/// the list kernel over State::lists; Exact: the entry kernel over the exact stretches (ilut_exact_stretches).
template <class Kind, class ExecSpace, int Group = 0, bool Exact = false, bool TeamSum = false, class Handle>
SweepFunctor<Kind, ExecSpace, typename Handle::scalar_type, typename Handle::device_type, Group, Exact, TeamSum>
ilut_sweep_functor(Handle& h, int vector_length, const Kokkos::View<double*, typename Handle::device_type>& r2) {
  auto& st = h.state();
  const bool det = ilut_double_buffered(h);
  SweepFunctor<Kind, ExecSpace, typename Handle::scalar_type, typename Handle::device_type, Group, Exact, TeamSum> f;
  if constexpr (Group > 0) {
    f.pair_ptr = st.lists.ptr;
    f.pair_x = st.lists.px;
    f.pair_y = st.lists.py;
  }
  f.a = st.a_val;
  f.tasks = st.tasks;
  f.nnzL = st.L.nnz;
  f.lptr = st.L.ptr;
  f.lapos = st.L.apos;
  f.lcol = st.L.col;
  f.lrow = st.L.row;
  f.lin = st.L.val;
  f.lout = det ? st.L.val2 : st.L.val;
  f.ucol = st.U.col;
  f.urow = st.U.row;
  f.uapos = st.U.apos;
  f.umap = st.umap;
  const auto& Y = Kind::ict ? st.L : st.Ut;
  f.yptr = Y.ptr;
  f.ycol = Y.col;
  f.yin = Y.val;
  f.yout = det ? Y.val2 : Y.val;
  f.status = st.status;
  f.r2 = r2;
  f.pivot_tolerance = static_cast<typename Handle::scalar_type>(h.params.pivot_tolerance);
  f.vector_length = vector_length;
  f.deterministic = det;
  f.ordered = st.ordered;
  return f;
}

/// What ilut_sweep does besides the sweep.
struct IlutSweepOptions {
  bool residual = false;  ///< compute the residual of the values the sweep read
  bool reuse = false;     ///< the sweep belongs to a pattern-reusing numeric phase (ilut_sweep_kernel's Auto rule)
  bool reset_breakdown = false;  ///< reset the breakdown flag first: State::status then reports this sweep's only
  /// read State::status back at once (a residual is always read); else ilut_status reads it when asked
  bool read_status = true;
  bool reset_done = false;  ///< the caller reset State::status already (ilut_save_values with its reset)
  /// keep the residual's terms per task and reduce them after the sweep also where the row-team kernel's teams would
  /// sum them; the same sum in another order (tests compare the two)
  bool residual_per_task = false;
};

/// Resets State::status on the device (`replaced` and `r2` to 0, with `breakdown` also the breakdown flag) by one
/// thread of a kernel (a copy of host values to the device would wait for the transfer; a kernel is queued).
template <class View>
KOKKOS_INLINE_FUNCTION void ilut_reset_status_on_device(const View& status, bool breakdown) {
  if (breakdown) status().breakdown = INT64_MAX;
  status().replaced = 0;
  status().r2 = 0.0;
}

/// State::status, allocated (zeroed) the first time.
template <class Handle>
const auto& ilut_status_view(Handle& h) {
  auto& st = h.state();
  using SV = decltype(st.status);
  if (st.status.data() == nullptr) st.status = SV("AsyncSparse::par_ilut::status");
  return st.status;
}

/// The device address of State::status's member of type T at byte `offset` (offsetof(ParIlutSweepStatus, ...)):
/// a reduction's target (no member access through the device pointer on the host).
template <class T, class Handle>
T* ilut_status_member(Handle& h, std::size_t offset) {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(ilut_status_view(h).data()) + offset);
}

/// State::status (allocated here the first time) for a kernel that resets it (ilut_reset_status_on_device); the host
/// copy follows the reset without a read.
template <class Handle>
const auto& ilut_status_to_reset(Handle& h, bool breakdown) {
  auto& st = h.state();
  ilut_status_view(h);
  if (st.status_current) {
    if (breakdown) st.status_host.breakdown = INT64_MAX;
    st.status_host.replaced = 0;
    st.status_host.r2 = 0.0;
  }
  return st.status;
}

/// Resets State::status in a launch of its own (ilut_reset_status_on_device).
template <class ExecSpace, class Handle>
void ilut_reset_status(const ExecSpace& exec, Handle& h, bool breakdown) {
  const auto status = ilut_status_to_reset(h, breakdown);
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::reset_status", Impl::RangePolicy<ExecSpace>(exec, 0, 1),
      KOKKOS_LAMBDA(const int) { ilut_reset_status_on_device(status, breakdown); });
}

/// State::status on the host: read (waiting for the device) only when a sweep, a reset or a step's count_new
/// reduction changed it since the last read; also sets Stats::last_sweep_replaced.
template <class ExecSpace, class Handle>
const ParIlutSweepStatus& ilut_status(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  if (!st.status_current && st.status.data() != nullptr) st.status_host = ilut_read(exec, st.status, 0);
  st.status_current = true;
  h.stats().last_sweep_replaced = st.status_host.replaced;
  return st.status_host;
}

/// True when the breakdown flag (State::status) records a skipped update.
template <class ExecSpace, class Handle>
bool ilut_broke_down(const ExecSpace& exec, Handle& h) {
  return ilut_status(exec, h).breakdown != INT64_MAX;
}

/// One sweep of Kind over the current pattern; returns the squared nonlinear residual ||(A - L U)_S||_F^2 of the
/// factors it read when `o.residual` (else -1).
template <class Kind, class ExecSpace, class Handle>
double ilut_sweep_kind(const ExecSpace& exec, Handle& h, const IlutSweepOptions& o) {
  const bool residual = o.residual, reuse = o.reuse;
  auto& st = h.state();
  const bool det = ilut_double_buffered(h);
  const bool deterministic_mode = h.params.mode == SweepMode::Deterministic;
  LaunchDefaults d;  // asynchronous sweeps: the generic rules
  d.method = Kind::ict ? "par_ict" : "par_ilut";
  if (deterministic_mode) {  // one lane per entry
    d.vector_length = d.max_vector_length = 1;
    d.method += " (deterministic mode)";
  }
  const std::int64_t ntasks = Kind::ict ? st.L.nnz : static_cast<std::int64_t>(st.tasks.extent(0));
  const double avg = static_cast<double>(Kind::ict ? st.L.nnz : st.L.nnz + st.U.nnz) / static_cast<double>(st.n);
  const double avg_l = static_cast<double>(st.L.nnz) / static_cast<double>(st.n);
  if (!deterministic_mode && is_gpu_space<ExecSpace>())
    d.vector_length = st.ordered
                          ? ilut_sweep_lanes(1, avg_l, 32)  // one team: lanes = the first operand's row
                          : ilut_sweep_lanes(Kind::ict ? 2 * st.L.nnz : st.L.nnz + st.U.nnz, avg_l, exec.concurrency());
  const auto kernel = st.ordered ? ParIlutSweepKernel::Entry : ilut_sweep_kernel<Kind>(exec, h, reuse, ntasks);
  // the row-team kernel sums the residual's terms per team (SweepFunctor's TeamSum) into State::status; the other
  // kernels keep them per task for a reduction after the sweep
  const bool in_teams = residual && !o.residual_per_task && kernel == ParIlutSweepKernel::RowTeam;  // never ordered
  Kokkos::View<double*, typename Handle::device_type> r2;
  if (residual && !in_teams) r2 = ilut_alloc<decltype(r2)>(ilut_ws(h), std::string(Kind::prefix) + "sweep_r2", ntasks);
  if (!o.reset_done) ilut_reset_status(exec, h, o.reset_breakdown);
  st.status_current = false;  // from here the sweep's kernels change State::status (also if a launch throws)
  if (st.ordered) {  // one launch per level (ilut_run_ordered)
    const int lanes = d.vector_length > 0 ? d.vector_length : 1;
    h.stats().launch = ilut_run_ordered(exec, h, ilut_sweep_functor<Kind, ExecSpace>(h, lanes, r2), lanes,
                                        std::string(Kind::prefix) + "sweep_ordered");
  } else if (kernel == ParIlutSweepKernel::RowTeam) {
    const RowSweepShape s = ilut_row_sweep_shape(is_gpu_space<ExecSpace>(), st.n, avg_l, exec.concurrency(), h.launch);
    h.stats().sweep_gather_group = 1;
    h.stats().sweep_exact_stretches = false;
    const std::string label = std::string(Kind::prefix) + "sweep_rows";
    h.stats().launch =
        in_teams ? ilut_run_rows(exec, h, ilut_sweep_functor<Kind, ExecSpace, 0, false, true>(h, s.lanes, r2), s, label)
                 : ilut_run_rows(exec, h, ilut_sweep_functor<Kind, ExecSpace>(h, s.lanes, r2), s, label);
  } else if (kernel == ParIlutSweepKernel::List) {
    // one lane per task, kParIluListGpuTeamThreads per team (ParILU's list kernel, measured there)
    d.vector_length = d.max_vector_length = 1;
    d.gpu_team_threads = kParIluListGpuTeamThreads;
    d.method += " (list sweep kernel)";
    const ResolvedLaunch r = resolve_launch_config<ExecSpace>(h.launch, ntasks, 1.0, exec, d);
    h.stats().launch = r;
    ChunkedLaunch<ExecSpace> chunks(r);
    const std::int64_t unknowns = st.L.nnz + (Kind::ict ? 0 : st.Ut.nnz);
    const int group =
        deterministic_mode ? 1 : list_gather_group(h.stats().sweep_products, unknowns, is_gpu_space<ExecSpace>());
    h.stats().sweep_gather_group = group;
    h.stats().sweep_exact_stretches = false;
    const std::string label = std::string(Kind::prefix) + (det ? "sweep_list_deterministic" : "sweep_list");
    if constexpr (is_gpu_space<ExecSpace>()) {  // grouped loads exist in GPU device code only
      if (group == 4) {
        chunks.run(label, exec, ilut_sweep_functor<Kind, ExecSpace, 4>(h, 1, r2));
      } else {
        chunks.run(label, exec, ilut_sweep_functor<Kind, ExecSpace, 1>(h, 1, r2));
      }
    } else {
      chunks.run(label, exec, ilut_sweep_functor<Kind, ExecSpace, 1>(h, 1, r2));
    }
  } else {
    h.stats().sweep_gather_group = 1;
    const ResolvedLaunch r = resolve_launch_config<ExecSpace>(h.launch, ntasks, avg, exec, d);
    h.stats().launch = r;
    ChunkedLaunch<ExecSpace> chunks(r);
    const std::string label = std::string(Kind::prefix) + (det ? "sweep_deterministic" : "sweep");
    h.stats().sweep_exact_stretches = ilut_exact_stretches(Kind::ict, r.vector_length, avg_l);
    if constexpr (!Kind::ict) {
      if (h.stats().sweep_exact_stretches) {
        chunks.run(label, exec, ilut_sweep_functor<Kind, ExecSpace, 0, true>(h, r.vector_length, r2));
      } else {
        chunks.run(label, exec, ilut_sweep_functor<Kind, ExecSpace>(h, r.vector_length, r2));
      }
    } else {
      chunks.run(label, exec, ilut_sweep_functor<Kind, ExecSpace>(h, r.vector_length, r2));
    }
  }
  if (det) {
    std::swap(st.L.val, st.L.val2);
    if constexpr (!Kind::ict) std::swap(st.Ut.val, st.Ut.val2);
  }
  ++h.stats().sweeps;
  if (residual && deterministic_mode) {  // summed in index order on the host
    ilut_status(exec, h);
    return ilut_sum(exec, r2, ntasks, true);
  }
  if (residual && !in_teams) {  // reduced into State::status, read back with the flags in one copy
    const Kokkos::View<double, typename Handle::device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>> into(
        ilut_status_member<double>(h, offsetof(ParIlutSweepStatus, r2)));
    Kokkos::parallel_reduce(
        "AsyncSparse::par_ilut::sum", Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, ntasks),
        KOKKOS_LAMBDA(const std::int64_t t, double& acc) { acc += r2(t); }, into);
  }
  if (residual || o.read_status) ilut_status(exec, h);
  return residual ? st.status_host.r2 : -1.0;
}

/// One sweep over the current pattern (IlutSweepOptions). Resets the count of replaced pivots, and the breakdown
/// flag only with `reset_breakdown` (the flags of this sweep only). With `residual`, returns the relative nonlinear
/// residual ||(A - L U)_S||_F / ||A||_F of the factors the sweep read (S the current pattern; asynchronous mode: of
/// the values each update read); else -1. The residual, the flags and the count come back in one read (one wait
/// for the device; none without `residual` and `read_status`; the deterministic mode also reads the per-task
/// residuals to sum them in index order on the host).
template <class ExecSpace, class Handle>
double ilut_sweep(const ExecSpace& exec, Handle& h, const IlutSweepOptions& o = {}) {
  const double r2 =
      h.state().kind == ParIlutKind::Ict ? ilut_sweep_kind<IctKind>(exec, h, o) : ilut_sweep_kind<IlutKind>(exec, h, o);
  if (!o.residual) return -1.0;
  const double a2 = h.state().a_norm2;
  return a2 > 0 ? std::sqrt(r2 / a2) : std::sqrt(r2);
}

// ------------------------------------------------------------------------------------------------------------
// Breakdown check
// ------------------------------------------------------------------------------------------------------------

template <class ExecSpace, class Handle>
void ilut_reset_breakdown(const ExecSpace& exec, Handle& h) {
  ilut_reset_status(exec, h, true);
}

/// True after an ordered sweep (State::ordered) that broke down nowhere and replaced no pivot
/// (Params::pivot_tolerance). Each row of such a sweep is computed from A and the rows before it only, so it left the
/// exact incomplete factorization of the pattern and a further sweep would repeat it bit for bit: the callers
/// (ilut_sweep_phase, ilut_update_values) stop sweeping. Reads the breakdown flag (reset before the sweep) only for
/// ordered sweeps.
template <class ExecSpace, class Handle>
bool ilut_ordered_sweep_final(const ExecSpace& exec, Handle& h) {
  return h.state().ordered && ilut_status(exec, h).replaced == 0 && !ilut_broke_down(exec, h);
}

/// Throws BreakdownError for the first row whose last sweep produced a non-finite update, or whose pivot is
/// zero / non-finite (ParILUT: u_ii; ParICT: l_ii not positive).
template <class ExecSpace, class Handle>
void ilut_check_breakdown(const ExecSpace& exec, Handle& h) {
  using Scalar = typename Handle::scalar_type;
  auto& st = h.state();
  const bool ict = st.kind == ParIlutKind::Ict;
  std::int64_t bad = ilut_status(exec, h).breakdown;
  auto fp = ict ? st.L.ptr : st.Ut.ptr;
  auto fval = ict ? st.L.val : st.Ut.val;
  std::int64_t diag_bad = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce(
      "AsyncSparse::par_ilut::check_pivots", Impl::RangePolicy<ExecSpace>(exec, 0, st.n),
      KOKKOS_LAMBDA(const ordinal_t i, std::int64_t& b) {
        const Scalar d = fval(fp(i + 1) - 1);
        const bool ok = is_finite(d) && (ict ? d > Scalar(0) : d != Scalar(0));
        const std::int64_t key = 4 * static_cast<std::int64_t>(i) + (ict ? 2 : 3);
        if (!ok && key < b) b = key;
      },
      Kokkos::Min<std::int64_t>(diag_bad));
  bad = std::min(bad, diag_bad);
  if (bad == std::numeric_limits<std::int64_t>::max()) return;
  st.ready = false;
  const std::int64_t row = bad / 4;
  const char* method = par_ilut_name(h);
  switch (static_cast<int>(bad % 4)) {
    case 1:
      throw BreakdownError(method, row, "non-finite update (division by a zero or tiny pivot)");
    case 2:
      throw BreakdownError(method, row, "non-positive pivot (a_ii - sum_k l_ik^2 <= 0)");
    default:
      throw BreakdownError(method, row, "zero pivot u_ii = 0");
  }
}

}  // namespace Impl
}  // namespace AsyncSparse
