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
// perf_tests/results/MEASUREMENTS.md#tri-solve-auto-rule. Impl::jacobi_sweep_rows (at the end) picks the kernel of the
// Jacobi sweeps on GPUs (MEASUREMENTS.md#jacobi-sweep-rows).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

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

/// What the rule looks at. Everything but `jacobi_probe` is known without touching the triangle's values.
struct TriSolveRuleInputs {
  bool gpu = false;          ///< the execution space is a GPU (CUDA or HIP)
  bool cusparse = false;     ///< exact solves run as cuSPARSE SpSV (CUDA build, float or double)
  int concurrency = 1;       ///< ExecSpace::concurrency() (host: threads)
  std::int64_t n = 0;        ///< rows of the triangles
  std::int64_t nnz = 0;      ///< stored entries of the larger triangle, diagonal included
  /// ||1 - T x_3|| / ||1|| after kGpuJacobiProbeSweeps Jacobi sweeps on T x = 1 from x_0 = D^{-1} 1, T the lower
  /// triangle (Impl::jacobi_probe; -1: not measured, NaN: T has a zero or non-finite diagonal)
  double jacobi_probe = -1;
  /// the triangles are the pair of an LU factorization (unit lower L and U: ParILU, ParILUT), which a nonsymmetric
  /// matrix's GMRES applies; false: a Cholesky pair (L, Lᵀ: ParIC, ParICT, applied in PCG) or a lone triangle
  bool lu = false;
};

/// The rule's answer: the mode, its sweep count (Jacobi: sweeps; JacobiAdaptive: maximum sweeps; Isai: correction
/// steps; Exact: 0) and one line saying why, for the run record.
struct TriSolveChoice {
  TriSolveKind kind = TriSolveKind::Exact;
  int sweeps = 0;
  std::string reason;
};

/// Precision of the values of an ISAI in its product (TriSolveOptions::isai_precision): Auto (the rule
/// isai_single_values_rule), Working (the solver's Scalar), Single (float; the product still sums in Scalar).
enum class IsaiPrecision { Auto, Working, Single };

inline const char* to_string(IsaiPrecision p) {
  return p == IsaiPrecision::Working ? "working" : p == IsaiPrecision::Single ? "single" : "auto";
}

/// The parameter strings, in the order of the documentation.
inline const std::vector<std::string>& isai_precision_names() {
  static const std::vector<std::string> names = {"auto", "working", "single"};
  return names;
}

inline IsaiPrecision isai_precision_from_string(const std::string& s) {
  for (auto p : {IsaiPrecision::Auto, IsaiPrecision::Working, IsaiPrecision::Single})
    if (s == to_string(p)) return p;
  throw InvalidInput("ISAI precision '" + s + "' unknown (valid: auto, working, single)");
}

/// The rule behind IsaiPrecision::Auto: single-precision values on GPUs (where the product is bound by memory
/// bandwidth: 8 bytes per entry instead of 12 with 32-bit column indices), the working precision on host backends.
/// The ISAI approximates T^{-1} to far less than single precision's rounding (it is exact only where T^{-1} has M's
/// pattern), so the rounded values leave the Krylov iterations as they were. Measured:
/// perf_tests/results/MEASUREMENTS.md#isai-single.
inline bool isai_single_values_rule(bool gpu) { return gpu; }

