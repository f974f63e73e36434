// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — pieces CG and GMRES share: input checks, the residual b − A x, the preconditioner hook and
// the bookkeeping of an iteration (history, verbose output, divergence and time limit).
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_preconditioner_interface.hpp>
#include <asyncsparse/core/AsyncSparse_solver_types.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>

namespace AsyncSparse {
namespace Impl {

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

inline void check_params(const char* who, const SolverParams& p) {
  if (!(p.tol > 0) || p.max_iterations < 0)
    throw InvalidInput(std::string(who) + ": tol must be > 0 and max_iterations >= 0");
  if (!(p.max_seconds >= 0))
    throw InvalidInput(std::string(who) + ": max_seconds must be >= 0 (0: no limit), got " +
                       format_number(p.max_seconds));
  if (p.graph_from_iteration < 0)
    throw InvalidInput(std::string(who) + ": graph_from_iteration must be >= 0 (0: never), got " +
                       std::to_string(p.graph_from_iteration));
}

/// Whether GMRES runs in one team (SolverParams::gmres_one_team_rows): whole cycles (Impl::gmres_team_cycles) where
/// they can, else each step's orthogonalization; a system of at most kGmresOneTeamMaxRows rows on a GPU by default.
inline bool gmres_one_team(std::int64_t rows, int param, bool gpu) {
  if (param == 0) return false;
  if (param < 0) return gpu && rows <= kGmresOneTeamMaxRows;
  return rows <= param;
}

/// out = M⁻¹ in, or a copy of `in` without a preconditioner.
template <class Scalar, class Device>
void precondition(Preconditioner<Scalar, Device>* M, const Kokkos::View<Scalar*, Device>& in,
                  const Kokkos::View<Scalar*, Device>& out) {
  if (M)
    M->apply(in, out);
  else
    Kokkos::deep_copy(out, in);
}

/// History, verbose output and the stopping tests every Krylov iteration shares.
class KrylovMonitor {
 public:
  KrylovMonitor(const char* who, const SolverParams& p, SolverResult& res) : who_(who), p_(p), res_(res) {}

  double seconds() const { return timer_.seconds(); }
  void record(double rel) {
    if (p_.record_history) {
      res_.residual_history.push_back(rel);
      res_.time_history.push_back(timer_.seconds());
    }
  }
  /// Records iteration `it` with relative residual `rel`, then applies the tests in the order: not finite,
  /// converged, diverged (against `rel0`), time limit. Returns true when the iteration must stop (the
  /// status and message of the result are set).
  bool iteration(int it, double rel, double rel0) {
    res_.iterations = it;
    record(rel);
    report_iteration(who_, p_.verbose, it, rel);
    if (!std::isfinite(rel)) {
      res_.status = SolverStatus::NonFinite;
      res_.message = "residual became NaN/Inf";
      return true;
    }
    if (rel <= p_.tol) {
      res_.status = SolverStatus::Converged;
      return true;
    }
    if (rel > p_.divergence_factor * rel0) {
      res_.status = SolverStatus::Diverged;
      res_.message = "residual grew by more than " + format_number(p_.divergence_factor);
      return true;
    }
    return time_up();
  }
  /// True (status MaxIterations, with a message) once max_seconds have passed.
  bool time_up() {
    if (p_.max_seconds > 0 && timer_.seconds() > p_.max_seconds) {
      res_.status = SolverStatus::MaxIterations;
      res_.message = "time limit of " + format_number(p_.max_seconds) + " s reached";
      return true;
    }
    return false;
  }

 private:
  const char* who_;
  const SolverParams& p_;
  SolverResult& res_;
  Kokkos::Timer timer_;
};

/// Where a Krylov solve starts (krylov_start).
struct KrylovStart {
  double b_norm = 0;  ///< ‖b‖₂
  double r_norm = 0;  ///< ‖b − A x‖₂ of the initial guess
  bool done = false;  ///< decided without iterating: the solver returns `res` as it is
  double rel0() const { return r_norm / b_norm; }
};

/// The start CG and GMRES share: ‖b‖ and r = b − A x in one pass (Blas::rhs_and_residual_norms, one wait for the
/// device), then what needs no iteration. A right-hand side that is not finite ends the solve (status NonFinite, done);
/// b = 0 too, with x = 0, the exact solution (Converged, a history of one zero residual where histories are recorded,
/// done). Otherwise the initial relative residual is recorded (history index 0) and the status set: NonFinite when it
/// is not finite (NaN/Inf in A or x), Converged when it is already at the tolerance (the solver then skips its loop
/// and reports as after one), MaxIterations (the loop's starting point) else.
template <class Scalar, class Device>
KrylovStart krylov_start(const char* who, const Crs<Scalar, Device>& A, const Kokkos::View<Scalar*, Device>& x,
                         const Kokkos::View<const Scalar*, Device>& b, const Kokkos::View<Scalar*, Device>& r,
                         const SolverParams& params, SolverResult& res, KrylovMonitor& mon) {
  KrylovStart st;
  const auto norms = Blas<Scalar, Device>::rhs_and_residual_norms(A, x, b, r);
  st.b_norm = res.b_norm = norms.first;
  st.r_norm = norms.second;
  if (!std::isfinite(st.b_norm)) {
    res.status = SolverStatus::NonFinite;
    res.message = "right-hand side contains NaN or Inf";
    st.done = true;
  } else if (st.b_norm == 0) {  // x = 0 is the exact solution
    Kokkos::deep_copy(x, Scalar(0));
    res.status = SolverStatus::Converged;
    mon.record(0.0);
    st.done = true;
  }
  if (st.done) {
    res.time_seconds = mon.seconds();
    report_result(who, params.verbose, res);
    return st;
  }
  const double rel0 = st.rel0();
  mon.record(rel0);
  res.status = SolverStatus::MaxIterations;
  if (!std::isfinite(rel0)) {
    res.status = SolverStatus::NonFinite;
    res.message = "initial residual is not finite (NaN/Inf in A or x)";
  } else if (rel0 <= params.tol) {
    res.status = SolverStatus::Converged;
  }
  return st;
}

}  // namespace Impl
}  // namespace AsyncSparse
