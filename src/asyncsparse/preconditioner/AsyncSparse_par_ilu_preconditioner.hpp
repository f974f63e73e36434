// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParIlu / ParIc: incomplete LU / Cholesky preconditioners computed by the asynchronous
// fixed-point sweeps of Chow & Patel (SISC 2015) with the GPU controls of Chow, Anzt & Dongarra (ISC 2015),
// see AsyncSparse_par_ilu.hpp.
//
// compute() scales A to unit diagonal, A_s = S A S, and runs the sweeps for A_s ≈ L U (IC: L Lᵀ); apply()
// keeps the scaling: z = M^{-1} x = S U^{-1} L^{-1} S x, with the triangular solves of AsyncSparse_trisolve.hpp
// (parameter "tri_solve": auto, exact, jacobi, jacobi_adaptive, isai; auto picks by backend and size, see
// choose_tri_solve in AsyncSparse_trisolve_rule.hpp). initialize() is the symbolic phase (pattern,
// task list: host work); compute() after setMatrix() with a matrix of the same pattern only reruns the numeric
// phase, and with "reuse_factors" = true it starts the sweeps from the previous factors instead of the paper's
// initial guess (time stepping: a sweep or two then suffice).
//
// IncompleteFactorPreconditioner applies given factors the same way (the exact ILU(0)/IC(0) baselines of the
// driver).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <memory>
#include <string>

#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_parameters.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu.hpp>
#include <asyncsparse/linalg/AsyncSparse_gmres_team.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_preconditioner.hpp>

namespace AsyncSparse {

namespace Impl {

/// z = S U^{-1} L^{-1} S x with two TriangularSolvers. S = diag(s) (empty s: S = I). The scaling is folded into
/// the solvers' copies of the factors, z = (U S^{-1})^{-1} (S^{-1} L)^{-1} x, so an apply is the two solves only.
/// With TriSolveKind::Auto the mode is decided once, for both triangles, by choose_tri_solve on the facts of L
/// (and the larger entry count of L and U; a unit lower L makes the pair an LU pair, TriSolveRuleInputs::lu).
template <class Scalar, class Device>
class FactorApply {
 public:
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;
  using crs_type = Crs<Scalar, Device>;
  using execution_space = typename Device::execution_space;

  void setup(const crs_type& L, const crs_type& U, bool unit_lower, const vector_type& s, const TriSolveOptions& opt);
  void setup(const crs_type& L, const crs_type& U, bool unit_lower, const vector_type& s, TriSolveKind kind,
             int sweeps) {
    TriSolveOptions o;
    o.kind = kind;
    o.sweeps = sweeps;
    setup(L, U, unit_lower, s, o);
  }
  void update(const crs_type& L, const crs_type& U, const vector_type& s);
  bool ready() const { return lower_.is_setup(); }
  void apply(const const_vector_type& x, const vector_type& z);
  /// apply() with s(slot) = xᵀz reduced by the upper solve's product or last Jacobi sweep, when that solve fuses it
  /// (TriangularSolver::fuses_dot) or the one-team launch runs the application; otherwise false, and nothing done.
  bool apply_dot(const const_vector_type& x, const vector_type& z, const Kokkos::View<double*, Device>& s, int slot);
  /// Launches a GMRES cycle in one team (Preconditioner::launch_gmres_team_cycle) with both triangles' Jacobi sweeps
  /// as its application of M⁻¹ (their long rows, listed at the first launch after setup(), on a thread's lanes each)
  /// and returns true, when both solvers are Jacobi solvers with a fixed sweep count; false, having done nothing,
  /// otherwise.
  bool launch_gmres_team_cycle(const GmresTeamCycleArgs<Scalar, Device>& args) const;
  /// Whether launch_gmres_team_cycle launches: both solvers are Jacobi solvers with a fixed sweep count.
  bool has_gmres_team_cycle() const {
    return ready() && lower_.kind() == TriSolveKind::Jacobi && upper_.kind() == TriSolveKind::Jacobi &&
           lower_.jacobi_sweeps() >= 1 && upper_.jacobi_sweeps() >= 1;
  }
  /// Both solves replayable from a CUDA graph (TriangularSolver::replayable).
  bool replayable() const { return ready() && lower_.replayable() && upper_.replayable(); }
  /// Counts `count` applications replayed from a recorded graph in both solvers' statistics.
  void note_replayed_applications(int count) {
    lower_.note_external_solves(count);
    upper_.note_external_solves(count);
  }
  /// The resolved mode ("isai", "jacobi(3)", "exact(cusparse)", ...), "auto: " in front when Auto chose it.
  std::string mode() const {
    if (!ready()) return "";
    const std::string l = lower_.stats().mode(), u = upper_.stats().mode();
    return (lower_.stats().reason.empty() ? "" : "auto: ") + l + (u != l ? " / " + u : "");
  }
  /// " in one launch" when both solves run in one launch of one team (TriSolveOptions::one_team_entries); for Jacobi
  /// solves launched per sweep on GPUs the sweeps' kernel (Impl::jacobi_sweep_rows_note: ", a thread per row" or
  /// ", lane groups", per triangle where they differ); else "" (also for Jacobi(0), x = D^{-1} b, which sweeps
  /// nothing); ", single-precision values" for ISAI solves whose product reads M's values in single precision
  /// (TriSolveOptions::isai_precision): the preconditioners' descriptions put it after "<mode> tri-solve".
  std::string launch_note() const {
    if (one_team_) return " in one launch";
    if (std::string note = precision_note(); !note.empty()) return note;
    if (!ready() || lower_.kind() != TriSolveKind::Jacobi || upper_.kind() != TriSolveKind::Jacobi ||
        lower_.jacobi_sweeps() < 1 || upper_.jacobi_sweeps() < 1)
      return "";
    return Impl::jacobi_sweep_rows_note(lower_.jacobi_sweep_rows(), upper_.jacobi_sweep_rows(),
                                        Impl::is_gpu_space<typename Device::execution_space>());
  }
  /// ", single-precision values" where the ISAI products read M's values in single precision
  /// (TriSolveOptions::isai_precision), else "".
  std::string precision_note() const {
    return ready() && lower_.stats().isai_single ? ", single-precision values" : "";
  }
  /// Both solves (Jacobi, or exact with ExactAlgorithm::OneTeam) run in one launch of one team
  /// (TriSolveOptions::one_team_entries).
  bool one_team() const { return one_team_; }
  const TriSolveStats& lower_stats() const { return lower_.stats(); }
  const TriSolveStats& upper_stats() const { return upper_.stats(); }

