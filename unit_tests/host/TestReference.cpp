// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Serial host reference implementations: hand-computed factors, dense cross-checks, relaxation behaviour and
// every bad-input message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <support/TestHelpers.hpp>
#include <utility>
#include <vector>

using namespace AsyncSparse;
using namespace AsyncSparse::Reference;

namespace {

using Dense = std::vector<std::vector<double>>;

CsrHost<double> from_dense(const Dense& D) {
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (std::size_t i = 0; i < D.size(); ++i)
    for (std::size_t j = 0; j < D[i].size(); ++j)
      if (D[i][j] != 0.0) {
        r.push_back(static_cast<ordinal_t>(i));
        c.push_back(static_cast<ordinal_t>(j));
        v.push_back(D[i][j]);
      }
  return csr_from_triplets(static_cast<ordinal_t>(D.size()), static_cast<ordinal_t>(D.empty() ? 0 : D[0].size()), r, c,
                           v);
}

Dense to_dense(const CsrHost<double>& A) {
  Dense D(A.nrows, std::vector<double>(A.ncols, 0.0));
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) D[i][A.col_idx[p]] = A.values[p];
  return D;
}

Dense dense_mul(const Dense& A, const Dense& B) {
  Dense C(A.size(), std::vector<double>(B[0].size(), 0.0));
  for (std::size_t i = 0; i < A.size(); ++i)
    for (std::size_t k = 0; k < B.size(); ++k)
      for (std::size_t j = 0; j < B[0].size(); ++j) C[i][j] += A[i][k] * B[k][j];
  return C;
}

/// Dense LU without pivoting; `mask` (same shape, true = keep) restricts updates when given (ILU(0) by hand).
std::pair<Dense, Dense> dense_lu(Dense A, const std::vector<std::vector<bool>>* mask = nullptr) {
  const std::size_t n = A.size();
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t k = 0; k < i; ++k) {
      if (mask && !(*mask)[i][k]) continue;
      if (A[i][k] == 0.0 && !mask) continue;
      A[i][k] /= A[k][k];
      for (std::size_t j = k + 1; j < n; ++j)
        if (!mask || (*mask)[i][j]) A[i][j] -= A[i][k] * A[k][j];
    }
  Dense L(n, std::vector<double>(n, 0.0)), U = L;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (j < i) L[i][j] = A[i][j];
      if (j >= i) U[i][j] = A[i][j];
    }
  for (std::size_t i = 0; i < n; ++i) L[i][i] = 1.0;
  return {L, U};
}

Dense dense_cholesky(const Dense& A) {
  const std::size_t n = A.size();
  Dense L(n, std::vector<double>(n, 0.0));
  for (std::size_t j = 0; j < n; ++j) {
    double d = A[j][j];
    for (std::size_t k = 0; k < j; ++k) d -= L[j][k] * L[j][k];
    L[j][j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = A[i][j];
      for (std::size_t k = 0; k < j; ++k) s -= L[i][k] * L[j][k];
      L[i][j] = s / L[j][j];
    }
  }
  return L;
}

void expect_dense_near(const Dense& A, const Dense& B, double tol) {
  ASSERT_EQ(A.size(), B.size());
  for (std::size_t i = 0; i < A.size(); ++i) {
    ASSERT_EQ(A[i].size(), B[i].size());
    for (std::size_t j = 0; j < A[i].size(); ++j) EXPECT_NEAR(A[i][j], B[i][j], tol) << "at (" << i << ", " << j << ")";
  }
}

/// 5-point Laplacian on an m x m grid, natural ordering.
CsrHost<double> laplace2d(ordinal_t m) {
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  auto add = [&](ordinal_t i, ordinal_t j, double x) {
    r.push_back(i);
    c.push_back(j);
    v.push_back(x);
  };
  for (ordinal_t y = 0; y < m; ++y)
    for (ordinal_t x = 0; x < m; ++x) {
      const ordinal_t i = y * m + x;
      add(i, i, 4.0);
      if (x > 0) add(i, i - 1, -1.0);
      if (x < m - 1) add(i, i + 1, -1.0);
      if (y > 0) add(i, i - m, -1.0);
      if (y < m - 1) add(i, i + m, -1.0);
    }
  return csr_from_triplets(m * m, m * m, r, c, v);
}

CsrHost<double> tridiag(ordinal_t n, double lo, double d, double up) {
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (ordinal_t i = 0; i < n; ++i) {
    r.push_back(i), c.push_back(i), v.push_back(d);
    if (i > 0) r.push_back(i), c.push_back(i - 1), v.push_back(lo);
    if (i < n - 1) r.push_back(i), c.push_back(i + 1), v.push_back(up);
  }
  return csr_from_triplets(n, n, r, c, v);
}

/// Deterministic random sparse, strictly diagonally dominant (nonsymmetric) n x n with about `per_row`
/// off-diagonals per row; symmetric (SPD) when `symmetric`.
CsrHost<double> random_dd(ordinal_t n, int per_row, std::uint32_t seed, bool symmetric) {
  std::mt19937 gen(seed);
  auto uni = [&] { return static_cast<double>(gen()) / 4294967296.0; };  // [0, 1)
  Dense D(n, std::vector<double>(n, 0.0));
  for (ordinal_t i = 0; i < n; ++i)
    for (int t = 0; t < per_row; ++t) {
      const ordinal_t j = static_cast<ordinal_t>(gen() % static_cast<std::uint32_t>(n));
      if (j == i) continue;
      const double x = uni() * 2.0 - 1.0;
      D[i][j] = x;
      if (symmetric) D[j][i] = x;
    }
  for (ordinal_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (ordinal_t j = 0; j < n; ++j) s += std::abs(D[i][j]);
    D[i][i] = s + 1.0 + uni();
  }
  return from_dense(D);
}

// 4 x 4 periodic 1D Laplacian-like matrix: ILU(0) drops the fill at (1, 3) and (3, 1).
CsrHost<double> periodic4() { return from_dense({{4, -1, 0, -1}, {-1, 4, -1, 0}, {0, -1, 4, -1}, {-1, 0, -1, 4}}); }

double rel_frob(const CsrHost<double>& A, double r) { return r / frobenius_norm(A); }

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// ILU(0) / IC(0)
// ---------------------------------------------------------------------------------------------------------

TEST(reference, ilu0_hand_computed_4x4) {
  // Row 1: l10 = -1/4, u11 = 4 - 1/4 = 15/4 (fill (1,3) dropped). Row 2: l21 = -4/15, u22 = 4 - 4/15 = 56/15.
  // Row 3: l30 = -1/4, a33 <- 4 - 1/4 (fill (3,1) dropped), l32 = -15/56, u33 = 15/4 - 15/56 = 195/56.
  const auto F = ilu0(periodic4());
  EXPECT_EQ(F.L.row_ptr, (std::vector<offset_t>{0, 1, 3, 5, 8}));
  EXPECT_EQ(F.L.col_idx, (std::vector<ordinal_t>{0, 0, 1, 1, 2, 0, 2, 3}));
  const std::vector<double> Lv{1, -0.25, 1, -4.0 / 15, 1, -0.25, -15.0 / 56, 1};
  EXPECT_EQ(F.U.row_ptr, (std::vector<offset_t>{0, 3, 5, 7, 8}));
  EXPECT_EQ(F.U.col_idx, (std::vector<ordinal_t>{0, 1, 3, 1, 2, 2, 3, 3}));
  const std::vector<double> Uv{4, -1, -1, 15.0 / 4, -1, 56.0 / 15, -1, 195.0 / 56};
  for (std::size_t p = 0; p < Lv.size(); ++p) EXPECT_NEAR(F.L.values[p], Lv[p], 1e-15) << "L entry " << p;
  for (std::size_t p = 0; p < Uv.size(); ++p) EXPECT_NEAR(F.U.values[p], Uv[p], 1e-15) << "U entry " << p;
  // The fixed-point equations hold on the pattern; the dropped fill shows in the full product.
  const auto A = periodic4();
  EXPECT_LT(nonlinear_residual(A, F.L, F.U), 1e-15);
  // (LU)_13 = l10 u03 = 1/4 and (LU)_31 = l30 u01 = 1/4 are the only entries off the pattern.
  EXPECT_NEAR(ilu_residual(A, F.L, F.U), std::sqrt(2.0) / 4, 1e-15);
}

