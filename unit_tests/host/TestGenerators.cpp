// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Generators: exact structure and values against brute-force dense definitions, nnz formulas, the
// SuiteSparse Trefethen_2000 matrix, random-matrix properties, and spec parsing (good and bad).
#include <gtest/gtest.h>
#include <zlib.h>
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <support/TestHelpers.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

using namespace AsyncSparse;

namespace {

std::vector<double> to_dense(const CsrHost<double>& A) {
  std::vector<double> D(static_cast<std::size_t>(A.nrows) * A.ncols, 0.0);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      D[static_cast<std::size_t>(i) * A.ncols + A.col_idx[k]] += A.values[k];
  return D;
}

/// Dense matrix of a constant stencil on an m^dim grid: value(dx, dy, dz) or NaN for "not in stencil".
template <class F>
std::vector<double> dense_stencil(int m, int dim, F value) {
  const int mz = dim == 2 ? 1 : m, n = m * m * mz;
  std::vector<double> D(static_cast<std::size_t>(n) * n, 0.0);
  for (int k = 0; k < mz; ++k)
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i)
        for (int k2 = 0; k2 < mz; ++k2)
          for (int j2 = 0; j2 < m; ++j2)
            for (int i2 = 0; i2 < m; ++i2) {
              const double v = value(i2 - i, j2 - j, k2 - k);
              if (!std::isnan(v))
                D[static_cast<std::size_t>(i + m * j + m * m * k) * n + (i2 + m * j2 + m * m * k2)] = v;
            }
  return D;
}

bool has_pattern_entry(const CsrHost<double>& A, ordinal_t i, ordinal_t j) { return find_entry(A, i, j) >= 0; }

void expect_well_formed(const CsrHost<double>& A) {
  EXPECT_NO_THROW(check_structure(A, "test"));
  EXPECT_TRUE(is_sorted_unique(A));
  EXPECT_TRUE(A.square());
  EXPECT_NO_THROW(check_symmetric(A, "test"));
  EXPECT_NO_THROW(check_diagonal(A, "test"));
  EXPECT_NO_THROW(check_finite(A, "test"));
}

}  // namespace

TEST(generators, lap2d_matches_definition_and_nnz_formula) {
  for (int m = 1; m <= 6; ++m) {
    auto A = lap2d(m);
    ASSERT_EQ(A.nrows, m * m);
    EXPECT_EQ(A.nnz(), 5 * m * m - 4 * m);
    expect_well_formed(A);
    auto D = dense_stencil(m, 2, [](int dx, int dy, int) {
      return dx == 0 && dy == 0 ? 4.0 : std::abs(dx) + std::abs(dy) == 1 ? -1.0 : NAN;
    });
    EXPECT_EQ(to_dense(A), D) << "m = " << m;
    // every stored entry is structurally meaningful (no stored zeros)
    for (double v : A.values) EXPECT_NE(v, 0.0);
  }
  // natural order: centre of the 3x3 grid couples to rows 1, 3, 5, 7
  auto A = lap2d(3);
  EXPECT_EQ(std::vector<ordinal_t>(A.col_idx.begin() + A.row_ptr[4], A.col_idx.begin() + A.row_ptr[5]),
            (std::vector<ordinal_t>{1, 3, 4, 5, 7}));
  EXPECT_EQ(lap2d(1).values, std::vector<double>{4.0});
}

TEST(generators, lap3d7_matches_definition_and_nnz_formula) {
  for (int m = 1; m <= 4; ++m) {
    auto A = lap3d7(m);
    ASSERT_EQ(A.nrows, m * m * m);
    EXPECT_EQ(A.nnz(), 7 * m * m * m - 6 * m * m);
    expect_well_formed(A);
    auto D = dense_stencil(m, 3, [](int dx, int dy, int dz) {
      const int d = std::abs(dx) + std::abs(dy) + std::abs(dz);
      return d == 0 ? 6.0 : d == 1 ? -1.0 : NAN;
    });
    EXPECT_EQ(to_dense(A), D) << "m = " << m;
  }
  EXPECT_EQ(lap3d7(10).nnz(), 7 * 1000 - 6 * 100);
}

