// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — mapping of asynchronous row-update kernels onto host threads (the CPU side of the
// launch-control layer).
//
// An asynchronous relaxation in which every row is updated `k` times per launch ("static" assignment:
// Tsai, Nayak, Chow & Anzt 2022, Algorithm 2) relies on many rows being in flight at once. On a GPU that
// holds: every row has its own lane group, tens of thousands of them are resident, and the k updates of
// neighbouring rows interleave, so each update reads neighbour values that moved since the last one. On a
// host execution space only `concurrency` (= the thread count) rows are in flight. Run the same way, one
// thread would update a row k times against neighbours that do not move in between — k relaxations of one
// equation to its own fixed point, of which only the first makes progress — and then go to the next row:
// one Gauss–Seidel-like pass per launch whatever k is.
//
// The host mapping therefore keeps the unit of asynchrony at the thread instead of the row:
//  * the rows are cut into P contiguous blocks of balanced size (they differ by at most one row), P = the
//    concurrency, capped by LaunchConfig::max_concurrent_teams when that is set, and by the number of rows;
//  * thread b owns block b and sweeps it k times, one update per row per sweep, as kHostStreams interleaved
//    sub-blocks each in row order (independent chains of updates for the core to overlap). Inside the block
//    a row reads its block neighbours' newest values (Gauss–Seidel within a block, which the asynchronous
//    model allows: a read may return any value written so far); entries of other blocks are read with relaxed
//    atomic loads and are whatever their owners stored last (asynchronous block iteration, Chazan & Miranker
//    1969, Baudet 1978). As on GPUs, every row is updated exactly k times per launch and has one writer.
//  * the block boundaries are moved between launches toward equal times per block (HostBlockBalancer below), so a
//    thread slowed down by a competing process gets fewer rows instead of holding up every launch;
//  * contiguous blocks keep a thread's stores in its own cache lines: only the rows at the P - 1 block ends
//    are shared with another thread (in natural order, their grid neighbours), so there is no false sharing.
//  * the GPU kernels' fence after every row update (CUDA __threadfence: it pushes the store out of the SM's
//    non-coherent L1) becomes one fence per block of rows (static: per sweep of the block; dynamic: per chunk).
//    CPU caches are coherent, a store becomes visible to the other cores on its own; the fence only orders, and
//    on x86-64 one per row (an mfence) doubled the cost of a sweep of the 5-point Laplacian.
// With one thread (Serial, or OpenMP with one thread) this is k Gauss–Seidel sweeps in row order.
//
// A kernel selects the mapping at compile time with `if constexpr (is_host_space<ExecSpace>())`, so the host
// body is never instantiated for a GPU execution space and the GPU kernel stays as it is.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif
#if defined(__linux__)
#include <sched.h>
#endif

#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>

namespace AsyncSparse {

/// Sub-blocks of a thread's block whose Gauss–Seidel sweeps a host thread interleaves (the static asynchronous
/// Jacobi mapping): independent dependency chains for the core to overlap. Measured on a 2-core x86-64 host,
/// gen:lap2d:150, one thread, time per update: 1 stream 2.1x a synchronous Jacobi update, 2-4 streams 1.25x,
/// 8 streams 1.35x, 16 streams 2.2x (too many concurrent memory streams for the prefetchers).
inline constexpr int kHostStreams = 4;

/// True for execution spaces that run on the host's threads and can access host memory (Serial, OpenMP,
/// Threads, ...); false for GPU execution spaces (CUDA, HIP, SYCL).
template <class ExecSpace>
constexpr bool is_host_space() {
  return Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
}

/// Threads a launch on the host execution space `exec` runs at once: its concurrency, or 1 when the launch would run
/// on the calling thread alone (an OpenMP instance called from inside an OpenMP parallel region: Kokkos then runs
/// every work item in turn on that thread). Mappings whose threads wait for each other's progress use it.
template <class ExecSpace>
int host_threads_at_once(const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same<ExecSpace, Kokkos::OpenMP>::value)
    if (omp_in_parallel()) return 1;
#endif
  return std::max(1, static_cast<int>(exec.concurrency()));
}

/// Hardware threads the threads of the host execution space `ExecSpace` may run on (0 when unknown). Kokkos::OpenMP
/// with bound threads (OMP_PROC_BIND not false): the CPUs of its places (the calling thread is then bound to one
/// place, and its own affinity mask holds one: two threads on two cores looked oversubscribed). Otherwise the calling
/// thread's CPU affinity mask where the system reports one (the other host backends' threads start from it), else
/// the hardware's thread count.
template <class ExecSpace = Kokkos::DefaultHostExecutionSpace>
unsigned host_hardware_threads() {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same<ExecSpace, Kokkos::OpenMP>::value) {
    if (omp_get_proc_bind() != omp_proc_bind_false) {
      int cpus = 0;
      for (int p = 0; p < omp_get_num_places(); ++p) cpus += omp_get_place_num_procs(p);
      if (cpus > 0) return static_cast<unsigned>(cpus);
    }
  }
