// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT candidate phase (Ginkgo: par_ilut_spgeam): new pattern = pattern(A) ∪ pattern(L·U)
// (ParICT: lower part of A ∪ pattern(L·Lᵀ)), values of the new entries from the residual, sum of squared residuals
// of the current factors over that pattern. Layout of the factors: AsyncSparse_par_ilut_common.hpp.
//
// One routine serves both kinds. With R the factor whose rows k, for every l_ik, give the product's pattern in row
// i, and V the one whose rows give the product's entries as dot products with rows of L:
//   ParILUT (IlutKind)  R = U (rows),  V = Ut (the columns of U); the enlarged U is built beside L;
//   ParICT  (IctKind)   R = Lᵀ (the columns of L, transposed here), V = L; only columns <= i (the lower part),
//                       and an off-diagonal residual counts twice (r_ij = r_ji).
// The pattern (steps 1.–4.) comes from the bitmap kernels of AsyncSparse_par_ilut_candidates_bitmap.hpp or from the
// sort path below (gather, sort + unique, fill), as Params::candidate_kernel says (cand_pattern); both give the same
// pattern and positions, which steps 5. and 6. turn into values and the residual.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut_handle.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_candidates_bitmap.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_common.hpp>
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>  // Impl::sort_keys

namespace AsyncSparse {
namespace Impl {

/// Output of the candidate phase: the residual of the current factors and the enlarged factors, which replace
/// the handle's only through ilut_commit.
template <class Handle>
struct IlutCandidates {
  double residual2 = 0.0;  ///< ||A_s - L U||_F^2 of the factors before the phase
  offset_t added_L = 0, added_U = 0;
  typename Handle::Factor L, U;      ///< new L (with values) and U (pattern; ParILUT)
  typename Handle::value_view uval;  ///< values of the new U, in U order (ParILUT)
};

/// Work arrays of one candidate phase.
template <class Handle>
struct CandidateWork {
  using PV = typename Handle::offset_view;
  PV ubptr;                            ///< row i's gathered columns start at ubptr(i) (room: ubptr(i + 1))
  typename Handle::ordinal_view gbuf;  ///< gathered columns; after cand_gather_sort a row's unique ones first
  PV cnt, lower;                       ///< unique columns of row i, those < i
  PV lold, uold;                       ///< position of each entry of the new L / U in the old factor; -1: new
  Kokkos::View<double*, typename Handle::device_type> r2;  ///< squared residuals, in slot order (cand_slot)
};

/// First residual slot of row i: the slots are the strict entries of L, then the entries of U (ParILUT) or the
/// diagonal of L (ParICT), row by row.
template <class Kind, class PV>
KOKKOS_INLINE_FUNCTION offset_t cand_slot(const PV& l2p, const PV& u2p, ordinal_t i) {
  if constexpr (Kind::ict)
    return l2p(i);
  else
    return (l2p(i) - i) + u2p(i);
}

/// 0. Per row i the number of columns step 1 gathers (its entries in A and, for each l_ik, the entries of row k of
/// R; duplicates included) as offsets in w.ubptr (row i's: ubptr(i + 1) - ubptr(i)); returns their total, unchecked
/// (cand_gather_sort refuses a total offset_t cannot hold). The Auto rule of cand_pattern reads the total too, before
/// it decides between the kernels (the bitmap kernel never stores the gathered columns).
template <class Kind, class ExecSpace, class Handle>
std::int64_t cand_bound(const ExecSpace& exec, Handle& h, const ilut_factor_t<Handle>& R, CandidateWork<Handle>& w) {
  using PV = typename Handle::offset_view;
  auto& st = h.state();
  const ordinal_t n = st.n;
  auto arm = st.a_row_map;
  const auto L = st.L;
  w.ubptr = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("cand_ubptr"), static_cast<std::size_t>(n) + 1);
  // the counts inside the scan (Kokkos' scan counts a row in both of its passes: cheaper than a launch of their own)
  return ilut_scan_counts(
      exec, ilut_ws(h), w.ubptr,
      KOKKOS_LAMBDA(const std::int64_t i) {
        offset_t b = arm(i + 1) - arm(i);
        for (offset_t q = L.ptr(i); q < L.ptr(i + 1); ++q) b += R.ptr(L.col(q) + 1) - R.ptr(L.col(q));
        return b;
      },
      n, -1, cand_label<Kind>("candidates_bound_scan"));
}

/// Rows of at most this many gathered columns (duplicates included) are gathered, sorted and made unique in a local
/// array of the thread; longer ones in the gather buffer. On an H200 the 5-point 1024^2 grid's rows gather about 14
/// columns: its gather and sort took 199 + 482 us as two passes over the buffer, where a thread's sort walks its row
/// with a stride of the row's length through global memory (fenced timeline of a ParILUT step,
/// nvidia-h200/ilut_row_team_2026-12-04/).
constexpr int kCandLocalColumns = 32;

/// 1-2. Per row i the columns of row i of A and of row k of R for every l_ik (k = i: the diagonal), duplicates
/// included (ParICT only columns <= i; bounds from cand_bound), sorted and made unique: the row's unique columns first
/// in its stretch of w.gbuf; cnt(i) = unique columns, lower(i) = unique columns < i.
template <class Kind, class ExecSpace, class Handle>
void cand_gather_sort(const ExecSpace& exec, Handle& h, const ilut_factor_t<Handle>& R, std::int64_t bound_total,
                      CandidateWork<Handle>& w) {
  using PV = typename Handle::offset_view;
  using OV = typename Handle::ordinal_view;
  auto& st = h.state();
  const ordinal_t n = st.n;
  auto arm = st.a_row_map;
  auto aent = st.a_entries;
  const auto L = st.L;
  const offset_t total = ilut_check_entries(bound_total, cand_label<Kind>("candidates_bound_scan"));
  w.gbuf = ilut_alloc<OV>(ilut_ws(h), cand_label<Kind>("cand_gather"), total);
  w.cnt = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("cand_cnt"), n);
  w.lower = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("cand_lower"), n);
  const CandidateWork<Handle> W = w;
  Kokkos::parallel_for(
      cand_label<Kind>("candidates_gather_sort"), Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        const ordinal_t last = Kind::ict ? i : n;  // largest column gathered
        const offset_t b = W.ubptr(i);
        ordinal_t local[kCandLocalColumns];
        const bool in_local = W.ubptr(i + 1) - b <= kCandLocalColumns;  // cand_bound's count of row i
        ordinal_t* c = in_local ? local : &W.gbuf(b);
        std::int64_t m = 0;
        for (offset_t k = arm(i); k < arm(i + 1) && aent(k) <= last; ++k) c[m++] = aent(k);
        for (offset_t q = L.ptr(i); q < L.ptr(i + 1); ++q) {
          const ordinal_t k = L.col(q);
          for (offset_t r = R.ptr(k); r < R.ptr(k + 1) && R.col(r) <= last; ++r) c[m++] = R.col(r);
        }
        sort_keys(c, m);
        offset_t p = 0, lo = 0;
        for (std::int64_t r = 0; r < m; ++r) {
          if (r > 0 && c[r] == c[r - 1]) continue;
          W.gbuf(b + p++) = c[r];  // in place where c is the buffer itself: p <= r
          if (c[r] < i) ++lo;
        }
        W.cnt(i) = p;
        W.lower(i) = lo;
      });
}

