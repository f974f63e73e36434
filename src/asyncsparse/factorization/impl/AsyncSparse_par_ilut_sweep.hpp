// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT fixed-point sweeps (Ginkgo: par_ilut_sweep) and the breakdown checks of their
// results. Layout of the factors: AsyncSparse_par_ilut_common.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_chunked_launch.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_common.hpp>
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

/// One fixed-point update per task, for ParILUT (Kind = IlutKind) or ParICT (IctKind). The dot products pair row i
/// of L with row j of Y: Ut, the columns of U (ParILUT), or L itself (ParICT); both keep their diagonal last. Values
/// are read from the `in` buffers and written to the `out` buffers (the same Views in the asynchronous mode).
template <class Kind, class ExecSpace, class Scalar, class Device>
struct SweepFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
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
  Kokkos::View<std::int64_t, Device> breakdown;
  Kokkos::View<std::int64_t, Device> replaced;  ///< pivots replaced in this sweep (Params::pivot_tolerance)
  /// per task the squared residual of the factors the update read (the nonlinear residual on the pattern, see
  /// ilut_sweep); empty: not computed
  Kokkos::View<double*, Device> r2;
  Scalar pivot_tolerance;  ///< 0: no replacement
  int vector_length;
  bool deterministic;

  KOKKOS_INLINE_FUNCTION Scalar dot(const member_type& team, ordinal_t i, ordinal_t j, ordinal_t bound) const {
    if (vector_length == 1)
      return ilut_merge_dot(lcol, lin, lptr(i), lptr(i + 1), ycol, yin, yptr(j), yptr(j + 1), bound);
    return ilut_vector_dot(team, lcol, lin, lptr(i), lptr(i + 1), ycol, yin, yptr(j), yptr(j + 1), bound);
  }

  /// One lane writes the update v of entry p (row i); an update with a breakdown `code` (> 0) is skipped and
  /// reported.
  KOKKOS_INLINE_FUNCTION void write(const member_type& team, const VV& in, const VV& out, offset_t p, Scalar v,
                                    ordinal_t i, int code, std::int64_t t, double r, bool pivot_replaced) const {
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      if (code) Kokkos::atomic_fetch_min(&breakdown(), 4 * static_cast<std::int64_t>(i) + code);
      if (pivot_replaced) Kokkos::atomic_add(&replaced(), std::int64_t(1));
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
  KOKKOS_INLINE_FUNCTION void update_l(const member_type& team, offset_t p, std::int64_t t) const {
    using std::sqrt;
    const ordinal_t i = lrow(p), j = lcol(p);
    const Scalar aij = lapos(p) >= 0 ? a(lapos(p)) : Scalar(0);
    const Scalar s = dot(team, i, j, j);
    int code = 0;
    bool replace = false;
    Scalar v;
    double r = 0.0;
    const bool want_r = r2.data() != nullptr;
    if (Kind::ict && i == j) {
      Scalar d = aij - s;
      if (want_r) {
        const Scalar old = load_relaxed(&lin(p));
        r = static_cast<double>(d - ilut_mul(old, old));
      }
      if (pivot_tolerance > Scalar(0) && !(d >= pivot_tolerance) && is_finite(d)) {
        d = pivot_tolerance;
        replace = true;
      }
      if (!(d > Scalar(0))) code = 2;
      v = sqrt(d);
    } else {
      const Scalar yjj = load_relaxed(&yin(yptr(j + 1) - 1));
      v = (aij - s) / yjj;
      if (want_r)  // ParICT: sqrt(2) r, as r^2 counts twice
        r = (Kind::ict ? 1.4142135623730951 : 1.0) *
            static_cast<double>((aij - s) - ilut_mul(load_relaxed(&lin(p)), yjj));
    }
    if (code == 0 && !is_finite(v)) code = 1;
    write(team, lin, lout, p, v, i, code, t, r, replace && code == 0);
  }

  /// ParILUT: u_ij = a_ij - sum_{k<i} l_ik u_kj, U entry q; a pivot u_ii with |u_ii| < pivot_tolerance is replaced
  /// by pivot_tolerance with the sign of u_ii (+ for 0).
  KOKKOS_INLINE_FUNCTION void update_u(const member_type& team, offset_t q, std::int64_t t) const {
    const ordinal_t i = urow(q), j = ucol(q);
    const Scalar aij = uapos(q) >= 0 ? a(uapos(q)) : Scalar(0);
    Scalar v = aij - dot(team, i, j, i);
    const double r = r2.data() != nullptr ? static_cast<double>(v - load_relaxed(&yin(umap(q)))) : 0.0;
    bool replace = false;
    if (i == j && pivot_tolerance > Scalar(0) && ilut_abs(v) < pivot_tolerance) {
      v = v < Scalar(0) ? -pivot_tolerance : pivot_tolerance;
      replace = true;
    }
    const int code = is_finite(v) ? 0 : 1;
    write(team, yin, yout, umap(q), v, i, code, t, r, replace && code == 0);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, const std::int64_t t) const {
    if constexpr (Kind::ict) {
      update_l(team, static_cast<offset_t>(t), t);
    } else {
      const offset_t p = tasks(t);
      if (p < nnzL)
        update_l(team, p, t);
      else
        update_u(team, p - nnzL, t);
    }
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

/// The launch of the ordered sweeps (Params::sweep_order): one team of one thread (max_concurrent_teams 1) runs the
/// tasks in their row-major order, in place; on GPUs with `lanes` vector lanes for each dot product (deterministic
/// mode: 1, the summation order of the host backends).
inline LaunchConfig ilut_ordered_launch(int lanes) {
  LaunchConfig c;
  c.team_size = 1;
  c.vector_length = lanes;
  c.max_concurrent_teams = 1;
  c.unit_stride = 1;
  return c;
}

/// The sweep functor of Kind on the handle's current factors (deterministic mode: in = val, out = val2).
template <class Kind, class ExecSpace, class Handle>
SweepFunctor<Kind, ExecSpace, typename Handle::scalar_type, typename Handle::device_type> ilut_sweep_functor(
    Handle& h, int vector_length, const Kokkos::View<double*, typename Handle::device_type>& r2) {
  auto& st = h.state();
  const bool det = ilut_double_buffered(h);
  SweepFunctor<Kind, ExecSpace, typename Handle::scalar_type, typename Handle::device_type> f;
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
  f.breakdown = st.breakdown;
  f.replaced = st.replaced;
  f.r2 = r2;
  f.pivot_tolerance = static_cast<typename Handle::scalar_type>(h.params.pivot_tolerance);
  f.vector_length = vector_length;
  f.deterministic = det;
  return f;
}

/// One sweep of Kind over the current pattern; returns the squared nonlinear residual ||(A - L U)_S||_F^2 of the
/// factors it read when `residual` (else -1).
template <class Kind, class ExecSpace, class Handle>
double ilut_sweep_kind(const ExecSpace& exec, Handle& h, bool residual) {
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
  if (st.ordered) d.method += " (ordered sweeps)";
  const LaunchConfig cfg = st.ordered ? ilut_ordered_launch(d.vector_length) : h.launch;
  const ResolvedLaunch r = resolve_launch_config<ExecSpace>(cfg, ntasks, avg, exec, d);
  h.stats().launch = r;
  ChunkedLaunch<ExecSpace> chunks(r);
  Kokkos::View<double*, typename Handle::device_type> r2;
  if (residual) r2 = ilut_alloc<decltype(r2)>(ilut_ws(h), std::string(Kind::prefix) + "sweep_r2", ntasks);
  if (st.replaced.data() == nullptr)
    st.replaced = Kokkos::View<std::int64_t, typename Handle::device_type>("AsyncSparse::par_ilut::replaced");
  Kokkos::deep_copy(exec, st.replaced, std::int64_t(0));
  const auto f = ilut_sweep_functor<Kind, ExecSpace>(h, r.vector_length, r2);
  chunks.run(std::string(Kind::prefix) + (det          ? "sweep_deterministic"
                                          : st.ordered ? "sweep_ordered"
                                                       : "sweep"),
             exec, f);
  if (det) {
    std::swap(st.L.val, st.L.val2);
    if constexpr (!Kind::ict) std::swap(st.Ut.val, st.Ut.val2);
  }
  ++h.stats().sweeps;
  h.stats().last_sweep_replaced = ilut_read(exec, st.replaced, 0);
  return residual ? ilut_sum(exec, r2, ntasks, deterministic_mode) : -1.0;
}

/// One sweep over the current pattern. Resets nothing: the caller resets `breakdown` when it wants the flags
/// of this sweep only. With `residual`, returns the relative nonlinear residual ||(A - L U)_S||_F / ||A||_F of the
/// factors the sweep read (S the current pattern; asynchronous mode: of the values each update read); else -1.
template <class ExecSpace, class Handle>
double ilut_sweep(const ExecSpace& exec, Handle& h, bool residual = false) {
  const double r2 = h.state().kind == ParIlutKind::Ict ? ilut_sweep_kind<IctKind>(exec, h, residual)
                                                       : ilut_sweep_kind<IlutKind>(exec, h, residual);
  if (!residual) return -1.0;
  const double a2 = h.state().a_norm2;
  return a2 > 0 ? std::sqrt(r2 / a2) : std::sqrt(r2);
}

// ------------------------------------------------------------------------------------------------------------
// Breakdown check
// ------------------------------------------------------------------------------------------------------------

template <class ExecSpace, class Handle>
void ilut_reset_breakdown(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  if (st.breakdown.data() == nullptr)
    st.breakdown = Kokkos::View<std::int64_t, typename Handle::device_type>("AsyncSparse::par_ilut::breakdown");
  Kokkos::deep_copy(exec, st.breakdown, std::numeric_limits<std::int64_t>::max());
}

/// Throws BreakdownError for the first row whose last sweep produced a non-finite update, or whose pivot is
/// zero / non-finite (ParILUT: u_ii; ParICT: l_ii not positive).
template <class ExecSpace, class Handle>
void ilut_check_breakdown(const ExecSpace& exec, Handle& h) {
  using Scalar = typename Handle::scalar_type;
  auto& st = h.state();
  const bool ict = st.kind == ParIlutKind::Ict;
  std::int64_t bad = ilut_read(exec, st.breakdown, 0);
  auto fp = ict ? st.L.ptr : st.Ut.ptr;
  auto fval = ict ? st.L.val : st.Ut.val;
  std::int64_t diag_bad = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce(
      "AsyncSparse::par_ilut::check_pivots", Kokkos::RangePolicy<ExecSpace>(exec, 0, st.n),
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
