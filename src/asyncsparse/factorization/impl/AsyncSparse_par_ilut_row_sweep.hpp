// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the row-staged form of the concurrent ParILUT / ParICT sweep (ParIlutSweepKernel::RowTeam).
//
// Every dot product of row i shares its first operand, row i of L: l_ij = (a_ij - sum_{k<j} l_ik y_jk) / y_jj and
// (ParILUT) u_ij = a_ij - sum_{k<i} l_ik y_jk with Y = Ut (ParICT: Y = L). A team takes `rows_per_team` rows,
// `threads_per_row` of its threads each; a row's threads first copy row i of L (columns and values) into team scratch,
// then each takes the row's updates in turn, and its vector lanes walk row j of Y contiguously, looking each column
// up in the staged row (binary search; one lane: a merge with the staged row). The entry kernel instead reads row i of
// L from global memory once per update, and derives the update's row, row bounds and destination from memory per
// task. ParILU's row-team kernel (AsyncSparse_par_ilu_row_team.hpp) stages rows the same way; ParILUT's updates of
// row i are its strict L entries and its U entries (row i of U), which all pair with row i of L, so one staged row
// serves both. A row longer than `cap` entries runs the sweep functor on its tasks in place (the entry kernel).
//
// Asynchronous mode only (the vector reduction sums in another order than the deterministic mode promises). Races as
// SweepFunctor: every unknown has one writer per sweep (its row's threads); the staged values of row i are those
// before the sweep (the row's own updates are not seen by its later ones, where the entry kernel may see them), row j
// of Y is read with relaxed loads (old or new, never torn). The residual of an update (IlutSweepOptions::residual) is
// that of the staged values it read.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_common.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>  // Impl::lower_bound_sorted

namespace AsyncSparse {
namespace Impl {

template <class Sweep, class Ptr>
struct RowStagedSweepFunctor {
  using member_type = typename Sweep::member_type;
  using scalar_type = typename Sweep::VV::non_const_value_type;
  using scratch_space = typename member_type::execution_space::scratch_memory_space;
  template <class T>
  using SView = Kokkos::View<T*, scratch_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr bool ict = Sweep::kind::ict;
  Sweep f;
  Ptr uptr;  ///< ParILUT: U by rows (ParICT: unused)
  ordinal_t n = 0;
  int rows_per_team = 1;
  int threads_per_row = 1;
  int cap = 1;  ///< entries of a staged row

  /// Team scratch bytes of `rows` rows of `cap` entries (column and value).
  static std::size_t scratch_bytes(int cap, int rows) {
    const std::size_t m = static_cast<std::size_t>(cap) * static_cast<std::size_t>(rows);
    return SView<ordinal_t>::shmem_size(m) + SView<scalar_type>::shmem_size(m);
  }

  /// sum over the positions y in [yb, ye) of row j of Y whose column is among the staged row's first m entries:
  /// staged value x y-value. The columns of [yb, ye) are below the update's bound, as are those of the m entries.
  template <class XCol, class XVal>
  KOKKOS_INLINE_FUNCTION scalar_type staged_dot(const member_type& team, const XCol& xc, const XVal& xv, offset_t m,
                                                offset_t yb, offset_t ye) const {
    scalar_type sum = 0;
    if (m == 0) return sum;
    if (f.vector_length == 1) {  // merge, ascending k (as the entry kernel)
      for (offset_t x = 0, y = yb; x < m && y < ye;) {
        const ordinal_t kx = xc(x), ky = f.ycol(y);
        if (kx == ky) sum += ilut_mul(xv(x), load_relaxed(&f.yin(y)));
        x += kx <= ky ? 1 : 0;
        y += ky <= kx ? 1 : 0;
      }
      return sum;
    }
    const ordinal_t first = xc(0), last = xc(m - 1);
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, yb, ye),
        [&](const offset_t y, scalar_type& acc) {
          const ordinal_t k = f.ycol(y);
          if (k < first || k > last) return;
          const offset_t x = lower_bound_sorted(xc, offset_t(0), m, k);
          if (xc(x) == k) acc += ilut_mul(xv(x), load_relaxed(&f.yin(y)));
        },
        sum);
    return sum;
  }

