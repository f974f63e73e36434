// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What asynchrony buys on a CPU: time to a tolerance of the synchronous and asynchronous relaxations on the host
// execution space (Kokkos::DefaultHostExecutionSpace: OpenMP in OpenMP and CUDA builds), on an idle machine and
// with a competing CPU load that the benchmark itself starts and stops.
//
//   BM_host_time_to_tol/<problem>/<method>/<idle|loaded>
//       x0 = 0, b uniform in (-0.125, 0.125), A scaled to unit diagonal (as Perf_async_jacobi), until
//       ||b - A x|| / ||b|| <= 1e-6, residual checked every 100 updates (1000 at paper scale; block methods: every
//       20 / 200 global iterations of 5 local sweeps). Methods:
//         jacobi_sync      synchronous Jacobi (JacobiMode::Sync)
//         jacobi_static    asynchronous Jacobi, static assignment: one block of rows per thread, swept in place
//                          (exec/AsyncSparse_host_blocks.hpp)
//         jacobi_dynamic   asynchronous Jacobi, dynamic assignment (row blocks from an atomic counter)
//         block_sync       block-Jacobi with 5 local sweeps per block (async-(5) in its deterministic mode)
//         block_async      async-(5) with its default launch (Auto: fused on host backends, each thread a range of
//                          blocks rebalanced between launches, no barrier between global iterations)
//         block_async_per_iteration  async-(5), one parallel region per global iteration (the GPU default)
//       "loaded": a thread spinning on arithmetic, pinned to the last core the benchmark's thread may run on (core 0
//       when OpenMP binds its threads: the master thread's core), runs for the whole measurement (PerfHelpers.hpp,
//       CompetingLoad; it stops itself after 10 minutes at the latest).
//       Each benchmark runs the method ASYNCSPARSE_HOST_ASYNC_RUNS times (default 3; each loaded run with a load of
//       its own) after a short warm-up run, and reports the median run. Counters: runs, seconds (the median),
//       seconds_min, seconds_max, updates and residual of the median run (Jacobi: updates per row; block methods:
//       global iterations x 5 local sweeps), converged (every run), threads; slowdown_under_load (loaded: median
//       time / the median idle time of the same method, measured just before). Idle asynchronous methods run each
//       of their runs paired with a run of the synchronous method of the same family, right after it (right before
//       it in the 2nd, 4th, ... pair): speedup_vs_sync = the median over the pairs of sync time / async time, with
//       speedup_vs_sync_min / _max, sync_seconds (the median of the paired synchronous runs), sync_converged (every
//       paired synchronous run) and speedup_vs_sync_unpaired (the synchronous benchmark's median / this median).
//       Each run prints its time (and its paired run's) on stderr.
//
//   BM_host_factor/<problem>/<kk_spiluk|par_ic_5sweeps|par_ic_5sweeps_static>/<idle|loaded>
//       The incomplete Cholesky factorization IC(0) of A, idle and under the same competing load: par_ic_5sweeps =
//       5 asynchronous ParIC sweeps with the defaults (the time of the sweeps alone, without the scaling and the
//       initial guess of the numeric phase, as Perf_par_ilu's BM_par_ic_5sweeps), par_ic_5sweeps_static the same
//       with the static chunk schedule (LaunchConfig::schedule; the default on host backends is dynamic),
//       kk_spiluk = Kokkos-Kernels spiluk(0) numeric (level-scheduled). Median of 5 runs (spiluk: 3). Counters:
//       seconds, slowdown_under_load, and for ParIC speedup_vs_spiluk (spiluk's time in the same state, idle or
//       loaded / ParIC's; absent when a filter leaves spiluk out). Problem: gen:lap2d:1024 at paper scale, else
//       gen:lap2d:256.
//
// Problem: gen:lap2d:300 (ASYNCSPARSE_PERF_SCALE=paper) or gen:lap2d:150 (default on host backends, a few
// seconds per run); ASYNCSPARSE_HOST_ASYNC_PROBLEMS="gen:...;gen:..." replaces the list (e.g. convdiff2d).
// Run with OMP_NUM_THREADS = the number of cores, e.g.
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=true OMP_PLACES=threads ASYNCSPARSE_PERF_SCALE=paper AsyncSparse_Perf_host_async
// (bound threads: unbound, the OS moves them between the cores and the static mapping's rebalanced blocks lose).
#include "PerfHelpers.hpp"

