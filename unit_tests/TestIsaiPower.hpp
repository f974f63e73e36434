// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ISAI on the pattern of |T|^k (TriSolveOptions::isai_power, the preconditioners' tri_solve_isai_power):
// Impl::isai_pattern_power, Impl::isai_compute on a pattern of its own, known inverses, bad input.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/solvers/AsyncSparse_cg.hpp>
#include <support/TestHelpers.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace test_isai_power {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using V = Kokkos::View<double*, Dev>;

/// ISAI on the pattern of |T|^power, its product in the working precision (the tests compare it to M's values;
/// single-precision values: isai_single_precision_values).
TriSolveOptions isai(int power) {
  TriSolveOptions o;
  o.kind = TriSolveKind::Isai;
  o.isai_power = power;
  o.isai_precision = IsaiPrecision::Working;
  return o;
}

/// The pattern of |T|^k on the host: row i the union of the rows of T^(k-1)'s pattern's columns' rows of T.
std::vector<std::set<int>> host_power_pattern(const CsrHost<double>& T, int k) {
  std::vector<std::set<int>> P(T.nrows);
  for (int i = 0; i < T.nrows; ++i)
    for (int p = T.row_ptr[i]; p < T.row_ptr[i + 1]; ++p) P[i].insert(T.col_idx[p]);
  for (int step = 2; step <= k; ++step) {
    std::vector<std::set<int>> Q(T.nrows);
    for (int i = 0; i < T.nrows; ++i)
      for (int j : P[i])
        for (int p = T.row_ptr[j]; p < T.row_ptr[j + 1]; ++p) Q[i].insert(T.col_idx[p]);
    P = Q;
  }
  return P;
}

/// max over (i, j) in the pattern of M of |(M T)(i, j) - delta_ij|: the ISAI conditions on M's own pattern.
double defect_on_own_pattern(const CsrHost<double>& M, const CsrHost<double>& T) {
  double worst = 0;
  std::vector<double> row(T.ncols, 0.0);
  for (int i = 0; i < M.nrows; ++i) {
    for (int k = M.row_ptr[i]; k < M.row_ptr[i + 1]; ++k) {
      const int j = M.col_idx[k];
      for (int l = T.row_ptr[j]; l < T.row_ptr[j + 1]; ++l) row[T.col_idx[l]] += M.values[k] * T.values[l];
    }
    for (int k = M.row_ptr[i]; k < M.row_ptr[i + 1]; ++k) {
      const int j = M.col_idx[k];
      worst = std::max(worst, std::abs(row[j] - (j == i ? 1.0 : 0.0)));
    }
    std::fill(row.begin(), row.end(), 0.0);
  }
  return worst;
}

/// ||b - T M b||_2 / ||b||_2 for b = ones: how well M inverts T.
double apply_defect(const CsrHost<double>& M, const CsrHost<double>& T) {
  const int n = T.nrows;
  std::vector<double> y(n, 0.0), r(n, 1.0);
  for (int i = 0; i < n; ++i)
    for (int k = M.row_ptr[i]; k < M.row_ptr[i + 1]; ++k) y[i] += M.values[k];
  double rr = 0;
  for (int i = 0; i < n; ++i) {
    for (int k = T.row_ptr[i]; k < T.row_ptr[i + 1]; ++k) r[i] -= T.values[k] * y[T.col_idx[k]];
    rr += r[i] * r[i];
  }
  return std::sqrt(rr / n);
}

