// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Example: AsyncSparse preconditioners inside a Trilinos solve. A Tpetra matrix (Matrix Market file or
// generator, distributed over the MPI processes) is solved with Belos CG or GMRES, b = ones, x0 = 0, with
// AsyncSparse's Ifpack2 adapter and, for comparison, Ifpack2's RILUK(0) and no preconditioner.
//
//   example_trilinos_belos [--matrix FILE|gen:SPEC] [--solver cg|gmres] [--method NAME] [--sweeps N]
//                          [--param name=value,...] [--rcm] [--rel-threshold R] [--tol T] [--max-iters N]
//                          [--restart M]
//   mpirun -np 2 example_trilinos_belos --matrix ../shared/matrices/bcsstk18.mtx.gz --method par_ic --sweeps 5
//
// Defaults: gen:lap2d:100, cg, method par_ic (par_ilut for gmres) when AsyncSparse has it, else jacobi.
// --param passes further parameters of the method by their AsyncSparse names (fill_in_limit=2,tri_solve=jacobi);
// they become "asyncsparse: fill limit", "asyncsparse: triangular solve", ... in the Teuchos list.
// --rcm reorders the matrix by reverse Cuthill-McKee first (the ordering of the ILU papers' experiments).
// --rel-threshold R multiplies the diagonal seen by both preconditioners by R (Ifpack2's "fact: relative
// threshold"), the usual remedy when the incomplete factorization does not exist (bcsstk18: R = 1.05).
// Exit code 0 when the solve with the adapter converged.
#include <AsyncSparse.hpp>
#include <asyncsparse/adapters/ifpack2/AsyncSparse_Ifpack2Adapter.hpp>
#include <asyncsparse/adapters/ifpack2/AsyncSparse_tpetra_convert.hpp>

#include <BelosLinearProblem.hpp>
#include <BelosPseudoBlockCGSolMgr.hpp>
#include <BelosPseudoBlockGmresSolMgr.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Factory.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using SC = Tpetra::CrsMatrix<>::scalar_type;
using LO = Tpetra::CrsMatrix<>::local_ordinal_type;
using GO = Tpetra::CrsMatrix<>::global_ordinal_type;
using NT = Tpetra::CrsMatrix<>::node_type;
using crs_type = Tpetra::CrsMatrix<SC, LO, GO, NT>;
using row_matrix_type = Tpetra::RowMatrix<SC, LO, GO, NT>;
using op_type = Tpetra::Operator<SC, LO, GO, NT>;
using mv_type = Tpetra::MultiVector<SC, LO, GO, NT>;
using prec_type = Ifpack2::Preconditioner<SC, LO, GO, NT>;

struct Options {
  std::string matrix = "gen:lap2d:100", solver = "cg", method, param;
  int sweeps = -1, max_iters = 5000, restart = 100;
  double tol = 1e-6, rel_threshold = 1.0;
  bool rcm = false;
};

struct Result {
  bool converged = false;
  int iterations = 0;
  double residual = 0, setup = 0, solve = 0;
};

// Belos PseudoBlock CG (left preconditioner) or GMRES (right preconditioner); b = ones, x0 = 0.
Result solve(const Options& o, const Teuchos::RCP<const crs_type>& A, const Teuchos::RCP<const op_type>& M) {
  auto b = Teuchos::rcp(new mv_type(A->getRangeMap(), 1));
  auto x = Teuchos::rcp(new mv_type(A->getDomainMap(), 1));
  b->putScalar(1.0);
  auto problem = Teuchos::rcp(new Belos::LinearProblem<SC, mv_type, op_type>(A, x, b));
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("Convergence Tolerance", o.tol);
  params->set("Maximum Iterations", o.max_iters);
  Teuchos::RCP<Belos::SolverManager<SC, mv_type, op_type>> mgr;
  if (o.solver == "cg") {
    if (!M.is_null()) problem->setLeftPrec(M);
    mgr = Teuchos::rcp(new Belos::PseudoBlockCGSolMgr<SC, mv_type, op_type>(problem, params));
  } else {
    if (!M.is_null()) problem->setRightPrec(M);
    params->set("Num Blocks", o.restart);
    params->set("Maximum Restarts", o.max_iters / o.restart + 1);
    mgr = Teuchos::rcp(new Belos::PseudoBlockGmresSolMgr<SC, mv_type, op_type>(problem, params));
  }
  problem->setProblem();
  Result r;
  Kokkos::Timer t;
  r.converged = mgr->solve() == Belos::Converged;
  r.solve = t.seconds();
  r.iterations = mgr->getNumIters();
  mv_type res(A->getRangeMap(), 1);
  A->apply(*x, res);
  res.update(1.0, *b, -1.0);
  Teuchos::Array<double> rn(1), bn(1);
  res.norm2(rn());
  b->norm2(bn());
  r.residual = rn[0] / bn[0];
  return r;
}

