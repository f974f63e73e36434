// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — a whole GMRES(m) cycle in one launch of one team (small systems on GPUs).
//
// On a system of a few thousand rows every kernel of an Arnoldi step is too short to fill a GPU: the step is the
// latency of its launches (the preconditioner's sweeps, the product, the orthogonalization) and of the host's wait
// for the Hessenberg column. Impl::GmresTeamCycle runs the cycle on one multiprocessor instead: the true residual,
// every step's application of M⁻¹ (the preconditioner's one-team form: none, a diagonal, or both triangles' Jacobi
// sweeps), the product with A, CGS2 (Impl::ArnoldiOneTeamFunctor, the orthogonalization's one-team kernel), the
// Givens rotations and the stopping tests on one thread, the least-squares solution and x += M⁻¹ V y, separated by
// the team's barriers; the host reads the steps' residual estimates once per cycle. The arithmetic is that of the
// host-driven cycle (solvers/AsyncSparse_gmres.hpp) up to the order of the sums.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_preconditioner_interface.hpp>
#include <asyncsparse/linalg/AsyncSparse_krylov_kernels.hpp>

namespace AsyncSparse {
namespace Impl {

/// sqrt(x² + y²) without overflow, 0 for (0, 0); std::hypot is not callable in device code.
KOKKOS_INLINE_FUNCTION double scaled_hypot(double x, double y) {
  const double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
  const double s = ax > ay ? ax : ay;
  if (s == 0) return 0;
  const double u = x / s, v = y / s;
  return s * sqrt(u * u + v * v);
}

/// One Givens step of GMRES's least-squares problem: applies the rotations (cs, sn) of the columns before j to column
/// j of the Hessenberg matrix (h[i] = H(i, j), i <= j + 1, contiguous) and a new one that zeroes h[j + 1], and rotates
/// g; false, nothing rotated anew, when the column is zero (a singular preconditioned operator). The host-driven
/// cycles (GmresArnoldi::rotate) and the team cycle (GmresTeamCycle) share it.
KOKKOS_INLINE_FUNCTION bool givens_step(double* h, double* cs, double* sn, double* g, int j) {
  for (int i = 0; i < j; ++i) {
    const double t = cs[i] * h[i] + sn[i] * h[i + 1];
    h[i + 1] = -sn[i] * h[i] + cs[i] * h[i + 1];
    h[i] = t;
  }
  const double denom = scaled_hypot(h[j], h[j + 1]);
  if (denom == 0) return false;
  cs[j] = h[j] / denom;
  sn[j] = h[j + 1] / denom;
  h[j] = denom;
  h[j + 1] = 0;
  g[j + 1] = -sn[j] * g[j];
  g[j] = cs[j] * g[j];
  return true;
}

/// M = I in a team cycle: the cycle multiplies the basis vectors themselves.
struct IdentityTeamApply {
  static constexpr bool identity = true;
  template <class Member, class XV, class ZV>
  KOKKOS_INLINE_FUNCTION void operator()(const Member&, const XV&, const ZV&) const {}
};

/// M⁻¹ = diag(d) in a team cycle (diagonal Jacobi).
template <class Scalar, class Device>
struct DiagonalTeamApply {
  static constexpr bool identity = false;
  Kokkos::View<const Scalar*, Device> d;
  template <class Member, class XV, class ZV>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& t, const XV& x, const ZV& z) const {
    Kokkos::parallel_for(Kokkos::TeamVectorRange(t, static_cast<ordinal_t>(x.extent(0))),
                         [&](const ordinal_t i) { z(i) = d(i) * x(i); });
    t.team_barrier();
  }
};

/// z = U⁻¹ L⁻¹ x by both triangles' Jacobi sweeps in a team cycle: the sweeps of Impl::JacobiPairOneTeam (`Pair`,
/// FactorApply's one-team functor with its arrays set) into its vectors, the lower solve's result in pair.w.
template <class Pair>
struct JacobiPairTeamApply {
  static constexpr bool identity = false;
  Pair pair;
  template <class Member, class XV, class ZV>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& t, const XV& x, const ZV& z) const {
    pair.solve(t, pair.L, x, pair.w, false);
    pair.solve(t, pair.U, pair.w, z, false);
  }
};

