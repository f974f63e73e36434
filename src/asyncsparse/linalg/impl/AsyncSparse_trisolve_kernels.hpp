// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — kernels of the triangular solves (AsyncSparse_trisolve.hpp): input checks, value loading with
// diagonal scaling, serial substitution, fused Jacobi sweeps, the ISAI setup and the residual of a triangle.
//
// A triangle is given by its CSR arrays with sorted rows and the diagonal stored last (lower) or first (upper)
// in every row; `off_diagonal_range` names the other entries of a row. Every kernel here is deterministic: each
// thread writes only entries it owns, and reads only values no thread of the same kernel writes.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_row_launch.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve_rule.hpp>  // Impl::SweepRows, Impl::jacobi_sweep_rows
#include <asyncsparse/linalg/impl/AsyncSparse_team_long_rows.hpp>

namespace AsyncSparse {
namespace Impl {

/// [beg, end) of the off-diagonal entries of row i.
template <class RowMap>
KOKKOS_FORCEINLINE_FUNCTION void off_diagonal_range(const RowMap& rm, ordinal_t i, bool lower, offset_t& beg,
                                                    offset_t& end) {
  beg = lower ? rm(i) : rm(i) + 1;
  end = lower ? rm(i + 1) - 1 : rm(i + 1);
}

/// Structure problem of row i of a triangle: 0 none, 1 diagonal not stored at its place (last of a lower row, first
/// of an upper one), 2 an entry on the wrong side of the diagonal or out of range, 3 columns unsorted or duplicated.
template <class RowMap, class Entries>
KOKKOS_INLINE_FUNCTION int tri_row_structure(const RowMap& rm, const Entries& ent, ordinal_t n, bool lower,
                                             ordinal_t i) {
  const offset_t beg = rm(i), end = rm(i + 1);
  int code = 0;
  if (end <= beg || ent(lower ? end - 1 : beg) != i) code = 1;
  for (offset_t k = beg; k < end && code == 0; ++k) {
    const ordinal_t j = ent(k);
    if (j < 0 || j >= n || (lower ? j > i : j < i)) code = 2;
    if (k > beg && ent(k - 1) >= j) code = code ? code : 3;
  }
  return code;
}

/// The InvalidInput of structure problem `code` (tri_row_structure) in `row`.
inline InvalidInput tri_structure_error(const std::string& where, bool lower, std::int64_t row, int code) {
  const std::string tri = lower ? "lower" : "upper";
  std::string what;
  if (code == 1)
    what = std::string("diagonal entry not stored as the ") + (lower ? "last" : "first") + " entry of the row";
  else if (code == 2)
    what = "entry outside the " + tri + " triangle (or column out of range)";
  else
    what = "column indices not sorted or duplicated";
  return InvalidInput(where + ": " + tri + " triangular matrix, row " + std::to_string(row) + ": " + what);
}

/// Verdict keys of a triangle's set-up passes (minimised in a verdict word, report_verdict): 4 * row + code for a
/// structure problem (tri_row_structure), 4 * (n + row) + code for a value problem (codes 1 zero diagonal, 2
/// non-finite diagonal, 3 non-finite off-diagonal), 8 * n + row for a non-finite ISAI row: the first structure
/// problem before any value problem, and a value problem before the ISAI rows it spoils.
inline std::int64_t tri_isai_key(ordinal_t n, ordinal_t row) { return 8 * static_cast<std::int64_t>(n) + row; }

/// Throws the error of verdict `v` (kNoVerdict: none) of a triangle of n rows: InvalidInput for a structure problem
/// or a non-finite off-diagonal value, BreakdownError (with the row) for a zero or non-finite diagonal or ISAI row.
inline void tri_throw_verdict(verdict_t v, const std::string& where, ordinal_t n, bool lower) {
  if (v == kNoVerdict) return;
  const auto bad = static_cast<std::int64_t>(v);
  const std::int64_t value_key = 4 * static_cast<std::int64_t>(n);
  if (bad < value_key) throw tri_structure_error(where, lower, bad / 4, static_cast<int>(bad % 4));
  if (bad >= tri_isai_key(n, 0))
    throw BreakdownError(where, bad - tri_isai_key(n, 0),
                         "non-finite ISAI row (overflow in its local triangular system)");
  const std::int64_t row = (bad - value_key) / 4;
  const int code = static_cast<int>(bad % 4);
  if (code == 3) throw InvalidInput(where + ": non-finite off-diagonal value in row " + std::to_string(row));
  throw BreakdownError(where, row, code == 1 ? "zero diagonal entry" : "non-finite diagonal entry");
}

/// dst = diag(r) src diag(c) on the triangle's pattern (r, c: empty = identity), with the diagonal of src taken as
/// 1 when `unit`; dinv(i) = 1 / dst_ii. Reports into the verdict word `word` (tri_throw_verdict's keys) a non-finite
/// value and a zero or non-finite diagonal, checked on the unscaled values. With `check_structure` the same pass
/// first checks each row's structure (tri_row_structure) and reports the first bad row before any value problem; a
/// bad row's values are not loaded. A row per group of vector lanes (parallel_for_rows), no wait: the caller takes
/// the verdict (take_verdict; TriangularSolver::load).
template <class ExecSpace, class RowMap, class Entries, class Src, class Dst, class Scale>
void tri_load_values(const RowMap& rm, const Entries& ent, ordinal_t n, bool lower, bool unit, const Src& src,
                     const Dst& dst, const Dst& dinv, const Scale& r, const Scale& c, const std::string& where,
                     bool check_structure, verdict_t* word) {
  using Scalar = typename Dst::non_const_value_type;
  const bool has_r = r.extent(0) > 0, has_c = c.extent(0) > 0;
  if ((has_r && r.extent(0) != static_cast<std::size_t>(n)) || (has_c && c.extent(0) != static_cast<std::size_t>(n)))
    throw InvalidInput(where + ": scaling vector length does not match the matrix (" + std::to_string(n) + ")");
  const std::int64_t value_key = 4 * static_cast<std::int64_t>(n);
  const std::int64_t entries = n > 0 ? static_cast<std::int64_t>(src.extent(0)) : 0;
  parallel_for_rows(
      "AsyncSparse::trisolve::load_values", ExecSpace(), n, entries,
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const ordinal_t i) {
        int sc = 0;
        if (check_structure)
          Kokkos::single(
              Kokkos::PerThread(m),
              [&](int& code) {
                code = tri_row_structure(rm, ent, n, lower, i);
                if (code) report_verdict(word, verdict_t(4 * static_cast<std::int64_t>(i) + code));
              },
              sc);
        if (sc) return;
        const offset_t beg = rm(i), end = rm(i + 1);
        const offset_t dpos = lower ? end - 1 : beg;
        const Scalar ri = has_r ? r(i) : Scalar(1);
        const std::int64_t key = value_key + 4 * static_cast<std::int64_t>(i);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, beg, end), [&](const offset_t k) {
          if (k == dpos) return;
          const Scalar v = src(k);
          if (!is_finite(v)) report_verdict(word, verdict_t(key + 3));
          dst(k) = has_c ? (ri * v) * c(ent(k)) : ri * v;
        });
        Kokkos::single(Kokkos::PerThread(m), [&]() {
          const Scalar d = unit ? Scalar(1) : src(dpos);
          const int code = !is_finite(d) ? 2 : d == Scalar(0) ? 1 : 0;
          const Scalar ds = has_c ? (ri * d) * c(i) : ri * d;
          dst(dpos) = ds;
          dinv(i) = code == 0 ? Scalar(1) / ds : Scalar(0);
          if (code) report_verdict(word, verdict_t(key + code));
        });
      });
}

