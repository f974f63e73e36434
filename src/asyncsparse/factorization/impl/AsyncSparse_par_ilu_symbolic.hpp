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
#include <tuple>
#include <utility>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_handle.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>  // find_sorted
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>

namespace AsyncSparse {
namespace Impl {

/// True when A passes every check of the symbolic phase (see the header comment); diag(i) receives the position
/// of a_ii.
template <class ExecSpace, class Mat, class DiagView>
bool par_ilu_device_checks(const ExecSpace& exec, const Mat& A, bool ic, const DiagView& diag) {
  using Scalar = typename Mat::non_const_value_type;
  const ordinal_t n = A.numRows();
  auto rm = A.graph.row_map;
  auto ent = A.graph.entries;
  auto val = A.values;
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::par_ilu::symbolic_checks", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, std::int64_t& b) {
        const offset_t beg = rm(i), end = rm(i + 1);
        offset_t d = -1;
        if (end < beg) {
          ++b;
          return;
        }
        for (offset_t k = beg; k < end; ++k) {
          const ordinal_t j = ent(k);
          const Scalar v = val(k);
          if (j < 0 || j >= n || (k > beg && j <= ent(k - 1)) || !(v - v == Scalar(0))) {
            ++b;
            return;
          }
          if (j == i) d = k;
          if (ic && j < i) {  // a_ji stored and equal within the host path's relative tolerance
            const offset_t q = find_sorted(rm, ent, j, i);
            if (q < 0) {
              ++b;
              return;
            }
            const Scalar y = val(q);
            const Scalar ax = v < 0 ? -v : v, ay = y < 0 ? -y : y;
            const Scalar diff = v - y < 0 ? y - v : v - y;
            if (diff > Scalar(1e-12) * (ax > ay ? ax : ay)) {
              ++b;
              return;
            }
          }
        }
        diag(i) = d;
        if (d < 0 || (ic ? !(val(d) > Scalar(0)) : val(d) == Scalar(0))) ++b;
      },
      bad);
  return bad == 0;
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
  offsets diag(uninitialized("AsyncSparse::par_ilu::diag"), n);
  if (!par_ilu_device_checks(exec, A, ic, diag)) return false;
  auto rm = A.graph.row_map;
  auto ent = A.graph.entries;

  // L: row i of A up to and including its diagonal. l_rp by an exclusive scan of the row lengths (the scan writes
  // every entry, l_rp(0) included).
  typename crs_type::row_map_type::non_const_type l_rp(uninitialized("AsyncSparse::par_ilu::L_row_map"),
                                                       static_cast<std::size_t>(n) + 1);
  Kokkos::parallel_scan(
      "AsyncSparse::par_ilu::L_scan", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
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
  typename crs_type::index_type::non_const_type l_ci(uninitialized("AsyncSparse::par_ilu::L_entries"), nnz_L);
  // U's pattern by rows (ILU): row i of A from its diagonal on, positions into A kept as the values to
  // follow them through the transpose. IC needs neither U nor the row of each entry: those Views stay unallocated
  // (Kokkos allocates device memory even for an extent of 0).
  const offset_t nnz_U = ic ? 0 : nnz - nnz_L + n;
  ordinals s_row;
  typename crs_type::row_map_type::non_const_type u_rp;
  typename crs_type::index_type::non_const_type u_ci;
  if (!ic) {
    s_row = ordinals(uninitialized("AsyncSparse::par_ilu::s_row"), nnz);
    u_rp = decltype(u_rp)("AsyncSparse::par_ilu::U_row_map", static_cast<std::size_t>(n) + 1);
    u_ci = decltype(u_ci)(uninitialized("AsyncSparse::par_ilu::U_entries"), nnz_U);
  }
  Kokkos::parallel_for(
      "AsyncSparse::par_ilu::L_fill", Kokkos::RangePolicy<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        const offset_t beg = rm(i), d = diag(i), l0 = l_rp(i);
        for (offset_t k = beg; k <= d; ++k) l_ci(l0 + k - beg) = ent(k);
        if (!ic) {
          const offset_t u0 = beg - l0 + i;  // entries of U in rows < i: (rm(i) - l_rp(i)) strictly upper + i diagonals
          u_rp(i + 1) = u0 + rm(i + 1) - d;
          for (offset_t k = d; k < rm(i + 1); ++k) u_ci(u0 + k - d) = ent(k);
          for (offset_t k = beg; k < rm(i + 1); ++k) s_row(k) = i;
        }
      });