  /// The team's rows; with Sweep::team_sum the team's threads reduce their updates' residual terms and one adds the
  /// team's total to State::status's r2 (one atomic add per team).
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    if constexpr (Sweep::team_sum) {
      double acc = 0.0;
      rows(team, &acc);
      team.team_reduce(Kokkos::Sum<double>(acc));
      Kokkos::single(Kokkos::PerTeam(team), [&]() { Kokkos::atomic_add(&f.status().r2, acc); });
    } else {
      rows(team, nullptr);  // the updates keep no accumulator (SweepFunctor::write ignores it)
    }
  }

  /// The updates of the calling thread's share of the team's rows (Sweep::team_sum: their residual terms added to
  /// `*acc`).
  KOKKOS_INLINE_FUNCTION void rows(const member_type& team, double* acc) const {
    const auto& space = team.team_scratch(0);
    const std::size_t all = static_cast<std::size_t>(cap) * static_cast<std::size_t>(rows_per_team);
    const SView<ordinal_t> xc_all(space, all);  // allocated in the order scratch_bytes counts
    const SView<scalar_type> xv_all(space, all);
    const int slot = team.team_rank() / threads_per_row, tr = team.team_rank() % threads_per_row;
    const std::int64_t row = static_cast<std::int64_t>(team.league_rank()) * rows_per_team + slot;
    const bool live = row < n;
    const ordinal_t i = live ? static_cast<ordinal_t>(row) : 0;
    const offset_t lb = live ? f.lptr(i) : 0, len = live ? f.lptr(i + 1) - lb : 0;
    const offset_t ub = ict || !live ? 0 : uptr(i), ue = ict || !live ? 0 : uptr(i + 1);
    const offset_t nl = ict ? len : len - 1;  // the L updates (ParILUT: strict entries)
    const offset_t ntasks = live ? nl + (ue - ub) : 0;
    const offset_t t0 = ict ? lb : lb - static_cast<offset_t>(i) + ub;  // task numbers as in ilut_build_tasks
    const bool staged = live && len <= cap;
    const auto mine = std::make_pair(static_cast<std::size_t>(slot) * cap, static_cast<std::size_t>(slot + 1) * cap);
    const auto xc = Kokkos::subview(xc_all, mine);
    const auto xv = Kokkos::subview(xv_all, mine);
    if (staged) {  // the row's threads copy it, each every threads_per_row-th entry with its lanes
      const offset_t mine_count = len > tr ? (len - tr + threads_per_row - 1) / threads_per_row : 0;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, mine_count), [&](const offset_t v) {
        const offset_t x = tr + v * threads_per_row;
        xc(x) = f.lcol(lb + x);
        xv(x) = load_relaxed(&f.lin(lb + x));
      });
    }
    team.team_barrier();
    if (!live) return;
    if (!staged) {  // in place: the sweep functor on the row's tasks
      for (offset_t x = tr; x < ntasks; x += threads_per_row) f.task(team, static_cast<std::int64_t>(t0 + x), acc);
      return;
    }
    for (offset_t x = tr; x < ntasks; x += threads_per_row) {
      const std::int64_t t = t0 + x;
      if (x >= nl) {  // ParILUT: u_ij, U entry q, over the strict row of L
        const offset_t q = ub + (x - nl), m = f.umap(q);
        const ordinal_t j = f.ucol(q);
        const scalar_type aij = f.uapos(q) >= 0 ? f.a(f.uapos(q)) : scalar_type(0);
        const scalar_type s = staged_dot(team, xc, xv, nl, f.yptr(j), m);
        f.finish_u(team, m, t, i, j, aij, s, f.want_residual() ? load_relaxed(&f.yin(m)) : scalar_type(0), acc);
        continue;
      }
      const offset_t p = lb + x;
      const ordinal_t j = xc(x);
      const scalar_type aij = f.lapos(p) >= 0 ? f.a(f.lapos(p)) : scalar_type(0);
      scalar_type s = 0, yjj = 1;
      if (ict && j == i) {  // the staged row with itself: sum_{k<i} l_ik^2
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, offset_t(0), x),
            [&](const offset_t y, scalar_type& acc) { acc += ilut_mul(xv(y), xv(y)); }, s);
      } else {
        const offset_t ye = f.yptr(j + 1) - 1;  // row j of Y before its diagonal
        yjj = load_relaxed(&f.yin(ye));
        s = staged_dot(team, xc, xv, x, f.yptr(j), ye);
      }
      scalar_type v;
      f.finish_l(team, p, t, i, j, aij, s, yjj, xv(x), v, acc);
    }
  }
};

/// Rows per team, threads per row, lanes and staged entries per row of the row-staged sweep.
struct RowSweepShape {
  int rows_per_team = 1;
  int threads_per_row = 1;
  int lanes = 1;
  int cap = 1;
};

/// Threads per row of the row-team kernel's default shape on GPUs: the smallest power of two (at most 16) that puts
/// rows x threads >= kIlutRowTeamThreadsPerResident x the device's resident threads. Measured on an H200 (driver,
/// ParILUT steps 2-4, one lane; MEASUREMENTS.md#par-ilut-row-team): the 5-point 1024^2 grid's sweeps were fastest
/// with one thread per row (1.26 ms per step against 1.69-1.75 with 4 and 1.84 with the entry kernel), the 27-point
/// 64^3 grid's with 4-16 (6.4-6.6 ms against 13.2 with one and 9.4 with the entry kernel).
constexpr double kIlutRowTeamThreadsPerResident = 3.0;
/// Lanes per thread and threads per team of the default shape (one lane: each thread merges its update's row of Y
/// with the staged row; 2-32 lanes, looking the columns up, were 1.2-2.7x slower on the grids).
constexpr int kIlutRowLanes = 1;
constexpr int kIlutRowTeamThreads = 128;

