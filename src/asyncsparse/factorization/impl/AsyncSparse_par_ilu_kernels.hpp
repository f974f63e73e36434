// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — kernels of the iterative (Chow–Patel) ILU / IC factorization, and the serial host reference
// of its synchronous (Jacobi-style) sweep.
//
// One sweep updates every unknown of the pattern S once (Algorithm 1 of Chow, Anzt & Dongarra 2015):
//   ILU, i > j:  l_ij = (a_ij - sum_{k<j} l_ik u_kj) / u_jj        ILU, i <= j:  u_ij = a_ij - sum_{k<i} l_ik u_kj
//   IC,  i > j:  l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj        IC,  i == j:  l_ii = sqrt(a_ii - sum_{k<i} l_ik^2)
// L is stored by rows (CSR, diagonal last), U by columns (the CSR of Uᵀ: row j lists u_kj for k <= j, u_jj last),
// as in the paper's kernel (sect. 3.6) and Ginkgo's par_ilu: both operands of the sparse dot product are then
// sorted index lists that are merged. Because the rows are sorted, the part of row i of L left of column j is
// exactly the stretch of the row before the position of (i, j); no column comparison is needed for the bound.
//
// The summation always runs over k in ascending order, with s := a_ij and s := s - l_ik * u_kj per matching k,
// in the device kernels and in the host reference alike; `mul_sub` keeps the CUDA compiler from contracting the
// step into an FMA, so the deterministic mode gives the same bits on Serial, OpenMP and CUDA/HIP (and equals the
// host reference). Host builds must not enable FMA contraction themselves (the default for x86-64 and AArch64
// GCC/Clang builds without -ffp-contract=fast on FMA hardware).
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_kind.hpp>

namespace AsyncSparse {
namespace Impl {

/// s - a * b, rounded twice (never fused into an FMA), on host and device.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T mul_sub(T s, T a, T b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  if constexpr (std::is_same<T, double>::value) return __dsub_rn(s, __dmul_rn(a, b));
  if constexpr (std::is_same<T, float>::value) return __fsub_rn(s, __fmul_rn(a, b));
#endif
  return s - a * b;
}

/// Breakdown codes reported by the sweep kernels (flag value 4 * row + code, the smallest wins).
enum BreakdownCode : unsigned { kZeroPivot = 1, kNonPositivePivot = 2, kNonFinite = 3 };
constexpr unsigned long long kNoBreakdown = ~0ull;

inline std::string breakdown_text(unsigned code) {
  switch (code) {
    case kZeroPivot:
      return "zero pivot u_ii (the ILU factorization breaks down)";
    case kNonPositivePivot:
      return "non-positive pivot l_ii^2 <= 0 (the matrix is not SPD or its incomplete Cholesky factorization does "
             "not exist)";
    default:
      return "non-finite value in the factors";
  }
}

template <class FlagView>
KOKKOS_FORCEINLINE_FUNCTION void report_breakdown(const FlagView& flag, ordinal_t row, unsigned code) {
  Kokkos::atomic_fetch_min(&flag(), 4ull * static_cast<unsigned long long>(row) + code);
}

/// Calls f(p, q) for each pair of positions with the same index in the sorted index lists x = xent[p, pe) and
/// y = yent[q, qe), in ascending index.
template <class Ent, class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_common(const Ent& xent, offset_t p, offset_t pe, const Ent& yent, offset_t q,
                                                 offset_t qe, F&& f) {
  while (p < pe && q < qe) {
    const ordinal_t kp = xent(p), kq = yent(q);
    if (kp == kq) {
      f(p, q);
      ++p;
      ++q;
    } else if (kp < kq) {
      ++p;
    } else {
      ++q;
    }
  }
}

/// s - sum of x_k y_k over the columns k common to x = (xent, xv)[p, pe) and y = (yent, yv)[q, qe) (sorted), in
/// ascending k: the summation order of every sweep kernel's one-lane form and of the host reference. Cached: the
/// values are read with read_shared<Async, true>.
template <bool Async, bool Cached = false, class Ent, class T>
KOKKOS_FORCEINLINE_FUNCTION T merge_sub(T s, const Ent& xent, const T* xv, offset_t p, offset_t pe, const Ent& yent,
                                        const T* yv, offset_t q, offset_t qe) {
  for_each_common(xent, p, pe, yent, q, qe, [&](offset_t a, offset_t b) {
    s = mul_sub(s, read_shared<Async, Cached>(xv + a), read_shared<Async, Cached>(yv + b));
  });
  return s;
}

/// s - sum of x[px(q)] * y[py(q)] over the product list [ptr(u), ptr(u + 1)) of unknown u (SweepPairsFunctor), by
/// the `lanes` vector lanes of the calling thread: one lane sums in list order (ascending k) with mul_sub, as the
/// merge and the host reference; more lanes reduce in another order (rounding differences only). Every lane
/// returns the same value. Cached: values read with read_shared<Async, true>. Group > 1 (one lane, GPU code): the
/// positions and then the values of Group products are loaded before they are summed, so that a thread has Group
/// gathers in flight instead of one (the same products in the same order: the same sum;
/// MEASUREMENTS.md#par-ilu-cached-gathers).
template <bool Async, bool Cached = false, int Group = 1, class Member, class OffView, class T>
KOKKOS_INLINE_FUNCTION T list_sub(const Member& team, int lanes, T s, const OffView& ptr, const OffView& px,
                                  const OffView& py, offset_t u, const T* x, const T* y) {
  const offset_t b = ptr(u), e = ptr(u + 1);
  if (lanes == 1) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    if constexpr (Group > 1) {
      for (offset_t q = b; q < e; q += Group) {  // e - q, not q + k: no overflow near the offset's limit
        const offset_t left = e - q;
        offset_t ia[Group], ib[Group];
        T xa[Group], yb[Group];
#pragma unroll
        for (int k = 0; k < Group; ++k)
          if (k < left) {
            ia[k] = px(q + k);
            ib[k] = py(q + k);
          }
#pragma unroll
        for (int k = 0; k < Group; ++k)
          if (k < left) {
            xa[k] = read_shared<Async, Cached>(x + ia[k]);
            yb[k] = read_shared<Async, Cached>(y + ib[k]);
          }
#pragma unroll
        for (int k = 0; k < Group; ++k)
          if (k < left) s = mul_sub(s, xa[k], yb[k]);
        if (left <= Group) break;
      }
      return s;
    }
#endif
    for (offset_t q = b; q < e; ++q)
      s = mul_sub(s, read_shared<Async, Cached>(x + px(q)), read_shared<Async, Cached>(y + py(q)));
    return s;
  }
  T sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(team, b, e),
      [&](const offset_t q, T& acc) {
        acc += read_shared<Async, Cached>(x + px(q)) * read_shared<Async, Cached>(y + py(q));
      },
      sum);
  return s - sum;
}

