// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Ifpack2 adapter: parameters and their errors, the Ifpack2 life cycle (initialize / compute / apply,
// counters, setMatrix, pattern reuse), the local-block extraction, and the plumbing through Belos and
// Ifpack2::AdditiveSchwarz checked against Ifpack2's own Jacobi (Relaxation): with the same
// preconditioner the Krylov iteration counts must be identical. Runs on 1 and 2 MPI processes.
#include "Ifpack2TestHelpers.hpp"

#include <Ifpack2_AdditiveSchwarz.hpp>
#include <Teuchos_oblackholestream.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace AsyncSparse {
namespace Test {
namespace {

// ---------------------------------------------------------------------------------------------
// Parameters

TEST(Ifpack2Adapter, UnknownParameterListsValidNames) {
  Adapter M(tpetra_matrix("gen:lap2d:8"));
  Teuchos::ParameterList p = adapter_params("jacobi");
  p.set("relaxation: sweeps", 2);
  ASYNCSPARSE_EXPECT_THROW_MSG(M.setParameters(p), InvalidInput,
                               "unknown parameter 'relaxation: sweeps' for method 'jacobi'; valid parameters: "
                               "asyncsparse: method, fact: absolute threshold, fact: relative threshold");
}

TEST(Ifpack2Adapter, ParameterOfAnotherMethodIsRejected) {
  Adapter M(tpetra_matrix("gen:lap2d:8"));
  Teuchos::ParameterList p = adapter_params("jacobi");
  p.set("asyncsparse: definitely not a parameter", 5);
  ASYNCSPARSE_EXPECT_THROW_MSG(M.setParameters(p), InvalidInput,
                               "unknown parameter 'asyncsparse: definitely not a parameter' for method 'jacobi'");
}

TEST(Ifpack2Adapter, UnknownMethodListsRegisteredMethods) {
  Adapter M(tpetra_matrix("gen:lap2d:8"));
  ASYNCSPARSE_EXPECT_THROW_MSG(M.setParameters(adapter_params("par_foo")), InvalidInput,
                               "'asyncsparse: method' = 'par_foo' is not a registered AsyncSparse preconditioner; "
                               "valid methods: none, jacobi");
  // every registered method is accepted
  for (const auto& m : Adapter::methods()) {
    EXPECT_NO_THROW(M.setParameters(adapter_params(m))) << m;
    EXPECT_EQ(M.method(), m);
  }
}

TEST(Ifpack2Adapter, MethodOfWrongTypeIsRejected) {
  Adapter M(tpetra_matrix("gen:lap2d:8"));
  Teuchos::ParameterList p;
  p.set("asyncsparse: method", 3);
  ASYNCSPARSE_EXPECT_THROW_MSG(M.setParameters(p), InvalidInput,
                               "parameter 'asyncsparse: method' must be of type string, got int");
}

TEST(Ifpack2Adapter, DefaultMethodIsParIlu) {
  auto A = tpetra_matrix("gen:lap2d:8");
  Adapter M(A);
  EXPECT_EQ(M.method(), "par_ilu");
  if (have_method("par_ilu")) {
    EXPECT_NO_THROW(M.compute());
  } else {
    ASYNCSPARSE_EXPECT_THROW_MSG(M.compute(), InvalidInput, "par_ilu");
    ASYNCSPARSE_EXPECT_THROW_MSG(M.setParameters(Teuchos::ParameterList()), InvalidInput,
                                 "'asyncsparse: method' = 'par_ilu' (the default) is not a registered");
  }
}

// For every registered method and every parameter it declares: the Teuchos name reaches it, the
// default value is accepted, and a value of another type (or a string outside the choices) is rejected.
TEST(Ifpack2Adapter, LaunchSettingsHaveOneNameForEveryMethod) {
  // the launch settings are the same Ifpack2 parameters for every method that launches kernels
  Adapter M(tpetra_matrix("gen:lap2d:8"));
  for (const char* m : {"par_ilu", "par_ic", "par_ilut", "par_ict", "async_jacobi", "block_async"}) {
    M.setParameters(adapter_params(m));
    const auto valid = M.getValidParameters();
    for (const char* name : {"asyncsparse: team size", "asyncsparse: vector length", "asyncsparse: chunk size",
                             "asyncsparse: max concurrent teams", "asyncsparse: occupancy mode",
                             "asyncsparse: block order", "asyncsparse: launch seed", "asyncsparse: oversubscription",
                             "asyncsparse: schedule", "asyncsparse: unit stride"})
      EXPECT_TRUE(valid->isParameter(name)) << m << ": " << name;
  }
  Teuchos::ParameterList p = adapter_params("async_jacobi");
  p.set("asyncsparse: subwarp", 2);  // the former name of "asyncsparse: vector length"
  ASYNCSPARSE_EXPECT_THROW_MSG(M.setParameters(p), InvalidInput,
                               "unknown parameter 'asyncsparse: subwarp' for method 'async_jacobi'");
}

TEST(Ifpack2Adapter, EveryDeclaredParameterIsReachableAndTypeChecked) {
  auto A = tpetra_matrix("gen:lap2d:8");
  Adapter M(A);
  int checked = 0;
  for (const auto& m : Adapter::methods()) {
    M.setParameters(adapter_params(m));
    const auto valid = M.getValidParameters();
    EXPECT_TRUE(valid->isParameter("asyncsparse: method"));
    auto spec = make_preconditioner<double, Adapter::device_type>(m, Adapter::local_matrix_type())->parameter_spec();
    for (const auto& e : spec.entries()) {
      const std::string tname = Impl::ifpack2_name_for(e.name);
      SCOPED_TRACE(m + " / " + tname);
      EXPECT_TRUE(valid->isParameter(tname));
      Teuchos::ParameterList p = adapter_params(m);
      Impl::set_teuchos(p, tname, e.default_value);
      ASSERT_NO_THROW(M.setParameters(p));
      EXPECT_TRUE(M.asyncsparse_parameters().isParameter(e.name));
      Teuchos::ParameterList bad = adapter_params(m);
      switch (e.default_value.index()) {
        case 0:
          bad.set(tname, std::string("yes"));
          break;
        case 1:
          bad.set(tname, 2.5);
          break;
        case 2:
          bad.set(tname, true);
          break;
        default:
          bad.set(tname, 7);
          break;
      }
      ASYNCSPARSE_EXPECT_THROW_MSG(M.setParameters(bad), InvalidInput, "parameter '" + tname + "' must be of type");
      Teuchos::ParameterList unsupported = adapter_params(m);
      unsupported.set(tname, 1.5f);
      ASYNCSPARSE_EXPECT_THROW_MSG(M.setParameters(unsupported), InvalidInput, "has unsupported type");
      Teuchos::ParameterList sub = adapter_params(m);
      sub.sublist(tname);
      ASYNCSPARSE_EXPECT_THROW_MSG(M.setParameters(sub), InvalidInput, "must be a value, not a sublist");
      if (!e.choices.empty()) {
        Teuchos::ParameterList badchoice = adapter_params(m);
        badchoice.set(tname, std::string("no-such-choice"));
        ASYNCSPARSE_EXPECT_THROW_MSG(M.setParameters(badchoice), InvalidInput, "is not one of: " + e.choices[0]);
      }
      ++checked;
    }
  }
  say("[          ] %d declared parameters checked over %d registered methods\n", checked,
      static_cast<int>(Adapter::methods().size()));
  EXPECT_GE(Adapter::methods().size(), 2u);
}

// "fact: relative / absolute threshold" (Ifpack2 RILUK's names): the local block's diagonal becomes
// rel * a_ii + sign(a_ii) * abs; with Jacobi, M⁻¹ x = x / (rel * d + abs) exactly.
TEST(Ifpack2Adapter, DiagonalThresholds) {
  const CsrHost<double>& H = host_matrix("gen:lap2d:10");
  auto A = make_tpetra_matrix<SC, LO, GO, NT>(H, comm());
  Teuchos::ParameterList p = adapter_params("jacobi");
  p.set("fact: relative threshold", 2.0);
  p.set("fact: absolute threshold", 1);  // an int is accepted for a double
  auto M = make_adapter(A, p);
  mv_type X(A->getDomainMap(), 1), Y(A->getRangeMap(), 1);
  X.putScalar(9.0);
  M->apply(X, Y);
  auto y = Y.getData(0);
  for (std::size_t l = 0; l < Y.getLocalLength(); ++l) EXPECT_EQ(y[l], 9.0 * (1.0 / (2.0 * 4.0 + 1.0)));
  EXPECT_NE(M->description().find("diagonal: 2 a_ii + 1 sign(a_ii)"), std::string::npos) << M->description();
  // values refreshed by a second compute() are perturbed the same way
  M->compute();
  M->apply(X, Y);
  y = Y.getData(0);
  for (std::size_t l = 0; l < Y.getLocalLength(); ++l) EXPECT_EQ(y[l], 9.0 * (1.0 / (2.0 * 4.0 + 1.0)));
  Teuchos::ParameterList bad = adapter_params("jacobi");
  bad.set("fact: relative threshold", std::string("1.05"));
  ASYNCSPARSE_EXPECT_THROW_MSG(M->setParameters(bad), InvalidInput,
                               "parameter 'fact: relative threshold' must be of type double, got string");
  EXPECT_TRUE(M->getValidParameters()->isParameter("fact: absolute threshold"));
}

TEST(Ifpack2Adapter, NamesTranslateBothWays) {
  EXPECT_EQ(Impl::ifpack2_name_for("max_concurrent_teams"), "asyncsparse: max concurrent teams");
  EXPECT_EQ(Impl::ifpack2_name_for("fill_in_limit"), "asyncsparse: fill limit");
  EXPECT_EQ(Impl::ifpack2_name_for("tri_solve"), "asyncsparse: triangular solve");
  EXPECT_EQ(Impl::ifpack2_name_for("tri_solve_tolerance"), "asyncsparse: triangular solve tolerance");
  EXPECT_EQ(Impl::ifpack2_name_for("tri_solve_check_interval"), "asyncsparse: triangular solve check interval");
  ParameterSpec spec;
  spec.add("sweeps", 3, "doc").add("fill_in_limit", 2.0, "doc").add("block_order", std::string("forward"), "doc");
  EXPECT_EQ(Impl::asyncsparse_name_for("sweeps", spec), "sweeps");
  EXPECT_EQ(Impl::asyncsparse_name_for("fill limit", spec), "fill_in_limit");
  EXPECT_EQ(Impl::asyncsparse_name_for("block order", spec), "block_order");
  EXPECT_EQ(Impl::asyncsparse_name_for("triangular solve", spec), "");
}

// ---------------------------------------------------------------------------------------------
// Life cycle and errors

TEST(Ifpack2Adapter, ApplyBeforeComputeIsAnError) {
  auto A = tpetra_matrix("gen:lap2d:8");
  Adapter M(A);
  M.setParameters(adapter_params("jacobi"));
  mv_type X(A->getDomainMap(), 1), Y(A->getRangeMap(), 1);
  ASYNCSPARSE_EXPECT_THROW_MSG(M.apply(X, Y), InvalidInput,
                               "Ifpack2Adapter::apply: compute() must be called before apply()");
  M.initialize();
  EXPECT_TRUE(M.isInitialized());
  EXPECT_FALSE(M.isComputed());
  ASYNCSPARSE_EXPECT_THROW_MSG(M.apply(X, Y), InvalidInput, "compute() must be called before apply()");
  M.compute();
  EXPECT_NO_THROW(M.apply(X, Y));
  // new parameters invalidate the set-up
  M.setParameters(adapter_params("jacobi"));
  EXPECT_FALSE(M.isComputed());
  ASYNCSPARSE_EXPECT_THROW_MSG(M.apply(X, Y), InvalidInput, "compute() must be called before apply()");
}

TEST(Ifpack2Adapter, BadApplyArgumentsAreErrors) {
  auto A = tpetra_matrix("gen:lap2d:8");
  auto M = make_adapter(A, adapter_params("jacobi"));
  mv_type X(A->getDomainMap(), 2), Y(A->getRangeMap(), 3);
  ASYNCSPARSE_EXPECT_THROW_MSG(M->apply(X, Y), InvalidInput, "X has 2 columns but Y has 3");
  mv_type Y2(A->getRangeMap(), 2);
  ASYNCSPARSE_EXPECT_THROW_MSG(M->apply(X, Y2, Teuchos::TRANS), InvalidInput, "only mode = Teuchos::NO_TRANS");
  EXPECT_FALSE(M->hasTransposeApply());
}

TEST(Ifpack2Adapter, NullMatrixIsAnError) {
  Adapter M(Teuchos::null);
  M.setParameters(adapter_params("jacobi"));
  ASYNCSPARSE_EXPECT_THROW_MSG(M.initialize(), InvalidInput, "Ifpack2Adapter::initialize: the matrix is null");
  ASYNCSPARSE_EXPECT_THROW_MSG(M.compute(), InvalidInput, "the matrix is null");
  ASYNCSPARSE_EXPECT_THROW_MSG(M.getDomainMap(), InvalidInput, "getDomainMap: the matrix is null");
  EXPECT_NE(M.description().find("Matrix: null"), std::string::npos);
}

TEST(Ifpack2Adapter, NonSquareMatrixIsAnError) {
  // 6 x 8 (rows x columns), distributed
  auto row_map = Teuchos::rcp(new map_type(6, 0, comm()));
  auto dom_map = Teuchos::rcp(new map_type(8, 0, comm()));
  auto B = Teuchos::rcp(new crs_type(row_map, 2));
  for (std::size_t l = 0; l < row_map->getNodeNumElements(); ++l) {
    const GO g = row_map->getGlobalElement(static_cast<LO>(l));
    const GO cols[2] = {g, g + 2};
    const SC vals[2] = {2.0, -1.0};
    B->insertGlobalValues(g, Teuchos::ArrayView<const GO>(cols, 2), Teuchos::ArrayView<const SC>(vals, 2));
  }
  B->fillComplete(dom_map, row_map);
  Adapter M(B);
  M.setParameters(adapter_params("jacobi"));
  ASYNCSPARSE_EXPECT_THROW_MSG(M.compute(), InvalidInput, "the matrix must be square, got 6 x 8");
}

TEST(Ifpack2Adapter, AsyncSparseErrorsReachTheCaller) {
  // zero diagonal in global row 3: Jacobi reports it (by local row of the process that owns it)
  CsrHost<double> H = host_matrix("gen:lap2d:4");
  H.values[find_entry(H, 3, 3)] = 0.0;
  auto A = make_tpetra_matrix<SC, LO, GO, NT>(H, comm());
  Adapter M(A);
  M.setParameters(adapter_params("jacobi"));
  const bool owner = A->getRowMap()->isNodeGlobalElement(3);
  // every process calls compute(); only the owner of row 3 throws (local problem, no collective inside)
  if (owner) {
    ASYNCSPARSE_EXPECT_THROW_MSG(M.compute(), InvalidInput, "zero diagonal entry in row");
  } else {
    EXPECT_NO_THROW(M.compute());
  }
}

// apply() computes Y = beta Y + alpha diag(A)⁻¹ X exactly (Jacobi on the local block), on several columns,
// with X and Y given as views of other multivectors (non-constant stride).
TEST(Ifpack2Adapter, JacobiApplyMatchesDiagonalExactly) {
  CsrHost<double> H = random_diag_dominant(300, 7, 5);
  auto A = make_tpetra_matrix<SC, LO, GO, NT>(H, comm());
  auto M = make_adapter(A, adapter_params("jacobi"));
  mv_type Xall(A->getDomainMap(), 4), Yall(A->getRangeMap(), 4);
  Xall.randomize();
  Yall.randomize();
  const std::size_t cols[3] = {0, 3, 1};
  auto X = Xall.subView(Teuchos::ArrayView<const std::size_t>(cols, 3));
  auto Y = Yall.subViewNonConst(Teuchos::ArrayView<const std::size_t>(cols, 3));
  mv_type Y0(*Y, Teuchos::Copy);
  const double alpha = 2.0, beta = -0.5;
  M->apply(*X, *Y, Teuchos::NO_TRANS, alpha, beta);
  const auto& rm = *A->getRowMap();
  int mismatches = 0;
  for (std::size_t j = 0; j < 3; ++j) {
    auto xj = X->getData(j);
    auto yj = Y->getData(j);
    auto y0j = Y0.getData(j);
    for (std::size_t l = 0; l < rm.getNodeNumElements(); ++l) {
      const auto g = static_cast<ordinal_t>(rm.getGlobalElement(static_cast<LO>(l)));
      const double d = H.values[find_entry(H, g, g)];
      const double z = (1.0 / d) * xj[l];
      const double expect = beta * y0j[l] + alpha * z;
      if (yj[l] != expect) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0);
  // beta = 0 overwrites Y even when it holds NaN
  Y->putScalar(std::numeric_limits<double>::quiet_NaN());
  M->apply(*X, *Y);
  Teuchos::Array<double> norms(3);
  Y->norm2(norms());
  for (double v : norms) EXPECT_TRUE(std::isfinite(v));
  EXPECT_EQ(M->getNumApply(), 2);
  EXPECT_GE(M->getApplyTime(), 0.0);
}

// For every registered method: the adapter's apply equals AsyncSparse's own preconditioner built on the
// same local block and applied directly, bit for bit (Serial node: even the asynchronous methods run
// their updates in one fixed order).
TEST(Ifpack2Adapter, EveryMethodEqualsDirectAsyncSparseApply) {
  using Device = Adapter::device_type;
  auto A = tpetra_matrix("gen:lap2d:12");
  const auto block = local_diagonal_block(*A);
  const auto Ad = to_device<Device>(block.matrix);
  mv_type X(A->getDomainMap(), 2), Y(A->getRangeMap(), 2);
  X.randomize();
  for (const auto& m : Adapter::methods()) {
    SCOPED_TRACE(m);
    auto M = make_adapter(A, adapter_params(m));
    M->apply(X, Y);
    auto P = make_preconditioner<double, Device>(m, Ad);
    P->compute();
    Kokkos::View<double*, Device> x("x", block.matrix.nrows), z("z", block.matrix.nrows);
    int mismatches = 0;
    for (std::size_t j = 0; j < 2; ++j) {
      auto xj = X.getData(j);
      for (std::size_t l = 0; l < X.getLocalLength(); ++l) x(l) = xj[l];
      P->apply(x, z);
      Kokkos::fence();  // apply() is asynchronous: z is read on the host below
      auto yj = Y.getData(j);
      for (std::size_t l = 0; l < Y.getLocalLength(); ++l) mismatches += yj[l] != z(l);
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_EQ(M->local_preconditioner()->description(), P->description());
  }
}

// Every triangular-solve mode of the incomplete factorizations is reachable as "asyncsparse: triangular solve" and
// gives the apply of the AsyncSparse preconditioner built with the same tri_solve directly.
TEST(Ifpack2Adapter, TriangularSolveModesAreReachable) {
  using Device = Adapter::device_type;
  auto A = tpetra_matrix("gen:lap2d:12");
  const auto block = local_diagonal_block(*A);
  const auto Ad = to_device<Device>(block.matrix);
  mv_type X(A->getDomainMap(), 1), Y(A->getRangeMap(), 1);
  X.randomize();
  for (const std::string m : {"par_ic", "par_ilu", "par_ict"}) {
    if (!have_method(m)) continue;
    for (const auto& mode : tri_solve_kind_names()) {
      SCOPED_TRACE(m + " / " + mode);
      Teuchos::ParameterList p = adapter_params(m);
      p.set("asyncsparse: triangular solve", mode);
      p.set("asyncsparse: triangular solve tolerance", 1e-3);
      auto M = make_adapter(A, p);
      M->apply(X, Y);
      auto P =
          make_preconditioner<double, Device>(m, Ad, ParameterList{{"tri_solve", mode}, {"tri_solve_tolerance", 1e-3}});
      P->compute();
      EXPECT_EQ(M->local_preconditioner()->description(), P->description());
      if (mode != "auto") EXPECT_NE(P->description().find(mode), std::string::npos) << P->description();
      Kokkos::View<double*, Device> x("x", block.matrix.nrows), z("z", block.matrix.nrows);
      auto xj = X.getData(0);
      for (std::size_t l = 0; l < X.getLocalLength(); ++l) x(l) = xj[l];
      P->apply(x, z);
      Kokkos::fence();  // apply() is asynchronous: z is read on the host below
      auto yj = Y.getData(0);
      double diff = 0, ref = 0;
      for (std::size_t l = 0; l < Y.getLocalLength(); ++l) {
        diff = std::max(diff, std::abs(yj[l] - z(l)));
        ref = std::max(ref, std::abs(z(l)));
      }
      EXPECT_LE(diff, 1e-12 * ref);
    }
  }
}

// The local block holds exactly the owned rows x owned columns of the global matrix.
TEST(Ifpack2Adapter, LocalBlockIsTheOwnedDiagonalBlock) {
  const CsrHost<double>& H = host_matrix("gen:lap2d:12");
  auto A = make_tpetra_matrix<SC, LO, GO, NT>(H, comm());
  const auto block = local_diagonal_block(*A);
  const auto& rm = *A->getRowMap();
  const GO first = rm.getMinGlobalIndex(), last = rm.getMaxGlobalIndex();
  std::size_t kept = 0, dropped = 0;
  for (GO g = first; g <= last; ++g)
    for (offset_t k = H.row_begin(static_cast<ordinal_t>(g)); k < H.row_end(static_cast<ordinal_t>(g)); ++k) {
      const GO c = H.col_idx[k];
      if (c < first || c > last) {
        ++dropped;
        continue;
      }
      ++kept;
      const offset_t p = find_entry(block.matrix, static_cast<ordinal_t>(g - first), static_cast<ordinal_t>(c - first));
      ASSERT_GE(p, 0) << "entry (" << g << ", " << c << ") missing";
      EXPECT_EQ(block.matrix.values[p], H.values[k]);
    }
  EXPECT_EQ(static_cast<std::size_t>(block.matrix.nnz()), kept);
  EXPECT_EQ(block.dropped_nnz, dropped);
  if (nranks() == 1) EXPECT_EQ(dropped, 0u);
  if (nranks() > 1) EXPECT_GT(dropped, 0u);
  auto M = make_adapter(A, adapter_params("jacobi"));
  EXPECT_EQ(M->dropped_nnz(), dropped);
  EXPECT_EQ(M->local_matrix().nnz(), static_cast<int>(kept));
}

// setMatrix: a new matrix invalidates the set-up; compute() on the same matrix after a change of its
// values (same pattern) re-reads the values and keeps the symbolic set-up.
TEST(Ifpack2Adapter, SetMatrixAndPatternReuse) {
  auto A = tpetra_matrix("gen:lap2d:10");
  auto M = make_adapter(A, adapter_params("jacobi"));
  mv_type X(A->getDomainMap(), 1), Y1(A->getRangeMap(), 1), Y2(A->getRangeMap(), 1);
  X.randomize();
  M->apply(X, Y1);
  A->resumeFill();
  A->scale(2.0);
  A->fillComplete();
  M->compute();
  EXPECT_EQ(M->getNumInitialize(), 1);
  EXPECT_EQ(M->getNumCompute(), 2);
  M->apply(X, Y2);
  Y2.scale(2.0);  // diag doubled: M⁻¹ halved
  Y2.update(-1.0, Y1, 1.0);
  Teuchos::Array<double> n(1);
  Y2.normInf(n());
  EXPECT_EQ(n[0], 0.0);

  auto B = tpetra_matrix("gen:lap2d:10");
  M->setMatrix(B);
  EXPECT_FALSE(M->isInitialized());
  EXPECT_FALSE(M->isComputed());
  EXPECT_EQ(M->getMatrix().get(), B.get());
  M->compute();
  EXPECT_TRUE(M->isComputed());
  M->setMatrix(B);  // same matrix: nothing to redo
  EXPECT_TRUE(M->isComputed());
  M->setMatrix(Teuchos::null);
  EXPECT_FALSE(M->isInitialized());
}

TEST(Ifpack2Adapter, DescriptionAndDescribe) {
  auto A = tpetra_matrix("gen:lap2d:8");
  auto M = make_adapter(A, adapter_params("jacobi"));
  const std::string d = M->description();
  EXPECT_NE(d.find("\"AsyncSparse::Ifpack2Adapter\""), std::string::npos) << d;
  EXPECT_NE(d.find("Computed: true"), std::string::npos) << d;
  EXPECT_NE(d.find("method: \"jacobi\""), std::string::npos) << d;
  EXPECT_NE(d.find("Global matrix dimensions: [64, 64]"), std::string::npos) << d;
  std::ostringstream os;
  auto out = Teuchos::getFancyOStream(Teuchos::rcpFromRef(os));
  M->describe(*out, Teuchos::VERB_EXTREME);
  EXPECT_NE(os.str().find("local block:"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("apply: 0 calls"), std::string::npos) << os.str();
  EXPECT_EQ(M->getParameters().get<std::string>("asyncsparse: method"), "jacobi");
}

// A process that owns no rows (more processes than rows) takes part without a local preconditioner.
TEST(Ifpack2Adapter, TinyMatrixWithEmptyProcesses) {
  CsrHost<double> H(1, 1);
  H.row_ptr = {0, 1};
  H.col_idx = {0};
  H.values = {4.0};
  auto A = make_tpetra_matrix<SC, LO, GO, NT>(H, comm());
  auto M = make_adapter(A, adapter_params("jacobi"));
  EXPECT_EQ(M->local_preconditioner() != nullptr, A->getNodeNumRows() > 0);
  const auto run = belos_solve("CG", A, M);
  EXPECT_TRUE(run.converged);
  EXPECT_LE(run.iterations, 1);
}

// ---------------------------------------------------------------------------------------------
// Plumbing through Belos: the adapter with "jacobi" and Ifpack2's Relaxation Jacobi are the same
// preconditioner, so Belos must take exactly the same number of iterations.

TEST(Ifpack2Adapter, BelosCgJacobiMatchesIfpack2Relaxation) {
  for (const std::string name : {"bcsstk14", "nos3", "gen:lap2d:40"}) {
    auto A = tpetra_matrix(name);
    auto ours = make_adapter(A, adapter_params("jacobi"));
    auto theirs = make_relaxation_jacobi(A);
    const auto r1 = belos_solve("CG", A, ours);
    const auto r2 = belos_solve("CG", A, theirs);
    const auto r0 = belos_solve("CG", A, Teuchos::null);
    say("[          ] %-14s CG iterations: none %d, Ifpack2 Relaxation Jacobi %d, adapter jacobi %d\n", name.c_str(),
        r0.iterations, r2.iterations, r1.iterations);
    EXPECT_TRUE(r1.converged) << name;
    EXPECT_TRUE(r2.converged) << name;
    EXPECT_EQ(r1.iterations, r2.iterations) << name;
    EXPECT_LE(r1.true_relative_residual, 1.1e-6) << name;
    EXPECT_GT(ours->getNumApply(), 0);
    if (name == "bcsstk14") EXPECT_LT(r1.iterations, r0.iterations) << "Jacobi must help on bcsstk14";
  }
}

TEST(Ifpack2Adapter, BelosGmresJacobiMatchesIfpack2Relaxation) {
  for (const std::string name : {"watt_2", "random nonsymmetric"}) {
    auto A = make_tpetra_matrix<SC, LO, GO, NT>(
        name == "watt_2" ? host_matrix(name) : random_diag_dominant(2000, 7, 3, /*symmetric=*/false, 1.1), comm());
    auto ours = make_adapter(A, adapter_params("jacobi"));
    auto theirs = make_relaxation_jacobi(A);
    const auto r1 = belos_solve("GMRES", A, ours, 1e-6, 3000, 50);
    const auto r2 = belos_solve("GMRES", A, theirs, 1e-6, 3000, 50);
    say("[          ] %-14s GMRES(50) iterations: Ifpack2 Relaxation Jacobi %d (%s), adapter jacobi %d (%s)\n",
        name.c_str(), r2.iterations, r2.converged ? "converged" : "not converged", r1.iterations,
        r1.converged ? "converged" : "not converged");
    EXPECT_TRUE(r1.converged) << name;
    EXPECT_EQ(r1.converged, r2.converged) << name;
    EXPECT_EQ(r1.iterations, r2.iterations) << name;
  }
}

// ---------------------------------------------------------------------------------------------
// As the subdomain solver of Ifpack2::AdditiveSchwarz.

Teuchos::RCP<prec_type> make_schwarz(const Teuchos::RCP<const row_matrix_type>& A, int overlap,
                                     const Teuchos::RCP<prec_type>& inner, bool relaxation_inner) {
  auto S = Teuchos::rcp(new Ifpack2::AdditiveSchwarz<row_matrix_type>(A));
  Teuchos::ParameterList p;
  p.set("schwarz: overlap level", overlap);
  p.set("schwarz: combine mode", "ADD");  // symmetric for CG
  if (relaxation_inner) {
    p.set("inner preconditioner name", "RELAXATION");
    Teuchos::ParameterList& ip = p.sublist("inner preconditioner parameters");
    ip.set("relaxation: type", "Jacobi");
    ip.set("relaxation: sweeps", 1);
    ip.set("relaxation: damping factor", 1.0);
    ip.set("relaxation: zero starting solution", true);
  }
  S->setParameters(p);
  if (!inner.is_null()) S->setInnerPreconditioner(inner);
  S->initialize();
  S->compute();
  return S;
}

TEST(Ifpack2Adapter, SubdomainSolverOfAdditiveSchwarz) {
  auto A = tpetra_matrix("bcsstk14");
  for (int overlap : {0, 1}) {
    auto inner = Teuchos::rcp(new Adapter(Teuchos::null));  // AdditiveSchwarz gives it the subdomain matrix
    inner->setParameters(adapter_params("jacobi"));
    auto S_ours = make_schwarz(A, overlap, inner, false);
    EXPECT_TRUE(inner->isComputed());
    EXPECT_FALSE(inner->getMatrix().is_null());
    auto S_theirs = make_schwarz(A, overlap, Teuchos::null, true);
    const auto r1 = belos_solve("CG", A, S_ours);
    const auto r2 = belos_solve("CG", A, S_theirs);
    say("[          ] bcsstk14 CG + AdditiveSchwarz(overlap %d): inner Relaxation Jacobi %d, inner adapter %d\n",
        overlap, r2.iterations, r1.iterations);
    EXPECT_TRUE(r1.converged);
    EXPECT_EQ(r1.iterations, r2.iterations) << "overlap " << overlap;
    EXPECT_GT(inner->getNumApply(), 0);
    if (overlap == 0) {  // no overlap: the same block-Jacobi preconditioner as the adapter used directly
      const auto r3 = belos_solve("CG", A, make_adapter(A, adapter_params("jacobi")));
      EXPECT_EQ(r1.iterations, r3.iterations);
    }
  }
}

}  // namespace
}  // namespace Test
}  // namespace AsyncSparse
