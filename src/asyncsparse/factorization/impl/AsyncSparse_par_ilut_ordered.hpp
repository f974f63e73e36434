// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT ordered sweeps (Params::sweep_order = Ordered): the level schedule of the rows and
// the level-by-level launch of a sweep functor (AsyncSparse_par_ilut_sweep.hpp). Layout of the factors:
// AsyncSparse_par_ilut_common.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_common.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_lists.hpp>  // ilut_longest_row
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>                       // Impl::lower_bound_sorted, launch_level_runs

namespace AsyncSparse {
namespace Impl {

/// The level schedule of the ordered sweeps (Params::sweep_order) on the current pattern of L, built on the host
/// when the pattern changed (State::pattern_generation). An update of row i reads, besides row i's own entries
/// left of it, only rows k < i with l_ik in the pattern (ParILUT: u_kj and u_jj = row k / j of U with l_ik / l_ij in
/// L; ParICT: rows j of L with l_ij in L), so level(i) = 1 + max level(k) over them, and the rows of one level can be
/// updated at once: row after row in order within each row, level after level, the sweep computes the same values as
/// the sweep in row order.
template <class ExecSpace, class Handle>
const typename Handle::State::OrderedSchedule& ilut_ordered_schedule(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  auto& s = st.schedule;
  if (s.generation == st.pattern_generation && s.rows.extent(0) == static_cast<std::size_t>(st.n)) return s;
  const ordinal_t n = st.n;
  const auto ptr = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(st.L.ptr, std::make_pair(offset_t(0), static_cast<offset_t>(n) + 1)));
  const auto col = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(st.L.col, std::make_pair(offset_t(0), st.L.nnz)));
  std::vector<ordinal_t> level(static_cast<std::size_t>(n), 0);
  ordinal_t levels = n > 0 ? 1 : 0;
  for (ordinal_t i = 0; i < n; ++i) {
    ordinal_t l = 0;
    for (offset_t p = ptr(i); p < ptr(i + 1); ++p)  // the diagonal, last, is skipped by col < i
      if (col(p) < i) l = std::max(l, level[static_cast<std::size_t>(col(p))] + 1);
    level[static_cast<std::size_t>(i)] = l;
    levels = std::max(levels, l + 1);
  }
  s.max_row = 0;
  for (ordinal_t i = 0; i < n; ++i) s.max_row = std::max(s.max_row, ptr(i + 1) - ptr(i));
  s.level_ptr.assign(static_cast<std::size_t>(levels) + 1, 0);
  for (ordinal_t i = 0; i < n; ++i) ++s.level_ptr[static_cast<std::size_t>(level[static_cast<std::size_t>(i)]) + 1];
  for (std::size_t l = 0; l < static_cast<std::size_t>(levels); ++l) s.level_ptr[l + 1] += s.level_ptr[l];
  s.rows = typename Handle::ordinal_view(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::level_rows"), n);
  auto rows = Kokkos::create_mirror_view(s.rows);
  std::vector<offset_t> next(s.level_ptr.begin(), s.level_ptr.end() - 1);
  for (ordinal_t i = 0; i < n; ++i) rows(next[static_cast<std::size_t>(level[static_cast<std::size_t>(i)])]++) = i;
  Kokkos::deep_copy(exec, s.rows, rows);
  s.level_ptr_d = typename Handle::offset_view(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::level_ptr"), s.level_ptr.size());
  Kokkos::deep_copy(exec, s.level_ptr_d,
                    Kokkos::View<const offset_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                        s.level_ptr.data(), s.level_ptr.size()));
  exec.fence();  // `rows` is a host array that goes out of scope
  s.generation = st.pattern_generation;
  return s;
}

/// One level of an ordered sweep: `rows_per_team` threads of a team take a row i each and run its updates in order
/// (ParICT: the entries of row i of L; ParILUT: its strict L entries, then its U entries). The thread first stages the
/// row in its scratch memory: row i of L (the first operand of every dot product of the row, updated as the row
/// proceeds) and, per update, its column j, a_ij, the bounds of row j of Y and the position it writes. Each update
/// then reads only row j of Y, once (its lanes look the columns up in the staged row), and y_jj. A row with more than
/// `cap` updates runs the sweep functor on the factors in place. The values are those of the row-order sweep; the
/// summation order is the vector reduction's (one lane: ascending k, as the sweep functor's merge).
template <class Sweep, class Ptr, class Rows>
struct OrderedLevelFunctor {
  using member_type = typename Sweep::member_type;
  using scalar_type = typename Sweep::VV::non_const_value_type;
  using scratch_space = typename member_type::execution_space::scratch_memory_space;
  template <class T>
  using SView = Kokkos::View<T*, scratch_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Sweep f;
  Rows rows;
  Ptr uptr;       ///< ParILUT: U by rows (ParICT: unused)
  Ptr level_ptr;  ///< the schedule's level_ptr on the device
  /// rows begin .. begin + count (one level, several teams), or with level_end > level_begin the levels
  /// level_begin .. level_end (one team)
  offset_t begin = 0, count = 0;
  offset_t level_begin = 0, level_end = 0;
  int rows_per_team = 1;
  int cap = 0;  ///< updates (and entries of L) of a staged row
  bool ict = false;