#endif
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(CPU_COUNT(&set));
#endif
  return std::thread::hardware_concurrency();
}

/// Contiguous, balanced partition of `rows` rows into `blocks` blocks: block b is [begin(b), end(b)), the block
/// sizes differ by at most one. Device-callable (used inside the kernels).
struct HostBlockPartition {
  std::int64_t rows = 0;
  std::int64_t blocks = 1;
  KOKKOS_INLINE_FUNCTION std::int64_t begin(std::int64_t b) const { return rows * b / blocks; }
  KOKKOS_INLINE_FUNCTION std::int64_t end(std::int64_t b) const { return rows * (b + 1) / blocks; }
};

/// The host partition of `rows` rows for a kernel launched with `r` (see the file comment): one block per thread,
/// min(concurrency, max_concurrent_teams if > 0, rows) blocks, at least one.
inline HostBlockPartition host_block_partition(const ResolvedLaunch& r, std::int64_t rows) {
  std::int64_t p = std::max(1, r.concurrency);
  if (r.max_concurrent_teams > 0) p = std::min<std::int64_t>(p, r.max_concurrent_teams);
  HostBlockPartition part;
  part.rows = rows;
  part.blocks = std::max<std::int64_t>(1, std::min(p, rows));
  return part;
}

/// Record the host partition in the resolved launch that verbose modes and records print: one single-thread team
/// per block (league_size = num_chunks = blocks), chunk_size = the largest block.
inline void record_host_blocks(ResolvedLaunch& r, const HostBlockPartition& part) {
  r.team_size = 1;
  r.league_size = static_cast<int>(part.blocks);
  r.num_chunks = part.blocks;
  r.chunk_size = static_cast<int>((part.rows + part.blocks - 1) / part.blocks);
}

/// Block boundaries of the static host mapping for one solve, rebalanced between launches from each thread's
/// measured rate. A thread that shares its core with another process (or is descheduled) sweeps its block more
/// slowly, and every launch ends when the slowest block is done: after each launch the rows are redistributed so
/// that each block's expected time is the same (rows proportional to the measured rows per second, moved halfway
/// toward that target). Within a launch nothing changes: each row has one writer and gets exactly its `updates`.
/// Launches shorter than 1 ms, or whose blocks differ by less than 10 %, leave the boundaries as they are (timer
/// noise). Host code only.
class HostBlockBalancer {
 public:
  HostBlockBalancer(std::int64_t rows, std::int64_t blocks) : bounds_(blocks + 1), seconds_(blocks, 0.0) {
    const HostBlockPartition even{rows, blocks};
    for (std::int64_t b = 0; b <= blocks; ++b) bounds_[b] = b < blocks ? even.begin(b) : rows;
  }
  std::int64_t blocks() const { return static_cast<std::int64_t>(seconds_.size()); }
  std::int64_t begin(std::int64_t b) const { return bounds_[b]; }
  std::int64_t end(std::int64_t b) const { return bounds_[b + 1]; }
  /// Per-block seconds of the current launch, written by each block's thread.
  double* seconds() { return seconds_.data(); }
  const std::int64_t* bounds() const { return bounds_.data(); }
  /// Times the boundaries moved so far.
  int rebalances() const { return rebalances_; }
  /// After a launch: move the boundaries toward equal expected times.
  void rebalance() {
    const std::int64_t nb = blocks(), rows = bounds_[nb];
    double tmin = seconds_[0], tmax = seconds_[0];
    for (double t : seconds_) tmin = std::min(tmin, t), tmax = std::max(tmax, t);
    if (nb < 2 || tmax < 1e-3 || tmin <= 0 || tmax < 1.1 * tmin) return;
    std::vector<double> rate(nb);
    double total = 0;
    for (std::int64_t b = 0; b < nb; ++b) total += rate[b] = static_cast<double>(end(b) - begin(b)) / seconds_[b];
    std::vector<std::int64_t> next(nb + 1, 0);
    double acc = 0;
    for (std::int64_t b = 0; b < nb; ++b) {
      acc += rate[b] / total;
      const double target = acc * static_cast<double>(rows);
      next[b + 1] = std::llround(0.5 * static_cast<double>(bounds_[b + 1]) + 0.5 * target);
    }
    next[nb] = rows;  // (the forward pass stops before it: rows is the end of the last block, never moved)
    for (std::int64_t b = 1; b < nb; ++b) next[b] = std::max(next[b], next[b - 1] + 1);  // no empty block
    for (std::int64_t b = nb - 1; b >= 1; --b) next[b] = std::min(next[b], next[b + 1] - 1);
    if (next != bounds_) ++rebalances_;
    bounds_ = next;
  }

 private:
  std::vector<std::int64_t> bounds_;
  std::vector<double> seconds_;
  int rebalances_ = 0;
};

}  // namespace AsyncSparse
