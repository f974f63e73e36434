// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse jacobi — synchronous vs asynchronous Jacobi (Tsai, Nayak, Chow & Anzt 2022): residual vs
// updates and vs time (median, quartiles and worst case over runs), time per update, time to a tolerance, value
// ages.
//
// Method of the paper (sect. V): the matrix scaled to unit diagonal, b uniform in (-0.125, 0.125), x0 = 0,
// omega = 1; each point of a residual curve is an independent run with that many updates (so the
// asynchronous execution is never interrupted), repeated --runs times after --warmup runs.
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi.hpp>

#include <algorithm>
#include <fstream>
#include <utility>

#include "driver_device.hpp"

namespace AsyncSparse {
namespace Driver {
namespace cmd_jacobi_local {

// ---------------------------------------------------------------------------------------------------------
// parse
// ---------------------------------------------------------------------------------------------------------

struct Options {
  ProblemOptions problem{"", 0, "uniform", 0};
  std::string mode = "sync,static,dynamic";
  int subwarp = -1, oscb = 1;
  std::string assignment = "auto";
  bool no_fence = false, plain_loads = false;
  int updates = 1000, points = 10;
  std::string curve = "independent";
  int check_interval = 0, runs = 5, warmup = 1;
  int max_updates_per_launch = 0;
  double tol = 0, omega = 1;
  std::string scale = "on";
  bool trace = false;
  int midway = -1;
  std::string timestamps;
  int team_size = -1;
  std::string block_order = "forward";
};

void define(Cli& cli, Options& o) {
  cli.about(
      "Synchronous vs asynchronous Jacobi (Tsai, Nayak, Chow & Anzt 2022): residual vs updates and time, time\n"
      "per update, time to tolerance, value ages. Default: the paper's setting (unit-diagonal scaling, b uniform\n"
      "in (-0.125, 0.125), x0 = 0, omega = 1).");
  add_matrix_argument(cli, o.problem,
                      "Matrix Market file or gen:... spec (the paper: gen:lap2d:300, gen:lap2d:1000, ...)");
  cli.option("mode", o.mode,
             "comma-separated variants: sync | static | dynamic | auto (the library's default rule: static)");
  cli.option("subwarp", o.subwarp,
             "lanes per row (every mode, the synchronous residual kernel included), 1..32 (-1: 1)");
  cli.option("oscb", o.oscb, "oversubscription of the dynamic mode, 1..16");
  cli.choice("assignment", o.assignment, {"auto", "strided", "atomic-counter"},
             "dynamic row assignment: auto (strided on GPUs, atomic-counter on CPUs) | strided (Algorithm 3) | "
             "atomic-counter");
  cli.flag("no-fence", o.no_fence, "no memory fence after the asynchronous row updates (paper's no-fence variant)");
  cli.flag("plain-loads", o.plain_loads,
           "plain instead of relaxed (volatile) loads of x (with --no-fence: the paper's kernel)");
  cli.option("updates", o.updates, "updates per row (the largest point of the curve; limit with --tol)");
  cli.option("points", o.points, "curve points: independent runs at updates*k/points, k = 1..points (0: one point)");
  cli.choice("curve", o.curve, {"independent", "chunked", "none"},
             "independent (a run per point, the paper's method) | chunked (one run, residual checked every "
             "--check-interval updates, every 10 with 0) | none (only --tol / --trace)");
  cli.option("check-interval", o.check_interval,
             "updates between residual checks (--curve chunked, --tol; 0: with --tol the library's rule, sync every "
             "10, the asynchronous modes adapted so that the checks take about 10% of the update time; the chunked "
             "curve every 10)");
  cli.option("max-updates-per-launch", o.max_updates_per_launch,
             "asynchronous modes: most updates per row in one kernel launch (0: the library's rule, printed with "
             "each variant: at most 10 for the static mode on GPUs when the rows outnumber the resident lane groups; "
             "the paper's kernels: a value >= --updates, or >= a fixed --check-interval)");
  cli.option("runs", o.runs, "measured runs per point (median, quartiles, worst case)");
  cli.option("warmup", o.warmup, "unmeasured runs before each variant");
  cli.option("tol", o.tol, "time-to-tolerance mode: relative residual target (0: off); at most --updates updates");
  cli.option("omega", o.omega, "relaxation factor alpha");
  cli.choice("scale", o.scale, {"on", "off"}, "scale A to unit diagonal");
  add_rhs_options(cli, o.problem, {"uniform", "ones"}, "right-hand side: uniform (in (-0.125, 0.125), --seed) | ones",
                  "seed");
  cli.flag("trace", o.trace, "value-age logging run (midway and final update of each row) and its overhead");
  cli.option("midway", o.midway, "update index of the midway value-age snapshot (-1: updates/2)");
  cli.option("timestamps", o.timestamps,
             "write the update schedule (row, update, time_ns, worker) of the first rows as CSV");
  cli.option("team-size", o.team_size, "threads per team (-1: auto)");
  cli.choice("block-order", o.block_order, {"forward", "backward", "random"},
             "order of the row blocks (static mode on GPUs, residual)");
}

// ---------------------------------------------------------------------------------------------------------
// prepare
// ---------------------------------------------------------------------------------------------------------

struct Setup {
  Setup(const Options& o, Json& rec);
  Problem problem;
  std::vector<JacobiMode> modes;
  std::vector<int> counts;  ///< updates of the curve points
  AsyncJacobiParams base;
  LaunchConfig launch;
  ExecSpace exec;
  Crs<double, Device> A;
  Kokkos::View<double*, Device> b, x;
  AsyncJacobiHandle<double, Device> h;
};

Setup::Setup(const Options& o, Json& rec) {
  const std::string cmd = "jacobi";
  problem = load_problem(cmd, o.problem, rec);
  if (o.scale == "on") problem.A = scale_unit_diagonal(problem.A).A;
  if (o.updates < 1) throw InvalidInput("jacobi: --updates must be >= 1, got " + std::to_string(o.updates));
  if (o.points < 0) throw InvalidInput("jacobi: --points must be >= 0, got " + std::to_string(o.points));
  if (o.runs < 1) throw InvalidInput("jacobi: --runs must be >= 1, got " + std::to_string(o.runs));
  if (o.warmup < 0) throw InvalidInput("jacobi: --warmup must be >= 0, got " + std::to_string(o.warmup));
  // (the library reports a negative bound too, under its parameter's name: here the option is named)
  if (o.check_interval < 0)
    throw InvalidInput("jacobi: --check-interval must be >= 0 (0: the library's rule), got " +
                       std::to_string(o.check_interval));
  if (o.max_updates_per_launch < 0)
    throw InvalidInput("jacobi: --max-updates-per-launch must be >= 0 (0: the library's rule), got " +
                       std::to_string(o.max_updates_per_launch));
  // auto: the library's rule for this build's execution space, named by the mode it picks
  for (const auto& m : split_list(o.mode)) modes.push_back(resolve_jacobi_mode<ExecSpace>(jacobi_mode_from_string(m)));
  if (modes.empty()) throw InvalidInput("jacobi: --mode is empty");
  if (o.points == 0) {
    counts.push_back(o.updates);
  } else {
    for (int k = 1; k <= o.points; ++k) {
      const int u = static_cast<int>(static_cast<long long>(o.updates) * k / o.points);
      if (u > 0 && (counts.empty() || counts.back() != u)) counts.push_back(u);
    }
  }
  base.omega = o.omega;
  base.fence = !o.no_fence;
  base.load_kind = o.plain_loads ? LoadKind::Plain : LoadKind::Relaxed;
  base.assignment = dynamic_assignment_from_string(o.assignment);
  base.check_interval = o.check_interval;
  base.max_updates_per_launch = o.max_updates_per_launch;
  launch.vector_length = o.subwarp;
  launch.oversubscription = o.oscb;
  launch.team_size = o.team_size;
  launch.block_order = block_order_from_string(o.block_order);
  h.params = base;
  h.launch = launch;
  A = to_device<Device>(problem.A);
  b = to_device<Device>(make_rhs(cmd, o.problem, problem.A.nrows));
  x = Kokkos::View<double*, Device>("x", problem.A.nrows);
}

// ---------------------------------------------------------------------------------------------------------
// run
// ---------------------------------------------------------------------------------------------------------

/// One run from x0 = 0 (the library's asynchronous Jacobi: symbolic, numeric and solve phases).
AsyncJacobiStats run_once(Setup& s, const AsyncJacobiParams& p) {
  Kokkos::deep_copy(s.exec, s.x, 0.0);
  s.h.params = p;
  async_jacobi_symbolic(s.exec, s.h, s.A);
  async_jacobi_numeric(s.exec, s.h, s.A);
  return async_jacobi_solve(s.exec, s.h, s.b, s.x);
}

using Spread = SampleSummary;  ///< over the --runs runs: median, quartiles, min and max (the worst case)
Spread spread(std::vector<double> v) { return summarize_samples(std::move(v)); }
Json spread_json(const Spread& s) { return s; }
std::string show(const Spread& s, const char* f) { return spread_text(s, f); }

/// What the runs of one variant (mode) gave.
struct Variant {
  std::string name;
  JacobiMode mode;
  AsyncJacobiParams p;
  Json record = Json::object();
  Table curve{{"updates", "rel. residual median [q1, q3] max", "time [s] median [q1, q3] max", "time/update [us]"}};
  Spread last_res, last_tpu;
  std::string last_status = "-";
  bool ok = true;  ///< no run diverged
};

/// Residual vs updates: an independent run per point (the paper's method), --runs times each.
void curve_independent(Setup& s, const Options& o, Variant& v) {
  Json jc = Json::array();
  Progress prog(v.name, static_cast<long long>(s.counts.size()) * o.runs);
  long long done = 0;
  for (int u : s.counts) {
    std::vector<double> res, t, tpu;
    for (int r = 0; r < o.runs; ++r) {
      prog.update(done++, "(" + std::to_string(u) + " updates)");
      v.p.updates = u;
      const auto st = run_once(s, v.p);
      res.push_back(st.final_residual);
      t.push_back(st.update_seconds);
      tpu.push_back(st.time_per_update * 1e6);
      v.last_status = to_string(st.status);
      v.ok = v.ok && !st.failed();
    }
    const Spread sr = spread(res), stt = spread(t), sp = spread(tpu);
    v.curve.row({std::to_string(u), show(sr, "%.3e"), show(stt, "%.4g"), fmt("%.4g", sp.median)});
    jc.push_back(Json{{"updates", u},
                      {"residual", spread_json(sr)},
                      {"seconds", spread_json(stt)},
                      {"time_per_update_us", spread_json(sp)}});
    v.last_res = sr;
    v.last_tpu = sp;
  }
  v.record["curve"] = jc;
}

/// Residual vs updates: one run per repetition, checked every --check-interval updates (0: every
/// kFirstCheckInterval: the curve needs the same points in every run, which the rule's adapted intervals would not
/// give); histories aligned by index.
void curve_chunked(Setup& s, const Options& o, Variant& v) {
  std::vector<std::vector<double>> res_by_check, t_by_check;
  std::vector<int> upd;
  std::vector<double> tpu, final_res;
  Progress prog(v.name + " chunked", o.runs);
  for (int r = 0; r < o.runs; ++r) {
    prog.update(r);
    v.p.updates = o.updates;
    v.p.record_history = true;
    v.p.check_interval = o.check_interval > 0 ? o.check_interval : kFirstCheckInterval;
    const auto st = run_once(s, v.p);
    v.p.check_interval = o.check_interval;
    if (st.update_history.size() > upd.size()) upd = st.update_history;
    res_by_check.resize(std::max(res_by_check.size(), st.residual_history.size()));
    t_by_check.resize(res_by_check.size());
    for (std::size_t k = 0; k < st.residual_history.size(); ++k) {
      res_by_check[k].push_back(st.residual_history[k]);
      t_by_check[k].push_back(st.time_history[k]);
    }
    tpu.push_back(st.time_per_update * 1e6);
    final_res.push_back(st.final_residual);
    v.last_status = to_string(st.status);
    v.ok = v.ok && !st.failed();
  }
  Json jc = Json::array();
  const std::size_t stride = std::max<std::size_t>(1, res_by_check.size() / 12);
  for (std::size_t k = 0; k < res_by_check.size(); ++k) {
    const Spread sr = spread(res_by_check[k]), stt = spread(t_by_check[k]);
    if (k % stride == 0 || k + 1 == res_by_check.size())
      v.curve.row({std::to_string(upd[k]), show(sr, "%.3e"), show(stt, "%.4g"), "-"});
    jc.push_back(Json{{"updates", upd[k]}, {"residual", spread_json(sr)}, {"seconds", spread_json(stt)}});
  }
  v.record["curve"] = jc;
  v.last_res = spread(final_res);
  v.last_tpu = spread(tpu);
}

/// Time to --tol (at most --updates updates), --runs times. Returns the median time.
double time_to_tol(Setup& s, const Options& o, Variant& v, double sync_ttt, Table& tol_table) {
  std::vector<double> t, tu, u, tpu, checks, interval;
  std::string status;
  Progress prog(v.name + " time to tol", o.runs);
  for (int r = 0; r < o.runs; ++r) {
    prog.update(r);
    v.p.updates = o.updates;
    v.p.tol = o.tol;
    v.p.record_history = false;
    const auto st = run_once(s, v.p);
    t.push_back(st.total_seconds);
    tu.push_back(st.update_seconds);
    u.push_back(st.updates_done);
    tpu.push_back(st.time_per_update * 1e6);
    checks.push_back(st.checks);
    interval.push_back(st.check_interval);
    status = to_string(st.status);
    if (o.curve == "none") v.last_status = status;
  }
  v.p.tol = 0;
  const Spread st = spread(t), stu = spread(tu), su = spread(u), sc = spread(checks), si = spread(interval);
  if (o.curve == "none") v.last_tpu = spread(tpu);
  if (v.mode == JacobiMode::Sync) sync_ttt = st.median;
  tol_table.row(
      {v.name, show(su, "%.0f"), show(st, "%.4g"), fmt("%.4g", stu.median),
       fmt("%.0f", sc.median) + fmt(" (%.0f)", si.median),
       status +
           (sync_ttt > 0 && v.mode != JacobiMode::Sync ? fmt(" (%.2fx faster than sync)", sync_ttt / st.median) : "")});
  v.record["time_to_tol"] = Json{{"tol", o.tol},
                                 {"updates", spread_json(su)},
                                 {"seconds", spread_json(st)},
                                 {"update_seconds", spread_json(stu)},
                                 {"checks", spread_json(sc)},
                                 {"check_interval", spread_json(si)},
                                 {"status", status}};
  return st.median;
}

/// Value ages (and the overhead of logging them): runs without and with logging, interleaved.
void value_ages(Setup& s, const Options& o, Variant& v) {
  v.p.updates = o.updates;
  v.p.tol = 0;
  v.p.record_history = false;
  std::vector<double> t_off, t_on;
  AsyncJacobiParams pt = v.p;
  pt.trace.value_age = true;
  pt.trace.midway = o.midway;
  Progress prog(v.name + " value ages", o.runs);
  for (int r = 0; r < o.runs; ++r) {  // interleaved so that both see the same machine state
    prog.update(r);
    t_off.push_back(run_once(s, v.p).update_seconds);
    t_on.push_back(run_once(s, pt).update_seconds);
  }
  const Spread so = spread(t_off), sn = spread(t_on);
  const double overhead = so.median > 0 ? sn.median / so.median - 1 : 0;
  std::cout << "\nvalue-age logging (" << v.name << ", " << o.updates << " updates): run time "
            << fmt("%.4g", so.median) << " s without, " << fmt("%.4g", sn.median) << " s with logging, overhead "
            << fmt("%.1f %%", 100 * overhead) << "\n";
  Json ja = Json{{"seconds_without", spread_json(so)}, {"seconds_with", spread_json(sn)}, {"overhead", overhead}};
  const auto mid = to_std_vector(s.h.trace.age_mid());
  const auto fin = to_std_vector(s.h.trace.age_final());
  const auto grid = stencil_grid(s.problem.spec);
  Json js = Json::array();
  for (int which = 0; which < 2; ++which) {
    const auto& ages = which == 0 ? mid : fin;
    const int own = which == 0 ? s.h.trace.midway() : o.updates - 1;
    const char* snap = which == 0 ? "midway" : "final";
    for (auto cls : {ConnectionClass::Degree, ConnectionClass::Offset}) {
      const auto S = summarize_value_ages(s.problem.A, ages, own, snap, cls, grid);
      Table at({std::string(snap) + " (own update " + std::to_string(own) + ")", "count", "min", "q1", "median", "q3",
                "max", "median - own"});
      std::vector<AgeStats> all = S.by_type;
      all.push_back(S.all);
      for (const auto& a : all)
        at.row({a.label, std::to_string(a.count), fmt("%.0f", a.min), fmt("%.1f", a.q1), fmt("%.1f", a.median),
                fmt("%.1f", a.q3), fmt("%.0f", a.max), fmt("%+.1f", a.relative_median)});
      if (cls == ConnectionClass::Degree || !grid.empty()) {
        std::cout << "\n";
        at.print();
      }
      Json jj = S;
      jj["classification"] = cls == ConnectionClass::Degree ? "degree" : "offset";
      js.push_back(jj);
    }
  }
  ja["summaries"] = js;
  v.record["value_age"] = ja;
}

/// The update schedule of the first rows (one traced run), as CSV.
void write_timestamps(Setup& s, const Options& o, Variant& v) {
  AsyncJacobiParams ps = v.p;
  ps.trace.timestamps = true;
  run_once(s, ps);
  const auto stamps = to_std_vector(s.h.trace.stamps());
  const auto wk = to_std_vector(s.h.trace.stamp_workers());
  const std::string file = o.timestamps + "." + to_string(v.mode) + ".csv";
  std::ofstream os(file);
  if (!os) throw Error("jacobi: cannot write '" + file + "'");
  std::uint64_t t0 = ~std::uint64_t(0);
  for (auto t : stamps) t0 = std::min(t0, t);
  os << "row,update,time_ns,worker\n";
  for (std::int64_t i = 0; i < s.h.trace.stamp_rows(); ++i)
    for (int k = 0; k < o.updates; ++k) {
      const std::size_t q = static_cast<std::size_t>(i) * o.updates + k;
      os << i << "," << k << "," << (stamps[q] - t0) << "," << wk[q] << "\n";
    }
  std::cout << "update schedule of rows 0.." << s.h.trace.stamp_rows() - 1 << " written to " << file << "\n";
  v.record["timestamps_file"] = file;
}

// ---------------------------------------------------------------------------------------------------------
// the command: every variant, then the summary
// ---------------------------------------------------------------------------------------------------------

class Jacobi : public Command {
 public:
  void define(Cli& cli) override { cmd_jacobi_local::define(cli, o_); }
  int run(Json& rec) override {
    Setup s(o_, rec);
    std::cout << "matrix " << s.problem.name << ": n = " << s.problem.A.nrows << ", nnz = " << s.problem.A.nnz()
              << (o_.scale == "on" ? ", scaled to unit diagonal" : "") << "; b = " << o_.problem.rhs
              << ", x0 = 0, omega = " << fmt("%g", o_.omega) << "; " << ExecSpace::name() << " (concurrency "
              << s.exec.concurrency() << "), " << o_.runs << " runs per point\n";
    Json variants = Json::array();
    Table summary({"variant", "workers", "subwarp", "time/update [us]", "ratio to sync", "residual at N", "status"});
    Table tol_table(
        {"variant", "updates to tol", "time to tol [s]", "update time [s]", "checks (last interval)", "status"});
    double sync_tpu = 0, sync_ttt = 0;
    bool all_ok = true;
    for (const JacobiMode mode : s.modes) {
      Variant v = run_variant(s, mode, sync_ttt, tol_table);
      const AsyncJacobiStats& probe = s.h.stats;  // launch and workers of the last measured run
      v.record["launch"] = probe.launch;
      v.record["workers"] = probe.workers;
      v.record["last_run"] = probe;
      v.record["time_per_update_us"] = spread_json(v.last_tpu);
      std::cout << "\n"
                << v.name << "  (" << probe.launch.to_string() << ", workers " << probe.workers
                << (mode == JacobiMode::Sync ? std::string()
                    : probe.max_updates_per_launch > 0
                        ? ", updates per launch <= " + std::to_string(probe.max_updates_per_launch)
                        : std::string(", updates per launch unbounded"))
                << ")\n";
      if (o_.curve != "none") v.curve.print();
      if (mode == JacobiMode::Sync) sync_tpu = v.last_tpu.median;
      summary.row({v.name, std::to_string(probe.workers), std::to_string(probe.launch.vector_length),
                   fmt("%.4g", v.last_tpu.median), sync_tpu > 0 ? fmt("%.2fx", sync_tpu / v.last_tpu.median) : "-",
                   o_.curve == "none" ? "-" : show(v.last_res, "%.3e"), v.last_status});
      if ((o_.trace || !o_.timestamps.empty()) && mode != JacobiMode::Sync) {
        value_ages(s, o_, v);
        if (!o_.timestamps.empty()) write_timestamps(s, o_, v);
      }
      all_ok = all_ok && v.ok;
      variants.push_back(v.record);
    }
    std::cout << "\n";
    summary.print();
    if (o_.tol > 0) {
      std::cout << "\ntime to relative residual " << fmt("%g", o_.tol) << " ("
                << (s.base.check_interval > 0
                        ? "residual checked every " + std::to_string(s.base.check_interval) + " updates"
                        : std::string("residual checks by the library's rule: every ") +
                              std::to_string(kFirstCheckInterval) +
                              " updates synchronous, asynchronous from there adapted to about " +
                              fmt("%.0f", 100 * kCheckTimeShare) + "% of the time")
                << "; time includes the checks):\n";
      tol_table.print();
    }
    rec["variants"] = variants;
    return all_ok ? 0 : 3;
  }

