// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CG and GMRES: convergence against known solutions, preconditioner hook, failure statuses; the fused
// kernels against plain references and the fused CG against the textbook (Reference) loop.
#include <KokkosBlas1_update.hpp>
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_preconditioner.hpp>
#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>
#include <support/TestHelpers.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace test_krylov {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using V = Kokkos::View<double*, Dev>;

// b = A * x_true with x_true(i) = sin(i); returns the error max |x - x_true|.
template <class Solve>
double solve_known(const CsrHost<double>& Ah, Solve solve, SolverResult& res) {
  auto A = to_device<Dev>(Ah);
  std::vector<double> xt(Ah.nrows);
  for (int i = 0; i < Ah.nrows; ++i) xt[i] = std::sin(0.1 * i) + 0.5;
  auto xtrue = to_device<Dev>(xt);
  V b("b", Ah.nrows), x("x", Ah.nrows);
  Blas<double, Dev>::spmv(1.0, A, xtrue, 0.0, b);
  res = solve(A, b, x);
  auto xh = to_std_vector(x);
  double err = 0;
  for (int i = 0; i < Ah.nrows; ++i) err = std::max(err, std::abs(xh[i] - xt[i]));
  return err;
}

TEST(TEST_CATEGORY, cg_solves_laplacian_and_jacobi_helps_on_badly_scaled) {
  SolverParams p;
  p.tol = 1e-10;
  SolverResult r;
  auto Ah = lap2d(20);
  double err = solve_known(
      Ah, [&](auto& A, auto& b, auto& x) { return cg<double, Dev>(A, b, x, nullptr, p); }, r);
  EXPECT_TRUE(r.converged());
  EXPECT_LE(r.final_relative_residual, 1e-9);
  EXPECT_LT(err, 1e-7);
  EXPECT_EQ(static_cast<int>(r.residual_history.size()), r.iterations + 1);
  EXPECT_LE(r.iterations, 100);  // CG on n=400 converges well before n iterations

  // badly row/column scaled SPD matrix: Jacobi preconditioning must cut iterations
  for (int i = 0; i < Ah.nrows; ++i)
    for (int k = Ah.row_ptr[i]; k < Ah.row_ptr[i + 1]; ++k) {
      const int j = Ah.col_idx[k];
      Ah.values[k] *= (1.0 + 99.0 * (i % 7 == 0)) * (1.0 + 99.0 * (j % 7 == 0));
    }
  SolverResult r_plain, r_jac;
  solve_known(
      Ah, [&](auto& A, auto& b, auto& x) { return cg<double, Dev>(A, b, x, nullptr, p); }, r_plain);
  err = solve_known(
      Ah,
      [&](auto& A, auto& b, auto& x) {
        JacobiPreconditioner<double, Dev> M(A);
        M.compute();
        return cg<double, Dev>(A, b, x, &M, p);
      },
      r_jac);
  EXPECT_TRUE(r_jac.converged());
  EXPECT_LT(err, 1e-6);
  EXPECT_LT(r_jac.iterations, r_plain.iterations);
}

TEST(TEST_CATEGORY, blas_rhs_and_residual_norms_in_one_pass) {
  // r = b - A x and {||b||, ||r||} against the host's sums (the solvers' start: one pass, one wait)
  const auto Ah = lap2d(9);
  const auto A = to_device<Dev>(Ah);
  const auto n = static_cast<std::size_t>(Ah.nrows);
  std::vector<double> xh(n), bh(n);
  for (std::size_t i = 0; i < n; ++i) {
    xh[i] = std::cos(0.7 * static_cast<double>(i));
    bh[i] = 1.0 + 0.01 * static_cast<double>(i);
  }
  const V x = to_device<Dev>(xh), b = to_device<Dev>(bh), r("r", n);
  const auto norms = Blas<double, Dev>::rhs_and_residual_norms(A, x, b, r);
  double b2 = 0, r2 = 0;
  const auto rh = to_std_vector(r);
  for (std::size_t i = 0; i < n; ++i) {
    double ax = 0;
    for (auto p = Ah.row_ptr[i]; p < Ah.row_ptr[i + 1]; ++p) ax += Ah.values[p] * xh[Ah.col_idx[p]];
    EXPECT_NEAR(rh[i], bh[i] - ax, 1e-13) << i;
    b2 += bh[i] * bh[i];
    r2 += (bh[i] - ax) * (bh[i] - ax);
  }
  EXPECT_NEAR(norms.first, std::sqrt(b2), 1e-12 * std::sqrt(b2));
  EXPECT_NEAR(norms.second, std::sqrt(r2), 1e-12 * std::sqrt(r2));
  const double again = Blas<double, Dev>::residual(A, x, b, r);
  EXPECT_NEAR(norms.second, again, 1e-12 * std::sqrt(r2));
  // a non-finite right-hand side shows in its norm
  bh[3] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(std::isfinite(Blas<double, Dev>::rhs_and_residual_norms(A, x, to_device<Dev>(bh), r).first));
}

TEST(TEST_CATEGORY, gmres_solves_nonsymmetric) {
  const auto Ah = AsyncSparse::Test::nonsymmetric_lap2d(16);
  SolverParams p;
  p.tol = 1e-10;
  p.restart = 20;
  SolverResult r;
  double err = solve_known(
      Ah, [&](auto& A, auto& b, auto& x) { return gmres<double, Dev>(A, b, x, nullptr, p); }, r);
  EXPECT_TRUE(r.converged()) << r.message;
  EXPECT_LE(r.final_relative_residual, 1e-10);
  EXPECT_LT(err, 1e-7);
  EXPECT_GT(r.iterations, p.restart);  // needed restarts on this problem
  SolverResult rj;
  err = solve_known(
      Ah,
      [&](auto& A, auto& b, auto& x) {
        JacobiPreconditioner<double, Dev> M(A);
        M.compute();
        return gmres<double, Dev>(A, b, x, &M, p);
      },
      rj);
  EXPECT_TRUE(rj.converged());
  EXPECT_LT(err, 1e-7);
  // GMRES(m) on SPD lap2d, no restart: agrees with CG's residual-minimisation bound (fewer or equal its.)
  SolverParams q;
  q.restart = 200;
  q.tol = 1e-8;
  SolverResult rg, rc;
  solve_known(
      lap2d(12), [&](auto& A, auto& b, auto& x) { return gmres<double, Dev>(A, b, x, nullptr, q); }, rg);
  solve_known(
      lap2d(12), [&](auto& A, auto& b, auto& x) { return cg<double, Dev>(A, b, x, nullptr, q); }, rc);
  EXPECT_LE(rg.iterations, rc.iterations);
}

TEST(TEST_CATEGORY, krylov_reports_failures) {
  SolverParams p;
  SolverResult r;
  // indefinite symmetric matrix: CG must report breakdown (or at least not claim convergence with garbage)
  CsrHost<double> A = csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1.0, 2.0, 2.0, 1.0});
  auto Ad = to_device<Dev>(A);
  V b("b", 2), x("x", 2);
  b = to_device<Dev>(std::vector<double>{1.0, -1.0});
  r = cg<double, Dev>(Ad, b, x, nullptr, p);
  EXPECT_EQ(r.status, SolverStatus::Breakdown);
  EXPECT_NE(r.message.find("not SPD"), std::string::npos) << r.message;

  // NaN in the right-hand side
  Kokkos::deep_copy(b, std::numeric_limits<double>::quiet_NaN());
  r = cg<double, Dev>(Ad, b, x, nullptr, p);
  EXPECT_EQ(r.status, SolverStatus::NonFinite);
  r = gmres<double, Dev>(Ad, b, x, nullptr, p);
  EXPECT_EQ(r.status, SolverStatus::NonFinite);

  // zero rhs: x = 0 exactly, no iteration, a history of one zero residual where histories are recorded (both solvers
  // start alike: Impl::krylov_start)
  Kokkos::deep_copy(b, 0.0);
  for (const bool history : {true, false})
    for (const bool use_cg : {true, false}) {
      SCOPED_TRACE(std::string(use_cg ? "cg" : "gmres") + (history ? ", histories" : ", no histories"));
      SolverParams q = p;
      q.record_history = history;
      Kokkos::deep_copy(x, 3.0);
      r = use_cg ? cg<double, Dev>(Ad, b, x, nullptr, q) : gmres<double, Dev>(Ad, b, x, nullptr, q);
      EXPECT_TRUE(r.converged());
      EXPECT_EQ(r.iterations, 0);
      EXPECT_EQ(r.b_norm, 0.0);
      EXPECT_EQ(to_std_vector(x), (std::vector<double>{0.0, 0.0}));
      EXPECT_EQ(r.residual_history, history ? std::vector<double>{0.0} : std::vector<double>{});
      EXPECT_EQ(r.time_history.size(), r.residual_history.size());
    }
  // the result line of a b = 0 solve (verbose 1), as after iterations
  for (const bool use_cg : {true, false}) {
    SolverParams q = p;
    q.verbose = 1;
    testing::internal::CaptureStderr();
    r = use_cg ? cg<double, Dev>(Ad, b, x, nullptr, q) : gmres<double, Dev>(Ad, b, x, nullptr, q);
    const std::string line = testing::internal::GetCapturedStderr();
    EXPECT_NE(line.find(std::string(use_cg ? "cg" : "gmres") + ": converged after 0 iterations"), std::string::npos)
        << line;
  }

  // wrong sizes / non-square
  V b3("b3", 3);
  ASYNCSPARSE_EXPECT_THROW_MSG((cg<double, Dev>(Ad, b3, x, nullptr, p)), InvalidInput, "x and b must have 2");
  auto R = to_device<Dev>(csr_from_triplets<double>(2, 3, {0, 1}, {0, 1}, {1.0, 1.0}));
  ASYNCSPARSE_EXPECT_THROW_MSG((gmres<double, Dev>(R, b, x, nullptr, p)), InvalidInput, "must be square");
  p.restart = 0;
  ASYNCSPARSE_EXPECT_THROW_MSG((gmres<double, Dev>(Ad, b, x, nullptr, p)), InvalidInput, "restart");
}