#include <asyncsparse/factorization/AsyncSparse_cusparse_baseline.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi.hpp>
#include <asyncsparse/relaxation/AsyncSparse_block_async.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;
using HostExec = Kokkos::DefaultHostExecutionSpace;
using HostDevice = HostExec::device_type;

constexpr double kTol = 1e-6;

std::vector<std::string> problems() {
  if (const char* env = std::getenv("ASYNCSPARSE_HOST_ASYNC_PROBLEMS")) {
    std::vector<std::string> v;
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ';'))
      if (!item.empty()) v.push_back(item);
    return v;
  }
  return {paper_scale() ? "gen:lap2d:300" : "gen:lap2d:150"};
}

/// Updates between residual checks: 100 on the small problem, 1000 on gen:lap2d:300 (synchronous Jacobi needs about
/// 166,000 there; a check is a synchronous kernel, which a competing load slows down like the synchronous method).
int check_interval() { return paper_scale() ? 1000 : 100; }

using System = RelaxationSystem<HostDevice>;
System& get_system(const std::string& spec) { return relaxation_system<HostDevice>(spec); }

struct Outcome {
  double seconds = 0, residual = 0;
  long long updates = 0;
  bool converged = false;
};

/// `warm_up`: a short run (first touch of the workspace, thread start-up), not to the tolerance.
Outcome run_jacobi(System& s, JacobiMode mode, bool warm_up) {
  AsyncJacobiHandle<double, HostDevice> h;
  h.params.mode = mode;
  h.params.updates = warm_up ? check_interval() : 2000000;
  h.params.tol = warm_up ? 0.0 : kTol;
  h.params.check_interval = check_interval();
  HostExec exec;
  Kokkos::deep_copy(exec, s.x, 0.0);
  async_jacobi_symbolic(exec, h, s.A);
  async_jacobi_numeric(exec, h, s.A);
  const auto& st = async_jacobi_solve(exec, h, s.b, s.x);
  return {st.total_seconds, st.final_residual, st.updates_done, st.converged()};
}

Outcome run_block(System& s, bool deterministic, BlockAsyncLaunchMode mode, bool warm_up) {
  BlockAsyncParams p;
  p.deterministic = deterministic;
  p.launch_mode = mode;
  p.tol = kTol;
  p.global_iters_per_launch = check_interval() / p.local_iters;  // residual checked every check_interval() updates
  p.max_global_iters = warm_up ? p.global_iters_per_launch : 1000000;
  p.record_history = false;
  BlockAsyncHandle<double, HostDevice> h(p);
  HostExec exec;
  Kokkos::deep_copy(exec, s.x, 0.0);
  block_async_symbolic(exec, h, s.A);
  block_async_numeric(exec, h, s.A);
  const RelaxationResult r = block_async_solve(exec, h, s.b, s.x);
  return {r.seconds, r.final_residual, static_cast<long long>(r.iterations) * p.local_iters, r.converged()};
}

enum class Method { JacobiSync, JacobiStatic, JacobiDynamic, BlockSync, BlockAsync, BlockAsyncPerIteration };
struct MethodInfo {
  Method m;
  const char* name;
  Method sync;  // the synchronous method of the same family
};
const std::vector<MethodInfo>& methods() {
  static const std::vector<MethodInfo> v = {
      {Method::JacobiSync, "jacobi_sync", Method::JacobiSync},
      {Method::JacobiStatic, "jacobi_static", Method::JacobiSync},
      {Method::JacobiDynamic, "jacobi_dynamic", Method::JacobiSync},
      {Method::BlockSync, "block_sync", Method::BlockSync},
      {Method::BlockAsync, "block_async", Method::BlockSync},
      {Method::BlockAsyncPerIteration, "block_async_per_iteration", Method::BlockSync},
  };
  return v;
}

Outcome run(System& s, Method m, bool warm_up = false) {
  switch (m) {
    case Method::JacobiSync:
      return run_jacobi(s, JacobiMode::Sync, warm_up);
    case Method::JacobiStatic:
      return run_jacobi(s, JacobiMode::Static, warm_up);
    case Method::JacobiDynamic:
      return run_jacobi(s, JacobiMode::Dynamic, warm_up);
    case Method::BlockSync:
      return run_block(s, true, BlockAsyncLaunchMode::PerIteration, warm_up);
    case Method::BlockAsync:
      return run_block(s, false, BlockAsyncLaunchMode::Auto, warm_up);
    case Method::BlockAsyncPerIteration:
      return run_block(s, false, BlockAsyncLaunchMode::PerIteration, warm_up);
  }
  return {};
}

