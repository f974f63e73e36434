// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — fused vector kernels of the Krylov solvers (CG, GMRES).
//
// A Krylov iteration on a sparse matrix is memory bound: its cost is the bytes it moves. Written with one
// BLAS-1 call per vector operation, every call reads its vectors again, and every reduction (dot, norm)
// returns its value to the host, which waits for the device each time. The kernels here merge the vector
// operations that touch the same data into one pass and leave every reduction result on the device, in a
// small View of scalars (ScalarReadback) that the next kernels read directly:
//
//  * spmv_dot: y = A x, optionally with x·y in the same pass; with a direction update it first forms
//    p_new = z + β p_old on the fly (β = s[num] / s[den] read on the device), writes p_new, y = A p_new and
//    reduces p_new·y — CG's search direction, matrix-vector product and pᵀAp in one kernel. The CRS product
//    is the Kokkos-Kernels one (a team of lane groups, a lane group per row, its lanes over the row's
//    entries); the vector length and team size come from resolve_launch_config.
//  * cg_update: α = s[rz] / s[pq]; x += α p, r −= α q and ‖r‖² in one pass. The update is skipped (‖r‖² then
//    reads 0) when s[rz] or s[pq] is not a positive finite number, so a breakdown never corrupts x or r; the
//    caller checks those two scalars before ‖r‖².
//  * dot_into: a dot product into a device scalar (preconditioned CG's rᵀz).
//  * GMRES's classical Gram–Schmidt twice (CGS2) on a column-major basis V: multi_dot (h = Vᵀw),
//    ortho_update (w −= V h, then either h' = Vᵀw or ‖w‖² of the new w, in the same pass over V) and
//    scale_by_norm (v = w / ‖w‖ with the norm read on the device). CGS2 then reads V three times per
//    Arnoldi step instead of four, and the host reads the Hessenberg column once.
//
// All kernels are asynchronous (reductions go to device Views); nothing here synchronises the host.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>

namespace AsyncSparse {
namespace Impl {

/// Lanes per row, lane groups per team and rows per team of the CRS kernels, from the launch layer.
struct SpmvLaunch {
  int vector_length = 1;
  int team_size = 1;
  int rows_per_team = 1;
  std::int64_t league_size = 0;
};

template <class ExecSpace>
SpmvLaunch spmv_launch(std::int64_t nrows, std::int64_t nnz, const LaunchConfig& cfg = LaunchConfig()) {
  const double avg = nrows > 0 ? static_cast<double>(nnz) / static_cast<double>(nrows) : 1.0;
  const auto r = resolve_launch_config<ExecSpace>(cfg, nrows, avg);
  SpmvLaunch l;
  l.vector_length = r.vector_length;
  l.team_size = r.team_size;
  l.rows_per_team = r.chunk_size;
  l.league_size = r.num_chunks;
  return l;
}

/// y = A x (Update = false) or p_new = z + β p_old, y = A p_new (Update = true, x = z); with a reduction the
/// dot product of the vector multiplied and y. β = s(num) / s(den) (0 when `first`).
template <class Scalar, class Device, bool Update>
struct SpmvDotFunctor {
  using exec = typename Device::execution_space;
  using member = typename Kokkos::TeamPolicy<exec>::member_type;
  using crs = Crs<Scalar, Device>;
  using value_type = double;
  typename crs::row_map_type row_map;
  typename crs::index_type entries;
  typename crs::values_type values;
  Kokkos::View<const Scalar*, Device> z, p_old;
  Kokkos::View<Scalar*, Device> p_new, y;
  Kokkos::View<const double*, Device> s;
  int num = 0, den = 0;
  ordinal_t n = 0;
  int rows_per_team = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const member& t, double& dot) const {
    Scalar beta = 0;
    if (Update) beta = static_cast<Scalar>(s(num) / s(den));
    const ordinal_t begin = static_cast<ordinal_t>(t.league_rank()) * rows_per_team;
    const ordinal_t end = begin + rows_per_team < n ? begin + rows_per_team : n;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, begin, end), [&](const ordinal_t i) {
      Scalar sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(t, row_map(i), row_map(i + 1)),
          [&](const offset_t k, Scalar& acc) {
            const ordinal_t j = entries(k);
            acc += values(k) * (Update ? z(j) + beta * p_old(j) : z(j));
          },
          sum);
      Kokkos::single(Kokkos::PerThread(t), [&]() {
        const Scalar pi = Update ? z(i) + beta * p_old(i) : z(i);
        if (Update) p_new(i) = pi;
        y(i) = sum;
        dot += static_cast<double>(pi) * static_cast<double>(sum);
      });
    });
  }
};

/// The product without the reduction (parallel_for).
template <class F>
struct NoReduce {
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(const typename F::member& t) const {
    double unused = 0;
    f(t, unused);
  }
};

