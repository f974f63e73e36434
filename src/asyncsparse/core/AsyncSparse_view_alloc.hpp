// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — allocation helpers for work arrays that are written in full before they are read.
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
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

/// Entries of one allocation that holds parts of sizes[0], sizes[1], ... entries, each starting at a multiple of
/// 64 entries (the layout of parts_of and uninitialized_parts).
template <std::size_t N>
std::size_t parts_extent(const std::array<std::size_t, N>& sizes) {
  constexpr std::size_t align = 64;
  std::size_t end = 0;
  for (std::size_t k = 0; k < N; ++k) end = (end + sizes[k] + align - 1) / align * align;
  return end;
}

/// The parts of sizes[0], sizes[1], ... entries of `all` (at least parts_extent(sizes) entries), as subviews (each
/// keeps the whole allocation alive).
template <class View, std::size_t N>
std::array<View, N> parts_of(const View& all, const std::array<std::size_t, N>& sizes) {
  std::array<View, N> parts;
  std::size_t begin = 0;
  for (std::size_t k = 0; k < N; ++k) {
    parts[k] = Kokkos::subview(all, std::make_pair(begin, begin + sizes[k]));
    begin += parts_extent<1>({sizes[k]});
  }
  return parts;
}

/// Arrays of sizes[0], sizes[1], ... entries, uninitialized, from one allocation (subviews of one View; each part
/// starts at a multiple of 64 entries). A set-up of a small matrix spends about 40 % of its time in its device
/// allocations: on an H200 (CUDA 13) about 50 us per cudaMalloc whatever the size up to 12 MB, and the set-up of the
/// default ParIc preconditioner made 28 of them (perf_tests/results/nvidia-h200/setup_latency_2026-11-29/;
/// MEASUREMENTS.md#setup-latency), so arrays that live and die together share one.
template <class View, std::size_t N>
std::array<View, N> uninitialized_parts(const char* label, const std::array<std::size_t, N>& sizes) {
  return parts_of<View, N>(View(uninitialized(label), parts_extent<N>(sizes)), sizes);
}

/// Two arrays of n entries each, uninitialized, from one allocation (uninitialized_parts).
template <class View>
std::pair<View, View> uninitialized_pair(const char* label, std::size_t n) {
  const auto p = uninitialized_parts<View, 2>(label, {n, n});
  return {p[0], p[1]};
}

}  // namespace Impl
}  // namespace AsyncSparse
