// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT driver: one step (candidates -> sweep -> select and remove -> sweep), the numeric
// phase around it (initial guess, steps, checks of the final factors, pattern reuse) and the factors as Crs.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>  // Compat::ScopedRegion, JoinDst
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut_handle.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_diagonal_shift.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_candidates.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_common.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_filter.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_setup.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_sweep.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>  // Impl::same_graph

namespace AsyncSparse {
namespace Impl {

inline double ilut_relative(double r2, double a2) { return a2 > 0 ? std::sqrt(r2 / a2) : std::sqrt(r2); }

/// The factorization diverged at `step`: the handle is marked not computed, Stats::diverged, DivergenceError.
template <class Handle>
[[noreturn]] void ilut_diverged(Handle& h, std::int64_t step, const std::string& problem) {
  h.state().ready = false;
  h.stats().diverged = true;
  throw DivergenceError(par_ilut_name(h), step, problem);
}

/// The mode whose divergence hint a message gets: the deterministic mode's Jacobi-style hint only for its concurrent
/// sweeps (ordered sweeps are Gauss–Seidel sweeps in both modes).
template <class Handle>
SweepMode ilut_cause_mode(const Handle& h) {
  return h.state().ordered ? SweepMode::Async : h.params.mode;
}

/// Divergence guard (Params::divergence_tolerance): the relative ILU residual `residual` of the factors after
/// step `step` is non-finite or above the tolerance -> ilut_diverged.
template <class Handle>
void ilut_check_divergence(Handle& h, double residual, int step) {
  const double tol = h.params.divergence_tolerance;
  if (tol <= 0.0 || residual <= tol) return;  // a NaN residual fails `residual <= tol`
  ilut_diverged(h, step,
                divergence_message("ILU residual ||A - L U||_F / ||A||_F", residual, "step " + std::to_string(step),
                                   tol, ilut_cause_mode(h)));
}

/// Seconds on `timer` once the work queued on `exec` is done; restarts the timer.
template <class ExecSpace>
double ilut_lap(const ExecSpace& exec, Kokkos::Timer& timer) {
  exec.fence();
  const double s = timer.seconds();
  timer.reset();
  return s;
}

/// A step that multiplies the ILU residual by more than this has diverged, not stagnated (ilut_judge_residual).
/// Between the steps of a converging factorization the residual grew by at most 1.10x (nos3, the noise of the
/// asynchronous sweeps; OpenMP, 29 runs of 30 steps, perf_tests/results/MEASUREMENTS.md#parilut-steps); where the
/// sweeps diverge it grew 6.8x (bcsstk14, deterministic) and 57x (bcsstk18 on an H100) in one step.
constexpr double ilut_step_growth_limit = 2.0;

/// Records the residual `residual2` (squared, unscaled) of the factors of the last step, which the candidate phase
/// found. Returns false when it ends the iteration: `stop_on_stagnation` and an improvement by less than
/// Params::stagnation_tolerance. Throws DivergenceError in the deterministic mode (where every step's residual is
/// judged; asynchronous: only the final factors', as stale values can blow up transiently and recover), and, where
/// the stagnation rule applies, in both modes when the last step multiplied the residual by more than
/// ilut_step_growth_limit (a growing residual is no stagnation: stopping there would keep factors worse than those
/// the step started from; the adaptive sweeps of a step step back from a sweep that makes it worse, so a step's
/// growth is no transient of stale values).
template <class Handle>
bool ilut_judge_residual(Handle& h, double residual2, bool stop_on_stagnation) {
  auto& stats = h.stats();
  auto& prev = stats.steps.back();
  prev.residual = ilut_relative(residual2, h.state().a_norm2);
  if (h.params.mode == SweepMode::Deterministic) ilut_check_divergence(h, prev.residual, prev.step);
  const double tol = h.params.stagnation_tolerance;
  if (stop_on_stagnation && tol > 0.0 && stats.steps.size() >= 2) {
    const double before = stats.steps[stats.steps.size() - 2].residual;
    if (before > 0 && h.params.divergence_tolerance > 0 && !(prev.residual <= ilut_step_growth_limit * before)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%.3e -> %.3e (%.3gx, more than %gx)", before, prev.residual,
                    prev.residual / before, ilut_step_growth_limit);
      ilut_diverged(h, prev.step,
                    "ILU residual ||A - L U||_F / ||A||_F grew in step " + std::to_string(prev.step) + ": " + buf +
                        divergence_cause(SweepMode::Async));  // the clause without the mode hint
    }
    if (before >= 0 && prev.residual > (1.0 - tol) * before) {
      stats.stagnated = true;
      return false;
    }
  }
  return true;
}

/// What a phase of sweeps did.
struct IlutPhase {
  int sweeps = 0;
  double first = -1.0;        ///< pattern residual of the factors the phase started from (adaptive; -1: not computed)
  double residual = -1.0;     ///< pattern residual of the factors the last sweep started from (-1: not computed)
  bool stepped_back = false;  ///< the last sweep was undone (it diverged)
};

/// Values of the factors (L; ParILUT also Ut), for ilut_sweep_phase to step back to.
template <class Handle>
struct IlutValues {
  typename Handle::value_view L, Ut;
};

/// The first nl entries of l and the first nu of u into dl and du, in one launch (two copies would be two launches
/// after host checks of their own); a non-empty `status` is also reset (ilut_reset_status_on_device, with the
/// breakdown flag).
template <class ExecSpace, class VV, class CV, class SV>
void ilut_copy_pair(const ExecSpace& exec, const VV& dl, const CV& l, offset_t nl, const VV& du, const CV& u,
                    offset_t nu, const SV& status) {
  const std::int64_t n1 = nl, n2 = n1 + nu;  // 64-bit: nl + nu may exceed offset_t
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::copy_values",
      Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n2 + 1),
      KOKKOS_LAMBDA(const std::int64_t q) {
        if (q < n1)
          dl(q) = l(q);
        else if (q < n2)
          du(q - n1) = u(q - n1);
        else if (status.data() != nullptr)
          ilut_reset_status_on_device(status, true);
      });
}

