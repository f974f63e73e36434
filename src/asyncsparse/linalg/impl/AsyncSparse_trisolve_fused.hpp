// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Jacobi triangular solves with the sweeps of a solve fused into one launch (TriSolveOptions::fuse_sweeps): blocks of
// rows, each swept by one team in team memory together with the halo of earlier rows (lower triangle; later rows:
// upper) whose sweeps its last sweep depends on.
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

/// Halo bounds per block of a fused solve: one per sweep but the last (kJacobiFusedMaxSweeps, the rule's header).
constexpr int kJacobiFusedHops = kJacobiFusedMaxSweeps - 1;

/// A fused solve's blocks and team memory: `block` rows per team, `capacity` rows of team memory per sweep buffer
/// (two buffers of `capacity` values), threads per team.
struct JacobiFusedShape {
  ordinal_t block = 256;
  ordinal_t capacity = 2048;
  int threads = 512;
  ordinal_t blocks(ordinal_t n) const { return n <= 0 ? 0 : (n + block - 1) / block; }
};

/// The shape a fused solve takes on ExecSpace: on GPUs blocks of 256 rows, 512 threads per team (a thread per row of
/// a block and a halo of up to 256 rows) and team memory for 2,048 rows per sweep (32 KB in double precision: a halo
/// of up to 1,792 rows is swept in place); on host backends one thread per team.
template <class ExecSpace>
JacobiFusedShape jacobi_fused_shape() {
  JacobiFusedShape s;
  if (!is_gpu_space<ExecSpace>()) s.threads = 1;
  return s;
}

/// The halo bounds of a fused solve (JacobiFusedHalo), per block its `hops` (sweeps - 1) bounds, nearest first: for a
/// lower triangle the first row of [bound, block end) that holds every row h steps of dependence (an off-diagonal
/// entry) away from the block's rows, for an upper triangle one past the last row of [block begin, bound). The
/// ranges are contiguous (each hop's bound from all rows of the last hop's range) and cut at `capacity` rows: rows
/// beyond are recomputed where they are met (JacobiFused), so the bounds decide the work, never the values.
template <class ExecSpace, class RowMap, class Entries, class Halo>
struct JacobiFusedHalo {
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  RowMap rm;
  Entries ent;
  Halo halo;
  ordinal_t n;
  bool lower;
  int hops;
  JacobiFusedShape shape;
  // row i's off-diagonal entries, kept inside the arrays: the bounds are computed before the structure checks' verdict
  // is read (a malformed triangle is refused there, before any solve)
  KOKKOS_INLINE_FUNCTION void entries_of(ordinal_t i, bool low, offset_t& beg, offset_t& end) const {
    off_diagonal_range(rm, i, low, beg, end);
    const offset_t nnz = static_cast<offset_t>(ent.extent(0));
    beg = beg < 0 ? 0 : beg;
    end = end > nnz ? nnz : end;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    const ordinal_t b = static_cast<ordinal_t>(m.league_rank());
    const ordinal_t s = b * shape.block;
    const ordinal_t e = s + shape.block < n ? s + shape.block : n;
    ordinal_t bound = lower ? s : e;
    for (int h = 0; h < hops; ++h) {
      // the rows swept for this hop's dependence: [bound, e) (lower) or [s, bound) (upper), cut at the capacity
      const ordinal_t lo = lower ? (bound > e - shape.capacity ? bound : e - shape.capacity) : s;
      const ordinal_t hi = lower ? e : (bound < s + shape.capacity ? bound : s + shape.capacity);
      ordinal_t next = bound;
      if (lower)
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, lo, hi),
            [&](const ordinal_t i, ordinal_t& v) {
              offset_t beg, end;
              entries_of(i, true, beg, end);
              for (offset_t k = beg; k < end; ++k) v = ent(k) < v ? ent(k) : v;
            },
            Kokkos::Min<ordinal_t>(next));
      else
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, lo, hi),
            [&](const ordinal_t i, ordinal_t& v) {
              offset_t beg, end;
              entries_of(i, false, beg, end);
              for (offset_t k = beg; k < end; ++k) v = ent(k) + 1 > v ? ent(k) + 1 : v;
            },
            Kokkos::Max<ordinal_t>(next));
      bound = lower ? (next < bound ? next : bound) : (next > bound ? next : bound);
      bound = bound < 0 ? 0 : bound > n ? n : bound;
      Kokkos::single(Kokkos::PerTeam(m), [&]() { halo(b * kJacobiFusedHops + h) = bound; });
    }
  }
};