TEST(reference, ilu0_matches_dense_masked_elimination) {
  const auto A = random_dd(12, 3, 7u, false);
  const Dense D = to_dense(A);
  std::vector<std::vector<bool>> mask(12, std::vector<bool>(12, false));
  for (ordinal_t i = 0; i < 12; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) mask[i][A.col_idx[p]] = true;
  const auto ref = dense_lu(D, &mask);
  const auto F = ilu0(A);
  expect_dense_near(to_dense(F.L), ref.first, 1e-14);
  expect_dense_near(to_dense(F.U), ref.second, 1e-14);
  EXPECT_LT(nonlinear_residual(A, F.L, F.U), 1e-15);
}

TEST(reference, ilu0_of_tridiagonal_is_exact_lu) {
  const auto A = tridiag(50, -1.0, 2.5, -1.2);
  const auto F = ilu0(A);
  EXPECT_EQ(F.L.nnz(), 50 + 49);
  EXPECT_EQ(F.U.nnz(), 50 + 49);
  EXPECT_LT(rel_frob(A, ilu_residual(A, F.L, F.U)), 1e-15);
  EXPECT_LT(nonlinear_residual(A, F.L, F.U), 1e-15);
  const auto ref = dense_lu(to_dense(A));
  expect_dense_near(to_dense(F.U), ref.second, 1e-14);
}

TEST(reference, ilu0_on_laplacian_solves_fixed_point_equations_but_is_incomplete) {
  const auto A = laplace2d(8);
  const auto F = ilu0(A);
  EXPECT_LT(nonlinear_residual(A, F.L, F.U), 1e-15);
  EXPECT_GT(rel_frob(A, ilu_residual(A, F.L, F.U)), 1e-2);
}

TEST(reference, ilu0_zero_pivot_throws_with_row) {
  const auto A = from_dense({{1, 1, 0}, {1, 1, 1}, {0, 1, 1}});  // u11 = 1 - 1 = 0
  ASSERT_THROW(ilu0(A), BreakdownError);
  try {
    ilu0(A);
  } catch (const BreakdownError& e) {
    EXPECT_EQ(e.row(), 1);
    EXPECT_NE(std::string(e.what()).find("ilu0: breakdown at row 1: zero pivot u_ii = 0"), std::string::npos)
        << e.what();
  }
  ASYNCSPARSE_EXPECT_THROW_MSG(iluk(A, 1), BreakdownError, "iluk: breakdown at row 1: zero pivot");
  ASYNCSPARSE_EXPECT_THROW_MSG(ilut(A, 0.0, 3), BreakdownError, "ilut: breakdown at row 1: zero pivot u_ii = 0");
}

// Pivot replacement (FactorOptions::pivot_tolerance): the zero pivot u_11 of the matrix above becomes +t |a_11|, a
// negative IC pivot becomes t a_ii; each is counted. ilu0, ilut_nnz (the same factors here: no fill is kept beyond the
// pattern) and ic0 / ict_nnz agree.
TEST(reference, pivot_replacement_is_counted) {
  const auto A = from_dense({{1, 1, 0}, {1, 1, 1}, {0, 1, 1}});
  offset_t replaced = -1;
  FactorOptions o;
  o.pivot_tolerance = 1e-6;
  o.pivots_replaced = &replaced;
  const auto F = ilu0(A, o);
  EXPECT_EQ(replaced, 1);
  EXPECT_EQ(F.U.values[F.U.row_ptr[1]], 1e-6);  // u_11 (diagonal first in U's row)
  EXPECT_DOUBLE_EQ(F.L.values[F.L.row_ptr[2]], 1e6);  // l_21 = 1 / u_11
  replaced = -1;
  const auto T = ilut_nnz(A, 5, 5, o);
  EXPECT_EQ(replaced, 1);
  EXPECT_EQ(T.U.values[T.U.row_ptr[1]], 1e-6);
  const auto S = from_dense({{1, 2}, {2, 1}});  // l_11^2 = 1 - 4 < 0
  ASYNCSPARSE_EXPECT_THROW_MSG(ic0(S), BreakdownError, "ic0: breakdown at row 1: non-positive pivot");
  replaced = -1;
  const auto L = ic0(S, o);
  EXPECT_EQ(replaced, 1);
  EXPECT_DOUBLE_EQ(L.values.back(), 1e-3);  // sqrt(1e-6)
  replaced = -1;
  const auto Lt = ict_nnz(S, 3, o);
  EXPECT_EQ(replaced, 1);
  EXPECT_DOUBLE_EQ(Lt.values.back(), 1e-3);
  // nothing to replace: the count is 0 and the factors are those without the option
  replaced = -1;
  const auto P = from_dense({{4, -1, 0}, {-1, 4, -1}, {0, -1, 4}});
  EXPECT_EQ(ilu0(P, o).U.values, ilu0(P).U.values);
  EXPECT_EQ(replaced, 0);
  // bad options
  o.pivot_tolerance = -1;
  ASYNCSPARSE_EXPECT_THROW_MSG(ilu0(A, o), InvalidInput, "ilu0: pivot tolerance must be in [0, 1)");
  o.pivot_tolerance = 1;
  ASYNCSPARSE_EXPECT_THROW_MSG(ict_nnz(S, 3, o), InvalidInput, "ict_nnz: pivot tolerance must be in [0, 1)");
  o.pivot_tolerance = 0;
  o.max_seconds = -1;
  ASYNCSPARSE_EXPECT_THROW_MSG(ilut_nnz(A, 5, 5, o), InvalidInput, "ilut_nnz: max_seconds must be >= 0");
}