/// Saves the values of the factors into v; with `reset` also resets State::status with the breakdown flag, in the
/// same launch (the next sweep then passes IlutSweepOptions::reset_done).
template <class ExecSpace, class Handle>
void ilut_save_values(const ExecSpace& exec, Handle& h, IlutValues<Handle>& v, bool reset = false) {
  auto& st = h.state();
  using VV = typename Handle::value_view;
  const offset_t nu = st.kind == ParIlutKind::Ilut ? st.Ut.nnz : 0;
  if (v.L.extent(0) != static_cast<std::size_t>(st.L.nnz))
    v.L = ilut_alloc<VV>(ilut_ws(h), "AsyncSparse::par_ilut::saved_L", st.L.nnz);
  if (nu > 0 && v.Ut.extent(0) != static_cast<std::size_t>(nu))
    v.Ut = ilut_alloc<VV>(ilut_ws(h), "AsyncSparse::par_ilut::saved_Ut", nu);
  decltype(st.status) status;
  if (reset) status = ilut_status_to_reset(h, true);
  ilut_copy_pair(exec, v.L, st.L.val, st.L.nnz, v.Ut, st.Ut.val, nu, status);
}

template <class ExecSpace, class Handle>
void ilut_restore_values(const ExecSpace& exec, Handle& h, const IlutValues<Handle>& v) {
  auto& st = h.state();
  ilut_copy_pair(exec, st.L.val, v.L, st.L.nnz, st.Ut.val, v.Ut, st.kind == ParIlutKind::Ilut ? st.Ut.nnz : 0,
                 decltype(st.status)());
}

