// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Ifpack2 adapter acceptance (issue 7), with Belos as the Krylov solver; b = ones, x0 = 0, 1e-6.
//  1. CG with the adapter's ParIC (5 sweeps) on the 2D Laplacian 200², bcsstk18 and bodyy4 (natural order)
//     converges in at most 1.05x the iterations of CG with Ifpack2 RILUK(0).
//     IC(0) of bcsstk18 does not exist (non-positive pivot in row 2317; also in RCM order), and with the
//     indefinite RILUK(0) Belos CG stops ("non-positive value for p^H*A*p"). On bcsstk18 both
//     preconditioners therefore use Ifpack2's remedy, "fact: relative threshold" = 1.05 (the diagonal seen
//     by the factorization is multiplied by 1.05; 1.02 is the smallest value for which IC(0) exists), and a
//     separate test checks that the adapter reports the unshifted breakdown by row.
//  2. GMRES with the adapter's ParILUT converges on watt_2 (cryg2500: see kGmresMatrices), in RCM order (DESIGN.md: RCM order
//     for ILU experiments; in natural order ILU(0) of watt_2 is unstable).
//  3. The same under `mpirun -np 2` (block Jacobi across the two processes for both preconditioners:
//     Ifpack2's RILUK also factors only the local block).
// The ParIC / ParILUT cases run once AsyncSparse's factory registers "par_ic" / "par_ilut" and are
// skipped (with the reason) before. The Jacobi case checks the same plumbing with the preconditioner that
// always exists: the adapter's jacobi and Ifpack2's Relaxation Jacobi must give the same iteration counts.
#include "Ifpack2TestHelpers.hpp"

