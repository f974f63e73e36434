// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — synchronous (weighted) Jacobi iteration, the baseline of the asynchronous Jacobi paper.
//
// Tsai, Nayak, Chow & Anzt, "Implementing Asynchronous Jacobi Iteration on GPUs" (2022), Algorithm 1:
//     for k = 0 .. updates-1:   r = b - A x   (synchronise)   x += omega D^-1 r   (synchronise)
// Each step is its own kernel on the execution space instance, so the kernel boundary is the global
// synchronisation. The residual kernel runs one lane group (vector_length lanes, Kokkos-Kernels'
// heuristic by default) per row through the launch-control layer; the update kernel is a flat loop.
// The iteration double-buffers through r: it is deterministic, and with one lane per row (host
// backends) it reproduces Reference::jacobi bit for bit — this is the deterministic mode of the
// asynchronous Jacobi family (async_jacobi_* with JacobiMode::Sync run this iteration).
//
// Life cycle (AsyncJacobiHandle; the same handle serves the asynchronous variants):
//   jacobi_symbolic(exec, h, A)   pattern: A square and non-empty, workspace sized for A. Reads nothing of
//                                 h.params.
//   jacobi_numeric(exec, h, A)    values: finite entries, every diagonal entry stored and non-zero; the
//                                 diagonal. A must have the symbolic pattern. Reads nothing of h.params.
//   jacobi_apply(exec, h, b, x)   exactly params.updates iterations from x (a smoother: no residual checks).
//                                 Reads omega, updates, divergence_factor, residual_norms, throw_on_divergence
//                                 and h.launch.
//   jacobi_solve(exec, h, b, x)   as jacobi_apply, but stops at params.tol: the residual norm is formed from
//                                 the r the next iteration computes anyway, every params.check_interval
//                                 iterations (0: kFirstCheckInterval, 10); also reads tol, check_interval,
//                                 record_history.
// Both stop on divergence (non-finite residual, or growth beyond divergence_factor).
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi_handle.hpp>
#include <asyncsparse/relaxation/impl/AsyncSparse_jacobi_impl.hpp>

namespace AsyncSparse {

namespace Impl {

/// Synchronous Jacobi x <- x + omega D^-1 (b - A x) on `exec` with the matrix of the numeric phase, from the
/// given x, in place, with the parameters `p` (jacobi_run_params); `where` names the caller in messages.
template <class ExecSpace, class Scalar, class Device>
const AsyncJacobiStats& jacobi_run(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h,
                                   const AsyncJacobiParams& p, const Kokkos::View<const Scalar*, Device>& b,
                                   const Kokkos::View<Scalar*, Device>& x, const std::string& method,
                                   const std::string& where) {
  check_jacobi_params(p, h.launch, where.c_str(), false);
  const double bnorm = jacobi_check_vectors(exec, h, b, x, method, where);
  const auto& A = h.ws.A;

  AsyncJacobiStats st;
  st.mode = JacobiMode::Sync;
  st.b_norm = bnorm;
  st.launch = resolve_jacobi_launch(h.launch, A, exec);
  st.workers = A.numRows();
  ChunkedLaunch<ExecSpace> launcher(st.launch);
  const bool checks = p.tol > 0 || p.record_history;
  const ordinal_t n = A.numRows();
  auto r = h.ws.r;
  auto d = h.ws.diag;
  const bool unit = h.ws.unit_diagonal;  // x / 1 == x: skip loading the diagonal
  const Scalar omega = static_cast<Scalar>(p.omega);
  const Kokkos::View<const Scalar*, Device> xc = x;

  st.initial_residual = p.residual_norms ? relative_residual(exec, launcher, h, A, b, x, bnorm) : -1.0;
  const double scale = bnorm > 0 ? 1.0 / bnorm : 1.0;
  auto record = [&](double res, int k, double t) {
    if (!p.record_history) return;
    st.residual_history.push_back(res);
    st.update_history.push_back(k);
    st.time_history.push_back(t);
  };
  record(st.initial_residual, 0, 0.0);
  bool stopped = false;
  if (p.tol > 0 && st.initial_residual <= p.tol) {
    st.status = JacobiStatus::Converged;
    stopped = true;
  }
  // the rule (0): a fixed interval here, so that the stop points are deterministic
  const int interval = p.check_interval > 0 ? p.check_interval : kFirstCheckInterval;
  exec.fence();
  Kokkos::Timer timer;
  for (int k = 0; k < p.updates && !stopped; ++k) {
    compute_residual(exec, launcher, A, b, xc, r);
    if (checks && k > 0 && k % interval == 0) {
      // r holds b - A x_k: its norm is the residual after k iterations, at no extra sweep
      exec.fence();
      Kokkos::Timer tc;
      const double res = norm2(exec, r) * scale;
      st.check_seconds += tc.seconds();
      ++st.checks;
      st.check_interval = interval;
      record(res, k, timer.seconds());
      if (jacobi_diverged(st, res, p.divergence_factor, k)) break;
      if (p.tol > 0 && res <= p.tol) {
        st.status = JacobiStatus::Converged;
        break;
      }
    }
    Kokkos::parallel_for(
        "AsyncSparse::jacobi::update", Impl::RangePolicy<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i) { x(i) = unit ? x(i) + omega * r(i) : x(i) + omega * r(i) / d(i); });
    st.updates_done = k + 1;
    ++st.kernel_launches;
  }
  exec.fence();
  st.total_seconds = timer.seconds();
  st.update_seconds = st.total_seconds - st.check_seconds;
  jacobi_final_residual(exec, launcher, h, st, A, b, x);
  if (p.record_history && (st.update_history.empty() || st.update_history.back() != st.updates_done))
    record(st.final_residual, st.updates_done, st.total_seconds);
  h.stats = st;
  jacobi_finish(h.stats, p, where.c_str());
  return h.stats;
}

template <class ExecSpace, class Device>
void jacobi_static_checks() {
  static_assert(std::is_same<typename Device::execution_space, ExecSpace>::value,
                "jacobi: the execution space must be the one of the handle's Device");
}

}  // namespace Impl

