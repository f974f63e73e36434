// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — kernels of the asynchronous Jacobi iteration (static and dynamic row assignment).
//
// Races, and why they are benign (Tsai, Nayak, Chow & Anzt 2022, sect. III; Chazan & Miranker 1969;
// Baudet 1978): every row update reads x_j of its neighbours while other lane groups may be writing
// them. A read returns either the old or the new value of x_j (each access is a single untorn 8-byte
// load/store through load_relaxed / store_relaxed), i.e. some iterate x_j^{s_j(k)} of the asynchronous
// model (3) of the paper; the iteration converges for every such delay pattern when rho(|M|) < 1, as
// long as every row keeps being updated and reads eventually see new values (conditions (4), (5)).
// The fence after each update (the paper's __threadfence()) makes the new x_i visible device-wide
// before the lane group goes on, which guarantees condition (4) in practice on GPUs.
//  * Static mode: row i has exactly one writer (its lane group; on host backends the thread that owns its row
//    block, exec/AsyncSparse_host_blocks.hpp), so x_i itself is never contended. On host backends a thread's
//    reads of its own block see its latest stores (Gauss–Seidel within the block), which is one of the delay
//    patterns of the model.
//  * Dynamic mode: two workers can update the same row at the same time (one at update k, another at
//    update k+1, when their progress differs by a full cycle, Algorithm 3: "multiple subwarps may update
//    a row at a time"). Each computes x_i + omega (b_i - A(i,:) x) / a_ii from the x_i it read and
//    stores it; one store wins, which is an asynchronous update with an older x_i — covered by the same
//    theory (the lost update only delays row i).
//  * Trace: count(i) and the age arrays are written by the updating lane group; the race on count(j)
//    makes a recorded age off by at most the updates that happen between reading x_j and count(j).
// With a single thread (Serial, or OpenMP with one thread) there is no race: rows are processed in a
// fixed order (static: `updates` Gauss–Seidel sweeps in row order; dynamic: see the exact tests).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_update_trace.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_chunked_launch.hpp>
#include <asyncsparse/exec/AsyncSparse_host_blocks.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi_handle.hpp>

// Unroll a loop with a compile-time trip count in device code (host compilers unroll on their own).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define ASYNCSPARSE_UNROLL _Pragma("unroll")
#else
#define ASYNCSPARSE_UNROLL
#endif

namespace AsyncSparse {
namespace Impl {

/// One in-place row update x_i <- x_i + omega (b_i - A(i,:) x) / a_ii by one lane group.
/// Relaxed: loads/stores of x through the relaxed helpers (else plain, as the paper's kernels).
/// Fence: memory fence after the update. Trace: record value ages / time stamps.
template <class Scalar, class Device, bool Relaxed, bool Fence, bool Trace>
struct AsyncRowUpdate {
  static constexpr int kCachedEntries = 8;
  static constexpr bool traced = Trace;
  typename Crs<Scalar, Device>::row_map_type rows;
  typename Crs<Scalar, Device>::index_type cols;
  typename Crs<Scalar, Device>::values_type vals;
  Kokkos::View<const Scalar*, Device> b, diag;
  Scalar* x;
  Scalar omega;
  int vector_length;
  bool unit_diagonal;  ///< all a_ii == 1: no diagonal load, no division (x / 1 == x exactly)
  UpdateTraceRecorder<Device> trace;

  KOKKOS_FORCEINLINE_FUNCTION static Scalar load(const Scalar* p) {
    if (Relaxed) return load_relaxed(p);
    return *p;
  }
  KOKKOS_FORCEINLINE_FUNCTION static void store(Scalar* p, Scalar v) {
    if (Relaxed)
      store_relaxed(p, v);
    else
      *p = v;
  }

