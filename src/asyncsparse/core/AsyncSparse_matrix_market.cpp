// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <asyncsparse/core/AsyncSparse_matrix_market.hpp>

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace AsyncSparse {
namespace Impl {

inline bool mm_is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline std::string mm_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// A token for an error message: printable characters only, long tokens cut.
inline std::string mm_quote(const char* b, const char* e) {
  std::string s = "'";
  const std::size_t n = static_cast<std::size_t>(e - b);
  for (std::size_t k = 0; k < n && k < 40; ++k) s += std::isprint(static_cast<unsigned char>(b[k])) ? b[k] : '?';
  if (n > 40) s += "...";
  return s + "'";
}

/// Reads a plain or gzip file line by line through zlib (gzread passes a file without the gzip magic bytes
/// through unchanged). Returned lines exclude the newline and are followed by a '\0'. The buffers grow with the
/// file: reads of 4 KiB for files up to 4 KiB, up to 64 KiB for files of 64 KiB and more.
class MmLineReader {
 public:
  MmLineReader(const std::string& path, const std::string& fn) : path_(path), fn_(fn) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      const int err = errno;
      throw ParseError(path, 0, fn + ": cannot open file: " + std::strerror(err));
    }
    if (S_ISDIR(st.st_mode)) throw ParseError(path, 0, fn + ": cannot read file: it is a directory");
    errno = 0;
    gz_ = gzopen(path.c_str(), "rb");
    if (!gz_) {
      const int err = errno;
      throw ParseError(path, 0, fn + ": cannot open file: " + (err ? std::strerror(err) : "out of memory"));
    }
    while (chunk_ < (std::size_t(1) << 16) && static_cast<std::size_t>(st.st_size) > chunk_) chunk_ *= 2;
    buf_.resize(2 * chunk_ + 1);
    gzbuffer(gz_, static_cast<unsigned>(2 * chunk_));
  }
  ~MmLineReader() {
    if (gz_) gzclose(gz_);
  }
  MmLineReader(const MmLineReader&) = delete;
  MmLineReader& operator=(const MmLineReader&) = delete;

  /// The next line in [begin, end); false at the end of the file.
  bool next(char*& begin, char*& end) {
    for (;;) {
      char* const data = buf_.data();
      char* const nl = static_cast<char*>(std::memchr(data + pos_, '\n', end_ - pos_));
      if (nl || (eof_ && pos_ < end_)) {
        begin = data + pos_;
        end = nl ? nl : data + end_;
        pos_ = nl ? static_cast<std::size_t>(nl - data) + 1 : end_;
        *end = '\0';
        ++line_;
        return true;
      }
      if (eof_) return false;
      refill();
    }
  }

  /// 1-based number of the line last returned by next() (0 before the first).
  std::int64_t line() const { return line_; }

 private:
  // Reads at most chunk_ (<= 64 KiB) at a time: gzread returns nothing from a call that meets corrupt data, so
  // the chunk size bounds how far before the damage the reported line can be.
  void refill() {
    if (pos_ > 0) {
      std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
      end_ -= pos_;
      pos_ = 0;
    }
    const std::size_t chunk = chunk_;
    if (buf_.size() - end_ < chunk + 1) buf_.resize(std::max(2 * buf_.size(), end_ + chunk + 1));
    const int got = gzread(gz_, buf_.data() + end_, static_cast<unsigned>(chunk));
    if (got > 0) end_ += static_cast<std::size_t>(got);
    if (got < static_cast<int>(chunk)) {
      int errnum = Z_OK;
      std::string msg = gzerror(gz_, &errnum);
      if (msg.compare(0, path_.size() + 2, path_ + ": ") == 0) msg.erase(0, path_.size() + 2);
      if (errnum == Z_ERRNO) {
        const int err = errno;
        throw ParseError(path_, 0, fn_ + ": cannot read file: " + std::strerror(err));
      }
      if (errnum == Z_BUF_ERROR)
        throw ParseError(
            path_, line_ + 1,
            fn_ + ": truncated gzip stream (zlib: " + msg + ") while reading line " + std::to_string(line_ + 1));
      if (errnum != Z_OK)
        throw ParseError(
            path_, line_ + 1,
            fn_ + ": corrupt gzip data (zlib: " + msg + ") while reading line " + std::to_string(line_ + 1));
      if (got <= 0) eof_ = true;
    }
  }

  std::string path_, fn_;
  gzFile gz_ = nullptr;
  std::size_t chunk_ = 1 << 12;  // bytes per gzread
  std::vector<char> buf_;        // [pos_, end_) holds data not yet returned, followed by room for a '\0'
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  std::int64_t line_ = 0;
};

