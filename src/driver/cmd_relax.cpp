// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse relax — relaxation methods as solvers: block-asynchronous async-(k) and its baselines
// (device synchronous Jacobi, sequential Gauss–Seidel on the host, Kokkos-Kernels' Gauss–Seidel on the device).
//
// Convention (Anzt et al. 2011 and DESIGN.md): x0 = 0, b = ones (or --rhs random), the relative residual
// ||b - A x||_2 / ||b||_2 is reported against global iterations (one global iteration of async-(k) = one pass
// over all blocks with k local sweeps each; one sweep for Jacobi / Gauss–Seidel) and against time.
// --shift s adds s to every diagonal entry (A + s I: e.g. a 2D Laplacian scaled to fv1's conditioning, the
// large GPU problem; a bare 2D Laplacian of that size needs millions of relaxation sweeps).
// --runs R > 1 repeats async-(k) from x0 = 0 and prints the spread of the residual at --stats-at iteration
// counts (the paper's Tables IV and V).
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <asyncsparse/relaxation/AsyncSparse_block_async.hpp>

#include <random>
#include <sstream>

#include "driver_common.hpp"

namespace AsyncSparse {
namespace Driver {
namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ','))
    if (!t.empty()) out.push_back(t);
  return out;
}

Json to_json(const RelaxationResult& r) {
  Json j = Json::object();
  j["status"] = to_string(r.status);
  j["iterations"] = r.iterations;
  j["initial_residual"] = r.initial_residual;
  j["final_residual"] = r.final_residual;
  j["seconds"] = r.seconds;
  if (!r.message.empty()) j["message"] = r.message;
  j["history_iterations"] = r.history.iterations;
  j["history_residual"] = r.history.residual;
  j["history_seconds"] = r.history.seconds;
  return j;
}

Json to_json(const BlockAsyncStats& s) {
  Json j = Json::object();
  j["block_size"] = s.block_size;
  j["num_blocks"] = static_cast<long long>(s.num_blocks);
  j["tau"] = s.tau;
  j["fused"] = s.fused;
  j["fused_teams"] = s.teams;
  j["scratch_bytes"] = static_cast<long long>(s.scratch_bytes);
  j["scratch_level"] = s.scratch_level;
  j["local_nnz"] = static_cast<long long>(s.local_nnz);
  j["remote_nnz"] = static_cast<long long>(s.remote_nnz);
  j["setup_seconds"] = s.setup_seconds;
  j["launch"] = AsyncSparse::to_json(s.launch);
  return j;
}

template <class Scalar>
RelaxationResult run_block_async(const CsrHost<double>& Ah, const std::vector<double>& bh, const BlockAsyncParams& p,
                                 const LaunchConfig& lc, int runs, const std::vector<int>& stats_at, Json& out,
                                 Table* stats_table) {
  CsrHost<Scalar> As(Ah.nrows, Ah.ncols);
  As.row_ptr = Ah.row_ptr;
  As.col_idx = Ah.col_idx;
  As.values.assign(Ah.values.begin(), Ah.values.end());
  std::vector<Scalar> bs(bh.begin(), bh.end());
  auto A = to_device<Device>(As);
  Kokkos::View<const Scalar*, Device> b = to_device<Device>(bs);
  Kokkos::View<Scalar*, Device> x("x", Ah.nrows);
  BlockAsyncHandle<Scalar, Device> h(p, lc);
  ExecSpace exec;
  block_async_symbolic(exec, h, A);
  block_async_numeric(exec, h, A);
  auto r = block_async_solve(exec, h, b, x);
  out["setup"] = to_json(h.stats());
  if (runs > 1) {
    auto S = block_async_statistics(exec, h, b, runs, stats_at);
    Json js = Json::object();
    js["runs"] = S.runs;
    js["checkpoints"] = S.checkpoints;
    js["mean"] = S.mean;
    js["variance"] = S.variance;
    js["std_deviation"] = S.std_deviation;
    js["std_error"] = S.std_error;
    js["min"] = S.min;
    js["max"] = S.max;
    js["variation"] = S.variation;
    js["relative_spread"] = S.relative_spread;
    Json samples = Json::array();
    for (const auto& s : S.samples) samples.push_back(Json(s));
    js["samples"] = samples;
    out["statistics"] = js;
    for (std::size_t c = 0; c < S.checkpoints.size(); ++c)
      stats_table->row({std::to_string(S.checkpoints[c]), fmt("%.6e", S.mean[c]), fmt("%.6e", S.max[c]),
                        fmt("%.6e", S.min[c]), fmt("%.3e", S.variation[c]), fmt("%.3e", S.relative_spread[c]),
                        fmt("%.3e", S.variance[c]), fmt("%.3e", S.std_deviation[c]), fmt("%.3e", S.std_error[c])});
  }
  return r;
}

