// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParIlut / ParIct: threshold incomplete LU / Cholesky preconditioners computed by ParILUT /
// ParICT (Anzt, Chow & Dongarra, SISC 2018; Anzt, Ribizel, Flegar, Chow & Dongarra, IPDPS 2019), see
// AsyncSparse_par_ilut.hpp.
//
// compute() scales A to unit diagonal, A_s = S A S, and runs the ParILUT steps for A_s ≈ L U (ParICT: L Lᵀ);
// apply() keeps the scaling: z = M^{-1} x = S U^{-1} L^{-1} S x, with the triangular solves of
// AsyncSparse_trisolve.hpp (parameter "tri_solve", shared with ParIlu: auto, exact, jacobi, jacobi_adaptive, isai),
// through the FactorApply of the ParIlu preconditioner. initialize() is par_ilut_symbolic, compute()
// par_ilut_numeric. Pattern reuse: compute() after setMatrix() with a matrix of the same pattern (and
// "reuse_pattern" = true, the default) keeps the factor pattern and reruns only "reuse_sweeps" sweeps from the
// previous factors (Params::reuse_pattern); a new pattern or new parameters rerun the whole factorization.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <string>

#include <asyncsparse/exec/AsyncSparse_launch_parameters.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_preconditioner.hpp>

namespace AsyncSparse {

namespace Impl {
/// Parameters shared by ParIlut and ParIct.
inline const ParameterSpec& par_ilut_parameter_spec() {
  static const ParameterSpec spec = [] {
    ParameterSpec s;
    s.add("steps", 30,
          "most ParILUT steps (>= 0; 0 = the ILU(0)-pattern initial guess); stagnation_tolerance stops earlier")
        .add("fill_in_limit", 1.0, "fill budget per factor, times the entries of the ILU(0) factor (> 0)")
        .add("select", std::string("exact"), "threshold selection: exact | approx (one SampleSelect level)",
             {"exact", "approx"})
        .add("mode", std::string("async"), "sweeps: async (in place) | deterministic (Jacobi style, reproducible)",
             {"async", "deterministic"})
        .add("stagnation_tolerance", 0.01,
             "stop when a step improves the ILU residual by less than this fraction, or leaves the pattern unchanged "
             "(0: run all steps)")
        .add("divergence_tolerance", 1e3,
             "DivergenceError when the relative ILU residual of a step exceeds this (>= 0; 0 = no check)")
        .add("initial_sweeps", -1, "sweeps on the pattern of A before step 1 (-1 adaptive, 0 none, k > 0: k)")
        .add("sweep_tolerance", 0.1, "adaptive sweeps: again while the pattern residual > this x the first (0: one)")
        .add("max_sweeps", 10, "most sweeps of an adaptive phase (>= 1)")
        .add("initial_sweep_tolerance", 1e-3, "the same rule for the initial sweeps (initial_sweeps = -1)")
        .add("initial_max_sweeps", 30, "most adaptive initial sweeps (>= 1)")
        .add("final_sweeps", 0, "sweeps on the final pattern after the last step (-1 adaptive)")
        .add("pivot_tolerance", 1e-8,
             "pivots below this (scaled matrix) are replaced and counted (0: a zero / non-positive pivot is a "
             "breakdown)")
        .add("diagonal_shift", Impl::kPreconditionerDiagonalShift,
             "on a breakdown or divergence start over on the scaled matrix with alpha added to its unit diagonal, "
             "alpha = this, 10x, ... <= 1 (0: none; [0, 1))")
        .add("shift_initial_only", true,
             "with a diagonal shift: shift only the initial guess, the steps factor the unshifted matrix (where "
             "that fails: the whole phase)")
        .add("sweep_order", std::string("auto"),
             "order of the updates in a sweep: concurrent | ordered (row order, level by level: Gauss-Seidel) | auto "
             "(concurrent; ordered where that breaks down or diverges)",
             {"concurrent", "ordered", "auto"})
        .add("reuse_pattern", true, "compute() after setMatrix with the same pattern: sweeps on the old pattern only")
        .add("reuse_sweeps", 3, "sweeps of such a pattern-reusing compute() (>= 0)")
        .add("bucket_counting", std::string("team"), "SampleSelect bucket counts: team (scratch) | global atomics",
             {"team", "global"})
        .add("candidate_kernel", std::string("auto"),
             "pattern of the candidate phase: auto (bitmap where a row's column span fits the scratch) | bitmap | sort",
             {"auto", "bitmap", "sort"})
        .add("sweep_kernel", std::string("auto"),
             "kernel of the concurrent sweeps: auto (GPUs: list for the pattern-reusing compute() of large matrices, "
             "row_team for the full one of matrices of many rows; entry otherwise) "
             "| "
             "entry (each entry merges two index lists) | list (each entry sums a product list built per pattern) | "
             "row_team (a team stages each row of L once for the row's updates)",
             {"auto", "entry", "list", "row_team"});
    add_tri_solve_parameters(s);
    return add_launch_parameters(s);  // of the sweeps (the threshold selection has its own, Params::select)
  }();
  return spec;
}
}  // namespace Impl

/// ParILUT (kind Ilut) or ParICT (kind Ict) preconditioner; use the ParIlut / ParIct aliases below.
template <class Scalar, class Device>
class ParThresholdPreconditioner : public PreconditionerBase<Scalar, Device> {
  using B = PreconditionerBase<Scalar, Device>;

