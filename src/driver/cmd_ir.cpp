// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse ir — mixed-precision iterative refinement with a block-asynchronous inner solver
// (Anzt, Luszczek, Dongarra, Heuveline 2012), its all-double variant, and plain double async-(k).
//
// Convention: x0 = 0, b = ones (or --rhs random); the relative residual ||b - A x||_2 / ||b||_2 is reported per
// outer step against cumulative inner global iterations and time. --compare runs the three variants of the
// paper's Fig. 5/6 (mixed IR, double IR, plain double async-(k)) in one process on the same matrix.
// --shift s adds s to every diagonal entry (A + s I), e.g. for the large 2D Laplacian of the GPU experiment.
#include <asyncsparse/solvers/AsyncSparse_iterative_refinement.hpp>

#include "driver_block_async.hpp"
#include "driver_device.hpp"

namespace AsyncSparse {
namespace Driver {
namespace cmd_ir_local {

struct Options {
  ProblemOptions problem;
  std::string inner = "block-async", inner_precision = "float";
  bool compare = false;
  double tol = 1e-12;
  int max_outer = 50;
  BlockAsyncOptions async_k;  ///< the inner solver
  double inner_reduction = 0;
  int max_inner = 20000, plain_max_iters = 100000, stagnation_checks = 0;
  bool verbose = false;
  LaunchOptions launch;
};

void define(Cli& cli, Options& o) {
  cli.about(
      "Mixed-precision iterative refinement with a block-asynchronous async-(k) error-correction solver.\n"
      "x0 = 0, b = ones; stops at ||b - A x|| / ||b|| <= --tol.");
  add_matrix_argument(cli, o.problem);
  cli.choice("inner", o.inner, {"block-async"}, "inner (error-correction) solver");
  cli.choice("inner-precision", o.inner_precision, {"float", "double"},
             "inner solver precision: float (mixed precision) | double");
  cli.flag("compare", o.compare, "run mixed IR, double IR and plain double async-(k) (the paper's three variants)");
  cli.option("tol", o.tol, "outer relative residual tolerance");
  cli.option("max-outer", o.max_outer, "maximum outer steps");
  const BlockAsyncHelp help{"k of the inner async-(k)", "relaxation weight tau of the inner solver (0 = estimate)",
                            "inner global iterations per launch (= between the measuring steps' residual checks)",
                            "deterministic (block-Jacobi) inner solver"};
  add_block_async_options(cli, o.async_k, help);
  cli.option("inner-reduction", o.inner_reduction,
             "inner residual reduction aimed at per outer step (0: 1e-6 float inner, 1e-8 double inner)");
  cli.option("max-inner", o.max_inner, "limit of inner global iterations per outer step");
  cli.option("stagnation-checks", o.stagnation_checks,
             "stagnation window of the measuring steps, in residual checks (0: host max(10, checks/8), GPU 3)");
  cli.option("plain-max-iters", o.plain_max_iters, "iteration limit of the plain double async-(k) run of --compare");
  add_rhs_options(cli, o.problem, {"ones", "random"}, "right-hand side (random: uniform in [-1,1], seed --rhs-seed)");
  add_shift_option(cli, o.problem);
  cli.flag("verbose", o.verbose, "print every outer step");
  cli.launch_options(o.launch);
}

struct Setup {
  Problem problem;
  IterativeRefinementParams p;
  LaunchConfig lc;
  std::vector<std::string> variants;  ///< float (mixed IR), double (double IR), plain (double async-(k))
  ExecSpace exec;
  Crs<double, Device> A;
  Kokkos::View<const double*, Device> b;
};

void prepare(Setup& s, const Options& o, Json& rec) {
  s.problem = load_problem("ir", o.problem, rec);
  s.p.tol = o.tol;
  s.p.max_outer = o.max_outer;
  set_block_async_params(s.p.inner, o.async_k);
  s.p.inner_reduction = o.inner_reduction;
  s.p.first_inner_max = s.p.max_inner_iters = o.max_inner;
  s.p.stagnation_checks = o.stagnation_checks;
  s.p.verbose = o.verbose ? 2 : 0;
  s.lc = launch_config(o.launch);
  if (o.compare)
    s.variants = {"float", "double", "plain"};
  else
    s.variants = {to_string(inner_precision_from_string(o.inner_precision))};
  s.A = to_device<Device>(s.problem.A);
  s.b = to_device<Device>(make_rhs("ir", o.problem, s.problem.A.nrows));
}

/// Plain double async-(k) to the outer tolerance (the third variant of --compare).
Json run_plain(Setup& s, const Options& o, Table& t, bool& ok) {
  BlockAsyncParams q = s.p.inner;
  q.tol = s.p.tol;
  q.max_global_iters = o.plain_max_iters;
  BlockAsyncHandle<double, Device> h(q, s.lc);
  Kokkos::View<double*, Device> x("x", s.problem.A.nrows);
  block_async_symbolic(s.exec, h, s.A);
  block_async_numeric(s.exec, h, s.A);
  const auto r = block_async_solve(s.exec, h, s.b, x);
  ok = r.converged();
  t.row({"double async-(" + std::to_string(s.p.inner.local_iters) + ")", "-", std::to_string(r.iterations), "-",
         fmt("%.3e", r.final_residual), fmt("%.4f", h.stats().setup_seconds), fmt("%.4f", r.seconds),
         fmt("%.4f", r.seconds), to_string(r.status)});
  Json j = Json::object();
  j["variant"] = "plain-double";
  j["status"] = to_string(r.status);
  if (!r.message.empty()) j["message"] = r.message;
  j["iterations"] = r.iterations;
  j["final_relative_residual"] = r.final_residual;
  j["seconds"] = r.seconds;
  j["setup_seconds"] = h.stats().setup_seconds;
  j["history_iterations"] = r.history.iterations;
  j["history_residual"] = r.history.residual;
  j["history_seconds"] = r.history.seconds;
  return j;
}

/// Iterative refinement with a float ("float") or double ("double") inner solver.
Json run_refinement(Setup& s, const std::string& v, Table& t, bool& ok) {
  IterativeRefinementParams p = s.p;
  p.inner_precision = inner_precision_from_string(v);
  IterativeRefinementHandle<Device> h(p, s.lc);
  Kokkos::View<double*, Device> x("x", s.problem.A.nrows);
  iterative_refinement_symbolic(s.exec, h, s.A);
  iterative_refinement_numeric(s.exec, h, s.A);
  const auto r = iterative_refinement_solve(s.exec, h, s.b, x);
  ok = r.converged();
  t.row({std::string(v == "float" ? "mixed IR (float inner)" : "double IR") + ", async-(" +
             std::to_string(p.inner.local_iters) + ")",
         std::to_string(r.outer_iterations), std::to_string(r.inner_iterations),
         std::to_string(r.adapted_inner_iterations), fmt("%.3e", r.final_relative_residual),
         fmt("%.4f", h.setup_seconds()), fmt("%.4f", r.seconds), fmt("%.4f", r.inner_seconds), to_string(r.status)});
  Json j = r;
  j["setup_seconds"] = h.setup_seconds();
  j["variant"] = v == "float" ? "mixed-ir" : "double-ir";
  j["inner_launch"] = h.inner_stats().launch;
  j["inner_block_size"] = h.inner_stats().block_size;
  if (!r.message.empty()) std::cout << "note (" << v << "): " << r.message << "\n";
  std::string steps;
  for (int k : r.measuring_steps) steps += (steps.empty() ? "" : ", ") + std::to_string(k);
  std::cout << "measuring (" << v << "): outer step(s) " << (steps.empty() ? "none" : steps) << ", stagnation window "
            << r.stagnation_window << "\n";
  return j;
}

class Ir : public Command {
 public:
  void define(Cli& cli) override { cmd_ir_local::define(cli, o_); }
  int run(Json& rec) override {
    Setup s;
    prepare(s, o_, rec);
    Table t({"variant", "outer", "inner iters", "m* (adapted)", "rel. residual", "setup [s]", "solve [s]", "inner [s]",
             "status"});
    Json runs = Json::array();
    bool all_ok = true;
    {
      Progress prog("ir", static_cast<long long>(s.variants.size()));
      for (const auto& v : s.variants) {
        prog.update(static_cast<long long>(runs.size()), "(" + v + ")");
        bool ok = true;
        runs.push_back(v == "plain" ? run_plain(s, o_, t, ok) : run_refinement(s, v, t, ok));
        all_ok = all_ok && ok;
      }
    }
    std::cout << s.problem.name << ": n = " << s.problem.A.nrows << ", nnz = " << s.problem.A.nnz()
              << ", b = " << o_.problem.rhs << ", x0 = 0, tol = " << number_text(o_.tol) << "\n";
    t.print();
    rec["runs"] = runs;
    return all_ok ? 0 : 3;
  }

 private:
  Options o_;
};

Registrar reg("ir", "mixed-precision iterative refinement with block-asynchronous inner solver",
              [] { return std::unique_ptr<Command>(new Ir); });

}  // namespace cmd_ir_local
}  // namespace Driver
}  // namespace AsyncSparse