TEST(TEST_CATEGORY, jacobi_preconditioner_errors_and_interface) {
  // zero diagonal in row 1, missing diagonal in row 2
  auto Z = to_device<Dev>(csr_from_triplets<double>(3, 3, {0, 1, 1, 2}, {0, 0, 1, 0}, {1.0, 1.0, 0.0, 1.0}));
  JacobiPreconditioner<double, Dev> M(Z);
  ASYNCSPARSE_EXPECT_THROW_MSG(M.compute(), InvalidInput, "zero diagonal entry in row 1");
  auto Mi = to_device<Dev>(csr_from_triplets<double>(3, 3, {0, 1, 2}, {0, 1, 0}, {1.0, 2.0, 1.0}));
  JacobiPreconditioner<double, Dev> M2(Mi);
  ASYNCSPARSE_EXPECT_THROW_MSG(M2.compute(), InvalidInput, "missing diagonal entry in row 2");
  V x("x", 3), y("y", 3);
  ASYNCSPARSE_EXPECT_THROW_MSG(M2.apply(x, y), InvalidInput, "compute() must be called before apply()");
  ASYNCSPARSE_EXPECT_THROW_MSG(M2.setParameters(ParameterList{{"sweeps", 3}}), InvalidInput,
                               "unknown parameter 'sweeps'");

  auto D = to_device<Dev>(csr_from_triplets<double>(3, 3, {0, 1, 2}, {0, 1, 2}, {2.0, 4.0, 8.0}));
  JacobiPreconditioner<double, Dev> M3(D);
  EXPECT_FALSE(M3.isComputed());
  M3.compute();
  EXPECT_TRUE(M3.isInitialized());
  EXPECT_TRUE(M3.isComputed());
  Kokkos::deep_copy(x, 8.0);
  Kokkos::deep_copy(y, 1.0);
  M3.apply(x, y, 2.0, 3.0);  // y = 3*1 + 2 * x / d
  EXPECT_EQ(to_std_vector(y), (std::vector<double>{11.0, 7.0, 5.0}));
  EXPECT_EQ(M3.getNumApply(), 1);
  EXPECT_EQ(M3.getNumCompute(), 1);
  EXPECT_EQ(M3.getNumInitialize(), 1);
}
}  // namespace test_krylov

namespace test_krylov {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using V = Kokkos::View<double*, Dev>;

/// M⁻¹ = c I: c < 0 makes PCG's rᵀz negative (not SPD), c = NaN makes it NaN.
class ScaledIdentity final : public PreconditionerBase<double, Dev> {
 public:
  /// `as_diagonal`: also says that it is the diagonal c I (diagonal_scaling), which solvers may apply themselves
  ScaledIdentity(const Crs<double, Dev>& A, double c, bool as_diagonal = false)
      : PreconditionerBase<double, Dev>(A), c_(c) {
    if (as_diagonal) {
      d_ = vector_type("AsyncSparse::test::scaled_identity", static_cast<std::size_t>(A.numRows()));
      Kokkos::deep_copy(d_, c);
    }
  }
  std::string name() const override { return "ScaledIdentity"; }
  const_vector_type diagonal_scaling() const override { return d_; }
  const ParameterSpec& parameter_spec() const override {
    static const ParameterSpec spec;
    return spec;
  }

 protected:
  void compute_impl() override {}
  void apply_impl(const const_vector_type& x, const vector_type& z) override {
    Blas<double, Dev>::axpby(c_, x, 0.0, z);
  }

 private:
  double c_;
  vector_type d_;
};

std::vector<double> random_vector(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& e : v) e = u(rng);
  return v;
}

// lap2d(12) with rows and columns scaled by 1..100 (SPD, condition number far above the Laplacian's).
CsrHost<double> badly_scaled(int m) {
  auto A = lap2d(m);
  for (int i = 0; i < A.nrows; ++i)
    for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const int j = A.col_idx[k];
      A.values[k] *= (1.0 + 99.0 * (i % 5 == 0)) * (1.0 + 99.0 * (j % 5 == 0));
    }
  return A;
}

TEST(TEST_CATEGORY, krylov_kernels_spmv_dot_and_cg_update) {
  // irregular rows (0 to 27 entries): lap3d27(4) with a few rows emptied
  auto Ah = lap3d27(4);
  const int n = Ah.nrows;
  const auto A = to_device<Dev>(Ah);
  const auto xh = random_vector(n, 1), ph = random_vector(n, 2);
  const V x = to_device<Dev>(xh), pold = to_device<Dev>(ph);
  V y("y", n), yref("yref", n), pnew("pnew", n), s("s", 4);
  Blas<double, Dev>::spmv(1.0, A, x, 0.0, yref);
  using exec = typename Dev::execution_space;
  const bool gpu = Impl::is_gpu_space<exec>();
  // the default launch (on GPUs one thread per row for these short rows), lane counts a GPU may choose (host
  // backends: only 1), and one thread per row forced with both block sizes (host backends never choose it, but its
  // range launch runs there too)
  std::vector<Impl::SpmvLaunch> launches = {Impl::spmv_launch<exec>(n, Ah.nnz())};
  EXPECT_EQ(launches[0].row_per_thread, gpu);
  for (int vl : {1, 2, 8}) {
    if (!gpu && vl > 1) continue;
    LaunchConfig cfg;
    cfg.vector_length = vl;
    launches.push_back(Impl::spmv_launch<exec>(n, Ah.nnz(), cfg));
    EXPECT_FALSE(launches.back().row_per_thread);
  }
  for (const bool bounded : {false, true}) {
    auto l = launches[0];
    l.row_per_thread = true;
    l.bounded_blocks = bounded;
    launches.push_back(l);
  }
  for (const auto& l : launches) {
    Kokkos::deep_copy(y, 0.0);
    const Impl::TeamSumScratch<Dev> team_sums(l);
    Impl::spmv_dot<double, Dev>(A, x, y, s, 1, l, team_sums);
    const auto yh = to_std_vector(y), yr = to_std_vector(yref);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(yh[i], yr[i], 1e-12 * (1 + std::abs(yr[i]))) << "row " << i;
    const double d = Blas<double, Dev>::dot(x, yref);
    EXPECT_NEAR(to_std_vector(s)[1], d, 1e-11 * std::abs(d));
    // the reduction with another vector: s(1) = p_oldᵀ (A x)
    Impl::spmv_dot<double, Dev>(A, x, y, s, 1, l, team_sums, pold);
    const double dp = Blas<double, Dev>::dot(pold, yref);
    EXPECT_NEAR(to_std_vector(s)[1], dp, 1e-11 * std::abs(dp));

    // p_new = z + β p_old with β = s(2) / s(3) = 0.5; y = A p_new; s(0) = p_newᵀ y
    auto sh = Kokkos::create_mirror_view(s);
    sh(2) = 1.0;
    sh(3) = 2.0;
    Kokkos::deep_copy(s, sh);
    Impl::cg_direction_spmv<double, Dev>(A, x, pold, pnew, y, s, 2, 3, 0, l, team_sums);
    V pref("pref", n);
    KokkosBlas::update(1.0, x, 0.5, pold, 0.0, pref);
    Blas<double, Dev>::spmv(1.0, A, pref, 0.0, yref);
    const auto pn = to_std_vector(pnew), pr = to_std_vector(pref);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(pn[i], pr[i], 1e-14 * (1 + std::abs(pr[i])));
    const auto yh2 = to_std_vector(y), yr2 = to_std_vector(yref);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(yh2[i], yr2[i], 1e-12 * (1 + std::abs(yr2[i])));
    const double d2 = Blas<double, Dev>::dot(pref, yref);
    EXPECT_NEAR(to_std_vector(s)[0], d2, 1e-11 * std::abs(d2));
    Blas<double, Dev>::spmv(1.0, A, x, 0.0, yref);
  }

  // the reduction's other vector must have y's length and must not be y
  const auto l0 = Impl::spmv_launch<typename Dev::execution_space>(n, Ah.nnz());
  EXPECT_THROW((Impl::spmv_dot<double, Dev>(A, x, y, s, 1, l0, Impl::TeamSumScratch<Dev>(l0), y)), InvalidInput);
  EXPECT_THROW((Impl::spmv_dot<double, Dev>(A, x, y, s, 1, l0, Impl::TeamSumScratch<Dev>(l0), V("short", n - 1))),
               InvalidInput);

  // cg_update: α = s(0)/s(1) = 0.25; x += α p; r −= α q; s(2) = ‖r‖². A negative s(1) leaves x, r alone.
  const V xx = to_device<Dev>(xh), r = to_device<Dev>(ph), p = to_device<Dev>(random_vector(n, 3)),
          q = to_device<Dev>(random_vector(n, 4));
  auto sh = Kokkos::create_mirror_view(s);
  sh(0) = 1.0;
  sh(1) = 4.0;
  Kokkos::deep_copy(s, sh);
  const auto vl = Impl::vector_launch<typename Dev::execution_space>(n);
  const Impl::TeamSumScratch<Dev> vsums(vl.league_size);
  Impl::cg_update<double, Dev>(xx, r, p, q, s, 0, 1, 2, vl, vsums);
  const auto xo = to_std_vector(xx), ro = to_std_vector(r), po = to_std_vector(p), qo = to_std_vector(q);
  double rr = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_DOUBLE_EQ(xo[i], xh[i] + 0.25 * po[i]);
    EXPECT_DOUBLE_EQ(ro[i], ph[i] - 0.25 * qo[i]);
    rr += ro[i] * ro[i];
  }
  EXPECT_NEAR(to_std_vector(s)[2], rr, 1e-12 * rr);
  for (double bad : {-4.0, 0.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    sh(1) = bad;
    Kokkos::deep_copy(s, sh);
    Impl::cg_update<double, Dev>(xx, r, p, q, s, 0, 1, 2, vl, vsums);
    EXPECT_EQ(to_std_vector(xx), xo) << "pq = " << bad;
    EXPECT_EQ(to_std_vector(r), ro) << "pq = " << bad;
  }
}

