// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — launches of kernels that handle one row of a CRS matrix per work item and store per entry (set-up
// passes: task lists, the pattern of L, scaling, the transpose's scatter) or check it (the symbolic and numeric checks,
// the triangular solvers' loading), and the verdict words the checking passes report into.
//
// A row walked by one thread of a range launch reads and writes its entries 32 rows per warp instruction on GPUs: each
// store of a warp touches 32 sectors, and passes that store every entry ran at the L2's or DRAM's limit (Kokkos 3.4 on
// CUDA; NVIDIA H200, Nsight Compute on the default ParIC set-up of the 27-point 64^3 Laplacian: the task list 520 us,
// the scaling pass 529 us, where one spmv takes about 70 us; perf_tests/results/MEASUREMENTS.md#row-launch).
// parallel_for_rows runs each row on one thread's vector lanes (GPUs: row_lanes of the average row length,
// kRowLaunchGpuTeamThreads threads per team; host backends: one lane, rows in chunks of up to
// kRowLaunchHostRowsPerTeam per team), the row's entries across the lanes (Kokkos::ThreadVectorRange): 134 and 81 us
// for those two passes in the same call as 532 and 549 us before.
//
// Checking passes are not Kokkos reductions: Kokkos 3.4 runs a range reduction on CUDA in at most 256 blocks of 256
// threads (Nsight Compute: 18 % achieved occupancy for the numeric checks of the 27-point grid's set-up), and its team
// reduction ran those passes 1.5-3.3x slower still on the large grids. They run as parallel_for over the whole grid
// (at most a reduction across a row's lanes) and report the smallest key of the problems they find into a verdict word
// (report_verdict, take_verdict), which a pass touches only on a problem (MEASUREMENTS.md#row-launch).
//
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>

namespace AsyncSparse {
namespace Impl {

/// Lanes per row on GPUs for rows of `avg_row` entries on average: the largest power of two at most avg_row / 2
/// (two entries per lane), between 1 and 32. The lane count of the Krylov solvers'
/// lane-group product (spmv_vector_length), measured there (MEASUREMENTS.md#spmv-lanes: 2 lanes for the 5-point
/// Laplacian's 5 entries per row, 8 for the 27-point one's 26.2).
inline int row_lanes(double avg_row) {
  int v = 1;
  while (v < 32 && 4.0 * v <= avg_row) v *= 2;
  return v;
}

/// Threads per team of a row launch on GPUs (rows per team = this / lanes). 128 threads per team as the sweep kernels'
/// row launches (kParIluRowGpuTeamThreads); not studied separately.
constexpr int kRowLaunchGpuTeamThreads = 128;
/// Most rows per team (one thread) of a row launch on host backends; fewer where that leaves under four teams per
/// thread, so that small matrices still give every thread work (2 threads measured, MEASUREMENTS.md#row-launch).
constexpr int kRowLaunchHostRowsPerTeam = 256;

/// The shape of a row launch: `lanes` per row, `team_size` threads per team, `rows_per_team` rows per team
/// (GPUs: one per thread; host backends: up to kRowLaunchHostRowsPerTeam for the one thread), `league` teams.
struct RowLaunch {
  int lanes = 1;
  int team_size = 1;
  int rows_per_team = 1;
  std::int64_t league = 0;
};

/// The row launch of `rows` work items whose rows hold `avg_row` entries on average.
template <class ExecSpace>
RowLaunch row_launch(std::int64_t rows, double avg_row) {
  RowLaunch l;
  const bool gpu = is_gpu_space<ExecSpace>();
  l.lanes = gpu ? row_lanes(avg_row) : 1;
  l.team_size = gpu ? kRowLaunchGpuTeamThreads / l.lanes : 1;
  const std::int64_t host_rows = rows / (4 * static_cast<std::int64_t>(ExecSpace().concurrency()));
  l.rows_per_team =
      gpu ? l.team_size
          : static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(kRowLaunchHostRowsPerTeam, host_rows)));
  l.league = rows > 0 ? (rows + l.rows_per_team - 1) / l.rows_per_team : 0;
  return l;
}

template <class ExecSpace>
using RowMember = typename TeamPolicy<ExecSpace>::member_type;

