// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — device transpose of a CSR matrix (with the gather map that refreshes its values) and an
// in-place key (/ value) sort callable inside kernels.
//
// `transpose(T)` returns Tᵀ with sorted rows, computed on T's device (U from its column storage, Lᵀ for
// incomplete Cholesky, the transposed factors of ParILUT/ParICT). `Impl::transpose_with_map` also returns the
// map p -> position in T of entry p of Tᵀ, so that `Impl::gather_values` refreshes the values of Tᵀ after T's
// values changed on the same pattern; `Impl::transpose_pattern` does the same for a bare pattern (row pointers and
// column indices in any Views) on a given execution space instance. The result does not depend on the order of
// the atomic scatter: rows are sorted afterwards and their columns are unique, so it is bit-reproducible (a matrix
// with duplicate entries keeps them, in an unspecified order among themselves).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_row_launch.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>

namespace AsyncSparse {

namespace Impl {

/// Sorts keys[0, len) ascending and applies the same moves to carry[] (a pointer, or NoCarry). Insertion sort for
/// short rows, heap sort (O(len log len), no extra memory) for long ones. Device-callable.
template <class Key, class CarryArray>
KOKKOS_INLINE_FUNCTION void sort_pairs(Key* keys, CarryArray carry, std::int64_t len) {
  if (len <= 32) {
    for (std::int64_t a = 1; a < len; ++a) {
      const Key k = keys[a];
      const auto c = carry[a];
      std::int64_t b = a - 1;
      while (b >= 0 && keys[b] > k) {
        keys[b + 1] = keys[b];
        carry[b + 1] = carry[b];
        --b;
      }
      keys[b + 1] = k;
      carry[b + 1] = c;
    }
    return;
  }
  auto sift = [&](std::int64_t root, std::int64_t end) {
    while (2 * root + 1 < end) {
      std::int64_t child = 2 * root + 1;
      if (child + 1 < end && keys[child] < keys[child + 1]) ++child;
      if (!(keys[root] < keys[child])) return;
      const Key tk = keys[root];
      keys[root] = keys[child];
      keys[child] = tk;
      const auto tc = carry[root];
      carry[root] = carry[child];
      carry[child] = tc;
      root = child;
    }
  };
  for (std::int64_t start = len / 2 - 1; start >= 0; --start) sift(start, len);
  for (std::int64_t end = len - 1; end > 0; --end) {
    const Key tk = keys[0];
    keys[0] = keys[end];
    keys[end] = tk;
    const auto tc = carry[0];
    carry[0] = carry[end];
    carry[end] = tc;
    sift(0, end);
  }
}

/// The carry of a keys-only sort_pairs: an array of empty values (its reads and writes compile to nothing).
struct NoCarry {
  struct Empty {};
  KOKKOS_INLINE_FUNCTION Empty operator[](std::int64_t) const { return Empty(); }
};

/// Sorts keys[0, len) ascending (sort_pairs without a carry). Device-callable.
template <class Key>
KOKKOS_INLINE_FUNCTION void sort_keys(Key* keys, std::int64_t len) {
  sort_pairs(keys, NoCarry(), len);
}

/// GPU part of sort_rows: a group of vector lanes per row loads the row into scratch memory and writes each entry to
/// its rank (the number of smaller keys in the row, plus the number of equal keys before it, so that equal keys,
/// e.g. the duplicate entries of a matrix, keep distinct places). Rows longer than `cap`: one lane's sort_pairs in
/// place. The launch is row_launch's (row_lanes of the average row, 128 threads per team; a fixed 32 lanes left 31 of
/// 32 idle on the rows of 3 entries of a 5-point grid's triangle: 270 us for the transpose of L of the 1024^2 grid on
/// an H200, 6x its scatter); the team's kRankSortScratchBytes of scratch are shared out among its rows, `cap` entries
/// each, at most 256: about 4x (32-bit offsets) or 2.5x (64-bit) the average row, e.g. 16 / 8 entries with one lane,
/// 64 / 40 with four, 256 / 168 with sixteen (MEASUREMENTS.md#row-launch).
constexpr std::size_t kRankSortScratchBytes = 16384;

template <class ExecSpace, class Ptr, class Keys, class Carry>
struct RankSortRows {
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  using Key = typename Keys::non_const_value_type;
  using Val = typename Carry::non_const_value_type;

  std::int64_t n;
  Ptr ptr;
  Keys keys;
  Carry carry;
  int rows_per_team;
  std::int64_t cap;  ///< entries per row in scratch, a multiple of 8 (the values after the keys stay aligned)

  KOKKOS_INLINE_FUNCTION std::size_t bytes_per_row() const {
    return static_cast<std::size_t>(cap) * (sizeof(Key) + sizeof(Val));
  }