/// Measured runs per benchmark of BM_host_time_to_tol (the median is reported): ASYNCSPARSE_HOST_ASYNC_RUNS, default 3.
int runs_per_state() {
  static const int runs = static_cast<int>(Test::env_integer("ASYNCSPARSE_HOST_ASYNC_RUNS", 3, 1, 1000));
  return runs;
}

/// Idle times measured earlier in this process, by problem and method (the idle benchmark of a method is
/// registered right before its loaded one; the synchronous methods before the asynchronous ones).
std::map<std::string, double>& idle_times() {
  static std::map<std::string, double> m;
  return m;
}

void BM_host_time_to_tol(benchmark::State& state, const std::string& spec, MethodInfo mi, bool loaded) {
  auto& s = get_system(spec);
  // idle asynchronous methods: each run is paired with a run of the synchronous method right before or after it
  const bool paired = !loaded && mi.m != mi.sync;
  const char* sync_name = methods()[static_cast<int>(mi.sync)].name;
  run(s, mi.m, true);  // warm-up: first touch of the workspace, thread start-up
  if (paired) run(s, mi.sync, true);
  std::vector<Outcome> all;
  std::vector<double> pair_ratios, pair_sync;
  // every paired synchronous run converged (a ratio against a run stopped by its limit means nothing)
  bool sync_converged = true;
  int core = -1;
  for (auto _ : state) {
    all.clear();
    pair_ratios.clear();
    pair_sync.clear();
    sync_converged = true;
    for (int r = 0; r < runs_per_state(); ++r) {
      std::unique_ptr<CompetingLoad> load;
      if (loaded) load.reset(new CompetingLoad(600.0));
      // the order alternates (the synchronous run first in the 2nd, 4th, ... pair: r odd), so that neither method
      // always runs second
      Outcome sync_run;
      if (paired && r % 2 == 1) sync_run = run(s, mi.sync);
      all.push_back(run(s, mi.m));
      if (paired) {
        if (r % 2 == 0) sync_run = run(s, mi.sync);
        sync_converged = sync_converged && sync_run.converged;
        pair_sync.push_back(sync_run.seconds);
        if (all.back().seconds > 0) pair_ratios.push_back(sync_run.seconds / all.back().seconds);
      }
      if (load) {
        core = load->core();
        load->stop();
      }
      // progress on stderr, one line per run (a run takes up to a minute at paper scale)
      std::fprintf(stderr, "  %s/%s/%s run %d of %d: %.2f s%s", spec.c_str(), mi.name, loaded ? "loaded" : "idle",
                   r + 1, runs_per_state(), all.back().seconds, paired ? "" : "\n");
      if (paired)
        std::fprintf(stderr, ", %s %.2f s (%s)\n", sync_name, pair_sync.back(), r % 2 == 1 ? "before" : "after");
    }
    std::sort(all.begin(), all.end(), [](const Outcome& a, const Outcome& b) { return a.seconds < b.seconds; });
    state.SetIterationTime(all[all.size() / 2].seconds);
  }
  if (all.empty()) return;
  const Outcome& o = all[all.size() / 2];  // the median run by time (an even count: the upper of the middle two)
  bool converged = true;
  for (const auto& a : all) converged = converged && a.converged;
  set_matrix_counters(state, s.Ah);
  state.counters["threads"] = HostExec().concurrency();
  state.counters["runs"] = static_cast<double>(all.size());
  state.counters["seconds"] = o.seconds;
  state.counters["seconds_min"] = all.front().seconds;
  state.counters["seconds_max"] = all.back().seconds;
  state.counters["updates"] = static_cast<double>(o.updates);
  state.counters["residual"] = o.residual;
  state.counters["converged"] = converged ? 1 : 0;
  if (!converged) state.SetLabel("not converged");
  if (paired) {
    state.counters["sync_converged"] = sync_converged ? 1 : 0;
    if (!sync_converged) state.SetLabel(converged ? "paired synchronous run not converged" : "not converged");
  }
  const std::string key = spec + "/" + mi.name;
  if (!loaded) {
    idle_times()[key] = o.seconds;
    if (!pair_ratios.empty()) {
      // the median of the pairs' ratios: a host whose speed drifts between benchmarks (other tenants of a shared
      // machine: the synchronous method's median moved from 31.8 s to 43.5 s within an hour on the 2-core host)
      // shifts both runs of a pair alike
      const auto range = std::minmax_element(pair_ratios.begin(), pair_ratios.end());
      state.counters["speedup_vs_sync"] = median(pair_ratios);
      state.counters["speedup_vs_sync_min"] = *range.first;
      state.counters["speedup_vs_sync_max"] = *range.second;
      state.counters["sync_seconds"] = median(pair_sync);
      const auto it = idle_times().find(spec + "/" + sync_name);
      if (it != idle_times().end() && o.seconds > 0)
        state.counters["speedup_vs_sync_unpaired"] = it->second / o.seconds;
    }
  } else {
    state.counters["load_core"] = core;
    const auto it = idle_times().find(key);
    if (it != idle_times().end() && it->second > 0) state.counters["slowdown_under_load"] = o.seconds / it->second;
  }
}