 public:
  using typename B::const_vector_type;
  using typename B::matrix_type;
  using typename B::vector_type;
  using execution_space = typename Device::execution_space;

  ParThresholdPreconditioner(const matrix_type& A, ParIlutKind kind) : B(A), handle_(kind), kind_(kind) {
    handle_.params.reuse_pattern = true;  // the defaults of "reuse_pattern", "diagonal_shift" and "sweep_order"
    handle_.params.diagonal_shift = Impl::kPreconditionerDiagonalShift;
    handle_.params.sweep_order = SweepOrder::Auto;
  }

  std::string name() const override { return kind_ == ParIlutKind::Ict ? "ParIct" : "ParIlut"; }
  const ParameterSpec& parameter_spec() const override { return Impl::par_ilut_parameter_spec(); }
  std::string description() const override {
    const auto& p = handle_.params;
    char fill[32];
    std::snprintf(fill, sizeof fill, "%g", p.fill_in_limit);
    return name() + "(" + std::to_string(p.max_steps) + " steps, fill " + fill + ", " + to_string(p.selection) +
           " select, " + to_string(p.mode) + (handle_.stats().ordered ? ", ordered sweeps" : "") +
           Impl::shift_description(handle_.stats(), handle_.stats().shift_initial_only) + ", " + tri_solve_mode() +
           " tri-solve" + apply_.launch_note() + ")";
  }
  /// The triangular-solve mode: the resolved one after compute() ("auto: isai"), else the parameter.
  std::string tri_solve_mode() const { return apply_.ready() ? apply_.mode() : to_string(tri_.kind); }
  /// What the lower / upper triangular solver resolved and did (mode, the auto rule's reason, sweeps, checks).
  const TriSolveStats& lower_solve_stats() const { return apply_.lower_stats(); }
  const TriSolveStats& upper_solve_stats() const { return apply_.upper_stats(); }

  /// The factorization handle (parameters, launch, Stats of the last compute).
  ParIlutHandle<Scalar, Device>& handle() { return handle_; }
  const ParIlutHandle<Scalar, Device>& handle() const { return handle_; }
  /// True when the last compute() reused the factor pattern (sweeps only).
  bool last_compute_reused_pattern() const { return reused_; }

