// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — kernels of the block-asynchronous relaxation async-(k) (namespace AsyncSparse::Impl).
//
//  * split_block_pattern / split_block_values: split every row of A into its entries inside the row's block
//    (columns stored relative to the first row of the block, diagonal included) and the entries outside it (the
//    paper's "local part" and "global part" of eq. (4); MAGMA's magma_dbajac_csr keeps the same two matrices).
//  * BlockAsyncKernel: one team per block (persistent teams cycling over blocks), k local Jacobi sweeps in
//    team scratch memory, publication of the block's values at the end of the block pass.
//  * BlockAsyncHostFusedBody: the fused mode on host execution spaces, one thread per contiguous range of blocks.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <thread>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_host_blocks.hpp>

namespace AsyncSparse {
namespace Impl {

/// Pattern of the local (in-block) and remote (off-block) parts of A for blocks of `block_size` consecutive rows:
/// row maps and columns (local columns relative to the first row of the block). Entries keep their order within a
/// row. The value arrays are allocated here and filled by split_block_values.
template <class Scalar, class Device>
void split_block_pattern(const Crs<Scalar, Device>& A, int block_size, Kokkos::View<offset_t*, Device>& lrow,
                         Kokkos::View<ordinal_t*, Device>& lcol, Kokkos::View<Scalar*, Device>& lval,
                         Kokkos::View<offset_t*, Device>& rrow, Kokkos::View<ordinal_t*, Device>& rcol,
                         Kokkos::View<Scalar*, Device>& rval) {
  using exec = typename Device::execution_space;
  const ordinal_t n = A.numRows();
  auto rows = A.graph.row_map;
  auto cols = A.graph.entries;
  lrow = Kokkos::View<offset_t*, Device>("AsyncSparse::block_async::local_row_map", n + 1);
  rrow = Kokkos::View<offset_t*, Device>("AsyncSparse::block_async::remote_row_map", n + 1);
  auto lr = lrow;
  auto rr = rrow;
  const std::int64_t B = block_size;
  Kokkos::parallel_for(
      "AsyncSparse::block_async::split_count", Impl::RangePolicy<exec>(0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        const std::int64_t begin = (i / B) * B, end = begin + B;
        offset_t nl = 0;
        for (offset_t k = rows(i); k < rows(i + 1); ++k) nl += (cols(k) >= begin && cols(k) < end) ? 1 : 0;
        lr(i + 1) = nl;
        rr(i + 1) = (rows(i + 1) - rows(i)) - nl;
      });
  offset_t nl_total = 0, nr_total = 0;
  Kokkos::parallel_scan(
      "AsyncSparse::block_async::split_scan", Impl::RangePolicy<exec>(0, n + 1),
      KOKKOS_LAMBDA(const ordinal_t i, offset_t& update, const bool final) {
        const offset_t v = i == 0 ? 0 : lr(i);
        update += v;
        if (final) lr(i) = update;
      },
      nl_total);
  Kokkos::parallel_scan(
      "AsyncSparse::block_async::split_scan", Impl::RangePolicy<exec>(0, n + 1),
      KOKKOS_LAMBDA(const ordinal_t i, offset_t& update, const bool final) {
        const offset_t v = i == 0 ? 0 : rr(i);
        update += v;
        if (final) rr(i) = update;
      },
      nr_total);
  lcol = Kokkos::View<ordinal_t*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::block_async::local_cols"), nl_total);
  lval = Kokkos::View<Scalar*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::block_async::local_vals"), nl_total);
  rcol = Kokkos::View<ordinal_t*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::block_async::remote_cols"), nr_total);
  rval = Kokkos::View<Scalar*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::block_async::remote_vals"), nr_total);
  auto lc = lcol;
  auto rc = rcol;
  Kokkos::parallel_for(
      "AsyncSparse::block_async::split_fill", Impl::RangePolicy<exec>(0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        const std::int64_t begin = (i / B) * B, end = begin + B;
        offset_t pl = lr(i), pr = rr(i);
        for (offset_t k = rows(i); k < rows(i + 1); ++k) {
          const ordinal_t j = cols(k);
          if (j >= begin && j < end)
            lc(pl++) = static_cast<ordinal_t>(j - begin);
          else
            rc(pr++) = j;
        }
      });
}

/// Values of the local and remote parts (the split of split_block_pattern, for A's current values).
template <class Scalar, class Device>
void split_block_values(const Crs<Scalar, Device>& A, int block_size, const Kokkos::View<offset_t*, Device>& lrow,
                        const Kokkos::View<Scalar*, Device>& lval, const Kokkos::View<offset_t*, Device>& rrow,
                        const Kokkos::View<Scalar*, Device>& rval) {
  using exec = typename Device::execution_space;
  auto rows = A.graph.row_map;
  auto cols = A.graph.entries;
  auto vals = A.values;
  const std::int64_t B = block_size;
  Kokkos::parallel_for(
      "AsyncSparse::block_async::split_values", Impl::RangePolicy<exec>(0, A.numRows()),
      KOKKOS_LAMBDA(const ordinal_t i) {
        const std::int64_t begin = (i / B) * B, end = begin + B;
        offset_t pl = lrow(i), pr = rrow(i);
        for (offset_t k = rows(i); k < rows(i + 1); ++k) {
          const ordinal_t j = cols(k);
          if (j >= begin && j < end)
            lval(pl++) = vals(k);
          else
            rval(pr++) = vals(k);
        }
      });
}

/// One launch of async-(k): `global_iters` global iterations; in each, every block (taken in the launch
/// order `order`, team t handling positions t, t + league, t + 2 league, ...) does
///
///   1. freeze:  s_i = b_i - sum_{j outside the block} a_ij x_j   (x read once, relaxed, from x_read)
///               y_i = x_i                                         (own value, from x_read)
///   2. k local Jacobi sweeps on the block, in team scratch (double buffered, team barriers between sweeps):
///               y_i <- y_i + w_i (s_i - sum_{j in block} a_ij y_j),   w_i = tau / a_ii
///   3. publish: x_write_i = y_i (relaxed stores), then a memory fence.
///
/// Asynchronous mode (x_read == x_write == x). Races and why they are benign:
///  * Step 1 of one team reads x_j of other blocks while their teams may be storing them (step 3). Each
///    access is a single untorn relaxed load / store (load_relaxed / store_relaxed), so a reader sees either
///    the old or the new value of x_j, never a mixture; which one it sees is exactly the freedom of the
///    Chazan–Miranker asynchronous iteration (paper eq. (3)-(4): off-block components enter with a shift
///    nu(m+1, j) that may be positive or negative, bounded because every block is updated in every global
///    iteration). Convergence for every such shift pattern holds when rho(|M|) < 1 (Strikwerda 1997, cited in
///    sect. II-B); for the SPD test matrices of the paper the block variant converges as the experiments show.
///  * The off-block values are frozen for the k local sweeps (read once): this is the paper's "the x values
///    used from outside the block are kept constant (equal to their values at the beginning of the local
///    iterations)" (sect. III-C), and it also keeps one block pass consistent.
///  * A block's own rows are written only by the one team that owns the block in this launch (fixed
///    position -> team mapping; across launches the kernel boundary orders the accesses), so reading them in
///    step 1 races with nobody.
///  * The fence after publishing pushes the new values out of the writing SM's L1 (CUDA __threadfence) so
///    other teams see them in this launch rather than at kernel end, as in the asynchronous Jacobi kernels of
///    Anzt et al. / Tsai et al. Without it the iteration would still be correct, only less fresh.
///  * Scratch memory (y, s, double buffer) is private to the team; team barriers order its sweeps.
///  * In the fused mode (global_iters > 1) nothing synchronises global iterations either: a team may start
///    block pass m+1 while another is still in pass m — the "no synchronisation across blocks" of the paper.
/// Deterministic mode (x_read = previous iterate, x_write = the other buffer, global_iters = 1): no shared
/// location is both read and written in a launch, the result is block-Jacobi with k local sweeps and bitwise
/// reproducible (for a fixed vector length, which fixes the summation order).
template <class Scalar, class ExecSpace, class MemSpace>
struct BlockAsyncKernel {
  // Dynamic schedule: on host backends the blocks of a launch go to whichever thread is free, so a thread slowed down
  // by a competing process takes fewer of them (GPUs schedule teams dynamically anyway)
  using policy_type = Impl::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using member_type = typename policy_type::member_type;
  using scratch_view =
      Kokkos::View<Scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using device = Kokkos::Device<ExecSpace, MemSpace>;

