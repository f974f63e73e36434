// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Symmetric unit-diagonal scaling: host reference (exact S A S relation, unit / signed diagonal, every
// error), device version equal to the host one, in-place and shared-graph forms, device errors, and
// scale_vector.
#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <support/TestHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace test_scaling {

using namespace AsyncSparse;

/// Unsymmetric random matrix with some negative diagonal entries and an unsorted row.
CsrHost<double> scaling_test_matrix() {
  auto A = random_diag_dominant(200, 6, 21, /*symmetric=*/false, 1.5);
  for (ordinal_t i = 0; i < A.nrows; i += 3) A.values[find_entry(A, i, i)] *= -1.0;
  for (ordinal_t i = 0; i < A.nrows; i += 7) A.values[find_entry(A, i, i)] *= 1e4;
  // reverse row 5 (unsorted)
  std::reverse(A.col_idx.begin() + A.row_ptr[5], A.col_idx.begin() + A.row_ptr[6]);
  std::reverse(A.values.begin() + A.row_ptr[5], A.values.begin() + A.row_ptr[6]);
  return A;
}

CsrHost<double> with_value(CsrHost<double> A, ordinal_t i, ordinal_t j, double v) {
  A.values[find_entry(A, i, j)] = v;
  return A;
}

/// Copy of lap2d(m) without the diagonal entry of row r.
CsrHost<double> drop_diagonal(const CsrHost<double>& A, ordinal_t r) {
  std::vector<ordinal_t> rows, cols;
  std::vector<double> vals;
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (!(i == r && A.col_idx[k] == r)) rows.push_back(i), cols.push_back(A.col_idx[k]), vals.push_back(A.values[k]);
  return csr_from_triplets(A.nrows, A.ncols, rows, cols, vals);
}

TEST(TEST_CATEGORY, scaling_host_reference) {
  auto A = scaling_test_matrix();
  auto S = scale_unit_diagonal(A);
  ASSERT_EQ(S.s.size(), static_cast<std::size_t>(A.nrows));
  EXPECT_EQ(S.A.row_ptr, A.row_ptr);
  EXPECT_EQ(S.A.col_idx, A.col_idx);
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    double d = 0;
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i) d = A.values[k];
    EXPECT_EQ(S.s[i], 1.0 / std::sqrt(std::fabs(d)));
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const ordinal_t j = A.col_idx[k];
      if (j == i) {
        EXPECT_EQ(S.A.values[k], d > 0 ? 1.0 : -1.0);                      // sign(a_ii), exactly
        EXPECT_NEAR(S.s[i] * A.values[k] * S.s[i], S.A.values[k], 1e-15);  // a few ulps
      } else {
        EXPECT_EQ(S.A.values[k], (S.s[i] * A.values[k]) * S.s[j]);  // exact S A S
      }
    }
  }
  // SPD input: unit diagonal, symmetry preserved
  auto L = scale_unit_diagonal(lap2d(5));
  for (double s : L.s) EXPECT_EQ(s, 0.5);
  auto p = analyze(L.A);
  EXPECT_TRUE(p.symmetric_values);
  EXPECT_TRUE(p.positive_diagonal);
  for (ordinal_t i = 0; i < L.A.nrows; ++i) EXPECT_EQ(L.A.values[find_entry(L.A, i, i)], 1.0);
  EXPECT_EQ(L.A.values[find_entry(L.A, 0, 1)], -0.25);
  auto T = scale_unit_diagonal(trefethen(50));
  EXPECT_NO_THROW(check_symmetric(T.A, "t"));
  // duplicated diagonal: a_00 = 2 + 2 = 4, each copy scaled to 0.5
  auto Dup = csr_from_triplets<double>(1, 1, {0, 0}, {0, 0}, {2.0, 2.0}, true, false);
  auto SD = scale_unit_diagonal(Dup);
  EXPECT_EQ(SD.s[0], 0.5);
  EXPECT_EQ(SD.A.values, (std::vector<double>{0.5, 0.5}));
  EXPECT_TRUE(scale_unit_diagonal(CsrHost<double>(0, 0)).s.empty());
}

