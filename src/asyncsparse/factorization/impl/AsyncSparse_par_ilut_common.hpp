// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT kernels: the pieces every phase uses (see AsyncSparse_par_ilut.hpp for the
// algorithm). One header per phase, as in Ginkgo's par_ilut: AsyncSparse_par_ilut_candidates.hpp (new pattern and
// residual), _sweep.hpp (fixed-point sweeps, breakdown checks), _filter.hpp (threshold selection and removal),
// _setup.hpp (input checks, initial guess) and _driver.hpp (one step, the numeric phase, the factors as Crs).
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

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_device_scan.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut_handle.hpp>
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>  // Impl::transpose_pattern

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

/// n uninitialised entries from the workspace `ws` (Handle::workspace_type: pooled between steps; `label` names
/// the buffer when a new one is allocated).
template <class View, class Workspace>
View ilut_alloc(Workspace& ws, const std::string& label, std::size_t n) {
  return ws.template get<View>(n, label);
}

/// The working arrays of handle h (State::work).
template <class Handle>
typename Handle::workspace_type& ilut_ws(Handle& h) {
  return h.state().work;
}

/// Device scratch of the functions of exec/AsyncSparse_device_scan.hpp (their `temp`) from the pooled workspace ws:
/// the buffers are held until the holder goes away (a later request of ws that gets them runs after the work on
/// the same execution space instance).
template <class Workspace, class Device>
struct IlutScratch {
  using Words = Kokkos::View<double*, Device>;
  Workspace& ws;
  std::string label;
  std::vector<Words> held;
  void* operator()(std::size_t bytes) {
    held.push_back(ilut_alloc<Words>(ws, label, bytes / sizeof(double) + 1));
    return held.back().data();
  }
};

/// Impl::scan_counts (out(i) = sum_{r < i} count(r), i = 0..n; the total returned in 64 bit, -1 unread where
/// `read_total` is false; `bound`: an upper bound of the total, -1: none) with its device scratch from the pooled
/// workspace ws.
template <class ExecSpace, class Workspace, class Out, class Count>
std::int64_t ilut_scan_counts(const ExecSpace& exec, Workspace& ws, const Out& out, const Count& count, std::int64_t n,
                              std::int64_t bound, const std::string& label, bool read_total = true) {
  IlutScratch<Workspace, typename Out::device_type> temp{ws, label + "_temp", {}};
  return Impl::scan_counts(exec, temp, out, count, n, bound, label, read_total);
}

/// A pattern with more entries than offset_t holds (the fill of L·U can exceed the entries of A) is InvalidInput
/// naming `label`.
inline offset_t ilut_check_entries(std::int64_t total, const std::string& label) {
  if (total > max_stored_entries)
    throw InvalidInput(label + ": the pattern would have " + std::to_string(total) + " entries, more than " +
                       max_stored_entries_text());
  return static_cast<offset_t>(total);
}

/// ptr(i) = sum_{r < i} count(r) for i = 0..n; returns ptr(n). The sums run in 64 bit: a pattern with more
/// entries than offset_t holds is InvalidInput naming `label` (ilut_check_entries).
template <class ExecSpace, class Workspace, class Ptr, class Count>
offset_t ilut_scan(const ExecSpace& exec, Workspace& ws, const Ptr& ptr, const Count& count, ordinal_t n,
                   const std::string& label) {
  return ilut_check_entries(ilut_scan_counts(exec, ws, ptr, count, n, -1, label), label);
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
      "AsyncSparse::par_ilut::sum", Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, double& acc) { acc += v(i); }, s);
  return s;
}

template <class Handle>
using ilut_factor_t = typename Handle::Factor;

/// ParILUT in the phases written once for both kinds (candidates, sweeps): factors L and U.
struct IlutKind {
  static constexpr bool ict = false;
  static constexpr const char* prefix = "AsyncSparse::par_ilut::";  ///< of kernel labels
};

/// ParICT in the phases written once for both kinds: the factor L (U = Lᵀ).
struct IctKind {
  static constexpr bool ict = true;
  static constexpr const char* prefix = "AsyncSparse::par_ict::";
};

/// Kernel / allocation label of a phase of Kind.
template <class Kind>
std::string cand_label(const char* what) {
  return std::string(Kind::prefix) + what;
}

