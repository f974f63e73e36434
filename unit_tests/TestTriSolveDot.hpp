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

/// IC(0)'s triangles of a host matrix with a right-hand side b and a second vector d on the device.
struct TrianglePair {
  CsrHost<double> L, U;
  int n = 0;
  std::vector<double> bh, dh;
  V b, d;
  explicit TrianglePair(const CsrHost<double>& A)
      : L(Reference::ic0(A)), U(Reference::transpose(L)), n(L.nrows), bh(n), dh(n) {
    for (int i = 0; i < n; ++i) {
      bh[i] = 1.0 + 0.5 * std::cos(0.3 * i);
      dh[i] = std::sin(0.7 * i);
    }
    b = to_device<Dev>(bh);
    d = to_device<Dev>(dh);
  }
};

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
          "mode=deterministic,tri_solve=jacobi,tri_solve_fuse_sweeps=0,tri_solve_sweeps=" + std::to_string(k) +
          ",tri_solve_one_team_entries=";
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
  const TrianglePair t(lap2d(30));
  const auto &L = t.L, &U = t.U;
  const int n = t.n;
  const auto& dh = t.dh;
  const V b = t.b, d = t.d;
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
        const std::string common =
            "mode=deterministic,tri_solve=jacobi,tri_solve_fuse_sweeps=0,tri_solve_sweeps=" + std::to_string(k) +
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

TEST(TEST_CATEGORY, jacobi_fuse_sweeps_rule) {
  using Impl::jacobi_fuse_sweeps;
  using Impl::SweepRows;
  // the option: never, always (2 or 3 sweeps only), or the rule
  EXPECT_FALSE(jacobi_fuse_sweeps(0, true, 3, 1000, SweepRows::Thread));
  EXPECT_TRUE(jacobi_fuse_sweeps(1, false, 2, 10000000, SweepRows::Lanes));
  EXPECT_FALSE(jacobi_fuse_sweeps(1, true, 1, 1000, SweepRows::Thread));
  EXPECT_FALSE(jacobi_fuse_sweeps(1, true, 4, 1000, SweepRows::Thread));
  EXPECT_FALSE(jacobi_fuse_sweeps(1, true, 3, 0, SweepRows::Thread));
  // the rule: GPUs, a thread per row, few rows
  EXPECT_TRUE(jacobi_fuse_sweeps(-1, true, 3, 9604, SweepRows::Thread));
  EXPECT_TRUE(jacobi_fuse_sweeps(-1, true, 2, Impl::kGpuJacobiFuseMaxRows, SweepRows::Thread256));
  EXPECT_FALSE(jacobi_fuse_sweeps(-1, false, 3, 9604, SweepRows::Thread));
  EXPECT_FALSE(jacobi_fuse_sweeps(-1, true, 3, Impl::kGpuJacobiFuseMaxRows + 1, SweepRows::Thread));
  EXPECT_FALSE(jacobi_fuse_sweeps(-1, true, 3, 9604, SweepRows::Lanes));
  EXPECT_FALSE(jacobi_fuse_sweeps(-1, true, 1, 9604, SweepRows::Thread));
  // the run record's words
  EXPECT_EQ(Impl::jacobi_fused_note(true, true), ", fused sweeps");
  EXPECT_EQ(Impl::jacobi_fused_note(true, false), ", fused sweeps (L)");
  EXPECT_EQ(Impl::jacobi_fused_note(false, true), ", fused sweeps (U)");
  EXPECT_EQ(Impl::jacobi_fused_note(false, false), "");
}

/// K Jacobi sweeps from x_0 = D^{-1} b on the host (the diagonal last in a row of L, first in a row of U).
std::vector<double> host_jacobi(const CsrHost<double>& T, bool lower, const std::vector<double>& b, int K) {
  const int n = T.nrows;
  std::vector<double> dinv(n), x(n), y(n);
  for (int i = 0; i < n; ++i) dinv[i] = 1.0 / T.values[lower ? T.row_ptr[i + 1] - 1 : T.row_ptr[i]];
  for (int i = 0; i < n; ++i) x[i] = dinv[i] * b[i];
  for (int k = 0; k < K; ++k) {
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (auto p = T.row_ptr[i] + (lower ? 0 : 1); p < T.row_ptr[i + 1] - (lower ? 1 : 0); ++p)
        s += T.values[p] * x[T.col_idx[p]];
      y[i] = dinv[i] * (b[i] - s);
    }
    std::swap(x, y);
  }
  return x;
}

