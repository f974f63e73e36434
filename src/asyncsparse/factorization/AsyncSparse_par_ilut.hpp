// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT and ParICT: threshold incomplete LU / Cholesky factorizations built from fixed-point
// sweeps and pattern updates, with SampleSelect thresholds.
//
// Anzt, Chow & Dongarra, "ParILUT — a new parallel threshold ILU factorization" (SISC 2018) and Anzt, Ribizel,
// Flegar, Chow & Dongarra, "ParILUT — a parallel threshold ILU for GPUs" (IPDPS 2019; slides in shared/papers).
// The factors are those of the symmetrically scaled matrix A_s = S A S, s_i = 1/sqrt(|a_ii|) (DESIGN.md).
// Starting from the ILU(0) pattern with the initial guess L0 = strict lower part of A_s + I, U0 = upper part
// (ParICT: L0 = lower part), swept toward the fixed point ILU(0) / IC(0) of that pattern (Params::initial_sweeps;
// these factors are step 0, so the steps start from a factorization at least as good as ILU(0) / IC(0) in the same
// sweeps — the raw guess, initial_sweeps = 0, can be far worse: 383 PCG iterations against IC(0)'s 25 on a rotated
// anisotropic problem), every step
//
//   1. adds candidates: the locations of A ∪ L·U outside the pattern of L + U (where the ILU residual
//      R = A - L U is non-zero), with the values Ginkgo uses, l_ij = (a_ij - (LU)_ij) / u_jj and
//      u_ij = a_ij - (LU)_ij (one fixed-point update of the new entry);
//   2. runs one fixed-point sweep over all entries (Chow & Patel's update, in place and asynchronous, or
//      Jacobi-style in the deterministic mode):
//        l_ij = (a_ij - sum_{k<j} l_ik u_kj) / u_jj,   u_ij = a_ij - sum_{k<i} l_ik u_kj
//        (ParICT: l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj,  l_ii = sqrt(a_ii - sum_{k<i} l_ik^2));
//   3. selects, per factor, the magnitude threshold that keeps the fill budget — fill_in_limit × the entries
//      of that factor in the ILU(0) pattern, diagonal included — with SampleSelect (exact or approximate);
//   4. removes the off-diagonal entries below it (the diagonal always stays);
//   5. runs one more sweep — adaptively more (Params::sweep_tolerance, max_sweeps): the sweep computes the
//      nonlinear residual ||(A - L U)_S||_F on the pattern S of the factors it read, and the sweeps go on while it is
//      above sweep_tolerance × the first one and still falling (Stats::steps[s].sweeps, .pattern_residual).
// A step that keeps none of its candidates (Stats::steps[s].kept_new_L/U = 0, .pattern_unchanged) leaves the pattern
// as it was: a fixed point of the pattern iteration. On upwinded convection-diffusion every candidate is smaller than
// the entries of the ILU(0) pattern, so that fixed point is ILU(0) from step 1 on; the steps are then not stuck but
// done (with stagnation_tolerance > 0 the numeric phase stops there, Stats::pattern_fixed).
// Params::final_sweeps sweeps on the final pattern after the last step.
//
// Pivots: a ParILUT pivot |u_ii| < Params::pivot_tolerance (of the scaled matrix, unit diagonal) is replaced by
// ±pivot_tolerance, a ParICT pivot l_ii^2 < pivot_tolerance (non-positive included) by pivot_tolerance, in every
// sweep; the replacements of the last sweep are counted in Stats::pivots_replaced (and per step). The serial
// references ilu0 / ic0 / ilut_nnz / ict_nnz apply the same rule with Reference::FactorOptions, so that a breakdown
// of one and not the other is a difference of the methods, not of the strategy. pivot_tolerance = 0: no replacement.
// It stops after Params::max_steps steps (default 30), or earlier when the ILU residual ||A - L U||_F / ||A||_F
// improved by less than Params::stagnation_tolerance (default 1 %) in the last step, keeping that step's factors;
// a step that more than doubled the residual has diverged instead (DivergenceError). The candidate phase also
// yields that residual for the factors it starts from, so each step's residual is known one step later at no extra
// cost.
//
// Entry points (free functions, execution space instance first; the kind, ParILUT or ParICT, is
// Params::kind of the handle):
//   par_ilut_symbolic(exec, h, A)   pattern: checks of A's pattern, the ILU(0) / IC(0) pattern of the initial
//                                   guess. Reads Params::kind (and validates the other parameters).
//   par_ilut_numeric(exec, h, A)    values: checks of A's values, scaling, initial guess (step 0), max_steps steps
//                                   and the residual of the final factors. Reads max_steps, fill_in_limit,
//                                   selection, stagnation_tolerance, mode, compute_residual, divergence_tolerance,
//                                   diagonal_shift, shift_initial_only, sweep_order, select and the LaunchConfigs. With
//                                   Params::reuse_pattern and factors computed for A's pattern: rescales A and runs
//                                   reuse_sweeps sweeps on the current factor pattern, starting from the current
//                                   factors (the time-stepping use case).
//   par_ilut_step(exec, h)          one more step (for callers that look at every step)
//   par_ilut_residual(exec, h)      the residual of the current factors
//   par_ilut_lower / par_ilut_upper copies of the factors as Crs matrices (L; U or Lᵀ)
//
// Input: a square, non-empty Crs with sorted, unique column indices, every diagonal entry stored and non-zero
// (ParICT: positive, and A symmetric up to a relative 1e-12), finite values — otherwise InvalidInput (a zero /
// non-positive diagonal is a BreakdownError for that row). A factorization whose last sweep meets a zero pivot
// (pivot_tolerance = 0) or produces a non-finite value (square root of a negative number, division by zero) throws
// BreakdownError with the first such row (Params::diagonal_shift: the numeric phase starts over on A_s + alpha I
// instead, by default with the shift on the initial guess only; Params::sweep_order auto: first with ordered sweeps);
// factors are never left with NaN values (non-finite updates are skipped, as in Ginkgo). Asynchronous steps before the
// last one that skipped an update only count it (Stats::breakdown_steps): a bad pivot from stale or early values often
// disappears in later steps; in the deterministic mode, and in par_ilut_step, the first breakdown throws. Deterministic
// mode: all phases give bit-identical factors on every backend and thread count.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut_handle.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_driver.hpp>