TEST(TEST_CATEGORY, isai_power_pattern_and_conditions) {
  // IC(0) of the 5-point Laplacian and its transpose: M's pattern is that of |T|^k, the ISAI conditions hold on it,
  // and a larger pattern inverts T better
  const auto L = Reference::ic0(lap2d(16));
  const auto U = Reference::transpose(L);
  for (const bool lower : {true, false}) {
    const auto& T = lower ? L : U;
    double previous = 1e300;
    for (int k = 1; k <= kMaxIsaiPower; ++k) {
      SCOPED_TRACE(std::string(lower ? "lower" : "upper") + " power " + std::to_string(k));
      TriangularSolver<double, Dev> S;
      S.setup(to_device<Dev>(T), lower, false, isai(k));
      EXPECT_EQ(S.stats().isai_power, k);
      EXPECT_EQ(S.stats().mode(), k == 1 ? std::string("isai") : "isai^" + std::to_string(k));
      const auto M = to_host(S.isai_matrix());
      const auto P = host_power_pattern(T, k);
      ASSERT_EQ(M.nrows, T.nrows);
      EXPECT_EQ(S.stats().isai_nnz, static_cast<std::int64_t>(M.col_idx.size()));
      for (int i = 0; i < M.nrows; ++i) {
        const std::vector<int> cols(M.col_idx.begin() + M.row_ptr[i], M.col_idx.begin() + M.row_ptr[i + 1]);
        ASSERT_EQ(cols, std::vector<int>(P[i].begin(), P[i].end())) << "row " << i;  // sorted, no duplicates
      }
      EXPECT_LT(defect_on_own_pattern(M, T), 1e-12);
      const double d = apply_defect(M, T);
      EXPECT_LT(d, previous);
      previous = d;
      // the solve is the product with M
      V b("b", T.nrows), x("x", T.nrows);
      Kokkos::deep_copy(b, 1.0);
      S.solve(b, x);
      std::vector<double> y(T.nrows, 0.0);
      for (int i = 0; i < M.nrows; ++i)
        for (int p = M.row_ptr[i]; p < M.row_ptr[i + 1]; ++p) y[i] += M.values[p];
      const auto xs = to_std_vector(x);
      for (int i = 0; i < T.nrows; ++i) EXPECT_NEAR(xs[i], y[i], 1e-13 * std::abs(y[i]) + 1e-15) << i;
    }
  }
}

TEST(TEST_CATEGORY, isai_power_rule) {
  // 0 (the default): 2 for triangles of at most kIsaiPower2MaxAvgNnz entries per row on average, else 1
  EXPECT_EQ(TriSolveOptions().isai_power, 0);
  EXPECT_EQ(isai_power_rule(1000, 3000), 2);
  EXPECT_EQ(isai_power_rule(1000, 4000), 2);
  EXPECT_EQ(isai_power_rule(1000, 4001), 1);
  EXPECT_EQ(isai_power_rule(0, 0), 1);
  const auto L2 = Reference::ic0(lap2d(10));   // 3 per row (fewer at the edges)
  const auto L3 = Reference::ic0(lap3d27(5));  // 14 per row in the interior
  for (const auto* T : {&L2, &L3}) {
    TriangularSolver<double, Dev> S;
    S.setup(to_device<Dev>(*T), true, false, isai(0));
    EXPECT_EQ(S.stats().isai_power, T == &L2 ? 2 : 1);
    EXPECT_EQ(S.stats().isai_power, isai_power_rule(T->nrows, static_cast<std::int64_t>(T->col_idx.size())));
  }
  TriangularSolver<double, Dev> J;  // other modes: 1 (unused)
  TriSolveOptions o;
  o.kind = TriSolveKind::Jacobi;
  J.setup(to_device<Dev>(L2), true, false, o);
  EXPECT_EQ(J.stats().isai_power, 1);
}

TEST(TEST_CATEGORY, isai_lanes_rule) {
  // GPU set-up lanes per row: the largest power of two up to half the average off-diagonal count, doubled while
  // n x lanes is below half the device's threads, at most 32 (the matrices of MEASUREMENTS.md on an H200's 270,336)
  const std::int64_t h200 = 132 * 2048;
  EXPECT_EQ(Impl::isai_lanes(262144, 12.6, h200), 4);   // L3D
  EXPECT_EQ(Impl::isai_lanes(1048576, 2.0, h200), 1);   // L2D
  EXPECT_EQ(Impl::isai_lanes(4884, 29.2, h200), 32);    // bcsstk16
  EXPECT_EQ(Impl::isai_lanes(19366, 3.0, h200), 8);     // bodyy6
  EXPECT_EQ(Impl::isai_lanes(9604, 3.9, h200), 16);     // fv1
  EXPECT_EQ(Impl::isai_lanes(1000000, 7.99, h200), 2);  // 4 lanes from 8 off-diagonal entries on
  EXPECT_EQ(Impl::isai_lanes(1000000, 8.0, h200), 4);
  EXPECT_EQ(Impl::isai_lanes(1000000, 1000.0, h200), 32);
  EXPECT_EQ(Impl::isai_lanes(0, 0.0, h200), 32);
  EXPECT_EQ(Impl::isai_lanes(1000000, 0.0, 1), 1);
}

