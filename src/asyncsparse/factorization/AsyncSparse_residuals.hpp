// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — residual norms of incomplete factorizations, on the device.
//
// The quantities Chow, Anzt & Dongarra (2015, sect. 4.2) report for the iterative ILU/IC sweeps:
//  * the nonlinear residual ||(A - L U)_S||_F / ||A_S||_F over the pattern S: zero exactly when the factors solve
//    the fixed-point equations (LU)_ij = a_ij, (i, j) in S, that the sweeps iterate on (relative; the absolute
//    value when ||A_S||_F = 0). For IC, ||(A - L Lᵀ)_S||_F / ||A_S||_F with S the lower triangular part of the
//    pattern of A (the equations the IC sweeps solve);
//  * the ILU residual ||A - L U||_F over the full product (absolute; not zero for an incomplete factorization;
//    it correlates with the preconditioner quality, Duff & Meurant 1989). It needs every entry of L U, so it
//    costs a merge over the rows of the product (never formed) and is computed on request only.
// They agree with Reference::nonlinear_residual / Reference::ilu_residual (host) up to round-off.
//
// Input: A square; L lower triangular and U upper triangular (CSR, sorted rows, diagonals stored; for a unit
// lower L store the ones), of A's dimension; otherwise InvalidInput. The functions fence `exec` (they return a
// number).
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_kind.hpp>
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>

namespace AsyncSparse {
namespace Impl {

/// The rows of a CRS matrix (row map, column indices, values), as the kernels capture them.
template <class Mat>
struct CrsRows {
  decltype(std::declval<Mat&>().graph.row_map) rm;
  decltype(std::declval<Mat&>().graph.entries) ent;
  decltype(std::declval<Mat&>().values) val;
  explicit CrsRows(const Mat& M) : rm(M.graph.row_map), ent(M.graph.entries), val(M.values) {}
};

/// sum_k X(i, k) Y(j, k) over the common column indices of row i of X and row j of Y (both sorted).
template <class XRows, class YRows>
KOKKOS_INLINE_FUNCTION auto sparse_row_dot(const XRows& X, ordinal_t i, const YRows& Y, ordinal_t j) {
  typename decltype(X.val)::non_const_value_type s = 0;
  offset_t p = X.rm(i), pe = X.rm(i + 1), q = Y.rm(j), qe = Y.rm(j + 1);
  while (p < pe && q < qe) {
    const ordinal_t a = X.ent(p), b = Y.ent(q);
    if (a == b) {
      s += X.val(p) * Y.val(q);
      ++p;
      ++q;
    } else if (a < b) {
      ++p;
    } else {
      ++q;
    }
  }
  return s;
}

/// (squared residual, squared norm of A) over a task list: entries (row(t), col(t)) with values a(t); the
/// product entry is the dot of row row(t) of X with row col(t) of Y (Y = column storage of U, or L for IC).
template <class ExecSpace, class RowV, class ColV, class AV, class Mat>
Kokkos::pair<double, double> task_residual_squares(const ExecSpace& exec, const RowV& row, const ColV& col, const AV& a,
                                                   const Mat& X, const Mat& Y) {
  const CrsRows<Mat> x(X), y(Y);
  double r2 = 0, a2 = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::residuals::tasks", Impl::RangePolicy<ExecSpace>(exec, 0, row.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t t, double& r, double& n) {
        const double av = static_cast<double>(a(t));
        const double d = av - static_cast<double>(sparse_row_dot(x, row(t), y, col(t)));
        r += d * d;
        n += av * av;
      },
      r2, a2);
  return {r2, a2};
}

/// Same over the entries of A: all of them (ILU), or those with j <= i (IC).
template <ParIluKind Kind, class ExecSpace, class Mat>
Kokkos::pair<double, double> matrix_residual_squares(const ExecSpace& exec, const Mat& A, const Mat& X, const Mat& Y) {
  const CrsRows<Mat> m(A), x(X), y(Y);
  double r2 = 0, a2 = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::residuals::pattern", Impl::RangePolicy<ExecSpace>(exec, 0, A.numRows()),
      KOKKOS_LAMBDA(const ordinal_t i, double& r, double& n) {
        for (offset_t k = m.rm(i); k < m.rm(i + 1); ++k) {
          const ordinal_t j = m.ent(k);
          if constexpr (Kind == ParIluKind::Ic) {
            if (j > i) continue;
          }
          const double av = static_cast<double>(m.val(k));
          const double d = av - static_cast<double>(sparse_row_dot(x, i, y, j));
          r += d * d;
          n += av * av;
        }
      },
      r2, a2);
  return {r2, a2};
}

