// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The symbolic phase of ParILU / ParIC on the device, for the common case: level-0 pattern (S = pattern of A) and
// the row-major task order. It builds the same State as the host path of par_ilu_symbolic (L's pattern, U's
// column storage, the task list, the IC symmetry pairs) with parallel kernels, so that the set-up of a
// preconditioner costs a few passes over A instead of a copy to the host and a serial loop (on a GPU the host path
// can cost more than the whole PCG solve it prepares: perf_tests/results/MEASUREMENTS.md#par-ilu-device-symbolic).
//
// It also checks the input on the device: rows sorted without duplicates, columns in range, a diagonal entry in
// every row, finite values, a non-zero (IC: positive) diagonal, and for IC a symmetric matrix (the relative 1e-12
// test of the host path). It returns false, having changed nothing, when any check fails: the caller then runs the
// host path, which names the first problem exactly as before.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_row_launch.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_handle.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_sweep.hpp>  // allocate_breakdown_words
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>                      // find_sorted
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>

namespace AsyncSparse {
namespace Impl {

/// True when A passes every check of the symbolic phase (see the header comment); diag(i) receives the position
/// of a_ii. A row per group of vector lanes, the row's entries across the lanes, each reporting a problem into the
/// verdict word `word` (holding kNoVerdict; report_verdict: the whole grid runs, no reduction).
template <class ExecSpace, class Mat, class DiagView, class Word>
bool par_ilu_device_checks(const ExecSpace& exec, const Mat& A, bool ic, const DiagView& diag, const Word& word) {
  using Scalar = typename Mat::non_const_value_type;
  const ordinal_t n = A.numRows();
  auto rm = A.graph.row_map;
  auto ent = A.graph.entries;
  auto val = A.values;
  verdict_t* const w = word.data();
  parallel_for_rows(
      "AsyncSparse::par_ilu::symbolic_checks", exec, n, static_cast<std::int64_t>(A.nnz()),
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const ordinal_t i) {
        const offset_t beg = rm(i), end = rm(i + 1);
        if (end < beg) {
          Kokkos::single(Kokkos::PerThread(m), [&]() { report_verdict(w, 1); });
          return;
        }
        offset_t d = -1;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(m, beg, end),
            [&](const offset_t k, offset_t& dk) {
              const ordinal_t j = ent(k);
              const Scalar v = val(k);
              bool bad = j < 0 || j >= n || (k > beg && j <= ent(k - 1)) || !(v - v == Scalar(0));
              if (j == i && k > dk) dk = k;
              if (!bad && ic && j < i) {  // a_ji stored and equal within the host path's relative tolerance
                const offset_t q = find_sorted(rm, ent, j, i);
                bad = q < 0;
                if (!bad) {
                  const Scalar y = val(q);
                  const Scalar ax = v < 0 ? -v : v, ay = y < 0 ? -y : y;
                  const Scalar diff = v - y < 0 ? y - v : v - y;
                  bad = diff > Scalar(1e-12) * (ax > ay ? ax : ay);
                }
              }
              if (bad) report_verdict(w, 1);
            },
            Kokkos::Max<offset_t>(d));
        Kokkos::single(Kokkos::PerThread(m), [&]() {
          diag(i) = d;
          if (d < 0 || (ic ? !(val(d) > Scalar(0)) : val(d) == Scalar(0))) report_verdict(w, 1);
        });
      });
  return take_verdict(exec, word) == kNoVerdict;
}

/// IC's task list (the entries of L in storage order) and symmetry pairs (the strictly lower entries of A, rows
/// ascending: positions of a_ij and a_ji) into the State `s`, whose L pattern is l_rp / A's columns up to diag. A
/// row per group of vector lanes, its entries across the lanes. Also the pattern of Lᵀ (A's pattern is symmetric)
/// and its gather map (Lᵀ.values(p) = L.values(lt_map(p))): row j of Lᵀ is row j of A from its
/// diagonal on, at lt_rp(j) = rm(j) − l_rp(j) + j, so the mirror a_ji (at q in A) of L's entry t = (i, j) lands at
/// q − diag(j) + lt_rp(j) = q + j + 1 − l_rp(j + 1): no count, scan, scatter or sort of a general transpose.
template <class ExecSpace, class RowMap, class Entries, class Diag, class LRowMap, class State, class TRowMap,
          class TEnt, class TMap>
