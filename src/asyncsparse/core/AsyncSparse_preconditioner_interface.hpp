// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the abstract preconditioner interface (Ifpack2 style), the floor every solver and every
// preconditioner builds on.
//
// Life cycle, as in Ifpack2::Preconditioner:
//   setParameters(list)  validate and store parameters (unknown names are rejected)
//   initialize()         symbolic set-up that depends only on the sparsity pattern
//   compute()            numeric set-up (calls initialize() first when needed)
//   apply(x, y, α, β)    y = β y + α M⁻¹ x (throws if compute() has not run)
// `setMatrix` swaps in a new matrix; with the same pattern, only compute() need run again.
// The solvers (CG, GMRES, iterative refinement) take a `Preconditioner*`; the implementations live in
// preconditioner/ (PreconditionerBase does the bookkeeping).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_parameters.hpp>

namespace AsyncSparse {

/// Why a GMRES cycle run in one team (GmresTeamCycleArgs) ended before its step limit.
enum class GmresTeamStop : int {
  None = 0,       ///< the step limit was reached
  Estimate = 1,   ///< the rotations' residual estimate reached the tolerance, or h_{j+1,j} = 0 (lucky breakdown)
  NonFinite = 2,  ///< h_{j+1,j} not finite: the step is not counted and x is left as it was
  Breakdown = 3,  ///< the Hessenberg column is zero (singular preconditioned operator)
  Diverged = 4,   ///< the residual estimate grew beyond the divergence bound
};

/// One restarted-GMRES cycle run in one launch of one team on a small system (Impl::GmresTeamCycle): from the residual
/// r = b − A x of norm `beta`, the Arnoldi steps with the preconditioner's application, CGS2 and the Givens rotations,
/// then x += M⁻¹ V y and the new residual r = b − A x, all on the device (the Hessenberg matrix and the rotations in
/// the team's scratch memory). The arrays are the solver's; `out` receives kOutHead values (steps run, GmresTeamStop,
/// ‖b − A x‖ after the update) and then |g_{j+1}| of each step.
template <class Scalar, class Device>
struct GmresTeamCycleArgs {
  static constexpr int kOutHead = 3;
  Crs<Scalar, Device> A;
  Kokkos::View<const Scalar*, Device> b;
  Kokkos::View<Scalar*, Device> x, r, w, z;
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device> V;  ///< the basis, n × (m + 1)
  Kokkos::View<double*, Device> out;                     ///< kOutHead + m values
  Kokkos::View<int*, Device> long_rows;                  ///< A's long rows (Impl::team_long_rows); empty: none
  int m = 0;                                             ///< restart length
  int max_steps = 0;                                     ///< steps of this cycle at most (≤ m)
  double beta = 0;                                       ///< ‖r‖ at the cycle's start
  double tol_abs = 0;                                    ///< stop when |g_{j+1}| ≤ this (tol · ‖b‖)
  double diverged_abs = 0;  ///< diverged when |g_{j+1}| > this (divergence factor · ‖r_0‖)
};

template <class Scalar, class Device>
class Preconditioner {
 public:
  using scalar_type = Scalar;
  using device_type = Device;
  using execution_space = typename Device::execution_space;
  using matrix_type = Crs<Scalar, Device>;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;

  virtual ~Preconditioner() = default;

  virtual void setParameters(const ParameterList& params) = 0;
  virtual void setMatrix(const matrix_type& A) = 0;
  virtual void initialize() = 0;
  virtual void compute() = 0;
  /// y = beta * y + alpha * M^{-1} x. Asynchronous, as every Kokkos kernel launch: y is complete for the next
  /// operation on the same execution space instance (or after a fence), not when apply() returns. With beta = 0
  /// the previous contents of y are not read: they may be uninitialized (the Krylov solvers' work vectors are).
  virtual void apply(const const_vector_type& x, const vector_type& y, Scalar alpha = Scalar(1),
                     Scalar beta = Scalar(0)) = 0;

