// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — handle of the iterative (Chow–Patel) ILU / IC factorization: parameters, launch
// configuration, statistics, and the factors and workspace it owns.
//
// The algorithm and the free functions that use this handle are in AsyncSparse_par_ilu.hpp (Chow, Anzt &
// Dongarra, "Asynchronous iterative algorithm for computing incomplete factorizations on GPUs", 2015; Chow &
// Patel, "Fine-grained parallel incomplete LU factorization", SISC 2015).
//
// Life cycle: par_ilu_symbolic (pattern S, task list, storage; host work, once per pattern), par_ilu_numeric
// (scaling, initial guess, sweeps; device only, once per set of values), optionally par_ilu_sweep for more
// sweeps. The parameters that shape the pattern and the task list (kind, fill_level, ordering, mesh,
// ordering_seed) are read by par_ilu_symbolic; the others by par_ilu_numeric / par_ilu_sweep.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/exec/AsyncSparse_chunked_launch.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_kind.hpp>
#include <asyncsparse/factorization/AsyncSparse_task_list.hpp>

namespace AsyncSparse {

/// How a sweep runs.
enum class SweepMode {
  Async,         ///< in place, updates visible to the rest of the sweep at once (the paper's GPU method)
  Deterministic  ///< Jacobi style: read the previous sweep's factors, write new ones; bit-reproducible
};

inline const char* to_string(SweepMode m) { return m == SweepMode::Async ? "async" : "deterministic"; }
/// Which kernel runs a sweep (Params::sweep_kernel).
enum class SweepKernel {
  Auto,      ///< the measured rule Impl::choose_sweep_kernel
  Entry,     ///< one thread per unknown, in task-list order, merging two index lists (the paper's kernel)
  List,      ///< the entry kernel over each unknown's product list (vector lanes per unknown)
  Row,       ///< one group of vector lanes per row, its unknowns left to right (ParIluRowSweepFunctor)
  RowMerge,  ///< one thread per row, its unknowns left to right, merging index lists (ParIluRowMergeSweepFunctor)
  RowTeam    ///< rows staged in team memory, a thread per unknown (ParIluRowTeamSweepFunctor; asynchronous mode only)
};

inline const char* to_string(SweepKernel k) {
  switch (k) {
    case SweepKernel::Auto:
      return "auto";
    case SweepKernel::Entry:
      return "entry";
    case SweepKernel::List:
      return "list";
    case SweepKernel::Row:
      return "row";
    case SweepKernel::RowMerge:
      return "row_merge";
    case SweepKernel::RowTeam:
      return "row_team";
  }
  return "unknown";
}

/// Whether a sweep kernel's work units are rows (the row, row-merge and row-team kernels; the others' are the tasks).
constexpr bool sweeps_by_rows(SweepKernel k) {
  return k == SweepKernel::Row || k == SweepKernel::RowMerge || k == SweepKernel::RowTeam;
}
/// Whether a sweep kernel sums over product lists built once per pattern (the row and list kernels).
constexpr bool uses_product_lists(SweepKernel k) { return k == SweepKernel::Row || k == SweepKernel::List; }

inline SweepKernel sweep_kernel_from_string(const std::string& s) {
  if (s == "auto") return SweepKernel::Auto;
  if (s == "entry") return SweepKernel::Entry;
  if (s == "list") return SweepKernel::List;
  if (s == "row") return SweepKernel::Row;
  if (s == "row_merge") return SweepKernel::RowMerge;
  if (s == "row_team") return SweepKernel::RowTeam;
  throw InvalidInput("sweep kernel '" + s + "' unknown (valid: auto, entry, list, row, row_merge, row_team)");
}

/// In which order a sweep runs its fixed-point updates (ParIluHandle::Params::sweep_order,
/// ParIlutHandle::Params::sweep_order; each says where Auto switches).
enum class SweepOrder {
  Concurrent,  ///< all at once, as many as the backend runs in parallel (the papers' algorithm)
  Ordered,     ///< the entries in row order (Gaussian elimination order), level by level: Gauss–Seidel sweeps
  Auto         ///< Concurrent; where that breaks down or diverges, Ordered (the handle's Params say where)
};

inline const char* to_string(SweepOrder o) {
  return o == SweepOrder::Concurrent ? "concurrent" : o == SweepOrder::Ordered ? "ordered" : "auto";
}
inline SweepOrder sweep_order_from_string(const std::string& s) {
  if (s == "concurrent") return SweepOrder::Concurrent;
  if (s == "ordered") return SweepOrder::Ordered;
  if (s == "auto") return SweepOrder::Auto;
  throw InvalidInput("sweep order '" + s + "' unknown (valid: concurrent, ordered, auto)");
}

inline SweepMode sweep_mode_from_string(const std::string& s) {
  if (s == "async") return SweepMode::Async;
  if (s == "deterministic") return SweepMode::Deterministic;
  throw InvalidInput("sweep mode '" + s + "' unknown (valid: async, deterministic)");
}

namespace Impl {
/// The end of every DivergenceError message of the fixed-point factorizations, with a hint for the deterministic
/// mode.
inline std::string divergence_cause(SweepMode mode) {
  std::string msg = ": the fixed-point sweeps diverge on this matrix";
  if (mode == SweepMode::Deterministic)
    msg += " (the Jacobi-style deterministic sweeps diverge on matrices where the asynchronous ones may converge)";
  return msg;
}

/// Message of the DivergenceError of the fixed-point factorizations: "<quantity> = <value> after <when>
/// exceeds divergence_tolerance <tol>: ..." (or "is not finite"), with a hint for the deterministic mode.
inline std::string divergence_message(const char* quantity, double value, const std::string& when, double tol,
                                      SweepMode mode) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s = %.3e after %s %s %.3g", quantity, value, when.c_str(),
                std::isfinite(value) ? "exceeds divergence_tolerance" : "is not finite; divergence_tolerance", tol);
  return std::string(buf) + divergence_cause(mode);
}
}  // namespace Impl