  /// Updates iter = first .. last-1 of `row` (update indices are 0-based per row); `worker` is the lane
  /// group (trace only). The row's constants are read into registers first: the fence and the relaxed
  /// accesses are compiler barriers, after which members of the functor would be reloaded from memory.
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, const ordinal_t row, const int first, const int last,
                                         const std::int64_t worker) const {
    const offset_t beg = rows(row), end = rows(row + 1);
    const ordinal_t* const col = cols.data();
    const Scalar* const val = vals.data();
    const Scalar brow = b(row), drow = unit_diagonal ? Scalar(1) : diag(row), w = omega;
    const bool unit = unit_diagonal;
    Scalar* const xp = x;
    const bool seq = vector_length == 1;
    // Rows of at most kCachedEntries entries (stencil matrices) keep their column indices and values in
    // registers across the update loop: after the first update, an update only loads the x_j. (The loops over
    // the cache have compile-time bounds and are unrolled, so the arrays live in registers.)
    const int len = static_cast<int>(end - beg);
    const bool cached = seq && len <= kCachedEntries;
    ordinal_t ccol[kCachedEntries];
    Scalar cval[kCachedEntries];
    ASYNCSPARSE_UNROLL
    for (int k = 0; k < kCachedEntries; ++k) {
      ccol[k] = cached && k < len ? col[beg + k] : row;
      cval[k] = cached && k < len ? val[beg + k] : Scalar(0);
    }
    // trace constants in registers as well; the age-recording loop is separate from the plain one, so that the
    // updates without age recording (all but two per row) cost one extra store (the row's update count)
    int* const count = Trace ? trace.count.data() : nullptr;
    const bool value_age = Trace && trace.value_age, stamps = Trace && trace.timestamps;
    const int midway = trace.midway, final_update = trace.final_update;
    for (int iter = first; iter < last; ++iter) {
      const bool ages = value_age && (iter == midway || iter == final_update);
      // x_i is read once: the correction is added to the x_i that the residual used (xi, captured in the loop).
      // (Reading it again after the loop, a concurrent update of the same row by another lane group in between
      // — possible in the dynamic mode, where a lagging team can meet a faster one a full cycle later — would
      // add the correction twice, i.e. relax with 2 omega, and the iteration can diverge:
      // perf_tests/results/MEASUREMENTS.md#async-jacobi-read-xi-once.)
      Scalar xi = 0;
      Scalar r;
      if (seq) {
        // same operation order as Reference::jacobi: r = b_i; r -= a_ij x_j in column order
        r = brow;
        if (Trace && ages) {
          for (offset_t p = beg; p < end; ++p) {
            const ordinal_t c = col[p];
            const Scalar xc = load(xp + c);
            if (c == row) xi = xc;
            r -= val[p] * xc;
            trace.store_age(iter, p, load_relaxed(count + c));
          }
        } else if (cached) {
          ASYNCSPARSE_UNROLL
          for (int k = 0; k < kCachedEntries; ++k) {
            if (k < len) {
              const Scalar xc = load(xp + ccol[k]);
              if (ccol[k] == row) xi = xc;
              r -= cval[k] * xc;
            }
          }
        } else {
          for (offset_t p = beg; p < end; ++p) {
            const ordinal_t c = col[p];
            const Scalar xc = load(xp + c);
            if (c == row) xi = xc;
            r -= val[p] * xc;
          }
        }
      } else {
        Scalar s = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, beg, end),
            [&](const offset_t p, Scalar& acc) {
              const ordinal_t c = col[p];
              acc += (c == row ? Scalar(0) : val[p]) * load(xp + c);  // off-diagonal part
              if (Trace && ages) trace.store_age(iter, p, trace.neighbour_age(c));
            },
            s);
        // the lanes share the row: x_i is read once, after the reduction, and enters through the diagonal
        xi = load(xp + row);
        r = brow - s - drow * xi;
      }
      // with a unit diagonal the division (by 1, exact) is left out: the paper's x_i += alpha (b_i - A(i,:) x)
      const Scalar xnew = unit ? xi + w * r : xi + w * r / drow;
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        store(xp + row, xnew);
        if (value_age) store_relaxed(count + row, iter + 1);
        if (stamps) trace.stamp_update(row, iter, static_cast<int>(worker));
      });
      if (Fence) AsyncSparse::fence();
    }
  }
};