/// The kernel of one GMRES cycle (see the header comment and GmresTeamCycleArgs). Apply: the one-team application of
/// M⁻¹ (operator()(member, x, z), ending with a team barrier; `identity` when M = I).
template <class Scalar, class Device, class Apply>
struct GmresTeamCycle {
  using exec = typename Device::execution_space;
  using member = typename Impl::TeamPolicy<exec>::member_type;
  using Vec = Kokkos::View<Scalar*, Device>;
  using CVec = Kokkos::View<const Scalar*, Device>;
  using Args = GmresTeamCycleArgs<Scalar, Device>;

  typename Crs<Scalar, Device>::row_map_type::const_type rm;
  typename Crs<Scalar, Device>::index_type::const_type ent;
  typename Crs<Scalar, Device>::values_type::const_type val;
  Args a;
  Apply M;

  GmresTeamCycle() = default;
  GmresTeamCycle(const Args& args, const Apply& apply)
      : rm(args.A.graph.row_map), ent(args.A.graph.entries), val(args.A.values), a(args), M(apply) {}

  // offsets into a.work: the Hessenberg matrix (column-major, (m + 1) x m), the rotations, g, CGS2's coefficients and
  // ‖w‖², the step's verdict, the least-squares solution
  KOKKOS_INLINE_FUNCTION int o_cs() const { return (a.m + 1) * a.m; }
  KOKKOS_INLINE_FUNCTION int o_sn() const { return o_cs() + a.m; }
  KOKKOS_INLINE_FUNCTION int o_g() const { return o_sn() + a.m; }
  KOKKOS_INLINE_FUNCTION int o_h1() const { return o_g() + a.m + 1; }
  KOKKOS_INLINE_FUNCTION int o_h2() const { return o_h1() + a.m + 1; }
  KOKKOS_INLINE_FUNCTION int o_nrm() const { return o_h2() + a.m + 1; }
  KOKKOS_INLINE_FUNCTION int o_flag() const { return o_nrm() + 1; }
  KOKKOS_INLINE_FUNCTION int o_y() const { return o_flag() + 1; }
  KOKKOS_INLINE_FUNCTION double& h(int i, int j) const { return a.work(j * (a.m + 1) + i); }

  KOKKOS_INLINE_FUNCTION Vec column(int j) const { return Kokkos::subview(a.V, Kokkos::ALL(), j); }