/// Forward / backward substitution by one thread of the execution space.
template <class ExecSpace, class RowMap, class Entries, class Values, class B, class X>
void tri_serial_solve(const RowMap& rm, const Entries& ent, const Values& val, const Values& dinv, ordinal_t n,
                      bool lower, const B& b, const X& x) {
  using Scalar = typename X::non_const_value_type;
  Kokkos::parallel_for(
      "AsyncSparse::trisolve::serial", Impl::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(const int) {
        for (ordinal_t r = 0; r < n; ++r) {
          const ordinal_t i = lower ? r : n - 1 - r;
          offset_t beg, end;
          off_diagonal_range(rm, i, lower, beg, end);
          Scalar s = b(i);
          for (offset_t k = beg; k < end; ++k) s -= val(k) * x(ent(k));
          x(i) = s * dinv(i);
        }
      });
}

/// x = D^{-1} b (zero Jacobi sweeps).
template <class ExecSpace, class Values, class B, class X>
void tri_diagonal_solve(const Values& dinv, ordinal_t n, const B& b, const X& x) {
  Kokkos::parallel_for(
      "AsyncSparse::trisolve::diagonal", Impl::RangePolicy<ExecSpace>(Impl::launch_instance<ExecSpace>(), 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) { x(i) = dinv(i) * b(i); });
}

/// One Jacobi sweep on a triangle T = D + N, x_out = D^{-1} (b - N x_in), one vector-lane group per row
/// (SweepRows::Lanes). With First, x_in = D^{-1} b is not stored but formed on the fly (the initial guess folded into
/// the first sweep). JacobiSweepRow is the same sweep with a thread per row; as a reduction (the adaptive mode's check
/// sweeps) it also returns ||b - T x_in||_2^2, the residual of the iterate the sweep starts from, at no extra pass: it
/// needs only the row sums the sweep computes anyway.
template <class ExecSpace, class RowMap, class Entries, class Values, class B, class XIn, class XOut, bool First>
struct JacobiSweep {
  using Scalar = typename XOut::non_const_value_type;
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  RowMap rm;
  Entries ent;
  Values val, dinv;
  B b;
  XIn xin;
  XOut xout;
  ordinal_t n;
  int rows_per_team;
  bool lower;

  KOKKOS_INLINE_FUNCTION Scalar x_in(ordinal_t j) const {
    if (First) return dinv(j) * b(j);
    return xin(j);
  }
  // Row i: the off-diagonal sum s = (N x_in)_i, reduced over the vector lanes (every lane holds it afterwards).
  KOKKOS_INLINE_FUNCTION Scalar row_sum(const member_type& m, ordinal_t i) const {
    offset_t beg, end;
    off_diagonal_range(rm, i, lower, beg, end);
    Scalar s = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(m, end - beg),
        [&](const offset_t t, Scalar& acc) { acc += val(beg + t) * x_in(ent(beg + t)); }, s);
    return s;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    const ordinal_t r0 = static_cast<ordinal_t>(m.league_rank()) * rows_per_team;
    const ordinal_t r1 = r0 + rows_per_team < n ? r0 + rows_per_team : n;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, r0, r1), [&](const ordinal_t i) {
      const Scalar s = row_sum(m, i);
      Kokkos::single(Kokkos::PerThread(m), [&]() { xout(i) = dinv(i) * (b(i) - s); });
    });
  }
};

