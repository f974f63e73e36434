// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GoogleTest helpers of the unit tests and the Ifpack2 tests (library asyncsparse_test_support): the shared test
// matrices of <support/TestMatrices.hpp> and error-message checks.
#pragma once

#include <cstdlib>
#include <exception>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include <support/TestMatrices.hpp>

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
