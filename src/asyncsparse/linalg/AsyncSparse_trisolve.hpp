// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — sparse triangular solves for the incomplete-factorization preconditioners.
//
// TriangularSolver solves (R T C) x = b for a sparse lower or upper triangular matrix T in CSR form with sorted
// rows and the diagonal stored (the last entry of each row of a lower, the first entry of each row of an upper
// triangular matrix; for a unit-diagonal solve the stored diagonal value is ignored and 1 used), and optional
// diagonal scalings R = diag(row_scale), C = diag(col_scale) (empty: identity). The scalings are folded into the
// solver's copy of the values once per setup, so that a preconditioner S U^{-1} L^{-1} S, which equals
// (U S^{-1})^{-1} (S^{-1} L)^{-1}, needs no vector scaling passes. The modes (TriSolveKind,
// AsyncSparse_trisolve_rule.hpp) are:
//
//  * Exact: the exact solution. ExactAlgorithm::Auto runs, on GPUs, the level sets of a triangle small enough for
//    one team's scratch memory in one launch of one team (ExactAlgorithm::OneTeam,
//    Impl::ExactOneTeam: a team barrier per level instead of a launch or a device-wide wait; level sets found once
//    per pattern), else cuSPARSE SpSV on CUDA (float/double; analysis once per pattern, values updated without a
//    new analysis) and Kokkos-Kernels sptrsv with level sets (algorithm SEQLVLSCHD_TP1, one launch per level) on
//    other GPUs; plain forward / backward substitution in one thread on host backends, where the per-level
//    synchronisation of a level-set solve dominates (a 2D Laplacian of 1024^2 rows has 2047 levels of ~500 rows).
//    set_exact_algorithm() / TriSolveOptions choose explicitly.
//  * Jacobi: k Jacobi sweeps x_{j+1} = D^{-1} (b - (T - D) x_j) from x_0 = D^{-1} b, the iterative triangular
//    solve of Chow & Patel (SISC 2015, sect. 4) and Anzt, Chow & Dongarra (Euro-Par 2015). D^{-1}(T - D) is
//    nilpotent, so n sweeps give the exact solution; a few usually make as good a preconditioner. Fused: one
//    kernel per sweep, x_0 formed inside the first sweep, the sweeps alternating between x and one work vector
//    so that the last one writes x (k = 0: one kernel, x = D^{-1} b); on GPUs a thread per row where the rows are short
//    or many (Impl::jacobi_sweep_rows), else a lane group per row. solve_dot: the last sweep one thread per row and
//    d·x summed in it (GPUs, short rows; a preconditioned CG's rᵀz).
//  * JacobiAdaptive: the same sweeps, at most `sweeps` of them, stopping once the triangular residual
//    ||b - T x_j||_2 has dropped to `tolerance` times that of x_0 or a check finds it above `stagnation` times
//    its value at the previous check. The residual of x_j falls out of sweep j + 1 (its row sums are those of
//    the residual), so a check costs no extra pass over T — but it is a device-to-host transfer that waits for
//    the sweep (on a GPU about the time of a sweep of a mid-sized matrix), every `check_interval` sweeps. Fixed
//    sweeps launch without waiting and are usually faster on GPUs; the adaptive mode saves sweeps where the
//    needed count varies or is unknown. When the last sweep lands in the work vector, one copy follows. The
//    number of sweeps can differ between solves, so the preconditioner is not exactly the same linear operator
//    each time (it is, up to the tolerance).
//  * Isai: x = M b, M the incomplete sparse approximate inverse of T (Anzt, Huckle, Bräckle & Dongarra, Parallel
//    Computing 2018) on the pattern of |T|^k (TriSolveOptions::isai_power; the default rule isai_power_rule takes
//    k = 2 for short rows, else T's own pattern; rows longer than Impl::kIsaiPowerMaxRowEntries keep their own):
//    row i of M solves M(i, J) T(J, J) = e_i^T on J = the columns of row i of that pattern (Impl::isai_compute; no
//    row-length limit; Impl::isai_pattern_power forms the pattern once at setup). Setup: one kernel per set of
//    values (GPUs: a row per group of lanes, Impl::isai_lanes). Solve: one product, on GPUs for rows of up to
//    Impl::kRowSpmvMaxAvgNnz entries on average the row-per-thread kernel (Impl::spmv_dot; solve_dot() also reduces
//    dᵀx in that pass, a Krylov solver's rᵀz, up to Impl::kFusedReductionMaxRows rows), else Kokkos-Kernels' spmv;
//    with `sweeps` = s > 0, s steps x += M (b - T x) follow (two passes each). M is exact when T^{-1} has M's pattern.
//    TriSolveOptions::isai_precision: the product may read a single-precision copy of M's values (by default on
//    GPUs; then always the library's product, Impl::spmv_dot).
//  * Auto: resolved at setup by choose_tri_solve() (AsyncSparse_trisolve_rule.hpp); stats().reason says why.
//
// Input checks: setup() throws InvalidInput for a non-square matrix, a row whose diagonal is not stored at the
// expected position, an entry on the wrong side of the diagonal, unsorted or duplicate columns, non-finite
// off-diagonal values and bad options; BreakdownError (with the row) for a zero or non-finite diagonal of a
// non-unit solve, and for an ISAI row that overflows. update_values() repeats the value checks. With defer_verdict
// (FactorApply) a Jacobi solver's checks are read later, by take_pending_verdicts or the next call that needs them.
#pragma once

#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_sptrsv.hpp>
#include <Kokkos_Core.hpp>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/exec/AsyncSparse_scalar_readback.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#include <asyncsparse/linalg/AsyncSparse_cusparse_spsv.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>
#include <asyncsparse/linalg/AsyncSparse_krylov_kernels.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve_rule.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve_types.hpp>
#include <asyncsparse/linalg/impl/AsyncSparse_trisolve_kernels.hpp>
#include <asyncsparse/linalg/impl/AsyncSparse_trisolve_one_team.hpp>

