// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One ParILUT / ParICT step and its phases (candidates, the sweeps, threshold selection, removal) versus one
// Kokkos-Kernels spmv on the same matrix, measured in the same run: the slides' "runtime breakdown". The step
// is timed after three warm-up steps (the pattern has settled by then, as in the slides' tables); default
// parameters (fill_in_limit 1, exact SampleSelect, asynchronous sweeps). L2D / L3D in natural order, the
// SuiteSparse matrices RCM-ordered (DESIGN.md).
//
// Built against Kokkos-Kernels >= 4.6.01, BM_par_ilut_5steps/<matrix> runs AsyncSparse's ParILUT (symbolic + numeric,
// default parameters: 5 steps, fill_in_limit 1; after one warm-up run of each) and Kokkos-Kernels' par_ilut (5 steps,
// fill_in_limit 1, the same fill definition; KkParIlut) on the same matrix in the same run, and GMRES(30) to 1e-6 (b =
// ones, x0 = 0) with each pair of factors applied by exact triangular solves. Counters: asyncsparse_ms, kk_par_ilut_ms,
// speedup_vs_kk_par_ilut (= kk / asyncsparse), nnz of both factorizations, gmres_iterations /
// kk_gmres_iterations (-1: not converged in 2,000 iterations or 30 s) with the relative residuals reached.
// Kokkos-Kernels keeps ties at its threshold and can end above the budget; at_kk_fill* repeat AsyncSparse's run at the
// fill Kokkos-Kernels reached.
//
// par_il*_step/<matrix>/exact_entry_sweeps, exact_list_sweeps and exact_row_team_sweeps force the sweep kernel
// (Params::sweep_kernel) of every sweep (the default: the rule ilut_sweep_kernel, counter list_sweeps / row_team_sweeps
// 1 where the step's last sweep used the list / row-team kernel; products_per_entry: its lists' products per factor
// entry).
// par_il*_step/<matrix>/exact_sampleselect, exact_team_select and exact_bucket_select take the threshold by
// SampleSelect alone (Params::team_select_max = 0, bucket_select_max = 0), by the one-team select at every size (2^20)
// and by one SampleSelect level finished on the device at every size (team_select_max = 0, bucket_select_max = 2^40)
// against the default rule; exact_no_bucket_select is the default rule without the latter (bucket_select_max = 0);
// counters select_magnitudes_L / _U: the magnitudes the step's selection ranked per factor (the rules' input).
// par_il*_reuse/<matrix>/<auto|entry|list|row_team> time a pattern-reusing numeric phase with each sweep kernel.
// par_il*_sweep/<matrix>/lanes<k> time one sweep with k lanes per entry (lanes_default: the default rule).
// par_ilut_candidates/<matrix> and par_ict_candidates/<matrix> time the candidate phase alone with the bitmap and
// the sort kernel (Params::candidate_kernel) on the same factors, in the same run.
//
// Run e.g.  AsyncSparse_Perf_par_ilut --benchmark_filter=L2D --benchmark_out=par_ilut.json
#include "PerfHelpers.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_rcm.hpp>
#include <asyncsparse/factorization/AsyncSparse_kk_par_ilut.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#if ASYNCSPARSE_HAVE_KK_PAR_ILUT
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>
#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>
#endif

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;

CsrHost<double> ordered(const std::string& name) {
  const auto& A = host_matrix(name);
  if (name == "L2D" || name == "L3D" || name.rfind("gen:", 0) == 0) return A;
  return permute_symmetric(A, rcm_permutation(A));
}

