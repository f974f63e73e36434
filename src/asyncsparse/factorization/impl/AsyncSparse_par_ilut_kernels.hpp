// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT kernels (see AsyncSparse_par_ilut.hpp for the algorithm).
//
// Layout (as Ginkgo's par_ilut): L by rows with its diagonal last; for ParILUT U by rows (pattern only,
// diagonal first) and by columns ("Ut": row k of Ut is column k of U, diagonal last), the values of U living in
// Ut only. `umap` maps each U entry to its Ut entry. The sweeps read rows of L and columns of U (Ut), the
// candidate phase needs rows of U (to form the pattern of L·U). ParICT needs only L: both factors of an
// entry's dot product are rows of L; the pattern of L·Lᵀ needs the columns of L, a transposed pattern built
// at the start of each candidate phase.
//
// Every phase except the asynchronous sweep is deterministic: patterns are built by sort + unique, sums over
// an entry's dot product run in increasing k on one lane, reductions whose results steer the algorithm
// (residuals, counts) are either integer or summed in row order on the host in deterministic mode, and
// products use __dmul_rn / __fmul_rn on CUDA so that no fused multiply-add makes the device differ from the
// host (on the host, bit-identity with the device also needs a compiler that does not contract a * b + c, the
// default for x86-64 without -mfma / -march=native).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_chunked_launch.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>  // Impl::sort_pairs
#include <asyncsparse/factorization/AsyncSparse_par_ilut_handle.hpp>
#include <asyncsparse/factorization/AsyncSparse_select.hpp>

namespace AsyncSparse {
namespace Impl {

// ------------------------------------------------------------------------------------------------------------
// Small utilities
// ------------------------------------------------------------------------------------------------------------

/// a * b rounded once (never contracted into an FMA), so host and device sums agree bit for bit.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T ilut_mul(T a, T b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  if constexpr (std::is_same<T, double>::value)
    return __dmul_rn(a, b);
  else
    return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

/// Sorts keys[0, len) ascending: insertion sort for short segments, heap sort for long ones. Device-callable.
template <class Key>
KOKKOS_INLINE_FUNCTION void ilut_sort_keys(Key* keys, std::int64_t len) {
  if (len <= 32) {
    for (std::int64_t a = 1; a < len; ++a) {
      const Key k = keys[a];
      std::int64_t b = a - 1;
      while (b >= 0 && keys[b] > k) {
        keys[b + 1] = keys[b];
        --b;
      }
      keys[b + 1] = k;
    }
    return;
  }
  auto sift = [&](std::int64_t root, std::int64_t end) {
    while (2 * root + 1 < end) {
      std::int64_t child = 2 * root + 1;
      if (child + 1 < end && keys[child] < keys[child + 1]) ++child;
      if (!(keys[root] < keys[child])) return;
      const Key t = keys[root];
      keys[root] = keys[child];
      keys[child] = t;
      root = child;
    }
  };
  for (std::int64_t start = len / 2 - 1; start >= 0; --start) sift(start, len);
  for (std::int64_t end = len - 1; end > 0; --end) {
    const Key t = keys[0];
    keys[0] = keys[end];
    keys[end] = t;
    sift(0, end);
  }
}

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T ilut_abs(T x) {
  return x < T(0) ? -x : x;
}

/// One element of a device View, on the host.
template <class ExecSpace, class View>
typename View::non_const_value_type ilut_read(const ExecSpace& exec, const View& v, std::size_t i) {
  using T = typename View::non_const_value_type;
  T x{};
  Kokkos::View<T, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hx(&x);
  if constexpr (View::rank == 0)
    Kokkos::deep_copy(exec, hx, v);
  else
    Kokkos::deep_copy(exec, hx, Kokkos::subview(v, i));
  exec.fence();
  return x;
}

template <class View>
View ilut_alloc(const char* label, std::size_t n) {
  return View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
}

/// ptr(i) = sum_{r < i} count(r) for i = 0..n; returns ptr(n).
template <class ExecSpace, class Ptr, class Count>
offset_t ilut_scan(const ExecSpace& exec, const Ptr& ptr, const Count& count, ordinal_t n, const char* label) {
  Kokkos::parallel_scan(
      label, Kokkos::RangePolicy<ExecSpace>(exec, 0, n + 1),
      KOKKOS_LAMBDA(const ordinal_t i, offset_t& upd, const bool final) {
        if (final) ptr(i) = upd;
        if (i < n) upd += count(i);
      });
  return ilut_read(exec, ptr, static_cast<std::size_t>(n));
}

/// Sum of v(0..n) in double: in index order on the host when `deterministic`, a parallel reduction otherwise.
template <class ExecSpace, class View>
double ilut_sum(const ExecSpace& exec, const View& v, std::int64_t n, bool deterministic) {
  if (deterministic) {
    std::vector<double> h(static_cast<std::size_t>(n));
    Kokkos::deep_copy(
        exec, Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), h.size()),
        Kokkos::subview(v, std::make_pair(std::int64_t(0), n)));
    exec.fence();
    double s = 0.0;
    for (double x : h) s += x;
    return s;
  }
  double s = 0.0;
  Kokkos::parallel_reduce(
      "AsyncSparse::par_ilut::sum", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, double& acc) { acc += v(i); }, s);
  return s;
}

template <class Handle>
using ilut_factor_t = typename Handle::Factor;

/// Allocate the entry arrays of a factor with `nnz` entries (ptr is allocated by the caller).
template <class Factor>
void ilut_alloc_entries(Factor& F, offset_t nnz, bool values, bool second_buffer) {
  using OV = decltype(F.col);
  using PV = decltype(F.apos);
  using VV = decltype(F.val);
  F.nnz = nnz;
  F.col = ilut_alloc<OV>("AsyncSparse::par_ilut::col", nnz);
  F.row = ilut_alloc<OV>("AsyncSparse::par_ilut::row", nnz);
  F.apos = ilut_alloc<PV>("AsyncSparse::par_ilut::apos", nnz);
  F.val = values ? ilut_alloc<VV>("AsyncSparse::par_ilut::val", nnz) : VV();
  F.val2 = (values && second_buffer) ? ilut_alloc<VV>("AsyncSparse::par_ilut::val2", nnz) : VV();
}

// ------------------------------------------------------------------------------------------------------------
// Input checks
// ------------------------------------------------------------------------------------------------------------

/// Name of the factorization in BreakdownError / DivergenceError messages.
inline const char* par_ilut_name(ParIlutKind kind) { return kind == ParIlutKind::Ict ? "par_ict" : "par_ilut"; }
template <class Handle>
const char* par_ilut_name(const Handle& h) {
  return par_ilut_name(h.state().kind);
}

/// Validates A on the device: square, non-empty, sorted unique columns in range, stored diagonal; ParICT also a
/// symmetric pattern. With `values` also finite values; ParICT symmetric values (|a_ij - a_ji| <= 1e-12
/// max(|a_ij|, |a_ji|)) and a positive diagonal; ParILUT a non-zero diagonal. Problems are InvalidInput naming
/// `where`, an unusable pivot a BreakdownError naming `method`.
template <class ExecSpace, class Scalar, class Device>
void ilut_check_matrix(const ExecSpace& exec, const Crs<Scalar, Device>& A, bool symmetric, bool values,
                       const std::string& where, const std::string& method) {
  const ordinal_t n = A.numRows();
  if (n != A.numCols())
    throw InvalidInput(where + ": matrix must be square, got " + std::to_string(n) + " x " +
                       std::to_string(A.numCols()));
  if (n == 0) throw InvalidInput(where + ": matrix is empty (0 rows)");
  auto rm = A.graph.row_map;
  auto ent = A.graph.entries;
  auto val = A.values;
  std::int64_t bad = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce(
      "AsyncSparse::par_ilut::check", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, std::int64_t& b) {
        int code = 0;
        bool diag = false;
        Scalar d = 0;
        for (offset_t k = rm(i); k < rm(i + 1); ++k) {
          const ordinal_t j = ent(k);
          if (j < 0 || j >= n || (k > rm(i) && ent(k - 1) >= j)) {
            code = 1;
            break;
          }
          if (values && !is_finite(val(k))) code = code ? code : 3;
          if (j == i) {
            diag = true;
            d = val(k);
          }
          if (symmetric && code == 0 && j != i) {  // find (j, i)
            offset_t lo = rm(j), hi = rm(j + 1);
            while (lo < hi) {
              const offset_t mid = lo + (hi - lo) / 2;
              if (ent(mid) < i)
                lo = mid + 1;
              else
                hi = mid;
            }
            const Scalar x = val(k);
            const Scalar y = (lo < rm(j + 1) && ent(lo) == i) ? val(lo) : Scalar(0);
            const Scalar ax = ilut_abs(x), ay = ilut_abs(y);
            if (lo >= rm(j + 1) || ent(lo) != i || (values && ilut_abs(x - y) > Scalar(1e-12) * (ax > ay ? ax : ay)))
              code = 4;
          }
        }
        if (code == 0 && !diag) code = 2;
        if (values && code == 0 && (symmetric ? !(d > Scalar(0)) : d == Scalar(0))) code = 5;
        if (code) {
          const std::int64_t key = 8 * static_cast<std::int64_t>(i) + code;
          if (key < b) b = key;
        }
      },
      Kokkos::Min<std::int64_t>(bad));
  if (bad == std::numeric_limits<std::int64_t>::max()) return;
  const std::int64_t row = bad / 8;
  switch (static_cast<int>(bad % 8)) {
    case 1:
      throw InvalidInput(where + ": row " + std::to_string(row) +
                         ": column indices not sorted, duplicated or out of range");
    case 2:
      throw InvalidInput(where + ": row " + std::to_string(row) + " has no diagonal entry");
    case 3:
      throw InvalidInput(where + ": row " + std::to_string(row) + " has a non-finite value (NaN or Inf)");
    case 4:
      throw InvalidInput(where + ": matrix is not symmetric (row " + std::to_string(row) +
                         " has an entry without a matching transposed entry)");
    default:
      throw BreakdownError(method, row, symmetric ? "non-positive diagonal entry (pivot)" : "zero pivot a_ii = 0");
  }
}

