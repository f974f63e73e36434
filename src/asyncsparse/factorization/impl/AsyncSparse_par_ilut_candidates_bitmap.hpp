// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT candidate phase, bitmap kernels (CandidateKernel::Bitmap): the pattern of row i of
// A ∪ L·U (ParICT: of the lower part of A ∪ L·Lᵀ) as a bitmap over the row's column span, in the scratch memory of
// the row's team. Replaces the gather / sort / unique / merge passes of AsyncSparse_par_ilut_candidates.hpp, which
// a thread per row runs in global memory (a heap sort of up to hundreds of columns on a 27-point stencil), by two
// team kernels that each rebuild the bitmap:
//   count: cnt(i) = set bits, lower(i) = set bits of columns < i;
//   fill:  the enlarged factors' columns in order (the set bits enumerated after a prefix sum of the words'
//          popcounts), then the positions in A and in the old factors scattered to the rank of their columns.
// The result is identical to the sort path's (same pattern, same positions). On GPUs a team holds up to four rows,
// each handled by a 32-lane vector (the lanes mark the columns of one row of R with atomic ORs in scratch); on
// host backends a team is one thread and one row. The span of row i (from its smallest to its largest candidate
// column, in words of 32 columns) comes from one pass over the first and last column of each row of A and R it
// meets; its maximum over the rows sizes the scratch.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>  // Compat::JoinDst
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_common.hpp>

namespace AsyncSparse {
namespace Impl {

/// Set bits of x. On the host by shifts and masks: without -mpopcnt (the library is built for the generic x86-64
/// target) __builtin_popcount is a call into libgcc, which made the host kernels twice as slow as this.
KOKKOS_FORCEINLINE_FUNCTION int cand_popcount(std::uint32_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __popc(x);
#else
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
#endif
}

/// Index of the lowest set bit of x != 0.
KOKKOS_FORCEINLINE_FUNCTION int cand_lowest_bit(std::uint32_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __ffs(x) - 1;
#else
  return __builtin_ctz(x);
#endif
}

/// The column spans of the rows of the candidate pattern: wbase(i) = first 32-column word of row i, wlen(i) = its
/// words; reduces the largest wlen and their sum (an array reduction of two values: one wait for the device).
template <class Kind, class Handle>
struct CandSpanFunctor {
  using value_type = std::int64_t[];
  using size_type = unsigned;
  size_type value_count = 2;  ///< [0]: the largest wlen, [1]: the sum of wlen
  typename Handle::crs_type::row_map_type arm;
  typename Handle::crs_type::index_type aent;
  ilut_factor_t<Handle> L, R;
  typename Handle::ordinal_view wbase, wlen;

