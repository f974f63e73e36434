// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse ilu / ic — the experiments of Chow, Anzt & Dongarra (2015) with the iterative (Chow–Patel)
// incomplete factorization: for 0..N sweeps, the solver iterations with the factors as preconditioner (PCG for
// `ic`, GMRES for `ilu`; b = ones, x0 = 0, relative tolerance 1e-6), the nonlinear residual, optionally the ILU
// residual, and the factorization time (Table 2), plus rows for the exact factorization (host reference,
// Kokkos-Kernels spiluk, and cuSPARSE csric02/csrilu02 in CUDA builds). With --runs R the asynchronous runs are
// repeated and median [min, max] are printed (Table 3); task-list ordering, block order, occupancy and team size
// are options (Tables 3-5).
#include <asyncsparse/core/AsyncSparse_rcm.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <asyncsparse/factorization/AsyncSparse_cusparse_baseline.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu.hpp>
#include <asyncsparse/factorization/AsyncSparse_residuals.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>

#include <algorithm>
#include <set>
#include <sstream>

#include "driver_common.hpp"

namespace AsyncSparse {
namespace Driver {
namespace {

using CrsD = Crs<double, Device>;

/// Values of one table cell over the runs.
struct Samples {
  std::vector<double> v;
  void add(double x) { v.push_back(x); }
  double median() const {
    auto s = v;
    std::sort(s.begin(), s.end());
    const std::size_t m = s.size() / 2;
    return s.size() % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
  }
  double min() const { return *std::min_element(v.begin(), v.end()); }
  double max() const { return *std::max_element(v.begin(), v.end()); }
  std::string format(const char* f) const {
    if (v.empty()) return "-";
    if (v.size() == 1 || min() == max()) return fmt(f, median());
    return fmt(f, median()) + " [" + fmt(f, min()) + ", " + fmt(f, max()) + "]";
  }
  Json to_json() const {
    Json j = Json::object();
    j["values"] = v;
    if (!v.empty()) {
      j["median"] = median();
      j["min"] = min();
      j["max"] = max();
    }
    return j;
  }
};

struct Row {
  std::string label;
  int sweeps = -1;  ///< -1: an exact factorization
  Samples iterations, nonlinear, ilu_residual, sweep_ms, total_ms, factor_error;
  std::vector<std::string> statuses;
  std::string note;
  Samples solve_s;  ///< solver seconds
  int reused = 0;   ///< solves skipped because the factors equalled those of an earlier row
  std::string reused_from;
};

struct SolveSetup {
  bool spd = true;
  bool solve = true;
  bool verbose = false;  ///< --verbose: one line on stderr per finished solve, as it happens
  SolverParams params;
};

/// Factors already used in a solve, with the outcome. A row whose factors are bit-identical to such a set (the
/// sweeps reached their fixed point, which can equal the exact factorization to the last bit) has the same
/// preconditioner, so its solve is skipped and the result reused.
struct SolvedFactors {
  std::string label;
  CrsD L, U;  ///< copies of the values (graphs shared)
  SolverResult result;
};
using SolveCache = std::vector<SolvedFactors>;

bool same_factor(const CrsD& a, const CrsD& b) {
  if (a.numRows() != b.numRows() || a.nnz() != b.nnz()) return false;
  auto ra = a.graph.row_map, rb = b.graph.row_map;
  auto ea = a.graph.entries, eb = b.graph.entries;
  auto va = a.values, vb = b.values;
  int diff = 0;
  Kokkos::parallel_reduce(
      "asyncsparse::ilu::same_factor", Kokkos::RangePolicy<ExecSpace>(0, a.numRows()),
      KOKKOS_LAMBDA(const ordinal_t i, int& d) {
        if (ra(i + 1) != rb(i + 1)) {
          d = 1;
          return;
        }
        for (offset_t k = ra(i); k < ra(i + 1); ++k)
          if (ea(k) != eb(k) || va(k) != vb(k)) d = 1;
      },
      Kokkos::Max<int>(diff));
  return diff <= 0;  // the identity of Max is the lowest int
}

CrsD copy_values(const CrsD& M) {
  CrsD::values_type::non_const_type v("asyncsparse::ilu::copy", M.nnz());
  Kokkos::deep_copy(v, M.values);
  return CrsD("copy", M.numRows(), M.numCols(), M.nnz(), v, M.graph.row_map, M.graph.entries);
}

void record(const SolverResult& r, Row& row, bool verbose, bool ran = true) {
  if (verbose) {
    std::fprintf(stderr, "  %s: %s, %d iterations, %s\n", row.label.c_str(), to_string(r.status), r.iterations,
                 ran ? fmt("%.2f s", r.time_seconds).c_str() : ("same factors as " + row.reused_from).c_str());
    std::fflush(stderr);
  }
  row.statuses.push_back(to_string(r.status));
  if (ran) row.solve_s.add(r.time_seconds);
  if (r.converged())
    row.iterations.add(r.iterations);
  else
    row.note = std::string("solver ") + to_string(r.status) + (r.message.empty() ? "" : ": " + r.message);
}

/// Solver iterations with given (scaled) factors; a failed solve is noted and leaves the cell empty. With a
/// cache, identical factors reuse an earlier result and new ones are added.
void solve_with(const CrsD& A, const CrsD& L, const CrsD& U, bool unit_lower, const Kokkos::View<double*, Device>& s,
                TriSolveKind tri, int tri_sweeps, const SolveSetup& ss, Row& row, SolveCache* cache = nullptr) {
  if (!ss.solve) return;
  if (cache)
    for (const auto& c : *cache)
      if (same_factor(c.L, L) && same_factor(c.U, U)) {
        row.reused_from = c.label;
        record(c.result, row, ss.verbose, false);
        ++row.reused;
        return;
      }
  IncompleteFactorPreconditioner<double, Device> M(A, L, U, unit_lower, s, tri, tri_sweeps, row.label);
  M.compute();
  const auto r = solve_ones(A, &M, ss.spd, ss.params);
  record(r, row, ss.verbose);
  if (cache) cache->push_back({row.label, copy_values(L), copy_values(U), r});
}

std::vector<int> sweep_list(const Cli& cli) {
  const std::string s = cli.str("sweeps");
  std::vector<int> list;
  if (s.find(',') == std::string::npos) {
    const long long n = cli.integer("sweeps");
    if (n < 0) throw InvalidInput("--sweeps must be >= 0");
    for (int k = 0; k <= n; ++k) list.push_back(k);
  } else {
    list = cli.int_list("sweeps");
    for (int k : list)
      if (k < 0) throw InvalidInput("--sweeps values must be >= 0");
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return list;
}

/// The exact factors of the (scaled) matrix by the serial host reference: IC(0) (U left empty) or ILU(k).
/// Throws BreakdownError when they do not exist.
void host_exact_factors(const CsrHost<double>& As, bool ic, int fill, CsrHost<double>& L, CsrHost<double>& U) {
  if (ic) {
    L = Reference::ic0(As);
    return;
  }
  auto F = fill == 0 ? Reference::ilu0(As) : Reference::iluk(As, fill);
  L = std::move(F.L);
  U = std::move(F.U);
}

/// --factor-error: the entrywise distance of iterative factors to the exact ones of the same pattern (host
/// reference). PCG and GMRES react to where the error sits, which a global residual norm does not show.
struct FactorError {
  static constexpr int kBands = 16;
  double max_rel = 0;  ///< max over the entries of |f - f*| / |f*|
  ordinal_t row = -1, col = -1;
  char factor = 'L';
  offset_t above_1e3 = 0, above_1e2 = 0;  ///< entries with a relative error above 1e-3 / 1e-2
  double band_max[kBands] = {};           ///< max relative error per sixteenth of the rows
  std::string describe() const {
    if (max_rel == 0) return "factors equal the exact ones";
    std::string s = "max factor error " + fmt("%.2e", max_rel) + " at " + factor + "(" + std::to_string(row) + ", " +
                    std::to_string(col) + "); " + std::to_string(above_1e3) + " entries > 1e-3, " +
                    std::to_string(above_1e2) + " > 1e-2; per sixteenth of the rows:";
    for (double b : band_max) s += " " + fmt("%.1e", b);
    return s;
  }
};

/// Adds the errors of F (device factor) against X (exact factor) to e; only columns stored in both are compared.
void add_factor_error(const CrsD& F, const CsrHost<double>& X, char name, FactorError& e) {
  const auto Fh = to_host(F);
  if (Fh.nrows != X.nrows) throw InvalidInput("--factor-error: factor and exact factor differ in size");
  for (ordinal_t i = 0; i < X.nrows; ++i) {
    const int band = static_cast<int>((static_cast<long long>(i) * FactorError::kBands) / X.nrows);
    offset_t p = Fh.row_ptr[i], q = X.row_ptr[i];
    while (p < Fh.row_ptr[i + 1] && q < X.row_ptr[i + 1]) {
      if (Fh.col_idx[p] < X.col_idx[q]) {
        ++p;
      } else if (X.col_idx[q] < Fh.col_idx[p]) {
        ++q;
      } else {
        const double ref = std::abs(X.values[q]);
        const double err = std::abs(Fh.values[p] - X.values[q]) / (ref > 0 ? ref : 1.0);
        if (err > e.max_rel) {
          e.max_rel = err;
          e.row = i;
          e.col = X.col_idx[q];
          e.factor = name;
        }
        if (err > 1e-3) ++e.above_1e3;
        if (err > 1e-2) ++e.above_1e2;
        e.band_max[band] = std::max(e.band_max[band], err);
        ++p;
        ++q;
      }
    }
  }
}

int run_factorization(const std::string& command, int argc, char** argv) {
  const bool ic = command == "ic";
  Cli cli(command, ic ? "Iterative IC(0) by asynchronous fixed-point sweeps (Chow-Anzt-Dongarra 2015, Tables 2-5): PCG "
                        "iterations, residuals and time for 0..N sweeps vs. the exact IC(0)."
                      : "Iterative ILU(0) by asynchronous fixed-point sweeps (Chow-Anzt-Dongarra 2015): GMRES "
                        "iterations, residuals and time for 0..N sweeps vs. the exact ILU(0).");
  cli.positional("matrix", "Matrix Market file or gen:... spec");
  cli.option("sweeps", "5", "largest sweep count N (rows 0..N), or a comma-separated list of sweep counts");
  cli.option("mode", "async", "async | deterministic (Jacobi-style, reproducible)");
  cli.option("ordering", "auto",
             "task list / matrix ordering: auto (row-major for gen: specs, rcm otherwise) | row-major | random | "
             "mesh-blocked | rcm (RCM-permuted matrix, row-major tasks)");
  cli.option("block", "8", "subdomain edge b of the mesh-blocked ordering (b x b, or b x b x b for 3D generators)");
  cli.option("ordering-seed", "0", "seed of the random task-list ordering");
  cli.option("fill-level", "0", "level of fill k of the pattern (ILU(k) / IC(k))");
  cli.launch_options();
  cli.option("runs", "1", "asynchronous runs (median [min, max] over them; the block-order seed is --seed + run)");
  cli.option("tri-solve", "exact", "triangular solves of the preconditioner: exact | jacobi");
  cli.option("tri-solve-sweeps", "5", "Jacobi sweeps per triangular solve");
  cli.option("solver", "auto", "cg | gmres | auto (cg for ic, gmres for ilu)");
  cli.option("tol", "1e-6", "relative residual tolerance of the solver");
  cli.option("max-iters", "5000", "solver iteration limit");
  cli.option("restart", "30", "GMRES restart length");
  cli.flag("ilu-residual", "also compute the ILU residual ||A - LU||_F (a full sparse product: expensive)");
  cli.flag("no-solve", "skip the solver runs (residuals and times only)");
  cli.flag("factor-error",
           "also compare the iterative factors entry by entry with the exact ones (host reference): column "
           "'max factor err.', and with --verbose the worst entry and the error per sixteenth of the rows");
  cli.flag("verbose", "print each run and each finished solve on stderr as it happens");
  cli.flag("solve-all-exact", "also solve with the Kokkos-Kernels spiluk factors (default: host reference, cuSPARSE)");
  cli.option("exact", "auto",
             "exact-factorization rows, comma-separated: host (serial reference), kk (Kokkos-Kernels spiluk), "
             "cusparse (csric02/csrilu02, CUDA builds); none for none; auto = host,kk,cusparse on GPUs, host on "
             "host backends (where the level-scheduled spiluk is slow)");
  cli.option("json", "", "write a JSON record to this file");
  if (!cli.parse(argc, argv)) return 0;
  Json rec = run_record(command, cli);
  const ExecSpace exec;

  // Matrix and ordering.
  const std::string spec = cli.arg("matrix");
  auto Ah = load_for_command(spec, &rec);
  std::string ordering = cli.str("ordering");
  if (ordering == "auto") ordering = is_generator_spec(spec) ? "row-major" : "rcm";
  if (ordering == "rcm") {
    check_square(Ah, command);
    Ah = permute_symmetric(Ah, rcm_permutation(Ah));
  }
  const std::vector<int> sweeps = sweep_list(cli);
  const int max_sweeps = sweeps.back();
  const int runs = static_cast<int>(cli.integer("runs"));
  if (runs < 1) throw InvalidInput(command + ": --runs must be >= 1");
  const int fill = static_cast<int>(cli.integer("fill-level"));
  const TriSolveKind tri = tri_solve_kind_from_string(cli.str("tri-solve"));
  const int tri_sweeps = static_cast<int>(cli.integer("tri-solve-sweeps"));
  const bool want_ilu_res = cli.flag_set("ilu-residual");
  const bool want_factor_error = cli.flag_set("factor-error");
  if (want_factor_error && ic && fill > 0) throw InvalidInput(command + ": --factor-error needs --fill-level 0 for ic");
  SolveSetup ss;
  ss.solve = !cli.flag_set("no-solve");
  ss.verbose = cli.flag_set("verbose");
  const std::string solver = cli.str("solver") == "auto" ? (ic ? "cg" : "gmres") : cli.str("solver");
  if (solver != "cg" && solver != "gmres")
    throw InvalidInput(command + ": --solver must be cg, gmres or auto, got '" + solver + "'");
  ss.spd = solver == "cg";
  ss.params.tol = cli.real("tol");
  ss.params.max_iterations = static_cast<int>(cli.integer("max-iters"));
  ss.params.restart = static_cast<int>(cli.integer("restart"));
  ss.params.record_history = false;

  ParIluHandle<double, Device> h(ic ? ParIluKind::Ic : ParIluKind::Ilu);
  h.params.mode = sweep_mode_from_string(cli.str("mode"));
  h.params.fill_level = fill;
  h.params.ordering_seed = static_cast<std::uint64_t>(cli.integer("ordering-seed"));
  if (ordering == "rcm")
    h.params.ordering = TaskOrdering::RowMajor;
  else
    h.params.ordering = task_ordering_from_string(ordering);
  if (h.params.ordering == TaskOrdering::MeshBlocked)
    h.params.mesh = mesh_from_generator_spec(spec, static_cast<ordinal_t>(cli.integer("block")));
  h.launch = cli.launch_config();
  const std::uint64_t seed0 = h.launch.seed;

  const auto A = to_device<Device>(Ah, "A");
  std::cout << "asyncsparse " << command << ": " << matrix_display_name(spec) << ", n = " << Ah.nrows
            << ", nnz = " << Ah.nnz() << ", ordering " << ordering << ", mode " << cli.str("mode") << ", " << solver
            << " (b = ones, x0 = 0, tol " << cli.str("tol") << "), " << to_string(tri) << " triangular solves, " << runs
            << " run" << (runs > 1 ? "s" : "") << "\n";
  par_ilu_symbolic(exec, h, A);
  std::cout << "symbolic phase: " << fmt("%.1f", 1e3 * h.stats().symbolic_seconds) << " ms, |S| = " << h.stats().nnz_S
            << ", tasks per sweep = " << h.stats().num_tasks << std::endl;  // flushed: long runs follow
  const auto scaled = scale_unit_diagonal(exec, A);  // S A S and s, for the exact rows
  exec.fence();

  CsrHost<double> exact_L, exact_U;  // --factor-error: the exact factors (host reference)
  if (want_factor_error) {
    try {
      host_exact_factors(to_host(scaled.A), ic, fill, exact_L, exact_U);
    } catch (const BreakdownError& e) {
      throw InvalidInput(command + ": --factor-error needs the exact factorization, which does not exist: " + e.what());
    }
  }

  std::vector<Row> rows;
  SolveCache exact_cache;
  Json extra = Json::object();
  auto nonlinear = [&](const CrsD& L, const CrsD& U, bool ic_form) {
    return ic_form ? nonlinear_residual_ic(exec, scaled.A, L) : nonlinear_residual(exec, scaled.A, L, U);
  };
  auto ilu_res = [&](const CrsD& L, const CrsD& U) { return ilu_residual(exec, scaled.A, L, U); };

  std::set<std::string> exact;
  {
    std::string spec_exact = cli.str("exact");
    if (spec_exact == "auto") spec_exact = Impl::is_gpu_space<ExecSpace>() ? "host,kk,cusparse" : "host";
    std::stringstream list(spec_exact);
    std::string item;
    while (std::getline(list, item, ','))
      if (item == "host" || item == "kk" || item == "cusparse")
        exact.insert(item);
      else if (item != "none")
        throw InvalidInput(command + ": --exact takes host, kk, cusparse or none, got '" + item + "'");
  }
  {
    // Host reference (serial Gaussian elimination on the scaled matrix).
    if (exact.count("host")) {
      Row row;
      row.label = std::string("exact ") + (ic ? "IC" : "ILU") + "(" + std::to_string(fill) + "), host reference";
      if (ic && fill > 0) {
        row.note = "no host IC(k) reference for k > 0";
      } else {
        const auto Ash = to_host(scaled.A);
        Kokkos::Timer t;
        CsrHost<double> Lh, Uh;
        try {
          host_exact_factors(Ash, ic, fill, Lh, Uh);
          row.total_ms.add(1e3 * t.seconds());
          const auto L = to_device<Device>(Lh, "L_ref");
          const auto U = ic ? transpose(L) : to_device<Device>(Uh, "U_ref");
          row.nonlinear.add(nonlinear(L, U, ic));
          if (want_ilu_res) row.ilu_residual.add(ilu_res(L, U));
          solve_with(A, L, U, !ic, scaled.s, tri, tri_sweeps, ss, row, &exact_cache);
        } catch (const BreakdownError& e) {
          row.note = e.what();
        }
      }
      rows.push_back(row);
    }
    // Kokkos-Kernels spiluk on the device.
    if (exact.count("kk")) {
      Row row;
      row.label = "exact ILU(" + std::to_string(fill) + "), Kokkos-Kernels spiluk";
      KkSpiluk<double, Device> kk;
      kk.symbolic(scaled.A, fill);
      double t = kk.numeric(scaled.A);
      if (t < 1.0) t = kk.numeric(scaled.A);  // the first run was a warm-up (unless it is slow anyway)
      row.total_ms.add(1e3 * t);
      row.note = "numeric phase; symbolic (host) " + fmt("%.1f", 1e3 * kk.symbolic_seconds()) + " ms";
      const auto L = kk.L(), U = kk.U();
      row.nonlinear.add(nonlinear(L, U, false));
      if (want_ilu_res) row.ilu_residual.add(ilu_res(L, U));
      SolveSetup kss = ss;
      kss.solve = ss.solve && cli.flag_set("solve-all-exact");
      if (ss.solve && !kss.solve)
        row.note +=
            "; solve skipped (same preconditioner as the host reference up to "
            "round-off; --solve-all-exact runs it)";
      solve_with(A, L, U, true, scaled.s, tri, tri_sweeps, kss, row);
      extra["spiluk_symbolic_seconds"] = kk.symbolic_seconds();
      rows.push_back(row);
    }
#if ASYNCSPARSE_HAVE_CUSPARSE
    if (fill == 0 && exact.count("cusparse")) {
      Row row;
      row.label = std::string("exact ") + (ic ? "IC(0), cuSPARSE csric02" : "ILU(0), cuSPARSE csrilu02");
      try {
        CusparseIncompleteFactor<Device> cf;
        cf.setup(scaled.A, ic);
        cf.factor();  // warm-up
        row.total_ms.add(1e3 * cf.factor());
        row.note = "analysis + factorization";
        const auto L = cf.L(), U = cf.U();
        row.nonlinear.add(nonlinear(L, U, ic));
        if (want_ilu_res) row.ilu_residual.add(ilu_res(L, U));
        solve_with(A, L, U, !ic, scaled.s, tri, tri_sweeps, ss, row, &exact_cache);
      } catch (const Error& e) {
        row.note = e.what();
      }
      rows.push_back(row);
    }
#endif
  }

  // The iterative factorization: 0..N sweeps, `runs` times.
  std::vector<Row> srows(sweeps.size());
  for (std::size_t k = 0; k < sweeps.size(); ++k) {
    srows[k].sweeps = sweeps[k];
    srows[k].label = std::to_string(sweeps[k]) + " sweep" + (sweeps[k] == 1 ? "" : "s");
  }
  Json histories = Json::array();
  Progress progress(command, runs);
  for (int r = 0; r < runs; ++r) {
    progress.update(r);
    if (ss.verbose) {
      std::fprintf(stderr, "%s: run %d/%d\n", command.c_str(), r + 1, runs);
      std::fflush(stderr);
    }
    h.launch.seed = seed0 + static_cast<std::uint64_t>(r);
    h.params.sweeps = 0;
    par_ilu_numeric(exec, h, A);
    SolveCache cache = exact_cache;  // this run's sweeps vs. the exact factors and the earlier sweeps
    std::size_t next = 0;
    for (int s = 0; s <= max_sweeps && next < sweeps.size(); ++s) {
      if (s > 0) par_ilu_sweep(exec, h, 1);
      if (s != sweeps[next]) continue;
      Row& row = srows[next++];
      const auto& st = h.stats();
      double sweep_s = 0;
      for (int q = 0; q < s; ++q) sweep_s += st.sweep_times[q];
      row.sweep_ms.add(1e3 * sweep_s);
      row.total_ms.add(1e3 * (st.setup_seconds + sweep_s));
      row.nonlinear.add(par_ilu_nonlinear_residual(exec, h));
      if (want_ilu_res) row.ilu_residual.add(par_ilu_ilu_residual(exec, h));
      const auto F = par_ilu_factors(exec, h);
      if (want_factor_error) {
        FactorError fe;
        add_factor_error(F.L, exact_L, 'L', fe);
        if (!ic) add_factor_error(F.U, exact_U, 'U', fe);
        row.factor_error.add(fe.max_rel);
        if (ss.verbose) {
          std::fprintf(stderr, "  %s: %s\n", row.label.c_str(), fe.describe().c_str());
          std::fflush(stderr);
        }
      }
      solve_with(A, F.L, F.U, !ic, h.scaling(), tri, tri_sweeps, ss, row, &cache);
    }
    Json hist = Json::object();
    hist["seed"] = static_cast<long long>(h.launch.seed);
    hist["sweep_times"] = h.stats().sweep_times;
    hist["setup_seconds"] = h.stats().setup_seconds;
    hist["breakdown_sweeps"] = h.stats().breakdown_sweeps;
    if (h.stats().breakdown_sweeps > 0)
      std::cerr << command << ": run " << r << ": " << h.stats().breakdown_sweeps
                << " sweep(s) skipped an update (transient breakdown at row " << h.stats().breakdown_row << ": "
                << h.stats().breakdown_problem << ")\n";
    histories.push_back(hist);
  }
  rows.insert(rows.end(), srows.begin(), srows.end());

  // Table.
  std::vector<std::string> header = {"factorization", ss.spd ? "PCG iters" : "GMRES iters", "nonlin. res."};
  if (want_ilu_res) header.push_back("ILU res.");
  if (want_factor_error) header.push_back("max factor err.");
  header.push_back("sweeps [ms]");
  header.push_back("total [ms]");
  header.push_back("solve [s]");
  Table table(header);
  std::vector<std::string> notes;
  Json jrows = Json::array();
  for (const auto& row : rows) {
    std::vector<std::string> cells = {row.label, row.iterations.format("%.0f"), row.nonlinear.format("%.3e")};
    if (want_ilu_res) cells.push_back(row.ilu_residual.format("%.4e"));
    if (want_factor_error) cells.push_back(row.factor_error.format("%.2e"));
    cells.push_back(row.sweep_ms.format("%.2f"));
    cells.push_back(row.total_ms.format("%.2f"));
    cells.push_back(row.reused ? "=" : row.solve_s.format("%.2f"));
    table.row(cells);
    if (!row.note.empty()) notes.push_back(row.label + ": " + row.note);
    if (row.reused > 0)
      notes.push_back(row.label + ": factors bit-identical to those of '" + row.reused_from +
                      "'; solver result reused" +
                      (runs > 1 ? " in " + std::to_string(row.reused) + " run(s)" : std::string()));
    Json j = Json::object();
    j["label"] = row.label;
    j["sweeps"] = row.sweeps;
    j["iterations"] = row.iterations.to_json();
    j["nonlinear_residual"] = row.nonlinear.to_json();
    if (want_ilu_res) j["ilu_residual"] = row.ilu_residual.to_json();
    if (want_factor_error) j["max_factor_error"] = row.factor_error.to_json();
    j["sweep_ms"] = row.sweep_ms.to_json();
    j["total_ms"] = row.total_ms.to_json();
    j["solve_seconds"] = row.solve_s.to_json();
    if (row.reused) j["solve_reused_from"] = row.reused_from;
    j["solver_status"] = row.statuses;
    if (!row.note.empty()) j["note"] = row.note;
    jrows.push_back(j);
  }
  table.print();
  for (const auto& n : notes) std::cout << "note: " << n << "\n";
  std::cout << "sweep launch: " << h.stats().launch.to_string() << "\n";
  std::cout << "total = setup (checks, scaling, initial guess) + sweeps; exact rows: factorization time\n";

  rec["kind"] = ic ? "ic" : "ilu";
  rec["ordering"] = ordering;
  rec["solver"] = solver;
  rec["symbolic_seconds"] = h.stats().symbolic_seconds;
  rec["nnz_S"] = static_cast<long long>(h.stats().nnz_S);
  rec["num_tasks"] = static_cast<long long>(h.stats().num_tasks);
  rec["launch"] = to_json(h.stats().launch);
  rec["rows"] = jrows;
  rec["runs"] = histories;
  rec["baselines"] = extra;
  if (!cli.str("json").empty()) rec.save(cli.str("json"));
  return 0;
}

Registrar reg_ilu("ilu", "iterative ILU(0) by asynchronous sweeps: GMRES iterations / residuals / time vs. sweeps",
                  [](int argc, char** argv) { return run_factorization("ilu", argc, argv); });
Registrar reg_ic("ic", "iterative IC(0) by asynchronous sweeps: PCG iterations / residuals / time vs. sweeps (Table 2)",
                 [](int argc, char** argv) { return run_factorization("ic", argc, argv); });

}  // namespace
}  // namespace Driver
}  // namespace AsyncSparse