// FactorOptions::max_seconds stops ilut_nnz / ict_nnz (checked every 64 rows) with TimeLimitExceeded naming the row.
TEST(reference, factorization_time_limit) {
  Dense d(200, std::vector<double>(200, 0.0));
  for (int i = 0; i < 200; ++i) {
    d[i][i] = 4;
    if (i > 0) d[i][i - 1] = d[i - 1][i] = -1;
  }
  const auto A = from_dense(d);
  FactorOptions o;
  o.max_seconds = 1e-12;
  try {
    ilut_nnz(A, 400, 400, o);
    ADD_FAILURE() << "expected TimeLimitExceeded";
  } catch (const TimeLimitExceeded& e) {
    EXPECT_EQ(e.row(), 64);
    EXPECT_NE(std::string(e.what()).find("ilut_nnz: stopped at row 64 of 200"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ict_nnz(A, 400, o), TimeLimitExceeded);
  o.max_seconds = 0;  // no limit
  EXPECT_EQ(ilut_nnz(A, 399, 399, o).L.nrows, 200);
}

TEST(reference, ilu0_overflow_reports_non_finite_value) {
  const auto A = from_dense({{1e-300, 1e300}, {1e300, 1.0}});  // l10 = 1e300 / 1e-300 overflows
  ASYNCSPARSE_EXPECT_THROW_MSG(ilu0(A), BreakdownError, "ilu0: breakdown at row 1: non-finite value");
  ASYNCSPARSE_EXPECT_THROW_MSG(ilut(A, 0.0, 2), BreakdownError, "ilut: breakdown at row 1: non-finite value");
}

TEST(reference, ic0_hand_computed_4x4) {
  const auto L = ic0(periodic4());
  EXPECT_EQ(L.row_ptr, (std::vector<offset_t>{0, 1, 3, 5, 8}));
  EXPECT_EQ(L.col_idx, (std::vector<ordinal_t>{0, 0, 1, 1, 2, 0, 2, 3}));
  const std::vector<double> v{2.0,
                              -0.5,
                              std::sqrt(15.0) / 2,
                              -2.0 / std::sqrt(15.0),
                              std::sqrt(56.0 / 15),
                              -0.5,
                              -std::sqrt(15.0 / 56),
                              std::sqrt(195.0 / 56)};
  for (std::size_t p = 0; p < v.size(); ++p) EXPECT_NEAR(L.values[p], v[p], 1e-15) << "entry " << p;
}

TEST(reference, ic0_reproduces_A_on_pattern_and_matches_ilu0) {
  const auto A = laplace2d(9);
  const auto L = ic0(A);
  EXPECT_LT(nonlinear_residual(A, L), 1e-15);
  EXPECT_LT(nonlinear_residual(A, L, transpose(L)), 1e-15);
  // For symmetric A, U of ILU(0) = D Lᵀ with D = diag(U), so L_ic = L_ilu D^{1/2}.
  const auto F = ilu0(A);
  ASSERT_EQ(L.col_idx, F.L.col_idx);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p) {
      const ordinal_t j = L.col_idx[p];
      EXPECT_NEAR(L.values[p], F.L.values[p] * std::sqrt(F.U.values[F.U.row_ptr[j]]), 1e-14);
    }
  // Tridiagonal SPD: IC(0) is the exact Cholesky factor.
  const auto T = tridiag(30, -1.0, 2.0, -1.0);
  const auto LT = ic0(T);
  EXPECT_LT(rel_frob(T, ilu_residual(T, LT)), 1e-15);
  expect_dense_near(to_dense(LT), dense_cholesky(to_dense(T)), 1e-14);
}

TEST(reference, ic0_of_indefinite_matrix_throws_with_row) {
  const auto A = from_dense({{1, 2}, {2, 1}});  // l11^2 = 1 - 4 < 0
  try {
    ic0(A);
    ADD_FAILURE() << "ic0 of an indefinite matrix did not throw";
  } catch (const BreakdownError& e) {
    EXPECT_EQ(e.row(), 1);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ic0: breakdown at row 1: non-positive pivot"), std::string::npos) << msg;
    EXPECT_NE(msg.find("matrix not SPD or IC(0) does not exist"), std::string::npos) << msg;
  }
  ASYNCSPARSE_EXPECT_THROW_MSG(ic0(from_dense({{4, 0, 1}, {0, -1, 0}, {1, 0, 4}})), BreakdownError,
                               "ic0: breakdown at row 1: non-positive pivot");
  ASYNCSPARSE_EXPECT_THROW_MSG(ict(A, 0.0, 2), BreakdownError, "ict: breakdown at row 1: non-positive pivot");
}

TEST(reference, ic0_requires_symmetry) {
  ASYNCSPARSE_EXPECT_THROW_MSG(ic0(from_dense({{4, 1}, {2, 4}})), InvalidInput,
                               "ic0: A is not symmetric: a(1, 0) = 2 but a(0, 1) = 1");
  ASYNCSPARSE_EXPECT_THROW_MSG(ic0(from_dense({{4, 0}, {2, 4}})), InvalidInput,
                               "ic0: A is not symmetric: a(1, 0) = 2 but a(0, 1) = (not stored)");
  ASYNCSPARSE_EXPECT_THROW_MSG(ict_nnz(from_dense({{4, 0}, {2, 4}}), 3), InvalidInput, "ict_nnz: A is not symmetric");
}

// ---------------------------------------------------------------------------------------------------------
// ILU(k)
// ---------------------------------------------------------------------------------------------------------

TEST(reference, iluk_pattern_levels_by_hand) {
  const auto A = periodic4();
  const auto P0 = iluk_pattern(A, 0);
  const auto F0 = ilu0(A);
  EXPECT_EQ(P0.L.row_ptr, F0.L.row_ptr);
  EXPECT_EQ(P0.L.col_idx, F0.L.col_idx);
  EXPECT_EQ(P0.U.col_idx, F0.U.col_idx);
  for (double v : P0.L.values) EXPECT_EQ(v, 0.0);
  for (double v : P0.U.values) EXPECT_EQ(v, 0.0);
  // Level 1 adds (1,3) (via row 0) and (3,1) (via row 0); (0,2) and (2,0) are never filled.
  const auto P1 = iluk_pattern(A, 1);
  EXPECT_EQ(P1.L.row_ptr, (std::vector<offset_t>{0, 1, 3, 5, 9}));
  EXPECT_EQ(P1.L.col_idx, (std::vector<ordinal_t>{0, 0, 1, 1, 2, 0, 1, 2, 3}));
  EXPECT_EQ(P1.U.row_ptr, (std::vector<offset_t>{0, 3, 6, 8, 9}));
  EXPECT_EQ(P1.U.col_idx, (std::vector<ordinal_t>{0, 1, 3, 1, 2, 3, 2, 3, 3}));
  // That is the complete LU pattern, so ILU(1) is exact here.
  const auto F1 = iluk(A, 1);
  EXPECT_LT(rel_frob(A, ilu_residual(A, F1.L, F1.U)), 1e-15);
}

TEST(reference, iluk_on_laplacian_level_one_fill) {
  // 5-point stencil, natural ordering: ILU(1) adds exactly the (i, i+m-1) / (i+m-1, i) fill of level 1 where
  // both grid points share an interior coupling: (m-1)^2 entries on each side.
  const ordinal_t m = 6;
  const auto A = laplace2d(m);
  const auto P1 = iluk_pattern(A, 1);
  const auto F0 = ilu0(A);
  EXPECT_EQ(P1.L.nnz() - F0.L.nnz(), (m - 1) * (m - 1));
  EXPECT_EQ(P1.U.nnz() - F0.U.nnz(), (m - 1) * (m - 1));
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A.col_idx[p];
      EXPECT_GE(j <= i ? find_entry(P1.L, i, j) : find_entry(P1.U, i, j), 0) << "(" << i << ", " << j << ")";
    }
  // Each level contains the previous one and improves the factorization.
  double prev = std::numeric_limits<double>::infinity();
  offset_t prev_nnz = 0;
  for (int k = 0; k <= 3; ++k) {
    const auto F = iluk(A, k);
    EXPECT_LT(nonlinear_residual(A, F.L, F.U), 1e-15) << "k = " << k;
    const double r = ilu_residual(A, F.L, F.U);
    EXPECT_LT(r, prev) << "k = " << k;
    EXPECT_GT(F.L.nnz() + F.U.nnz(), prev_nnz);
    prev = r;
    prev_nnz = F.L.nnz() + F.U.nnz();
  }
}

