// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// TriangularSolver::solve_dot with Jacobi sweeps: the last sweep sums d·x in the same pass (GPUs, short rows), and
// the incomplete-factorization preconditioners' apply_dot through it.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <support/TestHelpers.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace test_trisolve_dot {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using V = Kokkos::View<double*, Dev>;

TriSolveOptions jacobi(int sweeps) {
  TriSolveOptions o;
  o.kind = TriSolveKind::Jacobi;
  o.sweeps = sweeps;
  return o;
}

/// Largest |a - b| / max(1, |b|); NaN (an entry left unwritten) reads as infinity.
double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double e = std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i]));
    if (!(e <= m)) m = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
  }
  return m;
}

TEST(TEST_CATEGORY, jacobi_sweep_rows_rule) {
  using Impl::SweepRows;
  // no thread-per-row product (host backends, rows of more than 27 entries): lane groups
  EXPECT_EQ(Impl::jacobi_sweep_rows(false, false, 1000000, 2.0, 270336), SweepRows::Lanes);
  // short rows: a thread per row
  EXPECT_EQ(Impl::jacobi_sweep_rows(true, false, 1000, 4.0, 270336), SweepRows::Thread);
  // longer rows: lane groups until the rows reach a quarter of the concurrency, then the product's block size
  EXPECT_EQ(Impl::jacobi_sweep_rows(true, false, 11948, 5.7, 270336), SweepRows::Lanes);
  EXPECT_EQ(Impl::jacobi_sweep_rows(true, false, 67584, 5.7, 270336), SweepRows::Thread);
  EXPECT_EQ(Impl::jacobi_sweep_rows(true, true, 67583, 12.6, 270336), SweepRows::Lanes);
  EXPECT_EQ(Impl::jacobi_sweep_rows(true, true, 67584, 12.6, 270336), SweepRows::Thread256);
  // the run record's words: both kernels' names, per triangle where they differ, nothing on host backends
  EXPECT_EQ(Impl::jacobi_sweep_rows_note(SweepRows::Thread, SweepRows::Thread256, true), ", a thread per row");
  EXPECT_EQ(Impl::jacobi_sweep_rows_note(SweepRows::Lanes, SweepRows::Lanes, true), ", lane groups");
  EXPECT_EQ(Impl::jacobi_sweep_rows_note(SweepRows::Thread, SweepRows::Lanes, true),
            ", a thread per row (L) / lane groups (U)");
  EXPECT_EQ(Impl::jacobi_sweep_rows_note(SweepRows::Lanes, SweepRows::Thread256, true),
            ", lane groups (L) / a thread per row (U)");
  EXPECT_EQ(Impl::jacobi_sweep_rows_note(SweepRows::Thread, SweepRows::Lanes, false), "");
}
TEST(TEST_CATEGORY, jacobi_sweep_launches_sum_each_row_in_order_on_gpus) {
  // The launched Jacobi sweeps of short rows take a thread per row on GPUs and add a row's terms in storage order
  // (Impl::jacobi_sweep_rows), as the one-team application does: on GPUs the two agree bit for bit. The 7-point
  // grid's triangles hold up to 3 off-diagonal entries per row (2.6 on average), which lane groups would add in
  // another order. Host backends sweep with one lane per row, whose sums the compiler may contract
  // differently in the two kernels: equal to rounding there.
  const bool gpu = Impl::is_gpu_space<typename Dev::execution_space>();
  const auto Ah = lap3d7(8);
  const auto A = to_device<Dev>(Ah);
  const int n = Ah.nrows;
  const auto tri_nnz = (Ah.nnz() + n) / 2;  // a triangle's entries, diagonal included
  {
    TriangularSolver<double, Dev> S;
    S.setup(to_device<Dev>(Reference::ic0(Ah)), true, false, jacobi(3));
    EXPECT_EQ(S.jacobi_sweep_rows(), gpu ? Impl::SweepRows::Thread : Impl::SweepRows::Lanes);
  }
  {  // Jacobi(0), x = D^{-1} b, sweeps nothing: no kernel named
    auto none = make_preconditioner<double, Dev>(
        "par_ic", A, parse_parameter_string("tri_solve=jacobi,tri_solve_sweeps=0,tri_solve_one_team_entries=0"));
    none->compute();
    EXPECT_NE(none->description().find("jacobi(0) tri-solve)"), std::string::npos) << none->description();
  }
  std::vector<double> rh(n);
  for (int i = 0; i < n; ++i) rh[i] = 1.0 + std::sin(0.3 * i);
  const V r = to_device<Dev>(rh);
  for (const std::string prec : {"par_ic", "par_ilu"})
    for (int k : {1, 2, 3}) {
      SCOPED_TRACE(prec + " jacobi(" + std::to_string(k) + ")");
      const std::string common =
          "mode=deterministic,tri_solve=jacobi,tri_solve_sweeps=" + std::to_string(k) + ",tri_solve_one_team_entries=";
      auto many = make_preconditioner<double, Dev>(prec, A, parse_parameter_string(common + "0"));
      auto one = make_preconditioner<double, Dev>(prec, A, parse_parameter_string(common + std::to_string(tri_nnz)));
      many->compute();
      one->compute();
      ASSERT_NE(one->description().find("in one launch"), std::string::npos) << one->description();
      ASSERT_EQ(many->description().find("in one launch"), std::string::npos) << many->description();
      // the run record names the sweeps' kernel on GPUs (host backends have one)
      EXPECT_NE(many->description().find(gpu ? "tri-solve, a thread per row)" : "tri-solve)"), std::string::npos)
          << many->description();
      V z_many("z_many", n), z_one("z_one", n);
      many->apply(r, z_many);
      one->apply(r, z_one);
      const auto zm = to_std_vector(z_many), zo = to_std_vector(z_one);
      if (gpu)
        EXPECT_EQ(zo, zm);
      else
        EXPECT_LT(max_rel_diff(zo, zm), 1e-13);
    }
}
TEST(TEST_CATEGORY, jacobi_solve_dot_sums_in_the_last_sweep_on_gpus) {
  const bool gpu = Impl::is_gpu_space<typename Dev::execution_space>();
  const auto L = Reference::ic0(lap2d(30));
  const auto U = Reference::transpose(L);
  const int n = L.nrows;
  std::vector<double> bh(n), dh(n);
  for (int i = 0; i < n; ++i) {
    bh[i] = 1.0 + 0.5 * std::cos(0.3 * i);
    dh[i] = std::sin(0.7 * i);
  }
  const V b = to_device<Dev>(bh), d = to_device<Dev>(dh);
  for (const bool lower : {true, false}) {
    const auto Td = to_device<Dev>(lower ? L : U);
    for (const int k : {1, 2, 3, 4}) {
      TriangularSolver<double, Dev> S;
      S.setup(Td, lower, false, jacobi(k));
      EXPECT_EQ(S.fuses_dot(), gpu) << lower << " " << k;
      V x0("x0", n), x("x", n), s("s", 3);
      S.solve(b, x0);
      Kokkos::deep_copy(x, std::numeric_limits<double>::quiet_NaN());
      ASSERT_EQ(S.solve_dot(b, x, d, s, 1), gpu);
      if (!gpu) continue;
      const auto xs = to_std_vector(x), ref = to_std_vector(x0);
      // the last sweep sums a row in one thread, the others over vector lanes: equal up to rounding
      EXPECT_LT(max_rel_diff(xs, ref), 1e-13) << lower << " " << k;
      double dx = 0;
      for (int i = 0; i < n; ++i) dx += dh[i] * xs[i];
      EXPECT_NEAR(to_std_vector(s)[1], dx, 1e-12 * std::max(1.0, std::abs(dx))) << lower << " " << k;
      EXPECT_EQ(to_std_vector(s)[0], 0.0);  // the other slots untouched
      EXPECT_EQ(to_std_vector(s)[2], 0.0);
      EXPECT_EQ(S.stats().last_sweeps, k);
      EXPECT_EQ(S.stats().solves, 2);  // solve() and solve_dot()
      EXPECT_EQ(S.stats().total_sweeps, 2 * k);
      EXPECT_THROW(S.solve_dot(b, x, d, s, 3), InvalidInput);  // slot outside s
      EXPECT_THROW(S.solve_dot(x, x, d, s, 0), InvalidInput);  // b and x alias
    }
  }
  // no sweep, the adaptive mode and long rows do not fuse
  const auto Ld = to_device<Dev>(L);
  TriangularSolver<double, Dev> none, adaptive;
  none.setup(Ld, true, false, jacobi(0));
  EXPECT_FALSE(none.fuses_dot());
  TriSolveOptions a = jacobi(5);
  a.kind = TriSolveKind::JacobiAdaptive;
  adaptive.setup(Ld, true, false, a);
  EXPECT_FALSE(adaptive.fuses_dot());
  // a dense lower triangle of 60 rows: 30.5 entries per row on average, beyond the row-per-thread kernels
  // (Impl::kRowSpmvMaxAvgNnz): its sweeps keep the lanes, and the sum its own pass
  std::vector<int> rows, cols;
  std::vector<double> vals;
  for (int i = 0; i < 60; ++i)
    for (int j = 0; j <= i; ++j) {
      rows.push_back(i);
      cols.push_back(j);
      vals.push_back(i == j ? 80.0 : -0.01);
    }
  TriangularSolver<double, Dev> long_rows;
  long_rows.setup(to_device<Dev>(csr_from_triplets<double>(60, 60, rows, cols, vals)), true, false, jacobi(2));
  EXPECT_FALSE(long_rows.fuses_dot());
}