// ------------------------------------------------------------------------------------------------------------
// Transpose of a factor pattern (sorted rows; deterministic), with the map back to the source entries
// ------------------------------------------------------------------------------------------------------------

/// T = Fᵀ (pattern; T.row(p) = row of T = column of F), src(p) = F entry of T entry p. T.ptr is allocated here.
template <class ExecSpace, class Factor, class Src>
void ilut_transpose(const ExecSpace& exec, ordinal_t n, const Factor& F, Factor& T, Src& src) {
  using PV = decltype(F.ptr);
  const offset_t nnz = F.nnz;
  T.ptr = PV("AsyncSparse::par_ilut::transpose_ptr", static_cast<std::size_t>(n) + 1);
  ilut_alloc_entries(T, nnz, false, false);
  src = ilut_alloc<Src>("AsyncSparse::par_ilut::transpose_src", nnz);
  auto tp = T.ptr;
  auto tcol = T.col;
  auto trow = T.row;
  auto fcol = F.col;
  auto fptr = F.ptr;
  auto s = src;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::transpose_count", Kokkos::RangePolicy<ExecSpace>(exec, 0, nnz),
      KOKKOS_LAMBDA(const offset_t q) { Kokkos::atomic_add(&tp(fcol(q) + 1), offset_t(1)); });
  Kokkos::parallel_scan(
      "AsyncSparse::par_ilut::transpose_scan", Kokkos::RangePolicy<ExecSpace>(exec, 0, n + 1),
      KOKKOS_LAMBDA(const ordinal_t j, offset_t& sum, const bool final) {
        sum += tp(j);
        if (final) tp(j) = sum;
      });
  PV next = ilut_alloc<PV>("AsyncSparse::par_ilut::transpose_next", n);
  Kokkos::deep_copy(exec, next, Kokkos::subview(tp, std::make_pair(std::size_t(0), static_cast<std::size_t>(n))));
  // Positions inside a row of T are taken with atomics (arbitrary order); the sort below makes the result
  // independent of that order (the entries of a row of T are distinct).
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::transpose_scatter", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        for (offset_t q = fptr(i); q < fptr(i + 1); ++q) {
          const ordinal_t c = fcol(q);
          const offset_t p = Kokkos::atomic_fetch_add(&next(c), offset_t(1));
          tcol(p) = i;
          trow(p) = c;
          s(p) = q;
        }
      });
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::transpose_sort", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t c) {
        const offset_t b = tp(c), e = tp(c + 1);
        sort_pairs(&tcol(b), &s(b), static_cast<std::int64_t>(e - b));
      });
}

/// ParILUT: Ut from U (pattern) and the U values `uval` (in U order); fills umap. Deterministic-mode second
/// buffer when `second`.
template <class ExecSpace, class Handle, class UVal>
void ilut_build_ut(const ExecSpace& exec, Handle& h, const UVal& uval, bool second) {
  auto& st = h.state();
  using Factor = ilut_factor_t<Handle>;
  using PV = typename Handle::offset_view;
  using VV = typename Handle::value_view;
  Factor T;
  PV src;
  ilut_transpose(exec, st.n, st.U, T, src);
  T.val = ilut_alloc<VV>("AsyncSparse::par_ilut::ut_val", T.nnz);
  if (second) T.val2 = ilut_alloc<VV>("AsyncSparse::par_ilut::ut_val2", T.nnz);
  PV umap = ilut_alloc<PV>("AsyncSparse::par_ilut::umap", st.U.nnz);
  auto tval = T.val;
  auto tval2 = T.val2;
  auto tapos = T.apos;
  auto uapos = st.U.apos;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::ut_values", Kokkos::RangePolicy<ExecSpace>(exec, 0, T.nnz),
      KOKKOS_LAMBDA(const offset_t p) {
        const offset_t q = src(p);
        umap(q) = p;
        tval(p) = uval(q);
        if (second) tval2(p) = uval(q);
        tapos(p) = uapos(q);
      });
  st.Ut = T;
  st.umap = umap;
}

// ------------------------------------------------------------------------------------------------------------
// Task list (ParILUT): per row, the strict entries of L, then the entries of U (row-major / Gaussian
// elimination order). Task t < nnz_L is L entry t, otherwise U entry t - nnz_L.
// ------------------------------------------------------------------------------------------------------------

template <class ExecSpace, class Handle>
void ilut_build_tasks(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  using PV = typename Handle::offset_view;
  const ordinal_t n = st.n;
  const offset_t nnzL = st.L.nnz, ntasks = st.L.nnz - n + st.U.nnz;
  PV tasks = ilut_alloc<PV>("AsyncSparse::par_ilut::tasks", ntasks);
  auto lp = st.L.ptr;
  auto up = st.U.ptr;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::tasks", Kokkos::RangePolicy<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        offset_t t = (lp(i) - i) + up(i);
        for (offset_t q = lp(i); q < lp(i + 1) - 1; ++q) tasks(t++) = q;
        for (offset_t q = up(i); q < up(i + 1); ++q) tasks(t++) = nnzL + q;
      });
  st.tasks = tasks;
}

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

/// sum_{k < bound} X(i, k) Y(j, k) over the sorted rows [xb, xe) of X and [yb, ye) of Y, increasing k, one lane.
template <class Cols, class Vals>
KOKKOS_INLINE_FUNCTION typename Vals::non_const_value_type ilut_merge_dot(const Cols& xcol, const Vals& xval,
                                                                          offset_t xb, offset_t xe, const Cols& ycol,
                                                                          const Vals& yval, offset_t yb, offset_t ye,
                                                                          ordinal_t bound) {
  using S = typename Vals::non_const_value_type;
  S sum = 0;
  while (xb < xe && yb < ye) {
    const ordinal_t kx = xcol(xb), ky = ycol(yb);
    if (kx >= bound || ky >= bound) break;
    if (kx == ky) {
      sum += ilut_mul(load_relaxed(&xval(xb)), load_relaxed(&yval(yb)));
      ++xb;
      ++yb;
    } else if (kx < ky) {
      ++xb;
    } else {
      ++yb;
    }
  }
  return sum;
}

/// Same sum split over the vector lanes of a thread: each lane takes entries of X's row and looks its column
/// up in Y's row (binary search). All lanes return the sum.
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
        offset_t lo = yb, hi = ye;
        while (lo < hi) {
          const offset_t mid = lo + (hi - lo) / 2;
          if (ycol(mid) < k)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo < ye && ycol(lo) == k) acc += ilut_mul(load_relaxed(&xval(p)), load_relaxed(&yval(lo)));
      },
      sum);
  return sum;
}

template <class ExecSpace, class Scalar, class Device>
struct IlutSweepFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using VV = Kokkos::View<Scalar*, Device>;
  using PV = Kokkos::View<offset_t*, Device>;
  using OV = Kokkos::View<ordinal_t*, Device>;
  VV a;
  PV tasks;
  offset_t nnzL;
  PV lptr, lapos;
  OV lcol, lrow;
  VV lin, lout;
  OV ucol, urow;
  PV uapos, umap;
  PV tptr;
  OV tcol;
  VV tin, tout;
  Kokkos::View<std::int64_t, Device> breakdown;
  int vector_length;
  bool deterministic;

  KOKKOS_INLINE_FUNCTION Scalar dot(const member_type& team, ordinal_t i, ordinal_t j, ordinal_t bound) const {
    if (vector_length == 1)
      return ilut_merge_dot(lcol, lin, lptr(i), lptr(i + 1), tcol, tin, tptr(j), tptr(j + 1), bound);
    return ilut_vector_dot(team, lcol, lin, lptr(i), lptr(i + 1), tcol, tin, tptr(j), tptr(j + 1), bound);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, const std::int64_t t) const {
    const offset_t p = tasks(t);
    if (p < nnzL) {  // l_ij = (a_ij - sum_{k<j} l_ik u_kj) / u_jj
      const ordinal_t i = lrow(p), j = lcol(p);
      const Scalar aij = lapos(p) >= 0 ? a(lapos(p)) : Scalar(0);
      const Scalar s = dot(team, i, j, j);
      const Scalar ujj = load_relaxed(&tin(tptr(j + 1) - 1));
      const Scalar v = (aij - s) / ujj;
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        const bool ok = is_finite(v);
        if (!ok) Kokkos::atomic_fetch_min(&breakdown(), 4 * static_cast<std::int64_t>(i) + 1);
        if (deterministic)
          lout(p) = ok ? v : lin(p);
        else if (ok)
          store_relaxed(&lout(p), v);
      });
    } else {  // u_ij = a_ij - sum_{k<i} l_ik u_kj
      const offset_t q = p - nnzL;
      const ordinal_t i = urow(q), j = ucol(q);
      const Scalar aij = uapos(q) >= 0 ? a(uapos(q)) : Scalar(0);
      const Scalar v = aij - dot(team, i, j, i);
      const offset_t pt = umap(q);
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        const bool ok = is_finite(v);
        if (!ok) Kokkos::atomic_fetch_min(&breakdown(), 4 * static_cast<std::int64_t>(i) + 1);
        if (deterministic)
          tout(pt) = ok ? v : tin(pt);
        else if (ok)
          store_relaxed(&tout(pt), v);
      });
    }
  }
};

