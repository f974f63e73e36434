// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — handle of the block-asynchronous relaxation async-(k): parameters, statistics, workspace.
//
// See AsyncSparse_block_async.hpp for the algorithm (Anzt, Tomov, Dongarra, Heuveline, "A block-asynchronous
// relaxation method for graphics processing units", 2011). The handle owns the per-block split of the matrix
// (its pattern built by block_async_symbolic, its values by block_async_numeric), the launch resolved for the
// execution space, the double buffer of the deterministic mode and the residual work vector; it is reused by any
// number of block_async_apply / block_async_solve calls on the same matrix.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_solver_types.hpp>
#include <asyncsparse/exec/AsyncSparse_host_blocks.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>

namespace AsyncSparse {

/// How async-(k) maps global iterations to kernel launches.
enum class BlockAsyncLaunchMode {
  /// PerIteration on GPUs, Fused on host backends (one thread per contiguous range of blocks there, the ranges
  /// rebalanced between launches, BlockAsyncHostFusedBody) unless their threads outnumber the hardware threads
  /// (Impl::auto_fused_launch). Measured on a 2-core host, gen:lap2d:300 to 1e-6 (residual checked every 200 global
  /// iterations) with a competing load on one core: per-iteration 3.3-3.9x slower than idle (a parallel region per
  /// global iteration, each waiting for the thread that shares its core), fused 1.7-1.75x; idle the two are equally
  /// fast. With 4 threads on the 2 cores the fused mode was erratic (mixed-precision refinement of fv3: 1 run in 6
  /// stagnated), the per-iteration launches were not.
  /// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#block-async-host-launch
  Auto,
  /// One kernel launch per global iteration, global_iters_per_launch launches queued back to back without host
  /// synchronisation between residual checks: the paper's "10 iterations merged into a stream of kernels" and
  /// MAGMA's magma_dbajac_csr structure. Blocks are asynchronous within a launch (a block reads the values that
  /// blocks finished earlier in the same launch have published); the kernel boundary keeps any block from
  /// running more than one global iteration ahead of another.
  PerIteration,
  /// One kernel of persistent teams (as many as run at once, or LaunchConfig::max_concurrent_teams) runs all
  /// global_iters_per_launch iterations; each team cycles over its blocks with no barrier between global
  /// iterations, so blocks may drift apart by whole global iterations. Saves the launches / parallel regions; a
  /// team that is not co-resident (GPU) leaves the others iterating on stale boundary values. On host backends each
  /// thread owns a contiguous range of blocks, rebalanced between launches toward equal times, and no thread starts
  /// a pass more than one ahead of the slowest (BlockAsyncHostFusedBody).
  Fused
};

inline const char* to_string(BlockAsyncLaunchMode m) {
  return m == BlockAsyncLaunchMode::Fused ? "fused" : m == BlockAsyncLaunchMode::Auto ? "auto" : "per-iteration";
}
inline BlockAsyncLaunchMode block_async_launch_mode_from_string(const std::string& s) {
  if (s == "auto") return BlockAsyncLaunchMode::Auto;
  if (s == "fused") return BlockAsyncLaunchMode::Fused;
  if (s == "per-iteration") return BlockAsyncLaunchMode::PerIteration;
  throw InvalidInput("launch mode '" + s + "' unknown (valid: auto, per-iteration, fused)");
}

/// Parameters of async-(k). Every field can be changed between calls except block_size (read by
/// block_async_symbolic) and tau (read by block_async_numeric), which are baked into the set-up (changing them
/// requires that phase again; apply / solve check this).
struct BlockAsyncParams {
  /// k: Jacobi sweeps each block performs on its own rows per global iteration (the "local iterations" of
  /// async-(k)). Default 5, the paper's choice (sect. IV-C). >= 1. k = 1 is plain (block-)asynchronous Jacobi.
  int local_iters = 5;
  /// Rows per block (the subdomain one team iterates on). Default -1: LaunchConfig::chunk_size when that is
  /// > 0, else 512 on GPUs (the paper's thread-block size) and 1024 on host backends (three block vectors
  /// of doubles, 24 KB, stay in the L1/L2 cache of a core). >= 1 otherwise.
  int block_size = -1;
  /// Global iterations block_async_apply runs (the fixed amount of work of the smoother / preconditioner use),
  /// >= 0. Default 2 (the preconditioner's default).
  int global_iters = 2;
  /// Global iterations streamed between two residual checks of block_async_solve (that many queued launches
  /// in PerIteration mode, one launch in Fused mode). Default 10 (the paper streams 10 iterations before it
  /// looks at the residual, sect. IV-D). >= 1.
  int global_iters_per_launch = 10;
  /// How the global iterations between two residual checks are launched (see BlockAsyncLaunchMode).
  /// Default Auto: PerIteration (the paper's and MAGMA's structure) on GPUs, Fused on host backends (not
  /// oversubscribed).
  BlockAsyncLaunchMode launch_mode = BlockAsyncLaunchMode::Auto;
  /// Relaxation weight tau of the iteration matrix M = I - tau D^{-1} A (paper sect. IV-B: SPD matrices on
  /// which plain Jacobi diverges converge with tau = 2 / (lambda_1 + lambda_n) of D^{-1} A). Default 1
  /// (plain Jacobi). 0 means "estimate": tau = 2 / (lambda_min + lambda_max) from a Lanczos estimate of the
  /// extreme eigenvalues of D^{-1} A (block_async_estimate_tau; symmetric positive definite A only). > 0
  /// otherwise, finite.
  double tau = 1.0;
  /// Deterministic mode: every block reads the previous global iterate (Jacobi-style double buffer at the
  /// block level), i.e. block-Jacobi with k local Jacobi sweeps per block. Reproducible bit for bit; used by
  /// the tests and as the device synchronous Jacobi (local_iters = 1). Default false (asynchronous).
  bool deterministic = false;
  /// block_async_solve stops when ||b - A x||_2 / ||b||_2 <= tol. Default 1e-10. >= 0 (0: run max_global_iters).
  double tol = 1e-10;
  /// block_async_solve runs at most this many global iterations. Default 10000. >= 0.
  int max_global_iters = 10000;
  /// block_async_solve reports Diverged when the relative residual exceeds divergence_factor times the
  /// initial one (as Reference::jacobi_until). Default 1e10. > 1.
  double divergence_factor = 1e10;
  /// Record the residual (and elapsed time) of every check in Stats. Default true.
  bool record_history = true;
};

/// Residual history of a relaxation run: one entry per residual check.
struct RelaxationHistory {
  std::vector<int> iterations;   ///< global iterations done at the check (0 = initial guess)
  std::vector<double> residual;  ///< relative residual ||b - A x||_2 / ||b||_2 (absolute when b = 0)
  std::vector<double> seconds;   ///< wall time since the start of the run (fenced)
  void clear() {
    iterations.clear();
    residual.clear();
    seconds.clear();
  }
  void add(int it, double res, double sec) {
    iterations.push_back(it);
    residual.push_back(res);
    seconds.push_back(sec);
  }
};

/// Outcome of a relaxation run to a tolerance (async-(k), and the Jacobi / Gauss–Seidel baselines).
struct RelaxationResult {
  SolverStatus status = SolverStatus::MaxIterations;  ///< Converged / MaxIterations / Diverged / NonFinite
  std::string message;                                ///< why it stopped when not converged
  int iterations = 0;                                 ///< global iterations (sweeps for the baselines)
  double initial_residual = 0;                        ///< relative residual of the initial guess
  double final_residual = 0;                          ///< relative residual at exit
  double seconds = 0;                                 ///< wall time of the run, residual checks included
  RelaxationHistory history;
  bool converged() const { return status == SolverStatus::Converged; }
};

/// Statistics of a BlockAsyncHandle (updated by every call).
struct BlockAsyncStats {
  int block_size = 0;                ///< resolved rows per block
  std::int64_t num_blocks = 0;       ///< blocks (= teams' work units)
  double tau = 1.0;                  ///< relaxation weight in use (estimated when Params::tau was 0)
  int teams = 0;  ///< persistent teams of the asynchronous fused mode (host backends: at most one per running thread)
  bool fused = false;                ///< the last run used the Fused launch mode (asynchronous mode; Auto resolved)
  std::size_t scratch_bytes = 0;     ///< team scratch per team (three block vectors)
  int scratch_level = 0;             ///< 0 (shared memory / L1) or 1 (global memory, very large blocks)
  std::int64_t local_nnz = 0;        ///< entries of A inside the diagonal blocks
  std::int64_t remote_nnz = 0;       ///< entries of A outside them (read once per block pass)
  ResolvedLaunch launch;             ///< the launch actually used
  double setup_seconds = 0;          ///< time of block_async_symbolic + block_async_numeric
  long long total_global_iters = 0;  ///< global iterations over all calls since set-up
  long long total_launches = 0;      ///< kernel launches over all calls since set-up
  int host_rebalances = 0;           ///< fused mode on host backends: times the threads' block ranges moved
  int host_max_lead = 0;  ///< fused mode on host backends: passes a thread may run ahead of the slowest (0: not run)
  RelaxationResult last;             ///< result of the last block_async_solve (iterations of the last apply)
};

template <class Scalar, class Device>
class BlockAsyncHandle {
 public:
  using scalar_type = Scalar;
  using device_type = Device;
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  using matrix_type = Crs<Scalar, Device>;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;
  using offset_view = Kokkos::View<offset_t*, Device>;
  using ordinal_view = Kokkos::View<ordinal_t*, Device>;
  using order_view = Kokkos::View<std::int64_t*, Device>;

