// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — parameters and results shared by the Krylov solvers (CG, GMRES).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace AsyncSparse {

enum class SolverStatus {
  Converged,      ///< relative residual ‖b − A x‖ / ‖b‖ ≤ tol
  MaxIterations,  ///< max_iterations reached without convergence
  Breakdown,      ///< a quantity that must be non-zero/positive was not (e.g. pᵀAp ≤ 0 in CG: not SPD)
  Diverged,       ///< residual grew beyond divergence_factor × initial residual
  NonFinite       ///< NaN or Inf appeared (matrix, right-hand side or preconditioner produced it)
};

inline const char* to_string(SolverStatus s) {
  switch (s) {
    case SolverStatus::Converged: return "converged";
    case SolverStatus::MaxIterations: return "max-iterations";
    case SolverStatus::Breakdown: return "breakdown";
    case SolverStatus::Diverged: return "diverged";
    default: return "non-finite";
  }
}

/// How CG runs its vector operations (see AsyncSparse_cg.hpp; GMRES always runs fused).
enum class KrylovImplementation {
  /// Fused kernels, reduction results kept on the device, one host synchronisation per iteration that
  /// overlaps the next iteration's matrix-vector product.
  Fused,
  /// One Kokkos-Kernels BLAS call per vector operation, every reduction returned to the host: the textbook
  /// formulation, and the reference of the fused CG.
  Reference,
  /// The default: Impl::resolve_krylov_implementation picks by backend (GPUs: Fused; host backends: Reference).
  Auto
};

inline const char* to_string(KrylovImplementation k) {
  switch (k) {
    case KrylovImplementation::Fused: return "fused";
    case KrylovImplementation::Reference: return "reference";
    default: return "auto";
  }
}

namespace Impl {
/// The rule behind KrylovImplementation::Auto: the fused loop on GPUs, the textbook loop on host backends — the
/// faster one in the cg_iteration/* benchmarks of AsyncSparse_Perf_krylov (figures in
/// perf_tests/results/MEASUREMENTS.md#cg-implementation; on the host the two are within the run-to-run spread).
inline KrylovImplementation resolve_krylov_implementation(KrylovImplementation k, bool gpu) {
  if (k != KrylovImplementation::Auto) return k;
  return gpu ? KrylovImplementation::Fused : KrylovImplementation::Reference;
}
}  // namespace Impl

/// Default of SolverParams::graph_from_iteration: the iteration of the fused CG from which the preconditioned
/// iteration's launches are recorded and replayed as a CUDA graph. Recording the two graphs costs about 70 us
/// (H200), a replay saves 3-15 us per iteration on small systems: recording once the iterations run so far have
/// lost about that much (a rent-or-buy rule) costs a long solve little and a solve of a few iterations nothing
/// (MEASUREMENTS.md#graph-replay).
constexpr int kGraphFromIteration = 8;

/// Default bound of SolverParams::gmres_one_team_rows: GMRES on GPUs orthogonalizes systems of at most this many rows
/// in one launch of one team (Impl::arnoldi_one_team) instead of four kernels over the whole device. Measured on an
/// H200 (perf_tests/results/MEASUREMENTS.md#gmres-one-team): one team took 0.63x / 0.93x the time to solution of
/// unpreconditioned / ParILU GMRES at 1,024 rows, 0.82x / 0.92x at 1,856 (watt_2), 0.97x / 1.01x at 2,304 and
/// 1.33x / 1.04x at 4,096, more above; on a 2-core host with OpenMP it won only at 1,024 rows (0.90x) and lost from
/// 1,856 on, hence never on host backends.
constexpr int kGmresOneTeamMaxRows = 2048;

