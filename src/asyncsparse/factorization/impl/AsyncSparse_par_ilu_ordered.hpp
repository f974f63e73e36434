// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the ordered sweep of the iterative ILU / IC factorization (ParIluHandle::Params::sweep_order): the
// level schedule of the rows and the level-by-level launch of the row-merge kernel's row update
// (AsyncSparse_par_ilu_row_merge.hpp), and the Auto rule of the numeric phase's attempts (par_ilu_attempt_in_order).
//
// Why the row-merge update: it computes row i of L (ILU: and column i of U) in order, each sum merging two sorted
// index lists; run for the rows of one level at a time, every value it reads outside its row is final, so one pass
// over the levels is the Gauss–Seidel sweep in row order, whose result is the exact incomplete factorization of the
// pattern. It needs nothing built per pattern but the schedule.
//
// Races: none across rows of one level (a row writes only its own entries and reads rows of earlier levels); the
// barrier between two levels of one team (preceded by a fence) and the end of a launch order the writes of a level
// before the reads of the next.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_handle.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_diagonal_shift.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_row_merge.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_sweep.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>  // Impl::launch_level_runs

namespace AsyncSparse {
namespace Impl {

/// The level schedule of the ordered sweep, built on the host at its first use after par_ilu_symbolic (State::
/// schedule): row i's update reads rows j < i with l_ij in L (IC: row j of L; ILU: column j of U, which unit j
/// computes) and, for ILU, rows k < i with u_ki in U (row k of L), so level(i) = 1 + the largest level among them.
template <class ExecSpace, class Scalar, class Device>
const typename ParIluHandle<Scalar, Device>::State::OrderedSchedule& par_ilu_ordered_schedule(
    const ExecSpace& exec, ParIluHandle<Scalar, Device>& h) {
  auto& st = h.state();
  auto& s = st.schedule;
  if (!s.level_ptr.empty()) return s;
  const ordinal_t n = st.n;
  const bool ilu = st.kind == ParIluKind::Ilu;
  const auto lrm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.L.graph.row_map);
  const auto lent = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.L.graph.entries);
  const auto urm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.Ut.graph.row_map);
  const auto uent = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.Ut.graph.entries);
  std::vector<ordinal_t> level(static_cast<std::size_t>(n), 0);
  ordinal_t levels = n > 0 ? 1 : 0;
  auto after = [&](ordinal_t i, ordinal_t j, ordinal_t& l) {
    if (j < i) l = std::max(l, level[static_cast<std::size_t>(j)] + 1);
  };
  for (ordinal_t i = 0; i < n; ++i) {
    ordinal_t l = 0;
    for (offset_t p = lrm(i); p < lrm(i + 1); ++p) after(i, lent(p), l);
    if (ilu)
      for (offset_t q = urm(i); q < urm(i + 1); ++q) after(i, uent(q), l);
    level[static_cast<std::size_t>(i)] = l;
    levels = std::max(levels, l + 1);
  }
  std::vector<offset_t> ptr(static_cast<std::size_t>(levels) + 1, 0);
  for (ordinal_t i = 0; i < n; ++i) ++ptr[static_cast<std::size_t>(level[static_cast<std::size_t>(i)]) + 1];
  for (std::size_t l = 0; l < static_cast<std::size_t>(levels); ++l) ptr[l + 1] += ptr[l];
  s.rows = decltype(s.rows)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilu::level_rows"), n);
  auto rows = Kokkos::create_mirror_view(s.rows);
  std::vector<offset_t> next(ptr.begin(), ptr.end() - 1);
  for (ordinal_t i = 0; i < n; ++i) rows(next[static_cast<std::size_t>(level[static_cast<std::size_t>(i)])]++) = i;
  Kokkos::deep_copy(exec, s.rows, rows);
  s.level_ptr_d = decltype(s.level_ptr_d)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilu::level_ptr"), ptr.size());
  Kokkos::deep_copy(exec, s.level_ptr_d,
                    Kokkos::View<const offset_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                        ptr.data(), ptr.size()));
  exec.fence();  // `rows` and `ptr` are host arrays that go out of scope
  s.level_ptr = std::move(ptr);
  return s;
}