/// One update of a row by one host thread, without trace or lane group: the row loop of the host mappings (same
/// operation order as the one-lane path of AsyncRowUpdate, so the results are the same bit for bit). It holds the
/// Update's arrays as raw pointers and is passed by value into the sweep. Read through the Update by reference, its
/// fields (and a flag of the sweep) were loaded from memory again after every row — the compiler could not rule out
/// that the relaxed store of x_i had written them: eight more loads per row of the 5-point Laplacian in a loop bound
/// by its loads (MEASUREMENTS.md#host-jacobi-registers).
template <class Update>
struct HostRowUpdate {
  using Scalar = typename std::remove_pointer<decltype(Update::x)>::type;
  const offset_t* rows;
  const ordinal_t* cols;
  const Scalar* vals;
  const Scalar* b;
  const Scalar* diag;
  Scalar* x;
  Scalar omega;
  bool unit_diagonal;
  KOKKOS_INLINE_FUNCTION explicit HostRowUpdate(const Update& u)
      : rows(u.rows.data()),
        cols(u.cols.data()),
        vals(u.vals.data()),
        b(u.b.data()),
        diag(u.diag.data()),
        x(u.x),
        omega(u.omega),
        unit_diagonal(u.unit_diagonal) {}
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const std::int64_t row64) const {
    const auto row = static_cast<ordinal_t>(row64);
    const offset_t beg = rows[row], end = rows[row + 1];
    Scalar r = b[row], xi = 0;
    for (offset_t p = beg; p < end; ++p) {
      const ordinal_t c = cols[p];
      const Scalar xc = Update::load(x + c);
      if (c == row) xi = xc;
      r -= vals[p] * xc;
    }
    const Scalar xnew = unit_diagonal ? xi + omega * r : xi + omega * r / diag[row];
    Update::store(x + row, xnew);
  }
};

/// Calls f(row) for every row of [begin, end) as min(kHostStreams, end - begin) contiguous sub-blocks swept in
/// lockstep: row k of each sub-block, then row k + 1 of each (the host mappings' row order, StaticBlockBody). The
/// sub-block bounds are computed once per sweep and the inner loop has a compile-time trip count (the previous form
/// recomputed two 64-bit divisions per row: 6.2 vs 5.1 ns per row update, gen:lap2d:300, one thread).
template <class F>
KOKKOS_INLINE_FUNCTION void interleaved_rows(const std::int64_t begin, const std::int64_t end, const F f) {
  const std::int64_t len = end - begin;
  if (len < kHostStreams) {  // sub-blocks of one row each: row order
    for (std::int64_t row = begin; row < end; ++row) f(row);
    return;
  }
  std::int64_t lo[kHostStreams + 1];
  for (int s = 0; s <= kHostStreams; ++s) lo[s] = begin + len * s / kHostStreams;
  const std::int64_t len0 = lo[1] - lo[0];  // the smallest sub-block; the others have len0 or len0 + 1 rows
  for (std::int64_t k = 0; k < len0; ++k)
    for (int s = 0; s < kHostStreams; ++s) f(lo[s] + k);
  for (int s = 0; s < kHostStreams; ++s)
    if (lo[s] + len0 < lo[s + 1]) f(lo[s] + len0);
}

