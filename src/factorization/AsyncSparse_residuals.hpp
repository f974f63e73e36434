// AsyncSparse — residual norms of incomplete factorizations, on the device.
//
// The quantities Chow, Anzt & Dongarra (2015, sect. 4.2) report for the iterative ILU/IC sweeps:
//  * the nonlinear residual ||(A - L U)_S||_F / ||A_S||_F over the pattern S: zero exactly when the factors solve
//    the fixed-point equations (LU)_ij = a_ij, (i, j) in S, that the sweeps iterate on (relative; the absolute
//    value when ||A_S||_F = 0). For IC, ||(A - L Lᵀ)_S||_F / ||A_S||_F with S the lower triangular part of the
//    pattern of A (the equations the IC sweeps solve);
//  * the ILU residual ||A - L U||_F over the full product (absolute; not zero for an incomplete factorization;
//    it correlates with the preconditioner quality, Duff & Meurant 1989). It needs every entry of L U, so it
//    costs a sparse matrix product (Kokkos-Kernels spgemm) and is computed on request only.
// They agree with Reference::nonlinear_residual / Reference::ilu_residual (host) up to round-off.
//
// Input: A square; L lower triangular and U upper triangular (CSR, sorted rows, diagonals stored; for a unit
// lower L store the ones), of A's dimension; otherwise InvalidInput. The functions fence `exec` (they return a
// number).
#pragma once

#include <Kokkos_Core.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_spgemm.hpp>

#include <cmath>
#include <string>

#include "../core/AsyncSparse_crs.hpp"
#include "../core/AsyncSparse_errors.hpp"
#include "../solvers/AsyncSparse_trisolve.hpp"