  // Kernel: public only because nvcc rejects device lambdas in private or protected member functions.
  void set_inverse_scaling(const vector_type& s, ordinal_t n);

 private:
  /// L and U square, with the same number of rows (the application writes the lower solve's result into a work
  /// vector of L's length that the upper solve reads; the one-team launch sweeps both over the same rows).
  static void check_factor_sizes(const crs_type& L, const crs_type& U) {
    if (L.numRows() != L.numCols() || U.numRows() != U.numCols() || L.numRows() != U.numRows())
      throw InvalidInput("FactorApply: factors of " + std::to_string(L.numRows()) + " x " +
                         std::to_string(L.numCols()) + " (L) and " + std::to_string(U.numRows()) + " x " +
                         std::to_string(U.numCols()) + " (U): both must be square, of the same size");
  }
  /// s: empty (no scaling) or one entry per row.
  static void check_scaling(const vector_type& s, ordinal_t n) {
    if (s.extent(0) != 0 && s.extent(0) != static_cast<std::size_t>(n))
      throw InvalidInput("FactorApply: scaling vector of length " + std::to_string(s.extent(0)) + " for factors of " +
                         std::to_string(n) + " rows");
  }

  /// Runs `upper` (the upper triangle's setup or update after the lower one's), then reads both triangles' checks
  /// in one wait (TriangularSolver::defer_verdict): the lower one's problem first, also when `upper` throws.
  template <class Upper>
  void then_both_checks(const Upper& upper) {
    try {
      upper();
    } catch (...) {
      TriangularSolver<Scalar, Device>::take_pending_verdicts(lower_, upper_);
      throw;
    }
    TriangularSolver<Scalar, Device>::take_pending_verdicts(lower_, upper_);
  }

  using OneTeam =
      Impl::JacobiPairOneTeam<execution_space, typename crs_type::row_map_type, typename crs_type::index_type,
                              vector_type, vector_type, const_vector_type, Kokkos::View<double, Device>>;
  using ExactPair = typename TriangularSolver<Scalar, Device>::ExactOneTeamSolve;
  // z = U^{-1} L^{-1} x in one launch of one team (Impl::JacobiPairOneTeam, or Impl::ExactOneTeam when both solvers
  // are exact one-team solvers); with `dot`, s(slot) = xᵀz
  void one_team_apply(const const_vector_type& x, const vector_type& z, const Kokkos::View<double*, Device>& s,
                      int slot, bool dot);
  /// Both Jacobi solvers' arrays and the work vector between them in the one-team functor; its b, d, z and out unset.
  OneTeam jacobi_pair() const {
    const auto l = lower_.jacobi_arrays(), u = upper_.jacobi_arrays();
    OneTeam f;
    f.L = {l.row_map, l.entries, l.values, l.inv_diag, l.work, l.sweeps, l.lower};
    f.U = {u.row_map, u.entries, u.values, u.inv_diag, u.work, u.sweeps, u.lower};
    f.w = w_;
    f.n = lower_.num_rows();
    return f;
  }
  ExactPair exact_pair(const const_vector_type& x, const vector_type& z) const {
    return TriangularSolver<Scalar, Device>::exact_one_team_functor(lower_, &upper_, x, z);
  }

