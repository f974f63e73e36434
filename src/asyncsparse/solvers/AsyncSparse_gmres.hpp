// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — restarted GMRES(m) with right preconditioning.
//
// Arnoldi with classical Gram–Schmidt applied twice (CGS2, "twice is enough": as accurate as modified
// Gram–Schmidt, but each pass is a product with the whole basis instead of j+1 dependent dot/axpy
// steps), Givens rotations on the Hessenberg matrix on the host. Right preconditioning (A M⁻¹ u = b,
// x = M⁻¹ u) keeps the monitored residual the true residual of the original system, so iteration counts
// are comparable with PCG's. The residual estimate from the rotations is used inside a cycle; at each
// restart and at exit the true residual is recomputed. Lucky breakdown (h_{j+1,j} = 0) ends the cycle
// early with the exact solution of the subspace.
//
// Device work of Arnoldi step j (Impl::GmresArnoldi), all asynchronous:
//   z = M⁻¹ v_j, w = A z                       (without a preconditioner w = A v_j)
//   h₁ = V_jᵀ w                                 one pass over V_j
//   w −= V_j h₁ and h₂ = V_jᵀ w                 one pass (the update and the second projection per row)
//   w −= V_j h₂ and ‖w‖²                        one pass
//   v_{j+1} = w / ‖w‖                           norm read on the device
// then one copy of (h₁, h₂, ‖w‖²) to the host, which waits for it while the device already runs step j+1's
// preconditioner and product (they depend only on v_{j+1}). One host synchronisation per iteration
// (the former loop had three: one per Gram–Schmidt pass and one for the norm), three passes over the
// basis instead of four. Small systems on GPUs (SolverParams::gmres_one_team_rows) run each whole cycle in one launch
// of one team (Impl::gmres_team_cycles, linalg/AsyncSparse_gmres_team.hpp) where the preconditioner has a one-team
// application (none, diagonal Jacobi, the factor preconditioners with Jacobi triangular solves), otherwise the three
// passes and the scaling of each step in one launch of one team (Impl::arnoldi_one_team): the latency of dependent
// kernels and of the host's waits was most of their Arnoldi step.
#pragma once

#include <KokkosBlas2_gemv.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/exec/AsyncSparse_scalar_readback.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#include <asyncsparse/linalg/AsyncSparse_gmres_team.hpp>
#include <asyncsparse/linalg/AsyncSparse_krylov_kernels.hpp>
#include <asyncsparse/solvers/AsyncSparse_cg.hpp>
#include <asyncsparse/solvers/AsyncSparse_krylov_common.hpp>

namespace AsyncSparse {

namespace Impl {

/// Basis, Hessenberg matrix and rotations of one GMRES(m) cycle; the device side of the Arnoldi steps.
template <class Scalar, class Device>
class GmresArnoldi {
 public:
  using V = Kokkos::View<Scalar*, Device>;
  using CV = Kokkos::View<const Scalar*, Device>;
  using exec = typename Device::execution_space;

  GmresArnoldi(const Crs<Scalar, Device>& A, Preconditioner<Scalar, Device>* M, int m, bool one_team)
      : A_(A),
        M_(M),
        m_(m),
        one_team_(one_team),
        one_team_threads_(one_team ? arnoldi_one_team_threads<Scalar, Device>() : 0),
        launch_(spmv_launch<exec>(A.numRows(), A.nnz())),
        parts_(work_parts(static_cast<std::size_t>(A.numRows()), m, M != nullptr)),
        Vb_(parts_[0].data(), static_cast<std::size_t>(A.numRows()), static_cast<std::size_t>(m + 1)),
        w_(parts_[1]),
        z_(M ? parts_[2] : V()),
        yd_(parts_[3]),
        yh_(uninitialized("AsyncSparse::gmres::y_host"), static_cast<std::size_t>(m)),
        sc_(2 * (m + 1) + 1, "AsyncSparse::gmres::scalars"),
        H_(static_cast<std::size_t>((m + 1) * m), 0.0),
        cs_(m),
        sn_(m),
        g_(m + 1) {}
  GmresArnoldi(const GmresArnoldi&) = delete;  // Vb_ views parts_'s memory without counting references
  GmresArnoldi& operator=(const GmresArnoldi&) = delete;

  double& h(int i, int j) { return H_[static_cast<std::size_t>(j) * (m_ + 1) + i]; }
  double g(int i) const { return g_[i]; }

