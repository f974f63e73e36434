// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — a whole GMRES(m) cycle in one launch of one team (small systems on GPUs).
//
// On a system of a few thousand rows every kernel of an Arnoldi step is too short to fill a GPU: the step is the
// latency of its launches (the preconditioner's sweeps, the product, the orthogonalization) and of the host's wait
// for the Hessenberg column. Impl::GmresTeamCycle runs the cycle on one multiprocessor instead: every step's
// application of M⁻¹ (the preconditioner's one-team form: none, a diagonal, or both triangles' Jacobi sweeps), the
// product with A, CGS2 (Impl::ArnoldiOneTeamFunctor, the orthogonalization's one-team kernel), the Givens rotations
// and the stopping tests on one thread, the least-squares solution, x += M⁻¹ V y and the true residual, separated by
// the team's barriers; the host reads the steps' residual estimates once per cycle. The Hessenberg matrix, the
// rotations and the coefficients live in the team's scratch memory, so that the one thread's chain of rotations does
// not go through global memory. The passes of every step give each row a thread, except the few long rows of A and of
// the factors (Impl::team_long_rows), which take a thread's vector lanes each: the barrier after a pass would otherwise
// wait for the thread of a dense row (the residual at the cycle's end keeps a thread per row). The arithmetic is that
// of the host-driven cycle (solvers/AsyncSparse_gmres.hpp) up to the order of the sums.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>  // Compat::parallel_for_prefer_l1
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_preconditioner_interface.hpp>
#include <asyncsparse/linalg/AsyncSparse_krylov_kernels.hpp>
#include <asyncsparse/linalg/impl/AsyncSparse_team_long_rows.hpp>

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
/// g; false, nothing rotated anew, when the column is zero (a singular preconditioned operator). The entry the next
/// rotation reads stays in a register instead of being written and read back. The host-driven cycles
/// (GmresArnoldi::rotate) and the team cycle (GmresTeamCycle) share it.
KOKKOS_INLINE_FUNCTION bool givens_step(double* h, double* cs, double* sn, double* g, int j) {
  double hi = h[0];  // h[i] after the rotations before i
  for (int i = 0; i < j; ++i) {
    const double hn = h[i + 1];
    h[i] = cs[i] * hi + sn[i] * hn;
    hi = -sn[i] * hi + cs[i] * hn;
  }
  const double hj1 = h[j + 1];
  const double denom = scaled_hypot(hi, hj1);
  if (denom == 0) {
    h[j] = hi;
    return false;
  }
  const double c = hi / denom, sj = hj1 / denom;
  cs[j] = c;
  sn[j] = sj;
  h[j] = denom;
  h[j + 1] = 0;
  g[j + 1] = -sj * g[j];
  g[j] = c * g[j];
  return true;
}