struct MmToken {
  const char* b;
  const char* e;
};

/// Splits [b, e) at blanks into at most `cap` tokens; returns the number of tokens on the line.
inline int mm_split(const char* b, const char* e, MmToken* toks, int cap) {
  int n = 0;
  while (b < e) {
    while (b < e && mm_is_space(*b)) ++b;
    if (b == e) break;
    const char* s = b;
    while (b < e && !mm_is_space(*b)) ++b;
    if (n < cap) toks[n] = {s, b};
    ++n;
  }
  return n;
}

/// True when the line is blank or a `%` comment.
inline bool mm_skip_line(const char* b, const char* e) {
  while (b < e && mm_is_space(*b)) ++b;
  return b == e || *b == '%';
}

/// Parses a whole token as a decimal integer; false when it is not one (or overflows int64).
inline bool mm_parse_int(const MmToken& t, std::int64_t& out) {
  char* p = nullptr;
  errno = 0;
  const long long v = std::strtoll(t.b, &p, 10);
  if (p != t.e || p == t.b || errno == ERANGE) return false;
  out = static_cast<std::int64_t>(v);
  return true;
}

struct MmHeader {
  bool pattern = false, integer = false, symmetric = false, skew = false;
};

/// Reads the banner and the size line into `info`; the reader is left after the size line.
inline MmHeader mm_read_header(MmLineReader& in, const std::string& path, const std::string& fn,
                               const MatrixMarketOptions& opts, MatrixMarketInfo& info) {
  auto fail = [&](std::int64_t line, const std::string& problem) { throw ParseError(path, line, fn + ": " + problem); };
  char *b = nullptr, *e = nullptr;
  if (!in.next(b, e)) fail(1, "empty file: missing the '%%MatrixMarket' banner");
  if (e - b < 2 || b[0] != '%' || b[1] != '%')
    fail(1, "missing Matrix Market banner: line 1 must start with '%%MatrixMarket'");
  MmToken t[6];
  const int nt = mm_split(b, e, t, 6);
  auto word = [&](int k) { return mm_lower(std::string(t[k].b, t[k].e)); };
  if (word(0) != "%%matrixmarket")
    fail(1, "bad banner: first word is " + mm_quote(t[0].b, t[0].e) + ", expected '%%MatrixMarket'");
  if (nt < 5)
    fail(1, "incomplete banner: expected '%%MatrixMarket matrix coordinate <field> <symmetry>', found " +
                std::to_string(nt - 1) + " word(s) after '%%MatrixMarket'");
  if (nt > 5) fail(1, "bad banner: unexpected word " + mm_quote(t[5].b, t[5].e) + " after the symmetry");
  info.object = word(1);
  info.format = word(2);
  info.field = word(3);
  info.symmetry = word(4);
  if (info.object != "matrix") fail(1, "unsupported object '" + info.object + "': only 'matrix' is supported");
  if (info.format == "array")
    fail(1, "'array' (dense) format is not supported: only 'coordinate' (sparse) files can be read");
  if (info.format != "coordinate") fail(1, "unknown format '" + info.format + "': expected 'coordinate'");
  if (info.field == "complex") fail(1, "'complex' field is not supported: only real, integer and pattern");
  if (info.field != "real" && info.field != "integer" && info.field != "pattern")
    fail(1, "unknown field '" + info.field + "': expected real, integer or pattern");
  if (info.symmetry == "hermitian")
    fail(1, "'hermitian' symmetry is not supported: only general, symmetric and skew-symmetric");
  if (info.symmetry != "general" && info.symmetry != "symmetric" && info.symmetry != "skew-symmetric")
    fail(1, "unknown symmetry '" + info.symmetry + "': expected general, symmetric or skew-symmetric");
  if (info.field == "pattern" && info.symmetry == "skew-symmetric")
    fail(1, "'pattern' field with 'skew-symmetric' symmetry is not allowed (the signs would be lost)");
  MmHeader h;
  h.pattern = info.field == "pattern";
  h.integer = info.field == "integer";
  h.skew = info.symmetry == "skew-symmetric";
  h.symmetric = h.skew || info.symmetry == "symmetric";

  for (;;) {
    if (!in.next(b, e)) fail(in.line(), "missing size line: the file ends after the header");
    if (!mm_skip_line(b, e)) break;
  }
  const std::int64_t line = in.line();
  const int ns = mm_split(b, e, t, 6);
  while (b < e && mm_is_space(*b)) ++b;
  while (e > b && mm_is_space(e[-1])) --e;
  if (ns != 3)
    fail(line, "bad size line " + mm_quote(b, e) + ": expected 'rows cols entries' (3 integers), found " +
                   std::to_string(ns) + " token(s)");
  std::int64_t v[3];
  const char* names[3] = {"row count", "column count", "entry count"};
  for (int k = 0; k < 3; ++k) {
    if (!mm_parse_int(t[k], v[k]))
      fail(line, std::string("bad size line: ") + names[k] + " " + mm_quote(t[k].b, t[k].e) + " is not an integer");
    if (v[k] < 0) fail(line, std::string("bad size line: negative ") + names[k] + " " + std::to_string(v[k]));
  }
  if (v[0] == 0 || v[1] == 0)
    fail(line, "empty matrix: the size line says " + std::to_string(v[0]) + " x " + std::to_string(v[1]) +
                   " (rows and columns must be at least 1)");
  constexpr std::int64_t max_index = std::numeric_limits<ordinal_t>::max();
  constexpr std::int64_t max_nnz = max_stored_entries;
  for (int k = 0; k < 2; ++k)
    if (v[k] > max_index)
      fail(line, std::string(names[k]) + " " + std::to_string(v[k]) + " exceeds the largest supported index " +
                     std::to_string(max_index));
  const bool expanded = h.symmetric && opts.expand_symmetric;  // up to 2 stored entries per line
  if (v[2] > (expanded ? max_nnz / 2 : max_nnz))
    fail(line, "entry count " + std::to_string(v[2]) + " is too large: a matrix holds at most " +
                   max_stored_entries_text() + " stored entries" + (expanded ? " (symmetric: twice the count)" : ""));
  if (h.symmetric && v[0] != v[1])
    fail(line, info.symmetry + " storage needs a square matrix, but the size line says " + std::to_string(v[0]) +
                   " x " + std::to_string(v[1]));
  info.nrows = static_cast<ordinal_t>(v[0]);
  info.ncols = static_cast<ordinal_t>(v[1]);
  info.nnz_header = v[2];
  return h;
}

}  // namespace Impl