// ---- the factorizations' numeric phases, idle and loaded ----

enum class Factor { KkSpiluk, ParIc5, ParIc5Static };

const char* factor_name(Factor f) {
  return f == Factor::KkSpiluk ? "kk_spiluk" : f == Factor::ParIc5 ? "par_ic_5sweeps" : "par_ic_5sweeps_static";
}

/// Median time of the numeric phase of `f` on A (the symbolic phase and a warm-up run are not timed).
double time_factor(System& s, Factor f) {
  HostExec exec;
  std::vector<double> t;
  if (f != Factor::KkSpiluk) {
    ParIluHandle<double, HostDevice> h(ParIluKind::Ic);
    h.params.sweeps = 5;
    if (f == Factor::ParIc5Static) h.launch.schedule = ChunkSchedule::Static;
    par_ilu_symbolic(exec, h, s.A);
    par_ilu_numeric(exec, h, s.A);
    for (int r = 0; r < 5; ++r) {
      par_ilu_numeric(exec, h, s.A);
      t.push_back(h.stats().sweep_seconds);
    }
  } else {
    KkSpiluk<double, HostDevice> kk;
    kk.symbolic(s.A, 0);
    kk.numeric(s.A);
    for (int r = 0; r < 3; ++r) t.push_back(kk.numeric(s.A));
  }
  return median(t);
}

/// Times measured earlier in this process, by "problem/method/state".
std::map<std::string, double>& factor_times() {
  static std::map<std::string, double> m;
  return m;
}

void BM_host_factor(benchmark::State& state, const std::string& spec, Factor f, bool loaded) {
  auto& s = get_system(spec);
  const std::string name = factor_name(f);
  double t = 0;
  int core = -1;
  for (auto _ : state) {
    std::unique_ptr<CompetingLoad> load;
    if (loaded) load.reset(new CompetingLoad(600.0));
    t = time_factor(s, f);
    if (load) {
      core = load->core();
      load->stop();
    }
    state.SetIterationTime(t);
  }
  set_matrix_counters(state, s.Ah);
  state.counters["threads"] = HostExec().concurrency();
  state.counters["seconds"] = t;
  const char* st = loaded ? "loaded" : "idle";
  factor_times()[spec + "/" + name + "/" + st] = t;
  if (loaded) {
    state.counters["load_core"] = core;
    const auto it = factor_times().find(spec + "/" + name + "/idle");
    if (it != factor_times().end() && it->second > 0) state.counters["slowdown_under_load"] = t / it->second;
  }
  if (f != Factor::KkSpiluk) {
    const auto it = factor_times().find(spec + "/kk_spiluk/" + st);
    if (it != factor_times().end() && t > 0) state.counters["speedup_vs_spiluk"] = it->second / t;
  }
}

int register_all() {
  check_settings([] { runs_per_state(); });
  const std::string fspec = paper_scale() ? "gen:lap2d:1024" : "gen:lap2d:256";
  for (Factor f : {Factor::KkSpiluk, Factor::ParIc5, Factor::ParIc5Static})  // spiluk first: ParIC's ratio uses it
    for (bool loaded : {false, true})
      benchmark::RegisterBenchmark(
          ("BM_host_factor/" + fspec.substr(4) + "/" + factor_name(f) + (loaded ? "/loaded" : "/idle")).c_str(),
          BM_host_factor, fspec, f, loaded)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
  for (const auto& spec : problems())
    for (const auto& mi : methods())
      for (bool loaded : {false, true})
        benchmark::RegisterBenchmark(
            ("BM_host_time_to_tol/" + spec.substr(4) + "/" + mi.name + (loaded ? "/loaded" : "/idle")).c_str(),
            BM_host_time_to_tol, spec, mi, loaded)
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond)
            ->Iterations(1);
  return 0;
}
const int registered = register_all();

}  // namespace
