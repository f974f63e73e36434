// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the sweep loop of a numeric phase of the iterative ILU / IC factorization (par_ilu_numeric,
// par_ilu_sweep): the sweeps with their residual checks and divergence guard, the tail guard, and the last
// diagonal shift's breakdown tail.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_handle.hpp>
#include <asyncsparse/factorization/AsyncSparse_residuals.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_sweep.hpp>

namespace AsyncSparse {
namespace Impl {

template <class ExecSpace, class Scalar, class Device>
double task_residual(const ExecSpace& exec, const ParIluHandle<Scalar, Device>& h) {
  const auto& st = h.state();
  const auto& Y = st.kind == ParIluKind::Ilu ? st.Ut : st.L;
  return relative(task_residual_squares(exec, st.task_row, st.task_col, st.task_a, st.L, Y));
}

/// Runs up to `count` sweeps with the residual checks of the parameters; returns the sweeps run.
template <class ExecSpace, class Scalar, class Device>
int run_sweeps(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h, int count) {
  auto& stats = h.stats();
  const auto& p = h.params;
  const int interval = p.residual_interval > 0 ? p.residual_interval : (p.tolerance > 0 ? 1 : 0);
  // Divergence guard: in the deterministic mode every residual check, in the asynchronous mode only the one of
  // the final factors of this call (stale values can blow up transiently and recover, by many orders of magnitude:
  // perf_tests/results/MEASUREMENTS.md#par-ilu-divergence-guard).
  auto check = [&](bool final_check) {
    Kokkos::Timer t;
    const double r = task_residual(exec, h);
    stats.residual_seconds += t.seconds();
    stats.residual_sweeps.push_back(stats.sweeps);
    stats.residual_history.push_back(r);
    if (p.tolerance > 0 && r <= p.tolerance) stats.converged = true;
    const bool judged = final_check || p.mode == SweepMode::Deterministic;
    if (judged && p.divergence_tolerance > 0 && !(r <= p.divergence_tolerance)) {  // NaN fails `r <= tol`
      stats.diverged = true;
      h.state().numeric = false;
      throw DivergenceError(par_ilu_name(h), stats.sweeps,
                            divergence_message("nonlinear residual", r, "sweep " + std::to_string(stats.sweeps),
                                               p.divergence_tolerance, p.mode));
    }
  };
  if (interval > 0 && (stats.residual_sweeps.empty() || stats.residual_sweeps.back() != stats.sweeps))
    check(count == 0);
  int done = 0;
  // Nothing to decide between the sweeps (asynchronous, no residual checks, no breakdown patience): batches with one
  // wait each (Impl::sweep_batch); otherwise one sweep at a time, checked.
  const bool batched = p.mode == SweepMode::Async && interval == 0 && p.breakdown_patience == 0;
  while (batched && done < count && !stats.converged) {
    const int k = std::min(count - done, kSweepBatch);
    sweep_batch(exec, h, k);
    stats.sweeps += k;
    done += k;
  }
  while (done < count && !stats.converged) {
    one_sweep(exec, h);
    ++stats.sweeps;
    ++done;
    if (interval > 0 && stats.sweeps % interval == 0) check(done == count);
  }
  return done;
}

/// The tail guard (Params::guard_tolerance): more sweeps until the relative nonlinear residual is at most
/// guard_tolerance or guard_max_sweeps were added; the residual is checked before each added sweep (a check of the
/// same sweep count by run_sweeps is reused) and judged by divergence_tolerance at the end. Returns the sweeps added.
template <class ExecSpace, class Scalar, class Device>
int run_guard(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h) {
  auto& stats = h.stats();
  const auto& p = h.params;
  if (!(p.guard_tolerance > 0)) return 0;
  auto residual = [&] {
    if (!stats.residual_sweeps.empty() && stats.residual_sweeps.back() == stats.sweeps)
      return stats.residual_history.back();
    Kokkos::Timer t;
    const double r = task_residual(exec, h);
    stats.residual_seconds += t.seconds();
    stats.residual_sweeps.push_back(stats.sweeps);
    stats.residual_history.push_back(r);
    return r;
  };
  double r = residual();
  while (!(r <= p.guard_tolerance) && stats.guard_sweeps < p.guard_max_sweeps) {  // NaN: sweep on
    one_sweep(exec, h);
    ++stats.sweeps;
    ++stats.guard_sweeps;
    r = residual();
  }
  stats.guard_residual = r;
  if (p.divergence_tolerance > 0 && !(r <= p.divergence_tolerance)) {
    stats.diverged = true;
    h.state().numeric = false;
    throw DivergenceError(par_ilu_name(h), stats.sweeps,
                          divergence_message("nonlinear residual", r, "sweep " + std::to_string(stats.sweeps),
                                             p.divergence_tolerance, p.mode));
  }
  return stats.guard_sweeps;
}

/// The last diagonal shift's tail: with `last_shift` (Impl::last_diagonal_shift) and asynchronous sweeps whose last
/// one skipped an update, up to kBreakdownTailSweeps more, kBreakdownTailBatch at a time through run_sweeps (its
/// batches, residual checks and breakdown patience), until the last sweep skips none (Stats::breakdown_tail_sweeps).
template <class ExecSpace, class Scalar, class Device>
void sweep_out_breakdown(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h, bool last_shift) {
  auto& stats = h.stats();
  if (!last_shift || h.params.mode != SweepMode::Async) return;
  while (stats.consecutive_breakdowns > 0 && stats.breakdown_tail_sweeps < kBreakdownTailSweeps) {
    const int done = run_sweeps(exec, h, kBreakdownTailBatch);
    if (done == 0) return;  // the tolerance was reached: run_sweeps runs no more
    stats.breakdown_tail_sweeps += done;
  }
}

}  // namespace Impl
}  // namespace AsyncSparse