TEST(TEST_CATEGORY, jacobi_preconditioner_apply_dot) {
  const bool gpu = Impl::is_gpu_space<typename Dev::execution_space>();
  const auto Ah = lap2d(20);
  const auto A = to_device<Dev>(Ah);
  const int n = Ah.nrows;
  std::vector<double> rh(n);
  for (int i = 0; i < n; ++i) rh[i] = 1.0 + std::sin(0.2 * i);
  const V r = to_device<Dev>(rh);
  // a launch per sweep (the one-team launch of small triangles: jacobi_one_team_apply_matches_the_sweep_launches)
  auto P = make_preconditioner<double, Dev>(
      "par_ic", A, parse_parameter_string("tri_solve=jacobi,tri_solve_sweeps=2,tri_solve_one_team_entries=0"));
  P->compute();
  V z0("z0", n), z("z", n), s("s", 2);
  P->apply(r, z0);
  ASSERT_EQ(P->apply_dot(r, z, s, 0), gpu);
  if (!gpu) return;
  const auto zs = to_std_vector(z);
  EXPECT_LT(max_rel_diff(zs, to_std_vector(z0)), 1e-13);
  double rz = 0;
  for (int i = 0; i < n; ++i) rz += rh[i] * zs[i];
  EXPECT_NEAR(to_std_vector(s)[0], rz, 1e-12 * std::abs(rz));
}