TEST(reference, iluk_zero_equals_ilu0_and_large_k_equals_lu) {
  const auto A = random_dd(15, 3, 11u, false);
  const auto F0 = ilu0(A), K0 = iluk(A, 0);
  EXPECT_EQ(F0.L.col_idx, K0.L.col_idx);
  EXPECT_EQ(F0.U.col_idx, K0.U.col_idx);
  EXPECT_EQ(F0.L.values, K0.L.values);
  EXPECT_EQ(F0.U.values, K0.U.values);
  const auto ref = dense_lu(to_dense(A));
  const auto K = iluk(A, 15);
  expect_dense_near(to_dense(K.L), ref.first, 1e-13);
  expect_dense_near(to_dense(K.U), ref.second, 1e-13);
  EXPECT_LT(rel_frob(A, ilu_residual(A, K.L, K.U)), 1e-14);
}

namespace {
/// Largest |(P)_ij - a_ij| over the entries (i, j) of the pattern S (a_ij = 0 where A has no entry), P a dense
/// product of the factors; also counts the entries of S that are fill (not in A) and the entries of A not in S.
struct OnPattern {
  double max_err = 0.0;
  int fill = 0, dropped = 0;
};
OnPattern compare_on_pattern(const CsrHost<double>& A, const Dense& P, const std::vector<CsrHost<double>>& S) {
  OnPattern r;
  const Dense Ad = to_dense(A);
  Dense in_s(A.nrows, std::vector<double>(A.ncols, 0.0));
  for (const auto& F : S)
    for (ordinal_t i = 0; i < F.nrows; ++i)
      for (offset_t p = F.row_ptr[i]; p < F.row_ptr[i + 1]; ++p) in_s[i][F.col_idx[p]] = 1.0;
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (ordinal_t j = 0; j < A.ncols; ++j) {
      const bool a = find_entry(A, i, j) >= 0;
      if (in_s[i][j] != 0.0) {
        r.max_err = std::max(r.max_err, std::abs(P[i][j] - Ad[i][j]));
        if (!a) ++r.fill;
      } else if (a) {
        ++r.dropped;
      }
    }
  return r;
}
}  // namespace

TEST(reference, ilu_on_pattern_solves_the_bilinear_equations_on_a_threshold_pattern) {
  // The ILUT pattern both adds fill and drops entries of A: the factors must satisfy (LU)_ij = a_ij on it
  // (a_ij = 0 at fill), which ILUT's own values do not.
  const auto A = random_dd(24, 4, 17u, false);
  const auto F0 = ilu0(A);
  const auto T = ilut_nnz(A, F0.L.nnz() + 10, F0.U.nnz() + 10);
  const auto F = ilu_on_pattern(A, T);
  EXPECT_EQ(F.L.col_idx, T.L.col_idx);
  EXPECT_EQ(F.U.col_idx, T.U.col_idx);
  const auto r = compare_on_pattern(A, to_dense(multiply(F.L, F.U)), {T.L, T.U});
  ASSERT_GT(r.fill, 0);
  ASSERT_GT(r.dropped, 0);
  EXPECT_LT(r.max_err, 1e-13);
  const auto rt = compare_on_pattern(A, to_dense(multiply(T.L, T.U)), {T.L, T.U});
  EXPECT_GT(rt.max_err, 1e-6);  // ILUT's values are a different approximation
  // On A's own pattern it is ILU(0), on the ILU(2) pattern ILU(2), bit for bit.
  const auto P0 = ilu_on_pattern(A, F0);
  EXPECT_EQ(P0.L.values, F0.L.values);
  EXPECT_EQ(P0.U.values, F0.U.values);
  const auto K2 = iluk(A, 2), P2 = ilu_on_pattern(A, iluk_pattern(A, 2));
  EXPECT_EQ(P2.L.values, K2.L.values);
  EXPECT_EQ(P2.U.values, K2.U.values);
}

TEST(reference, ic_on_pattern_solves_the_bilinear_equations_on_a_threshold_pattern) {
  const auto A = laplace2d(8);
  const auto L0 = ic0(A);
  const auto T = ict_nnz(A, L0.nnz() + 20);
  const auto L = ic_on_pattern(A, T);
  EXPECT_EQ(L.col_idx, T.col_idx);
  const auto r = compare_on_pattern(A, to_dense(multiply(L, transpose(L))), {T});
  ASSERT_GT(r.fill, 0);
  ASSERT_GT(r.dropped, 0);
  EXPECT_LT(r.max_err, 1e-13);
  EXPECT_EQ(ic_on_pattern(A, L0).values, L0.values);  // A's lower pattern: IC(0)
}

TEST(reference, factor_on_pattern_rejects_bad_patterns) {
  const auto A = laplace2d(3);
  const auto F = ilu0(A);
  auto no_diag = F;  // an L pattern whose row 1 is empty
  no_diag.L = csr_from_triplets<double>(9, 9, {0, 4}, {0, 3}, {1.0, 1.0});
  ASYNCSPARSE_EXPECT_THROW_MSG(ilu_on_pattern(A, no_diag), InvalidInput,
                               "ilu_on_pattern: S.L row 1 does not end with its diagonal entry");
  auto small = F;
  small.U = from_dense({{1, 0}, {0, 1}});
  ASYNCSPARSE_EXPECT_THROW_MSG(ilu_on_pattern(A, small), InvalidInput, "ilu_on_pattern: S.U is 2 x 2, A is 9 x 9");
  ASYNCSPARSE_EXPECT_THROW_MSG(ic_on_pattern(A, F.U), InvalidInput,
                               "ic_on_pattern: L row 0 does not end with its diagonal entry");
  // IC on a pattern of an indefinite matrix breaks down with the row.
  const auto B = from_dense({{1, 2}, {2, 1}});
  ASYNCSPARSE_EXPECT_THROW_MSG(ic_on_pattern(B, from_dense({{1, 0}, {1, 1}})), BreakdownError,
                               "ic_on_pattern: breakdown at row 1: non-positive pivot");
}

// ---------------------------------------------------------------------------------------------------------
// ILUT / ICT
// ---------------------------------------------------------------------------------------------------------

TEST(reference, ilut_without_dropping_is_exact_lu) {
  const auto A = random_dd(20, 3, 3u, false);
  const auto ref = dense_lu(to_dense(A));
  const auto F = ilut(A, 0.0, 20);
  expect_dense_near(to_dense(F.L), ref.first, 1e-13);
  expect_dense_near(to_dense(F.U), ref.second, 1e-13);
  EXPECT_LT(rel_frob(A, ilu_residual(A, F.L, F.U)), 1e-14);
  EXPECT_TRUE(is_sorted_unique(F.L));
  EXPECT_TRUE(is_sorted_unique(F.U));
}

TEST(reference, ilut_dropping_rules) {
  const auto A = laplace2d(8);
  // Huge threshold or p = 0: only the diagonal survives, L = I and U = diag(A).
  for (const auto& F : {ilut(A, 1e3, 64), ilut(A, 0.0, 0)}) {
    EXPECT_EQ(F.L.nnz(), A.nrows);
    EXPECT_EQ(F.U.nnz(), A.nrows);
    for (ordinal_t i = 0; i < A.nrows; ++i) {
      EXPECT_EQ(F.L.values[i], 1.0);
      EXPECT_EQ(F.U.values[i], 4.0);
    }
  }
  // p caps each side of each row.
  const auto F2 = ilut(A, 0.0, 2);
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    EXPECT_LE(F2.L.row_end(i) - F2.L.row_begin(i), 3);
    EXPECT_LE(F2.U.row_end(i) - F2.U.row_begin(i), 3);
  }
  // Threshold: every kept off-diagonal entry has magnitude >= tau ||a_i||_2 >= tau sqrt(18) here.
  const double tau = 0.01;
  const auto Ft = ilut(A, tau, 64);
  for (const CsrHost<double>* M : {&Ft.L, &Ft.U})
    for (ordinal_t i = 0; i < A.nrows; ++i)
      for (offset_t p = M->row_ptr[i]; p < M->row_ptr[i + 1]; ++p)
        if (M->col_idx[p] != i) {
          EXPECT_GE(std::abs(M->values[p]), tau * std::sqrt(18.0));
        }
  const auto F0 = ilu0(A);
  EXPECT_GT(Ft.L.nnz() + Ft.U.nnz(), F0.L.nnz() + F0.U.nnz());
  EXPECT_LT(ilu_residual(A, Ft.L, Ft.U), ilu_residual(A, F0.L, F0.U));
}