namespace AsyncSparse {
namespace Test {
namespace {

struct CgCase {
  const char* name;
  double rel_threshold;
};
const CgCase kCgCases[] = {{"gen:lap2d:200", 1.0}, {"bcsstk18", 1.05}, {"bodyy4", 1.0}};
// cryg2500 is left out of the convergence test: it is numerically singular (2-norm condition number 3.6e16,
// measured with LAPACK's SVD; LU with partial pivoting (SuperLU) leaves a relative residual of 2.8e-2 for
// b = ones, and GMRES(30) with ILU(0)/ILU(k)/ILUT reaches no better than 5e-3 even for a consistent b = A 1),
// so no preconditioner brings the residual to 1e-6. GmresCryg2500IsReportedUnconverged checks that this is
// reported as such.
const char* const kGmresMatrices[] = {"watt_2"};

TEST(Ifpack2Acceptance, CgParIcWithin5PercentOfRiluk0) {
  if (!have_method("par_ic"))
    GTEST_SKIP() << "AsyncSparse's factory has no 'par_ic' yet (registered: " << Impl::join(Adapter::methods()) << ")";
  for (const auto& c : kCgCases) {
    SCOPED_TRACE(c.name);
    auto A = tpetra_matrix(c.name);
    Teuchos::ParameterList p = adapter_params("par_ic");
    p.set("asyncsparse: sweeps", 5);
    p.set("fact: relative threshold", c.rel_threshold);
    auto ours = make_adapter(A, p);
    auto riluk = make_riluk0(A, c.rel_threshold);
    const auto r_ours = belos_solve("CG", A, ours);
    const auto r_riluk = belos_solve("CG", A, riluk);
    say("[          ] %-14s np=%d rel.thr. %.2f CG iterations: Ifpack2 RILUK(0) %d (solve %.3f s), adapter par_ic "
        "5 sweeps %d (solve %.3f s, compute %.3f s), ratio %.3f\n",
        c.name, nranks(), c.rel_threshold, r_riluk.iterations, r_riluk.seconds, r_ours.iterations, r_ours.seconds,
        ours->getComputeTime(), double(r_ours.iterations) / r_riluk.iterations);
    EXPECT_TRUE(r_riluk.converged);
    EXPECT_TRUE(r_ours.converged);
    EXPECT_LE(r_ours.true_relative_residual, 1e-5);
    EXPECT_LE(r_ours.iterations, 1.05 * r_riluk.iterations);
  }
}

// IC(0) of bcsstk18 does not exist: without the shift and retry (asyncsparse: diagonal shift = 0) the adapter's
// compute() reports the breakdown by row; with the default it restarts on a shifted matrix.
TEST(Ifpack2Acceptance, ParIcBreakdownIsReportedByRow) {
  if (!have_method("par_ic"))
    GTEST_SKIP() << "AsyncSparse's factory has no 'par_ic' yet (registered: " << Impl::join(Adapter::methods()) << ")";
  if (nranks() != 1) GTEST_SKIP() << "the breakdown row lies in one process' block only";
  Teuchos::ParameterList p = adapter_params("par_ic");
  p.set("asyncsparse: sweeps", 5);
  p.set("asyncsparse: diagonal shift", 0.0);  // no restart on a shifted matrix: the breakdown is the answer
  Adapter M(tpetra_matrix("bcsstk18"));
  M.setParameters(p);
  ASYNCSPARSE_EXPECT_THROW_MSG(M.compute(), BreakdownError, "breakdown at row");
  EXPECT_FALSE(M.isComputed());
  // by default the preconditioner starts over on the shifted matrix (IC(0) of bcsstk18 does not exist) and says so
  Adapter D(tpetra_matrix("bcsstk18"));
  D.setParameters(adapter_params("par_ic"));
  D.compute();
  EXPECT_TRUE(D.isComputed());
  EXPECT_NE(D.local_preconditioner()->description().find(", shift "), std::string::npos)
      << D.local_preconditioner()->description();
}

TEST(Ifpack2Acceptance, GmresParIlutConverges) {
  if (!have_method("par_ilut"))
    GTEST_SKIP() << "AsyncSparse's factory has no 'par_ilut' yet (registered: " << Impl::join(Adapter::methods())
                 << ")";
  for (const char* name : kGmresMatrices) {
    SCOPED_TRACE(name);
    auto A = tpetra_matrix(name, /*rcm=*/true);
    auto ours = make_adapter(A, adapter_params("par_ilut"));
    auto riluk = make_riluk0(A);
    const auto r_ours = belos_solve("GMRES", A, ours, 1e-6, 2000, 100);
    const auto r_riluk = belos_solve("GMRES", A, riluk, 1e-6, 1000, 100);  // for reference only
    say("[          ] %-14s np=%d RCM GMRES(100) iterations: Ifpack2 RILUK(0) %d (%s), adapter par_ilut %d (%s, "
        "true rel. residual %.2e, %d restart(s) after loss of accuracy)\n",
        name, nranks(), r_riluk.iterations, r_riluk.converged ? "converged" : "not converged", r_ours.iterations,
        r_ours.converged ? "converged" : "not converged", r_ours.true_relative_residual,
        r_ours.restarts_after_loss_of_accuracy);
    EXPECT_TRUE(r_ours.converged);
    EXPECT_LE(r_ours.true_relative_residual, 1e-6);
  }
}

TEST(Ifpack2Acceptance, GmresCryg2500IsReportedUnconverged) {
  if (!have_method("par_ilut"))
    GTEST_SKIP() << "AsyncSparse's factory has no 'par_ilut' yet";
  auto A = tpetra_matrix("cryg2500", /*rcm=*/true);
  auto ours = make_adapter(A, adapter_params("par_ilut"));
  const auto r = belos_solve("GMRES", A, ours, 1e-6, 1000, 100);
  say("[          ] cryg2500       np=%d RCM GMRES(100) + par_ilut: %d iterations, %s, true rel. residual %.2e\n",
      nranks(), r.iterations, r.converged ? "converged" : "not converged", r.true_relative_residual);
  EXPECT_TRUE(ours->isComputed());
  EXPECT_FALSE(r.converged);  // a numerically singular system: success would be a false claim
  EXPECT_GT(r.true_relative_residual, 1e-6);
}

// Plumbing on the acceptance matrices with the preconditioner that exists today.
TEST(Ifpack2Acceptance, CgJacobiEqualsIfpack2RelaxationJacobi) {
  for (const auto& c : kCgCases) {
    SCOPED_TRACE(c.name);
    auto A = tpetra_matrix(c.name);
    auto ours = make_adapter(A, adapter_params("jacobi"));
    auto theirs = make_relaxation_jacobi(A);
    const auto r_ours = belos_solve("CG", A, ours, 1e-6, 20000);
    const auto r_theirs = belos_solve("CG", A, theirs, 1e-6, 20000);
    say("[          ] %-14s np=%d CG iterations: Ifpack2 Relaxation Jacobi %d (%.3f s), adapter jacobi %d (%.3f s)\n",
        c.name, nranks(), r_theirs.iterations, r_theirs.seconds, r_ours.iterations, r_ours.seconds);
    EXPECT_TRUE(r_ours.converged);
    EXPECT_EQ(r_ours.iterations, r_theirs.iterations);
  }
}

}  // namespace
}  // namespace Test
}  // namespace AsyncSparse