/// The sweeps of one phase on the current pattern: `fixed` >= 0 sweeps, or (fixed = -1) the adaptive rule with
/// tolerance `tol` and at most `max_adaptive` sweeps (Params::sweep_tolerance / max_sweeps, or the initial phase's
/// initial_sweep_tolerance / initial_max_sweeps; one sweep when the tolerance is 0). The breakdown flags are reset
/// before every sweep, so they describe the phase's last sweep. An adaptive phase also guards against sweeps that
/// diverge (possible where the fixed point on the pattern does not exist or attracts poorly, e.g. IC(0) of bcsstk13):
/// it keeps the values each sweep starts from and steps back to them when a sweep after the first skipped a non-finite
/// update, or when a sweep left a larger residual than it found (IlutPhase::stepped_back). With ordered sweeps
/// (State::ordered) a phase ends after its first sweep without a breakdown or a replaced pivot, whose result (the exact
/// incomplete factorization of the pattern) the next would repeat.
template <class ExecSpace, class Handle>
IlutPhase ilut_sweep_phase(const ExecSpace& exec, Handle& h, int fixed, double tol, int max_adaptive) {
  IlutPhase ph;
  const bool adaptive = fixed < 0 && tol > 0.0;
  const int most = fixed >= 0 ? fixed : (adaptive ? max_adaptive : 1);
  double first = -1.0, prev = -1.0;
  IlutValues<Handle> snap[2];  // snap[k % 2]: the values sweep k started from (adaptive phases)
  for (int k = 0; k < most; ++k) {
    IlutSweepOptions o;
    if (adaptive) {
      ilut_save_values(exec, h, snap[k % 2], true);  // State::status reset in the same launch
      o.reset_done = true;
    }
    o.residual = adaptive;  // of the values sweep k started from
    o.reset_breakdown = true;
    o.read_status = h.state().ordered;  // ilut_ordered_sweep_final reads it (an adaptive sweep's residual too)
    const double r = ilut_sweep(exec, h, o);
    ++ph.sweeps;
    // An ordered sweep without a breakdown or a replaced pivot leaves the exact incomplete factorization of the
    // pattern (ilut_ordered_sweep_final); its residual is that of rounding, not kept (-1). With replaced pivots the
    // factors are not exact, and the next sweep's residual decides as for concurrent sweeps.
    if (ilut_ordered_sweep_final(exec, h)) {
      ph.residual = -1.0;
      if (k == 0) ph.first = r;
      break;
    }
    if (!adaptive) {
      ph.residual = r;
      continue;
    }
    if (k > 0 && !(r <= prev)) {  // sweep k - 1 made it worse (or non-finite): back to what it started from
      ilut_restore_values(exec, h, snap[(k - 1) % 2]);
      ph.stepped_back = true;
      break;
    }
    ph.residual = r;
    if (k == 0) first = ph.first = r;
    if (k > 0 && ilut_broke_down(exec, h)) {
      ilut_restore_values(exec, h, snap[k % 2]);  // sweep k skipped a non-finite update: back to before it
      ph.stepped_back = true;
      break;
    }
    if (!(r > tol * first) || (k > 0 && !(r < 0.95 * prev))) break;  // converged, or no longer converging
    prev = r;
  }
  // the breakdown flags stay those of the last sweep run, also after a step back: a breakdown is reported, not hidden
  return ph;
}

/// DivergenceError (Params::divergence_tolerance > 0) when no sweep of the adaptive initial phase `ph` reduced the
/// pattern residual of the initial guess: its first sweep already left a larger one (the phase stepped back to the
/// initial guess) or a non-finite one. The sweeps then do not converge toward the fixed point ILU(0) / IC(0) at all,
/// and the steps cannot start from it: on bcsstk18 on an H100 the first sweep raised the residual of ParILUT's
/// initial guess from 0.309 to 0.322 and ParICT's from 0.30 to 1.10, and the steps then either diverged (0.307 ->
/// 17.4 -> 9.8e3 ... in step 2) or stopped as stagnated on factors that needed 5000 GMRES iterations. A phase whose
/// sweeps converge, however slowly, reduces it with its first sweep. A residual of at most 1e-8 of ||A|| (an initial
/// guess at the fixed point already) passes.
template <class Handle>
void ilut_check_initial_phase(Handle& h, const IlutPhase& ph) {
  if (h.params.divergence_tolerance <= 0 || ph.sweeps < 2 || !(ph.first >= 0)) return;
  if (ph.residual < ph.first || ph.residual <= 1e-8) return;  // NaN fails both
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.3e of the initial guess, not reduced by its first sweep", ph.first);
  ilut_diverged(h, 0,
                std::string("the initial sweeps toward the fixed point of the pattern of A do not converge: pattern "
                            "residual ||(A - L U)_S||_F / ||A||_F ") +
                    buf + divergence_cause(ilut_cause_mode(h)));
}

