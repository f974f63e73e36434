// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the settings and statistics of a TriangularSolver (AsyncSparse_trisolve.hpp): the exact algorithms,
// TriSolveOptions and TriSolveStats.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include <asyncsparse/linalg/AsyncSparse_trisolve_rule.hpp>

namespace AsyncSparse {

/// Algorithm of an exact solve: Auto (GPUs: one team for a triangle that fits its scratch memory, else cuSPARSE on
/// CUDA and level sets on other GPUs; host backends: serial substitution), Kokkos-Kernels level sets, serial
/// substitution (one thread), cuSPARSE SpSV (CUDA builds only), or level sets in one launch of one team (triangles
/// whose arrays fit one team's scratch memory: Impl::exact_one_team_fits).
enum class ExactAlgorithm { Auto, LevelSet, Serial, Cusparse, OneTeam };

inline const char* to_string(ExactAlgorithm a) {
  switch (a) {
    case ExactAlgorithm::LevelSet:
      return "level-set";
    case ExactAlgorithm::Serial:
      return "serial";
    case ExactAlgorithm::Cusparse:
      return "cusparse";
    case ExactAlgorithm::OneTeam:
      return "one-team";
    default:
      return "auto";
  }
}

/// Settings of a TriangularSolver.
struct TriSolveOptions {
  /// Mode. Default Auto (choose_tri_solve at setup).
  TriSolveKind kind = TriSolveKind::Auto;
  /// Jacobi: sweeps per solve (>= 0). JacobiAdaptive: maximum sweeps (>= 1). Isai: correction steps after
  /// x = M b (>= 0). Exact: unused. Default -1: the rule's count for Auto, else kDefaultJacobiSweeps (3),
  /// kDefaultAdaptiveMaxSweeps (10), kDefaultIsaiCorrectionSteps (0).
  int sweeps = -1;
  /// Isai: M's pattern is that of |T|^isai_power (1: T's own; 2: row i the union of the rows of T that row i of T
  /// meets; up to kMaxIsaiPower). A larger pattern approximates T^{-1} better (fewer Krylov iterations) for a product
  /// with more entries (Impl::isai_pattern_power; rows of the pattern extended at most
  /// Impl::kIsaiPowerMaxRowEntries entries long). 0 (default): isai_power_rule (2 for short rows, else 1).
  int isai_power = 0;
  /// Isai: the precision of M's values in the product (IsaiPrecision): Single stores them as float as well (the
  /// product reads 4 bytes per value instead of 8 and sums in Scalar; M itself, isai_matrix(), and the correction
  /// steps keep Scalar); Working the solver's Scalar only; Auto (default) isai_single_values_rule (GPUs: single).
  /// No effect where Scalar is float.
  IsaiPrecision isai_precision = IsaiPrecision::Auto;
  /// JacobiAdaptive: stop once ||b - T x_j|| <= tolerance * ||b - T x_0|| (> 0, default 1e-2).
  double tolerance = 1e-2;
  /// JacobiAdaptive: stop when a check finds the residual above stagnation times its previous check's (> 0,
  /// default 0.9: less than 10% progress, or growth, ends the sweeps).
  double stagnation = 0.9;
  /// JacobiAdaptive: sweeps between residual checks (>= 1, default 1). Each check is a device-to-host transfer.
  int check_interval = 1;
  /// Exact: algorithm (default Auto).
  ExactAlgorithm exact_algorithm = ExactAlgorithm::Auto;
  /// One launch of one team for small triangles. Jacobi solves of both triangles with at least one sweep each, in
  /// an incomplete-factorization preconditioner (FactorApply: ParIc, ParIlu, ParIct, ParIlut): one launch runs the
  /// application when the larger triangle has at most this many stored entries (Impl::JacobiPairOneTeam: one
  /// multiprocessor sweeps them all, so the bound is on the data of a sweep). Exact solves with ExactAlgorithm::Auto:
  /// ExactAlgorithm::OneTeam for a triangle of at most this many entries whose arrays fit one team's scratch memory
  /// (FactorApply: both triangles in one launch when both do). -1 (default): on GPUs kGpuJacobiOneTeamMaxEntries for
  /// Jacobi and any size that fits for exact solves, on host backends never; 0: never.
  std::int64_t one_team_entries = -1;
};

/// What a TriangularSolver resolved at setup and did since.
struct TriSolveStats {
  TriSolveKind kind = TriSolveKind::Exact;                ///< resolved mode (never Auto)
  ExactAlgorithm exact_algorithm = ExactAlgorithm::Auto;  ///< Exact: the algorithm used
  int sweeps = 0;                                         ///< resolved sweep count (see TriSolveOptions::sweeps)
  int isai_power = 1;                                     ///< Isai: the pattern's power (TriSolveOptions::isai_power)
  std::int64_t isai_nnz = 0;                              ///< Isai: entries of M
  bool isai_single = false;  ///< Isai: the product reads M's values in single precision (isai_precision)
  std::string reason;                                     ///< why Auto chose this mode ("" when not Auto)
  double jacobi_probe = -1;                               ///< Jacobi probe given to the rule (-1: not measured)
  std::int64_t solves = 0;                                ///< solve() calls since setup
  std::int64_t total_sweeps = 0;                          ///< Jacobi modes: sweeps run since setup
  int last_sweeps = 0;                                    ///< Jacobi modes: sweeps of the last solve
  std::int64_t checks = 0;                                ///< JacobiAdaptive: residual checks since setup
  double last_relative_residual = -1;                     ///< JacobiAdaptive: ||r_j|| / ||r_0|| at the last check
  double setup_seconds = 0;  ///< setup() or update_values() time, fenced (defer_verdict: the host's part)
  int levels = 0;            ///< Exact with ExactAlgorithm::OneTeam: levels of the triangle's dependency graph

  /// "jacobi(3)", "jacobi_adaptive(<=10)", "isai", "isai+2", "isai^2" (pattern of |T|^2), "exact(cusparse)",
  /// "exact(one-team)".
  std::string mode() const {
    char buf[96];
    switch (kind) {
      case TriSolveKind::Jacobi:
        std::snprintf(buf, sizeof buf, "jacobi(%d)", sweeps);
        break;
      case TriSolveKind::JacobiAdaptive:
        std::snprintf(buf, sizeof buf, "jacobi_adaptive(<=%d)", sweeps);
        break;
      case TriSolveKind::Isai:
        if (isai_power > 1)
          std::snprintf(buf, sizeof buf, sweeps > 0 ? "isai^%d+%d" : "isai^%d", isai_power, sweeps);
        else
          std::snprintf(buf, sizeof buf, sweeps > 0 ? "isai+%d" : "isai", sweeps);
        break;
      default:
        std::snprintf(buf, sizeof buf, "exact(%s)", to_string(exact_algorithm));
        break;
    }
    return buf;
  }
};

}  // namespace AsyncSparse
