// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Triangular solves (exact KK sptrsv and Jacobi-iterative) and the device transpose, against the host reference.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>
#include <support/TestHelpers.hpp>

#include <cmath>
#include <limits>

namespace {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using V = Kokkos::View<double*, Dev>;

std::vector<double> rhs(int n) {
  std::vector<double> b(n);
  for (int i = 0; i < n; ++i) b[i] = std::cos(0.3 * i) + 0.2;
  return b;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

std::vector<double> solve(const CsrHost<double>& T, bool lower, bool unit, TriSolveKind kind, int sweeps,
                          const std::vector<double>& b, ExactAlgorithm alg = ExactAlgorithm::Auto) {
  TriangularSolver<double, Dev> S;
  S.set_exact_algorithm(alg);
  auto Td = to_device<Dev>(T);
  S.setup(Td, lower, unit, kind, sweeps);
  auto bd = to_device<Dev>(b);
  V x("x", T.nrows);
  S.solve(bd, x);
  return to_std_vector(x);
}

TEST(TEST_CATEGORY, trisolve_exact_matches_reference) {
  const auto A = lap2d(12);
  const auto F = Reference::ilu0(A);
  const auto b = rhs(A.nrows);
  const auto L = Reference::ic0(A);
  auto L2 = F.L;  // the unit-diagonal solve ignores the stored diagonal value
  for (int i = 0; i < L2.nrows; ++i) L2.values[L2.row_ptr[i + 1] - 1] = 7.0;
  for (auto alg : {ExactAlgorithm::LevelSet, ExactAlgorithm::Serial, ExactAlgorithm::Auto}) {
    const auto E = TriSolveKind::Exact;
    EXPECT_LT(max_diff(solve(F.L, true, true, E, 0, b, alg), Reference::lower_solve(F.L, b, true)), 1e-12);
    EXPECT_LT(max_diff(solve(F.U, false, false, E, 0, b, alg), Reference::upper_solve(F.U, b)), 1e-12);
    EXPECT_LT(max_diff(solve(L, true, false, E, 0, b, alg), Reference::lower_solve(L, b, false)), 1e-12);
    EXPECT_LT(max_diff(solve(L2, true, true, E, 0, b, alg), Reference::lower_solve(F.L, b, true)), 1e-12);
  }
  TriangularSolver<double, Dev> S;
  S.set_exact_algorithm(ExactAlgorithm::LevelSet);
  S.setup(to_device<Dev>(L), true, false, TriSolveKind::Exact);
  EXPECT_TRUE(S.uses_level_sets());
  S.set_exact_algorithm(ExactAlgorithm::Serial);
  S.setup(to_device<Dev>(L), true, false, TriSolveKind::Exact);
  EXPECT_FALSE(S.uses_level_sets());
}

TEST(TEST_CATEGORY, trisolve_jacobi_converges_and_is_exact_after_n_sweeps) {
  const auto A = lap2d(6);  // n = 36: 36 Jacobi sweeps are exact (nilpotent iteration matrix)
  const auto L = Reference::ic0(A);
  const auto U = Reference::transpose(L);
  const auto b = rhs(A.nrows);
  const auto xl = Reference::lower_solve(L, b, false);
  const auto xu = Reference::upper_solve(U, b);
  EXPECT_LT(max_diff(solve(L, true, false, TriSolveKind::Jacobi, A.nrows, b), xl), 1e-12);
  EXPECT_LT(max_diff(solve(U, false, false, TriSolveKind::Jacobi, A.nrows, b), xu), 1e-12);
  // 0 sweeps = D^{-1} b; the error decreases with the sweeps
  const auto x0 = solve(L, true, false, TriSolveKind::Jacobi, 0, b);
  for (int i = 0; i < A.nrows; ++i) EXPECT_DOUBLE_EQ(x0[i], b[i] / L.values[L.row_ptr[i + 1] - 1]);
  double prev = max_diff(x0, xl);
  for (int s : {2, 4, 8}) {
    const double e = max_diff(solve(L, true, false, TriSolveKind::Jacobi, s, b), xl);
    EXPECT_LT(e, prev) << s << " sweeps";
    prev = e;
  }
  // host value of two sweeps (same order of operations; a GPU compiler may fuse multiply-adds)
  std::vector<double> x(b.size()), y(b.size());
  for (int i = 0; i < A.nrows; ++i) x[i] = (1.0 / L.values[L.row_ptr[i + 1] - 1]) * b[i];
  for (int s = 0; s < 2; ++s) {
    for (int i = 0; i < A.nrows; ++i) {
      double r = b[i];
      for (int k = L.row_ptr[i]; k < L.row_ptr[i + 1] - 1; ++k) r -= L.values[k] * x[L.col_idx[k]];
      y[i] = (1.0 / L.values[L.row_ptr[i + 1] - 1]) * r;
    }
    x = y;
  }
  const auto x2 = solve(L, true, false, TriSolveKind::Jacobi, 2, b);
  for (int i = 0; i < A.nrows; ++i) EXPECT_NEAR(x2[i], x[i], 1e-14 * std::abs(x[i]));
}

TEST(TEST_CATEGORY, trisolve_update_values_and_aliasing) {
  const auto A = lap2d(8);
  auto L = Reference::ic0(A);
  const auto b = rhs(A.nrows);
  for (auto kind : {TriSolveKind::Exact, TriSolveKind::Jacobi}) {
    TriangularSolver<double, Dev> S;
    auto Ld = to_device<Dev>(L);
    S.setup(Ld, true, false, kind, A.nrows);
    auto L2 = L;
    for (auto& v : L2.values) v *= 2.0;
    Kokkos::deep_copy(Ld.values, to_device<Dev>(L2.values));
    S.update_values(Ld);
    auto x = to_device<Dev>(b);
    S.solve(x, x);  // in place
    EXPECT_LT(max_diff(to_std_vector(x), Reference::lower_solve(L2, b, false)), 1e-12) << to_string(kind);
  }
}

TEST(TEST_CATEGORY, transpose_sorted_and_round_trip) {
  auto A = random_diag_dominant(300, 9, 3, /*symmetric=*/false);
  // a long row (exercises the heap-sort path) and a long column
  std::vector<int> r, c;
  std::vector<double> v;
  for (int i = 0; i < A.nrows; ++i)
    for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      r.push_back(i);
      c.push_back(A.col_idx[k]);
      v.push_back(A.values[k]);
    }
  for (int j = 0; j < A.ncols; j += 2) {
    r.push_back(5);
    c.push_back(j);
    v.push_back(0.5 + j);
  }
  A = csr_from_triplets(A.nrows, A.ncols, r, c, v);
  const auto T = to_host(transpose(to_device<Dev>(A)));
  const auto R = Reference::transpose(A);
  EXPECT_EQ(T.row_ptr, R.row_ptr);
  EXPECT_EQ(T.col_idx, R.col_idx);
  EXPECT_EQ(T.values, R.values);
  // rectangular
  CsrHost<double> B = csr_from_triplets<double>(2, 3, {0, 0, 1}, {2, 0, 1}, {1.0, 2.0, 3.0});
  const auto Bt = to_host(transpose(to_device<Dev>(B)));
  EXPECT_EQ(Bt.nrows, 3);
  EXPECT_EQ(Bt.ncols, 2);
  EXPECT_EQ(Bt.row_ptr, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(Bt.col_idx, (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(Bt.values, (std::vector<double>{2.0, 3.0, 1.0}));
}

TEST(TEST_CATEGORY, trisolve_bad_inputs) {
  TriangularSolver<double, Dev> S;
  const auto L = Reference::ic0(lap2d(4));
  auto Ld = to_device<Dev>(L);
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(csr_from_triplets<double>(2, 3, {0, 1}, {0, 1}, {1.0, 1.0})),
                                       true, false, TriSolveKind::Exact),
                               InvalidInput, "must be square");
  // L given as upper: entries below the diagonal
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(Ld, false, false, TriSolveKind::Exact), InvalidInput,
                               "diagonal entry not stored as the first entry");
  // missing diagonal
  auto M = csr_from_triplets<double>(3, 3, {0, 1, 2, 2}, {0, 0, 0, 2}, {1.0, 2.0, 3.0, 4.0});
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(M), true, false, TriSolveKind::Jacobi), InvalidInput,
                               "row 1: diagonal entry not stored");
  // zero and non-finite diagonals
  auto Z = L;
  Z.values[Z.row_ptr[3] - 1] = 0.0;
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(Z), true, false, TriSolveKind::Exact), BreakdownError,
                               "breakdown at row 2: zero diagonal");
  EXPECT_NO_THROW(S.setup(to_device<Dev>(Z), true, true, TriSolveKind::Exact));  // unit: ignored
  auto N = L;
  N.values[0] = std::numeric_limits<double>::quiet_NaN();
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(N), true, false, TriSolveKind::Jacobi), BreakdownError,
                               "row 0: non-finite diagonal");
  auto N2 = L;
  N2.values[L.row_ptr[5]] = std::numeric_limits<double>::infinity();  // off-diagonal of row 5
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(N2), true, false, TriSolveKind::Jacobi), InvalidInput,
                               "non-finite off-diagonal value in row 5");
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(Ld, true, false, TriSolveKind::Jacobi, -1), InvalidInput,
                               "jacobi_sweeps must be >= 0");
  TriangularSolver<double, Dev> fresh;
  V x("x", L.nrows);
  ASYNCSPARSE_EXPECT_THROW_MSG(fresh.solve(x, x), InvalidInput, "setup() must be called first");
  S.setup(Ld, true, false, TriSolveKind::Exact);
  V y("y", 3);
  ASYNCSPARSE_EXPECT_THROW_MSG(S.solve(y, x), InvalidInput, "do not match");
  EXPECT_EQ(tri_solve_kind_from_string("jacobi"), TriSolveKind::Jacobi);
  ASYNCSPARSE_EXPECT_THROW_MSG(tri_solve_kind_from_string("gs"), InvalidInput, "valid: exact, jacobi");
}

}  // namespace