void BM_par_ilut_step(benchmark::State& state, const std::string& name, bool ict, ThresholdSelection sel,
                      std::int64_t team_select_max = -1, ParIlutSweepKernel kernel = ParIlutSweepKernel::Auto,
                      std::int64_t bucket_select_max = -1) {
  const auto Ah = ordered(name);
  auto A = to_device<Device>(Ah);
  const ExecSpace exec;
  ParIlutHandle<double, Device> h(ict ? ParIlutKind::Ict : ParIlutKind::Ilut);
  h.params.selection = sel;
  h.params.team_select_max = team_select_max;
  h.params.bucket_select_max = bucket_select_max;
  h.params.sweep_kernel = kernel;
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
  std::int64_t steps = 0, sweeps = 0, allocations = 0;
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
    allocations += ss.workspace_allocations;
    ++steps;
  }
  // spmv baseline on the same matrix
  Kokkos::View<double*, Device> x("x", Ah.ncols), y("y", Ah.nrows);
  Kokkos::deep_copy(x, 1.0);
  Blas<double, Device>::spmv(1.0, A, x, 0.0, y);
  const int reps = 20;
  const double spmv = timed([&] {
                        for (int r = 0; r < reps; ++r) Blas<double, Device>::spmv(1.0, A, x, 0.0, y);
                      }) /
                      reps;
  const auto& last = h.stats().steps.back();
  // magnitudes the last step's selections ranked: the off-diagonal entries of the enlarged factors
  const auto& before = h.stats().steps[h.stats().steps.size() - 2];
  state.counters["select_magnitudes_L"] = static_cast<double>(before.nnz_L + last.candidates_L - Ah.nrows);
  if (!ict) state.counters["select_magnitudes_U"] = static_cast<double>(before.nnz_U + last.candidates_U - Ah.nrows);
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
  state.counters["list_sweeps"] = h.stats().sweep_kernel == ParIlutSweepKernel::List ? 1 : 0;
  state.counters["row_team_sweeps"] = h.stats().sweep_kernel == ParIlutSweepKernel::RowTeam ? 1 : 0;
  state.counters["products_per_entry"] =
      static_cast<double>(h.stats().sweep_products) /
      static_cast<double>(std::max<std::int64_t>(1, last.nnz_L + (ict ? 0 : last.nnz_U)));
  state.counters["team_size"] = h.stats().launch.team_size;
  state.counters["vector_length"] = h.stats().launch.vector_length;
  state.counters["exact_stretches"] = h.stats().sweep_exact_stretches ? 1 : 0;
  state.counters["select_levels"] = h.stats().last_select.levels;
  // device buffers a timed step allocated (its working arrays are pooled in the handle)
  state.counters["allocations_per_step"] =
      static_cast<double>(allocations) / static_cast<double>(std::max<std::int64_t>(1, steps));
  state.counters["workspace_MB"] = static_cast<double>(h.state().work.stats().bytes) / 1e6;
  state.counters["workspace_peak_in_use_MB"] = static_cast<double>(h.state().work.stats().peak_bytes_in_use) / 1e6;
}

/// The candidate phase alone with each kernel (CandidateKernel::Bitmap and Sort, alternately, on the same factors:
/// those after three default steps). Counters: bitmap_ms (-1: a row's span does not fit), sort_ms, speedup_vs_sort,
/// auto_bitmap (1: the Auto rule picks the bitmap kernel), gathered_per_row (what the rule looks at), span_columns
/// (widest row of the candidate pattern), pattern_nnz (entries of the enlarged factors). Timed: the bitmap kernel
/// where it fits.
/// Symbolic and numeric phase with three default steps (no final residual) on A; false, with the benchmark skipped,
/// when they throw.
bool three_steps(benchmark::State& state, ParIlutHandle<double, Device>& h, const Crs<double, Device>& A) {
  h.params.compute_residual = false;
  h.params.max_steps = 3;
  try {
    par_ilut_symbolic(ExecSpace(), h, A);
    par_ilut_numeric(ExecSpace(), h, A);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return false;
  }
  return true;
}

