// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — exact triangular solves of small triangles in one launch of one team (ExactAlgorithm::OneTeam).
//
// A level-set substitution: the rows are grouped by their level in the dependency graph (level(i) = 1 + the largest
// level of the rows that row i reads; exact_level_sets, once per pattern), and the team solves one level after the
// other, a thread per row, with a team barrier between levels. The triangle's off-diagonal entries (each scaled by
// its row's inverse diagonal), its row pointers, its level sets and the solution live in the team's scratch memory
// for the whole solve, so a level costs a few scratch-memory loads and a barrier instead of a kernel launch or a
// device-wide wait (cuSPARSE SpSV and Kokkos-Kernels' level sets pay one of those per level). On a GPU one team
// runs on one multiprocessor: the algorithm is for triangles whose arrays fit into its scratch memory (a few
// thousand entries), where a launch or a device-wide wait per level costs more than the whole one-team solve. Both
// triangles of an incomplete factorization (z = U^{-1} L^{-1} b, FactorApply) run in the same launch, one after the
// other, the solution of the first staying in scratch memory as the right-hand side of the second. Measured against
// cuSPARSE SpSV: perf_tests/results/MEASUREMENTS.md#exact-one-team.
//
// Each row's sum runs over its entries in stored order, x_i = D_i^{-1} b_i - sum_j (D_i^{-1} T_ij) x_j, so x does
// not depend on the team size or on which thread takes which row (deterministic; a fused dot product d·x is a team
// reduction, whose order may); x differs from the serial substitution's (b_i - sum_j T_ij x_j) D_i^{-1} by rounding.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>  // Compat::parallel_for_prefer_l1
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/linalg/impl/AsyncSparse_trisolve_kernels.hpp>

namespace AsyncSparse {
namespace Impl {

/// The level sets of a triangle (CSR, diagonal last in a lower / first in an upper row; structure already checked),
/// computed on the host from a copy of the pattern: `levels` levels, packed as [level pointers (levels + 1)][the rows
/// of level 0, of level 1, ...] (ascending within a level). The pattern is small (the one-team solve's triangles),
/// so one pass over a host copy costs less than the kernels a device computation would take.
template <class Device, class RowMap, class Entries>
Kokkos::View<int*, Device> exact_level_sets(const RowMap& rm, const Entries& ent, ordinal_t n, bool lower,
                                            int& levels) {
  const auto rm_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rm);
  const auto ent_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ent);
  std::vector<int> level(static_cast<std::size_t>(n), 0);
  levels = 0;
  for (ordinal_t r = 0; r < n; ++r) {
    const ordinal_t i = lower ? r : n - 1 - r;
    offset_t beg, end;
    off_diagonal_range(rm_h, i, lower, beg, end);
    int l = 0;
    for (offset_t k = beg; k < end; ++k) l = std::max(l, level[static_cast<std::size_t>(ent_h(k))] + 1);
    level[static_cast<std::size_t>(i)] = l;
    levels = std::max(levels, l + 1);
  }
  std::vector<int> packed(static_cast<std::size_t>(levels) + 1 + static_cast<std::size_t>(n), 0);
  for (ordinal_t i = 0; i < n; ++i) ++packed[static_cast<std::size_t>(level[static_cast<std::size_t>(i)]) + 1];
  for (int l = 0; l < levels; ++l) packed[l + 1] += packed[l];
  std::vector<int> next(packed.begin(), packed.begin() + levels);
  for (ordinal_t i = 0; i < n; ++i)
    packed[static_cast<std::size_t>(levels) + 1 + next[level[static_cast<std::size_t>(i)]]++] = i;
  const auto out = cached_uninitialized<Kokkos::View<int*, Device>>("AsyncSparse::trisolve::level_sets", packed.size());
  Kokkos::deep_copy(out,
                    Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(packed.data(), packed.size()));
  return out;
}

/// Bytes of team scratch memory an ExactOneTeam launch needs for triangles of n rows with at most `offdiag`
/// off-diagonal entries and at most `levels` levels each (Scalar values, int indices, each array aligned by Kokkos).
template <class ExecSpace, class Scalar>
std::size_t exact_one_team_scratch_bytes(std::int64_t n, std::int64_t offdiag, std::int64_t levels) {
  using S = Kokkos::View<Scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using I = Kokkos::View<int*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const auto z = [](std::int64_t v) { return static_cast<std::size_t>(std::max<std::int64_t>(v, 1)); };
  return S::shmem_size(z(n)) + S::shmem_size(z(offdiag)) + I::shmem_size(z(offdiag)) + I::shmem_size(z(n + 1)) +
         I::shmem_size(z(n)) + I::shmem_size(z(levels + 1));
}

/// The error of an exact solve in one team that was asked for a triangle whose arrays do not fit.
template <class ExecSpace, class Scalar>
InvalidInput exact_one_team_too_large(std::int64_t n, std::int64_t offdiag, std::int64_t levels) {
  return InvalidInput(
      "TriangularSolver::setup: exact algorithm 'one-team' needs a triangle whose arrays fit one team's "
      "scratch memory (" +
      std::to_string(Impl::TeamPolicy<ExecSpace>::scratch_size_max(0)) + " bytes); " + std::to_string(n) + " rows, " +
      std::to_string(offdiag) + " off-diagonal entries and " + std::to_string(levels) + " level(s) need at least " +
      std::to_string(exact_one_team_scratch_bytes<ExecSpace, Scalar>(n, offdiag, levels)));
}