template <class ExecSpace, class Scalar, class Device>
struct IctSweepFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using VV = Kokkos::View<Scalar*, Device>;
  using PV = Kokkos::View<offset_t*, Device>;
  using OV = Kokkos::View<ordinal_t*, Device>;
  VV a;
  PV lptr, lapos;
  OV lcol, lrow;
  VV lin, lout;
  Kokkos::View<std::int64_t, Device> breakdown;
  int vector_length;
  bool deterministic;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, const std::int64_t t) const {
    // l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj,  l_ii = sqrt(a_ii - sum_{k<i} l_ik^2)
    using std::sqrt;
    const offset_t p = static_cast<offset_t>(t);
    const ordinal_t i = lrow(p), j = lcol(p);
    const Scalar aij = lapos(p) >= 0 ? a(lapos(p)) : Scalar(0);
    const Scalar s = vector_length == 1
                         ? ilut_merge_dot(lcol, lin, lptr(i), lptr(i + 1), lcol, lin, lptr(j), lptr(j + 1), j)
                         : ilut_vector_dot(team, lcol, lin, lptr(i), lptr(i + 1), lcol, lin, lptr(j), lptr(j + 1), j);
    const Scalar r = aij - s;
    int code = 0;
    Scalar v;
    if (i == j) {
      if (!(r > Scalar(0))) code = 2;
      v = sqrt(r);
    } else {
      v = r / load_relaxed(&lin(lptr(j + 1) - 1));
    }
    if (code == 0 && !is_finite(v)) code = 1;
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      if (code) Kokkos::atomic_fetch_min(&breakdown(), 4 * static_cast<std::int64_t>(i) + code);
      if (deterministic)
        lout(p) = code ? lin(p) : v;
      else if (!code)
        store_relaxed(&lout(p), v);
    });
  }
};

/// One sweep over the current pattern. Resets nothing: the caller resets `breakdown` when it wants the flags
/// of this sweep only.
template <class ExecSpace, class Handle>
void ilut_sweep(const ExecSpace& exec, Handle& h) {
  using Scalar = typename Handle::scalar_type;
  using Device = typename Handle::device_type;
  auto& st = h.state();
  const bool det = h.params.mode == SweepMode::Deterministic;
  const bool ict = st.kind == ParIlutKind::Ict;
  LaunchDefaults d;  // asynchronous sweeps: the generic rules
  d.method = ict ? "par_ict" : "par_ilut";
  if (det) {  // one lane per entry
    d.vector_length = d.max_vector_length = 1;
    d.method += " (deterministic mode)";
  }
  const std::int64_t ntasks = ict ? st.L.nnz : static_cast<std::int64_t>(st.tasks.extent(0));
  const double avg = static_cast<double>(ict ? st.L.nnz : st.L.nnz + st.U.nnz) / static_cast<double>(st.n);
  const ResolvedLaunch r = resolve_launch_config<ExecSpace>(h.launch, ntasks, avg, exec, d);
  h.stats().launch = r;
  ChunkedLaunch<ExecSpace> chunks(r);
  if (ict) {
    IctSweepFunctor<ExecSpace, Scalar, Device> f{
        st.a_val,     st.L.ptr,        st.L.apos, st.L.col, st.L.row, st.L.val, det ? st.L.val2 : st.L.val,
        st.breakdown, r.vector_length, det};
    chunks.run(det ? "AsyncSparse::par_ict::sweep_deterministic" : "AsyncSparse::par_ict::sweep", exec, f);
    if (det) std::swap(st.L.val, st.L.val2);
  } else {
    IlutSweepFunctor<ExecSpace, Scalar, Device> f{st.a_val,
                                                  st.tasks,
                                                  st.L.nnz,
                                                  st.L.ptr,
                                                  st.L.apos,
                                                  st.L.col,
                                                  st.L.row,
                                                  st.L.val,
                                                  det ? st.L.val2 : st.L.val,
                                                  st.U.col,
                                                  st.U.row,
                                                  st.U.apos,
                                                  st.umap,
                                                  st.Ut.ptr,
                                                  st.Ut.col,
                                                  st.Ut.val,
                                                  det ? st.Ut.val2 : st.Ut.val,
                                                  st.breakdown,
                                                  r.vector_length,
                                                  det};
    chunks.run(det ? "AsyncSparse::par_ilut::sweep_deterministic" : "AsyncSparse::par_ilut::sweep", exec, f);
    if (det) {
      std::swap(st.L.val, st.L.val2);
      std::swap(st.Ut.val, st.Ut.val2);
    }
  }
  ++h.stats().sweeps;
}

// ------------------------------------------------------------------------------------------------------------
// Initial guess (step 0): L0 = strict lower part of A_s + I, U0 = upper part (ParICT: L0 = lower part)
// ------------------------------------------------------------------------------------------------------------

/// Symbolic phase: the pattern of the initial guess (State::L0, U0; no values): L0 = strict lower part of A and
/// the diagonal (last in each row), U0 = upper part of A (diagonal first); ParICT: L0 = lower part of A.
template <class ExecSpace, class Handle>
void ilut_initial_pattern(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  using PV = typename Handle::offset_view;
  const bool ict = st.kind == ParIlutKind::Ict;
  const ordinal_t n = st.n;
  auto arm = st.a_row_map;
  auto aent = st.a_entries;
  PV lcount = ilut_alloc<PV>("AsyncSparse::par_ilut::lcount", n),
     ucount = ilut_alloc<PV>("AsyncSparse::par_ilut::ucount", n);
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::initial_count", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        offset_t l = 0;
        for (offset_t k = arm(i); k < arm(i + 1); ++k) l += aent(k) < i ? 1 : 0;
        lcount(i) = l + 1;  // + diagonal
        ucount(i) = (arm(i + 1) - arm(i)) - l;
      });
  st.L0 = typename Handle::Factor();
  st.U0 = typename Handle::Factor();
  st.L0.ptr = ilut_alloc<PV>("AsyncSparse::par_ilut::lptr", static_cast<std::size_t>(n) + 1);
  ilut_alloc_entries(st.L0, ilut_scan(exec, st.L0.ptr, lcount, n, "AsyncSparse::par_ilut::lptr_scan"), false, false);
  if (!ict) {
    st.U0.ptr = ilut_alloc<PV>("AsyncSparse::par_ilut::uptr", static_cast<std::size_t>(n) + 1);
    ilut_alloc_entries(st.U0, ilut_scan(exec, st.U0.ptr, ucount, n, "AsyncSparse::par_ilut::uptr_scan"), false, false);
  }
  auto lp = st.L0.ptr;
  auto lcol = st.L0.col;
  auto lrow = st.L0.row;
  auto lapos = st.L0.apos;
  auto up = st.U0.ptr;
  auto ucol = st.U0.col;
  auto urow = st.U0.row;
  auto uapos = st.U0.apos;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::initial_fill", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        offset_t ql = lp(i), qu = ict ? 0 : up(i);
        for (offset_t k = arm(i); k < arm(i + 1); ++k) {
          const ordinal_t c = aent(k);
          if (c < i || (ict && c == i)) {
            lcol(ql) = c;
            lrow(ql) = i;
            lapos(ql) = k;
            ++ql;
          } else if (!ict) {
            if (c == i) {  // unit diagonal of L (last entry of the row)
              const offset_t d = lp(i + 1) - 1;
              lcol(d) = i;
              lrow(d) = i;
              lapos(d) = k;
            }
            ucol(qu) = c;
            urow(qu) = i;
            uapos(qu) = k;
            ++qu;
          }
        }
      });
}