/// s - sum of x_q^2 over the stretch [b, e) of a row (the IC diagonal), by `lanes` vector lanes as list_sub (also
/// Cached and Group).
template <bool Async, bool Cached = false, int Group = 1, class Member, class T>
KOKKOS_INLINE_FUNCTION T squares_sub(const Member& team, int lanes, T s, const T* x, offset_t b, offset_t e) {
  if (lanes == 1) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    if constexpr (Group > 1) {
      for (offset_t q = b; q < e; q += Group) {
        const offset_t left = e - q;
        T v[Group];
#pragma unroll
        for (int k = 0; k < Group; ++k)
          if (k < left) v[k] = read_shared<Async, Cached>(x + q + k);
#pragma unroll
        for (int k = 0; k < Group; ++k)
          if (k < left) s = mul_sub(s, v[k], v[k]);
        if (left <= Group) break;
      }
      return s;
    }
#endif
    for (offset_t q = b; q < e; ++q) {
      const T v = read_shared<Async, Cached>(x + q);
      s = mul_sub(s, v, v);
    }
    return s;
  }
  T sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(team, b, e),
      [&](const offset_t q, T& acc) {
        const T v = read_shared<Async, Cached>(x + q);
        acc += v * v;
      },
      sum);
  return s - sum;
}