  TriangularSolver<Scalar, Device> lower_, upper_;
  vector_type inv_s_, w_;
  // the triangles' long rows for the GMRES team cycle (Impl::team_long_rows), listed at its first launch after setup()
  // (a preconditioner serves one host thread at a time, as its counters do)
  mutable Kokkos::View<int*, Device> long_rows_l_, long_rows_u_;
  bool one_team_ = false, exact_one_team_ = false;
  int one_team_size_ = 1;
};

// The members of FactorApply that launch kernels, outside the class (see the instantiation declarations below).
template <class Scalar, class Device>
void FactorApply<Scalar, Device>::setup(const crs_type& L, const crs_type& U, bool unit_lower, const vector_type& s,
                                        const TriSolveOptions& opt) {
  check_factor_sizes(L, U);  // before anything of the previous set-up is replaced
  check_scaling(s, L.numRows());
  one_team_ = false;
  long_rows_l_ = long_rows_u_ = Kokkos::View<int*, Device>();
  // One allocation (Impl::uninitialized_parts) for the inverse scaling, the work vector between the solves (written by
  // the lower solve before the upper one reads it) and both solvers' arrays, sized for the mode each resolves from the
  // rule's facts without the Jacobi probe. The probe can only turn that mode (jacobi) into exact, which needs less,
  // or into jacobi with one sweep, which needs the same (TriangularSolver::array_sizes); it runs first, its two
  // iterates in the lower solver's part, which the lower solver overwrites when it loads its values. (Exact solvers
  // in one team allocate their level sets themselves.)
  const auto n = static_cast<std::size_t>(L.numRows());
  const std::int64_t rule_nnz = std::max<std::int64_t>(L.nnz(), U.nnz());
  // a unit lower L: the pair of an LU factorization (TriSolveRuleInputs::lu)
  TriSolveRuleInputs in = tri_solve_rule_inputs<execution_space>(L, true, unit_lower, rule_nnz, false, {}, unit_lower);
  using solver = TriangularSolver<Scalar, Device>;
  const TriSolveChoice c = solver::resolve_kind(opt, in);
  // one ISAI pattern power for both triangles, from the facts the mode was chosen on (isai_power_rule); an extended
  // pattern's values are allocated with the pattern, not here
  TriSolveOptions o = opt;
  if (c.kind == TriSolveKind::Isai && o.isai_power == 0)
    o.isai_power = isai_power_rule(static_cast<std::int64_t>(n), rule_nnz);
  auto part = [&](const crs_type& T) {
    return Impl::parts_extent(
        solver::array_sizes(c.kind, c.sweeps, n, static_cast<std::size_t>(T.nnz()), o.isai_power));
  };
  const std::array<std::size_t, 4> sizes = {s.extent(0) == n ? n : 0, n, part(L), part(U)};
  const auto v = Impl::uninitialized_parts<vector_type, 4>("AsyncSparse::factor_apply::arrays", sizes);
  inv_s_ = v[0];
  w_ = v[1];
  if (opt.kind == TriSolveKind::Auto)
    in = tri_solve_rule_inputs<execution_space>(L, true, unit_lower, rule_nnz, true, v[2], unit_lower);
  set_inverse_scaling(s, L.numRows());
  lower_.defer_verdict(true);  // both triangles' checks in one wait
  upper_.defer_verdict(true);
  lower_.setup(L, true, unit_lower, o, inv_s_, const_vector_type(), &in, v[2]);
  then_both_checks([&] { upper_.setup(U, false, false, o, const_vector_type(), inv_s_, &in, v[3]); });
  // both solves in one launch of one team where the triangles are small (TriSolveOptions::one_team_entries)
  const std::int64_t max_entries =
      opt.one_team_entries >= 0
          ? opt.one_team_entries
          : (Impl::is_gpu_space<execution_space>() ? kGpuJacobiOneTeamMaxEntries : std::int64_t(0));
  one_team_ = lower_.kind() == TriSolveKind::Jacobi && upper_.kind() == TriSolveKind::Jacobi &&
              lower_.jacobi_sweeps() >= 1 && upper_.jacobi_sweeps() >= 1 && rule_nnz <= max_entries && n > 0;
  if (one_team_)
    one_team_size_ =
        std::min(1024, Impl::TeamPolicy<execution_space>(1, 1).team_size_max(OneTeam(), Kokkos::ParallelForTag()));
  // exact solvers that each chose one team (TriangularSolver, ExactAlgorithm::Auto with one_team_entries): both in
  // one launch
  exact_one_team_ = lower_.exact_one_team() && upper_.exact_one_team() && n > 0;
  if (exact_one_team_) {  // the pair's scratch: the larger triangle's entries and levels
    const auto l = lower_.exact_one_team_arrays(), u = upper_.exact_one_team_arrays();
    exact_one_team_ = Impl::exact_one_team_fits<execution_space, Scalar>(
        static_cast<std::int64_t>(n), std::max(l.offdiag, u.offdiag), std::max(l.levels, u.levels));
  }
  if (exact_one_team_) {
    one_team_ = true;
    one_team_size_ = Impl::exact_one_team_size<execution_space>(exact_pair(const_vector_type(), vector_type()));
  }
}

template <class Scalar, class Device>
void FactorApply<Scalar, Device>::one_team_apply(const const_vector_type& x, const vector_type& z,
                                                 const Kokkos::View<double*, Device>& s, int slot, bool dot) {
  if (exact_one_team_) {
    ExactPair f = exact_pair(x, z);
    if (dot) f.out = Kokkos::subview(s, slot);
    f.dot = dot;
    Impl::exact_one_team_launch<execution_space>(f, one_team_size_);
    lower_.note_external_solves(1);
    upper_.note_external_solves(1);
    return;
  }
  OneTeam f = jacobi_pair();
  f.b = x;
  f.d = x;
  f.z = z;
  if (dot) f.out = Kokkos::subview(s, slot);
  f.dot = dot;
  Compat::parallel_for_prefer_l1(
      "AsyncSparse::factor_apply::jacobi_one_team",
      Impl::TeamPolicy<execution_space>(Impl::launch_instance<execution_space>(), 1, one_team_size_), f);
  lower_.note_external_solves(1);
  upper_.note_external_solves(1);
}

template <class Scalar, class Device>
bool FactorApply<Scalar, Device>::launch_gmres_team_cycle(const GmresTeamCycleArgs<Scalar, Device>& args) const {
  if (!has_gmres_team_cycle()) return false;
  if (long_rows_l_.extent(0) == 0) {  // once per set-up (the patterns): the rows a thread's lanes take in the cycle
    const auto exec = Impl::launch_instance<execution_space>();
    long_rows_l_ = Impl::team_long_rows<Device>(exec, lower_.jacobi_arrays().row_map, lower_.num_rows(), 1);
    long_rows_u_ = Impl::team_long_rows<Device>(exec, upper_.jacobi_arrays().row_map, upper_.num_rows(), 1);
  }
  OneTeam pair = jacobi_pair();
  pair.L.long_rows = long_rows_l_;
  pair.U.long_rows = long_rows_u_;
  Impl::gmres_team_cycle_launch(args, Impl::JacobiPairTeamApply<OneTeam>{pair});
  return true;
}

template <class Scalar, class Device>
void FactorApply<Scalar, Device>::update(const crs_type& L, const crs_type& U, const vector_type& s) {
  set_inverse_scaling(s, L.numRows());
  lower_.update_values(L, inv_s_, const_vector_type());
  then_both_checks([&] { upper_.update_values(U, const_vector_type(), inv_s_); });
}

template <class Scalar, class Device>
void FactorApply<Scalar, Device>::apply(const const_vector_type& x, const vector_type& z) {
  // the exact pair reads x into scratch memory before it writes z: x and z may alias
  if (one_team_ && (exact_one_team_ || x.data() != z.data()) && x.extent(0) == w_.extent(0) &&
      z.extent(0) == w_.extent(0)) {
    one_team_apply(x, z, Kokkos::View<double*, Device>(), 0, false);
    return;
  }
  lower_.solve(x, w_);
  upper_.solve(w_, z);
}

template <class Scalar, class Device>
bool FactorApply<Scalar, Device>::apply_dot(const const_vector_type& x, const vector_type& z,
                                            const Kokkos::View<double*, Device>& s, int slot) {
  if (x.data() == z.data()) return false;
  if (one_team_ && x.extent(0) == w_.extent(0) && z.extent(0) == w_.extent(0)) {
    Impl::check_scalar_slot("FactorApply::apply_dot", s, slot);
    one_team_apply(x, z, s, slot, true);
    return true;
  }
  if (!upper_.fuses_dot()) return false;
  Impl::check_scalar_slot("FactorApply::apply_dot", s, slot);  // before the lower solve: nothing done on error
  lower_.solve(x, w_);
  return upper_.solve_dot(w_, z, x, s, slot);
}

template <class Scalar, class Device>
void FactorApply<Scalar, Device>::set_inverse_scaling(const vector_type& s, ordinal_t n) {
  check_scaling(s, n);
  if (s.extent(0) == 0) {
    inv_s_ = vector_type();
    return;
  }
  if (inv_s_.extent(0) != s.extent(0))
    inv_s_ = vector_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::factor_apply::inv_s"), n);
  auto inv = inv_s_;
  Kokkos::parallel_for(
      "AsyncSparse::factor_apply::inverse_scaling", Impl::RangePolicy<execution_space>(0, n),
      KOKKOS_LAMBDA(const ordinal_t i) { inv(i) = Scalar(1) / s(i); });
}

/// Declares the triangular-solve parameters of the incomplete-factorization preconditioners.
inline void add_tri_solve_parameters(ParameterSpec& s) {
  s.add("tri_solve", std::string("auto"),
        "triangular solves in apply: auto (choose_tri_solve: exact on host backends; isai, jacobi or exact on GPUs "
        "by size and a Jacobi probe) | exact (GPUs: level sets in one launch of one team for triangles that fit its "
        "scratch memory, else cuSPARSE SpSV on CUDA, KK level sets on HIP; serial substitution on host) | "
        "jacobi (tri_solve_sweeps Jacobi sweeps) | jacobi_adaptive (sweeps until the triangular residual drops by "
        "tri_solve_tolerance or stagnates) | isai (one spmv with the incomplete sparse approximate inverse)",
        tri_solve_kind_names())
      .add("tri_solve_sweeps", -1,
           "jacobi: sweeps per solve (>= 0); jacobi_adaptive: maximum sweeps (>= 1); isai: correction steps "
           "x += M (b - T x) (>= 0); -1: default (jacobi 3, jacobi_adaptive 10, isai 0; auto: the rule's)")
      .add("tri_solve_isai_power", 0,
           "isai: the pattern of the approximate inverses is that of |T|^k (1: the triangle's own; 2: each row the "
           "union of the rows its entries meet; at most 3): fewer Krylov iterations for larger products; 0: the rule "
           "isai_power_rule (2 for triangles of at most 4 entries per row on average, else 1)")
      .add("tri_solve_isai_precision", std::string("auto"),
           "isai: the precision of the approximate inverses' values in the product, which sums in the working "
           "precision: auto (single on GPUs, working on host backends) | working | single (a value beyond float's "
           "range: an error; auto keeps the working precision then)",
           isai_precision_names())
      .add("tri_solve_tolerance", 1e-2,
           "jacobi_adaptive: stop once the triangular residual is this fraction of that of x0 = D^-1 b (> 0)")
      .add("tri_solve_stagnation", 0.9,
           "jacobi_adaptive: stop when a check finds the residual above this times the previous check's (> 0)")
      .add("tri_solve_check_interval", 1,
           "jacobi_adaptive: sweeps between residual checks (>= 1; each is a device-to-host transfer)")
      .add("tri_solve_one_team_entries", -1,
           "jacobi with >= 1 sweep in both triangles: both solves in one kernel launch of one team where the larger "
           "triangle has at most this many entries; exact: a triangle of at most this many entries whose arrays fit "
           "one team's scratch memory is solved by level sets in one launch of one team, both in one launch when both "
           "are (-1: auto, on GPUs 2048 for jacobi and whatever fits for exact, on host backends never; 0: never)");
}

/// Reads the parameters of add_tri_solve_parameters; throws InvalidInput (prefixed with `owner`) for bad values.
inline TriSolveOptions tri_solve_options_from(const ParameterList& l, const std::string& owner) {
  TriSolveOptions o;
  o.kind = tri_solve_kind_from_string(l.get("tri_solve", "auto"));
  o.sweeps = l.get("tri_solve_sweeps", -1);
  o.tolerance = l.get("tri_solve_tolerance", 1e-2);
  o.stagnation = l.get("tri_solve_stagnation", 0.9);
  o.check_interval = l.get("tri_solve_check_interval", 1);
  o.one_team_entries = l.get("tri_solve_one_team_entries", -1);
  o.isai_power = l.get("tri_solve_isai_power", 0);
  o.isai_precision = isai_precision_from_string(l.get("tri_solve_isai_precision", "auto"));
  if (o.sweeps < -1)
    throw InvalidInput(owner + ": parameter 'tri_solve_sweeps' must be >= 0 (or -1: default), got " +
                       std::to_string(o.sweeps));
  if (o.kind == TriSolveKind::JacobiAdaptive && o.sweeps == 0)
    throw InvalidInput(owner + ": parameter 'tri_solve_sweeps' must be >= 1 for jacobi_adaptive, got 0");
  if (!(o.tolerance > 0))
    throw InvalidInput(owner + ": parameter 'tri_solve_tolerance' must be > 0, got " + std::to_string(o.tolerance));
  if (!(o.stagnation > 0))
    throw InvalidInput(owner + ": parameter 'tri_solve_stagnation' must be > 0, got " + std::to_string(o.stagnation));
  if (o.check_interval < 1)
    throw InvalidInput(owner + ": parameter 'tri_solve_check_interval' must be >= 1, got " +
                       std::to_string(o.check_interval));
  if (o.isai_power < 0 || o.isai_power > kMaxIsaiPower)
    throw InvalidInput(owner + ": parameter 'tri_solve_isai_power' must be between 0 (the rule) and " +
                       std::to_string(kMaxIsaiPower) + ", got " + std::to_string(o.isai_power));
  if (o.one_team_entries < -1)
    throw InvalidInput(owner + ": parameter 'tri_solve_one_team_entries' must be >= 0 (or -1: auto), got " +
                       std::to_string(o.one_team_entries));
  return o;
}

/// Parameters shared by ParIlu and ParIc.
inline const ParameterSpec& par_ilu_parameter_spec() {
  static const ParameterSpec spec = [] {
    ParameterSpec s;
    s.add("sweeps", 5, "fixed-point sweeps per compute() (>= 0; 0 = the initial guess)")
        .add("tolerance", 0.0, "stop the sweeps once the relative nonlinear residual is <= tolerance (0: never)")
        .add("residual_interval", 0, "compute the nonlinear residual every k sweeps (0: only with a tolerance)")
        .add("divergence_tolerance", 1e3,
             "DivergenceError when a computed nonlinear residual exceeds this (>= 0; 0 = no check)")
        .add("mode", std::string("async"), "async (in place, the paper's method) | deterministic (Jacobi style)",
             {"async", "deterministic"})
        .add("ordering", std::string("row-major"), "task-list ordering", {"row-major", "random", "mesh-blocked"})
        .add("ordering_seed", 0, "seed of the random task-list ordering")
        .add("mesh_nx", 0, "mesh points in x for mesh-blocked ordering")
        .add("mesh_ny", 0, "mesh points in y for mesh-blocked ordering")
        .add("mesh_nz", 1, "mesh points in z for mesh-blocked ordering (1: 2D mesh)")
        .add("mesh_block", 8, "subdomain edge b of the b x b (x b) mesh blocking")
        .add("fill_level", 0, "level of fill k of the ILU(k) pattern the sweeps run on")
        .add("reuse_factors", false, "start compute() after setMatrix (same pattern) from the previous factors")
        .add("scale", true, "scale A to unit diagonal before the sweeps (keep true: the paper's setting)")
        .add("breakdown_patience", 0,
             "async mode: consecutive sweeps with a skipped (bad-pivot) update before "
             "compute() throws; 0: only when the last sweep skipped one")
        .add("diagonal_shift", kPreconditionerDiagonalShift,
             "on a breakdown or divergence start over on the scaled matrix with its diagonal times 1 + alpha, "
             "alpha = this, 10x, ... <= 1 (0: none; [0, 1))")
        .add("sweep_kernel", std::string("auto"),
             "kernel of the sweeps: auto (the measured rule choose_sweep_kernel) | entry (one thread per unknown, "
             "merging index lists) | list (lanes per unknown over its product list) | row (vector lanes per row) | "
             "row_merge (one thread per row, merging index lists) | row_team (rows staged in team memory, a thread "
             "per unknown, no product lists; asynchronous mode only)",
             {"auto", "entry", "list", "row", "row_merge", "row_team"})
        .add(
            "sweep_order", std::string("auto"),
            "order of the updates in a sweep: concurrent (the sweeps above) | ordered (one sweep in row order, level "
            "by level: the exact factorization of the pattern) | auto (concurrent; where that breaks down or diverges, "
            "ordered: on host backends from then on, on GPUs for the last diagonal shift's attempt (or the only "
            "one without restarts) only)",
            {"concurrent", "ordered", "auto"});
    add_tri_solve_parameters(s);
    return add_launch_parameters(s);  // of the sweeps (the defaults of the sweep kernel: ParIluHandle::launch)
  }();
  return spec;
}

}  // namespace Impl

/// Iterative ILU (kind Ilu) or IC (kind Ic) preconditioner; use the ParIlu / ParIc aliases below.
template <class Scalar, class Device>
class ParIncompletePreconditioner : public PreconditionerBase<Scalar, Device> {
  using B = PreconditionerBase<Scalar, Device>;

