// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Synchronous vs asynchronous Jacobi (Tsai, Nayak, Chow & Anzt 2022) on the paper's problems: the 2D
// 5-point Laplacian (300^2, 1000^2, 2800^2) and the 3D 7-point Laplacian (100^3, 200^3), scaled to unit
// diagonal, b uniform in (-0.125, 0.125), x0 = 0, omega = 1 (small grids on host backends).
//
//   BM_async_jacobi_time_per_update/<problem>/<variant>   N updates per row in one run (N = 1000 at paper
//       scale, 100 small); manual time = the update kernels; counters: time per update (us), residual
//       after N, GB/s (one read of A and three vector passes per update: an effective rate — the static
//       mode keeps short rows in registers and reads A once per launch on GPUs; on host backends it sweeps a
//       block of rows per thread, exec/AsyncSparse_host_blocks.hpp), workers, subwarp, team_size,
//       max_updates_per_launch (the bound that applied, 0: none), kernel_launches and checks (residual checks) of
//       the last run (also in the time-to-tolerance benchmarks).
//   BM_async_jacobi_time_to_tol/<problem>/<variant>       time until the relative residual <= tol, checked
//       every `interval` updates (time includes the checks). The baseline is `sync` in the same binary run.
//       Default tolerances keep the synchronous run to a few seconds on an H100: 1e-6 for 300^2, 100^3 (and
//       the small problems), 1e-3 for 1000^2 and 200^3, 1e-2 for 2800^2 (synchronous Jacobi needs about
//       1.5M iterations for 1e-6 on 1000^2 and 12M on 2800^2 with this b). ASYNCSPARSE_JACOBI_TOL=<t>
//       overrides all of them (ASYNCSPARSE_JACOBI_MAX_UPDATES caps the updates: default 2e6 with it, the
//       problem's cap without).
//   BM_async_jacobi_trace_overhead/<problem>/<variant>    the same run without / with value-age logging /
//       with time stamps, interleaved; counters: overhead in percent, quartiles of the midway value age.
//
// Variants: sync (Algorithm 1), static_sw1 (Algorithm 2, subwarp 1, fence), static_sw1_nofence (no fence,
// plain loads: the paper's no-fence kernel), static_sw4, dynamic_oscbK (Algorithm 3, K = 1, 4, 8),
// dynamic_oscb4_atomic (atomic row counter): the paper's kernels, all updates of a run (or between two residual
// checks) in one launch; default: the library's defaults (JacobiMode::Auto, the launch rule
// default_max_updates_per_launch, the residual checks of the rule check_interval = 0 instead of the benchmark's
// fixed interval, the default launch), what a user who sets nothing gets.
#include "PerfHelpers.hpp"

#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi.hpp>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <random>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;

struct Variant {
  std::string name;
  JacobiMode mode;
  int subwarp, oscb;
  bool fence;
  LoadKind load;
  DynamicAssignment assignment;
};
const std::vector<Variant>& variants() {
  static const std::vector<Variant> v = {
      {"sync", JacobiMode::Sync, -1, 1, true, LoadKind::Relaxed, DynamicAssignment::Strided},
      {"static_sw1", JacobiMode::Static, 1, 1, true, LoadKind::Relaxed, DynamicAssignment::Strided},
      {"static_sw1_nofence", JacobiMode::Static, 1, 1, false, LoadKind::Plain, DynamicAssignment::Strided},
      {"static_sw4", JacobiMode::Static, 4, 1, true, LoadKind::Relaxed, DynamicAssignment::Strided},
      {"dynamic_oscb1", JacobiMode::Dynamic, 1, 1, true, LoadKind::Relaxed, DynamicAssignment::Strided},
      {"dynamic_oscb4", JacobiMode::Dynamic, 1, 4, true, LoadKind::Relaxed, DynamicAssignment::Strided},
      {"dynamic_oscb8", JacobiMode::Dynamic, 1, 8, true, LoadKind::Relaxed, DynamicAssignment::Strided},
      {"dynamic_oscb4_atomic", JacobiMode::Dynamic, 1, 4, true, LoadKind::Relaxed, DynamicAssignment::AtomicCounter},
      {"default", JacobiMode::Auto, -1, 1, true, LoadKind::Relaxed, DynamicAssignment::Auto},
  };
  return v;
}