/// One sweep of rows [begin, end) by one host thread in the interleaved order: the lean row update without trace
/// and with one lane, else the full one (trace, lane groups). Shared by the static and dynamic host mappings.
template <class Update, class Member>
KOKKOS_INLINE_FUNCTION void host_sweep_rows(const Update& u, const Member& team, const std::int64_t begin,
                                            const std::int64_t end, const int iter, const std::int64_t worker) {
  if (!Update::traced && u.vector_length == 1) {
    interleaved_rows(begin, end, HostRowUpdate<Update>(u));
    return;
  }
  interleaved_rows(begin, end,
                   [&](const std::int64_t row) { u(team, static_cast<ordinal_t>(row), iter, iter + 1, worker); });
}

/// Static assignment (Algorithm 2 with the update loop of the authors' kernel): lane group = row, which
/// it updates for iter = first .. last-1 without synchronising with anyone.
template <class Update>
struct StaticBody {
  Update upd;
  int first, last;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, const std::int64_t unit) const {
    const ordinal_t row = static_cast<ordinal_t>(unit);
    upd(team, row, first, last, unit);
  }
};

/// Static assignment on host execution spaces (exec/AsyncSparse_host_blocks.hpp): team b (one thread) owns the
/// contiguous row block b and sweeps it for iter = first .. last-1, one update per row per sweep.
/// Gauss–Seidel within the block; the other blocks' entries are read as their owners last stored them.
/// The block is cut into kHostStreams contiguous sub-blocks whose sweeps are interleaved (row k of each sub-block,
/// then row k + 1 of each): in one Gauss–Seidel sweep in row order each row waits for the store of the row before
/// it (a chain of load-multiply-subtract-store latencies, 8.7 ns per row of the 5-point Laplacian on a 2-core
/// x86-64 host, twice a Jacobi row); kHostStreams independent chains keep the core busy (4.5–5 ns per row). Each
/// sub-block is still swept in row order (Gauss–Seidel), the sub-blocks are four more asynchronous blocks.
/// `Update` carries no per-row fence; with SweepFence the thread fences once after each sweep of its block (the
/// host form of the paper's fence, exec/AsyncSparse_host_blocks.hpp).
template <class Update, bool SweepFence>
struct StaticBlockBody {
  Update upd;
  const std::int64_t* bounds;  ///< block b = rows [bounds[b], bounds[b + 1]) (HostBlockBalancer)
  double* seconds;             ///< seconds[b]: time block b's thread took, for the rebalancing
  int first, last;
  template <class Member>
  void operator()(const Member& team) const {
    Kokkos::Timer timer;
    sweep(team);
    seconds[team.league_rank()] = timer.seconds();
  }
  template <class Member>
  void sweep(const Member& team) const {
    const std::int64_t b = team.league_rank();
    const std::int64_t begin = bounds[b], end = bounds[b + 1];
    const Update u = upd;  // a local copy: its fields can stay in registers across the fences and relaxed accesses
    for (int iter = first; iter < last; ++iter) {
      host_sweep_rows(u, team, begin, end, iter, b);
      if (SweepFence) AsyncSparse::fence();
    }
  }
};