void BM_par_ilut_candidates(benchmark::State& state, const std::string& name, bool ict) {
  const auto Ah = ordered(name);
  auto A = to_device<Device>(Ah);
  const ExecSpace exec;
  ParIlutHandle<double, Device> h(ict ? ParIlutKind::Ict : ParIlutKind::Ilut);
  if (!three_steps(state, h, A)) return;
  offset_t pattern_nnz = 0;
  try {
    const auto c = Impl::ilut_any_candidates(exec, h);  // Auto
    pattern_nnz = c.L.nnz + (ict ? 0 : c.U.nnz);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const bool auto_bitmap = h.stats().candidate_kernel == CandidateKernel::Bitmap;
  const double span = 32.0 * static_cast<double>(h.stats().candidate_span_words);
  const double gathered = h.stats().candidate_gathered_per_row;
  bool fits = true;  // the bitmap kernel takes every row's span
  try {
    h.params.candidate_kernel = CandidateKernel::Bitmap;
    Impl::ilut_any_candidates(exec, h);
  } catch (const InvalidInput&) {
    fits = false;
  }
  double bitmap = 0, sort = 0;
  std::int64_t reps = 0;
  auto phase = [&](CandidateKernel k) {
    h.params.candidate_kernel = k;
    return timed([&] { Impl::ilut_any_candidates(exec, h); });
  };
  for (auto _ : state) {
    const double b = fits ? phase(CandidateKernel::Bitmap) : 0.0;
    const double s = phase(CandidateKernel::Sort);
    state.SetIterationTime(fits ? b : s);
    bitmap += b;
    sort += s;
    ++reps;
  }
  set_matrix_counters(state, Ah);
  const double r = static_cast<double>(std::max<std::int64_t>(1, reps));
  state.counters["bitmap_ms"] = fits ? 1e3 * bitmap / r : -1.0;
  state.counters["sort_ms"] = 1e3 * sort / r;
  state.counters["speedup_vs_sort"] = fits && bitmap > 0 ? sort / bitmap : 0.0;
  state.counters["auto_bitmap"] = auto_bitmap ? 1 : 0;
  state.counters["gathered_per_row"] = gathered;
  state.counters["span_columns"] = span;
  state.counters["pattern_nnz"] = static_cast<double>(pattern_nnz);
}

/// Pattern-reusing numeric phases (Params::reuse_pattern: new values on the factors' pattern, Params::reuse_sweeps
/// sweeps from the current factors, the final residual) after a default numeric phase with three steps, with the sweep
/// kernel `kernel` (Auto: the rule). Timed: the reusing phases after the first; counters first_reuse_ms (the first,
/// which builds the list kernel's product lists), reuse_ms, list (1: the phases used the list kernel), sweeps.
void BM_par_ilut_reuse(benchmark::State& state, const std::string& name, bool ict, ParIlutSweepKernel kernel) {
  const auto Ah = ordered(name);
  auto A = to_device<Device>(Ah);
  const ExecSpace exec;
  ParIlutHandle<double, Device> h(ict ? ParIlutKind::Ict : ParIlutKind::Ilut);
  h.params.sweep_kernel = kernel;
  if (!three_steps(state, h, A)) return;
  h.params.compute_residual = true;  // the default
  h.params.reuse_pattern = true;
  double first = 0, total = 0;
  std::int64_t reps = 0;
  try {
    first = timed([&] { par_ilut_numeric(exec, h, A); });
    for (auto _ : state) {
      const double t = timed([&] { par_ilut_numeric(exec, h, A); });
      state.SetIterationTime(t);
      total += t;
      ++reps;
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_matrix_counters(state, Ah);
  state.counters["first_reuse_ms"] = 1e3 * first;
  state.counters["reuse_ms"] = 1e3 * total / static_cast<double>(std::max<std::int64_t>(1, reps));
  state.counters["list"] = h.stats().sweep_kernel == ParIlutSweepKernel::List ? 1 : 0;
  state.counters["sweeps"] = h.stats().sweeps;
  state.counters["residual"] = h.stats().steps.back().residual;
}

/// Launch study of the sweeps: one asynchronous sweep on the factors after three default steps, with `lanes` lanes
/// per entry (-1: the default rule) and the default team size for them. Counters: sweep_ms, x_spmv (one sweep / one
/// spmv of A, same run), vector_length and team_size used.
void BM_par_ilut_sweep_lanes(benchmark::State& state, const std::string& name, bool ict, int lanes) {
  const auto Ah = ordered(name);
  auto A = to_device<Device>(Ah);
  const ExecSpace exec;
  ParIlutHandle<double, Device> h(ict ? ParIlutKind::Ict : ParIlutKind::Ilut);
  if (!three_steps(state, h, A)) return;
  h.launch.vector_length = lanes;
  double total = 0;
  std::int64_t reps = 0;
  for (auto _ : state) {
    const double t = timed([&] { Impl::ilut_sweep(exec, h); });
    state.SetIterationTime(t);
    total += t;
    ++reps;
  }
  Kokkos::View<double*, Device> x("x", Ah.ncols), y("y", Ah.nrows);
  Kokkos::deep_copy(x, 1.0);
  const double spmv = timed([&] {
                        for (int r = 0; r < 20; ++r) Blas<double, Device>::spmv(1.0, A, x, 0.0, y);
                      }) /
                      20;
  const double sweep = total / static_cast<double>(std::max<std::int64_t>(1, reps));
  set_matrix_counters(state, Ah);
  state.counters["sweep_ms"] = 1e3 * sweep;
  state.counters["x_spmv"] = sweep / spmv;
  state.counters["vector_length"] = h.stats().launch.vector_length;
  state.counters["exact_stretches"] = h.stats().sweep_exact_stretches ? 1 : 0;
  state.counters["team_size"] = h.stats().launch.team_size;
}

#if ASYNCSPARSE_HAVE_KK_PAR_ILUT
/// GMRES(30) to 1e-6 with preconditioner M (b = ones, x0 = 0): iterations (-1 if it did not converge in 2,000
/// iterations or 30 s) and the relative residual reached (compares two preconditioners that both stop at the limit).
struct Quality {
  double iterations = -1;
  double residual = -1;
};

Quality gmres_quality(const Crs<double, Device>& A, Preconditioner<double, Device>* M) {
  SolverParams p;
  p.tol = 1e-6;
  p.max_iterations = 2000;
  p.restart = 30;
  p.record_history = false;
  p.max_seconds = 30;
  Kokkos::View<double*, Device> b("b", A.numRows()), x("x", A.numRows());
  Kokkos::deep_copy(b, 1.0);
  const auto r = gmres<double, Device>(A, b, x, M, p);
  return {r.converged() ? static_cast<double>(r.iterations) : -1.0, r.final_relative_residual};
}

/// AsyncSparse's ParILUT (default parameters but fill) and its preconditioner with exact triangular solves.
struct OursAtFill {
  double seconds = 0;
  offset_t nnz = 0, budget = 0;
  int steps = 0, sweeps = 0;
  Quality quality;
};

OursAtFill ours_at_fill(const Crs<double, Device>& A, int steps, double fill) {
  OursAtFill o;
  const ExecSpace exec;
  ParIlutHandle<double, Device> h(ParIlutKind::Ilut);
  h.params.max_steps = steps;
  h.params.fill_in_limit = fill;
  o.seconds = timed([&] {
    par_ilut_symbolic(exec, h, A);
    par_ilut_numeric(exec, h, A);
  });
  if (h.stats().steps.empty()) throw std::runtime_error("ParILUT recorded no step");
  o.nnz = h.stats().steps.back().nnz_L + h.stats().steps.back().nnz_U;
  o.budget = h.stats().budget_L + h.stats().budget_U;
  o.steps = h.stats().steps_done;
  o.sweeps = h.stats().sweeps;
  return o;
}

/// GMRES with the ParILUT preconditioner of `fill` (the factory's defaults otherwise) and exact triangular solves.
Quality ours_quality(const Crs<double, Device>& A, double fill) {
  char fill_text[32];
  std::snprintf(fill_text, sizeof fill_text, "%.17g", fill);
  auto P = make_preconditioner<double, Device>(
      "par_ilut", A, parse_parameter_string(std::string("tri_solve=exact,fill_in_limit=") + fill_text));
  P->compute();
  return gmres_quality(A, P.get());
}

void BM_par_ilut_5steps(benchmark::State& state, const std::string& name) {
  const auto Ah = ordered(name);
  auto A = to_device<Device>(Ah);
  const int steps = 5;
  const double fill = 1.0;
  double ours = 0, kk = 0;
  std::int64_t runs = 0;
  KkParIlut<double, Device> peer(steps, fill);
  OursAtFill same;
  std::string kk_error;
  try {
    ours_at_fill(A, steps, fill);  // warm-up of both (first launches, library handles)
    peer.symbolic(A);
    peer.numeric(A);
    for (auto _ : state) {
      same = ours_at_fill(A, steps, fill);  // the factorization, timed inside
      state.SetIterationTime(same.seconds);
      ours += same.seconds;
      kk += timed([&] {
        peer.symbolic(A);
        peer.numeric(A);
      });
      ++runs;
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  // Quality: the same exact triangular solves for both pairs of factors (not timed). Kokkos-Kernels' par_ilut
  // has no pivot safeguard: a breakdown (non-finite factors) is reported in the label, not a skipped benchmark.
  Quality kk_quality;
  offset_t kk_nnz = 0;
  try {
    same.quality = ours_quality(A, fill);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  try {
    const auto L = peer.L(), U = peer.U();
    kk_nnz = L.nnz() + U.nnz();
    IncompleteFactorPreconditioner<double, Device> K(A, L, U, true, Kokkos::View<double*, Device>(),
                                                     TriSolveKind::Exact, 5, "kk_par_ilut");
    K.compute();
    kk_quality = gmres_quality(A, &K);
  } catch (const std::exception& e) {
    kk_error = e.what();
  }
  // Kokkos-Kernels keeps every entry at its threshold, so on matrices with many equal magnitudes (the Laplacians)
  // it ends above its fill budget; AsyncSparse run once more with the fill Kokkos-Kernels reached compares equal
  // sizes (not in the timing loop's average: one run).
  OursAtFill matched;
  // the budget at fill 1 is the ILU(0) pattern's entries (both factors, diagonal in each)
  const double kk_fill = same.budget > 0 && kk_nnz > 0 ? static_cast<double>(kk_nnz) / (same.budget / fill) : 0.0;
  try {
    if (kk_fill > 0) {
      matched = ours_at_fill(A, steps, kk_fill);
      matched.quality = ours_quality(A, kk_fill);
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_matrix_counters(state, Ah);
  const double n = static_cast<double>(std::max<std::int64_t>(1, runs));
  state.counters["asyncsparse_ms"] = 1e3 * ours / n;
  state.counters["asyncsparse_steps"] = same.steps;
  state.counters["asyncsparse_sweeps"] = same.sweeps;  // Kokkos-Kernels: two per step (before and after removal)
  state.counters["kk_par_ilut_ms"] = 1e3 * kk / n;
  state.counters["speedup_vs_kk_par_ilut"] = ours > 0 ? kk / ours : 0.0;
  state.counters["kk_steps"] = peer.steps();
  state.counters["nnz_LU"] = static_cast<double>(same.nnz);
  state.counters["kk_nnz_LU"] = static_cast<double>(kk_nnz);
  state.counters["gmres_iterations"] = same.quality.iterations;
  state.counters["gmres_residual"] = same.quality.residual;
  state.counters["kk_gmres_iterations"] = kk_quality.iterations;
  state.counters["kk_gmres_residual"] = kk_quality.residual;
  state.counters["at_kk_fill"] = kk_fill;
  state.counters["at_kk_fill_ms"] = 1e3 * matched.seconds;
  state.counters["at_kk_fill_nnz_LU"] = static_cast<double>(matched.nnz);
  state.counters["at_kk_fill_gmres_iterations"] = matched.quality.iterations;
  state.counters["at_kk_fill_gmres_residual"] = matched.quality.residual;
  state.counters["at_kk_fill_speedup"] = matched.seconds > 0 ? (kk / n) / matched.seconds : 0.0;
  if (!kk_error.empty()) state.SetLabel("kk_par_ilut factors unusable: " + kk_error);
}
#endif

int register_all() {
  // the hard classes of issue 19: rotated anisotropic diffusion, upwinded convection-diffusion, a Trefethen matrix
  const std::vector<std::string> ilut = {"L2D",
                                         "L3D",
                                         "bcsstk16",
                                         "bcsstk18",
                                         "bodyy4",
                                         "fv1",
                                         "cryg2500",
                                         "gen:aniso2d:256:1e-3:30",
                                         "gen:convdiff2d:256:10",
                                         "gen:trefethen:20000"};
  const std::vector<std::string> ict = {"L2D", "L3D", "bcsstk16", "bodyy4", "fv1", "gen:aniso2d:256:1e-3:30"};
  const auto& ict_set = ict;
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
  // exact selection by SampleSelect only, by the one-team select at every size (2^20), by one SampleSelect level
  // finished on the device at every size, and by the default rule without the last, against the default rule
  struct SelectVariant {
    const char* name;
    std::int64_t team_select_max;
    std::int64_t bucket_select_max;
  };
  const SelectVariant selects[] = {{"exact_sampleselect", 0, 0},
                                   {"exact_team_select", 1 << 20, 0},
                                   {"exact_bucket_select", 0, std::int64_t(1) << 40},
                                   {"exact_no_bucket_select", -1, 0}};
  for (const auto& sel : selects)
    for (bool ict : {false, true})
      for (const auto& m : ict ? ict_set : ilut)
        benchmark::RegisterBenchmark(
            (std::string(ict ? "par_ict_step/" : "par_ilut_step/") + m + "/" + sel.name).c_str(),
            [m, ict, sel](benchmark::State& s) {
              BM_par_ilut_step(s, m, ict, ThresholdSelection::Exact, sel.team_select_max, ParIlutSweepKernel::Auto,
                               sel.bucket_select_max);
            })
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
  // the sweep kernels of the step's multi-sweep phase forced either way, against the default's rule
  for (bool ict : {false, true})
    for (const auto& m : ict ? ict_set : ilut)
      for (auto k : {ParIlutSweepKernel::Entry, ParIlutSweepKernel::List, ParIlutSweepKernel::RowTeam})
        benchmark::RegisterBenchmark(
            (std::string(ict ? "par_ict_step/" : "par_ilut_step/") + m + "/exact_" + to_string(k) + "_sweeps").c_str(),
            [m, ict, k](benchmark::State& s) { BM_par_ilut_step(s, m, ict, ThresholdSelection::Exact, -1, k); })
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
  for (bool ict : {false, true})
    for (const auto& m : ict ? ict_set : ilut)
      for (auto k :
           {ParIlutSweepKernel::Auto, ParIlutSweepKernel::Entry, ParIlutSweepKernel::List, ParIlutSweepKernel::RowTeam})
        benchmark::RegisterBenchmark(
            (std::string(ict ? "par_ict_reuse/" : "par_ilut_reuse/") + m + "/" + to_string(k)).c_str(),
            [m, ict, k](benchmark::State& s) { BM_par_ilut_reuse(s, m, ict, k); })
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
  for (const auto& m : ilut)
    for (bool ict : {false, true}) {
      if (ict && std::find(ict_set.begin(), ict_set.end(), m) == ict_set.end()) continue;
      benchmark::RegisterBenchmark((std::string(ict ? "par_ict_candidates/" : "par_ilut_candidates/") + m).c_str(),
                                   [m, ict](benchmark::State& s) { BM_par_ilut_candidates(s, m, ict); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  for (const std::string m : {"L2D", "L3D", "bcsstk16", "gen:trefethen:20000"})
    for (bool ict : {false, true})
      for (int lanes : {-1, 1, 2, 4, 8, 16, 32})
        benchmark::RegisterBenchmark(
            (std::string(ict ? "par_ict_sweep/" : "par_ilut_sweep/") + m + "/lanes" +
             (lanes < 0 ? std::string("_default") : std::to_string(lanes)))
                .c_str(),
            [m, ict, lanes](benchmark::State& s) { BM_par_ilut_sweep_lanes(s, m, ict, lanes); })
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
#if ASYNCSPARSE_HAVE_KK_PAR_ILUT
  for (const std::string m : {"L2D", "L3D", "bcsstk16", "bodyy4", "fv1", "cryg2500", "gen:convdiff2d:256:10"})
    benchmark::RegisterBenchmark(("BM_par_ilut_5steps/" + m).c_str(),
                                 [m](benchmark::State& s) { BM_par_ilut_5steps(s, m); })
        ->UseManualTime()
        ->Iterations(3)
        ->Unit(benchmark::kMillisecond);
#endif
  return 0;
}
const int registered = register_all();

}  // namespace