TEST(generators, lap3d27_matches_definition_and_nnz_formula) {
  for (int m = 1; m <= 4; ++m) {
    auto A = lap3d27(m);
    ASSERT_EQ(A.nrows, m * m * m);
    EXPECT_EQ(A.nnz(), 27 * m * m * m - 54 * m * m + 36 * m - 8);
    EXPECT_EQ(A.nnz(), (3 * m - 2) * (3 * m - 2) * (3 * m - 2));
    expect_well_formed(A);
    auto D = dense_stencil(m, 3, [](int dx, int dy, int dz) {
      if (std::abs(dx) > 1 || std::abs(dy) > 1 || std::abs(dz) > 1) return (double)NAN;
      return dx == 0 && dy == 0 && dz == 0 ? 26.0 : -1.0;
    });
    EXPECT_EQ(to_dense(A), D) << "m = " << m;
  }
  // an interior point has all 27 entries; the paper's L3D size
  auto A = lap3d27(3);
  EXPECT_EQ(A.row_ptr[14] - A.row_ptr[13], 27);
  EXPECT_EQ(lap3d27(64).nnz(), 27 * 262144 - 54 * 4096 + 36 * 64 - 8);
}

TEST(generators, aniso2d_isotropic_is_lap2d) {
  // eps = 1: a = c = 1, b = 0 exactly for every angle.
  for (double theta : {0.0, 30.0, 45.0, 123.4, -70.0})
    for (int m : {1, 2, 5}) {
      auto A = aniso2d(m, 1.0, theta);
      auto L = lap2d(m);
      EXPECT_EQ(A.row_ptr, L.row_ptr) << theta;
      EXPECT_EQ(A.col_idx, L.col_idx) << theta;
      EXPECT_EQ(A.values, L.values) << theta;
    }
}

TEST(generators, aniso2d_axis_aligned_stencil) {
  const double eps = 0.01;
  for (double theta : {0.0, 180.0, -180.0, 360.0}) {
    auto A = aniso2d(4, eps, theta);
    EXPECT_EQ(A.nnz(), 5 * 16 - 16) << theta;  // 5-point pattern: b = 0 is not stored
    auto D = dense_stencil(4, 2, [eps](int dx, int dy, int) {
      if (dx == 0 && dy == 0) return 2.0 + 2.0 * eps;
      if (std::abs(dx) == 1 && dy == 0) return -1.0;
      if (dx == 0 && std::abs(dy) == 1) return -eps;
      return (double)NAN;
    });
    EXPECT_EQ(to_dense(A), D) << theta;
  }
  // 90 degrees: strong coupling along y
  for (double theta : {90.0, -90.0, 270.0, 450.0}) {
    auto A = aniso2d(4, eps, theta);
    EXPECT_EQ(A.nnz(), 5 * 16 - 16) << theta;
    const offset_t e = find_entry(A, 5, 6), n = find_entry(A, 5, 9);
    ASSERT_GE(e, 0);
    ASSERT_GE(n, 0);
    EXPECT_NEAR(A.values[e], -eps, 1e-16);
    EXPECT_EQ(A.values[n], -1.0);
  }
}

TEST(generators, aniso2d_rotated_stencil_matches_K) {
  const int m = 5;
  for (double eps : {0.01, 1e-3, 2.0})
    for (double theta : {30.0, 45.0, 60.0, 135.0, -20.0}) {
      const double t = theta * std::acos(-1.0) / 180.0, c = std::cos(t), s = std::sin(t);
      // K = R diag(1, eps) R^T computed directly
      const double K00 = c * c + eps * s * s, K01 = c * s - eps * s * c, K11 = s * s + eps * c * c;
      auto A = aniso2d(m, eps, theta);
      EXPECT_EQ(A.nnz(), (3 * m - 2) * (3 * m - 2));
      expect_well_formed(A);
      auto D = to_dense(A);
      auto at = [&](int i, int j, int dx, int dy) {
        return D[static_cast<std::size_t>(i + m * j) * m * m + (i + dx) + m * (j + dy)];
      };
      const double tol = 1e-15;
      EXPECT_NEAR(at(2, 2, 0, 0), 2 * K00 + 2 * K11, tol);
      EXPECT_NEAR(at(2, 2, 1, 0), -K00, tol);
      EXPECT_NEAR(at(2, 2, -1, 0), -K00, tol);
      EXPECT_NEAR(at(2, 2, 0, 1), -K11, tol);
      EXPECT_NEAR(at(2, 2, 0, -1), -K11, tol);
      EXPECT_NEAR(at(2, 2, 1, 1), -K01 / 2, tol);
      EXPECT_NEAR(at(2, 2, -1, -1), -K01 / 2, tol);
      EXPECT_NEAR(at(2, 2, -1, 1), K01 / 2, tol);
      EXPECT_NEAR(at(2, 2, 1, -1), K01 / 2, tol);
      // SPD: dense Cholesky has positive pivots
      const int n = m * m;
      for (int k = 0; k < n; ++k) {
        double& piv = D[static_cast<std::size_t>(k) * n + k];
        for (int p = 0; p < k; ++p)
          piv -= D[static_cast<std::size_t>(k) * n + p] * D[static_cast<std::size_t>(k) * n + p];
        ASSERT_GT(piv, 0.0) << "eps " << eps << " theta " << theta << " row " << k;
        piv = std::sqrt(piv);
        for (int i = k + 1; i < n; ++i) {
          double& v = D[static_cast<std::size_t>(i) * n + k];
          for (int p = 0; p < k; ++p)
            v -= D[static_cast<std::size_t>(i) * n + p] * D[static_cast<std::size_t>(k) * n + p];
          v /= piv;
        }
      }
    }
}

