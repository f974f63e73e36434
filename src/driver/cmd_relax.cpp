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
#include <asyncsparse/relaxation/AsyncSparse_block_async.hpp>
#include <asyncsparse/relaxation/AsyncSparse_kk_gauss_seidel.hpp>

#include "driver_block_async.hpp"
#include "driver_device.hpp"

namespace AsyncSparse {
namespace Driver {
namespace cmd_relax_local {

struct Options {
  ProblemOptions problem;
  std::string method = "block-async";
  BlockAsyncOptions async_k;
  LaunchOptions launch;
  int iters = 10000;
  double tol = 1e-10;
  std::string precision = "double";
  int runs = 1;
  std::string stats_at;
  int check_every = 1;
};

void define(Cli& cli, Options& o) {
  cli.about(
      "Relaxation to a tolerance: block-asynchronous async-(k) and Jacobi / Gauss-Seidel baselines.\n"
      "x0 = 0, b = ones; residual = ||b - A x|| / ||b|| vs global iterations and time.");
  add_matrix_argument(cli, o.problem);
  cli.option("method", o.method,
             "comma-separated: block-async | jacobi (device, sync) | gauss-seidel (host, sequential) | "
             "kk-gauss-seidel (device, Kokkos-Kernels) | jacobi-host");
  const BlockAsyncHelp help{"k of async-(k): local Jacobi sweeps per block and global iteration",
                            "relaxation weight tau (M = I - tau D^-1 A); 0 = estimate 2/(lmin+lmax) by Lanczos",
                            "global iterations per launch = between residual checks (1: exact counts)",
                            "block-Jacobi double buffering (reproducible) instead of asynchronous updates"};
  add_block_async_options(cli, o.async_k, help, [&] {
    cli.option("iters", o.iters, "maximum global iterations (sweeps)");
    cli.option("tol", o.tol, "relative residual tolerance");
  });
  cli.choice("precision", o.precision, {"double", "float"}, "block-async working precision");
  cli.option("runs", o.runs, "repeat async-(k) runs for statistics (paper Tables IV/V)");
  cli.option("stats-at", o.stats_at,
             "comma-separated iteration counts for --runs statistics (default: 10 points up to --iters)");
  cli.option("check-every", o.check_every, "sweeps between residual checks of kk-gauss-seidel");
  add_rhs_options(cli, o.problem, {"ones", "random"}, "right-hand side (random: uniform in [-1,1], seed --rhs-seed)");
  add_shift_option(cli, o.problem);
  cli.launch_options(o.launch);
}

/// The prepared problem and the settings every method uses.
struct Setup {
  std::string label_of(const std::string& method) const;
  Problem problem;
  std::vector<double> b;
  BlockAsyncParams p;
  LaunchConfig lc;
  std::vector<int> stats_at;
};

Setup prepare(const Options& o, Json& rec) {
  Setup s;
  s.problem = load_problem("relax", o.problem, rec);
  s.b = make_rhs("relax", o.problem, s.problem.A.nrows);
  set_block_async_params(s.p, o.async_k);
  s.p.max_global_iters = o.iters;
  s.p.tol = o.tol;
  s.lc = launch_config(o.launch);
  if (o.runs < 1) throw InvalidInput("relax: --runs must be >= 1");
  if (!o.stats_at.empty()) {
    s.stats_at = parse_int_list("relax: --stats-at", o.stats_at);
  } else {
    for (int c = 1; c <= 10; ++c) s.stats_at.push_back(std::max(1, s.p.max_global_iters * c / 10));
    s.stats_at.erase(std::unique(s.stats_at.begin(), s.stats_at.end()), s.stats_at.end());
  }
  for (const auto& m : split_list(o.method))
    if (m != "block-async" && m != "jacobi" && m != "gauss-seidel" && m != "jacobi-host" && m != "kk-gauss-seidel")
      throw InvalidInput("relax: unknown --method '" + m +
                         "'; valid: block-async, jacobi, gauss-seidel, kk-gauss-seidel, jacobi-host");
  return s;
}

/// async-(k) (or the device's synchronous Jacobi) in precision Scalar: set-up, solve, and with runs > 1 the
/// statistics of repeated runs into `stats_table`.
template <class Scalar>
RelaxationResult run_block_async(const Setup& s, const BlockAsyncParams& p, int runs, Json& out, Table& stats_table) {
  const auto& Ah = s.problem.A;
  CsrHost<Scalar> As(Ah.nrows, Ah.ncols);
  As.row_ptr = Ah.row_ptr;
  As.col_idx = Ah.col_idx;
  As.values.assign(Ah.values.begin(), Ah.values.end());
  std::vector<Scalar> bs(s.b.begin(), s.b.end());
  auto A = to_device<Device>(As);
  Kokkos::View<const Scalar*, Device> b = to_device<Device>(bs);
  Kokkos::View<Scalar*, Device> x("x", Ah.nrows);
  BlockAsyncHandle<Scalar, Device> h(p, s.lc);
  ExecSpace exec;
  block_async_symbolic(exec, h, A);
  block_async_numeric(exec, h, A);
  auto r = block_async_solve(exec, h, b, x);
  out["setup"] = h.stats();
  if (runs > 1) {
    const auto S = block_async_statistics(exec, h, b, runs, s.stats_at);
    out["statistics"] = S;
    for (std::size_t c = 0; c < S.checkpoints.size(); ++c)
      stats_table.row({std::to_string(S.checkpoints[c]), fmt("%.6e", S.mean[c]), fmt("%.6e", S.max[c]),
                       fmt("%.6e", S.min[c]), fmt("%.3e", S.variation[c]), fmt("%.3e", S.relative_spread[c]),
                       fmt("%.3e", S.variance[c]), fmt("%.3e", S.std_deviation[c]), fmt("%.3e", S.std_error[c])});
  }
  return r;
}

/// One method; its record part into `j`, its label into `label`.
RelaxationResult run_method(const Setup& s, const Options& o, const std::string& method, Json& j, std::string& label,
                            Table& stats_table) {
  const auto& Ah = s.problem.A;
  if (method == "block-async" || method == "jacobi") {
    const BlockAsyncParams q = method == "jacobi" ? sync_jacobi_params(s.p) : s.p;
    const int runs = method == "block-async" ? o.runs : 1;
    label = method == "jacobi" ? "jacobi (device)"
                               : std::string(s.p.deterministic ? "block-jacobi-(" : "async-(") +
                                     std::to_string(s.p.local_iters) + ")" + (o.precision == "float" ? " float" : "");
    return o.precision == "float" ? run_block_async<float>(s, q, runs, j, stats_table)
                                  : run_block_async<double>(s, q, runs, j, stats_table);
  }
  if (method == "gauss-seidel") {
    std::vector<double> x(Ah.nrows, 0.0);
    label = "gauss-seidel (host)";
    return host_gauss_seidel_solve(Ah, s.b, x, s.p.tol, s.p.max_global_iters);
  }
  if (method == "jacobi-host") {
    std::vector<double> x(Ah.nrows, 0.0);
    label = "jacobi (host)";
    return host_jacobi_solve(Ah, s.b, x, s.p.tol, s.p.max_global_iters, s.p.tau > 0 ? s.p.tau : 1.0);
  }
  // kk-gauss-seidel
  auto A = to_device<Device>(Ah);
  Kokkos::View<const double*, Device> b = to_device<Device>(s.b);
  Kokkos::View<double*, Device> x("x", Ah.nrows);
  double setup = 0;
  const auto r = kk_gauss_seidel_solve(ExecSpace(), A, b, x, s.p.tol, s.p.max_global_iters, o.check_every, &setup);
  j["setup_seconds"] = setup;
  label = "gauss-seidel (kokkos-kernels)";
  return r;
}

class Relax : public Command {
 public:
  void define(Cli& cli) override { cmd_relax_local::define(cli, o_); }
  int run(Json& rec) override {
    const Setup s = prepare(o_, rec);
    Table st({"# iters", "avg. residual", "max res.", "min res.", "variation", "rel. spread", "variance", "std. dev.",
              "std. error"});
    std::vector<Json> items;
    std::vector<RelaxationResult> outcomes;
    std::vector<std::string> labels;
    int gs_iters = -1;
    const auto methods = split_list(o_.method);
    {
      Progress prog("relax", static_cast<long long>(methods.size()));
      for (const auto& method : methods) {
        prog.update(static_cast<long long>(items.size()), "(" + method + ")");
        Json j = Json::object();
        j["method"] = method;
        std::string label;
        const RelaxationResult r = run_method(s, o_, method, j, label, st);
        if (method == "gauss-seidel") gs_iters = r.converged() ? r.iterations : -1;
        j["label"] = label;
        j["result"] = r;
        items.push_back(j);
        outcomes.push_back(r);
        labels.push_back(label);
      }
    }
    return report(s, items, outcomes, labels, gs_iters, st, rec);
  }