  /// Team scratch bytes for `rows` rows of `cap` updates: row i of L (column, value) and per update j, a_ij, the
  /// bounds of row j of Y, the position written and the old value. (Team scratch, each row taking its share: Kokkos
  /// 3.4 sizes CUDA blocks in steps of 32 threads, so that per-thread scratch would have to fit 32 threads.)
  static std::size_t scratch_bytes(int cap, int rows) {
    const std::size_t m = static_cast<std::size_t>(cap) * static_cast<std::size_t>(rows);
    return 2 * SView<ordinal_t>::shmem_size(m) + 3 * SView<scalar_type>::shmem_size(m) +
           3 * SView<offset_t>::shmem_size(m);
  }

  /// sum_{k < bound} x_k y_jk over the staged row x (its first m entries) and row j of Y (positions yb .. ye).
  template <class XCol, class XVal>
  KOKKOS_INLINE_FUNCTION scalar_type staged_dot(const member_type& team, const XCol& xcol, const XVal& xval, offset_t m,
                                                offset_t yb, offset_t ye, ordinal_t bound) const {
    scalar_type sum = 0;
    if (f.vector_length == 1) {  // merge, ascending k
      for (offset_t x = 0, y = yb; x < m && y < ye;) {
        const ordinal_t kx = xcol(x), ky = f.ycol(y);
        if (kx >= bound || ky >= bound) break;
        if (kx == ky)
          sum += ilut_mul(xval(x++), load_relaxed(&f.yin(y++)));
        else if (kx < ky)
          ++x;
        else
          ++y;
      }
      return sum;
    }
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, yb, ye),
        [&](const offset_t y, scalar_type& acc) {
          const ordinal_t k = f.ycol(y);
          if (k >= bound) return;
          const offset_t x = lower_bound_sorted(xcol, offset_t(0), m, k);
          if (x < m && xcol(x) == k) acc += ilut_mul(xval(x), load_relaxed(&f.yin(y)));
        },
        sum);
    return sum;
  }

  /// The updates of row i in order, staged in scratch share `slot` (of rows_per_team).
  template <class Scratch>
  KOKKOS_INLINE_FUNCTION void run_row(const member_type& team, const Scratch& sc, ordinal_t i, int slot) const {
    const auto mine = std::make_pair(static_cast<std::size_t>(slot) * cap, static_cast<std::size_t>(slot + 1) * cap);
    const auto xcol = Kokkos::subview(sc.xcol, mine);
    const auto tj = Kokkos::subview(sc.tj, mine);
    const auto xval = Kokkos::subview(sc.xval, mine);
    const auto ta = Kokkos::subview(sc.ta, mine);
    const auto told = Kokkos::subview(sc.told, mine);
    const auto tyb = Kokkos::subview(sc.tyb, mine);
    const auto tye = Kokkos::subview(sc.tye, mine);
    const auto tpos = Kokkos::subview(sc.tpos, mine);
    const offset_t lb = f.lptr(i), le = f.lptr(i + 1), len = le - lb;
    const offset_t ub = ict ? 0 : uptr(i), ue = ict ? 0 : uptr(i + 1);
    const offset_t nl = ict ? len : len - 1;  // the L updates (ParILUT: strict entries)
    const offset_t ntasks = nl + (ue - ub);
    const offset_t t0 = ict ? lb : lb - static_cast<offset_t>(i) + ub;  // task numbers as in ilut_build_tasks
    if (len > cap || ntasks > cap) {                                    // the tasks of row i on the factors in place
      for (offset_t t = t0; t < t0 + ntasks; ++t) f(team, static_cast<std::int64_t>(t));
      return;
    }
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, ntasks), [&](const offset_t x) {
      if (x < len) {
        xcol(x) = f.lcol(lb + x);
        xval(x) = load_relaxed(&f.lin(lb + x));
      }
      const bool l = x < nl;
      const offset_t q = ub + (x - nl);  // ParILUT: the U entry
      const ordinal_t j = l ? f.lcol(lb + x) : f.ucol(q);
      const offset_t ap = l ? f.lapos(lb + x) : f.uapos(q);
      tj(x) = j;
      ta(x) = ap >= 0 ? f.a(ap) : scalar_type(0);
      tyb(x) = f.yptr(j);
      tye(x) = f.yptr(j + 1);
      tpos(x) = l ? lb + x : f.umap(q);
      told(x) = l ? load_relaxed(&f.lin(lb + x)) : load_relaxed(&f.yin(f.umap(q)));
    });
    for (offset_t x = 0; x < ntasks; ++x) {
      const ordinal_t j = tj(x);
      const std::int64_t t = t0 + x;
      if (x >= nl) {  // ParILUT: u_ij over the whole strict row of L
        f.finish_u(team, tpos(x), t, i, j, ta(x), staged_dot(team, xcol, xval, nl, tyb(x), tye(x), i), told(x));
        continue;
      }
      scalar_type s = 0, yjj = 1;
      if (ict && j == i) {  // the staged row with itself: sum_{k<i} l_ik^2
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, offset_t(0), x),
            [&](const offset_t y, scalar_type& acc) { acc += ilut_mul(xval(y), xval(y)); }, s);
      } else {
        yjj = load_relaxed(&f.yin(tye(x) - 1));
        s = staged_dot(team, xcol, xval, x, tyb(x), tye(x), j);
      }
      scalar_type v;
      if (f.finish_l(team, tpos(x), t, i, j, ta(x), s, yjj, told(x), v))
        Kokkos::single(Kokkos::PerThread(team), [&]() { xval(x) = v; });
    }
  }

  struct Staging {
    SView<ordinal_t> xcol, tj;
    SView<scalar_type> xval, ta, told;
    SView<offset_t> tyb, tye, tpos;
  };

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const auto& space = team.team_scratch(0);
    const std::size_t m = static_cast<std::size_t>(cap) * static_cast<std::size_t>(rows_per_team);
    Staging sc;  // allocated in the order scratch_bytes counts
    sc.xcol = SView<ordinal_t>(space, m);
    sc.tj = SView<ordinal_t>(space, m);
    sc.xval = SView<scalar_type>(space, m);
    sc.ta = SView<scalar_type>(space, m);
    sc.told = SView<scalar_type>(space, m);
    sc.tyb = SView<offset_t>(space, m);
    sc.tye = SView<offset_t>(space, m);
    sc.tpos = SView<offset_t>(space, m);
    if (level_end > level_begin) {  // one team: levels level_begin .. level_end one after the other
      for (offset_t l = level_begin; l < level_end; ++l) {
        const offset_t b = level_ptr(l), e = level_ptr(l + 1);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, e - b),
                             [&](const offset_t r) { run_row(team, sc, rows(b + r), team.team_rank()); });
        team.team_barrier();  // the next level reads this one's rows
      }
      return;
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](const int r) {
      const offset_t k = static_cast<offset_t>(team.league_rank()) * rows_per_team + r;
      if (k < count) run_row(team, sc, rows(begin + k), r);
    });
  }
};

