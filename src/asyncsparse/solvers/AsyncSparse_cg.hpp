// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — preconditioned conjugate gradient (PCG) for symmetric positive definite systems.
//
// Hestenes–Stiefel PCG with a preconditioner hook (any AsyncSparse::Preconditioner, nullptr = none).
// The stopping test uses the recursively updated residual; the true residual ‖b − A x‖/‖b‖ is
// recomputed at exit and reported. Breakdown (pᵀAp ≤ 0 or rᵀz ≤ 0: matrix or preconditioner not SPD),
// divergence and non-finite values stop the iteration with a status instead of looping or returning
// NaN silently. x holds the initial guess on entry and the iterate on exit.
//
// Two implementations of the same recurrences (SolverParams::implementation; the default Auto takes Fused on GPUs
// and Reference on host backends, the faster ones measured, see Impl::resolve_krylov_implementation and
// perf_tests/results/MEASUREMENTS.md#cg-implementation):
//
//  * Fused. Per iteration three kernels without a preconditioner: (1) p = z + β p, q = A p and
//    pᵀq in one pass over A (β read from device scalars; p double-buffered so rows can read their
//    neighbours' old p), (2) α = rᵀz / pᵀq, x += α p, r −= α q and ‖r‖² in one pass, and with a
//    preconditioner (3) z = M⁻¹ r and rᵀz. Without a preconditioner z is r itself (rᵀz = ‖r‖², no copy); a
//    diagonal preconditioner (Preconditioner::diagonal_scaling, diagonal Jacobi) is applied in (2): z = d ∘ r
//    and rᵀz in the same pass, so diagonal PCG runs the two kernels of plain CG. A preconditioner whose last
//    pass can reduce rᵀz itself (Preconditioner::apply_dot: ISAI or Jacobi triangular solves on GPUs) does so, saving
//    the separate dot product of (3). On GPUs, systems of more than kFusedReductionMaxRows rows whose product takes one
//    thread per row sum pᵀq (and rᵀz with a diagonal, ISAI or Jacobi preconditioner) in a pass of their own after the
//    product or update that makes the vector: there Kokkos' range reduction walks many rows per thread and the fused
//    pass was slower than the two (SpmvLaunch::separate_reduction); diagonal PCG then runs four kernels, and the
//    iteration moves two vectors more.
//    The scalars stay on the device; the host reads them once per iteration (ScalarReadback), after it
//    has already launched the next iteration's preconditioner and product, which do not depend on its
//    decision (they write only z, p, q; x and r change only in (2)). The device thus never waits for the
//    host. When the host finds the iteration finished, that speculative work is discarded: x and r are
//    those of the last accepted iteration, as in the textbook loop. Vectors read or written per
//    iteration without a preconditioner: 10 (plus A), against 17 for the one-call-per-operation loop.
//    On CUDA, with a preconditioner whose application can be replayed (Preconditioner::replayable: ParIc / ParIlu /
//    ParIct / ParIlut with Jacobi, one-product ISAI or one-team exact solves), the work launched after the update — the
//    preconditioner (up to six sweeps) and the next product — is recorded in a CUDA graph once per parity of p from
//    iteration SolverParams::graph_from_iteration on and replayed with one launch (Impl::GraphReplay): on small
//    systems the host's ~5 us per Kokkos launch, not the device, set the pace of that chain. The loop then runs on
//    GraphReplay's stream; the iterates are the same bit for bit (SolverResult::graph_replays counts the replays).
//  * Reference: the textbook loop, one Kokkos-Kernels call per vector operation and every dot product
//    returned to the host (3 host synchronisations per iteration).
//
// The fused loop computes the same iterates: the reductions sum in another order (in double), so the
// residual histories agree to rounding. Pipelined / s-step variants (Chronopoulos–Gear, Ghysels–Vanroose)
// would save reductions, not bytes: with the reductions already on the device and the one host read
// overlapped, classical CG moves the fewest bytes and keeps its stability. The reductions end on the device in
// a fixed order (finish_team_sums; the row-per-thread products in Kokkos' range reduction, whose last block adds
// the block sums in order), so a fused solve repeats bit for bit.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_preconditioner_interface.hpp>
#include <asyncsparse/core/AsyncSparse_solver_types.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/exec/AsyncSparse_graph_replay.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/exec/AsyncSparse_scalar_readback.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#include <asyncsparse/linalg/AsyncSparse_krylov_kernels.hpp>
#include <asyncsparse/solvers/AsyncSparse_krylov_common.hpp>