namespace AsyncSparse {

/// Facts about a triangle for choose_tri_solve on ExecSpace; the Jacobi probe is run (on T's values, as stored)
/// when the rule reads it. `nnz` (>= 0) replaces T's entry count in the facts (a preconditioner passes the larger
/// of its two triangles'). T need not have passed the structure checks yet (the probe tolerates empty rows and
/// columns out of range; see Impl::JacobiProbeSweep). `probe` false: the facts without the probe (jacobi_probe -1).
/// `scratch`: memory for the probe's two iterates when it holds 2 n entries, else the probe allocates them.
/// `lu`: T is the lower triangle of an LU pair (TriSolveRuleInputs::lu).
template <class ExecSpace, class Scalar, class Device>
TriSolveRuleInputs tri_solve_rule_inputs(const Crs<Scalar, Device>& T, bool lower, bool unit_diagonal = false,
                                         std::int64_t nnz = -1, bool probe = true,
                                         const Kokkos::View<Scalar*, Device>& scratch = {}, bool lu = false) {
  TriSolveRuleInputs in;
  in.gpu = Impl::is_gpu_space<ExecSpace>();
  in.cusparse = cusparse_spsv_supports<Scalar, Device>();
  in.concurrency = static_cast<int>(ExecSpace().concurrency());
  in.n = T.numRows();
  in.nnz = nnz >= 0 ? nnz : T.nnz();
  in.lu = lu;
  if (probe && tri_solve_rule_probes_jacobi(in.gpu, in.n, in.nnz))
    in.jacobi_probe = Impl::jacobi_probe<ExecSpace>(T.graph.row_map, T.graph.entries, T.values, T.numRows(), lower,
                                                    unit_diagonal, kGpuJacobiProbeSweeps, scratch);
  return in;
}

/// Solves (R T C) x = b for a lower or upper triangular CSR matrix T (see the header comment).
template <class Scalar, class Device>
class TriangularSolver {
 public:
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  using crs_type = Crs<Scalar, Device>;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;
  using handle_type = KokkosKernels::Experimental::KokkosKernelsHandle<offset_t, ordinal_t, Scalar, execution_space,
                                                                       memory_space, memory_space>;

  TriangularSolver() = default;

  /// Algorithm of the Exact kind for the next setup() (overrides TriSolveOptions::exact_algorithm). Default Auto.
  void set_exact_algorithm(ExactAlgorithm a) { exact_override_ = a; }
  /// True when Exact solves use Kokkos-Kernels level sets (after setup()).
  bool uses_level_sets() const { return static_cast<bool>(kh_); }
  /// True when Exact solves use cuSPARSE SpSV (after setup()).
  bool uses_cusparse() const {
    return stats_.kind == TriSolveKind::Exact && stats_.exact_algorithm == ExactAlgorithm::Cusparse;
  }

  /// Analyses T (structure checks; the mode's setup) and copies its values, scaled: the solver solves
  /// (diag(row_scale) T diag(col_scale)) x = b. T: square, sorted rows, diagonal stored last (lower) / first
  /// (upper) in every row. lower: T is lower (true) or upper (false) triangular. unit_diagonal: take T's diagonal
  /// as 1. row_scale, col_scale: length n or empty (identity). `rule_inputs` (optional) replaces the facts an
  /// Auto mode is decided on (a preconditioner decides once for both of its triangles).
  /// `storage` (optional): memory for the solver's arrays, used when it holds at least
  /// Impl::parts_extent(array_sizes(...)) entries of the resolved mode, else the solver allocates its own (a
  /// preconditioner allocates once for both of its triangles; FactorApply).
  void setup(const crs_type& T, bool lower, bool unit_diagonal, const TriSolveOptions& opt,
             const const_vector_type& row_scale = {}, const const_vector_type& col_scale = {},
             const TriSolveRuleInputs* rule_inputs = nullptr, const vector_type& storage = {});

  /// The mode, sweep count and (Auto) the rule's reason setup() resolves from `opt` (`in`: the rule's facts, Auto).
  static TriSolveChoice resolve_kind(const TriSolveOptions& opt, const TriSolveRuleInputs& in) {
    TriSolveChoice c;
    if (opt.kind == TriSolveKind::Auto) {
      c = choose_tri_solve(in);
      if (opt.sweeps >= 0) c.sweeps = opt.sweeps;
    } else {
      c.kind = opt.kind;
      c.sweeps = opt.sweeps;
    }
    if (c.sweeps < 0) {
      switch (c.kind) {
        case TriSolveKind::Jacobi:
          c.sweeps = kDefaultJacobiSweeps;
          break;
        case TriSolveKind::JacobiAdaptive:
          c.sweeps = kDefaultAdaptiveMaxSweeps;
          break;
        case TriSolveKind::Isai:
          c.sweeps = kDefaultIsaiCorrectionSteps;
          break;
        default:
          c.sweeps = 0;
          break;
      }
    }
    if (c.kind == TriSolveKind::JacobiAdaptive && c.sweeps < 1) c.sweeps = 1;
    if (c.kind == TriSolveKind::Exact) c.sweeps = 0;
    return c;
  }
  /// Entries of the arrays setup() allocates for a triangle of n rows and nnz entries in mode `kind` with `sweeps`:
  /// values, inverse diagonal, work vector (the Jacobi modes and ISAI with correction steps), ISAI values (none for an
  /// ISAI on an extended pattern, isai_power > 1: allocated with the pattern), the loading's verdict word.
  static std::array<std::size_t, 5> array_sizes(TriSolveKind kind, int sweeps, std::size_t n, std::size_t nnz,
                                                int isai_power = 1) {
    const bool jacobi = kind == TriSolveKind::Jacobi || kind == TriSolveKind::JacobiAdaptive;
    const bool work = jacobi || (kind == TriSolveKind::Isai && sweeps > 0);
    return {nnz, n, work ? n : 0, kind == TriSolveKind::Isai && isai_power <= 1 ? nnz : 0, kVerdictEntries};
  }
  /// Entries of the value type that hold the verdict word (only ever accessed as an Impl::verdict_t).
  static constexpr std::size_t kVerdictEntries = (sizeof(Impl::verdict_t) + sizeof(Scalar) - 1) / sizeof(Scalar);

