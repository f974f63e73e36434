// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse solve — PCG or GMRES with a chosen preconditioner, b = ones (or random), x0 = 0.
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>

#include <random>

#include "driver_common.hpp"

namespace AsyncSparse {
namespace Driver {
namespace {

int run_solve(int argc, char** argv) {
  Cli cli("solve", "Solve A x = b by PCG (SPD) or restarted GMRES with a preconditioner; x0 = 0.");
  cli.positional("matrix", "Matrix Market file or gen:... spec");
  cli.option("solver", "auto", "cg | gmres | auto (cg when the matrix is symmetric with positive diagonal)");
  cli.option("prec", "jacobi", "preconditioner: " + preconditioner_names());
  cli.option("tol", "1e-6", "relative residual tolerance");
  cli.option("max-iters", "1000", "iteration limit");
  cli.option("restart", "30", "GMRES restart length");
  cli.option("rhs", "ones", "right-hand side: ones | random (uniform in [-1,1], seed --seed)");
  cli.option("seed", "0", "seed of the random right-hand side");
  cli.option("param", "", "preconditioner parameters, comma-separated name=value (e.g. sweeps=5)");
  cli.option("json", "", "write a JSON record to this file");
  cli.flag("verbose", "print every iteration's residual");
  if (!cli.parse(argc, argv)) return 0;
  Json rec = run_record("solve", cli);
  auto Ah = load_for_command(cli.arg("matrix"), &rec);
  check_square(Ah, "solve");
  check_nonempty(Ah, "solve");
  check_finite(Ah, "solve");
  std::string solver = cli.str("solver");
  const auto props = analyze(Ah);
  if (solver == "auto") solver = (props.symmetric_values && props.positive_diagonal) ? "cg" : "gmres";
  if (solver != "cg" && solver != "gmres") throw InvalidInput("solve: --solver must be cg, gmres or auto, got '" + solver + "'");
  SolverParams sp;
  sp.tol = cli.real("tol");
  sp.max_iterations = static_cast<int>(cli.integer("max-iters"));
  sp.restart = static_cast<int>(cli.integer("restart"));
  sp.verbose = cli.flag_set("verbose") ? 2 : 0;

  auto A = to_device<Device>(Ah);
  auto M = make_preconditioner<double, Device>(cli.str("prec"), A, parse_parameter_string(cli.str("param")));
  M->compute();

  Kokkos::View<double*, Device> b("b", A.numRows()), x("x", A.numRows());
  if (cli.str("rhs") == "ones") {
    Kokkos::deep_copy(b, 1.0);
  } else if (cli.str("rhs") == "random") {
    std::mt19937_64 rng(static_cast<std::uint64_t>(cli.integer("seed")));
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> bh(A.numRows());
    for (auto& v : bh) v = u(rng);
    b = to_device<Device>(bh);
  } else {
    throw InvalidInput("solve: --rhs must be ones or random, got '" + cli.str("rhs") + "'");
  }
  auto res = solver == "cg" ? cg<double, Device>(A, b, x, M.get(), sp) : gmres<double, Device>(A, b, x, M.get(), sp);

  Table t({"matrix", "n", "nnz", "solver", "prec", "iterations", "rel. residual", "setup [s]", "solve [s]", "status"});
  t.row({matrix_display_name(cli.arg("matrix")), std::to_string(Ah.nrows), std::to_string(Ah.nnz()), solver,
         M->description(), std::to_string(res.iterations), fmt("%.3e", res.final_relative_residual),
         fmt("%.4f", M->getInitializeTime() + M->getComputeTime()), fmt("%.4f", res.time_seconds),
         to_string(res.status)});
  t.print();
  if (!res.message.empty()) std::cout << "note: " << res.message << "\n";
  rec["solver"] = solver;
  rec["preconditioner"] = M->description();
  rec["setup_seconds"] = M->getInitializeTime() + M->getComputeTime();
  rec["result"] = to_json(res);
  if (!cli.str("json").empty()) rec.save(cli.str("json"));
  return res.converged() ? 0 : 3;
}

Registrar reg("solve", "PCG / GMRES solve with a preconditioner (none, jacobi, ...)", run_solve);

}  // namespace
}  // namespace Driver
}  // namespace AsyncSparse
