// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Input checks (every error message), analyze(), and the host norms / residuals.
#include <gtest/gtest.h>
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_norms.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <support/TestHelpers.hpp>

#include <cmath>
#include <limits>

using namespace AsyncSparse;

namespace {

/// CsrHost from explicit arrays, without any normalisation (so that broken matrices can be built).
CsrHost<double> raw(ordinal_t m, ordinal_t n, std::vector<offset_t> ptr, std::vector<ordinal_t> col,
                    std::vector<double> val) {
  CsrHost<double> A;
  A.nrows = m;
  A.ncols = n;
  A.row_ptr = std::move(ptr);
  A.col_idx = std::move(col);
  A.values = std::move(val);
  return A;
}

// [ 4 -1  0 ]
// [-1  4 -2 ]
// [ 0 -2  5 ]
CsrHost<double> small_spd() { return raw(3, 3, {0, 2, 5, 7}, {0, 1, 0, 1, 2, 1, 2}, {4, -1, -1, 4, -2, -2, 5}); }

}  // namespace

TEST(validation, structure_errors) {
  EXPECT_NO_THROW(check_structure(small_spd(), "f"));
  EXPECT_NO_THROW(check_structure(CsrHost<double>(0, 0), "f"));
  ASYNCSPARSE_EXPECT_THROW_MSG(check_structure(raw(2, 2, {0, 1}, {0}, {1.0}), "f"), InvalidInput,
                               "f: row_ptr has 2 entries, expected nrows+1 = 3");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_structure(raw(1, 1, {1, 1}, {0}, {1.0}), "f"), InvalidInput,
                               "f: row_ptr[0] = 1, expected 0");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_structure(raw(2, 2, {0, 2, 1}, {0, 1}, {1.0, 2.0}), "f"), InvalidInput,
                               "f: row_ptr decreases at row 1 (2 then 1)");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_structure(raw(1, 2, {0, 2}, {0}, {1.0, 2.0}), "f"), InvalidInput,
                               "f: row_ptr says 2 entries but col_idx has 1 and values 2");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_structure(raw(2, 2, {0, 1, 2}, {0, 2}, {1.0, 2.0}), "f"), InvalidInput,
                               "f: row 1 has column index 2 outside [0, 2)");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_structure(raw(2, 2, {0, 1, 2}, {0, -1}, {1.0, 2.0}), "f"), InvalidInput,
                               "row 1 has column index -1");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_structure(raw(-1, 2, {0}, {}, {}), "f"), InvalidInput, "f: negative dimensions");
  // every other check runs the structure check first
  ASYNCSPARSE_EXPECT_THROW_MSG(check_diagonal(raw(2, 2, {0, 1, 2}, {0, 5}, {1.0, 2.0}), "g"), InvalidInput,
                               "g: row 1 has column index 5");
  ASYNCSPARSE_EXPECT_THROW_MSG(analyze(raw(2, 2, {0, 1}, {0}, {1.0})), InvalidInput, "analyze: row_ptr has 2 entries");
}

TEST(validation, square_and_nonempty) {
  EXPECT_NO_THROW(check_square(small_spd(), "f"));
  ASYNCSPARSE_EXPECT_THROW_MSG(check_square(CsrHost<double>(3, 4), "solve"), InvalidInput,
                               "solve: matrix is not square (3 x 4)");
  EXPECT_NO_THROW(check_nonempty(CsrHost<double>(2, 2), "f"));  // no entries, but not empty
  ASYNCSPARSE_EXPECT_THROW_MSG(check_nonempty(CsrHost<double>(0, 0), "solve"), InvalidInput,
                               "solve: matrix is empty (0 x 0)");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_nonempty(CsrHost<double>(0, 3), "solve"), InvalidInput, "empty (0 x 3)");
}

TEST(validation, sorted_unique) {
  EXPECT_NO_THROW(check_sorted_unique(small_spd(), "f"));
  ASYNCSPARSE_EXPECT_THROW_MSG(check_sorted_unique(raw(2, 3, {0, 1, 3}, {0, 2, 1}, {1, 1, 1}), "f"), InvalidInput,
                               "f: row 1 is not sorted (column 2 before column 1)");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_sorted_unique(raw(2, 3, {0, 1, 3}, {0, 2, 2}, {1, 1, 1}), "f"), InvalidInput,
                               "f: row 1 has duplicate column 2");
}