inline int ilut_row_team_threads(std::int64_t rows, std::int64_t concurrency) {
  int t = 1;
  while (t < 16 && static_cast<double>(rows) * t < kIlutRowTeamThreadsPerResident * static_cast<double>(concurrency))
    t *= 2;
  return t;
}

/// The shape of a row-staged sweep of n rows of L with `avg_l` entries per row: the staged row holds the first power
/// of two >= 2 avg_l entries (at least 16; on GPUs at most what 40 KB of team scratch hold for one row, 2048; longer
/// rows run in place). GPUs, explicit launch `l`: vector_length lanes per thread, chunk_size rows per team, team_size
/// threads per team (threads per row = team_size / chunk_size; the other launch fields do not apply); default:
/// kIlutRowLanes lanes, ilut_row_team_threads threads per row, teams of kIlutRowTeamThreads lanes; where the staged
/// rows would pass 40 KB of team scratch a team takes fewer rows, and a default shape gives their threads to the rows
/// left (at most 32 per row). Host backends: one row, one thread, one lane per team.
inline RowSweepShape ilut_row_sweep_shape(bool gpu, std::int64_t n, double avg_l, std::int64_t concurrency,
                                          const LaunchConfig& l) {
  constexpr std::size_t kScratch = 40 << 10;
  constexpr std::size_t kBytesPerEntry = 16;  // a column and a value, with room for alignment
  RowSweepShape s;
  s.cap = 16;
  while (s.cap < (1 << 16) && s.cap < 2.0 * avg_l) s.cap *= 2;
  if (!gpu) return s;
  while (s.cap > 16 && static_cast<std::size_t>(s.cap) * kBytesPerEntry > kScratch) s.cap /= 2;
  s.lanes = l.vector_length > 0 ? l.vector_length : kIlutRowLanes;
  const int team = l.team_size > 0 ? l.team_size : std::max(1, kIlutRowTeamThreads / s.lanes);
  s.rows_per_team =
      l.chunk_size > 0 ? std::min(l.chunk_size, team) : std::max(1, team / ilut_row_team_threads(n, concurrency));
  s.threads_per_row = std::max(1, team / s.rows_per_team);
  while (s.rows_per_team > 1 && static_cast<std::size_t>(s.cap) * s.rows_per_team * kBytesPerEntry > kScratch)
    --s.rows_per_team;
  if (l.chunk_size <= 0 && l.team_size <= 0)
    s.threads_per_row = std::max(s.threads_per_row, std::min(32, team / s.rows_per_team));
  return s;
}

/// The most updates of a row the row-team kernel takes on, against the staged row's `cap` entries: a row of more
/// runs them on its few threads one after the other, where the entry kernel spreads them over the device.
constexpr int kIlutRowTeamMaxTasksPerCap = 2;

/// Runs one row-staged sweep with the sweep functor `f` (RowStagedSweepFunctor) in shape `s`; returns the launch.
template <class ExecSpace, class Handle, class Sweep>
ResolvedLaunch ilut_run_rows(const ExecSpace& exec, Handle& h, const Sweep& f, const RowSweepShape& s,
                             const std::string& label) {
  using G = RowStagedSweepFunctor<Sweep, typename Handle::offset_view>;
  auto& st = h.state();
  G g;
  g.f = f;
  g.uptr = st.U.ptr;
  g.n = st.n;
  g.cap = s.cap;
  g.threads_per_row = s.threads_per_row;
  g.rows_per_team = s.rows_per_team;
  if constexpr (is_gpu_space<ExecSpace>()) {  // fewer rows where the kernel's registers allow fewer threads
    const int most = Impl::TeamPolicy<ExecSpace>(exec, 1, 1, s.lanes)
                         .set_scratch_size(0, Kokkos::PerTeam(G::scratch_bytes(g.cap, g.rows_per_team)))
                         .team_size_max(g, Kokkos::ParallelForTag());
    while (g.rows_per_team > 1 && g.rows_per_team * g.threads_per_row > most) --g.rows_per_team;
  }
  const std::size_t bytes = G::scratch_bytes(g.cap, g.rows_per_team);
  const int team = g.rows_per_team * g.threads_per_row;
  const std::int64_t league = (static_cast<std::int64_t>(st.n) + g.rows_per_team - 1) / g.rows_per_team;
  LaunchConfig c;
  c.team_size = team;
  c.vector_length = s.lanes;
  c.chunk_size = g.rows_per_team;
  ResolvedLaunch r = resolve_launch_config<ExecSpace>(c, st.n, 1.0, exec);
  r.team_size = team;
  r.vector_length = s.lanes;
  r.league_size = static_cast<int>(league);
  r.num_chunks = league;
  r.scratch_pad_bytes = static_cast<int>(bytes);
  if (league > 0)
    Kokkos::parallel_for(label,
                         Impl::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), team, s.lanes)
                             .set_scratch_size(0, Kokkos::PerTeam(bytes)),
                         g);
  return r;
}

}  // namespace Impl
}  // namespace AsyncSparse