// ---------------------------------------------------------------------------------------------------------
// The sweep, for ILU and IC (template argument Kind). One work unit = one task (an entry of S; for IC an entry
// (i, j), j <= i, of the lower part of S). In the asynchronous mode the read and write arrays are equal: the
// sweep updates the factors in place. IC is ILU with U = Lᵀ: the column storage of U is then L itself (row j of
// L), so an off-diagonal IC task is the ILU task for l_ij with the operands of L; only the pivot check (l_jj is
// positive whenever it is read, see below) and the diagonal (l_ii = sqrt(...) instead of u_ij) differ.
//
// Races (asynchronous mode) and why they are benign: task t writes exactly one entry (l_ij or u_ij, its own;
// every entry of S has one writer per sweep), and reads entries of row i of L and column j of U (IC: rows i and
// j of L) that other tasks of the same sweep may be writing at the same moment. A read then returns either the
// value of the previous sweep or the new one — never a torn mixture, because every access is a single aligned
// relaxed atomic of at most 8 bytes (load_relaxed / store_relaxed; the entry and list kernels read through
// load_relaxed_cached, which on CUDA may return a value cached in the SM's L1 earlier in the same sweep: still the
// previous sweep's value or a newer one, exec/AsyncSparse_atomics.hpp). Mixing old and new values is exactly the
// asynchronous fixed-point iteration of Chow & Patel (SISC 2015, sect. 2.2, and sect. 2.3 for the symmetric
// variant; Chow, Anzt & Dongarra 2015, sect. 3.1), which converges for any such interleaving where every unknown
// keeps being updated (Frommer & Szyld 2000); no ordering between the accesses is needed, so relaxed order
// suffices. The task list order and block order only bias which values are fresh (sect. 3.2). Pivots are never
// overwritten with zero or non-finite values (the update is skipped and the row reported; IC writes diagonal
// entries only with positive finite values, so l_jj > 0 whenever it is read as a divisor), so a reader never
// divides by such a value.
// Identity (IC only): the task list is L's entries in storage order (the row-major ordering), so task t updates
// entry t and its column is l_ent(t): the task_col / task_dst streams are not read (less memory traffic per task).
// ---------------------------------------------------------------------------------------------------------
/// The entry kernel (SweepKernel::Entry), and with Lists = true the list kernel (SweepKernel::List): the same tasks
/// in the same order, each unknown's sum taken over its product list (SweepPairsFunctor) by `vector_length` lanes
/// instead of merging two index lists. On rows of 10-40 entries the merge reads some 20-40 indices to find the few
/// products (3 per unknown on the 27-point Laplacian, 10 on bcsstk16); the list holds only the products. With one
/// lane the sums are those of the merge (same products, same order: the same bits). Both kernels read the operands
/// of the sums and the pivot with read_shared<Async, true> (on CUDA through L1: a value of this sweep or the
/// previous one, as the relaxed load); Group: list_sub's loads per thread in flight (Impl::list_gather_group).
template <ParIluKind Kind, bool Async, bool Identity, class Scalar, class Device, bool Lists = false, int Group = 1>
struct ParIluSweepFunctor {
  static_assert(Kind == ParIluKind::Ic || !Identity, "ParIluSweepFunctor: identity task lists exist for IC only");
  static constexpr bool ic = Kind == ParIluKind::Ic;
  using ord_view = Kokkos::View<const ordinal_t*, Device>;
  using off_view = Kokkos::View<const offset_t*, Device>;
  using cval_view = Kokkos::View<const Scalar*, Device>;
  ord_view task_row, task_col;
  off_view task_dst;
  cval_view task_a;
  off_view l_rm;
  ord_view l_ent;
  off_view u_rm;  // ILU: column storage of U (row j = column j); IC: not used (L's rows serve)
  ord_view u_ent;
  Scalar* l_read;  // raw device pointers: the arrays of the factors (equal pairs in the asynchronous mode)
  Scalar* l_write;
  Scalar* u_read = nullptr;  // ILU only
  Scalar* u_write = nullptr;
  Kokkos::View<unsigned long long, Device> flag;
  off_view pair_ptr, pair_x, pair_y;  // Lists only
  offset_t nnz_l = 0;                 // Lists only: unknown of Ut entry q is nnz_l + q
  int vector_length = 1;              // Lists only: lanes per unknown

