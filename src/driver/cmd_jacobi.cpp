// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse jacobi — synchronous vs asynchronous Jacobi (Tsai, Nayak, Chow & Anzt 2022): residual vs
// updates and vs time (median / min / max over runs), time per update, time to a tolerance, value ages.
//
// Method of the paper (sect. V): the matrix scaled to unit diagonal, b uniform in (-0.125, 0.125), x0 = 0,
// omega = 1; each point of a residual curve is an independent run with that many updates (so the
// asynchronous execution is never interrupted), repeated --runs times after --warmup runs.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

#include "driver_common.hpp"

namespace AsyncSparse {
namespace Driver {
namespace {

struct Spread {
  double median = 0, min = 0, max = 0;
};
Spread spread(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  const std::size_t m = v.size() / 2;
  s.median = v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  return s;
}
Json to_json(const Spread& s) {
  Json j = Json::object();
  j["median"] = s.median;
  j["min"] = s.min;
  j["max"] = s.max;
  return j;
}
std::string show(const Spread& s, const char* f) {
  return fmt(f, s.median) + " [" + fmt(f, s.min) + ", " + fmt(f, s.max) + "]";
}

Json to_json(const AsyncJacobiStats& st) {
  Json j = Json::object();
  j["mode"] = to_string(st.mode);
  j["status"] = to_string(st.status);
  j["updates_done"] = st.updates_done;
  j["initial_residual"] = st.initial_residual;
  j["final_residual"] = st.final_residual;
  j["update_seconds"] = st.update_seconds;
  j["check_seconds"] = st.check_seconds;
  j["total_seconds"] = st.total_seconds;
  j["time_per_update"] = st.time_per_update;
  j["kernel_launches"] = st.kernel_launches;
  j["workers"] = static_cast<long long>(st.workers);
  if (!st.message.empty()) j["message"] = st.message;
  if (!st.residual_history.empty()) {
    j["residual_history"] = st.residual_history;
    j["update_history"] = st.update_history;
    j["time_history"] = st.time_history;
  }
  return j;
}

/// b uniform in (lo, hi), from the raw 64-bit output of mt19937_64 (same on every standard library).
std::vector<double> uniform_rhs(int n, std::uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
  return v;
}

/// Grid sizes of stencil generators (for the E/W/N/S/B/T labels of the value ages), else empty.
std::vector<std::int64_t> stencil_grid(const std::string& spec) {
  if (!is_generator_spec(spec)) return {};
  const auto g = parse_generator(spec);
  if (g.name == "lap2d" || g.name == "aniso2d") return {g.size, g.size};
  if (g.name == "lap3d7" || g.name == "lap3d27") return {g.size, g.size, g.size};
  return {};
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ','))
    if (!tok.empty()) out.push_back(tok);
  return out;
}

int run_jacobi(int argc, char** argv) {
  Cli cli("jacobi",
          "Synchronous vs asynchronous Jacobi (Tsai, Nayak, Chow & Anzt 2022): residual vs updates and time, time\n"
          "per update, time to tolerance, value ages. Default: the paper's setting (unit-diagonal scaling, b uniform\n"
          "in (-0.125, 0.125), x0 = 0, omega = 1).");
  cli.positional("matrix", "Matrix Market file or gen:... spec (the paper: gen:lap2d:300, gen:lap2d:1000, ...)");
  cli.option("mode", "sync,static,dynamic", "comma-separated variants: sync | static | dynamic");
  cli.option("subwarp", "-1", "lanes per row (every mode, the synchronous residual kernel included), 1..32 (-1: 1)");
  cli.option("oscb", "1", "oversubscription of the dynamic mode, 1..16");
  cli.option("assignment", "auto",
             "dynamic row assignment: auto (strided on GPUs, atomic-counter on CPUs) | strided (Algorithm 3) | "
             "atomic-counter");
  cli.flag("no-fence", "no memory fence after the asynchronous row updates (paper's no-fence variant)");
  cli.flag("plain-loads", "plain instead of relaxed (volatile) loads of x (with --no-fence: the paper's kernel)");
  cli.option("updates", "1000", "updates per row (the largest point of the curve; limit with --tol)");
  cli.option("points", "10", "curve points: independent runs at updates*k/points, k = 1..points (0: one point)");
  cli.option("curve", "independent",
             "independent (a run per point, the paper's method) | chunked (one run, residual checked every "
             "--check-interval updates) | none (only --tol / --trace)");
  cli.option("check-interval", "10", "updates between residual checks (--curve chunked, --tol)");
  cli.option("runs", "5", "measured runs per point (median/min/max)");
  cli.option("warmup", "1", "unmeasured runs before each variant");
  cli.option("tol", "0", "time-to-tolerance mode: relative residual target (0: off); at most --updates updates");
  cli.option("omega", "1", "relaxation factor alpha");
  cli.option("scale", "on", "scale A to unit diagonal: on | off");
  cli.option("rhs", "uniform", "right-hand side: uniform (in (-0.125, 0.125), --seed) | ones");
  cli.option("seed", "0", "seed of the uniform right-hand side");
  cli.flag("trace", "value-age logging run (midway and final update of each row) and its overhead");
  cli.option("midway", "-1", "update index of the midway value-age snapshot (-1: updates/2)");
  cli.option("timestamps", "", "write the update schedule (row, update, time_ns, worker) of the first rows as CSV");
  cli.option("team-size", "-1", "threads per team (-1: auto)");
  cli.option("block-order", "forward", "order of the row blocks (static mode, residual): forward | backward | random");
  cli.option("json", "", "write a JSON record to this file");
  if (!cli.parse(argc, argv)) return 0;
  Json rec = run_record("jacobi", cli);
  const std::string spec = cli.arg("matrix");
  auto Ah = load_for_command(spec, &rec);
  check_square(Ah, "jacobi");
  check_nonempty(Ah, "jacobi");
  check_finite(Ah, "jacobi");
  if (cli.str("scale") == "on")
    Ah = scale_unit_diagonal(Ah).A;
  else if (cli.str("scale") != "off")
    throw InvalidInput("jacobi: --scale must be on or off, got '" + cli.str("scale") + "'");
  std::vector<double> bh;
  if (cli.str("rhs") == "uniform")
    bh = uniform_rhs(Ah.nrows, static_cast<std::uint64_t>(cli.integer("seed")), -0.125, 0.125);
  else if (cli.str("rhs") == "ones")
    bh.assign(Ah.nrows, 1.0);
  else
    throw InvalidInput("jacobi: --rhs must be uniform or ones, got '" + cli.str("rhs") + "'");

  const int updates = static_cast<int>(cli.integer("updates"));
  const int points = static_cast<int>(cli.integer("points"));
  const int runs = static_cast<int>(cli.integer("runs"));
  const int warmup = static_cast<int>(cli.integer("warmup"));
  const double tol = cli.real("tol");
  const std::string curve = cli.str("curve");
  if (updates < 1) throw InvalidInput("jacobi: --updates must be >= 1, got " + std::to_string(updates));
  if (points < 0) throw InvalidInput("jacobi: --points must be >= 0, got " + std::to_string(points));
  if (runs < 1) throw InvalidInput("jacobi: --runs must be >= 1, got " + std::to_string(runs));
  if (warmup < 0) throw InvalidInput("jacobi: --warmup must be >= 0, got " + std::to_string(warmup));
  if (curve != "independent" && curve != "chunked" && curve != "none")
    throw InvalidInput("jacobi: --curve must be independent, chunked or none, got '" + curve + "'");
  std::vector<JacobiMode> modes;
  for (const auto& m : split(cli.str("mode"))) modes.push_back(jacobi_mode_from_string(m));
  if (modes.empty()) throw InvalidInput("jacobi: --mode is empty");

  AsyncJacobiParams base;
  base.omega = cli.real("omega");
  base.fence = !cli.flag_set("no-fence");
  base.load_kind = cli.flag_set("plain-loads") ? LoadKind::Plain : LoadKind::Relaxed;
  base.assignment = dynamic_assignment_from_string(cli.str("assignment"));
  base.check_interval = static_cast<int>(cli.integer("check-interval"));
  LaunchConfig launch;
  launch.vector_length = static_cast<int>(cli.integer("subwarp"));
  launch.oversubscription = static_cast<int>(cli.integer("oscb"));
  launch.team_size = static_cast<int>(cli.integer("team-size"));
  launch.block_order = block_order_from_string(cli.str("block-order"));

  auto A = to_device<Device>(Ah);
  auto b = to_device<Device>(bh);
  Kokkos::View<double*, Device> x("x", Ah.nrows);
  ExecSpace exec;
  AsyncJacobiHandle<double, Device> h(base, launch);
  async_jacobi_symbolic(exec, h, A);
  async_jacobi_numeric(exec, h, A);

  auto run_once = [&](const AsyncJacobiParams& p) -> AsyncJacobiStats {
    Kokkos::deep_copy(exec, x, 0.0);
    h.params = p;
    return async_jacobi_solve(exec, h, b, x);
  };
  std::vector<int> counts;
  if (points == 0) {
    counts.push_back(updates);
  } else {
    for (int k = 1; k <= points; ++k) {
      const int u = static_cast<int>(static_cast<long long>(updates) * k / points);
      if (u > 0 && (counts.empty() || counts.back() != u)) counts.push_back(u);
    }
  }

  std::cout << "matrix " << matrix_display_name(spec) << ": n = " << Ah.nrows << ", nnz = " << Ah.nnz()
            << (cli.str("scale") == "on" ? ", scaled to unit diagonal" : "") << "; b = " << cli.str("rhs")
            << ", x0 = 0, omega = " << cli.str("omega") << "; " << ExecSpace::name() << " (concurrency "
            << exec.concurrency() << "), " << runs << " runs per point\n";
  Json variants = Json::array();
  Table summary({"variant", "workers", "subwarp", "time/update [us]", "ratio to sync", "residual at N", "status"});
  Table tol_table({"variant", "updates to tol", "time to tol [s]", "update time [s]", "status"});
  double sync_tpu = 0, sync_ttt = 0;
  bool all_ok = true;

  for (const JacobiMode mode : modes) {
    AsyncJacobiParams p = base;
    p.mode = mode;
    p.updates = updates;
    std::string vname = to_string(mode);
    if (mode == JacobiMode::Dynamic) vname += "(oscb " + std::to_string(launch.oversubscription) + ")";
    if (mode != JacobiMode::Sync && !p.fence) vname += " no-fence";
    Json jv = Json::object();
    jv["variant"] = vname;
    jv["mode"] = to_string(mode);
    for (int w = 0; w < warmup; ++w) run_once(p);

    // residual vs updates and vs time
    Json jc = Json::array();
    Table ct({"updates", "rel. residual median [min, max]", "time [s] median [min, max]", "time/update [us]"});
    Spread last_res, last_tpu;
    std::string last_status = "-";
    if (curve == "independent") {
      Progress prog(vname, static_cast<long long>(counts.size()) * runs);
      long long done = 0;
      for (int u : counts) {
        std::vector<double> res, t, tpu;
        for (int r = 0; r < runs; ++r) {
          p.updates = u;
          const auto st = run_once(p);
          res.push_back(st.final_residual);
          t.push_back(st.update_seconds);
          tpu.push_back(st.time_per_update * 1e6);
          last_status = to_string(st.status);
          all_ok = all_ok && !st.failed();
          prog.update(++done);
        }
        const Spread sr = spread(res), stt = spread(t), sp = spread(tpu);
        ct.row({std::to_string(u), show(sr, "%.3e"), show(stt, "%.4g"), fmt("%.4g", sp.median)});
        Json pt = Json::object();
        pt["updates"] = u;
        pt["residual"] = to_json(sr);
        pt["seconds"] = to_json(stt);
        pt["time_per_update_us"] = to_json(sp);
        jc.push_back(pt);
        last_res = sr;
        last_tpu = sp;
      }
    } else if (curve == "chunked") {
      // chunked: one run per repetition, checks every check_interval updates; histories aligned by index
      std::vector<std::vector<double>> res_by_check, t_by_check;
      std::vector<int> upd;
      std::vector<double> tpu, final_res;
      for (int r = 0; r < runs; ++r) {
        p.updates = updates;
        p.record_history = true;
        const auto st = run_once(p);
        if (st.update_history.size() > upd.size()) upd = st.update_history;
        res_by_check.resize(std::max(res_by_check.size(), st.residual_history.size()));
        t_by_check.resize(res_by_check.size());
        for (std::size_t k = 0; k < st.residual_history.size(); ++k) {
          res_by_check[k].push_back(st.residual_history[k]);
          t_by_check[k].push_back(st.time_history[k]);
        }
        tpu.push_back(st.time_per_update * 1e6);
        final_res.push_back(st.final_residual);
        last_status = to_string(st.status);
        all_ok = all_ok && !st.failed();
      }
      const std::size_t stride = std::max<std::size_t>(1, res_by_check.size() / 12);
      for (std::size_t k = 0; k < res_by_check.size(); ++k) {
        const Spread sr = spread(res_by_check[k]), stt = spread(t_by_check[k]);
        if (k % stride == 0 || k + 1 == res_by_check.size())
          ct.row({std::to_string(upd[k]), show(sr, "%.3e"), show(stt, "%.4g"), "-"});
        Json pt = Json::object();
        pt["updates"] = upd[k];
        pt["residual"] = to_json(sr);
        pt["seconds"] = to_json(stt);
        jc.push_back(pt);
      }
      last_res = spread(final_res);
      last_tpu = spread(tpu);
    }
    jv["curve"] = jc;
    jv["curve_method"] = curve;

    // time to tolerance
    if (tol > 0) {
      std::vector<double> t, tu, u, tpu;
      std::string status;
      for (int r = 0; r < runs; ++r) {
        p.updates = updates;
        p.tol = tol;
        p.record_history = false;
        const auto st = run_once(p);
        t.push_back(st.total_seconds);
        tu.push_back(st.update_seconds);
        u.push_back(st.updates_done);
        tpu.push_back(st.time_per_update * 1e6);
        status = to_string(st.status);
        if (curve == "none") last_status = status;
      }
      p.tol = 0;
      const Spread st = spread(t), stu = spread(tu), su = spread(u);
      if (curve == "none") last_tpu = spread(tpu);
      if (mode == JacobiMode::Sync) sync_ttt = st.median;
      tol_table.row(
          {vname, show(su, "%.0f"), show(st, "%.4g"), fmt("%.4g", stu.median),
           status + (sync_ttt > 0 && mode != JacobiMode::Sync ? fmt(" (%.2fx faster than sync)", sync_ttt / st.median)
                                                              : "")});
      Json jt = Json::object();
      jt["tol"] = tol;
      jt["updates"] = to_json(su);
      jt["seconds"] = to_json(st);
      jt["update_seconds"] = to_json(stu);
      jt["status"] = status;
      jv["time_to_tol"] = jt;
    }

    const AsyncJacobiStats probe = h.stats;  // launch and workers of the last measured run
    jv["launch"] = to_json(probe.launch);
    jv["workers"] = static_cast<long long>(probe.workers);
    jv["last_run"] = to_json(probe);
    jv["time_per_update_us"] = to_json(last_tpu);
    std::cout << "\n" << vname << "  (" << probe.launch.to_string() << ", workers " << probe.workers << ")\n";
    if (curve != "none") ct.print();
    if (mode == JacobiMode::Sync) sync_tpu = last_tpu.median;
    summary.row({vname, std::to_string(probe.workers), std::to_string(probe.launch.vector_length),
                 fmt("%.4g", last_tpu.median), sync_tpu > 0 ? fmt("%.2fx", sync_tpu / last_tpu.median) : "-",
                 curve == "none" ? "-" : fmt("%.3e", last_res.median), last_status});

    // value ages (and the overhead of logging them), time stamps
    if ((cli.flag_set("trace") || !cli.str("timestamps").empty()) && mode != JacobiMode::Sync) {
      p.updates = updates;
      p.tol = 0;
      p.record_history = false;
      std::vector<double> t_off, t_on;
      AsyncJacobiParams pt = p;
      pt.trace.value_age = true;
      pt.trace.midway = static_cast<int>(cli.integer("midway"));
      for (int r = 0; r < runs; ++r) {  // interleaved so that both see the same machine state
        t_off.push_back(run_once(p).update_seconds);
        t_on.push_back(run_once(pt).update_seconds);
      }
      const Spread so = spread(t_off), sn = spread(t_on);
      const double overhead = so.median > 0 ? sn.median / so.median - 1 : 0;
      std::cout << "\nvalue-age logging (" << vname << ", " << updates << " updates): run time "
                << fmt("%.4g", so.median) << " s without, " << fmt("%.4g", sn.median) << " s with logging, overhead "
                << fmt("%.1f %%", 100 * overhead) << "\n";
      Json ja = Json::object();
      ja["seconds_without"] = to_json(so);
      ja["seconds_with"] = to_json(sn);
      ja["overhead"] = overhead;
      const auto mid = to_std_vector(h.trace.age_mid());
      const auto fin = to_std_vector(h.trace.age_final());
      const auto grid = stencil_grid(spec);
      Json js = Json::array();
      for (int which = 0; which < 2; ++which) {
        const auto& ages = which == 0 ? mid : fin;
        const int own = which == 0 ? h.trace.midway() : updates - 1;
        const char* snap = which == 0 ? "midway" : "final";
        for (auto cls : {ConnectionClass::Degree, ConnectionClass::Offset}) {
          const auto S = summarize_value_ages(Ah, ages, own, snap, cls, grid);
          Table at({std::string(snap) + " (own update " + std::to_string(own) + ")", "count", "min", "q1", "median",
                    "q3", "max", "median - own"});
          for (const auto& s : S.by_type)
            at.row({s.label, std::to_string(s.count), fmt("%.0f", s.min), fmt("%.1f", s.q1), fmt("%.1f", s.median),
                    fmt("%.1f", s.q3), fmt("%.0f", s.max), fmt("%+.1f", s.relative_median)});
          const auto& s = S.all;
          at.row({"all", std::to_string(s.count), fmt("%.0f", s.min), fmt("%.1f", s.q1), fmt("%.1f", s.median),
                  fmt("%.1f", s.q3), fmt("%.0f", s.max), fmt("%+.1f", s.relative_median)});
          if (cls == ConnectionClass::Degree || !grid.empty()) {
            std::cout << "\n";
            at.print();
          }
          Json jj = AsyncSparse::to_json(S);
          jj["classification"] = cls == ConnectionClass::Degree ? "degree" : "offset";
          js.push_back(jj);
        }
      }
      ja["summaries"] = js;
      jv["value_age"] = ja;

      if (!cli.str("timestamps").empty()) {
        AsyncJacobiParams ps = p;
        ps.trace.timestamps = true;
        run_once(ps);
        const auto stamps = to_std_vector(h.trace.stamps());
        const auto wk = to_std_vector(h.trace.stamp_workers());
        const std::string file = cli.str("timestamps") + "." + to_string(mode) + ".csv";
        std::ofstream os(file);
        if (!os) throw Error("jacobi: cannot write '" + file + "'");
        std::uint64_t t0 = ~std::uint64_t(0);
        for (auto s : stamps) t0 = std::min(t0, s);
        os << "row,update,time_ns,worker\n";
        for (std::int64_t i = 0; i < h.trace.stamp_rows(); ++i)
          for (int k = 0; k < updates; ++k) {
            const std::size_t q = static_cast<std::size_t>(i) * updates + k;
            os << i << "," << k << "," << (stamps[q] - t0) << "," << wk[q] << "\n";
          }
        std::cout << "update schedule of rows 0.." << h.trace.stamp_rows() - 1 << " written to " << file << "\n";
        jv["timestamps_file"] = file;
      }
    }
    variants.push_back(jv);
  }
  std::cout << "\n";
  summary.print();
  if (tol > 0) {
    std::cout << "\ntime to relative residual " << cli.str("tol") << " (residual checked every " << base.check_interval
              << " updates; time includes the checks):\n";
    tol_table.print();
  }
  rec["variants"] = variants;
  if (!cli.str("json").empty()) rec.save(cli.str("json"));
  return all_ok ? 0 : 3;
}

Registrar reg("jacobi", "synchronous vs asynchronous Jacobi: residual vs updates/time, value ages", run_jacobi);

}  // namespace
}  // namespace Driver
}  // namespace AsyncSparse