struct Problem {
  std::string spec;    // generator
  double tol;          // time-to-tolerance target
  int max_updates;     // cap for the time-to-tolerance runs
  int check_interval;  // updates between residual checks
};
std::vector<Problem> problems() {
  if (paper_scale())
    return {{"gen:lap2d:300", 1e-6, 500000, 100},
            {"gen:lap2d:1000", 1e-3, 400000, 100},
            {"gen:lap2d:2800", 1e-2, 20000, 100},
            {"gen:lap3d7:100", 1e-6, 60000, 100},
            {"gen:lap3d7:200", 1e-3, 10000, 100}};
  return {{"gen:lap2d:64", 1e-6, 30000, 20}, {"gen:lap2d:128", 1e-4, 60000, 20}, {"gen:lap3d7:16", 1e-6, 3000, 20}};
}
Problem effective(Problem p) {
  // with ASYNCSPARSE_JACOBI_TOL the cap defaults to 2,000,000 updates, else to the problem's
  const bool tol = std::getenv("ASYNCSPARSE_JACOBI_TOL") != nullptr;
  p.tol = Test::env_number("ASYNCSPARSE_JACOBI_TOL", p.tol, 1e-300, 1.0);
  p.max_updates = static_cast<int>(Test::env_integer("ASYNCSPARSE_JACOBI_MAX_UPDATES", tol ? 2000000 : p.max_updates, 1,
                                                     std::numeric_limits<int>::max()));
  return p;
}
std::string short_name(const std::string& spec) { return spec.substr(4); }  // "lap2d:300"

/// Scaled matrix and b on the device, built once per problem.
using System = RelaxationSystem<Device>;
System& get_system(const std::string& spec) { return relaxation_system<Device>(spec); }

AsyncJacobiHandle<double, Device> make_handle(const Variant& v) {
  AsyncJacobiHandle<double, Device> h;
  h.params.mode = v.mode;
  h.params.fence = v.fence;
  h.params.load_kind = v.load;
  h.params.assignment = v.assignment;
  h.launch.vector_length = v.subwarp;
  h.launch.oversubscription = v.oscb;
  // the paper's kernels: one launch per run (or per residual check); the default variant: the library's rule
  if (v.mode != JacobiMode::Auto) h.params.max_updates_per_launch = std::numeric_limits<int>::max();
  return h;
}

const AsyncJacobiStats& run(AsyncJacobiHandle<double, Device>& h, System& s) {
  ExecSpace exec;
  Kokkos::deep_copy(exec, s.x, 0.0);
  if (!h.numeric_done()) {  // the first (warm-up) run of a handle: its set-up
    async_jacobi_symbolic(exec, h, s.A);
    async_jacobi_numeric(exec, h, s.A);
  }
  return async_jacobi_solve(exec, h, s.b, s.x);
}

/// Result of the synchronous variant of a (benchmark kind, problem), measured earlier in the same process
/// (the sync variants are registered first): the asynchronous variants report speedup_vs_sync from it.
std::map<std::string, double>& sync_results() {
  static std::map<std::string, double> m;
  return m;
}
void report_speedup(benchmark::State& state, const std::string& key, const Variant& v, double value) {
  if (v.mode == JacobiMode::Sync) {
    auto it = sync_results().find(key);
    sync_results()[key] = it == sync_results().end() ? value : std::min(it->second, value);
  } else if (sync_results().count(key) && value > 0) {
    state.counters["speedup_vs_sync"] = sync_results()[key] / value;
  }
}

void set_common(benchmark::State& state, const System& s, const AsyncJacobiStats& st) {
  set_matrix_counters(state, s.Ah);
  state.counters["workers"] = static_cast<double>(st.workers);
  state.counters["subwarp"] = st.launch.vector_length;
  state.counters["team_size"] = st.launch.team_size;
  // the bound on the updates per launch that applied (0: none) and the update kernels of the last run
  state.counters["max_updates_per_launch"] = st.max_updates_per_launch;
  state.counters["kernel_launches"] = st.kernel_launches;
  state.counters["checks"] = st.checks;
}