  /// The update of unknown `dst` from its sum s: l_ij = s / pivot (lower; the pivot at cr + qe), u_ij = s, or the
  /// IC diagonal sqrt(s); breakdowns are reported and the entry keeps its value.
  KOKKOS_INLINE_FUNCTION void finish(ordinal_t i, ordinal_t j, offset_t dst, bool lower, Scalar s, const Scalar* cr,
                                     offset_t qe) const {
    using std::sqrt;
    if (ic && i == j) {
      if (!(s > Scalar(0)) || !is_finite(s))
        report_breakdown(flag, i, is_finite(s) ? kNonPositivePivot : kNonFinite);
      else
        write_entry<Async>(l_write + dst, Scalar(sqrt(s)));
      return;
    }
    if (lower) {
      const Scalar pivot = read_shared<Async, true>(cr + qe);
      if constexpr (!ic) {
        if (pivot == Scalar(0) || !is_finite(pivot)) {
          report_breakdown(flag, j, pivot == Scalar(0) ? kZeroPivot : kNonFinite);
          return;
        }
      }
      const Scalar v = s / pivot;
      if (!is_finite(v)) {
        report_breakdown(flag, i, kNonFinite);
        return;
      }
      write_entry<Async>(l_write + dst, v);
    } else {
      if (!is_finite(s)) {
        report_breakdown(flag, i, kNonFinite);
        return;
      }
      if (i == j && s == Scalar(0)) {
        report_breakdown(flag, i, kZeroPivot);
        return;
      }
      write_entry<Async>(u_write + dst, s);
    }
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, const std::int64_t t) const {
    const ordinal_t i = task_row(t);
    const offset_t dst = Identity ? static_cast<offset_t>(t) : task_dst(t);
    const ordinal_t j = Identity ? l_ent(dst) : task_col(t);
    Scalar s = task_a(t);
    const Scalar* lr = l_read;
    const offset_t p = l_rm(i);
    const int lanes = Lists ? vector_length : 1;
    // The second operand: column j of U (ILU), row j of L (IC).
    const off_view& c_rm = ic ? l_rm : u_rm;
    const ord_view& c_ent = ic ? l_ent : u_ent;
    const Scalar* cr = ic ? lr : u_read;
    const bool lower = ic || i > j;
    offset_t qe = 0;
    if (ic && i == j) {  // l_ii: row i of L left of the diagonal
      s = squares_sub<Async, true, Group>(team, lanes, s, lr, p, dst);
    } else if (lower) {  // l_ij: row i of L left of column j, column j of U (row j of L) left of its diagonal
      qe = c_rm(j + 1) - 1;
      if constexpr (Lists)
        s = list_sub<Async, true, Group>(team, lanes, s, pair_ptr, pair_x, pair_y, dst, lr, cr);
      else
        s = merge_sub<Async, true>(s, l_ent, lr, p, dst, c_ent, cr, c_rm(j), qe);
    } else {  // u_ij: row i of L left of the diagonal, column j of U above row i
      if constexpr (Lists)
        s = list_sub<Async, true, Group>(team, lanes, s, pair_ptr, pair_x, pair_y, nnz_l + dst, u_read, lr);
      else
        s = merge_sub<Async, true>(s, l_ent, lr, p, l_rm(i + 1) - 1, c_ent, cr, c_rm(j), dst);
    }
    if constexpr (Lists)
      Kokkos::single(Kokkos::PerThread(team), [&]() { finish(i, j, dst, lower, s, cr, qe); });
    else
      finish(i, j, dst, lower, s, cr, qe);
  }
};

// ---------------------------------------------------------------------------------------------------------
// Product lists of the list and row kernels. The sparse dot product of every unknown depends on the pattern only: which
// positions of the two operands meet (same k), in ascending k. `SweepPairsFunctor` lists them once per pattern,
// per unknown u (L entry p: u = p; ILU, Ut entry q: u = nnz(L) + q), as pairs (x, y) of positions:
//   ILU l_ij (p in row i of L):       x in row i of L left of p,      y in row j of Ut left of its diagonal;
//   ILU u_ij (q in row j of Ut):      x in row j of Ut left of q,      y in row i of L left of its diagonal;
//   IC  l_ij, i > j:                  x in row i of L left of p,      y in row j of L left of its diagonal;
// the diagonal of IC (l_ii: the squares of row i left of it, a contiguous stretch) and the unit diagonal of L (ILU:
// not an unknown) have none. One thread per task of the task list; a count pass
// (Fill = false: the count of unknown u at ptr(u + 1)) and, after a scan, a fill pass (the pairs from ptr(u)).
// A sweep then sums x_val * y_val over the list instead of merging index lists.
// ---------------------------------------------------------------------------------------------------------
/// What the product lists are built from: per task its row, column and position (L entry p, or the position of the U
/// entry in Ut), the patterns of L (rows, diagonal last) and, ILU, Ut (rows = columns of U, diagonal last), and
/// nnz(L) (the U unknowns are numbered from it). ParILU and ParILUT / ParICT share this layout.
template <class Device>
struct SweepPairsOperands {
  using ord_view = Kokkos::View<const ordinal_t*, Device>;
  using off_view = Kokkos::View<const offset_t*, Device>;
  ord_view task_row, task_col;
  off_view task_dst;
  off_view l_rm, u_rm;
  ord_view l_ent, u_ent;
  offset_t nnz_l = 0;
};