TEST(TEST_CATEGORY, krylov_kernels_team_sums_many_teams) {
  // enough rows for hundreds of teams on a GPU and several per thread on a host: the sums of spmv_dot, dot_into
  // and cg_update against Kokkos-Kernels' dot, and the same bits when repeated (fixed summation order)
  const auto Ah = lap2d(300);
  const int n = Ah.nrows;
  const auto A = to_device<Dev>(Ah);
  const V x = to_device<Dev>(random_vector(n, 5)), y("y", n), s("s", 3);
  const auto l = Impl::spmv_launch<typename Dev::execution_space>(n, Ah.nnz());
  const auto vl = Impl::vector_launch<typename Dev::execution_space>(n);
  ASSERT_GE(vl.league_size, 2);
  ASSERT_GE(l.league_size, 2);
  const Impl::TeamSumScratch<Dev> sums(std::max(l.league_size, vl.league_size));
  std::vector<double> first;
  for (int rep = 0; rep < 3; ++rep) {
    Impl::spmv_dot<double, Dev>(A, x, y, s, 0, l, sums);
    Impl::dot_into<double, Dev>(x, x, s, 1, vl, sums);
    const auto sh = to_std_vector(s);
    const double xy = Blas<double, Dev>::dot(x, y), xx = Blas<double, Dev>::dot(x, x);
    EXPECT_NEAR(sh[0], xy, 1e-12 * std::abs(xy));
    EXPECT_NEAR(sh[1], xx, 1e-12 * xx);
    if (rep == 0)
      first = sh;
    else
      EXPECT_EQ(sh, first) << "repetition " << rep;
  }
  // a scratch made for fewer teams than the launch has is reported, not overrun (a team launch: the row-per-thread
  // launch of GPUs sums through Kokkos and takes no scratch)
  const Impl::TeamSumScratch<Dev> small(1);
  LaunchConfig team_cfg;
  team_cfg.vector_length = 1;
  const auto lt = Impl::spmv_launch<typename Dev::execution_space>(n, Ah.nnz(), team_cfg);
  ASSERT_FALSE(lt.row_per_thread);
  ASSERT_GE(lt.league_size, 2);
  EXPECT_THROW((Impl::spmv_dot<double, Dev>(A, x, y, s, 0, lt, small)), InvalidInput);
  EXPECT_THROW((Impl::dot_into<double, Dev>(x, x, s, 1, vl, small)), InvalidInput);
}

TEST(TEST_CATEGORY, krylov_kernels_cg_update_diagonal_and_lane_rule) {
  // cg_update_diagonal: the update of cg_update plus z = d ∘ r and rᵀz in the same pass, on enough elements for
  // several teams
  const int n = 70000;
  const auto xh = random_vector(n, 21), rh = random_vector(n, 22), ph = random_vector(n, 23),
             qh = random_vector(n, 24), dh = random_vector(n, 25);
  const V x = to_device<Dev>(xh), r = to_device<Dev>(rh), p = to_device<Dev>(ph), q = to_device<Dev>(qh),
          d = to_device<Dev>(dh), z("z", n), s("s", 4);
  auto sh = Kokkos::create_mirror_view(s);
  sh(0) = 3.0;
  sh(1) = 6.0;
  Kokkos::deep_copy(s, sh);
  const auto vl = Impl::vector_launch<typename Dev::execution_space>(n);
  const Impl::TeamSumScratch<Dev> sums(vl.league_size, 2);
  Impl::cg_update_diagonal<double, Dev>(x, r, p, q, d, z, s, 0, 1, 2, 3, vl, sums);
  const auto xo = to_std_vector(x), ro = to_std_vector(r), zo = to_std_vector(z);
  double rr = 0, rz = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_DOUBLE_EQ(xo[i], xh[i] + 0.5 * ph[i]);
    EXPECT_DOUBLE_EQ(ro[i], rh[i] - 0.5 * qh[i]);
    EXPECT_DOUBLE_EQ(zo[i], dh[i] * ro[i]);
    rr += ro[i] * ro[i];
    rz += ro[i] * zo[i];
  }
  const auto so = to_std_vector(s);
  EXPECT_NEAR(so[2], rr, 1e-12 * rr);
  EXPECT_NEAR(so[3], rz, 1e-12 * std::abs(rz));
  // a scratch with room for one sum per team is too small for two
  EXPECT_THROW((Impl::cg_update_diagonal<double, Dev>(x, r, p, q, d, z, s, 0, 1, 2, 3, vl,
                                                      Impl::TeamSumScratch<Dev>(vl.league_size, 1))),
               InvalidInput);
  // scale_dot, the same z and rᵀz in a pass of their own (large systems on GPUs)
  const V z2("z2", n);
  Impl::scale_dot<double, Dev>(d, r, z2, s, 1, vl, sums);
  EXPECT_EQ(to_std_vector(z2), zo);
  EXPECT_NEAR(to_std_vector(s)[1], rz, 1e-12 * std::abs(rz));

  // the lanes-per-row rule of the CRS kernels on GPUs (MEASUREMENTS.md#spmv-lanes)
  EXPECT_EQ(Impl::spmv_vector_length(1.0), 1);
  EXPECT_EQ(Impl::spmv_vector_length(5.0), 2);
  EXPECT_EQ(Impl::spmv_vector_length(5238784.0 / 1048576.0), 2);  // L2D 1024²
  EXPECT_EQ(Impl::spmv_vector_length(3.9), 1);
  EXPECT_EQ(Impl::spmv_vector_length(26.2), 8);
  EXPECT_EQ(Impl::spmv_vector_length(1000.0), 32);
  // one thread per row on GPUs for short rows, with the default launch only (MEASUREMENTS.md#spmv-row-per-thread)
  using exec = typename Dev::execution_space;
  const bool gpu = Impl::is_gpu_space<exec>();
  EXPECT_EQ(Impl::spmv_launch<exec>(1048576, 5238784).row_per_thread, gpu);
  EXPECT_FALSE(Impl::spmv_launch<exec>(1048576, 5238784).bounded_blocks);
  EXPECT_EQ(Impl::spmv_launch<exec>(262144, 3560000).row_per_thread, gpu);  // 13.6 per row: 256-thread blocks
  EXPECT_TRUE(Impl::spmv_launch<exec>(262144, 3560000).bounded_blocks);
  EXPECT_EQ(Impl::spmv_launch<exec>(262144, 6859000).row_per_thread, gpu);  // 27-point: 26.2 per row
  EXPECT_FALSE(Impl::spmv_launch<exec>(10000, 400000).row_per_thread);      // 40 per row: lane groups
  // the reductions of more than 2^19 rows in passes of their own (MEASUREMENTS.md#separate-reductions)
  EXPECT_EQ(Impl::spmv_launch<exec>(1048576, 5238784).separate_reduction, gpu);
  EXPECT_FALSE(Impl::spmv_launch<exec>(262144, 6859000).separate_reduction);
  EXPECT_FALSE(
      Impl::spmv_launch<exec>(Impl::kFusedReductionMaxRows, 5 * Impl::kFusedReductionMaxRows).separate_reduction);
  LaunchConfig c;
  c.vector_length = 1;
  EXPECT_FALSE(Impl::spmv_launch<exec>(1048576, 5238784, c).row_per_thread);

  // only diagonal Jacobi offers its diagonal to the solvers' fused kernels, and only once computed
  const auto A = to_device<Dev>(lap2d(10));
  JacobiPreconditioner<double, Dev> jac(A);
  EXPECT_EQ(jac.diagonal_scaling().extent(0), 0u);
  jac.compute();
  ASSERT_EQ(jac.diagonal_scaling().extent(0), 100u);
  EXPECT_DOUBLE_EQ(to_std_vector(jac.diagonal_scaling())[0], 0.25);
  auto ilu = make_preconditioner<double, Dev>("par_ic", A, ParameterList{});
  ilu->compute();
  EXPECT_EQ(ilu->diagonal_scaling().extent(0), 0u);
}

