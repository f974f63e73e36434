// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse solve — PCG or GMRES with a chosen preconditioner, b = ones (or random), x0 = 0.
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>

#include "driver_device.hpp"

namespace AsyncSparse {
namespace Driver {
namespace cmd_solve_local {

class Solve : public Command {
 public:
  void define(Cli& cli) override {
    cli.about("Solve A x = b by PCG (SPD) or restarted GMRES with a preconditioner; x0 = 0.");
    add_matrix_argument(cli, problem_);
    cli.choice("solver", solver_, {"cg", "gmres", "auto"},
               "Krylov solver (auto: cg when the matrix is symmetric with positive diagonal, else gmres)");
    cli.option("prec", prec_, "preconditioner: " + preconditioner_names());
    cli.option("tol", params_.tol, "relative residual tolerance");
    cli.option("max-iters", params_.max_iterations, "iteration limit");
    cli.option("restart", params_.restart, "GMRES restart length");
    add_rhs_options(cli, problem_, {"ones", "random"}, "right-hand side (random: uniform in [-1,1], seed --seed)",
                    "seed");
    cli.option("param", param_, "preconditioner parameters, comma-separated name=value (e.g. sweeps=5)");
    cli.flag("verbose", verbose_, "print every iteration's residual");
  }

  int run(Json& rec) override {
    // prepare
    const Problem pb = load_problem("solve", problem_, rec);
    std::string solver = solver_;
    const auto props = analyze(pb.A);
    if (solver == "auto") solver = (props.symmetric_values && props.positive_diagonal) ? "cg" : "gmres";
    params_.verbose = verbose_ ? 2 : 0;
    const auto A = to_device<Device>(pb.A);
    const auto b = to_device<Device>(make_rhs("solve", problem_, pb.A.nrows));
    // run
    auto M = make_preconditioner<double, Device>(prec_, A, parse_parameter_string(param_));
    M->compute();
    Kokkos::View<double*, Device> x("x", A.numRows());
    const auto res = solver == "cg" ? cg<double, Device>(A, b, x, M.get(), params_)
                                    : gmres<double, Device>(A, b, x, M.get(), params_);
    // report
    const double setup = M->getInitializeTime() + M->getComputeTime();
    Table t(
        {"matrix", "n", "nnz", "solver", "prec", "iterations", "rel. residual", "setup [s]", "solve [s]", "status"});
    t.row({pb.name, std::to_string(pb.A.nrows), std::to_string(pb.A.nnz()), solver, M->description(),
           std::to_string(res.iterations), fmt("%.3e", res.final_relative_residual), fmt("%.4f", setup),
           fmt("%.4f", res.time_seconds), to_string(res.status)});
    t.print();
    if (!res.message.empty()) std::cout << "note: " << res.message << "\n";
    // CG's kernels follow the measured rule (Impl::resolve_krylov_implementation); GMRES always runs fused
    const std::string kernels =
        solver == "cg" ? to_string(Impl::resolve_krylov_implementation(params_.implementation,
                                                                       Impl::is_gpu_space<Device::execution_space>()))
                       : "fused";
    std::cout << "Krylov kernels: " << kernels << " (auto rule: fused on GPUs, textbook loop on host backends)";
    if (res.graph_replays > 0)
      std::cout << "; preconditioner and product replayed as a CUDA graph in " << res.graph_replays << " iterations";
    if (solver == "gmres")
      std::cout << (res.one_team_cycles > 0
                        ? "; " + std::to_string(res.one_team_cycles) + " cycles each in one launch of one team"
                        : std::string("; orthogonalization ") +
                              (res.one_team_orthogonalization ? "in one launch of one team" : "in four kernels"))
                << " (rule: one team up to " << kGmresOneTeamMaxRows << " rows on GPUs)";
    std::cout << "\n";
    rec["solver"] = solver;
    rec["krylov_kernels"] = kernels;
    rec["preconditioner"] = M->description();
    rec["setup_seconds"] = setup;
    rec["result"] = res;
    return res.converged() ? 0 : 3;
  }

 private:
  ProblemOptions problem_;
  std::string solver_ = "auto", prec_ = "jacobi", param_;
  SolverParams params_ = default_params();
  bool verbose_ = false;
  static SolverParams default_params() {
    SolverParams p;
    p.tol = 1e-6;
    p.max_iterations = 1000;
    p.restart = 30;
    return p;
  }
};

Registrar reg("solve", "PCG / GMRES solve with a preconditioner (none, jacobi, ...)",
              [] { return std::unique_ptr<Command>(new Solve); });

}  // namespace cmd_solve_local
}  // namespace Driver
}  // namespace AsyncSparse