template <ParIluKind Kind, bool Fill, class Device>
struct SweepPairsFunctor : SweepPairsOperands<Device> {
  static constexpr bool ic = Kind == ParIluKind::Ic;
  using Base = SweepPairsOperands<Device>;
  using Base::l_ent, Base::l_rm, Base::nnz_l, Base::task_col, Base::task_dst, Base::task_row, Base::u_ent, Base::u_rm;
  using typename Base::off_view;
  using typename Base::ord_view;
  Kokkos::View<offset_t*, Device> ptr;  ///< Fill = false: counts (entry u + 1); true: the exclusive scan
  Kokkos::View<offset_t*, Device> px, py;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    const ordinal_t i = task_row(t), j = task_col(t);
    const offset_t dst = task_dst(t);
    const bool lower = ic || i > j;
    const offset_t u = lower ? dst : nnz_l + dst;
    offset_t out = Fill ? ptr(u) : 0;
    if (ic && i == j) {  // l_ii: summed over its row's stretch by the sweep
      if constexpr (!Fill) ptr(u + 1) = 0;
      return;
    }
    // x: the unknown's own row left of it; y: the other operand left of its diagonal (as ParIluSweepFunctor)
    const ord_view& xe = lower ? l_ent : u_ent;
    const ord_view& ye = lower ? (ic ? l_ent : u_ent) : l_ent;
    const offset_t p = lower ? l_rm(i) : u_rm(j);
    const offset_t q = lower ? (ic ? l_rm(j) : u_rm(j)) : l_rm(i);
    const offset_t qe = lower ? (ic ? l_rm(j + 1) : u_rm(j + 1)) - 1 : l_rm(i + 1) - 1;
    for_each_common(xe, p, dst, ye, q, qe, [&](offset_t a, offset_t b) {
      if constexpr (Fill) {
        px(out) = a;
        py(out) = b;
      }
      ++out;
    });
    if constexpr (!Fill) ptr(u + 1) = out;
  }
};

/// Auto keeps the entry kernel when the product lists would hold more than this many products per unknown on
/// average (memory: two positions per product; the shared matrices and generators need 0.7-11).
constexpr double kParIluMaxProductsPerUnknown = 32.0;

/// The product lists (SweepPairsFunctor) of the tasks of `ops` over `unknowns` unknowns (nnz(L), ILU + nnz(Ut)): a
/// count pass, one scan that also returns the total (the one wait for the device), a fill pass; the arrays come from
/// `alloc(name, n)` (an uninitialised View<offset_t*>; name "pair_ptr", or "pair_xy" for both position arrays: px
/// and py are its halves, one allocation instead of two), kernel labels begin with `prefix`. Returns false, with
/// ptr / px / py untouched, when the products would not fit offset_t or, with `bounded`, exceed
/// kParIluMaxProductsPerUnknown per unknown; `products` is their number either way.
/// (`alloc` is a std::function, not a template parameter: nvcc refuses a function-local lambda type as a template
/// argument of a function that contains device lambdas.)
/// The build is latency-bound on small matrices (two passes, one wait, two allocations: 85 us on fv1 for 38 k
/// products, 198 us on bcsstk16 for 1.5 M on an H200), which is why Auto keeps the entry kernel there
/// (MEASUREMENTS.md#setup-latency).
template <class Device>
struct ProductListAlloc {
  using type = std::function<Kokkos::View<offset_t*, Device>(const std::string&, std::size_t)>;
};