MatrixMarketInfo read_matrix_market_info(const std::string& path) {
  Impl::MmLineReader in(path, "read_matrix_market_info");
  MatrixMarketInfo info;
  MatrixMarketOptions header_only;
  header_only.expand_symmetric = false;
  Impl::mm_read_header(in, path, "read_matrix_market_info", header_only, info);
  return info;
}

CsrHost<double> read_matrix_market(const std::string& path, const MatrixMarketOptions& opts,
                                   MatrixMarketInfo* info_out) {
  const std::string fn = "read_matrix_market";
  auto fail = [&](std::int64_t line, const std::string& problem) { throw ParseError(path, line, fn + ": " + problem); };
  Impl::MmLineReader in(path, fn);
  MatrixMarketInfo info;
  const Impl::MmHeader h = Impl::mm_read_header(in, path, fn, opts, info);
  const bool expand = h.symmetric && opts.expand_symmetric;
  const int want = h.pattern ? 2 : 3;
  const char* layout = h.pattern ? "'row col'" : "'row col value'";

  std::vector<ordinal_t> rows, cols;
  std::vector<double> vals;
  const std::size_t reserve =
      static_cast<std::size_t>(std::min<std::int64_t>((expand ? 2 : 1) * info.nnz_header, std::int64_t(1) << 24));
  rows.reserve(reserve);
  cols.reserve(reserve);
  vals.reserve(reserve);

  std::int64_t count = 0;
  char *b = nullptr, *e = nullptr;
  Impl::MmToken t[4];
  while (in.next(b, e)) {
    if (Impl::mm_skip_line(b, e)) continue;
    const std::int64_t line = in.line();
    if (count == info.nnz_header)
      fail(line, "more entries than the " + std::to_string(info.nnz_header) + " announced on the size line");
    const int nt = Impl::mm_split(b, e, t, 4);
    if (nt < 2) fail(line, "missing column index (field is " + info.field + ": expected " + layout + ")");
    if (nt < want) fail(line, "missing value (field is " + info.field + ": expected " + layout + ")");
    if (nt > want)
      fail(line, "unexpected token " + Impl::mm_quote(t[want].b, t[want].e) + " (field is " + info.field +
                     ": expected " + layout + ")");
    std::int64_t ij[2];
    const std::int64_t bound[2] = {info.nrows, info.ncols};
    const char* names[2] = {"row", "column"};
    for (int k = 0; k < 2; ++k) {
      if (!Impl::mm_parse_int(t[k], ij[k]))
        fail(line, std::string(names[k]) + " index " + Impl::mm_quote(t[k].b, t[k].e) + " is not an integer");
      if (ij[k] < 1 || ij[k] > bound[k])
        fail(line, std::string(names[k]) + " index " + std::to_string(ij[k]) + " out of range: must be in [1, " +
                       std::to_string(bound[k]) + "]");
    }
    double v = 1.0;
    if (h.integer) {
      std::int64_t iv = 0;
      if (!Impl::mm_parse_int(t[2], iv))
        fail(line, "value " + Impl::mm_quote(t[2].b, t[2].e) + " is not an integer (field is integer)");
      v = static_cast<double>(iv);
    } else if (!h.pattern) {
      char* p = nullptr;
      v = std::strtod(t[2].b, &p);
      if (p != t[2].e || p == t[2].b) fail(line, "value " + Impl::mm_quote(t[2].b, t[2].e) + " is not a number");
      if (!std::isfinite(v) && !opts.allow_nonfinite)
        fail(line, "value " + Impl::mm_quote(t[2].b, t[2].e) +
                       " is not finite (NaN, Inf or overflow); set MatrixMarketOptions::allow_nonfinite to accept it");
    }
    const ordinal_t i = static_cast<ordinal_t>(ij[0] - 1), j = static_cast<ordinal_t>(ij[1] - 1);
    if (h.skew && i == j && v != 0.0)
      fail(line, "nonzero diagonal entry (" + std::to_string(ij[0]) + ", " + std::to_string(ij[1]) +
                     ") in skew-symmetric storage");
    rows.push_back(i);
    cols.push_back(j);
    vals.push_back(v);
    if (expand && i != j) {
      rows.push_back(j);
      cols.push_back(i);
      vals.push_back(h.skew ? -v : v);
    }
    ++count;
  }
  if (count < info.nnz_header)
    fail(in.line(), "truncated file: the size line announces " + std::to_string(info.nnz_header) +
                        " entries, but the data ends at line " + std::to_string(in.line()) + " after " +
                        std::to_string(count) + " entries");

  const std::int64_t expanded = static_cast<std::int64_t>(rows.size());
  CsrHost<double> A =
      csr_from_triplets(info.nrows, info.ncols, rows, cols, vals, opts.sort_and_merge, opts.sort_and_merge);
  // Finite duplicates can sum to an infinite value (1e308 + 1e308): rejected like a non-finite value in the file.
  if (opts.sort_and_merge && !opts.allow_nonfinite)
    for (ordinal_t i = 0; i < A.nrows; ++i)
      for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        if (!std::isfinite(A.values[k]))
          fail(0, "the duplicate entries at (" + std::to_string(i + 1) + ", " + std::to_string(A.col_idx[k] + 1) +
                      ") sum to a non-finite value (overflow); set MatrixMarketOptions::allow_nonfinite to accept it");
  info.nnz_stored = A.nnz();
  info.duplicates_merged = expanded - info.nnz_stored;
  if (info_out) *info_out = info;
  return A;
}