 private:
  /// Warm-up, the residual curve and the time to tolerance of one mode.
  Variant run_variant(Setup& s, JacobiMode mode, double& sync_ttt, Table& tol_table) {
    Variant v;
    v.mode = mode;
    v.p = s.base;
    v.p.mode = mode;
    v.p.updates = o_.updates;
    v.name = to_string(mode);
    if (mode == JacobiMode::Dynamic) v.name += "(oscb " + std::to_string(s.launch.oversubscription) + ")";
    if (mode != JacobiMode::Sync && !v.p.fence) v.name += " no-fence";
    v.record["variant"] = v.name;
    v.record["mode"] = to_string(mode);
    for (int w = 0; w < o_.warmup; ++w) run_once(s, v.p);
    if (o_.curve == "independent")
      curve_independent(s, o_, v);
    else if (o_.curve == "chunked")
      curve_chunked(s, o_, v);
    else
      v.record["curve"] = Json::array();
    v.record["curve_method"] = o_.curve;
    if (o_.tol > 0) {
      const double t = time_to_tol(s, o_, v, sync_ttt, tol_table);
      if (mode == JacobiMode::Sync) sync_ttt = t;
    }
    return v;
  }

  Options o_;
};

Registrar reg("jacobi", "synchronous vs asynchronous Jacobi: residual vs updates/time, value ages",
              [] { return std::unique_ptr<Command>(new Jacobi); });

}  // namespace cmd_jacobi_local
}  // namespace Driver
}  // namespace AsyncSparse
