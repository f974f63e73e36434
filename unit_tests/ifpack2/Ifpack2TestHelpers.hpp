// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Helpers of the Ifpack2 adapter tests: Tpetra matrices from the shared matrices or generators (host matrices
// from asyncsparse_test_support), Ifpack2's own preconditioners, and a Belos CG / GMRES solve that reports
// iterations and the true residual. Every helper is collective: the tests run unchanged on 1 and 2 MPI processes.
#pragma once

#include <AsyncSparse.hpp>
#include <asyncsparse/adapters/ifpack2/AsyncSparse_Ifpack2Adapter.hpp>
#include <asyncsparse/adapters/ifpack2/AsyncSparse_tpetra_convert.hpp>

#include <BelosLinearProblem.hpp>
#include <BelosPseudoBlockCGSolMgr.hpp>
#include <BelosPseudoBlockGmresSolMgr.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Factory.hpp>
#include <Teuchos_DefaultComm.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <support/TestHelpers.hpp>

namespace AsyncSparse {
namespace Test {

using SC = Tpetra::CrsMatrix<>::scalar_type;
using LO = Tpetra::CrsMatrix<>::local_ordinal_type;
using GO = Tpetra::CrsMatrix<>::global_ordinal_type;
using NT = Tpetra::CrsMatrix<>::node_type;
using crs_type = Tpetra::CrsMatrix<SC, LO, GO, NT>;
using row_matrix_type = Tpetra::RowMatrix<SC, LO, GO, NT>;
using op_type = Tpetra::Operator<SC, LO, GO, NT>;
using mv_type = Tpetra::MultiVector<SC, LO, GO, NT>;
using map_type = Tpetra::Map<LO, GO, NT>;
using prec_type = Ifpack2::Preconditioner<SC, LO, GO, NT>;
using Adapter = Ifpack2Adapter<SC, LO, GO, NT>;

inline Teuchos::RCP<const Teuchos::Comm<int>> comm() { return Tpetra::getDefaultComm(); }
inline int rank() { return comm()->getRank(); }
inline int nranks() { return comm()->getSize(); }

/// Distributed Tpetra copy of host_matrix(name) (support/TestMatrices.hpp: a "gen:..." spec or a shared matrix
/// name such as "bcsstk18"), in reverse Cuthill–McKee order when `rcm`.
inline Teuchos::RCP<crs_type> tpetra_matrix(const std::string& name, bool rcm = false) {
  const CsrHost<double>& H = host_matrix(name);
  return make_tpetra_matrix<SC, LO, GO, NT>(rcm ? permute_symmetric(H, rcm_permutation(H)) : H, comm());
}

/// True when AsyncSparse's factory knows `method` (preconditioners register there as they land).
inline bool have_method(const std::string& method) { return Impl::factory_has_method(method); }

/// The adapter on A with `params`, initialized and computed.
inline Teuchos::RCP<Adapter> make_adapter(const Teuchos::RCP<const row_matrix_type>& A,
                                          const Teuchos::ParameterList& params) {
  auto M = Teuchos::rcp(new Adapter(A));
  M->setParameters(params);
  M->initialize();
  M->compute();
  return M;
}
inline Teuchos::ParameterList adapter_params(const std::string& method) {
  Teuchos::ParameterList p;
  p.set("asyncsparse: method", method);
  return p;
}

/// An Ifpack2 preconditioner ("RILUK", "RELAXATION", "SCHWARZ", ...) on A, initialized and computed.
inline Teuchos::RCP<prec_type> make_ifpack2(const std::string& type, const Teuchos::RCP<const row_matrix_type>& A,
                                            const Teuchos::ParameterList& params) {
  auto M = Ifpack2::Factory::create<row_matrix_type>(type, A);
  M->setParameters(params);
  M->initialize();
  M->compute();
  return M;
}
/// Ifpack2 RILUK with level of fill 0 (= ILU(0); IC(0) on SPD matrices), diagonal times `rel_threshold`.
inline Teuchos::RCP<prec_type> make_riluk0(const Teuchos::RCP<const row_matrix_type>& A, double rel_threshold = 1.0) {
  Teuchos::ParameterList p;
  p.set("fact: iluk level-of-fill", 0);
  p.set("fact: relative threshold", rel_threshold);
  return make_ifpack2("RILUK", A, p);
}
/// Ifpack2 Relaxation: one point-Jacobi sweep from zero = diag(A)⁻¹ x.
inline Teuchos::RCP<prec_type> make_relaxation_jacobi(const Teuchos::RCP<const row_matrix_type>& A) {
  Teuchos::ParameterList p;
  p.set("relaxation: type", "Jacobi");
  p.set("relaxation: sweeps", 1);
  p.set("relaxation: damping factor", 1.0);
  p.set("relaxation: zero starting solution", true);
  return make_ifpack2("RELAXATION", A, p);
}

struct BelosRun {
  bool converged = false;
  int iterations = 0;
  int restarts_after_loss_of_accuracy = 0;  ///< GMRES: solves restarted from the current x (see belos_solve)
  double true_relative_residual = 0;  ///< ‖b − A x‖ / ‖b‖ at exit
  double seconds = 0;
};

/// Belos PseudoBlock CG (left preconditioner) or GMRES (right preconditioner, restart `restart`)
/// on A x = b, b = ones, x0 = 0, stop at relative residual `tol` (relative to ||b||). When GMRES's implicit
/// residual met `tol` but the true one did not (Belos: "loss of accuracy", it then stops unconverged), the
/// solve is restarted from the current x, at most twice, as a user would; the iterations add up.
inline BelosRun belos_solve(const std::string& solver, const Teuchos::RCP<const crs_type>& A,
                            const Teuchos::RCP<const op_type>& M, double tol = 1e-6, int max_iters = 5000,
                            int restart = 100) {
  auto b = Teuchos::rcp(new mv_type(A->getRangeMap(), 1));
  auto x = Teuchos::rcp(new mv_type(A->getDomainMap(), 1));
  b->putScalar(1.0);
  x->putScalar(0.0);
  auto problem = Teuchos::rcp(new Belos::LinearProblem<SC, mv_type, op_type>(A, x, b));
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("Convergence Tolerance", tol);
  params->set("Maximum Iterations", max_iters);
  params->set("Verbosity", Belos::Errors);
  Teuchos::RCP<Belos::SolverManager<SC, mv_type, op_type>> mgr;
  if (solver == "CG") {
    if (!M.is_null()) problem->setLeftPrec(M);
    mgr = Teuchos::rcp(new Belos::PseudoBlockCGSolMgr<SC, mv_type, op_type>(problem, params));
  } else {
    if (!M.is_null()) problem->setRightPrec(M);
    params->set("Num Blocks", restart);
    params->set("Implicit Residual Scaling", std::string("Norm of RHS"));  // = initial residual for x0 = 0
    params->set("Explicit Residual Scaling", std::string("Norm of RHS"));
    params->set("Maximum Restarts", max_iters / restart + 1);
    mgr = Teuchos::rcp(new Belos::PseudoBlockGmresSolMgr<SC, mv_type, op_type>(problem, params));
  }
  EXPECT_TRUE(problem->setProblem());
  BelosRun run;
  comm()->barrier();
  Kokkos::Timer t;
  run.converged = mgr->solve() == Belos::Converged;
  run.iterations = mgr->getNumIters();
  while (!run.converged && solver != "CG" && mgr->isLOADetected() && run.restarts_after_loss_of_accuracy < 2) {
    ++run.restarts_after_loss_of_accuracy;
    problem->setProblem();  // initial residual of the current x
    mgr->reset(Belos::Problem);
    run.converged = mgr->solve() == Belos::Converged;
    run.iterations += mgr->getNumIters();
  }
  run.seconds = t.seconds();
  mv_type r(A->getRangeMap(), 1);
  A->apply(*x, r);
  r.update(1.0, *b, -1.0);
  Teuchos::Array<double> rn(1), bn(1);
  r.norm2(rn());
  b->norm2(bn());
  run.true_relative_residual = rn[0] / bn[0];
  return run;
}

/// printf on rank 0 only.
template <class... Args>
void say(const char* fmt, Args... args) {
  if (rank() == 0) {
    std::printf(fmt, args...);
    std::fflush(stdout);
  }
}

}  // namespace Test
}  // namespace AsyncSparse