TEST(TEST_CATEGORY, krylov_preconditioner_apply_dot) {
  // apply_dot: z = M⁻¹ r and s(slot) = rᵀz in the preconditioner's last pass, where it can (ParIc with ISAI
  // solves on GPUs: the upper solve's product; see TestTriSolve for the solver); z bit for bit as apply() gives
  // it, counted as an application; elsewhere false and nothing done. PCG uses it for rᵀz.
  const bool gpu = Impl::is_gpu_space<typename Dev::execution_space>();
  const auto A = to_device<Dev>(lap2d(40));
  const int n = 1600;
  ParameterList pl;
  pl.set("tri_solve", std::string("isai"));
  auto P = make_preconditioner<double, Dev>("par_ic", A, pl);
  P->compute();
  const V r = to_device<Dev>(random_vector(n, 32)), z1("z1", n), z2("z2", n), s("s", 3);
  Kokkos::deep_copy(z2, -1.0);
  P->apply(r, z1);
  const int applies = P->getNumApply();
  ASSERT_EQ(P->apply_dot(r, z2, s, 1), gpu);
  EXPECT_EQ(P->getNumApply(), applies + (gpu ? 1 : 0));
  if (gpu) {
    EXPECT_EQ(to_std_vector(z2), to_std_vector(z1));
    const double rz = Blas<double, Dev>::dot(r, z1);
    EXPECT_NEAR(to_std_vector(s)[1], rz, 1e-12 * std::abs(rz));
  } else {
    EXPECT_EQ(to_std_vector(z2), std::vector<double>(n, -1.0));
  }
  EXPECT_THROW(P->apply_dot(r, V("short", n - 1), s, 1), InvalidInput);
  EXPECT_THROW(P->apply_dot(r, z2, s, 3), InvalidInput);  // slot outside s: nothing applied
  EXPECT_EQ(P->getNumApply(), applies + (gpu ? 1 : 0));
  const V w = to_device<Dev>(random_vector(n, 32));
  EXPECT_FALSE(P->apply_dot(w, w, s, 1));    // in place: the caller applies and sums itself
  JacobiPreconditioner<double, Dev> jac(A);  // the interface's default: no fused form
  jac.compute();
  EXPECT_FALSE(jac.apply_dot(r, z2, s, 1));

  // PCG through apply_dot against PCG through apply() and its own rᵀz pass (the same preconditioner behind a
  // wrapper without apply_dot): the same iterations, residual histories equal to rounding
  struct NoFusedDot final : Preconditioner<double, Dev> {
    Preconditioner<double, Dev>* p;
    explicit NoFusedDot(Preconditioner<double, Dev>* q) : p(q) {}
    void setParameters(const ParameterList& l) override { p->setParameters(l); }
    void setMatrix(const matrix_type& M) override { p->setMatrix(M); }
    void initialize() override { p->initialize(); }
    void compute() override { p->compute(); }
    void apply(const const_vector_type& x, const vector_type& y, double a, double b) override { p->apply(x, y, a, b); }
    bool isInitialized() const override { return p->isInitialized(); }
    bool isComputed() const override { return p->isComputed(); }
    int getNumInitialize() const override { return p->getNumInitialize(); }
    int getNumCompute() const override { return p->getNumCompute(); }
    int getNumApply() const override { return p->getNumApply(); }
    double getInitializeTime() const override { return p->getInitializeTime(); }
    double getComputeTime() const override { return p->getComputeTime(); }
    double getApplyTime() const override { return p->getApplyTime(); }
    std::string description() const override { return p->description(); }
  } plain(P.get());
  SolverParams sp;
  sp.tol = 1e-10;
  sp.implementation = KrylovImplementation::Fused;
  const V b = to_device<Dev>(random_vector(n, 33)), x1("x1", n), x2("x2", n);
  const auto fused = cg<double, Dev>(A, b, x1, P.get(), sp);
  const auto separate = cg<double, Dev>(A, b, x2, &plain, sp);
  ASSERT_TRUE(fused.converged());
  ASSERT_TRUE(separate.converged());
  EXPECT_EQ(fused.iterations, separate.iterations);
  ASSERT_EQ(fused.residual_history.size(), separate.residual_history.size());
  for (std::size_t k = 0; k < fused.residual_history.size(); ++k)
    EXPECT_NEAR(fused.residual_history[k], separate.residual_history[k], 1e-8 * separate.residual_history[k])
        << "iteration " << k;
}

namespace {
/// Host reference of CGS2 against the columns `col`: h1 = Vᵀw, w −= V h1, h2 = Vᵀw, w −= V h2 and ‖w‖² of the result.
struct Cgs2Reference {
  std::vector<double> h1, h2, w;
  double nrm2 = 0, wmax = 0;
};
Cgs2Reference cgs2_reference(const std::vector<std::vector<double>>& col, std::vector<double> w) {
  const int k = static_cast<int>(col.size()), n = static_cast<int>(w.size());
  Cgs2Reference r;
  r.h1.assign(k, 0.0);
  r.h2.assign(k, 0.0);
  for (int c = 0; c < k; ++c)
    for (int i = 0; i < n; ++i) r.h1[c] += col[c][i] * w[i];
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < k; ++c) w[i] -= col[c][i] * r.h1[c];
  for (int c = 0; c < k; ++c)
    for (int i = 0; i < n; ++i) r.h2[c] += col[c][i] * w[i];
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < k; ++c) w[i] -= col[c][i] * r.h2[c];
    r.nrm2 += w[i] * w[i];
    r.wmax = std::max(r.wmax, std::abs(w[i]));
  }
  r.w = std::move(w);
  return r;
}
}  // namespace

TEST(TEST_CATEGORY, krylov_kernels_cgs2_passes) {
  const int n = 1000, k = 7;
  Impl::Basis<double, Dev> Vb("V", n, k);
  auto Vh = Kokkos::create_mirror_view(Vb);
  std::vector<std::vector<double>> col(k);
  for (int c = 0; c < k; ++c) {
    col[c] = random_vector(n, 10 + c);
    for (int i = 0; i < n; ++i) Vh(i, c) = col[c][i];
  }
  Kokkos::deep_copy(Vb, Vh);
  const auto wh = random_vector(n, 99);
  V w = to_device<Dev>(wh), h("h", 2 * k + 1), v("v", n);
  const auto h1 = Kokkos::subview(h, Kokkos::make_pair(0, k));
  const auto h2 = Kokkos::subview(h, Kokkos::make_pair(k, 2 * k));
  const auto nr = Kokkos::subview(h, Kokkos::make_pair(2 * k, 2 * k + 1));
  Impl::ortho_pass<double, Dev>(Impl::OrthoPass::Dot, Vb, k, w, h1, h1);
  Impl::ortho_pass<double, Dev>(Impl::OrthoPass::UpdateDot, Vb, k, w, h1, h2);
  Impl::ortho_pass<double, Dev>(Impl::OrthoPass::UpdateNorm, Vb, k, w, h2, nr);
  Impl::scale_by_norm<double, Dev>(w, v, h, 2 * k);
  // host reference of the same three passes
  const auto ref = cgs2_reference(col, wh);
  const auto &a = ref.h1, &b = ref.h2, &w1 = ref.w;
  const double nrm2 = ref.nrm2, wmax = ref.wmax;
  const auto hh = to_std_vector(h), wo = to_std_vector(w), vo = to_std_vector(v);
  for (int c = 0; c < k; ++c) {
    EXPECT_NEAR(hh[c], a[c], 1e-10 * (1 + std::abs(a[c])));
    EXPECT_NEAR(hh[k + c], b[c], 1e-10 * (1 + std::abs(a[c])));
  }
  EXPECT_NEAR(hh[2 * k], nrm2, 1e-10 * nrm2);
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(wo[i], w1[i], 1e-13 * wmax);
    EXPECT_NEAR(vo[i], w1[i] / std::sqrt(nrm2), 1e-13 * wmax / std::sqrt(nrm2));
  }
  // a zero norm gives v = 0 (the caller ends the cycle), no NaN
  Kokkos::deep_copy(w, 0.0);
  Impl::ortho_pass<double, Dev>(Impl::OrthoPass::UpdateNorm, Vb, 0, w, h2, nr);
  Impl::scale_by_norm<double, Dev>(w, v, h, 2 * k);
  EXPECT_EQ(to_std_vector(v), std::vector<double>(n, 0.0));

  // the one-team launch: the same three passes and scaling into the same slots, v into column k of a wider basis
  // (the columns it reads stay as they were), also for one column and for more columns than a team has threads
  for (const auto& [nn, kk] : std::vector<std::pair<int, int>>{{n, 1}, {n, k}, {n, 40}, {4100, 12}}) {
    SCOPED_TRACE("one team, n = " + std::to_string(nn) + ", k = " + std::to_string(kk));
    Impl::Basis<double, Dev> W("W", nn, kk + 1);
    auto Wh = Kokkos::create_mirror_view(W);
    std::vector<std::vector<double>> cols(kk);
    for (int c = 0; c < kk; ++c) {
      cols[c] = random_vector(nn, 200 + c);
      for (int i = 0; i < nn; ++i) Wh(i, c) = cols[c][i];
    }
    for (int i = 0; i < nn; ++i) Wh(i, kk) = std::numeric_limits<double>::quiet_NaN();  // written, not read
    Kokkos::deep_copy(W, Wh);
    const auto wn = random_vector(nn, 99);
    V w2 = to_device<Dev>(wn), s("s", 2 * kk + 3);
    Impl::arnoldi_one_team<double, Dev>(W, kk, w2, Kokkos::subview(W, Kokkos::ALL(), kk), s, 1, kk + 1, 2 * kk + 2);
    const auto r = cgs2_reference(cols, wn);
    const auto &ra = r.h1, &rb = r.h2, &u = r.w;
    const double un2 = r.nrm2, umax = r.wmax;
    const auto so = to_std_vector(s), w2o = to_std_vector(w2);
    Kokkos::deep_copy(Wh, W);
    EXPECT_EQ(so[0], 0.0);  // slots outside the three ranges untouched
    EXPECT_EQ(so[2 * kk + 1], 0.0);
    for (int c = 0; c < kk; ++c) {
      EXPECT_NEAR(so[1 + c], ra[c], 1e-10 * (1 + std::abs(ra[c])));
      EXPECT_NEAR(so[kk + 1 + c], rb[c], 1e-10 * (1 + std::abs(rb[c])));
    }
    EXPECT_NEAR(so[2 * kk + 2], un2, 1e-10 * un2);
    for (int i = 0; i < nn; ++i) {
      ASSERT_NEAR(w2o[i], u[i], 1e-12 * umax) << i;
      ASSERT_NEAR(Wh(i, kk), u[i] / std::sqrt(un2), 1e-12 * umax / std::sqrt(un2)) << i;
      for (int c = 0; c < kk; ++c) ASSERT_EQ(Wh(i, c), cols[c][i]);
    }
  }
  // one team, a w with a NaN: the norm is not finite, v = 0 (the caller stops the cycle on the norm)
  {
    auto wnan = wh;
    wnan[n / 2] = std::numeric_limits<double>::quiet_NaN();
    V w3 = to_device<Dev>(wnan), s3("s3", 3);
    Impl::Basis<double, Dev> W1("W1", n, 2);
    Kokkos::deep_copy(Kokkos::subview(W1, Kokkos::ALL(), 0), Kokkos::subview(Vb, Kokkos::ALL(), 0));
    Impl::arnoldi_one_team<double, Dev>(W1, 1, w3, Kokkos::subview(W1, Kokkos::ALL(), 1), s3, 0, 1, 2);
    EXPECT_FALSE(std::isfinite(to_std_vector(s3)[2]));
    auto W1h = Kokkos::create_mirror_view(W1);
    Kokkos::deep_copy(W1h, W1);
    for (int i = 0; i < n; ++i) ASSERT_EQ(W1h(i, 1), 0.0) << i;
  }
  // one team, a zero w: v = 0, no NaN
  Kokkos::deep_copy(w, 0.0);
  Impl::arnoldi_one_team<double, Dev>(Vb, k - 1, w, Kokkos::subview(Vb, Kokkos::ALL(), k - 1), h, 0, k, 2 * k);
  EXPECT_EQ(to_std_vector(h)[2 * k], 0.0);
  std::vector<double> last(n);
  Kokkos::deep_copy(Vh, Vb);
  for (int i = 0; i < n; ++i) last[i] = Vh(i, k - 1);
  EXPECT_EQ(last, std::vector<double>(n, 0.0));
}