TEST(validation, diagonal) {
  EXPECT_NO_THROW(check_diagonal(small_spd(), "f"));
  // unsorted rows are fine
  EXPECT_NO_THROW(check_diagonal(raw(2, 2, {0, 2, 3}, {1, 0, 1}, {1, 2, 3}), "f"));
  ASYNCSPARSE_EXPECT_THROW_MSG(check_diagonal(raw(3, 3, {0, 1, 2, 3}, {0, 0, 2}, {1, 1, 1}), "ilu"), InvalidInput,
                               "ilu: row 1 has no diagonal entry");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_diagonal(raw(3, 3, {0, 1, 2, 3}, {0, 1, 2}, {1, 1, 0}), "ilu"), InvalidInput,
                               "ilu: row 2 has a zero diagonal entry");
  // duplicated diagonal entries are summed: 1 + (-1) = 0
  ASYNCSPARSE_EXPECT_THROW_MSG(check_diagonal(raw(1, 1, {0, 2}, {0, 0}, {1, -1}), "ilu"), InvalidInput,
                               "row 0 has a zero diagonal entry");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_diagonal(CsrHost<double>(2, 3), "ilu"), InvalidInput, "ilu: matrix is not square");
}

TEST(validation, finite) {
  EXPECT_NO_THROW(check_finite(small_spd(), "f"));
  auto A = small_spd();
  A.values[4] = std::numeric_limits<double>::quiet_NaN();
  ASYNCSPARSE_EXPECT_THROW_MSG(check_finite(A, "jacobi"), InvalidInput,
                               "jacobi: non-finite value nan at row 1, column 2");
  A.values[1] = -std::numeric_limits<double>::infinity();
  ASYNCSPARSE_EXPECT_THROW_MSG(check_finite(A, "jacobi"), InvalidInput, "non-finite value -inf at row 0, column 1");
}

TEST(validation, symmetric) {
  EXPECT_NO_THROW(check_symmetric(small_spd(), "cg"));
  EXPECT_NO_THROW(check_symmetric(lap2d(6), "cg"));
  // unsymmetric value
  auto A = small_spd();
  A.values[4] = -2.5;  // a(1,2)
  ASYNCSPARSE_EXPECT_THROW_MSG(check_symmetric(A, "cg"), InvalidInput,
                               "cg: matrix is not symmetric: a(1, 2) = -2.5 but a(2, 1) = -2 (relative tolerance 0)");
  EXPECT_NO_THROW(check_symmetric(A, "cg", 0.25));
  ASYNCSPARSE_EXPECT_THROW_MSG(check_symmetric(A, "cg", 0.1), InvalidInput, "relative tolerance 0.1");
  // unsymmetric pattern, from the upper and from the lower triangle
  ASYNCSPARSE_EXPECT_THROW_MSG(check_symmetric(raw(2, 2, {0, 2, 3}, {0, 1, 1}, {1, 1, 1}), "cg"), InvalidInput,
                               "cg: matrix is not symmetric: entry (0, 1) is stored but (1, 0) is not");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_symmetric(raw(2, 2, {0, 1, 3}, {0, 0, 1}, {1, 1, 1}), "cg"), InvalidInput,
                               "entry (1, 0) is stored but (0, 1) is not");
  // unsorted input with duplicates: compared after summing, (0,1) = 1 + 2 = 3 = (1,0)
  EXPECT_NO_THROW(check_symmetric(raw(2, 2, {0, 3, 5}, {1, 0, 1, 0, 1}, {1, 5, 2, 3, 5}), "cg"));
  ASYNCSPARSE_EXPECT_THROW_MSG(check_symmetric(CsrHost<double>(2, 3), "cg"), InvalidInput, "cg: matrix is not square");
  ASYNCSPARSE_EXPECT_THROW_MSG(check_symmetric(small_spd(), "cg", -1.0), InvalidInput,
                               "cg: symmetry tolerance must be >= 0");
  auto N = small_spd();
  N.values[1] = N.values[2] = std::numeric_limits<double>::quiet_NaN();
  ASYNCSPARSE_EXPECT_THROW_MSG(check_symmetric(N, "cg", 1.0), InvalidInput, "a(0, 1) = nan");
}

