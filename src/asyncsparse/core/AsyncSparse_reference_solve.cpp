// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Serial host references: triangular solves, preconditioner application and the stationary iterations
// (Jacobi, Gauss–Seidel) with their residual histories.
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/impl/AsyncSparse_reference_checks.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace AsyncSparse {
namespace Reference {
namespace Impl {

inline double residual_norm(const CsrHost<double>& A, const std::vector<double>& b, const std::vector<double>& x) {
  double s = 0.0;
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    double r = b[i];
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) r -= A.values[p] * x[A.col_idx[p]];
    s += r * r;
  }
  return std::sqrt(s);
}

inline double norm2(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

/// Checks A (square, sorted, finite, non-zero diagonal), b, x; returns the diagonal positions.
inline std::vector<offset_t> check_relax(const char* fn, const CsrHost<double>& A, const std::vector<double>& b,
                                         const std::vector<double>& x) {
  check_square(fn, "A", A);
  std::vector<offset_t> d = diagonal_positions(fn, "A", A);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    if (A.values[d[i]] == 0.0)
      throw InvalidInput(std::string(fn) + ": A: zero diagonal entry in row " + std::to_string(i));
  check_vector(fn, "b", b, A.nrows);
  check_vector(fn, "x", x, A.nrows);
  return d;
}

inline void jacobi_sweep(const CsrHost<double>& A, const std::vector<offset_t>& d, const std::vector<double>& b,
                         std::vector<double>& x, std::vector<double>& xnew, double omega) {
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    double r = b[i];
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) r -= A.values[p] * x[A.col_idx[p]];
    xnew[i] = x[i] + omega * r / A.values[d[i]];
  }
  x.swap(xnew);
}

inline void gs_sweep(const CsrHost<double>& A, const std::vector<offset_t>& d, const std::vector<double>& b,
                     std::vector<double>& x) {
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    double s = b[i];
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (p != d[i]) s -= A.values[p] * x[A.col_idx[p]];
    x[i] = s / A.values[d[i]];
  }
}

template <class Sweep>
std::vector<double> relax_fixed(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                int sweeps, Sweep sweep) {
  const double bn = norm2(b);
  const double scale = bn > 0.0 ? 1.0 / bn : 1.0;
  std::vector<double> hist{residual_norm(A, b, x) * scale};
  for (int s = 0; s < sweeps && std::isfinite(hist.back()); ++s) {
    sweep();
    hist.push_back(residual_norm(A, b, x) * scale);
  }
  return hist;
}

template <class Sweep>
RelaxResult relax_until(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x, double tol,
                        int max_sweeps, Sweep sweep) {
  const double bn = norm2(b);
  const double scale = bn > 0.0 ? 1.0 / bn : 1.0;
  RelaxResult R;
  const double r0 = residual_norm(A, b, x) * scale;
  R.history.push_back(r0);
  R.final_residual = r0;
  R.converged = r0 <= tol;
  while (!R.converged && R.sweeps < max_sweeps) {
    sweep();
    ++R.sweeps;
    const double r = residual_norm(A, b, x) * scale;
    R.history.push_back(r);
    R.final_residual = r;
    if (!std::isfinite(r) || r > 1e10 * r0) {
      R.diverged = true;
      break;
    }
    R.converged = r <= tol;
  }
  return R;
}

inline void check_relax_params(const char* fn, int sweeps, double omega) {
  if (sweeps < 0)
    throw InvalidInput(std::string(fn) + ": number of sweeps must be >= 0, got " + std::to_string(sweeps));
  if (!(omega > 0.0) || !std::isfinite(omega))
    throw InvalidInput(std::string(fn) + ": omega must be finite and > 0, got " + fmt(omega));
}

inline void check_tol(const char* fn, double tol) {
  if (!(tol >= 0.0) || !std::isfinite(tol))
    throw InvalidInput(std::string(fn) + ": tol must be finite and >= 0, got " + fmt(tol));
}

}  // namespace Impl

// ---------------------------------------------------------------------------------------------------------

std::vector<double> lower_solve(const CsrHost<double>& L, const std::vector<double>& b, bool unit_diag) {
  Impl::check_square("lower_solve", "L", L);
  Impl::check_vector("lower_solve", "b", b, L.nrows);
  const ordinal_t n = L.nrows;
  std::vector<double> x(n);
  for (ordinal_t i = 0; i < n; ++i) {
    double s = b[i], d = 0.0;
    bool has_diag = false;
    for (offset_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p) {
      const ordinal_t j = L.col_idx[p];
      if (j < i) {
        s -= L.values[p] * x[j];
      } else if (j == i) {
        has_diag = true;
        d = L.values[p];
      } else {
        throw InvalidInput("lower_solve: L is not lower triangular: entry (" + std::to_string(i) + ", " +
                           std::to_string(j) + ")");
      }
    }
    if (unit_diag) {
      x[i] = s;
      continue;
    }
    if (!has_diag) throw InvalidInput("lower_solve: L: missing diagonal entry in row " + std::to_string(i));
    if (d == 0.0) throw BreakdownError("lower_solve", i, "zero diagonal l_ii = 0");
    x[i] = s / d;
  }
  return x;
}

