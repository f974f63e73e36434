// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Matrix Market reader / writer: round trips, symmetric expansion, duplicate merging, every malformed-file
// error (with its line and message), gzip input, and the shared SuiteSparse matrices against SOURCES.md.
#include <asyncsparse/core/AsyncSparse_matrix_market.hpp>
#include <support/TestHelpers.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

using namespace AsyncSparse;
namespace fs = std::filesystem;

namespace {

/// A fresh folder per test for generated files, removed afterwards.
class MatrixMarket : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / ("asyncsparse_mm_" + std::to_string(::getpid()) + "_" + std::string(info->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::string read_bytes(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

/// Expects ParseError naming `file`, at `line`, whose message contains `needle`.
void expect_parse_error(const std::string& file, std::int64_t line, const std::string& needle,
                        const MatrixMarketOptions& opts = {}) {
  try {
    read_matrix_market(file, opts);
    ADD_FAILURE() << "no ParseError for " << file << " (expected: " << needle << ")";
  } catch (const ParseError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << "message was: " << what << "\nexpected: " << needle;
    EXPECT_NE(what.find("read_matrix_market: "), std::string::npos) << what;
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.line(), line) << what;
    if (line > 0) EXPECT_EQ(what.rfind(file + ":" + std::to_string(line) + ": ", 0), 0u) << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a different exception: " << e.what();
  }
}

const char* kGeneralBanner = "%%MatrixMarket matrix coordinate real general\n";
const char* kSymmetricBanner = "%%MatrixMarket matrix coordinate real symmetric\n";

}  // namespace

TEST_F(MatrixMarket, round_trip_plain_and_gzip_is_bit_exact) {
  CsrHost<double> A(3, 5);
  A.row_ptr = {0, 3, 3, 6};
  A.col_idx = {0, 2, 4, 1, 3, 4};
  const double tiny = std::numeric_limits<double>::denorm_min(), huge = std::numeric_limits<double>::max();
  A.values = {1.0 / 3.0, -1e-300, tiny, huge, 0.0, -3.141592653589793};
  for (const char* name : {"a.mtx", "a.mtx.gz"}) {
    SCOPED_TRACE(name);
    write_matrix_market(path(name), A, "first comment line\nsecond comment line");
    MatrixMarketInfo info;
    const auto B = read_matrix_market(path(name), {}, &info);
    EXPECT_EQ(B.nrows, 3);
    EXPECT_EQ(B.ncols, 5);
    EXPECT_EQ(B.row_ptr, A.row_ptr);
    EXPECT_EQ(B.col_idx, A.col_idx);
    ASSERT_EQ(B.values.size(), A.values.size());
    for (std::size_t k = 0; k < A.values.size(); ++k) EXPECT_EQ(B.values[k], A.values[k]) << "entry " << k;
    EXPECT_EQ(info.field, "real");
    EXPECT_EQ(info.symmetry, "general");
    EXPECT_EQ(info.nnz_header, 6);
    EXPECT_EQ(info.nnz_stored, 6);
    EXPECT_EQ(info.duplicates_merged, 0);
  }
  const std::string plain = read_bytes(path("a.mtx"));
  EXPECT_EQ(plain.rfind("%%MatrixMarket matrix coordinate real general\n% first comment line\n"
                        "% second comment line\n3 5 6\n1 1 0.33333333333333331\n",
                        0),
            0u)
      << plain;
  const std::string gz = read_bytes(path("a.mtx.gz"));
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
}

TEST_F(MatrixMarket, round_trip_of_a_shared_matrix) {
  const auto A = read_matrix_market(AsyncSparse::Test::matrix_path("nos4"));
  write_matrix_market(path("nos4.mtx.gz"), A);
  const auto B = read_matrix_market(path("nos4.mtx.gz"));
  EXPECT_EQ(B.row_ptr, A.row_ptr);
  EXPECT_EQ(B.col_idx, A.col_idx);
  EXPECT_EQ(B.values, A.values);
}

TEST_F(MatrixMarket, write_rejects_bad_matrices_and_paths) {
  CsrHost<double> A(2, 2);
  A.row_ptr = {0, 1, 2};
  A.col_idx = {0, 2};
  A.values = {1.0, 2.0};
  ASYNCSPARSE_EXPECT_THROW_MSG(write_matrix_market(path("x.mtx"), A), InvalidInput,
                               "write_matrix_market: column index 2 at position 1 out of range [0, 2)");
  A.col_idx = {0, 1};
  A.row_ptr = {0, 1};
  ASYNCSPARSE_EXPECT_THROW_MSG(write_matrix_market(path("x.mtx"), A), InvalidInput,
                               "row_ptr must have nrows+1 = 3 entries");
  A.row_ptr = {0, 2, 1};
  ASYNCSPARSE_EXPECT_THROW_MSG(write_matrix_market(path("x.mtx"), A), InvalidInput, "row_ptr decreases at row 1");
  A.row_ptr = {0, 1, 3};
  ASYNCSPARSE_EXPECT_THROW_MSG(write_matrix_market(path("x.mtx"), A), InvalidInput,
                               "row_ptr[nrows] = 3 but col_idx has 2");
  ASYNCSPARSE_EXPECT_THROW_MSG(write_matrix_market(path("x.mtx"), CsrHost<double>(0, 3)), InvalidInput,
                               "write_matrix_market: empty matrix (0 x 3)");
  A.row_ptr = {0, 1, 2};
  ASYNCSPARSE_EXPECT_THROW_MSG(write_matrix_market(path("no_such_dir/x.mtx"), A), Error,
                               "write_matrix_market: cannot open '" + path("no_such_dir/x.mtx") + "' for writing");
}

TEST_F(MatrixMarket, symmetric_expansion_mirrors_and_sums_exactly) {
  // Fixture: lower triangle of a 4 x 4 matrix, plus (1,3) given in the upper triangle, plus (3,2) and (2,3)
  // both listed (-1 and -2): after mirroring they are duplicates and sum to -3 on both sides.
  MatrixMarketInfo info;
  const auto A = read_matrix_market(AsyncSparse::Test::data_path("mm_symmetric.mtx.gz"), {}, &info);
  EXPECT_EQ(info.symmetry, "symmetric");
  EXPECT_EQ(info.nnz_header, 8);
  EXPECT_EQ(info.nnz_stored, 10);
  EXPECT_EQ(info.duplicates_merged, 2);
  EXPECT_EQ(A.row_ptr, (std::vector<offset_t>{0, 3, 6, 9, 10}));
  EXPECT_EQ(A.col_idx, (std::vector<ordinal_t>{0, 1, 2, 0, 1, 2, 0, 1, 2, 3}));
  EXPECT_EQ(A.values, (std::vector<double>{4.0, -1.0, 0.5, -1.0, 4.0, -3.0, 0.5, -3.0, 4.0, 2.5}));

  MatrixMarketOptions stored;
  stored.expand_symmetric = false;
  const auto L = read_matrix_market(AsyncSparse::Test::data_path("mm_symmetric.mtx.gz"), stored, &info);
  EXPECT_EQ(info.nnz_stored, 8);
  EXPECT_EQ(info.duplicates_merged, 0);
  EXPECT_EQ(L.row_ptr, (std::vector<offset_t>{0, 2, 5, 7, 8}));
  EXPECT_EQ(L.col_idx, (std::vector<ordinal_t>{0, 2, 0, 1, 2, 1, 2, 3}));
  EXPECT_EQ(L.values, (std::vector<double>{4.0, 0.5, -1.0, 4.0, -2.0, -1.0, 4.0, 2.5}));
}

TEST_F(MatrixMarket, skew_symmetric_expansion_negates_the_mirror) {
  const auto p =
      write("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n2 1 1.5\n3 1 -2\n3 3 0\n");
  const auto A = read_matrix_market(p);
  EXPECT_EQ(A.row_ptr, (std::vector<offset_t>{0, 2, 3, 5}));
  EXPECT_EQ(A.col_idx, (std::vector<ordinal_t>{1, 2, 0, 0, 2}));
  EXPECT_EQ(A.values, (std::vector<double>{-1.5, 2.0, 1.5, -2.0, 0.0}));
}

TEST_F(MatrixMarket, duplicates_are_summed_or_kept_in_file_order) {
  const auto p = write("dup.mtx", std::string(kGeneralBanner) + "2 3 5\n2 3 1\n1 2 2\n2 1 4\n2 3 0.5\n1 2 -2\n");
  MatrixMarketInfo info;
  const auto A = read_matrix_market(p, {}, &info);
  EXPECT_EQ(info.duplicates_merged, 2);
  EXPECT_EQ(info.nnz_stored, 3);
  EXPECT_EQ(A.row_ptr, (std::vector<offset_t>{0, 1, 3}));
  EXPECT_EQ(A.col_idx, (std::vector<ordinal_t>{1, 0, 2}));
  EXPECT_EQ(A.values, (std::vector<double>{0.0, 4.0, 1.5}));  // a duplicate summing to zero stays an entry
  EXPECT_TRUE(is_sorted_unique(A));

  MatrixMarketOptions raw;
  raw.sort_and_merge = false;
  const auto B = read_matrix_market(p, raw, &info);
  EXPECT_EQ(info.duplicates_merged, 0);
  EXPECT_EQ(info.nnz_stored, 5);
  EXPECT_EQ(B.row_ptr, (std::vector<offset_t>{0, 2, 5}));
  EXPECT_EQ(B.col_idx, (std::vector<ordinal_t>{1, 1, 2, 0, 2}));
  EXPECT_EQ(B.values, (std::vector<double>{2.0, -2.0, 1.0, 4.0, 0.5}));
}

TEST_F(MatrixMarket, file_order_is_kept_with_comments_blanks_and_tabs) {
  const std::string f = AsyncSparse::Test::data_path("mm_general.mtx");
  const auto A = read_matrix_market(f);
  EXPECT_EQ(A.nrows, 3);
  EXPECT_EQ(A.ncols, 5);
  EXPECT_EQ(A.row_ptr, (std::vector<offset_t>{0, 2, 4, 6}));
  EXPECT_EQ(A.col_idx, (std::vector<ordinal_t>{0, 4, 1, 3, 0, 4}));
  EXPECT_EQ(A.values, (std::vector<double>{1.0, -7.0, 0.0, 3.25, 100.0, -2.5e-3}));
  MatrixMarketOptions raw;
  raw.sort_and_merge = false;
  const auto B = read_matrix_market(f, raw);
  EXPECT_EQ(B.col_idx, (std::vector<ordinal_t>{0, 4, 3, 1, 4, 0}));
  EXPECT_EQ(B.values, (std::vector<double>{1.0, -7.0, 3.25, 0.0, -2.5e-3, 100.0}));
  EXPECT_FALSE(is_sorted_unique(B));
}

TEST_F(MatrixMarket, pattern_and_integer_fields) {
  const auto p = write("pat.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n");
  MatrixMarketInfo info;
  const auto P = read_matrix_market(p, {}, &info);
  EXPECT_EQ(info.field, "pattern");
  EXPECT_EQ(P.row_ptr, (std::vector<offset_t>{0, 2, 3, 5}));
  EXPECT_EQ(P.col_idx, (std::vector<ordinal_t>{0, 2, 2, 0, 1}));
  EXPECT_EQ(P.values, (std::vector<double>(5, 1.0)));

  const auto q = write("int.mtx",
                       "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 -3\n2 2 +12\n"
                       "1 2 9007199254740993\n");
  const auto I = read_matrix_market(q, {}, &info);
  EXPECT_EQ(info.field, "integer");
  EXPECT_EQ(I.values, (std::vector<double>{-3.0, 9007199254740992.0, 12.0}));
  expect_parse_error(write("int_bad.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n"), 3,
                     "value '1.5' is not an integer (field is integer)");
  expect_parse_error(write("pat_val.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1.0\n"), 3,
                     "unexpected token '1.0' (field is pattern: expected 'row col')");
}

TEST_F(MatrixMarket, lenient_where_the_format_allows) {
  // Banner words in any case, CRLF line ends, comments and blank lines between the header and the data, a
  // comment between entries, spaces around tokens, no newline at the end of the file.
  const auto p = write("lenient.mtx",
                       "%%matrixmarket MATRIX Coordinate REAL General\r\n% comment\r\n\r\n   \r\n  2 2 2  \r\n"
                       "% between entries\r\n\t1 1 1.5e0 \r\n\r\n2 2 -.25");
  MatrixMarketInfo info;
  const auto A = read_matrix_market(p, {}, &info);
  EXPECT_EQ(info.object, "matrix");
  EXPECT_EQ(info.format, "coordinate");
  EXPECT_EQ(info.field, "real");
  EXPECT_EQ(info.symmetry, "general");
  EXPECT_EQ(A.col_idx, (std::vector<ordinal_t>{0, 1}));
  EXPECT_EQ(A.values, (std::vector<double>{1.5, -0.25}));
}

TEST_F(MatrixMarket, gzip_is_detected_by_content_not_name) {
  const auto gz = write("gzip_named_plain.mtx", read_bytes(AsyncSparse::Test::data_path("mm_symmetric.mtx.gz")));
  const auto plain = write("plain_named_gzip.mtx.gz", read_bytes(AsyncSparse::Test::data_path("mm_general.mtx")));
  EXPECT_EQ(read_matrix_market(gz).nnz(), 10);
  EXPECT_EQ(read_matrix_market(plain).nnz(), 6);
}

TEST_F(MatrixMarket, header_only_info) {
  const auto info = read_matrix_market_info(AsyncSparse::Test::data_path("mm_symmetric.mtx.gz"));
  EXPECT_EQ(info.object, "matrix");
  EXPECT_EQ(info.format, "coordinate");
  EXPECT_EQ(info.field, "real");
  EXPECT_EQ(info.symmetry, "symmetric");
  EXPECT_EQ(info.nrows, 4);
  EXPECT_EQ(info.ncols, 4);
  EXPECT_EQ(info.nnz_header, 8);
  EXPECT_EQ(info.nnz_stored, 0);
  // The entries are not read: a bad entry line does not matter, a bad header does.
  const auto bad_data = write("bad_data.mtx", std::string(kGeneralBanner) + "2 3 1\nfoo\n");
  EXPECT_EQ(read_matrix_market_info(bad_data).ncols, 3);
  const auto bad_header = write("bad_header.mtx", "%%MatrixMarket matrix array real general\n2 2\n");
  ASYNCSPARSE_EXPECT_THROW_MSG(read_matrix_market_info(bad_header), ParseError,
                               "read_matrix_market_info: 'array' (dense) format is not supported");
  ASYNCSPARSE_EXPECT_THROW_MSG(read_matrix_market_info(path("missing.mtx")), ParseError,
                               "read_matrix_market_info: cannot open file");
}

TEST_F(MatrixMarket, unreadable_files) {
  expect_parse_error(path("does_not_exist.mtx"), 0, "cannot open file: No such file or directory");
  expect_parse_error(dir_.string(), 0, "cannot read file: it is a directory");
  expect_parse_error(AsyncSparse::Test::data_path("mm_corrupt_crc.mtx.gz"), 1,
                     "corrupt gzip data (zlib: incorrect data check) while reading line 1");
  expect_parse_error(AsyncSparse::Test::data_path("mm_truncated.mtx.gz"), 1,
                     "truncated gzip stream (zlib: unexpected end of file) while reading line 1");
  // Damage far into a larger stream: a valid gzip member of 20002 lines followed by a member whose deflate data
  // starts with a reserved block type. The lines before the damaged 64 KiB read are parsed; the error names
  // a later line.
  CsrHost<double> D(20000, 1);
  for (ordinal_t i = 0; i < D.nrows; ++i) D.row_ptr[i + 1] = i + 1;
  D.col_idx.assign(20000, 0);
  D.values.assign(20000, 0.5);
  write_matrix_market(path("long.mtx.gz"), D);
  const std::string member2 = {'\x1f', '\x8b', '\x08', '\0',   '\0',   '\0',   '\0',
                               '\0',   '\0',   '\x03', '\xff', '\xff', '\xff', '\xff'};
  const auto damaged = write("damaged.mtx.gz", read_bytes(path("long.mtx.gz")) + member2);
  try {
    read_matrix_market(damaged);
    ADD_FAILURE() << "no ParseError for a damaged gzip stream";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("read_matrix_market: corrupt gzip data (zlib: invalid block type) while "
                                         "reading line " +
                                         std::to_string(e.line())),
              std::string::npos)
        << e.what();
    EXPECT_GT(e.line(), 10000);
    EXPECT_LE(e.line(), 20003);
  }
}

TEST_F(MatrixMarket, bad_banner) {
  expect_parse_error(write("empty.mtx", ""), 1, "empty file: missing the '%%MatrixMarket' banner");
  expect_parse_error(write("no_banner.mtx", "2 2 1\n1 1 1\n"), 1,
                     "missing Matrix Market banner: line 1 must start with '%%MatrixMarket'");
  expect_parse_error(write("typo.mtx", "%%MatrixMarkt matrix coordinate real general\n2 2 1\n1 1 1\n"), 1,
                     "bad banner: first word is '%%MatrixMarkt', expected '%%MatrixMarket'");
  expect_parse_error(write("short.mtx", "%%MatrixMarket matrix coordinate real\n2 2 1\n1 1 1\n"), 1,
                     "incomplete banner: expected '%%MatrixMarket matrix coordinate <field> <symmetry>', found 3");
  expect_parse_error(write("long.mtx", "%%MatrixMarket matrix coordinate real general extra\n2 2 1\n1 1 1\n"), 1,
                     "bad banner: unexpected word 'extra' after the symmetry");
  expect_parse_error(write("vector.mtx", "%%MatrixMarket vector coordinate real general\n2 2 1\n1 1 1\n"), 1,
                     "unsupported object 'vector': only 'matrix' is supported");
  expect_parse_error(write("array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"), 1,
                     "'array' (dense) format is not supported: only 'coordinate' (sparse) files can be read");
  expect_parse_error(write("fmt.mtx", "%%MatrixMarket matrix sparse real general\n2 2 1\n1 1 1\n"), 1,
                     "unknown format 'sparse': expected 'coordinate'");
  expect_parse_error(write("complex.mtx", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n"), 1,
                     "'complex' field is not supported: only real, integer and pattern");
  expect_parse_error(write("field.mtx", "%%MatrixMarket matrix coordinate double general\n2 2 1\n1 1 1\n"), 1,
                     "unknown field 'double': expected real, integer or pattern");
  expect_parse_error(write("herm.mtx", "%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n1 1 1\n"), 1,
                     "'hermitian' symmetry is not supported: only general, symmetric and skew-symmetric");
  expect_parse_error(write("sym.mtx", "%%MatrixMarket matrix coordinate real lower\n2 2 1\n1 1 1\n"), 1,
                     "unknown symmetry 'lower': expected general, symmetric or skew-symmetric");
  expect_parse_error(write("patskew.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n"), 1,
                     "'pattern' field with 'skew-symmetric' symmetry is not allowed");
}

TEST_F(MatrixMarket, bad_size_line) {
  const std::string g = kGeneralBanner;
  expect_parse_error(write("nosize.mtx", g + "% only comments\n\n"), 3,
                     "missing size line: the file ends after the header");
  expect_parse_error(write("two.mtx", g + "% c\n4 4\n"), 3,
                     "bad size line '4 4': expected 'rows cols entries' (3 integers), found 2 token(s)");
  expect_parse_error(write("alpha.mtx", g + "4 x 1\n1 1 1\n"), 2, "bad size line: column count 'x' is not an integer");
  expect_parse_error(write("float.mtx", g + "4 4 1.0\n1 1 1\n"), 2,
                     "bad size line: entry count '1.0' is not an integer");
  expect_parse_error(write("neg.mtx", g + "4 4 -1\n"), 2, "bad size line: negative entry count -1");
  expect_parse_error(write("negrow.mtx", g + "-4 4 1\n1 1 1\n"), 2, "bad size line: negative row count -4");
  expect_parse_error(write("zero_rows.mtx", g + "0 4 0\n"), 2,
                     "empty matrix: the size line says 0 x 4 (rows and columns must be at least 1)");
  expect_parse_error(write("zero_cols.mtx", g + "4 0 0\n"), 2, "empty matrix: the size line says 4 x 0");
  expect_parse_error(write("huge.mtx", g + "3000000000 4 1\n1 1 1\n"), 2,
                     "row count 3000000000 exceeds the largest supported index 2147483647");
  if (sizeof(offset_t) == 4) {
    expect_parse_error(write("hugennz.mtx", g + "4 4 3000000000\n1 1 1\n"), 2,
                       "entry count 3000000000 is too large: a matrix holds at most 2147483647 (32-bit offsets; a "
                       "library configured with AsyncSparse_OFFSET_TYPE=int64 holds more) stored entries");
    // the boundary of an expanded symmetric file: 2 x 1073741823 fits, 2 x 1073741824 does not
    expect_parse_error(write("symlimit.mtx", std::string(kSymmetricBanner) + "4 4 1073741824\n1 1 1\n"), 2,
                       "entry count 1073741824 is too large");
    expect_parse_error(write("symfits.mtx", std::string(kSymmetricBanner) + "4 4 1073741823\n1 1 1\n"), 3,
                       "the size line announces 1073741823 entries");
    expect_parse_error(write("hugesym.mtx", std::string(kSymmetricBanner) + "4 4 1500000000\n1 1 1\n"), 2,
                       "entry count 1500000000 is too large");  // up to 3e9 stored entries once expanded
  } else {  // representable: the file is then too short (and nothing of that size was allocated)
    expect_parse_error(write("hugennz.mtx", g + "4 4 3000000000\n1 1 1\n"), 3,
                       "the size line announces 3000000000 entries, but the data ends at line 3 after 1 entries");
    expect_parse_error(write("hugesym.mtx", std::string(kSymmetricBanner) + "4 4 5000000000000000000\n1 1 1\n"), 2,
                       "entry count 5000000000000000000 is too large");
  }
  expect_parse_error(write("symrect.mtx", std::string(kSymmetricBanner) + "3 4 1\n1 1 1\n"), 2,
                     "symmetric storage needs a square matrix, but the size line says 3 x 4");
  expect_parse_error(write("skewrect.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n4 3 1\n2 1 1\n"), 2,
                     "skew-symmetric storage needs a square matrix");
}

TEST_F(MatrixMarket, bad_entry_count) {
  const std::string g = kGeneralBanner;
  expect_parse_error(write("trunc.mtx", g + "% c\n4 4 3\n1 1 1\n2 2 2\n"), 5,
                     "truncated file: the size line announces 3 entries, but the data ends at line 5 after 2 entries");
  expect_parse_error(write("trunc_blank.mtx", g + "4 4 2\n1 1 1\n\n"), 4, "the data ends at line 4 after 1 entries");
  expect_parse_error(write("trunc_none.mtx", g + "4 4 2\n"), 2, "the data ends at line 2 after 0 entries");
  expect_parse_error(write("more.mtx", g + "4 4 2\n1 1 1\n2 2 2\n\n3 3 3\n"), 6,
                     "more entries than the 2 announced on the size line");
}

TEST_F(MatrixMarket, bad_entry_lines) {
  const std::string g = std::string(kGeneralBanner) + "4 3 2\n1 1 1\n";
  expect_parse_error(write("row_hi.mtx", g + "5 1 1\n"), 4, "row index 5 out of range: must be in [1, 4]");
  expect_parse_error(write("col_lo.mtx", g + "1 0 1\n"), 4, "column index 0 out of range: must be in [1, 3]");
  expect_parse_error(write("col_hi.mtx", g + "1 4 1\n"), 4, "column index 4 out of range: must be in [1, 3]");
  expect_parse_error(write("row_neg.mtx", g + "-1 1 1\n"), 4, "row index -1 out of range: must be in [1, 4]");
  expect_parse_error(write("row_alpha.mtx", g + "a 1 1\n"), 4, "row index 'a' is not an integer");
  expect_parse_error(write("col_float.mtx", g + "1 1.0 1\n"), 4, "column index '1.0' is not an integer");
  expect_parse_error(write("row_big.mtx", g + "99999999999999999999 1 1\n"), 4,
                     "row index '99999999999999999999' is not an integer");
  expect_parse_error(write("val_alpha.mtx", g + "2 2 abc\n"), 4, "value 'abc' is not a number");
  expect_parse_error(write("val_junk.mtx", g + "2 2 1.5x\n"), 4, "value '1.5x' is not a number");
  expect_parse_error(write("val_comma.mtx", g + "2 2 1,5\n"), 4, "value '1,5' is not a number");
  expect_parse_error(write("no_val.mtx", g + "2 2\n"), 4, "missing value (field is real: expected 'row col value')");
  expect_parse_error(write("no_col.mtx", g + "2\n"), 4, "missing column index (field is real");
  expect_parse_error(write("extra.mtx", g + "2 2 1 0\n"), 4, "unexpected token '0' (field is real");
  expect_parse_error(write("skewdiag.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n"), 3,
                     "nonzero diagonal entry (2, 2) in skew-symmetric storage");
}

TEST_F(MatrixMarket, nonfinite_values_rejected_unless_allowed) {
  const std::string g = std::string(kGeneralBanner) + "2 2 2\n1 1 1\n";
  for (const char* v : {"nan", "NaN", "inf", "-Infinity", "1e999", "-1e400"}) {
    SCOPED_TRACE(v);
    const auto p = write("nonfinite.mtx", g + "2 2 " + v + "\n");
    expect_parse_error(p, 4, std::string("value '") + v + "' is not finite (NaN, Inf or overflow)");
    MatrixMarketOptions allow;
    allow.allow_nonfinite = true;
    const auto A = read_matrix_market(p, allow);
    ASSERT_EQ(A.nnz(), 2);
    EXPECT_FALSE(std::isfinite(A.values[1]));
  }
  // Underflow to a subnormal or to zero is not an error.
  const auto A = read_matrix_market(write("tiny.mtx", g + "2 2 1e-320\n"));
  EXPECT_EQ(A.values[1], 1e-320);
}

TEST_F(MatrixMarket, duplicates_summing_to_a_nonfinite_value_rejected_unless_allowed) {
  // Finite entries whose sum overflows: listed twice, or (symmetric storage) listed in both triangles.
  const auto dup = write("dup_overflow.mtx", std::string(kGeneralBanner) + "2 2 3\n1 1 1\n2 1 1e308\n2 1 1e308\n");
  expect_parse_error(dup, 0, "the duplicate entries at (2, 1) sum to a non-finite value (overflow)");
  const auto sym = write("sym_overflow.mtx", std::string(kSymmetricBanner) + "2 2 2\n2 1 -1e308\n1 2 -1e308\n");
  expect_parse_error(sym, 0, "the duplicate entries at (1, 2) sum to a non-finite value (overflow)");
  MatrixMarketOptions allow;
  allow.allow_nonfinite = true;
  const auto A = read_matrix_market(dup, allow);
  ASSERT_EQ(A.nnz(), 2);
  EXPECT_EQ(A.values[1], std::numeric_limits<double>::infinity());
  MatrixMarketOptions keep;  // without merging, every stored value is finite
  keep.sort_and_merge = false;
  EXPECT_EQ(read_matrix_market(dup, keep).nnz(), 3);
}

TEST(MatrixMarketShared, every_shared_matrix_matches_SOURCES_md) {
  // SOURCES.md's table: `file | rows | cols | nnz (header) | nnz (full) | field | symmetry | ...`, where
  // nnz (full) = 2*header - stored diagonal entries for symmetric files. None of the files lists an entry
  // twice, so that count is also the number of entries after expansion and merging: this test checks both
  // (duplicates_merged == 0). Explicitly stored zeros (bayer10, bodyy*) are entries and are kept.
  const std::string dir = AsyncSparse::Test::matrix_dir();
  std::ifstream sources(dir + "/SOURCES.md");
  ASSERT_TRUE(sources.good()) << "no SOURCES.md in the matrix folder " << dir;
  struct Row {
    std::int64_t rows, cols, nnz_header, nnz_full;
    std::string field, symmetry;
  };
  std::map<std::string, Row> table;
  std::map<std::string, int> col;
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    return cells;
  };
  for (std::string line; std::getline(sources, line);) {
    if (line.empty() || line[0] != '|') continue;
    const auto cells = split(line);
    if (col.empty()) {
      for (std::size_t k = 0; k < cells.size(); ++k) col[cells[k]] = static_cast<int>(k);
      for (const char* c : {"file", "rows", "cols", "nnz (header)", "nnz (full)", "field", "symmetry"})
        ASSERT_TRUE(col.count(c)) << "SOURCES.md table has no column '" << c << "'";
      continue;
    }
    if (cells[0].rfind("---", 0) == 0) continue;
    ASSERT_GT(cells.size(), static_cast<std::size_t>(col["symmetry"])) << line;
    table[cells[col["file"]]] = {std::stoll(cells[col["rows"]]),
                                 std::stoll(cells[col["cols"]]),
                                 std::stoll(cells[col["nnz (header)"]]),
                                 std::stoll(cells[col["nnz (full)"]]),
                                 cells[col["field"]],
                                 cells[col["symmetry"]]};
  }
  ASSERT_FALSE(table.empty()) << "no table rows in " << dir << "/SOURCES.md";

  std::vector<std::string> on_disk;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const bool mtx = name.size() > 4 && (name.compare(name.size() - 4, 4, ".mtx") == 0 ||
                                         (name.size() > 7 && name.compare(name.size() - 7, 7, ".mtx.gz") == 0));
    if (mtx) on_disk.push_back(name);
  }
  for (const auto& name : on_disk) EXPECT_TRUE(table.count(name)) << name << " is not listed in SOURCES.md";
  for (const auto& kv : table) {
    const std::string& name = kv.first;
    const Row& r = kv.second;
    SCOPED_TRACE(name);
    const std::string file = dir + "/" + name;
    if (!fs::exists(file)) {
      ADD_FAILURE() << name << " is listed in SOURCES.md but missing from " << dir;
      continue;
    }
    MatrixMarketInfo info;
    const auto A = read_matrix_market(file, {}, &info);
    EXPECT_EQ(A.nrows, r.rows);
    EXPECT_EQ(A.ncols, r.cols);
    EXPECT_EQ(info.nnz_header, r.nnz_header);
    EXPECT_EQ(info.field, r.field);
    EXPECT_EQ(info.symmetry, r.symmetry);
    EXPECT_EQ(A.nnz(), r.nnz_full);
    EXPECT_EQ(info.nnz_stored + info.duplicates_merged, r.nnz_full);
    EXPECT_EQ(info.duplicates_merged, 0);
    EXPECT_TRUE(is_sorted_unique(A));
    if (r.symmetry == "symmetric") {
      bool symmetric = true;
      for (ordinal_t i = 0; i < A.nrows && symmetric; ++i)
        for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
          const offset_t t = find_entry(A, A.col_idx[k], i);
          if (t < 0 || A.values[t] != A.values[k]) {
            symmetric = false;
            break;
          }
        }
      EXPECT_TRUE(symmetric);
    }
  }
}

TEST(MatrixMarketShared, bcsstk16_loads_quickly) {
  // 147k stored / 290k full entries, 0.8 MB gzip. Takes a few tens of milliseconds in a release build; the
  // bound only catches a pathological slowdown on a loaded machine.
  const auto t0 = std::chrono::steady_clock::now();
  const auto A = read_matrix_market(AsyncSparse::Test::matrix_path("bcsstk16"));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(A.nnz(), 290378);
  ::testing::Test::RecordProperty("bcsstk16_load_seconds", std::to_string(s));
  std::printf("bcsstk16: %.3f s\n", s);
  EXPECT_LT(s, 5.0);
}
