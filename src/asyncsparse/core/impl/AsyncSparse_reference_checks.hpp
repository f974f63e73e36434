// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — input checks shared by the serial host references (AsyncSparse_reference*.cpp of the compiled
// library): every message starts with the function name ("ilu0: A: ..."), see AsyncSparse_reference.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>

namespace AsyncSparse {
namespace Reference {
namespace Impl {

inline std::string fmt(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

/// CSR arrays consistent, columns in range, sorted and unique, values finite.
inline void check_csr(const char* fn, const char* name, const CsrHost<double>& A) {
  const std::string where = std::string(fn) + ": " + name + ": ";
  if (A.nrows < 0 || A.ncols < 0)
    throw InvalidInput(where + "negative dimensions (" + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) +
                       ")");
  if (A.row_ptr.size() != static_cast<std::size_t>(A.nrows) + 1)
    throw InvalidInput(where + "malformed CSR: row_ptr has " + std::to_string(A.row_ptr.size()) +
                       " entries, expected nrows + 1 = " + std::to_string(A.nrows + 1));
  if (A.row_ptr[0] != 0) throw InvalidInput(where + "malformed CSR: row_ptr[0] != 0");
  for (ordinal_t i = 0; i < A.nrows; ++i)
    if (A.row_ptr[i + 1] < A.row_ptr[i])
      throw InvalidInput(where + "malformed CSR: row_ptr decreases at row " + std::to_string(i));
  const std::size_t nnz = static_cast<std::size_t>(A.row_ptr[A.nrows]);
  if (A.col_idx.size() != nnz || A.values.size() != nnz)
    throw InvalidInput(where + "malformed CSR: col_idx / values sizes (" + std::to_string(A.col_idx.size()) + ", " +
                       std::to_string(A.values.size()) + ") differ from nnz = " + std::to_string(nnz));
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] < 0 || A.col_idx[p] >= A.ncols)
        throw InvalidInput(where + "column index " + std::to_string(A.col_idx[p]) + " out of range in row " +
                           std::to_string(i));
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i] + 1; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p - 1] >= A.col_idx[p])
        throw InvalidInput(where + "column indices of row " + std::to_string(i) +
                           " are not sorted and unique (required; sort with csr_from_triplets)");
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (!std::isfinite(A.values[p]))
        throw InvalidInput(where + "non-finite value " + fmt(A.values[p]) + " at (" + std::to_string(i) + ", " +
                           std::to_string(A.col_idx[p]) + ")");
}

/// check_csr plus square and non-empty.
inline void check_square(const char* fn, const char* name, const CsrHost<double>& A) {
  check_csr(fn, name, A);
  if (A.nrows != A.ncols)
    throw InvalidInput(std::string(fn) + ": " + name + " is not square (" + std::to_string(A.nrows) + " x " +
                       std::to_string(A.ncols) + ")");
  if (A.nrows == 0) throw InvalidInput(std::string(fn) + ": " + name + " is empty (0 x 0)");
}

/// Position of the diagonal entry of every row; throws when one is missing.
inline std::vector<offset_t> diagonal_positions(const char* fn, const char* name, const CsrHost<double>& A) {
  std::vector<offset_t> d(A.nrows);
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    d[i] = find_entry(A, i, i);
    if (d[i] < 0)
      throw InvalidInput(std::string(fn) + ": " + name + ": missing diagonal entry in row " + std::to_string(i));
  }
  return d;
}

inline void check_vector(const char* fn, const char* name, const std::vector<double>& v, ordinal_t n) {
  if (v.size() != static_cast<std::size_t>(n))
    throw InvalidInput(std::string(fn) + ": " + name + " has size " + std::to_string(v.size()) + ", expected " +
                       std::to_string(n));
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw InvalidInput(std::string(fn) + ": " + name + "[" + std::to_string(i) + "] is non-finite (" + fmt(v[i]) +
                         ")");
}

}  // namespace Impl
}  // namespace Reference
}  // namespace AsyncSparse