TEST(TEST_CATEGORY, isai_power_known_inverse_of_a_bidiagonal) {
  // lower bidiagonal T (d_i = 2 + i/10, subdiagonal 0.7): on the pattern {i-k+1, ..., i} the ISAI is T^{-1}
  // itself, T^{-1}(i, i-m) = (-0.7)^m / (d_i d_{i-1} ... d_{i-m})
  const int n = 30;
  std::vector<int> r, c;
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    if (i > 0) r.push_back(i), c.push_back(i - 1), v.push_back(0.7);
    r.push_back(i), c.push_back(i), v.push_back(2.0 + 0.1 * i);
  }
  const auto B = csr_from_triplets(n, n, r, c, v);
  const auto d = [](int i) { return 2.0 + 0.1 * i; };
  for (int k : {2, 3}) {
    TriangularSolver<double, Dev> S;
    S.setup(to_device<Dev>(B), true, false, isai(k));
    const auto M = to_host(S.isai_matrix());
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(M.row_ptr[i + 1] - M.row_ptr[i], std::min(i, k) + 1) << "row " << i;
      for (int p = M.row_ptr[i]; p < M.row_ptr[i + 1]; ++p) {
        const int m = i - M.col_idx[p];
        double expect = std::pow(-0.7, m);
        for (int q = 0; q <= m; ++q) expect /= d(i - q);
        EXPECT_NEAR(M.values[p], expect, 1e-15) << i << " " << M.col_idx[p];
      }
    }
  }
}

TEST(TEST_CATEGORY, isai_power_update_values_and_bad_input) {
  const auto L = Reference::ic0(lap2d(12));
  TriangularSolver<double, Dev> S;
  S.setup(to_device<Dev>(L), true, false, isai(2));
  // new values on the same pattern: M recomputed on the kept extended pattern, as a fresh setup gives it
  auto L2 = L;
  for (auto& x : L2.values) x *= 1.5;
  const auto L2d = to_device<Dev>(L2);
  S.update_values(L2d);
  TriangularSolver<double, Dev> F;
  F.setup(L2d, true, false, isai(2));
  EXPECT_EQ(to_host(S.isai_matrix()).values, to_host(F.isai_matrix()).values);
  EXPECT_EQ(to_host(S.isai_matrix()).col_idx, to_host(F.isai_matrix()).col_idx);

  // the power out of range
  for (int k : {-1, kMaxIsaiPower + 1}) {
    TriangularSolver<double, Dev> T;
    ASYNCSPARSE_EXPECT_THROW_MSG(T.setup(to_device<Dev>(L), true, false, isai(k)), InvalidInput,
                                 "isai_power must be between 0 (the rule) and 3, got " + std::to_string(k));
  }
  const auto A = to_device<Dev>(lap2d(8));
  ASYNCSPARSE_EXPECT_THROW_MSG(
      (make_preconditioner<double, Dev>("par_ic", A, parse_parameter_string("tri_solve=isai,tri_solve_isai_power=4"))),
      InvalidInput, "parameter 'tri_solve_isai_power' must be between 0 (the rule) and 3, got 4");
  // rows too long to extend keep their pattern: an "arrow" lower triangle (first column and diagonal) whose last
  // rows get a dense stretch of 70 entries; few entries per row on average, so the rule (0) extends the others
  const int n = 200;
  std::vector<int> r, c;
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    if (i > 0) r.push_back(i), c.push_back(0), v.push_back(0.01);
    if (i >= n - 3)
      for (int j = i - 70; j < i; ++j)
        if (j > 0) r.push_back(i), c.push_back(j), v.push_back(0.001);
    r.push_back(i), c.push_back(i), v.push_back(2.0);
  }
  const auto Ah = csr_from_triplets(n, n, r, c, v);
  TriangularSolver<double, Dev> T;
  T.setup(to_device<Dev>(Ah), true, false, isai(0));
  EXPECT_EQ(T.stats().isai_power, 2);
  const auto M = to_host(T.isai_matrix());
  const auto P = host_power_pattern(Ah, 2);
  for (int i = 0; i < n; ++i) {
    const std::vector<int> cols(M.col_idx.begin() + M.row_ptr[i], M.col_idx.begin() + M.row_ptr[i + 1]);
    if (i >= n - 3) {  // 72 entries: its own pattern
      EXPECT_EQ(cols, std::vector<int>(Ah.col_idx.begin() + Ah.row_ptr[i], Ah.col_idx.begin() + Ah.row_ptr[i + 1]));
    } else {
      EXPECT_EQ(cols, std::vector<int>(P[i].begin(), P[i].end())) << "row " << i;
    }
  }
  EXPECT_LT(defect_on_own_pattern(M, Ah), 1e-12);
}