/// Allocate the entry arrays of a factor with `nnz` entries (ptr is allocated by the caller).
template <class Workspace, class Factor>
void ilut_alloc_entries(Workspace& ws, Factor& F, offset_t nnz, bool values, bool second_buffer) {
  using OV = decltype(F.col);
  using PV = decltype(F.apos);
  using VV = decltype(F.val);
  F.nnz = nnz;
  F.col = ilut_alloc<OV>(ws, "AsyncSparse::par_ilut::col", nnz);
  F.row = ilut_alloc<OV>(ws, "AsyncSparse::par_ilut::row", nnz);
  F.apos = ilut_alloc<PV>(ws, "AsyncSparse::par_ilut::apos", nnz);
  F.val = values ? ilut_alloc<VV>(ws, "AsyncSparse::par_ilut::val", nnz) : VV();
  F.val2 = (values && second_buffer) ? ilut_alloc<VV>(ws, "AsyncSparse::par_ilut::val2", nnz) : VV();
}

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

/// sum_k X(k) Y(k) over the common columns of the sorted stretches [xb, xe) of (xcol, xval) and [yb, ye) of (ycol,
/// yval), increasing k, one lane: ilut_merge_dot's sum where the caller knows the stretches left of the bound (the
/// sweeps: the rows before the entry's own position or diagonal). Both positions advance without a branch (x where
/// kx <= ky, y where ky <= kx); the values are read with read_shared<Async, Cached> (relaxed loads when Async, with
/// Cached through L1; plain reads otherwise). Measured on an H200 against
/// ilut_merge_dot: one ParILUT sweep of the 27-point 64^3 Laplacian 1.27-1.29 -> 1.21-1.23 ms, ParICT 0.43-0.44 ->
/// 0.40-0.41 ms (two runs each), the 5-point grid and bcsstk16 unchanged
/// (perf_tests/results/MEASUREMENTS.md#par-ilut-list-sweeps).
template <bool Async, bool Cached, class Cols, class Vals>
KOKKOS_INLINE_FUNCTION typename Vals::non_const_value_type ilut_range_dot(const Cols& xcol, const Vals& xval,
                                                                          offset_t xb, offset_t xe, const Cols& ycol,
                                                                          const Vals& yval, offset_t yb, offset_t ye) {
  using S = typename Vals::non_const_value_type;
  S sum = 0;
  while (xb < xe && yb < ye) {
    const ordinal_t kx = xcol(xb), ky = ycol(yb);
    if (kx == ky) sum += ilut_mul(read_shared<Async, Cached>(&xval(xb)), read_shared<Async, Cached>(&yval(yb)));
    xb += kx <= ky ? 1 : 0;
    yb += ky <= kx ? 1 : 0;
  }
  return sum;
}

/// Name of the factorization in BreakdownError / DivergenceError messages.
inline const char* par_ilut_name(ParIlutKind kind) { return kind == ParIlutKind::Ict ? "par_ict" : "par_ilut"; }
template <class Handle>
const char* par_ilut_name(const Handle& h) {
  return par_ilut_name(h.state().kind);
}

// ------------------------------------------------------------------------------------------------------------
// Transpose of a factor pattern (sorted rows; deterministic), with the map back to the source entries
// ------------------------------------------------------------------------------------------------------------

#if defined(KOKKOS_ENABLE_CUDA)
/// ilut_transpose on CUDA (F.nnz > 0): F's entries are stored by rows in increasing row order, so a stable sort of
/// them by column (CUB's radix sort of (column, position) pairs) lists each column's entries in increasing row
/// order, as the row-sorting path below gives them; one pass then writes T's columns and row pointers. (On an H200 the
/// counting, scan, scatter, row sort and row fill of that path took some 400 us per transpose of L or U of the
/// 5-point 1024^2 grid in a fenced timeline of a ParILUT step, nvidia-h200/device_scans_2026-12-04/.)
template <class Workspace, class Factor, class Src>
void ilut_transpose_sorted(const Kokkos::Cuda& exec, Workspace& ws, ordinal_t n, const Factor& F, const Factor& T,
                           const Src& src) {
  using PV = decltype(F.ptr);
  const offset_t nnz = F.nnz;
  const PV iota = ilut_alloc<PV>(ws, "AsyncSparse::par_ilut::transpose_iota", nnz);
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::transpose_iota", Impl::RangePolicy<Kokkos::Cuda>(exec, 0, nnz),
      KOKKOS_LAMBDA(const offset_t p) { iota(p) = p; });
  int bits = 1;
  while ((std::int64_t(1) << bits) < static_cast<std::int64_t>(n)) ++bits;
  IlutScratch<Workspace, typename PV::device_type> temp{ws, "AsyncSparse::par_ilut::transpose_temp", {}};
  Impl::sort_pairs_stable(exec, temp, F.col.data(), T.row.data(), iota.data(), src.data(), nnz, bits,
                          "AsyncSparse::par_ilut::transpose_sort");
  const auto frow = F.row;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::transpose_rows", Impl::RangePolicy<Kokkos::Cuda>(exec, 0, nnz + 1),
      KOKKOS_LAMBDA(const offset_t q) {
        const ordinal_t c = q < nnz ? T.row(q) : n;                // row of T of entry q (n: past the last)
        const ordinal_t before = q > 0 ? T.row(q - 1) : -1;        // row of T of the entry before
        for (ordinal_t r = before + 1; r <= c; ++r) T.ptr(r) = q;  // rows before + 1 .. c start at q
        if (q < nnz) T.col(q) = frow(src(q));
      });
}
#endif

