// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse ir — mixed-precision iterative refinement with a block-asynchronous inner solver
// (Anzt, Luszczek, Dongarra, Heuveline 2012), its all-double variant, and plain double async-(k).
//
// Convention: x0 = 0, b = ones (or --rhs random); the relative residual ||b - A x||_2 / ||b||_2 is reported per
// outer step against cumulative inner global iterations and time. --compare runs the three variants of the
// paper's Fig. 5/6 (mixed IR, double IR, plain double async-(k)) in one process on the same matrix.
// --shift s adds s to every diagonal entry (A + s I), e.g. for the large 2D Laplacian of the GPU experiment.
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <asyncsparse/solvers/AsyncSparse_iterative_refinement.hpp>

#include <random>

#include "driver_common.hpp"

namespace AsyncSparse {
namespace Driver {
namespace {

Json ir_json(const IterativeRefinementResult& r, double setup) {
  Json j = Json::object();
  j["status"] = to_string(r.status);
  if (!r.message.empty()) j["message"] = r.message;
  j["inner_precision"] = to_string(r.inner_precision);
  j["outer_iterations"] = r.outer_iterations;
  j["inner_iterations"] = r.inner_iterations;
  j["adapted_inner_iterations"] = r.adapted_inner_iterations;
  j["measured_inner_reduction"] = r.measured_inner_reduction;
  j["initial_residual"] = r.initial_residual;
  j["final_relative_residual"] = r.final_relative_residual;
  j["inner_per_outer"] = r.inner_per_outer;
  j["residual_history"] = r.residual_history;
  j["inner_history"] = r.inner_history;
  j["time_history"] = r.time_history;
  j["seconds"] = r.seconds;
  j["inner_seconds"] = r.inner_seconds;
  j["setup_seconds"] = setup;
  return j;
}

int run_ir(int argc, char** argv) {
  Cli cli("ir",
          "Mixed-precision iterative refinement with a block-asynchronous async-(k) error-correction solver.\n"
          "x0 = 0, b = ones; stops at ||b - A x|| / ||b|| <= --tol.");
  cli.positional("matrix", "Matrix Market file or gen:... spec");
  cli.option("inner", "block-async", "inner (error-correction) solver: block-async");
  cli.option("inner-precision", "float", "inner solver precision: float (mixed precision) | double");
  cli.flag("compare", "run mixed IR, double IR and plain double async-(k) (the paper's three variants)");
  cli.option("tol", "1e-12", "outer relative residual tolerance");
  cli.option("max-outer", "50", "maximum outer steps");
  cli.option("local-iters", "5", "k of the inner async-(k)");
  cli.option("block-size", "-1", "rows per block (-1: --chunk-size, else 512 GPU / 1024 host)");
  cli.option("tau", "1", "relaxation weight tau of the inner solver (0 = estimate)");
  cli.option("iters-per-launch", "10", "inner global iterations per launch (= between first-step checks)");
  cli.option("launch-mode", "per-iteration",
             "per-iteration (one launch per global iteration, the paper's) | fused (persistent teams)");
  cli.flag("deterministic", "deterministic (block-Jacobi) inner solver");
  cli.option("inner-reduction", "0",
             "inner residual reduction aimed at per outer step (0: 1e-6 float inner, 1e-8 double inner)");
  cli.option("max-inner", "20000", "limit of inner global iterations per outer step");
  cli.option("plain-max-iters", "100000", "iteration limit of the plain double async-(k) run of --compare");
  cli.option("rhs", "ones", "right-hand side: ones | random (uniform in [-1,1], seed --rhs-seed)");
  cli.option("rhs-seed", "0", "seed of the random right-hand side");
  cli.option("shift", "0", "add this to every diagonal entry (A + shift I)");
  cli.option("json", "", "write a JSON record to this file");
  cli.flag("verbose", "print every outer step");
  cli.launch_options();
  if (!cli.parse(argc, argv)) return 0;
  if (cli.str("inner") != "block-async")
    throw InvalidInput("ir: --inner must be block-async, got '" + cli.str("inner") + "'");
  Json rec = run_record("ir", cli);
  auto Ah = load_for_command(cli.arg("matrix"), &rec);
  check_square(Ah, "ir");
  check_nonempty(Ah, "ir");
  check_finite(Ah, "ir");
  const double shift = cli.real("shift");
  if (shift != 0) {
    check_diagonal(Ah, "ir");
    for (ordinal_t i = 0; i < Ah.nrows; ++i)
      for (offset_t k = Ah.row_ptr[i]; k < Ah.row_ptr[i + 1]; ++k)
        if (Ah.col_idx[k] == i) Ah.values[k] += shift;
  }
  std::vector<double> bh(Ah.nrows, 1.0);
  if (cli.str("rhs") == "random") {
    std::mt19937_64 rng(static_cast<std::uint64_t>(cli.integer("rhs-seed")));
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (auto& v : bh) v = u(rng);
  } else if (cli.str("rhs") != "ones") {
    throw InvalidInput("ir: --rhs must be ones or random, got '" + cli.str("rhs") + "'");
  }
  IterativeRefinementParams p;
  p.tol = cli.real("tol");
  p.max_outer = static_cast<int>(cli.integer("max-outer"));
  p.inner.local_iters = static_cast<int>(cli.integer("local-iters"));
  p.inner.block_size = static_cast<int>(cli.integer("block-size"));
  p.inner.tau = cli.real("tau");
  p.inner.global_iters_per_launch = static_cast<int>(cli.integer("iters-per-launch"));
  p.inner.launch_mode = block_async_launch_mode_from_string(cli.str("launch-mode"));
  p.inner.deterministic = cli.flag_set("deterministic");
  p.inner_reduction = cli.real("inner-reduction");
  p.first_inner_max = p.max_inner_iters = static_cast<int>(cli.integer("max-inner"));
  p.verbose = cli.flag_set("verbose") ? 2 : 0;
  const LaunchConfig lc = cli.launch_config();

  std::vector<std::string> variants;
  if (cli.flag_set("compare"))
    variants = {"float", "double", "plain"};
  else
    variants = {to_string(inner_precision_from_string(cli.str("inner-precision")))};

  ExecSpace exec;
  auto A = to_device<Device>(Ah);
  Kokkos::View<const double*, Device> b = to_device<Device>(bh);
  Table t({"variant", "outer", "inner iters", "m* (adapted)", "rel. residual", "setup [s]", "solve [s]", "inner [s]",
           "status"});
  Json runs = Json::array();
  bool all_ok = true;
  const std::string k = std::to_string(p.inner.local_iters);
  for (const auto& v : variants) {
    Kokkos::View<double*, Device> x("x", Ah.nrows);
    Json j;
    if (v == "plain") {
      BlockAsyncParams q = p.inner;
      q.tol = p.tol;
      q.max_global_iters = static_cast<int>(cli.integer("plain-max-iters"));
      BlockAsyncHandle<double, Device> h(q, lc);
      block_async_symbolic(exec, h, A);
      block_async_numeric(exec, h, A);
      auto r = block_async_solve(exec, h, b, x);
      all_ok = all_ok && r.converged();
      t.row({"double async-(" + k + ")", "-", std::to_string(r.iterations), "-", fmt("%.3e", r.final_residual),
             fmt("%.4f", h.stats().setup_seconds), fmt("%.4f", r.seconds), fmt("%.4f", r.seconds),
             to_string(r.status)});
      j = Json::object();
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
    } else {
      p.inner_precision = inner_precision_from_string(v);
      IterativeRefinementHandle<Device> h(p, lc);
      iterative_refinement_symbolic(exec, h, A);
      iterative_refinement_numeric(exec, h, A);
      auto r = iterative_refinement_solve(exec, h, b, x);
      all_ok = all_ok && r.converged();
      t.row({std::string(v == "float" ? "mixed IR (float inner)" : "double IR") + ", async-(" + k + ")",
             std::to_string(r.outer_iterations), std::to_string(r.inner_iterations),
             std::to_string(r.adapted_inner_iterations), fmt("%.3e", r.final_relative_residual),
             fmt("%.4f", h.setup_seconds()), fmt("%.4f", r.seconds), fmt("%.4f", r.inner_seconds),
             to_string(r.status)});
      j = ir_json(r, h.setup_seconds());
      j["variant"] = v == "float" ? "mixed-ir" : "double-ir";
      j["inner_launch"] = AsyncSparse::to_json(h.inner_stats().launch);
      j["inner_block_size"] = h.inner_stats().block_size;
      if (!r.message.empty()) std::cout << "note (" << v << "): " << r.message << "\n";
    }
    runs.push_back(j);
  }
  std::cout << matrix_display_name(cli.arg("matrix")) << ": n = " << Ah.nrows << ", nnz = " << Ah.nnz()
            << ", b = " << cli.str("rhs") << ", x0 = 0, tol = " << cli.str("tol") << "\n";
  t.print();
  rec["runs"] = runs;
  if (!cli.str("json").empty()) rec.save(cli.str("json"));
  return all_ok ? 0 : 3;
}

Registrar reg("ir", "mixed-precision iterative refinement with block-asynchronous inner solver", run_ir);

}  // namespace
}  // namespace Driver
}  // namespace AsyncSparse