TEST(generators, convdiff2d_upwind_stencil) {
  for (double pe : {1.0, 0.5, 3.0})
    for (int m = 1; m <= 6; ++m) {
      SCOPED_TRACE("m = " + std::to_string(m) + ", peclet = " + std::to_string(pe));
      auto A = convdiff2d(m, pe);
      ASSERT_EQ(A.nrows, m * m);
      EXPECT_EQ(A.nnz(), 5 * m * m - 4 * m);
      EXPECT_NO_THROW(check_structure(A, "test"));
      EXPECT_TRUE(is_sorted_unique(A));
      EXPECT_NO_THROW(check_diagonal(A, "test"));
      // backward (upwind) differences for w > 0: the W and S neighbours carry the convection
      auto D = dense_stencil(m, 2, [pe](int dx, int dy, int) {
        if (dx == 0 && dy == 0) return 4.0 + 2.0 * pe;
        if ((dx == -1 && dy == 0) || (dx == 0 && dy == -1)) return -1.0 - pe;
        if ((dx == 1 && dy == 0) || (dx == 0 && dy == 1)) return -1.0;
        return (double)NAN;
      });
      EXPECT_EQ(to_dense(A), D);
      if (m > 1) EXPECT_THROW(check_symmetric(A, "test"), InvalidInput);
      // M-matrix: positive diagonal, non-positive off-diagonals, rows weakly diagonally dominant and strictly
      // next to the boundary (every row of a grid with m <= 2 touches it)
      for (int i = 0; i < A.nrows; ++i) {
        double sum = 0;
        for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
          EXPECT_TRUE(A.col_idx[k] == i ? A.values[k] > 0 : A.values[k] < 0);
          sum += A.values[k];
        }
        const int x = i % m, y = i / m;
        const bool boundary = x == 0 || y == 0 || x == m - 1 || y == m - 1;
        if (boundary)
          EXPECT_GT(sum, 0.0) << "row " << i;
        else
          EXPECT_EQ(sum, 0.0) << "row " << i;
      }
    }
  // Peclet 0 is the Laplacian; flow towards -x, -y gives the transpose
  EXPECT_EQ(convdiff2d(5, 0.0).values, lap2d(5).values);
  EXPECT_EQ(convdiff2d(5, 0.0).col_idx, lap2d(5).col_idx);
  const auto P = to_dense(convdiff2d(4, 2.5)), N = to_dense(convdiff2d(4, -2.5));
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) EXPECT_EQ(N[i * 16 + j], P[j * 16 + i]) << i << ", " << j;
  // the Jacobi iteration matrix D^-1 (D - A) has the positive eigenvector v(x, y) = q^(x+y) sin((x+1) pi h)
  // sin((y+1) pi h), q = sqrt(1 + p), with eigenvalue (its spectral radius) 4 q cos(pi h) / (4 + 2 p)
  const int m = 9;
  const double pe = 1.0, q = std::sqrt(1.0 + pe), h = 1.0 / (m + 1), pi = std::acos(-1.0);
  const double lambda = 4 * q * std::cos(pi * h) / (4 + 2 * pe);
  const auto A = convdiff2d(m, pe);
  std::vector<double> v(m * m);
  for (int y = 0; y < m; ++y)
    for (int x = 0; x < m; ++x)
      v[x + m * y] = std::pow(q, x + y) * std::sin((x + 1) * pi * h) * std::sin((y + 1) * pi * h);
  for (int i = 0; i < A.nrows; ++i) {
    double s = 0, d = 0;
    for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i)
        d = A.values[k];
      else
        s -= A.values[k] * v[A.col_idx[k]];
    EXPECT_NEAR(s / d, lambda * v[i], 1e-13 * v[i]) << "row " << i;
  }
  EXPECT_LT(lambda, 1.0);
}

