// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — input checks and a structural/numerical summary of a host CSR matrix.
//
// The check_* functions are what every public entry point runs on its input before touching it: each
// throws InvalidInput whose message starts with the caller's name (`where`, e.g. "par_ilu_compute")
// and names the offending row / entry, and returns normally otherwise. All of them first run
// check_structure, so a corrupt CsrHost (wrong row_ptr length, decreasing offsets, column out of range)
// is reported instead of read out of bounds; they accept unsorted rows and duplicate entries unless
// their contract says otherwise (duplicates count as one entry with the summed value).
//
// analyze() measures the properties the algorithms care about (symmetry, diagonal presence and
// dominance, bandwidth, finiteness) and to_string() prints them for the driver and the benchmarks.
#pragma once

#include <string>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>

namespace AsyncSparse {

/// row_ptr has nrows+1 entries, starts at 0 and never decreases; col_idx and values have nnz entries;
/// every column index lies in [0, ncols); nrows, ncols >= 0.
template <class Scalar>
void check_structure(const CsrHost<Scalar>& A, const std::string& where);

/// nrows == ncols.
template <class Scalar>
void check_square(const CsrHost<Scalar>& A, const std::string& where);

/// At least one row and one column (a 0 x n or n x 0 matrix is empty; stored entries are not required).
template <class Scalar>
void check_nonempty(const CsrHost<Scalar>& A, const std::string& where);

/// Column indices strictly increase within every row; names the first row that is unsorted or has a
/// duplicate column.
template <class Scalar>
void check_sorted_unique(const CsrHost<Scalar>& A, const std::string& where);

/// Square, and every row has a stored, non-zero diagonal entry; names the first row without one.
template <class Scalar>
void check_diagonal(const CsrHost<Scalar>& A, const std::string& where);

/// Every stored value is finite; names row and column of the first NaN / Inf.
template <class Scalar>
void check_finite(const CsrHost<Scalar>& A, const std::string& where);

/// Square with a symmetric pattern (every stored (i, j) has a stored (j, i)) and symmetric values:
/// |a_ij - a_ji| <= tol * max(|a_ij|, |a_ji|). tol: relative tolerance, >= 0 (default 0: exact).
/// Names the first offending entry.
template <class Scalar>
void check_symmetric(const CsrHost<Scalar>& A, const std::string& where, double tol = 0.0);

/// What analyze() measures. Diagonal quantities refer to rows i < min(nrows, ncols); a row's
/// off-diagonal sum is sum_{j != i} |a_ij|.
struct MatrixProperties {
  ordinal_t nrows = 0;
  ordinal_t ncols = 0;
  offset_t nnz = 0;
  ordinal_t nnz_row_min = 0;         ///< fewest stored entries in a row
  ordinal_t nnz_row_max = 0;         ///< most stored entries in a row
  double nnz_row_avg = 0.0;          ///< nnz / nrows (0 for no rows)
  bool sorted_unique = true;         ///< every row sorted, no duplicate columns
  bool symmetric_pattern = false;    ///< square and (i, j) stored <=> (j, i) stored
  bool symmetric_values = false;     ///< symmetric_pattern and a_ij == a_ji exactly
  bool diagonal_present = false;     ///< every row has a stored diagonal entry (square matrices only)
  ordinal_t missing_diagonal = 0;    ///< rows without a stored diagonal entry
  ordinal_t diag_dominant_rows = 0;  ///< rows with |a_ii| > off-diagonal sum (strict)
  double min_dominance_ratio = 0.0;  ///< min over rows of |a_ii| / off-diagonal sum (+inf for a row
                                     ///< without off-diagonal entries; 0 for a missing diagonal;
                                     ///< NaN when a NaN takes part)
  ordinal_t bandwidth = 0;           ///< max |i - j| over stored entries
  bool finite = true;                ///< no NaN / Inf among the values
  bool positive_diagonal = false;    ///< diagonal_present and every a_ii > 0
};

/// Measure `A` (any structurally valid CsrHost: unsorted rows and duplicates are summed first).
/// Throws InvalidInput from check_structure on a corrupt matrix.
template <class Scalar>
MatrixProperties analyze(const CsrHost<Scalar>& A);

/// Multi-line human-readable summary of `p`, one "key: value" per line.
inline std::string to_string(const MatrixProperties& p);

}  // namespace AsyncSparse

#include <asyncsparse/core/impl/AsyncSparse_validation_impl.hpp>
