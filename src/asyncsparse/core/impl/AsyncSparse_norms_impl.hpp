// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <cmath>
#include <limits>
#include <string>

namespace AsyncSparse {
namespace Impl {

/// sqrt(sum v_i^2) over a sequence given by get(k), k in [0, n), robust to overflow / underflow.
template <class Get>
double robust_nrm2(std::size_t n, Get get) {
  double sum = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const double v = get(k);
    sum += v * v;
  }
  if (std::isnan(sum)) return sum;
  if (sum > std::numeric_limits<double>::min() && sum < std::numeric_limits<double>::max()) return std::sqrt(sum);
  double scale = 0.0;
  for (std::size_t k = 0; k < n; ++k) scale = std::max(scale, std::fabs(get(k)));
  if (scale == 0.0 || std::isinf(scale)) return scale;
  double s = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const double v = get(k) / scale;
    s += v * v;
  }
  return scale * std::sqrt(s);
}

template <class Scalar, class VScalar>
void check_spmv_sizes(const std::string& where, const CsrHost<Scalar>& A, std::size_t nx, std::size_t nb) {
  check_structure(A, where);
  if (nx != static_cast<std::size_t>(A.ncols))
    throw InvalidInput(where + ": x has " + std::to_string(nx) + " entries, the matrix " + std::to_string(A.ncols) +
                       " columns");
  if (nb != static_cast<std::size_t>(A.nrows))
    throw InvalidInput(where + ": b has " + std::to_string(nb) + " entries, the matrix " + std::to_string(A.nrows) +
                       " rows");
}

}  // namespace Impl

template <class Scalar>
double nrm2(const std::vector<Scalar>& x) {
  return Impl::robust_nrm2(x.size(), [&](std::size_t k) { return static_cast<double>(x[k]); });
}

template <class Scalar>
double nrm_inf(const std::vector<Scalar>& x) {
  double m = 0.0;
  for (const Scalar& v : x) {
    const double a = std::fabs(static_cast<double>(v));
    if (std::isnan(a)) return a;
    m = std::max(m, a);
  }
  return m;
}

template <class Scalar>
double frobenius_norm(const CsrHost<Scalar>& A) {
  return Impl::robust_nrm2(A.values.size(), [&](std::size_t k) { return static_cast<double>(A.values[k]); });
}

template <class Scalar, class VScalar>
std::vector<VScalar> spmv(const CsrHost<Scalar>& A, const std::vector<VScalar>& x) {
  Impl::check_spmv_sizes<Scalar, VScalar>("spmv", A, x.size(), static_cast<std::size_t>(A.nrows));
  std::vector<VScalar> y(static_cast<std::size_t>(A.nrows));
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    double s = 0.0;
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      s += static_cast<double>(A.values[k]) * static_cast<double>(x[A.col_idx[k]]);
    y[i] = static_cast<VScalar>(s);
  }
  return y;
}

template <class Scalar, class VScalar>
std::vector<double> residual(const CsrHost<Scalar>& A, const std::vector<VScalar>& x, const std::vector<VScalar>& b) {
  Impl::check_spmv_sizes<Scalar, VScalar>("residual", A, x.size(), b.size());
  std::vector<double> r(static_cast<std::size_t>(A.nrows));
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    double s = static_cast<double>(b[i]);
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      s -= static_cast<double>(A.values[k]) * static_cast<double>(x[A.col_idx[k]]);
    r[i] = s;
  }
  return r;
}

template <class Scalar, class VScalar>
double residual_norm(const CsrHost<Scalar>& A, const std::vector<VScalar>& x, const std::vector<VScalar>& b) {
  return nrm2(residual(A, x, b));
}

template <class Scalar, class VScalar>
double relative_residual_norm(const CsrHost<Scalar>& A, const std::vector<VScalar>& x, const std::vector<VScalar>& b) {
  const double r = residual_norm(A, x, b);
  const double nb = nrm2(b);
  return nb > 0 ? r / nb : r;
}

}  // namespace AsyncSparse
