// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — asynchronous Jacobi iteration with static and dynamic row assignment.
//
// Tsai, Nayak, Chow & Anzt, "Implementing Asynchronous Jacobi Iteration on GPUs" (2022). Every row
// update x_i <- x_i + omega (b_i - A(i,:) x) / a_ii reads whatever values of its neighbours are in
// memory at that moment; no thread ever waits for another (paper eq. (3)). Convergence for every delay
// pattern needs rho(|M|) < 1 for the Jacobi iteration matrix M = I - D^-1 A (sect. III); scaling A to
// unit diagonal (scale_unit_diagonal) gives the paper's setting.
//  * JacobiMode::Static (Algorithm 2): one lane group (a "subwarp", LaunchConfig::vector_length lanes,
//    1..32) per row; it updates its row `updates` times in place, with a memory fence after each update
//    (params.fence, off = the paper's no-fence variant). On a GPU all lane groups that fit run at once;
//    rows whose thread blocks are not resident start when earlier blocks finish (the paper's Fig. 9).
//    On host backends only `concurrency` (= thread count) rows could be in flight, and a thread that relaxed
//    a row `updates` times against neighbours that do not move would gain nothing after the first update.
//    There the unit of asynchrony is the thread (exec/AsyncSparse_host_blocks.hpp): the rows are cut into one
//    contiguous block per thread (at most LaunchConfig::max_concurrent_teams blocks when set), and each thread
//    sweeps its block `updates` times in row order — Gauss–Seidel within the block, the other blocks' entries
//    read as their threads last stored them. Every row still gets exactly `updates` updates per launch from
//    one writer; with one thread these are `updates` Gauss–Seidel sweeps (SOR with omega != 1). With
//    params.fence the thread fences once after each sweep of its block instead of after each row (on a CPU a
//    store reaches the coherent caches without a fence; the fence only orders, and one per row cost half the
//    sweep). team_size,
//    chunk_size, block_order and the occupancy mode do not apply to this mapping. The GPU kernel is the
//    paper's; the mapping is chosen at compile time.
//  * JacobiMode::Dynamic (Algorithm 3): W = concurrency x oscb lane groups (LaunchConfig::
//    oversubscription, 1..16; on GPUs concurrency = #SM x 128 threads / subwarp as in the paper) cycle
//    over the rows, row += W; each full cycle counts as one update of every row. The lane groups of a
//    team take consecutive rows (blocks of chunk_size = team_size rows on GPUs: exactly the paper's
//    indexing; on host backends blocks of max(256, rows / (8 threads)) rows, host_dynamic_chunk below, which
//    keeps the threads' rows apart). params.assignment = AtomicCounter hands out the row blocks through a global
//    atomic counter (the default on host backends, where it is robust to threads being descheduled). On host
//    backends a thread sweeps its block as kHostStreams interleaved sub-blocks (as the static mapping) and
//    params.fence fences once per block of rows, not per row.
//    On host backends oscb > 1 gives each thread several workers that run one after another (there is no
//    hardware context switching), so oscb = 1 is the meaningful choice there.
//  * JacobiMode::Sync: the synchronous Algorithm 1 (AsyncSparse_jacobi.hpp), the deterministic mode.
//  * JacobiMode::Auto (the default): Static on every backend (default_jacobi_mode,
//    AsyncSparse_async_jacobi_handle.hpp, with the measurement behind it); on GPUs the static mode's updates go in
//    launches of at most default_max_updates_per_launch (below) when the rows outnumber the resident lane groups.
//
// Life cycle (AsyncJacobiHandle):
//   async_jacobi_symbolic(exec, h, A)   pattern: A square and non-empty, workspace sized for A. Reads nothing of
//                                       h.params.
//   async_jacobi_numeric(exec, h, A)    values: finite entries, every diagonal entry stored and non-zero; the
//                                       diagonal. A must have the symbolic pattern. Reads nothing of h.params.
//   async_jacobi_apply(exec, h, b, x)   exactly params.updates updates per row from x, in one kernel launch or
//                                       launches of at most max_updates_per_launch (the smoother /
//                                       preconditioner use). Reads mode, omega, updates, max_updates_per_launch,
//                                       fence, load_kind, assignment, trace, divergence_factor, residual_norms,
//                                       throw_on_divergence and h.launch.
//   async_jacobi_solve(exec, h, b, x)   as async_jacobi_apply, but stops at params.tol (see below); also reads
//                                       tol, check_interval, record_history.
//
// Stop criteria of async_jacobi_solve: `updates` per row; with tol > 0 the host checks the residual every
// check_interval updates (0, the default: from kFirstCheckInterval on, adapted after each check so that the checks
// take about kCheckTimeShare of the time, next_check_interval; the synchronous mode keeps 10). The updates between two
// checks are one asynchronous kernel launch (or launches of at most max_updates_per_launch, see
// default_max_updates_per_launch); the check (residual kernel
// + reduction) follows on the same execution space instance, i.e. the updates pause during a check —
// checking concurrently on a second instance would leave the checked x a moving target and compete for
// the same SMs / cores, so the chunked form is used on every backend. Divergence (non-finite residual or
// growth beyond divergence_factor x the initial residual) stops the run with status Diverged /
// NonFinite (or throws DivergenceError with params.throw_on_divergence); results are never silently
// NaN/Inf: stats.status says so.
//
// Diagnostics (params.trace): value ages of the midway and final update of each row, per-update time
// stamps (the update schedule) — see diagnostics/AsyncSparse_update_trace.hpp; the handle's `trace`
// holds the buffers after the run.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>