/// Numeric phase: the initial guess on the pattern of the symbolic phase: L = strict lower part of A_s + I,
/// U = upper part (ParICT: L = lower part), with Ut, umap and the task list.
template <class ExecSpace, class Handle>
void ilut_initial_guess(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  using Scalar = typename Handle::scalar_type;
  using VV = typename Handle::value_view;
  const bool det = h.params.mode == SweepMode::Deterministic;
  const bool ict = st.kind == ParIlutKind::Ict;
  // the pattern Views are shared with L0 / U0: no phase writes a factor's pattern in place
  st.L = st.L0;
  st.U = st.U0;
  st.L.val = ilut_alloc<VV>("AsyncSparse::par_ilut::val", st.L.nnz);
  if (det) st.L.val2 = ilut_alloc<VV>("AsyncSparse::par_ilut::val2", st.L.nnz);
  VV uval;
  if (!ict) uval = ilut_alloc<VV>("AsyncSparse::par_ilut::uval", st.U.nnz);
  auto aval = st.a_val;
  auto lp = st.L.ptr;
  auto lcol = st.L.col;
  auto lapos = st.L.apos;
  auto lval = st.L.val;
  auto lval2 = st.L.val2;
  auto up = st.U.ptr;
  auto uapos = st.U.apos;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::initial_values", Kokkos::RangePolicy<ExecSpace>(exec, 0, st.n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        for (offset_t q = lp(i); q < lp(i + 1); ++q) {
          const Scalar v = (!ict && lcol(q) == i) ? Scalar(1) : aval(lapos(q));
          lval(q) = v;
          if (det) lval2(q) = v;
        }
        if (!ict)
          for (offset_t q = up(i); q < up(i + 1); ++q) uval(q) = aval(uapos(q));
      });
  if (!ict) {
    ilut_build_ut(exec, h, uval, det);
    ilut_build_tasks(exec, h);
  }
}

// ------------------------------------------------------------------------------------------------------------
// Candidate phase: new pattern = pattern(A) ∪ pattern(L·U) (ParICT: lower part of A ∪ L·Lᵀ), values of the new
// entries from the residual, sum of squared residuals of the current factors over that pattern.
// ------------------------------------------------------------------------------------------------------------

/// Output of the candidate phase: the residual of the current factors and the enlarged factors, which replace
/// the handle's only through ilut_commit.
template <class Handle>
struct IlutCandidates {
  double residual2 = 0.0;  ///< ||A_s - L U||_F^2 of the factors before the phase
  offset_t added_L = 0, added_U = 0;
  typename Handle::Factor L, U;      ///< new L (with values) and U (pattern; ParILUT)
  typename Handle::value_view uval;  ///< values of the new U, in U order (ParILUT)
};

/// Sorted, unique pattern rows from gathered column lists: gbuf[ubptr(i), ubptr(i+1)) is sorted and made unique
/// in place; cnt(i) = unique entries, lower(i) = unique entries with column < i.
template <class ExecSpace, class PV, class OV>
void ilut_sort_unique(const ExecSpace& exec, ordinal_t n, const PV& ubptr, const OV& gbuf, const PV& cnt,
                      const PV& lower) {
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::candidates_sort", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        const offset_t b = ubptr(i), e = ubptr(i + 1);
        ilut_sort_keys(&gbuf(b), static_cast<std::int64_t>(e - b));
        offset_t w = b, lo = 0;
        for (offset_t r = b; r < e; ++r) {
          if (r > b && gbuf(r) == gbuf(w - 1)) continue;
          gbuf(w++) = gbuf(r);
          if (gbuf(r) < i) ++lo;
        }
        cnt(i) = w - b;
        lower(i) = lo;
      });
}

template <class ExecSpace, class Handle>
IlutCandidates<Handle> ilut_candidates(const ExecSpace& exec, Handle& h) {
  using Scalar = typename Handle::scalar_type;
  using Factor = ilut_factor_t<Handle>;
  using PV = typename Handle::offset_view;
  using OV = typename Handle::ordinal_view;
  using VV = typename Handle::value_view;
  using DV = Kokkos::View<double*, typename Handle::device_type>;
  auto& st = h.state();
  const bool det = h.params.mode == SweepMode::Deterministic;
  const ordinal_t n = st.n;
  IlutCandidates<Handle> res;
  auto arm = st.a_row_map;
  auto aent = st.a_entries;
  auto aval = st.a_val;
  // old factors
  const Factor L = st.L, U = st.U, Ut = st.Ut;
  auto umap = st.umap;
  auto lp = L.ptr;
  auto lcol = L.col;
  auto lval = L.val;
  auto up = U.ptr;
  auto ucol = U.col;
  auto tp = Ut.ptr;
  auto tcol = Ut.col;
  auto tval = Ut.val;

  // 1. upper bounds of the gathered lists: row i of A and rows k of U for every l_ik (k = i: the unit diagonal)
  PV ub = ilut_alloc<PV>("AsyncSparse::par_ilut::cand_ub", n);
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::candidates_bound", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        offset_t b = arm(i + 1) - arm(i);
        for (offset_t q = lp(i); q < lp(i + 1); ++q) b += up(lcol(q) + 1) - up(lcol(q));
        ub(i) = b;
      });
  PV ubptr = ilut_alloc<PV>("AsyncSparse::par_ilut::cand_ubptr", static_cast<std::size_t>(n) + 1);
  const offset_t total = ilut_scan(exec, ubptr, ub, n, "AsyncSparse::par_ilut::candidates_bound_scan");
  OV gbuf = ilut_alloc<OV>("AsyncSparse::par_ilut::cand_gather", total);
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::candidates_gather", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        offset_t w = ubptr(i);
        for (offset_t k = arm(i); k < arm(i + 1); ++k) gbuf(w++) = aent(k);
        for (offset_t q = lp(i); q < lp(i + 1); ++q) {
          const ordinal_t k = lcol(q);
          for (offset_t r = up(k); r < up(k + 1); ++r) gbuf(w++) = ucol(r);
        }
      });
  // 2. sort + unique per row; counts of the new L (strict + diagonal) and U rows
  PV cnt = ilut_alloc<PV>("AsyncSparse::par_ilut::cand_cnt", n),
     lower = ilut_alloc<PV>("AsyncSparse::par_ilut::cand_lower", n);
  ilut_sort_unique(exec, n, ubptr, gbuf, cnt, lower);
  PV lcnt = ilut_alloc<PV>("AsyncSparse::par_ilut::cand_lcnt", n), ucnt = ub;  // reuse ub for the U counts
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::candidates_counts", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        lcnt(i) = lower(i) + 1;
        ucnt(i) = cnt(i) - lower(i);
      });
  Factor L2, U2;
  L2.ptr = ilut_alloc<PV>("AsyncSparse::par_ilut::lptr", static_cast<std::size_t>(n) + 1);
  U2.ptr = ilut_alloc<PV>("AsyncSparse::par_ilut::uptr", static_cast<std::size_t>(n) + 1);
  ilut_alloc_entries(L2, ilut_scan(exec, L2.ptr, lcnt, n, "AsyncSparse::par_ilut::lptr_scan"), true, det);
  ilut_alloc_entries(U2, ilut_scan(exec, U2.ptr, ucnt, n, "AsyncSparse::par_ilut::uptr_scan"), false, false);
  VV uval2 = ilut_alloc<VV>("AsyncSparse::par_ilut::uval", U2.nnz);
  res.added_L = L2.nnz - L.nnz;
  res.added_U = U2.nnz - U.nnz;
  // 3. new patterns; for each entry its position in A and in the old factors (-1: new)
  PV lold = ilut_alloc<PV>("AsyncSparse::par_ilut::cand_lold", L2.nnz),
     uold = ilut_alloc<PV>("AsyncSparse::par_ilut::cand_uold", U2.nnz);
  {
    auto l2p = L2.ptr;
    auto l2col = L2.col;
    auto l2row = L2.row;
    auto l2apos = L2.apos;
    auto l2val = L2.val;
    auto l2val2 = L2.val2;
    auto u2p = U2.ptr;
    auto u2col = U2.col;
    auto u2row = U2.row;
    auto u2apos = U2.apos;
    Kokkos::parallel_for(
        "AsyncSparse::par_ilut::candidates_fill", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i) {
          const offset_t b = ubptr(i), nl = lower(i), nc = cnt(i);
          offset_t pa = arm(i), pl = lp(i), pu = up(i);
          for (offset_t t = 0; t < nc; ++t) {
            const ordinal_t c = gbuf(b + t);
            while (pa < arm(i + 1) && aent(pa) < c) ++pa;
            const offset_t ap = (pa < arm(i + 1) && aent(pa) == c) ? pa : -1;
            if (t < nl) {
              const offset_t q = l2p(i) + t;
              while (pl < lp(i + 1) && lcol(pl) < c) ++pl;
              l2col(q) = c;
              l2row(q) = i;
              l2apos(q) = ap;
              lold(q) = (pl < lp(i + 1) && lcol(pl) == c) ? pl : -1;
            } else {
              const offset_t q = u2p(i) + (t - nl);
              while (pu < up(i + 1) && ucol(pu) < c) ++pu;
              u2col(q) = c;
              u2row(q) = i;
              u2apos(q) = ap;
              uold(q) = (pu < up(i + 1) && ucol(pu) == c) ? umap(pu) : -1;
              if (c == i) {  // the unit diagonal of L
                const offset_t d = l2p(i + 1) - 1;
                l2col(d) = i;
                l2row(d) = i;
                l2apos(d) = ap;
                lold(d) = lp(i + 1) - 1;
                l2val(d) = 1;
                if (det) l2val2(d) = 1;
              }
            }
          }
        });
  }
  // 4. values and residuals, one entry per thread, from the old factors (read only here)
  const offset_t ntasks = L2.nnz - n + U2.nnz;
  DV r2 = ilut_alloc<DV>("AsyncSparse::par_ilut::cand_r2", ntasks);
  {
    auto l2p = L2.ptr;
    auto l2col = L2.col;
    auto l2apos = L2.apos;
    auto l2val = L2.val;
    auto l2val2 = L2.val2;
    auto u2p = U2.ptr;
    auto u2col = U2.col;
    auto u2apos = U2.apos;
    Kokkos::parallel_for(
        "AsyncSparse::par_ilut::candidates_values", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i) {
          offset_t t = (l2p(i) - i) + u2p(i);
          for (offset_t q = l2p(i); q < l2p(i + 1) - 1; ++q, ++t) {  // strict lower entries
            const ordinal_t c = l2col(q);
            const Scalar a = l2apos(q) >= 0 ? aval(l2apos(q)) : Scalar(0);
            const Scalar s = ilut_merge_dot(lcol, lval, lp(i), lp(i + 1), tcol, tval, tp(c), tp(c + 1), c);
            const Scalar ucc = tval(tp(c + 1) - 1);
            Scalar r, v;
            if (lold(q) >= 0) {
              v = lval(lold(q));
              r = (a - s) - ilut_mul(v, ucc);
            } else {
              r = a - s;
              v = r / ucc;
              if (!is_finite(v)) v = 0;
            }
            l2val(q) = v;
            if (det) l2val2(q) = v;
            r2(t) = static_cast<double>(r) * static_cast<double>(r);
          }
          for (offset_t q = u2p(i); q < u2p(i + 1); ++q, ++t) {
            const ordinal_t c = u2col(q);
            const Scalar a = u2apos(q) >= 0 ? aval(u2apos(q)) : Scalar(0);
            const Scalar s = ilut_merge_dot(lcol, lval, lp(i), lp(i + 1), tcol, tval, tp(c), tp(c + 1), i);
            Scalar r, v;
            if (uold(q) >= 0) {
              v = tval(uold(q));
              r = (a - s) - v;
            } else {
              r = a - s;
              v = is_finite(r) ? r : Scalar(0);
            }
            uval2(q) = v;
            r2(t) = static_cast<double>(r) * static_cast<double>(r);
          }
        });
  }
  // per-row sums in row order, then the total
  DV rowsum = ilut_alloc<DV>("AsyncSparse::par_ilut::cand_rowsum", n);
  {
    auto l2p = L2.ptr;
    auto u2p = U2.ptr;
    Kokkos::parallel_for(
        "AsyncSparse::par_ilut::candidates_rowsum", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i) {
          double s = 0;
          for (offset_t t = (l2p(i) - i) + u2p(i); t < (l2p(i + 1) - i - 1) + u2p(i + 1); ++t) s += r2(t);
          rowsum(i) = s;
        });
  }
  res.residual2 = ilut_sum(exec, rowsum, n, det);
  res.L = L2;
  res.U = U2;
  res.uval = uval2;
  return res;
}