template <class ExecSpace, class Body>
struct RowsFor {
  Body body;
  std::int64_t rows;
  int rows_per_team;
  KOKKOS_INLINE_FUNCTION void operator()(const RowMember<ExecSpace>& m) const {
    const std::int64_t first = static_cast<std::int64_t>(m.league_rank()) * rows_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, rows_per_team), [&](const int r) {
      if (first + r < rows) body(m, first + r);
    });
  }
};

/// body(member, i) for i in [0, rows), launched as `l` (row_launch), asynchronously on `exec`.
template <class ExecSpace, class Body>
void parallel_for_rows(const std::string& name, const ExecSpace& exec, const RowLaunch& l, std::int64_t rows,
                       const Body& body) {
  if (rows <= 0) return;
  Kokkos::parallel_for(name, TeamPolicy<ExecSpace>(exec, static_cast<int>(l.league), l.team_size, l.lanes),
                       RowsFor<ExecSpace, Body>{body, rows, l.rows_per_team});
}

/// body(member, i) for the rows of a matrix of `rows` rows and `entries` entries (row_launch of their average).
template <class ExecSpace, class Body>
void parallel_for_rows(const std::string& name, const ExecSpace& exec, std::int64_t rows, std::int64_t entries,
                       const Body& body) {
  const double avg = rows > 0 ? static_cast<double>(entries) / static_cast<double>(rows) : 1.0;
  parallel_for_rows(name, exec, row_launch<ExecSpace>(rows, avg), rows, body);
}

/// A checking pass's verdict: the smallest key of the problems it found (each pass defines its keys, e.g. 8 * row +
/// code), kNoVerdict for none. The word lives in an allocation its owner makes anyway (a handle's breakdown words, a
/// solver's arrays: a device allocation costs about 50 us on an H200, MEASUREMENTS.md#setup-latency) and holds
/// kNoVerdict between passes, so a pass that finds nothing neither initializes nor resets it.
using verdict_t = unsigned long long;
constexpr verdict_t kNoVerdict = ~0ull;

/// True when `p` may hold a verdict word.
inline bool verdict_aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % alignof(verdict_t) == 0; }

/// Lowers the verdict word `w` to `key` (relaxed atomic minimum). The word only decreases, so a key not below a
/// plain read of it is dropped without the atomic: a matrix bad everywhere (all NaN, IC given a nonsymmetric one)
/// does not queue millions of atomics on one address. (A stale read only lets an atomic through.)
KOKKOS_FORCEINLINE_FUNCTION void report_verdict(verdict_t* w, verdict_t key) {
  if (key < *static_cast<volatile verdict_t*>(w)) Kokkos::atomic_fetch_min(w, key);
}

/// The verdicts of two words after the passes queued on `exec` before, in one wait (`take_a` / `take_b`: whether each
/// is read; one not read is kNoVerdict); a word holding a problem is reset to kNoVerdict.
template <class ExecSpace, class Word>
std::pair<verdict_t, verdict_t> take_verdicts(const ExecSpace& exec, const Word& a, bool take_a, const Word& b,
                                              bool take_b) {
  verdict_t v[2] = {kNoVerdict, kNoVerdict};
  const Word* w[2] = {take_a ? &a : nullptr, take_b ? &b : nullptr};
  for (int k = 0; k < 2; ++k)
    if (w[k])
      Kokkos::deep_copy(
          exec, Kokkos::View<verdict_t, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(&v[k]), *w[k]);
  if (w[0] || w[1]) exec.fence();
  bool reset = false;
  for (int k = 0; k < 2; ++k)
    if (v[k] != kNoVerdict) {
      Kokkos::deep_copy(exec, *w[k], kNoVerdict);
      reset = true;
    }
  if (reset) exec.fence();
  return {v[0], v[1]};
}

/// The verdict of the passes queued on `exec` before (a wait and a transfer), the word reset to kNoVerdict when it
/// holds a problem.
template <class ExecSpace, class Word>
verdict_t take_verdict(const ExecSpace& exec, const Word& w) {
  return take_verdicts(exec, w, true, w, false).first;
}

}  // namespace Impl
}  // namespace AsyncSparse