int main(int argc, char* argv[]) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  const bool root = comm->getRank() == 0;
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        if (root) std::fprintf(stderr, "option %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    // The option's value as an int / a finite double; any other text ends the program naming the option.
    auto bad_value = [&](const std::string& v, const char* what) {
      if (root) std::fprintf(stderr, "option %s expects %s, got '%s'\n", a.c_str(), what, v.c_str());
      std::exit(2);
    };
    auto integer = [&]() -> int {
      const std::string v = next();
      long long n = 0;
      if (!AsyncSparse::Impl::parse_integer_in(v, INT_MIN, INT_MAX, n)) bad_value(v, "an integer");
      return static_cast<int>(n);
    };
    auto number = [&]() -> double {
      const std::string v = next();
      double d = 0;
      if (AsyncSparse::Impl::parse_number(v, d) != AsyncSparse::Impl::NumberText::Ok || !std::isfinite(d))
        bad_value(v, "a finite number");
      return d;
    };
    if (a == "--matrix")
      o.matrix = next();
    else if (a == "--solver")
      o.solver = next();
    else if (a == "--method")
      o.method = next();
    else if (a == "--sweeps")
      o.sweeps = integer();
    else if (a == "--param")
      o.param = next();
    else if (a == "--rcm")
      o.rcm = true;
    else if (a == "--rel-threshold")
      o.rel_threshold = number();
    else if (a == "--tol")
      o.tol = number();
    else if (a == "--max-iters")
      o.max_iters = integer();
    else if (a == "--restart")
      o.restart = integer();
    else {
      if (root) std::fprintf(stderr, "unknown option %s (see the comment at the top of main.cpp)\n", a.c_str());
      return 2;
    }
  }
  if (o.solver != "cg" && o.solver != "gmres") {
    if (root) std::fprintf(stderr, "--solver must be cg or gmres\n");
    return 2;
  }
  if (o.method.empty()) {
    const std::string preferred = o.solver == "cg" ? "par_ic" : "par_ilut";
    o.method = AsyncSparse::Impl::factory_has_method(preferred) ? preferred : "jacobi";
  }

  try {
    auto host = AsyncSparse::load_matrix(o.matrix);
    if (o.rcm) host = AsyncSparse::permute_symmetric(host, AsyncSparse::rcm_permutation(host));
    auto A = AsyncSparse::make_tpetra_matrix<SC, LO, GO, NT>(host, comm);
    if (root)
      std::printf("matrix %s%s: n = %d, nnz = %d, %d process(es), Belos %s, b = ones, x0 = 0, tol %.0e\n",
                  AsyncSparse::matrix_display_name(o.matrix).c_str(), o.rcm ? " (RCM order)" : "", host.nrows,
                  host.nnz(), comm->getSize(), o.solver == "cg" ? "CG" : "GMRES", o.tol);

    // The adapter: an Ifpack2::Preconditioner, configured with Ifpack2-style parameter names.
    Teuchos::ParameterList params;
    params.set("asyncsparse: method", o.method);
    if (o.sweeps >= 0) params.set("asyncsparse: sweeps", o.sweeps);
    params.set("fact: relative threshold", o.rel_threshold);
    const AsyncSparse::ParameterList extra = AsyncSparse::parse_parameter_string(o.param);
    for (const auto& kv : extra.values())
      AsyncSparse::Impl::set_teuchos(params, AsyncSparse::Impl::ifpack2_name_for(kv.first), kv.second);
    auto adapter = Teuchos::rcp(new AsyncSparse::Ifpack2Adapter<SC, LO, GO, NT>(A));
    adapter->setParameters(params);
    Kokkos::Timer t;
    adapter->initialize();
    adapter->compute();
    Result ours = solve(o, A, adapter);
    ours.setup = t.seconds() - ours.solve;

    // Ifpack2's own RILUK(0) on the same matrix (block Jacobi across processes, like the adapter).
    Teuchos::ParameterList rp;
    rp.set("fact: iluk level-of-fill", 0);
    rp.set("fact: relative threshold", o.rel_threshold);
    auto riluk = Ifpack2::Factory::create<row_matrix_type>("RILUK", A);
    riluk->setParameters(rp);
    t.reset();
    riluk->initialize();
    riluk->compute();
    const double riluk_setup = t.seconds();
    Result theirs = solve(o, A, riluk);
    theirs.setup = riluk_setup;

    Result none = solve(o, A, Teuchos::null);

    if (root) {
      std::printf("%-46s %10s %10s %10s %14s  %s\n", "preconditioner", "setup [s]", "solve [s]", "iterations",
                  "rel. residual", "status");
      auto row = [](const std::string& name, const Result& r) {
        std::printf("%-46s %10.4f %10.4f %10d %14.3e  %s\n", name.c_str(), r.setup, r.solve, r.iterations, r.residual,
                    r.converged ? "converged" : "NOT converged");
      };
      const std::string shift =
          o.rel_threshold != 1.0 ? " rel. thr. " + std::to_string(o.rel_threshold).substr(0, 5) : "";
      row("Ifpack2 RILUK(0)" + shift, theirs);
      row("AsyncSparse " + o.method + (o.sweeps >= 0 ? " (" + std::to_string(o.sweeps) + " sweeps)" : "") +
              (o.param.empty() ? "" : " " + o.param) + shift,
          ours);
      row("none", none);
      std::printf("adapter: %s\n", adapter->description().c_str());
    }
    return ours.converged ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[rank %d] error: %s\n", comm->getRank(), e.what());
    return 1;
  }
}
