// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — numbers read from text: the one rule of the driver's options, the generator specs, the --param
// values and the perf tests' environment settings.
//
// The whole text is the number: no white space before or after it, nothing after it, an optional sign. The C
// functions underneath (strtoll, strtoull, strtod) would skip leading white space and stop at the first character
// they cannot read; here either is a malformed text. A value outside the type's range is reported as such, also an
// underflow (a nonzero decimal too small for a double, which would read as 0). The Matrix Market reader
// parses its tokens in place and keeps its own loop (AsyncSparse_matrix_market.cpp).
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace AsyncSparse {
namespace Impl {

enum class NumberText {
  Ok,
  Malformed,  ///< empty, white space, a character that does not belong to the number
  OutOfRange  ///< a well-formed number the type cannot hold (overflow; for double also underflow)
};

namespace parse_number_detail {
/// Empty text, or white space where strtoXX would skip it.
inline bool starts_badly(const std::string& text) {
  return text.empty() || std::isspace(static_cast<unsigned char>(text[0]));
}
}  // namespace parse_number_detail

/// A decimal integer: an optional sign and digits, in the range of long long. `value` is set only with Ok.
inline NumberText parse_integer(const std::string& text, long long& value) {
  if (parse_number_detail::starts_badly(text)) return NumberText::Malformed;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') return NumberText::Malformed;
  if (errno == ERANGE) return NumberText::OutOfRange;
  value = v;
  return NumberText::Ok;
}

/// parse_integer's integer within [lo, hi]: true, and `value` set, only for a well-formed integer in that range (the
/// check of every caller that wants an int or a bounded count).
inline bool parse_integer_in(const std::string& text, long long lo, long long hi, long long& value) {
  long long v = 0;
  if (parse_integer(text, v) != NumberText::Ok || v < lo || v > hi) return false;
  value = v;
  return true;
}

/// A non-negative decimal integer: an optional '+' and digits, in the range of unsigned long long (a '-' is
/// Malformed: strtoull would wrap "-1" around to the largest value). `value` is set only with Ok.
inline NumberText parse_unsigned(const std::string& text, unsigned long long& value) {
  if (parse_number_detail::starts_badly(text) || text[0] == '-') return NumberText::Malformed;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') return NumberText::Malformed;
  if (errno == ERANGE) return NumberText::OutOfRange;
  value = v;
  return NumberText::Ok;
}

/// A number in strtod's forms (2.5, -1e-10, 0x1p-3, inf, nan): the caller decides whether a non-finite value is
/// allowed. OutOfRange: a decimal beyond the largest double, or a nonzero one that reads as 0 (a subnormal value,
/// which strtod also flags, is a number). `value` is set only with Ok.
inline NumberText parse_number(const std::string& text, double& value) {
  if (parse_number_detail::starts_badly(text)) return NumberText::Malformed;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return NumberText::Malformed;
  if (errno == ERANGE && (v == 0 || std::isinf(v))) return NumberText::OutOfRange;
  value = v;
  return NumberText::Ok;
}

}  // namespace Impl
}  // namespace AsyncSparse