/// A Jacobi sweep with one thread per row, its sum in row order (a range launch). As a parallel_for, the plain sweep
/// (GPUs, as jacobi_sweep_rows decides); as a reduction, it also sums ||b - T x_in||_2^2 (a flat reduction:
/// cheaper on GPUs than a team reduction across the vector lanes of JacobiSweep; used on the check sweeps of the
/// adaptive mode), or with `dot` the product d·x_out instead (the last sweep of TriangularSolver::solve_dot).
template <class RowMap, class Entries, class Values, class B, class XIn, class XOut, bool First>
struct JacobiSweepRow {
  using Scalar = typename XOut::non_const_value_type;
  using value_type = double;
  RowMap rm;
  Entries ent;
  Values val, dinv;
  B b;
  XIn xin;
  XOut xout;
  bool lower;
  Kokkos::View<const Scalar*, typename XOut::device_type> d;  ///< with `dot`: the other vector of d·x_out
  bool dot = false;

  KOKKOS_INLINE_FUNCTION Scalar x_in(ordinal_t j) const {
    if (First) return dinv(j) * b(j);
    return xin(j);
  }
  // row i's off-diagonal entries [beg, end) and their sum (N x_in)_i
  KOKKOS_INLINE_FUNCTION Scalar row_sum(ordinal_t i, offset_t& beg, offset_t& end) const {
    off_diagonal_range(rm, i, lower, beg, end);
    Scalar s = 0;
    for (offset_t k = beg; k < end; ++k) s += val(k) * x_in(ent(k));
    return s;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    offset_t beg, end;
    const Scalar s = row_sum(i, beg, end);
    xout(i) = dinv(i) * (b(i) - s);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, double& rr) const {
    offset_t beg, end;
    const Scalar s = row_sum(i, beg, end);
    const Scalar bi = b(i);
    const Scalar xi = dinv(i) * (bi - s);
    xout(i) = xi;
    if (dot) {
      rr += static_cast<double>(d(i)) * static_cast<double>(xi);
    } else {
      const Scalar res = bi - s - val(lower ? end : beg - 1) * x_in(i);
      rr += static_cast<double>(res * res);
    }
  }
};

/// The last sweep of a fused Jacobi solve (TriangularSolver::solve_dot): one JacobiSweepRow with `dot`, its sum
/// d·x_out written to the device scalar `out`, asynchronously.
template <class ExecSpace, bool First, class RowMap, class Entries, class Values, class B, class XIn, class XOut,
          class D, class Out>
void jacobi_sweep_dot(const RowMap& rm, const Entries& ent, const Values& val, const Values& dinv, ordinal_t n,
                      bool lower, const B& b, const XIn& xin, const XOut& xout, const D& d, const Out& out) {
  JacobiSweepRow<RowMap, Entries, Values, B, XIn, XOut, First> f{rm, ent, val, dinv, b, xin, xout, lower};
  f.d = d;
  f.dot = true;
  Kokkos::parallel_reduce("AsyncSparse::trisolve::jacobi_sweep_dot",
                          Impl::RangePolicy<ExecSpace>(Impl::launch_instance<ExecSpace>(), 0, n), f, out);
}

/// Runs one Jacobi sweep; returns ||b - T x_in||_2^2 when `residual` (one device-to-host transfer; a thread per row
/// then, whatever `rows`), else 0.
template <class ExecSpace, bool First, class RowMap, class Entries, class Values, class B, class XIn, class XOut>
double jacobi_sweep(const ResolvedLaunch& launch, SweepRows rows, const RowMap& rm, const Entries& ent,
                    const Values& val, const Values& dinv, ordinal_t n, bool lower, const B& b, const XIn& xin,
                    const XOut& xout, bool residual) {
  using Row = JacobiSweepRow<RowMap, Entries, Values, B, XIn, XOut, First>;
  const ExecSpace exec = Impl::launch_instance<ExecSpace>();
  const Row row{rm, ent, val, dinv, b, xin, xout, lower};
  double rr = 0;
  if (residual) {
    Kokkos::parallel_reduce("AsyncSparse::trisolve::jacobi_sweep_residual", Impl::RangePolicy<ExecSpace>(exec, 0, n),
                            row, rr);
  } else if (rows != SweepRows::Lanes) {
    Impl::launch_rows<ExecSpace>("AsyncSparse::trisolve::jacobi_sweep_rows", n, rows == SweepRows::Thread256, row);
  } else {
    using F = JacobiSweep<ExecSpace, RowMap, Entries, Values, B, XIn, XOut, First>;
    const F f{rm, ent, val, dinv, b, xin, xout, n, launch.chunk_size, lower};
    Kokkos::parallel_for(
        "AsyncSparse::trisolve::jacobi_sweep",
        Impl::TeamPolicy<ExecSpace>(exec, static_cast<int>(launch.num_chunks), launch.team_size, launch.vector_length),
        f);
  }
  return rr;
}