void BM_time_per_update(benchmark::State& state, Problem p, Variant v) {
  auto& s = get_system(p.spec);
  auto h = make_handle(v);
  h.params.updates = paper_scale() ? 1000 : 100;
  run(h, s);  // warm-up
  double res = 0, tpu = 0;
  for (auto _ : state) {
    const auto& st = run(h, s);
    state.SetIterationTime(st.update_seconds);
    res = st.final_residual;
    tpu += st.time_per_update;
  }
  const auto& st = h.stats;
  set_common(state, s, st);
  state.counters["updates"] = h.params.updates;
  state.counters["time_per_update_us"] = 1e6 * tpu / static_cast<double>(state.iterations());
  state.counters["residual"] = res;
  report_speedup(state, "tpu/" + p.spec, v, tpu / static_cast<double>(state.iterations()));
  state.counters["GB/s"] = benchmark::Counter(spmv_bytes(s.Ah.nrows, s.Ah.nnz()) * h.params.updates * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void BM_time_to_tol(benchmark::State& state, Problem p, Variant v) {
  p = effective(p);
  auto& s = get_system(p.spec);
  auto h = make_handle(v);
  h.params.updates = p.max_updates;
  h.params.tol = p.tol;
  // the paper's kernels: the benchmark's fixed interval; the default variant: the library's rule (0)
  h.params.check_interval = v.mode == JacobiMode::Auto ? 0 : p.check_interval;
  double t = 0;
  for (auto _ : state) {
    const auto& st = run(h, s);
    state.SetIterationTime(st.total_seconds);
    t += st.total_seconds;
  }
  const auto& st = h.stats;
  if (st.converged()) report_speedup(state, "tol/" + p.spec, v, t / static_cast<double>(state.iterations()));
  set_common(state, s, st);
  state.counters["tol"] = p.tol;
  state.counters["updates"] = st.updates_done;
  state.counters["residual"] = st.final_residual;
  state.counters["converged"] = st.converged() ? 1 : 0;
  state.counters["update_seconds"] = st.update_seconds;
  state.counters["check_seconds"] = st.check_seconds;
  state.counters["time_per_update_us"] = 1e6 * st.time_per_update;
  if (!st.converged()) state.SetLabel(std::string("not converged: ") + to_string(st.status));
}

void BM_trace_overhead(benchmark::State& state, Problem p, Variant v) {
  auto& s = get_system(p.spec);
  auto off = make_handle(v), age = make_handle(v), stamps = make_handle(v);
  const int updates = paper_scale() ? 1000 : 200;
  off.params.updates = age.params.updates = stamps.params.updates = updates;
  age.params.trace.value_age = true;
  stamps.params.trace.timestamps = true;
  run(off, s);
  run(age, s);
  run(stamps, s);
  std::vector<double> t_off, t_age, t_st;
  for (auto _ : state) {
    t_off.push_back(run(off, s).update_seconds);
    t_age.push_back(run(age, s).update_seconds);
    t_st.push_back(run(stamps, s).update_seconds);
    state.SetIterationTime(t_off.back());
  }
  const double mo = median(t_off);
  set_common(state, s, off.stats);
  state.counters["updates"] = updates;
  state.counters["overhead_value_age_pct"] = mo > 0 ? 100 * (median(t_age) / mo - 1) : 0;
  state.counters["overhead_timestamps_pct"] = mo > 0 ? 100 * (median(t_st) / mo - 1) : 0;
  const auto mid = to_std_vector(age.trace.age_mid());
  const auto S = summarize_value_ages(s.Ah, mid, age.trace.midway(), "midway", ConnectionClass::Degree);
  state.counters["midway_update"] = age.trace.midway();
  state.counters["midway_age_q1"] = S.all.q1;
  state.counters["midway_age_median"] = S.all.median;
  state.counters["midway_age_q3"] = S.all.q3;
}

int register_all() {
  check_settings([] {
    for (const auto& p : problems()) effective(p);
  });
  for (const auto& p : problems()) {
    const std::string pn = short_name(p.spec);
    for (const auto& v : variants())
      benchmark::RegisterBenchmark(("BM_async_jacobi_time_per_update/" + pn + "/" + v.name).c_str(), BM_time_per_update,
                                   p, v)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(5);
    // time to tolerance: every variant, 3 repetitions, on the first (smallest) problem; on the larger ones (tens of
    // seconds per run at paper scale) one run of the variants the comparison needs: sync, the default, the static
    // kernel with and without fence, the best dynamic one
    const bool first_problem = pn == short_name(problems().front().spec);
    for (const auto& v : variants()) {
      if (!first_problem && v.name != "sync" && v.name != "static_sw1" && v.name != "static_sw1_nofence" &&
          v.name != "dynamic_oscb8" && v.name != "default")
        continue;
      auto* b = benchmark::RegisterBenchmark(("BM_async_jacobi_time_to_tol/" + pn + "/" + v.name).c_str(),
                                             BM_time_to_tol, p, v)
                    ->UseManualTime()
                    ->Unit(benchmark::kMillisecond)
                    ->Iterations(1);
      if (first_problem) b->Repetitions(3)->ReportAggregatesOnly(true);
    }
  }
  // value-age logging overhead on the paper's 300^2 grid (64^2 on host backends)
  const Problem tp{paper_scale() ? "gen:lap2d:300" : "gen:lap2d:64", 0, 0, 0};
  for (const auto& v : variants()) {
    if (v.mode == JacobiMode::Sync || v.mode == JacobiMode::Auto || v.name == "static_sw4" ||
        v.name == "dynamic_oscb4_atomic")
      continue;
    benchmark::RegisterBenchmark(("BM_async_jacobi_trace_overhead/" + short_name(tp.spec) + "/" + v.name).c_str(),
                                 BM_trace_overhead, tp, v)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(paper_scale() ? 20 : 10);
  }
  return 0;
}
const int registered = register_all();

}  // namespace