/// Default sweep counts when the user leaves "tri_solve_sweeps" at -1.
constexpr int kDefaultJacobiSweeps = 3;         ///< "jacobi": the setting measured best on the 2D Laplacian
constexpr int kDefaultAdaptiveMaxSweeps = 10;   ///< "jacobi_adaptive": upper bound on the sweeps
constexpr int kDefaultIsaiCorrectionSteps = 0;  ///< "isai": plain x = M b
/// Largest TriSolveOptions::isai_power (the pattern of |T|^k for the ISAI).
constexpr int kMaxIsaiPower = 3;
/// Largest average of stored entries per row (diagonal included) of a triangle whose ISAI the rule
/// isai_power_rule puts on the pattern of |T|^2: the lower triangle of the 5-point Laplacian (3 per row) takes about a
/// quarter fewer PCG iterations (474 -> 360 on the 512^2 grid) for a product of 6 entries per row instead of 3; longer
/// rows give much longer products. Measured: perf_tests/results/MEASUREMENTS.md#isai-power
constexpr double kIsaiPower2MaxAvgNnz = 4.0;
/// The rule behind TriSolveOptions::isai_power = 0 (the default): 2 for a triangle of n rows and nnz stored entries
/// with at most kIsaiPower2MaxAvgNnz entries per row on average, else 1.
inline int isai_power_rule(std::int64_t n, std::int64_t nnz) {
  return n > 0 && static_cast<double>(nnz) <= kIsaiPower2MaxAvgNnz * static_cast<double>(n) ? 2 : 1;
}
/// Correction steps when the auto rule picks ISAI on a GPU. With the fused CG (one CG iteration 1.33x one spmv on
/// an H200) plain ISAI reached 1e-6 sooner than ISAI with one step x += M (b - T x) on both Laplacians (L2D 165 ms,
/// 870 iterations, against 176 ms, 565 iterations; L3D 20.9 ms against 23.4 ms): the step costs a residual and a
/// second product per solve (perf_tests/results/MEASUREMENTS.md#tri-solve-auto-rule).
constexpr int kGpuAutoIsaiCorrectionSteps = 0;

// Thresholds of the GPU branch of choose_tri_solve; what each depends on is said beside it.
/// Entries of a triangle from which a GPU uses ISAI rather than Jacobi sweeps. Depends on the GPU's memory bandwidth
/// times its kernel-launch latency (the size at which a pass stops being launch-bound) and on the Krylov solver's
/// own cost per iteration.
/// The triangles of an LU pair (TriSolveRuleInputs::lu) of this size take kDefaultJacobiSweeps Jacobi sweeps instead,
/// without the Jacobi probe: a GMRES(30) iteration costs several CG iterations (0.84 against 0.18 ms on 1024^2
/// 5-point grids with ISAI, H100), so the Krylov iterations that the sweeps save over ISAI (which on the pattern of
/// |T|^2 equals two sweeps on lexicographic grids) outweigh the sweep they add per solve: ParILU + GMRES on five
/// convection-diffusion grids of 0.6-2.1 M rows took 0.83-0.88x the time to solution of ISAI with Jacobi(3), on the
/// 7-point 100^3 and 27-point 64^3 Laplacians (solved as nonsymmetric) 0.77x and 0.98x, while PCG with ParIC on the
/// 1024^2 Laplacian took 1.25x. The probe's bound (kGpuJacobiProbeMax) holds where exact solves are cheap: it is 0.83
/// on the convection-diffusion grids' factors, where cuSPARSE's exact solves took 1.28x ISAI's time (90 against 763
/// GMRES iterations on the 1024^2 grid) and Jacobi(3) 0.85x (MEASUREMENTS.md#tri-solve-auto-rule).
constexpr std::int64_t kGpuIsaiMinNnz = 1000000;
/// Average entries per row of a triangle up to which a GPU uses ISAI. Depends on the cost of the ISAI setup
/// (quadratic in the row length) against the sweeps it saves per solve.
constexpr double kGpuIsaiMaxAvgRowNnz = 32.0;
/// Sweeps of the Jacobi probe: the default sweeps of the "jacobi" mode.
constexpr int kGpuJacobiProbeSweeps = kDefaultJacobiSweeps;
/// Probe residual above which Jacobi sweeps are judged too slow and the GPU solves exactly. Measured on the
/// ParIC/ParILU factors of the shared matrices (RCM order): the probe was at most 0.31 (nos3) where Jacobi(3) cost at
/// most 1.7x the PCG iterations of the exact solve (and won in time: an exact cuSPARSE solve cost 2.5x to 3x a
/// Jacobi(3) apply per iteration on an H200), and 0.60 / 0.76 on 1138_bus / 494_bus, where Jacobi(3) took 5.9x /
/// 4.5x the iterations and lost (perf_tests/results/MEASUREMENTS.md#tri-solve-auto-rule). Depends on the ratio of an
/// exact solve's cost to a Jacobi apply's on the device.
constexpr double kGpuJacobiProbeMax = 0.45;
/// Probe residual up to which the GPU takes one Jacobi sweep per solve instead of kDefaultJacobiSweeps: the sweeps
/// then shrink the triangular residual so fast (strongly diagonally dominant factors: those of the matrices that
/// needed the diagonal shift 1, Trefethen's) that the further two buy few Krylov iterations and cost two launches
/// per solve. Measured on an H200 (the whole time-to-solution benchmark with tri_solve_sweeps 1, 2, 3 in one run,
/// perf_tests/results/MEASUREMENTS.md#tri-solve-auto-rule): at probes 0.001-0.017 (bcsstk13, 14, 18, 27, nos1, nos2,
/// trefethen_2000) one sweep took 0.99-1.09x the PCG iterations of three (trefethen_2000 6 against 4) and 0.70-0.80x
/// the time to solution where the solve took more than 5 ms; at 0.034-0.06 (ted_b, nos7, nos6) the small solves
/// were mixed (0.88-1.05x), from 0.08 on (fv1, bcsstk01, watt_2, nos5, bcsstk16) one sweep cost up to 6x the
/// iterations and lost. Measured with ParIC and PCG; the rule serves ParILU (GMRES), ParICT and ParILUT alike
/// (of the nonsymmetric matrices only watt_2 was measured: probe 0.11, three sweeps). Depends on a Jacobi sweep's
/// cost against a Krylov iteration's (launch latency on small matrices).
constexpr double kGpuJacobiOneSweepProbeMax = 0.025;
/// GPUs: Jacobi solves of both triangles in one launch of one team (TriSolveOptions::one_team_entries) where the
/// larger triangle has at most this many stored entries (MEASUREMENTS.md#tri-solve-one-team).
constexpr std::int64_t kGpuJacobiOneTeamMaxEntries = 2048;