  /// v_0 = r / β, g = β e_1, H = 0.
  void start_cycle(const V& r, double beta) {
    Blas<Scalar, Device>::scal(column(0), Scalar(1.0 / beta), r);  // column 0 is not read: it may hold anything
    std::fill(g_.begin(), g_.end(), 0.0);
    std::fill(H_.begin(), H_.end(), 0.0);
    g_[0] = beta;
  }

  /// w = A M⁻¹ v_j (asynchronous).
  void product(int j) {
    const V vj = column(j);
    if (M_) M_->apply(vj, z_);
    spmv_dot<Scalar, Device>(A_, CV(M_ ? z_ : vj), w_, Kokkos::View<double*, Device>(), 0, launch_);
  }

  /// CGS2 of w against v_0..v_j, v_{j+1} = w / ‖w‖, and the copy of the coefficients to the host posted.
  void orthogonalize(int j) {
    const int k = j + 1;
    const auto s = sc_.device();
    if (one_team_) {
      arnoldi_one_team<Scalar, Device>(Vb_, k, w_, column(j + 1), s, 0, m_ + 1, norm_slot(), one_team_threads_);
      sc_.post();
      return;
    }
    const auto Vj = Kokkos::subview(Vb_, Kokkos::ALL(), Kokkos::make_pair(0, k));
    const auto h1 = Kokkos::subview(s, Kokkos::make_pair(0, k));
    const auto h2 = Kokkos::subview(s, Kokkos::make_pair(m_ + 1, m_ + 1 + k));
    const auto nrm = Kokkos::subview(s, Kokkos::make_pair(norm_slot(), norm_slot() + 1));
    ortho_pass<Scalar, Device>(OrthoPass::Dot, Vj, k, w_, h1, h1);
    ortho_pass<Scalar, Device>(OrthoPass::UpdateDot, Vj, k, w_, h1, h2);
    ortho_pass<Scalar, Device>(OrthoPass::UpdateNorm, Vj, k, w_, h2, nrm);
    scale_by_norm<Scalar, Device>(w_, column(j + 1), s, norm_slot());
    sc_.post();
  }

  /// Waits for the coefficients of step j, stores column j of H and returns h_{j+1,j} = ‖w‖.
  double finish_column(int j) {
    const double* c = sc_.wait();
    for (int i = 0; i <= j; ++i) h(i, j) = c[i] + c[m_ + 1 + i];
    h(j + 1, j) = std::sqrt(c[norm_slot()]);
    return h(j + 1, j);
  }

  /// Applies the previous rotations to column j and a new one that zeroes h_{j+1,j}; returns false when the
  /// column is zero (singular preconditioned operator). g then holds the residual estimate |g_{j+1}|.
  bool rotate(int j) { return givens_step(&h(0, j), cs_.data(), sn_.data(), g_.data(), j); }

  /// Solves the j×j triangular least-squares system and updates x += M⁻¹ (V y).
  void update_solution(int j, const V& x) {
    std::vector<double> y(j);
    back_substitution(H_.data(), m_ + 1, g_.data(), y.data(), j);
    for (int i = 0; i < j; ++i) yh_(i) = static_cast<Scalar>(y[i]);
    const auto yd = Kokkos::subview(yd_, std::make_pair(0, j));
    // yh_ is written again only in the next cycle, after the restart's Blas::residual has waited for the device
    Kokkos::deep_copy(exec(), yd, Kokkos::subview(yh_, std::make_pair(0, j)));
    const auto Vj = Kokkos::subview(Vb_, Kokkos::ALL(), Kokkos::make_pair(0, j));
    KokkosBlas::gemv("N", Scalar(1), Vj, yd, Scalar(0), w_);
    if (M_) {
      M_->apply(w_, z_);
      Blas<Scalar, Device>::axpby(Scalar(1), z_, Scalar(1), x);
    } else {
      Blas<Scalar, Device>::axpby(Scalar(1), w_, Scalar(1), x);
    }
  }

 private:
  V column(int j) const { return Kokkos::subview(Vb_, Kokkos::ALL(), j); }
  /// The basis (n x (m + 1), column-major), w, z (with a preconditioner) and y (m) from one allocation of the
  /// device-array cache (Impl::uninitialized_parts): each is written before it is read (the basis column by column as
  /// the cycle proceeds, w by the product, z by the preconditioner, y before the update). A solve used to allocate and
  /// zero four arrays and each cycle one more, every allocation a cudaMalloc of about 50 us on an H200.
  static std::array<V, 4> work_parts(std::size_t n, int m, bool preconditioned) {
    const auto cols = static_cast<std::size_t>(m + 1);
    return uninitialized_parts<V, 4>("AsyncSparse::gmres::work",
                                     {n * cols, n, preconditioned ? n : 0, static_cast<std::size_t>(m)});
  }
  int norm_slot() const { return 2 * (m_ + 1); }