/// One launch of the ordered sweep: with level_end > level_begin, one team runs the levels level_begin ..
/// level_end one after the other (a thread per row, a fence and a team barrier between two levels); otherwise the
/// rows begin .. begin + count of one level, a thread each over the league.
template <class RowFunctor, class Scalar, class Device>
struct ParIluOrderedFunctor {
  RowFunctor f;  ///< the row-merge update in place (ParIluRowMergeSweepFunctor<Kind, true, ...>)
  Kokkos::View<const ordinal_t*, Device> rows;
  Kokkos::View<const offset_t*, Device> level_ptr;
  offset_t begin = 0, count = 0;
  offset_t level_begin = 0, level_end = 0;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (level_end > level_begin) {
      for (offset_t l = level_begin; l < level_end; ++l) {
        const offset_t b = level_ptr(l), e = level_ptr(l + 1);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, e - b), [&](const offset_t r) {
          RowCarry<Scalar> c;
          f.row(rows(b + r), c);
        });
        Kokkos::memory_fence();  // this level's values before the next level's reads
        team.team_barrier();
      }
      return;
    }
    const offset_t first = static_cast<offset_t>(team.league_rank()) * team.team_size();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team.team_size()), [&](const int r) {
      if (first + r >= count) return;
      RowCarry<Scalar> c;
      f.row(rows(begin + first + r), c);
    });
  }
};

/// GPU threads per team of the ordered sweep: rows of a level at once in one team (a level of up to twice as many
/// runs in that team too, two rows per thread, instead of a launch of its own).
constexpr int kParIluOrderedGpuTeamThreads = 128;

/// Runs the ordered sweep on the handle's factors (in place, both modes; the row update's operands a_l / a_u as
/// row_sweep_values left them, which the numeric phase runs for the row kernels) and returns its breakdown word
/// (kNoBreakdown when no update was skipped); Stats::ordered_levels / ordered_launches say how it ran, Stats::launch
/// its widest launch. Runs of levels of at most `wide` rows (GPUs: 2 x kParIluOrderedGpuTeamThreads; host backends: 4
/// x the concurrency, one thread) run in one team, each wider level in a launch of its own.
template <class ExecSpace, class Scalar, class Device>
unsigned long long par_ilu_ordered_sweep(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h) {
  auto& st = h.state();
  auto& stats = h.stats();
  const auto& s = par_ilu_ordered_schedule(exec, h);
  using word = Kokkos::View<unsigned long long, Device>;
  const word flag(st.breakdown_words.data());
  const bool gpu = is_gpu_space<ExecSpace>();
  const int concurrency = static_cast<int>(exec.concurrency());
  const int threads = gpu ? kParIluOrderedGpuTeamThreads : 1;
  const offset_t wide = gpu ? 2 * static_cast<offset_t>(threads) : 4 * static_cast<offset_t>(std::max(concurrency, 1));
  const std::size_t levels = s.level_ptr.size() - 1;
  stats.ordered_levels = static_cast<int>(levels);
  stats.ordered_launches = 0;
  ResolvedLaunch r;
  r.team_size = threads;
  r.vector_length = 1;
  r.chunk_size = 1;
  r.concurrency = concurrency;
  r.num_chunks = static_cast<std::int64_t>(levels);
  auto run = [&](auto kind_tag) {
    constexpr ParIluKind kind = decltype(kind_tag)::value;
    using RowF = ParIluRowMergeSweepFunctor<kind, true, Scalar, Device>;
    ParIluOrderedFunctor<RowF, Scalar, Device> g;
    g.f.l_rm = st.L.graph.row_map;
    g.f.l_ent = st.L.graph.entries;
    g.f.a_l = st.a_l;
    g.f.l_read = g.f.l_write = st.L.values.data();
    if constexpr (kind == ParIluKind::Ilu) {
      g.f.u_rm = st.Ut.graph.row_map;
      g.f.u_ent = st.Ut.graph.entries;
      g.f.a_u = st.a_u;
      g.f.u_read = g.f.u_write = st.Ut.values.data();
    }
    g.f.flag = flag;
    g.rows = s.rows;
    g.level_ptr = s.level_ptr_d;
    const std::string label =
        kind == ParIluKind::Ilu ? "AsyncSparse::par_ilu::ordered" : "AsyncSparse::par_ic::ordered";
    auto launch = [&](int league) {
      r.league_size = std::max(r.league_size, league);
      ++stats.ordered_launches;
      Kokkos::parallel_for(label, Impl::TeamPolicy<ExecSpace>(exec, league, threads, 1), g);
    };
    launch_level_runs(s.level_ptr, wide, threads, g, launch);
  };
  if (st.kind == ParIluKind::Ilu)
    run(ParIluKindTag<ParIluKind::Ilu>());
  else
    run(ParIluKindTag<ParIluKind::Ic>());
  unsigned long long result = kNoBreakdown;
  Kokkos::deep_copy(
      exec, Kokkos::View<unsigned long long, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(&result),
      flag);
  exec.fence();
  if (result != kNoBreakdown) {
    Kokkos::deep_copy(exec, flag, kNoBreakdown);
    exec.fence();
  }
  stats.launch = r;
  return result;
}