TEST(generators, trefethen_small_exact) {
  auto A = trefethen(8);
  const double primes[8] = {2, 3, 5, 7, 11, 13, 17, 19};
  auto D = to_dense(A);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      const int d = std::abs(i - j);
      const double expected = i == j ? primes[i] : (d == 1 || d == 2 || d == 4) ? 1.0 : 0.0;
      EXPECT_EQ(D[i * 8 + j], expected) << i << "," << j;
    }
  EXPECT_EQ(A.nnz(), 8 + 2 * (7 + 6 + 4));
  expect_well_formed(A);
  EXPECT_EQ(trefethen(1).values, std::vector<double>{2.0});
}

TEST(generators, trefethen_2000_equals_suitesparse) {
  auto A = trefethen(2000);
  EXPECT_EQ(A.nnz(), 41906);
  EXPECT_EQ(A.values[find_entry(A, 1999, 1999)], 17389.0);  // the 2000th prime
  expect_well_formed(A);

  const std::string path = AsyncSparse::Test::matrix_path("trefethen_2000");
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) GTEST_SKIP() << "no " << path;
  std::string text;
  char buf[1 << 16];
  int got;
  while ((got = gzread(f, buf, sizeof(buf))) > 0) text.append(buf, got);
  gzclose(f);
  std::istringstream in(text);
  std::string line;
  bool header = false;
  offset_t lower = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '%') continue;
    std::istringstream ls(line);
    if (!header) {
      int r, c, nz;
      ls >> r >> c >> nz;
      EXPECT_EQ(r, 2000);
      EXPECT_EQ(nz, 21953);
      header = true;
      continue;
    }
    int i, j;
    double v;
    ls >> i >> j >> v;
    const offset_t k = find_entry(A, i - 1, j - 1);
    ASSERT_GE(k, 0) << i << " " << j;
    EXPECT_EQ(A.values[k], v) << i << " " << j;
    ++lower;
  }
  // every stored lower entry of A was in the file
  offset_t mine = 0;
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) mine += A.col_idx[k] <= i;
  EXPECT_EQ(lower, mine);
}

TEST(generators, random_unsymmetric_properties) {
  auto A = random_diag_dominant(500, 9, 7, /*symmetric=*/false, 1.5);
  ASSERT_EQ(A.nrows, 500);
  EXPECT_EQ(A.nnz(), 500 * 9);
  EXPECT_TRUE(is_sorted_unique(A));
  EXPECT_NO_THROW(check_diagonal(A, "t"));
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    EXPECT_EQ(A.row_ptr[i + 1] - A.row_ptr[i], 9);
    double off = 0, d = 0;
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      if (A.col_idx[k] == i) {
        d = A.values[k];
      } else {
        EXPECT_GE(A.values[k], -1.0);
        EXPECT_LT(A.values[k], 1.0);
        off += std::fabs(A.values[k]);
      }
    }
    EXPECT_NEAR(d, 1.5 * off, 1e-14 * d);
  }
  // many entries per row (the sampler's large-k path) and a dense matrix
  auto W = random_diag_dominant(100, 60, 3, false);
  EXPECT_EQ(W.nnz(), 6000);
  EXPECT_TRUE(is_sorted_unique(W));
  EXPECT_EQ(analyze(W).diag_dominant_rows, 100);
  EXPECT_EQ(random_diag_dominant(40, 40, 3, false).nnz(), 1600);
  auto p = analyze(A);
  EXPECT_FALSE(p.symmetric_pattern);
  EXPECT_EQ(p.diag_dominant_rows, 500);
  EXPECT_NEAR(p.min_dominance_ratio, 1.5, 1e-12);
  EXPECT_TRUE(p.positive_diagonal);
}