TEST(TEST_CATEGORY, scaling_host_errors) {
  auto L = lap2d(4);
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(drop_diagonal(L, 6)), InvalidInput,
                               "scale_unit_diagonal: row 6 has no diagonal entry");
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(with_value(L, 9, 9, 0.0)), InvalidInput,
                               "scale_unit_diagonal: row 9 has a zero diagonal entry");
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(with_value(L, 3, 3, std::numeric_limits<double>::quiet_NaN())),
                               InvalidInput, "scale_unit_diagonal: row 3 has a non-finite diagonal entry");
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(with_value(L, 2, 2, -INFINITY)), InvalidInput,
                               "row 2 has a non-finite diagonal entry");
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(CsrHost<double>(2, 3)), InvalidInput,
                               "scale_unit_diagonal: matrix is not square (2 x 3)");
  CsrHost<double> bad(1, 1);
  bad.row_ptr = {0, 1};
  bad.col_idx = {3};
  bad.values = {1};
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(bad), InvalidInput, "scale_unit_diagonal: row 0 has column index 3");
}

/// Copy of A whose row r stores its diagonal twice: a_rr split into two entries of half its value (rows of many
/// entries: the GPU value pass counts the copies across a row's lanes).
CsrHost<double> with_split_diagonal(const CsrHost<double>& A, ordinal_t r) {
  CsrHost<double> B = A;
  const offset_t k = find_entry(B, r, r);
  B.values[k] *= 0.5;
  B.col_idx.insert(B.col_idx.begin() + B.row_ptr[r + 1], r);
  B.values.insert(B.values.begin() + B.row_ptr[r + 1], B.values[k]);
  for (ordinal_t i = r + 1; i <= B.nrows; ++i) ++B.row_ptr[i];
  return B;
}

TEST(TEST_CATEGORY, scaling_device_equals_host) {
  using Matrix = Crs<double, TEST_DEVICE>;
  TEST_EXECSPACE exec;
  for (const auto& A : {scaling_test_matrix(), lap3d27(5), with_split_diagonal(lap3d27(5), 62), aniso2d(9, 1e-3, 30.0),
                        trefethen(100)}) {
    const auto ref = scale_unit_diagonal(A);
    Matrix Ad = to_device<TEST_DEVICE>(A);

    // convenience form: new values, shared graph
    auto out = scale_unit_diagonal(exec, Ad);
    exec.fence();
    EXPECT_EQ(out.A.graph.row_map.data(), Ad.graph.row_map.data());
    EXPECT_EQ(out.A.graph.entries.data(), Ad.graph.entries.data());
    EXPECT_NE(out.A.values.data(), Ad.values.data());
    auto H = to_host(out.A);
    EXPECT_EQ(H.row_ptr, ref.A.row_ptr);
    EXPECT_EQ(H.col_idx, ref.A.col_idx);
    EXPECT_EQ(H.values, ref.A.values);
    EXPECT_EQ(to_std_vector(out.s), ref.s);
    EXPECT_EQ(to_host(Ad).values, A.values);  // input untouched

    // in place
    Matrix Ain = to_device<TEST_DEVICE>(A);
    Vector<double, TEST_DEVICE> s("s", A.nrows);
    scale_unit_diagonal(exec, Ain, Ain, s);
    exec.fence();
    EXPECT_EQ(to_host(Ain).values, ref.A.values);
    EXPECT_EQ(to_std_vector(s), ref.s);

    // output sharing the graph, with its own values
    Matrix Aout("out", Ad.numRows(), Ad.numCols(), Ad.nnz(), Matrix::values_type("v", Ad.nnz()), Ad.graph.row_map,
                Ad.graph.entries);
    scale_unit_diagonal(exec, Ad, Aout, s);
    exec.fence();
    EXPECT_EQ(to_host(Aout).values, ref.A.values);
  }
}

