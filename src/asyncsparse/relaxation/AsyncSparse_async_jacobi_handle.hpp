// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — handle of the (a)synchronous Jacobi iteration: parameters, statistics, workspace.
//
// One handle serves the three variants of Tsai, Nayak, Chow & Anzt, "Implementing Asynchronous Jacobi
// Iteration on GPUs" (2022): synchronous Jacobi (their Algorithm 1, `jacobi_apply` / `jacobi_solve`),
// asynchronous Jacobi with a static subwarp-to-row assignment (Algorithm 2) and with a dynamic assignment of a
// fixed number of workers cycling over the rows (Algorithm 3), both run by `async_jacobi_apply` /
// `async_jacobi_solve`. Using one handle type keeps the synchronous baseline and the asynchronous variants
// comparable: same parameters, same statistics.
//
// The iteration is x_i <- x_i + omega * (b_i - A(i,:) x) / a_ii. On a matrix scaled to unit diagonal (what
// the paper does) this is the paper's x_i += alpha (b_i - A(i,:) x) with alpha = omega.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_update_trace.hpp>
#include <asyncsparse/exec/AsyncSparse_host_blocks.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>

namespace AsyncSparse {

/// Which Jacobi variant runs.
enum class JacobiMode {
  Sync,     ///< Algorithm 1: residual r = b - A x, global synchronisation, x += omega D^-1 r. Deterministic.
  Static,   ///< Algorithm 2: one lane group (subwarp) per row, each row updated `updates` times in place. Host
            ///< backends: one contiguous row block per thread, swept `updates` times (AsyncSparse_async_jacobi.hpp).
  Dynamic,  ///< Algorithm 3: workers = concurrency x oversubscription lane groups cycle over the rows.
  Auto      ///< the measured rule default_jacobi_mode: Static on every backend (GPUs: at most
            ///< default_max_updates_per_launch updates per launch when the rows outnumber the resident lane groups).
};

/// The asynchronous mode JacobiMode::Auto runs on ExecSpace: Static on every backend.
/// Host backends: one row block per thread swept in place (2-core host, gen:lap2d:300 to 1e-6, nine runs: 0.61-0.76x
/// the synchronous time, median 0.70, where the dynamic mode took 0.56-1.16x, median 0.97 — the same updates, more
/// time per update; as a GMRES preconditioner fewer iterations; perf_tests/results/MEASUREMENTS.md#jacobi-host-mode).
/// GPUs: a lane group per row, the updates in launches of at most default_max_updates_per_launch where the rows
/// outnumber the resident lane groups (H200, to 1e-6 with a check every 10 updates: 0.35-0.41x the time of
/// synchronous Jacobi on gen:lap2d:300, gen:convdiff2d:300:1 and gen:lap3d7:100, where the dynamic mode took
/// 0.89-1.72x; MEASUREMENTS.md#jacobi-gpu-mode).
template <class ExecSpace>
constexpr JacobiMode default_jacobi_mode() {
  return JacobiMode::Static;
}
/// `m`, with JacobiMode::Auto replaced by default_jacobi_mode<ExecSpace>().
template <class ExecSpace>
constexpr JacobiMode resolve_jacobi_mode(JacobiMode m) {
  return m == JacobiMode::Auto ? default_jacobi_mode<ExecSpace>() : m;
}

/// How the dynamic mode hands rows to workers (teams of lane groups, rows in blocks of chunk_size). Both
/// produce the same (row block, update index) pairs: block position g in [0, updates * nb) is row block
/// g mod nb at update g / nb; they differ in which team takes which g.
enum class DynamicAssignment {
  Auto,          ///< Strided on GPUs (the paper's), AtomicCounter on host backends (see below)
  Strided,       ///< team t takes g = t, t + L, t + 2L, ... (Algorithm 3 and the authors' Ginkgo kernel)
  AtomicCounter  ///< a team takes the next g from a global counter (Kokkos::atomic_fetch_add): load balance.
                 ///< On CPUs, where the OS may deschedule a thread for milliseconds, a strided thread that
                 ///< falls behind leaves its rows stale for many updates; with the counter the others take
                 ///< over its share, and all threads sweep the rows in order (Gauss–Seidel-like progress).
};

/// How the asynchronous kernels read the shared iteration vector.
enum class LoadKind {
  Relaxed,  ///< AsyncSparse::load_relaxed (volatile on GPUs: bypasses the non-coherent L1). Default.
  Plain     ///< ordinary loads, as in the paper's kernels; may be served from a stale L1 line on GPUs.
};

/// Outcome of a run.
enum class JacobiStatus {
  Converged,    ///< relative residual <= tol
  UpdatesDone,  ///< the requested updates per row were done (tol not set or not reached); residual finite
  Diverged,     ///< the residual grew beyond divergence_factor x the initial residual
  NonFinite     ///< NaN or Inf appeared in the residual / iterate
};

inline const char* to_string(JacobiMode m) {
  switch (m) {
    case JacobiMode::Sync:
      return "sync";
    case JacobiMode::Static:
      return "static";
    case JacobiMode::Dynamic:
      return "dynamic";
    case JacobiMode::Auto:
      return "auto";
  }
  return "unknown";
}
inline JacobiMode jacobi_mode_from_string(const std::string& s) {
  if (s == "sync") return JacobiMode::Sync;
  if (s == "static") return JacobiMode::Static;
  if (s == "dynamic") return JacobiMode::Dynamic;
  if (s == "auto") return JacobiMode::Auto;
  throw InvalidInput("Jacobi mode '" + s + "' unknown (valid: sync, static, dynamic, auto)");
}
inline const char* to_string(DynamicAssignment a) {
  return a == DynamicAssignment::Auto ? "auto" : a == DynamicAssignment::Strided ? "strided" : "atomic-counter";
}
inline DynamicAssignment dynamic_assignment_from_string(const std::string& s) {
  if (s == "auto") return DynamicAssignment::Auto;
  if (s == "strided") return DynamicAssignment::Strided;
  if (s == "atomic-counter") return DynamicAssignment::AtomicCounter;
  throw InvalidInput("dynamic assignment '" + s + "' unknown (valid: auto, strided, atomic-counter)");
}
inline const char* to_string(LoadKind k) { return k == LoadKind::Relaxed ? "relaxed" : "plain"; }
inline const char* to_string(JacobiStatus s) {
  switch (s) {
    case JacobiStatus::Converged:
      return "converged";
    case JacobiStatus::UpdatesDone:
      return "updates-done";
    case JacobiStatus::Diverged:
      return "diverged";
    default:
      return "non-finite";
  }
}

/// Updates before the first residual check when AsyncJacobiParams::check_interval is 0 (the rule), and the whole
/// interval of the synchronous mode then (its stop points stay deterministic): 10, the library's fixed default before.
constexpr int kFirstCheckInterval = 10;
/// Time of the residual checks under the rule (check_interval = 0), as a share of the update time between them: 0.1
/// (about 9 % of a solve). A check is a residual kernel, a reduction and a read-back that the updates wait for; on a
/// GPU it costs a dozen updates of a small grid (gen:lap2d:300 on an H200: 29 us against 2.1 us per update of the
/// static mode: to 1e-6 in 0.73 s with a check every 10 updates, 0.31 s with one every 100), on a host about one
/// update (the rule then keeps 10). Measured: perf_tests/results/MEASUREMENTS.md#jacobi-check-interval
constexpr double kCheckTimeShare = 0.1;
/// The rule's next interval of an asynchronous solve after a check: the updates that take check_seconds /
/// kCheckTimeShare at the measured seconds_per_update, at most twice the current interval (a long interval can
/// overshoot the tolerance by up to its length) and at least kFirstCheckInterval; the current interval when a time
/// is not positive and finite (timer resolution).
inline int next_check_interval(int current, double check_seconds, double seconds_per_update) {
  if (!(seconds_per_update > 0) || !(check_seconds > 0) || !std::isfinite(seconds_per_update) ||
      !std::isfinite(check_seconds))
    return current;
  const double want = check_seconds / (kCheckTimeShare * seconds_per_update);
  const double cap = 2.0 * static_cast<double>(current);
  return static_cast<int>(std::max<double>(kFirstCheckInterval, std::min(std::min(want, cap), 1.0e9)));
}

/// Parameters of the (a)synchronous Jacobi iteration.
struct AsyncJacobiParams {
  /// Variant run by async_jacobi_apply / async_jacobi_solve (jacobi_apply / jacobi_solve always run Sync).
  /// Default Auto: default_jacobi_mode (Static on every backend); stats.mode says which ran.
  JacobiMode mode = JacobiMode::Auto;
  /// Relaxation factor omega (the paper's alpha), finite and > 0. Default 1 (optimal for the scaled
  /// Laplacians, paper sect. IV-A).
  double omega = 1.0;
  /// Updates per row (Sync: iterations): exactly this many in *_apply; in *_solve the only stop criterion when
  /// tol <= 0, the limit otherwise. >= 0. Default 100.
  int updates = 100;
  /// *_solve: stop when ||b - A x||_2 / ||b||_2 <= tol (absolute residual when b = 0), checked by the host every
  /// `check_interval` updates. 0 (default): no residual checks; exactly `updates` updates are done. Not read by
  /// *_apply (no residual checks there).
  double tol = 0.0;
  /// *_solve: updates per row between residual checks when tol > 0 or record_history. >= 0. Default 0: the rule —
  /// the synchronous mode checks every kFirstCheckInterval (10) updates (deterministic stop points); the
  /// asynchronous modes start at 10 and after each check set the next interval with next_check_interval, so that
  /// the checks take about kCheckTimeShare of the time (stats.checks, stats.check_interval say what ran).
  /// Asynchronous modes: the updates between two checks are one kernel launch (or launches of at most
  /// max_updates_per_launch), asynchronous inside; the check itself (a residual kernel and a reduction) runs after
  /// it on the same execution space instance, so the asynchronous updates pause while the host reads the residual.
  int check_interval = 0;
  /// Asynchronous modes (an explicit Static or Dynamic as well as Auto): most updates per row in one kernel launch;
  /// the updates of an apply (or between two residual checks) go in launches of at most this many (a value >=
  /// updates, or >= a fixed check_interval with checks: one launch per apply or check, the paper's kernels; under
  /// the check-interval rule the intervals grow, up to 1e9). 0 (default):
  /// the measured rule default_max_updates_per_launch (stats.max_updates_per_launch says what ran; 0 there: no
  /// bound; host backends never need one, and their row blocks are rebalanced only after launches of 1 ms or
  /// more). >= 0.
  int max_updates_per_launch = 0;
  /// *_solve: record the relative residual, updates done and elapsed time at every check. Default false.
  bool record_history = false;
  /// Report Diverged when the residual exceeds this factor times the initial residual. > 1. Default 1e10.
  double divergence_factor = 1e10;
  /// Compute ||b|| and the initial and final relative residuals (residual sweeps outside the timed region),
  /// and check b and x for NaN/Inf up front. false (used by the preconditioner; in *_solve allowed only with
  /// tol == 0 and record_history == false): only x is checked for NaN/Inf at the end (a NaN/Inf in b or in the
  /// initial x shows up there as NonFinite); initial_residual / final_residual are reported as -1.
  /// Default true.
  bool residual_norms = true;
  /// Throw DivergenceError (instead of only setting stats.status) on Diverged / NonFinite. Default false.
  bool throw_on_divergence = false;
  /// Asynchronous modes: Kokkos::memory_fence() (__threadfence() on CUDA) after each row update, as in
  /// the paper. false reproduces the paper's no-fence variant (sect. V). Default true.
  bool fence = true;
  /// Asynchronous modes: how shared entries of x are read. Default Relaxed. Plain together with
  /// fence = false is the paper's no-fence kernel exactly (its stagnation comes from stale L1 lines).
  LoadKind load_kind = LoadKind::Relaxed;
  /// Dynamic mode: row assignment. Default Auto (Strided = Algorithm 3 on GPUs, AtomicCounter on hosts).
  DynamicAssignment assignment = DynamicAssignment::Auto;
  /// Value-age logging, time stamps, update schedule (asynchronous modes). Default: all off.
  UpdateTraceOptions trace;
};

/// What a run did. Reset by every call.
struct AsyncJacobiStats {
  JacobiMode mode = JacobiMode::Dynamic;  ///< the mode that ran (Auto resolved: never Auto)
  JacobiStatus status = JacobiStatus::UpdatesDone;
  int updates_done = 0;                  ///< updates per row performed (Sync: iterations)
  double initial_residual = 0;           ///< relative residual of the initial guess
  double final_residual = 0;             ///< relative residual at exit (computed after the timed region)
  double b_norm = 0;                     ///< ||b||_2 (-1 without residual_norms)
  std::vector<double> residual_history;  ///< relative residual at each check (index 0: initial guess)
  std::vector<int> update_history;       ///< updates per row done at each check
  std::vector<double> time_history;      ///< seconds since the start at each check (includes checks)
  double update_seconds = 0;             ///< time spent in the update kernels (fenced), without residual checks
  double check_seconds = 0;              ///< time spent in residual checks between update kernels
  double total_seconds = 0;              ///< wall time of the call excluding set-up and the final residual
  double time_per_update = 0;            ///< update_seconds / updates_done (the paper's "time per update")
  int kernel_launches = 0;               ///< update kernels launched
  int checks = 0;                        ///< residual checks between updates (*_solve with tol > 0 or history)
  int check_interval = 0;                ///< updates before the last check (0: no check; with the rule: where it ended)
  int max_updates_per_launch = 0;        ///< the bound that applied (params or the rule; 0: none)
  std::int64_t workers = 0;  ///< lane groups updating rows (Sync, Static on GPUs: rows; Static on host backends:
                             ///< row blocks = threads; Dynamic: teams x team_size)
  DynamicAssignment assignment = DynamicAssignment::Strided;  ///< resolved assignment (Dynamic)
  ResolvedLaunch launch;  ///< launch actually used (team size, subwarp = vector_length, ...)
  std::string message;    ///< explanation of Diverged / NonFinite
  bool converged() const { return status == JacobiStatus::Converged; }
  bool failed() const { return status == JacobiStatus::Diverged || status == JacobiStatus::NonFinite; }
};

/// Handle: parameters, launch configuration, statistics of the last run, workspace and trace buffers.
/// Life cycle (the same for the synchronous jacobi_* and the asynchronous async_jacobi_* functions):
/// *_symbolic(exec, h, A) once per pattern, *_numeric(exec, h, A) once per set of values (the diagonal),
/// then any number of *_apply(exec, h, b, x) (exactly params.updates updates per row) or
/// *_solve(exec, h, b, x) (until params.tol, at most params.updates).
/// LaunchConfig fields used:
///  * vector_length = subwarp size, 1..32 (power of two on GPUs). -1: 1 (the paper's best for the
///    asynchronous modes; also the fastest synchronous residual kernel measured on the 5-point Laplacian).
///  * team_size: -1: 128 / subwarp on GPUs for the asynchronous modes (the authors' 128-thread blocks),
///    256 / vector_length for the residual kernel, 1 on host backends.
///  * chunk_size: rows per team pass (-1: team_size on GPUs, 256 on host backends); the dynamic mode hands
///    out rows in blocks of this size.
///  * block_order, max_concurrent_teams, occupancy_mode: order / occupancy of the static mode (GPUs) and the
///    residual kernel. Host backends: the static mode runs one row block per thread, max_concurrent_teams
///    (when set) caps the number of blocks.
///  * oversubscription = oscb, 1..16 (dynamic mode).
template <class Scalar, class Device>
class AsyncJacobiHandle {
 public:
  using scalar_type = Scalar;
  using device_type = Device;
  using execution_space = typename Device::execution_space;
  using matrix_type = Crs<Scalar, Device>;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;