/// Both triangles' Jacobi solves of z = U^{-1} L^{-1} b in one launch of one team (FactorApply on small triangles:
/// TriSolveOptions::one_team_entries). The sweeps are those of TriangularSolver::jacobi_solve, in the same order and
/// into the same vectors (sweep s of k writes x when k - s is even, the solver's work vector otherwise; the first
/// forms x_0 = D^{-1} b on the fly), one thread (or vector lane) per row with its sum in row order; the team's barrier
/// separates the sweeps, and the lower solve from the upper one. `solve` is also one application of M⁻¹ inside a GMRES
/// cycle run in one team (Impl::JacobiPairTeamApply), whose team has vector lanes; there each triangle's long rows
/// (Tri::long_rows, Impl::team_long_rows: a dense row's hundred entries would hold up every sweep on one thread) take
/// a thread's lanes each, summed in the lanes' order. With `dot`, the last sweep of U also sums d·z into `out` (such
/// an application, FactorApply's, lists no long rows and sweeps every row by a thread). On a GPU the whole application
/// is one kernel on one multiprocessor instead of a launch per sweep: for small triangles the sweeps are too short to
/// fill the device, and each launch costs more than the sweep (perf_tests/results/MEASUREMENTS.md#tri-solve-one-team).
template <class ExecSpace, class RowMap, class Entries, class Values, class Vec, class CVec, class Out>
struct JacobiPairOneTeam {
  using Scalar = typename Vec::non_const_value_type;
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  struct Tri {
    RowMap rm;
    Entries ent;
    Values val, dinv;
    Vec work;
    int sweeps = 0;
    bool lower = true;
    Kokkos::View<int*, typename Vec::device_type> long_rows;  ///< Impl::team_long_rows of the triangle; empty: none
  };
  Tri L, U;
  CVec b, d;
  Vec w, z;
  Out out;
  ordinal_t n = 0;
  bool dot = false;

  template <class BV, class XIn>
  KOKKOS_INLINE_FUNCTION Scalar x_in(const Tri& T, const BV& bv, const XIn& xin, bool first, ordinal_t j) const {
    return first ? T.dinv(j) * bv(j) : xin(j);
  }
  // row i of a sweep: D^{-1} (b - N x_in) over its off-diagonal entries
  template <class BV, class XIn>
  KOKKOS_INLINE_FUNCTION Scalar row_value(const Tri& T, const BV& bv, const XIn& xin, bool first, ordinal_t i) const {
    offset_t beg, end;
    off_diagonal_range(T.rm, i, T.lower, beg, end);
    Scalar s = 0;
    for (offset_t k = beg; k < end; ++k) s += T.val(k) * x_in(T, bv, xin, first, T.ent(k));
    return T.dinv(i) * (bv(i) - s);
  }
  KOKKOS_INLINE_FUNCTION bool is_long(const Tri& T, ordinal_t i) const {
    offset_t beg, end;
    off_diagonal_range(T.rm, i, T.lower, beg, end);
    return team_long_row_length(end - beg);
  }
  // the k sweeps on T with right-hand side bv into x; returns d·x summed in the last sweep when `with_dot`
  template <class BV>
  KOKKOS_INLINE_FUNCTION double solve(const member_type& m, const Tri& T, const BV& bv, const Vec& x,
                                      bool with_dot) const {
    const int k = T.sweeps;
    const int longs = with_dot ? 0 : team_long_row_count(T.long_rows);  // a dot-fusing solve: every row by a thread
    Vec cur = x;  // the previous sweep's output (not read by the first sweep)
    double sum = 0;
    for (int s = 1; s <= k; ++s) {
      const Vec xout = (k - s) % 2 == 0 ? x : T.work;
      const bool first = s == 1;
      if (with_dot && s == k) {
        Kokkos::parallel_reduce(
            Kokkos::TeamVectorRange(m, n),
            [&](const ordinal_t i, double& acc) {
              const Scalar xi = row_value(T, bv, cur, first, i);
              xout(i) = xi;
              acc += static_cast<double>(d(i)) * static_cast<double>(xi);
            },
            sum);
      } else {
        Kokkos::parallel_for(Kokkos::TeamVectorRange(m, n), [&](const ordinal_t i) {
          if (longs == 0 || !is_long(T, i)) xout(i) = row_value(T, bv, cur, first, i);
        });
        team_long_rows_pass<Scalar>(
            m, T.long_rows, longs,
            [&](const ordinal_t i, offset_t& beg, offset_t& end) { off_diagonal_range(T.rm, i, T.lower, beg, end); },
            [&](const offset_t j) { return T.val(j) * x_in(T, bv, cur, first, T.ent(j)); },
            [&](const ordinal_t i, const Scalar sum_i) { xout(i) = T.dinv(i) * (bv(i) - sum_i); });
      }
      m.team_barrier();
      cur = xout;
    }
    return sum;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    solve(m, L, b, w, false);
    const double sum = solve(m, U, CVec(w), z, dot);
    if (dot) Kokkos::single(Kokkos::PerTeam(m), [&]() { out() = sum; });
  }
};

