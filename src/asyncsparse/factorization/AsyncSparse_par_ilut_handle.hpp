// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — handle of the ParILUT / ParICT threshold factorizations: parameters, launch configuration,
// statistics, and the factors and workspace it owns.
//
// The algorithm and the free functions that use this handle are in AsyncSparse_par_ilut.hpp (Anzt, Chow &
// Dongarra, "ParILUT — a new parallel threshold ILU", SISC 2018; Anzt, Ribizel, Flegar, Chow & Dongarra,
// "ParILUT — a parallel threshold ILU for GPUs", IPDPS 2019).
//
// Life cycle: par_ilut_symbolic (checks of A's pattern, the ILU(0)/IC(0) pattern of the initial guess; reads
// Params::kind), par_ilut_numeric (checks of A's values, scaling, initial guess, steps, final residual; or, with
// Params::reuse_pattern, sweeps on the current factor pattern; reads the other parameters), optionally
// par_ilut_step for more steps.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/exec/AsyncSparse_workspace.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_handle.hpp>
#include <asyncsparse/factorization/AsyncSparse_select.hpp>

namespace AsyncSparse {

/// Which threshold factorization: ParILUT (A ≈ L U, L unit lower triangular) or ParICT (A ≈ L Lᵀ, symmetric A).
enum class ParIlutKind { Ilut, Ict };

/// How the threshold that keeps the fill budget is selected.
enum class ThresholdSelection {
  Exact,       ///< SampleSelect to the last level: the budget is met exactly (ties broken by storage order)
  Approximate  ///< one SampleSelect level: keeps every entry >= the lower splitter of the bucket holding the
               ///< rank, i.e. slightly more than the budget (the slides' "approximate selection")
};

/// How the candidate phase builds the pattern of A ∪ L·U (ParICT: of the lower part of A ∪ L·Lᵀ) row by row.
enum class CandidateKernel {
  Auto,    ///< Bitmap where every row's column span fits the team scratch of the backend, Sort otherwise
  Bitmap,  ///< one team (GPU: a warp) per row marks the row's columns in a bitmap over its column span in scratch
           ///< memory and enumerates them in order; InvalidInput when a row's span does not fit the scratch
  Sort     ///< one thread per row gathers the row's columns with duplicates into global memory, sorts, unique
};

/// Kernel of the concurrent sweeps (Params::sweep_kernel).
enum class ParIlutSweepKernel {
  Auto,   ///< the measured rule Impl::ilut_auto_sweep_kernel: List for pattern-reusing phases of large matrices on GPUs
  Entry,  ///< one task per entry, merging the two index lists of its dot product (the papers' kernel)
  List,   ///< one task per entry, summing its product list, built once per pattern (ParILU's list kernel)
  RowTeam  ///< a team stages row i of L in scratch memory once for all the updates of row i (asynchronous mode;
           ///< the deterministic mode runs Entry)
};

inline const char* to_string(ParIlutKind k) { return k == ParIlutKind::Ilut ? "ilut" : "ict"; }
inline const char* to_string(CandidateKernel k) {
  return k == CandidateKernel::Auto ? "auto" : k == CandidateKernel::Bitmap ? "bitmap" : "sort";
}
inline CandidateKernel candidate_kernel_from_string(const std::string& s) {
  if (s == "auto") return CandidateKernel::Auto;
  if (s == "bitmap") return CandidateKernel::Bitmap;
  if (s == "sort") return CandidateKernel::Sort;
  throw InvalidInput("candidate kernel '" + s + "' unknown (valid: auto, bitmap, sort)");
}
inline const char* to_string(ParIlutSweepKernel k) {
  return k == ParIlutSweepKernel::Auto    ? "auto"
         : k == ParIlutSweepKernel::Entry ? "entry"
         : k == ParIlutSweepKernel::List  ? "list"
                                          : "row_team";
}
inline ParIlutSweepKernel par_ilut_sweep_kernel_from_string(const std::string& s) {
  if (s == "auto") return ParIlutSweepKernel::Auto;
  if (s == "entry") return ParIlutSweepKernel::Entry;
  if (s == "list") return ParIlutSweepKernel::List;
  if (s == "row_team") return ParIlutSweepKernel::RowTeam;
  throw InvalidInput("sweep kernel '" + s + "' unknown (valid: auto, entry, list, row_team)");
}
inline const char* to_string(ThresholdSelection s) { return s == ThresholdSelection::Exact ? "exact" : "approximate"; }
inline ThresholdSelection threshold_selection_from_string(const std::string& s) {
  if (s == "exact") return ThresholdSelection::Exact;
  if (s == "approx" || s == "approximate") return ThresholdSelection::Approximate;
  throw InvalidInput("threshold selection '" + s + "' unknown (valid: exact, approx)");
}

/// Measurements of one ParILUT step (index 0 of Stats::steps describes the initial guess).
struct ParIlutStepStats {
  int step = 0;               ///< 0: initial guess (ILU(0) pattern of the scaled A, no sweep)
  offset_t nnz_L = 0;         ///< stored entries of L after the step (unit diagonal included)
  offset_t nnz_U = 0;         ///< stored entries of U after the step (diagonal included); ParICT: = nnz_L (Lᵀ)
  offset_t candidates_L = 0;  ///< entries the candidate phase added to L (0 for step 0)
  offset_t candidates_U = 0;  ///< entries the candidate phase added to U (ParILUT only)
  double threshold_L = 0.0;   ///< magnitude threshold of the removal in L (0: nothing removed)
  double threshold_U = 0.0;   ///< same for U (ParILUT only)
  /// entries of the kept pattern that were not in the pattern the step started from (L; U). Both 0 with an
  /// unchanged nnz: every candidate was removed again, the step left the pattern unchanged.
  offset_t kept_new_L = 0, kept_new_U = 0;
  bool pattern_unchanged = false;  ///< kept_new_L + kept_new_U == 0 (step > 0)
  int sweeps = 0;                  ///< sweeps of the step (step 0: on the initial pattern, Params::initial_sweeps)
  /// relative nonlinear residual ||(A - L U)_S||_F / ||A||_F on the step's final pattern S, of the factors the
  /// last sweep of the step started from (-1: not computed — Params::sweep_tolerance 0 and fixed sweep counts, and
  /// ordered sweeps, whose one sweep per phase leaves the exact incomplete factorization of the pattern)
  double pattern_residual = -1.0;
  std::int64_t pivots_replaced = 0;  ///< pivots replaced in the step's last sweep (Params::pivot_tolerance)
  /// ||A - L U||_F / ||A||_F (ParICT: ||A - L Lᵀ||_F / ||A||_F) of the factors after this step, A the scaled
  /// matrix, over every entry of A and of the product; -1 when not computed (see Params::compute_residual).
  double residual = -1.0;
  double candidates_seconds = 0.0;  ///< candidate phase: pattern A ∪ L·U, values from the residual, transposes
  double sweep_seconds = 0.0;       ///< both sweeps of the step
  double select_seconds = 0.0;      ///< threshold selection (both factors)
  double remove_seconds = 0.0;      ///< removal of the small entries (both factors) and the new task list
  double residual_seconds = 0.0;    ///< a separate residual pass (only after the last step)
  double total_seconds = 0.0;
  /// device buffers the step allocated (the working arrays are pooled in the handle: 0 once the pool holds
  /// buffers for every array a step needs at once, usually from the second or third step on)
  std::int64_t workspace_allocations = 0;
};

/// What a ParILUT / ParICT sweep reports, on the device in one struct so that one read returns all of it.
struct ParIlutSweepStatus {
  std::int64_t breakdown = INT64_MAX;  ///< min of 4 * row + code over non-finite updates (INT64_MAX: none)
  std::int64_t replaced = 0;           ///< pivots replaced (Params::pivot_tolerance)
  double r2 = 0.0;                     ///< squared residual of the values the sweep read (where it computes it)
  /// entries of L and of U that the last step added to the pattern and kept (its count_new reduction; read back with
  /// the flags of the sweeps that follow it, without a wait of its own)
  std::int64_t kept_new[2] = {0, 0};
};

template <class Scalar, class Device>
class ParIlutHandle {
 public:
  using scalar_type = Scalar;
  using device_type = Device;
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  using crs_type = Crs<Scalar, Device>;
  using value_view = Kokkos::View<Scalar*, Device>;
  using offset_view = Kokkos::View<offset_t*, Device>;
  using ordinal_view = Kokkos::View<ordinal_t*, Device>;
  /// Working arrays of the phases (factors, patterns, scans, candidates), pooled between steps and numeric
  /// phases: see AsyncSparse_workspace.hpp. release_workspace() frees what the current factors do not use. Every
  /// par_ilut_* call waits for the device before it returns, so the next call may run on another execution space
  /// instance. Not for use from inside a Kokkos parallel region (the pool counts the Views of a buffer, and host
  /// backends do not count Views copied there). Copies of a handle share the pooled arrays and reuse none of them.
  using workspace_type = Workspace<Device, Scalar, double, offset_t, ordinal_t>;

