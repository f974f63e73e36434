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
// kRowLaunchGpuTeamThreads threads per team; host backends: one lane, rows in chunks of up to
// kRowLaunchHostRowsPerTeam per team), the row's entries across the lanes (Kokkos::ThreadVectorRange): 134 and 81 us
// for those two passes in the same call as 532 and 549 us before.
//
// Reductions stay range reductions: Kokkos 3.4's team reduction on CUDA ran the set-up's reducing passes 1.5-3.3x
// slower on the large grids than the range reductions (MEASUREMENTS.md#row-launch).
//
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
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

}  // namespace Impl
}  // namespace AsyncSparse