template <class ExecSpace, class Handle>
IlutCandidates<Handle> ict_candidates(const ExecSpace& exec, Handle& h) {
  using Scalar = typename Handle::scalar_type;
  using Factor = ilut_factor_t<Handle>;
  using PV = typename Handle::offset_view;
  using OV = typename Handle::ordinal_view;
  using DV = Kokkos::View<double*, typename Handle::device_type>;
  auto& st = h.state();
  const bool det = h.params.mode == SweepMode::Deterministic;
  const ordinal_t n = st.n;
  IlutCandidates<Handle> res;
  auto arm = st.a_row_map;
  auto aent = st.a_entries;
  auto aval = st.a_val;
  const Factor L = st.L;
  auto lp = L.ptr;
  auto lcol = L.col;
  auto lval = L.val;
  // columns of L (pattern): row k of Lt lists the rows c >= k with l_ck stored
  Factor Lt;
  PV src;
  ilut_transpose(exec, n, L, Lt, src);
  auto ltp = Lt.ptr;
  auto ltcol = Lt.col;

  // 1. gather: lower part of row i of A, and for every l_ik the rows c <= i of column k of L (pattern of L·Lᵀ)
  PV ub = ilut_alloc<PV>("AsyncSparse::par_ict::cand_ub", n);
  Kokkos::parallel_for(
      "AsyncSparse::par_ict::candidates_bound", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        offset_t b = arm(i + 1) - arm(i);
        for (offset_t q = lp(i); q < lp(i + 1); ++q) b += ltp(lcol(q) + 1) - ltp(lcol(q));
        ub(i) = b;
      });
  PV ubptr = ilut_alloc<PV>("AsyncSparse::par_ict::cand_ubptr", static_cast<std::size_t>(n) + 1);
  const offset_t total = ilut_scan(exec, ubptr, ub, n, "AsyncSparse::par_ict::candidates_bound_scan");
  OV gbuf = ilut_alloc<OV>("AsyncSparse::par_ict::cand_gather", total);
  PV glen = ub;  // actual gathered length per row
  Kokkos::parallel_for(
      "AsyncSparse::par_ict::candidates_gather", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        offset_t w = ubptr(i);
        for (offset_t k = arm(i); k < arm(i + 1) && aent(k) <= i; ++k) gbuf(w++) = aent(k);
        for (offset_t q = lp(i); q < lp(i + 1); ++q) {
          const ordinal_t k = lcol(q);
          for (offset_t r = ltp(k); r < ltp(k + 1) && ltcol(r) <= i; ++r) gbuf(w++) = ltcol(r);
        }
        glen(i) = w - ubptr(i);
      });
  // 2. sort + unique the gathered part of each segment
  PV cnt = ilut_alloc<PV>("AsyncSparse::par_ict::cand_cnt", n);
  Kokkos::parallel_for(
      "AsyncSparse::par_ict::candidates_sort", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        const offset_t b = ubptr(i), e = b + glen(i);
        ilut_sort_keys(&gbuf(b), static_cast<std::int64_t>(e - b));
        offset_t w = b;
        for (offset_t r = b; r < e; ++r) {
          if (r > b && gbuf(r) == gbuf(w - 1)) continue;
          gbuf(w++) = gbuf(r);
        }
        cnt(i) = w - b;
      });
  Factor L2;
  L2.ptr = ilut_alloc<PV>("AsyncSparse::par_ict::lptr", static_cast<std::size_t>(n) + 1);
  ilut_alloc_entries(L2, ilut_scan(exec, L2.ptr, cnt, n, "AsyncSparse::par_ict::lptr_scan"), true, det);
  res.added_L = L2.nnz - L.nnz;
  PV lold = ilut_alloc<PV>("AsyncSparse::par_ict::cand_lold", L2.nnz);
  DV r2 = ilut_alloc<DV>("AsyncSparse::par_ict::cand_r2", L2.nnz);
  {
    auto l2p = L2.ptr;
    auto l2col = L2.col;
    auto l2row = L2.row;
    auto l2apos = L2.apos;
    Kokkos::parallel_for(
        "AsyncSparse::par_ict::candidates_fill", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i) {
          const offset_t b = ubptr(i);
          offset_t pa = arm(i), pl = lp(i);
          for (offset_t t = 0; t < cnt(i); ++t) {
            const ordinal_t c = gbuf(b + t);
            while (pa < arm(i + 1) && aent(pa) < c) ++pa;
            while (pl < lp(i + 1) && lcol(pl) < c) ++pl;
            const offset_t q = l2p(i) + t;
            l2col(q) = c;
            l2row(q) = i;
            l2apos(q) = (pa < arm(i + 1) && aent(pa) == c) ? pa : -1;
            lold(q) = (pl < lp(i + 1) && lcol(pl) == c) ? pl : -1;
          }
        });
  }
  {
    auto l2col = L2.col;
    auto l2row = L2.row;
    auto l2apos = L2.apos;
    auto l2val = L2.val;
    auto l2val2 = L2.val2;
    Kokkos::parallel_for(
        "AsyncSparse::par_ict::candidates_values", Kokkos::RangePolicy<ExecSpace>(exec, 0, L2.nnz),
        KOKKOS_LAMBDA(const offset_t q) {
          const ordinal_t i = l2row(q), c = l2col(q);
          const Scalar a = l2apos(q) >= 0 ? aval(l2apos(q)) : Scalar(0);
          const Scalar s = ilut_merge_dot(lcol, lval, lp(i), lp(i + 1), lcol, lval, lp(c), lp(c + 1), c);
          const Scalar lcc = lval(lp(c + 1) - 1);
          Scalar r, v;
          if (lold(q) >= 0) {
            v = lval(lold(q));
            r = (a - s) - ilut_mul(v, i == c ? v : lcc);
          } else {
            r = a - s;
            v = r / lcc;
            if (!is_finite(v)) v = 0;
          }
          l2val(q) = v;
          if (det) l2val2(q) = v;
          r2(q) = (i == c ? 1.0 : 2.0) * static_cast<double>(r) * static_cast<double>(r);
        });
  }
  DV rowsum = ilut_alloc<DV>("AsyncSparse::par_ict::cand_rowsum", n);
  {
    auto l2p = L2.ptr;
    Kokkos::parallel_for(
        "AsyncSparse::par_ict::candidates_rowsum", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i) {
          double s = 0;
          for (offset_t q = l2p(i); q < l2p(i + 1); ++q) s += r2(q);
          rowsum(i) = s;
        });
  }
  res.residual2 = ilut_sum(exec, rowsum, n, det);
  res.L = L2;
  return res;
}

