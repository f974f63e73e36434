// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Numeric settings of the tests and benchmarks from environment variables (library asyncsparse_test_support), read
// strictly: a benchmark run under a mistyped setting (ASYNCSPARSE_TTS_MAX_SECONDS=3O) would otherwise measure another
// configuration than the one asked for without saying so. No GoogleTest dependency.
#pragma once

namespace AsyncSparse {
namespace Test {

/// The value of environment variable `name` as a decimal integer in [lo, hi], or `fallback` when it is unset.
/// Throws std::invalid_argument naming the variable and the range when it is set to anything else (empty, not a
/// whole number, leading white space or trailing characters, out of range).
long env_integer(const char* name, long fallback, long lo, long hi);

/// The value of environment variable `name` as a finite number in [lo, hi] (strtod's forms: 2.5e-3, 0x1p-3, ...), or
/// `fallback` when it is unset. Throws std::invalid_argument naming the variable and the range when it is set to
/// anything else (also a value too small to represent, which would read as about 0).
double env_number(const char* name, double fallback, double lo, double hi);

}  // namespace Test
}  // namespace AsyncSparse