template <class Scalar, class Device>
class ParIluHandle {
 public:
  using scalar_type = Scalar;
  using device_type = Device;
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  using crs_type = Crs<Scalar, Device>;
  using value_view = Kokkos::View<Scalar*, Device>;
  using crs_values = typename crs_type::values_type;

  struct Params {
    /// ILU or IC. Default Ilu. IC needs a symmetric matrix with positive diagonal.
    ParIluKind kind = ParIluKind::Ilu;
    /// Sweeps par_ilu_numeric runs (>= 0; 0 keeps the initial guess). Default 5 (the paper's Table 2: a few
    /// sweeps give a preconditioner as good as the exact factorization).
    int sweeps = 5;
    /// Stop par_ilu_numeric early once the relative nonlinear residual is <= tolerance (>= 0). Default 0: never
    /// (run exactly `sweeps` sweeps).
    double tolerance = 0.0;
    /// Compute the nonlinear residual (Stats::residual_history) every this many sweeps (>= 0). Default 0: only
    /// when tolerance > 0, then after every sweep. Each check costs about one sweep.
    int residual_interval = 0;
    /// Divergence guard on the residual checks (tolerance / residual_interval): a relative nonlinear residual
    /// above this value, or a non-finite one, means the fixed-point sweeps diverge (Jacobi-style deterministic
    /// sweeps do on some matrices, e.g. bcsstk14): the numeric phase is marked incomplete, Stats::diverged is
    /// set and DivergenceError names the sweep. Deterministic mode: every check; asynchronous mode: only a check
    /// of the final factors of the call (sweeps a multiple of residual_interval), since stale values can blow up
    /// transiently and recover. The initial guess of the scaled A has a residual below 1. Default 1e3; 0
    /// disables it. Without residual checks nothing is checked.
    double divergence_tolerance = 1e3;
    /// Async (default, the paper's method) or Deterministic (Jacobi-style double buffering, reproducible).
    SweepMode mode = SweepMode::Async;
    /// Task-list ordering (AsyncSparse_task_list.hpp). Default RowMajor (the Gaussian-elimination order).
    TaskOrdering ordering = TaskOrdering::RowMajor;
    /// Mesh and block size for TaskOrdering::MeshBlocked. Default: none.
    MeshBlocking mesh;
    /// Seed of TaskOrdering::Random. Default 0.
    std::uint64_t ordering_seed = 0;
    /// Level of fill k of the pattern S = ILU(k) pattern of A (symbolic phase Reference::iluk_pattern on the
    /// host). Default 0: S = pattern of A.
    int fill_level = 0;
    /// Start par_ilu_numeric from the factors of the previous numeric phase (same pattern; the time-stepping use
    /// case) instead of the paper's initial guess. Ignored when there are none. Default false.
    bool reuse_factors = false;
    /// Scale A symmetrically to unit diagonal first, S A S with s_i = 1/sqrt(|a_ii|) (the paper's setting; the
    /// factors are those of S A S). Default true. With false the factors are those of A itself.
    bool scale = true;
    /// Asynchronous mode: throw BreakdownError when updates had to be skipped (zero / non-positive pivot,
    /// non-finite value) in this many consecutive sweeps (>= 1), or 0: never early, only when the last sweep
    /// still skipped one. Default 0, as Ginkgo's ParIC/ParILU, which skip such updates and go on: a bad pivot
    /// computed from stale values (or in an early, far-from-converged sweep) often disappears later. The
    /// deterministic mode throws at the first breakdown.
    int breakdown_patience = 0;
    /// Tail guard of the asynchronous sweeps (> 0: on). After the `sweeps` sweeps of par_ilu_numeric, while the
    /// relative nonlinear residual ||(A_s - L U)_S||_F / ||(A_s)_S||_F is above guard_tolerance, one more sweep
    /// runs, at most guard_max_sweeps of them (Stats::guard_sweeps, Stats::guard_residual). A run whose factors
    /// stale values left farther from the fixed point than usual gets the sweeps it lacks, so the worst run of
    /// many is bounded by the tolerance, not by chance. Each check costs about one sweep (one check when the
    /// residual is already low enough). Not applied by par_ilu_sweep. Default 0: off.
    double guard_tolerance = 0.0;
    /// Most sweeps the guard adds (>= 0). Default 20.
    int guard_max_sweeps = 20;
    /// Kernel of the sweeps: Entry (one thread per unknown, in task-list order), List (the same over each unknown's
    /// product list, built once per pattern: vector_length lanes per unknown), Row (vector lanes per row, the
    /// unknowns of a row left to right, the task-list order not used; the LaunchConfig then counts rows: team_size
    /// rows per team, vector_length lanes per row), RowMerge (one thread per row, its unknowns left to right, each
    /// sum by merging index lists as Entry does: no product lists; the LaunchConfig counts rows, one lane), RowTeam
    /// (rows staged in team memory, each unknown summed by a thread's lanes over the other operand's row: no product
    /// lists; asynchronous mode only, InvalidInput otherwise; see ParIluHandle::launch) or Auto
    /// (Impl::choose_sweep_kernel, a rule measured per backend and matrix size; Stats::sweep_kernel says which ran).
    /// Read by par_ilu_numeric. Default Auto.
    SweepKernel sweep_kernel = SweepKernel::Auto;
    /// Diagonal shift and retry (Manteuffel's shifted incomplete factorization, as Ifpack2 / hypre / PETSc offer
    /// it): when par_ilu_numeric breaks down (BreakdownError: the last sweep still met a bad pivot) or diverges
    /// (DivergenceError), it starts over from the paper's initial guess on A_s + alpha diag(A_s) (the diagonal grown
    /// away from zero; = A_s + alpha I for the default scaling) with alpha = diagonal_shift, then 10 alpha, 100 alpha,
    /// ... while alpha <= 1. The residual functions then measure the shifted matrix, except par_ilu_ilu_residual (A_s).
    /// Stats::shift is the alpha of the factors (0: none was needed), Stats::shift_retries the restarts and
    /// Stats::shift_reason the error of A_s. The factors are then those of the shifted matrix (a preconditioner for
    /// A all the same); the same sequence as Reference::FactorOptions::diagonal_shift and ParIlutHandle. When no
    /// shift helps, the error of A_s is thrown, naming the shifts tried and the last error. Each numeric phase starts
    /// at alpha = 0 again (with reuse_factors: from the stored factors). 0: no retry. [0, 1). Default 0 (the
    /// preconditioners ParIlu / ParIc set their own default: see their parameter "diagonal_shift").
    double diagonal_shift = 0.0;
    /// Order of the updates within a sweep. Concurrent (default): the papers' sweeps (Params::mode, sweep_kernel).
    /// Ordered: one Gauss–Seidel sweep, each row's updates in order and a row after the rows it reads (IC: rows j
    /// with l_ij in L; ILU: also rows k with u_ki in U): the rows are grouped in levels, the rows of a level run at
    /// once (a thread each, the row-merge kernel's row update), runs of narrow levels in one team with a barrier
    /// between two levels, a wider level in a launch of its own (Stats::ordered_levels, ordered_launches). That
    /// one sweep leaves the exact IC(0) / ILU(0) of the pattern (of the shifted matrix after a restart), the same
    /// in both modes; `sweeps`, `tolerance`, the guard and the breakdown tail do not apply, and a skipped update
    /// throws BreakdownError at once. The ordered sweep gives up most of the parallelism: on GPUs it is a chain of
    /// levels (ParICT's ordered sweeps of its first step took 35-37 ms on bcsstk13 and bcsstk15 on an H200, whose
    /// patterns have 600-1,000 levels: perf_tests/results/nvidia-h200/ordered_sweeps_b33ac7e.txt; ParIC's have not
    /// been timed on a GPU yet). par_ilu_sweep after an ordered numeric phase runs the row-merge kernel with its
    /// default launch (Params::sweep_kernel and ParIluHandle::launch apply again from the next numeric phase).
    /// Auto: Concurrent, and where an attempt's concurrent sweeps break down or diverge, the ordered sweep at the same
    /// shift (Stats::ordered, Stats::ordered_reason): on host backends from the first such attempt on, the later shifts
    /// keeping it (as ParIlut's Auto), on GPUs only for the attempt whose failure would end the numeric phase (the
    /// last diagonal shift, or the only attempt without restarts), a rescue that costs nothing where the concurrent
    /// sweeps succeed (Impl::par_ilu_attempt_in_order, perf_tests/results/MEASUREMENTS.md#ordered-rescue).
    /// par_ilu_sweep runs concurrent sweeps in every case. The preconditioners ParIc / ParIlu default to Auto.
    SweepOrder sweep_order = SweepOrder::Concurrent;
  };