TEST(TEST_CATEGORY, isai_power_fewer_pcg_iterations) {
  // ParIc (deterministic sweeps) with ISAI solves on the pattern of |L|^2 and |L|^3: fewer PCG iterations to 1e-8 than
  // on L's own pattern, and not fewer than with exact triangular solves
  const auto A = to_device<Dev>(lap2d(48));
  const int n = A.numRows();
  V b("b", n);
  Kokkos::deep_copy(b, 1.0);
  SolverParams sp;
  sp.tol = 1e-8;
  auto iterations = [&](const std::string& params) {
    auto M = make_preconditioner<double, Dev>("par_ic", A, parse_parameter_string("mode=deterministic," + params));
    M->compute();
    V x("x", n);
    const auto r = cg<double, Dev>(A, b, x, M.get(), sp);
    EXPECT_TRUE(r.converged()) << params << ": " << r.message;
    return r.iterations;
  };
  const int p1 = iterations("tri_solve=isai,tri_solve_isai_power=1");
  const int p2 = iterations("tri_solve=isai,tri_solve_isai_power=2");
  EXPECT_EQ(iterations("tri_solve=isai"), p2);  // the rule's choice on the 5-point grid
  const int p3 = iterations("tri_solve=isai,tri_solve_isai_power=3"), exact = iterations("tri_solve=exact");
  EXPECT_LT(p2, p1);
  EXPECT_LT(p3, p2);
  EXPECT_GE(p3, exact);
  auto M =
      make_preconditioner<double, Dev>("par_ic", A, parse_parameter_string("tri_solve=isai,tri_solve_isai_power=2"));
  M->compute();
  EXPECT_NE(M->description().find("isai^2 tri-solve"), std::string::npos) << M->description();
}

TEST(TEST_CATEGORY, isai_power2_is_two_jacobi_sweeps_on_grids) {
  // Two Jacobi sweeps from x_0 = D^-1 b apply M = (I - G + G^2) D^-1, G = D^-1 (T - D), and M T = I + G^3. On the
  // 5- and 7-point grids, numbered lexicographically, G^3's entries (paths of three steps in T's graph) lie outside
  // the pattern of |T|^2, which holds M: M satisfies the ISAI conditions there, so the ISAI on |T|^2 is Jacobi(2)
  // (the reason their PCG iteration counts agree, MEASUREMENTS.md#tri-solve-auto-rule). On the 9-point grid a path of
  // three steps can end where one of one step does, and the two differ.
  const auto L2 = Reference::ic0(lap2d(16));
  const auto L3 = Reference::ic0(lap3d7(6));
  const auto F = Reference::ilu0(convdiff2d(12, 10.0));
  const auto L9 = Reference::ic0(aniso2d(16));
  TriSolveOptions jacobi2;
  jacobi2.kind = TriSolveKind::Jacobi;
  jacobi2.sweeps = 2;
  auto difference = [&](const CsrHost<double>& T, bool lower, bool unit = false) {
    std::vector<double> b(T.nrows);
    for (int i = 0; i < T.nrows; ++i) b[i] = 1.0 + 0.5 * std::sin(0.37 * i);
    std::vector<double> x[2];
    int k = 0;
    for (const auto& o : {isai(2), jacobi2}) {
      TriangularSolver<double, Dev> S;
      S.setup(to_device<Dev>(T), lower, unit, o);
      V xd("x", T.nrows);
      S.solve(to_device<Dev>(b), xd);
      x[k++] = to_std_vector(xd);
    }
    // max |x_isai - x_jacobi| / max |x_jacobi|; NaN where either solve wrote a non-finite value (fails both checks)
    double diff = 0, scale = 0;
    for (int i = 0; i < T.nrows; ++i) {
      if (!std::isfinite(x[0][i]) || !std::isfinite(x[1][i])) return std::numeric_limits<double>::quiet_NaN();
      diff = std::max(diff, std::abs(x[0][i] - x[1][i]));
      scale = std::max(scale, std::abs(x[1][i]));
    }
    return diff / scale;
  };
  EXPECT_LT(difference(L2, true), 1e-12);
  EXPECT_LT(difference(Reference::transpose(L2), false), 1e-12);
  EXPECT_LT(difference(L3, true), 1e-12);
  EXPECT_LT(difference(Reference::transpose(L3), false), 1e-12);
  EXPECT_LT(difference(F.L, true, true), 1e-12);  // ILU(0) of a convection-diffusion grid: other values, same pattern
  EXPECT_LT(difference(F.U, false), 1e-12);
  EXPECT_GT(difference(L9, true), 1e-6);
}