/// The numeric phase's sweeps as one ordered sweep (par_ilu_numeric_attempt with `ordered`): Stats::sweeps 1, its
/// time, and BreakdownError where it skipped an update (no later sweep would supply the value it lacks).
template <class ExecSpace, class Scalar, class Device>
void run_ordered_sweep(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h) {
  auto& stats = h.stats();
  par_ilu_ordered_schedule(exec, h);  // once per pattern, not part of the sweep's time
  Kokkos::Timer t;
  const unsigned long long flag = par_ilu_ordered_sweep(exec, h);
  ++stats.sweeps;
  try {
    record_sweep(h, flag, t.seconds());
  } catch (const BreakdownError&) {  // where the mode stops at once: the same error, said of the ordered sweep below
  }
  if (stats.consecutive_breakdowns > 0)
    throw BreakdownError(par_ilu_name(h) + " (ordered sweep)", stats.breakdown_row, stats.breakdown_problem);
}

/// Params::sweep_order for one attempt of par_ilu_numeric; `ordered` (in and out): whether this attempt and the
/// later ones run the ordered sweep. Ordered: every attempt. Auto: concurrent sweeps and, where they break down or
/// diverge, the ordered sweep at the same shift (run_with_ordered_fallback, Stats::ordered_reason) — on host
/// backends from the first failure on (the later shifts keep it: there an ordered sweep costs about what a
/// concurrent one does, and the restarts need the same shifts either way), on GPUs only for the attempt whose
/// failure would end the numeric phase (`final_attempt`: the last diagonal shift, or the only attempt without
/// restarts), since there it costs as much as many concurrent sweeps
/// (perf_tests/results/MEASUREMENTS.md#ordered-rescue).
template <class ExecSpace, class Handle, class Attempt>
void par_ilu_attempt_in_order(Handle& h, bool final_attempt, bool& ordered, Attempt&& attempt) {
  const SweepOrder o = h.params.sweep_order;
  if (o == SweepOrder::Ordered) ordered = true;
  if (o != SweepOrder::Auto || ordered || (is_gpu_space<ExecSpace>() && !final_attempt)) return attempt(ordered);
  run_with_ordered_fallback(h.stats().ordered_reason, [&](bool switched) {
    ordered = switched;
    attempt(switched);
  });
}

}  // namespace Impl
}  // namespace AsyncSparse