  /// Scratch entries per row for `rows` rows per team: kRankSortScratchBytes shared out, a multiple of 8 (at least
  /// 8), at most 256.
  static std::int64_t capacity(int rows) {
    const auto fit = static_cast<std::int64_t>(kRankSortScratchBytes / (rows * (sizeof(Key) + sizeof(Val))));
    return std::max<std::int64_t>(8, std::min<std::int64_t>(256, fit / 8 * 8));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& t) const {
    const std::size_t row_bytes = bytes_per_row();
    char* base = static_cast<char*>(t.team_scratch(0).get_shmem(rows_per_team * row_bytes)) +
                 static_cast<std::size_t>(t.team_rank()) * row_bytes;
    Key* k = reinterpret_cast<Key*>(base);
    Val* v = reinterpret_cast<Val*>(base + cap * sizeof(Key));
    const std::int64_t j = static_cast<std::int64_t>(t.league_rank()) * rows_per_team + t.team_rank();
    const std::int64_t b = j < n ? static_cast<std::int64_t>(ptr(j)) : 0;
    const std::int64_t len = j < n ? static_cast<std::int64_t>(ptr(j + 1)) - b : 0;
    const bool in_scratch = len <= cap;
    if (in_scratch)
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, len), [&](const std::int64_t a) {
        k[a] = keys(b + a);
        v[a] = carry(b + a);
      });
    t.team_barrier();  // every thread of the team reaches it
    if (!in_scratch) {
      Kokkos::single(Kokkos::PerThread(t), [&]() { sort_pairs(&keys(b), &carry(b), len); });
      return;
    }
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, len), [&](const std::int64_t a) {
      const Key key = k[a];
      std::int64_t r = 0;
      for (std::int64_t o = 0; o < len; ++o) r += k[o] < key || (k[o] == key && o < a);
      keys(b + r) = key;
      carry(b + r) = v[a];
    });
  }
};

/// Sorts each row [ptr(j), ptr(j + 1)), j < n, of `keys` ascending and applies the same moves to `carry` (the order
/// of equal keys is unspecified); the rows hold `entries` entries in all. Host: one thread per row (sort_pairs); GPU:
/// RankSortRows (a thread per row sorting in global memory took 12 ms of each 59 ms ParILUT step on the 27-point 64^3
/// Laplacian on an H100).
template <class ExecSpace, class Ptr, class Keys, class Carry>
void sort_rows(const ExecSpace& exec, std::int64_t n, const Ptr& ptr, const Keys& keys, const Carry& carry,
               std::int64_t entries) {
  if constexpr (is_gpu_space<ExecSpace>()) {
    using F = RankSortRows<ExecSpace, Ptr, Keys, Carry>;
    if (n <= 0) return;
    const RowLaunch l = row_launch<ExecSpace>(n, static_cast<double>(entries) / static_cast<double>(n));
    const F f{n, ptr, keys, carry, l.rows_per_team, F::capacity(l.rows_per_team)};
    Impl::TeamPolicy<ExecSpace> policy(exec, static_cast<int>(l.league), l.team_size, l.lanes);
    policy = policy.set_scratch_size(0, Kokkos::PerTeam(l.rows_per_team * f.bytes_per_row()));
    Kokkos::parallel_for("AsyncSparse::transpose::sort_rows", policy, f);
    return;
  }
  Kokkos::parallel_for(
      "AsyncSparse::transpose::sort", Impl::RangePolicy<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t j) {
        const offset_t b = ptr(j), e = ptr(j + 1);
        sort_pairs(&keys(b), &carry(b), static_cast<std::int64_t>(e - b));
      });
}

/// Pattern of the transpose on `exec`: (rm, ent) is a pattern of m rows and nnz entries with columns in [0, n);
/// tp (n + 1 entries, zero on entry) receives the row pointers of the transpose, tent its column indices (sorted
/// rows) and map(p) the position in ent of entry p of the transpose. `next` (n entries, any contents) is work space.
template <class ExecSpace, class RowMap, class Entries, class TPtr, class TEnt, class Map, class Next>
void transpose_pattern(const ExecSpace& exec, ordinal_t m, ordinal_t n, offset_t nnz, const RowMap& rm,
                       const Entries& ent, const TPtr& tp, const TEnt& tent, const Map& map, const Next& next) {
  // 1. column counts (tp(j + 1) = entries in column j), 2. inclusive scan -> row pointers of the transpose.
  Kokkos::parallel_for(
      "AsyncSparse::transpose::count", Impl::RangePolicy<ExecSpace>(exec, 0, nnz),
      KOKKOS_LAMBDA(const offset_t k) { Kokkos::atomic_add(&tp(ent(k) + 1), offset_t(1)); });
  Kokkos::parallel_scan(
      "AsyncSparse::transpose::scan", Impl::RangePolicy<ExecSpace>(exec, 0, static_cast<std::int64_t>(n) + 1),
      KOKKOS_LAMBDA(const std::int64_t j, offset_t& sum, const bool final) {
        sum += tp(j);
        if (final) {
          tp(j) = sum;
          if (j < n) next(j) = sum;  // the scatter's cursors: row j of the transpose starts at tp(j)
        }
      });
  // 3. scatter (positions taken with atomics: the order inside a row is arbitrary), 4. sort each row by
  // column, carrying the source index. Columns are unique, so the result does not depend on the scatter order.
  parallel_for_rows(
      "AsyncSparse::transpose::scatter", exec, m, static_cast<std::int64_t>(nnz),
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& r, const ordinal_t i) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(r, rm(i), rm(i + 1)), [&](const offset_t k) {
          const offset_t p = Kokkos::atomic_fetch_add(&next(ent(k)), offset_t(1));
          tent(p) = i;
          map(p) = k;
        });
      });
  sort_rows(exec, n, tp, tent, map, static_cast<std::int64_t>(nnz));
}