  struct Stats {
    int sweeps = 0;                        ///< sweeps run since the last par_ilu_numeric began
    std::vector<int> residual_sweeps;      ///< sweep count at which each residual_history entry was taken
    std::vector<double> residual_history;  ///< relative nonlinear residuals (see Params::residual_interval)
    bool converged = false;                ///< the tolerance was reached
    bool diverged = false;                 ///< a residual check exceeded Params::divergence_tolerance
    double symbolic_seconds = 0;           ///< last par_ilu_symbolic
    double setup_seconds = 0;              ///< last numeric phase before its first sweep (checks, scaling, guess)
    double sweep_seconds = 0;              ///< all sweeps since the last numeric phase began
    double residual_seconds = 0;           ///< residual checks since the last numeric phase began
    /// seconds of each sweep; sweeps run back to back without checks between them (asynchronous mode, no
    /// residual checks, breakdown_patience 0: up to 8 with one wait) each get their batch's time divided evenly
    std::vector<double> sweep_times;
    offset_t nnz_S = 0;                    ///< entries of the pattern S (the whole pattern, also for IC)
    offset_t nnz_L = 0;                    ///< stored entries of L (diagonal included)
    offset_t nnz_U = 0;                    ///< stored entries of U (diagonal included; 0 for IC)
    std::int64_t num_tasks = 0;            ///< unknowns updated per sweep (task-list length)
    int breakdown_sweeps = 0;              ///< sweeps that skipped an update (see Params::breakdown_patience)
    int consecutive_breakdowns = 0;        ///< of them, how many directly before the current state
    /// sweeps added because the last shift's last sweep still skipped an update (Impl::sweep_out_breakdown), in
    /// `sweeps` too
    int breakdown_tail_sweeps = 0;
    std::int64_t breakdown_row = -1;       ///< row of the last skipped update (-1: none)
    std::string breakdown_problem;         ///< what went wrong there
    ResolvedLaunch launch;                 ///< launch used by the sweeps (work items: tasks, or rows for Row)
    SweepKernel sweep_kernel = SweepKernel::Entry;  ///< kernel of the sweeps (Params::sweep_kernel resolved)
    std::string sweep_kernel_rule;                  ///< why (Auto: the rule's quantities; otherwise "explicit")
    std::int64_t sweep_products = 0;                ///< List, Row: products in the lists of all unknowns (else 0)
    int sweep_gather_group = 1;  ///< List: products loaded at a time per thread (Impl::list_gather_group; else 1)
    int guard_sweeps = 0;                  ///< sweeps the guard added (Params::guard_tolerance), in `sweeps` too
    double guard_residual = -1;            ///< relative nonlinear residual the guard ended with (-1: guard off)
    double shift = 0.0;                    ///< diagonal shift of the factors (Params::diagonal_shift; 0: none)
    int shift_retries = 0;                 ///< restarts with a larger shift
    std::string shift_reason;              ///< the error that made the first restart necessary
    bool ordered = false;  ///< the last attempt ran the ordered sweep (Params::sweep_order; after success its factors)
    std::string ordered_reason;  ///< SweepOrder::Auto: the concurrent sweeps' error ("" when none)
    int ordered_levels = 0;      ///< levels of the last ordered sweep (0: none)
    int ordered_launches = 0;    ///< kernel launches of the last ordered sweep
  };