TEST(validation, analyze_lap2d) {
  const int m = 5;
  auto p = analyze(lap2d(m));
  EXPECT_EQ(p.nrows, m * m);
  EXPECT_EQ(p.ncols, m * m);
  EXPECT_EQ(p.nnz, 5 * m * m - 4 * m);
  EXPECT_EQ(p.nnz_row_min, 3);
  EXPECT_EQ(p.nnz_row_max, 5);
  EXPECT_DOUBLE_EQ(p.nnz_row_avg, double(5 * m * m - 4 * m) / (m * m));
  EXPECT_TRUE(p.sorted_unique);
  EXPECT_TRUE(p.symmetric_pattern);
  EXPECT_TRUE(p.symmetric_values);
  EXPECT_TRUE(p.diagonal_present);
  EXPECT_EQ(p.missing_diagonal, 0);
  EXPECT_EQ(p.diag_dominant_rows, 4 * (m - 1));  // boundary rows, minus nothing: corners and edges
  EXPECT_EQ(p.min_dominance_ratio, 1.0);
  EXPECT_EQ(p.bandwidth, m);
  EXPECT_TRUE(p.finite);
  EXPECT_TRUE(p.positive_diagonal);
  const std::string s = to_string(p);
  EXPECT_NE(s.find("rows x cols:          25 x 25"), std::string::npos) << s;
  EXPECT_NE(s.find("symmetric values:     yes"), std::string::npos) << s;
  EXPECT_NE(s.find("bandwidth:            5"), std::string::npos) << s;
}

TEST(validation, analyze_irregular) {
  // [ -2  1  0 ]   row 0: dominant (2 > 1), negative diagonal
  // [  3  0  0 ]   row 1: no diagonal
  // [  1  0  x ]   row 2: x = NaN, unsymmetric value/pattern
  auto A = raw(3, 3, {0, 2, 3, 5}, {1, 0, 0, 2, 0}, {1, -2, 3, NAN, 1});  // row 0 unsorted, row 2 unsorted
  auto p = analyze(A);
  EXPECT_FALSE(p.sorted_unique);
  EXPECT_FALSE(p.symmetric_pattern);
  EXPECT_FALSE(p.symmetric_values);
  EXPECT_FALSE(p.diagonal_present);
  EXPECT_EQ(p.missing_diagonal, 1);
  EXPECT_FALSE(p.positive_diagonal);
  EXPECT_FALSE(p.finite);
  EXPECT_EQ(p.bandwidth, 2);
  EXPECT_TRUE(std::isnan(p.min_dominance_ratio));
  EXPECT_EQ(p.diag_dominant_rows, 1);  // row 0 only (NaN compares false)
  A.values[3] = 7.0;
  EXPECT_EQ(analyze(A).min_dominance_ratio, 0.0);  // row 1 has no diagonal
  EXPECT_EQ(p.nnz_row_min, 1);
  EXPECT_EQ(p.nnz_row_max, 2);

  // symmetric pattern, unsymmetric values; duplicates summed before comparing
  auto B = raw(2, 2, {0, 2, 4}, {0, 1, 0, 1}, {2, 1, 3, 2});
  auto q = analyze(B);
  EXPECT_TRUE(q.symmetric_pattern);
  EXPECT_FALSE(q.symmetric_values);
  EXPECT_EQ(q.diag_dominant_rows, 1);
  EXPECT_DOUBLE_EQ(q.min_dominance_ratio, 2.0 / 3.0);
  auto C = raw(2, 2, {0, 3, 5}, {0, 1, 1, 0, 1}, {2, 1, 2, 3, 2});  // (0,1) = 1 + 2 = 3
  EXPECT_TRUE(analyze(C).symmetric_values);

  // a diagonal-only row has ratio +inf; non-square: no symmetry, no diagonal_present
  auto D = raw(2, 2, {0, 1, 2}, {0, 1}, {3, 4});
  EXPECT_TRUE(std::isinf(analyze(D).min_dominance_ratio));
  EXPECT_EQ(analyze(D).diag_dominant_rows, 2);
  auto R = raw(2, 3, {0, 2, 3}, {0, 2, 1}, {1, 1, 1});
  auto r = analyze(R);
  EXPECT_FALSE(r.symmetric_pattern);
  EXPECT_FALSE(r.diagonal_present);
  EXPECT_EQ(r.bandwidth, 2);
  auto E = analyze(CsrHost<double>(0, 0));
  EXPECT_EQ(E.nnz, 0);
  EXPECT_EQ(E.nnz_row_avg, 0.0);
  EXPECT_TRUE(E.symmetric_values);
}

