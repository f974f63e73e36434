// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Exact triangular solves in one launch of one team (ExactAlgorithm::OneTeam, Impl::ExactOneTeam): against the host
// reference substitution, their level sets, both triangles of a preconditioner in one launch, the GPU default for
// small triangles, and bad input.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>
#include <support/TestHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace test_trisolve_one_team {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using V = Kokkos::View<double*, Dev>;

std::vector<double> rhs(int n) {
  std::vector<double> b(n);
  for (int i = 0; i < n; ++i) b[i] = std::cos(0.37 * i) + 0.3;
  return b;
}

double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(a[i] - b[i]));
    m = std::max(m, std::abs(b[i]));
  }
  return m > 0 ? d / m : d;
}

/// Levels of the dependency graph of a triangle, counted here independently of the library.
int host_levels(const CsrHost<double>& T, bool lower) {
  std::vector<int> lev(T.nrows, 0);
  int levels = 0;
  for (int r = 0; r < T.nrows; ++r) {
    const int i = lower ? r : T.nrows - 1 - r;
    for (auto k = T.row_ptr[i]; k < T.row_ptr[i + 1]; ++k)
      if (T.col_idx[k] != i) lev[i] = std::max(lev[i], lev[T.col_idx[k]] + 1);
    levels = std::max(levels, lev[i] + 1);
  }
  return levels;
}

/// A lower triangle of n rows with up to `width` entries per row left of the diagonal at pseudo-random distances
/// (diagonally dominant), so that its levels are neither the rows nor a few.
CsrHost<double> random_lower(int n, int width) {
  CsrHost<double> L(n, n);
  unsigned s = 12345u;
  auto next = [&] { return s = s * 1103515245u + 12345u, (s >> 8) % 1000u; };
  for (int i = 0; i < n; ++i) {
    std::vector<int> cols;
    for (int w = 0; w < width; ++w) {
      const int j = i - 1 - static_cast<int>(next() % 40u);
      if (j >= 0) cols.push_back(j);
    }
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (int j : cols) {
      L.col_idx.push_back(j);
      L.values.push_back(-0.1 - 0.001 * static_cast<double>(next()) / 1000.0);
    }
    L.col_idx.push_back(i);
    L.values.push_back(2.0 + 0.5 * std::sin(0.1 * i));
    L.row_ptr[i + 1] = static_cast<offset_t>(L.col_idx.size());
  }
  return L;
}

/// The bidiagonal lower triangle of n rows (-0.5 left of a diagonal 1 + 0.01 i): one row per level.
CsrHost<double> chain(int n) {
  CsrHost<double> C(n, n);
  for (int i = 0; i < n; ++i) {
    if (i > 0) {
      C.col_idx.push_back(i - 1);
      C.values.push_back(-0.5);
    }
    C.col_idx.push_back(i);
    C.values.push_back(1.0 + 0.01 * i);
    C.row_ptr[i + 1] = static_cast<offset_t>(C.col_idx.size());
  }
  return C;
}

std::vector<double> one_team_solve(const CsrHost<double>& T, bool lower, bool unit, const std::vector<double>& b,
                                   int* levels = nullptr, bool in_place = false) {
  TriangularSolver<double, Dev> S;
  S.set_exact_algorithm(ExactAlgorithm::OneTeam);
  S.setup(to_device<Dev>(T), lower, unit, TriSolveKind::Exact);
  EXPECT_TRUE(S.exact_one_team());
  EXPECT_EQ(S.stats().mode(), "exact(one-team)");
  if (levels) *levels = S.stats().levels;
  V x = to_device<Dev>(b);
  if (in_place) {
    S.solve(x, x);
    return to_std_vector(x);
  }
  V y("y", T.nrows);
  S.solve(to_device<Dev>(b), y);
  return to_std_vector(y);
}

