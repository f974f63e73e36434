// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — preconditioned conjugate gradient (PCG) for symmetric positive definite systems.
//
// Hestenes–Stiefel PCG with a preconditioner hook (any AsyncSparse::Preconditioner, nullptr = none).
// The stopping test uses the recursively updated residual; the true residual ‖b − A x‖/‖b‖ is
// recomputed at exit and reported. Breakdown (pᵀAp ≤ 0 or rᵀz ≤ 0: matrix or preconditioner not SPD),
// divergence and non-finite values stop the iteration with a status instead of looping or returning
// NaN silently. x holds the initial guess on entry and the iterate on exit.
#pragma once

#include <Kokkos_Core.hpp>
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosSparse_spmv.hpp>

#include <cmath>

#include <asyncsparse/core/AsyncSparse_preconditioner_interface.hpp>
#include <asyncsparse/core/AsyncSparse_solver_types.hpp>

namespace AsyncSparse {

namespace Impl {
/// r = b − A x; returns ‖r‖₂.
template <class Matrix, class XV, class BV, class RV>
double residual(const Matrix& A, const XV& x, const BV& b, const RV& r) {
  Kokkos::deep_copy(r, b);
  KokkosSparse::spmv("N", -1.0, A, x, 1.0, r);
  return static_cast<double>(KokkosBlas::nrm2(r));
}
template <class Matrix, class XV, class BV>
void check_system(const char* who, const Matrix& A, const XV& x, const BV& b) {
  if (A.numRows() != A.numCols())
    throw InvalidInput(std::string(who) + ": matrix must be square, got " + std::to_string(A.numRows()) + " x " +
                       std::to_string(A.numCols()));
  if (A.numRows() == 0) throw InvalidInput(std::string(who) + ": matrix is empty (0 rows)");
  if (x.extent(0) != static_cast<std::size_t>(A.numRows()) || b.extent(0) != static_cast<std::size_t>(A.numRows()))
    throw InvalidInput(std::string(who) + ": x and b must have " + std::to_string(A.numRows()) + " entries, got " +
                       std::to_string(x.extent(0)) + " and " + std::to_string(b.extent(0)));
}
}  // namespace Impl

/// Solve A x = b by PCG. `M` may be nullptr (no preconditioner). Returns status, iterations and history.
template <class Scalar, class Device>
SolverResult cg(const Crs<Scalar, Device>& A, const Kokkos::View<const Scalar*, Device>& b,
                const Kokkos::View<Scalar*, Device>& x, Preconditioner<Scalar, Device>* M,
                const SolverParams& params = SolverParams()) {
  using V = Kokkos::View<Scalar*, Device>;
  using exec = typename Device::execution_space;
  Impl::check_system("cg", A, x, b);
  if (!(params.tol > 0) || params.max_iterations < 0)
    throw InvalidInput("cg: tol must be > 0 and max_iterations >= 0");
  const auto n = static_cast<std::size_t>(A.numRows());
  V r("cg_r", n), z("cg_z", n), p("cg_p", n), q("cg_q", n);
  SolverResult res;
  Kokkos::Timer timer;

  const double bnorm = static_cast<double>(KokkosBlas::nrm2(b));
  res.b_norm = bnorm;
  if (!std::isfinite(bnorm)) {
    res.status = SolverStatus::NonFinite;
    res.message = "right-hand side contains NaN or Inf";
    Impl::report_result("cg", params.verbose, res);
    return res;
  }
  if (bnorm == 0) {  // x = 0 is the exact solution
    Kokkos::deep_copy(x, Scalar(0));
    res.status = SolverStatus::Converged;
    res.residual_history = {0.0};
    res.time_history = {0.0};
    return res;
  }
  double rnorm = Impl::residual(A, x, b, r);
  double rel = rnorm / bnorm, rel0 = rel;
  auto record = [&](double v) {
    if (params.record_history) {
      res.residual_history.push_back(v);
      res.time_history.push_back(timer.seconds());
    }
  };
  record(rel);
  auto precondition = [&](const V& in, const V& out) {
    if (M)
      M->apply(in, out);
    else
      Kokkos::deep_copy(out, in);
  };
  res.status = SolverStatus::MaxIterations;
  if (!std::isfinite(rel)) {
    res.status = SolverStatus::NonFinite;
    res.message = "initial residual is not finite (NaN/Inf in A or x)";
  } else if (rel <= params.tol) {
    res.status = SolverStatus::Converged;
  } else {
    precondition(r, z);
    Kokkos::deep_copy(p, z);
    double rz = static_cast<double>(KokkosBlas::dot(r, z));
    for (int it = 1; it <= params.max_iterations; ++it) {
      if (!(rz > 0) || !std::isfinite(rz)) {
        res.status = std::isfinite(rz) ? SolverStatus::Breakdown : SolverStatus::NonFinite;
        res.message = "r^T M^-1 r = " + std::to_string(rz) + " (preconditioner not SPD or produced NaN)";
        break;
      }
      KokkosSparse::spmv("N", Scalar(1), A, p, Scalar(0), q);
      const double pq = static_cast<double>(KokkosBlas::dot(p, q));
      if (!(pq > 0) || !std::isfinite(pq)) {
        res.status = std::isfinite(pq) ? SolverStatus::Breakdown : SolverStatus::NonFinite;
        res.message = "p^T A p = " + std::to_string(pq) + " (matrix not SPD)";
        break;
      }
      const Scalar alpha = static_cast<Scalar>(rz / pq);
      KokkosBlas::axpby(alpha, p, Scalar(1), x);
      KokkosBlas::axpby(-alpha, q, Scalar(1), r);
      rnorm = static_cast<double>(KokkosBlas::nrm2(r));
      rel = rnorm / bnorm;
      res.iterations = it;
      record(rel);
      Impl::report_iteration("cg", params.verbose, it, rel);
      if (!std::isfinite(rel)) {
        res.status = SolverStatus::NonFinite;
        res.message = "residual became NaN/Inf";
        break;
      }
      if (rel <= params.tol) {
        res.status = SolverStatus::Converged;
        break;
      }
      if (rel > params.divergence_factor * rel0) {
        res.status = SolverStatus::Diverged;
        res.message = "residual grew by more than " + std::to_string(params.divergence_factor);
        break;
      }
      precondition(r, z);
      const double rz_new = static_cast<double>(KokkosBlas::dot(r, z));
      const Scalar beta = static_cast<Scalar>(rz_new / rz);
      rz = rz_new;
      KokkosBlas::axpby(Scalar(1), z, beta, p);
    }
  }
  // report the true residual
  res.final_relative_residual = Impl::residual(A, x, b, r) / bnorm;
  if (res.status == SolverStatus::Converged && !(res.final_relative_residual <= 10 * params.tol)) {
    res.status = SolverStatus::MaxIterations;
    res.message = "recursive residual converged but true residual is " + std::to_string(res.final_relative_residual);
  }
  exec().fence();
  res.time_seconds = timer.seconds();
  Impl::report_result("cg", params.verbose, res);
  return res;
}

}  // namespace AsyncSparse