  Crs<Scalar, Device> A_;
  Preconditioner<Scalar, Device>* M_;
  int m_;
  bool one_team_;         // orthogonalize in one launch of one team (Impl::gmres_one_team)
  int one_team_threads_;  // its team's threads (arnoldi_one_team_threads)
  SpmvLaunch launch_;
  std::array<V, 4> parts_;  // holds the memory of Vb_ (a View of it without reference counting) and of w, z, y
  Basis<Scalar, Device> Vb_;
  V w_, z_, yd_;
  Kokkos::View<Scalar*, Kokkos::HostSpace> yh_;
  ScalarReadback<Device> sc_;
  std::vector<double> H_, cs_, sn_, g_;
};

/// The status and message of an Arnoldi step that failed: `status` NonFinite (the new basis vector is not finite) or
/// Breakdown (its Hessenberg column is zero); both kinds of cycle (gmres_cycle, gmres_team_cycles) report through it.
inline void step_failed(SolverStatus status, SolverResult& res) {
  res.status = status;
  res.message = status == SolverStatus::NonFinite
                    ? "Arnoldi vector became NaN/Inf (preconditioner or matrix produced it)"
                    : "Hessenberg column is zero (singular preconditioned operator)";
}

/// One GMRES(m) cycle from the residual r (‖r‖ = beta): Arnoldi steps until convergence, the restart
/// length, the iteration limit, or a failure; then x is updated. `total` counts iterations over all cycles.
/// Returns true when the solve must stop without a further cycle (NonFinite, Breakdown, time limit).
template <class Scalar, class Device>
bool gmres_cycle(GmresArnoldi<Scalar, Device>& arn, const Kokkos::View<Scalar*, Device>& r, double beta,
                 const Kokkos::View<Scalar*, Device>& x, double bnorm, double rel0, int m, int& total,
                 const SolverParams& params, SolverResult& res, KrylovMonitor& mon) {
  arn.start_cycle(r, beta);
  arn.product(0);
  int j = 0;
  bool stop = false;
  for (; j < m && total < params.max_iterations; ++j) {
    arn.orthogonalize(j);
    if (j + 1 < m && total + 1 < params.max_iterations) arn.product(j + 1);  // overlaps the host's wait
    const double hnext = arn.finish_column(j);
    if (!std::isfinite(hnext)) {
      step_failed(SolverStatus::NonFinite, res);
      return true;
    }
    if (!arn.rotate(j)) {
      step_failed(SolverStatus::Breakdown, res);
      stop = true;
      break;
    }
    ++total;
    const double rel = std::abs(arn.g(j + 1)) / bnorm;
    mon.record(rel);
    report_iteration("gmres", params.verbose, total, rel);
    if (rel <= params.tol || hnext == 0) {
      ++j;
      break;
    }
    if (rel > params.divergence_factor * rel0) {
      res.status = SolverStatus::Diverged;
      ++j;
      break;
    }
    if (mon.time_up()) {
      stop = true;
      ++j;
      break;
    }
  }
  if (j > 0) arn.update_solution(j, x);
  return stop;
}

/// The status after a cycle that did not fail, from the true relative residual `rel` after its update: NonFinite,
/// Converged, or the message of a cycle whose estimate diverged; false, the status left as it is, otherwise.
inline bool after_cycle(double rel, const SolverParams& params, SolverResult& res) {
  if (!std::isfinite(rel)) {
    res.status = SolverStatus::NonFinite;
    res.message = "residual became NaN/Inf";
  } else if (rel <= params.tol) {
    res.status = SolverStatus::Converged;
  } else if (res.status == SolverStatus::Diverged) {
    res.message = "residual grew by more than " + format_number(params.divergence_factor);
  } else {
    return false;
  }
  return true;
}

/// Whether M is diagonal Jacobi computed for vectors of n rows (Preconditioner::diagonal_scaling): the one-team cycle
/// then applies its diagonal itself (DiagonalTeamApply). For n = 0 any computed M counts (its empty diagonal suffices).
template <class Scalar, class Device>
bool team_cycle_diagonal(const Preconditioner<Scalar, Device>& M, std::size_t n) {
  return M.isComputed() && M.diagonal_scaling().extent(0) == n;
}

/// Whether M has a one-team application for vectors of n rows (launch_team_cycle launches): none without M, the
/// diagonal of diagonal Jacobi (team_cycle_diagonal), else the preconditioner's own
/// (Preconditioner::has_gmres_team_cycle).
template <class Scalar, class Device>
bool has_team_cycle(const Preconditioner<Scalar, Device>* M, ordinal_t n) {
  return !M || team_cycle_diagonal(*M, static_cast<std::size_t>(n)) || M->has_gmres_team_cycle(n);
}

/// Launches one GMRES cycle in one team (Impl::GmresTeamCycle) with M's one-team application: none without M, the
/// diagonal of diagonal Jacobi (team_cycle_diagonal), else the preconditioner's own
/// (Preconditioner::launch_gmres_team_cycle). False, nothing launched, where M has none.
template <class Scalar, class Device>
bool launch_team_cycle(Preconditioner<Scalar, Device>* M, const GmresTeamCycleArgs<Scalar, Device>& a) {
  if (!M) {
    gmres_team_cycle_launch(a, IdentityTeamApply());
    return true;
  }
  if (team_cycle_diagonal(*M, a.x.extent(0))) {
    gmres_team_cycle_launch(a, DiagonalTeamApply<Scalar, Device>{M->diagonal_scaling()});
    return true;
  }
  return M->launch_gmres_team_cycle(a);
}

/// GMRES's cycles each in one launch of one team (small systems, SolverParams::gmres_one_team_rows), from the residual
/// r of x: per cycle one launch and one wait for its steps' residual estimates (recorded, reported and counted as the
/// host-driven cycles do: gmres_cycle) and the true residual after its update; the time limit is checked after each
/// cycle. Returns false where the cycle does not fit the team's scratch memory (gmres_team_cycle_fits: restart lengths
/// from 69 on CUDA with Kokkos 3.4) or M has no one-team application (launch_team_cycle), before the first cycle
/// (nothing done) or, should it lose it, before a later one; the caller then runs the remaining cycles host-driven from
/// r and beta, which each cycle leaves as b − A x and ‖b − A x‖. On return `total` holds the iterations.
template <class Scalar, class Device>
bool gmres_team_cycles(const Crs<Scalar, Device>& A, const Kokkos::View<const Scalar*, Device>& b,
                       const Kokkos::View<Scalar*, Device>& x, const Kokkos::View<Scalar*, Device>& r,
                       Preconditioner<Scalar, Device>* M, double bnorm, double rel0, const SolverParams& params,
                       SolverResult& res, KrylovMonitor& mon, int& total, double& beta) {
  using V = Kokkos::View<Scalar*, Device>;
  using D = Kokkos::View<double*, Device>;
  using Args = GmresTeamCycleArgs<Scalar, Device>;
  const int m = params.restart;
  // nothing prepared where the cycle does not fit or M has no one-team form
  if (!gmres_team_cycle_fits<Scalar, Device>(m) || !has_team_cycle(M, A.numRows())) return false;
  const auto n = static_cast<std::size_t>(A.numRows());
  const auto cols = static_cast<std::size_t>(m + 1);
  // each array is written before it is read: the basis column by column, w by the product, z by M, out step by step
  // and at the cycle's end
  const auto vecs = uninitialized_parts<V, 3>("AsyncSparse::gmres::team_work", {n * cols, n, M ? n : 0});
  const D outd = cached_uninitialized<D>("AsyncSparse::gmres::team_out", static_cast<std::size_t>(Args::kOutHead + m));
  Args a;
  a.A = A;
  a.b = b;
  a.x = x;
  a.r = r;
  a.V = Basis<Scalar, Device>(vecs[0].data(), n, cols);  // vecs holds the memory until the solve returns
  a.w = vecs[1];
  a.z = M ? vecs[2] : vecs[1];  // not read without M
  a.out = outd;
  a.long_rows =
      team_long_rows<Device>(launch_instance<typename Device::execution_space>(), A.graph.row_map, A.numRows(), 0);
  a.m = m;
  a.tol_abs = params.tol * bnorm;
  a.diverged_abs = params.divergence_factor * rel0 * bnorm;
  // not filled at its creation: a host View's fill is a parallel_for on the host's execution space (OpenMP beside a
  // GPU), which wakes every OpenMP thread; in some processes that wait cost a small solve more than its kernels
  // (perf_tests/results/MEASUREMENTS.md#host-launches)
  const Kokkos::View<double*, Kokkos::HostSpace> out(uninitialized("AsyncSparse::gmres::team_out_host"),
                                                     a.out.extent(0));
  while (res.status == SolverStatus::MaxIterations && total < params.max_iterations) {
    a.max_steps = std::min(m, params.max_iterations - total);
    a.beta = beta;  // r is b − A x: from krylov_start or the previous cycle's end
    if (!launch_team_cycle(M, a)) return false;
    ++res.one_team_cycles;
    res.one_team_orthogonalization = true;
    Kokkos::deep_copy(out, a.out);  // waits for the cycle
    const int steps = static_cast<int>(out(0));
    const auto stop = static_cast<GmresTeamStop>(static_cast<int>(out(1)));
    for (int j = 0; j < steps; ++j) {
      const double est = out(Args::kOutHead + j) / bnorm;
      mon.record(est);
      report_iteration("gmres", params.verbose, ++total, est);
    }
    const bool failed = stop == GmresTeamStop::NonFinite || stop == GmresTeamStop::Breakdown;
    // M's applications: one per step run (a failed step's included), one for the update unless NonFinite skipped it
    if (M) M->note_replayed_applications(steps + (failed ? 1 : 0) + (steps > 0 && stop != GmresTeamStop::NonFinite));
    beta = out(2);
    const double rel = beta / bnorm;
    if (failed) {
      step_failed(stop == GmresTeamStop::NonFinite ? SolverStatus::NonFinite : SolverStatus::Breakdown, res);
    } else if (stop == GmresTeamStop::Diverged) {
      res.status = SolverStatus::Diverged;
    }
    if (failed) break;
    if (!after_cycle(rel, params, res) && mon.time_up()) break;
  }
  return true;
}

}  // namespace Impl

/// Solve A x = b by right-preconditioned GMRES(params.restart). `M` may be nullptr.
template <class Scalar, class Device>
SolverResult gmres(const Crs<Scalar, Device>& A, const Kokkos::View<const Scalar*, Device>& b,
                   const Kokkos::View<Scalar*, Device>& x, Preconditioner<Scalar, Device>* M,
                   const SolverParams& params = SolverParams()) {
  using V = Kokkos::View<Scalar*, Device>;
  using exec = typename Device::execution_space;
  Impl::check_system("gmres", A, x, b);
  if (params.restart < 1) throw InvalidInput("gmres: restart must be >= 1, got " + std::to_string(params.restart));
  if (params.gmres_one_team_rows < -1)
    throw InvalidInput("gmres: gmres_one_team_rows must be >= -1 (-1: the default rule, 0: never), got " +
                       std::to_string(params.gmres_one_team_rows));
  Impl::check_params("gmres", params);
  const int m = params.restart;
  SolverResult res;
  Impl::KrylovMonitor mon("gmres", params, res);
  const auto r = Impl::cached_uninitialized<V>("AsyncSparse::gmres::r", static_cast<std::size_t>(A.numRows()));
  const Impl::KrylovStart start = Impl::krylov_start("gmres", A, x, b, r, params, res, mon);
  if (start.done) return res;
  const double bnorm = start.b_norm, rel0 = start.rel0();
  double beta = start.r_norm, rel = rel0;
  const bool one_team = Impl::gmres_one_team(A.numRows(), params.gmres_one_team_rows, Impl::is_gpu_space<exec>());
  int total = 0;
  const bool team = one_team && Impl::gmres_team_cycles(A, b, x, r, M, bnorm, rel0, params, res, mon, total, beta);
  rel = beta / bnorm;
  if (!team) {
    Impl::GmresArnoldi<Scalar, Device> arn(A, M, m, one_team);
    while (res.status == SolverStatus::MaxIterations && total < params.max_iterations) {
      res.one_team_orthogonalization = one_team;  // a cycle runs
      const bool stop = Impl::gmres_cycle(arn, r, beta, x, bnorm, rel0, m, total, params, res, mon);
      beta = Blas<Scalar, Device>::residual(A, x, b, r);
      rel = beta / bnorm;
      if (stop) break;
      Impl::after_cycle(rel, params, res);
    }
  }
  res.iterations = total;
  res.final_relative_residual = rel;
  exec().fence();
  res.time_seconds = mon.seconds();
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