  /// Compatibility form: mode and sweep count only.
  void setup(const crs_type& T, bool lower, bool unit_diagonal, TriSolveKind kind, int sweeps = 5) {
    TriSolveOptions o;
    o.kind = kind;
    o.sweeps = sweeps;
    setup(T, lower, unit_diagonal, o);
  }

  /// New values and scalings for the pattern given to setup() (level sets, cuSPARSE analysis, Auto's mode kept).
  void update_values(const crs_type& T, const const_vector_type& row_scale = {},
                     const const_vector_type& col_scale = {});

  /// x = (R T C)^{-1} b (Exact) or the mode's approximation of it. b and x of length n; they may alias.
  void solve(const const_vector_type& b, const vector_type& x);

  /// True when solve_dot() fuses: an Isai solver without correction steps whose product takes one thread per row
  /// (GPUs, short rows: Impl::spmv_launch) and sums in the same pass (at most Impl::kFusedReductionMaxRows rows);
  /// or a Jacobi solver with at least one sweep under the same conditions, whose last sweep then takes one thread
  /// per row and sums (on small matrices a PCG iteration is a chain of launches: one less per iteration).
  bool fuses_dot() const {
    if (!ready_ || !isai_launch_.row_per_thread || isai_launch_.separate_reduction) return false;
    return (stats_.kind == TriSolveKind::Isai && stats_.sweeps == 0) ||
           (stats_.kind == TriSolveKind::Jacobi && stats_.sweeps > 0);
  }
  /// x = M b as solve() does, and s(slot) = dᵀx (summed in double) in the same pass, when fuses_dot(); otherwise
  /// returns false and does nothing. d of length n; x must alias neither b nor d (InvalidInput).
  bool solve_dot(const const_vector_type& b, const vector_type& x, const const_vector_type& d,
                 const Kokkos::View<double*, Device>& s, int slot);

  /// True when solve() and solve_dot() (on distinct b and x) only enqueue kernels on Impl::launch_instance, the same
  /// ones on every call: Jacobi with a fixed sweep count, Exact in one team (ExactAlgorithm::OneTeam), or Isai
  /// without correction steps whose product is the library's kernel (one thread per row). A Krylov solver may then
  /// record a solve in a CUDA graph and replay it (Impl::GraphReplay; Preconditioner::replayable); note_external_solves
  /// counts the replays in stats().
  bool replayable() const {
    return ready_ && (stats_.kind == TriSolveKind::Jacobi || exact_one_team() ||
                      (stats_.kind == TriSolveKind::Isai && stats_.sweeps == 0 && isai_launch_.row_per_thread));
  }
  /// The kernel of a Jacobi solver's sweeps (Impl::jacobi_sweep_rows: a thread or a lane group per row), after setup().
  Impl::SweepRows jacobi_sweep_rows() const { return sweep_rows_; }
  /// Exact solves in one launch of one team (ExactAlgorithm::OneTeam), after setup().
  bool exact_one_team() const {
    return ready_ && stats_.kind == TriSolveKind::Exact && stats_.exact_algorithm == ExactAlgorithm::OneTeam;
  }
  /// The arrays of a one-team exact solver (exact_one_team()), scalings folded in: FactorApply's one launch.
  struct ExactOneTeamArrays {
    typename crs_type::row_map_type row_map;
    typename crs_type::index_type entries;
    vector_type values, inv_diag;
    Kokkos::View<int*, Device> level_sets;  // Impl::exact_level_sets
    int levels = 0;
    bool lower = true;
    std::int64_t offdiag = 0;  // off-diagonal entries
  };
  ExactOneTeamArrays exact_one_team_arrays() const {
    return {row_map_,    entries_,
            values_,     inv_diag_,
            level_sets_, stats_.levels,
            lower_,      static_cast<std::int64_t>(values_.extent(0)) - static_cast<std::int64_t>(n_)};
  }
  /// The one-team functor of a single triangle or a pair (FactorApply).
  template <class CVec, class Vec, class Out>
  using ExactOneTeamFunctor =
      Impl::ExactOneTeam<execution_space, typename crs_type::row_map_type, typename crs_type::index_type, vector_type,
                         Kokkos::View<int*, Device>, CVec, Vec, Out>;
  using ExactOneTeamSolve = ExactOneTeamFunctor<const_vector_type, vector_type, Kokkos::View<double, Device>>;
  /// The one-team functor x = first^{-1} b, or x = second^{-1} first^{-1} b when `second` is given, from the arrays of
  /// one-team exact solvers (exact_one_team_arrays; both of n rows, else InvalidInput); its `out` and `dot` unset. A
  /// single solver's solve and FactorApply's pair launch run it with Impl::exact_one_team_launch.
  static ExactOneTeamSolve exact_one_team_functor(const TriangularSolver& first, const TriangularSolver* second,
                                                  const const_vector_type& b, const vector_type& x) {
    for (const TriangularSolver* s : {&first, second})
      if (s && (s->stats_.exact_algorithm != ExactAlgorithm::OneTeam || s->level_sets_.extent(0) == 0))
        throw InvalidInput("TriangularSolver::exact_one_team_functor: the solver is not a one-team exact solver (" +
                           s->stats_.mode() + ")");
    if (second && second->num_rows() != first.num_rows())
      throw InvalidInput("TriangularSolver::exact_one_team_functor: triangles of " + std::to_string(first.num_rows()) +
                         " and " + std::to_string(second->num_rows()) + " rows");
    ExactOneTeamSolve f;
    const auto a = first.exact_one_team_arrays();
    f.tri[0] = {a.row_map, a.entries, a.values, a.inv_diag, a.level_sets, a.levels, a.lower};
    f.max_offdiag = a.offdiag;
    f.max_levels = a.levels;
    if (second) {
      const auto u = second->exact_one_team_arrays();
      f.tri[1] = {u.row_map, u.entries, u.values, u.inv_diag, u.level_sets, u.levels, u.lower};
      f.count = 2;
      f.max_offdiag = std::max(f.max_offdiag, u.offdiag);
      f.max_levels = std::max(f.max_levels, u.levels);
    }
    f.b = b;
    f.d = b;
    f.x = x;
    f.n = first.num_rows();
    return f;
  }
  /// The arrays of a Jacobi solver, the scalings folded into the values (FactorApply's one-team launch runs both
  /// triangles' sweeps from them); `work` is the solver's second iterate (read and written from two sweeps on).
  struct JacobiArrays {
    typename crs_type::row_map_type row_map;
    typename crs_type::index_type entries;
    vector_type values, inv_diag, work;
    int sweeps = 0;
    bool lower = true;
  };
  JacobiArrays jacobi_arrays() const { return {row_map_, entries_, values_, inv_diag_, work_, stats_.sweeps, lower_}; }
  /// Adds `count` solves run outside solve() / solve_dot() to stats() (solves; Jacobi: their sweeps): replayed from
  /// a recorded graph, or run by FactorApply's one-team launch; negative withdraws counted calls that ran nothing.
  void note_external_solves(int count) {
    stats_.solves += count;
    if (stats_.kind == TriSolveKind::Jacobi) {
      stats_.total_sweeps += static_cast<std::int64_t>(count) * stats_.sweeps;
      if (count > 0) stats_.last_sweeps = stats_.sweeps;
    }
  }