template <class ExecSpace, class Handle>
IlutCandidates<Handle> ilut_any_candidates(const ExecSpace& exec, Handle& h) {
  return h.state().kind == ParIlutKind::Ict ? ict_candidates(exec, h) : ilut_candidates(exec, h);
}

/// Replace the handle's factors by the enlarged ones of the candidate phase.
template <class ExecSpace, class Handle>
void ilut_commit(const ExecSpace& exec, Handle& h, const IlutCandidates<Handle>& c) {
  auto& st = h.state();
  st.L = c.L;
  if (st.kind == ParIlutKind::Ilut) {
    st.U = c.U;
    ilut_build_ut(exec, h, c.uval, h.params.mode == SweepMode::Deterministic);
    ilut_build_tasks(exec, h);
  }
}

// ------------------------------------------------------------------------------------------------------------
// Threshold selection and removal
// ------------------------------------------------------------------------------------------------------------

/// Keep rule of one factor: the diagonal always; |v| > threshold; |v| == threshold for the first `quota` such
/// entries in storage order (exact selection: the budget is met exactly), or all of them (quota = max).
struct IlutKeepRule {
  bool remove = false;  ///< false: keep every entry
  double threshold = 0.0;
  std::int64_t quota = 0;
};

/// Select the threshold of a factor whose strict (off-diagonal) entries are `F` positions with `strict_index(p)`
/// in [0, m); budget_offdiag entries of them are kept.
template <class ExecSpace, class Handle, class Vals, class StrictIndex>
IlutKeepRule ilut_select(const ExecSpace& exec, Handle& h, const Vals& vals, offset_t nnz, std::int64_t m,
                         std::int64_t budget_offdiag, const StrictIndex& strict_index) {
  using Scalar = typename Handle::scalar_type;
  using VV = typename Handle::value_view;
  IlutKeepRule rule;
  if (m <= budget_offdiag) return rule;
  rule.remove = true;
  VV mag = ilut_alloc<VV>("AsyncSparse::par_ilut::magnitudes", m);
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::magnitudes", Kokkos::RangePolicy<ExecSpace>(exec, 0, nnz),
      KOKKOS_LAMBDA(const offset_t p) {
        const std::int64_t s = strict_index(p);
        if (s >= 0) mag(s) = ilut_abs(vals(p));
      });
  auto& sel = h.state().select;
  sel.params = h.params.select;
  sel.params.order = SelectOrder::Magnitude;
  sel.launch = h.select_launch;
  const std::int64_t k = m - budget_offdiag;  // rank (ascending) of the smallest kept magnitude
  Scalar t;
  if (h.params.selection == ThresholdSelection::Exact) {
    t = sample_select(exec, sel, mag, k);
    // how many are strictly larger: the rest of the budget goes to the ties, in storage order
    std::int64_t greater = 0;
    Kokkos::parallel_reduce(
        "AsyncSparse::par_ilut::count_greater",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, m),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& c) { c += mag(i) > t ? 1 : 0; }, greater);
    rule.quota = budget_offdiag - greater;
  } else {
    t = sample_select_approximate(exec, sel, mag, k).value;
    rule.quota = std::numeric_limits<std::int64_t>::max();
  }
  h.stats().last_select = sel.stats;
  rule.threshold = static_cast<double>(t);
  return rule;
}

/// keep(p) and the compacted position pos(p) (pos(nnz) = kept entries) of a factor under `rule`. Two scans: the
/// first ranks the ties (|v| == threshold) in storage order and decides keep(p) from the global rank in its final
/// pass, the second turns keep into positions. (One scan cannot do both: its increment would depend on the prefix,
/// which a parallel scan's first pass only knows locally.)
template <class ExecSpace, class Vals, class IsDiag, class PV>
offset_t ilut_keep_positions(const ExecSpace& exec, const Vals& vals, offset_t nnz, const IlutKeepRule& rule,
                             const IsDiag& is_diag, const PV& keep, const PV& pos) {
  using Scalar = typename Vals::non_const_value_type;
  const bool remove = rule.remove;
  const Scalar t = static_cast<Scalar>(rule.threshold);
  const std::int64_t quota = rule.quota;
  Kokkos::parallel_scan(
      "AsyncSparse::par_ilut::tie_scan", Kokkos::RangePolicy<ExecSpace>(exec, 0, nnz),
      KOKKOS_LAMBDA(const offset_t p, std::int64_t& ties_before, const bool final) {
        const Scalar a = ilut_abs(vals(p));
        const bool d = is_diag(p);
        const bool tie = remove && !d && a == t;
        if (final) keep(p) = (!remove || d || a > t || (tie && ties_before < quota)) ? 1 : 0;
        if (tie) ++ties_before;
      });
  Kokkos::parallel_scan(
      "AsyncSparse::par_ilut::keep_scan", Kokkos::RangePolicy<ExecSpace>(exec, 0, nnz + 1),
      KOKKOS_LAMBDA(const offset_t p, offset_t& kept, const bool final) {
        if (final) pos(p) = kept;
        if (p < nnz) kept += keep(p);
      });
  return ilut_read(exec, pos, static_cast<std::size_t>(nnz));
}

/// Compact factor F by keep/pos into a new factor (ptr(i) = pos(F.ptr(i))).
template <class ExecSpace, class Factor, class PV>
Factor ilut_compact(const ExecSpace& exec, ordinal_t n, const Factor& F, const PV& keep, const PV& pos, offset_t kept,
                    bool values, bool second) {
  Factor G;
  G.ptr = ilut_alloc<PV>("AsyncSparse::par_ilut::ptr", static_cast<std::size_t>(n) + 1);
  ilut_alloc_entries(G, kept, values, second);
  auto fp = F.ptr;
  auto gp = G.ptr;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::compact_ptr", Kokkos::RangePolicy<ExecSpace>(exec, 0, n + 1),
      KOKKOS_LAMBDA(const ordinal_t i) { gp(i) = pos(fp(i)); });
  auto fcol = F.col;
  auto frow = F.row;
  auto fapos = F.apos;
  auto fval = F.val;
  auto gcol = G.col;
  auto grow = G.row;
  auto gapos = G.apos;
  auto gval = G.val;
  auto gval2 = G.val2;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::compact", Kokkos::RangePolicy<ExecSpace>(exec, 0, F.nnz),
      KOKKOS_LAMBDA(const offset_t p) {
        if (!keep(p)) return;
        const offset_t d = pos(p);
        gcol(d) = fcol(p);
        grow(d) = frow(p);
        gapos(d) = fapos(p);
        if (values) {
          gval(d) = fval(p);
          if (second) gval2(d) = fval(p);
        }
      });
  return G;
}