TEST(TEST_CATEGORY, exact_one_team_matches_the_reference_substitution) {
  const auto A = lap2d(12);
  const auto F = Reference::ilu0(A);
  const auto L = Reference::ic0(A);
  const auto b = rhs(A.nrows);
  int levels = 0;
  // lower, upper, unit lower; levels of the 12 x 12 grid's triangles in natural order: 23
  EXPECT_LT(max_rel_diff(one_team_solve(L, true, false, b, &levels), Reference::lower_solve(L, b, false)), 1e-13);
  EXPECT_EQ(levels, 23);
  EXPECT_EQ(levels, host_levels(L, true));
  EXPECT_LT(max_rel_diff(one_team_solve(F.U, false, false, b, &levels), Reference::upper_solve(F.U, b)), 1e-13);
  EXPECT_EQ(levels, host_levels(F.U, false));
  auto L7 = F.L;  // the unit-diagonal solve ignores the stored diagonal value
  for (int i = 0; i < L7.nrows; ++i) L7.values[L7.row_ptr[i + 1] - 1] = 7.0;
  EXPECT_LT(max_rel_diff(one_team_solve(L7, true, true, b), Reference::lower_solve(F.L, b, true)), 1e-13);
  // b and x the same vector (the kernel reads b into scratch memory before it writes x)
  EXPECT_LT(max_rel_diff(one_team_solve(L, true, false, b, nullptr, true), Reference::lower_solve(L, b, false)), 1e-13);
  // a chain (bidiagonal: one row per level) and a triangle of irregular levels
  const auto C = chain(300);
  const auto bc = rhs(300);
  EXPECT_LT(max_rel_diff(one_team_solve(C, true, false, bc, &levels), Reference::lower_solve(C, bc, false)), 1e-13);
  EXPECT_EQ(levels, 300);
  const auto R = random_lower(400, 4);
  const auto br = rhs(400);
  EXPECT_LT(max_rel_diff(one_team_solve(R, true, false, br, &levels), Reference::lower_solve(R, br, false)), 1e-13);
  EXPECT_EQ(levels, host_levels(R, true));
  EXPECT_GT(levels, 10);
  EXPECT_LT(levels, 400);
  const auto Rt = Reference::transpose(R);
  EXPECT_LT(max_rel_diff(one_team_solve(Rt, false, false, br, &levels), Reference::upper_solve(Rt, br)), 1e-13);
  EXPECT_EQ(levels, host_levels(Rt, false));
}

TEST(TEST_CATEGORY, exact_one_team_update_values_and_deterministic) {
  using Exec = typename Dev::execution_space;
  const auto A = lap2d(10);
  auto L = Reference::ic0(A);
  const auto b = rhs(A.nrows);
  TriangularSolver<double, Dev> S;
  S.set_exact_algorithm(ExactAlgorithm::OneTeam);
  S.setup(to_device<Dev>(L), true, false, TriSolveKind::Exact);
  V x1("x1", A.nrows), x2("x2", A.nrows);
  S.solve(to_device<Dev>(b), x1);
  // the same bits with a team of one thread (each row's sum in stored order, whoever computes it)
  auto f = TriangularSolver<double, Dev>::exact_one_team_functor(S, nullptr, to_device<Dev>(b), x2);
  Impl::exact_one_team_launch<Exec>(f, 1);
  EXPECT_EQ(to_std_vector(x1), to_std_vector(x2));
  EXPECT_GT(Impl::exact_one_team_size<Exec>(f), Impl::is_gpu_space<Exec>() ? 32 : 0);
  for (auto& v : L.values) v *= 1.5;
  S.update_values(to_device<Dev>(L));
  S.solve(to_device<Dev>(b), x1);
  EXPECT_LT(max_rel_diff(to_std_vector(x1), Reference::lower_solve(L, b, false)), 1e-13);
}

