// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <asyncsparse/core/AsyncSparse_errors.hpp>

#include <algorithm>
#include <numeric>
#include <string>

namespace AsyncSparse {

template <class Scalar>
CsrHost<Scalar> csr_from_triplets(ordinal_t nrows, ordinal_t ncols, const std::vector<ordinal_t>& rows,
                                  const std::vector<ordinal_t>& cols, const std::vector<Scalar>& vals, bool sort,
                                  bool sum_duplicates) {
  const std::size_t n = rows.size();
  if (n > static_cast<std::size_t>(max_stored_entries))  // e.g. a Tpetra block, whose offsets are size_t
    throw InvalidInput("csr_from_triplets: " + std::to_string(n) + " entries exceed " + max_stored_entries_text());
  CsrHost<Scalar> A(nrows, ncols);
  for (std::size_t k = 0; k < n; ++k) ++A.row_ptr[rows[k] + 1];
  for (ordinal_t i = 0; i < nrows; ++i) A.row_ptr[i + 1] += A.row_ptr[i];
  A.col_idx.resize(n);
  A.values.resize(n);
  std::vector<offset_t> next(A.row_ptr.begin(), A.row_ptr.end() - 1);
  for (std::size_t k = 0; k < n; ++k) {
    const offset_t p = next[rows[k]]++;
    A.col_idx[p] = cols[k];
    A.values[p] = vals[k];
  }
  if (!sort) return A;
  std::vector<std::pair<ordinal_t, Scalar>> row;
  offset_t out = 0;
  for (ordinal_t i = 0; i < nrows; ++i) {
    row.clear();
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) row.emplace_back(A.col_idx[p], A.values[p]);
    std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    A.row_ptr[i] = out;
    for (std::size_t q = 0; q < row.size(); ++q) {
      if (sum_duplicates && q > 0 && row[q].first == row[q - 1].first) {
        A.values[out - 1] += row[q].second;
      } else {
        A.col_idx[out] = row[q].first;
        A.values[out] = row[q].second;
        ++out;
      }
    }
  }
  A.row_ptr[nrows] = out;
  A.col_idx.resize(out);
  A.values.resize(out);
  return A;
}

}  // namespace AsyncSparse
