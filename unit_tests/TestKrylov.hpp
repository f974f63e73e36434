// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CG and GMRES: convergence against known solutions, preconditioner hook, failure statuses.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_preconditioner.hpp>
#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>
#include <support/TestHelpers.hpp>

#include <cmath>
#include <limits>

namespace {
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
  KokkosSparse::spmv("N", 1.0, A, xtrue, 0.0, b);
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
  double err = solve_known(Ah, [&](auto& A, auto& b, auto& x) { return cg<double, Dev>(A, b, x, nullptr, p); }, r);
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
  solve_known(Ah, [&](auto& A, auto& b, auto& x) { return cg<double, Dev>(A, b, x, nullptr, p); }, r_plain);
  err = solve_known(Ah, [&](auto& A, auto& b, auto& x) {
    JacobiPreconditioner<double, Dev> M(A);
    M.compute();
    return cg<double, Dev>(A, b, x, &M, p);
  }, r_jac);
  EXPECT_TRUE(r_jac.converged());
  EXPECT_LT(err, 1e-6);
  EXPECT_LT(r_jac.iterations, r_plain.iterations);
}

TEST(TEST_CATEGORY, gmres_solves_nonsymmetric) {
  // convection-diffusion-like: lap2d plus a nonsymmetric first-order term (upwinded, still an M-matrix)
  auto Ah = lap2d(16);
  for (int i = 0; i < Ah.nrows; ++i)
    for (int k = Ah.row_ptr[i]; k < Ah.row_ptr[i + 1]; ++k) {
      if (Ah.col_idx[k] == i + 1) Ah.values[k] = -1.5;
      if (Ah.col_idx[k] == i - 1) Ah.values[k] = -0.5;
    }
  SolverParams p;
  p.tol = 1e-10;
  p.restart = 20;
  SolverResult r;
  double err = solve_known(Ah, [&](auto& A, auto& b, auto& x) { return gmres<double, Dev>(A, b, x, nullptr, p); }, r);
  EXPECT_TRUE(r.converged()) << r.message;
  EXPECT_LE(r.final_relative_residual, 1e-10);
  EXPECT_LT(err, 1e-7);
  EXPECT_GT(r.iterations, p.restart);  // needed restarts on this problem
  SolverResult rj;
  err = solve_known(Ah, [&](auto& A, auto& b, auto& x) {
    JacobiPreconditioner<double, Dev> M(A);
    M.compute();
    return gmres<double, Dev>(A, b, x, &M, p);
  }, rj);
  EXPECT_TRUE(rj.converged());
  EXPECT_LT(err, 1e-7);
  // GMRES(m) on SPD lap2d, no restart: agrees with CG's residual-minimisation bound (fewer or equal its.)
  SolverParams q;
  q.restart = 200;
  q.tol = 1e-8;
  SolverResult rg, rc;
  solve_known(lap2d(12), [&](auto& A, auto& b, auto& x) { return gmres<double, Dev>(A, b, x, nullptr, q); }, rg);
  solve_known(lap2d(12), [&](auto& A, auto& b, auto& x) { return cg<double, Dev>(A, b, x, nullptr, q); }, rc);
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

  // zero rhs: x = 0 exactly
  Kokkos::deep_copy(b, 0.0);
  Kokkos::deep_copy(x, 3.0);
  r = gmres<double, Dev>(Ad, b, x, nullptr, p);
  EXPECT_TRUE(r.converged());
  EXPECT_EQ(to_std_vector(x), (std::vector<double>{0.0, 0.0}));

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
  ASYNCSPARSE_EXPECT_THROW_MSG(M2.setParameters(ParameterList{{"sweeps", 3}}), InvalidInput, "unknown parameter 'sweeps'");

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
}  // namespace
