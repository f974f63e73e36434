// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Backend category header for the HIP unit tests (see unit_tests/CMakeLists.txt).
#pragma once
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>

#define TEST_CATEGORY hip
#define TEST_EXECSPACE AsyncSparse::Compat::HIP
#define TEST_MEMSPACE AsyncSparse::Compat::HIPSpace
#define TEST_DEVICE Kokkos::Device<TEST_EXECSPACE, TEST_MEMSPACE>