/// One sweep of the auto rule's Jacobi probe on T x = 1 (see jacobi_probe): x_out = D^{-1} (1 - N x_in), with
/// x_in = D^{-1} 1 formed on the fly when First. D = I for a unit-diagonal solve.
template <class RowMap, class Entries, class Values, class X, bool First>
struct JacobiProbeSweep {
  using Scalar = typename X::non_const_value_type;
  RowMap rm;
  Entries ent;
  Values val;
  X xin, xout;
  ordinal_t n;
  bool lower, unit;
  // The probe runs before the solver's structure checks: an empty row reads as a zero diagonal and a column out of
  // range is skipped (the result is then NaN or meaningless, and the checks that follow report the matrix).
  KOKKOS_INLINE_FUNCTION Scalar diag(ordinal_t i) const {
    if (unit) return Scalar(1);
    return rm(i + 1) > rm(i) ? val(lower ? rm(i + 1) - 1 : rm(i)) : Scalar(0);
  }
  KOKKOS_INLINE_FUNCTION Scalar x_in(ordinal_t j) const { return First ? Scalar(1) / diag(j) : xin(j); }
  KOKKOS_INLINE_FUNCTION Scalar off_sum(ordinal_t i) const {
    offset_t beg, end;
    off_diagonal_range(rm, i, lower, beg, end);
    Scalar s = 0;
    for (offset_t k = beg; k < end; ++k) {
      const ordinal_t j = ent(k);
      if (j >= 0 && j < n) s += val(k) * x_in(j);
    }
    return s;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const { xout(i) = (Scalar(1) - off_sum(i)) / diag(i); }
};

/// ||1 - T x_in||_2^2 for a JacobiProbeSweep's x_in (a functor of its own: Kokkos 3.4's host backends cannot tell a
/// reduction's operator from an overloaded one).
template <class Sweep>
struct JacobiProbeResidual {
  using value_type = double;
  Sweep sweep;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, double& rr) const {
    const double r = static_cast<double>(1 - sweep.off_sum(i) - sweep.diag(i) * sweep.x_in(i));
    rr += r * r;
  }
};

/// The Jacobi probe of the auto rule (choose_tri_solve): ||1 - T x_k||_2 / ||1||_2 after k Jacobi sweeps on T x = 1
/// from x_0 = D^{-1} 1, on T's stored values (unit: D = I). k + 1 kernels and one device-to-host transfer; NaN when
/// T has a zero or non-finite diagonal. `scratch`: memory for the two iterates when it holds 2 n entries.
template <class ExecSpace, class RowMap, class Entries, class Values>
double jacobi_probe(
    const RowMap& rm, const Entries& ent, const Values& val, ordinal_t n, bool lower, bool unit, int sweeps,
    const Kokkos::View<typename Values::non_const_value_type*, typename Values::device_type>& scratch = {}) {
  using Scalar = typename Values::non_const_value_type;
  using X = Kokkos::View<Scalar*, typename Values::device_type>;
  if (n == 0) return 0.0;
  // the two iterates: in `scratch` when it holds them, else from one allocation
  const auto nn = static_cast<std::size_t>(n);
  const auto ab = scratch.extent(0) >= 2 * nn
                      ? std::make_pair(X(Kokkos::subview(scratch, std::make_pair(std::size_t(0), nn))),
                                       X(Kokkos::subview(scratch, std::make_pair(nn, 2 * nn))))
                      : uninitialized_pair<X>("AsyncSparse::trisolve::probe", nn);
  const X a = ab.first, b = ab.second;
  const Impl::RangePolicy<ExecSpace> policy(0, n);
  double rr = 0;
  if (sweeps == 0) {
    using First = JacobiProbeSweep<RowMap, Entries, Values, X, true>;
    Kokkos::parallel_reduce("AsyncSparse::trisolve::jacobi_probe_residual", policy,
                            JacobiProbeResidual<First>{First{rm, ent, val, a, a, n, lower, unit}}, rr);
    return std::sqrt(rr / static_cast<double>(n));
  }
  Kokkos::parallel_for("AsyncSparse::trisolve::jacobi_probe", policy,
                       JacobiProbeSweep<RowMap, Entries, Values, X, true>{rm, ent, val, a, a, n, lower, unit});
  X cur = a, next = b;
  for (int k = 2; k <= sweeps; ++k, std::swap(cur, next))
    Kokkos::parallel_for("AsyncSparse::trisolve::jacobi_probe", policy,
                         JacobiProbeSweep<RowMap, Entries, Values, X, false>{rm, ent, val, cur, next, n, lower, unit});
  using Next = JacobiProbeSweep<RowMap, Entries, Values, X, false>;
  Kokkos::parallel_reduce("AsyncSparse::trisolve::jacobi_probe_residual", policy,
                          JacobiProbeResidual<Next>{Next{rm, ent, val, cur, next, n, lower, unit}}, rr);
  return std::sqrt(rr / static_cast<double>(n));
}

/// r = b - T x, one thread per row (the residual of the ISAI correction steps).
template <class ExecSpace, class RowMap, class Entries, class Values, class B, class X, class R>
void tri_residual(const RowMap& rm, const Entries& ent, const Values& val, ordinal_t n, const B& b, const X& x,
                  const R& r) {
  using Scalar = typename R::non_const_value_type;
  Kokkos::parallel_for(
      "AsyncSparse::trisolve::residual", Impl::RangePolicy<ExecSpace>(Impl::launch_instance<ExecSpace>(), 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        Scalar s = b(i);
        for (offset_t k = rm(i); k < rm(i + 1); ++k) s -= val(k) * x(ent(k));
        r(i) = s;
      });
}

/// Most entries a row of the pattern may hold for isai_pattern_power to extend it (the merge keeps a cursor per
/// entry); a longer row keeps its pattern.
constexpr int kIsaiPowerMaxRowEntries = 64;