/// Per factor (L; ParILUT also U) the entries of its pattern that are not in the factor's pattern before the step,
/// in one reduction (an array reduction of two counts: one wait for the device instead of two).
template <class PV, class OV>
struct IlutCountNew {
  using value_type = std::int64_t[];
  using size_type = unsigned;
  size_type value_count = 2;
  ordinal_t n = 0;
  PV nptr[2], optr[2];  ///< [0]: L, [1]: U (nptr[1] empty for ParICT)
  OV ncol[2], ocol[2];

  KOKKOS_INLINE_FUNCTION void init(std::int64_t* v) const { v[0] = v[1] = 0; }
  KOKKOS_INLINE_FUNCTION void join(Compat::JoinDst<std::int64_t> dst, Compat::JoinSrc<std::int64_t> src) const {
    dst[0] += src[0];
    dst[1] += src[1];
  }
  /// index f * n + i: row i of factor f
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k, std::int64_t* acc) const {
    const int f = k < n ? 0 : 1;
    const auto i = static_cast<ordinal_t>(k - f * static_cast<std::int64_t>(n));
    const PV &np = nptr[f], &op = optr[f];
    const OV &nc = ncol[f], &oc = ocol[f];
    offset_t q = op(i);
    for (offset_t p = np(i); p < np(i + 1); ++p) {  // both rows sorted
      while (q < op(i + 1) && oc(q) < nc(p)) ++q;
      if (!(q < op(i + 1) && oc(q) == nc(p))) ++acc[f];
    }
  }
};

/// Appends the statistics `ss` of a finished step; then a breakdown in its last sweep throws (check_now, and
/// always in the deterministic mode) or is only counted.
template <class ExecSpace, class Handle>
void ilut_finish_step(const ExecSpace& exec, Handle& h, ParIlutStepStats& ss, bool check_now) {
  auto& st = h.state();
  auto& stats = h.stats();
  ss.nnz_L = st.L.nnz;
  ss.nnz_U = st.kind == ParIlutKind::Ict ? st.L.nnz : st.U.nnz;
  stats.steps.push_back(ss);
  stats.steps_done = static_cast<int>(stats.steps.size()) - 1;
  stats.pivots_replaced = ss.pivots_replaced;
  if (check_now || h.params.mode == SweepMode::Deterministic)
    ilut_check_breakdown(exec, h);
  else if (ilut_broke_down(exec, h))
    ++stats.breakdown_steps;
}

