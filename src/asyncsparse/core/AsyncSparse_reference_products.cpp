// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Serial host references: sparse product, transpose and the residual norms of incomplete factorizations.
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/impl/AsyncSparse_reference_checks.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace AsyncSparse {
namespace Reference {
namespace Impl {

/// Adds row i of L U into the dense accumulator `acc`; `touched` lists (once, via `seen`) the columns reached.
inline void product_row(const CsrHost<double>& L, const CsrHost<double>& U, ordinal_t i, std::vector<double>& acc,
                        std::vector<char>& seen, std::vector<ordinal_t>& touched) {
  for (offset_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p) {
    const ordinal_t k = L.col_idx[p];
    const double lik = L.values[p];
    for (offset_t q = U.row_ptr[k]; q < U.row_ptr[k + 1]; ++q) {
      const ordinal_t j = U.col_idx[q];
      if (!seen[j]) {
        seen[j] = 1;
        touched.push_back(j);
      }
      acc[j] += lik * U.values[q];
    }
  }
}

inline void check_factor_dims(const char* fn, const CsrHost<double>& A, const CsrHost<double>& L,
                              const CsrHost<double>& U) {
  check_square(fn, "A", A);
  check_csr(fn, "L", L);
  check_csr(fn, "U", U);
  if (L.nrows != A.nrows || L.ncols != A.ncols || U.nrows != A.nrows || U.ncols != A.ncols)
    throw InvalidInput(std::string(fn) + ": factor dimensions (L " + std::to_string(L.nrows) + " x " +
                       std::to_string(L.ncols) + ", U " + std::to_string(U.nrows) + " x " + std::to_string(U.ncols) +
                       ") do not match A (" + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) + ")");
}

/// ||(A - L U)_S||_F and ||A_S||_F, S = pattern of A (only its lower part when `lower_only`).
inline std::pair<double, double> pattern_residual(const CsrHost<double>& A, const CsrHost<double>& L,
                                                  const CsrHost<double>& U, bool lower_only) {
  const ordinal_t n = A.nrows;
  std::vector<double> acc(n, 0.0);
  std::vector<char> seen(n, 0);
  std::vector<ordinal_t> touched;
  double r2 = 0.0, a2 = 0.0;
  for (ordinal_t i = 0; i < n; ++i) {
    product_row(L, U, i, acc, seen, touched);
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A.col_idx[p];
      if (lower_only && j > i) continue;
      const double d = A.values[p] - acc[j];
      r2 += d * d;
      a2 += A.values[p] * A.values[p];
    }
    for (ordinal_t j : touched) {
      acc[j] = 0.0;
      seen[j] = 0;
    }
    touched.clear();
  }
  return {std::sqrt(r2), std::sqrt(a2)};
}

inline double full_residual(const CsrHost<double>& A, const CsrHost<double>& L, const CsrHost<double>& U) {
  const ordinal_t n = A.nrows;
  std::vector<double> acc(n, 0.0);
  std::vector<char> seen(n, 0);
  std::vector<ordinal_t> touched;
  double r2 = 0.0;
  for (ordinal_t i = 0; i < n; ++i) {
    product_row(L, U, i, acc, seen, touched);
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A.col_idx[p];
      if (!seen[j]) {
        seen[j] = 1;
        touched.push_back(j);
      }
      acc[j] -= A.values[p];
    }
    for (ordinal_t j : touched) {
      r2 += acc[j] * acc[j];
      acc[j] = 0.0;
      seen[j] = 0;
    }
    touched.clear();
  }
  return std::sqrt(r2);
}

}  // namespace Impl

// ---------------------------------------------------------------------------------------------------------

CsrHost<double> multiply(const CsrHost<double>& A, const CsrHost<double>& B) {
  Impl::check_csr("multiply", "A", A);
  Impl::check_csr("multiply", "B", B);
  if (A.ncols != B.nrows)
    throw InvalidInput("multiply: inner dimensions differ (A is " + std::to_string(A.nrows) + " x " +
                       std::to_string(A.ncols) + ", B is " + std::to_string(B.nrows) + " x " + std::to_string(B.ncols) +
                       ")");
  CsrHost<double> C(A.nrows, B.ncols);
  std::vector<double> acc(B.ncols, 0.0);
  std::vector<char> seen(B.ncols, 0);
  std::vector<ordinal_t> touched;
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    Impl::product_row(A, B, i, acc, seen, touched);
    std::sort(touched.begin(), touched.end());
    for (ordinal_t j : touched) {
      C.col_idx.push_back(j);
      C.values.push_back(acc[j]);
      acc[j] = 0.0;
      seen[j] = 0;
    }
    touched.clear();
    C.row_ptr[i + 1] = static_cast<offset_t>(C.col_idx.size());
  }
  return C;
}

CsrHost<double> transpose(const CsrHost<double>& A) {
  Impl::check_csr("transpose", "A", A);
  CsrHost<double> T(A.ncols, A.nrows);
  for (offset_t p = 0; p < A.nnz(); ++p) ++T.row_ptr[A.col_idx[p] + 1];
  for (ordinal_t j = 0; j < A.ncols; ++j) T.row_ptr[j + 1] += T.row_ptr[j];
  T.col_idx.resize(A.nnz());
  T.values.resize(A.nnz());
  std::vector<offset_t> next(T.row_ptr.begin(), T.row_ptr.end() - 1);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const offset_t q = next[A.col_idx[p]]++;
      T.col_idx[q] = i;
      T.values[q] = A.values[p];
    }
  return T;
}

double frobenius_norm(const CsrHost<double>& A) {
  Impl::check_csr("frobenius_norm", "A", A);
  double s = 0.0;
  for (double v : A.values) s += v * v;
  return std::sqrt(s);
}

double nonlinear_residual(const CsrHost<double>& A, const CsrHost<double>& L, const CsrHost<double>& U) {
  Impl::check_factor_dims("nonlinear_residual", A, L, U);
  const auto r = Impl::pattern_residual(A, L, U, false);
  return r.second > 0.0 ? r.first / r.second : r.first;
}

double nonlinear_residual(const CsrHost<double>& A, const CsrHost<double>& L) {
  Impl::check_factor_dims("nonlinear_residual", A, L, L);
  const auto r = Impl::pattern_residual(A, L, transpose(L), true);
  return r.second > 0.0 ? r.first / r.second : r.first;
}

double ilu_residual(const CsrHost<double>& A, const CsrHost<double>& L, const CsrHost<double>& U) {
  Impl::check_factor_dims("ilu_residual", A, L, U);
  return Impl::full_residual(A, L, U);
}

double ilu_residual(const CsrHost<double>& A, const CsrHost<double>& L) {
  Impl::check_factor_dims("ilu_residual", A, L, L);
  return Impl::full_residual(A, L, transpose(L));
}

}  // namespace Reference
}  // namespace AsyncSparse