/// Symbolic phase: A square and non-empty; the workspace of the handle sized for A. Throws InvalidInput.
template <class ExecSpace, class Scalar, class Device>
void jacobi_symbolic(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h, const Crs<Scalar, Device>& A) {
  Impl::jacobi_static_checks<ExecSpace, Device>();
  Impl::jacobi_symbolic_impl(exec, h, A, "jacobi");
}

/// Numeric phase: A (with the pattern of the symbolic phase) has finite entries and a stored, non-zero diagonal;
/// computes the diagonal. Call again after changing A's values. Throws InvalidInput naming the first bad row.
template <class ExecSpace, class Scalar, class Device>
void jacobi_numeric(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h, const Crs<Scalar, Device>& A) {
  Impl::jacobi_static_checks<ExecSpace, Device>();
  Impl::jacobi_numeric_impl(exec, h, A, "jacobi");
}

/// Exactly params.updates synchronous Jacobi iterations x <- x + omega D^-1 (b - A x) from the given x, in place
/// (params.mode, tol, check_interval and record_history are not read). Statistics in h.stats (also returned).
/// Throws InvalidInput for bad input (wrong vector lengths, NaN/Inf in b or x with residual norms, bad
/// parameters) and, with params.throw_on_divergence, DivergenceError.
template <class ExecSpace, class Scalar, class Device>
const AsyncJacobiStats& jacobi_apply(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h,
                                     const typename AsyncJacobiHandle<Scalar, Device>::const_vector_type& b,
                                     const typename AsyncJacobiHandle<Scalar, Device>::vector_type& x) {
  Impl::jacobi_static_checks<ExecSpace, Device>();
  return Impl::jacobi_run(exec, h, Impl::jacobi_run_params(h.params, false), b, x, "jacobi", "jacobi_apply");
}

/// Synchronous Jacobi from the given x until ||b - A x|| / ||b|| <= params.tol (checked every check_interval
/// iterations, 0: kFirstCheckInterval; tol = 0: exactly params.updates iterations), at most params.updates iterations
/// (params.mode is not read). Errors as jacobi_apply.
template <class ExecSpace, class Scalar, class Device>
const AsyncJacobiStats& jacobi_solve(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h,
                                     const typename AsyncJacobiHandle<Scalar, Device>::const_vector_type& b,
                                     const typename AsyncJacobiHandle<Scalar, Device>::vector_type& x) {
  Impl::jacobi_static_checks<ExecSpace, Device>();
  return Impl::jacobi_run(exec, h, Impl::jacobi_run_params(h.params, true), b, x, "jacobi", "jacobi_solve");
}

}  // namespace AsyncSparse
