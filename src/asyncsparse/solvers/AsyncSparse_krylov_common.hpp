// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — pieces CG and GMRES share: input checks, the residual b − A x, the preconditioner hook and
// the bookkeeping of an iteration (history, verbose output, divergence and time limit).
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_preconditioner_interface.hpp>
#include <asyncsparse/core/AsyncSparse_solver_types.hpp>

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

}  // namespace Impl
}  // namespace AsyncSparse
