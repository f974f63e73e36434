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
// asynchronous Jacobi family (async_jacobi() with JacobiMode::Sync calls this function).
//
// Stopping: exactly params.updates iterations when params.tol == 0; otherwise the residual norm is
// formed from the r the next iteration computes anyway, every params.check_interval iterations, and the
// iteration stops at tol or on divergence (non-finite residual, or growth beyond divergence_factor).
#pragma once

#include <Kokkos_Core.hpp>

#include <asyncsparse/relaxation/AsyncSparse_async_jacobi_handle.hpp>
#include <asyncsparse/relaxation/impl/AsyncSparse_jacobi_impl.hpp>

namespace AsyncSparse {

/// Synchronous Jacobi x <- x + omega D^-1 (b - A x) on `exec`, starting from the given x, updating it in
/// place. Parameters from h.params (mode is ignored), launch from h.launch; statistics in h.stats (also
/// returned). Throws InvalidInput for bad input (non-square / empty matrix, missing or zero diagonal,
/// non-finite entries, wrong vector lengths, bad parameters) and, with params.throw_on_divergence,
/// DivergenceError.
template <class ExecSpace, class Scalar, class Device, class BView, class XView>
const AsyncJacobiStats& jacobi(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h,
                               const Crs<Scalar, Device>& A, const BView& b_in, const XView& x_in) {
  static_assert(std::is_same<typename Device::execution_space, ExecSpace>::value,
                "jacobi: the execution space must be the one of the handle's Device");
  const Kokkos::View<const Scalar*, Device> b = b_in;
  const Kokkos::View<Scalar*, Device> x = x_in;
  const AsyncJacobiParams& p = h.params;
  Impl::check_jacobi_params(p, h.launch, "jacobi", false);
  const double bnorm = Impl::jacobi_setup(exec, h, A, b, x, "jacobi");

  AsyncJacobiStats st;
  st.mode = JacobiMode::Sync;
  st.b_norm = bnorm;
  st.launch = Impl::resolve_jacobi_launch(h.launch, A, exec);
  st.workers = A.numRows();
  ChunkedLaunch<ExecSpace> launcher(st.launch);
  const bool checks = p.tol > 0 || p.record_history;
  const ordinal_t n = A.numRows();
  auto r = h.ws.r;
  auto d = h.ws.diag;
  const bool unit = h.ws.unit_diagonal;  // x / 1 == x: skip loading the diagonal
  const Scalar omega = static_cast<Scalar>(p.omega);
  const Kokkos::View<const Scalar*, Device> xc = x;

  st.initial_residual = p.residual_norms ? Impl::relative_residual(exec, launcher, h, A, b, x, bnorm) : -1.0;
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
  exec.fence();
  Kokkos::Timer timer;
  for (int k = 0; k < p.updates && !stopped; ++k) {
    Impl::compute_residual(exec, launcher, A, b, xc, r);
    if (checks && k > 0 && k % p.check_interval == 0) {
      // r holds b - A x_k: its norm is the residual after k iterations, at no extra sweep
      exec.fence();
      Kokkos::Timer tc;
      const double res = Impl::norm2(exec, r) * scale;
      st.check_seconds += tc.seconds();
      record(res, k, timer.seconds());
      if (Impl::jacobi_diverged(st, res, p.divergence_factor, k)) break;
      if (p.tol > 0 && res <= p.tol) {
        st.status = JacobiStatus::Converged;
        break;
      }
    }
    Kokkos::parallel_for(
        "AsyncSparse::jacobi::update", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i) { x(i) = unit ? x(i) + omega * r(i) : x(i) + omega * r(i) / d(i); });
    st.updates_done = k + 1;
    ++st.kernel_launches;
  }
  exec.fence();
  st.total_seconds = timer.seconds();
  st.update_seconds = st.total_seconds - st.check_seconds;
  Impl::jacobi_final_residual(exec, launcher, h, st, A, b, x);
  if (p.record_history && (st.update_history.empty() || st.update_history.back() != st.updates_done))
    record(st.final_residual, st.updates_done, st.total_seconds);
  h.stats = st;
  Impl::jacobi_finish(h.stats, p, "jacobi");
  return h.stats;
}

}  // namespace AsyncSparse