 protected:
  void set_parameters_impl(const ParameterList& l) override {
    auto& p = handle_.params;
    p.kind = kind_;
    p.max_steps = l.get("steps", 30);
    p.fill_in_limit = l.get("fill_in_limit", 1.0);
    p.selection = threshold_selection_from_string(l.get("select", "exact"));
    p.mode = sweep_mode_from_string(l.get("mode", "async"));
    p.stagnation_tolerance = l.get("stagnation_tolerance", 0.01);
    p.divergence_tolerance = l.get("divergence_tolerance", 1e3);
    p.reuse_sweeps = l.get("reuse_sweeps", 3);
    p.initial_sweeps = l.get("initial_sweeps", -1);
    p.sweep_tolerance = l.get("sweep_tolerance", 0.1);
    p.max_sweeps = l.get("max_sweeps", 10);
    p.initial_sweep_tolerance = l.get("initial_sweep_tolerance", 1e-3);
    p.initial_max_sweeps = l.get("initial_max_sweeps", 30);
    p.final_sweeps = l.get("final_sweeps", 0);
    p.pivot_tolerance = l.get("pivot_tolerance", 1e-8);
    p.diagonal_shift = l.get("diagonal_shift", Impl::kPreconditionerDiagonalShift);
    p.sweep_order = sweep_order_from_string(l.get("sweep_order", "auto"));
    p.shift_initial_only = l.get("shift_initial_only", true);
    p.select.counting = l.get("bucket_counting", "team") == std::string("global") ? BucketCounting::GlobalAtomics
                                                                                  : BucketCounting::TeamAtomics;
    p.reuse_pattern = l.get("reuse_pattern", true);
    p.candidate_kernel = candidate_kernel_from_string(l.get("candidate_kernel", "auto"));
    p.sweep_kernel = par_ilut_sweep_kernel_from_string(l.get("sweep_kernel", "auto"));
    tri_ = Impl::tri_solve_options_from(l, name());
    Impl::ilut_check_handle_params(handle_, name());
    handle_.launch = launch_config_from_parameters(l, name());
  }
  // a new pattern: the next compute() starts over from the initial guess
  void initialize_impl() override { par_ilut_symbolic(execution_space(), handle_, this->A_); }
  void compute_impl() override {
    const execution_space exec;
    par_ilut_numeric(exec, handle_, this->A_);
    reused_ = handle_.stats().reused_pattern;
    const auto L = par_ilut_lower(exec, handle_);
    const auto U = par_ilut_upper(exec, handle_);
    if (reused_)
      apply_.update(L, U, handle_.scaling());
    else
      apply_.setup(L, U, kind_ == ParIlutKind::Ilut, handle_.scaling(), tri_);
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
  ParIlutHandle<Scalar, Device> handle_;
  ParIlutKind kind_;
  TriSolveOptions tri_;
  bool reused_ = false;
  Impl::FactorApply<Scalar, Device> apply_;
};

/// ParILUT preconditioner: A_s ≈ L U with a threshold pattern of fill_in_limit × nnz(ILU(0)) entries.
template <class Scalar, class Device>
class ParIlut final : public ParThresholdPreconditioner<Scalar, Device> {
 public:
  explicit ParIlut(const Crs<Scalar, Device>& A) : ParThresholdPreconditioner<Scalar, Device>(A, ParIlutKind::Ilut) {}
};

/// ParICT preconditioner for symmetric positive definite A: A_s ≈ L Lᵀ with a threshold pattern.
template <class Scalar, class Device>
class ParIct final : public ParThresholdPreconditioner<Scalar, Device> {
 public:
  explicit ParIct(const Crs<Scalar, Device>& A) : ParThresholdPreconditioner<Scalar, Device>(A, ParIlutKind::Ict) {}
};

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured scalars
// and devices; other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_PAR_ILUT_PRECONDITIONER(EXTERN, S, D)                                                         \
  EXTERN template class ParThresholdPreconditioner<S, D>;                                                             \
  EXTERN template class ParIlut<S, D>;                                                                                \
  EXTERN template class ParIct<S, D>;
ASYNCSPARSE_ETI_DECLARE_DOUBLE(ASYNCSPARSE_ETI_PAR_ILUT_PRECONDITIONER)

}  // namespace AsyncSparse