TEST(reference, ilut_keeps_largest_entries) {
  // Row 1 has no lower part, so its work row is a_1 = [0, 10, 1, -3, 2]: p = 2 keeps columns 3 and 4 (|-3|, |2|)
  // besides the diagonal and drops column 2.
  const auto A = from_dense({{5, 0, 0, 0, 0}, {0, 10, 1, -3, 2}, {0, 0, 5, 0, 0}, {0, 0, 0, 5, 0}, {0, 0, 0, 0, 5}});
  const auto F = ilut(A, 0.0, 2);
  EXPECT_EQ(F.U.row_end(1) - F.U.row_begin(1), 3);
  EXPECT_EQ(F.U.col_idx[F.U.row_begin(1)], 1);
  EXPECT_EQ(F.U.col_idx[F.U.row_begin(1) + 1], 3);
  EXPECT_EQ(F.U.col_idx[F.U.row_begin(1) + 2], 4);
  EXPECT_EQ(F.U.values[F.U.row_begin(1) + 1], -3.0);
}

TEST(reference, ilut_nnz_hits_budget_within_one_percent) {
  const auto A = laplace2d(20);
  const auto F0 = ilu0(A);
  double prev = std::numeric_limits<double>::infinity();
  for (double fill : {1.0, 1.5, 2.0, 3.0}) {
    const offset_t tl = static_cast<offset_t>(std::lround(fill * F0.L.nnz()));
    const offset_t tu = static_cast<offset_t>(std::lround(fill * F0.U.nnz()));
    const auto F = ilut_nnz(A, tl, tu);
    EXPECT_LE(std::abs(F.L.nnz() - tl), 0.01 * tl) << "fill " << fill << ": nnz(L) = " << F.L.nnz();
    EXPECT_LE(std::abs(F.U.nnz() - tu), 0.01 * tu) << "fill " << fill << ": nnz(U) = " << F.U.nnz();
    const double r = ilu_residual(A, F.L, F.U);
    EXPECT_LT(r, prev) << "fill " << fill;
    prev = r;
  }
  // Diagonal-only budget.
  const auto D = ilut_nnz(A, A.nrows, A.nrows);
  EXPECT_EQ(D.L.nnz(), A.nrows);
  EXPECT_EQ(D.U.nnz(), A.nrows);
  // A budget above the complete LU gives at most the complete LU (and no error).
  const auto B = random_dd(12, 3, 5u, false);
  const auto full = ilut_nnz(B, 1000, 1000);
  const auto lu = ilut(B, 0.0, 12);
  EXPECT_LE(full.L.nnz(), lu.L.nnz());
  EXPECT_LE(full.U.nnz(), lu.U.nnz());
  EXPECT_LT(full.L.nnz(), 1000);
}

TEST(reference, ict_without_dropping_is_exact_cholesky) {
  const auto A = random_dd(18, 2, 9u, true);
  const auto L = ict(A, 0.0, 18);
  expect_dense_near(to_dense(L), dense_cholesky(to_dense(A)), 1e-13);
  EXPECT_LT(rel_frob(A, ilu_residual(A, L)), 1e-14);
}

TEST(reference, ict_dropping_rules) {
  const auto A = laplace2d(8);
  const double tau = 0.02;
  for (const auto& L : {ict(A, 0.0, 3), ict(A, tau, 64), ict(A, 1e3, 64), ict(A, 0.0, 0)}) {
    EXPECT_TRUE(is_sorted_unique(L));
    // The diagonal is chosen so that (L Lᵀ)_ii = a_ii whatever was dropped.
    const Dense LLt = dense_mul(to_dense(L), to_dense(transpose(L)));
    for (ordinal_t i = 0; i < A.nrows; ++i) {
      EXPECT_NEAR(LLt[i][i], 4.0, 1e-14);
      EXPECT_EQ(L.col_idx[L.row_ptr[i + 1] - 1], i);
    }
  }
  const auto L3 = ict(A, 0.0, 3);
  for (ordinal_t i = 0; i < A.nrows; ++i) EXPECT_LE(L3.row_end(i) - L3.row_begin(i), 4);
  const auto Lt = ict(A, tau, 64);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = Lt.row_ptr[i]; p < Lt.row_ptr[i + 1] - 1; ++p)
      EXPECT_GE(std::abs(Lt.values[p]), tau * std::sqrt(18.0));
  EXPECT_GT(Lt.nnz(), ic0(A).nnz());
  EXPECT_LT(ilu_residual(A, Lt), ilu_residual(A, ic0(A)));
  EXPECT_EQ(ict(A, 1e3, 64).nnz(), A.nrows);  // diagonal only: L = 2 I
  EXPECT_EQ(ict(A, 0.0, 0).values, std::vector<double>(A.nrows, 2.0));
}