  explicit BlockAsyncHandle(const BlockAsyncParams& params = BlockAsyncParams(),
                            const LaunchConfig& launch = LaunchConfig())
      : params_(params), launch_config_(launch) {}

  BlockAsyncParams& params() { return params_; }
  const BlockAsyncParams& params() const { return params_; }
  LaunchConfig& launch_config() { return launch_config_; }
  const LaunchConfig& launch_config() const { return launch_config_; }
  const BlockAsyncStats& stats() const { return stats_; }
  bool symbolic_done() const { return symbolic_; }
  bool numeric_done() const { return numeric_; }
  /// The matrix given to block_async_numeric (its pattern: to block_async_symbolic).
  const matrix_type& matrix() const { return A_; }

  // ---- set-up data, filled by block_async_symbolic / _numeric (public for the kernels in Impl; not a user API) ----
  matrix_type A_;
  offset_view local_row_map_, remote_row_map_;  ///< per row: entries inside / outside the row's block
  ordinal_view local_cols_;                     ///< column relative to the first row of the block
  ordinal_view remote_cols_;                    ///< global column
  vector_type local_vals_, remote_vals_;
  vector_type weight_;    ///< tau / a_ii
  vector_type buffer_;    ///< second iterate of the deterministic mode
  vector_type residual_;  ///< r = b - A x of the residual checks
  order_view order_;      ///< launch position -> block (LaunchConfig::block_order)
  /// Fused mode on host backends: each thread's contiguous range of launch positions, rebalanced between launches
  /// (created by the first fused launch after the symbolic phase).
  std::optional<HostBlockBalancer> host_balancer_;
  BlockAsyncStats stats_;
  int setup_block_size_ = 0;  ///< Params::block_size / LaunchConfig the symbolic phase was built for
  LaunchConfig setup_launch_;
  double setup_tau_param_ = 1.0;  ///< Params::tau of the numeric phase
  bool symbolic_ = false, numeric_ = false;

 private:
  BlockAsyncParams params_;
  LaunchConfig launch_config_;
};

}  // namespace AsyncSparse