 public:
  using typename B::const_vector_type;
  using typename B::matrix_type;
  using typename B::vector_type;
  using execution_space = typename Device::execution_space;

  ParIncompletePreconditioner(const matrix_type& A, ParIluKind kind) : B(A), handle_(kind), kind_(kind) {}

  std::string name() const override { return kind_ == ParIluKind::Ic ? "ParIc" : "ParIlu"; }
  const ParameterSpec& parameter_spec() const override { return Impl::par_ilu_parameter_spec(); }
  std::string description() const override {
    const auto& p = handle_.params;
    return name() + "(" + sweeps_description() + ", " + to_string(p.mode) + Impl::shift_description(handle_.stats()) +
           tail_description() + ", " + tri_solve_mode() + " tri-solve" + apply_.launch_note() + ")";
  }
  /// The triangular-solve mode: the resolved one after compute() ("auto: isai"), else the parameter.
  std::string tri_solve_mode() const { return apply_.ready() ? apply_.mode() : to_string(tri_.kind); }
  /// ", 5 sweeps more after a breakdown" when the last shift needed them (Stats::breakdown_tail_sweeps), else "".
  std::string tail_description() const {
    const int k = handle_.stats().breakdown_tail_sweeps;  // of the factors in use, not of a failed numeric phase
    return k > 0 && handle_.numeric_done() ? ", " + std::to_string(k) + " sweeps more after a breakdown"
                                           : std::string();
  }
  /// "5 sweeps", or for factors of the ordered sweep (Params::sweep_order) "1 ordered sweep" (where concurrent
  /// sweeps failed first, Stats::ordered_reason: "1 ordered sweep after the concurrent ones failed").
  std::string sweeps_description() const {
    const auto& p = handle_.params;
    if (!handle_.numeric_done() || !handle_.stats().ordered) return std::to_string(p.sweeps) + " sweeps";
    return handle_.stats().ordered_reason.empty() ? "1 ordered sweep"
                                                  : "1 ordered sweep after the concurrent ones failed";
  }
  /// What the lower / upper triangular solver resolved and did (mode, the auto rule's reason, sweeps, checks).
  const TriSolveStats& lower_solve_stats() const { return apply_.lower_stats(); }
  const TriSolveStats& upper_solve_stats() const { return apply_.upper_stats(); }