/// True when triangles of n rows, `offdiag` off-diagonal entries and `levels` levels fit into one team's scratch
/// memory on ExecSpace (levels 1: the least a triangle of n rows can need, known before its level sets).
template <class ExecSpace, class Scalar>
bool exact_one_team_fits(std::int64_t n, std::int64_t offdiag, std::int64_t levels = 1) {
  if (n <= 0 || n > (std::int64_t(1) << 30) || offdiag > (std::int64_t(1) << 30)) return false;
  return exact_one_team_scratch_bytes<ExecSpace, Scalar>(n, offdiag, levels) <=
         static_cast<std::size_t>(Impl::TeamPolicy<ExecSpace>::scratch_size_max(0));
}

/// One or two exact triangular solves in one launch of one team (see the header comment): x = T_0^{-1} b, or
/// x = T_1^{-1} T_0^{-1} b; with `dot`, out() = d·x summed as x is written. b and x may alias (b is read into
/// scratch memory before x is written); d must not alias x.
template <class ExecSpace, class RowMap, class Entries, class Values, class Levels, class CVec, class Vec, class Out>
struct ExactOneTeam {
  using Scalar = typename Vec::non_const_value_type;
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  using ScalarScratch = Kokkos::View<Scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using IntScratch = Kokkos::View<int*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  struct Tri {
    RowMap rm;
    Entries ent;
    Values val, dinv;
    Levels sets;  // exact_level_sets
    int levels = 0;
    bool lower = true;
  };
  Tri tri[2];
  int count = 1;
  CVec b, d;
  Vec x;
  Out out;
  ordinal_t n = 0;
  std::int64_t max_offdiag = 0;  // over the triangles
  int max_levels = 0;
  bool dot = false;

  std::size_t scratch_bytes() const {
    return exact_one_team_scratch_bytes<ExecSpace, Scalar>(n, max_offdiag, max_levels);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    const auto sz = [](std::int64_t v) { return static_cast<std::size_t>(v > 0 ? v : 1); };
    ScalarScratch xs(m.team_scratch(0), sz(n)), vs(m.team_scratch(0), sz(max_offdiag));
    IntScratch cs(m.team_scratch(0), sz(max_offdiag)), ps(m.team_scratch(0), sz(n + 1)), rs(m.team_scratch(0), sz(n)),
        ls(m.team_scratch(0), sz(max_levels + 1));
    for (int t = 0; t < count; ++t) {
      const Tri& T = tri[t];
      const bool first = t == 0;
      // Stage: row i's off-diagonal entries at [rm(i) - i, rm(i + 1) - i - 1) (the diagonal is last in a lower row,
      // first in an upper one), scaled by D_i^{-1}; x_i = D_i^{-1} b_i (the second triangle: its right-hand side is
      // the first one's solution, already in xs, each thread rescaling its own rows).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, n), [&](const ordinal_t i) {
        offset_t beg, end;
        off_diagonal_range(T.rm, i, T.lower, beg, end);
        const int base = static_cast<int>(T.rm(i)) - static_cast<int>(i);
        const Scalar di = T.dinv(i);
        for (offset_t k = beg; k < end; ++k) {
          cs(base + static_cast<int>(k - beg)) = static_cast<int>(T.ent(k));
          vs(base + static_cast<int>(k - beg)) = di * T.val(k);
        }
        ps(i) = base;
        if (i == n - 1) ps(n) = base + static_cast<int>(end - beg);
        xs(i) = di * (first ? b(i) : xs(i));
        rs(i) = T.sets(T.levels + 1 + i);
      });
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, T.levels + 1), [&](const int l) { ls(l) = T.sets(l); });
      m.team_barrier();
      for (int l = 0; l < T.levels; ++l) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, ls(l), ls(l + 1)), [&](const int k) {
          const int i = rs(k);
          Scalar s = xs(i);
          for (int p = ps(i); p < ps(i + 1); ++p) s -= vs(p) * xs(cs(p));
          xs(i) = s;
        });
        m.team_barrier();
      }
    }
    if (dot) {
      double sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(m, n),
          [&](const ordinal_t i, double& acc) {
            x(i) = xs(i);
            acc += static_cast<double>(d(i)) * static_cast<double>(xs(i));
          },
          sum);
      Kokkos::single(Kokkos::PerTeam(m), [&]() { out() = sum; });
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, n), [&](const ordinal_t i) { x(i) = xs(i); });
    }
  }
};

/// The team size of an ExactOneTeam launch of `f`: the largest the functor and its scratch memory allow, at most
/// 1024.
template <class ExecSpace, class F>
int exact_one_team_size(const F& f) {
  return std::min(1024, Impl::TeamPolicy<ExecSpace>(1, 1)
                            .set_scratch_size(0, Kokkos::PerTeam(f.scratch_bytes()))
                            .team_size_max(f, Kokkos::ParallelForTag()));
}

/// Launches an ExactOneTeam functor `f` (its triangles, vectors and sizes set) as one team of `team_size` threads
/// (exact_one_team_size) on ExecSpace's launch instance.
template <class ExecSpace, class F>
void exact_one_team_launch(const F& f, int team_size) {
  if (f.n == 0) return;
  const auto policy = Impl::TeamPolicy<ExecSpace>(Impl::launch_instance<ExecSpace>(), 1, team_size)
                          .set_scratch_size(0, Kokkos::PerTeam(f.scratch_bytes()));
  Compat::parallel_for_prefer_l1("AsyncSparse::trisolve::exact_one_team", policy, f);
}

}  // namespace Impl
}  // namespace AsyncSparse
