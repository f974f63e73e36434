// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse ilu / ic — what the two translation units of the command share: the options, the prepared run,
// the table rows, and the solves with given factors (cmd_ilu.cpp: options, iterative factorization, report;
// cmd_ilu_exact.cpp: the exact-factorization rows and the solves).
#pragma once

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_handle.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "driver_device.hpp"

namespace AsyncSparse {
namespace Driver {
namespace Ilu {

using CrsD = Crs<double, Device>;

struct Options {
  ProblemOptions problem;
  std::string sweeps = "5";
  std::string mode = "async";
  std::string ordering = "auto";
  int block = 8;
  std::uint64_t ordering_seed = 0;
  int fill_level = 0;
  LaunchOptions launch;
  std::string sweep_kernel = "auto";
  int runs = 1;
  double guard_tol = 0;       ///< --guard-tol: ParIluParams::guard_tolerance (0: off)
  int guard_max_sweeps = 20;  ///< --guard-max-sweeps: ParIluParams::guard_max_sweeps
  std::string tri_solve = "auto";
  int tri_solve_sweeps = -1;
  std::string solver = "auto";
  double tol = 1e-6;
  int max_iters = 5000;
  int restart = 30;
  bool ilu_residual = false, no_solve = false, factor_error = false, verbose = false, solve_all_exact = false;
  std::string exact = "auto";
};
void define(Cli& cli, Options& o, bool ic);

/// Values of one table cell over the runs.
struct Samples {
  std::vector<double> v;
  void add(double x) { v.push_back(x); }
  SampleSummary summary() const { return summarize_samples(v); }
  std::string format(const char* f) const { return spread_text(summary(), f); }
};

struct Row {
  std::string label;
  int sweeps = -1;  ///< -1: an exact factorization
  Samples iterations, nonlinear, ilu_residual, sweep_ms, total_ms, factor_error;
  Samples guard_sweeps;  ///< sweeps the guard added (--guard-tol)
  std::vector<std::string> statuses;
  std::string note;
  Samples solve_s;  ///< solver seconds
  Samples tri_setup_ms;  ///< set-up of the triangular solves (analysis, ISAI, ...) in the preconditioner's compute()
  std::string tri_solve, tri_reason;  ///< the resolved triangular-solve mode, and why (when auto chose it)
  int reused = 0;   ///< solves skipped because the factors equalled those of an earlier row
  std::string reused_from;
};

struct SolveSetup {
  bool spd = true;
  bool solve = true;
  bool verbose = false;  ///< --verbose: one line on stderr per finished solve, as it happens
  SolverParams params;
};

/// Factors already used in a solve, with the outcome. A row whose factors are bit-identical to such a set (the
/// sweeps reached their fixed point, which can equal the exact factorization to the last bit) has the same
/// preconditioner, so its solve is skipped and the result reused.
struct SolvedFactors {
  std::string label;
  CrsD L, U;  ///< copies of the values (graphs shared)
  SolverResult result;
};
using SolveCache = std::vector<SolvedFactors>;

/// The prepared run: the (ordered) matrix on the device, the handle of the iterative factorization and the
/// settings of the rows.
struct Setup {
  Setup(const std::string& command, const Options& o, Json& rec);
  std::string command;
  bool ic;
  Problem problem;
  std::string ordering, solver;
  std::vector<int> sweeps;  ///< sweep counts of the rows, increasing
  int runs = 1, fill = 0, tri_sweeps = -1;
  TriSolveKind tri = TriSolveKind::Auto;
  bool want_ilu_residual = false, want_factor_error = false, solve_all_exact = false;
  bool guard = false;  ///< --guard-tol > 0: each row is a numeric phase of its own, with the guard
  std::set<std::string> exact;  ///< exact-factorization rows: host, kk, cusparse
  SolveSetup ss;
  std::uint64_t seed0 = 0;  ///< block-order seed of the first run
  ExecSpace exec;
  CrsD A;
  ScaledCrs<CrsD> scaled;            ///< S A S and s (the exact rows factor it)
  CsrHost<double> exact_L, exact_U;  ///< --factor-error: the exact factors (host reference)
  ParIluHandle<double, Device> h;
};

/// Solver iterations with given (scaled) factors into `row`; a failed solve is noted and leaves the cell empty.
/// With a cache, identical factors reuse an earlier result and new ones are added.
void solve_with(const CrsD& A, const CrsD& L, const CrsD& U, bool unit_lower, const Kokkos::View<double*, Device>& s,
                TriSolveKind tri, int tri_sweeps, const SolveSetup& ss, Row& row, SolveCache* cache = nullptr);

/// The exact factors of the (scaled) matrix by the serial host reference: IC(0) (U left empty) or ILU(k).
/// Throws BreakdownError when they do not exist.
void host_exact_factors(const CsrHost<double>& As, bool ic, int fill, CsrHost<double>& L, CsrHost<double>& U);

/// --factor-error: the entrywise distance of iterative factors to the exact ones of the same pattern (host
/// reference). PCG and GMRES react to where the error sits, which a global residual norm does not show.
struct FactorError {
  static constexpr int kBands = 16;
  double max_rel = 0;  ///< max over the entries of |f - f*| / |f*|
  ordinal_t row = -1, col = -1;
  char factor = 'L';
  offset_t above_1e3 = 0, above_1e2 = 0;  ///< entries with a relative error above 1e-3 / 1e-2
  double band_max[kBands] = {};           ///< max relative error per sixteenth of the rows
  std::string describe() const;
};
/// Adds the errors of F (device factor) against X (exact factor) to e; only columns stored in both are compared.
void add_factor_error(const CrsD& F, const CsrHost<double>& X, char name, FactorError& e);

/// The rows of the exact factorizations asked for (s.exact), solved; fills the cache of their factors and the
/// "baselines" record.
std::vector<Row> exact_factorization_rows(const Setup& s, SolveCache& cache, Json& baselines);

}  // namespace Ilu
}  // namespace Driver
}  // namespace AsyncSparse