  KOKKOS_INLINE_FUNCTION void init(std::int64_t* v) const { v[0] = v[1] = 0; }
  KOKKOS_INLINE_FUNCTION void join(Compat::JoinDst<std::int64_t> dst, Compat::JoinSrc<std::int64_t> src) const {
    if (src[0] > dst[0]) dst[0] = src[0];
    dst[1] += src[1];
  }
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, std::int64_t* acc) const {
    ordinal_t lo = i, hi = i;  // the diagonal is in row i of A (par_ilut_symbolic checks)
    if (arm(i) < arm(i + 1)) {
      lo = aent(arm(i)) < lo ? aent(arm(i)) : lo;
      hi = aent(arm(i + 1) - 1) > hi ? aent(arm(i + 1) - 1) : hi;
    }
    for (offset_t q = L.ptr(i); q < L.ptr(i + 1); ++q) {
      const ordinal_t k = L.col(q);
      if (R.ptr(k) == R.ptr(k + 1)) continue;
      const ordinal_t first = R.col(R.ptr(k)), last = R.col(R.ptr(k + 1) - 1);
      lo = first < lo ? first : lo;
      hi = last > hi ? last : hi;
    }
    if (Kind::ict) hi = i;  // ParICT: columns <= i only
    wbase(i) = lo >> 5;
    const ordinal_t words = (hi >> 5) - (lo >> 5) + 1;
    wlen(i) = words;
    if (words > acc[0]) acc[0] = words;
    acc[1] += words;
  }
};

/// What cand_span found: the widest span and the mean span in 32-column words (the Auto rule weighs the mean after
/// the gathered columns, cand_bound in AsyncSparse_par_ilut_candidates.hpp).
struct CandSpans {
  std::int64_t widest = 0;
  double mean = 0.0;
};

/// The spans of the rows of the candidate pattern into wbase / wlen (CandSpanFunctor).
template <class Kind, class ExecSpace, class Handle>
CandSpans cand_span(const ExecSpace& exec, Handle& h, const ilut_factor_t<Handle>& R,
                    const typename Handle::ordinal_view& wbase, const typename Handle::ordinal_view& wlen) {
  auto& st = h.state();
  CandSpanFunctor<Kind, Handle> f;
  f.arm = st.a_row_map;
  f.aent = st.a_entries;
  f.L = st.L;
  f.R = R;
  f.wbase = wbase;
  f.wlen = wlen;
  std::int64_t r[2] = {0, 0};
  Kokkos::parallel_reduce(
      cand_label<Kind>("candidates_span"), Impl::RangePolicy<ExecSpace>(exec, 0, st.n), f,
      Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(r, 2));
  exec.fence();  // a reduction into a View need not wait for its result (backend-dependent)
  return {r[0], static_cast<double>(r[1]) / static_cast<double>(st.n)};
}

/// Auto rule: the bitmap kernel from this many gathered columns per row on average (below, the sort kernel), on
/// GPUs and on host backends. Measured with Perf_par_ilut's par_il*_candidates (bitmap / sort time, same run):
/// H100 (CUDA): 0.75-0.83x at 14 per row on the 5-point Laplacian of 1024^2 (its span is 2,080 columns), 1.06-1.08x
/// at 14 on convection-diffusion 256^2 and cryg2500, 1.3-1.4x at 23-34 (bodyy4, fv1, 9-point anisotropic diffusion),
/// 1.8-11x from 61 on (bcsstk18, bcsstk16, Trefethen 20,000, 27-point Laplacian 64^3). 2-core host (OpenMP, 1 and 2
/// threads): 0.6-0.8x at 14, 0.8-1.2x at 23-34, 1.5-3x from 61 on.
inline double cand_bitmap_min_gathered(bool gpu) { return gpu ? 20.0 : 40.0; }

/// Auto rule, second part: the bitmap kernel only while its rows span at most this many 32-column words per gathered
/// column on average. The bitmap kernels touch every word of a row's span (clear, count, prefix, enumerate, in both
/// kernels); a matrix in a poor order spreads few columns over a wide span: a randomly permuted 9-point 200^2
/// grid (40 gathered columns, spans of about 40,000 columns = 31 words per gathered column) took 2.3-2.7x the sort
/// kernel's time on the 2-core host. The matrices where the bitmap kernel wins have at most 2.1 (Trefethen 20,000).
constexpr double cand_bitmap_max_words_per_gathered = 4.0;

/// Team shape of the bitmap kernels: rows per team at a time (team size), lanes per row (vector length) and rows
/// each thread handles one after another. Host: one thread per team with 64 rows (a team per row cost as much as
/// the work of a 5-point row in Kokkos' OpenMP team launch); GPU: up to 4 rows at a time, one each.
struct CandBitmapShape {
  int rows_per_team = 1;
  int lanes = 1;
  int rows_per_thread = 1;
};

/// Scratch bytes of the bitmap kernels per row of `words` words (the fill kernel keeps a prefix count per word).
inline std::int64_t cand_bitmap_bytes_per_row(std::int64_t words) { return 8 * words; }

/// The shape for rows of at most `words` words, or rows_per_team = 0 when one row does not fit the level-0 scratch.
template <class ExecSpace>
CandBitmapShape cand_bitmap_shape(std::int64_t words) {
  const std::int64_t room = Impl::TeamPolicy<ExecSpace>::scratch_size_max(0) - 64;
  CandBitmapShape s;
  if (is_gpu_space<ExecSpace>()) {
    s.lanes = 32;
    s.rows_per_team = 4;
    while (s.rows_per_team > 0 && s.rows_per_team * cand_bitmap_bytes_per_row(words) > room) s.rows_per_team /= 2;
  } else {
    s.rows_per_team = cand_bitmap_bytes_per_row(words) <= room ? 1 : 0;
    s.rows_per_thread = 64;
  }
  return s;
}

/// The two bitmap kernels (Fill = false: counts; true: the enlarged factors' patterns and positions).
template <class Kind, class ExecSpace, class Handle, bool Fill>
struct CandBitmapKernel {
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  using Factor = ilut_factor_t<Handle>;
  using OV = typename Handle::ordinal_view;
  using PV = typename Handle::offset_view;
  using Words =
      Kokkos::View<std::uint32_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ordinal_t n;
  int rows_per_team, lanes, rows_per_thread;
  std::int64_t words;  ///< scratch words per row
  typename Handle::crs_type::row_map_type arm;
  typename Handle::crs_type::index_type aent;
  Factor L, R, U;  ///< old factors; R: the rows meeting L (CandidateWork); U: old U (ParILUT)
  OV wbase, wlen;  ///< spans (cand_span)
  PV cnt, lower;   ///< count kernel: outputs; fill kernel: inputs
  Factor L2, U2;   ///< fill kernel: the enlarged factors (row pointers set)
  PV lold, uold;   ///< fill kernel: positions in the old factors (-1: new)
  PV umap;         ///< ParILUT: U entry -> Ut entry
  bool det = false;