/// Row i of isai_pattern_power's product: the union of the rows j of T (rm, ent) for j in row i of P (prm, pent),
/// walked in increasing column order with a cursor per row; a row of P of more than kIsaiPowerMaxRowEntries entries
/// is copied as it is. Writes the columns from out(first) on when `out` is not empty. Returns their count.
template <class RowMap, class Entries, class Ordinals>
struct IsaiPatternMerge {
  RowMap rm;
  Entries ent;
  RowMap prm;
  Entries pent;
  KOKKOS_INLINE_FUNCTION offset_t operator()(const ordinal_t i, const Ordinals& out, const offset_t first) const {
    const offset_t pb = prm(i), pe = prm(i + 1);
    if (pe - pb > kIsaiPowerMaxRowEntries) {  // too long to extend: its own pattern (ISAI is valid on any)
      if (out.extent(0) > 0)
        for (offset_t p = pb; p < pe; ++p) out(first + (p - pb)) = pent(p);
      return pe - pb;
    }
    offset_t cur[kIsaiPowerMaxRowEntries], last[kIsaiPowerMaxRowEntries];
    const int m = static_cast<int>(pe - pb);
    for (int q = 0; q < m; ++q) {
      const ordinal_t j = pent(pb + q);
      cur[q] = rm(j);
      last[q] = rm(j + 1);
    }
    offset_t count = 0;
    while (true) {
      ordinal_t c = -1;
      for (int q = 0; q < m; ++q)
        if (cur[q] < last[q] && (c < 0 || ent(cur[q]) < c)) c = ent(cur[q]);
      if (c < 0) return count;
      for (int q = 0; q < m; ++q)
        if (cur[q] < last[q] && ent(cur[q]) == c) ++cur[q];
      if (out.extent(0) > 0) out(first + count) = c;
      ++count;
    }
  }
};

/// The pattern of |T| |P| (row i: the union of the rows j of T for j in row i of P, sorted; rows of P longer than
/// kIsaiPowerMaxRowEntries kept as they are), for a triangle T (rm, ent) and a pattern P (prm, pent) of the same
/// triangle that holds T's pattern. Two passes, one thread per row (count, then fill after a scan). Throws
/// InvalidInput when the pattern has more entries than the offset type holds.
template <class ExecSpace, class RowMap, class Entries>
std::pair<typename RowMap::non_const_type, typename Entries::non_const_type> isai_pattern_power(
    const RowMap& rm, const Entries& ent, const RowMap& prm, const Entries& pent, ordinal_t n) {
  using Offsets = typename RowMap::non_const_type;
  using Ordinals = typename Entries::non_const_type;
  const auto out_rm =
      cached_uninitialized<Offsets>("AsyncSparse::trisolve::isai_row_map", static_cast<std::size_t>(n) + 1);
  const IsaiPatternMerge<RowMap, Entries, Ordinals> merge{rm, ent, prm, pent};
  // the counts, and their total in 64 bits (|T|^k can outgrow the offset type where T fits)
  std::int64_t total = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::trisolve::isai_pattern_count", Impl::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const ordinal_t i, std::int64_t& acc) {
        const offset_t c = merge(i, Ordinals(), 0);  // counts only
        out_rm(i + 1) = c;
        acc += static_cast<std::int64_t>(c);
      },
      total);
  if (total > static_cast<std::int64_t>(std::numeric_limits<offset_t>::max()))
    throw InvalidInput("TriangularSolver::setup: the ISAI pattern of isai_power > 1 has " + std::to_string(total) +
                       " entries, more than the offset type holds (" +
                       std::to_string(std::numeric_limits<offset_t>::max()) + "); use isai_power 1");
  Kokkos::parallel_scan(
      "AsyncSparse::trisolve::isai_pattern_scan", Impl::RangePolicy<ExecSpace>(0, n + 1),
      KOKKOS_LAMBDA(const ordinal_t i, offset_t& acc, const bool final) {
        const offset_t c = i == 0 ? 0 : out_rm(i);
        acc += c;
        if (final) out_rm(i) = acc;
      });
  const auto out_ent =
      cached_uninitialized<Ordinals>("AsyncSparse::trisolve::isai_entries", static_cast<std::size_t>(total));
  Kokkos::parallel_for(
      "AsyncSparse::trisolve::isai_pattern_fill", Impl::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const ordinal_t i) { merge(i, out_ent, out_rm(i)); });
  return {out_rm, out_ent};
}

/// ISAI of a triangle T (values `val`, inverse diagonal `dinv`) on T's own pattern (or on M's, below): for every row i,
/// with J the sorted columns of row i of T, the row M(i, J) solves M(i, J) T(J, J) = e_i^T restricted to J (Anzt,
/// Huckle, Bräckle & Dongarra 2018), i.e. the triangular system T(J, J)^T m = e_i: upper triangular with its unknown
/// for column i last when T is lower (back substitution), lower triangular with i first when T is upper (forward
/// substitution). The substitution runs by columns of T(J, J)^T, i.e. by rows of T: once m_q (column J_q) is
/// known, the entries of row J_q of T that fall in J are merged against J and m_q times each is subtracted from
/// the right-hand side still to be solved. The partial sums live in M's own values, so no dense block is formed
/// and rows of any length are handled; the work of row i is the sum over q of |row J_q of T| + |J|.
/// With M's pattern given (mrm, ment: a pattern of the same triangle holding T's, e.g. isai_pattern_power's), J is
/// the row of that pattern instead (the ISAI on an extended pattern; the merges then run against M's columns).
/// A row with a non-finite result is reported into the verdict word `word` (key tri_isai_key). Host backends: one
/// thread per row, no wait. GPUs: isai_compute_lanes (a row per group of lanes), which calls this only for rows
/// longer than it stages in team scratch.
template <class RowMap, class Entries, class Values, class Scalar>
KOKKOS_INLINE_FUNCTION bool isai_row(const RowMap& rm, const Entries& ent, const Values& val, const Values& dinv,
                                     bool lower, const RowMap& mrm, const Entries& ment, ordinal_t i, Scalar* w) {
  const offset_t beg = mrm(i), end = mrm(i + 1);
  const offset_t len = end - beg;
  for (offset_t p = 0; p < len; ++p) w[p] = Scalar(0);
  w[lower ? len - 1 : 0] = Scalar(1);
  bool finite = true;
  for (offset_t step = 0; step < len; ++step) {
    const offset_t q = lower ? end - 1 - step : beg + step;  // position of the unknown solved now
    const ordinal_t jq = ment(q);
    const Scalar mq = w[q - beg] * dinv(jq);
    w[q - beg] = mq;
    finite = finite && is_finite(mq);
    // Merge the off-diagonal entries of row jq of T with the still-unsolved part of J.
    offset_t a, a_end;
    off_diagonal_range(rm, jq, lower, a, a_end);
    offset_t p = lower ? beg : q + 1;
    const offset_t p_end = lower ? q : end;
    while (a < a_end && p < p_end) {
      const ordinal_t ca = ent(a), cp = ment(p);
      if (ca == cp) {
        w[p - beg] -= val(a) * mq;
        ++a;
        ++p;
      } else if (ca < cp) {
        ++a;
      } else {
        ++p;
      }
    }
  }
  return finite;
}