/// Row i's entries of the enlarged L (lower(i) strict ones and the diagonal; `upper`: of U, the cnt(i) - lower(i)
/// others), read by the pointer scans of cand_allocate (no count arrays and no launch of their own).
template <class PV>
struct CandRowCount {
  PV cnt, lower;
  bool upper = false;
  KOKKOS_INLINE_FUNCTION offset_t operator()(const ordinal_t i) const {
    return upper ? cnt(i) - lower(i) : lower(i) + 1;
  }
};

/// 3. The enlarged factors' row pointers and entry arrays: row i of L gets lower(i) strict entries and its
/// diagonal, row i of U (ParILUT) the cnt(i) - lower(i) others. `bound`: cand_bound's total (-1: not computed), at
/// least the entries of either factor (a row's unique columns are among its gathered ones). Where it fits offset_t,
/// ParILUT scans both factors' row pointers in offset_t before it reads their totals, in one wait for the device;
/// otherwise each scan reads its 64-bit total and refuses a pattern offset_t cannot hold (ilut_scan). On an H100 the
/// one wait made ParILUT steps 0.994-0.998x as long on L2D, L3D, bcsstk16, bodyy4 and fv1, 0.975x on cryg2500
/// (MEASUREMENTS.md#par-ilut-kept-count).
template <class Kind, class ExecSpace, class Handle>
void cand_allocate(const ExecSpace& exec, Handle& h, const CandidateWork<Handle>& w, IlutCandidates<Handle>& res,
                   std::int64_t bound) {
  using PV = typename Handle::offset_view;
  auto& st = h.state();
  const bool det = h.params.mode == SweepMode::Deterministic;
  const ordinal_t n = st.n;
  const CandRowCount<PV> lcnt{w.cnt, w.lower, false}, ucnt{w.cnt, w.lower, true};
  auto& L2 = res.L;
  L2.ptr = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("lptr"), static_cast<std::size_t>(n) + 1);
  if constexpr (Kind::ict) {
    (void)bound;
    ilut_alloc_entries(ilut_ws(h), L2, ilut_scan(exec, ilut_ws(h), L2.ptr, lcnt, n, cand_label<Kind>("lptr_scan")),
                       true, det);
  } else {
    auto& U2 = res.U;
    U2.ptr = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("uptr"), static_cast<std::size_t>(n) + 1);
    offset_t total[2];
    if (bound >= 0 && bound <= max_stored_entries) {
      ilut_scan_counts(exec, ilut_ws(h), L2.ptr, lcnt, n, bound, cand_label<Kind>("lptr_scan"), false);
      ilut_scan_counts(exec, ilut_ws(h), U2.ptr, ucnt, n, bound, cand_label<Kind>("uptr_scan"), false);
      using H = Kokkos::View<offset_t, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
      Kokkos::deep_copy(exec, H(total), Kokkos::subview(L2.ptr, n));
      Kokkos::deep_copy(exec, H(total + 1), Kokkos::subview(U2.ptr, n));
      exec.fence();
    } else {
      total[0] = ilut_scan(exec, ilut_ws(h), L2.ptr, lcnt, n, cand_label<Kind>("lptr_scan"));
      total[1] = ilut_scan(exec, ilut_ws(h), U2.ptr, ucnt, n, cand_label<Kind>("uptr_scan"));
    }
    ilut_alloc_entries(ilut_ws(h), L2, total[0], true, det);
    ilut_alloc_entries(ilut_ws(h), U2, total[1], false, false);
    res.uval = ilut_alloc<typename Handle::value_view>(ilut_ws(h), cand_label<Kind>("uval"), U2.nnz);
    res.added_U = U2.nnz - st.U.nnz;
  }
  res.added_L = L2.nnz - st.L.nnz;
}