/// Dynamic assignment (Algorithm 3): L teams of T lane groups cycle over the rows in blocks of C
/// consecutive rows (C = chunk_size; on GPUs C = T, one row per lane group). Global block position g in
/// [0, (last - first) * nb), nb = ceil(n / C), is row block g mod nb at update first + g / nb.
/// Strided: team t takes g = t, t + L, t + 2L, ... — with C = T this is exactly Algorithm 3 (lane group
/// id = t T + rank starts at row id and advances by num_subwarps = L T, wrapping with iter += 1), as in
/// the authors' kernel; on host backends (T = 1) the blocks keep a thread's rows contiguous instead of
/// interleaving neighbouring rows between threads (which would make every update a false-sharing miss).
/// AtomicCounter: a team takes the next g from a global counter (one atomic per block of C rows).
/// Host (host execution spaces, one thread per team): the thread sweeps its block of rows as interleaved
/// sub-blocks (interleaved_rows, as StaticBlockBody); with ChunkFence `Update` carries no per-row fence and the
/// thread fences once after each block of rows instead (exec/AsyncSparse_host_blocks.hpp).
template <class Update, class Device, bool Host = false, bool ChunkFence = false>
struct DynamicBody {
  Update upd;
  Kokkos::View<std::int64_t, Device> counter;
  std::int64_t n, chunk, nb, league;
  int first, last, team_size;
  bool strided;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void block(const Member& team, std::int64_t blk, int iter) const {
    const std::int64_t begin = blk * chunk;
    const std::int64_t end = begin + chunk < n ? begin + chunk : n;
    const std::int64_t worker = static_cast<std::int64_t>(team.league_rank()) * team_size + team.team_rank();
    if (Host && team_size == 1) {  // interleaved sub-blocks as in StaticBlockBody
      host_sweep_rows(upd, team, begin, end, iter, worker);
      if (ChunkFence) AsyncSparse::fence();
      return;
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t row) {
      upd(team, static_cast<ordinal_t>(row), iter, iter + 1, worker);
    });
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (strided) {
      std::int64_t blk = team.league_rank();  // league <= nb
      int iter = first;
      while (iter < last) {
        block(team, blk, iter);
        blk += league;
        if (blk >= nb) {
          blk -= nb;
          ++iter;
        }
      }
    } else {
      const std::int64_t total = static_cast<std::int64_t>(last - first) * nb;
      while (true) {
        std::int64_t g = 0;
        Kokkos::single(
            Kokkos::PerTeam(team), [&](std::int64_t& v) { v = atomic_fetch_add_count(&counter(), 1); }, g);
        if (g >= total) break;
        block(team, g % nb, first + static_cast<int>(g / nb));
      }
    }
  }
};

/// Number of teams of the dynamic mode. GPUs: lane groups = #SM x 128 threads x oscb / subwarp (the paper
/// launches oscb x #SM blocks of 128 threads, 128 = what an SM's four schedulers issue at once), in teams of
/// team_size lane groups. Host backends: concurrency x oscb threads, in teams of team_size. At most one team
/// per row block (Algorithm 3 requires num_subwarps <= num_rows).
template <class ExecSpace>
std::int64_t dynamic_league(const ResolvedLaunch& r, std::int64_t n) {
  std::int64_t lanes;
  if (is_gpu_space<ExecSpace>()) {
    const std::int64_t sms = std::max(1, r.concurrency / 2048);
    lanes = sms * 128 * r.oversubscription / r.vector_length;
  } else {
    lanes = static_cast<std::int64_t>(r.concurrency) * r.oversubscription;
  }
  const std::int64_t nb = (n + r.chunk_size - 1) / r.chunk_size;
  const std::int64_t league = (lanes + r.team_size - 1) / r.team_size;
  return std::max<std::int64_t>(1, std::min<std::int64_t>(league, nb));
}