  template <class XV>
  KOKKOS_INLINE_FUNCTION Scalar row_product(ordinal_t i, const XV& v) const {
    Scalar s = 0;
    for (offset_t k = rm(i); k < rm(i + 1); ++k) s += val(k) * v(ent(k));
    return s;
  }
  /// r = b − A x; returns ‖r‖ to every thread (through a.work's flag slot).
  KOKKOS_INLINE_FUNCTION double residual(const member& t, ordinal_t n) const {
    double rr = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(t, n),
        [&](const ordinal_t i, double& acc) {
          const Scalar ri = a.b(i) - row_product(i, a.x);
          a.r(i) = ri;
          acc += static_cast<double>(ri) * static_cast<double>(ri);
        },
        rr);
    Kokkos::single(Kokkos::PerTeam(t), [&] { a.work(o_nrm()) = rr; });
    t.team_barrier();
    return sqrt(a.work(o_nrm()));
  }
  /// Column j of H from CGS2's coefficients, the old rotations applied to it and a new one zeroing h_{j+1,j}, g and
  /// the verdict (GmresTeamStop); one thread.
  KOKKOS_INLINE_FUNCTION int finish_step(int j) const {
    for (int i = 0; i <= j; ++i) h(i, j) = a.work(o_h1() + i) + a.work(o_h2() + i);
    const double hnext = sqrt(a.work(o_nrm()));
    h(j + 1, j) = hnext;
    if (!(hnext - hnext == 0)) return static_cast<int>(GmresTeamStop::NonFinite);
    double* g = &a.work(o_g());
    if (!givens_step(&h(0, j), &a.work(o_cs()), &a.work(o_sn()), g, j))
      return static_cast<int>(GmresTeamStop::Breakdown);
    const double est = g[j + 1] < 0 ? -g[j + 1] : g[j + 1];
    a.out(Args::kOutHead + j) = est;
    if (est <= a.tol_abs || hnext == 0) return static_cast<int>(GmresTeamStop::Estimate);
    if (est > a.diverged_abs) return static_cast<int>(GmresTeamStop::Diverged);
    return static_cast<int>(GmresTeamStop::None);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member& t) const {
    const auto n = static_cast<ordinal_t>(a.x.extent(0));
    const double beta = residual(t, n);
    int steps = 0, stop = static_cast<int>(GmresTeamStop::None);
    if (beta > 0 && beta - beta == 0) {  // the host starts a cycle only from a finite residual above the tolerance
      const Vec v0 = column(0);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(t, n),
                           [&](const ordinal_t i) { v0(i) = static_cast<Scalar>(a.r(i) / beta); });
      Kokkos::single(Kokkos::PerTeam(t), [&] { a.work(o_g()) = beta; });
      t.team_barrier();
      for (int j = 0; j < a.max_steps; ++j) {
        const Vec vj = column(j);
        if (!Apply::identity) M(t, CVec(vj), a.z);
        Kokkos::parallel_for(Kokkos::TeamVectorRange(t, n), [&](const ordinal_t i) {
          a.w(i) = Apply::identity ? row_product(i, vj) : row_product(i, a.z);
        });
        t.team_barrier();
        ArnoldiOneTeamFunctor<Scalar, Device> cgs2{a.V, a.w, column(j + 1), a.work, j + 1, o_h1(), o_h2(), o_nrm()};
        cgs2(t);
        t.team_barrier();
        Kokkos::single(Kokkos::PerTeam(t), [&] { a.work(o_flag()) = finish_step(j); });
        t.team_barrier();
        stop = static_cast<int>(a.work(o_flag()));
        if (stop == static_cast<int>(GmresTeamStop::NonFinite) || stop == static_cast<int>(GmresTeamStop::Breakdown))
          break;
        steps = j + 1;
        if (stop != static_cast<int>(GmresTeamStop::None)) break;
      }
      // Breakdown keeps the steps before it; NonFinite leaves x as it was (the host-driven cycle does the same)
      if (steps > 0 && stop != static_cast<int>(GmresTeamStop::NonFinite)) update(t, n, steps);
    }
    const double beta_end = residual(t, n);
    Kokkos::single(Kokkos::PerTeam(t), [&] {
      a.out(0) = steps;
      a.out(1) = stop;
      a.out(2) = beta_end;
      a.out(3) = beta;
    });
  }

  /// y = H(0:j, 0:j)⁻¹ g(0:j) (one thread), then x += M⁻¹ V y.
  KOKKOS_INLINE_FUNCTION void update(const member& t, ordinal_t n, int j) const {
    Kokkos::single(Kokkos::PerTeam(t), [&] {
      double* y = &a.work(o_y());
      for (int i = j - 1; i >= 0; --i) {
        double s = a.work(o_g() + i);
        for (int k = i + 1; k < j; ++k) s -= h(i, k) * y[k];
        y[i] = s / h(i, i);
      }
    });
    t.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(t, n), [&](const ordinal_t i) {
      Scalar s = 0;
      for (int c = 0; c < j; ++c) s += a.V(i, c) * static_cast<Scalar>(a.work(o_y() + c));
      a.w(i) = s;
    });
    t.team_barrier();
    if (!Apply::identity) M(t, CVec(a.w), a.z);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(t, n),
                         [&](const ordinal_t i) { a.x(i) += Apply::identity ? a.w(i) : a.z(i); });
    t.team_barrier();
  }
};

/// Launches one GMRES cycle in one team (GmresTeamCycle) with the application `apply`, asynchronously: a team of the
/// orthogonalization's lanes (arnoldi_one_team_lanes) and as many threads as fit, at most 32.
template <class Scalar, class Device, class Apply>
void gmres_team_cycle_launch(const GmresTeamCycleArgs<Scalar, Device>& args, const Apply& apply) {
  using exec = typename Device::execution_space;
  using F = GmresTeamCycle<Scalar, Device, Apply>;
  constexpr int lanes = arnoldi_one_team_lanes<exec>();
  static const int threads =
      std::max(1, std::min(32, Impl::TeamPolicy<exec>(1, 1, lanes).team_size_max(F(), Kokkos::ParallelForTag())));
  Kokkos::parallel_for("AsyncSparse::gmres::team_cycle",
                       Impl::TeamPolicy<exec>(Impl::launch_instance<exec>(), 1, threads, lanes), F(args, apply));
}

}  // namespace Impl
}  // namespace AsyncSparse