  /// The factorization handle (parameters, launch, Stats of the last compute).
  ParIluHandle<Scalar, Device>& handle() { return handle_; }
  const ParIluHandle<Scalar, Device>& handle() const { return handle_; }

 protected:
  void set_parameters_impl(const ParameterList& l) override {
    auto& p = handle_.params;
    p.kind = kind_;
    p.sweeps = l.get("sweeps", 5);
    p.tolerance = l.get("tolerance", 0.0);
    p.residual_interval = l.get("residual_interval", 0);
    p.divergence_tolerance = l.get("divergence_tolerance", 1e3);
    p.mode = sweep_mode_from_string(l.get("mode", "async"));
    p.ordering = task_ordering_from_string(l.get("ordering", "row-major"));
    p.ordering_seed = static_cast<std::uint64_t>(l.get("ordering_seed", 0));
    p.mesh.nx = l.get("mesh_nx", 0);
    p.mesh.ny = l.get("mesh_ny", 0);
    p.mesh.nz = l.get("mesh_nz", 1);
    p.mesh.block = l.get("mesh_block", 8);
    p.fill_level = l.get("fill_level", 0);
    p.reuse_factors = l.get("reuse_factors", false);
    p.scale = l.get("scale", true);
    p.breakdown_patience = l.get("breakdown_patience", 0);
    p.sweep_kernel = sweep_kernel_from_string(l.get("sweep_kernel", "auto"));
    p.diagonal_shift = l.get("diagonal_shift", Impl::kPreconditionerDiagonalShift);
    p.sweep_order = sweep_order_from_string(l.get("sweep_order", "auto"));
    tri_ = Impl::tri_solve_options_from(l, name());
    handle_.launch = launch_config_from_parameters(l, name());
    apply_ready_ = false;
  }
  void initialize_impl() override {
    par_ilu_symbolic(execution_space(), handle_, this->A_);
    apply_ready_ = false;
  }
  void compute_impl() override {
    const execution_space exec;
    par_ilu_numeric(exec, handle_, this->A_);
    const Compat::ScopedRegion region("AsyncSparse::factor_apply::setup");
    const auto F = par_ilu_factors(exec, handle_);
    if (!apply_ready_) {
      apply_.setup(F.L, F.U, kind_ == ParIluKind::Ilu, handle_.scaling(), tri_);
      apply_ready_ = true;
    } else {
      apply_.update(F.L, F.U, handle_.scaling());
    }
  }
  void apply_impl(const const_vector_type& x, const vector_type& z) override { apply_.apply(x, z); }
  bool replayable_impl() const override { return apply_.replayable(); }
  void note_replays_impl(int count) override { apply_.note_replayed_applications(count); }
  bool launch_team_cycle_impl(const GmresTeamCycleArgs<Scalar, Device>& args) override {
    return apply_.launch_gmres_team_cycle(args);
  }
  bool has_team_cycle_impl() const override { return apply_.has_gmres_team_cycle(); }
  bool apply_dot_impl(const const_vector_type& x, const vector_type& z, const Kokkos::View<double*, Device>& s,
                      int slot) override {
    return apply_.apply_dot(x, z, s, slot);
  }