TEST(TEST_CATEGORY, exact_one_team_pair_matches_the_separate_solves) {
  // FactorApply: both exact solves in one launch (forced on every backend by tri_solve_one_team_entries) against
  // the solves of the backend's other exact algorithm (one_team_entries 0)
  for (const std::string prec : {"par_ic", "par_ilu"}) {
    SCOPED_TRACE(prec);
    auto Ah = lap2d(21);  // with a diagonal that varies (the scaling folded into the solvers is not uniform)
    for (int i = 0; i < Ah.nrows; ++i)
      for (auto k = Ah.row_ptr[i]; k < Ah.row_ptr[i + 1]; ++k)
        if (Ah.col_idx[k] == i) Ah.values[k] *= 1.0 + 0.5 * std::sin(0.7 * i) * std::sin(0.7 * i);
    const auto A = to_device<Dev>(Ah);
    const int n = Ah.nrows;
    std::vector<double> rh(n);
    for (int i = 0; i < n; ++i) rh[i] = 1.0 + std::sin(0.3 * i);
    const V r = to_device<Dev>(rh);
    const std::string common = "mode=deterministic,tri_solve=exact,tri_solve_one_team_entries=";
    auto sep = make_preconditioner<double, Dev>(prec, A, parse_parameter_string(common + "0"));
    auto one = make_preconditioner<double, Dev>(prec, A, parse_parameter_string(common + "1000000"));
    sep->compute();
    one->compute();
    EXPECT_EQ(sep->description().find("one-team"), std::string::npos) << sep->description();
    EXPECT_NE(one->description().find("exact(one-team) tri-solve in one launch"), std::string::npos)
        << one->description();
    V z_sep("z_sep", n), z_one("z_one", n), s("s", 2);
    sep->apply(r, z_sep);
    one->apply(r, z_one);
    const auto zs = to_std_vector(z_sep);
    EXPECT_LT(max_rel_diff(to_std_vector(z_one), zs), 1e-13);
    V z_dot("z_dot", n);
    ASSERT_TRUE(one->apply_dot(r, z_dot, s, 1));
    const auto zd = to_std_vector(z_dot);
    EXPECT_EQ(zd, to_std_vector(z_one));
    double rz = 0;
    for (int i = 0; i < n; ++i) rz += rh[i] * zd[i];
    EXPECT_NEAR(to_std_vector(s)[1], rz, 1e-12 * std::abs(rz));
    V z_in = to_device<Dev>(rh);  // in place
    one->apply(z_in, z_in);
    EXPECT_EQ(to_std_vector(z_in), zd);
  }
}

TEST(TEST_CATEGORY, exact_one_team_pair_of_unequal_triangles) {
  // L and U with different entry and level counts: the pair's scratch memory is sized by the larger of each
  // L: the most levels (a chain), the fewest entries; U: more entries, fewer levels
  const auto L = chain(300), U = Reference::transpose(random_lower(300, 6));
  ASSERT_GT(host_levels(L, true), host_levels(U, false));
  ASSERT_LT(L.nnz(), U.nnz());
  TriSolveOptions o;
  o.kind = TriSolveKind::Exact;
  o.one_team_entries = 1000000;
  Impl::FactorApply<double, Dev> fa;
  fa.setup(to_device<Dev>(L), to_device<Dev>(U), false, V(), o);
  EXPECT_TRUE(fa.one_team());
  EXPECT_EQ(fa.mode(), "exact(one-team)");
  const auto b = rhs(300);
  V z("z", 300);
  fa.apply(to_device<Dev>(b), z);
  const auto ref = Reference::upper_solve(U, Reference::lower_solve(L, b, false));
  EXPECT_LT(max_rel_diff(to_std_vector(z), ref), 1e-13);
}

TEST(TEST_CATEGORY, exact_one_team_is_the_gpu_default_for_small_triangles) {
  const bool gpu = Impl::is_gpu_space<typename Dev::execution_space>();
  for (int m : {20, 40}) {  // 400 rows (fits one team's scratch memory) and 1,600 (does not)
    const auto Ah = lap2d(m);
    const auto L = Reference::ic0(Ah);
    const bool fits = Impl::exact_one_team_fits<typename Dev::execution_space, double>(L.nrows, L.nnz() - L.nrows);
    if (m == 20) EXPECT_TRUE(fits);  // about 16 KB; every backend's team scratch holds at least 32 KB
    TriangularSolver<double, Dev> S;
    S.setup(to_device<Dev>(L), true, false, TriSolveKind::Exact);
    EXPECT_EQ(S.exact_one_team(), gpu && fits) << S.stats().mode();
    auto P = make_preconditioner<double, Dev>("par_ic", to_device<Dev>(Ah), parse_parameter_string("tri_solve=exact"));
    P->compute();
    EXPECT_EQ(P->description().find("exact(one-team) tri-solve in one launch") != std::string::npos, gpu && fits)
        << P->description();
    // one_team_entries below the triangle's entries: the other algorithm
    TriSolveOptions o;
    o.kind = TriSolveKind::Exact;
    o.one_team_entries = L.nnz() - 1;
    S.setup(to_device<Dev>(L), true, false, o);
    EXPECT_FALSE(S.exact_one_team()) << S.stats().mode();
    // exactly the triangle's entries: one team on every backend where it fits
    o.one_team_entries = L.nnz();
    S.setup(to_device<Dev>(L), true, false, o);
    EXPECT_EQ(S.exact_one_team(), fits) << S.stats().mode();
  }
}