TEST(TEST_CATEGORY, jacobi_one_team_apply_matches_the_sweep_launches) {
  // FactorApply's one-team launch (both triangles' sweeps in one kernel) against a launch per sweep: the same
  // sweeps, so the same z up to the order of each row's sum; forced on every backend by tri_solve_one_team_entries
  for (const int g : {21, 40})  // 441 rows, and 1,600: more rows than a GPU team's threads
    for (const std::string prec : {"par_ic", "par_ilu"})
      for (int k : {1, 2, 3}) {
        SCOPED_TRACE(prec + " jacobi(" + std::to_string(k) + "), grid " + std::to_string(g));
        const auto Ah = lap2d(g);
        const auto A = to_device<Dev>(Ah);
        const int n = Ah.nrows;
        std::vector<double> rh(n);
        for (int i = 0; i < n; ++i) rh[i] = 1.0 + std::sin(0.3 * i);
        const V r = to_device<Dev>(rh);
        const std::string common = "mode=deterministic,tri_solve=jacobi,tri_solve_sweeps=" + std::to_string(k) +
                                   ",tri_solve_one_team_entries=";
        auto many = make_preconditioner<double, Dev>(prec, A, parse_parameter_string(common + "0"));
        // the larger triangle's entries (diagonal included): n + 2 (g - 1) g for the 5-point grid of g²
        const int tri_nnz = n + 2 * (g - 1) * g;
        auto one = make_preconditioner<double, Dev>(prec, A, parse_parameter_string(common + std::to_string(tri_nnz)));
        many->compute();
        one->compute();
        EXPECT_EQ(many->description().find("in one launch"), std::string::npos) << many->description();
        EXPECT_NE(one->description().find("jacobi(" + std::to_string(k) + ") tri-solve in one launch"),
                  std::string::npos)
            << one->description();
        V z_many("z_many", n), z_one("z_one", n), s("s", 3);
        many->apply(r, z_many);
        one->apply(r, z_one);
        const auto zm = to_std_vector(z_many);
        EXPECT_LT(max_rel_diff(to_std_vector(z_one), zm), 1e-13);
        // with rᵀz: the one-team launch sums it on every backend
        V z_dot("z_dot", n);
        ASSERT_TRUE(one->apply_dot(r, z_dot, s, 1));
        const auto zd = to_std_vector(z_dot);
        EXPECT_LT(max_rel_diff(zd, zm), 1e-13);
        double rz = 0;
        for (int i = 0; i < n; ++i) rz += rh[i] * zd[i];
        EXPECT_NEAR(to_std_vector(s)[1], rz, 1e-12 * std::abs(rz));
        EXPECT_EQ(one->getNumApply(), 2);
        // one entry more than the bound: a launch per sweep again
        auto above =
            make_preconditioner<double, Dev>(prec, A, parse_parameter_string(common + std::to_string(tri_nnz - 1)));
        above->compute();
        EXPECT_EQ(above->description().find("in one launch"), std::string::npos) << above->description();
      }
  const auto A = to_device<Dev>(lap2d(4));
  EXPECT_THROW((make_preconditioner<double, Dev>("par_ic", A, parse_parameter_string("tri_solve_one_team_entries=-2"))),
               InvalidInput);
}