  Kokkos::View<const offset_t*, device> lrow, rrow;
  Kokkos::View<const ordinal_t*, device> lcol, rcol;
  Kokkos::View<const Scalar*, device> lval, rval, weight, b;
  Kokkos::View<const std::int64_t*, device> order;
  Scalar* x_read;
  Scalar* x_write;
  std::int64_t n, num_blocks;
  int block_size, league, local_iters, global_iters, scratch_level;

  static std::size_t scratch_bytes(int block_size) { return 3 * scratch_view::shmem_size(block_size); }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    scratch_view y0(team.team_scratch(scratch_level), block_size);
    scratch_view y1(team.team_scratch(scratch_level), block_size);
    scratch_view s(team.team_scratch(scratch_level), block_size);
    for (int it = 0; it < global_iters; ++it)
      for (std::int64_t pos = team.league_rank(); pos < num_blocks; pos += league)
        block_pass(team, order(pos), y0.data(), y1.data(), s.data());
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void block_pass(const Member& team, const std::int64_t blk, Scalar* ya, Scalar* yb,
                                         Scalar* s) const {
    const std::int64_t begin = blk * block_size;
    const int m = static_cast<int>(begin + block_size <= n ? block_size : n - begin);
    const Scalar* xr = x_read;
    // 1. freeze the off-block part, read the block's own values
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const int r) {
      const std::int64_t i = begin + r;
      Scalar off = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, rrow(i), rrow(i + 1)),
          [&](const offset_t k, Scalar& acc) { acc += rval(k) * load_relaxed(xr + rcol(k)); }, off);
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        s[r] = b(i) - off;
        ya[r] = load_relaxed(xr + i);
      });
    });
    team.team_barrier();
    // 2. k local Jacobi sweeps on the block (the block's newest values, off-block values frozen)
    for (int l = 0; l < local_iters; ++l) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const int r) {
        const std::int64_t i = begin + r;
        Scalar loc = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, lrow(i), lrow(i + 1)),
            [&](const offset_t k, Scalar& acc) { acc += lval(k) * ya[lcol(k)]; }, loc);
        Kokkos::single(Kokkos::PerThread(team), [&]() { yb[r] = ya[r] + weight(i) * (s[r] - loc); });
      });
      team.team_barrier();
      Scalar* t = ya;
      ya = yb;
      yb = t;
    }
    // 3. publish the block's values as soon as the block is done, then fence
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const int r) {
      Kokkos::single(Kokkos::PerThread(team), [&]() { store_relaxed(x_write + begin + r, ya[r]); });
    });
    Kokkos::single(Kokkos::PerThread(team), [&]() { AsyncSparse::fence(); });
    team.team_barrier();  // the scratch is reused by the team's next block
  }
};