  bool is_setup() const { return ready_; }
  /// The resolved mode (never Auto after setup()).
  TriSolveKind kind() const { return stats_.kind; }
  bool lower() const { return lower_; }
  bool unit_diagonal() const { return unit_; }
  /// The resolved sweep count (TriSolveOptions::sweeps).
  int jacobi_sweeps() const { return stats_.sweeps; }
  ordinal_t num_rows() const { return n_; }
  const TriSolveStats& stats() const { return stats_; }
  const TriSolveOptions& options() const { return opt_; }
  /// The ISAI M (pattern of |T|^isai_power) after setup() of an Isai solver, scalings included; else empty.
  crs_type isai_matrix() const {
    if (stats_.kind != TriSolveKind::Isai || !ready_) return crs_type();
    const bool own = isai_row_map_.extent(0) == 0;
    return crs_type("AsyncSparse::trisolve::isai", n_, n_, static_cast<offset_t>(isai_values_.extent(0)), isai_values_,
                    own ? row_map_ : isai_row_map_, own ? entries_ : isai_entries_);
  }

  /// True when T has the pattern given to setup() (Impl::same_graph).
  bool same_pattern(const crs_type& T) const;

  /// On: setup() and update_values() of a Jacobi solver queue the checks of T (the pass that loads its values) and
  /// leave them to take_pending_verdicts(), without a wait or fence (stats().setup_seconds then counts the host's
  /// part only). A preconditioner reads both triangles' checks in one wait (FactorApply).
  void defer_verdict(bool on) { defer_verdict_ = on; }
  /// The checks `a` and `b` left pending (defer_verdict) in one wait; throws what setup() / update_values() would
  /// have thrown, a's problem first.
  static void take_pending_verdicts(TriangularSolver& a, TriangularSolver& b);

 private:
  static void check_options(const TriSolveOptions& o) {
    const std::string w = "TriangularSolver::setup: ";
    if (o.sweeps < -1) throw InvalidInput(w + "sweeps must be >= 0 (or -1: default), got " + std::to_string(o.sweeps));
    if (o.kind == TriSolveKind::JacobiAdaptive && o.sweeps == 0)
      throw InvalidInput(w + "jacobi_adaptive needs sweeps >= 1 (the maximum), got 0");
    if (!(o.tolerance > 0)) throw InvalidInput(w + "tolerance must be > 0, got " + std::to_string(o.tolerance));
    if (!(o.stagnation > 0)) throw InvalidInput(w + "stagnation must be > 0, got " + std::to_string(o.stagnation));
    if (o.check_interval < 1)
      throw InvalidInput(w + "check_interval must be >= 1, got " + std::to_string(o.check_interval));
    if (o.isai_power < 0 || o.isai_power > kMaxIsaiPower)
      throw InvalidInput(w + "isai_power must be between 0 (the rule) and " + std::to_string(kMaxIsaiPower) + ", got " +
                         std::to_string(o.isai_power));
  }

  /// The algorithm ExactAlgorithm::Auto takes when one team does not: cuSPARSE (CUDA; its solve runs on 32-bit
  /// offsets here, row_map_as_int, so a factor with more entries takes the level sets), Kokkos-Kernels' level sets
  /// on other GPUs, serial substitution on host backends.
  static ExactAlgorithm exact_fallback(std::int64_t nnz) {
    return cusparse_spsv_supports<Scalar, Device>() && nnz <= INT_MAX
               ? ExactAlgorithm::Cusparse
               : (Impl::is_gpu_space<execution_space>() ? ExactAlgorithm::LevelSet : ExactAlgorithm::Serial);
  }
  InvalidInput one_team_too_large(std::int64_t offdiag, std::int64_t levels) const {
    return Impl::exact_one_team_too_large<execution_space, Scalar>(n_, offdiag, levels);
  }