template <ParIluKind Kind, class ExecSpace, class Device>
bool build_product_lists(const ExecSpace& exec, const SweepPairsOperands<Device>& ops, std::int64_t unknowns,
                         bool bounded, const std::string& prefix, const typename ProductListAlloc<Device>::type& alloc,
                         Kokkos::View<offset_t*, Device>& ptr, Kokkos::View<offset_t*, Device>& px,
                         Kokkos::View<offset_t*, Device>& py, std::int64_t& products) {
  using PV = Kokkos::View<offset_t*, Device>;
  const PV count = alloc("pair_ptr", static_cast<std::size_t>(unknowns + 1));
  const auto ntasks = static_cast<std::int64_t>(ops.task_row.extent(0));
  // Every unknown with a task gets its count from the count pass; unknowns without one (ILU: the unit diagonal of
  // L, ntasks < unknowns) have none and need a zero.
  if (ntasks < unknowns) Kokkos::deep_copy(exec, count, offset_t(0));
  auto pass = [&](auto fill_tag, const PV& x, const PV& y) {
    SweepPairsFunctor<Kind, decltype(fill_tag)::value, Device> f;
    static_cast<SweepPairsOperands<Device>&>(f) = ops;
    f.ptr = count;
    f.px = x;
    f.py = y;
    Kokkos::parallel_for(prefix + "sweep_pairs", Impl::RangePolicy<ExecSpace>(exec, 0, ntasks), f);
  };
  pass(std::false_type(), count, count);
  // Inclusive scan of the counts at 1..unknowns (entry 0 contributes nothing and is set to 0), summed in 64 bits:
  // there are several times as many products as entries, and a total beyond offset_t is refused below (the
  // truncated offsets written then are never used).
  products = 0;
  Kokkos::parallel_scan(
      prefix + "sweep_pairs_scan", Impl::RangePolicy<ExecSpace>(exec, 0, unknowns + 1),
      KOKKOS_LAMBDA(const std::int64_t u, std::int64_t& sum, const bool final) {
        sum += u == 0 ? 0 : static_cast<std::int64_t>(count(u));
        if (final) count(u) = static_cast<offset_t>(sum);
      },
      products);
  if (products > static_cast<std::int64_t>(std::numeric_limits<offset_t>::max()) ||
      (bounded && double(products) > kParIluMaxProductsPerUnknown * double(std::max<std::int64_t>(unknowns, 1))))
    return false;
  const PV xy = alloc("pair_xy", 2 * static_cast<std::size_t>(products));
  const PV x = Kokkos::subview(xy, std::make_pair(std::size_t(0), static_cast<std::size_t>(products)));
  const PV y =
      Kokkos::subview(xy, std::make_pair(static_cast<std::size_t>(products), 2 * static_cast<std::size_t>(products)));
  pass(std::true_type(), x, y);
  ptr = count;
  px = x;
  py = y;
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// The row form of the sweep (SweepKernel::Row). One work unit = one row r, its unknowns updated in storage order
// by the unit's vector lanes: IC, row r of L; ILU, row r of L (l_rj, j < r; the unit diagonal is not an unknown),
// then row r of Ut (column r of U: u_kr, k <= r). For each unknown the lanes take its product list
// (SweepPairsFunctor) and sum x_val * y_val. Why: on rows of 10-40 entries (27-point stencils, FEM matrices) the
// entry kernel above merges two index lists per unknown in global memory, each thread its own, to find the few
// products (3 per unknown on the 27-point Laplacian, 10 on bcsstk16, out of some 20-40 index comparisons); here
// every load is a product, contiguous across the lanes. The unknowns of a row are updated left to right, so each
// can use the new values of the ones before it (Gauss-Seidel order inside the row).
// Sums: with one lane sequentially in ascending k with mul_sub, as ParIluSweepFunctor and the host reference (the
// same bits in the deterministic mode); with more lanes the vector reduction adds the products in another order
// (rounding differences only). Races (asynchronous mode) as for ParIluSweepFunctor: every unknown has one writer
// per sweep (its row's unit); reads of other rows return the old or the new value of an entry, never a torn one.
// a_l / a_u: the scaled a_ij of every L entry (IC: the task list in identity order) and every Ut entry (ILU).
// ---------------------------------------------------------------------------------------------------------
/// The operands of the row kernels (ParIluRowSweepFunctor, ParIluRowMergeSweepFunctor): the factors' patterns, the
/// a_ij per L and Ut entry, the value arrays read and written (equal in the asynchronous mode), the breakdown flag.
template <class Scalar, class Device>
struct RowSweepOperands {
  using ord_view = Kokkos::View<const ordinal_t*, Device>;
  using off_view = Kokkos::View<const offset_t*, Device>;
  using cval_view = Kokkos::View<const Scalar*, Device>;
  off_view l_rm;
  ord_view l_ent;
  off_view u_rm;  // ILU: column storage of U; IC: not used
  ord_view u_ent;
  cval_view a_l, a_u;
  Scalar* l_read = nullptr;
  Scalar* l_write = nullptr;
  Scalar* u_read = nullptr;
  Scalar* u_write = nullptr;
  Kokkos::View<unsigned long long, Device> flag;
};

template <ParIluKind Kind, bool Async, class Scalar, class Device>
struct ParIluRowSweepFunctor : RowSweepOperands<Scalar, Device> {
  static constexpr bool ic = Kind == ParIluKind::Ic;
  using Base = RowSweepOperands<Scalar, Device>;
  using Base::a_l, Base::a_u, Base::flag, Base::l_ent, Base::l_read, Base::l_rm, Base::l_write, Base::u_ent,
      Base::u_read, Base::u_rm, Base::u_write;
  using typename Base::off_view;
  using typename Base::ord_view;
  off_view pair_ptr, pair_x, pair_y;
  offset_t nnz_l = 0;
  int vector_length = 1;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, const std::int64_t unit) const {
    using std::sqrt;
    const ordinal_t i = static_cast<ordinal_t>(unit);
    const Scalar* lr = l_read;
    const off_view& c_rm = ic ? l_rm : u_rm;
    const Scalar* cr = ic ? lr : u_read;
    const offset_t rb = l_rm(i), re = l_rm(i + 1);
    for (offset_t p = rb; p < (ic ? re : re - 1); ++p) {
      const ordinal_t j = l_ent(p);
      if (ic && j == i) {  // l_ii = sqrt(a_ii - sum_{k<i} l_ik^2), the last entry of the row
        const Scalar s = squares_sub<Async>(team, vector_length, a_l(p), lr, rb, p);
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          if (!(s > Scalar(0)) || !is_finite(s))
            report_breakdown(flag, i, is_finite(s) ? kNonPositivePivot : kNonFinite);
          else
            write_entry<Async>(l_write + p, Scalar(sqrt(s)));
        });
        continue;
      }
      // l_ij = (a_ij - sum_{k<j} l_ik y_jk) / y_jj; the lanes agree on s (the reduction's result), one lane reads
      // the pivot and decides
      const Scalar s = list_sub<Async>(team, vector_length, a_l(p), pair_ptr, pair_x, pair_y, p, lr, cr);
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        const Scalar pivot = read_entry<Async>(cr + c_rm(j + 1) - 1);
        if (!ic && (pivot == Scalar(0) || !is_finite(pivot))) {
          report_breakdown(flag, j, pivot == Scalar(0) ? kZeroPivot : kNonFinite);
          return;
        }
        const Scalar v = s / pivot;
        if (!is_finite(v))
          report_breakdown(flag, i, kNonFinite);
        else
          write_entry<Async>(l_write + p, v);
      });
    }
    if constexpr (!ic) {  // column i of U: u_ki = a_ki - sum_{m<k} l_km u_mi, k <= i (row i of Ut, u_ii last)
      const offset_t ub = u_rm(i), ue = u_rm(i + 1);
      for (offset_t q = ub; q < ue; ++q) {
        const ordinal_t k = u_ent(q);
        const Scalar s = list_sub<Async>(team, vector_length, a_u(q), pair_ptr, pair_x, pair_y, nnz_l + q, u_read, lr);
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          if (!is_finite(s))
            report_breakdown(flag, k, kNonFinite);
          else if (k == i && s == Scalar(0))
            report_breakdown(flag, k, kZeroPivot);
          else
            write_entry<Async>(u_write + q, s);
        });
      }
    }
  }
};

