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
#include <sstream>
#include <stdexcept>
#include <string>

namespace AsyncSparse {

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
  std::int64_t iteration() const noexcept { return iteration_; }

 private:
  std::int64_t iteration_;
};

}  // namespace AsyncSparse
