// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <vector>

namespace AsyncSparse {
namespace Impl {

/// Round-trip text of a value for error messages.
template <class Scalar>
std::string value_text(Scalar v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", static_cast<double>(v));
  return buf;
}

/// `A` itself when its rows are sorted and unique, else a sorted copy with duplicates summed (in `tmp`).
template <class Scalar>
const CsrHost<Scalar>& sorted_view(const CsrHost<Scalar>& A, CsrHost<Scalar>& tmp) {
  if (is_sorted_unique(A)) return A;
  std::vector<ordinal_t> rows(A.col_idx.size());
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) rows[k] = i;
  tmp = csr_from_triplets(A.nrows, A.ncols, rows, A.col_idx, A.values, true, true);
  return tmp;
}

/// Sum of the stored diagonal entries of row i and how many there are.
template <class Scalar>
std::pair<Scalar, int> row_diagonal(const CsrHost<Scalar>& A, ordinal_t i) {
  Scalar d = Scalar(0);
  int count = 0;
  for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
    if (A.col_idx[k] == i) {
      d += A.values[k];
      ++count;
    }
  return {d, count};
}

}  // namespace Impl

template <class Scalar>
void check_structure(const CsrHost<Scalar>& A, const std::string& where) {
  if (A.nrows < 0 || A.ncols < 0)
    throw InvalidInput(where + ": negative dimensions " + std::to_string(A.nrows) + " x " + std::to_string(A.ncols));
  if (A.row_ptr.size() != static_cast<std::size_t>(A.nrows) + 1)
    throw InvalidInput(where + ": row_ptr has " + std::to_string(A.row_ptr.size()) +
                       " entries, expected nrows+1 = " + std::to_string(static_cast<std::size_t>(A.nrows) + 1));
  if (A.row_ptr[0] != 0) throw InvalidInput(where + ": row_ptr[0] = " + std::to_string(A.row_ptr[0]) + ", expected 0");
  for (ordinal_t i = 0; i < A.nrows; ++i)
    if (A.row_ptr[i + 1] < A.row_ptr[i])
      throw InvalidInput(where + ": row_ptr decreases at row " + std::to_string(i) + " (" +
                         std::to_string(A.row_ptr[i]) + " then " + std::to_string(A.row_ptr[i + 1]) + ")");
  const std::size_t nnz = static_cast<std::size_t>(A.row_ptr[A.nrows]);
  if (A.col_idx.size() != nnz || A.values.size() != nnz)
    throw InvalidInput(where + ": row_ptr says " + std::to_string(nnz) + " entries but col_idx has " +
                       std::to_string(A.col_idx.size()) + " and values " + std::to_string(A.values.size()));
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] < 0 || A.col_idx[k] >= A.ncols)
        throw InvalidInput(where + ": row " + std::to_string(i) + " has column index " + std::to_string(A.col_idx[k]) +
                           " outside [0, " + std::to_string(A.ncols) + ")");
}

template <class Scalar>
void check_square(const CsrHost<Scalar>& A, const std::string& where) {
  check_structure(A, where);
  if (A.nrows != A.ncols)
    throw InvalidInput(where + ": matrix is not square (" + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) +
                       ")");
}

template <class Scalar>
void check_nonempty(const CsrHost<Scalar>& A, const std::string& where) {
  check_structure(A, where);
  if (A.nrows == 0 || A.ncols == 0)
    throw InvalidInput(where + ": matrix is empty (" + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) + ")");
}

template <class Scalar>
void check_sorted_unique(const CsrHost<Scalar>& A, const std::string& where) {
  check_structure(A, where);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t k = A.row_ptr[i] + 1; k < A.row_ptr[i + 1]; ++k) {
      if (A.col_idx[k - 1] == A.col_idx[k])
        throw InvalidInput(where + ": row " + std::to_string(i) + " has duplicate column " +
                           std::to_string(A.col_idx[k]));
      if (A.col_idx[k - 1] > A.col_idx[k])
        throw InvalidInput(where + ": row " + std::to_string(i) + " is not sorted (column " +
                           std::to_string(A.col_idx[k - 1]) + " before column " + std::to_string(A.col_idx[k]) + ")");
    }
}

template <class Scalar>
void check_diagonal(const CsrHost<Scalar>& A, const std::string& where) {
  check_square(A, where);
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    const auto d = Impl::row_diagonal(A, i);
    if (d.second == 0) throw InvalidInput(where + ": row " + std::to_string(i) + " has no diagonal entry");
    if (d.first == Scalar(0)) throw InvalidInput(where + ": row " + std::to_string(i) + " has a zero diagonal entry");
  }
}

template <class Scalar>
void check_finite(const CsrHost<Scalar>& A, const std::string& where) {
  check_structure(A, where);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (!std::isfinite(A.values[k]))
        throw InvalidInput(where + ": non-finite value " + Impl::value_text(A.values[k]) + " at row " +
                           std::to_string(i) + ", column " + std::to_string(A.col_idx[k]));
}