  std::size_t scratch_bytes() const {
    return static_cast<std::size_t>(rows_per_team) * static_cast<std::size_t>(words) * (Fill ? 8 : 4);
  }

  KOKKOS_INLINE_FUNCTION void mark(std::uint32_t* bits, ordinal_t base, ordinal_t c) const {
    const std::uint32_t bit = std::uint32_t(1) << (c & 31);
    if (lanes == 1)
      bits[(c >> 5) - base] |= bit;
    else
      Kokkos::atomic_fetch_or(&bits[(c >> 5) - base], bit);
  }

  /// Rank of column c (set) in the row: the set bits before it.
  KOKKOS_INLINE_FUNCTION offset_t rank(const std::uint32_t* bits, const std::int32_t* pre, ordinal_t base,
                                       ordinal_t c) const {
    const ordinal_t w = (c >> 5) - base;
    return pre[w] + cand_popcount(bits[w] & ((std::uint32_t(1) << (c & 31)) - 1));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& t) const {
    Words all(t.team_scratch(0), static_cast<std::size_t>(rows_per_team) * words * (Fill ? 2 : 1));
    std::uint32_t* bits = all.data() + static_cast<std::int64_t>(t.team_rank()) * words;
    std::uint32_t* pre =
        Fill ? all.data() + (static_cast<std::int64_t>(rows_per_team) + t.team_rank()) * words : nullptr;
    for (int r = 0; r < rows_per_thread; ++r) {  // the same trip count on every thread: barriers inside
      const std::int64_t i =
          (static_cast<std::int64_t>(t.league_rank()) * rows_per_thread + r) * rows_per_team + t.team_rank();
      row(t, bits, pre, i < n ? static_cast<ordinal_t>(i) : n);
    }
  }