namespace AsyncSparse {

namespace Impl {

/// Sets a breakdown status from rᵀz or pᵀAp (not positive: Breakdown; not finite: NonFinite). True when set.
inline bool cg_breakdown(SolverResult& res, double v, bool is_rz) {
  if (v > 0 && std::isfinite(v)) return false;
  res.status = std::isfinite(v) ? SolverStatus::Breakdown : SolverStatus::NonFinite;
  res.message = is_rz ? "r^T M^-1 r = " + std::to_string(v) + " (preconditioner not SPD or produced NaN)"
                      : "p^T A p = " + std::to_string(v) + " (matrix not SPD)";
  return true;
}

/// The textbook PCG loop (KrylovImplementation::Reference). r holds b − A x on entry.
template <class Scalar, class Device>
void cg_reference(const Crs<Scalar, Device>& A, const Kokkos::View<Scalar*, Device>& x,
                  const Kokkos::View<Scalar*, Device>& r, Preconditioner<Scalar, Device>* M, double bnorm, double rel0,
                  const SolverParams& params, SolverResult& res, KrylovMonitor& mon) {
  using V = Kokkos::View<Scalar*, Device>;
  using B = Blas<Scalar, Device>;
  const auto n = static_cast<std::size_t>(A.numRows());
  V z("cg_z", n), p("cg_p", n), q("cg_q", n);
  precondition(M, r, z);
  Kokkos::deep_copy(p, z);
  double rz = B::dot(r, z);
  for (int it = 1; it <= params.max_iterations; ++it) {
    if (cg_breakdown(res, rz, true)) break;
    B::spmv(Scalar(1), A, p, Scalar(0), q);
    const double pq = B::dot(p, q);
    if (cg_breakdown(res, pq, false)) break;
    const Scalar alpha = static_cast<Scalar>(rz / pq);
    B::axpby(alpha, p, Scalar(1), x);
    B::axpby(-alpha, q, Scalar(1), r);
    const double rel = B::nrm2(r) / bnorm;
    if (mon.iteration(it, rel, rel0)) break;
    precondition(M, r, z);
    const double rz_new = B::dot(r, z);
    const Scalar beta = static_cast<Scalar>(rz_new / rz);
    rz = rz_new;
    B::axpby(Scalar(1), z, beta, p);
  }
}

/// The fused PCG loop (KrylovImplementation::Fused, see the header comment). r holds b − A x on entry.
/// Device scalars: rᵀz of iteration k in slot k % 2 (without a preconditioner that is ‖r_k‖²), pᵀq in slot 2,
/// ‖r‖² in slot 3 (with a preconditioner).
/// `work`: z (with a preconditioner), p0, p1 and q, each of A's row count, written before they are read.
template <class Scalar, class Device>
void cg_fused(const Crs<Scalar, Device>& A, const Kokkos::View<Scalar*, Device>& x,
              const Kokkos::View<Scalar*, Device>& r, Preconditioner<Scalar, Device>* M, double bnorm, double rel0,
              const SolverParams& params, SolverResult& res, KrylovMonitor& mon,
              const std::array<Kokkos::View<Scalar*, Device>, 4>& work) {
  using V = Kokkos::View<Scalar*, Device>;
  using CV = Kokkos::View<const Scalar*, Device>;
  using exec = typename Device::execution_space;
  constexpr int PQ = 2, RR = 3;
  const auto n = static_cast<std::size_t>(A.numRows());
  const auto launch = spmv_launch<exec>(A.numRows(), A.nnz());
  const auto vlaunch = vector_launch<exec>(A.numRows());
  const TeamSumScratch<Device> team_sums(std::max(launch.league_size, vlaunch.league_size), 2);
  // a diagonal preconditioner is applied in the update kernel (z = d ∘ r, rᵀz with ‖r‖²; large systems: right after)
  const CV dinv = M ? M->diagonal_scaling() : CV();
  const bool diagonal = M && dinv.extent(0) == n;
  ScalarReadback<Device> sc(4, "AsyncSparse::cg::scalars");
  const auto s = sc.device();
  // CUDA graphs (SolverParams::graph_from_iteration): the loop's launches then go to GraphReplay's stream, where
  // each iteration's preconditioner and product are recorded once per parity and replayed
  const bool replay =
      params.graph_from_iteration > 0 && M && !diagonal && M->replayable() && GraphReplay<exec>::available();
  const exec inst = replay ? GraphReplay<exec>::instance() : exec();
  std::optional<LaunchInstanceScope<exec>> scope;
  if (replay) {
    GraphReplay<exec>::follow_default(inst);  // after r = b - A x and the scalars' initialisation
    scope.emplace(inst);
  }
  const V z = M ? work[0] : r;  // without a preconditioner z is r
  const V p[2] = {work[1], work[2]};
  const V q = work[3];

  // z = M⁻¹ r and rᵀz into slot `slot`: in the preconditioner's last pass where it can (apply_dot)
  const auto precondition_dot = [&](int slot) {
    if (!M->apply_dot(r, z, s, slot)) {
      M->apply(r, z);
      dot_into<Scalar, Device>(r, z, s, slot, vlaunch, team_sums);
    }
  };
  // rᵀz of iteration 0 into slot 0; p_1 = z_0; launch iteration 1's product.
  if (M)
    precondition_dot(0);
  else
    dot_into<Scalar, Device>(r, z, s, 0, vlaunch, team_sums);
  // large systems sum pᵀq (and with a diagonal preconditioner rᵀz) in passes of their own (kFusedReductionMaxRows)
  const bool separate = launch.separate_reduction;
  Kokkos::deep_copy(inst, p[0], z);
  if (separate) {
    spmv_dot<Scalar, Device>(A, p[0], q, Kokkos::View<double*, Device>(), 0, launch);
    dot_into<Scalar, Device>(p[0], q, s, PQ, vlaunch, team_sums);
  } else {
    spmv_dot<Scalar, Device>(A, p[0], q, s, PQ, launch, team_sums);
  }
  GraphReplay<exec> graphs[2];  // by the parity of the iteration that launches the work
  bool recording = replay;      // false once a recording failed: every launch as before
  int replays = 0, recordings = 0;  // replays, and recordings tried (each counted one application)
  for (int it = 1; it <= params.max_iterations; ++it) {
    const int cur = (it - 1) % 2, next = it % 2;  // slots of rᵀz_{it-1} and rᵀz_{it}
    const V pk = p[cur];
    if (diagonal && separate) {
      cg_update<Scalar, Device>(x, r, pk, q, s, cur, PQ, RR, vlaunch, team_sums);
      scale_dot<Scalar, Device>(dinv, CV(r), z, s, next, vlaunch, team_sums);
    } else if (diagonal) {
      cg_update_diagonal<Scalar, Device>(x, r, pk, q, dinv, z, s, cur, PQ, RR, next, vlaunch, team_sums);
    } else {
      cg_update<Scalar, Device>(x, r, pk, q, s, cur, PQ, M ? RR : next, vlaunch, team_sums);
    }
    sc.post(inst);
    if (it < params.max_iterations) {  // the next iteration's work, launched before the host decides
      const auto next_work = [&] {
        if (M && !diagonal) precondition_dot(next);
        cg_direction_spmv<Scalar, Device>(A, CV(z), CV(pk), p[next], q, s, next, cur, separate ? -1 : PQ, launch,
                                          team_sums);
        if (separate) dot_into<Scalar, Device>(p[next], q, s, PQ, vlaunch, team_sums);
      };
      if (recording && it >= params.graph_from_iteration && !graphs[next].recorded()) {
        recording = graphs[next].record(inst, next_work);  // records only: the replay below runs it
        ++recordings;
      }
      if (recording && graphs[next].recorded()) {
        graphs[next].replay(inst);
        ++replays;
      } else {
        next_work();
      }
    }
    const double* h = sc.wait();
    if (cg_breakdown(res, h[cur], true) || cg_breakdown(res, h[PQ], false)) break;
    const double rel = std::sqrt(h[M ? RR : next]) / bnorm;
    if (mon.iteration(it, rel, rel0)) break;
  }
  res.graph_replays = replays;
  // an application's host-side counts (getNumApply, the triangular solvers' statistics) happen when it is recorded:
  // once per recording tried, also one that failed (its work then ran directly and counted again)
  if (replays != recordings) M->note_replayed_applications(replays - recordings);
  if (replay) inst.fence();
}

}  // namespace Impl

/// Solve A x = b by PCG. `M` may be nullptr (no preconditioner). Returns status, iterations and history.
template <class Scalar, class Device>
SolverResult cg(const Crs<Scalar, Device>& A, const Kokkos::View<const Scalar*, Device>& b,
                const Kokkos::View<Scalar*, Device>& x, Preconditioner<Scalar, Device>* M,
                const SolverParams& params = SolverParams()) {
  using V = Kokkos::View<Scalar*, Device>;
  using exec = typename Device::execution_space;
  Impl::check_system("cg", A, x, b);
  Impl::check_params("cg", params);
  const auto n = static_cast<std::size_t>(A.numRows());
  SolverResult res;
  Impl::KrylovMonitor mon("cg", params, res);

  const bool fused = Impl::resolve_krylov_implementation(params.implementation, Impl::is_gpu_space<exec>()) ==
                     KrylovImplementation::Fused;
  // r and the fused loop's z, p0, p1, q from one allocation, uninitialized: each is written before it is read
  // (a device allocation with its initialization costs about 40 us on an H200, more than a small system's CG
  // iteration: MEASUREMENTS.md#setup-latency)
  const std::size_t w = fused ? n : 0;
  const auto v = Impl::uninitialized_parts<V, 5>("AsyncSparse::cg::vectors", {n, M ? w : 0, w, w, w});
  const V r = v[0];
  const Impl::KrylovStart start = Impl::krylov_start("cg", A, x, b, r, params, res, mon);
  if (start.done) return res;
  const double bnorm = start.b_norm, rel0 = start.rel0();
  if (res.status == SolverStatus::MaxIterations) {  // not decided by the initial residual (krylov_start)
    if (fused)
      Impl::cg_fused(A, x, r, M, bnorm, rel0, params, res, mon, {v[1], v[2], v[3], v[4]});
    else
      Impl::cg_reference(A, x, r, M, bnorm, rel0, params, res, mon);
  }
  // report the true residual
  res.final_relative_residual = Blas<Scalar, Device>::residual(A, x, b, r) / bnorm;
  if (res.status == SolverStatus::Converged && !(res.final_relative_residual <= 10 * params.tol)) {
    res.status = SolverStatus::MaxIterations;
    res.message = "recursive residual converged but true residual is " + format_number(res.final_relative_residual);
  }
  exec().fence();
  res.time_seconds = mon.seconds();
  Impl::report_result("cg", params.verbose, res);
  return res;
}

}  // namespace AsyncSparse