int run_relax(int argc, char** argv) {
  Cli cli("relax",
          "Relaxation to a tolerance: block-asynchronous async-(k) and Jacobi / Gauss-Seidel baselines.\n"
          "x0 = 0, b = ones; residual = ||b - A x|| / ||b|| vs global iterations and time.");
  cli.positional("matrix", "Matrix Market file or gen:... spec");
  cli.option("method", "block-async",
             "comma-separated: block-async | jacobi (device, sync) | gauss-seidel (host, sequential) | "
             "kk-gauss-seidel (device, Kokkos-Kernels) | jacobi-host");
  cli.option("local-iters", "5", "k of async-(k): local Jacobi sweeps per block and global iteration");
  cli.option("block-size", "-1", "rows per block (-1: --chunk-size, else 512 GPU / 1024 host)");
  cli.option("iters", "10000", "maximum global iterations (sweeps)");
  cli.option("tol", "1e-10", "relative residual tolerance");
  cli.option("tau", "1", "relaxation weight tau (M = I - tau D^-1 A); 0 = estimate 2/(lmin+lmax) by Lanczos");
  cli.option("iters-per-launch", "10", "global iterations per launch = between residual checks (1: exact counts)");
  cli.option("launch-mode", "per-iteration",
             "per-iteration (one launch per global iteration, the paper's) | fused (persistent teams)");
  cli.flag("deterministic", "block-Jacobi double buffering (reproducible) instead of asynchronous updates");
  cli.option("precision", "double", "block-async working precision: double | float");
  cli.option("runs", "1", "repeat async-(k) runs for statistics (paper Tables IV/V)");
  cli.option("stats-at", "",
             "comma-separated iteration counts for --runs statistics (default: 10 points up to --iters)");
  cli.option("check-every", "1", "sweeps between residual checks of kk-gauss-seidel");
  cli.option("rhs", "ones", "right-hand side: ones | random (uniform in [-1,1], seed --rhs-seed)");
  cli.option("rhs-seed", "0", "seed of the random right-hand side");
  cli.option("shift", "0", "add this to every diagonal entry (A + shift I)");
  cli.option("json", "", "write a JSON record (histories, statistics, launch) to this file");
  cli.launch_options();
  if (!cli.parse(argc, argv)) return 0;
  Json rec = run_record("relax", cli);
  auto Ah = load_for_command(cli.arg("matrix"), &rec);
  check_square(Ah, "relax");
  check_nonempty(Ah, "relax");
  check_finite(Ah, "relax");
  const double shift = cli.real("shift");
  if (shift != 0) {
    check_diagonal(Ah, "relax");
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
    throw InvalidInput("relax: --rhs must be ones or random, got '" + cli.str("rhs") + "'");
  }
  BlockAsyncParams p;
  p.local_iters = static_cast<int>(cli.integer("local-iters"));
  p.block_size = static_cast<int>(cli.integer("block-size"));
  p.max_global_iters = static_cast<int>(cli.integer("iters"));
  p.tol = cli.real("tol");
  p.tau = cli.real("tau");
  p.global_iters_per_launch = static_cast<int>(cli.integer("iters-per-launch"));
  p.launch_mode = block_async_launch_mode_from_string(cli.str("launch-mode"));
  p.deterministic = cli.flag_set("deterministic");
  const LaunchConfig lc = cli.launch_config();
  const int runs = static_cast<int>(cli.integer("runs"));
  if (runs < 1) throw InvalidInput("relax: --runs must be >= 1");
  std::vector<int> stats_at;
  if (!cli.str("stats-at").empty()) {
    stats_at = cli.int_list("stats-at");
  } else {
    for (int c = 1; c <= 10; ++c) stats_at.push_back(std::max(1, p.max_global_iters * c / 10));
    stats_at.erase(std::unique(stats_at.begin(), stats_at.end()), stats_at.end());
  }
  const std::string precision = cli.str("precision");
  if (precision != "double" && precision != "float")
    throw InvalidInput("relax: --precision must be double or float, got '" + precision + "'");

  Table st({"# iters", "avg. residual", "max res.", "min res.", "variation", "rel. spread", "variance", "std. dev.",
            "std. error"});
  std::vector<Json> items;
  std::vector<RelaxationResult> outcomes;
  std::vector<std::string> labels;
  bool all_ok = true;
  int gs_iters = -1;
  for (const auto& method : split_list(cli.str("method"))) {
    Json j = Json::object();
    j["method"] = method;
    RelaxationResult r;
    std::string label = method;
    if (method == "block-async" || method == "jacobi") {
      BlockAsyncParams q = method == "jacobi" ? sync_jacobi_params(p) : p;
      if (method == "block-async")
        label = std::string(p.deterministic ? "block-jacobi-(" : "async-(") + std::to_string(p.local_iters) + ")" +
                (precision == "float" ? " float" : "");
      else
        label = "jacobi (device)";
      r = precision == "float"
              ? run_block_async<float>(Ah, bh, q, lc, method == "block-async" ? runs : 1, stats_at, j, &st)
              : run_block_async<double>(Ah, bh, q, lc, method == "block-async" ? runs : 1, stats_at, j, &st);
    } else if (method == "gauss-seidel") {
      std::vector<double> x(Ah.nrows, 0.0);
      r = host_gauss_seidel_solve(Ah, bh, x, p.tol, p.max_global_iters);
      label = "gauss-seidel (host)";
      gs_iters = r.converged() ? r.iterations : -1;
    } else if (method == "jacobi-host") {
      std::vector<double> x(Ah.nrows, 0.0);
      r = host_jacobi_solve(Ah, bh, x, p.tol, p.max_global_iters, p.tau > 0 ? p.tau : 1.0);
      label = "jacobi (host)";
    } else if (method == "kk-gauss-seidel") {
      auto A = to_device<Device>(Ah);
      Kokkos::View<const double*, Device> b = to_device<Device>(bh);
      Kokkos::View<double*, Device> x("x", Ah.nrows);
      double setup = 0;
      r = kk_gauss_seidel_solve(ExecSpace(), A, b, x, p.tol, p.max_global_iters,
                                static_cast<int>(cli.integer("check-every")), &setup);
      j["setup_seconds"] = setup;
      label = "gauss-seidel (kokkos-kernels)";
    } else {
      throw InvalidInput("relax: unknown --method '" + method +
                         "'; valid: block-async, jacobi, gauss-seidel, kk-gauss-seidel, jacobi-host");
    }
    all_ok = all_ok && r.converged();
    j["label"] = label;
    j["result"] = to_json(r);
    items.push_back(j);
    outcomes.push_back(r);
    labels.push_back(label);
  }
  // the iteration ratio against Gauss–Seidel (when it ran and converged)
  Table t({"method", "iterations", "rel. residual", "time [s]", "time/iter [ms]", "vs GS iters", "status"});
  Json results = Json::array();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& r = outcomes[i];
    const bool ratio_ok = gs_iters > 0 && r.converged();
    if (ratio_ok) items[i]["iterations_vs_gauss_seidel"] = double(r.iterations) / gs_iters;
    t.row({labels[i], std::to_string(r.iterations), fmt("%.3e", r.final_residual), fmt("%.4f", r.seconds),
           fmt("%.4f", r.iterations > 0 ? 1e3 * r.seconds / r.iterations : 0.0),
           ratio_ok ? fmt("%.3f", double(r.iterations) / gs_iters) : "", to_string(r.status)});
    results.push_back(items[i]);
  }
  std::cout << matrix_display_name(cli.arg("matrix")) << ": n = " << Ah.nrows << ", nnz = " << Ah.nnz()
            << ", b = " << cli.str("rhs") << ", x0 = 0, tol = " << cli.str("tol") << "\n";
  t.print();
  if (runs > 1) {
    std::cout << "\nasync-(" << p.local_iters << ") over " << runs << " runs (relative residual after # iters):\n";
    st.print();
  }
  rec["results"] = results;
  if (!cli.str("json").empty()) rec.save(cli.str("json"));
  return all_ok ? 0 : 3;
}

Registrar reg("relax", "block-asynchronous relaxation async-(k) and Jacobi / Gauss-Seidel baselines", run_relax);

}  // namespace
}  // namespace Driver
}  // namespace AsyncSparse