std::vector<double> upper_solve(const CsrHost<double>& U, const std::vector<double>& b) {
  Impl::check_square("upper_solve", "U", U);
  Impl::check_vector("upper_solve", "b", b, U.nrows);
  const ordinal_t n = U.nrows;
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t p = U.row_ptr[i]; p < U.row_ptr[i + 1]; ++p)
      if (U.col_idx[p] < i)
        throw InvalidInput("upper_solve: U is not upper triangular: entry (" + std::to_string(i) + ", " +
                           std::to_string(U.col_idx[p]) + ")");
  std::vector<double> x(n);
  for (ordinal_t i = n; i-- > 0;) {
    const offset_t b0 = U.row_ptr[i];
    if (b0 == U.row_ptr[i + 1] || U.col_idx[b0] != i)
      throw InvalidInput("upper_solve: U: missing diagonal entry in row " + std::to_string(i));
    double s = b[i];
    for (offset_t p = b0 + 1; p < U.row_ptr[i + 1]; ++p) s -= U.values[p] * x[U.col_idx[p]];
    if (U.values[b0] == 0.0) throw BreakdownError("upper_solve", i, "zero diagonal u_ii = 0");
    x[i] = s / U.values[b0];
  }
  return x;
}

std::vector<double> ic_apply(const CsrHost<double>& L, const std::vector<double>& r) {
  Impl::check_square("ic_apply", "L", L);
  Impl::check_vector("ic_apply", "r", r, L.nrows);
  const ordinal_t n = L.nrows;
  for (ordinal_t i = 0; i < n; ++i) {
    const offset_t e = L.row_ptr[i + 1];
    if (e > L.row_ptr[i] && L.col_idx[e - 1] > i)
      throw InvalidInput("ic_apply: L is not lower triangular: entry (" + std::to_string(i) + ", " +
                         std::to_string(L.col_idx[e - 1]) + ")");
    if (e == L.row_ptr[i] || L.col_idx[e - 1] != i)
      throw InvalidInput("ic_apply: L: missing diagonal entry in row " + std::to_string(i));
    if (L.values[e - 1] == 0.0) throw BreakdownError("ic_apply", i, "zero diagonal l_ii = 0");
  }
  std::vector<double> z = lower_solve(L, r, false);
  // Lᵀ z = y, column-oriented: row i of L is column i of Lᵀ.
  for (ordinal_t i = n; i-- > 0;) {
    const offset_t di = L.row_ptr[i + 1] - 1;
    z[i] /= L.values[di];
    for (offset_t p = L.row_ptr[i]; p < di; ++p) z[L.col_idx[p]] -= L.values[p] * z[i];
  }
  return z;
}

std::vector<double> ilu_apply(const IluFactors& F, const std::vector<double>& r) {
  if (F.L.nrows != F.U.nrows)
    throw InvalidInput("ilu_apply: L has " + std::to_string(F.L.nrows) + " rows but U has " +
                       std::to_string(F.U.nrows));
  return upper_solve(F.U, lower_solve(F.L, r, true));
}

// ---------------------------------------------------------------------------------------------------------

std::vector<double> jacobi(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x, int sweeps,
                           double omega) {
  const std::vector<offset_t> d = Impl::check_relax("jacobi", A, b, x);
  Impl::check_relax_params("jacobi", sweeps, omega);
  std::vector<double> xnew(x.size());
  return Impl::relax_fixed(A, b, x, sweeps, [&] { Impl::jacobi_sweep(A, d, b, x, xnew, omega); });
}

std::vector<double> gauss_seidel(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                 int sweeps) {
  const std::vector<offset_t> d = Impl::check_relax("gauss_seidel", A, b, x);
  Impl::check_relax_params("gauss_seidel", sweeps, 1.0);
  return Impl::relax_fixed(A, b, x, sweeps, [&] { Impl::gs_sweep(A, d, b, x); });
}

RelaxResult jacobi_until(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x, double tol,
                         int max_sweeps, double omega) {
  const std::vector<offset_t> d = Impl::check_relax("jacobi_until", A, b, x);
  Impl::check_relax_params("jacobi_until", max_sweeps, omega);
  Impl::check_tol("jacobi_until", tol);
  std::vector<double> xnew(x.size());
  return Impl::relax_until(A, b, x, tol, max_sweeps, [&] { Impl::jacobi_sweep(A, d, b, x, xnew, omega); });
}

RelaxResult gauss_seidel_until(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                               double tol, int max_sweeps) {
  const std::vector<offset_t> d = Impl::check_relax("gauss_seidel_until", A, b, x);
  Impl::check_relax_params("gauss_seidel_until", max_sweeps, 1.0);
  Impl::check_tol("gauss_seidel_until", tol);
  return Impl::relax_until(A, b, x, tol, max_sweeps, [&] { Impl::gs_sweep(A, d, b, x); });
}
}  // namespace Reference
}  // namespace AsyncSparse