// ---------------------------------------------------------------------------------------------------------
// Serial host reference of one synchronous (Jacobi-style) sweep: every unknown is recomputed from the factors
// of the previous sweep, in the summation order of the kernels. Written independently of the task machinery
// (plain loops and find_entry), for the exact-equality tests of the deterministic mode.
// ---------------------------------------------------------------------------------------------------------

/// The paper's initial guess for ILU on the host: L = strict lower part of A_S + I, U = upper part of A_S.
/// A_S: the (scaled) matrix on the pattern S, sorted rows with the diagonal stored.
inline Reference::IluFactors reference_ilu_initial_guess(const CsrHost<double>& A_S) {
  Reference::IluFactors F;
  F.L = CsrHost<double>(A_S.nrows, A_S.ncols);
  F.U = CsrHost<double>(A_S.nrows, A_S.ncols);
  for (ordinal_t i = 0; i < A_S.nrows; ++i) {
    for (offset_t p = A_S.row_ptr[i]; p < A_S.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A_S.col_idx[p];
      if (j < i) {
        F.L.col_idx.push_back(j);
        F.L.values.push_back(A_S.values[p]);
      } else {
        F.U.col_idx.push_back(j);
        F.U.values.push_back(A_S.values[p]);
      }
    }
    F.L.col_idx.push_back(i);
    F.L.values.push_back(1.0);
    F.L.row_ptr[i + 1] = static_cast<offset_t>(F.L.col_idx.size());
    F.U.row_ptr[i + 1] = static_cast<offset_t>(F.U.col_idx.size());
  }
  return F;
}