/// The fused kernel with the given shape on T (halo bounds, then the solve, with d·x into s(1) when `dot`).
std::vector<double> fused_solve(const CsrHost<double>& T, bool lower, const V& b, int K,
                                const Impl::JacobiFusedShape& shape, const V& d = {}, const V& s = {}) {
  using Exec = typename Dev::execution_space;
  Impl::JacobiFusedShape sh = shape;
  if (!Impl::is_gpu_space<Exec>()) sh.threads = 1;  // host backends' teams: one thread (the library's shape there)
  const auto Td = to_device<Dev>(T);
  std::vector<double> dh(T.nrows);
  for (int i = 0; i < T.nrows; ++i) dh[i] = 1.0 / T.values[lower ? T.row_ptr[i + 1] - 1 : T.row_ptr[i]];
  const V dinv = to_device<Dev>(dh), val("val", Td.values.extent(0)), x("x", T.nrows);
  Kokkos::deep_copy(val, Td.values);
  Kokkos::deep_copy(x, std::numeric_limits<double>::quiet_NaN());  // every entry must be written
  Kokkos::View<ordinal_t*, Dev> halo("halo", sh.blocks(T.nrows) * Impl::kJacobiFusedHops);
  Impl::jacobi_fused_halo<Exec>(sh, K, Td.graph.row_map, Td.graph.entries, T.nrows, lower, halo);
  Kokkos::View<double, Dev> out;
  if (s.data() != nullptr) out = Kokkos::subview(s, 1);
  Impl::jacobi_fused<Exec>(sh, K, Td.graph.row_map, Td.graph.entries, val, dinv, T.nrows, lower, V(b), x, halo, d, out);
  return to_std_vector(x);
}

TEST(TEST_CATEGORY, jacobi_fused_blocks_and_halos_give_the_sweeps) {
  // The fused kernel's blocks, halos and team memory against K sweeps on the host, on both triangles of IC(0) of the
  // 5-point 30^2 grid (a row meets rows 1 and 30 away: a block's two-hop halo holds 60 rows) and the 27-point 6^3
  // grid: team memory for the block only (every halo value recomputed), for part of the halo, for all of it, odd
  // sizes, and the default shape (one block holds the whole triangle of the first grid).
  const Impl::JacobiFusedShape shapes[] = {{8, 8, 4}, {8, 40, 4}, {8, 2000, 8}, {5, 13, 3}, {16, 100, 16}, {}};
  for (const auto& Ah : {lap2d(30), lap3d27(6)}) {
    const TrianglePair t(Ah);
    for (const bool lower : {true, false}) {
      const auto& T = lower ? t.L : t.U;
      for (const int K : {2, 3}) {
        const auto want = host_jacobi(T, lower, t.bh, K);
        std::vector<double> first;
        for (const auto& sh : shapes) {
          SCOPED_TRACE(std::to_string(t.n) + " rows, " + (lower ? "lower" : "upper") + ", " + std::to_string(K) +
                       " sweeps, blocks of " + std::to_string(sh.block) + ", capacity " + std::to_string(sh.capacity));
          const auto got = fused_solve(T, lower, t.b, K, sh);
          EXPECT_LT(max_rel_diff(got, want), 1e-13);
          if (first.empty())
            first = got;
          else  // every shape forms each value by the same arithmetic
            EXPECT_LT(max_rel_diff(got, first), 1e-15);
          V s("s", 2);
          const auto with_dot = fused_solve(T, lower, t.b, K, sh, t.d, s);
          EXPECT_EQ(with_dot, got);
          double dx = 0;
          for (int i = 0; i < t.n; ++i) dx += t.dh[i] * got[i];
          EXPECT_NEAR(to_std_vector(s)[1], dx, 1e-12 * std::max(1.0, std::abs(dx)));
          EXPECT_EQ(to_std_vector(s)[0], 0.0);
        }
      }
    }
  }
  // a shape whose blocks do not fit its team memory is refused
  const TrianglePair t(lap2d(6));
  EXPECT_THROW(fused_solve(t.L, true, t.b, 3, Impl::JacobiFusedShape{16, 8, 4}), InvalidInput);
}

