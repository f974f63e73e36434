// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — host norms and residuals for references and tests.
//
// Serial host versions of the quantities the papers report: ‖A‖_F, ‖x‖_2, ‖x‖_inf, the residual
// b - A x and its 2-norm. Sums are accumulated in double. nrm2 rescales (as LAPACK's dnrm2 does) when
// the plain sum of squares overflows or underflows, so it is accurate for any finite input; NaN in the
// input gives NaN. Size mismatches and corrupt matrices are InvalidInput naming the function.
#pragma once

#include <vector>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>

namespace AsyncSparse {

/// Euclidean norm of x (0 for an empty vector).
template <class Scalar>
double nrm2(const std::vector<Scalar>& x);

/// Max norm max_i |x_i| (0 for an empty vector; NaN when x holds a NaN).
template <class Scalar>
double nrm_inf(const std::vector<Scalar>& x);

/// Frobenius norm sqrt(sum a_ij^2) over the stored entries of A.
template <class Scalar>
double frobenius_norm(const CsrHost<Scalar>& A);

/// y = A x. x.size() must be A.ncols. Duplicated entries are all applied (summed).
template <class Scalar, class VScalar>
std::vector<VScalar> spmv(const CsrHost<Scalar>& A, const std::vector<VScalar>& x);

/// r = b - A x (accumulated in double). x.size() == A.ncols, b.size() == A.nrows.
template <class Scalar, class VScalar>
std::vector<double> residual(const CsrHost<Scalar>& A, const std::vector<VScalar>& x, const std::vector<VScalar>& b);

/// ‖b - A x‖_2.
template <class Scalar, class VScalar>
double residual_norm(const CsrHost<Scalar>& A, const std::vector<VScalar>& x, const std::vector<VScalar>& b);

/// ‖b - A x‖_2 / ‖b‖_2 (the absolute residual when b = 0).
template <class Scalar, class VScalar>
double relative_residual_norm(const CsrHost<Scalar>& A, const std::vector<VScalar>& x, const std::vector<VScalar>& b);

}  // namespace AsyncSparse

#include <asyncsparse/core/impl/AsyncSparse_norms_impl.hpp>
