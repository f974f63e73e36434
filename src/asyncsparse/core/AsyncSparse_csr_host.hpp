// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — host compressed sparse row matrix.
//
// CsrHost is the plain (std::vector based) CSR matrix used on the host: the Matrix Market reader
// returns it, the generators build it, the serial reference implementations (exact ILU(0)/IC(0),
// ILUT, Jacobi, Gauss–Seidel) work on it, and `to_device` (AsyncSparse_crs.hpp) turns it into a
// KokkosSparse::CrsMatrix on any memory space. Rows are 0-based; within a row, the column indices
// are sorted and unique unless a function says otherwise (see `is_sorted_unique`).
#pragma once

#include <asyncsparse/AsyncSparse_config.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace AsyncSparse {

/// Ordinal (row / column index) type used across AsyncSparse: up to 2^31-1 rows and columns.
using ordinal_t = int;
/// Offset (row pointer) type, chosen when the library is configured (CMake AsyncSparse_OFFSET_TYPE): int stores
/// up to 2^31-1 entries per matrix, std::int64_t more.
#if ASYNCSPARSE_OFFSET_64
using offset_t = std::int64_t;
#else
using offset_t = int;
#endif

/// The most stored entries a matrix can have in this build, and how errors about that limit state it:
/// "2147483647 (32-bit offsets; a library configured with AsyncSparse_OFFSET_TYPE=int64 holds more)".
constexpr std::int64_t max_stored_entries = std::numeric_limits<offset_t>::max();
inline std::string max_stored_entries_text() {
  return std::to_string(max_stored_entries) +
         (sizeof(offset_t) == 4
              ? " (32-bit offsets; a library configured with AsyncSparse_OFFSET_TYPE=int64 holds more)"
              : " (64-bit offsets)");
}

template <class Scalar = double>
struct CsrHost {
  using scalar_type = Scalar;
  ordinal_t nrows = 0;
  ordinal_t ncols = 0;
  std::vector<offset_t> row_ptr;   ///< size nrows+1, row_ptr[0] = 0
  std::vector<ordinal_t> col_idx;  ///< size nnz
  std::vector<Scalar> values;      ///< size nnz

  CsrHost() = default;
  CsrHost(ordinal_t m, ordinal_t n) : nrows(m), ncols(n), row_ptr(static_cast<std::size_t>(m) + 1, 0) {}

  offset_t nnz() const { return row_ptr.empty() ? 0 : row_ptr.back(); }
  bool square() const { return nrows == ncols; }
  offset_t row_begin(ordinal_t i) const { return row_ptr[i]; }
  offset_t row_end(ordinal_t i) const { return row_ptr[i + 1]; }
};

/// True when every row's column indices are strictly increasing.
template <class Scalar>
bool is_sorted_unique(const CsrHost<Scalar>& A) {
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t k = A.row_ptr[i] + 1; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k - 1] >= A.col_idx[k]) return false;
  return true;
}

/// Position of entry (i, j) in a sorted row, or -1 when absent (binary search).
template <class Scalar>
offset_t find_entry(const CsrHost<Scalar>& A, ordinal_t i, ordinal_t j) {
  offset_t lo = A.row_ptr[i], hi = A.row_ptr[i + 1];
  while (lo < hi) {
    offset_t mid = lo + (hi - lo) / 2;
    if (A.col_idx[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < A.row_ptr[i + 1] && A.col_idx[lo] == j) ? lo : -1;
}

/// Build a CSR matrix from (row, col, value) triplets. Entries of each row are sorted by column;
/// duplicates are summed when `sum_duplicates`, otherwise kept in input order (unsorted rows stay
/// unsorted only when `sort` is false).
template <class Scalar>
CsrHost<Scalar> csr_from_triplets(ordinal_t nrows, ordinal_t ncols, const std::vector<ordinal_t>& rows,
                                  const std::vector<ordinal_t>& cols, const std::vector<Scalar>& vals,
                                  bool sort = true, bool sum_duplicates = true);

}  // namespace AsyncSparse

#include <asyncsparse/core/impl/AsyncSparse_csr_host_impl.hpp>
