// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — exception types.
//
// Every error the library reports derives from AsyncSparse::Error (itself a std::runtime_error), so a
// caller can catch one type. The subclasses carry the context needed to act on the error: the file
// and line of a malformed Matrix Market file, the row at which a factorization broke down, the
// iteration at which a relaxation started to diverge.
#pragma once

#include <cstdint>
#include <cstdio>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

namespace AsyncSparse {

/// A number for a message: six significant digits, with an exponent where needed ("1e-10", "0.25", "1e+300").
/// (std::to_string prints six decimals: 1e-10 became "0.000000" and 1e300 a 301-digit number.)
inline std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// Base class of every exception thrown by AsyncSparse.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// A caller passed something the function cannot work with (non-square matrix, missing diagonal,
/// NaN in the values, a parameter out of range, ...). The message names the function and the problem.
class InvalidInput : public Error {
 public:
  explicit InvalidInput(const std::string& what) : Error(what) {}
};

/// A file could not be read or parsed. `file()` and `line()` (1-based; 0 when the problem is not tied
/// to one line) locate the problem; what() contains both.
class ParseError : public Error {
 public:
  ParseError(const std::string& file, std::int64_t line, const std::string& problem)
      : Error(format(file, line, problem)), file_(file), line_(line), problem_(problem) {}
  const std::string& file() const noexcept { return file_; }
  std::int64_t line() const noexcept { return line_; }
  const std::string& problem() const noexcept { return problem_; }

 private:
  static std::string format(const std::string& file, std::int64_t line, const std::string& problem) {
    std::ostringstream os;
    os << file;
    if (line > 0) os << ":" << line;
    os << ": " << problem;
    return os.str();
  }
  std::string file_;
  std::int64_t line_;
  std::string problem_;
};

/// A factorization met a zero / non-positive / non-finite pivot. `row()` is the 0-based row.
class BreakdownError : public Error {
 public:
  BreakdownError(const std::string& where, std::int64_t row, const std::string& problem)
      : Error(where + ": breakdown at row " + std::to_string(row) + ": " + problem), row_(row) {}
  /// `e` with `note` appended to its message (e.g. the remedies tried after it).
  BreakdownError(const BreakdownError& e, const std::string& note) : Error(e.what() + note), row_(e.row_) {}
  std::int64_t row() const noexcept { return row_; }

 private:
  std::int64_t row_;
};

/// An iterative method diverged (residual growth or non-finite values).
class DivergenceError : public Error {
 public:
  DivergenceError(const std::string& where, std::int64_t iteration, const std::string& problem)
      : Error(where + ": diverged at iteration " + std::to_string(iteration) + ": " + problem),
        iteration_(iteration) {}
  /// `e` with `note` appended to its message (e.g. the remedies tried after it).
  DivergenceError(const DivergenceError& e, const std::string& note)
      : Error(e.what() + note), iteration_(e.iteration_) {}
  std::int64_t iteration() const noexcept { return iteration_; }

 private:
  std::int64_t iteration_;
};

/// Memory for a matrix, a factor or a work array could not be allocated. The message names the allocation and
/// its size.
class OutOfMemory : public Error {
 public:
  explicit OutOfMemory(const std::string& what) : Error(what) {}
};

/// True when `e` reports a failed memory allocation: OutOfMemory, std::bad_alloc (the host), or the
/// std::runtime_error by which Kokkos reports a View it could not allocate (with the View's label and size:
/// "Kokkos failed to allocate memory for label ..." in Kokkos 3, "... memory space failed to allocate ..." in 4).
inline bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const OutOfMemory*>(&e) || dynamic_cast<const std::bad_alloc*>(&e)) return true;
  const std::string w = e.what();
  return w.find("Kokkos failed to allocate memory") != std::string::npos ||
         w.find("memory space failed to allocate") != std::string::npos;
}

}  // namespace AsyncSparse