/// y = R⁻¹ g for the j x j upper triangle R of the rotated Hessenberg matrix (column-major, leading dimension ld):
/// the least-squares solution of a GMRES cycle (GmresArnoldi::update_solution and GmresTeamCycle::update).
KOKKOS_INLINE_FUNCTION void back_substitution(const double* H, int ld, const double* g, double* y, int j) {
  for (int i = j - 1; i >= 0; --i) {
    double s = g[i];
    for (int k = i + 1; k < j; ++k) s -= H[k * ld + i] * y[k];
    y[i] = s / H[i * ld + i];
  }
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
  using Cgs2 = ArnoldiOneTeamFunctor<Scalar, Device>;
  using scratch_view = Kokkos::View<double*, typename exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  typename Crs<Scalar, Device>::row_map_type::const_type rm;
  typename Crs<Scalar, Device>::index_type::const_type ent;
  typename Crs<Scalar, Device>::values_type::const_type val;
  Args a;
  Apply M;

  GmresTeamCycle() = default;
  GmresTeamCycle(const Args& args, const Apply& apply)
      : rm(args.A.graph.row_map), ent(args.A.graph.entries), val(args.A.values), a(args), M(apply) {}

  // offsets into the team's scratch: the Hessenberg matrix (column-major, (m + 1) x m), the rotations, g, CGS2's
  // coefficients and ‖w‖², the step's verdict, the least-squares solution
  static KOKKOS_INLINE_FUNCTION int o_cs(int m) { return (m + 1) * m; }
  static KOKKOS_INLINE_FUNCTION int o_sn(int m) { return o_cs(m) + m; }
  static KOKKOS_INLINE_FUNCTION int o_g(int m) { return o_sn(m) + m; }
  static KOKKOS_INLINE_FUNCTION int o_h1(int m) { return o_g(m) + m + 1; }
  static KOKKOS_INLINE_FUNCTION int o_h2(int m) { return o_h1(m) + m + 1; }
  static KOKKOS_INLINE_FUNCTION int o_nrm(int m) { return o_h2(m) + m + 1; }
  static KOKKOS_INLINE_FUNCTION int o_flag(int m) { return o_nrm(m) + 1; }
  static KOKKOS_INLINE_FUNCTION int o_y(int m) { return o_flag(m) + 1; }
  static KOKKOS_INLINE_FUNCTION int scratch_entries(int m) { return o_y(m) + m; }
  /// The scratch of a cycle of restart length m.
  static std::size_t scratch_bytes(int m) {
    return scratch_view::shmem_size(static_cast<std::size_t>(scratch_entries(m)));
  }

  KOKKOS_INLINE_FUNCTION Vec column(int j) const { return Kokkos::subview(a.V, Kokkos::ALL(), j); }

  template <class XV>
  KOKKOS_INLINE_FUNCTION Scalar row_product(ordinal_t i, const XV& v) const {
    Scalar s = 0;
    for (offset_t k = rm(i); k < rm(i + 1); ++k) s += val(k) * v(ent(k));
    return s;
  }
  /// w = A v, a thread per row and the listed long rows (a.long_rows, `longs` of them) a thread's vector lanes each,
  /// then the team's barrier.
  KOKKOS_INLINE_FUNCTION void product(const member& t, const Vec& v, ordinal_t n, int longs) const {
    Kokkos::parallel_for(Kokkos::TeamVectorRange(t, n), [&](const ordinal_t i) {
      if (longs == 0 || !team_long_row_length(rm(i + 1) - rm(i))) a.w(i) = row_product(i, v);
    });
    team_long_rows_pass<Scalar>(
        t, a.long_rows, longs,
        [&](const ordinal_t i, offset_t& beg, offset_t& end) {
          beg = rm(i);
          end = rm(i + 1);
        },
        [&](const offset_t k) { return val(k) * v(ent(k)); }, [&](const ordinal_t i, const Scalar s) { a.w(i) = s; });
    t.team_barrier();
  }
  /// r = b − A x; returns ‖r‖ to every thread (through the norm's slot of the scratch).
  KOKKOS_INLINE_FUNCTION double residual(const member& t, const scratch_view& sw, ordinal_t n) const {
    double rr = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(t, n),
        [&](const ordinal_t i, double& acc) {
          const Scalar ri = a.b(i) - row_product(i, a.x);
          a.r(i) = ri;
          acc += static_cast<double>(ri) * static_cast<double>(ri);
        },
        rr);
    Kokkos::single(Kokkos::PerTeam(t), [&] { sw(o_nrm(a.m)) = rr; });
    t.team_barrier();
    return sqrt(sw(o_nrm(a.m)));
  }
  /// Column j of H from CGS2's coefficients, the old rotations applied to it and a new one zeroing h_{j+1,j}, g and
  /// the verdict (GmresTeamStop); one thread.
  KOKKOS_INLINE_FUNCTION int finish_step(const scratch_view& sw, int j) const {
    const int m = a.m;
    double* h = &sw(j * (m + 1));
    for (int i = 0; i <= j; ++i) h[i] = sw(o_h1(m) + i) + sw(o_h2(m) + i);
    const double hnext = sqrt(sw(o_nrm(m)));
    h[j + 1] = hnext;
    if (!(hnext - hnext == 0)) return static_cast<int>(GmresTeamStop::NonFinite);
    double* g = &sw(o_g(m));
    if (!givens_step(h, &sw(o_cs(m)), &sw(o_sn(m)), g, j)) return static_cast<int>(GmresTeamStop::Breakdown);
    const double est = g[j + 1] < 0 ? -g[j + 1] : g[j + 1];
    a.out(Args::kOutHead + j) = est;
    if (est <= a.tol_abs || hnext == 0) return static_cast<int>(GmresTeamStop::Estimate);
    if (est > a.diverged_abs) return static_cast<int>(GmresTeamStop::Diverged);
    return static_cast<int>(GmresTeamStop::None);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member& t) const {
    const auto n = static_cast<ordinal_t>(a.x.extent(0));
    const int m = a.m;
    const scratch_view sw(t.team_scratch(0), scratch_entries(m));
    const double beta = a.beta;  // ‖r‖ of r = b − A x, computed by the caller or the previous cycle's end
    int steps = 0, stop = static_cast<int>(GmresTeamStop::None);
    const int longs = team_long_row_count(a.long_rows);
    if (beta > 0 && beta - beta == 0) {  // the host starts a cycle only from a finite residual above the tolerance
      const Vec v0 = column(0);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(t, n),
                           [&](const ordinal_t i) { v0(i) = static_cast<Scalar>(a.r(i) / beta); });
      Kokkos::single(Kokkos::PerTeam(t), [&] { sw(o_g(m)) = beta; });
      t.team_barrier();
      for (int j = 0; j < a.max_steps; ++j) {
        const Vec vj = column(j);
        if (!Apply::identity) M(t, CVec(vj), a.z);
        product(t, Apply::identity ? vj : a.z, n, longs);
        const Cgs2 cgs2{a.V, a.w, column(j + 1), {}, j + 1, o_h1(m), o_h2(m), o_nrm(m)};
        cgs2.run(t, sw);
        t.team_barrier();
        Kokkos::single(Kokkos::PerTeam(t), [&] { sw(o_flag(m)) = finish_step(sw, j); });
        t.team_barrier();
        stop = static_cast<int>(sw(o_flag(m)));
        if (stop == static_cast<int>(GmresTeamStop::NonFinite) || stop == static_cast<int>(GmresTeamStop::Breakdown))
          break;
        steps = j + 1;
        if (stop != static_cast<int>(GmresTeamStop::None)) break;
      }
      // Breakdown keeps the steps before it; NonFinite leaves x as it was (the host-driven cycle does the same)
      if (steps > 0 && stop != static_cast<int>(GmresTeamStop::NonFinite)) update(t, sw, n, steps);
    }
    const double beta_end = residual(t, sw, n);
    Kokkos::single(Kokkos::PerTeam(t), [&] {
      a.out(0) = steps;
      a.out(1) = stop;
      a.out(2) = beta_end;
    });
  }

  /// y = H(0:j, 0:j)⁻¹ g(0:j) (one thread), then x += M⁻¹ V y.
  KOKKOS_INLINE_FUNCTION void update(const member& t, const scratch_view& sw, ordinal_t n, int j) const {
    const int m = a.m;
    Kokkos::single(Kokkos::PerTeam(t), [&] { back_substitution(&sw(0), m + 1, &sw(o_g(m)), &sw(o_y(m)), j); });
    t.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(t, n), [&](const ordinal_t i) {
      Scalar s = 0;
      for (int c = 0; c < j; ++c) s += a.V(i, c) * static_cast<Scalar>(sw(o_y(m) + c));
      a.w(i) = s;
    });
    t.team_barrier();
    if (!Apply::identity) M(t, CVec(a.w), a.z);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(t, n),
                         [&](const ordinal_t i) { a.x(i) += Apply::identity ? a.w(i) : a.z(i); });
    t.team_barrier();
  }
};