 private:
  /// The table of the methods, with the iteration ratio against Gauss–Seidel (when it ran and converged).
  int report(const Setup& s, std::vector<Json>& items, const std::vector<RelaxationResult>& outcomes,
             const std::vector<std::string>& labels, int gs_iters, const Table& st, Json& rec) const {
    Table t({"method", "iterations", "rel. residual", "time [s]", "time/iter [ms]", "vs GS iters", "status"});
    Json results = Json::array();
    bool all_ok = true;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      const auto& r = outcomes[i];
      all_ok = all_ok && r.converged();
      const bool ratio_ok = gs_iters > 0 && r.converged();
      if (ratio_ok) items[i]["iterations_vs_gauss_seidel"] = double(r.iterations) / gs_iters;
      t.row({labels[i], std::to_string(r.iterations), fmt("%.3e", r.final_residual), fmt("%.4f", r.seconds),
             fmt("%.4f", r.iterations > 0 ? 1e3 * r.seconds / r.iterations : 0.0),
             ratio_ok ? fmt("%.3f", double(r.iterations) / gs_iters) : "", to_string(r.status)});
      results.push_back(items[i]);
    }
    std::cout << s.problem.name << ": n = " << s.problem.A.nrows << ", nnz = " << s.problem.A.nnz()
              << ", b = " << o_.problem.rhs << ", x0 = 0, tol = " << number_text(o_.tol) << "\n";
    t.print();
    if (o_.runs > 1) {
      std::cout << "\nasync-(" << s.p.local_iters << ") over " << o_.runs
                << " runs (relative residual after # iters):\n";
      st.print();
    }
    rec["results"] = results;
    return all_ok ? 0 : 3;
  }

  Options o_;
};

Registrar reg("relax", "block-asynchronous relaxation async-(k) and Jacobi / Gauss-Seidel baselines",
              [] { return std::unique_ptr<Command>(new Relax); });

}  // namespace cmd_relax_local
}  // namespace Driver
}  // namespace AsyncSparse