/// Most passes over its range a thread of the host fused mode may be ahead of the slowest thread, when the threads
/// do not outnumber the hardware threads (the fused mode of Auto): 4. A descheduled thread's blocks then stay stale
/// for at most 4 passes of the others, while a thread that shares its core with another process holds up the
/// others less often than with a bound of 1 (the guarantee of one launch per global iteration): gen:lap2d:300 to
/// 1e-6 on 2 threads under a competing load on one core 1.75x / 1.79x the idle time against 2.08x / 2.14x with 1
/// (8: 1.86x), idle equal; fv3 in single precision on 2 threads, residual after 200 global iterations 0.4745-0.4929
/// against 0.4746-0.4751 with 1.
/// Measured: perf_tests/results/MEASUREMENTS.md#block-async-host-launch
constexpr int kHostFusedMaxLead = 4;
/// The same bound when the threads outnumber the hardware threads (an explicit fused launch mode there): 1. With
/// 4 threads on 2 cores fv3 reached 0.52-0.58 after 200 global iterations with 1 and 0.62-0.91 with 4 (unbounded:
/// 1.2, stalled; bound 2: 0.50).
constexpr int kHostFusedMaxLeadOversubscribed = 1;

/// The fused mode on host execution spaces (exec/AsyncSparse_host_blocks.hpp). On a GPU the persistent teams of the
/// fused mode interleave the blocks (team t: launch positions t, t + league, ...) and the hardware keeps them all
/// running. On a host, one thread per team, a thread that shares its core with another process runs at a fraction
/// of the speed of the others, and with a fixed share of the blocks it holds up the end of every launch while the
/// others wait. Here thread b owns the contiguous launch positions [bounds[b], bounds[b + 1]) and passes over them
/// global_iters times in order (in the forward order consecutive blocks: each reads the values its predecessor just
/// published, Gauss–Seidel between the blocks of a thread). It records the time of these passes, waits excluded, in
/// seconds[b], and HostBlockBalancer moves the bounds between launches toward equal times, so a slowed thread gets
/// fewer blocks. No thread starts a pass more than max_lead passes ahead of the slowest (it yields its core
/// while it waits: with more threads than cores the one it waits for may need it), which bounds the delays of the
/// asynchronous iteration as one launch per global iteration does, without a parallel region per global iteration.
/// Every block has one writer (its range's thread) and exactly global_iters passes per launch; the races are those
/// of BlockAsyncKernel. A thread publishes its progress after the fence that ends its last block pass and, once
/// it has seen enough progress, fences before it reads the others' values, so the bound holds for the values read
/// too. All work items must run at once (the launch gives one to each thread: host_threads_at_once). Host code
/// only (never instantiated for a GPU execution space).
template <class Kernel>
struct BlockAsyncHostFusedBody {
  using policy_type = Impl::TeamPolicy<typename Kernel::device::execution_space>;
  Kernel k;
  const std::int64_t* bounds;
  double* seconds;
  int* progress;  ///< progress[b]: passes thread b completed over its range in this launch (zero before it)
  int max_lead;   ///< kHostFusedMaxLead, or kHostFusedMaxLeadOversubscribed when the threads outnumber the cores