  auto& st = h.state();
  typename handle_type::State s;
  s.kind = h.params.kind;
  s.n = n;
  s.nnz_A = nnz;
  s.a_row_map = rm;
  s.a_entries = ent;
  s.identity_tasks = ic;
  const offset_t ntasks = ic ? nnz_L : nnz;
  std::tie(s.task_row, s.task_col) = uninitialized_pair<ordinals>("AsyncSparse::par_ilu::task_row_col", ntasks);
  std::tie(s.task_dst, s.task_src) = uninitialized_pair<offsets>("AsyncSparse::par_ilu::task_dst_src", ntasks);
  // Written in full by every numeric phase before the sweeps read them: task_a, a_scaled, s, s_factors (the
  // breakdown word is set by par_ilu_numeric before its sweeps).
  s.task_a = typename handle_type::value_view(uninitialized("AsyncSparse::par_ilu::task_a"), ntasks);
  auto t_row = s.task_row;
  auto t_col = s.task_col;
  auto t_dst = s.task_dst;
  auto t_src = s.task_src;
  s.L = crs_type("AsyncSparse::par_ilu::L", n, n, nnz_L,
                 typename crs_type::values_type::non_const_type("AsyncSparse::par_ilu::L_values", nnz_L), l_rp, l_ci);
  if (ic) {
    // Tasks: the entries of L in storage order. Symmetry pairs: the strictly lower entries of A, rows ascending.
    std::tie(s.sym_lower, s.sym_upper) =
        uninitialized_pair<offsets>("AsyncSparse::par_ilu::sym_lower_upper", nnz_L - n);
    auto lo = s.sym_lower;
    auto up = s.sym_upper;
    Kokkos::parallel_for(
        "AsyncSparse::par_ilu::ic_tasks", Kokkos::RangePolicy<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t i) {
          const offset_t beg = rm(i), d = diag(i), l0 = l_rp(i);
          for (offset_t k = beg; k <= d; ++k) {
            const offset_t t = l0 + k - beg;
            t_row(t) = i;
            t_col(t) = ent(k);
            t_dst(t) = t;
            t_src(t) = k;
            if (k < d) {
              lo(t - i) = k;
              up(t - i) = find_sorted(rm, ent, ent(k), i);
            }
          }
        });
  } else {
    // Ut = transpose of U's pattern; position of each U entry in Ut by inverting the transpose's gather map. The
    // pattern alone is transposed: U has no values yet (transposing a matrix with placeholder values read
    // uninitialized device memory, which compute-sanitizer --tool initcheck reported).
    typename crs_type::row_map_type::non_const_type ut_rp("AsyncSparse::par_ilu::Ut_row_map",
                                                          static_cast<std::size_t>(n) + 1);
    typename crs_type::index_type::non_const_type ut_ci(uninitialized("AsyncSparse::par_ilu::Ut_entries"), nnz_U);
    offsets map(uninitialized("AsyncSparse::par_ilu::Ut_map"), nnz_U);
    transpose_pattern(exec, n, n, nnz_U, u_rp, u_ci, ut_rp, ut_ci, map);
    offsets u_to_ut(uninitialized("AsyncSparse::par_ilu::u_to_ut"), nnz_U);
    Kokkos::parallel_for(
        "AsyncSparse::par_ilu::invert_map", Kokkos::RangePolicy<ExecSpace>(exec, 0, nnz_U),
        KOKKOS_LAMBDA(const offset_t q) { u_to_ut(map(q)) = q; });
    Kokkos::parallel_for(
        "AsyncSparse::par_ilu::ilu_tasks", Kokkos::RangePolicy<ExecSpace>(exec, 0, nnz),
        KOKKOS_LAMBDA(const offset_t p) {
          const ordinal_t i = s_row(p), j = ent(p);
          const offset_t d = diag(i);
          t_row(p) = i;
          t_col(p) = j;
          t_src(p) = p;
          // L entries: l_rp(i) + (p - rm(i)); U entries: the U row of i starts at rm(i) - l_rp(i) + i.
          t_dst(p) = j < i ? l_rp(i) + p - rm(i) : u_to_ut(rm(i) - l_rp(i) + i + p - d);
        });
    s.Ut = crs_type("AsyncSparse::par_ilu::Ut", n, n, nnz_U,
                    typename crs_type::values_type::non_const_type("AsyncSparse::par_ilu::Ut_values", nnz_U), ut_rp,
                    ut_ci);
  }
  s.a_scaled = typename crs_type::values_type::non_const_type(uninitialized("AsyncSparse::par_ilu::a_scaled"), nnz);
  std::tie(s.s, s.s_factors) =
      uninitialized_pair<typename handle_type::value_view>("AsyncSparse::par_ilu::scalings", n);
  s.breakdown = Kokkos::View<unsigned long long, Device>(uninitialized("AsyncSparse::par_ilu::breakdown"));
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