/// One ParILUT / ParICT step (the five phases of AsyncSparse_par_ilut.hpp). When `stop_on_stagnation`, the
/// candidate phase's residual may end the iteration: returns false and leaves the factors unchanged. A breakdown in
/// the step's last sweep throws at once in the deterministic mode and when `check_now`; otherwise (asynchronous
/// steps inside a numeric phase) the skipped update is counted and the iteration goes on, as in Ginkgo, and the
/// numeric phase checks the final factors.
template <class ExecSpace, class Handle>
bool ilut_step(const ExecSpace& exec, Handle& h, bool stop_on_stagnation, bool check_now = true) {
  const Compat::ScopedRegion region(std::string("AsyncSparse::") + par_ilut_name(h) + "_step");
  ParIlutStepStats ss;
  ss.step = static_cast<int>(h.stats().steps.size());
  Kokkos::Timer total, timer;
  const std::int64_t allocations = ilut_ws(h).stats().allocations;
  const auto old_L = h.state().L, old_U = h.state().U;  // the pattern the step starts from (Views are shared)
  h.state().lists = {};  // the product lists of the old pattern: their buffers back to the pool for this step's phases
  // 1. candidates: pattern(A) ∪ pattern(L·U), with the residual of the current factors
  const auto cand = ilut_any_candidates(exec, h);
  if (!ilut_judge_residual(h, cand.residual2, stop_on_stagnation)) return false;
  ilut_commit(exec, h, cand);
  ss.candidates_L = cand.added_L;
  ss.candidates_U = cand.added_U;
  ss.candidates_seconds = ilut_lap(exec, timer);
  // 2. a fixed-point sweep over the enlarged pattern (its flags unread: the sweeps of phase 5 reset them)
  IlutSweepOptions enlarged;
  enlarged.read_status = false;
  ilut_sweep(exec, h, enlarged);
  ss.sweep_seconds = ilut_lap(exec, timer);
  // 3. + 4. per factor the threshold that keeps its fill budget, and the removal of the entries below it
  ilut_select_and_remove(exec, h, ss);
  auto& st = h.state();
  {  // reduced into State::status and read back with the sweeps' flags below (no wait of its own)
    IlutCountNew<decltype(st.L.ptr), decltype(st.L.col)> count;
    count.n = st.n;
    count.nptr[0] = st.L.ptr, count.ncol[0] = st.L.col, count.optr[0] = old_L.ptr, count.ocol[0] = old_L.col;
    const int factors = st.kind == ParIlutKind::Ilut ? 2 : 1;
    if (factors == 2)
      count.nptr[1] = st.U.ptr, count.ncol[1] = st.U.col, count.optr[1] = old_U.ptr, count.ocol[1] = old_U.col;
    Kokkos::parallel_reduce(
        "AsyncSparse::par_ilut::count_new",
        Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0,
                                                                      factors * static_cast<std::int64_t>(st.n)),
        count,
        Kokkos::View<std::int64_t*, typename Handle::device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
            ilut_status_member<std::int64_t>(h, offsetof(ParIlutSweepStatus, kept_new)), 2));
    st.status_current = false;
  }
  // 5. fixed-point sweeps over the kept pattern, adaptive (Params::sweep_tolerance); the last one's breakdowns
  // are the step's
  timer.reset();
  const IlutPhase ph = ilut_sweep_phase(exec, h, -1, h.params.sweep_tolerance, h.params.max_sweeps);
  ss.sweeps = 1 + ph.sweeps;
  ss.pattern_residual = ph.residual;
  const ParIlutSweepStatus& status = ilut_status(exec, h);
  ss.pivots_replaced = status.replaced;
  ss.kept_new_L = static_cast<offset_t>(status.kept_new[0]);
  ss.kept_new_U = static_cast<offset_t>(status.kept_new[1]);
  ss.pattern_unchanged = ss.kept_new_L + ss.kept_new_U == 0 && st.L.nnz == old_L.nnz &&
                         (st.kind == ParIlutKind::Ict || st.U.nnz == old_U.nnz);
  ss.sweep_seconds += ilut_lap(exec, timer);
  ss.total_seconds = total.seconds();
  ss.workspace_allocations = ilut_ws(h).stats().allocations - allocations;
  ilut_finish_step(exec, h, ss, check_now);
  h.stats().workspace = ilut_ws(h).stats();
  return true;
}

/// Residual of the current factors (one pass like a candidate phase, factors unchanged), stored in the last
/// step's statistics.
template <class ExecSpace, class Handle>
double ilut_final_residual(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  auto& last = h.stats().steps.back();
  Kokkos::Timer timer;
  const auto cr = ilut_any_candidates(exec, h);
  last.residual = ilut_relative(cr.residual2, st.a_norm2);
  exec.fence();
  last.residual_seconds = timer.seconds();
  ilut_check_divergence(h, last.residual, last.step);
  return last.residual;
}