TEST(TEST_CATEGORY, exact_one_team_bad_input) {
  // a triangle too large for one team's scratch memory (the first grid whose IC(0) factor does not fit this
  // backend's), asked for explicitly: InvalidInput naming the sizes
  using Exec = typename Dev::execution_space;
  int m = 10;
  for (; m < 1000; m += 5) {
    const std::int64_t n = std::int64_t(m) * m, offdiag = 2 * std::int64_t(m - 1) * m;
    if (!Impl::exact_one_team_fits<Exec, double>(n, offdiag)) break;
  }
  ASSERT_LT(m, 1000);
  const auto L = Reference::ic0(lap2d(m));
  TriangularSolver<double, Dev> S;
  S.set_exact_algorithm(ExactAlgorithm::OneTeam);
  try {
    S.setup(to_device<Dev>(L), true, false, TriSolveKind::Exact);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("scratch memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(m * m) + " rows"), std::string::npos) << e.what();
  }
  // a zero diagonal: BreakdownError with the row, as for every exact algorithm
  auto Z = Reference::ic0(lap2d(6));
  Z.values[Z.row_ptr[8] - 1] = 0.0;  // the diagonal of row 7
  try {
    S.setup(to_device<Dev>(Z), true, false, TriSolveKind::Exact);
    ADD_FAILURE() << "no exception";
  } catch (const BreakdownError& e) {
    EXPECT_NE(std::string(e.what()).find("row 7"), std::string::npos) << e.what();
  }
  // the one-team functor of a solver that is not a one-team exact solver: InvalidInput, no launch
  TriangularSolver<double, Dev> serial;
  serial.set_exact_algorithm(ExactAlgorithm::Serial);
  serial.setup(to_device<Dev>(Reference::ic0(lap2d(6))), true, false, TriSolveKind::Exact);
  EXPECT_THROW((TriangularSolver<double, Dev>::exact_one_team_functor(serial, nullptr, V("b", 36), V("x", 36))),
               InvalidInput);
  // a non-finite off-diagonal value: InvalidInput
  auto N = Reference::ic0(lap2d(6));
  N.values[N.row_ptr[8] - 2] = std::nan("");
  EXPECT_THROW(S.setup(to_device<Dev>(N), true, false, TriSolveKind::Exact), InvalidInput);
}

TEST(TEST_CATEGORY, exact_one_team_level_sets_that_do_not_fit) {
  // a chain whose entries fit one team's scratch memory with one level but not with its n levels (found for this
  // backend's scratch size): explicit OneTeam throws naming the levels, Auto falls back to the other algorithm
  using Exec = typename Dev::execution_space;
  int n = 8;
  while (n < (1 << 20) &&
         !(Impl::exact_one_team_fits<Exec, double>(n, n - 1) && !Impl::exact_one_team_fits<Exec, double>(n, n - 1, n)))
    n += 8;
  ASSERT_LT(n, 1 << 20);
  const auto C = chain(n);
  TriangularSolver<double, Dev> S;
  S.set_exact_algorithm(ExactAlgorithm::OneTeam);
  try {
    S.setup(to_device<Dev>(C), true, false, TriSolveKind::Exact);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(n) + " level(s)"), std::string::npos) << e.what();
  }
  TriSolveOptions o;
  o.kind = TriSolveKind::Exact;
  o.one_team_entries = 1000000;
  TriangularSolver<double, Dev> T;
  T.setup(to_device<Dev>(C), true, false, o);
  EXPECT_FALSE(T.exact_one_team()) << T.stats().mode();
  const auto b = rhs(n);
  V x("x", n);
  T.solve(to_device<Dev>(b), x);
  EXPECT_LT(max_rel_diff(to_std_vector(x), Reference::lower_solve(C, b, false)), 1e-13);
}

}  // namespace test_trisolve_one_team