// The fused CG and the textbook loop compute the same iterates: same iteration count (±1 where the last
// residual sits at the tolerance), residual histories equal to rounding, same solution. Their reductions sum
// in different orders (and differently for different thread counts), so on an ill-conditioned problem the
// rounding differences grow as the iterations lose orthogonality: there (`well_conditioned` false) only the
// first iterations are compared and the iteration counts within 20%. Even on the well-conditioned ones the
// last iterations differ in the sixth digit (Jacobi-scaled lap2d(12) with rows scaled by 100, two threads:
// 1.6e-6 relative at residual 1e-10), hence 1e-5.
void expect_same_cg(const CsrHost<double>& Ah, const std::string& prec, const std::string& what,
                    bool well_conditioned = true) {
  SCOPED_TRACE(what + ", preconditioner " + prec);
  const auto A = to_device<Dev>(Ah);
  SolverParams p;
  p.tol = 1e-10;
  p.max_iterations = 2000;
  SolverResult r[2];
  std::vector<double> xs[2];
  for (int k = 0; k < 2; ++k) {
    p.implementation = k == 0 ? KrylovImplementation::Reference : KrylovImplementation::Fused;
    auto M = make_preconditioner<double, Dev>(
        prec, A, prec == "par_ic" ? parse_parameter_string("mode=deterministic") : ParameterList{});
    M->compute();
    V b = to_device<Dev>(random_vector(Ah.nrows, 5)), x("x", Ah.nrows);
    r[k] = cg<double, Dev>(A, b, x, prec == "none" ? nullptr : M.get(), p);
    xs[k] = to_std_vector(x);
  }
  EXPECT_TRUE(r[0].converged()) << r[0].message;
  EXPECT_TRUE(r[1].converged()) << r[1].message;
  EXPECT_NEAR(r[1].iterations, r[0].iterations, well_conditioned ? 1 : 1 + r[0].iterations / 5);
  EXPECT_GT(r[0].iterations, 10);
  const auto& h0 = r[0].residual_history;
  const auto& h1 = r[1].residual_history;
  ASSERT_EQ(static_cast<int>(h1.size()), r[1].iterations + 1);
  ASSERT_EQ(h1.size(), r[1].time_history.size());
  const std::size_t common = std::min(std::min(h0.size(), h1.size()), well_conditioned ? h0.size() : 6);
  for (std::size_t i = 0; i < common; ++i) EXPECT_NEAR(h1[i], h0[i], 1e-5 * h0[i]) << "iteration " << i;
  double dx = 0, xmax = 0;
  for (std::size_t i = 0; i < xs[0].size(); ++i) {
    dx = std::max(dx, std::abs(xs[1][i] - xs[0][i]));
    xmax = std::max(xmax, std::abs(xs[0][i]));
  }
  EXPECT_LT(dx, (well_conditioned ? 1e-7 : 1e-5) * xmax);
  EXPECT_LE(r[1].final_relative_residual, 10 * p.tol);
}

TEST(TEST_CATEGORY, cg_fused_matches_reference) {
  expect_same_cg(lap2d(20), "none", "lap2d(20)");
  expect_same_cg(lap3d27(7), "none", "lap3d27(7)");
  expect_same_cg(badly_scaled(12), "none", "badly scaled lap2d(12)", false);
  expect_same_cg(badly_scaled(12), "jacobi", "badly scaled lap2d(12)");
  expect_same_cg(lap2d(20), "par_ic", "lap2d(20)");
}

TEST(TEST_CATEGORY, cg_fused_separate_reductions_match_reference) {
  // more than Impl::kFusedReductionMaxRows rows: on GPUs the fused loop sums pᵀq, with diagonal Jacobi rᵀz and with
  // ParIc's ISAI solves rᵀz in passes of their own; the first 40 residuals are the textbook loop's to rounding
  using exec = typename Dev::execution_space;
  if (!Impl::is_gpu_space<exec>()) GTEST_SKIP() << "the separate reductions exist on GPUs only";
  // 532,900 rows; for diagonal Jacobi with rows and columns scaled (on the plain grid it would repeat plain CG)
  const auto Ah = lap2d(730), Bh = badly_scaled(730);
  ASSERT_TRUE(Impl::spmv_launch<exec>(Ah.nrows, Ah.nnz()).separate_reduction);
  const auto Ad = to_device<Dev>(Ah), Bd = to_device<Dev>(Bh);
  for (const std::string prec : {"none", "jacobi", "par_ic"}) {
    SCOPED_TRACE(prec);
    const auto& A = prec == "jacobi" ? Bd : Ad;
    auto M = make_preconditioner<double, Dev>(
        prec, A, prec == "par_ic" ? parse_parameter_string("mode=deterministic") : ParameterList{});
    M->compute();
    if (prec == "par_ic") {  // ISAI solves of a triangle this large: rᵀz is not fused into the upper product
      ASSERT_NE(M->description().find("isai"), std::string::npos) << M->description();
      V r0("r0", Ah.nrows), z0("z0", Ah.nrows), s0("s0", 1);
      EXPECT_FALSE(M->apply_dot(r0, z0, s0, 0));
    }
    SolverParams p;
    p.tol = 1e-300;  // never reached: 40 iterations
    p.max_iterations = 40;
    p.divergence_factor = 1e300;
    std::vector<double> h[2];
    for (int k = 0; k < 2; ++k) {
      p.implementation = k == 0 ? KrylovImplementation::Reference : KrylovImplementation::Fused;
      V b("b", Ah.nrows), x("x", Ah.nrows);
      Kokkos::deep_copy(b, 1.0);
      const auto r = cg<double, Dev>(A, b, x, prec == "none" ? nullptr : M.get(), p);
      EXPECT_EQ(r.iterations, 40) << r.message;
      h[k] = r.residual_history;
    }
    ASSERT_EQ(h[0].size(), h[1].size());
    for (std::size_t i = 0; i < h[0].size(); ++i) EXPECT_NEAR(h[1][i], h[0][i], 1e-6 * h[0][i]) << "iteration " << i;
  }
}

TEST(TEST_CATEGORY, cg_fused_repeats_bit_for_bit) {
  // the fused loop's reductions end in a fixed order (finish_team_sum): two solves give the same bits
  const auto A = to_device<Dev>(lap2d(150));
  SolverParams p;
  p.implementation = KrylovImplementation::Fused;
  p.tol = 1e-10;
  V b("b", A.numRows());
  Kokkos::deep_copy(b, 1.0);
  std::vector<double> x_first, hist_first;
  for (int rep = 0; rep < 2; ++rep) {
    V x("x", A.numRows());
    const auto r = cg<double, Dev>(A, b, x, nullptr, p);
    ASSERT_EQ(r.status, SolverStatus::Converged) << r.message;
    if (rep == 0) {
      x_first = to_std_vector(x);
      hist_first = r.residual_history;
    } else {
      EXPECT_EQ(to_std_vector(x), x_first);
      EXPECT_EQ(r.residual_history, hist_first);
    }
  }
}