/// Threads per team of the GPU form of isai_compute (rows per team = this / lanes), the longest row of M it stages
/// in team scratch (longer rows: isai_row on one lane, their partial sums in M's values) and its scratch per team.
constexpr int kIsaiTeamThreads = 128;
constexpr int kIsaiScratchEntries = 64;
constexpr std::size_t kIsaiScratchBytes = 24576;

/// Lanes per row of the GPU form of isai_compute, for a triangle of n rows with `avg_off` off-diagonal entries per
/// row on average on a device that runs `concurrency` threads at once: row_lanes(avg_off) (the largest power of two
/// up to avg_off / 2: each lane takes two or more of a step's entries), raised until the rows' lanes fill half the
/// device (small triangles: more rows in flight), at most 32. Measured on an H200
/// (MEASUREMENTS.md#isai-set-up-on-gpus).
inline int isai_lanes(ordinal_t n, double avg_off, std::int64_t concurrency) {
  int v = row_lanes(avg_off);
  while (v < 32 && 2 * static_cast<std::int64_t>(n) * v < concurrency) v *= 2;
  return v;
}

/// The GPU form of isai_compute: a row per group of `lanes` vector lanes. The row's columns J, their inverse
/// diagonals and the off-diagonal ranges of the rows J of T are staged in team scratch first (loads for every
/// position in flight at once), with the partial sums; each step of the substitution (one unknown m_q) then runs
/// the off-diagonal entries of row J_q of T across the lanes (coalesced reads), each lane finding its column in J by
/// bisection and updating that partial sum (distinct columns: no two lanes update one sum), a team barrier between
/// steps. The team's rows take as many steps as its longest staged row. Staged: rows of up to twice M's average
/// length (a power of two, 8 to kIsaiScratchEntries) as far as kIsaiScratchBytes allow; longer rows run isai_row on
/// one lane, their partial sums in M's values. One thread per row instead (the partial sums in team scratch, 64 rows
/// of 32 entries per team) took twice as long for L3D's triangles and nine times for bcsstk16's on an H200.
template <class ExecSpace, class RowMap, class Entries, class Values, class MValues>
void isai_compute_lanes(const RowMap& rm, const Entries& ent, const Values& val, const Values& dinv, ordinal_t n,
                        bool lower, const MValues& mv, verdict_t* word, const RowMap& mrm, const Entries& ment,
                        int lanes) {
  using Scalar = typename MValues::non_const_value_type;
  using Policy = TeamPolicy<ExecSpace>;
  using Space = typename ExecSpace::scratch_memory_space;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using SharedValues = Kokkos::View<Scalar*, Space, Unmanaged>;
  using SharedColumns = Kokkos::View<ordinal_t*, Space, Unmanaged>;
  using SharedOffsets = Kokkos::View<offset_t*, Space, Unmanaged>;
  const std::int64_t key0 = tri_isai_key(n, 0);
  const int rows = std::max(1, kIsaiTeamThreads / lanes);
  constexpr std::size_t per_entry = 2 * sizeof(Scalar) + 2 * sizeof(ordinal_t) + sizeof(offset_t);
  // staged: rows up to twice M's average (a power of two, 8 to kIsaiScratchEntries), within the team's scratch
  const double avg_m = n > 0 ? static_cast<double>(ment.extent(0)) / static_cast<double>(n) : 1.0;
  int want = 8;
  while (want < kIsaiScratchEntries && want < 2.0 * avg_m) want *= 2;
  const int cap =
      static_cast<int>(std::min<std::size_t>(want, kIsaiScratchBytes / (static_cast<std::size_t>(rows) * per_entry)));
  const int league = static_cast<int>((static_cast<std::int64_t>(n) + rows - 1) / rows);
  if (league == 0) return;
  const int all = rows * cap;
  const std::size_t bytes =
      2 * SharedValues::shmem_size(all) + 2 * SharedColumns::shmem_size(all) + SharedOffsets::shmem_size(all);
  Kokkos::parallel_for(
      "AsyncSparse::trisolve::isai", Policy(league, rows, lanes).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const typename Policy::member_type& m) {
        const SharedValues w_all(m.team_scratch(0), all), d_all(m.team_scratch(0), all);
        const SharedColumns J_all(m.team_scratch(0), all), C_all(m.team_scratch(0), all);
        const SharedOffsets A_all(m.team_scratch(0), all);
        const std::int64_t first = static_cast<std::int64_t>(m.league_rank()) * rows;
        const int t = m.team_rank();
        const bool live = first + t < n;
        const auto i = static_cast<ordinal_t>(live ? first + t : 0);
        const offset_t beg = live ? mrm(i) : 0;
        const int len = live ? static_cast<int>(mrm(i + 1) - beg) : 0;
        const int steps = len <= cap ? len : 0;  // staged rows
        Scalar* const w = w_all.data() + t * cap;
        Scalar* const d = d_all.data() + t * cap;  // inverse diagonals of the rows J
        ordinal_t* const J = J_all.data() + t * cap;
        ordinal_t* const C = C_all.data() + t * cap;  // off-diagonal entries of the rows J
        offset_t* const A = A_all.data() + t * cap;   // where they start
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, steps), [&](const int p) {
          const ordinal_t j = ment(beg + p);
          offset_t a0, a1;
          off_diagonal_range(rm, j, lower, a0, a1);
          w[p] = p == (lower ? steps - 1 : 0) ? Scalar(1) : Scalar(0);
          J[p] = j;
          d[p] = dinv(j);
          A[p] = a0;
          C[p] = static_cast<ordinal_t>(a1 - a0);
        });
        int team_steps = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, rows),
            [&](const int r, int& mx) {
              if (first + r < n) {
                const auto k = static_cast<int>(mrm(first + r + 1) - mrm(first + r));
                if (k <= cap && k > mx) mx = k;
              }
            },
            Kokkos::Max<int>(team_steps));
        m.team_barrier();
        bool finite = true;
        for (int s = 0; s < team_steps; ++s) {
          if (s < steps) {
            const int q = lower ? steps - 1 - s : s;  // position of the unknown solved now
            const Scalar mq = w[q] * d[q];
            finite = finite && is_finite(mq);
            Kokkos::single(Kokkos::PerThread(m), [&]() { mv(beg + q) = mq; });
            const offset_t a0 = A[q];
            const int lo = lower ? 0 : q + 1, hi = lower ? q : steps;
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, static_cast<int>(C[q])), [&](const int k) {
              const ordinal_t c = ent(a0 + k);
              const Scalar v = val(a0 + k);
              int a = lo, b = hi;  // the first position in [lo, hi) whose column is not below c
              while (a < b) {
                const int mid = (a + b) / 2;
                if (J[mid] < c)
                  a = mid + 1;
                else
                  b = mid;
              }
              if (a < hi && J[a] == c) w[a] -= v * mq;
            });
          }
          m.team_barrier();
        }
        Kokkos::single(Kokkos::PerThread(m), [&]() {
          if (live && steps == 0 && len > 0)
            finite = isai_row(rm, ent, val, dinv, lower, mrm, ment, i, mv.data() + beg);
          if (!finite) report_verdict(word, verdict_t(key0 + i));
        });
      });
}

