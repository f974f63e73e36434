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
#include <cstdint>

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

}  // namespace AsyncSparse