/// True for the triangles of the GPU branch's first case: large (at least kGpuIsaiMinNnz entries) with short rows (at
/// most kGpuIsaiMaxAvgRowNnz on average): ISAI, or Jacobi sweeps for an LU pair, without the Jacobi probe.
inline bool tri_solve_rule_large_short_rows(std::int64_t n, std::int64_t nnz) {
  const double avg_row = n > 0 ? static_cast<double>(nnz) / static_cast<double>(n) : 0.0;
  return nnz >= kGpuIsaiMinNnz && avg_row <= kGpuIsaiMaxAvgRowNnz;
}

/// True when the GPU branch of the rule reads the Jacobi probe: a GPU and a triangle not of its first case.
inline bool tri_solve_rule_probes_jacobi(bool gpu, std::int64_t n, std::int64_t nnz) {
  return gpu && n > 0 && !tri_solve_rule_large_short_rows(n, nnz);
}

/// THE auto rule: picks the triangular-solve mode of the incomplete-factorization preconditioners.
///
/// Host backends: exact (serial substitution). A solve reads each entry once in one thread; Jacobi(k) reads them
/// k times spread over the threads, and ISAI once (plus a setup), so the iterative modes can only win with many
/// threads, and they also cost Krylov iterations. With kHostIterativeMinThreads threads or more ISAI is chosen.
///
/// GPU backends: an exact solve is a chain of dependent steps, one per level of the dependency graph, each
/// taking a synchronisation (a device-wide wait in cuSPARSE; a kernel launch per level in Kokkos-Kernels; a team
/// barrier in the one-team solve of triangles small enough for one team's scratch memory, ExactAlgorithm::OneTeam,
/// which the exact mode then takes), while an iterative solve takes a fixed number of fully parallel passes over
/// the triangle. So:
///  - ISAI when the triangle is large (at least kGpuIsaiMinNnz entries) and its rows short (at most
///    kGpuIsaiMaxAvgRowNnz on average): a pass then costs memory bandwidth, not launch latency, and ISAI makes one
///    pass per solve where Jacobi(k) makes k; its preconditioner is weaker (it equals the inverse on T's pattern
///    only), but the extra Krylov iterations cost less than the passes saved — in PCG; the triangles of an LU pair
///    (GMRES, whose iterations cost more) take the Jacobi sweeps below instead;
///  - otherwise Jacobi with kDefaultJacobiSweeps sweeps, unless the Jacobi probe says those sweeps leave most of the
///    triangular residual (above kGpuJacobiProbeMax, or not finite): then the exact solve, whose extra cost per
///    Krylov iteration is then smaller than the iterations Jacobi sweeps would add; or that they leave almost none
///    (at most kGpuJacobiOneSweepProbeMax): then one sweep.
inline TriSolveChoice choose_tri_solve(const TriSolveRuleInputs& in) {
  // Host threads from which the iterative modes are chosen on a host backend. Depends on the core count and
  // the memory bandwidth per core of the host.
  constexpr int kHostIterativeMinThreads = 1 << 30;  // not reached: no host measured where they win

  const double avg_row = in.n > 0 ? static_cast<double>(in.nnz) / static_cast<double>(in.n) : 0.0;
  auto facts = [&] {
    char row[64];
    std::snprintf(row, sizeof row, "%.1f", avg_row);
    std::string s = std::string(in.gpu ? "gpu" : "host") + ", n " + std::to_string(in.n) + ", nnz " +
                    std::to_string(in.nnz) + ", " + row + " entries/row";
    if (in.jacobi_probe != -1) {
      std::snprintf(row, sizeof row, ", jacobi(%d) probe %.2g", kGpuJacobiProbeSweeps, in.jacobi_probe);
      s += row;
    }
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
  const bool slow_jacobi = !(in.jacobi_probe <= kGpuJacobiProbeMax);  // NaN included; -1 (not measured) is not
  if (tri_solve_rule_large_short_rows(in.n, in.nnz) && in.lu) {
    c.kind = TriSolveKind::Jacobi;
    c.sweeps = kDefaultJacobiSweeps;
    c.reason = facts() + ": large triangles of an LU pair -> jacobi(" + std::to_string(c.sweeps) + ")";
  } else if (tri_solve_rule_large_short_rows(in.n, in.nnz)) {
    c.kind = TriSolveKind::Isai;
    c.sweeps = kGpuAutoIsaiCorrectionSteps;
    c.reason = facts() + ": large triangle, short rows -> isai";
    if (c.sweeps > 0) c.reason += "(" + std::to_string(c.sweeps) + " correction steps)";
  } else if (slow_jacobi) {
    c.kind = TriSolveKind::Exact;
    c.reason =
        facts() + ": jacobi sweeps converge slowly -> exact" +
        (in.cusparse ? " (one team where it fits, else cuSPARSE SpSV)" : " (one team where it fits, else level sets)");
  } else {
    c.kind = TriSolveKind::Jacobi;
    const bool fast = in.jacobi_probe >= 0 && in.jacobi_probe <= kGpuJacobiOneSweepProbeMax;
    c.sweeps = fast ? 1 : kDefaultJacobiSweeps;
    c.reason = facts() + (in.nnz >= kGpuIsaiMinNnz ? ": long rows" : ": small triangle") +
               (fast ? ", jacobi sweeps converge fast" : "") + " -> jacobi(" + std::to_string(c.sweeps) + ")";
  }
  return c;
}

namespace Impl {

/// How jacobi_sweep runs a plain sweep: JacobiSweep's lane groups with the solver's launch, or JacobiSweepRow, a
/// thread per row, with Kokkos' default block size or 256-thread blocks (jacobi_sweep_rows).
enum class SweepRows { Lanes, Thread, Thread256 };

/// Most off-diagonal entries per row, on average, for which jacobi_sweep_rows takes a thread per row on a triangle of
/// fewer than concurrency / kJacobiRowSweepConcurrencyDivisor rows.
constexpr double kJacobiRowSweepMaxOffDiagonal = 4.0;
/// A triangle of at least concurrency / 4 rows (67,584 on an H100: a quarter of its resident threads) takes a thread
/// per row whatever its rows' length.
constexpr int kJacobiRowSweepConcurrencyDivisor = 4;

/// The Jacobi sweeps' kernel of a triangle of n rows with `offdiag` off-diagonal entries per row on average, whose
/// product (Impl::spmv_launch of the triangle) takes a thread per row when `row_per_thread`, in 256-thread blocks when
/// `bounded_blocks`; `concurrency` is the execution space's. A thread per row where the product takes one (GPUs, at
/// most kRowSpmvMaxAvgNnz entries per row on average, 256-thread blocks above kRowSpmvBoundedBlocksMinAvgNnz: both
/// count the diagonal, `offdiag` does not) and either the rows are short (at most kJacobiRowSweepMaxOffDiagonal) or
/// there are many (n >= concurrency / kJacobiRowSweepConcurrencyDivisor); otherwise lane groups, whose n x lanes
/// threads keep a small triangle with longer rows busier. The adaptive mode keeps lane groups (TriangularSolver; only
/// fixed sweep counts were measured). HIP is not measured. Measured on an H100
/// (perf_tests/results/MEASUREMENTS.md#jacobi-sweep-rows): a thread per row swept the 1024² grid's triangles (2
/// off-diagonal entries per row) and the 27-point 64³ grid's (12.6) 1.7-1.9x faster; on small triangles with short rows
/// PCG with Jacobi(3) solves took 0.88-0.92x the time on nos2 (1.7 per row) and 1138_bus (1.3), 0.95-0.97x on bodyy5
/// and bodyy6 (3.0) in both calls (bodyy4 0.97x and 1.02x) (a solve pair alone within the spread: 0.79-0.88x on
/// 1138_bus, 0.93-1.01x on bodyy6); with longer rows on fewer rows slower: PCG with Jacobi(3) solves 1.08-1.15x the
/// time on bcsstk13, 14, 15, 18 and 27 (5.7-22 per row, at most 11,948 rows), 1.09x on nos3 (7.8).
inline SweepRows jacobi_sweep_rows(bool row_per_thread, bool bounded_blocks, std::int64_t n, double offdiag,
                                   std::int64_t concurrency) {
  if (!row_per_thread) return SweepRows::Lanes;
  if (offdiag > kJacobiRowSweepMaxOffDiagonal && n * kJacobiRowSweepConcurrencyDivisor < concurrency)
    return SweepRows::Lanes;
  return bounded_blocks ? SweepRows::Thread256 : SweepRows::Thread;
}

/// The run record's words for the kernels of the Jacobi sweeps over L (`lower`) and U (`upper`) launched per sweep:
/// ", a thread per row" or ", lane groups", per triangle (", ... (L) / ... (U)") where the rule (jacobi_sweep_rows)
/// chose differently; "" on host backends (`gpu` false), whose sweeps have one kernel (a row per thread).
inline std::string jacobi_sweep_rows_note(SweepRows lower, SweepRows upper, bool gpu) {
  if (!gpu) return "";
  const auto name = [](SweepRows r) { return r == SweepRows::Lanes ? "lane groups" : "a thread per row"; };
  const std::string l = name(lower), u = name(upper);
  return ", " + (l == u ? l : l + " (L) / " + u + " (U)");
}

}  // namespace Impl
}  // namespace AsyncSparse