/// Select and remove for both factors; records thresholds and times in `ss`.
template <class ExecSpace, class Handle>
void ilut_select_and_remove(const ExecSpace& exec, Handle& h, ParIlutStepStats& ss) {
  using Factor = ilut_factor_t<Handle>;
  using PV = typename Handle::offset_view;
  auto& st = h.state();
  auto& stats = h.stats();
  const bool det = h.params.mode == SweepMode::Deterministic;
  const ordinal_t n = st.n;
  Kokkos::Timer timer;
  // strict entries: L diagonal last in each row, Ut diagonal last in each row of Ut
  auto lrow = st.L.row;
  auto lcol = st.L.col;
  auto l_strict = KOKKOS_LAMBDA(const offset_t p)->std::int64_t { return lcol(p) == lrow(p) ? -1 : p - lrow(p); };
  auto l_diag = KOKKOS_LAMBDA(const offset_t p)->bool { return lcol(p) == lrow(p); };
  const IlutKeepRule rule_L =
      ilut_select(exec, h, st.L.val, st.L.nnz, st.L.nnz - n, std::max<std::int64_t>(0, stats.budget_L - n), l_strict);
  IlutKeepRule rule_U;
  if (st.kind == ParIlutKind::Ilut) {
    auto trow = st.Ut.row;
    auto tcol = st.Ut.col;
    auto t_strict = KOKKOS_LAMBDA(const offset_t p)->std::int64_t { return tcol(p) == trow(p) ? -1 : p - trow(p); };
    rule_U = ilut_select(exec, h, st.Ut.val, st.Ut.nnz, st.Ut.nnz - n, std::max<std::int64_t>(0, stats.budget_U - n),
                         t_strict);
  }
  exec.fence();
  ss.select_seconds = timer.seconds();
  ss.threshold_L = rule_L.remove ? rule_L.threshold : 0.0;
  ss.threshold_U = rule_U.remove ? rule_U.threshold : 0.0;
  timer.reset();
  if (rule_L.remove) {
    PV keep = ilut_alloc<PV>("AsyncSparse::par_ilut::keep", st.L.nnz);
    PV pos = ilut_alloc<PV>("AsyncSparse::par_ilut::pos", static_cast<std::size_t>(st.L.nnz) + 1);
    const offset_t kept = ilut_keep_positions(exec, st.L.val, st.L.nnz, rule_L, l_diag, keep, pos);
    st.L = ilut_compact(exec, n, st.L, keep, pos, kept, true, det);
  }
  if (st.kind == ParIlutKind::Ilut && rule_U.remove) {
    auto trow = st.Ut.row;
    auto tcol = st.Ut.col;
    auto t_diag = KOKKOS_LAMBDA(const offset_t p)->bool { return tcol(p) == trow(p); };
    PV keep_t = ilut_alloc<PV>("AsyncSparse::par_ilut::keep_t", st.Ut.nnz);
    PV pos_t = ilut_alloc<PV>("AsyncSparse::par_ilut::pos_t", static_cast<std::size_t>(st.Ut.nnz) + 1);
    const offset_t kept = ilut_keep_positions(exec, st.Ut.val, st.Ut.nnz, rule_U, t_diag, keep_t, pos_t);
    // the same decisions for the row storage of U, through umap
    PV keep_u = ilut_alloc<PV>("AsyncSparse::par_ilut::keep_u", st.U.nnz);
    PV pos_u = ilut_alloc<PV>("AsyncSparse::par_ilut::pos_u", static_cast<std::size_t>(st.U.nnz) + 1);
    auto umap = st.umap;
    const offset_t nu = st.U.nnz;
    Kokkos::parallel_scan(
        "AsyncSparse::par_ilut::keep_u_scan", Kokkos::RangePolicy<ExecSpace>(exec, 0, nu + 1),
        KOKKOS_LAMBDA(const offset_t q, offset_t& acc, const bool final) {
          const offset_t k = q < nu ? keep_t(umap(q)) : 0;
          if (final) {
            pos_u(q) = acc;
            if (q < nu) keep_u(q) = k;
          }
          acc += k;
        });
    Factor U2 = ilut_compact(exec, n, st.U, keep_u, pos_u, kept, false, false);
    Factor T2 = ilut_compact(exec, n, st.Ut, keep_t, pos_t, kept, true, det);
    PV umap2 = ilut_alloc<PV>("AsyncSparse::par_ilut::umap", kept);
    Kokkos::parallel_for(
        "AsyncSparse::par_ilut::umap_compact", Kokkos::RangePolicy<ExecSpace>(exec, 0, nu),
        KOKKOS_LAMBDA(const offset_t q) {
          if (keep_u(q)) umap2(pos_u(q)) = pos_t(umap(q));
        });
    st.U = U2;
    st.Ut = T2;
    st.umap = umap2;
  }
  if (st.kind == ParIlutKind::Ilut) ilut_build_tasks(exec, h);
  exec.fence();
  ss.remove_seconds = timer.seconds();
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

// ------------------------------------------------------------------------------------------------------------
// Driver pieces
// ------------------------------------------------------------------------------------------------------------

inline void ilut_check_params(int max_steps, double fill, double stag, int reuse, double divergence,
                              const std::string& where) {
  if (!(divergence >= 0.0) || std::isinf(divergence))
    throw InvalidInput(where + ": divergence_tolerance must be finite and >= 0, got " + std::to_string(divergence));
  if (max_steps < 0) throw InvalidInput(where + ": max_steps must be >= 0, got " + std::to_string(max_steps));
  if (!(fill > 0.0) || !std::isfinite(fill))
    throw InvalidInput(where + ": fill_in_limit must be finite and > 0, got " + std::to_string(fill));
  if (!(stag >= 0.0) || !std::isfinite(stag))
    throw InvalidInput(where + ": stagnation_tolerance must be finite and >= 0, got " + std::to_string(stag));
  if (reuse < 0) throw InvalidInput(where + ": reuse_sweeps must be >= 0, got " + std::to_string(reuse));
}

template <class Handle>
void ilut_check_handle_params(const Handle& h, const std::string& where) {
  const auto& p = h.params;
  ilut_check_params(p.max_steps, p.fill_in_limit, p.stagnation_tolerance, p.reuse_sweeps, p.divergence_tolerance,
                    where);
  select_check_params(p.select, where.c_str());
}

/// Scaled values of A (new View) and s; a_norm2 = ||A_s||_F^2.
template <class ExecSpace, class Handle, class Mat>
void ilut_scale(const ExecSpace& exec, Handle& h, const Mat& A) {
  auto& st = h.state();
  auto scaled = scale_unit_diagonal(exec, A);
  st.a_val = scaled.A.values;
  st.s = scaled.s;
  using DV = Kokkos::View<double*, typename Handle::device_type>;
  DV rowsum = ilut_alloc<DV>("AsyncSparse::par_ilut::a_rowsum", st.n);
  auto rm = A.graph.row_map;
  auto v = st.a_val;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::a_norm", Kokkos::RangePolicy<ExecSpace>(exec, 0, st.n), KOKKOS_LAMBDA(const ordinal_t i) {
        double s = 0;
        for (offset_t k = rm(i); k < rm(i + 1); ++k)
          s += ilut_mul(static_cast<double>(v(k)), static_cast<double>(v(k)));
        rowsum(i) = s;
      });
  st.a_norm2 = ilut_sum(exec, rowsum, st.n, h.params.mode == SweepMode::Deterministic);
}

inline double ilut_relative(double r2, double a2) { return a2 > 0 ? std::sqrt(r2 / a2) : std::sqrt(r2); }

template <class Handle>
void ilut_record_step0(Handle& h) {
  auto& st = h.state();
  ParIlutStepStats s0;
  s0.step = 0;
  s0.nnz_L = st.L.nnz;
  s0.nnz_U = st.kind == ParIlutKind::Ilut ? st.U.nnz : st.L.nnz;
  h.stats().steps.assign(1, s0);
}

/// Symbolic phase: checks of A's pattern (square, non-empty, sorted unique columns, stored diagonal; ParICT a
/// symmetric pattern), the pattern of A and the pattern of the initial guess. Resets the factors and Stats.
template <class ExecSpace, class Handle, class Mat>
void ilut_symbolic(const ExecSpace& exec, Handle& h, const Mat& A, const std::string& where) {
  Kokkos::Timer timer;
  const ParIlutKind kind = h.params.kind;
  ilut_check_handle_params(h, where);
  ilut_check_matrix(exec, A, kind == ParIlutKind::Ict, false, where, par_ilut_name(kind));
  auto& st = h.state();
  const auto select = std::move(st.select);
  st = typename Handle::State();
  st.select = select;
  st.kind = kind;
  st.n = A.numRows();
  st.nnz_A = A.nnz();
  st.a_row_map = A.graph.row_map;
  st.a_entries = A.graph.entries;
  st.breakdown = Kokkos::View<std::int64_t, typename Handle::device_type>("AsyncSparse::par_ilut::breakdown");
  ilut_initial_pattern(exec, h);
  st.symbolic = true;
  auto& stats = h.stats();
  stats = typename Handle::Stats();
  stats.kind = kind;
  stats.n = st.n;
  stats.nnz_A = st.nnz_A;
  exec.fence();
  stats.symbolic_seconds = timer.seconds();
}

/// Scaling, initial guess (step 0) and the fill budgets. Resets the Stats of the numeric phase.
template <class ExecSpace, class Handle, class Mat>
void ilut_initialize(const ExecSpace& exec, Handle& h, const Mat& A) {
  Kokkos::Timer timer;
  auto& st = h.state();
  auto& stats = h.stats();
  const double symbolic_seconds = stats.symbolic_seconds;
  stats = typename Handle::Stats();
  stats.kind = st.kind;
  stats.n = st.n;
  stats.nnz_A = st.nnz_A;
  stats.symbolic_seconds = symbolic_seconds;
  st.ready = false;
  ilut_scale(exec, h, A);
  ilut_initial_guess(exec, h);
  ilut_reset_breakdown(exec, h);
  const double f = h.params.fill_in_limit;
  stats.budget_L = static_cast<offset_t>(std::llround(f * static_cast<double>(st.L.nnz)));
  stats.budget_U =
      st.kind == ParIlutKind::Ilut ? static_cast<offset_t>(std::llround(f * static_cast<double>(st.U.nnz))) : 0;
  ilut_record_step0(h);
  st.ready = true;
  exec.fence();
  stats.setup_seconds = timer.seconds();
}

/// Divergence guard (Params::divergence_tolerance): the relative ILU residual `residual` of the factors after
/// step `step` is non-finite or above the tolerance -> not computed, Stats::diverged, DivergenceError.
template <class Handle>
void ilut_check_divergence(Handle& h, double residual, int step) {
  const double tol = h.params.divergence_tolerance;
  if (tol <= 0.0 || residual <= tol) return;  // a NaN residual fails `residual <= tol`
  h.state().ready = false;
  h.stats().diverged = true;
  throw DivergenceError(par_ilut_name(h), step,
                        divergence_message("ILU residual ||A - L U||_F / ||A||_F", residual,
                                           "step " + std::to_string(step), tol, h.params.mode));
}