namespace AsyncSparse {

namespace Impl {
template <class ExecSpace, class Scalar, class Device>
void par_ilut_static_checks() {
  static_assert(std::is_floating_point<Scalar>::value, "par_ilut: Scalar must be float or double");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Device::memory_space>::accessible,
                "par_ilut: the matrix must be accessible from the execution space");
}
}  // namespace Impl

/// Symbolic phase: checks A's pattern (square, non-empty, sorted unique columns, stored diagonal; ParICT a
/// symmetric pattern) and builds the pattern of the initial guess, for the kind Params::kind. Resets the factors
/// and the Stats. Throws InvalidInput.
template <class ExecSpace, class Scalar, class Device>
void par_ilut_symbolic(const ExecSpace& exec, ParIlutHandle<Scalar, Device>& handle, const Crs<Scalar, Device>& A) {
  Impl::par_ilut_static_checks<ExecSpace, Scalar, Device>();
  Impl::ilut_symbolic(exec, handle, A, std::string(Impl::par_ilut_name(handle.params.kind)) + "_symbolic");
}

/// Numeric phase: ParILUT (ParICT) of A, which must have the pattern given to par_ilut_symbolic (see the header
/// comment; with Params::reuse_pattern the pattern-reusing update). Throws InvalidInput / BreakdownError (row) /
/// DivergenceError as documented there.
template <class ExecSpace, class Scalar, class Device>
void par_ilut_numeric(const ExecSpace& exec, ParIlutHandle<Scalar, Device>& handle, const Crs<Scalar, Device>& A) {
  Impl::par_ilut_static_checks<ExecSpace, Scalar, Device>();
  Impl::ilut_numeric(exec, handle, A, std::string(Impl::par_ilut_name(handle.params.kind)) + "_numeric");
}

