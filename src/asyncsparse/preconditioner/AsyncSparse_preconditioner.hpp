// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the bookkeeping base of every preconditioner and the identity / Jacobi preconditioners.
//
// The interface (setParameters / initialize / compute / apply) is core/AsyncSparse_preconditioner_interface.hpp.
// `setMatrix` with the same pattern keeps the symbolic set-up (pattern reuse: the time-stepping use case).
// Counts and accumulated times of each phase are kept. Implementations derive from `PreconditionerBase`, which does the bookkeeping, and provide
// initialize_impl(), compute_impl() and apply_impl(x, z) with z = M⁻¹ x.
#pragma once

#include <Kokkos_Core.hpp>

#include <memory>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>
#include <asyncsparse/core/AsyncSparse_parameters.hpp>
#include <asyncsparse/core/AsyncSparse_preconditioner_interface.hpp>
#include <asyncsparse/exec/AsyncSparse_scalar_readback.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#include <asyncsparse/linalg/AsyncSparse_diagonal.hpp>
#include <asyncsparse/linalg/AsyncSparse_gmres_team.hpp>

namespace AsyncSparse {

template <class Scalar, class Device>
class PreconditionerBase : public Preconditioner<Scalar, Device> {
 public:
  using base = Preconditioner<Scalar, Device>;
  using typename base::const_vector_type;
  using typename base::execution_space;
  using typename base::matrix_type;
  using typename base::vector_type;

  explicit PreconditionerBase(const matrix_type& A) : A_(A) {}

  void setParameters(const ParameterList& params) override {
    parameter_spec().validate(params, name());
    params_ = params;
    set_parameters_impl(params);
    // parameters may change the set-up: require a new compute (and initialize, conservatively)
    initialized_ = computed_ = false;
  }
  void setMatrix(const matrix_type& A) override {
    const bool same_pattern = A.graph.row_map.data() == A_.graph.row_map.data() &&
                              A.graph.entries.data() == A_.graph.entries.data();
    A_ = A;
    if (!same_pattern) initialized_ = false;
    computed_ = false;
  }
  void initialize() override {
    const Compat::ScopedRegion region("AsyncSparse::" + name() + "::initialize");
    Kokkos::Timer t;
    check_matrix();
    initialize_impl();
    execution_space().fence();
    initialize_time_ += t.seconds();
    ++num_initialize_;
    initialized_ = true;
    computed_ = false;
  }
  void compute() override {
    if (!initialized_) initialize();
    const Compat::ScopedRegion region("AsyncSparse::" + name() + "::compute");
    Kokkos::Timer t;
    computed_ = false;  // a compute() that throws leaves no usable preconditioner behind
    compute_impl();
    execution_space().fence();
    compute_time_ += t.seconds();
    ++num_compute_;
    computed_ = true;
  }
  void apply(const const_vector_type& x, const vector_type& y, Scalar alpha = Scalar(1),
             Scalar beta = Scalar(0)) override {
    check_apply("apply", x, y);
    Kokkos::Timer t;
    if (alpha == Scalar(1) && beta == Scalar(0)) {
      apply_impl(x, y);
    } else {
      if (z_.extent(0) != y.extent(0)) z_ = vector_type("AsyncSparse::prec_z", y.extent(0));
      apply_impl(x, z_);
      Blas<Scalar, Device>::axpby(alpha, z_, beta, y);
    }
    // No fence: the kernels of the apply stay queued behind the solver's, so that a Krylov solver that launches
    // its next product before reading its scalars never waits for the preconditioner (a fence here cost the
    // fused PCG about half its time per iteration on small matrices on an H100:
    // perf_tests/results/MEASUREMENTS.md#apply-without-fence). apply_time_ is therefore the host time of the
    // calls (launching the kernels), not of the device work.
    apply_time_ += t.seconds();
    ++num_apply_;
  }

  bool apply_dot(const const_vector_type& x, const vector_type& z, const Kokkos::View<double*, Device>& s,
                 int slot) override {
    check_apply("apply_dot", x, z);
    if (x.data() == z.data() && x.extent(0) > 0) return false;  // in place: apply() and a separate sum
    Impl::check_scalar_slot(name() + "::apply_dot", s, slot);
    Kokkos::Timer t;
    if (!apply_dot_impl(x, z, s, slot)) return false;
    apply_time_ += t.seconds();  // no fence, as in apply()
    ++num_apply_;
    return true;
  }

  bool replayable() const override { return computed_ && replayable_impl(); }
  bool launch_gmres_team_cycle(const GmresTeamCycleArgs<Scalar, Device>& args) override {
    // vectors of another length: refused, so that the solver's apply() reports them (check_apply)
    return computed_ && args.x.extent(0) == static_cast<std::size_t>(A_.numRows()) && launch_team_cycle_impl(args);
  }
  bool has_gmres_team_cycle(ordinal_t n) const override {
    return computed_ && n == A_.numRows() && has_team_cycle_impl();
  }
  void note_replayed_applications(int count) override {
    num_apply_ += count;
    note_replays_impl(count);
  }

  bool isInitialized() const override { return initialized_; }
  bool isComputed() const override { return computed_; }
  int getNumInitialize() const override { return num_initialize_; }
  int getNumCompute() const override { return num_compute_; }
  int getNumApply() const override { return num_apply_; }
  double getInitializeTime() const override { return initialize_time_; }
  double getComputeTime() const override { return compute_time_; }
  double getApplyTime() const override { return apply_time_; }
  std::string description() const override { return name(); }

