// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Jacobi triangular solves with the sweeps of a solve fused into one launch (TriSolveOptions::fuse_sweeps).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/linalg/impl/AsyncSparse_trisolve_kernels.hpp>  // Impl::off_diagonal_range

namespace AsyncSparse {
namespace Impl {

/// K Jacobi sweeps (2 or 3) from x_0 = D^{-1} b in one launch (TriSolveOptions::fuse_sweeps): row i's
/// x_K(i) = D^{-1} (b - N x_{K-1})_i on a thread, its off-diagonal entries across the thread's vector lanes, each lane
/// computing the x_{K-1}(j) of its entry itself from the rows j meets, down to x_0 = D^{-1} b, in row order. A row of
/// r off-diagonal entries visits r + ... + r^K entries instead of K r, each lane at most 1 + ... + r^(K-1) of them in
/// a chain, without the K - 1 launches between the sweeps. The values below the last sweep are formed as
/// JacobiSweepRow forms them (the sum in row order, then D^{-1} (b - s)); the last sweep's sum is reduced over the
/// lanes, so x equals K sweeps to rounding. As a reduction it also sums d·x into the caller's scalar (the last
/// sweep of TriangularSolver::solve_dot).
template <class ExecSpace, class RowMap, class Entries, class Values, class B, class XOut, int K>
struct JacobiFused {
  static_assert(K == 2 || K == 3, "JacobiFused: 2 or 3 sweeps");
  using Scalar = typename XOut::non_const_value_type;
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  using value_type = double;
  RowMap rm;
  Entries ent;
  Values val, dinv;
  B b;
  XOut xout;
  bool lower;
  ordinal_t n;
  int rows_per_team;
  Kokkos::View<const Scalar*, typename XOut::device_type> d;  ///< the reduction's other vector: d·x

  // x_s(j), the value of row j after s sweeps, one function per s (a member template recursing on s through
  // `if constexpr`, correct on host backends, returned x_{s-1} for x_s in the CUDA build: jacobi_fused_sweeps_equal_
  // the_sweeps found it on an H100)
  KOKKOS_INLINE_FUNCTION Scalar x0(ordinal_t j) const { return dinv(j) * b(j); }
  template <class Inner>
  KOKKOS_INLINE_FUNCTION Scalar step(ordinal_t j, const Inner& inner) const {  // D^{-1} (b - N x_{s-1})_j
    offset_t beg, end;
    off_diagonal_range(rm, j, lower, beg, end);
    Scalar s = 0;
    for (offset_t k = beg; k < end; ++k) s += val(k) * inner(ent(k));
    return dinv(j) * (b(j) - s);
  }
  KOKKOS_INLINE_FUNCTION Scalar x1(ordinal_t j) const {
    return step(j, [&](ordinal_t m) { return x0(m); });
  }
  KOKKOS_INLINE_FUNCTION Scalar x2(ordinal_t j) const {
    return step(j, [&](ordinal_t m) { return x1(m); });
  }
  // x_K(i), its sum over the vector lanes (every lane holds it afterwards)
  KOKKOS_INLINE_FUNCTION Scalar xk(const member_type& m, ordinal_t i) const {
    offset_t beg, end;
    off_diagonal_range(rm, i, lower, beg, end);
    Scalar s = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(m, end - beg),
        [&](const offset_t t, Scalar& acc) {
          const ordinal_t j = ent(beg + t);
          acc += val(beg + t) * (K == 2 ? x1(j) : x2(j));
        },
        s);
    return dinv(i) * (b(i) - s);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    const ordinal_t r0 = static_cast<ordinal_t>(m.league_rank()) * rows_per_team;
    const ordinal_t r1 = r0 + rows_per_team < n ? r0 + rows_per_team : n;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, r0, r1), [&](const ordinal_t i) {
      const Scalar xi = xk(m, i);
      Kokkos::single(Kokkos::PerThread(m), [&]() { xout(i) = xi; });
    });
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m, double& rr) const {
    const ordinal_t r0 = static_cast<ordinal_t>(m.league_rank()) * rows_per_team;
    const ordinal_t r1 = r0 + rows_per_team < n ? r0 + rows_per_team : n;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, r0, r1), [&](const ordinal_t i) {
      const Scalar xi = xk(m, i);
      Kokkos::single(Kokkos::PerThread(m), [&]() {
        xout(i) = xi;
        rr += static_cast<double>(d(i)) * static_cast<double>(xi);
      });
    });
  }
};

/// Vector lanes per row of a fused Jacobi solve (JacobiFused) and threads per team: four lanes cover the rows the rule
/// fuses (at most kGpuJacobiFuseMaxOffDiagonal off-diagonal entries on average), 64 rows per team of 256 threads.
constexpr int kJacobiFusedLanes = 4;
constexpr int kJacobiFusedTeamRows = 64;

/// A Jacobi solve of `sweeps` (2 or 3) sweeps in one launch (JacobiFused) into x; with a non-empty `d` also d·x into
/// the device scalar `out`. Asynchronous.
template <class ExecSpace, class RowMap, class Entries, class Values, class B, class X, class D, class Out>
void jacobi_fused(int sweeps, const RowMap& rm, const Entries& ent, const Values& val, const Values& dinv,
                  ordinal_t n, bool lower, const B& b, const X& x, const D& d, const Out& out) {
  const bool dot = d.data() != nullptr;
  const ExecSpace exec = Impl::launch_instance<ExecSpace>();
  const int lanes = Impl::is_gpu_space<ExecSpace>() ? kJacobiFusedLanes : 1;
  const int rows = Impl::is_gpu_space<ExecSpace>() ? kJacobiFusedTeamRows : 1;
  const int league = static_cast<int>((static_cast<std::int64_t>(n) + rows - 1) / rows);
  const auto run = [&](auto f) {
    f.d = d;
    const Impl::TeamPolicy<ExecSpace> policy(exec, league, rows, lanes);
    if (dot)
      Kokkos::parallel_reduce("AsyncSparse::trisolve::jacobi_fused_dot", policy, f, out);
    else
      Kokkos::parallel_for("AsyncSparse::trisolve::jacobi_fused", policy, f);
  };
  if (sweeps == 2)
    run(JacobiFused<ExecSpace, RowMap, Entries, Values, B, X, 2>{rm, ent, val, dinv, b, x, lower, n, rows});
  else if (sweeps == 3)
    run(JacobiFused<ExecSpace, RowMap, Entries, Values, B, X, 3>{rm, ent, val, dinv, b, x, lower, n, rows});
  else
    throw InvalidInput("jacobi_fused: 2 or 3 sweeps, got " + std::to_string(sweeps));
}

}  // namespace Impl
}  // namespace AsyncSparse