 private:
  ParIluHandle<Scalar, Device> handle_;
  ParIluKind kind_;
  TriSolveOptions tri_;
  Impl::FactorApply<Scalar, Device> apply_;
  bool apply_ready_ = false;
};

/// Iterative ILU(0) (or ILU(k)) preconditioner: A_s ≈ L U by asynchronous sweeps.
template <class Scalar, class Device>
class ParIlu final : public ParIncompletePreconditioner<Scalar, Device> {
 public:
  explicit ParIlu(const Crs<Scalar, Device>& A) : ParIncompletePreconditioner<Scalar, Device>(A, ParIluKind::Ilu) {}
};

/// Iterative IC(0) preconditioner for symmetric positive definite A: A_s ≈ L Lᵀ by asynchronous sweeps.
template <class Scalar, class Device>
class ParIc final : public ParIncompletePreconditioner<Scalar, Device> {
 public:
  explicit ParIc(const Crs<Scalar, Device>& A) : ParIncompletePreconditioner<Scalar, Device>(A, ParIluKind::Ic) {}
};

/// Applies given factors: z = S U^{-1} L^{-1} S x (s empty: S = I). For baselines (exact ILU(0)/IC(0) from
/// the host reference, Kokkos-Kernels spiluk, cuSPARSE): L lower (unit diagonal when `unit_lower`), U upper.
template <class Scalar, class Device>
class IncompleteFactorPreconditioner final : public PreconditionerBase<Scalar, Device> {
  using B = PreconditionerBase<Scalar, Device>;

