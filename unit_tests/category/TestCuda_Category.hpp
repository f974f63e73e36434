// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Backend category header for the Cuda unit tests (see unit_tests/CMakeLists.txt).
#pragma once
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#define TEST_CATEGORY cuda
#define TEST_EXECSPACE Kokkos::Cuda
#define TEST_MEMSPACE Kokkos::CudaSpace
#define TEST_DEVICE Kokkos::Device<TEST_EXECSPACE, TEST_MEMSPACE>
