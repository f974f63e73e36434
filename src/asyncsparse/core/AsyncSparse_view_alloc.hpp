// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — allocation helpers for work arrays that are written in full before they are read.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <utility>

namespace AsyncSparse {
namespace Impl {

/// Allocation properties of a View without its initialization kernel (for Views written in full before they are
/// read). The label goes in as a std::string: Kokkos would take a bare const char* for memory to wrap.
inline auto uninitialized(const char* label) {
  return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
}

/// Two arrays of n entries each, uninitialized, from one allocation (the two halves of one View): a set-up of a
/// small matrix spends about 40 % of its time in its device allocations (20-180 us each on an H100,
/// perf_tests/results/nvidia-h100/par_ic_setup_timeline/), so arrays that live and die together share one.
template <class View>
std::pair<View, View> uninitialized_pair(const char* label, std::size_t n) {
  const View both(uninitialized(label), 2 * n);
  return {Kokkos::subview(both, std::make_pair(std::size_t(0), n)), Kokkos::subview(both, std::make_pair(n, 2 * n))};
}

}  // namespace Impl
}  // namespace AsyncSparse