/// Runs an ordered sweep with functor `f` level by level: runs of narrow levels in one team, each wider level in a
/// launch of its own; teams of `rows_per_team` threads with `lanes` vector lanes. Returns the launch record
/// (league_size: the most teams of a launch, num_chunks: the levels).
template <class ExecSpace, class Handle, class Sweep>
ResolvedLaunch ilut_run_ordered(const ExecSpace& exec, Handle& h, const Sweep& f, int lanes, const std::string& label) {
  using G = OrderedLevelFunctor<Sweep, typename Handle::offset_view, typename Handle::ordinal_view>;
  auto& st = h.state();
  const auto& s = ilut_ordered_schedule(exec, h);
  G g;
  g.f = f;
  g.rows = s.rows;
  g.uptr = st.U.ptr;
  g.ict = st.kind == ParIlutKind::Ict;
  // the most updates of a row (ParILUT: strict L entries and U entries, from ilut_longest_row's one reduction per
  // pattern, which the row-team rule shares; at least the entries of a row of L)
  offset_t most_tasks = s.max_row;
  if (!g.ict) most_tasks = std::max(most_tasks, ilut_longest_row(exec, h).tasks);
  // GPUs: teams of 128 threads (rows x lanes), fewer where the staged rows would pass 40 KB of scratch memory or
  // the kernel's registers allow fewer; a row of more updates than fit one thread's share runs in place. Host
  // backends: one row per team, rows of up to 2^16 updates staged.
  constexpr std::size_t kScratch = 40 << 10;
  g.cap = static_cast<int>(std::min<offset_t>(std::max<offset_t>(most_tasks, 1), 1 << 16));
  if (is_gpu_space<ExecSpace>()) {
    while (g.cap > 1 && G::scratch_bytes(g.cap, 1) > kScratch) g.cap /= 2;
    g.rows_per_team = std::max(1, 128 / lanes);
    while (g.rows_per_team > 1 && G::scratch_bytes(g.cap, g.rows_per_team) > kScratch) --g.rows_per_team;
    const int most = Impl::TeamPolicy<ExecSpace>(exec, 1, 1, lanes)
                         .set_scratch_size(0, Kokkos::PerTeam(G::scratch_bytes(g.cap, g.rows_per_team)))
                         .team_size_max(g, Kokkos::ParallelForTag());
    g.rows_per_team = std::max(1, std::min(g.rows_per_team, most));
  } else {
    g.rows_per_team = 1;
  }
  g.level_ptr = s.level_ptr_d;
  LaunchConfig c;
  c.team_size = g.rows_per_team;
  c.vector_length = lanes;
  c.chunk_size = 1;
  ResolvedLaunch r = resolve_launch_config<ExecSpace>(c, st.n, 1.0, exec);
  r.league_size = 0;
  const std::size_t bytes = G::scratch_bytes(g.cap, g.rows_per_team);
  r.scratch_pad_bytes = static_cast<int>(bytes);
  const auto launch = [&](int league) {
    r.league_size = std::max(r.league_size, league);
    ++h.stats().ordered_launches;
    Kokkos::parallel_for(
        label,
        Impl::TeamPolicy<ExecSpace>(exec, league, g.rows_per_team, lanes).set_scratch_size(0, Kokkos::PerTeam(bytes)),
        g);
  };
  // Levels of up to `wide` rows run one after the other in one team (a team barrier between two levels instead of
  // a kernel launch); a wider level gets a launch of its own with a team per rows_per_team rows.
  const offset_t wide = is_gpu_space<ExecSpace>() ? 2 * static_cast<offset_t>(g.rows_per_team) : 4 * r.concurrency;
  h.stats().ordered_launches = 0;
  launch_level_runs(s.level_ptr, wide, g.rows_per_team, g, launch);
  r.num_chunks = static_cast<std::int64_t>(s.level_ptr.size()) - 1;
  h.stats().ordered_levels = static_cast<int>(r.num_chunks);
  return r;
}

}  // namespace Impl
}  // namespace AsyncSparse