/// ||A - X Y||_F without forming X Y: row i of the product is a merge of the rows Y(k, :) for the entries x_ik of
/// row i of X (all rows sorted with unique columns); each column j of the union with row i of A is visited once,
/// in increasing order, its product entry summed over k in increasing order. One thread per row; `cursor` holds
/// the position reached in each Y(k, :) (one slot per entry of X). (Kokkos-Kernels' spgemm is not used: its
/// CUDA results were wrong for some inputs in the Kokkos-Kernels versions we support.)
template <class ExecSpace, class MatA, class MatX, class MatY>
double product_difference_norm(const ExecSpace& exec, const MatA& A, const MatX& X, const MatY& Y) {
  using mem = typename MatA::device_type::memory_space;
  const CrsRows<MatA> m(A);
  const CrsRows<MatX> x(X);
  const CrsRows<MatY> y(Y);
  Kokkos::View<offset_t*, mem> cursor(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::residuals::cursor"),
                                      static_cast<std::size_t>(X.nnz()));
  const ordinal_t none = Y.numCols() > A.numCols() ? Y.numCols() : A.numCols();  // larger than any column
  double r2 = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::residuals::product_difference", Impl::RangePolicy<ExecSpace>(exec, 0, A.numRows()),
      KOKKOS_LAMBDA(const ordinal_t i, double& r) {
        const offset_t xb = x.rm(i), xe = x.rm(i + 1);
        for (offset_t p = xb; p < xe; ++p) cursor(p) = y.rm(x.ent(p));
        offset_t q = m.rm(i);
        const offset_t qe = m.rm(i + 1);
        while (true) {
          ordinal_t j = none;
          for (offset_t p = xb; p < xe; ++p)
            if (cursor(p) < y.rm(x.ent(p) + 1) && y.ent(cursor(p)) < j) j = y.ent(cursor(p));
          if (q < qe && m.ent(q) < j) j = m.ent(q);
          if (j == none) break;
          double c = 0;
          for (offset_t p = xb; p < xe; ++p) {
            const offset_t cp = cursor(p);
            if (cp < y.rm(x.ent(p) + 1) && y.ent(cp) == j) {
              c += static_cast<double>(x.val(p)) * static_cast<double>(y.val(cp));
              cursor(p) = cp + 1;
            }
          }
          double d = -c;
          if (q < qe && m.ent(q) == j) d += static_cast<double>(m.val(q++));
          r += d * d;
        }
      },
      r2);
  return std::sqrt(r2);
}

template <class Scalar, class Device>
void check_factor_dims(const std::string& fn, const Crs<Scalar, Device>& A, const Crs<Scalar, Device>& L,
                       const Crs<Scalar, Device>* U) {
  if (A.numRows() != A.numCols())
    throw InvalidInput(fn + ": A must be square, got " + std::to_string(A.numRows()) + " x " +
                       std::to_string(A.numCols()));
  const auto bad = [&](const Crs<Scalar, Device>& M) {
    return M.numRows() != A.numRows() || M.numCols() != A.numCols();
  };
  if (bad(L) || (U && bad(*U)))
    throw InvalidInput(fn + ": factor dimensions do not match A (" + std::to_string(A.numRows()) + " x " +
                       std::to_string(A.numCols()) + ")");
}

inline double relative(const Kokkos::pair<double, double>& sq) {
  return sq.second > 0 ? std::sqrt(sq.first / sq.second) : std::sqrt(sq.first);
}

}  // namespace Impl

/// ||(A - L U)_S||_F / ||A_S||_F, S = pattern of A.
template <class ExecSpace, class Scalar, class Device>
double nonlinear_residual(const ExecSpace& exec, const Crs<Scalar, Device>& A, const Crs<Scalar, Device>& L,
                          const Crs<Scalar, Device>& U) {
  Impl::check_factor_dims("nonlinear_residual", A, L, &U);
  const auto Ut = transpose(U);  // columns of U as sorted rows
  return Impl::relative(Impl::matrix_residual_squares<ParIluKind::Ilu>(exec, A, L, Ut));
}

/// ||(A - L Lᵀ)_S||_F / ||A_S||_F, S = lower triangular part of the pattern of A.
template <class ExecSpace, class Scalar, class Device>
double nonlinear_residual_ic(const ExecSpace& exec, const Crs<Scalar, Device>& A, const Crs<Scalar, Device>& L) {
  Impl::check_factor_dims<Scalar, Device>("nonlinear_residual_ic", A, L, nullptr);
  return Impl::relative(Impl::matrix_residual_squares<ParIluKind::Ic>(exec, A, L, L));
}

/// ||A - L U||_F (absolute) over the full product.
template <class ExecSpace, class Scalar, class Device>
double ilu_residual(const ExecSpace& exec, const Crs<Scalar, Device>& A, const Crs<Scalar, Device>& L,
                    const Crs<Scalar, Device>& U) {
  Impl::check_factor_dims("ilu_residual", A, L, &U);
  exec.fence();
  return Impl::product_difference_norm(exec, A, L, U);
}

/// ||A - L Lᵀ||_F (absolute) over the full product.
template <class ExecSpace, class Scalar, class Device>
double ilu_residual_ic(const ExecSpace& exec, const Crs<Scalar, Device>& A, const Crs<Scalar, Device>& L) {
  Impl::check_factor_dims<Scalar, Device>("ilu_residual_ic", A, L, nullptr);
  exec.fence();
  return Impl::product_difference_norm(exec, A, L, transpose(L));
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake), for the device's own execution space.
#define ASYNCSPARSE_ETI_RESIDUALS(EXTERN, S, D)                                                                       \
  EXTERN template double nonlinear_residual(const D::execution_space&, const Crs<S, D>&, const Crs<S, D>&,          \
                                            const Crs<S, D>&);                                                      \
  EXTERN template double nonlinear_residual_ic(const D::execution_space&, const Crs<S, D>&, const Crs<S, D>&);      \
  EXTERN template double ilu_residual(const D::execution_space&, const Crs<S, D>&, const Crs<S, D>&,                \
                                      const Crs<S, D>&);                                                            \
  EXTERN template double ilu_residual_ic(const D::execution_space&, const Crs<S, D>&, const Crs<S, D>&);
ASYNCSPARSE_ETI_DECLARE(ASYNCSPARSE_ETI_RESIDUALS)

}  // namespace AsyncSparse