TEST(generators, random_symmetric_properties) {
  auto A = random_diag_dominant(2000, 7, 11);
  expect_well_formed(A);
  EXPECT_LE(A.nnz(), 2000 * 7);
  EXPECT_GE(A.nnz(), 2000 * 7 * 99 / 100);  // only pairs drawn twice are lost
  auto p = analyze(A);
  EXPECT_TRUE(p.symmetric_values);
  EXPECT_EQ(p.diag_dominant_rows, 2000);
  EXPECT_NEAR(p.min_dominance_ratio, 1.5, 1e-12);
  EXPECT_GE(p.nnz_row_min, 4);  // every row draws 3 partners
  // dominance parameter, and rows of a 1 x 1 / dense matrix
  auto W = random_diag_dominant(300, 5, 2, true, 0.5);
  EXPECT_NEAR(analyze(W).min_dominance_ratio, 0.5, 1e-12);
  EXPECT_EQ(random_diag_dominant(1, 1, 3).values, std::vector<double>{1.0});
  auto F = random_diag_dominant(6, 6, 4, false);
  EXPECT_EQ(F.nnz(), 36);
  auto Fs = random_diag_dominant(6, 6, 4, true);
  EXPECT_NO_THROW(check_symmetric(Fs, "t"));
}

TEST(generators, random_is_deterministic_per_seed) {
  auto A = random_diag_dominant(300, 6, 42);
  auto B = random_diag_dominant(300, 6, 42);
  auto C = random_diag_dominant(300, 6, 43);
  EXPECT_EQ(A.col_idx, B.col_idx);
  EXPECT_EQ(A.values, B.values);
  EXPECT_NE(A.col_idx, C.col_idx);
  // pinned: the draws use the raw mt19937_64 outputs, so this holds with every standard library
  auto U = random_diag_dominant(4, 3, 5, false);
  EXPECT_EQ(U.col_idx, (std::vector<ordinal_t>{0, 1, 2, 0, 1, 3, 0, 1, 2, 0, 1, 3}));
  EXPECT_EQ(U.values[1], -0.54942288610427981);
  EXPECT_EQ(U.values[2], 0.35186437086559952);
  EXPECT_EQ(U.values[0], 1.3519308854548191);
  auto S = random_diag_dominant(5, 3, 9, true);
  EXPECT_EQ(S.col_idx, (std::vector<ordinal_t>{0, 4, 1, 2, 4, 1, 2, 4, 3, 4, 0, 1, 2, 3, 4}));
  EXPECT_EQ(S.values[3], -0.96449980046368133);
  EXPECT_EQ(S.values[14], 3.4778005334209854);
}

