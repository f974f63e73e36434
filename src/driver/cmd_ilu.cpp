// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse ilu / ic — the experiments of Chow, Anzt & Dongarra (2015) with the iterative (Chow–Patel)
// incomplete factorization: for 0..N sweeps, the solver iterations with the factors as preconditioner (PCG for
// `ic`, GMRES for `ilu`; b = ones, x0 = 0, relative tolerance 1e-6), the nonlinear residual, optionally the ILU
// residual, and the factorization time (Table 2), plus rows for the exact factorization (host reference,
// Kokkos-Kernels spiluk, and cuSPARSE csric02/csrilu02 in CUDA builds; cmd_ilu_exact.cpp). With --runs R the
// asynchronous runs are repeated and the median, the quartiles and the worst case (maximum) over them are printed
// (Table 3); task-list ordering, block order, occupancy and team size are options (Tables 3-5). --guard-tol turns on
// the tail guard of the sweeps (ParIluParams::guard_tolerance): every row is then a numeric phase of its own (its
// sweep count plus the sweeps the guard adds, shown in a column), instead of a point on one run's sweep history.
#include <asyncsparse/core/AsyncSparse_rcm.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu.hpp>

#include <algorithm>
#include <cmath>

#include "cmd_ilu.hpp"

namespace AsyncSparse {
namespace Driver {
namespace Ilu {

// ---------------------------------------------------------------------------------------------------------
// parse
// ---------------------------------------------------------------------------------------------------------

void define(Cli& cli, Options& o, bool ic) {
  cli.about(ic ? "Iterative IC(0) by asynchronous fixed-point sweeps (Chow-Anzt-Dongarra 2015, Tables 2-5): PCG\n"
                 "iterations, residuals and time for 0..N sweeps vs. the exact IC(0)."
               : "Iterative ILU(0) by asynchronous fixed-point sweeps (Chow-Anzt-Dongarra 2015): GMRES iterations,\n"
                 "residuals and time for 0..N sweeps vs. the exact ILU(0).");
  add_matrix_argument(cli, o.problem);
  cli.option("sweeps", o.sweeps, "largest sweep count N (rows 0..N), or a comma-separated list of sweep counts");
  cli.choice("mode", o.mode, {"async", "deterministic"}, "sweeps: asynchronous or Jacobi-style (reproducible)");
  cli.choice("ordering", o.ordering, {"auto", "row-major", "random", "mesh-blocked", "rcm"},
             "task list / matrix ordering: auto (row-major for gen: specs, rcm otherwise); rcm: RCM-permuted "
             "matrix, row-major tasks");
  cli.option("block", o.block, "subdomain edge b of the mesh-blocked ordering (b x b, or b x b x b for 3D generators)");
  cli.option("ordering-seed", o.ordering_seed, "seed of the random task-list ordering");
  cli.option("fill-level", o.fill_level, "level of fill k of the pattern (ILU(k) / IC(k))");
  cli.launch_options(o.launch);
  cli.choice("sweep-kernel", o.sweep_kernel, {"auto", "entry", "list", "row", "row_merge", "row_team"},
             "kernel of the sweeps: auto (the measured rule), entry (one thread per unknown, merging index lists), "
             "list (--vector-length lanes per unknown over its product list), row (vector lanes per row; "
             "--team-size / --vector-length then count rows), row_merge (one thread per row, merging index "
             "lists; --team-size counts rows) or row_team (rows staged in team memory, a thread per unknown, no "
             "product lists; asynchronous mode only; --team-size threads per team)");
  cli.option("runs", o.runs,
             "asynchronous runs (median [quartiles] and worst case over them; the block-order seed is --seed + run)");
  cli.option("guard-tol", o.guard_tol,
             "tail guard: after each row's sweeps, more sweeps while the relative nonlinear residual is above this "
             "tolerance (0: off)");
  cli.option("guard-max-sweeps", o.guard_max_sweeps, "most sweeps the guard adds");
  cli.tri_solve_options(o.tri_solve, o.tri_solve_sweeps);
  cli.choice("solver", o.solver, {"cg", "gmres", "auto"}, "Krylov solver (auto: cg for ic, gmres for ilu)");
  cli.option("tol", o.tol, "relative residual tolerance of the solver");
  cli.option("max-iters", o.max_iters, "solver iteration limit");
  cli.option("restart", o.restart, "GMRES restart length");
  cli.flag("ilu-residual", o.ilu_residual,
           "also compute the ILU residual ||A - LU||_F (a full sparse product: expensive)");
  cli.flag("no-solve", o.no_solve, "skip the solver runs (residuals and times only)");
  cli.flag("factor-error", o.factor_error,
           "also compare the iterative factors entry by entry with the exact ones (host reference): column "
           "'max factor err.', and with --verbose the worst entry and the error per sixteenth of the rows");
  cli.flag("verbose", o.verbose, "print each run and each finished solve on stderr as it happens");
  cli.flag("solve-all-exact", o.solve_all_exact,
           "also solve with the Kokkos-Kernels spiluk factors (default: host reference, cuSPARSE)");
  cli.option("exact", o.exact,
             "exact-factorization rows, comma-separated: host (serial reference), kk (Kokkos-Kernels spiluk), "
             "cusparse (csric02/csrilu02, CUDA builds); none for none; auto = host,kk,cusparse on GPUs, host on "
             "host backends (where the level-scheduled spiluk is slow)");
}

// ---------------------------------------------------------------------------------------------------------
// prepare
// ---------------------------------------------------------------------------------------------------------

namespace cmd_ilu_local {
std::vector<int> sweep_list(const std::string& command, const std::string& s) {
  std::vector<int> list;
  if (s.find(',') == std::string::npos) {  // N: the rows 0..N
    const std::vector<int> n = parse_int_list(command + ": --sweeps", s);
    if (n[0] < 0) throw InvalidInput(command + ": --sweeps must be >= 0, got '" + s + "'");
    for (int k = 0; k <= n[0]; ++k) list.push_back(k);
    return list;
  }
  list = parse_int_list(command + ": --sweeps", s);
  for (int k : list)
    if (k < 0) throw InvalidInput(command + ": --sweeps values must be >= 0, got '" + s + "'");
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  return list;
}

std::set<std::string> exact_rows(const std::string& command, std::string spec) {
  if (spec == "auto") spec = Impl::is_gpu_space<ExecSpace>() ? "host,kk,cusparse" : "host";
  std::set<std::string> rows;
  for (const auto& item : split_list(spec))
    if (item == "host" || item == "kk" || item == "cusparse")
      rows.insert(item);
    else if (item != "none")
      throw InvalidInput(command + ": --exact takes host, kk, cusparse or none, got '" + item + "'");
  return rows;
}
}  // namespace cmd_ilu_local
using namespace cmd_ilu_local;  // named, not anonymous: the driver's files share unity batches

Setup::Setup(const std::string& cmd, const Options& o, Json& rec)
    : command(cmd), ic(cmd == "ic"), h(cmd == "ic" ? ParIluKind::Ic : ParIluKind::Ilu) {
  problem = load_problem(command, o.problem, rec);
  ordering = o.ordering == "auto" ? (is_generator_spec(problem.spec) ? "row-major" : "rcm") : o.ordering;
  if (ordering == "rcm") problem.A = permute_symmetric(problem.A, rcm_permutation(problem.A));
  sweeps = sweep_list(command, o.sweeps);
  if (o.runs < 1) throw InvalidInput(command + ": --runs must be >= 1");
  runs = o.runs;
  if (!(o.guard_tol >= 0) || std::isinf(o.guard_tol))
    throw InvalidInput(command + ": --guard-tol must be finite and >= 0, got " + number_text(o.guard_tol));
  if (o.guard_max_sweeps < 0)
    throw InvalidInput(command + ": --guard-max-sweeps must be >= 0, got " + std::to_string(o.guard_max_sweeps));
  guard = o.guard_tol > 0;
  fill = o.fill_level;
  tri = tri_solve_kind_from_string(o.tri_solve);
  tri_sweeps = o.tri_solve_sweeps;
  want_ilu_residual = o.ilu_residual;
  want_factor_error = o.factor_error;
  if (want_factor_error && ic && fill > 0) throw InvalidInput(command + ": --factor-error needs --fill-level 0 for ic");
  solve_all_exact = o.solve_all_exact;
  exact = exact_rows(command, o.exact);
  ss.solve = !o.no_solve;
  ss.verbose = o.verbose;
  solver = o.solver == "auto" ? (ic ? "cg" : "gmres") : o.solver;
  ss.spd = solver == "cg";
  ss.params.tol = o.tol;
  ss.params.max_iterations = o.max_iters;
  ss.params.restart = o.restart;
  ss.params.record_history = false;
  h.params.mode = sweep_mode_from_string(o.mode);
  h.params.fill_level = fill;
  h.params.ordering_seed = o.ordering_seed;
  h.params.guard_tolerance = o.guard_tol;
  h.params.guard_max_sweeps = o.guard_max_sweeps;
  h.params.sweep_kernel = sweep_kernel_from_string(o.sweep_kernel);
  h.params.ordering = ordering == "rcm" ? TaskOrdering::RowMajor : task_ordering_from_string(ordering);
  if (h.params.ordering == TaskOrdering::MeshBlocked)
    h.params.mesh = mesh_from_generator_spec(problem.spec, static_cast<ordinal_t>(o.block));
  h.launch = launch_config(o.launch);
  seed0 = h.launch.seed;
  A = to_device<Device>(problem.A, "A");
}

// ---------------------------------------------------------------------------------------------------------
// run
// ---------------------------------------------------------------------------------------------------------

namespace cmd_ilu_local {
/// Symbolic phase of the iterative factorization and the scaled matrix of the exact rows.
void symbolic(Setup& s, const Options& o) {
  std::cout << "asyncsparse " << s.command << ": " << s.problem.name << ", n = " << s.problem.A.nrows
            << ", nnz = " << s.problem.A.nnz() << ", ordering " << s.ordering << ", mode " << o.mode << ", " << s.solver
            << " (b = ones, x0 = 0, tol " << number_text(o.tol) << "), " << to_string(s.tri) << " triangular solves, "
            << s.runs << " run" << (s.runs > 1 ? "s" : "") << "\n";
  par_ilu_symbolic(s.exec, s.h, s.A);
  std::cout << "symbolic phase: " << fmt("%.1f", 1e3 * s.h.stats().symbolic_seconds)
            << " ms, |S| = " << s.h.stats().nnz_S << ", tasks per sweep = " << s.h.stats().num_tasks
            << std::endl;                       // flushed: long runs follow
  s.scaled = scale_unit_diagonal(s.exec, s.A);  // S A S and s, for the exact rows
  s.exec.fence();
  if (s.want_factor_error) {
    try {
      host_exact_factors(to_host(s.scaled.A), s.ic, s.fill, s.exact_L, s.exact_U);
    } catch (const BreakdownError& e) {
      throw InvalidInput(s.command +
                         ": --factor-error needs the exact factorization, which does not exist: " + e.what());
    }
  }
}

/// The values of one row from the handle's current factors (after `sweep_s` seconds of sweeps).
void fill_row(Setup& s, Row& row, SolveCache& cache, double sweep_s, double extra_s) {
  const auto& st = s.h.stats();
  row.sweep_ms.add(1e3 * sweep_s);
  row.total_ms.add(1e3 * (st.setup_seconds + sweep_s + extra_s));
  row.nonlinear.add(par_ilu_nonlinear_residual(s.exec, s.h));
  if (s.want_ilu_residual) row.ilu_residual.add(par_ilu_ilu_residual(s.exec, s.h));
  const auto F = par_ilu_factors(s.exec, s.h);
  if (s.want_factor_error) {
    FactorError fe;
    add_factor_error(F.L, s.exact_L, 'L', fe);
    if (!s.ic) add_factor_error(F.U, s.exact_U, 'U', fe);
    row.factor_error.add(fe.max_rel);
    if (s.ss.verbose) {
      std::fprintf(stderr, "  %s: %s\n", row.label.c_str(), fe.describe().c_str());
      std::fflush(stderr);
    }
  }
  solve_with(s.A, F.L, F.U, !s.ic, s.h.scaling(), s.tri, s.tri_sweeps, s.ss, row, &cache);
}

double sum_of(const std::vector<double>& v, std::size_t count) {
  double t = 0;
  for (std::size_t q = 0; q < count && q < v.size(); ++q) t += v[q];
  return t;
}

/// One row per listed sweep count, with the values of the given run added. Without the guard the rows are points
/// of one sweep history; with it every row is a numeric phase of its own (sweeps + the guard's), whose residual
/// checks count in its total time.
void sweep_run(Setup& s, int r, std::vector<Row>& rows, const SolveCache& exact_cache, Json& histories) {
  s.h.launch.seed = s.seed0 + static_cast<std::uint64_t>(r);
  SolveCache cache = exact_cache;  // this run's sweeps vs. the exact factors and the earlier sweeps
  std::vector<int> added;
  if (s.guard) {
    for (std::size_t q = 0; q < s.sweeps.size(); ++q) {
      s.h.params.sweeps = s.sweeps[q];
      par_ilu_numeric(s.exec, s.h, s.A);
      const auto& st = s.h.stats();
      added.push_back(st.guard_sweeps);
      rows[q].guard_sweeps.add(st.guard_sweeps);
      fill_row(s, rows[q], cache, sum_of(st.sweep_times, st.sweep_times.size()), st.residual_seconds);
    }
  } else {
    s.h.params.sweeps = 0;
    par_ilu_numeric(s.exec, s.h, s.A);
    std::size_t next = 0;
    const int max_sweeps = s.sweeps.back();
    for (int k = 0; k <= max_sweeps && next < s.sweeps.size(); ++k) {
      if (k > 0) par_ilu_sweep(s.exec, s.h, 1);
      if (k != s.sweeps[next]) continue;
      fill_row(s, rows[next++], cache, sum_of(s.h.stats().sweep_times, static_cast<std::size_t>(k)), 0.0);
    }
  }
  const auto& st = s.h.stats();
  Json hist = Json::object();
  hist["seed"] = s.h.launch.seed;
  hist["sweep_times"] = st.sweep_times;
  hist["setup_seconds"] = st.setup_seconds;
  hist["breakdown_sweeps"] = st.breakdown_sweeps;
  if (s.guard) hist["guard_sweeps"] = added;  // per row
  if (st.breakdown_sweeps > 0)
    std::cerr << s.command << ": run " << r << ": " << st.breakdown_sweeps
              << " sweep(s) skipped an update (transient breakdown at row " << st.breakdown_row << ": "
              << st.breakdown_problem << ")\n";
  histories.push_back(hist);
}

/// The iterative factorization: the listed sweep counts, --runs times.
std::vector<Row> sweep_rows(Setup& s, const SolveCache& exact_cache, Json& histories) {
  std::vector<Row> rows(s.sweeps.size());
  for (std::size_t k = 0; k < s.sweeps.size(); ++k) {
    rows[k].sweeps = s.sweeps[k];
    rows[k].label = std::to_string(s.sweeps[k]) + " sweep" + (s.sweeps[k] == 1 ? "" : "s");
  }
  Progress progress(s.command + " runs", s.runs);
  for (int r = 0; r < s.runs; ++r) {
    progress.update(r, "(run " + std::to_string(r + 1) + ")");
    if (s.ss.verbose) {
      std::fprintf(stderr, "%s: run %d/%d\n", s.command.c_str(), r + 1, s.runs);
      std::fflush(stderr);
    }
    sweep_run(s, r, rows, exact_cache, histories);
  }
  return rows;
}
}  // namespace cmd_ilu_local

// ---------------------------------------------------------------------------------------------------------
// report
// ---------------------------------------------------------------------------------------------------------

namespace cmd_ilu_local {
Json samples_json(const Samples& s) {
  Json j = Json::object();
  j["values"] = s.v;
  if (!s.v.empty()) {
    const Json summary = s.summary();  // median, min, max, q1, q3
    for (const auto& item : summary.items()) j[item.key()] = item.value();
  }
  return j;
}

Json row_json(const Setup& s, const Row& row) {
  Json j = Json::object();
  j["label"] = row.label;
  j["sweeps"] = row.sweeps;
  j["iterations"] = samples_json(row.iterations);
  j["nonlinear_residual"] = samples_json(row.nonlinear);
  if (s.want_ilu_residual) j["ilu_residual"] = samples_json(row.ilu_residual);
  if (s.want_factor_error) j["max_factor_error"] = samples_json(row.factor_error);
  if (s.guard) j["guard_sweeps"] = samples_json(row.guard_sweeps);
  j["sweep_ms"] = samples_json(row.sweep_ms);
  j["total_ms"] = samples_json(row.total_ms);
  j["solve_seconds"] = samples_json(row.solve_s);
  j["tri_solve_setup_ms"] = samples_json(row.tri_setup_ms);
  j["tri_solve"] = row.tri_solve;
  if (row.reused) j["solve_reused_from"] = row.reused_from;
  j["solver_status"] = row.statuses;
  if (!row.note.empty()) j["note"] = row.note;
  return j;
}

void report(const Setup& s, const std::vector<Row>& rows, Json& histories, Json& baselines, Json& rec) {
  std::vector<std::string> header = {"factorization", s.ss.spd ? "PCG iters" : "GMRES iters", "nonlin. res."};
  if (s.want_ilu_residual) header.push_back("ILU res.");
  if (s.want_factor_error) header.push_back("max factor err.");
  if (s.guard) header.push_back("guard sweeps");
  for (const char* h : {"sweeps [ms]", "total [ms]", "tri setup [ms]", "solve [s]"}) header.push_back(h);
  Table table(header);
  std::vector<std::string> notes;
  Json jrows = Json::array();
  for (const auto& row : rows) {
    std::vector<std::string> cells = {row.label, row.iterations.format("%.0f"), row.nonlinear.format("%.3e")};
    if (s.want_ilu_residual) cells.push_back(row.ilu_residual.format("%.4e"));
    if (s.want_factor_error) cells.push_back(row.factor_error.format("%.2e"));
    if (s.guard) cells.push_back(row.guard_sweeps.format("%.0f"));
    cells.push_back(row.sweep_ms.format("%.2f"));
    cells.push_back(row.total_ms.format("%.2f"));
    cells.push_back(row.reused ? "=" : row.tri_setup_ms.format("%.2f"));
    cells.push_back(row.reused ? "=" : row.solve_s.format("%.2f"));
    table.row(cells);
    if (!row.note.empty()) notes.push_back(row.label + ": " + row.note);
    if (row.reused > 0)
      notes.push_back(row.label + ": factors bit-identical to those of '" + row.reused_from +
                      "'; solver result reused" +
                      (s.runs > 1 ? " in " + std::to_string(row.reused) + " run(s)" : std::string()));
    jrows.push_back(row_json(s, row));
  }
  table.print();
  if (s.runs > 1)
    std::cout << "cells over the " << s.runs
              << " runs: median [lower quartile, upper quartile] max worst case (one value: all runs agree)\n";
  if (s.guard)
    std::cout << "guard: each row ran its sweeps, then more while the relative nonlinear residual was above "
              << number_text(s.h.params.guard_tolerance) << " (at most " << s.h.params.guard_max_sweeps
              << "); 'nonlin. res.' is the residual the guard ended with; total includes its residual checks\n";
  for (const auto& n : notes) std::cout << "note: " << n << "\n";
  const auto& st = s.h.stats();
  std::cout << "sweep kernel: " << to_string(st.sweep_kernel) << " (" << st.sweep_kernel_rule << ")";
  if (uses_product_lists(st.sweep_kernel)) std::cout << ", " << st.sweep_products << " products listed";
  if (st.sweep_gather_group > 1)
    std::cout << " (at least " << AsyncSparse::Impl::kParIluListGroupMinProducts << " per unknown: loaded "
              << st.sweep_gather_group << " at a time)";
  std::cout << "\n";
  std::cout << "sweep launch: " << st.launch.to_string() << "\n";
  std::cout << "total = setup (checks, scaling, initial guess) + sweeps; exact rows: factorization time; tri "
               "setup = set-up of the triangular solves; time to solution = symbolic + total + tri setup + solve\n";
  Json tri = Json::object();
  for (const auto& row : rows)
    if (!row.tri_solve.empty()) {
      std::cout << "triangular solves: " << row.tri_solve << (row.tri_reason.empty() ? "" : " (" + row.tri_reason + ")")
                << "\n";
      tri["mode"] = row.tri_solve;
      tri["reason"] = row.tri_reason;
      break;
    }
  rec["tri_solve"] = tri;
  rec["kind"] = s.ic ? "ic" : "ilu";
  rec["ordering"] = s.ordering;
  rec["solver"] = s.solver;
  rec["symbolic_seconds"] = st.symbolic_seconds;
  rec["nnz_S"] = st.nnz_S;
  rec["num_tasks"] = st.num_tasks;
  rec["launch"] = st.launch;
  rec["sweep_kernel"] = Json{{"kernel", to_string(st.sweep_kernel)},
                             {"rule", st.sweep_kernel_rule},
                             {"products", st.sweep_products},
                             {"gather_group", st.sweep_gather_group}};
  rec["rows"] = jrows;
  rec["runs"] = histories;
  rec["baselines"] = baselines;
  if (s.guard)
    rec["guard"] = Json{{"tolerance", s.h.params.guard_tolerance}, {"max_sweeps", s.h.params.guard_max_sweeps}};
}

class Factorization : public Command {
 public:
  explicit Factorization(std::string command) : command_(std::move(command)) {}
  void define(Cli& cli) override { Ilu::define(cli, o_, command_ == "ic"); }
  int run(Json& rec) override {
    Setup s(command_, o_, rec);
    symbolic(s, o_);
    Json baselines = Json::object(), histories = Json::array();
    SolveCache exact_cache;
    std::vector<Row> rows = exact_factorization_rows(s, exact_cache, baselines);
    const std::vector<Row> srows = sweep_rows(s, exact_cache, histories);
    rows.insert(rows.end(), srows.begin(), srows.end());
    report(s, rows, histories, baselines, rec);
    return 0;
  }

 private:
  std::string command_;
  Options o_;
};

Registrar reg_ilu("ilu", "iterative ILU(0) by asynchronous sweeps: GMRES iterations / residuals / time vs. sweeps",
                  [] { return std::unique_ptr<Command>(new Factorization("ilu")); });
Registrar reg_ic("ic", "iterative IC(0) by asynchronous sweeps: PCG iterations / residuals / time vs. sweeps (Table 2)",
                 [] { return std::unique_ptr<Command>(new Factorization("ic")); });
}  // namespace cmd_ilu_local

}  // namespace Ilu
}  // namespace Driver
}  // namespace AsyncSparse
