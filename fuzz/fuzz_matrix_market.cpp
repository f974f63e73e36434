// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: the Matrix Market reader (read_matrix_market, read_matrix_market_info), plain and gzip.
//
// Input: one control byte, then the file contents. Control bits 0-1 choose how the contents reach the reader:
// 0 as they are (so the fuzzer also feeds raw, damaged gzip streams), 1 gzip-compressed, 2 gzip-compressed and
// cut short (at a length taken from the contents), 3 gzip-compressed followed by the raw contents again (a
// second, damaged member). Bits 2-4 clear expand_symmetric, clear sort_and_merge, set allow_nonfinite.
// Every call either returns a consistent matrix (checked, then written with write_matrix_market and read back
// bit for bit) or throws AsyncSparse::ParseError; any other exception, crash, leak or undefined behaviour is
// a finding.
//
// Size cap: the reader allocates O(rows + columns) for the row pointers and reserves up to 2^24 entries for
// what the size line announces, as any CSR reader must; files announcing more than 2^20 rows or columns, or
// more than 2^16 entries, are only passed to read_matrix_market_info, so that each run stays small and fast.
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_matrix_market.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace AsyncSparse;

/// The bytes as a gzip stream (small window and hash: the inputs are at most a few KiB).
std::string gzip(const std::uint8_t* data, std::size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 9 + 16, 1, Z_DEFAULT_STRATEGY) != Z_OK) Fuzz::fail("deflateInit2");
  std::string out(deflateBound(&z, size) + 32, '\0');
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = reinterpret_cast<Bytef*>(&out[0]);
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) Fuzz::fail("deflate");
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

bool same(const CsrHost<double>& a, const CsrHost<double>& b) {
  if (a.nrows != b.nrows || a.ncols != b.ncols || a.row_ptr != b.row_ptr || a.col_idx != b.col_idx) return false;
  for (std::size_t k = 0; k < a.values.size(); ++k) {
    const double x = a.values[k], y = b.values[k];
    if (std::isnan(x) ? !std::isnan(y) : std::memcmp(&x, &y, sizeof x) != 0) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const unsigned control = data[0];
  ++data, --size;
  std::string bytes;
  switch (control & 3) {
    case 0:
      bytes.assign(reinterpret_cast<const char*>(data), size);
      break;
    case 1:
      bytes = gzip(data, size);
      break;
    case 2: {
      bytes = gzip(data, size);
      const std::size_t cut = size > 0 ? (data[size - 1] * 257u + data[0]) % (bytes.size() + 1) : 0;
      bytes.resize(cut);
      break;
    }
    default:
      bytes = gzip(data, size) + std::string(reinterpret_cast<const char*>(data), size);
      break;
  }
  MatrixMarketOptions opts;
  opts.expand_symmetric = !(control & 4);
  opts.sort_and_merge = !(control & 8);
  opts.allow_nonfinite = (control & 16) != 0;

  static const std::string path = Fuzz::scratch_path(".mtx");
  static const std::string copy = Fuzz::scratch_path("_copy.mtx");
  Fuzz::write_file(path, bytes.data(), bytes.size());

  MatrixMarketInfo header;
  try {
    header = read_matrix_market_info(path);
  } catch (const ParseError&) {
    return 0;
  }
  if (header.nrows < 1 || header.ncols < 1 || header.nnz_header < 0) Fuzz::fail("read_matrix_market_info: bad sizes");
  if (header.nrows > (1 << 20) || header.ncols > (1 << 20) || header.nnz_header > (1 << 16)) return 0;

  CsrHost<double> A;
  MatrixMarketInfo info;
  try {
    A = read_matrix_market(path, opts, &info);
  } catch (const ParseError&) {
    return 0;
  }
  Fuzz::check_csr(A, opts.sort_and_merge, !opts.allow_nonfinite);
  if (A.nrows != header.nrows || A.ncols != header.ncols || info.nnz_stored != A.nnz() ||
      info.nnz_header != header.nnz_header || info.duplicates_merged < 0)
    Fuzz::fail("read_matrix_market: info differs from the matrix / header");

  // Round trip: the writer's output reads back as the same matrix, bit for bit.
  write_matrix_market(copy, A, "fuzz");
  MatrixMarketOptions back;
  back.sort_and_merge = opts.sort_and_merge;
  back.allow_nonfinite = true;
  if (!same(A, read_matrix_market(copy, back))) Fuzz::fail("write_matrix_market + read_matrix_market round trip");
  return 0;
}
