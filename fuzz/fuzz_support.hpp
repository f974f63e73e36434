// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Helpers shared by the libFuzzer targets: a per-process scratch file and the structural check of a CSR
// matrix that the parsers return.
#pragma once

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>

namespace AsyncSparse {
namespace Fuzz {

/// Stops the run with a message: libFuzzer reports the abort as a crash and saves the input.
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

/// A file path private to this process (several fuzzing jobs may run side by side): in $TMPDIR, else /tmp.
inline std::string scratch_path(const std::string& suffix) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/asyncsparse_fuzz_" + std::to_string(::getpid()) + suffix;
}

/// Writes `size` bytes to `path`; aborts when the file cannot be written (a broken setup, not a finding).
inline void write_file(const std::string& path, const void* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) fail("cannot create the scratch file");
  if (size > 0 && std::fwrite(data, 1, size, f) != size) fail("cannot write the scratch file");
  if (std::fclose(f) != 0) fail("cannot close the scratch file");
}

/// Aborts unless A is a consistent CSR matrix: row_ptr of size nrows+1 from 0, non-decreasing, col_idx and
/// values of size nnz, column indices in [0, ncols); with `sorted`, strictly increasing columns in each row;
/// with `finite`, finite values.
template <class Scalar>
void check_csr(const CsrHost<Scalar>& A, bool sorted, bool finite) {
  if (A.nrows < 1 || A.ncols < 1) fail("empty matrix returned");
  if (A.row_ptr.size() != static_cast<std::size_t>(A.nrows) + 1 || A.row_ptr[0] != 0) fail("bad row_ptr size");
  for (ordinal_t i = 0; i < A.nrows; ++i)
    if (A.row_ptr[i + 1] < A.row_ptr[i]) fail("row_ptr decreases");
  const std::size_t nnz = static_cast<std::size_t>(A.row_ptr[A.nrows]);
  if (A.col_idx.size() != nnz || A.values.size() != nnz) fail("col_idx / values size differs from row_ptr");
  for (std::size_t k = 0; k < nnz; ++k) {
    if (A.col_idx[k] < 0 || A.col_idx[k] >= A.ncols) fail("column index out of range");
    if (finite && !std::isfinite(A.values[k])) fail("non-finite value returned");
  }
  if (sorted && !is_sorted_unique(A)) fail("row not sorted / duplicate column");
}

}  // namespace Fuzz
}  // namespace AsyncSparse