  /// Row i (i = n: no row, the thread only takes part in the barriers).
  KOKKOS_INLINE_FUNCTION void row(const member_type& t, std::uint32_t* bits, std::uint32_t* pre, ordinal_t i) const {
    const bool valid = i < n;
    const ordinal_t base = valid ? wbase(i) : 0;
    const ordinal_t nw = valid ? wlen(i) : 0;
    const ordinal_t last = Kind::ict ? i : n - 1;
    // every thread of the team reaches every barrier: the work of an invalid row is empty
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, nw), [&](const ordinal_t w) { bits[w] = 0; });
    t.team_barrier();
    if (valid) {
      const offset_t ab = arm(i), ae = arm(i + 1);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, ae - ab), [&](const offset_t j) {
        if (aent(ab + j) <= last) mark(bits, base, aent(ab + j));
      });
      for (offset_t q = L.ptr(i); q < L.ptr(i + 1); ++q) {
        const ordinal_t k = L.col(q);
        const offset_t rb = R.ptr(k), re = R.ptr(k + 1);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, re - rb), [&](const offset_t j) {
          if (R.col(rb + j) <= last) mark(bits, base, R.col(rb + j));
        });
      }
    }
    t.team_barrier();
    if constexpr (!Fill)
      count(t, bits, i, base, nw);
    else
      fill(t, bits, pre, i, base, nw, last);
    t.team_barrier();  // the next row of this thread reuses the scratch
  }

  KOKKOS_INLINE_FUNCTION void count(const member_type& t, const std::uint32_t* bits, ordinal_t i, ordinal_t base,
                                    ordinal_t nw) const {
    if (i >= n) return;
    const ordinal_t wi = (i >> 5) - base;  // the word of column i
    // both counts in one sum: all set bits in the upper 32 bits, those of columns < i in the lower (each < 2^31)
    std::int64_t both = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(t, nw),
        [&](const ordinal_t w, std::int64_t& s) {
          const std::uint32_t x = bits[w];
          const std::uint32_t below = w < wi ? x : w == wi ? x & ((std::uint32_t(1) << (i & 31)) - 1) : 0;
          s += (static_cast<std::int64_t>(cand_popcount(x)) << 32) + cand_popcount(below);
        },
        both);
    Kokkos::single(Kokkos::PerThread(t), [&]() {
      cnt(i) = static_cast<offset_t>(both >> 32);
      lower(i) = static_cast<offset_t>(both & 0xFFFFFFFF);
    });
  }

  KOKKOS_INLINE_FUNCTION void fill(const member_type& t, const std::uint32_t* bits, std::uint32_t* pre_words,
                                   ordinal_t i, ordinal_t base, ordinal_t nw, ordinal_t last) const {
    auto* pre = reinterpret_cast<std::int32_t*>(pre_words);
    Kokkos::parallel_scan(Kokkos::ThreadVectorRange(t, nw), [&](const ordinal_t w, std::int32_t& s, const bool final) {
      if (final) pre[w] = s;
      s += cand_popcount(bits[w]);
    });
    t.team_barrier();
    const bool valid = i < n;
    const offset_t nl = valid ? lower(i) : 0;
    const offset_t lp = valid ? L2.ptr(i) : 0, d = valid ? L2.ptr(i + 1) - 1 : 0;
    offset_t up = 0;
    if constexpr (!Kind::ict) up = valid ? U2.ptr(i) : 0;
    // 1. the columns in order; positions -1 (new) until step 2
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, nw), [&](const ordinal_t w) {
      std::uint32_t x = bits[w];
      offset_t r = pre[w];
      for (; x != 0; x &= x - 1, ++r) {
        const ordinal_t c = (base + w) * 32 + cand_lowest_bit(x);
        if (Kind::ict || r < nl) {  // ParICT: r == nl is the diagonal, the last entry of the row of L
          L2.col(lp + r) = c;
          L2.row(lp + r) = i;
          L2.apos(lp + r) = -1;
          lold(lp + r) = -1;
          continue;
        }
        if constexpr (!Kind::ict) {
          const offset_t q = up + (r - nl);
          U2.col(q) = c;
          U2.row(q) = i;
          U2.apos(q) = -1;
          uold(q) = -1;
          if (c == i) {  // ParILUT: the unit diagonal of L, last in its row
            L2.col(d) = i;
            L2.row(d) = i;
            L2.apos(d) = -1;
            lold(d) = L.ptr(i + 1) - 1;
            L2.val(d) = 1;
            if (det) L2.val2(d) = 1;
          }
        }
      }
    });
    t.team_barrier();  // orders the writes of step 1 before those of step 2 (global memory, same team)
    if (!valid) return;
    // 2. positions in A and in the old factors, at the rank of their columns
    const offset_t ab = arm(i), ae = arm(i + 1);
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, ae - ab), [&](const offset_t j) {
      const ordinal_t c = aent(ab + j);
      if (c > last) return;
      const offset_t r = rank(bits, pre, base, c);
      if (Kind::ict || r < nl) {
        L2.apos(lp + r) = ab + j;
        return;
      }
      if constexpr (!Kind::ict) {
        U2.apos(up + (r - nl)) = ab + j;
        if (c == i) L2.apos(d) = ab + j;
      }
    });
    const offset_t lb = L.ptr(i), le = Kind::ict ? L.ptr(i + 1) : L.ptr(i + 1) - 1;  // ParILUT: strict entries
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, le - lb),
                         [&](const offset_t j) { lold(lp + rank(bits, pre, base, L.col(lb + j))) = lb + j; });
    if constexpr (!Kind::ict) {
      const offset_t ub = U.ptr(i), ue = U.ptr(i + 1);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, ue - ub), [&](const offset_t j) {
        uold(up + (rank(bits, pre, base, U.col(ub + j)) - nl)) = umap(ub + j);
      });
    }
  }
};

/// Launch of a bitmap kernel over all rows.
template <class ExecSpace, class Kernel>
void cand_bitmap_launch(const ExecSpace& exec, const char* label, const Kernel& k) {
  const std::int64_t per_team = static_cast<std::int64_t>(k.rows_per_team) * k.rows_per_thread;
  const int league = static_cast<int>((static_cast<std::int64_t>(k.n) + per_team - 1) / per_team);
  Impl::TeamPolicy<ExecSpace> policy(exec, league, k.rows_per_team, k.lanes);
  policy = policy.set_scratch_size(0, Kokkos::PerTeam(k.scratch_bytes()));
  Kokkos::parallel_for(label, policy, k);
}

}  // namespace Impl
}  // namespace AsyncSparse