/// One more ParILUT / ParICT step (after par_ilut_numeric), regardless of Params::max_steps. The residual of the
/// factors before the step is stored in the previous entry of Stats::steps. With `stop_on_stagnation`, the step
/// applies the rule of par_ilut_numeric (Params::stagnation_tolerance): when the factors it starts from improved the
/// ILU residual by less than that fraction over the step before, it returns false, sets Stats::stagnated and leaves
/// the factors unchanged (callers that run the steps one at a time stop where par_ilut_numeric stops). Returns true
/// when the step ran. Throws BreakdownError at the first breakdown.
template <class ExecSpace, class Scalar, class Device>
bool par_ilut_step(const ExecSpace& exec, ParIlutHandle<Scalar, Device>& handle, bool stop_on_stagnation = false) {
  if (handle.stats().steps.empty())
    throw InvalidInput(std::string(Impl::par_ilut_name(handle)) + "_step: par_ilut_numeric must be called first");
  const bool ran = Impl::ilut_step(exec, handle, stop_on_stagnation);
  Impl::ilut_fill_history(handle);
  return ran;
}

/// ||A_s - L U||_F / ||A_s||_F (ParICT: L Lᵀ) of the current factors, stored in the last Stats::steps entry.
/// Throws DivergenceError (and marks the factorization not computed) when it exceeds
/// Params::divergence_tolerance or is not finite.
template <class ExecSpace, class Scalar, class Device>
double par_ilut_residual(const ExecSpace& exec, ParIlutHandle<Scalar, Device>& handle) {
  if (handle.stats().steps.empty()) throw InvalidInput("par_ilut_residual: par_ilut_numeric must be called first");
  const double r = Impl::ilut_final_residual(exec, handle);
  Impl::ilut_fill_history(handle);
  return r;
}

/// L (copy): ParILUT unit lower triangular with the ones stored as the last entry of each row; ParICT lower
/// triangular with its diagonal last. Rows sorted. Factor of the scaled matrix A_s.
template <class ExecSpace, class Scalar, class Device>
Crs<Scalar, Device> par_ilut_lower(const ExecSpace& exec, const ParIlutHandle<Scalar, Device>& handle) {
  if (handle.stats().steps.empty()) throw InvalidInput("par_ilut_lower: par_ilut_numeric must be called first");
  return Impl::ilut_lower(exec, handle);
}

/// U (copy, diagonal first in each row, rows sorted): ParILUT's U, ParICT's Lᵀ.
template <class ExecSpace, class Scalar, class Device>
Crs<Scalar, Device> par_ilut_upper(const ExecSpace& exec, const ParIlutHandle<Scalar, Device>& handle) {
  if (handle.stats().steps.empty()) throw InvalidInput("par_ilut_upper: par_ilut_numeric must be called first");
  return Impl::ilut_upper(exec, handle);
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured scalars
// and devices; other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_PAR_ILUT(EXTERN, S, D)                                                                        \
  EXTERN template void par_ilut_symbolic(const D::execution_space&, ParIlutHandle<S, D>&, const Crs<S, D>&);          \
  EXTERN template void par_ilut_numeric(const D::execution_space&, ParIlutHandle<S, D>&, const Crs<S, D>&);           \
  EXTERN template bool par_ilut_step(const D::execution_space&, ParIlutHandle<S, D>&, bool);                          \
  EXTERN template double par_ilut_residual(const D::execution_space&, ParIlutHandle<S, D>&);                          \
  EXTERN template Crs<S, D> par_ilut_lower(const D::execution_space&, const ParIlutHandle<S, D>&);                    \
  EXTERN template Crs<S, D> par_ilut_upper(const D::execution_space&, const ParIlutHandle<S, D>&);
ASYNCSPARSE_ETI_DECLARE_DOUBLE(ASYNCSPARSE_ETI_PAR_ILUT)

}  // namespace AsyncSparse