template <class Handle>
void ilut_fill_history(Handle& h) {
  auto& stats = h.stats();
  stats.residual_history.clear();
  for (const auto& s : stats.steps)
    if (s.residual >= 0) stats.residual_history.push_back(s.residual);
}

/// The whole factorization from the initial guess: Params::max_steps steps (fewer on stagnation), the checks of
/// the final factors and their residual.
/// With `release_shift` a diagonal shift (State::shift) applies to the initial guess only: the steps factor A_s.
template <class ExecSpace, class Handle, class Mat>
void ilut_compute(const ExecSpace& exec, Handle& h, const Mat& A, bool release_shift = false) {
  Kokkos::Timer timer;
  h.state().lists = {};  // the product lists of a former pattern (pattern reuse): their buffers back to the pool
  ilut_initialize(exec, h, A);
  ilut_initial_sweeps(exec, h, [&] {
    const IlutPhase ph = ilut_sweep_phase(exec, h, h.params.initial_sweeps, h.params.initial_sweep_tolerance,
                                          h.params.initial_max_sweeps);
    ilut_check_initial_phase(h, ph);
    return ph;
  });
  if (h.state().shift > 0.0 && release_shift) {  // the steps factor A_s (Params::shift_initial_only)
    h.state().shift_released = true;
    ilut_scale(exec, h, A);
  }
  for (int s = 0; s < h.params.max_steps; ++s) {
    // ordered sweeps: a breakdown in a step's last sweep throws at once (no stale values that later steps could
    // replace; running on would only make a failing attempt of the restarts slower)
    if (!ilut_step(exec, h, true, h.state().ordered)) break;
    if (h.params.stagnation_tolerance > 0.0 && h.stats().steps.back().pattern_unchanged) {
      h.stats().pattern_fixed = true;
      break;
    }
  }
  if (h.params.final_sweeps != 0) {  // sweeps on the final pattern; the factors' residual is then unknown again
    const IlutPhase ph =
        ilut_sweep_phase(exec, h, h.params.final_sweeps, h.params.sweep_tolerance, h.params.max_sweeps);
    auto& last = h.stats().steps.back();
    h.stats().final_sweeps = ph.sweeps;
    last.sweeps += ph.sweeps;
    last.pattern_residual = ph.residual;
    last.pivots_replaced = ilut_status(exec, h).replaced;
    last.residual = -1.0;
    if (h.params.mode == SweepMode::Deterministic) ilut_check_breakdown(exec, h);
  }
  h.stats().pivots_replaced = h.stats().steps.back().pivots_replaced;
  ilut_check_breakdown(exec, h);  // the last sweep's skipped updates and the pivots of the final factors
  const auto& last = h.stats().steps.back();
  if (last.residual < 0) {                                        // not yet computed
    if (h.params.compute_residual) ilut_final_residual(exec, h);  // judges it
  } else {  // known already (stagnation stop; a NaN lands here too)
    ilut_check_divergence(h, last.residual, last.step);
  }
  ilut_fill_history(h);
  exec.fence();
  h.stats().total_seconds = timer.seconds();
}

/// ilut_compute with the sweep order of Params::sweep_order: SweepOrder::Auto runs it with concurrent sweeps and,
/// where that breaks down or diverges (the first time in this numeric phase), again with ordered ones
/// (State::ordered, which the later attempts keep, also where the ordered sweeps failed because IC(0) / ILU(0) of
/// the unshifted matrix does not exist: shifted, the ordered sweeps keep the smaller shift and the better factors —
/// ParICT of bcsstk15 on an H200: one ordered team needed the shift 0.1 and 164 PCG iterations, concurrent chunks
/// the shift 1 and 275, perf_tests/results/nvidia-h200/par_ict_bcsstk15_18_launch_probe_27eea99.txt);
/// `reason` is then the concurrent sweeps' error. When the ordered sweeps fail too, the concurrent sweeps' error is
/// thrown with the ordered sweeps' appended.
template <class ExecSpace, class Handle, class Mat>
void ilut_compute_ordered_fallback(const ExecSpace& exec, Handle& h, const Mat& A, std::string& reason,
                                   bool release_shift) {
  auto& st = h.state();
  if (h.params.sweep_order != SweepOrder::Auto || st.ordered) return ilut_compute(exec, h, A, release_shift);
  run_with_ordered_fallback(reason, [&](bool ordered) {
    if (ordered) st.ordered = true;
    ilut_compute(exec, h, A, release_shift);
  });
}

