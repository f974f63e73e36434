// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Backend category header for the HIP unit tests (see unit_tests/CMakeLists.txt).
#pragma once
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#define TEST_CATEGORY hip
#define TEST_EXECSPACE Kokkos::Experimental::HIP
#define TEST_MEMSPACE Kokkos::Experimental::HIPSpace
#define TEST_DEVICE Kokkos::Device<TEST_EXECSPACE, TEST_MEMSPACE>