TEST(generators, bad_arguments) {
  ASYNCSPARSE_EXPECT_THROW_MSG(lap2d(0), InvalidInput, "lap2d: m must be >= 1 (got 0)");
  ASYNCSPARSE_EXPECT_THROW_MSG(lap2d(-3), InvalidInput, "m must be >= 1");
  ASYNCSPARSE_EXPECT_THROW_MSG(lap2d(46341), InvalidInput, "rows");
  if (sizeof(offset_t) == 4) {  // with 64-bit offsets these would be generated (billions of entries)
    ASYNCSPARSE_EXPECT_THROW_MSG(lap2d(30000), InvalidInput, "stored entries exceed " + max_stored_entries_text());
    ASYNCSPARSE_EXPECT_THROW_MSG(lap3d27(431), InvalidInput, "lap3d27: 2151685171 stored entries");  // (3*431-2)^3
    ASYNCSPARSE_EXPECT_THROW_MSG(convdiff2d(30000), InvalidInput, "stored entries exceed 2147483647 (32-bit offsets");
    ASYNCSPARSE_EXPECT_THROW_MSG(random_diag_dominant(2000000000, 7, 1), InvalidInput, "stored entries exceed");
  }
  ASYNCSPARSE_EXPECT_THROW_MSG(lap3d7(1291), InvalidInput, "lap3d7:");
  EXPECT_EQ(lap3d27(1).nnz(), 1);
  ASYNCSPARSE_EXPECT_THROW_MSG(lap3d27(0), InvalidInput, "lap3d27: m must be >= 1");
  ASYNCSPARSE_EXPECT_THROW_MSG(trefethen(0), InvalidInput, "trefethen: n must be >= 1");
  ASYNCSPARSE_EXPECT_THROW_MSG(aniso2d(4, 0.0, 30), InvalidInput, "aniso2d: eps must be finite and > 0");
  ASYNCSPARSE_EXPECT_THROW_MSG(aniso2d(4, -1.0, 30), InvalidInput, "eps must be finite and > 0");
  ASYNCSPARSE_EXPECT_THROW_MSG(aniso2d(4, NAN, 30), InvalidInput, "eps must be finite and > 0");
  ASYNCSPARSE_EXPECT_THROW_MSG(aniso2d(4, 1e308, 380), InvalidInput, "coefficients that overflow double");
  ASYNCSPARSE_EXPECT_THROW_MSG(aniso2d(4, 0.1, INFINITY), InvalidInput, "aniso2d: theta_degrees must be finite");
  ASYNCSPARSE_EXPECT_THROW_MSG(aniso2d(0, 0.1, 3), InvalidInput, "aniso2d: m must be >= 1");
  ASYNCSPARSE_EXPECT_THROW_MSG(convdiff2d(0), InvalidInput, "convdiff2d: m must be >= 1");
  ASYNCSPARSE_EXPECT_THROW_MSG(convdiff2d(46341), InvalidInput, "convdiff2d: 2147488281 rows do not fit in int");
  ASYNCSPARSE_EXPECT_THROW_MSG(convdiff2d(4, NAN), InvalidInput, "convdiff2d: peclet must be finite");
  ASYNCSPARSE_EXPECT_THROW_MSG(convdiff2d(4, -INFINITY), InvalidInput, "convdiff2d: peclet must be finite");
  // finite but so large that the diagonal 4 + 2|peclet| overflows
  ASYNCSPARSE_EXPECT_THROW_MSG(convdiff2d(4, 1e308), InvalidInput, "the diagonal 4 + 2|peclet| overflows");
  ASYNCSPARSE_EXPECT_THROW_MSG(convdiff2d(4, -1e308), InvalidInput, "is too large");
  ASYNCSPARSE_EXPECT_THROW_MSG(random_diag_dominant(0, 1, 1), InvalidInput, "random_diag_dominant: n must be >= 1");
  ASYNCSPARSE_EXPECT_THROW_MSG(random_diag_dominant(5, 6, 1), InvalidInput,
                               "random_diag_dominant: nnz_per_row must be in [1, n] = [1, 5] (got 6)");
  ASYNCSPARSE_EXPECT_THROW_MSG(random_diag_dominant(5, 0, 1), InvalidInput, "nnz_per_row must be in [1, n]");
  ASYNCSPARSE_EXPECT_THROW_MSG(random_diag_dominant(5, 2, 1, true, 0.0), InvalidInput,
                               "random_diag_dominant: dominance must be finite and > 0");
}