/// Whether a cycle of restart length m fits the team's scratch memory of the backend: GMRES(30)'s cycle takes about
/// 9 KB; from a restart length of 69 on CUDA (40 KB with Kokkos 3.4) the host-driven cycles run instead.
template <class Scalar, class Device>
bool gmres_team_cycle_fits(int m) {
  using exec = typename Device::execution_space;
  if (m < 1 || m > 4096) return false;  // far beyond any scratch memory; keeps the int offsets from overflowing
  return GmresTeamCycle<Scalar, Device, IdentityTeamApply>::scratch_bytes(m) <=
         static_cast<std::size_t>(Impl::TeamPolicy<exec>::scratch_size_max(0));
}

/// Launches one GMRES cycle in one team (GmresTeamCycle) with the application `apply`, asynchronously: a team of the
/// orthogonalization's lanes (arnoldi_one_team_lanes) and as many threads as fit, at most 32. InvalidInput where the
/// restart length does not fit the team's scratch memory (gmres_team_cycle_fits; the solver checks before).
template <class Scalar, class Device, class Apply>
void gmres_team_cycle_launch(const GmresTeamCycleArgs<Scalar, Device>& args, const Apply& apply) {
  using exec = typename Device::execution_space;
  using F = GmresTeamCycle<Scalar, Device, Apply>;
  if (!gmres_team_cycle_fits<Scalar, Device>(args.m))
    throw InvalidInput("gmres: a cycle of restart length " + std::to_string(args.m) +
                       " does not fit one team's scratch memory");
  constexpr int lanes = arnoldi_one_team_lanes<exec>();
  static const int threads = [] {  // with the most scratch a cycle may take
    auto sized = Impl::TeamPolicy<exec>(1, 1, lanes);
    sized.set_scratch_size(0, Kokkos::PerTeam(Impl::TeamPolicy<exec>::scratch_size_max(0)));
    return std::max(1, std::min(32, sized.team_size_max(F(), Kokkos::ParallelForTag())));
  }();
  auto policy = Impl::TeamPolicy<exec>(Impl::launch_instance<exec>(), 1, threads, lanes);
  policy.set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes(args.m)));
  Compat::parallel_for_prefer_l1("AsyncSparse::gmres::team_cycle", policy, F(args, apply));
}

}  // namespace Impl
}  // namespace AsyncSparse
