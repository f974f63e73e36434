// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Shared helpers for the unit tests: where the SuiteSparse matrices are, and error-message checks.
#pragma once

#include <cstdlib>
#include <functional>
#include <string>

#include <gtest/gtest.h>

namespace AsyncSparse {
namespace Test {

/// Folder with the shared SuiteSparse matrices: $ASYNCSPARSE_MATRIX_DIR, else the configured one.
inline std::string matrix_dir() {
  const char* env = std::getenv("ASYNCSPARSE_MATRIX_DIR");
  return env ? std::string(env) : std::string(ASYNCSPARSE_TEST_MATRIX_DIR);
}
inline std::string matrix_path(const std::string& name) { return matrix_dir() + "/" + name + ".mtx.gz"; }
/// A file of unit_tests/data: in $ASYNCSPARSE_TEST_DATA_DIR, else the configured source folder (binaries run elsewhere
/// set the variable).
inline std::string data_path(const std::string& name) {
  const char* env = std::getenv("ASYNCSPARSE_TEST_DATA_DIR");
  return (env ? std::string(env) : std::string(ASYNCSPARSE_TEST_DATA_DIR)) + "/" + name;
}

}  // namespace Test
}  // namespace AsyncSparse

/// EXPECT that `stmt` throws `Exc` and that what() contains `needle`.
#define ASYNCSPARSE_EXPECT_THROW_MSG(stmt, Exc, needle)                             \
  do {                                                                              \
    bool _caught = false;                                                           \
    try {                                                                           \
      stmt;                                                                         \
    } catch (const Exc& _e) {                                                       \
      _caught = true;                                                               \
      EXPECT_NE(std::string(_e.what()).find(needle), std::string::npos)             \
          << "message was: " << _e.what() << "\nexpected to contain: " << (needle); \
    } catch (const std::exception& _e) {                                            \
      ADD_FAILURE() << "threw a different exception: " << _e.what();                \
      _caught = true;                                                               \
    }                                                                               \
    if (!_caught) ADD_FAILURE() << "expected " #Exc " from: " #stmt;                \
  } while (0)
