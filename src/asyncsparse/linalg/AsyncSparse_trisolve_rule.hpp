// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the modes of the triangular solves of the incomplete-factorization preconditioners, and the rule
// that picks one when the user asks for "auto".
//
// Modes (TriSolveKind, parameter string in quotes):
//  * "exact": forward / backward substitution. Host backends: one thread (the per-level synchronisation of a
//    level-set solve costs more than it gains on a few cores); CUDA: cuSPARSE SpSV (analysis once per pattern);
//    HIP: Kokkos-Kernels sptrsv with level sets (one launch per level).
//  * "jacobi": a fixed number k of Jacobi sweeps x_{j+1} = D^{-1} (b - (T - D) x_j) from x_0 = D^{-1} b (Chow &
//    Patel, SISC 2015; Anzt, Chow & Dongarra, Euro-Par 2015): k kernels, full row parallelism.
//  * "jacobi_adaptive": Jacobi sweeps until the triangular residual has dropped by a tolerance or stagnates,
//    checked every few sweeps (each check is a device-to-host transfer).
//  * "isai": x = M b with M the incomplete sparse approximate inverse of T on T's own pattern (Anzt, Huckle,
//    Bräckle & Dongarra, Parallel Computing 2018): one sparse matrix-vector product per solve.
//  * "auto": choose_tri_solve() below picks one of the above at setup.
//
// The rule (choose_tri_solve) is one function of a few cheap facts about the backend and the triangle. Its
// thresholds are named constants; what each depends on is said beside it. Measured numbers behind them are in
// perf_tests/results/MEASUREMENTS.md#tri-solve-auto-rule.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>