TEST(norms, vector_norms) {
  EXPECT_EQ(nrm2(std::vector<double>{3, -4}), 5.0);
  EXPECT_EQ(nrm2(std::vector<double>{}), 0.0);
  EXPECT_EQ(nrm2(std::vector<float>{0, 0}), 0.0);
  EXPECT_EQ(nrm_inf(std::vector<double>{1, -7, 3}), 7.0);
  EXPECT_EQ(nrm_inf(std::vector<double>{}), 0.0);
  // no overflow / underflow
  EXPECT_DOUBLE_EQ(nrm2(std::vector<double>{3e200, 4e200}), 5e200);
  EXPECT_DOUBLE_EQ(nrm2(std::vector<double>{3e-200, 4e-200}), 5e-200);
  EXPECT_TRUE(std::isnan(nrm2(std::vector<double>{1, NAN})));
  EXPECT_TRUE(std::isnan(nrm_inf(std::vector<double>{NAN, 1})));
  EXPECT_TRUE(std::isnan(nrm_inf(std::vector<double>{1, NAN})));
  EXPECT_TRUE(std::isinf(nrm2(std::vector<double>{1, INFINITY})));
}

TEST(norms, matrix_norms_and_residual) {
  auto A = small_spd();
  EXPECT_DOUBLE_EQ(frobenius_norm(A), std::sqrt(16 + 1 + 1 + 16 + 4 + 4 + 25));
  std::vector<double> x{1, 2, 3};
  EXPECT_EQ(spmv(A, x), (std::vector<double>{2, 1, 11}));
  std::vector<double> b{2, 1, 11};
  EXPECT_EQ(residual_norm(A, x, b), 0.0);
  b = {3, 1, 9};  // r = (1, 0, -2)
  EXPECT_EQ(residual(A, x, b), (std::vector<double>{1, 0, -2}));
  EXPECT_DOUBLE_EQ(residual_norm(A, x, b), std::sqrt(5.0));
  EXPECT_DOUBLE_EQ(relative_residual_norm(A, x, b), std::sqrt(5.0) / std::sqrt(91.0));
  EXPECT_DOUBLE_EQ(relative_residual_norm(A, x, std::vector<double>{0, 0, 0}), std::sqrt(4 + 1 + 121.0));
  // lap2d times ones: row sums (0 inside, 1 on edges, 2 at corners)
  auto L = lap2d(4);
  auto y = spmv(L, std::vector<double>(16, 1.0));
  EXPECT_EQ(y[0], 2.0);
  EXPECT_EQ(y[1], 1.0);
  EXPECT_EQ(y[5], 0.0);
  ASYNCSPARSE_EXPECT_THROW_MSG(spmv(A, std::vector<double>{1, 2}), InvalidInput,
                               "spmv: x has 2 entries, the matrix 3 columns");
  ASYNCSPARSE_EXPECT_THROW_MSG(residual(A, x, std::vector<double>{1}), InvalidInput,
                               "residual: b has 1 entries, the matrix 3 rows");
  ASYNCSPARSE_EXPECT_THROW_MSG(
      residual_norm(raw(2, 2, {0, 1, 2}, {0, 7}, {1, 1}), std::vector<double>{1, 1}, std::vector<double>{1, 1}),
      InvalidInput, "residual: row 1 has column index 7");
}