  /// Internal state shared with the functions of AsyncSparse_par_ilu.hpp. Not part of the stable interface.
  struct State {
    bool symbolic = false;        ///< par_ilu_symbolic done
    bool has_factors = false;     ///< L (and Ut) hold factors (of the scaling in `s_factors`)
    bool numeric = false;         ///< par_ilu_numeric completed without error
    bool user_guess = false;      ///< par_ilu_set_factors stored an (unscaled) initial guess
    bool identity_tasks = false;  ///< IC: task t updates L entry t (row-major task list)
    ParIluKind kind = ParIluKind::Ilu;
    ordinal_t n = 0;
    offset_t nnz_A = 0;
    typename crs_type::row_map_type a_row_map;  ///< pattern of A at the symbolic phase
    typename crs_type::index_type a_entries;
    Kokkos::View<ordinal_t*, Device> task_row, task_col;
    Kokkos::View<offset_t*, Device> task_dst;              ///< position of the unknown in L (ILU: i > j, IC) or in Ut
    Kokkos::View<offset_t*, Device> task_src;              ///< position of a_ij in A, -1 for fill entries
    value_view task_a;                                     ///< scaled a_ij in task order (0 for fill entries)
    Kokkos::View<offset_t*, Device> sym_lower, sym_upper;  ///< IC: positions of a_ij and a_ji (i > j) in A
    crs_type L, Ut;                                        ///< L by rows, U by columns (ILU)
    crs_values L_alt, Ut_alt;                              ///< second buffers of the deterministic mode
    crs_values a_scaled;                                   ///< S A S on A's pattern
    value_view s, s_factors;                               ///< current scaling; scaling of the stored factors
    /// The sweep kernels' breakdown words (min of 4 * row + problem over skipped updates, kNoBreakdown when none):
    /// one per sweep of a batch (Impl::sweep_batch; one_sweep: a batch of one). They hold kNoBreakdown between
    /// operations (whoever reads a problem resets them): the symbolic phase's checks and the numeric phase's value
    /// checks use the first as their verdict word before any sweep (Impl::report_verdict).
    Kokkos::View<unsigned long long*, Device> breakdown_words;
    Kokkos::View<offset_t*, Device> u_map, lt_map;  ///< gather maps of U = transpose(Ut), Lᵀ = transpose(L)
    crs_type U, Lt;
    ChunkedLaunch<execution_space> chunks;  ///< launch of the sweep kernel (over tasks, or over rows for Row)
    SweepKernel kernel = SweepKernel::Entry;  ///< the kernel the sweeps run (Params::sweep_kernel resolved)
    value_view a_l, a_u;                      ///< Row: scaled a_ij per L entry and per Ut entry (ILU)
    int gather_group = 1;                     ///< List: Stats::sweep_gather_group
    /// RowTeam: the longest row of L and Ut (once per pattern: Impl::row_team_longest_row; 0 until then), rows per
    /// team, threads per row, and the scratch level of the staged rows (Impl::prepare_row_team, every numeric phase
    /// that runs the kernel)
    int row_team_max_row = 0, row_team_rows = 1, row_team_threads = 1, row_team_scratch_level = 0;
    /// numeric phases completed on this pattern since par_ilu_symbolic (SweepKernel::Auto: the row-team kernel only
    /// for the first)
    int numeric_phases = 0;
    /// List, Row: the product list of every unknown (Impl::SweepPairsFunctor), built at the first numeric phase
    /// that needs it after par_ilu_symbolic; empty otherwise.
    Kokkos::View<offset_t*, Device> pair_ptr, pair_x, pair_y;
    /// Level schedule of the ordered sweep (Impl::par_ilu_ordered_schedule), built at its first use after
    /// par_ilu_symbolic: rows by level, level bounds on the host and the device (empty until then).
    struct OrderedSchedule {
      std::vector<offset_t> level_ptr;
      Kokkos::View<ordinal_t*, Device> rows;
      Kokkos::View<offset_t*, Device> level_ptr_d;
    } schedule;
  };