template <class Scalar>
void check_symmetric(const CsrHost<Scalar>& A, const std::string& where, double tol) {
  check_square(A, where);
  if (!(tol >= 0)) throw InvalidInput(where + ": symmetry tolerance must be >= 0 (got " + Impl::value_text(tol) + ")");
  CsrHost<Scalar> tmp;
  const CsrHost<Scalar>& S = Impl::sorted_view(A, tmp);
  for (ordinal_t i = 0; i < S.nrows; ++i)
    for (offset_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; ++k) {
      const ordinal_t j = S.col_idx[k];
      if (j == i) continue;
      const offset_t t = find_entry(S, j, i);
      auto pos = [](ordinal_t r, ordinal_t c) { return "(" + std::to_string(r) + ", " + std::to_string(c) + ")"; };
      if (t < 0)
        throw InvalidInput(where + ": matrix is not symmetric: entry " + pos(i, j) + " is stored but " + pos(j, i) +
                           " is not");
      const double a = static_cast<double>(S.values[k]), b = static_cast<double>(S.values[t]);
      if (!(a == b) && !(std::fabs(a - b) <= tol * std::max(std::fabs(a), std::fabs(b))))
        throw InvalidInput(where + ": matrix is not symmetric: a" + pos(i, j) + " = " + Impl::value_text(a) + " but a" +
                           pos(j, i) + " = " + Impl::value_text(b) + " (relative tolerance " + Impl::value_text(tol) +
                           ")");
    }
}

template <class Scalar>
MatrixProperties analyze(const CsrHost<Scalar>& A) {
  check_structure(A, "analyze");
  MatrixProperties p;
  p.nrows = A.nrows;
  p.ncols = A.ncols;
  p.nnz = A.nnz();
  p.sorted_unique = is_sorted_unique(A);
  CsrHost<Scalar> tmp;
  const CsrHost<Scalar>& S = Impl::sorted_view(A, tmp);
  p.nnz_row_min = A.nrows > 0 ? std::numeric_limits<ordinal_t>::max() : 0;
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    const ordinal_t len = static_cast<ordinal_t>(A.row_ptr[i + 1] - A.row_ptr[i]);  // <= ncols
    p.nnz_row_min = std::min(p.nnz_row_min, len);
    p.nnz_row_max = std::max(p.nnz_row_max, len);
  }
  p.nnz_row_avg = A.nrows > 0 ? static_cast<double>(p.nnz) / A.nrows : 0.0;
  p.min_dominance_ratio = std::numeric_limits<double>::infinity();
  bool diag_all_positive = true;
  const ordinal_t ndiag = std::min(S.nrows, S.ncols);
  for (ordinal_t i = 0; i < S.nrows; ++i) {
    double d = 0.0, off = 0.0;
    bool has_diag = false;
    for (offset_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; ++k) {
      const ordinal_t j = S.col_idx[k];
      const double v = static_cast<double>(S.values[k]);
      if (!std::isfinite(v)) p.finite = false;
      p.bandwidth = std::max(p.bandwidth, j > i ? j - i : i - j);
      if (j == i) {
        d = v;
        has_diag = true;
      } else {
        off += std::fabs(v);
      }
    }
    if (i >= ndiag) continue;
    if (!has_diag) ++p.missing_diagonal;
    if (!(has_diag && d > 0)) diag_all_positive = false;
    if (std::fabs(d) > off) ++p.diag_dominant_rows;
    const double ratio = off > 0 ? std::fabs(d) / off : (d != 0 ? std::numeric_limits<double>::infinity() : 0.0);
    if (!std::isnan(p.min_dominance_ratio) && (std::isnan(ratio) || ratio < p.min_dominance_ratio))
      p.min_dominance_ratio = ratio;
  }
  if (ndiag == 0) p.min_dominance_ratio = 0.0;
  p.diagonal_present = A.square() && p.missing_diagonal == 0;
  p.positive_diagonal = p.diagonal_present && diag_all_positive;
  if (S.square()) {
    p.symmetric_pattern = true;
    p.symmetric_values = true;
    for (ordinal_t i = 0; i < S.nrows && p.symmetric_pattern; ++i)
      for (offset_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; ++k) {
        const offset_t t = find_entry(S, S.col_idx[k], i);
        if (t < 0) {
          p.symmetric_pattern = p.symmetric_values = false;
          break;
        }
        if (!(S.values[t] == S.values[k])) p.symmetric_values = false;
      }
  }
  return p;
}

inline std::string to_string(const MatrixProperties& p) {
  std::ostringstream os;
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  os << "rows x cols:          " << p.nrows << " x " << p.ncols << "\n"
     << "stored entries:       " << p.nnz << "\n"
     << "entries per row:      min " << p.nnz_row_min << ", max " << p.nnz_row_max << ", avg " << p.nnz_row_avg << "\n"
     << "sorted, unique:       " << yes(p.sorted_unique) << "\n"
     << "symmetric pattern:    " << yes(p.symmetric_pattern) << "\n"
     << "symmetric values:     " << yes(p.symmetric_values) << "\n"
     << "diagonal present:     " << yes(p.diagonal_present) << " (" << p.missing_diagonal << " rows without)\n"
     << "positive diagonal:    " << yes(p.positive_diagonal) << "\n"
     << "diag. dominant rows:  " << p.diag_dominant_rows << " (min |a_ii|/sum|a_ij|: " << p.min_dominance_ratio << ")\n"
     << "bandwidth:            " << p.bandwidth << "\n"
     << "finite:               " << yes(p.finite) << "\n";
  return os.str();
}

}  // namespace AsyncSparse