/// The initial guess for IC on the host: the lower part of A_S, diagonal sqrt(a_ii) (1 where a_ii <= 0), as
/// Ginkgo's par_ic (with the unit-diagonal scaling of the paper the diagonal is 1).
inline CsrHost<double> reference_ic_initial_guess(const CsrHost<double>& A_S) {
  CsrHost<double> L(A_S.nrows, A_S.ncols);
  for (ordinal_t i = 0; i < A_S.nrows; ++i) {
    for (offset_t p = A_S.row_ptr[i]; p < A_S.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A_S.col_idx[p];
      if (j > i) break;
      double v = A_S.values[p];
      if (j == i) v = (v > 0.0 && std::isfinite(v)) ? std::sqrt(v) : 1.0;
      L.col_idx.push_back(j);
      L.values.push_back(v);
    }
    L.row_ptr[i + 1] = static_cast<offset_t>(L.col_idx.size());
  }
  return L;
}

/// One Jacobi-style ILU sweep: (L, U) <- G(L, U) on the pattern of A_S. L unit lower (diagonal last), U upper
/// (diagonal first), both with the patterns of reference_ilu_initial_guess(A_S).
inline void reference_ilu_jacobi_sweep(const CsrHost<double>& A_S, Reference::IluFactors& F) {
  const CsrHost<double>& L = F.L;
  const CsrHost<double>& U = F.U;
  Reference::IluFactors N = F;
  for (ordinal_t i = 0; i < A_S.nrows; ++i) {
    for (offset_t p = A_S.row_ptr[i]; p < A_S.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A_S.col_idx[p];
      const ordinal_t kmax = i < j ? i : j;
      double s = A_S.values[p];
      for (offset_t a = L.row_ptr[i]; a < L.row_ptr[i + 1] && L.col_idx[a] < kmax; ++a) {
        const ordinal_t k = L.col_idx[a];
        const offset_t b = find_entry(U, k, j);
        if (b >= 0) s = mul_sub(s, L.values[a], U.values[b]);
      }
      if (i > j)
        N.L.values[find_entry(L, i, j)] = s / U.values[U.row_ptr[j]];
      else
        N.U.values[find_entry(U, i, j)] = s;
    }
  }
  F = std::move(N);
}

/// One Jacobi-style IC sweep: L <- G(L) on the lower pattern of A_S (L as reference_ic_initial_guess).
inline void reference_ic_jacobi_sweep(const CsrHost<double>& A_S, CsrHost<double>& L) {
  CsrHost<double> N = L;
  for (ordinal_t i = 0; i < A_S.nrows; ++i) {
    for (offset_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p) {
      const ordinal_t j = L.col_idx[p];
      double s = A_S.values[find_entry(A_S, i, j)];
      for (offset_t a = L.row_ptr[i]; a < L.row_ptr[i + 1] && L.col_idx[a] < j; ++a) {
        const offset_t b = find_entry(L, j, L.col_idx[a]);
        if (b >= 0) s = mul_sub(s, L.values[a], L.values[b]);
      }
      N.values[p] = i == j ? std::sqrt(s) : s / L.values[L.row_ptr[j + 1] - 1];
    }
  }
  L = std::move(N);
}

/// Multiplies the entries (i, j) of a CSR matrix by r_i / r_j (RowOverCol), r_i * r_j (RowTimesCol) or r_i (Row).
enum class RescaleKind { RowOverCol, RowTimesCol, Row };
template <class ExecSpace, class Mat, class Values, class RView>
void rescale_entries(const ExecSpace& exec, const Mat& M, const Values& vals, const RView& r, RescaleKind kind) {
  auto rm = M.graph.row_map;
  auto ent = M.graph.entries;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilu::rescale", Impl::RangePolicy<ExecSpace>(exec, 0, M.numRows()),
      KOKKOS_LAMBDA(const ordinal_t i) {
        for (offset_t k = rm(i); k < rm(i + 1); ++k) {
          const ordinal_t j = ent(k);
          if (kind == RescaleKind::RowOverCol)
            vals(k) = vals(k) * r(i) / r(j);
          else if (kind == RescaleKind::RowTimesCol)
            vals(k) = vals(k) * r(i) * r(j);
          else
            vals(k) = vals(k) * r(i);
        }
      });
}

}  // namespace Impl
}  // namespace AsyncSparse