  ParIluHandle() = default;
  explicit ParIluHandle(ParIluKind kind) { params.kind = kind; }

  Params params;
  /// Launch of the sweeps: team size, chunk size (tasks per work block), max_concurrent_teams (occupancy,
  /// the paper's Table 5), block_order (forward / backward / random execution of the blocks, Table 3), seed.
  /// Defaults: see LaunchConfig (-1 = choose per backend), except that on GPUs the entry kernel's team size defaults
  /// to 16 threads (Impl::kParIluGpuTeamSize: fewer tasks in flight give better factors after few sweeps; it runs one
  /// lane per task, a vector_length > 1 is refused), the list kernel (Params::sweep_kernel) takes one lane per task
  /// and 64 threads per team (Impl::kParIluListGpuTeamThreads), the row kernel counts rows: Impl::row_sweep_lanes
  /// lanes per row, 128 threads per team, and the row-merge kernel counts rows with one lane each (a vector_length > 1
  /// is refused): on GPUs 128 rows per team, on host backends chunks of about Impl::kParIluHostChunkUnknowns
  /// unknowns (the host default for row-major tasks). The row-team kernel takes team_size threads per team (GPU
  /// default 128), Impl::kParIluRowTeamGpuThreadsPerRow of them per row (host backends: one), vector_length lanes per
  /// thread (default one); chunk_size, max_concurrent_teams and block_order do not apply to it.
  LaunchConfig launch;

  const Stats& stats() const { return stats_; }
  Stats& stats() { return stats_; }
  bool symbolic_done() const { return st_.symbolic; }
  bool numeric_done() const { return st_.numeric; }
  ordinal_t num_rows() const { return st_.n; }
  /// Kind the symbolic phase was done for.
  ParIluKind kind() const { return st_.kind; }

  /// L of the (scaled) factorization, rows sorted, diagonal last: unit diagonal for ILU, positive for IC. The
  /// values View belongs to the handle and changes with every sweep.
  const crs_type& L() const { return st_.L; }
  /// Column storage of U (ILU): row j holds column j of U (rows k <= j sorted, u_jj last).
  const crs_type& U_columns() const { return st_.Ut; }
  /// s of the scaling S A S (ones when Params::scale is false). After a numeric phase that threw InvalidInput for
  /// A's values it may hold part of the new scaling (the checks compute it in the same pass); the factors keep theirs.
  const value_view& scaling() const { return st_.s; }

  State& state() { return st_; }
  const State& state() const { return st_; }

 private:
  State st_;
  Stats stats_;
};

}  // namespace AsyncSparse