  void resolve_mode(const crs_type& T, const TriSolveRuleInputs* rule_inputs) {
    stats_ = TriSolveStats();
    TriSolveRuleInputs in;
    if (opt_.kind == TriSolveKind::Auto) {
      in = rule_inputs ? *rule_inputs : tri_solve_rule_inputs<execution_space>(T, lower_, unit_);
      stats_.jacobi_probe = in.jacobi_probe;
    }
    const TriSolveChoice c = resolve_kind(opt_, in);
    stats_.kind = c.kind;
    stats_.sweeps = c.sweeps;
    stats_.reason = c.reason;
    const ExactAlgorithm requested = exact_override_ != ExactAlgorithm::Auto ? exact_override_ : opt_.exact_algorithm;
    ExactAlgorithm a = requested;
    const auto nnz = static_cast<std::int64_t>(T.nnz());
    const bool fits =
        stats_.kind == TriSolveKind::Exact && Impl::exact_one_team_fits<execution_space, Scalar>(n_, nnz - n_);
    // One team where the triangle fits its scratch memory (GPUs by default; TriSolveOptions::one_team_entries);
    // cuSPARSE's solve runs on 32-bit offsets here (row_map_as_int): a factor with more entries takes the level sets.
    const std::int64_t one_team_max = opt_.one_team_entries >= 0
                                          ? opt_.one_team_entries
                                          : (Impl::is_gpu_space<execution_space>() ? nnz : std::int64_t(0));
    if (a == ExactAlgorithm::Auto) a = fits && nnz <= one_team_max ? ExactAlgorithm::OneTeam : exact_fallback(nnz);
    if (a == ExactAlgorithm::OneTeam && stats_.kind == TriSolveKind::Exact && !fits && n_ > 0)
      throw one_team_too_large(nnz - n_, 1);
    exact_auto_ = requested == ExactAlgorithm::Auto;
    if (a == ExactAlgorithm::Cusparse && !cusparse_spsv_supports<Scalar, Device>())
      throw InvalidInput(
          "TriangularSolver::setup: exact algorithm 'cusparse' needs a CUDA build with cuSPARSE and "
          "float or double values on the Cuda execution space");
    stats_.exact_algorithm = stats_.kind == TriSolveKind::Exact ? a : ExactAlgorithm::Auto;
  }

  /// Loads T's values (scaled); `check_structure`: T's structure is checked in the same pass (setup()).
  void load(const crs_type& T, const const_vector_type& r, const const_vector_type& c, const std::string& where,
            bool check_structure = false) {
    Impl::tri_load_values<execution_space>(row_map_, entries_, n_, lower_, unit_, T.values, values_, inv_diag_, r, c,
                                           where, check_structure, verdict_.data());
    // Jacobi: nothing reads T before solve(), solve_dot() or FactorApply's launches, each after the check is taken
    if (defer_verdict_ && stats_.kind == TriSolveKind::Jacobi) {
      pending_where_ = where;
      return;
    }
    // before ISAI, which reads T's structure (checked at setup()); refused values leave M as it was
    Impl::tri_throw_verdict(Impl::take_verdict(execution_space(), verdict_), where, n_, lower_);
    if (stats_.kind == TriSolveKind::Isai) {
      if (stats_.isai_power > 1 && isai_row_map_.extent(0) == 0) {  // setup(): the extended pattern, once
        typename crs_type::row_map_type rm = row_map_;
        typename crs_type::index_type en = entries_;
        for (int k = 2; k <= stats_.isai_power; ++k) {
          const auto next = Impl::isai_pattern_power<execution_space>(row_map_, entries_, rm, en, n_);
          rm = next.first;
          en = next.second;
        }
        isai_row_map_ = rm;
        isai_entries_ = en;
        isai_values_ = Impl::cached_uninitialized<vector_type>("AsyncSparse::trisolve::isai_values", en.extent(0));
      }
      stats_.isai_nnz = static_cast<std::int64_t>(isai_values_.extent(0));
      Impl::isai_compute<execution_space>(row_map_, entries_, values_, inv_diag_, n_, lower_, isai_values_,
                                          verdict_.data(), isai_row_map_, isai_entries_);
      Impl::tri_throw_verdict(Impl::take_verdict(execution_space(), verdict_), where, n_, lower_);
      if (stats_.isai_single) load_isai_single(where);
    }
  }

  /// The product's copy of M's values in single precision (stats_.isai_single). A value beyond float's range: the
  /// product keeps the working precision (IsaiPrecision::Auto) or InvalidInput (Single).
  void load_isai_single(const std::string& where) {
    if (isai_single_.extent(0) != isai_values_.extent(0))
      isai_single_ = Impl::cached_uninitialized<Kokkos::View<float*, Device>>("AsyncSparse::trisolve::isai_single",
                                                                              isai_values_.extent(0));
    const std::int64_t bad = Impl::to_single<execution_space>(isai_values_, isai_single_);
    if (bad == static_cast<std::int64_t>(isai_values_.extent(0))) return;
    if (opt_.isai_precision == IsaiPrecision::Single)
      throw InvalidInput(where + ": ISAI value " + std::to_string(bad) +
                         " is beyond single precision's range (isai_precision single); use working");
    stats_.isai_single = false;
    isai_single_ = {};
  }

  void setup_exact() {
    kh_.reset();
#if ASYNCSPARSE_HAVE_CUSPARSE && defined(KOKKOS_ENABLE_CUDA)
    spsv_.reset();
#endif
    level_sets_ = {};
    if (stats_.kind != TriSolveKind::Exact || n_ == 0) return;
    if (stats_.exact_algorithm == ExactAlgorithm::OneTeam) {
      int levels = 0;
      auto sets = Impl::exact_level_sets<Device>(row_map_, entries_, n_, lower_, levels);
      const std::int64_t offdiag = static_cast<std::int64_t>(values_.extent(0)) - n_;
      if (Impl::exact_one_team_fits<execution_space, Scalar>(n_, offdiag, levels)) {
        level_sets_ = sets;
        stats_.levels = levels;
        one_team_size_ = Impl::exact_one_team_size<execution_space>(exact_one_team_functor(*this, nullptr, {}, {}));
        return;
      }
      if (!exact_auto_) throw one_team_too_large(offdiag, levels);
      // Auto: the level sets do not fit beside the triangle; the algorithm Auto takes for larger triangles
      stats_.exact_algorithm = exact_fallback(static_cast<std::int64_t>(values_.extent(0)));
    }
    if (stats_.exact_algorithm == ExactAlgorithm::LevelSet) {
      kh_ = std::make_shared<handle_type>();
      kh_->create_sptrsv_handle(KokkosSparse::Experimental::SPTRSVAlgorithm::SEQLVLSCHD_TP1, n_, lower_);
      Compat::kk_sparse::sptrsv_symbolic(kh_.get(), row_map_, entries_);
    }
    exact_setup_cusparse();
  }