#include <asyncsparse/exec/AsyncSparse_host_blocks.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi_handle.hpp>
#include <asyncsparse/relaxation/AsyncSparse_jacobi.hpp>
#include <asyncsparse/relaxation/impl/AsyncSparse_async_jacobi_impl.hpp>
#include <asyncsparse/relaxation/impl/AsyncSparse_jacobi_impl.hpp>

namespace AsyncSparse {

/// Resolve the launch an asynchronous mode would use for `A`. Defaults of the authors' kernels: subwarp
/// (vector_length) 1, the paper's best; on GPUs blocks of 128 threads (team_size 128 / subwarp).
/// Rows per block of the dynamic mode on host backends when LaunchConfig::chunk_size is not set: 8 blocks per
/// thread and sweep, at least 256 rows. The threads take consecutive blocks at about the same pace; a row near the
/// end of one block reads rows of the next one (a grid line ahead in natural order), which another thread is
/// writing at that moment: the larger the blocks, the fewer such rows. Measured on a 2-core host, gen:lap2d:300,
/// 2 threads: 256-row blocks cost 3.5x a synchronous Jacobi update. 8 blocks per thread still balance the load
/// when a thread is slowed down (a competing process): the others take its blocks.
inline int host_dynamic_chunk(std::int64_t rows, int threads) {
  const std::int64_t per = rows / (8 * static_cast<std::int64_t>(std::max(1, threads)));
  return static_cast<int>(std::max<std::int64_t>(256, std::min<std::int64_t>(per, 1 << 20)));
}

/// Most updates per row in one launch of an asynchronous mode when AsyncJacobiParams::max_updates_per_launch is 0
/// (the rule; 0: no bound, the updates of an apply or between two residual checks are one launch). Host backends and
/// the dynamic mode: no bound (every row block has a running thread; the dynamic workers cycle over all rows). The
/// static mode on GPUs, when the rows outnumber the lane groups the device runs at once: the resident thread blocks
/// update their rows that many times before the later blocks start (Tsai et al. 2022, Fig. 9), so a bound keeps the
/// later rows from lagging by a whole launch: kGpuStaticUpdatesPerLaunch. Resident lane groups: concurrency / lanes
/// per row, or fewer with LaunchConfig::max_concurrent_teams (register limits on occupancy are not modelled: an
/// upper bound). Measured on an H200 to 1e-6 with residual checks every 100 updates
/// (MEASUREMENTS.md#jacobi-gpu-mode): on gen:lap3d7:100 (1.0 M rows, 3.7 per resident lane group) 10 updates per
/// launch reached the tolerance in 0.265 s against 0.352 s unbounded (12,600 against 19,300 updates), on
/// gen:lap3d7:128 (2.1 M rows) in 0.825 against 1.244 s; 25 per launch took 0.263 / 0.847 s, 5 took 0.304 / 0.919 s.
/// Where every row is resident (gen:lap2d:300) a bound of 10 was 1.18x slower than none.
constexpr int kGpuStaticUpdatesPerLaunch = 10;
namespace Impl {
/// The rule of default_max_updates_per_launch for a GPU (`gpu`) or host execution space and a resolved mode (not
/// Auto); independent of the backend, so that host builds test its GPU branch as well.
inline int max_updates_per_launch_rule(bool gpu, JacobiMode mode, std::int64_t rows, const ResolvedLaunch& rl) {
  if (!gpu || mode != JacobiMode::Static) return 0;
  std::int64_t resident = rl.concurrency / std::max(1, rl.vector_length);
  if (rl.max_concurrent_teams > 0)
    resident = std::min<std::int64_t>(resident, static_cast<std::int64_t>(rl.max_concurrent_teams) * rl.team_size);
  return rows > resident ? kGpuStaticUpdatesPerLaunch : 0;
}
}  // namespace Impl
/// `mode` may be Auto (resolved with resolve_jacobi_mode, as the runs do).
template <class ExecSpace>
int default_max_updates_per_launch(JacobiMode mode, std::int64_t rows, const ResolvedLaunch& rl) {
  return Impl::max_updates_per_launch_rule(!is_host_space<ExecSpace>(), resolve_jacobi_mode<ExecSpace>(mode), rows, rl);
}

template <class ExecSpace, class Scalar, class Device>
ResolvedLaunch resolve_async_jacobi_launch(const LaunchConfig& cfg, const Crs<Scalar, Device>& A,
                                           const ExecSpace& exec = ExecSpace()) {
  LaunchDefaults d = Impl::jacobi_launch_defaults();
  d.gpu_team_threads = 128;
  d.method = "async_jacobi";
  return Impl::resolve_jacobi_launch(cfg, A, exec, d);
}

namespace Impl {

/// (A)synchronous Jacobi on `exec` in the mode p.mode with the matrix of the numeric phase, from the given x, in
/// place, with the parameters `p` (jacobi_run_params); `where` names the caller in messages.
template <class ExecSpace, class Scalar, class Device>
const AsyncJacobiStats& async_jacobi_run(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h,
                                         const AsyncJacobiParams& p, const Kokkos::View<const Scalar*, Device>& b,
                                         const Kokkos::View<Scalar*, Device>& x, const std::string& where) {
  if (p.mode == JacobiMode::Auto) {
    AsyncJacobiParams q = p;
    q.mode = resolve_jacobi_mode<ExecSpace>(p.mode);
    return async_jacobi_run(exec, h, q, b, x, where);
  }
  if (p.mode == JacobiMode::Sync) return jacobi_run(exec, h, p, b, x, "async_jacobi", where);
  check_jacobi_params(p, h.launch, where.c_str(), true);
  const double bnorm = jacobi_check_vectors(exec, h, b, x, "async_jacobi", where);
  const auto& A = h.ws.A;

  AsyncJacobiStats st;
  st.mode = p.mode;
  st.b_norm = bnorm;
  st.launch = resolve_async_jacobi_launch(h.launch, A, exec);
  const std::int64_t n = A.numRows();
  if (p.mode == JacobiMode::Dynamic && is_host_space<ExecSpace>() && h.launch.chunk_size <= 0)
    st.launch.chunk_size = host_dynamic_chunk(n, st.launch.concurrency);
  const std::int64_t league = p.mode == JacobiMode::Static ? 0 : dynamic_league<ExecSpace>(st.launch, n);
  st.workers = p.mode == JacobiMode::Static ? n : league * st.launch.team_size;
  if (p.mode == JacobiMode::Dynamic) st.launch.league_size = static_cast<int>(league);
  std::unique_ptr<HostBlockBalancer> balancer;
  if (p.mode == JacobiMode::Static && is_host_space<ExecSpace>()) {
    // one block of rows per thread, rebalanced between launches (exec/AsyncSparse_host_blocks.hpp)
    const HostBlockPartition part = host_block_partition(st.launch, n);
    record_host_blocks(st.launch, part);
    st.workers = part.blocks;
    balancer.reset(new HostBlockBalancer(n, part.blocks));
  }
  st.assignment = p.assignment != DynamicAssignment::Auto ? p.assignment
                  : is_gpu_space<ExecSpace>()             ? DynamicAssignment::Strided
                                                          : DynamicAssignment::AtomicCounter;
  ChunkedLaunch<ExecSpace> launcher(st.launch);
  // the residual checks use the synchronous residual kernel with its own launch (residual-kernel team size)
  ChunkedLaunch<ExecSpace> res_launcher(resolve_jacobi_launch(h.launch, A, exec));
  const bool trace_on = p.trace.any();
  UpdateTraceRecorder<Device> rec;
  if (trace_on)
    rec = h.trace.prepare(exec, p.trace, A.numRows(), A.nnz(), p.updates, where.c_str());
  else
    h.trace.clear();
  const bool checks = p.tol > 0 || p.record_history;
  const Kokkos::View<const Scalar*, Device> diag = h.ws.diag;

  st.initial_residual = p.residual_norms ? relative_residual(exec, res_launcher, h, A, b, x, bnorm) : -1.0;
  auto record = [&](double res, int k, double t) {
    if (!p.record_history) return;
    st.residual_history.push_back(res);
    st.update_history.push_back(k);
    st.time_history.push_back(t);
  };
  record(st.initial_residual, 0, 0.0);
  bool stopped = p.tol > 0 && st.initial_residual <= p.tol;
  if (stopped) st.status = JacobiStatus::Converged;
  exec.fence();
  st.max_updates_per_launch = p.max_updates_per_launch > 0
                                  ? p.max_updates_per_launch
                                  : default_max_updates_per_launch<ExecSpace>(p.mode, n, st.launch);
  const int per_launch = st.max_updates_per_launch > 0 ? st.max_updates_per_launch : p.updates;
  // check_interval 0: the rule, from kFirstCheckInterval on, adapted after each check (next_check_interval)
  int interval = p.check_interval > 0 ? p.check_interval : kFirstCheckInterval;
  Kokkos::Timer timer;
  while (!stopped && st.updates_done < p.updates) {
    const int first = st.updates_done;
    const int last = !checks || p.updates - first <= interval ? p.updates : first + interval;
    const double started = timer.seconds();
    for (int u = first; u < last;) {
      const int v = last - u <= per_launch ? last : u + per_launch;  // no overflow for per_launch up to INT_MAX
      dispatch_async_jacobi(exec, p.mode, st.assignment, launcher, st.launch, league, p, A, b, diag, x, h.ws.counter,
                            rec, h.ws.unit_diagonal, trace_on, u, v, balancer.get());
      ++st.kernel_launches;
      u = v;
    }
    st.updates_done = last;
    if (checks) {
      exec.fence();
      const double update_time = timer.seconds() - started;
      Kokkos::Timer tc;
      const double res = relative_residual(exec, res_launcher, h, A, b, x, bnorm);
      const double check_time = tc.seconds();
      st.check_seconds += check_time;
      ++st.checks;
      st.check_interval = last - first;
      if (p.check_interval == 0) interval = next_check_interval(interval, check_time, update_time / (last - first));
      record(res, last, timer.seconds());
      if (jacobi_diverged(st, res, p.divergence_factor, last)) break;
      if (p.tol > 0 && res <= p.tol) {
        st.status = JacobiStatus::Converged;
        break;
      }
    }
  }
  exec.fence();
  st.total_seconds = timer.seconds();
  st.update_seconds = st.total_seconds - st.check_seconds;
  jacobi_final_residual(exec, res_launcher, h, st, A, b, x);
  if (p.record_history && (st.update_history.empty() || st.update_history.back() != st.updates_done))
    record(st.final_residual, st.updates_done, st.total_seconds);
  h.stats = st;
  jacobi_finish(h.stats, p, where.c_str());
  return h.stats;
}

template <class ExecSpace, class Device>
void async_jacobi_static_checks() {
  static_assert(std::is_same<typename Device::execution_space, ExecSpace>::value,
                "async_jacobi: the execution space must be the one of the handle's Device");
}

}  // namespace Impl

/// Symbolic phase: A square and non-empty; the workspace of the handle sized for A. Throws InvalidInput.
template <class ExecSpace, class Scalar, class Device>
void async_jacobi_symbolic(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h, const Crs<Scalar, Device>& A) {
  Impl::async_jacobi_static_checks<ExecSpace, Device>();
  Impl::jacobi_symbolic_impl(exec, h, A, "async_jacobi");
}

/// Numeric phase: A (with the pattern of the symbolic phase) has finite entries and a stored, non-zero diagonal;
/// computes the diagonal. Call again after changing A's values. Throws InvalidInput naming the first bad row.
template <class ExecSpace, class Scalar, class Device>
void async_jacobi_numeric(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h, const Crs<Scalar, Device>& A) {
  Impl::async_jacobi_static_checks<ExecSpace, Device>();
  Impl::jacobi_numeric_impl(exec, h, A, "async_jacobi");
}

/// Exactly params.updates (a)synchronous Jacobi updates per row in the mode h.params.mode, from the given x, in
/// place; no residual checks in between (tol, check_interval and record_history are not read). Returns (and
/// stores in h.stats) the statistics. Throws InvalidInput for bad input (wrong lengths, NaN/Inf in b or x with
/// residual norms, parameters out of range) and, with params.throw_on_divergence, DivergenceError.
template <class ExecSpace, class Scalar, class Device>
const AsyncJacobiStats& async_jacobi_apply(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h,
                                           const typename AsyncJacobiHandle<Scalar, Device>::const_vector_type& b,
                                           const typename AsyncJacobiHandle<Scalar, Device>::vector_type& x) {
  Impl::async_jacobi_static_checks<ExecSpace, Device>();
  return Impl::async_jacobi_run(exec, h, Impl::jacobi_run_params(h.params, false), b, x, "async_jacobi_apply");
}

/// (A)synchronous Jacobi in the mode h.params.mode from the given x until ||b - A x|| / ||b|| <= params.tol
/// (checked every check_interval updates; tol = 0: exactly params.updates updates), at most params.updates
/// updates per row. See the file comment for the modes and stop criteria. Errors as async_jacobi_apply.
template <class ExecSpace, class Scalar, class Device>
const AsyncJacobiStats& async_jacobi_solve(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h,
                                           const typename AsyncJacobiHandle<Scalar, Device>::const_vector_type& b,
                                           const typename AsyncJacobiHandle<Scalar, Device>::vector_type& x) {
  Impl::async_jacobi_static_checks<ExecSpace, Device>();
  return Impl::async_jacobi_run(exec, h, Impl::jacobi_run_params(h.params, true), b, x, "async_jacobi_solve");
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured scalars
// and devices; other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_ASYNC_JACOBI(EXTERN, S, D)                                                                     \
  EXTERN template const AsyncJacobiStats& Impl::async_jacobi_run(                                                      \
      const D::execution_space&, AsyncJacobiHandle<S, D>&, const AsyncJacobiParams&, const Kokkos::View<const S*, D>&, \
      const Kokkos::View<S*, D>&, const std::string&);                                                                 \
  EXTERN template const AsyncJacobiStats& Impl::jacobi_run(                                                            \
      const D::execution_space&, AsyncJacobiHandle<S, D>&, const AsyncJacobiParams&, const Kokkos::View<const S*, D>&, \
      const Kokkos::View<S*, D>&, const std::string&, const std::string&);                                             \
  EXTERN template void Impl::jacobi_symbolic_impl(const D::execution_space&, AsyncJacobiHandle<S, D>&,                 \
                                                  const Crs<S, D>&, const std::string&);                               \
  EXTERN template void Impl::jacobi_numeric_impl(const D::execution_space&, AsyncJacobiHandle<S, D>&,                  \
                                                 const Crs<S, D>&, const std::string&);
ASYNCSPARSE_ETI_DECLARE_DOUBLE(ASYNCSPARSE_ETI_ASYNC_JACOBI)

}  // namespace AsyncSparse