/// T = Fᵀ (pattern; T.row(p) = row of T = column of F), src(p) = F entry of T entry p. T and src are allocated here.
template <class ExecSpace, class Workspace, class Factor, class Src>
void ilut_transpose(const ExecSpace& exec, Workspace& ws, ordinal_t n, const Factor& F, Factor& T, Src& src) {
  using PV = decltype(F.ptr);
  T.ptr = ilut_alloc<PV>(ws, "AsyncSparse::par_ilut::transpose_ptr", static_cast<std::size_t>(n) + 1);
  ilut_alloc_entries(ws, T, F.nnz, false, false);
  src = ilut_alloc<Src>(ws, "AsyncSparse::par_ilut::transpose_src", F.nnz);
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (Impl::scans_by_cub<ExecSpace>()) {
    if (F.nnz > 0) {
      ilut_transpose_sorted(exec, ws, n, F, T, src);
      return;
    }
  }
#endif
  Kokkos::deep_copy(exec, T.ptr, offset_t(0));
  transpose_pattern(exec, n, n, F.nnz, F.ptr, F.col, T.ptr, T.col, src,
                    ilut_alloc<PV>(ws, "AsyncSparse::par_ilut::transpose_next", static_cast<std::size_t>(n)));
  auto tp = T.ptr;
  auto trow = T.row;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::transpose_rows", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t c) {
        for (offset_t p = tp(c); p < tp(c + 1); ++p) trow(p) = c;
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
  ilut_transpose(exec, ilut_ws(h), st.n, st.U, T, src);
  T.val = ilut_alloc<VV>(ilut_ws(h), "AsyncSparse::par_ilut::ut_val", T.nnz);
  if (second) T.val2 = ilut_alloc<VV>(ilut_ws(h), "AsyncSparse::par_ilut::ut_val2", T.nnz);
  PV umap = ilut_alloc<PV>(ilut_ws(h), "AsyncSparse::par_ilut::umap", st.U.nnz);
  auto tval = T.val;
  auto tval2 = T.val2;
  auto tapos = T.apos;
  auto uapos = st.U.apos;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::ut_values", Impl::RangePolicy<ExecSpace>(exec, 0, T.nnz),
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
  PV tasks = ilut_alloc<PV>(ilut_ws(h), "AsyncSparse::par_ilut::tasks", ntasks);
  auto lp = st.L.ptr;
  auto up = st.U.ptr;
  auto lrow = st.L.row, lcol = st.L.col, urow = st.U.row;
  // row i's tasks begin at (lp(i) - i) + up(i) (the strict L entries and the U entries of the rows before it); one
  // thread per entry, so that the writes are contiguous across a warp. H200, a timer that synchronises around each
  // kernel: 27-point 64^3 Laplacian 243 -> 145 us per task list (a thread per row before); the 5-point 1024^2 grid,
  // whose rows hold 2-3 tasks, 62 -> 100 us (about 1 % of its step);
  // perf_tests/results/MEASUREMENTS.md#par-ilut-list-sweeps
  // L's entries and U's in one launch (index e < nnz_L: L entry e, else U entry e - nnz_L)
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::tasks",
      Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0,
                                                                    static_cast<std::int64_t>(nnzL) + st.U.nnz),
      KOKKOS_LAMBDA(const std::int64_t e) {
        if (e < nnzL) {
          const auto q = static_cast<offset_t>(e);
          const ordinal_t i = lrow(q);
          if (lcol(q) != i) tasks(q - i + up(i)) = q;
        } else {
          const auto q = static_cast<offset_t>(e - nnzL);
          const ordinal_t i = urow(q);
          tasks(lp(i + 1) - 1 - i + q) = nnzL + q;
        }
      });
  st.tasks = tasks;
}

}  // namespace Impl
}  // namespace AsyncSparse