  void exact_setup_cusparse() {
#if ASYNCSPARSE_HAVE_CUSPARSE && defined(KOKKOS_ENABLE_CUDA)
    if (stats_.exact_algorithm != ExactAlgorithm::Cusparse) return;
    // Diagonal type NON_UNIT: the stored diagonal carries the scalings (and is 1 for an unscaled unit solve).
    row_map32_ = row_map_as_int(row_map_, static_cast<std::int64_t>(values_.extent(0)), "cuSPARSE SpSV");
    spsv_ = std::make_shared<CusparseSpsv<Scalar>>();
    spsv_->setup(n_, static_cast<int>(values_.extent(0)), row_map32_.data(), entries_.data(), values_.data(), lower_,
                 false);
#endif
  }

  void exact_solve(const const_vector_type& b, const vector_type& x) {
    if (stats_.exact_algorithm == ExactAlgorithm::OneTeam) {
      Impl::exact_one_team_launch<execution_space>(exact_one_team_functor(*this, nullptr, b, x), one_team_size_);
      return;
    }
#if ASYNCSPARSE_HAVE_CUSPARSE && defined(KOKKOS_ENABLE_CUDA)
    if (spsv_) {
      spsv_->solve(b.data(), x.data());
      return;
    }
#endif
    if (kh_)
      Compat::kk_sparse::sptrsv_solve(kh_.get(), row_map_, entries_, values_, b, x);
    else
      Impl::tri_serial_solve<execution_space>(row_map_, entries_, values_, inv_diag_, n_, lower_, b, x);
  }

  // k sweeps; sweep s (1-based) writes x when k - s is even, the work vector otherwise, so the last writes x. With
  // `d`, the last sweep also sums d·x into `out` (solve_dot; k >= 1).
  void jacobi_solve(const const_vector_type& b, const vector_type& x, const const_vector_type& d = {},
                    const Kokkos::View<double, Device>& out = {}) {
    const int k = stats_.sweeps;
    const bool dot = d.data() != nullptr;
    stats_.last_sweeps = k;
    stats_.total_sweeps += k;
    if (k == 0) {
      Impl::tri_diagonal_solve<execution_space>(inv_diag_, n_, b, x);
      return;
    }
    const vector_type first = k % 2 == 1 ? x : work_;
    if (dot && k == 1)
      Impl::jacobi_sweep_dot<execution_space, true>(row_map_, entries_, values_, inv_diag_, n_, lower_, b, b, x, d,
                                                    out);
    else
      Impl::jacobi_sweep<execution_space, true>(launch_, sweep_rows_, row_map_, entries_, values_, inv_diag_, n_,
                                                lower_, b, b, first, false);
    vector_type cur = first, next = first.data() == x.data() ? work_ : x;
    for (int s = 2; s <= k; ++s) {
      if (dot && s == k)
        Impl::jacobi_sweep_dot<execution_space, false>(row_map_, entries_, values_, inv_diag_, n_, lower_, b,
                                                       const_vector_type(cur), next, d, out);
      else
        Impl::jacobi_sweep<execution_space, false>(launch_, sweep_rows_, row_map_, entries_, values_, inv_diag_, n_,
                                                   lower_, b, const_vector_type(cur), next, false);
      std::swap(cur, next);
    }
  }

  void jacobi_adaptive_solve(const const_vector_type& b, const vector_type& x) {
    const int max_sweeps = stats_.sweeps;
    const int interval = opt_.check_interval;
    // Sweep 1 reduces ||r_0||^2 (residual of x_0 = D^{-1} b): the reference of the tolerance.
    const double r0 = std::sqrt(Impl::jacobi_sweep<execution_space, true>(
        launch_, sweep_rows_, row_map_, entries_, values_, inv_diag_, n_, lower_, b, b, x, true));
    ++stats_.checks;
    double prev = r0;
    vector_type cur = x, next = work_;
    int done = 1;
    stats_.last_relative_residual = r0 > 0 ? 1.0 : 0.0;
    bool stop = r0 == 0;
    while (!stop && done < max_sweeps) {
      const bool check = done % interval == 0;
      const double rr =
          Impl::jacobi_sweep<execution_space, false>(launch_, sweep_rows_, row_map_, entries_, values_, inv_diag_, n_,
                                                     lower_, b, const_vector_type(cur), next, check);
      std::swap(cur, next);
      ++done;
      if (check) {
        ++stats_.checks;
        const double r = std::sqrt(rr);  // residual of the iterate this sweep started from
        stats_.last_relative_residual = r / r0;
        stop = r <= opt_.tolerance * r0 || r > opt_.stagnation * prev || !(r == r);
        prev = r;
      }
    }
    if (cur.data() != x.data()) Kokkos::deep_copy(x, cur);
    stats_.last_sweeps = done;
    stats_.total_sweeps += done;
  }

  /// x = M b by the library's product (Impl::spmv_dot) with M's values in single precision where stats_.isai_single,
  /// and with s(slot) = dᵀx when `s` is not empty.
  void isai_spmv_dot(const const_vector_type& b, const vector_type& x, const Kokkos::View<double*, Device>& s,
                     int slot, const const_vector_type& d) const {
    if (stats_.isai_single)
      Impl::spmv_dot<Scalar, Device, float>(isai_matrix(), b, x, s, slot, isai_launch_, Impl::TeamSumScratch<Device>(),
                                            d, Kokkos::View<const float*, Device>(isai_single_));
    else
      Impl::spmv_dot<Scalar, Device>(isai_matrix(), b, x, s, slot, isai_launch_, Impl::TeamSumScratch<Device>(), d);
  }

  void isai_solve(const const_vector_type& b, const vector_type& x) {
    const crs_type M = isai_matrix();
    if (stats_.isai_single || isai_launch_.row_per_thread)
      isai_spmv_dot(b, x, Kokkos::View<double*, Device>(), 0, const_vector_type());
    else
      Blas<Scalar, Device>::spmv(Scalar(1), M, b, Scalar(0), x);
    if (stats_.sweeps == 0) return;
    for (int s = 0; s < stats_.sweeps; ++s) {
      Impl::tri_residual<execution_space>(row_map_, entries_, values_, n_, b, x, work_);
      Blas<Scalar, Device>::spmv(Scalar(1), M, work_, Scalar(1), x);
    }
  }

