// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the Kokkos-Kernels vector operations and sparse matrix-vector products of the library, in one place.
//
// `Blas<Scalar, Device>` forwards to KokkosBlas and KokkosSparse::spmv for the library's matrix and vector types
// (rhs_and_residual_norms adds one reduction of its own: two norms in one pass).
// Its members are defined outside the class body, so the compiled library instantiates them once per configured
// scalar and device (ETI group `blas`) and every other translation unit only calls them. One call of
// KokkosSparse::spmv instantiates every variant that Kokkos-Kernels chooses between at run time (for CUDA 36 kernels:
// the values of alpha and beta, transposition), which each object reaching a product compiled again (about 14 s of
// nvcc per object, measured on a 2-core host). For scalars and devices the library does not instantiate, the
// definitions below are used as header-only code.
#pragma once

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>

#include <cmath>
#include <cstddef>
#include <utility>

namespace AsyncSparse {

namespace Impl {
/// The sums of squares of two vectors in one pass (an array reduction of two values: one wait for the device).
template <class CV>
struct TwoSquaredNorms {
  using value_type = double[];
  using size_type = std::size_t;
  size_type value_count = 2;
  CV a, b;
  KOKKOS_INLINE_FUNCTION void init(double* v) const { v[0] = v[1] = 0; }
  KOKKOS_INLINE_FUNCTION void join(Compat::JoinDst<double> dst, Compat::JoinSrc<double> src) const {
    dst[0] += src[0];
    dst[1] += src[1];
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i, double* acc) const {
    const auto x = static_cast<double>(a(i)), y = static_cast<double>(b(i));
    acc[0] += x * x;
    acc[1] += y * y;
  }
};
}  // namespace Impl

template <class Scalar, class Device>
struct Blas {
  using crs_type = Crs<Scalar, Device>;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;

  /// y = beta y + alpha A x
  static void spmv(Scalar alpha, const crs_type& A, const const_vector_type& x, Scalar beta, const vector_type& y);
  /// r = b - A x; returns ||r||_2
  static double residual(const crs_type& A, const const_vector_type& x, const const_vector_type& b,
                         const vector_type& r);
  /// r = b - A x; returns {||b||_2, ||r||_2}, both norms from one pass (a solver's start: one wait for the device
  /// instead of two)
  static std::pair<double, double> rhs_and_residual_norms(const crs_type& A, const const_vector_type& x,
                                                          const const_vector_type& b, const vector_type& r);
  static double nrm2(const const_vector_type& x);
  static double dot(const const_vector_type& x, const const_vector_type& y);
  /// y = b y + a x
  static void axpby(Scalar a, const const_vector_type& x, Scalar b, const vector_type& y);
  /// y = a x (y and x may be the same vector)
  static void scal(const vector_type& y, Scalar a, const const_vector_type& x);
  /// y = c y + ab (a .* b), elementwise
  static void mult(Scalar c, const vector_type& y, Scalar ab, const const_vector_type& a, const const_vector_type& b);
};

template <class Scalar, class Device>
void Blas<Scalar, Device>::spmv(Scalar alpha, const crs_type& A, const const_vector_type& x, Scalar beta,
                                const vector_type& y) {
  KokkosSparse::spmv("N", alpha, A, x, beta, y);
}

template <class Scalar, class Device>
double Blas<Scalar, Device>::residual(const crs_type& A, const const_vector_type& x, const const_vector_type& b,
                                      const vector_type& r) {
  Kokkos::deep_copy(r, b);  // synchronous: work on other instances that wrote x (e.g. a relaxation's) is finished
  KokkosSparse::spmv("N", Scalar(-1), A, x, Scalar(1), r);
  return static_cast<double>(KokkosBlas::nrm2(r));
}

template <class Scalar, class Device>
std::pair<double, double> Blas<Scalar, Device>::rhs_and_residual_norms(const crs_type& A, const const_vector_type& x,
                                                                       const const_vector_type& b,
                                                                       const vector_type& r) {
  using exec = typename Device::execution_space;
  Kokkos::fence();  // work on any instance that wrote x or b is finished (as the synchronous copy of residual)
  Kokkos::deep_copy(exec(), r, b);  // on the default instance, in order before the product (which runs there)
  KokkosSparse::spmv("N", Scalar(-1), A, x, Scalar(1), r);
  double sums[2] = {0, 0};
  Kokkos::parallel_reduce("AsyncSparse::blas::rhs_and_residual_norms", Impl::RangePolicy<exec>(0, b.extent(0)),
                          Impl::TwoSquaredNorms<const_vector_type>{2, b, r},
                          Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(sums, 2));
  exec().fence();  // a reduction into a View need not wait for its result (Kokkos 4 does not)
  // plain sums of squares: where they may have over- or underflowed (or hold a NaN), the norms of nrm2 instead
  constexpr double lo = 1e-280, hi = 1e280;
  if (!(sums[0] > lo && sums[0] < hi) || !(sums[1] > lo && sums[1] < hi))
    return {static_cast<double>(KokkosBlas::nrm2(b)), static_cast<double>(KokkosBlas::nrm2(r))};
  return {std::sqrt(sums[0]), std::sqrt(sums[1])};
}

template <class Scalar, class Device>
double Blas<Scalar, Device>::nrm2(const const_vector_type& x) {
  return static_cast<double>(KokkosBlas::nrm2(x));
}

template <class Scalar, class Device>
double Blas<Scalar, Device>::dot(const const_vector_type& x, const const_vector_type& y) {
  return static_cast<double>(KokkosBlas::dot(x, y));
}

template <class Scalar, class Device>
void Blas<Scalar, Device>::axpby(Scalar a, const const_vector_type& x, Scalar b, const vector_type& y) {
  KokkosBlas::axpby(a, x, b, y);
}

template <class Scalar, class Device>
void Blas<Scalar, Device>::scal(const vector_type& y, Scalar a, const const_vector_type& x) {
  KokkosBlas::scal(y, a, x);
}

template <class Scalar, class Device>
void Blas<Scalar, Device>::mult(Scalar c, const vector_type& y, Scalar ab, const const_vector_type& a,
                                const const_vector_type& b) {
  KokkosBlas::mult(c, y, ab, a, b);
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake).
#define ASYNCSPARSE_ETI_BLAS(EXTERN, S, D) EXTERN template struct Blas<S, D>;
ASYNCSPARSE_ETI_DECLARE(ASYNCSPARSE_ETI_BLAS)

}  // namespace AsyncSparse
