// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — restarted GMRES(m) with right preconditioning.
//
// Arnoldi with classical Gram–Schmidt applied twice (CGS2, "twice is enough": as accurate as modified
// Gram–Schmidt, but each pass is two matrix-vector products with the basis, h = Vᵀw and w -= V h, instead
// of 2(j+1) dot/axpy calls with a host synchronisation each), Givens rotations on the Hessenberg matrix.
// Right preconditioning (A M⁻¹ u = b, x = M⁻¹ u) keeps the monitored residual the true residual of
// the original system, so iteration counts are comparable with PCG's. The residual estimate from the
// rotations is used inside a cycle; at each restart and at exit the true residual is recomputed.
// Lucky breakdown (h_{j+1,j} = 0) ends the cycle early with the exact solution of the subspace.
#pragma once

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosBlas2_gemv.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>

#include <cmath>
#include <vector>

#include <asyncsparse/solvers/AsyncSparse_cg.hpp>

namespace AsyncSparse {

/// Solve A x = b by right-preconditioned GMRES(params.restart). `M` may be nullptr.
template <class Scalar, class Device>
SolverResult gmres(const Crs<Scalar, Device>& A, const Kokkos::View<const Scalar*, Device>& b,
                   const Kokkos::View<Scalar*, Device>& x, Preconditioner<Scalar, Device>* M,
                   const SolverParams& params = SolverParams()) {
  using V = Kokkos::View<Scalar*, Device>;
  using exec = typename Device::execution_space;
  Impl::check_system("gmres", A, x, b);
  if (params.restart < 1) throw InvalidInput("gmres: restart must be >= 1, got " + std::to_string(params.restart));
  if (!(params.tol > 0) || params.max_iterations < 0)
    throw InvalidInput("gmres: tol must be > 0 and max_iterations >= 0");
  const int m = params.restart;
  const auto n = static_cast<std::size_t>(A.numRows());
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device> Vb("gmres_V", n, m + 1);
  V r("gmres_r", n), w("gmres_w", n), z("gmres_z", n);
  V hcol("gmres_h", static_cast<std::size_t>(m + 1));  // one Hessenberg column, on the device
  auto hcol_host = Kokkos::create_mirror_view(hcol);
  std::vector<double> H(static_cast<std::size_t>((m + 1) * m), 0.0), cs(m), sn(m), g(m + 1);
  auto h = [&](int i, int j) -> double& { return H[static_cast<std::size_t>(j) * (m + 1) + i]; };

  SolverResult res;
  Kokkos::Timer timer;
  const double bnorm = static_cast<double>(KokkosBlas::nrm2(b));
  res.b_norm = bnorm;
  auto record = [&](double v) {
    if (params.record_history) {
      res.residual_history.push_back(v);
      res.time_history.push_back(timer.seconds());
    }
  };
  if (!std::isfinite(bnorm)) {
    res.status = SolverStatus::NonFinite;
    res.message = "right-hand side contains NaN or Inf";
    Impl::report_result("gmres", params.verbose, res);
    return res;
  }
  if (bnorm == 0) {
    Kokkos::deep_copy(x, Scalar(0));
    res.status = SolverStatus::Converged;
    record(0.0);
    return res;
  }
  auto precondition = [&](const V& in, const V& out) {
    if (M)
      M->apply(in, out);
    else
      Kokkos::deep_copy(out, in);
  };

  double beta = Impl::residual(A, x, b, r);
  double rel = beta / bnorm;
  const double rel0 = rel;
  record(rel);
  res.status = SolverStatus::MaxIterations;
  if (!std::isfinite(rel)) {
    res.status = SolverStatus::NonFinite;
    res.message = "initial residual is not finite (NaN/Inf in A or x)";
  } else if (rel <= params.tol) {
    res.status = SolverStatus::Converged;
  }
  int total = 0;
  while (res.status == SolverStatus::MaxIterations && total < params.max_iterations) {
    // start a cycle: v0 = r / beta
    auto v0 = Kokkos::subview(Vb, Kokkos::ALL(), 0);
    KokkosBlas::axpby(Scalar(1.0 / beta), r, Scalar(0), v0);
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int j = 0;
    bool stop_cycle = false;
    for (; j < m && total < params.max_iterations; ++j) {
      auto vj = Kokkos::subview(Vb, Kokkos::ALL(), j);
      precondition(V(vj), z);
      KokkosSparse::spmv("N", Scalar(1), A, z, Scalar(0), w);
      const auto Vj = Kokkos::subview(Vb, Kokkos::ALL(), Kokkos::make_pair(0, j + 1));
      const auto hj = Kokkos::subview(hcol, Kokkos::make_pair(0, j + 1));
      for (int pass = 0; pass < 2; ++pass) {
        KokkosBlas::gemv("T", Scalar(1), Vj, w, Scalar(0), hj);   // h = Vᵀ w
        KokkosBlas::gemv("N", Scalar(-1), Vj, hj, Scalar(1), w);  // w -= V h
        Kokkos::deep_copy(hcol_host, hcol);
        for (int i = 0; i <= j; ++i) h(i, j) += static_cast<double>(hcol_host(i));
      }
      h(j + 1, j) = static_cast<double>(KokkosBlas::nrm2(w));
      const double hnext = h(j + 1, j);
      if (!std::isfinite(hnext)) {
        res.status = SolverStatus::NonFinite;
        res.message = "Arnoldi vector became NaN/Inf (preconditioner or matrix produced it)";
        stop_cycle = true;
        break;
      }
      if (hnext > 0) KokkosBlas::axpby(Scalar(1.0 / hnext), w, Scalar(0), Kokkos::subview(Vb, Kokkos::ALL(), j + 1));
      // apply previous rotations to column j, then compute the new one
      for (int i = 0; i < j; ++i) {
        const double t = cs[i] * h(i, j) + sn[i] * h(i + 1, j);
        h(i + 1, j) = -sn[i] * h(i, j) + cs[i] * h(i + 1, j);
        h(i, j) = t;
      }
      const double denom = std::hypot(h(j, j), h(j + 1, j));
      if (denom == 0) {
        res.status = SolverStatus::Breakdown;
        res.message = "Hessenberg column is zero (singular preconditioned operator)";
        stop_cycle = true;
        break;
      }
      cs[j] = h(j, j) / denom;
      sn[j] = h(j + 1, j) / denom;
      h(j, j) = denom;
      h(j + 1, j) = 0;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      ++total;
      rel = std::abs(g[j + 1]) / bnorm;
      record(rel);
      Impl::report_iteration("gmres", params.verbose, total, rel);
      if (rel <= params.tol || hnext == 0) {
        ++j;
        break;
      }
      if (rel > params.divergence_factor * rel0) {
        res.status = SolverStatus::Diverged;
        ++j;
        break;
      }
    }
    // solve the j×j triangular system and update x += M^{-1} (V y)
    if (j > 0 && res.status != SolverStatus::NonFinite) {
      std::vector<double> y(j);
      for (int i = j - 1; i >= 0; --i) {
        double s = g[i];
        for (int k = i + 1; k < j; ++k) s -= h(i, k) * y[k];
        y[i] = s / h(i, i);
      }
      Kokkos::deep_copy(w, Scalar(0));
      for (int i = 0; i < j; ++i) KokkosBlas::axpby(Scalar(y[i]), Kokkos::subview(Vb, Kokkos::ALL(), i), Scalar(1), w);
      precondition(w, z);
      KokkosBlas::axpby(Scalar(1), z, Scalar(1), x);
    }
    std::fill(H.begin(), H.end(), 0.0);
    beta = Impl::residual(A, x, b, r);
    rel = beta / bnorm;
    if (stop_cycle) break;
    if (!std::isfinite(rel)) {
      res.status = SolverStatus::NonFinite;
      res.message = "residual became NaN/Inf";
    } else if (rel <= params.tol) {
      res.status = SolverStatus::Converged;
    } else if (res.status == SolverStatus::Diverged) {
      res.message = "residual grew by more than " + std::to_string(params.divergence_factor);
    }
  }
  res.iterations = total;
  res.final_relative_residual = rel;
  exec().fence();
  res.time_seconds = timer.seconds();
  Impl::report_result("gmres", params.verbose, res);
  return res;
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake) of both Krylov solvers.
#define ASYNCSPARSE_ETI_KRYLOV(EXTERN, S, D)                                                                         \
  EXTERN template SolverResult cg(const Crs<S, D>&, const Kokkos::View<const S*, D>&, const Kokkos::View<S*, D>&,  \
                                  Preconditioner<S, D>*, const SolverParams&);                                     \
  EXTERN template SolverResult gmres(const Crs<S, D>&, const Kokkos::View<const S*, D>&,                           \
                                     const Kokkos::View<S*, D>&, Preconditioner<S, D>*, const SolverParams&);
ASYNCSPARSE_ETI_DECLARE(ASYNCSPARSE_ETI_KRYLOV)

}  // namespace AsyncSparse
