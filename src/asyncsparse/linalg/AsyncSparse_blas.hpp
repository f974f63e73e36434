// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the Kokkos-Kernels vector operations and sparse matrix-vector products of the library, in one place.
//
// `Blas<Scalar, Device>` forwards to KokkosBlas and KokkosSparse::spmv for the library's matrix and vector types.
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

namespace AsyncSparse {

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
  Kokkos::deep_copy(r, b);
  KokkosSparse::spmv("N", Scalar(-1), A, x, Scalar(1), r);
  return static_cast<double>(KokkosBlas::nrm2(r));
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