void write_matrix_market(const std::string& path, const CsrHost<double>& A, const std::string& comment) {
  const std::string fn = "write_matrix_market: ";
  if (A.nrows < 1 || A.ncols < 1)
    throw InvalidInput(fn + "empty matrix (" + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) +
                       "): Matrix Market files read back by read_matrix_market need at least one row and column");
  if (A.row_ptr.size() != static_cast<std::size_t>(A.nrows) + 1 || A.row_ptr[0] != 0)
    throw InvalidInput(fn + "row_ptr must have nrows+1 = " + std::to_string(A.nrows + 1) +
                       " entries starting with 0 (has " + std::to_string(A.row_ptr.size()) + ")");
  for (ordinal_t i = 0; i < A.nrows; ++i)
    if (A.row_ptr[i + 1] < A.row_ptr[i]) throw InvalidInput(fn + "row_ptr decreases at row " + std::to_string(i));
  const std::size_t nnz = static_cast<std::size_t>(A.row_ptr[A.nrows]);
  if (A.col_idx.size() != nnz || A.values.size() != nnz)
    throw InvalidInput(fn + "row_ptr[nrows] = " + std::to_string(nnz) + " but col_idx has " +
                       std::to_string(A.col_idx.size()) + " and values " + std::to_string(A.values.size()) +
                       " entries");
  for (std::size_t k = 0; k < nnz; ++k)
    if (A.col_idx[k] < 0 || A.col_idx[k] >= A.ncols)
      throw InvalidInput(fn + "column index " + std::to_string(A.col_idx[k]) + " at position " + std::to_string(k) +
                         " out of range [0, " + std::to_string(A.ncols) + ")");

  const bool gz = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  gzFile gzf = nullptr;
  std::FILE* fp = nullptr;
  errno = 0;
  if (gz)
    gzf = gzopen(path.c_str(), "wb6");
  else
    fp = std::fopen(path.c_str(), "wb");
  if (!gzf && !fp) {
    const int err = errno;
    throw Error(fn + "cannot open '" + path + "' for writing: " + (err ? std::strerror(err) : "unknown error"));
  }
  bool ok = true;
  int err = 0;
  std::string buf;
  auto flush = [&]() {
    if (buf.empty() || !ok) return;
    errno = 0;
    if (gz)
      ok = gzwrite(gzf, buf.data(), static_cast<unsigned>(buf.size())) == static_cast<int>(buf.size());
    else
      ok = std::fwrite(buf.data(), 1, buf.size(), fp) == buf.size();
    if (!ok) err = errno;
    buf.clear();
  };
  buf += "%%MatrixMarket matrix coordinate real general\n";
  if (!comment.empty()) {
    std::size_t s = 0;
    for (;;) {
      const std::size_t nl = comment.find('\n', s);
      buf += "% " + comment.substr(s, nl == std::string::npos ? std::string::npos : nl - s) + "\n";
      if (nl == std::string::npos || nl + 1 == comment.size()) break;
      s = nl + 1;
    }
  }
  buf += std::to_string(A.nrows) + " " + std::to_string(A.ncols) + " " + std::to_string(nnz) + "\n";
  char line[96];
  for (ordinal_t i = 0; i < A.nrows && ok; ++i) {
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const int n = std::snprintf(line, sizeof line, "%d %d %.17g\n", i + 1, A.col_idx[k] + 1, A.values[k]);
      buf.append(line, static_cast<std::size_t>(n));
    }
    if (buf.size() > (1u << 20)) flush();
  }
  flush();
  errno = 0;
  const bool closed = gz ? gzclose(gzf) == Z_OK : std::fclose(fp) == 0;
  if (!closed && ok) err = errno;
  ok = ok && closed;
  if (!ok) throw Error(fn + "writing '" + path + "' failed: " + (err ? std::strerror(err) : "unknown error"));
}

}  // namespace AsyncSparse
