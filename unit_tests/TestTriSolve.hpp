// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Triangular solves (exact, Jacobi, adaptive Jacobi, ISAI; the auto rule) and the device transpose, against the host
// reference.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>
#include <support/TestHelpers.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <utility>

namespace test_trisolve {
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
  for (auto alg : {ExactAlgorithm::LevelSet, ExactAlgorithm::Serial, ExactAlgorithm::Auto, ExactAlgorithm::OneTeam}) {
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
  for (auto kind : {TriSolveKind::Exact, TriSolveKind::Jacobi, TriSolveKind::JacobiAdaptive, TriSolveKind::Isai}) {
    TriangularSolver<double, Dev> S;
    auto Ld = to_device<Dev>(L);
    TriSolveOptions o;
    o.kind = kind;
    o.sweeps = A.nrows;  // Jacobi modes: n sweeps are exact; ISAI: n correction steps are exact
    o.tolerance = 1e-300;
    o.stagnation = 1e300;
    S.setup(Ld, true, false, o);
    auto L2 = L;
    for (auto& v : L2.values) v *= 2.0;
    Kokkos::deep_copy(Ld.values, to_device<Dev>(L2.values));
    S.update_values(Ld);
    auto x = to_device<Dev>(b);
    S.solve(x, x);  // in place
    EXPECT_LT(max_diff(to_std_vector(x), Reference::lower_solve(L2, b, false)), 1e-12) << to_string(kind);
  }
}

// update_values accepts a matrix with the same pattern in other Views (compared on the device) and refuses one whose
// pattern differs in a column index at the same entry count.
TEST(TEST_CATEGORY, trisolve_update_values_compares_patterns) {
  const auto A = lap2d(6);
  const auto L = Reference::ic0(A);
  TriangularSolver<double, Dev> S;
  S.setup(to_device<Dev>(L), true, false, TriSolveKind::Exact);
  auto L2 = L;
  for (auto& v : L2.values) v *= 3.0;
  const auto b = rhs(A.nrows);
  S.update_values(to_device<Dev>(L2));  // new Views, same pattern
  auto x = to_device<Dev>(b);
  S.solve(x, x);
  EXPECT_LT(max_diff(to_std_vector(x), Reference::lower_solve(L2, b, false)), 1e-12);
  auto L3 = L2;
  const int row = A.nrows - 1;  // last row: its first off-diagonal entry moves one column to the left
  ASSERT_GT(L3.row_ptr[row + 1] - L3.row_ptr[row], 1);
  ASSERT_GT(L3.col_idx[L3.row_ptr[row]], 0);
  L3.col_idx[L3.row_ptr[row]] -= 1;
  ASYNCSPARSE_EXPECT_THROW_MSG(S.update_values(to_device<Dev>(L3)), InvalidInput, "does not have the pattern");
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
  for (int i = 0; i < A.nrows; ++i) {  // column 7 full: a row of 300 > 256 entries in the transpose
    r.push_back(i);
    c.push_back(7);
    v.push_back(0.25 + i);
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
  EXPECT_EQ(Bt.row_ptr, (std::vector<offset_t>{0, 1, 2, 3}));
  EXPECT_EQ(Bt.col_idx, (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(Bt.values, (std::vector<double>{2.0, 3.0, 1.0}));
}

// Duplicate entries (kept by csr_from_triplets without summing) stay in the transpose: the same multiset of values
// under each column, sorted by column (equal columns in an unspecified order among themselves).
TEST(TEST_CATEGORY, transpose_keeps_duplicate_entries) {
  std::vector<int> r, c;
  std::vector<double> v;
  for (int i = 0; i < 50; ++i)
    for (int j : {i, (i + 3) % 50, (i + 3) % 50, (7 * i) % 50}) {  // (i, i + 3) twice
      r.push_back(i);
      c.push_back(j);
      v.push_back(1.0 + i + 0.01 * static_cast<double>(r.size()));
    }
  const auto A = csr_from_triplets<double>(50, 50, r, c, v, /*sort=*/true, /*sum_duplicates=*/false);
  ASSERT_EQ(A.nnz(), 200);
  const auto T = to_host(transpose(to_device<Dev>(A)));
  ASSERT_EQ(T.nnz(), 200);
  for (int j = 0; j < 50; ++j) {
    std::multiset<std::pair<int, double>> got, want;
    for (offset_t p = T.row_ptr[j]; p < T.row_ptr[j + 1]; ++p) {
      got.insert({T.col_idx[p], T.values[p]});
      if (p > T.row_ptr[j]) EXPECT_LE(T.col_idx[p - 1], T.col_idx[p]) << "row " << j;
    }
    for (int i = 0; i < 50; ++i)
      for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
        if (A.col_idx[p] == j) want.insert({i, A.values[p]});
    EXPECT_EQ(got, want) << "row " << j;
  }
}

TEST(TEST_CATEGORY, transpose_pattern_of_a_bare_pattern) {
  // the transpose of a pattern without values (the ILU symbolic phase transposes U's pattern before U has values):
  // row pointers and sorted columns of the transpose, and the map back to the entries of the original
  const auto A = random_diag_dominant(200, 7, 11, /*symmetric=*/false);
  const auto R = Reference::transpose(A);
  using offsets = Kokkos::View<offset_t*, Dev>;
  using ordinals = Kokkos::View<ordinal_t*, Dev>;
  const offsets rm = to_device<Dev>(std::vector<offset_t>(A.row_ptr.begin(), A.row_ptr.end()));
  const ordinals ent = to_device<Dev>(std::vector<ordinal_t>(A.col_idx.begin(), A.col_idx.end()));
  offsets tp("tp", A.ncols + 1), map("map", A.nnz());
  ordinals tent("tent", A.nnz());
  Impl::transpose_pattern(typename Dev::execution_space(), A.nrows, A.ncols, A.nnz(), rm, ent, tp, tent, map);
  const auto tp_h = to_std_vector(tp);
  const auto tent_h = to_std_vector(tent);
  const auto map_h = to_std_vector(map);
  EXPECT_EQ(std::vector<offset_t>(tp_h.begin(), tp_h.end()), R.row_ptr);
  EXPECT_EQ(std::vector<int>(tent_h.begin(), tent_h.end()), R.col_idx);
  std::vector<double> gathered(map_h.size());
  for (std::size_t p = 0; p < map_h.size(); ++p) gathered[p] = A.values[map_h[p]];
  EXPECT_EQ(gathered, R.values);  // the values are distinct enough that a wrong map shows
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
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(Ld, true, false, TriSolveKind::Jacobi, -2), InvalidInput,
                               "sweeps must be >= 0 (or -1: default), got -2");
  TriangularSolver<double, Dev> fresh;
  V x("x", L.nrows);
  ASYNCSPARSE_EXPECT_THROW_MSG(fresh.solve(x, x), InvalidInput, "setup() must be called first");
  S.setup(Ld, true, false, TriSolveKind::Exact);
  V y("y", 3);
  ASYNCSPARSE_EXPECT_THROW_MSG(S.solve(y, x), InvalidInput, "do not match");
  EXPECT_EQ(tri_solve_kind_from_string("jacobi"), TriSolveKind::Jacobi);
  ASYNCSPARSE_EXPECT_THROW_MSG(tri_solve_kind_from_string("gs"), InvalidInput,
                               "valid: auto, exact, jacobi, jacobi_adaptive, isai");
  for (const auto& name : tri_solve_kind_names()) EXPECT_EQ(to_string(tri_solve_kind_from_string(name)), name);
}

// ---------------------------------------------------------------------------------------------------------------
// Jacobi, adaptive Jacobi and ISAI against host references; the scalings; the auto rule.

// Host Jacobi sweeps in the device kernel's order of operations: x_0 = D^{-1} b, x_{j+1} = D^{-1} (b - N x_j).
std::vector<double> host_jacobi(const CsrHost<double>& T, bool lower, const std::vector<double>& b, int sweeps) {
  const int n = T.nrows;
  std::vector<double> dinv(n), x(n), y(n);
  for (int i = 0; i < n; ++i) dinv[i] = 1.0 / T.values[lower ? T.row_ptr[i + 1] - 1 : T.row_ptr[i]];
  for (int i = 0; i < n; ++i) x[i] = dinv[i] * b[i];
  for (int s = 0; s < sweeps; ++s) {
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      const int beg = lower ? T.row_ptr[i] : T.row_ptr[i] + 1, end = lower ? T.row_ptr[i + 1] - 1 : T.row_ptr[i + 1];
      for (int k = beg; k < end; ++k) sum += T.values[k] * x[T.col_idx[k]];
      y[i] = dinv[i] * (b[i] - sum);
    }
    x = y;
  }
  return x;
}

// Host ISAI by the textbook formulation: per row, the dense block T(J, J), and T(J, J)^T m = e_i by substitution.
CsrHost<double> host_isai(const CsrHost<double>& T, bool lower) {
  CsrHost<double> M = T;
  for (int i = 0; i < T.nrows; ++i) {
    const int beg = T.row_ptr[i], m = T.row_ptr[i + 1] - beg;
    std::vector<double> B(static_cast<std::size_t>(m) * m, 0.0), rhs(m, 0.0);  // B(a, c) = T(J_a, J_c)
    for (int a = 0; a < m; ++a) {
      const int ja = T.col_idx[beg + a];
      for (int k = T.row_ptr[ja]; k < T.row_ptr[ja + 1]; ++k)
        for (int c = 0; c < m; ++c)
          if (T.col_idx[beg + c] == T.col_idx[k]) B[a * m + c] = T.values[k];
    }
    // B^T m = e: lower T -> B^T upper, unknown of column i last; upper T -> B^T lower, i first.
    rhs[lower ? m - 1 : 0] = 1.0;
    std::vector<double> sol(m, 0.0);
    for (int step = 0; step < m; ++step) {
      const int p = lower ? m - 1 - step : step;
      double v = rhs[p];
      for (int q = 0; q < m; ++q)
        if (q != p && (lower ? q > p : q < p)) v -= B[q * m + p] * sol[q];
      sol[p] = v / B[p * m + p];
    }
    for (int a = 0; a < m; ++a) M.values[beg + a] = sol[a];
  }
  return M;
}

// max over (i, j) in the pattern of T of |(M T)(i, j) - delta_ij|.
double isai_pattern_defect(const CsrHost<double>& M, const CsrHost<double>& T) {
  double worst = 0;
  std::vector<double> row(T.ncols, 0.0);
  for (int i = 0; i < T.nrows; ++i) {
    for (int k = M.row_ptr[i]; k < M.row_ptr[i + 1]; ++k) {
      const int j = M.col_idx[k];
      for (int l = T.row_ptr[j]; l < T.row_ptr[j + 1]; ++l) row[T.col_idx[l]] += M.values[k] * T.values[l];
    }
    for (int k = T.row_ptr[i]; k < T.row_ptr[i + 1]; ++k) {
      const int j = T.col_idx[k];
      worst = std::max(worst, std::abs(row[j] - (j == i ? 1.0 : 0.0)));
    }
    std::fill(row.begin(), row.end(), 0.0);
  }
  return worst;
}

std::vector<double> apply_host(const CsrHost<double>& M, const std::vector<double>& b) {
  std::vector<double> y(M.nrows, 0.0);
  for (int i = 0; i < M.nrows; ++i)
    for (int k = M.row_ptr[i]; k < M.row_ptr[i + 1]; ++k) y[i] += M.values[k] * b[M.col_idx[k]];
  return y;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

std::vector<double> solve_opts(const CsrHost<double>& T, bool lower, bool unit, const TriSolveOptions& o,
                               const std::vector<double>& b, TriangularSolver<double, Dev>* keep = nullptr) {
  TriangularSolver<double, Dev> S;
  S.setup(to_device<Dev>(T), lower, unit, o);
  V x("x", T.nrows);
  S.solve(to_device<Dev>(b), x);
  if (keep) *keep = S;
  return to_std_vector(x);
}

// Isai on T's own pattern (isai_power 1; the extended patterns of the rule: TestIsaiPower.hpp), its product in the
// working precision (single-precision values: TestIsaiPower.hpp).
TriSolveOptions opts(TriSolveKind k, int sweeps = -1) {
  TriSolveOptions o;
  o.kind = k;
  o.sweeps = sweeps;
  o.isai_power = 1;
  o.isai_precision = IsaiPrecision::Working;
  return o;
}

// Lower bidiagonal: diagonal d_i = 2 + i / 10, subdiagonal l_i = sub (row i >= 1).
CsrHost<double> bidiagonal(int n, double sub, double diag_scale = 1.0) {
  std::vector<int> r, c;
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    if (i > 0) {
      r.push_back(i), c.push_back(i - 1), v.push_back(sub);
    }
    r.push_back(i), c.push_back(i), v.push_back(diag_scale * (2.0 + 0.1 * i));
  }
  return csr_from_triplets(n, n, r, c, v);
}

TEST(TEST_CATEGORY, trisolve_jacobi_matches_host_sweeps) {
  const auto A = lap2d(10);
  const auto L = Reference::ic0(A);
  const auto U = Reference::transpose(L);
  const auto N = Reference::ilu0(random_diag_dominant(120, 6, 5, /*symmetric=*/false));
  const auto b = rhs(A.nrows), bn = rhs(120);
  for (int k : {0, 1, 2, 3, 4, 7}) {
    TriangularSolver<double, Dev> S;
    const auto xl = solve_opts(L, true, false, opts(TriSolveKind::Jacobi, k), b, &S);
    EXPECT_LT(max_diff(xl, host_jacobi(L, true, b, k)), 1e-14 * max_abs(xl)) << k << " sweeps";
    EXPECT_EQ(S.stats().last_sweeps, k);
    EXPECT_EQ(S.stats().total_sweeps, k);
    EXPECT_EQ(S.stats().mode(), "jacobi(" + std::to_string(k) + ")");
    const auto xu = solve_opts(U, false, false, opts(TriSolveKind::Jacobi, k), b);
    EXPECT_LT(max_diff(xu, host_jacobi(U, false, b, k)), 1e-14 * max_abs(xu)) << k << " sweeps";
    const auto xnu = solve_opts(N.U, false, false, opts(TriSolveKind::Jacobi, k), bn);
    EXPECT_LT(max_diff(xnu, host_jacobi(N.U, false, bn, k)), 1e-14 * max_abs(xnu)) << k << " sweeps";
  }
  // the default sweep count of "jacobi"
  TriangularSolver<double, Dev> S;
  solve_opts(L, true, false, opts(TriSolveKind::Jacobi), b, &S);
  EXPECT_EQ(S.jacobi_sweeps(), kDefaultJacobiSweeps);
}

TEST(TEST_CATEGORY, trisolve_jacobi_adaptive_stops_on_tolerance_growth_and_limit) {
  const auto A = lap2d(10);
  const auto L = Reference::ic0(A);
  const auto b = rhs(A.nrows);
  const auto exact = Reference::lower_solve(L, b, false);
  // tolerance: stops early, near the exact solution
  TriSolveOptions o = opts(TriSolveKind::JacobiAdaptive, 200);
  o.tolerance = 1e-10;
  TriangularSolver<double, Dev> S;
  auto x = solve_opts(L, true, false, o, b, &S);
  const auto& st = S.stats();
  EXPECT_GT(st.last_sweeps, 1);
  EXPECT_LT(st.last_sweeps, 200);
  EXPECT_EQ(st.checks, st.last_sweeps);  // sweep 1 and every later sweep check (interval 1)
  EXPECT_LE(st.last_relative_residual, 1e-10);
  EXPECT_LT(max_diff(x, exact), 1e-8 * max_abs(exact));
  // the same sweeps as the fixed mode: the result equals Jacobi with that many sweeps
  EXPECT_LT(max_diff(x, host_jacobi(L, true, b, st.last_sweeps)), 1e-14 * max_abs(x));
  // growth: a bidiagonal with |l / d| > 1 makes the Jacobi residual grow before it vanishes; the second check sees
  // it (residual of x_1 about 1.5 times that of x_0) and stops
  const auto G = bidiagonal(30, -3.0, 1.0);
  const auto bg = rhs(30);
  TriangularSolver<double, Dev> SG;
  o.stagnation = 0.9;
  auto xg = solve_opts(G, true, false, o, bg, &SG);
  EXPECT_EQ(SG.stats().last_sweeps, 2);
  EXPECT_GT(SG.stats().last_relative_residual, 1.0);
  EXPECT_LT(max_diff(xg, host_jacobi(G, true, bg, 2)), 1e-14 * max_abs(xg));
  // limit and interval: no stop criterion can fire; 10 sweeps, checks after sweeps 1, 5 and 9
  TriSolveOptions lim = opts(TriSolveKind::JacobiAdaptive, 10);
  lim.tolerance = 1e-300;
  lim.stagnation = 1e300;
  lim.check_interval = 4;
  TriangularSolver<double, Dev> SL;
  auto xl = solve_opts(L, true, false, lim, b, &SL);
  EXPECT_EQ(SL.stats().last_sweeps, 10);
  EXPECT_EQ(SL.stats().checks, 3);
  EXPECT_LT(max_diff(xl, host_jacobi(L, true, b, 10)), 1e-14 * max_abs(xl));
  // odd count: the last sweep lands in x without a copy, and the answer is the same
  lim.sweeps = 9;
  auto x9 = solve_opts(L, true, false, lim, b);
  EXPECT_LT(max_diff(x9, host_jacobi(L, true, b, 9)), 1e-14 * max_abs(x9));
  // a zero right-hand side: stops after the first sweep with x = 0
  TriangularSolver<double, Dev> SZ;
  auto x0 = solve_opts(L, true, false, o, std::vector<double>(A.nrows, 0.0), &SZ);
  EXPECT_EQ(max_abs(x0), 0.0);
  EXPECT_EQ(SZ.stats().last_sweeps, 1);
}

TEST(TEST_CATEGORY, isai_known_inverses) {
  // diagonal: M = D^{-1}
  {
    std::vector<int> r, c;
    std::vector<double> v;
    for (int i = 0; i < 20; ++i) r.push_back(i), c.push_back(i), v.push_back(1.0 + i);
    const auto D = csr_from_triplets(20, 20, r, c, v);
    for (bool lower : {true, false}) {
      TriangularSolver<double, Dev> S;
      const auto x = solve_opts(D, lower, false, opts(TriSolveKind::Isai), rhs(20), &S);
      const auto M = to_host(S.isai_matrix());
      for (int i = 0; i < 20; ++i) EXPECT_DOUBLE_EQ(M.values[i], 1.0 / (1.0 + i));
      EXPECT_LT(max_diff(x, Reference::lower_solve(D, rhs(20), false)), 1e-15);
    }
  }
  // lower bidiagonal: the inverse is dense; on the pattern M(i,i) = 1/d_i, M(i,i-1) = -l_i / (d_i d_{i-1})
  {
    const auto B = bidiagonal(40, 0.7);
    TriangularSolver<double, Dev> S;
    const auto x = solve_opts(B, true, false, opts(TriSolveKind::Isai), rhs(40), &S);
    const auto M = to_host(S.isai_matrix());
    for (int i = 0; i < 40; ++i) {
      const double di = 2.0 + 0.1 * i;
      const int p = M.row_ptr[i + 1] - 1;
      EXPECT_NEAR(M.values[p], 1.0 / di, 1e-15);
      if (i > 0) EXPECT_NEAR(M.values[p - 1], -0.7 / (di * (2.0 + 0.1 * (i - 1))), 1e-15);
    }
    EXPECT_LT(max_diff(x, apply_host(M, rhs(40))), 1e-15);
    EXPECT_GT(max_diff(x, Reference::lower_solve(B, rhs(40), false)), 1e-3);  // an approximation, not T^{-1}
  }
  // "arrow" triangles (first column + diagonal, and its transpose with a dense first row longer than the rows the GPU
  // form stages in scratch): the inverse has the triangle's pattern, so ISAI is the exact inverse
  {
    const int n = Impl::kIsaiScratchEntries + 30;
    std::vector<int> r, c;
    std::vector<double> v;
    for (int i = 0; i < n; ++i) {
      if (i > 0) r.push_back(i), c.push_back(0), v.push_back(0.3 + 0.01 * i);
      r.push_back(i), c.push_back(i), v.push_back(1.5 + 0.02 * i);
    }
    const auto Lw = csr_from_triplets(n, n, r, c, v);
    const auto Uw = Reference::transpose(Lw);
    const auto b = rhs(n);
    EXPECT_LT(max_diff(solve_opts(Lw, true, false, opts(TriSolveKind::Isai), b), Reference::lower_solve(Lw, b, false)),
              1e-14);
    EXPECT_LT(max_diff(solve_opts(Uw, false, false, opts(TriSolveKind::Isai), b), Reference::upper_solve(Uw, b)),
              1e-14);
  }
}

TEST(TEST_CATEGORY, isai_matches_host_and_is_the_inverse_on_the_pattern) {
  const auto L = Reference::ic0(lap2d(9));
  const auto U = Reference::transpose(L);
  const auto F = Reference::ilu0(random_diag_dominant(150, 8, 7, /*symmetric=*/false));
  auto Lunit = F.L;  // unit solve: the stored diagonal is ignored
  for (int i = 0; i < Lunit.nrows; ++i) Lunit.values[Lunit.row_ptr[i + 1] - 1] = 5.0;
  struct Case {
    const CsrHost<double>* T;
    bool lower, unit;
    const CsrHost<double>* ref;  // the triangle the solver works on
  };
  for (const Case& c : {Case{&L, true, false, &L}, Case{&U, false, false, &U}, Case{&F.U, false, false, &F.U},
                        Case{&Lunit, true, true, &F.L}}) {
    TriangularSolver<double, Dev> S;
    const auto b = rhs(c.T->nrows);
    const auto x = solve_opts(*c.T, c.lower, c.unit, opts(TriSolveKind::Isai), b, &S);
    const auto M = to_host(S.isai_matrix());
    const auto H = host_isai(*c.ref, c.lower);
    EXPECT_LT(max_diff(M.values, H.values), 1e-13 * max_abs(H.values));
    EXPECT_LT(isai_pattern_defect(M, *c.ref), 1e-13);
    EXPECT_LT(max_diff(x, apply_host(H, b)), 1e-13 * max_abs(x));
    EXPECT_EQ(S.stats().mode(), "isai");
  }
}

TEST(TEST_CATEGORY, isai_solve_dot_fuses_the_dot_product_on_gpus) {
  // solve_dot: x = M b as solve() computes it and s(slot) = dᵀx in the same product, where the product takes one
  // thread per row (GPUs, short rows); elsewhere it declines and leaves x alone (the preconditioners' apply_dot:
  // TestKrylov).
  const bool gpu = Impl::is_gpu_space<typename Dev::execution_space>();
  const auto U = Reference::transpose(Reference::ic0(lap2d(40)));
  const int n = U.nrows;
  TriangularSolver<double, Dev> S;
  const auto b = rhs(n);
  const auto x_solve = solve_opts(U, false, false, opts(TriSolveKind::Isai), b, &S);
  EXPECT_EQ(S.fuses_dot(), gpu);
  std::vector<double> dv(n);
  for (int i = 0; i < n; ++i) dv[i] = std::sin(0.7 * i);
  const V bd = to_device<Dev>(b), d = to_device<Dev>(dv), x("x", n), s("s", 3);
  Kokkos::deep_copy(x, -1.0);
  ASSERT_EQ(S.solve_dot(bd, x, d, s, 2), gpu);
  const auto xo = to_std_vector(x);
  if (gpu) {
    EXPECT_EQ(xo, x_solve);  // the same product, row by row
    double dx = 0;
    for (int i = 0; i < n; ++i) dx += dv[i] * xo[i];
    EXPECT_NEAR(to_std_vector(s)[2], dx, 1e-12 * std::abs(dx));
    EXPECT_THROW(S.solve_dot(bd, x, d, s, 3), InvalidInput);              // slot outside s
    EXPECT_THROW(S.solve_dot(x, x, d, s, 0), InvalidInput);               // b and x alias
    EXPECT_THROW(S.solve_dot(bd, x, V("d", n - 1), s, 0), InvalidInput);  // wrong length
  } else {
    EXPECT_EQ(xo, std::vector<double>(n, -1.0));
  }
  // correction steps and the other modes never fuse
  TriangularSolver<double, Dev> S2;
  solve_opts(U, false, false, opts(TriSolveKind::Isai, 1), b, &S2);
  EXPECT_FALSE(S2.fuses_dot());
  EXPECT_FALSE(S2.solve_dot(bd, x, d, s, 0));
  TriangularSolver<double, Dev> S3;
  solve_opts(U, false, false, opts(TriSolveKind::Exact), b, &S3);
  EXPECT_FALSE(S3.fuses_dot());  // Jacobi: TestTriSolveDot.hpp
}

TEST(TEST_CATEGORY, isai_correction_steps_converge_to_the_exact_solve) {
  // M T has T's triangle and a unit diagonal, so I - M T is nilpotent: n correction steps are exact
  const auto L = Reference::ic0(lap2d(5));
  const auto b = rhs(L.nrows);
  const auto exact = Reference::lower_solve(L, b, false);
  double prev = max_diff(solve_opts(L, true, false, opts(TriSolveKind::Isai, 0), b), exact);
  for (int s : {1, 2, 4}) {
    const double e = max_diff(solve_opts(L, true, false, opts(TriSolveKind::Isai, s), b), exact);
    EXPECT_LT(e, prev) << s << " steps";
    prev = e;
  }
  EXPECT_LT(max_diff(solve_opts(L, true, false, opts(TriSolveKind::Isai, L.nrows), b), exact), 1e-12);
  TriangularSolver<double, Dev> S;
  solve_opts(L, true, false, opts(TriSolveKind::Isai, 2), b, &S);
  EXPECT_EQ(S.stats().mode(), "isai+2");
}

TEST(TEST_CATEGORY, trisolve_scalings_are_folded_into_every_mode) {
  // (R T C) x = b for lower T with a row scaling, upper T with a column scaling, and a unit lower T
  const auto F = Reference::ilu0(random_diag_dominant(80, 6, 11, /*symmetric=*/false));
  const int n = F.L.nrows;
  std::vector<double> r(n), c(n);
  for (int i = 0; i < n; ++i) r[i] = 0.5 + 0.01 * i, c[i] = 2.0 - 0.015 * i;
  auto scaled = [&](CsrHost<double> T, bool lower, bool unit, bool use_r, bool use_c) {
    for (int i = 0; i < n; ++i)
      for (int k = T.row_ptr[i]; k < T.row_ptr[i + 1]; ++k) {
        const int j = T.col_idx[k];
        const double v = unit && j == i ? 1.0 : T.values[k];
        T.values[k] = (use_r ? r[i] : 1.0) * v * (use_c ? c[j] : 1.0);
      }
    (void)lower;
    return T;
  };
  const auto b = rhs(n);
  const auto rd = to_device<Dev>(r), cd = to_device<Dev>(c);
  struct Case {
    const CsrHost<double>* T;
    bool lower, unit, use_r, use_c;
  };
  for (const Case& k : {Case{&F.L, true, true, true, false}, Case{&F.U, false, false, false, true},
                        Case{&F.U, false, false, true, true}}) {
    const auto Ts = scaled(*k.T, k.lower, k.unit, k.use_r, k.use_c);
    const auto exact = k.lower ? Reference::lower_solve(Ts, b, false) : Reference::upper_solve(Ts, b);
    for (auto kind : {TriSolveKind::Exact, TriSolveKind::Jacobi, TriSolveKind::Isai}) {
      TriangularSolver<double, Dev> S;
      S.setup(to_device<Dev>(*k.T), k.lower, k.unit, opts(kind, n), k.use_r ? V(rd) : V(), k.use_c ? V(cd) : V());
      V x("x", n);
      S.solve(to_device<Dev>(b), x);
      EXPECT_LT(max_diff(to_std_vector(x), exact), 1e-11 * max_abs(exact)) << to_string(kind);
    }
  }
  // update_values with new scalings
  TriangularSolver<double, Dev> S;
  auto Ud = to_device<Dev>(F.U);
  S.setup(Ud, false, false, opts(TriSolveKind::Isai, n));
  S.update_values(Ud, V(), V(cd));
  V x("x", n);
  S.solve(to_device<Dev>(b), x);
  const auto Us = scaled(F.U, false, false, false, true);
  EXPECT_LT(max_diff(to_std_vector(x), Reference::upper_solve(Us, b)), 1e-11 * max_abs(to_std_vector(x)));
  ASYNCSPARSE_EXPECT_THROW_MSG(S.update_values(Ud, V(), V("short", 3)), InvalidInput,
                               "scaling vector length does not match the matrix (80)");
}

TEST(TEST_CATEGORY, trisolve_auto_rule) {
  TriSolveRuleInputs host;
  host.n = 1 << 20;
  host.nnz = 3 << 20;
  host.concurrency = 2;
  auto c = choose_tri_solve(host);
  EXPECT_EQ(c.kind, TriSolveKind::Exact);
  EXPECT_NE(c.reason.find("host"), std::string::npos);
  TriSolveRuleInputs gpu = host;
  gpu.gpu = true;
  gpu.cusparse = true;
  c = choose_tri_solve(gpu);  // a large triangle with short rows: ISAI, no probe
  EXPECT_FALSE(tri_solve_rule_probes_jacobi(true, gpu.n, gpu.nnz));
  EXPECT_EQ(c.kind, TriSolveKind::Isai);
  EXPECT_EQ(c.sweeps, kGpuAutoIsaiCorrectionSteps);
  EXPECT_NE(c.reason.find("3.0 entries/row"), std::string::npos) << c.reason;
  TriSolveRuleInputs small = gpu;  // a small triangle: Jacobi sweeps while the probe is low
  small.n = 20000;
  small.nnz = 80000;
  EXPECT_TRUE(tri_solve_rule_probes_jacobi(true, small.n, small.nnz));
  EXPECT_FALSE(tri_solve_rule_probes_jacobi(false, small.n, small.nnz));
  small.jacobi_probe = 0.2;
  c = choose_tri_solve(small);
  EXPECT_EQ(c.kind, TriSolveKind::Jacobi);
  EXPECT_EQ(c.sweeps, kDefaultJacobiSweeps);
  EXPECT_NE(c.reason.find("small triangle"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("probe 0.2"), std::string::npos) << c.reason;
  small.jacobi_probe = 0.6;  // the sweeps leave most of the residual: exact
  c = choose_tri_solve(small);
  EXPECT_EQ(c.kind, TriSolveKind::Exact);
  EXPECT_NE(c.reason.find("cuSPARSE"), std::string::npos) << c.reason;
  small.jacobi_probe = std::numeric_limits<double>::quiet_NaN();  // zero diagonal: exact (whose checks report it)
  EXPECT_EQ(choose_tri_solve(small).kind, TriSolveKind::Exact);
  small.jacobi_probe = -1;  // not measured: Jacobi, the default sweeps
  EXPECT_EQ(choose_tri_solve(small).kind, TriSolveKind::Jacobi);
  EXPECT_EQ(choose_tri_solve(small).sweeps, kDefaultJacobiSweeps);
  small.jacobi_probe = kGpuJacobiOneSweepProbeMax;  // the sweeps leave almost nothing: one
  c = choose_tri_solve(small);
  EXPECT_EQ(c.kind, TriSolveKind::Jacobi);
  EXPECT_EQ(c.sweeps, 1);
  EXPECT_NE(c.reason.find("converge fast -> jacobi(1)"), std::string::npos) << c.reason;
  gpu.nnz = 40 * gpu.n;  // long rows: Jacobi
  gpu.jacobi_probe = 0.1;
  c = choose_tri_solve(gpu);
  EXPECT_EQ(c.kind, TriSolveKind::Jacobi);
  EXPECT_EQ(c.sweeps, kDefaultJacobiSweeps);
  EXPECT_NE(c.reason.find("long rows"), std::string::npos) << c.reason;
  // a solver with Auto resolves the rule on this backend and says why
  const auto L = Reference::ic0(lap2d(7));
  auto Ld = to_device<Dev>(L);
  TriangularSolver<double, Dev> S;
  const auto b = rhs(L.nrows);
  const auto x = solve_opts(L, true, false, opts(TriSolveKind::Auto), b, &S);
  const auto in = tri_solve_rule_inputs<typename Dev::execution_space>(Ld, true);
  const auto expect = choose_tri_solve(in);
  EXPECT_EQ(S.kind(), expect.kind);
  EXPECT_EQ(S.stats().reason, expect.reason);
  EXPECT_NE(S.kind(), TriSolveKind::Auto);
  if (!in.gpu) {
    EXPECT_EQ(in.jacobi_probe, -1);  // not run on host backends
    EXPECT_EQ(S.stats().exact_algorithm, ExactAlgorithm::Serial);
    EXPECT_LT(max_diff(x, Reference::lower_solve(L, b, false)), 1e-12);
  } else {
    EXPECT_GT(in.jacobi_probe, 0.0);  // small: probed
    EXPECT_EQ(S.stats().jacobi_probe, in.jacobi_probe);
  }
}

TEST(TEST_CATEGORY, trisolve_jacobi_probe) {
  using Exec = typename Dev::execution_space;
  // the probe against a host computation: ||1 - T x_k|| / ||1|| after k sweeps from x_0 = D^-1 1
  auto host_probe = [](const CsrHost<double>& T, bool lower, bool unit, int k) {
    const auto n = static_cast<std::size_t>(T.nrows);
    std::vector<double> d(n), x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = unit ? 1.0 : T.values[lower ? T.row_ptr[i + 1] - 1 : T.row_ptr[i]];
    for (std::size_t i = 0; i < n; ++i) x[i] = 1.0 / d[i];
    for (int s = 0; s <= k; ++s) {
      double rr = 0;
      for (std::size_t i = 0; i < n; ++i) {
        double off = 0;
        for (auto p = T.row_ptr[i]; p < T.row_ptr[i + 1]; ++p)
          if (static_cast<std::size_t>(T.col_idx[p]) != i) off += T.values[p] * x[T.col_idx[p]];
        const double r = 1.0 - off - d[i] * x[i];
        rr += r * r;
        y[i] = (1.0 - off) / d[i];
      }
      if (s == k) return std::sqrt(rr / static_cast<double>(n));
      x.swap(y);
    }
    return 0.0;
  };
  const auto L = Reference::ic0(lap2d(9));
  const auto U = Reference::transpose(L);
  const auto Ld = to_device<Dev>(L), Ud = to_device<Dev>(U);
  for (int k : {0, 1, 3, 4}) {
    const double pl = Impl::jacobi_probe<Exec>(Ld.graph.row_map, Ld.graph.entries, Ld.values, L.nrows, true, false, k);
    const double pu = Impl::jacobi_probe<Exec>(Ud.graph.row_map, Ud.graph.entries, Ud.values, U.nrows, false, false, k);
    EXPECT_NEAR(pl, host_probe(L, true, false, k), 1e-12) << k;
    EXPECT_NEAR(pu, host_probe(U, false, false, k), 1e-12) << k;
    const double pn = Impl::jacobi_probe<Exec>(Ld.graph.row_map, Ld.graph.entries, Ld.values, L.nrows, true, true, k);
    EXPECT_NEAR(pn, host_probe(L, true, true, k), 1e-12) << k;
  }
  // the 2D Laplacian's IC(0) factor is diagonally dominant: the probe falls with the sweeps, below the rule's bound
  const double p3 = Impl::jacobi_probe<Exec>(Ld.graph.row_map, Ld.graph.entries, Ld.values, L.nrows, true, false, 3);
  EXPECT_LT(p3, Impl::jacobi_probe<Exec>(Ld.graph.row_map, Ld.graph.entries, Ld.values, L.nrows, true, false, 1));
  EXPECT_LT(p3, kGpuJacobiProbeMax);
  // a zero diagonal: NaN (the rule then picks the exact solve, whose checks report the row)
  auto Z = L;
  Z.values[Z.row_ptr[4] - 1] = 0.0;  // diagonal of row 3 (stored last)
  const auto Zd = to_device<Dev>(Z);
  const double pz = Impl::jacobi_probe<Exec>(Zd.graph.row_map, Zd.graph.entries, Zd.values, Z.nrows, true, false, 3);
  EXPECT_TRUE(std::isnan(pz)) << pz;
}

TEST(TEST_CATEGORY, trisolve_bad_options_and_isai_overflow) {
  const auto L = Reference::ic0(lap2d(4));
  auto Ld = to_device<Dev>(L);
  TriangularSolver<double, Dev> S;
  TriSolveOptions o = opts(TriSolveKind::JacobiAdaptive, 0);
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(Ld, true, false, o), InvalidInput, "jacobi_adaptive needs sweeps >= 1");
  o.sweeps = 5;
  o.tolerance = 0;
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(Ld, true, false, o), InvalidInput, "tolerance must be > 0");
  o.tolerance = 1e-3;
  o.stagnation = -1;
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(Ld, true, false, o), InvalidInput, "stagnation must be > 0");
  o.stagnation = 0.5;
  o.check_interval = 0;
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(Ld, true, false, o), InvalidInput, "check_interval must be >= 1");
  if (!cusparse_spsv_supports<double, Dev>()) {
    TriSolveOptions e = opts(TriSolveKind::Exact);
    e.exact_algorithm = ExactAlgorithm::Cusparse;
    ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(Ld, true, false, e), InvalidInput, "exact algorithm 'cusparse' needs");
  }
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(Ld, true, false, opts(TriSolveKind::Exact), V("r", 2)), InvalidInput,
                               "scaling vector length does not match");
  // ISAI overflow: tiny diagonals make -l / (d_i d_{i-1}) overflow in row 1
  const auto B = bidiagonal(5, 1.0, 1e-200);
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(B), true, false, opts(TriSolveKind::Isai)), BreakdownError,
                               "breakdown at row 1: non-finite ISAI row");
  // the value checks hold for every mode
  auto Z = L;
  Z.values[Z.row_ptr[4] - 1] = 0.0;
  for (auto kind : {TriSolveKind::Jacobi, TriSolveKind::JacobiAdaptive, TriSolveKind::Isai, TriSolveKind::Auto})
    ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(Z), true, false, opts(kind)), BreakdownError,
                                 "breakdown at row 3: zero diagonal");
  auto N = L;
  N.values[L.row_ptr[6]] = std::numeric_limits<double>::quiet_NaN();
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(N), true, false, opts(TriSolveKind::Isai)), InvalidInput,
                               "non-finite off-diagonal value in row 6");
  // update_values repeats the checks
  S.setup(Ld, true, false, opts(TriSolveKind::Isai));
  ASYNCSPARSE_EXPECT_THROW_MSG(S.update_values(to_device<Dev>(Z)), BreakdownError, "breakdown at row 3");
}

}  // namespace test_trisolve