/// 4. The patterns of the enlarged factors and, for each entry, its position in A and in the old factors (-1: new).
template <class Kind, class ExecSpace, class Handle>
void cand_fill(const ExecSpace& exec, Handle& h, CandidateWork<Handle>& w, IlutCandidates<Handle>& res) {
  using PV = typename Handle::offset_view;
  auto& st = h.state();
  const bool det = h.params.mode == SweepMode::Deterministic;
  w.lold = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("cand_lold"), res.L.nnz);
  if constexpr (!Kind::ict) w.uold = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("cand_uold"), res.U.nnz);
  auto arm = st.a_row_map;
  auto aent = st.a_entries;
  auto umap = st.umap;
  const auto L = st.L, U = st.U, L2 = res.L, U2 = res.U;
  const CandidateWork<Handle> W = w;
  Kokkos::parallel_for(
      cand_label<Kind>("candidates_fill"), Impl::RangePolicy<ExecSpace>(exec, 0, st.n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        // nvcc: an extended lambda may not capture a variable for the first time inside `if constexpr`
        (void)U;
        (void)U2;
        (void)umap;
        (void)det;
        const offset_t b = W.ubptr(i), nl = W.lower(i), nc = W.cnt(i);
        offset_t pa = arm(i), pl = L.ptr(i), pu = 0;
        if constexpr (!Kind::ict) pu = U.ptr(i);
        for (offset_t t = 0; t < nc; ++t) {
          const ordinal_t c = W.gbuf(b + t);
          while (pa < arm(i + 1) && aent(pa) < c) ++pa;
          const offset_t ap = (pa < arm(i + 1) && aent(pa) == c) ? pa : -1;
          if (t < nl) {
            const offset_t q = L2.ptr(i) + t;
            while (pl < L.ptr(i + 1) && L.col(pl) < c) ++pl;
            L2.col(q) = c;
            L2.row(q) = i;
            L2.apos(q) = ap;
            W.lold(q) = (pl < L.ptr(i + 1) && L.col(pl) == c) ? pl : -1;
            continue;
          }
          if constexpr (!Kind::ict) {
            const offset_t q = U2.ptr(i) + (t - nl);
            while (pu < U.ptr(i + 1) && U.col(pu) < c) ++pu;
            U2.col(q) = c;
            U2.row(q) = i;
            U2.apos(q) = ap;
            W.uold(q) = (pu < U.ptr(i + 1) && U.col(pu) == c) ? umap(pu) : -1;
          }
          if (c == i) {  // the diagonal of L, last in its row (ParILUT: the unit diagonal)
            const offset_t d = L2.ptr(i + 1) - 1;
            L2.col(d) = i;
            L2.row(d) = i;
            L2.apos(d) = ap;
            W.lold(d) = L.ptr(i + 1) - 1;
            if constexpr (!Kind::ict) {
              L2.val(d) = 1;
              if (det) L2.val2(d) = 1;
            }
          }
        }
      });
}