  struct Params {
    /// ParILUT (A ≈ L U) or ParICT (symmetric A ≈ L Lᵀ; A symmetric with positive diagonal). Read by
    /// par_ilut_symbolic; par_ilut_numeric refuses a kind changed since. Default Ilut.
    ParIlutKind kind = ParIlutKind::Ilut;
    /// Most ParILUT steps par_ilut_numeric runs (>= 0); with stagnation_tolerance > 0 it stops earlier, when the
    /// steps no longer improve the factors. Each step: add candidates, sweep, select the thresholds, remove the
    /// small entries, sweep. 0 returns the initial guess (ILU(0)/IC(0) pattern, no sweep). Default 30, a cap for the
    /// stagnation rule below rather than a step count: the pattern grows by about one level of fill per step, and
    /// the matrices whose factors keep improving need many steps (bodyy5/bodyy6: 21-22 steps to the iteration
    /// count of the serial ILUT; 5 steps left ParILUT at 32 / 69 GMRES iterations against ILUT's 5 / 6).
    int max_steps = 30;
    /// Fill budget per factor: fill_in_limit × (stored entries of that factor of the ILU(0) pattern, diagonal
    /// included), > 0. The diagonal is always kept, so a budget below n keeps only the diagonal. Default 1
    /// (nnz(L + U) about nnz(A), as in the slides).
    double fill_in_limit = 1.0;
    /// Sweeps on the ILU(0) / IC(0) pattern of the initial guess before the first step, so that the steps start
    /// from (an approximation of) the fixed point ILU(0) / IC(0) of the pattern of A, as the ParILUT paper's
    /// first step intends; these factors are step 0. -1 (default): adaptive (the rule below with
    /// initial_sweep_tolerance and initial_max_sweeps); 0: the raw initial guess L0 = strict lower part + I,
    /// U0 = upper part (no sweep); k > 0: k sweeps.
    int initial_sweeps = -1;
    /// The adaptive rule of the initial phase (initial_sweeps = -1), stricter than the steps' because step 0 starts
    /// far from its fixed point and every later step starts from it: sweep again while r_k > initial_sweep_tolerance
    /// x r_1 and still falling, at most initial_max_sweeps sweeps. Measured on an H100 (asynchronous GPU sweeps
    /// converge like Jacobi sweeps, several times slower per sweep than the host's Gauss-Seidel-like ones): ParICT
    /// step 0 on gen:lap2d:1024 needs 687 PCG iterations with 0.1 (4 sweeps), 630 with 0.01 (6), 574 with 1e-3 (8;
    /// IC(0): 563); on the rotated anisotropic gen:aniso2d:24:0.001:30 1e-3 takes 26 sweeps to IC(0)'s ILU residual.
    /// On the host 1e-3 costs one sweep more than 0.1 (3 sweeps to the fixed point on those matrices).
    /// In [0, 1) (0: one sweep), default 1e-3; initial_max_sweeps >= 1, default 30.
    double initial_sweep_tolerance = 1e-3;
    int initial_max_sweeps = 30;
    /// Adaptive sweeps. A phase that sweeps adaptively (the sweeps after each removal, the final phase with
    /// final_sweeps = -1; the initial phase with initial_sweeps = -1 by the same rule with its own tolerance and
    /// limit above) computes with every sweep the nonlinear residual
    /// r_k = ||(A - L U)_S||_F / ||A||_F on the current pattern S of the factors sweep k started from, and sweeps
    /// again while r_k > sweep_tolerance × r_1 (r_1: of the first sweep of the phase, i.e. the distance from the
    /// fixed point the pattern change left) and the last sweep still reduced it (r_k < 0.95 r_{k-1}), at most
    /// max_sweeps sweeps. Stats::steps[s].sweeps and .pattern_residual report what each step did. 0: one sweep
    /// after each removal (the papers' algorithm), final_sweeps = -1 means one sweep.
    /// >= 0, < 1. Default 0.1.
    double sweep_tolerance = 0.1;
    /// Most sweeps of an adaptive phase (>= 1). Default 10.
    int max_sweeps = 10;
    /// Sweeps on the final pattern after the last step (not after par_ilut_step): 0 (default) none; -1 adaptive;
    /// k > 0 exactly k. They move the factors toward the fixed point (L U)_S = A_S of the final pattern.
    int final_sweeps = 0;
    /// Pivot strategy for tiny or non-positive pivots (in the scaled matrix, whose diagonal is 1): a ParILUT pivot
    /// with |u_ii| < pivot_tolerance is replaced by ±pivot_tolerance (the sign of u_ii, + for 0); a ParICT pivot
    /// with l_ii^2 = a_ii - sum_k l_ik^2 < pivot_tolerance (non-positive included) by pivot_tolerance, l_ii =
    /// sqrt(pivot_tolerance). Never silent: Stats::pivots_replaced (final factors) and
    /// Stats::steps[s].pivots_replaced count them. The serial references Reference::ilut_nnz / ict_nnz / ilu0 /
    /// ic0 take the same tolerance (relative to |a_ii|) for a like-for-like comparison. A non-finite update is
    /// still a breakdown. 0 disables (a non-positive ParICT pivot, a zero ParILUT pivot is a BreakdownError).
    /// >= 0, < 1. Default 1e-8 (replaces only pivots that are zero for practical purposes).
    double pivot_tolerance = 1e-8;
    /// Diagonal shift and retry (Manteuffel's shifted incomplete factorization, as Ifpack2 / hypre offer it): when
    /// par_ilut_numeric breaks down (BreakdownError) or diverges (DivergenceError) on A_s, it starts over on
    /// A_s + alpha I with alpha = diagonal_shift, then 10 alpha, 100 alpha, ... while alpha <= 1; Stats::shift is the
    /// alpha of the factors (0: none was needed) and Stats::shift_retries the restarts. The factors are then those of
    /// the shifted matrix (a preconditioner for A all the same), or, with shift_initial_only (the default), only their
    /// initial guess was. Reference::FactorOptions::diagonal_shift does the same for the serial references (whole
    /// factorization). 0 (default): no retry, the error is thrown. >= 0, < 1.
    double diagonal_shift = 0.0;
    /// With a diagonal shift alpha > 0: only the initial guess (the sweeps toward IC(0) / ILU(0) of the pattern of
    /// A) is computed for A_s + alpha I; the steps then factor A_s itself, starting from those factors. The shift is
    /// needed where IC(0) / ILU(0) does not exist (bcsstk13-15, bcsstk18, nos1, nos2), although the threshold
    /// factorization with more fill often does (serial ICT of bcsstk14 and bcsstk15 needs no shift); shifting the
    /// steps too costs quality. Where the steps on A_s break down or diverge, the numeric phase starts over at the
    /// same alpha with the shift kept for the steps too. Stats::shift_initial_only says which one the factors had.
    /// Default true; false shifts the whole phase.
    bool shift_initial_only = true;
    /// Order of the updates within a sweep. Concurrent (default): the updates of a sweep run at once, reading
    /// whatever values the others have written (asynchronous mode) or the previous sweep's (deterministic mode).
    /// Ordered: the updates run in place, each row's in order, and a row after the rows it reads: the rows are
    /// grouped in levels of L's pattern (a row's updates read its own entries to the left and rows of earlier levels
    /// only), the rows of a level run at once, runs of narrow levels in one team with a barrier between two levels,
    /// a wider level in a launch of its own (Stats::ordered_levels, Stats::ordered_launches); each row is staged in
    /// scratch memory. The values are those of the Gauss–Seidel sweep in row order up to rounding (bit for bit with
    /// one lane), in both modes (the fixed order keeps the deterministic mode reproducible): the first sweep is the
    /// exact ILU(0) / IC(0) of the pattern, a second one would repeat it, so a phase of ordered sweeps (also
    /// initial_sweeps / final_sweeps > 1) ends after one sweep without a breakdown or a replaced pivot. They
    /// converge where the concurrent sweeps diverge (structural matrices such as bcsstk15 and bcsstk18 on GPUs), at
    /// the cost of most parallelism within a sweep: on an H200 the six steps of ParICT on bcsstk15 (61,000 entries,
    /// 989 levels) take 1.4 s, against 3.8 s with one team in row order
    /// (perf_tests/results/nvidia-h200/ordered_sweeps_b33ac7e.txt). Auto: Concurrent, and where a numeric phase then
    /// breaks down or diverges it starts over, at the same diagonal shift, with Ordered sweeps, which the following
    /// shifts keep; Stats::ordered and Stats::ordered_reason report it. The preconditioners and the driver default to
    /// Auto. With ordered sweeps a breakdown in a step's last sweep ends the attempt at once (no stale values that a
    /// later step could replace), so that a failing attempt does not run all its steps first: the ParIct
    /// preconditioner's set-up on bcsstk13 took 61 s on an H200 before, 5.9 s after (same factors); on bcsstk18 7.4 s
    /// instead of 17.9 s, but with factors of the next shift (1372 instead of 79 PCG iterations with jacobi(3)
    /// triangular solves; the host's exact solves: 104 both ways). Ordered sweeps use their own launch (Stats::launch
    /// shows it); the LaunchConfig of the handle is ignored for them. par_ilut_step and pattern-reusing numeric phases
    /// keep the order of the last full numeric phase.
    SweepOrder sweep_order = SweepOrder::Concurrent;
    /// Exact (default) or Approximate threshold selection (SampleSelect with or without recursion).
    ThresholdSelection selection = ThresholdSelection::Exact;
    /// Kernel of the candidate phase (CandidateKernel; the result is the same with each). Auto (default): Bitmap
    /// when the rows gather on average at least 20 columns on GPUs, 40 on host backends (duplicates included: row
    /// i's entries in A and the rows of U, ParICT: of Lᵀ, its entries in L meet), their spans average at most 4
    /// words of 32 columns per gathered column (a badly ordered matrix spreads its rows too wide), and the widest
    /// span fits the scratch memory of one team (about 160,000 columns on CUDA, 131,072 on the host), Sort
    /// otherwise (measurements: Impl::cand_bitmap_min_gathered, Impl::cand_bitmap_max_words_per_gathered).
    /// Stats::candidate_kernel reports the kernel the last candidate phase used.
    CandidateKernel candidate_kernel = CandidateKernel::Auto;
    /// Kernel of the concurrent sweeps (ParIlutSweepKernel; the deterministic mode gives the same bits with each).
    /// Auto (default): List for the sweeps of pattern-reusing numeric phases (reuse_pattern) on GPUs with the default
    /// launch when the tasks are at least the device's resident threads and the lists hold at most 32 products per
    /// entry — they are built at the first such phase and serve every later one on the pattern (later reusing phases
    /// 0.3-1.7 ms faster on the large matrices measured); RowTeam for the other concurrent sweeps on GPUs with the
    /// default launch where the matrix has at least 0.25x the resident threads in rows and no row of L longer than
    /// the staged rows (ParILUT step on the 27-point 64^3 grid 0.82x, 5-point 1024^2 0.89x the entry kernel's);
    /// Entry otherwise (smaller matrices; host backends; explicit launch settings). Explicit List builds the lists for
    /// every pattern it sweeps. Explicit RowTeam takes the launch's vector_length (lanes per thread), chunk_size (rows
    /// per team) and team_size (threads per team) on GPUs; a row longer than the staged rows (twice the average row of
    /// L) runs its updates with the row's threads alone, which is slow for very long rows. The lists are held in the
    /// handle (State::lists) until the pattern changes or release_workspace(). Ordered sweeps have their own kernel.
    /// Stats::sweep_kernel reports the last concurrent sweep's kernel.
    ParIlutSweepKernel sweep_kernel = ParIlutSweepKernel::Auto;
    /// Stop before step s when residual(s-1) > (1 - stagnation_tolerance) × residual(s-2), i.e. when the
    /// last step improved the ILU residual by less than this fraction (>= 0; the residual of a step comes
    /// for free with the next step's candidate phase; the factors are then those of step s - 1, Stats::stagnated),
    /// or after a step that left the pattern unchanged (every candidate removed again: the pattern iteration is at
    /// a fixed point, Stats::pattern_fixed). 0: always run max_steps steps. Default 0.01, measured on the shared
    /// matrices and the generators (OpenMP, 30 steps each; perf_tests/results/MEASUREMENTS.md#parilut-steps): the
    /// rule stopped after 1-24 steps (median 3), at most 3 Krylov iterations or 2 % above the best of the 30 steps,
    /// while steps still improving the residual by more (bodyy4/5/6: 5-20 % per step for 10-20 steps) still lowered
    /// the count. Where it applies, a step that multiplied the residual by more than 2 (Impl::ilut_step_growth_limit)
    /// has diverged: DivergenceError (or the restart of diagonal_shift), not a stagnation stop.
    double stagnation_tolerance = 0.01;
    /// Async (default): the sweeps update L and U in place, as the papers' GPU codes. Deterministic:
    /// Jacobi-style double-buffered sweeps; the factors are then bit-identical across runs, thread counts
    /// and backends (the candidate, select and remove phases are deterministic in both modes).
    SweepMode mode = SweepMode::Async;
    /// Compute the residual of the final factors after the last step (one pass like a candidate phase).
    /// Default true. The residuals of the earlier steps are computed in any case (they come with the
    /// candidate phases).
    bool compute_residual = true;
    /// Divergence guard: when the ILU residual ||A - L U||_F / ||A||_F of a step's factors (A scaled to unit
    /// diagonal, so the initial guess has a residual below 1) is non-finite or exceeds this value, the fixed-point
    /// sweeps have diverged: the handle is marked not computed, Stats::diverged is set and DivergenceError names
    /// the step. Jacobi-style (deterministic) sweeps diverge on some matrices whose asynchronous (Gauss–Seidel-
    /// like) sweeps converge, e.g. bcsstk14. Deterministic mode: the residual of every step, known at the next
    /// step's candidate phase; both modes: the final residual pass (Params::compute_residual, par_ilut_residual)
    /// — asynchronous steps may blow up transiently and recover. Two more signs of divergence are judged in both
    /// modes while the guard is on: an adaptive initial phase (initial_sweeps = -1) whose first sweep did not reduce
    /// the pattern residual of the initial guess, and, where the stagnation rule applies, a step that more than
    /// doubled the ILU residual (see stagnation_tolerance). Default 1e3; 0 disables the guard.
    double divergence_tolerance = 1e3;
    /// Pattern reuse (the time-stepping use case of the iterative ILU papers): par_ilut_numeric on a handle that
    /// holds factors computed without breakdown for A's pattern keeps their pattern, rescales A and runs
    /// reuse_sweeps sweeps starting from the current factors, instead of restarting from the initial guess.
    /// Ignored when there are no such factors. Default false.
    bool reuse_pattern = false;
    /// Sweeps a pattern-reusing par_ilut_numeric runs (Params::reuse_pattern; >= 0). Default 3. Ordered sweeps
    /// (State::ordered) end after the first without a breakdown or a replaced pivot, which already leaves the exact
    /// incomplete factorization of the pattern.
    int reuse_sweeps = 3;
    /// Exact selection (ThresholdSelection::Exact) of at most this many magnitudes runs in one kernel of one team
    /// (a radix select, Impl::team_select_magnitude) instead of SampleSelect's levels, each of which waits for the
    /// device; same threshold. -1 (default): Impl::ilut_team_select_max — GPUs 32,768, host backends 0 (never:
    /// no launch latency to save there); 0: always SampleSelect.
    std::int64_t team_select_max = -1;
    /// Exact selection of more magnitudes than team_select_max and at most this many runs as one SampleSelect level
    /// and the one-team select on the bucket that holds the rank, all on the device, its result read with the other
    /// factor's in one wait (Impl::bucket_select_launch), instead of SampleSelect's levels, each of which waits for
    /// the device; same threshold. -1 (default): Impl::ilut_bucket_select_max — GPUs 2^20, host backends 0 (never:
    /// no launch latency to save there); 0: never.
    std::int64_t bucket_select_max = -1;
    /// SampleSelect parameters of the threshold selection (num_buckets, oversampling, base_case_size,
    /// counting variant, seed). `order` is ignored (always by magnitude). Default: SampleSelectParams{}.
    SampleSelectParams select;
  };