template <class Scalar, class Device, bool Update>
void launch_spmv_dot(const SpmvDotFunctor<Scalar, Device, Update>& f, const SpmvLaunch& l, bool reduce,
                     const Kokkos::View<double, Device>& result) {
  using exec = typename Device::execution_space;
  if (l.league_size == 0) {
    if (reduce) Kokkos::deep_copy(result, 0.0);
    return;
  }
  Kokkos::TeamPolicy<exec> policy(static_cast<int>(l.league_size), l.team_size, l.vector_length);
  if (reduce)
    Kokkos::parallel_reduce("AsyncSparse::krylov::spmv_dot", policy, f, result);
  else
    Kokkos::parallel_for("AsyncSparse::krylov::spmv", policy, NoReduce<SpmvDotFunctor<Scalar, Device, Update>>{f});
}

/// y = A x; with `s` non-empty also s(out) = x·y. One pass.
template <class Scalar, class Device>
void spmv_dot(const Crs<Scalar, Device>& A, const Kokkos::View<const Scalar*, Device>& x,
              const Kokkos::View<Scalar*, Device>& y, const Kokkos::View<double*, Device>& s, int out,
              const SpmvLaunch& l) {
  SpmvDotFunctor<Scalar, Device, false> f;
  f.row_map = A.graph.row_map;
  f.entries = A.graph.entries;
  f.values = A.values;
  f.z = x;
  f.y = y;
  f.n = A.numRows();
  f.rows_per_team = l.rows_per_team;
  const bool reduce = s.extent(0) > 0;
  Kokkos::View<double, Device> result;
  if (reduce) result = Kokkos::subview(s, out);
  launch_spmv_dot(f, l, reduce, result);
}

/// CG direction and product: p_new = z + β p_old with β = s(num) / s(den), y = A p_new, s(out) = p_new·y.
template <class Scalar, class Device>
void cg_direction_spmv(const Crs<Scalar, Device>& A, const Kokkos::View<const Scalar*, Device>& z,
                       const Kokkos::View<const Scalar*, Device>& p_old, const Kokkos::View<Scalar*, Device>& p_new,
                       const Kokkos::View<Scalar*, Device>& y, const Kokkos::View<double*, Device>& s, int num, int den,
                       int out, const SpmvLaunch& l) {
  SpmvDotFunctor<Scalar, Device, true> f;
  f.row_map = A.graph.row_map;
  f.entries = A.graph.entries;
  f.values = A.values;
  f.z = z;
  f.p_old = p_old;
  f.p_new = p_new;
  f.y = y;
  f.s = s;
  f.num = num;
  f.den = den;
  f.n = A.numRows();
  f.rows_per_team = l.rows_per_team;
  launch_spmv_dot(f, l, true, Kokkos::View<double, Device>(Kokkos::subview(s, out)));
}

template <class Scalar, class Device>
struct CgUpdateFunctor {
  Kokkos::View<Scalar*, Device> x, r;
  Kokkos::View<const Scalar*, Device> p, q;
  Kokkos::View<const double*, Device> s;
  int rz = 0, pq = 0;
  KOKKOS_INLINE_FUNCTION bool usable(double v) const { return v > 0 && v - v == 0; }
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, double& rr) const {
    const double a = s(rz), b = s(pq);
    if (!usable(a) || !usable(b)) return;  // breakdown: x and r stay as they are; the host reports it
    const Scalar alpha = static_cast<Scalar>(a / b);
    x(i) += alpha * p(i);
    const Scalar ri = r(i) - alpha * q(i);
    r(i) = ri;
    rr += static_cast<double>(ri) * static_cast<double>(ri);
  }
};

/// α = s(rz) / s(pq); x += α p; r −= α q; s(out) = ‖r‖². When s(rz) or s(pq) is not a positive finite number,
/// x and r are left unchanged and s(out) = 0 (the caller reports the breakdown from s(rz) and s(pq)).
template <class Scalar, class Device>
void cg_update(const Kokkos::View<Scalar*, Device>& x, const Kokkos::View<Scalar*, Device>& r,
               const Kokkos::View<const Scalar*, Device>& p, const Kokkos::View<const Scalar*, Device>& q,
               const Kokkos::View<double*, Device>& s, int rz, int pq, int out) {
  using exec = typename Device::execution_space;
  CgUpdateFunctor<Scalar, Device> f{x, r, p, q, s, rz, pq};
  Kokkos::parallel_reduce("AsyncSparse::krylov::cg_update",
                          Kokkos::RangePolicy<exec>(0, static_cast<ordinal_t>(x.extent(0))), f,
                          Kokkos::subview(s, out));
}

template <class Scalar, class Device>
struct DotFunctor {
  Kokkos::View<const Scalar*, Device> a, b;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, double& d) const {
    d += static_cast<double>(a(i)) * static_cast<double>(b(i));
  }
};