  const matrix_type& matrix() const { return A_; }
  const ParameterList& parameters() const { return params_; }

  /// Name used in messages ("ParIc", "Jacobi", ...).
  virtual std::string name() const = 0;
  /// Parameters accepted by setParameters.
  virtual const ParameterSpec& parameter_spec() const = 0;

 protected:
  virtual void set_parameters_impl(const ParameterList&) {}
  virtual void initialize_impl() {}
  virtual void compute_impl() = 0;
  /// z = M^{-1} x
  virtual void apply_impl(const const_vector_type& x, const vector_type& z) = 0;
  /// z = M^{-1} x and s(slot) = xᵀz where the preconditioner fuses the two (see Preconditioner::apply_dot);
  /// false, and nothing done, otherwise (the default).
  virtual bool apply_dot_impl(const const_vector_type&, const vector_type&, const Kokkos::View<double*, Device>&, int) {
    return false;
  }
  /// See Preconditioner::replayable (asked only after compute()); false by default.
  virtual bool replayable_impl() const { return false; }
  /// See Preconditioner::launch_gmres_team_cycle (asked only after compute()); false, having done nothing, by default.
  virtual bool launch_team_cycle_impl(const GmresTeamCycleArgs<Scalar, Device>& args) {
    (void)args;
    return false;
  }
  /// Whether launch_team_cycle_impl launches (asked only after compute()); false by default.
  virtual bool has_team_cycle_impl() const { return false; }
  /// The preconditioner's own statistics of `count` replayed applications (getNumApply is counted here already).
  virtual void note_replays_impl(int count) { (void)count; }
  void check_apply(const char* what, const const_vector_type& x, const vector_type& y) const {
    if (!computed_) throw InvalidInput(name() + "::" + what + ": compute() must be called before " + what + "()");
    if (x.extent(0) != static_cast<std::size_t>(A_.numCols()) || y.extent(0) != static_cast<std::size_t>(A_.numRows()))
      throw InvalidInput(name() + "::" + what + ": vector lengths " + std::to_string(x.extent(0)) + ", " +
                         std::to_string(y.extent(0)) + " do not match the matrix (" + std::to_string(A_.numRows()) +
                         ")");
  }
  virtual void check_matrix() const {
    if (A_.numRows() != A_.numCols())
      throw InvalidInput(name() + ": matrix must be square, got " + std::to_string(A_.numRows()) + " x " +
                         std::to_string(A_.numCols()));
    if (A_.numRows() == 0) throw InvalidInput(name() + ": matrix is empty (0 rows)");
  }

  matrix_type A_;
  ParameterList params_;

 private:
  vector_type z_;
  bool initialized_ = false, computed_ = false;
  int num_initialize_ = 0, num_compute_ = 0, num_apply_ = 0;
  double initialize_time_ = 0, compute_time_ = 0, apply_time_ = 0;
};

/// M = I.
template <class Scalar, class Device>
class IdentityPreconditioner final : public PreconditionerBase<Scalar, Device> {
  using B = PreconditionerBase<Scalar, Device>;

 public:
  using B::B;
  std::string name() const override { return "Identity"; }
  const ParameterSpec& parameter_spec() const override {
    static const ParameterSpec spec;
    return spec;
  }

 protected:
  void compute_impl() override {}
  void apply_impl(const typename B::const_vector_type& x, const typename B::vector_type& z) override {
    Kokkos::deep_copy(z, x);
  }
  bool launch_team_cycle_impl(const GmresTeamCycleArgs<Scalar, Device>& args) override {
    Impl::gmres_team_cycle_launch(args, Impl::IdentityTeamApply());
    return true;
  }
  bool has_team_cycle_impl() const override { return true; }
};

/// M = diag(A) (point Jacobi). A missing or zero diagonal entry is reported by row in compute().
template <class Scalar, class Device>
class JacobiPreconditioner final : public PreconditionerBase<Scalar, Device> {
  using B = PreconditionerBase<Scalar, Device>;

 public:
  using B::B;
  std::string name() const override { return "Jacobi"; }
  const ParameterSpec& parameter_spec() const override {
    static const ParameterSpec spec;
    return spec;
  }
  const typename B::vector_type& inverse_diagonal() const { return dinv_; }
  typename B::const_vector_type diagonal_scaling() const override { return dinv_; }

 protected:
  void compute_impl() override;
  void apply_impl(const typename B::const_vector_type& x, const typename B::vector_type& z) override {
    Blas<Scalar, Device>::mult(Scalar(0), z, Scalar(1), dinv_, x);
  }

 private:
  typename B::vector_type dinv_;
};

template <class Scalar, class Device>
void JacobiPreconditioner<Scalar, Device>::compute_impl() {
  dinv_ = AsyncSparse::inverse_diagonal(this->A_, "Jacobi::compute");
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured scalars
// and devices; other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_PRECONDITIONER(EXTERN, S, D)                                                                  \
  EXTERN template class PreconditionerBase<S, D>;                                                                     \
  EXTERN template class IdentityPreconditioner<S, D>;                                                                 \
  EXTERN template class JacobiPreconditioner<S, D>;
ASYNCSPARSE_ETI_DECLARE(ASYNCSPARSE_ETI_PRECONDITIONER)

}  // namespace AsyncSparse