/// K Jacobi sweeps (2 or 3) from x_0 = D^{-1} b in one launch (TriSolveOptions::fuse_sweeps). A team takes a block of
/// rows and sweeps, in two buffers of team memory, the rows its block's last sweep depends on: sweep k the rows within
/// K - k steps of dependence (JacobiFusedHalo's bounds, nearest for the last sweeps), so that its last sweep writes the
/// block's x_K. A value x_{k-1}(j) a row needs and the team did not sweep (a row beyond the capacity) it recomputes
/// from the rows j meets, down to x_0 (x1, x2). Every value is formed as JacobiSweepRow forms it (a thread per row, the
/// sum in row order, then D^{-1} (b - s)), so x is that of K sweep launches. Halo rows are swept by every team whose
/// block depends on them: the work above the sweeps' is the halos', and the launch replaces K. As a reduction it also
/// sums d·x into the caller's scalar (the last sweep of TriangularSolver::solve_dot). Deterministic: a team writes only
/// its block's rows of x and its own team memory.
template <class ExecSpace, class RowMap, class Entries, class Values, class B, class XOut, class Halo, int K>
struct JacobiFused {
  static_assert(K >= 2 && K <= kJacobiFusedMaxSweeps, "JacobiFused: 2 or 3 sweeps");
  using Scalar = typename XOut::non_const_value_type;
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  using scratch_view =
      Kokkos::View<Scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using value_type = double;
  RowMap rm;
  Entries ent;
  Values val, dinv;
  B b;
  XOut xout;
  Halo halo;
  ordinal_t n;
  bool lower;
  JacobiFusedShape shape;
  Kokkos::View<const Scalar*, typename XOut::device_type> d;  ///< the reduction's other vector: d·x

  // x_s(j), the value of row j after s sweeps, recomputed from global memory (one function per depth)
  KOKKOS_INLINE_FUNCTION Scalar x0(ordinal_t j) const { return dinv(j) * b(j); }
  KOKKOS_INLINE_FUNCTION Scalar x1(ordinal_t j) const {
    offset_t beg, end;
    off_diagonal_range(rm, j, lower, beg, end);
    Scalar s = 0;
    for (offset_t k = beg; k < end; ++k) s += val(k) * x0(ent(k));
    return dinv(j) * (b(j) - s);
  }
  KOKKOS_INLINE_FUNCTION Scalar x2(ordinal_t j) const {
    offset_t beg, end;
    off_diagonal_range(rm, j, lower, beg, end);
    Scalar s = 0;
    for (offset_t k = beg; k < end; ++k) s += val(k) * x1(ent(k));
    return dinv(j) * (b(j) - s);
  }

  // the value x_{k-1}(j) a row of sweep k reads: from team memory where the team swept row j ([pf, pl)), else from
  // global memory (x_0) or recomputed
  KOKKOS_INLINE_FUNCTION Scalar x_prev(int k, const scratch_view& prev, ordinal_t base, ordinal_t pf, ordinal_t pl,
                                       ordinal_t j) const {
    if (j >= pf && j < pl) return prev(j - base);
    return k == 1 ? x0(j) : k == 2 ? x1(j) : x2(j);
  }