TEST(TEST_CATEGORY, incomplete_factor_preconditioner_rejects_factors_of_other_sizes) {
  // L and U of different sizes, or factors of another size than A: InvalidInput at compute(), before any solve
  const auto A4 = lap2d(4), A5 = lap2d(5);  // 16 and 25 rows
  const auto L4 = Reference::ic0(A4), L5 = Reference::ic0(A5);
  const auto A = to_device<Dev>(A4);
  const Kokkos::View<double*, Dev> no_scaling;
  IncompleteFactorPreconditioner<double, Dev> mixed(A, to_device<Dev>(L4), to_device<Dev>(Reference::transpose(L5)),
                                                    false, no_scaling);
  EXPECT_THROW(mixed.compute(), InvalidInput);
  IncompleteFactorPreconditioner<double, Dev> other(A, to_device<Dev>(L5), to_device<Dev>(Reference::transpose(L5)),
                                                    false, no_scaling);
  EXPECT_THROW(other.compute(), InvalidInput);
  IncompleteFactorPreconditioner<double, Dev> good(A, to_device<Dev>(L4), to_device<Dev>(Reference::transpose(L4)),
                                                   false, no_scaling);
  EXPECT_NO_THROW(good.compute());
}

TEST(TEST_CATEGORY, jacobi_one_team_is_the_gpu_default_for_small_triangles) {
  const bool gpu = Impl::is_gpu_space<typename Dev::execution_space>();
  for (int m : {20, 40}) {  // triangles of 1,160 and 4,720 entries: below and above kGpuJacobiOneTeamMaxEntries
    const auto A = to_device<Dev>(lap2d(m));
    auto P = make_preconditioner<double, Dev>("par_ic", A, parse_parameter_string("tri_solve=jacobi"));
    P->compute();
    const bool expected = gpu && m * m + 2 * (m - 1) * m <= kGpuJacobiOneTeamMaxEntries;
    EXPECT_EQ(P->description().find("in one launch") != std::string::npos, expected) << P->description();
  }
}

}  // namespace test_trisolve_dot