  /// z = M⁻¹ x and s(slot) = xᵀz (summed in double, written on the device), where the preconditioner computes the
  /// sum in its own last pass (ParIc / ParIlu / ParIct / ParIlut whose upper triangular solve is one ISAI product
  /// or Jacobi sweeps, the product or the last sweep one thread per row: GPUs, short rows, at most 2^19 rows,
  /// TriangularSolver::fuses_dot) — a
  /// preconditioned Krylov solver then saves its pass for rᵀz. Returns false, having done nothing, where it cannot (the
  /// default); the solver then calls apply() and sums itself (also when x and z alias). Asynchronous, as apply().
  virtual bool apply_dot(const const_vector_type& x, const vector_type& z, const Kokkos::View<double*, Device>& s,
                         int slot) {
    (void)x, (void)z, (void)s, (void)slot;
    return false;
  }

  /// True when apply_dot(), and apply() with alpha = 1 and beta = 0, on distinct x and z only enqueue kernels on the
  /// instance Impl::launch_instance names (no host synchronisation, no allocation), the same launches on every call
  /// with the same arguments: a Krylov solver may then record one application in a CUDA graph and replay it
  /// (Impl::GraphReplay, SolverParams::graph_from_iteration) and report the replays through
  /// note_replayed_applications. False, the default (ParIc / ParIlu / ParIct / ParIlut with Jacobi, one-product
  /// ISAI or one-team exact triangular solves say true).
  virtual bool replayable() const { return false; }
  /// Counts `count` applications that a solver replayed from a recorded graph (see replayable()) or ran in its own
  /// kernel (launch_gmres_team_cycle) in getNumApply
  /// and the preconditioner's own statistics; negative to withdraw the counts of calls made while recording that
  /// ran no application.
  virtual void note_replayed_applications(int count) { (void)count; }

  /// Launches one GMRES cycle in one team (GmresTeamCycleArgs) whose applications of M⁻¹ are the preconditioner's
  /// own one-team form, asynchronously, and returns true; returns false, having done nothing, where it has none (the
  /// default). The identity and ParIc / ParIlu / ParIct / ParIlut with Jacobi triangular solves have one (diagonal
  /// Jacobi's diagonal_scaling the solver applies itself). The solver counts the
  /// applications it ran through note_replayed_applications.
  virtual bool launch_gmres_team_cycle(const GmresTeamCycleArgs<Scalar, Device>& args) {
    (void)args;
    return false;
  }
  /// Whether launch_gmres_team_cycle launches for vectors of `n` rows: a solver asks before it prepares a cycle's
  /// arrays, and calls launch_gmres_team_cycle only where this says true. False by default: a preconditioner that
  /// overrides launch_gmres_team_cycle overrides this too.
  virtual bool has_gmres_team_cycle(ordinal_t n) const {
    (void)n;
    return false;
  }

  /// When M⁻¹ is a diagonal matrix diag(d) (diagonal Jacobi): d, which a solver may apply inside its own vector
  /// kernels instead of calling apply() (those applications are then not counted by getNumApply/getApplyTime).
  /// Empty, the default, for every other preconditioner and before compute().
  virtual const_vector_type diagonal_scaling() const { return const_vector_type(); }
  virtual bool isInitialized() const = 0;
  virtual bool isComputed() const = 0;
  virtual int getNumInitialize() const = 0;
  virtual int getNumCompute() const = 0;
  virtual int getNumApply() const = 0;
  virtual double getInitializeTime() const = 0;
  virtual double getComputeTime() const = 0;
  /// Seconds spent in apply() calls on the host. On GPUs these launch the kernels and return (see apply()): the
  /// device time of the applications is in the solver's total, not here.
  virtual double getApplyTime() const = 0;
  virtual std::string description() const = 0;
};

}  // namespace AsyncSparse