TEST(TEST_CATEGORY, scaling_device_errors) {
  using Matrix = Crs<double, TEST_DEVICE>;
  TEST_EXECSPACE exec;
  auto L = lap2d(6);
  // several bad rows: the first one is reported
  auto bad = with_value(with_value(drop_diagonal(L, 20), 7, 7, 0.0), 30, 30, NAN);
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(exec, to_device<TEST_DEVICE>(bad)), InvalidInput,
                               "scale_unit_diagonal: row 7 has a zero diagonal entry");
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(exec, to_device<TEST_DEVICE>(drop_diagonal(L, 20))), InvalidInput,
                               "scale_unit_diagonal: row 20 has no diagonal entry");
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(exec, to_device<TEST_DEVICE>(with_value(L, 35, 35, INFINITY))),
                               InvalidInput, "scale_unit_diagonal: row 35 has a non-finite diagonal entry");
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(exec, to_device<TEST_DEVICE>(CsrHost<double>(2, 3))), InvalidInput,
                               "scale_unit_diagonal: matrix is not square (2 x 3)");
  Matrix Ad = to_device<TEST_DEVICE>(L);
  Vector<double, TEST_DEVICE> s_short("s", 5);
  Matrix out;
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(exec, Ad, out, s_short), InvalidInput,
                               "scale_unit_diagonal: s has extent 5, the matrix 36 rows");
  Matrix other = to_device<TEST_DEVICE>(L);  // same values, different graph allocation
  Vector<double, TEST_DEVICE> s("s", L.nrows);
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_unit_diagonal(exec, Ad, other, s), InvalidInput,
                               "scale_unit_diagonal: A_out must be default-constructed or share A_in's graph");
  // on error A_out is not written
  auto zero = to_device<TEST_DEVICE>(with_value(L, 0, 0, 0.0));
  try {
    scale_unit_diagonal(exec, zero, zero, s);
  } catch (const InvalidInput&) {
  }
  EXPECT_EQ(to_host(zero).values, with_value(L, 0, 0, 0.0).values);
  // empty matrix
  auto e = scale_unit_diagonal(exec, to_device<TEST_DEVICE>(CsrHost<double>(0, 0)));
  EXPECT_EQ(e.s.extent(0), 0u);
  EXPECT_EQ(e.A.numRows(), 0);
}

TEST(TEST_CATEGORY, scaling_vectors) {
  TEST_EXECSPACE exec;
  const std::vector<double> sh{0.5, 2.0, -1.0, 4.0}, xh{1.0, 3.0, 5.0, -7.0};
  auto s = to_device<TEST_DEVICE>(sh);
  auto x = to_device<TEST_DEVICE>(xh);
  Vector<double, TEST_DEVICE> y("y", 4);
  scale_vector(exec, s, x, y);
  exec.fence();
  EXPECT_EQ(to_std_vector(y), (std::vector<double>{0.5, 6.0, -5.0, -28.0}));
  EXPECT_EQ(to_std_vector(x), xh);
  scale_vector(exec, s, x);
  exec.fence();
  EXPECT_EQ(to_std_vector(x), (std::vector<double>{0.5, 6.0, -5.0, -28.0}));
  Vector<double, TEST_DEVICE> z("z", 3);
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_vector(exec, s, z), InvalidInput, "scale_vector: extents differ (s 4, x 3, y 3)");
  ASYNCSPARSE_EXPECT_THROW_MSG(scale_vector(exec, s, x, z), InvalidInput,
                               "scale_vector: extents differ (s 4, x 4, y 3)");

  // A x = b  <=>  (S A S) y = S b,  x = S y: check with the host matrix on a random solution
  auto A = random_diag_dominant(30, 5, 2, false);
  auto sc = scale_unit_diagonal(A);
  std::vector<double> xs(30);
  for (int i = 0; i < 30; ++i) xs[i] = std::sin(i + 1.0);
  // y = S^{-1} x, so that S y = x; then (S A S) y = S A x
  std::vector<double> yv(30);
  for (int i = 0; i < 30; ++i) yv[i] = xs[i] / sc.s[i];
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    double lhs = 0, ax = 0;
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      lhs += sc.A.values[k] * yv[A.col_idx[k]];
      ax += A.values[k] * xs[A.col_idx[k]];
    }
    EXPECT_NEAR(lhs, sc.s[i] * ax, 1e-13 * (1 + std::fabs(sc.s[i] * ax)));
  }
}

}  // namespace test_scaling
