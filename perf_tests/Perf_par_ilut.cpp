// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One ParILUT / ParICT step and its phases (candidates, the sweeps, threshold selection, removal) versus one
// Kokkos-Kernels spmv on the same matrix, measured in the same run: the slides' "runtime breakdown". The step
// is timed after three warm-up steps (the pattern has settled by then, as in the slides' tables); default
// parameters (fill_in_limit 1, exact SampleSelect, asynchronous sweeps). L2D / L3D in natural order, the
// SuiteSparse matrices RCM-ordered (DESIGN.md).
//
// Run e.g.  AsyncSparse_Perf_par_ilut --benchmark_filter=L2D --benchmark_out=par_ilut.json
#include "PerfHelpers.hpp"

#include <KokkosSparse_spmv.hpp>

#include <string>

#include <asyncsparse/core/AsyncSparse_rcm.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut.hpp>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;

CsrHost<double> ordered(const std::string& name) {
  const auto& A = host_matrix(name);
  if (name == "L2D" || name == "L3D" || name.rfind("gen:", 0) == 0) return A;
  return permute_symmetric(A, rcm_permutation(A));
}

void BM_par_ilut_step(benchmark::State& state, const std::string& name, bool ict, ThresholdSelection sel) {
  const auto Ah = ordered(name);
  auto A = to_device<Device>(Ah);
  const ExecSpace exec;
  ParIlutHandle<double, Device> h(ict ? ParIlutKind::Ict : ParIlutKind::Ilut);
  h.params.selection = sel;
  h.params.compute_residual = false;
  h.params.max_steps = 0;  // the initial guess; the steps one at a time below
  try {
    par_ilut_symbolic(exec, h, A);
    par_ilut_numeric(exec, h, A);
    for (int s = 0; s < 3; ++s) par_ilut_step(exec, h);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  double cand = 0, sweep = 0, select = 0, remove = 0;
  std::int64_t steps = 0, sweeps = 0;
  for (auto _ : state) {
    try {
      state.SetIterationTime(timed([&] { par_ilut_step(exec, h); }));
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
    const auto& ss = h.stats().steps.back();
    cand += ss.candidates_seconds;
    sweep += ss.sweep_seconds;
    select += ss.select_seconds;
    remove += ss.remove_seconds;
    sweeps += ss.sweeps;
    ++steps;
  }
  // spmv baseline on the same matrix
  Kokkos::View<double*, Device> x("x", Ah.ncols), y("y", Ah.nrows);
  Kokkos::deep_copy(x, 1.0);
  KokkosSparse::spmv("N", 1.0, A, x, 0.0, y);
  const int reps = 20;
  const double spmv = timed([&] {
                        for (int r = 0; r < reps; ++r) KokkosSparse::spmv("N", 1.0, A, x, 0.0, y);
                      }) /
                      reps;
  const auto& last = h.stats().steps.back();
  const double step = (cand + sweep + select + remove) / std::max<std::int64_t>(1, steps);
  set_matrix_counters(state, Ah);
  state.counters["nnz_L"] = last.nnz_L;
  state.counters["nnz_U"] = last.nnz_U;
  state.counters["candidates_ms"] = 1e3 * cand / std::max<std::int64_t>(1, steps);
  state.counters["sweeps_ms"] = 1e3 * sweep / std::max<std::int64_t>(1, steps);
  state.counters["select_ms"] = 1e3 * select / std::max<std::int64_t>(1, steps);
  state.counters["remove_ms"] = 1e3 * remove / std::max<std::int64_t>(1, steps);
  state.counters["spmv_ms"] = 1e3 * spmv;
  state.counters["step_over_spmv"] = step / spmv;
  state.counters["sweeps_per_step"] =
      static_cast<double>(sweeps) / static_cast<double>(std::max<std::int64_t>(1, steps));
  state.counters["initial_sweeps"] = h.stats().steps.front().sweeps;
  state.counters["pivots_replaced"] = static_cast<double>(last.pivots_replaced);
  state.counters["team_size"] = h.stats().launch.team_size;
  state.counters["vector_length"] = h.stats().launch.vector_length;
  state.counters["select_levels"] = h.stats().last_select.levels;
}

int register_all() {
  // the hard classes of issue 19: rotated anisotropic diffusion, upwinded convection-diffusion, a Trefethen matrix
  const std::vector<std::string> ilut = {"L2D",      "L3D",  "bcsstk16", "bcsstk18", "bodyy4", "fv1", "cryg2500",
                                         "gen:aniso2d:256:1e-3:30", "gen:convdiff2d:256:10", "gen:trefethen:20000"};
  const std::vector<std::string> ict = {"L2D", "L3D", "bcsstk16", "bodyy4", "fv1", "gen:aniso2d:256:1e-3:30"};
  for (const auto& m : ilut)
    for (auto sel : {ThresholdSelection::Exact, ThresholdSelection::Approximate})
      benchmark::RegisterBenchmark(("par_ilut_step/" + m + "/" + to_string(sel)).c_str(),
                                   [m, sel](benchmark::State& s) { BM_par_ilut_step(s, m, false, sel); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
  for (const auto& m : ict)
    for (auto sel : {ThresholdSelection::Exact, ThresholdSelection::Approximate})
      benchmark::RegisterBenchmark(("par_ict_step/" + m + "/" + to_string(sel)).c_str(),
                                   [m, sel](benchmark::State& s) { BM_par_ilut_step(s, m, true, sel); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
  return 0;
}
const int registered = register_all();

}  // namespace