TEST(reference, ict_nnz_hits_budget_within_one_percent) {
  const auto A = laplace2d(20);
  const auto L0 = ic0(A);
  double prev = std::numeric_limits<double>::infinity();
  for (double fill : {1.0, 2.0, 3.0}) {
    const offset_t t = static_cast<offset_t>(std::lround(fill * L0.nnz()));
    const auto L = ict_nnz(A, t);
    EXPECT_LE(std::abs(L.nnz() - t), 0.01 * t) << "fill " << fill << ": nnz(L) = " << L.nnz();
    const double r = ilu_residual(A, L);
    EXPECT_LT(r, prev);
    prev = r;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Triangular solves
// ---------------------------------------------------------------------------------------------------------

TEST(reference, triangular_solves_match_dense) {
  const auto A = random_dd(16, 3, 21u, false);
  const auto F = ilut(A, 0.0, 16);  // exact LU
  std::vector<double> b(16);
  for (int i = 0; i < 16; ++i) b[i] = 1.0 + 0.5 * i - 0.03 * i * i;
  // L y = b with the unit diagonal; then U x = y; then A x = b.
  const auto y = lower_solve(F.L, b, true);
  const Dense Ld = to_dense(F.L);
  for (int i = 0; i < 16; ++i) {
    double s = 0.0;
    for (int j = 0; j < 16; ++j) s += Ld[i][j] * y[j];
    EXPECT_NEAR(s, b[i], 1e-13);
  }
  const auto x = upper_solve(F.U, y);
  const auto z = ilu_apply(F, b);
  const Dense Ad = to_dense(A);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(x[i], z[i]);
    double s = 0.0;
    for (int j = 0; j < 16; ++j) s += Ad[i][j] * x[j];
    EXPECT_NEAR(s, b[i], 1e-12);
  }
  // Non-unit lower solve by hand: [[2,0],[1,4]] x = [2, 9] → x = [1, 2]; with unit_diag the diagonal is ignored.
  const auto T = from_dense({{2, 0}, {1, 4}});
  EXPECT_EQ(lower_solve(T, {2.0, 9.0}), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(lower_solve(T, {2.0, 9.0}, true), (std::vector<double>{2.0, 7.0}));
  EXPECT_EQ(upper_solve(from_dense({{2, 1}, {0, 4}}), {4.0, 8.0}), (std::vector<double>{1.0, 2.0}));
}

TEST(reference, ic_apply_solves_llt) {
  const auto A = random_dd(14, 2, 17u, true);
  const auto L = ict(A, 0.0, 14);
  std::vector<double> r(14);
  for (int i = 0; i < 14; ++i) r[i] = std::sin(1.0 + i);
  const auto z = ic_apply(L, r);
  const Dense Ld = to_dense(L);
  const Dense LLt = dense_mul(Ld, to_dense(transpose(L)));
  for (int i = 0; i < 14; ++i) {
    double s = 0.0;
    for (int j = 0; j < 14; ++j) s += LLt[i][j] * z[j];
    EXPECT_NEAR(s, r[i], 1e-13);
  }
}

TEST(reference, triangular_solve_errors) {
  const auto U = from_dense({{2, 1}, {0, 4}});
  const auto L = from_dense({{2, 0}, {1, 4}});
  ASYNCSPARSE_EXPECT_THROW_MSG(lower_solve(U, {1.0, 1.0}), InvalidInput,
                               "lower_solve: L is not lower triangular: entry (0, 1)");
  ASYNCSPARSE_EXPECT_THROW_MSG(upper_solve(L, {1.0, 1.0}), InvalidInput,
                               "upper_solve: U is not upper triangular: entry (1, 0)");
  ASYNCSPARSE_EXPECT_THROW_MSG(lower_solve(from_dense({{2, 0}, {1, 0}}), {1.0, 1.0}), InvalidInput,
                               "lower_solve: L: missing diagonal entry in row 1");
  ASYNCSPARSE_EXPECT_THROW_MSG(upper_solve(from_dense({{0, 1}, {0, 4}}), {1.0, 1.0}), InvalidInput,
                               "upper_solve: U: missing diagonal entry in row 0");
  auto Z = L;
  Z.values[2] = 0.0;  // explicit zero diagonal at row 1
  ASYNCSPARSE_EXPECT_THROW_MSG(lower_solve(Z, {1.0, 1.0}), BreakdownError,
                               "lower_solve: breakdown at row 1: zero diagonal");
  ASYNCSPARSE_EXPECT_THROW_MSG(ic_apply(Z, {1.0, 1.0}), BreakdownError, "ic_apply: breakdown at row 1: zero diagonal");
  auto ZU = U;
  ZU.values[0] = 0.0;
  ASYNCSPARSE_EXPECT_THROW_MSG(upper_solve(ZU, {1.0, 1.0}), BreakdownError,
                               "upper_solve: breakdown at row 0: zero diagonal");
  ASYNCSPARSE_EXPECT_THROW_MSG(lower_solve(L, {1.0}), InvalidInput, "lower_solve: b has size 1, expected 2");
  ASYNCSPARSE_EXPECT_THROW_MSG(upper_solve(U, {1.0, NAN}), InvalidInput, "upper_solve: b[1] is non-finite");
  ASYNCSPARSE_EXPECT_THROW_MSG(ic_apply(U, {1.0, 1.0}), InvalidInput, "ic_apply: L is not lower triangular");
  ASYNCSPARSE_EXPECT_THROW_MSG(ic_apply(from_dense({{2, 0}, {1, 0}}), {1.0, 1.0}), InvalidInput,
                               "ic_apply: L: missing diagonal entry in row 1");
  IluFactors bad{L, from_dense({{1}})};
  ASYNCSPARSE_EXPECT_THROW_MSG(ilu_apply(bad, {1.0, 1.0}), InvalidInput, "ilu_apply: L has 2 rows but U has 1");
}

// ---------------------------------------------------------------------------------------------------------
// Relaxation
// ---------------------------------------------------------------------------------------------------------

TEST(reference, jacobi_and_gauss_seidel_one_sweep_by_hand) {
  const auto A = from_dense({{2, 1}, {1, 2}});
  const std::vector<double> b{3.0, 3.0};
  std::vector<double> x{0.0, 0.0};
  const auto hj = jacobi(A, b, x, 1);
  EXPECT_EQ(x, (std::vector<double>{1.5, 1.5}));
  ASSERT_EQ(hj.size(), 2u);
  EXPECT_DOUBLE_EQ(hj[0], 1.0);
  EXPECT_DOUBLE_EQ(hj[1], 0.5);  // r = [-1.5, -1.5]
  x = {0.0, 0.0};
  const auto hg = gauss_seidel(A, b, x, 1);
  EXPECT_EQ(x, (std::vector<double>{1.5, 0.75}));
  ASSERT_EQ(hg.size(), 2u);
  EXPECT_DOUBLE_EQ(hg[1], std::sqrt(0.75 * 0.75) / std::sqrt(18.0));  // r = [0.75, 0]
  x = {0.0, 0.0};
  jacobi(A, b, x, 1, 0.5);
  EXPECT_EQ(x, (std::vector<double>{0.75, 0.75}));
  x = {0.0, 0.0};
  EXPECT_EQ(jacobi(A, b, x, 0).size(), 1u);
  EXPECT_EQ(x, (std::vector<double>{0.0, 0.0}));
}

TEST(reference, jacobi_converges_on_diagonally_dominant_matrix) {
  const auto A = random_dd(40, 4, 2u, false);
  std::vector<double> b(40, 1.0), x(40, 0.0);
  const auto h = jacobi(A, b, x, 150);
  ASSERT_EQ(h.size(), 151u);
  EXPECT_DOUBLE_EQ(h[0], 1.0);
  EXPECT_LT(h.back(), 1e-10);
  std::vector<double> x2(40, 0.0);
  const auto R = jacobi_until(A, b, x2, 1e-8, 1000);
  EXPECT_TRUE(R.converged);
  EXPECT_FALSE(R.diverged);
  EXPECT_LE(R.final_residual, 1e-8);
  EXPECT_EQ(R.history.size(), static_cast<std::size_t>(R.sweeps) + 1);
  EXPECT_GT(R.history[R.sweeps - 1], 1e-8);  // stopped at the first sweep that met the tolerance
  std::vector<double> x3(x2);
  const auto R0 = jacobi_until(A, b, x3, 1e-8, 1000);  // already converged: zero sweeps
  EXPECT_EQ(R0.sweeps, 0);
  EXPECT_TRUE(R0.converged);
}

TEST(reference, jacobi_divergence_is_flagged_not_looped) {
  const auto A = from_dense({{1, 2}, {2, 1}});  // iteration matrix eigenvalues ±2
  const std::vector<double> b{1.0, 0.0};
  std::vector<double> x{0.0, 0.0};
  const auto R = jacobi_until(A, b, x, 1e-8, 100000);
  EXPECT_TRUE(R.diverged);
  EXPECT_FALSE(R.converged);
  EXPECT_LT(R.sweeps, 60);
  EXPECT_GT(R.final_residual, 1e10 * R.history[0]);
  // Fixed sweeps stop at the first non-finite residual instead of running on with garbage.
  std::vector<double> y{0.0, 0.0};
  const auto h = jacobi(A, b, y, 5000);
  EXPECT_LT(h.size(), 5001u);
  EXPECT_FALSE(std::isfinite(h.back()));
  std::vector<double> z{0.0, 0.0};
  const auto G = gauss_seidel_until(A, b, z, 1e-8, 100000);  // GS iteration matrix has eigenvalue 4
  EXPECT_TRUE(G.diverged);
  EXPECT_LT(G.sweeps, 30);
}

TEST(reference, gauss_seidel_beats_jacobi_on_laplacian) {
  const auto A = laplace2d(10);
  std::vector<double> b(100, 1.0), xj(100, 0.0), xg(100, 0.0);
  const auto J = jacobi_until(A, b, xj, 1e-6, 5000);
  const auto G = gauss_seidel_until(A, b, xg, 1e-6, 5000);
  ASSERT_TRUE(J.converged);
  ASSERT_TRUE(G.converged);
  EXPECT_LT(G.sweeps, J.sweeps * 0.6) << "GS " << G.sweeps << " Jacobi " << J.sweeps;
  for (int i = 0; i < 100; ++i) EXPECT_NEAR(xj[i], xg[i], 2e-4);  // ||A^{-1}|| ||r|| <= 6.2e-5 each
  // Max sweeps reached without convergence: neither flag set.
  std::vector<double> x(100, 0.0);
  const auto S = gauss_seidel_until(A, b, x, 1e-12, 3);
  EXPECT_EQ(S.sweeps, 3);
  EXPECT_FALSE(S.converged);
  EXPECT_FALSE(S.diverged);
}

TEST(reference, relaxation_zero_rhs_uses_absolute_residual) {
  const auto A = tridiag(5, -1.0, 4.0, -1.0);
  std::vector<double> b(5, 0.0), x(5, 1.0);
  const auto h = jacobi(A, b, x, 2);
  EXPECT_DOUBLE_EQ(h[0], std::sqrt(3.0 * 4.0 + 2.0 * 9.0));  // A·1 = [3, 2, 2, 2, 3]
  std::vector<double> x0(5, 0.0);
  EXPECT_TRUE(gauss_seidel_until(A, b, x0, 0.0, 10).converged);
}

// ---------------------------------------------------------------------------------------------------------
// Products and residuals
// ---------------------------------------------------------------------------------------------------------

TEST(reference, multiply_and_transpose_match_dense) {
  const auto A = random_dd(9, 3, 31u, false);
  const auto B = random_dd(9, 2, 32u, false);
  const auto C = multiply(A, B);
  EXPECT_TRUE(is_sorted_unique(C));
  expect_dense_near(to_dense(C), dense_mul(to_dense(A), to_dense(B)), 1e-14);
  const auto R = from_dense({{1, 0, 2}, {0, 3, 0}});  // 2 x 3
  const auto Rt = transpose(R);
  EXPECT_EQ(Rt.nrows, 3);
  EXPECT_EQ(Rt.ncols, 2);
  EXPECT_EQ(Rt.row_ptr, (std::vector<offset_t>{0, 1, 2, 3}));
  EXPECT_EQ(Rt.col_idx, (std::vector<ordinal_t>{0, 1, 0}));
  EXPECT_EQ(Rt.values, (std::vector<double>{1, 3, 2}));
  const auto RRt = multiply(R, Rt);
  expect_dense_near(to_dense(RRt), {{5, 0}, {0, 9}}, 0.0);
  EXPECT_EQ(RRt.nnz(), 2);
  // Cancellation keeps the structural entry: [1 1] [1; -1] = 0.
  const auto c = multiply(from_dense({{1, 1}}), from_dense({{1}, {-1}}));
  EXPECT_EQ(c.nnz(), 1);
  EXPECT_EQ(c.values[0], 0.0);
  EXPECT_DOUBLE_EQ(frobenius_norm(R), std::sqrt(14.0));
  ASYNCSPARSE_EXPECT_THROW_MSG(multiply(R, R), InvalidInput,
                               "multiply: inner dimensions differ (A is 2 x 3, B is 2 x 3)");
}

TEST(reference, residual_norms_by_hand) {
  const auto A = from_dense({{2, 1}, {1, 3}});
  const auto L = from_dense({{1, 0}, {0.5, 1}});
  const auto U = from_dense({{2, 0}, {0, 2}});  // L U = [[2, 0], [1, 2]]: errors at (0,1) = 1 and (1,1) = 1
  EXPECT_DOUBLE_EQ(nonlinear_residual(A, L, U), std::sqrt(2.0) / std::sqrt(15.0));
  EXPECT_DOUBLE_EQ(ilu_residual(A, L, U), std::sqrt(2.0));
  // Off-pattern product entries count in the ILU residual only.
  const auto Ad = from_dense({{2, 0}, {0, 3}});
  const auto Lf = from_dense({{1, 0}, {1, 1}});
  const auto Uf = from_dense({{2, 0}, {0, 3}});  // L U = [[2, 0], [2, 3]]
  EXPECT_EQ(nonlinear_residual(Ad, Lf, Uf), 0.0);
  EXPECT_DOUBLE_EQ(ilu_residual(Ad, Lf, Uf), 2.0);
  // IC versions: S is the lower pattern.
  const auto Lc = from_dense({{1, 0}, {1, 1}});  // L Lᵀ = [[1, 1], [1, 2]]
  const auto As = from_dense({{1, 1}, {1, 3}});
  EXPECT_DOUBLE_EQ(nonlinear_residual(As, Lc), 1.0 / std::sqrt(11.0));  // lower pattern: 1, 1, 3
  EXPECT_DOUBLE_EQ(ilu_residual(As, Lc), 1.0);
  ASYNCSPARSE_EXPECT_THROW_MSG(nonlinear_residual(A, L, from_dense({{1}})), InvalidInput,
                               "nonlinear_residual: factor dimensions");
  ASYNCSPARSE_EXPECT_THROW_MSG(ilu_residual(A, from_dense({{1, 0}, {NAN, 1}}), U), InvalidInput,
                               "ilu_residual: L: non-finite value");
}

// ---------------------------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------------------------

namespace {

struct Entry {
  std::string name;
  std::function<void(const CsrHost<double>&)> call;
};

std::vector<Entry> square_entry_points() {
  auto vec = [](const CsrHost<double>& A) { return std::vector<double>(std::max<ordinal_t>(A.nrows, 0), 1.0); };
  return {
      {"ilu0", [](const CsrHost<double>& A) { ilu0(A); }},
      {"ic0", [](const CsrHost<double>& A) { ic0(A); }},
      {"iluk_pattern", [](const CsrHost<double>& A) { iluk_pattern(A, 1); }},
      {"iluk", [](const CsrHost<double>& A) { iluk(A, 1); }},
      {"ilut", [](const CsrHost<double>& A) { ilut(A, 0.0, 2); }},
      {"ilut_nnz", [](const CsrHost<double>& A) { ilut_nnz(A, 100, 100); }},
      {"ict", [](const CsrHost<double>& A) { ict(A, 0.0, 2); }},
      {"ict_nnz", [](const CsrHost<double>& A) { ict_nnz(A, 100); }},
      {"jacobi",
       [vec](const CsrHost<double>& A) {
         auto x = vec(A);
         jacobi(A, vec(A), x, 1);
       }},
      {"gauss_seidel",
       [vec](const CsrHost<double>& A) {
         auto x = vec(A);
         gauss_seidel(A, vec(A), x, 1);
       }},
      {"jacobi_until",
       [vec](const CsrHost<double>& A) {
         auto x = vec(A);
         jacobi_until(A, vec(A), x, 1e-6, 1);
       }},
      {"gauss_seidel_until",
       [vec](const CsrHost<double>& A) {
         auto x = vec(A);
         gauss_seidel_until(A, vec(A), x, 1e-6, 1);
       }},
  };
}

}  // namespace

TEST(reference, bad_matrices_are_rejected_with_named_messages) {
  const auto unsorted = csr_from_triplets<double>(2, 2, {0, 0, 1}, {1, 0, 1}, {1.0, 4.0, 4.0}, /*sort=*/false);
  ASSERT_FALSE(is_sorted_unique(unsorted));
  const auto rect = from_dense({{4, 1, 0}, {1, 4, 1}});
  const CsrHost<double> empty(0, 0);
  auto nan = from_dense({{4, 1}, {1, 4}});
  nan.values[2] = NAN;
  auto inf = nan;
  inf.values[2] = INFINITY;
  const auto nodiag = from_dense({{4, 1, 0}, {1, 0, 1}, {0, 1, 4}});
  auto badptr = from_dense({{4, 1}, {1, 4}});
  badptr.row_ptr = {0, 3, 2};
  auto badcol = from_dense({{4, 1}, {1, 4}});
  badcol.col_idx[1] = 5;
  auto short_ptr = from_dense({{4, 1}, {1, 4}});
  short_ptr.row_ptr.pop_back();
  auto short_vals = from_dense({{4, 1}, {1, 4}});
  short_vals.values.pop_back();
  for (const auto& e : square_entry_points()) {
    SCOPED_TRACE(e.name);
    const std::string pre = e.name + ": ";
    ASYNCSPARSE_EXPECT_THROW_MSG(e.call(unsorted), InvalidInput,
                                 pre + "A: column indices of row 0 are not sorted and unique");
    ASYNCSPARSE_EXPECT_THROW_MSG(e.call(rect), InvalidInput, pre + "A is not square (2 x 3)");
    ASYNCSPARSE_EXPECT_THROW_MSG(e.call(empty), InvalidInput, pre + "A is empty");
    ASYNCSPARSE_EXPECT_THROW_MSG(e.call(nan), InvalidInput, pre + "A: non-finite value nan at (1, 0)");
    ASYNCSPARSE_EXPECT_THROW_MSG(e.call(inf), InvalidInput, pre + "A: non-finite value inf at (1, 0)");
    ASYNCSPARSE_EXPECT_THROW_MSG(e.call(nodiag), InvalidInput, pre + "A: missing diagonal entry in row 1");
    ASYNCSPARSE_EXPECT_THROW_MSG(e.call(badptr), InvalidInput, pre + "A: malformed CSR: row_ptr decreases at row 1");
    ASYNCSPARSE_EXPECT_THROW_MSG(e.call(badcol), InvalidInput, pre + "A: column index 5 out of range in row 0");
    ASYNCSPARSE_EXPECT_THROW_MSG(e.call(short_ptr), InvalidInput, pre + "A: malformed CSR: row_ptr has 2 entries");
    ASYNCSPARSE_EXPECT_THROW_MSG(e.call(short_vals), InvalidInput, pre + "A: malformed CSR: col_idx / values sizes");
  }
  // Functions on general matrices check the CSR too.
  ASYNCSPARSE_EXPECT_THROW_MSG(multiply(unsorted, unsorted), InvalidInput,
                               "multiply: A: column indices of row 0 are not sorted and unique");
  ASYNCSPARSE_EXPECT_THROW_MSG(multiply(rect, nan), InvalidInput, "multiply: B: non-finite value");
  ASYNCSPARSE_EXPECT_THROW_MSG(transpose(badcol), InvalidInput, "transpose: A: column index 5 out of range");
  ASYNCSPARSE_EXPECT_THROW_MSG(frobenius_norm(short_vals), InvalidInput, "frobenius_norm: A: malformed CSR");
  ASYNCSPARSE_EXPECT_THROW_MSG(lower_solve(unsorted, {1.0, 1.0}), InvalidInput,
                               "lower_solve: L: column indices of row 0 are not sorted and unique");
  ASYNCSPARSE_EXPECT_THROW_MSG(upper_solve(empty, {}), InvalidInput, "upper_solve: U is empty");
  ASYNCSPARSE_EXPECT_THROW_MSG(ilu_residual(rect, rect, rect), InvalidInput, "ilu_residual: A is not square (2 x 3)");
  ASYNCSPARSE_EXPECT_THROW_MSG(nonlinear_residual(nodiag, unsorted), InvalidInput,
                               "nonlinear_residual: L: column indices of row 0 are not sorted");
}

TEST(reference, bad_parameters_are_rejected_with_named_messages) {
  const auto A = laplace2d(3);
  ASYNCSPARSE_EXPECT_THROW_MSG(iluk(A, -1), InvalidInput, "iluk: level k must be >= 0, got -1");
  ASYNCSPARSE_EXPECT_THROW_MSG(iluk_pattern(A, -2), InvalidInput, "iluk_pattern: level k must be >= 0, got -2");
  ASYNCSPARSE_EXPECT_THROW_MSG(ilut(A, -0.1, 2), InvalidInput, "ilut: tau must be finite and >= 0");
  ASYNCSPARSE_EXPECT_THROW_MSG(ilut(A, NAN, 2), InvalidInput, "ilut: tau must be finite and >= 0");
  ASYNCSPARSE_EXPECT_THROW_MSG(ilut(A, 0.1, -1), InvalidInput, "ilut: p must be >= 0, got -1");
  ASYNCSPARSE_EXPECT_THROW_MSG(ict(A, 0.1, -1), InvalidInput, "ict: p must be >= 0, got -1");
  ASYNCSPARSE_EXPECT_THROW_MSG(ilut_nnz(A, 8, 20), InvalidInput, "ilut_nnz: targets (8, 20) must be >= n = 9");
  ASYNCSPARSE_EXPECT_THROW_MSG(ict_nnz(A, 3), InvalidInput, "ict_nnz: target 3 must be >= n = 9");
  std::vector<double> b(9, 1.0), x(9, 0.0);
  ASYNCSPARSE_EXPECT_THROW_MSG(jacobi(A, b, x, -1), InvalidInput, "jacobi: number of sweeps must be >= 0, got -1");
  ASYNCSPARSE_EXPECT_THROW_MSG(jacobi(A, b, x, 1, 0.0), InvalidInput, "jacobi: omega must be finite and > 0");
  ASYNCSPARSE_EXPECT_THROW_MSG(jacobi_until(A, b, x, 1e-6, 10, NAN), InvalidInput,
                               "jacobi_until: omega must be finite and > 0");
  ASYNCSPARSE_EXPECT_THROW_MSG(jacobi_until(A, b, x, -1.0, 10), InvalidInput, "jacobi_until: tol must be finite");
  ASYNCSPARSE_EXPECT_THROW_MSG(gauss_seidel_until(A, b, x, NAN, 10), InvalidInput,
                               "gauss_seidel_until: tol must be finite");
  ASYNCSPARSE_EXPECT_THROW_MSG(gauss_seidel_until(A, b, x, 1e-6, -3), InvalidInput,
                               "gauss_seidel_until: number of sweeps must be >= 0, got -3");
  std::vector<double> short_b(8, 1.0);
  ASYNCSPARSE_EXPECT_THROW_MSG(gauss_seidel(A, short_b, x, 1), InvalidInput, "gauss_seidel: b has size 8, expected 9");
  std::vector<double> bad_x(9, 0.0);
  bad_x[4] = INFINITY;
  ASYNCSPARSE_EXPECT_THROW_MSG(jacobi(A, b, bad_x, 1), InvalidInput, "jacobi: x[4] is non-finite");
  auto Z = A;
  Z.values[find_entry(Z, 2, 2)] = 0.0;
  ASYNCSPARSE_EXPECT_THROW_MSG(jacobi(Z, b, x, 1), InvalidInput, "jacobi: A: zero diagonal entry in row 2");
  ASYNCSPARSE_EXPECT_THROW_MSG(gauss_seidel_until(Z, b, x, 1e-6, 1), InvalidInput,
                               "gauss_seidel_until: A: zero diagonal entry in row 2");
}