  /// Waits (yielding the core) until every other thread has completed at least `pass` - max_lead passes.
  void wait_for_others(std::int64_t b, int threads, int pass) const {
    for (;;) {
      bool ok = true;
      for (int c = 0; c < threads && ok; ++c) ok = c == b || load_relaxed(progress + c) >= pass - max_lead;
      if (ok) break;
      std::this_thread::yield();
    }
    AsyncSparse::fence();  // the passes counted above are seen with their values
  }

  void operator()(const typename policy_type::member_type& team) const {
    Kokkos::Timer timer;
    const std::int64_t b = team.league_rank();
    const int threads = team.league_size();
    const std::int64_t first = bounds[b], last = bounds[b + 1];
    typename Kernel::scratch_view y0(team.team_scratch(k.scratch_level), k.block_size);
    typename Kernel::scratch_view y1(team.team_scratch(k.scratch_level), k.block_size);
    typename Kernel::scratch_view s(team.team_scratch(k.scratch_level), k.block_size);
    double waited = 0;  // the balancer compares the threads' working times
    for (int pass = 0; pass < k.global_iters; ++pass) {
      if (pass > max_lead) {
        const double t0 = timer.seconds();
        wait_for_others(b, threads, pass);
        waited += timer.seconds() - t0;
      }
      for (std::int64_t pos = first; pos < last; ++pos)
        k.block_pass(team, k.order(pos), y0.data(), y1.data(), s.data());
      store_relaxed(progress + b, pass + 1);
    }
    seconds[b] = timer.seconds() - waited;
  }
};

}  // namespace Impl
}  // namespace AsyncSparse
