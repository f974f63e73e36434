// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — Matrix Market I/O.
//
// Reads and writes sparse matrices in the NIST Matrix Market exchange format (Boisvert, Pozo,
// Remington, "The Matrix Market Exchange Formats: Initial Design", NISTIR 5935, 1996), the format of
// the SuiteSparse Matrix Collection. Supported on input:
//
//   %%MatrixMarket matrix coordinate real|integer|pattern general|symmetric|skew-symmetric
//
// with the banner words matched case-insensitively, `%` comment lines and blank lines after the
// banner, plain text or gzip (recognised by its magic bytes, whatever the file name; zlib reads a
// plain file unchanged). `pattern` entries get the value 1.0. Dense `array` files and the `complex`
// field / `hermitian` symmetry are rejected with a message saying they are not supported.
//
// Every malformed file raises ParseError(file, line, problem): the line is 1-based (0 when the
// problem is not tied to one line, e.g. a missing file) and the problem starts with the name of the
// function that found it. Explicitly stored zeros are kept as entries. Non-square `general`
// matrices are accepted; whether a solver can use a matrix is checked where the matrix is used.
#pragma once

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <cstdint>
#include <string>

namespace AsyncSparse {

/// How read_matrix_market builds the matrix from the entries of the file.
struct MatrixMarketOptions {
  /// Default true. For symmetric / skew-symmetric storage, mirror every off-diagonal entry (a_ji = a_ij,
  /// resp. a_ji = -a_ij) so that the full matrix is returned. An entry stored in the "wrong" triangle is
  /// mirrored the same way; if both (i,j) and (j,i) are listed, the copies are duplicates and are summed
  /// (when sort_and_merge). When false, only the entries listed in the file are returned.
  bool expand_symmetric = true;
  /// Default true. Sort the column indices of each row and sum duplicate entries. When false, the entries
  /// of each row keep the order in which they were read (a mirrored entry right after its original) and
  /// duplicates are kept.
  bool sort_and_merge = true;
  /// Default false. Accept NaN and infinite values (including values that overflow a double). When false,
  /// such a value is a ParseError naming its line.
  bool allow_nonfinite = false;
};

/// What the header of a Matrix Market file says, and what reading it produced.
struct MatrixMarketInfo {
  std::string object;           ///< banner word 1, lower-cased ("matrix")
  std::string format;           ///< banner word 2, lower-cased ("coordinate")
  std::string field;            ///< banner word 3, lower-cased ("real", "integer" or "pattern")
  std::string symmetry;         ///< banner word 4, lower-cased ("general", "symmetric" or "skew-symmetric")
  ordinal_t nrows = 0;          ///< rows, from the size line
  ordinal_t ncols = 0;          ///< columns, from the size line
  std::int64_t nnz_header = 0;  ///< entry count on the size line (= entry lines in the file)
  /// Entries of the returned matrix (after symmetric expansion and merging). 0 from read_matrix_market_info.
  std::int64_t nnz_stored = 0;
  /// Entries removed by summing duplicates; nnz_stored + duplicates_merged is the entry count after
  /// expansion and before merging. 0 when sort_and_merge is false, and from read_matrix_market_info.
  std::int64_t duplicates_merged = 0;
};

/// Read a Matrix Market file (plain or gzip) into a host CSR matrix.
///   path: the file.
///   opts: expansion / merging / non-finite handling, see MatrixMarketOptions (default: expand, sort and
///         merge, reject non-finite values).
///   info: when not null, filled with the banner, the size line and the counts above (default null).
/// Throws ParseError for a missing, unreadable or malformed file.
CsrHost<double> read_matrix_market(const std::string& path, const MatrixMarketOptions& opts = {},
                                          MatrixMarketInfo* info = nullptr);

/// Read only the banner and the size line of a Matrix Market file (plain or gzip); the entries are not read
/// or checked. Throws ParseError for a missing or unreadable file or a malformed header.
MatrixMarketInfo read_matrix_market_info(const std::string& path);

/// Write `A` as "%%MatrixMarket matrix coordinate real general", one entry per line with 1-based indices
/// and values printed with %.17g (so that reading the file back gives the same doubles), in CSR order.
///   path:    the file; gzip-compressed when the name ends in ".gz", plain text otherwise.
///   A:       the matrix; its arrays must be consistent (row_ptr of size nrows+1, column indices in
///            range), and it must have at least one row and one column. Non-finite values are written as
///            "nan" / "inf" (readable with allow_nonfinite).
///   comment: text written after the banner, each of its lines as a `%` comment line (default: none).
/// Throws InvalidInput for an inconsistent or empty matrix, Error when the file cannot be written.
void write_matrix_market(const std::string& path, const CsrHost<double>& A, const std::string& comment = "");

}  // namespace AsyncSparse