  struct Stats {
    ParIlutKind kind = ParIlutKind::Ilut;
    ordinal_t n = 0;
    offset_t nnz_A = 0;
    offset_t budget_L = 0;                ///< fill budget of L (diagonal included)
    offset_t budget_U = 0;                ///< fill budget of U (ParILUT; diagonal included)
    std::vector<ParIlutStepStats> steps;  ///< steps[0]: initial guess, steps[s]: after step s
    int steps_done = 0;
    bool stagnated = false;   ///< stopped early by stagnation_tolerance
    bool diverged = false;    ///< stopped by divergence_tolerance (DivergenceError thrown)
    int breakdown_steps = 0;  ///< asynchronous steps whose last sweep skipped a bad update
    int sweeps = 0;           ///< sweeps run by the last numeric phase
    int final_sweeps = 0;     ///< sweeps of the final phase (Params::final_sweeps)
    /// pivots replaced in the last sweep of the factors (Params::pivot_tolerance): the final factors hold that many
    /// replaced pivots
    std::int64_t pivots_replaced = 0;
    std::int64_t last_sweep_replaced = 0;  ///< pivots replaced in the most recent sweep
    bool pattern_fixed = false;            ///< stopped early: a step left the pattern unchanged (stagnation_tolerance)
    /// diagonal shift alpha of the factors, or of their initial guess (shift_initial_only; Params::diagonal_shift;
    /// 0: none)
    double shift = 0.0;
    int shift_retries = 0;                 ///< restarts with a larger shift
    std::string shift_reason;              ///< the error that made the first restart necessary
    /// the shift applied to the initial guess only: the steps factored A_s (Params::shift_initial_only)
    bool shift_initial_only = false;
    bool ordered = false;                  ///< the factors come from ordered sweeps (Params::sweep_order)
    std::string ordered_reason;            ///< SweepOrder::Auto: the error of the concurrent sweeps ("" when none)
    int ordered_levels = 0;                ///< levels of the last ordered sweep (0: none)
    int ordered_launches = 0;              ///< kernel launches of the last ordered sweep
    std::vector<double> residual_history;  ///< steps[s].residual for s = 0..steps_done (where computed)
    double symbolic_seconds = 0.0;         ///< last par_ilut_symbolic
    double setup_seconds = 0.0;            ///< checks, scaling, initial guess
    double total_seconds = 0.0;            ///< whole last par_ilut_numeric
    bool reused_pattern = false;           ///< the last numeric phase reused the factor pattern (reuse_pattern)
    int updates = 0;                       ///< pattern-reusing numeric phases since the last full one
    ResolvedLaunch launch;                 ///< launch of the sweeps
    /// kernel of the last concurrent sweep (Params::sweep_kernel resolved), the rule's quantities, the products its
    /// lists hold (List; else 0) and how many of them a thread loads at a time (Impl::list_gather_group; else 1)
    ParIlutSweepKernel sweep_kernel = ParIlutSweepKernel::Entry;
    std::string sweep_kernel_rule;
    std::int64_t sweep_products = 0;
    int sweep_gather_group = 1;
    /// Entry: the dot products of the last concurrent sweep walked the exact stretches left of each update's bound
    /// with its lanes (Impl::ilut_exact_stretches: ParILUT, more than one lane, rows of L longer than the lanes)
    bool sweep_exact_stretches = false;
    /// kernel of the last candidate phase (Params::candidate_kernel resolved) and the widest column span of a row
    /// of its pattern in words of 32 columns (0: not computed: Sort chosen explicitly, or by Auto for too few
    /// gathered columns)
    CandidateKernel candidate_kernel = CandidateKernel::Auto;
    std::int64_t candidate_span_words = 0;
    double candidate_gathered_per_row = -1.0;  ///< Auto rule: columns gathered per row (-1: not computed)
    double candidate_mean_span_words = -1.0;   ///< Auto rule: mean row span in 32-column words (-1: not computed)
    SampleSelectStats last_select;             ///< statistics of the last SampleSelect (n = 0: the one-team select ran)
    /// working arrays: device allocations and reuses since the last numeric phase began (par_ilut_step calls after
    /// it included), bytes the handle's pool holds (the factors included), the most bytes in use at once
    WorkspaceStats workspace;
  };