 public:
  using typename B::const_vector_type;
  using typename B::matrix_type;
  using typename B::vector_type;

  IncompleteFactorPreconditioner(const matrix_type& A, const matrix_type& L, const matrix_type& U, bool unit_lower,
                                 const vector_type& s, TriSolveKind kind = TriSolveKind::Exact, int sweeps = 5,
                                 std::string label = "factors")
      : IncompleteFactorPreconditioner(A, L, U, unit_lower, s, tri_options(kind, sweeps), std::move(label)) {}
  /// The same with all triangular-solve options (e.g. TriSolveOptions::exact_algorithm: a baseline pinned to
  /// cuSPARSE SpSV).
  IncompleteFactorPreconditioner(const matrix_type& A, const matrix_type& L, const matrix_type& U, bool unit_lower,
                                 const vector_type& s, const TriSolveOptions& tri, std::string label)
      : B(A), L_(L), U_(U), s_(s), unit_(unit_lower), tri_(tri), label_(std::move(label)) {}

  std::string name() const override { return label_; }
  const ParameterSpec& parameter_spec() const override {
    static const ParameterSpec spec;
    return spec;
  }
  /// After compute(): the resolved triangular-solve mode ("auto: isai+1", "jacobi(3)", "exact(cusparse)", ...), with
  /// ", single-precision values" where an ISAI product reads them (TriSolveOptions::isai_precision; run records).
  std::string tri_solve_mode() const {
    return apply_.mode() + apply_.precision_note();
  }
  /// After compute(), when the mode was Auto: the rule's reason (choose_tri_solve); "" otherwise.
  const std::string& tri_solve_reason() const { return apply_.lower_stats().reason; }