/// Launch one kernel doing updates [first, last) of every row.
template <bool Relaxed, bool Fence, bool Trace, class ExecSpace, class Scalar, class Device>
void launch_async_jacobi(const ExecSpace& exec, JacobiMode mode, DynamicAssignment assignment,
                         const ChunkedLaunch<ExecSpace>& launcher, const ResolvedLaunch& rl, std::int64_t league,
                         const AsyncJacobiParams& p, const Crs<Scalar, Device>& A,
                         const Kokkos::View<const Scalar*, Device>& b, const Kokkos::View<const Scalar*, Device>& diag,
                         const Kokkos::View<Scalar*, Device>& x, const Kokkos::View<std::int64_t, Device>& counter,
                         const UpdateTraceRecorder<Device>& rec, bool unit_diagonal, int first, int last,
                         HostBlockBalancer* balancer) {
  // The paper's fence after every row update (GPU) becomes one fence per block of rows on host execution spaces
  // (exec/AsyncSparse_host_blocks.hpp): the row updates themselves carry no fence there.
  constexpr bool host = is_host_space<ExecSpace>();
  using Upd = AsyncRowUpdate<Scalar, Device, Relaxed, Fence && !host, Trace>;
  Upd upd{A.graph.row_map,  A.graph.entries, A.values, b, diag, x.data(), static_cast<Scalar>(p.omega),
          rl.vector_length, unit_diagonal,   rec};
  if (mode == JacobiMode::Static) {
    // the backend's mapping (exec/AsyncSparse_host_blocks.hpp): a lane group per row on GPUs, a block of rows per
    // thread on host backends; the host body is not instantiated for GPU execution spaces
    if constexpr (host) {
      Impl::TeamPolicy<ExecSpace> policy(exec, static_cast<int>(balancer->blocks()), 1, rl.vector_length);
      Kokkos::parallel_for("AsyncSparse::async_jacobi::static_blocks", policy,
                           StaticBlockBody<Upd, Fence>{upd, balancer->bounds(), balancer->seconds(), first, last});
      exec.fence();
      balancer->rebalance();
    } else {
      launcher.run("AsyncSparse::async_jacobi::static", exec, StaticBody<Upd>{upd, first, last});
    }
  } else {
    const bool strided = assignment == DynamicAssignment::Strided;
    if (!strided) Kokkos::deep_copy(exec, counter, std::int64_t(0));
    const std::int64_t n = A.numRows(), chunk = rl.chunk_size;
    Impl::TeamPolicy<ExecSpace> policy(exec, static_cast<int>(league), rl.team_size, rl.vector_length);
    Kokkos::parallel_for("AsyncSparse::async_jacobi::dynamic", policy,
                         DynamicBody<Upd, Device, host, Fence && host>{upd, counter, n, chunk, (n + chunk - 1) / chunk,
                                                                       league, first, last, rl.team_size, strided});
  }
}

/// Run-time flags -> compile-time kernel variant.
template <class ExecSpace, class Scalar, class Device>
void dispatch_async_jacobi(const ExecSpace& exec, JacobiMode mode, DynamicAssignment assignment,
                           const ChunkedLaunch<ExecSpace>& launcher, const ResolvedLaunch& rl, std::int64_t league,
                           const AsyncJacobiParams& p, const Crs<Scalar, Device>& A,
                           const Kokkos::View<const Scalar*, Device>& b,
                           const Kokkos::View<const Scalar*, Device>& diag, const Kokkos::View<Scalar*, Device>& x,
                           const Kokkos::View<std::int64_t, Device>& counter, const UpdateTraceRecorder<Device>& rec,
                           bool unit_diagonal, bool trace, int first, int last, HostBlockBalancer* balancer) {
  const bool relaxed = p.load_kind == LoadKind::Relaxed;
#define ASYNCSPARSE_AJ_LAUNCH(R, F, T)                                                                       \
  launch_async_jacobi<R, F, T>(exec, mode, assignment, launcher, rl, league, p, A, b, diag, x, counter, rec, \
                               unit_diagonal, first, last, balancer)
  if (trace) {
    if (relaxed) {
      if (p.fence)
        ASYNCSPARSE_AJ_LAUNCH(true, true, true);
      else
        ASYNCSPARSE_AJ_LAUNCH(true, false, true);
    } else {
      if (p.fence)
        ASYNCSPARSE_AJ_LAUNCH(false, true, true);
      else
        ASYNCSPARSE_AJ_LAUNCH(false, false, true);
    }
  } else {
    if (relaxed) {
      if (p.fence)
        ASYNCSPARSE_AJ_LAUNCH(true, true, false);
      else
        ASYNCSPARSE_AJ_LAUNCH(true, false, false);
    } else {
      if (p.fence)
        ASYNCSPARSE_AJ_LAUNCH(false, true, false);
      else
        ASYNCSPARSE_AJ_LAUNCH(false, false, false);
    }
  }
#undef ASYNCSPARSE_AJ_LAUNCH
}

}  // namespace Impl
}  // namespace AsyncSparse