TEST(generators, parse_good_specs) {
  auto g = parse_generator("gen:lap2d:1024");
  EXPECT_EQ(g.name, "lap2d");
  EXPECT_EQ(g.size, 1024);
  EXPECT_EQ(g.spec, "gen:lap2d:1024");
  EXPECT_EQ(parse_generator("gen:lap3d7:64").name, "lap3d7");
  EXPECT_EQ(parse_generator("gen:lap3d27:64").size, 64);
  EXPECT_EQ(parse_generator("gen:trefethen:2000").size, 2000);
  auto a = parse_generator("gen:aniso2d:256:0.001:45");
  EXPECT_EQ(a.size, 256);
  EXPECT_EQ(a.eps, 0.001);
  EXPECT_EQ(a.theta_degrees, 45.0);
  auto a1 = parse_generator("gen:aniso2d:16");
  EXPECT_EQ(a1.eps, 0.01);
  EXPECT_EQ(a1.theta_degrees, 30.0);
  auto a2 = parse_generator("gen:aniso2d:16:1e-2");
  EXPECT_EQ(a2.eps, 0.01);
  EXPECT_EQ(a2.theta_degrees, 30.0);
  EXPECT_EQ(parse_generator("gen:aniso2d:16:0.5:-60").theta_degrees, -60.0);
  auto c = parse_generator("gen:convdiff2d:150");
  EXPECT_EQ(c.name, "convdiff2d");
  EXPECT_EQ(c.size, 150);
  EXPECT_EQ(c.peclet, 1.0);
  EXPECT_EQ(parse_generator("gen:convdiff2d:20:0.25").peclet, 0.25);
  EXPECT_EQ(parse_generator("gen:convdiff2d:20:-2").peclet, -2.0);
  auto r = parse_generator("gen:random:1000");
  EXPECT_EQ(r.size, 1000);
  EXPECT_EQ(r.nnz_per_row, 7);
  EXPECT_EQ(r.seed, 1u);
  EXPECT_EQ(parse_generator("gen:random:3").nnz_per_row, 3);  // default capped at n
  auto r2 = parse_generator("gen:random:1000:9:18446744073709551615");
  EXPECT_EQ(r2.nnz_per_row, 9);
  EXPECT_EQ(r2.seed, 18446744073709551615ull);

  auto L = generate("gen:lap2d:7");
  EXPECT_EQ(L.values, lap2d(7).values);
  EXPECT_EQ(L.col_idx, lap2d(7).col_idx);
  EXPECT_EQ(generate("gen:lap3d27:3").nnz(), 343);
  EXPECT_EQ(generate("gen:lap3d7:3").nnz(), 135);
  EXPECT_EQ(generate("gen:trefethen:8").nnz(), 42);
  EXPECT_EQ(generate("gen:aniso2d:5:1:17").values, lap2d(5).values);
  EXPECT_EQ(generate("gen:convdiff2d:6").values, convdiff2d(6, 1.0).values);
  EXPECT_EQ(generate("gen:convdiff2d:6:-0.5").values, convdiff2d(6, -0.5).values);
  EXPECT_EQ(generate("gen:convdiff2d:5:0").values, lap2d(5).values);
  EXPECT_EQ(generate("gen:random:50:5:3").values, random_diag_dominant(50, 5, 3).values);

  EXPECT_TRUE(is_generator_spec("gen:lap2d:4"));
  EXPECT_TRUE(is_generator_spec("gen:"));
  EXPECT_FALSE(is_generator_spec("fv1.mtx.gz"));
  EXPECT_FALSE(is_generator_spec("ge"));
  EXPECT_FALSE(is_generator_spec(""));
}