void par_ic_device_tasks(const ExecSpace& exec, const RowLaunch& launch, ordinal_t n, const RowMap& rm,
                         const Entries& ent, const Diag& diag, const LRowMap& l_rp, const State& s,
                         const TRowMap& lt_rp, const TEnt& lt_ci, const TMap& lt_map) {
  auto t_row = s.task_row;
  auto t_col = s.task_col;
  auto t_dst = s.task_dst;
  auto t_src = s.task_src;
  auto lo = s.sym_lower;
  auto up = s.sym_upper;
  parallel_for_rows(
      "AsyncSparse::par_ilu::ic_tasks", exec, launch, n,
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const ordinal_t i) {
        const offset_t beg = rm(i), d = diag(i), l0 = l_rp(i);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, beg, d + 1), [&](const offset_t k) {
          const offset_t t = l0 + k - beg;
          const ordinal_t j = ent(k);
          t_row(t) = i;
          t_col(t) = j;
          t_dst(t) = t;
          t_src(t) = k;
          offset_t p = beg - l0 + i;  // the diagonal: first in row i of Lᵀ
          if (k < d) {
            const offset_t q = find_sorted(rm, ent, j, i);
            lo(t - i) = k;
            up(t - i) = q;
            p = q + j + 1 - l_rp(j + 1);
          }
          lt_ci(p) = i;
          lt_map(p) = t;
        });
        Kokkos::single(Kokkos::PerThread(m), [&]() {
          lt_rp(i) = beg - l0 + i;
          if (i == n - 1) lt_rp(n) = rm(n) - l_rp(n) + n;
        });
      });
}

/// The pattern of L (row i of A up to its diagonal: l_ci from l_rp) and, ILU, of U by rows (u_rp, u_ci: row i of A
/// from its diagonal on) and the row of each entry of A (s_row). A row per group of vector lanes.
template <class ExecSpace, class RowMap, class Entries, class Diag, class LRowMap, class LEnt, class URowMap,
          class UEnt, class SRow>
void par_ilu_device_patterns(const ExecSpace& exec, const RowLaunch& launch, ordinal_t n, bool ic, const RowMap& rm,
                             const Entries& ent, const Diag& diag, const LRowMap& l_rp, const LEnt& l_ci,
                             const URowMap& u_rp, const UEnt& u_ci, const SRow& s_row) {
  parallel_for_rows(
      "AsyncSparse::par_ilu::L_fill", exec, launch, n, KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const ordinal_t i) {
        const offset_t beg = rm(i), d = diag(i), l0 = l_rp(i), end = rm(i + 1);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, beg, d + 1),
                             [&](const offset_t k) { l_ci(l0 + k - beg) = ent(k); });
        if (!ic) {
          const offset_t u0 = beg - l0 + i;  // entries of U in rows < i: (rm(i) - l_rp(i)) strictly upper + i diagonals
          Kokkos::single(Kokkos::PerThread(m), [&]() { u_rp(i + 1) = u0 + end - d; });
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, beg, end), [&](const offset_t k) {
            s_row(k) = i;
            if (k >= d) u_ci(u0 + k - d) = ent(k);
          });
        }
      });
}

