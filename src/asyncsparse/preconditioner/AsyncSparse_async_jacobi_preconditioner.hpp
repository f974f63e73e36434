// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — (asynchronous) Jacobi relaxation as a preconditioner / smoother ("async_jacobi").
//
// apply(r) runs a fixed number of (a)synchronous Jacobi updates per row (async_jacobi_apply; Tsai, Nayak, Chow &
// Anzt 2022; see relaxation/AsyncSparse_async_jacobi.hpp) on A z = r from z0 = 0 and returns z. initialize() is
// async_jacobi_symbolic, compute() async_jacobi_numeric (the diagonal). With mode = sync this is the polynomial
// preconditioner sum_{k<updates} (I - omega D^-1 A)^k omega D^-1: a fixed linear operator (symmetric for
// symmetric A, so usable in PCG when it is also positive definite). With the
// asynchronous modes the operator depends on the run's schedule: it is NOT a fixed linear operator, and
// two applications to the same r differ in the last bits or more. Use it with a flexible method, or with
// right-preconditioned GMRES (whose residual stays the true residual, but which then only approximates
// the flexible iteration), never with plain PCG if reproducible convergence matters.
//
// Parameters:
//   mode (string, default "auto"): sync | static | dynamic | auto — the Jacobi variant; auto = the measured rule
//   default_jacobi_mode (static on every backend).
//   updates (int, default 2): updates per row (>= 1).
//   omega (double, default 1.0): relaxation factor (> 0).
//   fence (bool, default true): memory fence after each asynchronous update.
//   assignment (string, default "auto"): auto | strided | atomic-counter (dynamic mode).
//   max_updates_per_launch (int, default 0): asynchronous modes, most updates per row in one kernel launch (0: the
//   measured rule default_max_updates_per_launch — at most 10 for the static mode on GPUs when the rows outnumber
//   the resident lane groups, no bound elsewhere; a value >= updates: one launch per apply). >= 0.
//   the launch parameters of exec/AsyncSparse_launch_parameters.hpp, among them vector_length (int, default -1):
//   lanes per row (the paper's subwarp), 1..32 (-1: 1), and oversubscription (int, default 1): workers per
//   hardware thread of the dynamic mode, 1..16 (the paper's oscb).
// An apply that produces NaN/Inf (e.g. rho(|M|) >= 1 with many updates) throws DivergenceError.
#pragma once

#include <Kokkos_Core.hpp>

#include <asyncsparse/exec/AsyncSparse_launch_parameters.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_preconditioner.hpp>

namespace AsyncSparse {

template <class Scalar, class Device>
class AsyncJacobiPreconditioner final : public PreconditionerBase<Scalar, Device> {
  using B = PreconditionerBase<Scalar, Device>;

 public:
  using B::B;
  std::string name() const override { return "AsyncJacobi"; }
  std::string description() const override {
    return "AsyncJacobi(mode=" +
           std::string(to_string(resolve_jacobi_mode<typename B::execution_space>(handle_.params.mode))) +
           ", updates=" + std::to_string(handle_.params.updates) +
           (handle_.params.max_updates_per_launch > 0
                ? ", max_updates_per_launch=" + std::to_string(handle_.params.max_updates_per_launch)
                : std::string()) +
           ")";
  }
  const ParameterSpec& parameter_spec() const override {
    static const ParameterSpec spec =
        ParameterSpec()
            .add("mode", std::string("auto"), "Jacobi variant (auto: the rule default_jacobi_mode, static)",
                 {"sync", "static", "dynamic", "auto"})
            .add("updates", 2, "updates per row per apply (>= 1)")
            .add("omega", 1.0, "relaxation factor (> 0)")
            .add("fence", true, "memory fence after each asynchronous row update")
            .add("assignment", std::string("auto"), "dynamic row assignment", {"auto", "strided", "atomic-counter"})
            .add("max_updates_per_launch", 0,
                 "asynchronous modes: most updates per row in one kernel launch (>= 0; 0: the rule "
                 "default_max_updates_per_launch)");
    // launch: vector_length = lanes per row (1..32), oversubscription of the dynamic mode (1..16)
    static const ParameterSpec with_launch = [] {
      ParameterSpec s = spec;
      return add_launch_parameters(s);
    }();
    return with_launch;
  }
  /// The handle of the last apply (parameters, statistics).
  const AsyncJacobiHandle<Scalar, Device>& handle() const { return handle_; }

 protected:
  void set_parameters_impl(const ParameterList& l) override {
    auto& p = handle_.params;
    p.mode = jacobi_mode_from_string(l.get("mode", "auto"));
    p.updates = l.get("updates", 2);
    p.omega = l.get("omega", 1.0);
    handle_.launch = launch_config_from_parameters(l, name());
    p.fence = l.get("fence", true);
    p.assignment = dynamic_assignment_from_string(l.get("assignment", "auto"));
    p.max_updates_per_launch = l.get("max_updates_per_launch", 0);
    p.residual_norms = false;
    if (p.updates < 1) throw InvalidInput("AsyncJacobi: updates must be >= 1, got " + std::to_string(p.updates));
    Impl::check_jacobi_params(p, handle_.launch, "AsyncJacobi", true);
  }
  void initialize_impl() override { async_jacobi_symbolic(typename B::execution_space(), handle_, this->A_); }
  // validates the values (finite, diagonal present and non-zero) and computes the diagonal
  void compute_impl() override { async_jacobi_numeric(typename B::execution_space(), handle_, this->A_); }
  void apply_impl(const typename B::const_vector_type& x, const typename B::vector_type& z) override {
    const typename B::execution_space exec;
    Kokkos::deep_copy(exec, z, Scalar(0));
    const auto& st = async_jacobi_apply(exec, handle_, x, z);
    if (st.failed()) throw DivergenceError("AsyncJacobi::apply", st.updates_done, st.message);
  }

 private:
  AsyncJacobiHandle<Scalar, Device> handle_;
};

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured scalars
// and devices; other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_ASYNC_JACOBI_PRECONDITIONER(EXTERN, S, D)                                                     \
  EXTERN template class AsyncJacobiPreconditioner<S, D>;
ASYNCSPARSE_ETI_DECLARE_DOUBLE(ASYNCSPARSE_ETI_ASYNC_JACOBI_PRECONDITIONER)

}  // namespace AsyncSparse