TEST(TEST_CATEGORY, cg_fused_reports_failures) {
  for (auto impl : {KrylovImplementation::Fused, KrylovImplementation::Reference}) {
    SCOPED_TRACE(to_string(impl));
    SolverParams p;
    p.implementation = impl;
    // indefinite matrix: pᵀAp < 0 in the first iteration; x must stay the initial guess
    // (r0 = b − A x0 = (1, −1) is an eigenvector of eigenvalue −1)
    auto Ai = to_device<Dev>(csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1.0, 2.0, 2.0, 1.0}));
    V b = to_device<Dev>(std::vector<double>{4.0, 2.0}), x = to_device<Dev>(std::vector<double>{1.0, 1.0});
    auto r = cg<double, Dev>(Ai, b, x, nullptr, p);
    EXPECT_EQ(r.status, SolverStatus::Breakdown);
    EXPECT_NE(r.message.find("p^T A p"), std::string::npos) << r.message;
    EXPECT_EQ(r.iterations, 0);
    EXPECT_EQ(to_std_vector(x), (std::vector<double>{1.0, 1.0}));

    // SPD matrix, preconditioner -I (not SPD): rᵀz < 0; NaN preconditioner: NonFinite
    const auto A = to_device<Dev>(lap2d(8));
    V b2("b2", 64), x2("x2", 64);
    Kokkos::deep_copy(b2, 1.0);
    ScaledIdentity neg(A, -1.0), nan(A, std::numeric_limits<double>::quiet_NaN());
    neg.compute();
    nan.compute();
    r = cg<double, Dev>(A, b2, x2, &neg, p);
    EXPECT_EQ(r.status, SolverStatus::Breakdown);
    EXPECT_NE(r.message.find("preconditioner not SPD"), std::string::npos) << r.message;
    EXPECT_EQ(to_std_vector(x2), std::vector<double>(64, 0.0));
    r = cg<double, Dev>(A, b2, x2, &nan, p);
    EXPECT_EQ(r.status, SolverStatus::NonFinite);
    EXPECT_EQ(to_std_vector(x2), std::vector<double>(64, 0.0));

    // NaN in the matrix appearing only in the product: a NaN value on an off-diagonal entry
    auto Hn = lap2d(8);
    Hn.values[5] = std::numeric_limits<double>::quiet_NaN();
    r = cg<double, Dev>(to_device<Dev>(Hn), b2, x2, nullptr, p);
    EXPECT_EQ(r.status, SolverStatus::NonFinite) << r.message;

    // max_iterations reached; time limit reached
    p.max_iterations = 3;
    r = cg<double, Dev>(A, b2, x2, nullptr, p);
    EXPECT_EQ(r.status, SolverStatus::MaxIterations);
    EXPECT_EQ(r.iterations, 3);
    EXPECT_EQ(r.residual_history.size(), 4u);
    p.max_iterations = 1000;
    p.max_seconds = 1e-12;
    Kokkos::deep_copy(x2, 0.0);
    r = cg<double, Dev>(A, b2, x2, nullptr, p);
    EXPECT_EQ(r.status, SolverStatus::MaxIterations);
    EXPECT_EQ(r.iterations, 1);
    EXPECT_NE(r.message.find("time limit"), std::string::npos) << r.message;
    p.max_seconds = -1;
    ASYNCSPARSE_EXPECT_THROW_MSG((cg<double, Dev>(A, b2, x2, nullptr, p)), InvalidInput, "max_seconds must be >= 0");
  }
}

TEST(TEST_CATEGORY, gmres_arnoldi_estimate_matches_true_residual) {
  // After one cycle the rotations' residual estimate equals the true residual when the basis is orthonormal
  // and the Hessenberg matrix is right: a check of the fused CGS2 passes.
  auto Ah = lap2d(16);
  for (int i = 0; i < Ah.nrows; ++i)
    for (int k = Ah.row_ptr[i]; k < Ah.row_ptr[i + 1]; ++k) {
      if (Ah.col_idx[k] == i + 1) Ah.values[k] = -1.7;
      if (Ah.col_idx[k] == i - 16) Ah.values[k] = -0.2;
    }
  const auto A = to_device<Dev>(Ah);
  for (const std::string prec : {"none", "jacobi"}) {
    SCOPED_TRACE(prec);
    auto M = make_preconditioner<double, Dev>(prec, A);
    M->compute();
    SolverParams p;
    p.restart = 25;
    p.max_iterations = 25;
    p.tol = 1e-14;
    V b = to_device<Dev>(random_vector(Ah.nrows, 8)), x("x", Ah.nrows);
    auto r = gmres<double, Dev>(A, b, x, prec == "none" ? nullptr : M.get(), p);
    EXPECT_EQ(r.status, SolverStatus::MaxIterations);
    EXPECT_EQ(r.iterations, 25);
    ASSERT_EQ(r.residual_history.size(), 26u);
    EXPECT_LT(r.residual_history.back(), 0.5 * r.residual_history.front());
    EXPECT_NEAR(r.final_relative_residual, r.residual_history.back(), 1e-8 * r.residual_history.back());
    for (std::size_t i = 1; i < r.residual_history.size(); ++i)
      EXPECT_LE(r.residual_history[i], r.residual_history[i - 1] * (1 + 1e-12));
    // several cycles to convergence
    p.max_iterations = 1000;
    p.tol = 1e-9;
    Kokkos::deep_copy(x, 0.0);
    r = gmres<double, Dev>(A, b, x, prec == "none" ? nullptr : M.get(), p);
    EXPECT_TRUE(r.converged()) << r.message;
    EXPECT_LE(r.final_relative_residual, 1e-9);
  }
}

TEST(TEST_CATEGORY, gmres_fused_reports_failures) {
  const auto A = to_device<Dev>(lap2d(8));
  V b("b", 64), x("x", 64);
  Kokkos::deep_copy(b, 1.0);
  // host-driven cycles (one_team_rows 0) and cycles in one team (64: every backend), the latter through the
  // preconditioner's diagonal (ScaledIdentity's as_diagonal); a singular M (0) is a zero Hessenberg column
  for (const int one_team_rows : {0, 64})
    for (const bool as_diagonal : {false, true}) {
      SCOPED_TRACE("one_team_rows " + std::to_string(one_team_rows) + (as_diagonal ? ", diagonal" : ""));
      SolverParams p;
      p.gmres_one_team_rows = one_team_rows;
      ScaledIdentity nan(A, std::numeric_limits<double>::quiet_NaN(), as_diagonal);
      nan.compute();
      Kokkos::deep_copy(x, 0.0);
      auto r = gmres<double, Dev>(A, b, x, &nan, p);
      EXPECT_EQ(r.status, SolverStatus::NonFinite);
      EXPECT_NE(r.message.find("Arnoldi vector became NaN"), std::string::npos) << r.message;
      EXPECT_EQ(to_std_vector(x), std::vector<double>(64, 0.0));
      EXPECT_EQ(r.one_team_cycles, one_team_rows > 0 && as_diagonal ? 1 : 0);
      ScaledIdentity zero(A, 0.0, as_diagonal);
      zero.compute();
      r = gmres<double, Dev>(A, b, x, &zero, p);
      EXPECT_EQ(r.status, SolverStatus::Breakdown);
      EXPECT_NE(r.message.find("Hessenberg column is zero"), std::string::npos) << r.message;
      EXPECT_EQ(r.iterations, 0);
      EXPECT_EQ(to_std_vector(x), std::vector<double>(64, 0.0));
      // the time limit: checked after each iteration of host-driven cycles, after each cycle run in one team
      p.max_seconds = 1e-12;
      p.restart = 6;
      r = gmres<double, Dev>(A, b, x, nullptr, p);
      EXPECT_EQ(r.status, SolverStatus::MaxIterations);
      EXPECT_EQ(r.iterations, one_team_rows > 0 ? 6 : 1);
      EXPECT_NE(r.message.find("time limit"), std::string::npos) << r.message;
      EXPECT_LT(r.final_relative_residual, 1.0);  // the steps were applied to x
    }
}
}  // namespace test_krylov

namespace test_krylov {
// The default CG implementation: the measured rule (fused kernels on GPUs, the textbook loop on host backends);
// explicit choices pass through.
TEST(TEST_CATEGORY, krylov_implementation_auto_rule) {
  using AsyncSparse::KrylovImplementation;
  using AsyncSparse::Impl::resolve_krylov_implementation;
  EXPECT_EQ(AsyncSparse::SolverParams{}.implementation, KrylovImplementation::Auto);
  EXPECT_EQ(resolve_krylov_implementation(KrylovImplementation::Auto, true), KrylovImplementation::Fused);
  EXPECT_EQ(resolve_krylov_implementation(KrylovImplementation::Auto, false), KrylovImplementation::Reference);
  for (bool gpu : {false, true}) {
    EXPECT_EQ(resolve_krylov_implementation(KrylovImplementation::Fused, gpu), KrylovImplementation::Fused);
    EXPECT_EQ(resolve_krylov_implementation(KrylovImplementation::Reference, gpu), KrylovImplementation::Reference);
  }
  EXPECT_STREQ(AsyncSparse::to_string(KrylovImplementation::Auto), "auto");
}
}  // namespace test_krylov

namespace test_krylov {
// GMRES takes its basis, vectors and coefficients uninitialized from the array cache, where a recycled array holds
// whatever its last user left. Seeded with NaN-filled free arrays of exactly the sizes a solve asks for, the solves
// must converge as with fresh memory (a read of anything not written first would give NaN).
TEST(TEST_CATEGORY, gmres_ignores_what_recycled_arrays_hold) {
  const auto Ah = AsyncSparse::Test::nonsymmetric_lap2d(16);
  const auto A = to_device<Dev>(Ah);
  const auto n = static_cast<std::size_t>(Ah.nrows);
  const V b = to_device<Dev>(random_vector(Ah.nrows, 3));
  for (const std::string prec : {"none", "jacobi"})
    for (const int m : {1, 5, 30}) {
      SCOPED_TRACE(prec + ", restart " + std::to_string(m));
      auto M = make_preconditioner<double, Dev>(prec, A);
      M->compute();
      SolverParams p;
      p.restart = m;
      p.tol = 1e-9;
      p.max_iterations = m == 1 ? 30 : 2000;  // GMRES(1) stagnates on this matrix: 30 steps of it, 30 cycles
      V x("x", n);
      SolverResult ref;
      {
        const Impl::ScopedDeviceCacheOff fresh;
        ref = gmres<double, Dev>(A, b, x, prec == "none" ? nullptr : M.get(), p);
      }
      const auto xref = to_std_vector(x);
      if (m > 1) ASSERT_TRUE(ref.converged()) << ref.message;
      {  // free arrays of the workspace's and the residual's sizes, full of NaN
        const std::size_t work = Impl::parts_extent<4>(
            {n * static_cast<std::size_t>(m + 1), n, prec == "none" ? 0 : n, static_cast<std::size_t>(m)});
        const auto w = Impl::cached_uninitialized<V>("seed", work);
        const auto r = Impl::cached_uninitialized<V>("seed", n);
        Kokkos::deep_copy(w, std::numeric_limits<double>::quiet_NaN());
        Kokkos::deep_copy(r, std::numeric_limits<double>::quiet_NaN());
        Kokkos::fence();
      }
      Kokkos::deep_copy(x, 0.0);
      const auto res = gmres<double, Dev>(A, b, x, prec == "none" ? nullptr : M.get(), p);
      EXPECT_EQ(res.status, ref.status) << res.message;
      EXPECT_NEAR(res.iterations, ref.iterations, 1);
      EXPECT_TRUE(std::isfinite(res.final_relative_residual));
      const auto xs = to_std_vector(x);
      for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(xs[i], xref[i], 1e-7 * (1 + std::abs(xref[i]))) << i;
    }
}

// GMRES in one team (SolverParams::gmres_one_team_rows): the bound, the default rule and the parameter's check (the
// results against the four kernels: gmres_team_cycle_matches_host_cycles)
TEST(TEST_CATEGORY, gmres_one_team_orthogonalization) {
  const auto Ah = AsyncSparse::Test::nonsymmetric_lap2d(20);
  const auto A = to_device<Dev>(Ah);
  const auto n = static_cast<std::size_t>(Ah.nrows);
  const V b = to_device<Dev>(random_vector(Ah.nrows, 4));
  // the bound: one row more than the parameter runs the four kernels
  SolverParams p;
  p.gmres_one_team_rows = static_cast<int>(n) - 1;
  V x("x", n);
  const auto solve = [&](const SolverParams& q) { return gmres<double, Dev>(A, b, x, nullptr, q); };
  const SolverResult below = solve(p);
  EXPECT_FALSE(below.one_team_orthogonalization);
  EXPECT_EQ(below.one_team_cycles, 0);
  // the default: GPUs up to kGmresOneTeamMaxRows rows, never on host backends
  EXPECT_TRUE(Impl::gmres_one_team(kGmresOneTeamMaxRows, -1, true));
  EXPECT_FALSE(Impl::gmres_one_team(kGmresOneTeamMaxRows + 1, -1, true));
  EXPECT_FALSE(Impl::gmres_one_team(10, -1, false));
  EXPECT_FALSE(Impl::gmres_one_team(10, 0, true));
  Kokkos::deep_copy(x, 0.0);
  const bool gpu = Impl::is_gpu_space<typename Dev::execution_space>();
  const SolverResult def = solve(SolverParams());
  EXPECT_EQ(def.one_team_orthogonalization, gpu);
  EXPECT_EQ(def.one_team_cycles > 0, gpu);  // no preconditioner: whole cycles in one team
  p.gmres_one_team_rows = -2;
  EXPECT_THROW(solve(p), InvalidInput);
}
}  // namespace test_krylov