  /// Factors in their working layout (implementation detail, public for the kernels in AsyncSparse::Impl).
  /// CSR with a COO row array and, per entry, the position of the same entry in the scaled A (-1: fill).
  struct Factor {
    offset_view ptr;
    ordinal_view col, row;
    offset_view apos;
    value_view val, val2;  ///< val2: second buffer of the deterministic sweeps
    offset_t nnz = 0;
  };
  struct State {
    bool symbolic = false;  ///< par_ilut_symbolic done
    bool ready = false;     ///< factors computed without breakdown
    ParIlutKind kind = ParIlutKind::Ilut;
    ordinal_t n = 0;
    offset_t nnz_A = 0;
    typename crs_type::row_map_type a_row_map;  ///< pattern of A of the last compute
    typename crs_type::index_type a_entries;
    value_view a_val;      ///< scaled values of A
    value_view s;          ///< scaling: A_s = diag(s) A diag(s)
    double shift = 0.0;    ///< the factors (or their initial guess: shift_released) are of A_s + shift I
    /// the initial guess had the shift, a_val no longer does (Params::shift_initial_only)
    bool shift_released = false;
    bool ordered = false;  ///< the sweeps run in order (Params::sweep_order)
    /// incremented whenever the pattern of L or U changes (initial guess, candidates, removal in either factor): the
    /// key of `schedule` and of `lists`
    std::int64_t pattern_generation = 0;
    /// Level schedule of the ordered sweeps (Impl::ilut_ordered_schedule): the rows by level of the dependency graph
    /// of L's pattern, level l = rows[level_ptr[l] .. level_ptr[l + 1]); built for pattern `generation`.
    struct OrderedSchedule {
      std::int64_t generation = -1;
      std::vector<offset_t> level_ptr;
      ordinal_view rows;
      offset_view level_ptr_d;  ///< level_ptr on the device
      offset_t max_row = 0;     ///< the most entries of a row of L
    } schedule;
    /// The most entries of a row of L and the most updates of a row (ParILUT: strict L entries and U entries of
    /// the row) on pattern `generation` (Impl::ilut_longest_row; -1: not computed)
    struct LongestRow {
      std::int64_t generation = -1;
      offset_t entries = 0;
      offset_t tasks = 0;
    } longest_l;
    double a_norm2 = 0.0;  ///< ||A_s||_F^2
    /// ParILUT: L by rows (unit diagonal last), U by rows (pattern only, diagonal first; umap: position of each
    /// entry in Ut), Ut = U by columns (row k of Ut is column k of U, diagonal last) holding U's values.
    /// ParICT: L by rows (diagonal last) holds the factor; U/Ut unused.
    Factor L, U, Ut;
    Factor L0, U0;  ///< pattern of the initial guess (ILU(0) / IC(0) of A), built by the symbolic phase
    offset_view umap;
    offset_view tasks;  ///< ParILUT task list: entries of L (strict, < nnz_L) and U (nnz_L + q), row-major
    /// of the current sweep, and a step's new-entry counts (Impl::ilut_status reads it)
    Kokkos::View<ParIlutSweepStatus, Device> status;
    ParIlutSweepStatus status_host;  ///< status as last read
    /// status_host equals status (no sweep, reset or count_new reduction since the last read)
    bool status_current = true;
    SampleSelectHandle<Scalar, Device> select;
    workspace_type work{};                            ///< pooled working arrays (the factors' arrays come from it too)
    /// results of Impl::team_select_launch (8 entries: L's, then U's)
    Kokkos::View<std::int64_t*, Device> team_select;
    /// the buckets of Impl::bucket_select_launch (Impl::kBucketEntries entries per factor: L's, then U's)
    Kokkos::View<std::int64_t*, Device> bucket_select;
    /// Product lists of the list sweeps (Impl::ilut_product_lists) for pattern `generation` (-1: none; ptr empty
    /// after the pattern had too many products); released when the pattern changes.
    struct ProductLists {
      std::int64_t generation = -1;
      offset_view ptr, px, py;
      std::int64_t products = 0;
    } lists;
  };