  // The block's sweeps; `sum` adds d(i) x(i) of each row of the last sweep (a thread's share of the reduction). A
  // thread keeps its rows across the sweeps (rows first[1] + t, + threads, ...), its first row's entries (up to
  // kCached) and b, D^{-1} in registers; x_0 of the rows swept first goes to team memory before the first sweep.
  static constexpr int kCached = 8;
  template <class Sum>
  KOKKOS_INLINE_FUNCTION void sweep_block(const member_type& m, const Sum& sum) const {
    const ordinal_t blk = static_cast<ordinal_t>(m.league_rank());
    const ordinal_t s = blk * shape.block;
    const ordinal_t e = s + shape.block < n ? s + shape.block : n;
    // team memory holds rows [base, base + capacity); sweep k sweeps rows [first[k], last[k]), nested in sweep 1's
    const ordinal_t base = lower ? e - shape.capacity : s;
    ordinal_t first[K + 1], last[K + 1];
    for (int k = 1; k <= K; ++k) {
      const int h = K - k;  // the hops of dependence between sweep k and the last
      const ordinal_t bound = h == 0 ? (lower ? s : e) : halo(blk * kJacobiFusedHops + h - 1);
      first[k] = lower ? (bound > base ? bound : base) : s;
      last[k] = lower ? e : (bound < base + shape.capacity ? bound : base + shape.capacity);
    }
    const scratch_view buf[2] = {scratch_view(m.team_scratch(0), shape.capacity),
                                 scratch_view(m.team_scratch(0), shape.capacity)};
    const ordinal_t threads = static_cast<ordinal_t>(m.team_size());
    const ordinal_t r0 = first[1] + static_cast<ordinal_t>(m.team_rank());
    // the first row's entries in registers (rows of more entries read them from global memory)
    ordinal_t cj[kCached];
    Scalar cv[kCached];
    int cn = -1;
    Scalar c_dinv = 0, c_b = 0;
    if (r0 < last[1]) {
      offset_t beg, end;
      off_diagonal_range(rm, r0, lower, beg, end);
      if (end - beg <= kCached) {
        cn = static_cast<int>(end - beg);
#pragma unroll
        for (int q = 0; q < kCached; ++q)
          if (q < cn) {
            cj[q] = ent(beg + q);
            cv[q] = val(beg + q);
          }
      }
      c_dinv = dinv(r0);
      c_b = b(r0);
    }
    for (ordinal_t i = r0; i < last[1]; i += threads) buf[0](i - base) = i == r0 ? c_dinv * c_b : x0(i);
    m.team_barrier();
    for (int k = 1; k <= K; ++k) {
      const scratch_view& prev = buf[(k - 1) & 1];
      const scratch_view& cur = buf[k & 1];
      const ordinal_t pf = first[k > 1 ? k - 1 : 1], pl = last[k > 1 ? k - 1 : 1];
      for (ordinal_t i = r0; i < last[1]; i += threads) {
        if (i < first[k] || i >= last[k]) continue;
        Scalar acc = 0, xi;
        if (i == r0 && cn >= 0) {
#pragma unroll
          for (int q = 0; q < kCached; ++q)
            if (q < cn) acc += cv[q] * x_prev(k, prev, base, pf, pl, cj[q]);
          xi = c_dinv * (c_b - acc);
        } else {
          offset_t beg, end;
          off_diagonal_range(rm, i, lower, beg, end);
          for (offset_t p = beg; p < end; ++p) acc += val(p) * x_prev(k, prev, base, pf, pl, ent(p));
          xi = dinv(i) * (b(i) - acc);
        }
        if (k < K)
          cur(i - base) = xi;
        else {
          xout(i) = xi;
          sum(i, xi);
        }
      }
      if (k < K) m.team_barrier();
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    sweep_block(m, [](ordinal_t, Scalar) {});
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m, double& rr) const {
    sweep_block(m, [&](ordinal_t i, Scalar xi) { rr += static_cast<double>(d(i)) * static_cast<double>(xi); });
  }
};

/// Computes a fused solve's halo bounds (JacobiFusedHalo) of the triangle (rm, ent) of n rows into `halo`
/// (shape.blocks(n) x kJacobiFusedHops entries) for `sweeps` sweeps. Asynchronous.
template <class ExecSpace, class RowMap, class Entries, class Halo>
void jacobi_fused_halo(const JacobiFusedShape& shape, int sweeps, const RowMap& rm, const Entries& ent, ordinal_t n,
                       bool lower, const Halo& halo) {
  const ordinal_t blocks = shape.blocks(n);
  if (blocks == 0 || sweeps < 2) return;
  const JacobiFusedHalo<ExecSpace, RowMap, Entries, Halo> f{rm, ent, halo, n, lower, sweeps - 1, shape};
  Kokkos::parallel_for("AsyncSparse::trisolve::jacobi_fused_halo",
                       Impl::TeamPolicy<ExecSpace>(Impl::launch_instance<ExecSpace>(), blocks, shape.threads), f);
}

/// A Jacobi solve of `sweeps` (2 or 3) sweeps in one launch (JacobiFused) into x, with the halo bounds of
/// jacobi_fused_halo; with a non-empty `d` also d·x into the device scalar `out`. Asynchronous.
template <class ExecSpace, class RowMap, class Entries, class Values, class B, class X, class Halo, class D, class Out>
void jacobi_fused(const JacobiFusedShape& shape, int sweeps, const RowMap& rm, const Entries& ent, const Values& val,
                  const Values& dinv, ordinal_t n, bool lower, const B& b, const X& x, const Halo& halo, const D& d,
                  const Out& out) {
  if (shape.block < 1 || shape.capacity < shape.block || shape.threads < 1)
    throw InvalidInput(
        "jacobi_fused: blocks of at least one row, a capacity of at least a block and one thread per "
        "team needed, got " +
        std::to_string(shape.block) + ", " + std::to_string(shape.capacity) + ", " + std::to_string(shape.threads));
  const bool dot = d.data() != nullptr;
  const ExecSpace exec = Impl::launch_instance<ExecSpace>();
  const auto run = [&](auto f) {
    using F = decltype(f);
    f.d = d;
    const auto policy = Impl::TeamPolicy<ExecSpace>(exec, shape.blocks(n), shape.threads)
                            .set_scratch_size(0, Kokkos::PerTeam(2 * F::scratch_view::shmem_size(shape.capacity)));
    if (dot)
      Kokkos::parallel_reduce("AsyncSparse::trisolve::jacobi_fused_dot", policy, f, out);
    else
      Kokkos::parallel_for("AsyncSparse::trisolve::jacobi_fused", policy, f);
  };
  if (sweeps == 2)
    run(JacobiFused<ExecSpace, RowMap, Entries, Values, B, X, Halo, 2>{rm, ent, val, dinv, b, x, halo, n, lower,
                                                                       shape});
  else if (sweeps == 3)
    run(JacobiFused<ExecSpace, RowMap, Entries, Values, B, X, Halo, 3>{rm, ent, val, dinv, b, x, halo, n, lower,
                                                                       shape});
  else
    throw InvalidInput("jacobi_fused: 2 or 3 sweeps, got " + std::to_string(sweeps));
}

}  // namespace Impl
}  // namespace AsyncSparse