namespace test_krylov {
// GMRES's cycles in one launch of one team (SolverParams::gmres_one_team_rows, forced here on every backend) against
// host-driven cycles with the orthogonalization in four kernels: the same status, iterations (+-1: the sums run in
// another order) and solution without a preconditioner (nullptr, and the identity preconditioner), with diagonal
// Jacobi and with ParIlu's Jacobi triangular solves, over restart lengths and an iteration limit inside a cycle.
// ParIlu with exact triangular solves has no one-team application, nor has a restart length whose cycle does not fit
// the team's scratch memory: their cycles stay host-driven, with the orthogonalization in one team. The team cycles
// count their applications of M (one per step and one per update).
// A with a dense last row and column of small entries (an arrow: as watt_2, one row far longer than the others), the
// last row made diagonally dominant.
CsrHost<double> with_dense_last_row_and_column(const CsrHost<double>& Ah) {
  const ordinal_t n = Ah.nrows;
  CsrHost<double> B(n, n);
  std::vector<std::vector<std::pair<ordinal_t, double>>> rows(static_cast<std::size_t>(n));
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t k = Ah.row_begin(i); k < Ah.row_end(i); ++k) rows[i].push_back({Ah.col_idx[k], Ah.values[k]});
  double last = 0;
  for (ordinal_t i = 0; i + 1 < n; ++i) {
    const double v = 0.01 * (1 + i % 7);
    rows[i].push_back({n - 1, -v});
    rows[n - 1].push_back({i, v});
    last += 2 * v;
  }
  for (auto& r : rows) {
    std::sort(r.begin(), r.end());
    std::vector<std::pair<ordinal_t, double>> m;  // a grid entry in the last column or row gets its arrow value added
    for (const auto& e : r)
      if (!m.empty() && m.back().first == e.first)
        m.back().second += e.second;
      else
        m.push_back(e);
    r = m;
  }
  for (auto& e : rows[n - 1])
    if (e.first == n - 1) e.second += last;
  for (ordinal_t i = 0; i < n; ++i) {
    for (const auto& e : rows[i]) {
      B.col_idx.push_back(e.first);
      B.values.push_back(e.second);
    }
    B.row_ptr[i + 1] = static_cast<offset_t>(B.col_idx.size());
  }
  return B;
}

// Impl::team_long_rows lists the rows above kTeamLongRowEntries entries (counting the diagonal or not), and none when
// more than kTeamLongRowsMax are long.
TEST(TEST_CATEGORY, team_long_rows_lists_the_rows_above_the_bound) {
  using Exec = typename Dev::execution_space;
  const auto B = with_dense_last_row_and_column(AsyncSparse::Test::nonsymmetric_lap2d(20));
  const auto A = to_device<Dev>(B);
  const auto read = [](const Kokkos::View<int*, Dev>& list) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), list);
    std::vector<int> rows;
    for (int q = 0; q < Impl::team_long_row_count(h); ++q) rows.push_back(Impl::team_long_row(h, q));
    std::sort(rows.begin(), rows.end());
    return std::make_pair(h(0), rows);
  };
  const auto arrow = read(Impl::team_long_rows<Dev>(Exec(), A.graph.row_map, A.numRows(), 0));
  EXPECT_EQ(arrow.first, 1);
  EXPECT_EQ(arrow.second, std::vector<int>{B.nrows - 1});
  // its ILU(0) factors: the dense row is L's last row (the diagonal stored, not counted); U has none
  ParIluHandle<double, Dev> h(ParIluKind::Ilu);
  par_ilu_symbolic(Exec(), h, A);
  par_ilu_numeric(Exec(), h, A);
  const auto F = par_ilu_factors(Exec(), h);
  EXPECT_EQ(read(Impl::team_long_rows<Dev>(Exec(), F.L.graph.row_map, F.L.numRows(), 1)).second,
            std::vector<int>{B.nrows - 1});
  EXPECT_EQ(read(Impl::team_long_rows<Dev>(Exec(), F.U.graph.row_map, F.U.numRows(), 1)).first, 0);
  // rows of exactly kTeamLongRowEntries + 1 entries: long for A, not once the stored diagonal is left out
  CsrHost<double> C(70, 70);
  for (ordinal_t i = 0; i < 70; ++i) {
    const ordinal_t len = i < 3 ? Impl::kTeamLongRowEntries + 1 : 2;
    for (ordinal_t j = 0; j < len; ++j) {
      C.col_idx.push_back(j);
      C.values.push_back(1.0);
    }
    C.row_ptr[i + 1] = static_cast<offset_t>(C.col_idx.size());
  }
  auto Cd = to_device<Dev>(C);
  const auto three = read(Impl::team_long_rows<Dev>(Exec(), Cd.graph.row_map, C.nrows, 0));
  EXPECT_EQ(three.second, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(read(Impl::team_long_rows<Dev>(Exec(), Cd.graph.row_map, C.nrows, 1)).first, 0);
  // more long rows than a list holds: counted, none listed
  CsrHost<double> D(Impl::kTeamLongRowsMax + 1, Impl::kTeamLongRowEntries + 1);
  for (ordinal_t i = 0; i < D.nrows; ++i) {
    for (ordinal_t j = 0; j <= Impl::kTeamLongRowEntries; ++j) {
      D.col_idx.push_back(j);
      D.values.push_back(1.0);
    }
    D.row_ptr[i + 1] = static_cast<offset_t>(D.col_idx.size());
  }
  auto Dd = to_device<Dev>(D);
  const auto many = read(Impl::team_long_rows<Dev>(Exec(), Dd.graph.row_map, D.nrows, 0));
  EXPECT_EQ(many.first, Impl::kTeamLongRowsMax + 1);
  EXPECT_TRUE(many.second.empty());
}

// Kernels launched on the host's default execution space, by name, counted through Kokkos Tools while one is installed.
std::vector<std::string>& host_launches() {
  static std::vector<std::string> names;
  return names;
}
void note_host_launch(const char* name, const std::uint32_t dev, std::uint64_t* id) {
  *id = 0;
  if (dev == Kokkos::Tools::Experimental::device_id(Kokkos::DefaultHostExecutionSpace()))
    host_launches().push_back(name);
}
struct CountHostLaunches {
  CountHostLaunches() {
    host_launches().clear();
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(note_host_launch);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(note_host_launch);
    Kokkos::Tools::Experimental::set_begin_parallel_scan_callback(note_host_launch);
  }
  ~CountHostLaunches() {
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_scan_callback(nullptr);
  }
};