namespace AsyncSparse {
namespace Impl {

/// sum_k X(i, k) Y(j, k) over the common column indices of row i of X and row j of Y (both sorted).
template <class XRm, class XEnt, class XVal, class YRm, class YEnt, class YVal>
KOKKOS_INLINE_FUNCTION typename XVal::non_const_value_type sparse_row_dot(const XRm& xrm, const XEnt& xent,
                                                                          const XVal& xval, ordinal_t i,
                                                                          const YRm& yrm, const YEnt& yent,
                                                                          const YVal& yval, ordinal_t j) {
  typename XVal::non_const_value_type s = 0;
  offset_t p = xrm(i), pe = xrm(i + 1), q = yrm(j), qe = yrm(j + 1);
  while (p < pe && q < qe) {
    const ordinal_t a = xent(p), b = yent(q);
    if (a == b) {
      s += xval(p) * yval(q);
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
Kokkos::pair<double, double> task_residual_squares(const ExecSpace& exec, const RowV& row, const ColV& col,
                                                    const AV& a, const Mat& X, const Mat& Y) {
  auto xrm = X.graph.row_map;
  auto xent = X.graph.entries;
  auto xval = X.values;
  auto yrm = Y.graph.row_map;
  auto yent = Y.graph.entries;
  auto yval = Y.values;
  double r2 = 0, a2 = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::residuals::tasks", Kokkos::RangePolicy<ExecSpace>(exec, 0, row.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t t, double& r, double& n) {
        const double av = static_cast<double>(a(t));
        const double d = av - static_cast<double>(sparse_row_dot(xrm, xent, xval, row(t), yrm, yent, yval, col(t)));
        r += d * d;
        n += av * av;
      },
      r2, a2);
  return {r2, a2};
}

/// Same over the entries of A (all of them, or only j <= i when `lower_only`).
template <class ExecSpace, class Mat>
Kokkos::pair<double, double> matrix_residual_squares(const ExecSpace& exec, const Mat& A, const Mat& X, const Mat& Y,
                                                      bool lower_only) {
  auto arm = A.graph.row_map;
  auto aent = A.graph.entries;
  auto aval = A.values;
  auto xrm = X.graph.row_map;
  auto xent = X.graph.entries;
  auto xval = X.values;
  auto yrm = Y.graph.row_map;
  auto yent = Y.graph.entries;
  auto yval = Y.values;
  double r2 = 0, a2 = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::residuals::pattern", Kokkos::RangePolicy<ExecSpace>(exec, 0, A.numRows()),
      KOKKOS_LAMBDA(const ordinal_t i, double& r, double& n) {
        for (offset_t k = arm(i); k < arm(i + 1); ++k) {
          const ordinal_t j = aent(k);
          if (lower_only && j > i) continue;
          const double av = static_cast<double>(aval(k));
          const double d = av - static_cast<double>(sparse_row_dot(xrm, xent, xval, i, yrm, yent, yval, j));
          r += d * d;
          n += av * av;
        }
      },
      r2, a2);
  return {r2, a2};
}

/// ||A - C||_F for a product C whose rows may be unsorted (A's rows sorted, both without duplicates).
template <class ExecSpace, class MatA, class MatC>
double difference_norm(const ExecSpace& exec, const MatA& A, const MatC& C) {
  auto arm = A.graph.row_map;
  auto aent = A.graph.entries;
  auto aval = A.values;
  auto crm = C.graph.row_map;
  auto cent = C.graph.entries;
  auto cval = C.values;
  double r2 = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::residuals::difference", Kokkos::RangePolicy<ExecSpace>(exec, 0, A.numRows()),
      KOKKOS_LAMBDA(const ordinal_t i, double& r) {
        offset_t found = 0;
        for (offset_t k = crm(i); k < crm(i + 1); ++k) {
          const ordinal_t j = cent(k);
          offset_t lo = arm(i), hi = arm(i + 1);  // binary search of j in row i of A
          while (lo < hi) {
            const offset_t mid = lo + (hi - lo) / 2;
            if (aent(mid) < j)
              lo = mid + 1;
            else
              hi = mid;
          }
          double d = static_cast<double>(cval(k));
          if (lo < arm(i + 1) && aent(lo) == j) {
            d -= static_cast<double>(aval(lo));
            ++found;
          }
          r += d * d;
        }
        if (found == arm(i + 1) - arm(i)) return;
        for (offset_t k = arm(i); k < arm(i + 1); ++k) {  // entries of A outside the product's pattern
          bool present = false;
          for (offset_t q = crm(i); q < crm(i + 1) && !present; ++q) present = cent(q) == aent(k);
          if (!present) r += static_cast<double>(aval(k)) * static_cast<double>(aval(k));
        }
      },
      r2);
  return std::sqrt(r2);
}

/// C = X Y with Kokkos-Kernels spgemm (native algorithm).
template <class Scalar, class Device>
Crs<Scalar, Device> spgemm_product(const Crs<Scalar, Device>& X, const Crs<Scalar, Device>& Y) {
  using exec = typename Device::execution_space;
  using mem = typename Device::memory_space;
  KokkosKernels::Experimental::KokkosKernelsHandle<offset_t, ordinal_t, Scalar, exec, mem, mem> kh;
  kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
  Crs<Scalar, Device> C;
  KokkosSparse::spgemm_symbolic(kh, X, false, Y, false, C);
  KokkosSparse::spgemm_numeric(kh, X, false, Y, false, C);
  kh.destroy_spgemm_handle();
  return C;
}

template <class Scalar, class Device>
void check_factor_dims(const std::string& fn, const Crs<Scalar, Device>& A, const Crs<Scalar, Device>& L,
                       const Crs<Scalar, Device>* U) {
  if (A.numRows() != A.numCols())
    throw InvalidInput(fn + ": A must be square, got " + std::to_string(A.numRows()) + " x " +
                       std::to_string(A.numCols()));
  const auto bad = [&](const Crs<Scalar, Device>& M) { return M.numRows() != A.numRows() || M.numCols() != A.numCols(); };
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
  const auto Ut = Impl::transpose_with_map(U).T;  // columns of U as sorted rows
  return Impl::relative(Impl::matrix_residual_squares(exec, A, L, Ut, false));
}

/// ||(A - L Lᵀ)_S||_F / ||A_S||_F, S = lower triangular part of the pattern of A.
template <class ExecSpace, class Scalar, class Device>
double nonlinear_residual_ic(const ExecSpace& exec, const Crs<Scalar, Device>& A, const Crs<Scalar, Device>& L) {
  Impl::check_factor_dims<Scalar, Device>("nonlinear_residual_ic", A, L, nullptr);
  return Impl::relative(Impl::matrix_residual_squares(exec, A, L, L, true));
}

/// ||A - L U||_F (absolute) over the full product.
template <class ExecSpace, class Scalar, class Device>
double ilu_residual(const ExecSpace& exec, const Crs<Scalar, Device>& A, const Crs<Scalar, Device>& L,
                    const Crs<Scalar, Device>& U) {
  Impl::check_factor_dims("ilu_residual", A, L, &U);
  exec.fence();
  return Impl::difference_norm(exec, A, Impl::spgemm_product(L, U));
}

/// ||A - L Lᵀ||_F (absolute) over the full product.
template <class ExecSpace, class Scalar, class Device>
double ilu_residual_ic(const ExecSpace& exec, const Crs<Scalar, Device>& A, const Crs<Scalar, Device>& L) {
  Impl::check_factor_dims<Scalar, Device>("ilu_residual_ic", A, L, nullptr);
  exec.fence();
  return Impl::difference_norm(exec, A, Impl::spgemm_product(L, transpose(L)));
}

}  // namespace AsyncSparse
