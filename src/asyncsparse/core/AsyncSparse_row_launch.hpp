// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — launches of kernels that handle one row of a CRS matrix per work item and store per entry (set-up
// passes: task lists, the pattern of L, scaling, the transpose's scatter).
//
// A row walked by one thread of a range launch reads and writes its entries 32 rows per warp instruction on GPUs: each
// store of a warp touches 32 sectors, and passes that store every entry ran at the L2's or DRAM's limit (Kokkos 3.4 on
// CUDA; NVIDIA H200, Nsight Compute on the default ParIC set-up of the 27-point 64^3 Laplacian: the task list 520 us,
// the scaling pass 529 us, where one spmv takes about 70 us; perf_tests/results/MEASUREMENTS.md#row-launch).
// parallel_for_rows runs each row on one thread's vector lanes (GPUs: row_lanes of the average row length,
// kRowLaunchGpuTeamThreads threads per team; host backends: one lane, kRowLaunchHostRowsPerTeam rows per team), the
// row's entries across the lanes (Kokkos::ThreadVectorRange): 79 and 132 us for those two passes.
//
// Reductions stay range reductions: Kokkos 3.4's team reduction on CUDA ran the set-up's row checks 1.6-3.3x slower
// than the range reduction it would replace (MEASUREMENTS.md#row-launch).
//
// The body is called as body(member, i), i a std::int64_t (a body may take an ordinal_t for a row), by every lane of
// row i's thread; stores that every lane would repeat go through Kokkos::single(Kokkos::PerThread(member), ...).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

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
/// Rows per team (one thread) of a row launch on host backends.
constexpr int kRowLaunchHostRowsPerTeam = 256;

/// The shape of a row launch: `lanes` per row, `team_size` threads per team, `rows_per_team` rows per team
/// (GPUs: one per thread; host backends: kRowLaunchHostRowsPerTeam for the one thread), `league` teams.
struct RowLaunch {
  int lanes = 1;
  int team_size = 1;
  int rows_per_team = 1;
  std::int64_t league = 0;
};

template <class ExecSpace>
constexpr bool host_space_launch() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
}

/// The row launch of `rows` work items whose rows hold `avg_row` entries on average.
template <class ExecSpace>
RowLaunch row_launch(std::int64_t rows, double avg_row) {
  RowLaunch l;
  const bool host = host_space_launch<ExecSpace>();
  l.lanes = host ? 1 : row_lanes(avg_row);
  l.team_size = host ? 1 : kRowLaunchGpuTeamThreads / l.lanes;
  l.rows_per_team = host ? kRowLaunchHostRowsPerTeam : l.team_size;
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

}  // namespace Impl
}  // namespace AsyncSparse
