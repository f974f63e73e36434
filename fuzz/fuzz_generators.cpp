// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: the `gen:` spec parser (parse_generator) and, for small sizes, the generators.
//
// Input: the spec text. parse_generator either returns a spec whose fields are in range or throws
// AsyncSparse::InvalidInput; any other exception, crash or undefined behaviour is a finding. The library
// checks the sizes it can represent (rows and stored entries within int): a spec it accepts is a matrix it is
// prepared to build, so only specs of at most 2^12 rows (2^15 stored entries) are generated here, and their
// matrices checked (consistent CSR, sorted unique columns, finite values, the documented nnz).
#include <cstdint>
#include <string>

#include <asyncsparse/core/AsyncSparse_generators.hpp>

#include "fuzz_support.hpp"

using namespace AsyncSparse;

namespace {

/// Rows and stored entries of the matrix `g` describes (the formulas of AsyncSparse_generators.hpp); -1 for an
/// unknown name. For `random` the entries are an upper bound (symmetric pairs drawn twice are kept once).
void expected_size(const GeneratorSpec& g, std::int64_t& rows, std::int64_t& nnz) {
  const std::int64_t m = g.size;
  rows = nnz = -1;
  if (g.name == "lap2d" || g.name == "aniso2d" || g.name == "convdiff2d") rows = m * m, nnz = 5 * m * m - 4 * m;
  if (g.name == "aniso2d" && nnz >= 0) nnz = (3 * m - 2) * (3 * m - 2);  // 9-point; 5-point when b = 0
  if (g.name == "lap3d7") rows = m * m * m, nnz = 7 * m * m * m - 6 * m * m;
  if (g.name == "lap3d27") rows = m * m * m, nnz = (3 * m - 2) * (3 * m - 2) * (3 * m - 2);
  if (g.name == "trefethen") {
    rows = nnz = m;
    for (std::int64_t d = 1; d < m; d *= 2) nnz += 2 * (m - d);
  }
  if (g.name == "random") rows = m, nnz = m * g.nnz_per_row;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  GeneratorSpec g;
  try {
    g = parse_generator(spec);
  } catch (const InvalidInput&) {
    return 0;
  }
  if (!is_generator_spec(spec) || g.spec != spec) Fuzz::fail("parse_generator accepted a spec without 'gen:'");
  if (g.size < 1 || g.nnz_per_row < 1 || (g.name == "random" && g.nnz_per_row > g.size))
    Fuzz::fail("parse_generator returned a size out of range");
  std::int64_t rows = 0, nnz = 0;
  expected_size(g, rows, nnz);
  if (rows < 1 || nnz < 1) Fuzz::fail("parse_generator returned an unknown generator");
  if (rows > INT32_MAX || nnz > INT32_MAX) Fuzz::fail("parse_generator accepted a matrix beyond 32-bit sizes");
  if (rows > (1 << 12) || nnz > (1 << 15)) return 0;

  CsrHost<double> A;
  try {
    A = generate(g);
  } catch (const InvalidInput&) {
    return 0;  // e.g. aniso2d's checks of EPS / THETA made at generation
  }
  Fuzz::check_csr(A, /*sorted=*/true, /*finite=*/true);
  if (A.nrows != rows || A.ncols != rows) Fuzz::fail("generate: wrong order");
  const bool exact = g.name != "random" && g.name != "aniso2d";
  if (exact ? A.nnz() != nnz : A.nnz() > nnz) Fuzz::fail("generate: wrong number of stored entries");
  return 0;
}