/// ilut_compute on A_s, and on a breakdown or divergence again on A_s + alpha I (Params::diagonal_shift), each with
/// the sweep order of Params::sweep_order (ilut_compute_ordered_fallback). With Params::shift_initial_only an alpha
/// applies first to the initial guess only, and where that fails to the whole phase.
template <class ExecSpace, class Handle, class Mat>
void ilut_compute_shifted(const ExecSpace& exec, Handle& h, const Mat& A) {
  auto& st = h.state();
  st.ordered = h.params.sweep_order == SweepOrder::Ordered;
  std::string reason;
  bool initial_only = false;
  auto record = [&] {
    h.stats().ordered = st.ordered;
    h.stats().ordered_reason = reason;
    h.stats().shift_initial_only = initial_only && st.shift > 0.0;
  };
  try {
    with_diagonal_shift(h.params.diagonal_shift, h.stats(), [&](double alpha) {
      st.shift = alpha;
      initial_only = alpha > 0.0 && h.params.shift_initial_only;
      if (initial_only) {
        try {
          return ilut_compute_ordered_fallback(exec, h, A, reason, true);
        } catch (const BreakdownError&) {
          if (!st.shift_released) throw;  // the shifted initial guess failed: the whole phase would fail alike
        } catch (const DivergenceError&) {
          if (!st.shift_released) throw;
        }
        initial_only = false;  // the steps on A_s failed: shift them too
      }
      ilut_compute_ordered_fallback(exec, h, A, reason, false);
    });
  } catch (...) {
    st.shift = 0.0;
    record();
    throw;
  }
  record();
}

/// Pattern reuse (Params::reuse_pattern): A has new values on the pattern of the current factors' A; rescale and
/// run Params::reuse_sweeps sweeps on the current factor pattern, starting from the current factors.
template <class ExecSpace, class Handle, class Mat>
void ilut_update_values(const ExecSpace& exec, Handle& h, const Mat& A) {
  Kokkos::Timer timer;
  auto& st = h.state();
  ilut_scale(exec, h, A);
  auto& stats = h.stats();
  stats.sweeps = 0;
  ilut_reset_breakdown(exec, h);
  for (int s = 0; s < h.params.reuse_sweeps; ++s) {
    // concurrent sweeps report the breakdowns of the last sweep; ordered ones those of each, and end after the first
    // that leaves the exact factorization of the pattern (ilut_ordered_sweep_final)
    IlutSweepOptions o;
    o.reuse = true;
    o.reset_breakdown = s + 1 == h.params.reuse_sweeps || st.ordered;
    o.read_status = st.ordered;  // ilut_ordered_sweep_final reads it
    ilut_sweep(exec, h, o);
    if (ilut_ordered_sweep_final(exec, h)) break;
  }
  stats.pivots_replaced = h.params.reuse_sweeps > 0 ? ilut_status(exec, h).replaced : 0;
  ++stats.updates;
  st.ready = true;
  ilut_check_breakdown(exec, h);
  auto& last = stats.steps.back();
  last.residual = -1;
  if (h.params.compute_residual) ilut_final_residual(exec, h);
  ilut_fill_history(h);
  exec.fence();
  stats.total_seconds = timer.seconds();
}