TEST(generators, parse_bad_specs) {
  const std::string names = "valid generators: lap2d, lap3d7, lap3d27, aniso2d, convdiff2d, trefethen, random";
  struct Case {
    const char* spec;
    const char* needle;
  };
  const Case cases[] = {
      {"lap2d:4", "a generator spec starts with 'gen:'"},
      {"gen:", "unknown generator ''"},
      {"gen:foo:3", "unknown generator 'foo'"},
      {"gen:Lap2d:3", "unknown generator 'Lap2d'"},
      {"gen:lap2d", "lap2d takes 1 ':'-separated fields after the name, got 0"},
      {"gen:lap2d:4:5", "got 2"},
      {"gen:random", "random takes 1 to 3"},
      {"gen:random:10:3:1:9", "random takes 1 to 3 ':'-separated fields after the name, got 4"},
      {"gen:aniso2d:10:0.1:30:7", "aniso2d takes 1 to 3"},
      {"gen:lap2d:abc", "size M 'abc' is not a non-negative integer"},
      {"gen:lap2d:", "size M '' is not a non-negative integer"},
      {"gen:lap2d:-4", "size M '-4' is not a non-negative integer"},
      {"gen:lap2d:4 ", "size M '4 ' is not a non-negative integer"},
      {"gen:lap2d:4x", "is not a non-negative integer"},
      {"gen:lap2d: 4", "size M ' 4' is not a non-negative integer"},
      {"gen:lap2d:0", "m must be >= 1 (got 0)"},
      {"gen:trefethen:0", "n must be >= 1 (got 0)"},
      {"gen:lap2d:99999999999", "size M 99999999999 does not fit in int"},
      {"gen:lap2d:46341", "rows"},
      {"gen:lap3d27:1300", "m = 1300 gives more than 2^31-1 rows"},
      {"gen:aniso2d:10:0", "EPS must be > 0"},
      {"gen:aniso2d:10:-1", "EPS must be > 0"},
      {"gen:aniso2d:10:x", "EPS 'x' is not a number"},
      {"gen:aniso2d:10::30", "EPS '' is not a number"},
      {"gen:aniso2d:10:0.1:nan", "THETA_DEGREES 'nan' is not finite"},
      {"gen:aniso2d:10:0.1:1e999", "THETA_DEGREES '1e999' is out of the range of double"},
      {"gen:aniso2d:10:1e-400", "EPS '1e-400' is out of the range of double"},  // would read as 0
      {"gen:aniso2d:10: 0.1", "EPS ' 0.1' is not a number"},
      {"gen:aniso2d:10:0.1:30deg", "THETA_DEGREES '30deg' is not a number"},
      {"gen:convdiff2d", "convdiff2d takes 1 to 2 ':'-separated fields after the name, got 0"},
      {"gen:convdiff2d:10:1:2", "convdiff2d takes 1 to 2"},
      {"gen:convdiff2d:0", "m must be >= 1 (got 0)"},
      {"gen:convdiff2d:46342", "m = 46342 gives more than 2^31-1 rows"},
      {"gen:convdiff2d:10:x", "PECLET 'x' is not a number"},
      {"gen:convdiff2d:10:", "PECLET '' is not a number"},
      {"gen:convdiff2d:10:inf", "PECLET 'inf' is not finite"},
      {"gen:random:10:11", "nnz_per_row must be in [1, n] = [1, 10] (got 11)"},
      {"gen:random:10:0", "nnz_per_row must be in [1, n]"},
      {"gen:random:10:3:-1", "SEED '-1' is not an unsigned 64-bit integer"},
      {"gen:random:10:3:18446744073709551616", "SEED '18446744073709551616' is not an unsigned 64-bit integer"},
      {"gen:random:10:3:", "SEED ''"},
      {"gen:random:10:3: 1", "SEED ' 1' is not an unsigned 64-bit integer"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    ASYNCSPARSE_EXPECT_THROW_MSG(parse_generator(c.spec), InvalidInput, c.needle);
    ASYNCSPARSE_EXPECT_THROW_MSG(generate(c.spec), InvalidInput, std::string("bad generator spec '") + c.spec + "'");
    ASYNCSPARSE_EXPECT_THROW_MSG(generate(c.spec), InvalidInput, names);
  }
  GeneratorSpec g;
  g.name = "nope";
  ASYNCSPARSE_EXPECT_THROW_MSG(generate(g), InvalidInput, "generate: unknown generator 'nope'");
}

TEST(generators, sizes_beyond_32_bit_offsets) {
  // (3*440-2)^3 = 2,289,529,432 stored entries (85,184,000 rows): refused with 32-bit offsets, accepted by the size
  // check with 64-bit ones (parse_generator checks sizes without generating; generating takes ~28 GB).
  const char* specs[] = {"gen:lap3d27:440", "gen:lap3d27:431", "gen:lap2d:30000", "gen:random:2000000000:7"};
  for (const char* spec : specs) {
    SCOPED_TRACE(spec);
    if (sizeof(offset_t) == 4) {
      ASYNCSPARSE_EXPECT_THROW_MSG(parse_generator(spec), InvalidInput,
                                   "stored entries exceed 2147483647 (32-bit offsets; a library configured with "
                                   "AsyncSparse_OFFSET_TYPE=int64 holds more)");
    } else {
      EXPECT_NO_THROW(parse_generator(spec));
    }
  }
  if (sizeof(offset_t) == 4)
    ASYNCSPARSE_EXPECT_THROW_MSG(parse_generator("gen:lap3d27:440"), InvalidInput, "2289529432 stored entries exceed");
  // rows stay int in every build
  ASYNCSPARSE_EXPECT_THROW_MSG(parse_generator("gen:lap3d27:1300"), InvalidInput, "gives more than 2^31-1 rows");
  // with 64-bit offsets 4e18 entries pass the size check; their host arrays cannot be allocated
  if (sizeof(offset_t) == 8)
    ASYNCSPARSE_EXPECT_THROW_MSG(random_diag_dominant(2000000000, 2000000000, 1), OutOfMemory,
                                 "random_diag_dominant: out of host memory: 4000000000000000000 stored entries need");
}