TEST(TEST_CATEGORY, tri_solve_auto_rule_gives_lu_pairs_jacobi_sweeps) {
  // the rule: the large triangles (short rows) of an LU pair take Jacobi(3), without the probe (where a Cholesky
  // pair's take ISAI: trisolve_auto_rule)
  TriSolveRuleInputs lu;
  lu.gpu = lu.cusparse = lu.lu = true;
  lu.n = 1 << 20;
  lu.nnz = 3 * lu.n;
  EXPECT_FALSE(tri_solve_rule_probes_jacobi(true, lu.n, lu.nnz));
  auto c = choose_tri_solve(lu);
  EXPECT_EQ(c.kind, TriSolveKind::Jacobi);
  EXPECT_EQ(c.sweeps, kDefaultJacobiSweeps);
  EXPECT_NE(c.reason.find("3.0 entries/row: large triangles of an LU pair -> jacobi(3)"), std::string::npos)
      << c.reason;
  lu.jacobi_probe = 0.9;  // a probe (never run for them) would not send them to the exact solve
  EXPECT_EQ(choose_tri_solve(lu).kind, TriSolveKind::Jacobi);
  lu.lu = false;
  EXPECT_EQ(choose_tri_solve(lu).kind, TriSolveKind::Isai);
  lu.lu = true;
  lu.n = 20000;  // small triangles: as for a Cholesky pair (probe 0.9: exact)
  lu.nnz = 60000;
  EXPECT_EQ(choose_tri_solve(lu).kind, TriSolveKind::Exact);
  // GPUs: on a grid whose triangles hold more than 10^6 entries (short rows) the rule takes ISAI for ParIC's Cholesky
  // pair and Jacobi(3) for ParILU's LU pair (GMRES); host backends solve both exactly (trisolve_auto_rule)
  if (!Impl::is_gpu_space<typename Dev::execution_space>()) GTEST_SKIP() << "the GPU branch of the rule";
  const auto A = to_device<Dev>(lap2d(600));  // triangles of 1,078,800 entries
  for (const std::string method : {"par_ic", "par_ilu"}) {
    auto M = make_preconditioner<double, Dev>(method, A, parse_parameter_string("mode=deterministic"));
    M->compute();
    auto* P = dynamic_cast<ParIncompletePreconditioner<double, Dev>*>(M.get());
    ASSERT_NE(P, nullptr);
    const auto& st = P->lower_solve_stats();
    if (method == "par_ic") {
      EXPECT_EQ(st.kind, TriSolveKind::Isai) << st.reason;
      EXPECT_NE(st.reason.find("large triangle, short rows -> isai"), std::string::npos) << st.reason;
    } else {
      EXPECT_EQ(st.kind, TriSolveKind::Jacobi) << st.reason;
      EXPECT_EQ(st.sweeps, kDefaultJacobiSweeps) << st.reason;
      EXPECT_NE(st.reason.find("large triangles of an LU pair -> jacobi(3)"), std::string::npos) << st.reason;
    }
    EXPECT_EQ(P->upper_solve_stats().kind, st.kind);
  }
}