template <class ExecSpace, class RowMap, class Entries, class Values, class MValues>
void isai_compute(const RowMap& rm, const Entries& ent, const Values& val, const Values& dinv, ordinal_t n, bool lower,
                  const MValues& mv, verdict_t* word, const RowMap& mrm_in = {}, const Entries& ment_in = {}) {
  const std::int64_t key0 = tri_isai_key(n, 0);
  const RowMap mrm = mrm_in.extent(0) > 0 ? mrm_in : rm;
  const Entries ment = mrm_in.extent(0) > 0 ? ment_in : ent;
  if (is_gpu_space<ExecSpace>()) {
    const double avg_off = n > 0 ? static_cast<double>(ent.extent(0)) / static_cast<double>(n) - 1.0 : 0.0;
    const int lanes = isai_lanes(n, avg_off, static_cast<std::int64_t>(ExecSpace().concurrency()));
    isai_compute_lanes<ExecSpace>(rm, ent, val, dinv, n, lower, mv, word, mrm, ment, lanes);
    return;
  }
  Kokkos::parallel_for(
      "AsyncSparse::trisolve::isai", Impl::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        if (!isai_row(rm, ent, val, dinv, lower, mrm, ment, i, mv.data() + mrm(i)))
          report_verdict(word, verdict_t(key0 + i));
      });
}

/// to(k) = from(k) in single precision (an ISAI's values for the product, IsaiPrecision::Single); returns the first k
/// whose value float cannot hold (beyond its range, or not finite: to(k) = 0 there, never a conversion out of range,
/// which C++ leaves undefined), or to.extent(0) when none.
template <class ExecSpace, class From, class To>
std::int64_t to_single(const From& from, const To& to) {
  const auto n = static_cast<std::int64_t>(to.extent(0));
  const double largest = static_cast<double>(std::numeric_limits<float>::max());
  std::int64_t bad = n;  // Kokkos::Min starts from its identity (the largest value), not from this
  Kokkos::parallel_reduce(
      "AsyncSparse::trisolve::isai_single", Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, n),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& first) {
        const double v = static_cast<double>(from(k));
        const bool fits = v >= -largest && v <= largest;  // false for NaN
        to(k) = fits ? static_cast<float>(v) : 0.0f;
        if (!fits && k < first) first = k;
      },
      Kokkos::Min<std::int64_t>(bad));
  return bad < n ? bad : n;
}

}  // namespace Impl
}  // namespace AsyncSparse