TEST(TEST_CATEGORY, jacobi_fused_sweeps_equal_the_sweeps) {
  // Fused Jacobi solves (one launch, a team per block of rows and its halo) against a launch per sweep, on both
  // triangles of IC(0) of the 27-point 6^3 grid (up to 13 off-diagonal entries per row: each row meets many) and of
  // the 5-point 30^2 grid: the same values (the same arithmetic; the tolerance allows another contraction of it).
  const bool gpu = Impl::is_gpu_space<typename Dev::execution_space>();
  for (const auto& Ah : {lap3d27(6), lap2d(30)}) {
    const TrianglePair t(Ah);
    const auto &L = t.L, &U = t.U;
    const int n = t.n;
    const auto& dh = t.dh;
    const V b = t.b, d = t.d;
    for (const bool lower : {true, false}) {
      const auto Td = to_device<Dev>(lower ? L : U);
      for (const int k : {1, 2, 3, 4}) {
        SCOPED_TRACE(std::to_string(n) + " rows, " + (lower ? "lower" : "upper") + ", " + std::to_string(k) +
                     " sweeps");
        TriSolveOptions on = jacobi(k), off = jacobi(k);
        on.fuse_sweeps = 1;
        off.fuse_sweeps = 0;
        TriangularSolver<double, Dev> F, S;
        F.setup(Td, lower, false, on);
        S.setup(Td, lower, false, off);
        EXPECT_EQ(F.stats().fused_sweeps, k == 2 || k == 3);  // one sweep needs no fusing, four are not fused
        EXPECT_FALSE(S.stats().fused_sweeps);
        V xf("xf", n), xs("xs", n);
        Kokkos::deep_copy(xf, std::numeric_limits<double>::quiet_NaN());  // every entry must be written
        F.solve(b, xf);
        S.solve(b, xs);
        const auto vf = to_std_vector(xf), vs = to_std_vector(xs);
        EXPECT_LT(max_rel_diff(vf, vs), 1e-13);
        EXPECT_EQ(F.stats().last_sweeps, k);
        EXPECT_EQ(F.stats().total_sweeps, k);
        if (!F.fuses_dot()) continue;  // solve_dot: GPUs, short rows
        V xd("xd", n), s("s", 2);
        Kokkos::deep_copy(xd, std::numeric_limits<double>::quiet_NaN());
        ASSERT_TRUE(F.solve_dot(b, xd, d, s, 1));
        const auto vd = to_std_vector(xd);
        if (F.stats().fused_sweeps)
          EXPECT_EQ(vd, vf);  // the same kernel's values, with the sum
        else  // one sweep: a thread per row, the plain solve's sweeps lane groups where the rows are long
          EXPECT_LT(max_rel_diff(vd, vf), 1e-13);
        double dx = 0;
        for (int i = 0; i < n; ++i) dx += dh[i] * vd[i];
        EXPECT_NEAR(to_std_vector(s)[1], dx, 1e-12 * std::max(1.0, std::abs(dx)));
        EXPECT_EQ(to_std_vector(s)[0], 0.0);  // the other slot untouched
      }
    }
  }
  // through the preconditioner: the parameter, the run record, the same application
  const auto Ah = lap2d(40);  // 4,720 entries per triangle: above the one-team launch's bound
  const auto A = to_device<Dev>(Ah);
  const int n = Ah.nrows;
  std::vector<double> rh(n);
  for (int i = 0; i < n; ++i) rh[i] = 1.0 + std::sin(0.2 * i);
  const V r = to_device<Dev>(rh);
  const std::string common = "mode=deterministic,tri_solve=jacobi,tri_solve_one_team_entries=0,tri_solve_fuse_sweeps=";
  auto fused = make_preconditioner<double, Dev>("par_ic", A, parse_parameter_string(common + "1"));
  auto plain = make_preconditioner<double, Dev>("par_ic", A, parse_parameter_string(common + "0"));
  auto rule = make_preconditioner<double, Dev>("par_ic", A, parse_parameter_string(common + "-1"));
  fused->compute();
  plain->compute();
  rule->compute();
  EXPECT_NE(fused->description().find("jacobi(3) tri-solve"), std::string::npos) << fused->description();
  EXPECT_NE(fused->description().find(", fused sweeps)"), std::string::npos) << fused->description();
  EXPECT_EQ(plain->description().find("fused"), std::string::npos) << plain->description();
  // the rule fuses the 5-point grid's short rows on GPUs, never on host backends
  EXPECT_EQ(rule->description().find(", fused sweeps)") != std::string::npos, gpu) << rule->description();
  V zf("zf", n), zp("zp", n);
  fused->apply(r, zf);
  plain->apply(r, zp);
  EXPECT_LT(max_rel_diff(to_std_vector(zf), to_std_vector(zp)), 1e-13);
  // bad values of the parameter and the option
  for (const char* bad : {"2", "-2"})
    EXPECT_THROW((make_preconditioner<double, Dev>(
                     "par_ic", A, parse_parameter_string(std::string("tri_solve_fuse_sweeps=") + bad))),
                 InvalidInput)
        << bad;
  TriSolveOptions o = jacobi(3);
  o.fuse_sweeps = 2;
  TriangularSolver<double, Dev> T;
  EXPECT_THROW(T.setup(to_device<Dev>(Reference::ic0(Ah)), true, false, o), InvalidInput);
}

}  // namespace test_trisolve_dot