struct SolverParams {
  /// Stop when ‖b − A x‖₂ / ‖b‖₂ ≤ tol. Default 1e-6 (the ILU paper's criterion).
  double tol = 1e-6;
  /// Iteration limit (for GMRES: total inner iterations over all restarts). Default 1000.
  int max_iterations = 1000;
  /// GMRES restart length m. Default 30. Ignored by CG.
  int restart = 30;
  /// Report Diverged when the residual exceeds this factor times the initial residual. Default 1e10.
  double divergence_factor = 1e10;
  /// Record the relative residual and elapsed time of every iteration. Default true.
  bool record_history = true;
  /// 0: silent; 1: one line at the end; 2: one line per iteration (to stderr). Default 0.
  int verbose = 0;
  /// Stop with status MaxIterations (and a message saying so) once the iterations have run this many
  /// seconds; 0 = no limit. Checked once per iteration. Default 0.
  double max_seconds = 0;
  /// CG's vector kernels: Fused or Reference compute the same iterates up to rounding; Auto (default) picks by
  /// backend (Impl::resolve_krylov_implementation).
  KrylovImplementation implementation = KrylovImplementation::Auto;
  /// Fused CG on CUDA with a preconditioner that can be replayed (Preconditioner::replayable: ParIc, ParIlu, ParIct,
  /// ParIlut with Jacobi or one-product ISAI triangular solves): from this iteration on, the kernels an iteration
  /// launches after its update (the preconditioner's application and the next product) are recorded once per parity
  /// in a CUDA graph and replayed, one launch instead of up to eight (Impl::GraphReplay; the iterates are the same
  /// bit for bit). 0: never. Default kGraphFromIteration (perf_tests/results/MEASUREMENTS.md#graph-replay).
  int graph_from_iteration = kGraphFromIteration;
  /// GMRES: systems of at most this many rows run in one team: each whole cycle (Arnoldi steps with the
  /// preconditioner's applications, rotations, update, new residual: one launch and one wait per cycle; the time limit
  /// is then checked once per cycle) where the preconditioner has a one-team application (none, diagonal Jacobi, ParIc
  /// / ParIlu / ParIct / ParIlut with Jacobi triangular solves) and the cycle's Hessenberg matrix fits the team's
  /// scratch memory (restart lengths up to 68 on CUDA with Kokkos 3.4), otherwise each Arnoldi step's orthogonalization
  /// (both Gram–Schmidt passes, the norm and the scaling) in one launch; larger systems orthogonalize in four kernels
  /// over the whole device. -1 (default): kGmresOneTeamMaxRows on GPUs, never on host backends; 0: never; > 0: this
  /// bound on every backend. SolverResult::one_team_cycles and one_team_orthogonalization say which ran.
  int gmres_one_team_rows = -1;
};

struct SolverResult {
  SolverStatus status = SolverStatus::MaxIterations;
  int iterations = 0;
  double final_relative_residual = 0;   ///< true residual ‖b − A x‖/‖b‖ at exit
  double b_norm = 0;
  std::vector<double> residual_history;  ///< relative residual per iteration (index 0 = initial)
  std::vector<double> time_history;      ///< seconds since start, per iteration
  double time_seconds = 0;
  /// iterations whose preconditioner and product ran as a replayed CUDA graph (the last one's speculative work
  /// for the iteration that was not needed included)
  int graph_replays = 0;
  /// GMRES orthogonalized in one launch of one team per step (SolverParams::gmres_one_team_rows), or ran whole
  /// cycles so; false where no Arnoldi cycle ran
  bool one_team_orthogonalization = false;
  /// GMRES cycles run whole in one launch of one team (SolverParams::gmres_one_team_rows, where the preconditioner has
  /// a one-team application)
  int one_team_cycles = 0;
  std::string message;
  bool converged() const { return status == SolverStatus::Converged; }
};

namespace Impl {
inline void report_iteration(const char* solver, int verbose, int it, double rel) {
  if (verbose >= 2) std::fprintf(stderr, "%s iter %5d  rel. residual %.3e\n", solver, it, rel);
}
inline void report_result(const char* solver, int verbose, const SolverResult& r) {
  if (verbose >= 1)
    std::fprintf(stderr, "%s: %s after %d iterations, rel. residual %.3e, %.3f s%s%s\n", solver, to_string(r.status),
                 r.iterations, r.final_relative_residual, r.time_seconds, r.message.empty() ? "" : ": ",
                 r.message.c_str());
}
}  // namespace Impl

}  // namespace AsyncSparse