  AsyncJacobiParams params;
  LaunchConfig launch;
  AsyncJacobiStats stats;
  /// Trace of the last run with params.trace enabled (buffers on the device; see UpdateTrace).
  UpdateTrace<Device> trace;

  AsyncJacobiHandle() = default;
  explicit AsyncJacobiHandle(const AsyncJacobiParams& p, const LaunchConfig& l = LaunchConfig())
      : params(p), launch(l) {}

  /// The diagonal of the matrix of the last numeric phase.
  const vector_type& diagonal() const { return ws.diag; }
  bool symbolic_done() const { return ws.symbolic; }
  bool numeric_done() const { return ws.numeric; }
  /// The matrix given to the last numeric phase.
  const matrix_type& matrix() const { return ws.A; }

  /// Workspace, managed by the symbolic and numeric phases (public for the kernels; not a user API).
  struct Workspace {
    bool symbolic = false, numeric = false;
    matrix_type A;                               ///< matrix of the numeric phase
    typename matrix_type::row_map_type row_map;  ///< pattern of the symbolic phase
    typename matrix_type::index_type entries;
    vector_type diag;                            ///< a_ii
    bool unit_diagonal = false;                  ///< every a_ii == 1 (scaled matrices): the kernels skip loading diag
    vector_type r;                               ///< residual (Sync)
    Kokkos::View<std::int64_t, Device> counter;  ///< AtomicCounter assignment
  } ws;
};

}  // namespace AsyncSparse