/// 5. Values of the enlarged factors from the old factors (read only here): an old entry keeps its value, a new
/// one gets one fixed-point update; the squared residuals of the old factors go to r2 (slot order, cand_slot). One
/// thread per entry, not per row: rows of FEM matrices hold tens to hundreds of candidates, and a thread per row
/// leaves most of a GPU idle (the ParICT step on bcsstk16 took 40 % longer that way on an H100).
template <class Kind, class ExecSpace, class Handle>
void cand_values(const ExecSpace& exec, Handle& h, const ilut_factor_t<Handle>& V, CandidateWork<Handle>& w,
                 IlutCandidates<Handle>& res) {
  using Scalar = typename Handle::scalar_type;
  auto& st = h.state();
  const bool det = h.params.mode == SweepMode::Deterministic;
  const ordinal_t n = st.n;
  w.r2 = ilut_alloc<decltype(w.r2)>(ilut_ws(h), cand_label<Kind>("cand_r2"),
                                    Kind::ict ? res.L.nnz : res.L.nnz - n + res.U.nnz);
  const double w_off = Kind::ict ? 2.0 : 1.0;  // ParICT: l_ij (i != j) stands for r_ij and r_ji
  auto aval = st.a_val;
  const auto L = st.L, L2 = res.L, U2 = res.U;
  const CandidateWork<Handle> W = w;
  Kokkos::parallel_for(
      cand_label<Kind>("candidates_values"), Impl::RangePolicy<ExecSpace>(exec, 0, L2.nnz),
      KOKKOS_LAMBDA(const offset_t q) {  // l_ic = (a_ic - sum_{k<c} l_ik v_ck) / v_cc
        const ordinal_t i = L2.row(q), c = L2.col(q);
        if (!Kind::ict && c == i) return;  // ParILUT: the unit diagonal is no unknown (set by cand_fill)
        const offset_t t = cand_slot<Kind>(L2.ptr, U2.ptr, i) + (q - L2.ptr(i));
        const Scalar a = L2.apos(q) >= 0 ? aval(L2.apos(q)) : Scalar(0);
        const Scalar s = ilut_merge_dot(L.col, L.val, L.ptr(i), L.ptr(i + 1), V.col, V.val, V.ptr(c), V.ptr(c + 1), c);
        const Scalar vcc = V.val(V.ptr(c + 1) - 1);
        Scalar r, v;
        if (W.lold(q) >= 0) {
          v = L.val(W.lold(q));
          r = (a - s) - ilut_mul(v, i == c ? v : vcc);
        } else {
          r = a - s;
          v = r / vcc;
          if (!is_finite(v)) v = 0;
        }
        L2.val(q) = v;
        if (det) L2.val2(q) = v;
        W.r2(t) = (i == c ? 1.0 : w_off) * static_cast<double>(r) * static_cast<double>(r);
      });
  if constexpr (!Kind::ict) {
    auto u2val = res.uval;
    Kokkos::parallel_for(
        cand_label<Kind>("candidates_values_u"), Impl::RangePolicy<ExecSpace>(exec, 0, U2.nnz),
        KOKKOS_LAMBDA(const offset_t q) {  // u_ic = a_ic - sum_{k<i} l_ik u_kc
          const ordinal_t i = U2.row(q), c = U2.col(q);
          // the row's slots: its strict L entries, then its U entries
          const offset_t t = cand_slot<Kind>(L2.ptr, U2.ptr, i) + (L2.ptr(i + 1) - 1 - L2.ptr(i)) + (q - U2.ptr(i));
          const Scalar a = U2.apos(q) >= 0 ? aval(U2.apos(q)) : Scalar(0);
          const Scalar s =
              ilut_merge_dot(L.col, L.val, L.ptr(i), L.ptr(i + 1), V.col, V.val, V.ptr(c), V.ptr(c + 1), i);
          Scalar r, v;
          if (W.uold(q) >= 0) {
            v = V.val(W.uold(q));
            r = (a - s) - v;
          } else {
            r = a - s;
            v = is_finite(r) ? r : Scalar(0);
          }
          u2val(q) = v;
          W.r2(t) = static_cast<double>(r) * static_cast<double>(r);
        });
  }
}