  bool ready_ = false, defer_verdict_ = false;
  std::string pending_where_;  // the call whose checks are pending (defer_verdict), empty when none
  TriSolveOptions opt_;
  ExactAlgorithm exact_override_ = ExactAlgorithm::Auto;
  TriSolveStats stats_;
  bool lower_ = true, unit_ = false;
  ordinal_t n_ = 0;
  typename crs_type::row_map_type row_map_;
  typename crs_type::index_type entries_;
  vector_type values_, inv_diag_, work_, rhs_copy_, isai_values_;
  Kokkos::View<float*, Device> isai_single_;  // stats_.isai_single: M's values in single precision
  /// The loading passes' verdict word (Impl::report_verdict; kNoVerdict between loads), in the arrays' allocation.
  Kokkos::View<Impl::verdict_t, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> verdict_;
  // the pattern of |T|^isai_power of an Isai solver with isai_power > 1 (empty: M has T's pattern)
  typename crs_type::row_map_type isai_row_map_;
  typename crs_type::index_type isai_entries_;
  ResolvedLaunch launch_;
  Impl::SweepRows sweep_rows_ = Impl::SweepRows::Lanes;  // the Jacobi sweeps' kernel
  // the product of Isai solves (row_per_thread: the library's kernel, else KK's); for Jacobi its conditions only
  // (fuses_dot, sweep_rows_)
  Impl::SpmvLaunch isai_launch_;
  std::shared_ptr<handle_type> kh_;
  Kokkos::View<int*, Device> level_sets_;  // ExactAlgorithm::OneTeam: Impl::exact_level_sets
  bool exact_auto_ = true;                 // the exact algorithm was asked as Auto (setup_exact may fall back)
  int one_team_size_ = 1;                  // ExactAlgorithm::OneTeam: the launch's team size
#if ASYNCSPARSE_HAVE_CUSPARSE && defined(KOKKOS_ENABLE_CUDA)
  std::shared_ptr<CusparseSpsv<Scalar>> spsv_;
  Kokkos::View<const int*, Device> row_map32_;  // row_map_ as the 32-bit offsets spsv_ takes
#endif
};

// Members that launch kernels are defined here, outside the class: an explicit instantiation declaration (below)
// suppresses only these, so a caller of the instantiated types compiles none of their kernels.
template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::setup(const crs_type& T, bool lower, bool unit_diagonal,
                                             const TriSolveOptions& opt, const const_vector_type& row_scale,
                                             const const_vector_type& col_scale, const TriSolveRuleInputs* rule_inputs,
                                             const vector_type& storage) {
  Kokkos::Timer timer;
  if (T.numRows() != T.numCols())
    throw InvalidInput("TriangularSolver::setup: matrix must be square, got " + std::to_string(T.numRows()) + " x " +
                       std::to_string(T.numCols()));
  check_options(opt);
  ready_ = false;
  pending_where_.clear();  // a check left by a call that threw before its reader: its word is reset below
  opt_ = opt;
  lower_ = lower;
  unit_ = unit_diagonal;
  n_ = T.numRows();
  row_map_ = T.graph.row_map;
  entries_ = T.graph.entries;
  // T's structure is checked by load() below, in the pass that loads the values (resolve_mode's Jacobi probe
  // tolerates any structure; nothing else reads T before).
  resolve_mode(T, rule_inputs);
  stats_.isai_power = stats_.kind != TriSolveKind::Isai ? 1
                      : opt.isai_power > 0              ? opt.isai_power
                                                        : isai_power_rule(n_, static_cast<std::int64_t>(T.nnz()));
  stats_.isai_single =
      stats_.kind == TriSolveKind::Isai && sizeof(Scalar) > sizeof(float) &&
      (opt.isai_precision == IsaiPrecision::Single ||
       (opt.isai_precision == IsaiPrecision::Auto && isai_single_values_rule(Impl::is_gpu_space<execution_space>())));
  if (!stats_.isai_single) isai_single_ = {};
  isai_row_map_ = {};
  isai_entries_ = {};
  // Every mode writes the work vector before reading it. The values, inverse diagonal, work vector and ISAI values
  // share one allocation (Impl::uninitialized_parts), or `storage` (ISAI values on an extended pattern: their own,
  // made by load() with the pattern).
  const auto sizes = array_sizes(stats_.kind, stats_.sweeps, static_cast<std::size_t>(n_),
                                 static_cast<std::size_t>(T.nnz()), stats_.isai_power);
  const bool given = storage.extent(0) >= Impl::parts_extent(sizes) && Impl::verdict_aligned(storage.data());
  const auto parts = given ? Impl::parts_of(storage, sizes)
                           : Impl::uninitialized_parts<vector_type, 5>("AsyncSparse::trisolve::arrays", sizes);
  values_ = parts[0];
  inv_diag_ = parts[1];
  work_ = sizes[2] > 0 ? parts[2] : vector_type();
  isai_values_ = sizes[3] > 0 ? parts[3] : vector_type();
  verdict_ = decltype(verdict_)(reinterpret_cast<Impl::verdict_t*>(parts[4].data()));
  Kokkos::deep_copy(execution_space(), verdict_, Impl::kNoVerdict);
  const double offdiag = n_ > 0 ? static_cast<double>(T.nnz() - n_) / static_cast<double>(n_) : 1.0;
  launch_ = resolve_launch_config<execution_space>(LaunchConfig{}, n_, offdiag);
  // the product of Isai solves; for Jacobi the triangle's product, whose conditions decide whether the last sweep sums
  // (fuses_dot) and, with the rows' length, whether the sweeps take a thread per row (jacobi_sweep_rows; the adaptive
  // mode keeps lane groups)
  isai_launch_ = stats_.kind == TriSolveKind::Isai || stats_.kind == TriSolveKind::Jacobi
                     ? Impl::spmv_launch<execution_space>(n_, T.nnz())
                     : Impl::SpmvLaunch();
  sweep_rows_ = Impl::jacobi_sweep_rows(isai_launch_.row_per_thread, isai_launch_.bounded_blocks, n_, offdiag,
                                        launch_.concurrency);
  load(T, row_scale, col_scale, "TriangularSolver::setup", true);
  if (stats_.isai_power > 1)  // the product of the extended pattern
    isai_launch_ = Impl::spmv_launch<execution_space>(n_, static_cast<std::int64_t>(isai_values_.extent(0)));
  setup_exact();
  ready_ = true;
  if (pending_where_.empty()) execution_space().fence();
  stats_.setup_seconds = timer.seconds();
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::take_pending_verdicts(TriangularSolver& a, TriangularSolver& b) {
  const auto v = Impl::take_verdicts(execution_space(), a.verdict_, !a.pending_where_.empty(), b.verdict_,
                                     !b.pending_where_.empty());
  const std::string where[2] = {a.pending_where_, b.pending_where_};
  const Impl::verdict_t w[2] = {v.first, v.second};
  TriangularSolver* s[2] = {&a, &b};
  for (int k = 0; k < 2; ++k) {  // both read: their state settled before either throws
    s[k]->pending_where_.clear();
    if (w[k] != Impl::kNoVerdict && where[k] == "TriangularSolver::setup") s[k]->ready_ = false;
  }
  for (int k = 0; k < 2; ++k) Impl::tri_throw_verdict(w[k], where[k], s[k]->n_, s[k]->lower_);
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::update_values(const crs_type& T, const const_vector_type& row_scale,
                                                     const const_vector_type& col_scale) {
  if (!ready_) throw InvalidInput("TriangularSolver::update_values: setup() must be called first");
  Kokkos::Timer timer;
  if (T.numRows() != n_ || T.nnz() != static_cast<offset_t>(values_.extent(0)) ||
      (T.graph.entries.data() != entries_.data() && T.nnz() > 0 && !same_pattern(T)))
    throw InvalidInput("TriangularSolver::update_values: the matrix does not have the pattern given to setup()");
  if (!pending_where_.empty()) take_pending_verdicts(*this, *this);  // a check nobody took (defer_verdict)
  load(T, row_scale, col_scale, "TriangularSolver::update_values");
#if ASYNCSPARSE_HAVE_CUSPARSE && defined(KOKKOS_ENABLE_CUDA)
  if (spsv_) spsv_->update_values(values_.data());
#endif
  if (pending_where_.empty()) execution_space().fence();
  stats_.setup_seconds = timer.seconds();
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::solve(const const_vector_type& b, const vector_type& x) {
  if (!pending_where_.empty()) take_pending_verdicts(*this, *this);  // a check nobody took (defer_verdict)
  if (!ready_) throw InvalidInput("TriangularSolver::solve: setup() must be called first");
  if (b.extent(0) != static_cast<std::size_t>(n_) || x.extent(0) != static_cast<std::size_t>(n_))
    throw InvalidInput("TriangularSolver::solve: vector lengths " + std::to_string(b.extent(0)) + ", " +
                       std::to_string(x.extent(0)) + " do not match the matrix (" + std::to_string(n_) + ")");
  ++stats_.solves;
  if (n_ == 0) return;
  const_vector_type rhs = b;
  // keep the right-hand side: every mode reads it while writing x, but the one-team exact solve, which reads it into
  // scratch memory first
  if (b.data() == x.data() && !exact_one_team()) {
    if (rhs_copy_.extent(0) != static_cast<std::size_t>(n_)) rhs_copy_ = vector_type("AsyncSparse::trisolve::rhs", n_);
    Kokkos::deep_copy(rhs_copy_, b);
    rhs = rhs_copy_;
  }
  switch (stats_.kind) {
    case TriSolveKind::Jacobi:
      jacobi_solve(rhs, x);
      break;
    case TriSolveKind::JacobiAdaptive:
      jacobi_adaptive_solve(rhs, x);
      break;
    case TriSolveKind::Isai:
      isai_solve(rhs, x);
      break;
    default:
      exact_solve(rhs, x);
      break;
  }
}

template <class Scalar, class Device>
bool TriangularSolver<Scalar, Device>::solve_dot(const const_vector_type& b, const vector_type& x,
                                                 const const_vector_type& d, const Kokkos::View<double*, Device>& s,
                                                 int slot) {
  if (!pending_where_.empty()) take_pending_verdicts(*this, *this);  // a check nobody took (defer_verdict)
  if (!fuses_dot()) return false;
  if (b.extent(0) != static_cast<std::size_t>(n_) || x.extent(0) != static_cast<std::size_t>(n_) ||
      d.extent(0) != static_cast<std::size_t>(n_))
    throw InvalidInput("TriangularSolver::solve_dot: vector lengths " + std::to_string(b.extent(0)) + ", " +
                       std::to_string(x.extent(0)) + ", " + std::to_string(d.extent(0)) + " do not match the matrix (" +
                       std::to_string(n_) + ")");
  Impl::check_scalar_slot("TriangularSolver::solve_dot", s, slot);
  ++stats_.solves;
  if (n_ == 0) {
    Kokkos::deep_copy(Impl::launch_instance<execution_space>(), Kokkos::subview(s, slot), 0.0);
    return true;
  }
  if (b.data() == x.data() || d.data() == x.data()) throw InvalidInput("TriangularSolver::solve_dot: x aliases b or d");
  if (stats_.kind == TriSolveKind::Jacobi)
    jacobi_solve(b, x, d, Kokkos::subview(s, slot));
  else
    isai_spmv_dot(b, x, s, slot, d);
  return true;
}

template <class Scalar, class Device>
bool TriangularSolver<Scalar, Device>::same_pattern(const crs_type& T) const {
  return Impl::same_graph(execution_space(), n_, row_map_, entries_, T.graph.row_map, T.graph.entries);
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured scalars
// and devices; other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_TRISOLVE(EXTERN, S, D)                                        \
  EXTERN template class TriangularSolver<S, D>;                                       \
  EXTERN template TriSolveRuleInputs tri_solve_rule_inputs<D::execution_space, S, D>( \
      const Crs<S, D>&, bool, bool, std::int64_t, bool, const Kokkos::View<S*, D>&, bool);
ASYNCSPARSE_ETI_DECLARE_DOUBLE(ASYNCSPARSE_ETI_TRISOLVE)

}  // namespace AsyncSparse