/// s(out) = a·b, asynchronously.
template <class Scalar, class Device>
void dot_into(const Kokkos::View<const Scalar*, Device>& a, const Kokkos::View<const Scalar*, Device>& b,
              const Kokkos::View<double*, Device>& s, int out) {
  using exec = typename Device::execution_space;
  Kokkos::parallel_reduce("AsyncSparse::krylov::dot", Kokkos::RangePolicy<exec>(0, static_cast<ordinal_t>(a.extent(0))),
                          DotFunctor<Scalar, Device>{a, b}, Kokkos::subview(s, out));
}

// ------------------------------------------------------------------------------------------ GMRES (CGS2)

/// Column-major Krylov basis V (n × (m+1)).
template <class Scalar, class Device>
using Basis = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;

/// The passes over the first k columns of V: Dot: h_out = Vᵀw. UpdateDot: w −= V h_in, then h_out = Vᵀw.
/// UpdateNorm: w −= V h_in, then h_out(0) = ‖w‖². Array reduction of k values (1 for UpdateNorm).
enum class OrthoPass { Dot, UpdateDot, UpdateNorm };

template <class Scalar, class Device>
struct OrthoFunctor {
  using value_type = double[];
  using size_type = typename Device::execution_space::size_type;
  size_type value_count = 1;
  Basis<const Scalar, Device> V;
  Kokkos::View<Scalar*, Device> w;
  Kokkos::View<const double*, Device> h_in;
  int k = 0;
  OrthoPass pass = OrthoPass::Dot;

  KOKKOS_INLINE_FUNCTION void init(double* v) const {
    for (size_type c = 0; c < value_count; ++c) v[c] = 0;
  }
  // Kokkos 4 takes join() without volatile and rejects the volatile form; Kokkos 3.4 needs the volatile form.
#if KOKKOS_VERSION >= 40000
  KOKKOS_INLINE_FUNCTION void join(double* dst, const double* src) const {
#else
  KOKKOS_INLINE_FUNCTION void join(volatile double* dst, const volatile double* src) const {
#endif
    for (size_type c = 0; c < value_count; ++c) dst[c] += src[c];
  }
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, double* acc) const {
    Scalar wi = w(i);
    if (pass != OrthoPass::Dot) {
      for (int c = 0; c < k; ++c) wi -= V(i, c) * static_cast<Scalar>(h_in(c));
      w(i) = wi;
    }
    if (pass == OrthoPass::UpdateNorm) {
      acc[0] += static_cast<double>(wi) * static_cast<double>(wi);
    } else {
      for (int c = 0; c < k; ++c) acc[c] += static_cast<double>(V(i, c)) * static_cast<double>(wi);
    }
  }
};

/// One pass of CGS2 over the first k columns of V (see OrthoPass); h_out receives k values (Dot, UpdateDot)
/// or one (UpdateNorm). Asynchronous.
template <class Scalar, class Device>
void ortho_pass(OrthoPass pass, const Basis<Scalar, Device>& V, int k, const Kokkos::View<Scalar*, Device>& w,
                const Kokkos::View<const double*, Device>& h_in, const Kokkos::View<double*, Device>& h_out) {
  using exec = typename Device::execution_space;
  OrthoFunctor<Scalar, Device> f;
  f.value_count = pass == OrthoPass::UpdateNorm ? 1 : k;
  f.V = V;
  f.w = w;
  f.h_in = h_in;
  f.k = k;
  f.pass = pass;
  Kokkos::parallel_reduce("AsyncSparse::krylov::cgs2_pass",
                          Kokkos::RangePolicy<exec>(0, static_cast<ordinal_t>(w.extent(0))), f, h_out);
}

template <class Scalar, class Device>
struct ScaleByNormFunctor {
  Kokkos::View<const Scalar*, Device> w;
  Kokkos::View<Scalar*, Device> v;
  Kokkos::View<const double*, Device> s;
  int idx = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    const double nrm2 = s(idx);
    const bool ok = nrm2 > 0 && nrm2 - nrm2 == 0;
    v(i) = ok ? static_cast<Scalar>(static_cast<double>(w(i)) / sqrt(nrm2)) : Scalar(0);
  }
};

/// v = w / sqrt(s(idx)) (v = 0 when s(idx) is zero or not finite: the caller stops the cycle then).
template <class Scalar, class Device>
void scale_by_norm(const Kokkos::View<const Scalar*, Device>& w, const Kokkos::View<Scalar*, Device>& v,
                   const Kokkos::View<const double*, Device>& s, int idx) {
  using exec = typename Device::execution_space;
  Kokkos::parallel_for("AsyncSparse::krylov::scale_by_norm",
                       Kokkos::RangePolicy<exec>(0, static_cast<ordinal_t>(w.extent(0))),
                       ScaleByNormFunctor<Scalar, Device>{w, v, s, idx});
}

}  // namespace Impl
}  // namespace AsyncSparse