// On a GPU, GMRES (its one-team cycles and its host-driven ones) and CG launch nothing on the host's execution space:
// a host View filled at its creation is a parallel_for of OpenMP there, which wakes every OpenMP thread, and in some
// processes that wait cost a small solve more than its kernels (perf_tests/results/MEASUREMENTS.md#host-launches).
TEST(TEST_CATEGORY, krylov_solves_on_a_gpu_launch_nothing_on_the_host) {
  if (!Impl::is_gpu_space<typename Dev::execution_space>()) GTEST_SKIP() << "the backend is the host's";
  const auto Ah = AsyncSparse::Test::nonsymmetric_lap2d(16);
  const auto A = to_device<Dev>(Ah);
  const auto n = static_cast<std::size_t>(Ah.nrows);
  const V b = to_device<Dev>(random_vector(Ah.nrows, 5));
  // solve(x) from x = 0 with the launches on the host counted (host_launches())
  const auto counted = [&](const auto& solve) {
    V x("x", n);
    Kokkos::fence();
    const CountHostLaunches count;
    return solve(x);
  };
  for (const std::string prec : {"none", "jacobi", "par_ilu"})
    for (const int one_team_rows : {-1, 0}) {
      SCOPED_TRACE(prec + (one_team_rows ? ", one-team cycles" : ", host-driven cycles"));
      auto M = make_preconditioner<double, Dev>(prec, A);
      M->compute();
      SolverParams p;
      p.gmres_one_team_rows = one_team_rows;
      const SolverResult res =
          counted([&](const V& x) { return gmres<double, Dev>(A, b, x, prec == "none" ? nullptr : M.get(), p); });
      EXPECT_TRUE(res.converged()) << res.message;
      // the one-team cycles run without a preconditioner and with a diagonal; the default factorization's run where
      // its triangular solves have a one-team form
      if (prec != "par_ilu") EXPECT_EQ(res.one_team_cycles > 0, one_team_rows != 0);
      if (one_team_rows == 0) EXPECT_EQ(res.one_team_cycles, 0);
      EXPECT_TRUE(host_launches().empty()) << host_launches().front();
    }
  const auto Sh = lap2d(16);
  const auto S = to_device<Dev>(Sh);
  for (const std::string prec : {"none", "jacobi", "par_ic"}) {
    SCOPED_TRACE("cg, " + prec);
    auto M = make_preconditioner<double, Dev>(prec, S);
    M->compute();
    const SolverResult res = counted(
        [&](const V& x) { return cg<double, Dev>(S, b, x, prec == "none" ? nullptr : M.get(), SolverParams()); });
    EXPECT_TRUE(res.converged()) << res.message;
    EXPECT_TRUE(host_launches().empty()) << host_launches().front();
  }
}

// A one-team kernel for the launch test below (a functor: on CUDA a test body cannot hold a device lambda).
template <int Tag>
struct OneTeamSize {
  Kokkos::View<int*, Dev> out;
  KOKKOS_INLINE_FUNCTION void operator()(const Impl::TeamPolicy<Dev::execution_space>::member_type& t) const {
    Kokkos::single(Kokkos::PerTeam(t), [&] { out(Tag) = t.team_size(); });
  }
};

// Compat::parallel_for_prefer_l1 (the one-team GMRES cycle, CGS2 and triangular solves): on CUDA under Kokkos 3.4 the
// kernel keeps the carveout preference "maximum L1" over Kokkos' own setting at its first launch and at the next,
// where a kernel launched by Kokkos::parallel_for alone does not have it; elsewhere no preference is set. The launch
// runs either way.
TEST(TEST_CATEGORY, one_team_launch_prefers_l1_on_cuda) {
  using exec = Dev::execution_space;
  using Policy = Impl::TeamPolicy<exec>;
  const int team = Impl::is_gpu_space<exec>() ? 64 : 1;
  Kokkos::View<int*, Dev> out("out", 2);  // the team size each kernel saw
#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
  const bool cuda3 = std::is_same<exec, Kokkos::Cuda>::value;
  const int max_l1 = static_cast<int>(cudaSharedmemCarveoutMaxL1);
#else
  const bool cuda3 = false;
  const int max_l1 = 0;
#endif
  for (int launch = 0; launch < 2; ++launch) {
    Kokkos::deep_copy(out, 0);
    Compat::parallel_for_prefer_l1("AsyncSparse::test::one_team", Policy(1, team), OneTeamSize<0>{out});
    Kokkos::parallel_for("AsyncSparse::test::one_team_plain", Policy(1, team), OneTeamSize<1>{out});
    Kokkos::fence();
    const auto ran = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    EXPECT_EQ(ran(0), team);
    EXPECT_EQ(ran(1), team);
    const int preferred = Compat::preferred_carveout<Policy, OneTeamSize<0>>();
    const int plain = Compat::preferred_carveout<Policy, OneTeamSize<1>>();
    if (cuda3) {
      EXPECT_EQ(preferred, max_l1) << "launch " << launch;
      EXPECT_NE(plain, max_l1) << "launch " << launch;
    } else {
      EXPECT_EQ(preferred, -1);
      EXPECT_EQ(plain, -1);
    }
  }
}

TEST(TEST_CATEGORY, gmres_team_cycle_matches_host_cycles) {
  for (const bool arrow : {false, true}) {
    SCOPED_TRACE(arrow ? "with a dense last row and column" : "2D grid");
    const auto grid = AsyncSparse::Test::nonsymmetric_lap2d(20);
    const auto Ah = arrow ? with_dense_last_row_and_column(grid) : grid;
    const auto A = to_device<Dev>(Ah);
    const auto n = static_cast<std::size_t>(Ah.nrows);
    const V b = to_device<Dev>(random_vector(Ah.nrows, 5));
    struct Case {
      std::string prec, tri_solve;
      bool team;
    };
    int mmax = 1;  // the longest restart whose cycle fits the team's scratch memory: the end of its layout in use
    while (Impl::gmres_team_cycle_fits<double, Dev>(mmax + 1)) ++mmax;
    ASSERT_GE(mmax, 30);
    for (const Case& c : {Case{"none", "", true}, Case{"identity", "", true}, Case{"jacobi", "", true},
                          Case{"par_ilu", "jacobi", true}, Case{"par_ilu", "exact", false}})
      for (const int m : {1, 5, 30, mmax})
        for (const int limit : {7, 2000}) {
          if (m == 1 && limit > 7) continue;  // GMRES(1) stagnates on this matrix
          SCOPED_TRACE(c.prec + " " + c.tri_solve + ", restart " + std::to_string(m) + ", limit " +
                       std::to_string(limit));
          ParameterList pl;
          if (!c.tri_solve.empty()) pl.set("tri_solve", c.tri_solve);
          auto M = make_preconditioner<double, Dev>(c.prec, A, pl);
          M->compute();
          Preconditioner<double, Dev>* prec = c.prec == "none" ? nullptr : M.get();
          EXPECT_EQ(Impl::has_team_cycle(prec, Ah.nrows), c.team);
          if (prec) EXPECT_FALSE(Impl::has_team_cycle(prec, Ah.nrows + 1));  // another size: refused
          SolverParams p;
          p.restart = m;
          p.tol = 1e-9;
          p.max_iterations = limit;
          SolverResult r[2];
          std::vector<double> xs[2];
          int applies[2];
          for (int k = 0; k < 2; ++k) {
            p.gmres_one_team_rows = k == 0 ? 0 : static_cast<int>(n);
            V x("x", n);
            const int before = M->getNumApply();
            r[k] = gmres<double, Dev>(A, b, x, prec, p);
            applies[k] = M->getNumApply() - before;
            xs[k] = to_std_vector(x);
          }
          EXPECT_EQ(r[0].one_team_cycles, 0);
          EXPECT_FALSE(r[0].one_team_orthogonalization);
          EXPECT_EQ(r[1].one_team_cycles > 0, c.team);
          EXPECT_TRUE(r[1].one_team_orthogonalization);
          EXPECT_EQ(r[1].status, r[0].status) << r[1].message;
          if (limit == 7) {
            EXPECT_EQ(r[0].status, SolverStatus::MaxIterations);
            EXPECT_EQ(r[1].iterations, 7);
            if (c.team) EXPECT_EQ(r[1].one_team_cycles, (7 + m - 1) / m);
          } else {
            EXPECT_TRUE(r[0].converged()) << r[0].message;
            EXPECT_GT(r[0].iterations, 10);
            EXPECT_NEAR(r[1].iterations, r[0].iterations, 1);
            EXPECT_LE(r[1].final_relative_residual, p.tol);
          }
          EXPECT_EQ(r[1].iterations, static_cast<int>(r[1].residual_history.size()) - 1);
          if (c.team && prec) EXPECT_EQ(applies[1], r[1].iterations + r[1].one_team_cycles);
          for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(xs[1][i], xs[0][i], 1e-7 * (1 + std::abs(xs[0][i]))) << i;
          const std::size_t common = std::min<std::size_t>(10, r[0].residual_history.size());
          for (std::size_t i = 0; i < common; ++i)
            EXPECT_NEAR(r[1].residual_history[i], r[0].residual_history[i], 1e-8 * r[0].residual_history[i]) << i;
        }
    if (arrow) continue;  // the rest does not depend on the matrix
    // a restart length whose cycle does not fit the team's scratch memory: host-driven cycles, the orthogonalization
    // in one team
    {
      const int big = mmax + 1;
      ASSERT_FALSE((Impl::gmres_team_cycle_fits<double, Dev>(big)));
      EXPECT_FALSE((Impl::gmres_team_cycle_fits<double, Dev>(1 << 20)));
      GmresTeamCycleArgs<double, Dev> args;
      args.m = big;
      EXPECT_THROW(Impl::gmres_team_cycle_launch(args, Impl::IdentityTeamApply()), InvalidInput);
      SolverParams p;
      p.restart = big;
      p.tol = 1e-9;
      p.gmres_one_team_rows = static_cast<int>(n);
      V x("x", n);
      const SolverResult r = gmres<double, Dev>(A, b, x, nullptr, p);
      EXPECT_TRUE(r.converged()) << r.message;
      EXPECT_EQ(r.one_team_cycles, 0);
      EXPECT_TRUE(r.one_team_orthogonalization);
    }
    // a preconditioner of another matrix's size: refused as by the host-driven cycles, never run in the team
    ParameterList pl;
    pl.set("tri_solve", std::string("jacobi"));
    const auto small = to_device<Dev>(lap2d(4));
    for (const std::string prec : {"jacobi", "par_ilu"}) {
      auto M = make_preconditioner<double, Dev>(prec, small, prec == "par_ilu" ? pl : ParameterList());
      M->compute();
      SolverParams p;
      p.gmres_one_team_rows = static_cast<int>(n);
      V x("x", n);
      ASYNCSPARSE_EXPECT_THROW_MSG((gmres<double, Dev>(A, b, x, M.get(), p)), InvalidInput, "do not match the matrix");
    }
  }
}
}  // namespace test_krylov