namespace AsyncSparse {

/// How a triangular system is solved (see the header comment).
enum class TriSolveKind { Exact, Jacobi, JacobiAdaptive, Isai, Auto };

inline const char* to_string(TriSolveKind k) {
  switch (k) {
    case TriSolveKind::Exact:
      return "exact";
    case TriSolveKind::Jacobi:
      return "jacobi";
    case TriSolveKind::JacobiAdaptive:
      return "jacobi_adaptive";
    case TriSolveKind::Isai:
      return "isai";
    default:
      return "auto";
  }
}

/// The parameter strings, in the order of the documentation.
inline const std::vector<std::string>& tri_solve_kind_names() {
  static const std::vector<std::string> names = {"auto", "exact", "jacobi", "jacobi_adaptive", "isai"};
  return names;
}

inline TriSolveKind tri_solve_kind_from_string(const std::string& s) {
  for (auto k : {TriSolveKind::Auto, TriSolveKind::Exact, TriSolveKind::Jacobi, TriSolveKind::JacobiAdaptive,
                 TriSolveKind::Isai})
    if (s == to_string(k)) return k;
  throw InvalidInput("triangular solve kind '" + s + "' unknown (valid: auto, exact, jacobi, jacobi_adaptive, isai)");
}

/// What the rule looks at. Everything but `levels` is known without touching the triangle's values.
struct TriSolveRuleInputs {
  bool gpu = false;          ///< the execution space is a GPU (CUDA or HIP)
  bool cusparse = false;     ///< exact solves run as cuSPARSE SpSV (CUDA build, float or double)
  int concurrency = 1;       ///< ExecSpace::concurrency() (host: threads)
  std::int64_t n = 0;        ///< rows of the triangles
  std::int64_t nnz = 0;      ///< stored entries of the larger triangle, diagonal included
  std::int64_t levels = -1;  ///< levels of the lower triangle's dependency graph (-1: not counted)
};

/// The rule's answer: the mode, its sweep count (Jacobi: sweeps; JacobiAdaptive: maximum sweeps; Isai: correction
/// steps; Exact: 0) and one line saying why, for the run record.
struct TriSolveChoice {
  TriSolveKind kind = TriSolveKind::Exact;
  int sweeps = 0;
  std::string reason;
};

/// Default sweep counts when the user leaves "tri_solve_sweeps" at -1.
constexpr int kDefaultJacobiSweeps = 3;         ///< "jacobi": the setting measured best on the 2D Laplacian
constexpr int kDefaultAdaptiveMaxSweeps = 10;   ///< "jacobi_adaptive": upper bound on the sweeps
constexpr int kDefaultIsaiCorrectionSteps = 0;  ///< "isai": plain x = M b
/// Correction steps when the auto rule picks ISAI on a GPU: one step x += M (b - T x) made ParIC(5) + PCG reach
/// 1e-6 sooner than plain ISAI on the Laplacians (BM_pcg_par_ic of AsyncSparse_Perf_trisolve;
/// perf_tests/results/MEASUREMENTS.md#tri-solve-auto-rule).
constexpr int kGpuAutoIsaiCorrectionSteps = 1;

/// True when the rule wants the level count of the lower triangle for a backend and size. Counting runs on the
/// host (O(nnz) after copying the pattern there): free on host backends, where the rule does not need it, and
/// worth it on a GPU only while the copy is small next to the setup.
inline bool tri_solve_rule_counts_levels(bool gpu, std::int64_t n) {
  // Rows up to which a GPU setup copies the pattern to the host to count levels. Depends on the PCIe bandwidth
  // and on the cost of the rest of the setup (the factorization sweeps), which grows with n as the copy does.
  constexpr std::int64_t kGpuLevelCountMaxRows = 200000;
  return gpu && n <= kGpuLevelCountMaxRows;
}

/// THE auto rule: picks the triangular-solve mode of the incomplete-factorization preconditioners.
///
/// Host backends: exact (serial substitution). A solve reads each entry once in one thread; Jacobi(k) reads them
/// k times spread over the threads, and ISAI once (plus a setup), so the iterative modes can only win with many
/// threads, and they also cost Krylov iterations. With kHostIterativeMinThreads threads or more ISAI is chosen.
///
/// GPU backends: an exact solve is a chain of dependent steps, one per level of the dependency graph, each
/// taking a synchronisation (a kernel launch per level in Kokkos-Kernels; a device-wide wait in cuSPARSE), while an
/// iterative solve takes a fixed number of fully parallel passes over the triangle. So:
///  - exact when the levels are known and few (at most kGpuExactMaxLevels): then the exact solve is a few passes
///    too, and the preconditioner is the best one of its pattern;
///  - ISAI when the triangle is large (at least kGpuIsaiMinNnz entries) and its rows short (at most
///    kGpuIsaiMaxAvgRowNnz on average): a pass then costs memory bandwidth, not launch latency, and ISAI makes one
///    pass per solve where Jacobi(k) makes k; its preconditioner is weaker (it equals the inverse on T's pattern
///    only), but the extra Krylov iterations cost less than the passes saved;
///  - otherwise Jacobi with kDefaultJacobiSweeps sweeps: on small triangles a sweep costs about a kernel launch,
///    so the better preconditioner of more sweeps pays for itself.
inline TriSolveChoice choose_tri_solve(const TriSolveRuleInputs& in) {
  // Host threads from which the iterative modes are chosen on a host backend. Depends on the core count and
  // the memory bandwidth per core of the host.
  constexpr int kHostIterativeMinThreads = 1 << 30;  // not reached: no host measured where they win
  // Levels up to which a GPU solves exactly. Depends on the GPU's synchronisation latency per level relative to
  // the time of one pass over the triangle.
  constexpr std::int64_t kGpuExactMaxLevels = 64;
  // Entries of a triangle from which a GPU uses ISAI rather than Jacobi sweeps. Depends on the GPU's memory
  // bandwidth times its kernel-launch latency (the size at which a pass stops being launch-bound) and on the
  // Krylov solver's own cost per iteration.
  constexpr std::int64_t kGpuIsaiMinNnz = 1000000;
  // Average entries per row of a triangle up to which a GPU uses ISAI. Depends on the cost of the ISAI setup
  // (quadratic in the row length) against the sweeps it saves per solve.
  constexpr double kGpuIsaiMaxAvgRowNnz = 32.0;

  const double avg_row = in.n > 0 ? static_cast<double>(in.nnz) / static_cast<double>(in.n) : 0.0;
  auto facts = [&] {
    char row[32];
    std::snprintf(row, sizeof row, "%.1f", avg_row);
    std::string s = std::string(in.gpu ? "gpu" : "host") + ", n " + std::to_string(in.n) + ", nnz " +
                    std::to_string(in.nnz) + ", " + row + " entries/row";
    if (in.levels >= 0) s += ", " + std::to_string(in.levels) + " levels";
    if (!in.gpu) s += ", " + std::to_string(in.concurrency) + " threads";
    return s;
  };
  TriSolveChoice c;
  if (!in.gpu) {
    if (in.concurrency >= kHostIterativeMinThreads) {
      c.kind = TriSolveKind::Isai;
      c.sweeps = kDefaultIsaiCorrectionSteps;
      c.reason = facts() + ": many host threads -> isai";
    } else {
      c.kind = TriSolveKind::Exact;
      c.reason = facts() + ": host -> exact (serial substitution)";
    }
    return c;
  }
  if (in.levels >= 0 && in.levels <= kGpuExactMaxLevels) {
    c.kind = TriSolveKind::Exact;
    c.reason = facts() + ": few levels -> exact" + (in.cusparse ? " (cuSPARSE SpSV)" : " (level sets)");
  } else if (in.nnz >= kGpuIsaiMinNnz && avg_row <= kGpuIsaiMaxAvgRowNnz) {
    c.kind = TriSolveKind::Isai;
    c.sweeps = kGpuAutoIsaiCorrectionSteps;
    c.reason = facts() + ": large triangle, short rows -> isai(" + std::to_string(c.sweeps) + " correction step)";
  } else {
    c.kind = TriSolveKind::Jacobi;
    c.sweeps = kDefaultJacobiSweeps;
    c.reason = facts() + (in.nnz >= kGpuIsaiMinNnz ? ": long rows" : ": small triangle") + " -> jacobi(" +
               std::to_string(c.sweeps) + ")";
  }
  return c;
}

/// Number of levels of the dependency graph of a triangle with sorted rows (row i waits for the rows its
/// off-diagonal entries name): level(i) = 1 + max level(j). Runs on the host; copies the pattern there when it
/// lives elsewhere. Entries on the wrong side of the diagonal are ignored.
template <class RowMap, class Entries>
std::int64_t count_levels(const RowMap& row_map, const Entries& entries, bool lower) {
  const auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
  const auto ent = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), entries);
  const std::int64_t n = rm.extent(0) > 0 ? static_cast<std::int64_t>(rm.extent(0)) - 1 : 0;
  std::vector<std::int32_t> level(static_cast<std::size_t>(n), 0);
  std::int32_t deepest = 0;
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t i = lower ? r : n - 1 - r;
    std::int32_t l = 0;
    for (auto k = rm(i); k < rm(i + 1); ++k) {
      const std::int64_t j = ent(k);
      if (lower ? j < i : j > i) l = std::max(l, level[static_cast<std::size_t>(j)]);
    }
    level[static_cast<std::size_t>(i)] = l + 1;
    deepest = std::max(deepest, l + 1);
  }
  return deepest;
}

}  // namespace AsyncSparse