TEST(TEST_CATEGORY, isai_single_precision_values) {
  // the product with M's values rounded to float: within float's rounding of the working-precision product, on both
  // triangles, through solve() and solve_dot(); Auto takes it on GPUs only (isai_single_values_rule)
  const bool gpu = Impl::is_gpu_space<typename Dev::execution_space>();
  EXPECT_EQ(TriSolveOptions().isai_precision, IsaiPrecision::Auto);
  EXPECT_EQ(isai_single_values_rule(gpu), gpu);
  const auto L = Reference::ic0(lap2d(16));
  const auto U = Reference::transpose(L);
  for (const bool lower : {true, false}) {
    const auto Td = to_device<Dev>(lower ? L : U);
    const int n = L.nrows;
    V b("b", n), x_work("x_work", n), x_single("x_single", n), x_dot("x_dot", n);
    Kokkos::deep_copy(b, 1.0);
    TriangularSolver<double, Dev> work, single, automatic;
    TriSolveOptions o = isai(2);
    work.setup(Td, lower, false, o);
    o.isai_precision = IsaiPrecision::Single;
    single.setup(Td, lower, false, o);
    o.isai_precision = IsaiPrecision::Auto;
    automatic.setup(Td, lower, false, o);
    EXPECT_FALSE(work.stats().isai_single);
    EXPECT_TRUE(single.stats().isai_single);
    EXPECT_EQ(automatic.stats().isai_single, gpu);
    work.solve(b, x_work);
    single.solve(b, x_single);
    const auto xw = to_std_vector(x_work), xs = to_std_vector(x_single);
    double worst = 0, largest = 0;
    for (int i = 0; i < n; ++i) {
      worst = std::max(worst, std::abs(xs[i] - xw[i]));
      largest = std::max(largest, std::abs(xw[i]));
    }
    EXPECT_LT(worst, 1e-6 * largest);  // float's unit rounding 6e-8 per value, at most 6 values per row
    EXPECT_GT(worst, 0.0);             // the rounded values were read
    const Kokkos::View<double*, Dev> s("s", 2);
    if (single.solve_dot(b, x_dot, b, s, 1)) {  // GPUs: the fused product and sum reads the same values
      EXPECT_EQ(to_std_vector(x_dot), xs);
      double sum = 0;
      for (double v : xs) sum += v;
      EXPECT_NEAR(to_std_vector(s)[1], sum, 1e-12 * std::abs(sum));
    }
  }
  {  // rows longer than the row-per-thread product takes (GPUs: lane groups): a dense lower triangle, 32.5 per row
    const int m = 64;
    std::vector<int> r, c;
    std::vector<double> v;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j <= i; ++j) {
        r.push_back(i);
        c.push_back(j);
        v.push_back(i == j ? 2.0 * m : 1.0 / (1.0 + i - j));
      }
    const auto D = to_device<Dev>(csr_from_triplets<double>(m, m, r, c, v));
    TriangularSolver<double, Dev> work, single;
    TriSolveOptions o = isai(1);
    work.setup(D, true, false, o);
    o.isai_precision = IsaiPrecision::Single;
    single.setup(D, true, false, o);
    V b("b", m), xw("xw", m), xs("xs", m);
    Kokkos::deep_copy(b, 1.0);
    work.solve(b, xw);
    single.solve(b, xs);
    const auto hw = to_std_vector(xw), hs = to_std_vector(xs);
    for (int i = 0; i < m; ++i) EXPECT_NEAR(hs[i], hw[i], 1e-6 * std::abs(hw[i])) << i;
    EXPECT_NE(hs, hw);
  }
  // a value beyond float's range: T = [1e-20 0; 1 1e-20] has the inverse [1e20 0; -1e40 1e20] on its pattern
  const auto T = to_device<Dev>(csr_from_triplets<double>(2, 2, {0, 1, 1}, {0, 0, 1}, {1e-20, 1.0, 1e-20}));
  TriSolveOptions o = isai(1);
  o.isai_precision = IsaiPrecision::Single;
  TriangularSolver<double, Dev> S;
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(T, true, false, o), InvalidInput,
                               "ISAI value 1 is beyond single precision's range (isai_precision single)");
  o.isai_precision = IsaiPrecision::Auto;  // keeps the working precision
  S.setup(T, true, false, o);
  EXPECT_FALSE(S.stats().isai_single);
  V b("b", 2), x("x", 2);
  Kokkos::deep_copy(b, 1.0);
  S.solve(b, x);
  const auto xh = to_std_vector(x);
  EXPECT_DOUBLE_EQ(xh[0], 1e20);
  EXPECT_DOUBLE_EQ(xh[1], 1e20 - 1e40);
  // the parameter
  ASYNCSPARSE_EXPECT_THROW_MSG(isai_precision_from_string("half"), InvalidInput,
                               "ISAI precision 'half' unknown (valid: auto, working, single)");
  EXPECT_EQ(isai_precision_from_string("single"), IsaiPrecision::Single);
}

}  // namespace test_isai_power