/// One step. When `stop_on_stagnation`, the candidate phase's residual may end the iteration: returns false
/// and leaves the factors unchanged. A breakdown in the step's last sweep throws at once in the deterministic
/// mode and when `check_now`; otherwise (asynchronous steps inside a numeric phase) the skipped update is counted
/// and the iteration goes on, as in Ginkgo, and the numeric phase checks the final factors.
template <class ExecSpace, class Handle>
bool ilut_step(const ExecSpace& exec, Handle& h, bool stop_on_stagnation, bool check_now = true) {
  auto& st = h.state();
  auto& stats = h.stats();
  const bool ict = st.kind == ParIlutKind::Ict;
  ParIlutStepStats ss;
  ss.step = static_cast<int>(stats.steps.size());
  Kokkos::Timer total, timer;
  // 1. candidates (and the residual of the current factors)
  const double tol = h.params.stagnation_tolerance;
  auto cr = ilut_any_candidates(exec, h);
  auto& prev = stats.steps.back();
  prev.residual = ilut_relative(cr.residual2, st.a_norm2);
  // deterministic mode: every step's residual is judged; asynchronous: only the final factors' (stale values can
  // blow up transiently and recover)
  if (h.params.mode == SweepMode::Deterministic) ilut_check_divergence(h, prev.residual, prev.step);
  if (stop_on_stagnation && tol > 0.0 && stats.steps.size() >= 2) {
    const double before = stats.steps[stats.steps.size() - 2].residual;
    if (before >= 0 && prev.residual > (1.0 - tol) * before) {
      stats.stagnated = true;
      return false;
    }
  }
  ilut_commit(exec, h, cr);
  exec.fence();
  ss.candidates_seconds = timer.seconds();
  ss.candidates_L = cr.added_L;
  ss.candidates_U = cr.added_U;
  // 2. sweep
  timer.reset();
  ilut_sweep(exec, h);
  exec.fence();
  ss.sweep_seconds = timer.seconds();
  // 3. + 4. select and remove
  ilut_select_and_remove(exec, h, ss);
  // 5. sweep
  timer.reset();
  ilut_reset_breakdown(exec, h);
  ilut_sweep(exec, h);
  exec.fence();
  ss.sweep_seconds += timer.seconds();
  ss.nnz_L = st.L.nnz;
  ss.nnz_U = ict ? st.L.nnz : st.U.nnz;
  ss.total_seconds = total.seconds();
  stats.steps.push_back(ss);
  stats.steps_done = static_cast<int>(stats.steps.size()) - 1;
  if (check_now || h.params.mode == SweepMode::Deterministic)
    ilut_check_breakdown(exec, h);
  else if (ilut_read(exec, st.breakdown, 0) != std::numeric_limits<std::int64_t>::max())
    ++stats.breakdown_steps;
  return true;
}

/// Residual of the current factors (one pass like a candidate phase, factors unchanged), stored in the last
/// step's statistics.
template <class ExecSpace, class Handle>
double ilut_final_residual(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  auto& last = h.stats().steps.back();
  Kokkos::Timer timer;
  const auto cr = ilut_any_candidates(exec, h);
  last.residual = ilut_relative(cr.residual2, st.a_norm2);
  exec.fence();
  last.residual_seconds = timer.seconds();
  ilut_check_divergence(h, last.residual, last.step);
  return last.residual;
}

template <class Handle>
void ilut_fill_history(Handle& h) {
  auto& stats = h.stats();
  stats.residual_history.clear();
  for (const auto& s : stats.steps)
    if (s.residual >= 0) stats.residual_history.push_back(s.residual);
}

/// The whole factorization from the initial guess: Params::max_steps steps (fewer on stagnation), the checks of
/// the final factors and their residual.
template <class ExecSpace, class Handle, class Mat>
void ilut_compute(const ExecSpace& exec, Handle& h, const Mat& A) {
  Kokkos::Timer timer;
  ilut_initialize(exec, h, A);
  for (int s = 0; s < h.params.max_steps; ++s)
    if (!ilut_step(exec, h, true, false)) break;
  ilut_check_breakdown(exec, h);  // the last sweep's skipped updates and the pivots of the final factors
  const auto& last = h.stats().steps.back();
  if (last.residual < 0) {                                        // not yet computed
    if (h.params.compute_residual) ilut_final_residual(exec, h);  // judges it
  } else {  // known already (stagnation stop; a NaN lands here too)
    ilut_check_divergence(h, last.residual, last.step);
  }
  ilut_fill_history(h);
  exec.fence();
  h.stats().total_seconds = timer.seconds();
}

/// Pattern reuse (Params::reuse_pattern): A has new values on the pattern of the current factors' A; rescale and
/// run Params::reuse_sweeps sweeps on the current factor pattern, starting from the current factors.
template <class ExecSpace, class Handle, class Mat>
void ilut_update_values(const ExecSpace& exec, Handle& h, const Mat& A) {
  Kokkos::Timer timer;
  auto& st = h.state();
  ilut_scale(exec, h, A);
  auto& stats = h.stats();
  stats.sweeps = 0;
  ilut_reset_breakdown(exec, h);
  for (int s = 0; s < h.params.reuse_sweeps; ++s) {
    if (s + 1 == h.params.reuse_sweeps) ilut_reset_breakdown(exec, h);
    ilut_sweep(exec, h);
  }
  ++stats.updates;
  st.ready = true;
  ilut_check_breakdown(exec, h);
  auto& last = stats.steps.back();
  last.residual = -1;
  if (h.params.compute_residual) ilut_final_residual(exec, h);
  ilut_fill_history(h);
  exec.fence();
  stats.total_seconds = timer.seconds();
}

/// Numeric phase (see AsyncSparse_par_ilut.hpp).
template <class ExecSpace, class Handle, class Mat>
void ilut_numeric(const ExecSpace& exec, Handle& h, const Mat& A, const std::string& where) {
  auto& st = h.state();
  const std::string method = par_ilut_name(h.params.kind);
  if (!st.symbolic) throw InvalidInput(where + ": par_ilut_symbolic must be called first");
  ilut_check_handle_params(h, where);
  if (h.params.kind != st.kind)
    throw InvalidInput(where + ": Params::kind changed since par_ilut_symbolic; run the symbolic phase again");
  if (A.numRows() != st.n || A.numCols() != st.n || A.nnz() != st.nnz_A ||
      !same_graph(exec, st.n, A.graph.row_map, A.graph.entries, st.a_row_map, st.a_entries))
    throw InvalidInput(where + ": the matrix does not have the pattern given to par_ilut_symbolic");
  ilut_check_matrix(exec, A, st.kind == ParIlutKind::Ict, true, where, method);
  const bool reuse = h.params.reuse_pattern && st.ready;
  if (reuse)
    ilut_update_values(exec, h, A);
  else
    ilut_compute(exec, h, A);
  h.stats().reused_pattern = reuse;
}

/// L as a Crs (copy): ParILUT unit lower triangular with the ones stored last; ParICT lower with its diagonal.
template <class ExecSpace, class Handle>
typename Handle::crs_type ilut_lower(const ExecSpace& exec, const Handle& h) {
  using M = typename Handle::crs_type;
  const auto& st = h.state();
  typename M::row_map_type::non_const_type rm(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::L_row_map"),
      static_cast<std::size_t>(st.n) + 1);
  typename M::index_type::non_const_type ent(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::L_entries"), st.L.nnz);
  typename M::values_type::non_const_type val(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::L_values"), st.L.nnz);
  Kokkos::deep_copy(exec, rm, st.L.ptr);
  Kokkos::deep_copy(exec, ent, Kokkos::subview(st.L.col, std::make_pair(offset_t(0), st.L.nnz)));
  Kokkos::deep_copy(exec, val, Kokkos::subview(st.L.val, std::make_pair(offset_t(0), st.L.nnz)));
  exec.fence();
  return M("AsyncSparse::par_ilut::L", st.n, st.n, st.L.nnz, val, rm, ent);
}

/// U as a Crs (copy, diagonal first in each row): ParILUT's U, ParICT's Lᵀ.
template <class ExecSpace, class Handle>
typename Handle::crs_type ilut_upper(const ExecSpace& exec, const Handle& h) {
  using M = typename Handle::crs_type;
  using PV = typename Handle::offset_view;
  using Factor = ilut_factor_t<Handle>;
  const auto& st = h.state();
  Factor U;
  PV map;  // U entry -> position of its value
  typename Handle::value_view src_val;
  if (st.kind == ParIlutKind::Ilut) {
    U = st.U;
    map = st.umap;
    src_val = st.Ut.val;
  } else {
    ilut_transpose(exec, st.n, st.L, U, map);
    src_val = st.L.val;
  }
  typename M::row_map_type::non_const_type rm(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::U_row_map"),
      static_cast<std::size_t>(st.n) + 1);
  typename M::index_type::non_const_type ent(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::U_entries"), U.nnz);
  typename M::values_type::non_const_type val(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::U_values"), U.nnz);
  Kokkos::deep_copy(exec, rm, U.ptr);
  auto ucol = U.col;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::upper_export", Kokkos::RangePolicy<ExecSpace>(exec, 0, U.nnz),
      KOKKOS_LAMBDA(const offset_t q) {
        ent(q) = ucol(q);
        val(q) = src_val(map(q));
      });
  exec.fence();
  return M("AsyncSparse::par_ilut::U", st.n, st.n, U.nnz, val, rm, ent);
}

}  // namespace Impl
}  // namespace AsyncSparse