/// 6. ||A_s - L U||_F^2 of the old factors over the new pattern: per-row sums in slot order, then the total.
template <class Kind, class ExecSpace, class Handle>
double cand_residual2(const ExecSpace& exec, Handle& h, const CandidateWork<Handle>& w,
                      const IlutCandidates<Handle>& res) {
  using DV = Kokkos::View<double*, typename Handle::device_type>;
  const ordinal_t n = h.state().n;
  DV rowsum = ilut_alloc<DV>(ilut_ws(h), cand_label<Kind>("cand_rowsum"), n);
  auto l2p = res.L.ptr;
  auto u2p = res.U.ptr;
  auto r2 = w.r2;
  Kokkos::parallel_for(
      cand_label<Kind>("candidates_rowsum"), Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        double s = 0;
        for (offset_t t = cand_slot<Kind>(l2p, u2p, i); t < cand_slot<Kind>(l2p, u2p, i + 1); ++t) s += r2(t);
        rowsum(i) = s;
      });
  return ilut_sum(exec, rowsum, n, h.params.mode == SweepMode::Deterministic);
}

/// Steps 1.–4. by the bitmap kernels (AsyncSparse_par_ilut_candidates_bitmap.hpp): rows of at most `words` words;
/// `bound` as for cand_allocate.
template <class Kind, class ExecSpace, class Handle>
void cand_bitmap(const ExecSpace& exec, Handle& h, const ilut_factor_t<Handle>& R, std::int64_t words,
                 const CandBitmapShape& shape, const typename Handle::ordinal_view& wbase,
                 const typename Handle::ordinal_view& wlen, CandidateWork<Handle>& w, IlutCandidates<Handle>& res,
                 std::int64_t bound) {
  using PV = typename Handle::offset_view;
  auto& st = h.state();
  const ordinal_t n = st.n;
  w.cnt = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("cand_cnt"), n);
  w.lower = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("cand_lower"), n);
  auto setup = [&](auto& k) {
    k.n = n;
    k.rows_per_team = shape.rows_per_team;
    k.lanes = shape.lanes;
    k.rows_per_thread = shape.rows_per_thread;
    k.words = words;
    k.arm = st.a_row_map;
    k.aent = st.a_entries;
    k.L = st.L;
    k.R = R;
    k.U = st.U;
    k.wbase = wbase;
    k.wlen = wlen;
    k.cnt = w.cnt;
    k.lower = w.lower;
  };
  CandBitmapKernel<Kind, ExecSpace, Handle, false> counter;
  setup(counter);
  cand_bitmap_launch(exec, cand_label<Kind>("candidates_bitmap_count").c_str(), counter);
  cand_allocate<Kind>(exec, h, w, res, bound);
  w.lold = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("cand_lold"), res.L.nnz);
  if constexpr (!Kind::ict) w.uold = ilut_alloc<PV>(ilut_ws(h), cand_label<Kind>("cand_uold"), res.U.nnz);
  CandBitmapKernel<Kind, ExecSpace, Handle, true> filler;
  setup(filler);
  filler.L2 = res.L;
  filler.U2 = res.U;
  filler.lold = w.lold;
  filler.uold = w.uold;
  filler.umap = st.umap;
  filler.det = h.params.mode == SweepMode::Deterministic;
  cand_bitmap_launch(exec, cand_label<Kind>("candidates_bitmap_fill").c_str(), filler);
}