/// The device symbolic phase (level 0, row-major tasks). Returns false without touching the handle when A fails
/// a check; true after filling the handle's State and the pattern counts of its Stats.
template <class ExecSpace, class Scalar, class Device>
bool par_ilu_symbolic_device(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h, const Crs<Scalar, Device>& A) {
  using crs_type = Crs<Scalar, Device>;
  using handle_type = ParIluHandle<Scalar, Device>;
  using offsets = Kokkos::View<offset_t*, Device>;
  using ordinals = Kokkos::View<ordinal_t*, Device>;
  const bool ic = h.params.kind == ParIluKind::Ic;
  const ordinal_t n = A.numRows();
  const offset_t nnz = A.nnz();
  if (n <= 0 || A.numCols() != n) return false;
  // Few allocations (uninitialized_parts: each costs about as much as a small kernel and its wait): L's row pointers
  // with the diagonal positions, then after nnz(L) is known one array per index / value type for the State (and,
  // ILU, one per type for the temporaries of U's transpose).
  const auto head = uninitialized_parts<offsets, 2>("AsyncSparse::par_ilu::L_row_map_diag",
                                                    {static_cast<std::size_t>(n) + 1, static_cast<std::size_t>(n)});
  const offsets diag = head[1];
  // The breakdown words first: the checks report into the first (a verdict word).
  typename handle_type::State s;
  allocate_breakdown_words(exec, s);
  if (!par_ilu_device_checks(exec, A, ic, diag, Kokkos::subview(s.breakdown_words, 0))) return false;
  auto rm = A.graph.row_map;
  auto ent = A.graph.entries;

  // L: row i of A up to and including its diagonal. l_rp by an exclusive scan of the row lengths (the scan writes
  // every entry, l_rp(0) included).
  const typename crs_type::row_map_type::non_const_type l_rp = head[0];
  Kokkos::parallel_scan(
      "AsyncSparse::par_ilu::L_scan", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, offset_t& sum, const bool final) {
        sum += diag(i) - rm(i) + 1;
        if (final) {
          l_rp(i + 1) = sum;
          if (i == 0) l_rp(0) = 0;
        }
      });
  offset_t nnz_L = 0;
  Kokkos::deep_copy(exec, nnz_L, Kokkos::subview(l_rp, n));
  exec.fence();
  if (ic && nnz - nnz_L != nnz_L - n) return false;  // an upper entry without a mirror: the host path names it
  // U's pattern by rows (ILU): row i of A from its diagonal on, positions into A kept as the values to
  // follow them through the transpose. IC needs neither U nor the row of each entry: those Views stay unallocated
  // (Kokkos allocates device memory even for an extent of 0).
  const offset_t nnz_U = ic ? 0 : nnz - nnz_L + n;
  const offset_t ntasks = ic ? nnz_L : nnz;
  // The factor par_ilu_factors built by a transpose (ILU: U from Ut, IC: Lᵀ from L), here so that it only gathers
  // values: row i of either is row i of A from its diagonal on (IC: A's pattern is symmetric).
  const offset_t nnz_T = ic ? nnz_L : nnz_U;
  const auto sz = [](offset_t k) { return static_cast<std::size_t>(k); };
  const std::size_t n1 = static_cast<std::size_t>(n) + 1;
  // The State's arrays: indices (L's columns, the task rows and columns, ILU: Ut's columns, the transposed factor's
  // columns), offsets (task destinations and sources, IC: the symmetry pairs, ILU: Ut's row pointers; the transposed
  // factor's row pointers and gather map), values (task values, L's values, ILU: Ut's values, the scaled A, the two
  // scalings, the transposed factor's values).
  const auto ords = uninitialized_parts<ordinals, 5>("AsyncSparse::par_ilu::indices",
                                                     {sz(nnz_L), sz(ntasks), sz(ntasks), sz(nnz_U), sz(nnz_T)});
  const auto offs = uninitialized_parts<offsets, 6>(
      "AsyncSparse::par_ilu::offsets",
      {sz(ntasks), sz(ntasks), ic ? sz(nnz_L - n) : n1, ic ? sz(nnz_L - n) : 0, n1, sz(nnz_T)});
  using values_view = typename handle_type::value_view;
  const auto vals = uninitialized_parts<values_view, 7>(
      "AsyncSparse::par_ilu::values",
      {sz(ntasks), sz(nnz_L), sz(nnz_U), sz(nnz), static_cast<std::size_t>(n), static_cast<std::size_t>(n), sz(nnz_T)});
  Kokkos::deep_copy(exec, vals[1], Scalar(0));  // the factors' values are zero until the numeric phase
  Kokkos::deep_copy(exec, vals[2], Scalar(0));
  const typename crs_type::index_type::non_const_type l_ci = ords[0];
  // The transposed factor (ILU: U by rows, u_to_ut its gather map from Ut; IC: Lᵀ); ILU's temporaries (the row of
  // each entry of A, the transpose's gather map, its work space)
  const typename crs_type::row_map_type::non_const_type t_rp = offs[4], u_rp = t_rp;
  const typename crs_type::index_type::non_const_type t_ci = ords[4], u_ci = t_ci;
  const offsets t_map = offs[5], u_to_ut = t_map;
  ordinals s_row;
  offsets map, next;
  if (!ic) {
    s_row = cached_uninitialized<ordinals>("AsyncSparse::par_ilu::symbolic_rows", sz(nnz));
    const auto tmp_offs = uninitialized_parts<offsets, 2>("AsyncSparse::par_ilu::symbolic_offsets", {sz(nnz_U), sz(n)});
    map = tmp_offs[0];
    next = tmp_offs[1];
    Kokkos::deep_copy(exec, u_rp, offset_t(0));
  }
  // Lanes by A's average row, for IC too: L's (about half of it) gave narrower lane groups whose stores measured
  // slower (H200, L3D task list 179 against 134 us; MEASUREMENTS.md#row-launch).
  const RowLaunch launch = row_launch<ExecSpace>(n, double(nnz) / double(n));
  par_ilu_device_patterns(exec, launch, n, ic, rm, ent, diag, l_rp, l_ci, u_rp, u_ci, s_row);

  auto& st = h.state();
  s.kind = h.params.kind;
  s.n = n;
  s.nnz_A = nnz;
  s.a_row_map = rm;
  s.a_entries = ent;
  s.identity_tasks = ic;
  s.task_row = ords[1];
  s.task_col = ords[2];
  s.task_dst = offs[0];
  s.task_src = offs[1];
  // Written in full by every numeric phase before the sweeps read them: task_a, a_scaled, s, s_factors (the
  // breakdown word is set by par_ilu_numeric before its sweeps).
  s.task_a = vals[0];
  s.L = crs_type("AsyncSparse::par_ilu::L", n, n, nnz_L, vals[1], l_rp, l_ci);
  if (ic) {
    // Tasks: the entries of L in storage order. Symmetry pairs: the strictly lower entries of A, rows ascending.
    s.sym_lower = offs[2];
    s.sym_upper = offs[3];
    par_ic_device_tasks(exec, launch, n, rm, ent, diag, l_rp, s, t_rp, t_ci, t_map);
  } else {
    // Ut = transpose of U's pattern; position of each U entry in Ut by inverting the transpose's gather map. The
    // pattern alone is transposed: U has no values yet (transposing a matrix with placeholder values read
    // uninitialized device memory, which compute-sanitizer --tool initcheck reported).
    const typename crs_type::row_map_type::non_const_type ut_rp = offs[2];
    const typename crs_type::index_type::non_const_type ut_ci = ords[3];
    Kokkos::deep_copy(exec, ut_rp, offset_t(0));
    transpose_pattern(exec, n, n, nnz_U, u_rp, u_ci, ut_rp, ut_ci, map, next);
    Kokkos::parallel_for(
        "AsyncSparse::par_ilu::invert_map", Impl::RangePolicy<ExecSpace>(exec, 0, nnz_U),
        KOKKOS_LAMBDA(const offset_t q) { u_to_ut(map(q)) = q; });
    auto t_row = s.task_row;
    auto t_col = s.task_col;
    auto t_dst = s.task_dst;
    auto t_src = s.task_src;
    Kokkos::parallel_for(
        "AsyncSparse::par_ilu::ilu_tasks", Impl::RangePolicy<ExecSpace>(exec, 0, nnz), KOKKOS_LAMBDA(const offset_t p) {
          const ordinal_t i = s_row(p), j = ent(p);
          const offset_t d = diag(i);
          t_row(p) = i;
          t_col(p) = j;
          t_src(p) = p;
          // L entries: l_rp(i) + (p - rm(i)); U entries: the U row of i starts at rm(i) - l_rp(i) + i.
          t_dst(p) = j < i ? l_rp(i) + p - rm(i) : u_to_ut(rm(i) - l_rp(i) + i + p - d);
        });
    s.Ut = crs_type("AsyncSparse::par_ilu::Ut", n, n, nnz_U, vals[2], ut_rp, ut_ci);
  }
  // values gathered by par_ilu_factors
  (ic ? s.Lt : s.U) =
      crs_type(ic ? "AsyncSparse::par_ilu::Lt" : "AsyncSparse::par_ilu::U", n, n, nnz_T, vals[6], t_rp, t_ci);
  (ic ? s.lt_map : s.u_map) = t_map;
  s.a_scaled = vals[3];
  s.s = vals[4];
  s.s_factors = vals[5];
  s.symbolic = true;
  exec.fence();
  st = s;

  auto& stats = h.stats();
  stats = typename handle_type::Stats();
  stats.nnz_S = nnz;
  stats.nnz_L = nnz_L;
  stats.nnz_U = nnz_U;
  stats.num_tasks = static_cast<std::int64_t>(ntasks);
  return true;
}

}  // namespace Impl
}  // namespace AsyncSparse