/// Numeric phase (see AsyncSparse_par_ilut.hpp).
template <class ExecSpace, class Handle, class Mat>
void ilut_numeric(const ExecSpace& exec, Handle& h, const Mat& A, const std::string& where) {
  auto& st = h.state();
  const std::string method = par_ilut_name(h.params.kind);
  if (!st.symbolic) throw InvalidInput(where + ": par_ilut_symbolic must be called first");
  ilut_check_handle_params(h, where);
  if (h.params.kind != st.kind)
    throw InvalidInput(where + ": Params::kind changed since par_ilut_symbolic; run the symbolic phase again");
  if (A.numRows() != st.n || A.numCols() != st.n || A.nnz() != st.nnz_A ||
      !same_graph(exec, st.n, A.graph.row_map, A.graph.entries, st.a_row_map, st.a_entries))
    throw InvalidInput(where + ": the matrix does not have the pattern given to par_ilut_symbolic");
  ilut_check_matrix(exec, A, st.kind == ParIlutKind::Ict, true, where, method);
  const bool reuse = h.params.reuse_pattern && st.ready;
  st.work.reset_counters();
  if (reuse)
    ilut_update_values(exec, h, A);
  else
    ilut_compute_shifted(exec, h, A);
  h.stats().reused_pattern = reuse;
  h.stats().workspace = st.work.stats();
}

/// L as a Crs (copy): ParILUT unit lower triangular with the ones stored last; ParICT lower with its diagonal.
template <class ExecSpace, class Handle>
typename Handle::crs_type ilut_lower(const ExecSpace& exec, const Handle& h) {
  using M = typename Handle::crs_type;
  const auto& st = h.state();
  typename M::row_map_type::non_const_type rm(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::L_row_map"),
      static_cast<std::size_t>(st.n) + 1);
  typename M::index_type::non_const_type ent(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::L_entries"), st.L.nnz);
  typename M::values_type::non_const_type val(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::L_values"), st.L.nnz);
  Kokkos::deep_copy(exec, rm, st.L.ptr);
  Kokkos::deep_copy(exec, ent, Kokkos::subview(st.L.col, std::make_pair(offset_t(0), st.L.nnz)));
  Kokkos::deep_copy(exec, val, Kokkos::subview(st.L.val, std::make_pair(offset_t(0), st.L.nnz)));
  exec.fence();
  return M("AsyncSparse::par_ilut::L", st.n, st.n, st.L.nnz, val, rm, ent);
}

/// U as a Crs (copy, diagonal first in each row): ParILUT's U, ParICT's Lᵀ.
template <class ExecSpace, class Handle>
typename Handle::crs_type ilut_upper(const ExecSpace& exec, const Handle& h) {
  using M = typename Handle::crs_type;
  using PV = typename Handle::offset_view;
  using Factor = ilut_factor_t<Handle>;
  const auto& st = h.state();
  Factor U;
  PV map;  // U entry -> position of its value
  typename Handle::value_view src_val;
  if (st.kind == ParIlutKind::Ilut) {
    U = st.U;
    map = st.umap;
    src_val = st.Ut.val;
  } else {
    typename Handle::workspace_type ws;  // the handle is const here; the transpose is freed on return
    ilut_transpose(exec, ws, st.n, st.L, U, map);
    src_val = st.L.val;
  }
  typename M::row_map_type::non_const_type rm(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::U_row_map"),
      static_cast<std::size_t>(st.n) + 1);
  typename M::index_type::non_const_type ent(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::U_entries"), U.nnz);
  typename M::values_type::non_const_type val(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::U_values"), U.nnz);
  Kokkos::deep_copy(exec, rm, U.ptr);
  auto ucol = U.col;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::upper_export", Impl::RangePolicy<ExecSpace>(exec, 0, U.nnz),
      KOKKOS_LAMBDA(const offset_t q) {
        ent(q) = ucol(q);
        val(q) = src_val(map(q));
      });
  exec.fence();
  return M("AsyncSparse::par_ilut::U", st.n, st.n, U.nnz, val, rm, ent);
}

}  // namespace Impl
}  // namespace AsyncSparse