  ParIlutHandle() = default;
  explicit ParIlutHandle(ParIlutKind kind) { params.kind = kind; }
  explicit ParIlutHandle(const Params& p) : params(p) {}

  Params params;
  /// Launch of the sweeps (LaunchConfig: team_size, vector_length = lanes per entry, chunk_size = entries per
  /// work block, max_concurrent_teams, block_order, seed). The task list is row-major (the Gaussian
  /// elimination order of Chow, Anzt & Dongarra 2015). Deterministic mode uses one lane per entry. Default lanes
  /// on GPUs: Impl::ilut_sweep_lanes (1 on large matrices, up to 8 on small ones, by the entries per resident
  /// thread of the device; measured), on host backends 1; Stats::launch reports what a sweep used.
  /// The counting kernel of the threshold selection uses `select_launch`.
  LaunchConfig launch;
  LaunchConfig select_launch;

  const Stats& stats() const { return stats_; }
  Stats& stats() { return stats_; }
  bool symbolic_done() const { return st_.symbolic; }
  /// Factors computed without breakdown by the last numeric phase (or step).
  bool is_computed() const { return st_.ready; }
  /// Kind the symbolic phase was done for.
  ParIlutKind kind() const { return st_.kind; }
  ordinal_t num_rows() const { return st_.n; }
  /// s of the scaling A_s = diag(s) A diag(s) the factors belong to.
  const value_view& scaling() const { return st_.s; }

  /// Frees the pooled working arrays that the current factors do not use, the product lists of the list sweeps
  /// among them (the next numeric phase allocates them again). The pool holds about as much as the most working
  /// arrays a step had in use at once, and the lists where a pattern-reusing phase built them.
  void release_workspace() {
    st_.lists = {};
    st_.work.release_free();
  }

  State& state() { return st_; }
  const State& state() const { return st_; }

 private:
  State st_;
  Stats stats_;
};

}  // namespace AsyncSparse