/// transpose_pattern with its work space allocated here.
template <class ExecSpace, class RowMap, class Entries, class TPtr, class TEnt, class Map>
void transpose_pattern(const ExecSpace& exec, ordinal_t m, ordinal_t n, offset_t nnz, const RowMap& rm,
                       const Entries& ent, const TPtr& tp, const TEnt& tent, const Map& map) {
  transpose_pattern(exec, m, n, nnz, rm, ent, tp, tent, map,
                    Kokkos::View<offset_t*, typename TPtr::device_type>(
                        Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::transpose::next"), n));
}

/// dst(p) = src(map(p)) for every p (refresh a transpose's values), on `exec`.
template <class ExecSpace, class Device, class Src, class Dst>
void gather_values(const ExecSpace& exec, const Kokkos::View<offset_t*, Device>& map, const Src& src, const Dst& dst) {
  Kokkos::parallel_for(
      "AsyncSparse::gather_values", Impl::RangePolicy<ExecSpace>(exec, 0, map.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t p) { dst(p) = src(map(p)); });
}

/// gather_values on the default instance.
template <class Device, class Src, class Dst>
void gather_values(const Kokkos::View<offset_t*, Device>& map, const Src& src, const Dst& dst) {
  gather_values(typename Device::execution_space(), map, src, dst);
}

/// Tᵀ plus the gather map: Tt.values(p) == T.values(map(p)). The map lets a caller refresh the values of the
/// transpose after T's values changed (same pattern) with gather_values().
template <class Scalar, class Device>
struct TransposeWithMap {
  Crs<Scalar, Device> T;
  Kokkos::View<offset_t*, Device> map;
};

/// The transpose and its gather map, asynchronously on the default instance of Device's execution space (fence
/// before reading them on another instance or the host). `map_with_row_map`: the map shares the row pointers'
/// allocation (one device allocation less, about 40 us on an H200: for a caller that keeps both, e.g. the
/// factors of par_ilu_factors); else it has one of its own, so that a caller that drops it frees it (or returns it
/// to the cache of device arrays, Impl::cached_uninitialized).
template <class Scalar, class Device>
TransposeWithMap<Scalar, Device> transpose_with_map(const Crs<Scalar, Device>& A, bool map_with_row_map = true) {
  using exec = typename Device::execution_space;
  using M = Crs<Scalar, Device>;
  const ordinal_t m = A.numRows(), n = A.numCols();
  const offset_t nnz = A.nnz();
  using offsets = Kokkos::View<offset_t*, Device>;
  // the row pointers, the scatter's work space (n entries, kept with them: small) and, with map_with_row_map, the
  // gather map from one allocation (uninitialized_parts)
  const auto n1 = static_cast<std::size_t>(n) + 1, nz = map_with_row_map ? static_cast<std::size_t>(nnz) : 0;
  const auto offs = uninitialized_parts<offsets, 3>("AsyncSparse::transpose::offsets", {n1, n1 - 1, nz});
  const typename M::row_map_type::non_const_type rm = offs[0];
  Kokkos::deep_copy(exec(), rm, offset_t(0));
  const auto nnz_s = static_cast<std::size_t>(nnz);
  const offsets map = map_with_row_map ? offs[2] : cached_uninitialized<offsets>("AsyncSparse::transpose::map", nnz_s);
  const auto ent =
      cached_uninitialized<typename M::index_type::non_const_type>("AsyncSparse::transpose::entries", nnz_s);
  const auto val =
      cached_uninitialized<typename M::values_type::non_const_type>("AsyncSparse::transpose::values", nnz_s);
  transpose_pattern(exec(), m, n, nnz, A.graph.row_map, A.graph.entries, rm, ent, map, offs[1]);
  gather_values(map, A.values, val);
  return {M("AsyncSparse::transpose", n, m, nnz, val, rm, ent), map};
}

}  // namespace Impl

/// Tᵀ of a CSR matrix on its own device, rows sorted by column.
template <class Scalar, class Device>
Crs<Scalar, Device> transpose(const Crs<Scalar, Device>& T) {
  auto t = Impl::transpose_with_map(T, false).T;
  typename Device::execution_space().fence();
  return t;
}

}  // namespace AsyncSparse