 protected:
  void compute_impl() override {
    if (L_.numRows() != this->matrix().numRows())
      throw InvalidInput(label_ + "::compute: factors of " + std::to_string(L_.numRows()) + " rows for a matrix of " +
                         std::to_string(this->matrix().numRows()));
    apply_.setup(L_, U_, unit_, s_, tri_);
  }
  void apply_impl(const const_vector_type& x, const vector_type& z) override { apply_.apply(x, z); }
  bool replayable_impl() const override { return apply_.replayable(); }
  void note_replays_impl(int count) override { apply_.note_replayed_applications(count); }
  bool launch_team_cycle_impl(const GmresTeamCycleArgs<Scalar, Device>& args) override {
    return apply_.launch_gmres_team_cycle(args);
  }
  bool has_team_cycle_impl() const override { return apply_.has_gmres_team_cycle(); }
  bool apply_dot_impl(const const_vector_type& x, const vector_type& z, const Kokkos::View<double*, Device>& s,
                      int slot) override {
    return apply_.apply_dot(x, z, s, slot);
  }

 private:
  matrix_type L_, U_;
  vector_type s_;
  static TriSolveOptions tri_options(TriSolveKind kind, int sweeps) {
    TriSolveOptions o;
    o.kind = kind;
    o.sweeps = sweeps;
    return o;
  }

  bool unit_;
  TriSolveOptions tri_;
  std::string label_;
  Impl::FactorApply<Scalar, Device> apply_;
};

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured scalars
// and devices; other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_PAR_ILU_PRECONDITIONER(EXTERN, S, D)                                                          \
  EXTERN template class Impl::FactorApply<S, D>;                                                                      \
  EXTERN template class ParIncompletePreconditioner<S, D>;                                                            \
  EXTERN template class ParIlu<S, D>;                                                                                 \
  EXTERN template class ParIc<S, D>;                                                                                  \
  EXTERN template class IncompleteFactorPreconditioner<S, D>;
ASYNCSPARSE_ETI_DECLARE_DOUBLE(ASYNCSPARSE_ETI_PAR_ILU_PRECONDITIONER)

}  // namespace AsyncSparse