/// Steps 1.–4. by the kernel Params::candidate_kernel names or the Auto rule picks; records the choice in Stats.
template <class Kind, class ExecSpace, class Handle>
void cand_pattern(const ExecSpace& exec, Handle& h, const ilut_factor_t<Handle>& R, CandidateWork<Handle>& w,
                  IlutCandidates<Handle>& res) {
  using OV = typename Handle::ordinal_view;
  const ordinal_t n = h.state().n;
  const CandidateKernel requested = h.params.candidate_kernel;
  CandidateKernel kernel = CandidateKernel::Sort;
  std::int64_t words = 0;
  double gathered = -1.0, mean_words = -1.0;
  // Auto: the gathered columns first (the sort kernel's bounds, which it reuses); the span pass only where they ask
  // for the bitmap kernel
  bool bitmap = requested != CandidateKernel::Sort;
  std::int64_t total = -1;
  if (requested == CandidateKernel::Auto) {
    total = cand_bound<Kind>(exec, h, R, w);
    gathered = static_cast<double>(total) / static_cast<double>(n);
    bitmap = gathered >= cand_bitmap_min_gathered(is_gpu_space<ExecSpace>());
  }
  if (bitmap) {
    OV wbase = ilut_alloc<OV>(ilut_ws(h), cand_label<Kind>("cand_wbase"), n),
       wlen = ilut_alloc<OV>(ilut_ws(h), cand_label<Kind>("cand_wlen"), n);
    const CandSpans spans = cand_span<Kind>(exec, h, R, wbase, wlen);
    words = spans.widest;
    const CandBitmapShape shape = cand_bitmap_shape<ExecSpace>(words);
    if (shape.rows_per_team == 0 && requested == CandidateKernel::Bitmap)
      throw InvalidInput(std::string(par_ilut_name(h)) + ": candidate_kernel=bitmap: a row of the candidate pattern " +
                         "spans " + std::to_string(32 * words) + " columns, more than the scratch memory of one " +
                         "team holds on " + ExecSpace::name() + " (" +
                         std::to_string(Impl::TeamPolicy<ExecSpace>::scratch_size_max(0)) +
                         " bytes, 8 per 32 columns); use candidate_kernel=auto or sort");
    bitmap = shape.rows_per_team > 0;
    if (bitmap && requested == CandidateKernel::Auto) {
      mean_words = spans.mean;
      bitmap = mean_words <= cand_bitmap_max_words_per_gathered * gathered;
    }
    if (bitmap) {
      kernel = CandidateKernel::Bitmap;
      cand_bitmap<Kind>(exec, h, R, words, shape, wbase, wlen, w, res, total);
    }
  }
  if (kernel == CandidateKernel::Sort) {
    if (total < 0) total = cand_bound<Kind>(exec, h, R, w);
    cand_gather_sort<Kind>(exec, h, R, total, w);
    cand_allocate<Kind>(exec, h, w, res, total);
    cand_fill<Kind>(exec, h, w, res);
  }
  h.stats().candidate_kernel = kernel;
  h.stats().candidate_span_words = words;
  h.stats().candidate_gathered_per_row = gathered;
  h.stats().candidate_mean_span_words = mean_words;
}

/// The candidate phase of ParILUT (Kind = IlutKind) or ParICT (IctKind) from the handle's current factors, which it
/// leaves unchanged.
template <class Kind, class ExecSpace, class Handle>
IlutCandidates<Handle> ilut_candidates(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  ilut_factor_t<Handle> R = st.U, V = st.Ut;
  if constexpr (Kind::ict) {  // R = Lᵀ: row k lists the rows c >= k with l_ck stored
    typename Handle::offset_view src;
    ilut_transpose(exec, ilut_ws(h), st.n, st.L, R, src);
    V = st.L;
  }
  CandidateWork<Handle> w;
  IlutCandidates<Handle> res;
  cand_pattern<Kind>(exec, h, R, w, res);
  cand_values<Kind>(exec, h, V, w, res);
  res.residual2 = cand_residual2<Kind>(exec, h, w, res);
  return res;
}

template <class ExecSpace, class Handle>
IlutCandidates<Handle> ilut_any_candidates(const ExecSpace& exec, Handle& h) {
  return h.state().kind == ParIlutKind::Ict ? ilut_candidates<IctKind>(exec, h) : ilut_candidates<IlutKind>(exec, h);
}

/// Replace the handle's factors by the enlarged ones of the candidate phase.
template <class ExecSpace, class Handle>
void ilut_commit(const ExecSpace& exec, Handle& h, const IlutCandidates<Handle>& c) {
  auto& st = h.state();
  st.L = c.L;
  ++st.pattern_generation;
  if (st.kind == ParIlutKind::Ilut) {
    st.U = c.U;
    ilut_build_ut(exec, h, c.uval, h.params.mode == SweepMode::Deterministic);
    ilut_build_tasks(exec, h);
  }
}

}  // namespace Impl
}  // namespace AsyncSparse
