// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — exclusive scans of counts, stream compaction and a stable key sort on the device.
//
// scan_counts(exec, temp, out, count, n, bound, label) writes out(i) = count(0) + ... + count(i - 1) for
// i = 0..n (n + 1 entries; out(n) is the total) and returns the total, summed in 64 bit.
//
// On the Cuda backend the scan is CUB's single-pass scan (cub::DeviceScan, shipped with the CUDA toolkit):
// Kokkos' parallel_scan calls the functor in two passes with a launch and a host copy of the total each time, which
// measured 100-180 us per scan of 1-6 million counts on an H200 (a ParILUT step on the 2D Laplacian runs seven
// of them), several times the bytes the scan moves. Below kCubScanMinItems items CUB's dispatch costs more than
// Kokkos' two launches and Kokkos::parallel_scan runs; every other backend always runs it.
//
// `count(i)` is a View or a functor callable on the device (i of std::int64_t); `bound` is an upper bound of the
// total known to the caller (-1: none): where it fits out's value type the CUB path scans straight into `out`,
// otherwise through a 64-bit array, so that a total beyond out's type is still returned exactly (its callers check
// it and throw before reading the pointers).
//
// compact_flagged(exec, temp, dst, value, flag, n, label) writes value(i) of every i with flag(i) to dst in index
// order (CUB's DeviceSelect on Cuda, from kCubScanMinItems items).
//
// sort_pairs_stable (Cuda only: callers branch on scans_by_cub) sorts key-value pairs stably by key (CUB's radix
// sort).
//
// `temp(bytes)` hands out device memory of at least `bytes` bytes (aligned as a double, asked once per call) that
// stays valid for the work the call enqueues on `exec`: a pooled workspace or a View the caller keeps.
#pragma once

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#endif

namespace AsyncSparse::Impl {

/// count(i) as a 64-bit value for i < n and 0 for i = n (the n + 1-th item whose prefix is the total)
template <class Count>
struct ScanCountItem {
  Count count;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(const std::int64_t i) const {
    return i < n ? static_cast<std::int64_t>(count(i)) : std::int64_t(0);
  }
};

/// True where the functions here run CUB (the Cuda backend).
template <class ExecSpace>
constexpr bool scans_by_cub() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
  return false;
#endif
}

/// Which implementation scan_counts and compact_flagged run: Auto (the rule below), Cub (CUB where scans_by_cub,
/// else Kokkos) or Kokkos (Kokkos::parallel_scan everywhere); for the benchmarks that compare them.
enum class ScanPath { Auto, Cub, Kokkos };

/// The fewest items (n + 1 prefixes of scan_counts, n flags of compact_flagged) that Auto hands to CUB on Cuda;
/// shorter ones run Kokkos::parallel_scan. Measured on an H200 (AsyncSparse_Perf_device_scan, two runs, us per call
/// until the device is done, CUB / Kokkos): scans of 1,000-16,000 items 19-23 / 15-17 (CUB's two dispatches cost the
/// host 10-14 us against Kokkos' 8-9), 64,000 18-22 / 19-20, 256,000 18-21 / 36, 4 million 31-33 / 194; compactions
/// alike (1,000-16,000: 15-19 / 16-17, 64,000: 16 / 20)
/// (perf_tests/results/MEASUREMENTS.md#device-scans-small).
constexpr std::int64_t kCubScanMinItems = 32768;

template <class ExecSpace>
constexpr bool scan_by_cub(ScanPath path, std::int64_t items) {
  return scans_by_cub<ExecSpace>() && (path == ScanPath::Cub || (path == ScanPath::Auto && items >= kCubScanMinItems));
}

template <class ExecSpace, class View>
typename View::non_const_value_type scan_read_last(const ExecSpace& exec, const View& v, std::int64_t i) {
  typename View::non_const_value_type x{};
  Kokkos::View<typename View::non_const_value_type, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hx(&x);
  Kokkos::deep_copy(exec, hx, Kokkos::subview(v, i));
  exec.fence();
  return x;
}

#if defined(KOKKOS_ENABLE_CUDA)
inline void scan_check(cudaError_t e, const std::string& label) {
  if (e != cudaSuccess) throw Error(label + ": CUB failed: " + cudaGetErrorString(e));
}

/// `front` bytes rounded up to 256: where CUB's scratch starts after them
constexpr std::size_t scan_front(std::size_t front) { return ((front + 255) / 256) * 256; }

/// `front` bytes followed by CUB's scratch `bytes` in one request of temp; returns the start.
template <class Temp>
char* scan_temp(Temp& temp, std::size_t front, std::size_t bytes) {
  return static_cast<char*>(temp(scan_front(front) + bytes));
}

/// The CUB path of scan_counts: `out` (or, where out is null, `front` bytes of temp) receives n + 1 prefixes of type T;
/// returns where they are.
template <class T, class Count, class Temp>
T* scan_counts_cub(const Kokkos::Cuda& exec, Temp& temp, T* out, const Count& count, std::int64_t n,
                   const std::string& label) {
  const auto in =
      thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), ScanCountItem<Count>{count, n});
  std::size_t bytes = 0;
  scan_check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n + 1, exec.cuda_stream()), label);
  const std::size_t front = out ? 0 : (static_cast<std::size_t>(n) + 1) * sizeof(T);
  char* base = scan_temp(temp, front, bytes);
  if (!out) out = reinterpret_cast<T*>(base);
  scan_check(cub::DeviceScan::ExclusiveSum(base + scan_front(front), bytes, in, out, n + 1, exec.cuda_stream()), label);
  return out;
}

/// out(i) = w(i), i = 0..n (the 64-bit prefixes narrowed; wrong only where the caller rejects the total)
template <class Out>
void scan_narrow(const Kokkos::Cuda& exec, const Out& out, const std::int64_t* wide, std::int64_t n,
                 const std::string& label) {
  using T = typename Out::non_const_value_type;
  Kokkos::View<const std::int64_t*, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> w(
      wide, static_cast<std::size_t>(n) + 1);
  Kokkos::parallel_for(
      label, Impl::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<std::int64_t>>(exec, 0, n + 1),
      KOKKOS_LAMBDA(const std::int64_t i) { out(i) = static_cast<T>(w(i)); });
}

/// keys_out, vals_out = the n pairs (keys_in(p), vals_in(p)) sorted by key, pairs of equal keys in input order; the
/// keys are non-negative and below 2^bits (CUB's radix sort compares those bits only).
template <class K, class V, class Temp>
void sort_pairs_stable(const Kokkos::Cuda& exec, Temp&& temp, const K* keys_in, K* keys_out, const V* vals_in,
                       V* vals_out, std::int64_t n, int bits, const std::string& label) {
  std::size_t bytes = 0;
  scan_check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, vals_in, vals_out, n, 0, bits,
                                             exec.cuda_stream()),
             label);
  scan_check(cub::DeviceRadixSort::SortPairs(temp(bytes), bytes, keys_in, keys_out, vals_in, vals_out, n, 0, bits,
                                             exec.cuda_stream()),
             label);
}

/// value(i) of every i with flag(i) in index order (the CUB path of compact_flagged)
template <class T, class Value, class Flag, class Temp>
void compact_flagged_cub(const Kokkos::Cuda& exec, Temp& temp, T* dst, const Value& value, const Flag& flag,
                         std::int64_t n, const std::string& label) {
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), value);
  const auto flags = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), flag);
  std::size_t bytes = 0;
  std::int64_t* selected = nullptr;
  scan_check(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, dst, selected, n, exec.cuda_stream()), label);
  char* base = scan_temp(temp, sizeof(std::int64_t), bytes);
  selected = reinterpret_cast<std::int64_t*>(base);
  scan_check(cub::DeviceSelect::Flagged(base + scan_front(sizeof(std::int64_t)), bytes, in, flags, dst, selected, n,
                                        exec.cuda_stream()),
             label);
}
#endif

// The Kokkos paths (apart from the callers: nvcc refuses extended lambdas in a function template whose arguments
// include a host lambda such as `temp`)
template <class ExecSpace, class Out, class Count>
std::int64_t scan_counts_kokkos(const ExecSpace& exec, const Out& out, const Count& count, std::int64_t n,
                                const std::string& label, bool read_total) {
  using T = typename Out::non_const_value_type;
  const auto f = KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& upd, const bool final) {
    if (final) out(i) = static_cast<T>(upd);
    if (i < n) upd += static_cast<std::int64_t>(count(i));
  };
  if (!read_total) {
    Kokkos::parallel_scan(label, Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n + 1), f);
    return -1;
  }
  std::int64_t total = 0;
  Kokkos::parallel_scan(label, Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n + 1), f, total);
  return total;
}

template <class ExecSpace, class Dst, class Value, class Flag>
void compact_flagged_kokkos(const ExecSpace& exec, const Dst& dst, const Value& value, const Flag& flag, std::int64_t n,
                            const std::string& label) {
  Kokkos::parallel_scan(
      label, Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& pos, const bool final) {
        if (flag(i)) {
          if (final) dst(pos) = value(i);
          ++pos;
        }
      });
}

/// A rank-1 View whose entries lie contiguously from data() (what the CUB paths hand to CUB)
template <class View>
constexpr bool scan_contiguous() {
  using L = typename View::array_layout;
  return View::rank == 1 && (std::is_same<L, Kokkos::LayoutLeft>::value || std::is_same<L, Kokkos::LayoutRight>::value);
}

/// out(i) = count(0) + ... + count(i - 1), i = 0..n (out: at least n + 1 entries); returns the total, or -1 without
/// waiting for the device where `read_total` is false (see the top of the file).
template <class ExecSpace, class Temp, class Out, class Count>
std::int64_t scan_counts(const ExecSpace& exec, Temp&& temp, const Out& out, const Count& count, std::int64_t n,
                         std::int64_t bound, const std::string& label, bool read_total = true,
                         ScanPath path = ScanPath::Auto) {
  using T = typename Out::non_const_value_type;
  static_assert(std::is_integral<T>::value, "scan_counts: out holds integers");
  static_assert(scan_contiguous<Out>(), "scan_counts: out is a contiguous rank-1 View");
  if (static_cast<std::int64_t>(out.extent(0)) < n + 1)
    throw Error(label + ": " + std::to_string(out.extent(0)) + " entries for " + std::to_string(n + 1) + " prefixes");
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (scans_by_cub<ExecSpace>()) {
    if (!scan_by_cub<ExecSpace>(path, n + 1)) return scan_counts_kokkos(exec, out, count, n, label, read_total);
    if (sizeof(T) >= sizeof(std::int64_t) ||
        (bound >= 0 && bound <= static_cast<std::int64_t>(std::numeric_limits<T>::max()))) {
      scan_counts_cub(exec, temp, out.data(), count, n, label);
      return read_total ? static_cast<std::int64_t>(scan_read_last(exec, out, n)) : -1;
    }
    // the prefixes in 64 bit in temp, then narrowed into out (the total returned exactly)
    const std::int64_t* wide = scan_counts_cub(exec, temp, static_cast<std::int64_t*>(nullptr), count, n, label);
    scan_narrow(exec, out, wide, n, label);
    if (!read_total) return -1;
    std::int64_t total = 0;
    scan_check(cudaMemcpyAsync(&total, wide + n, sizeof(total), cudaMemcpyDeviceToHost, exec.cuda_stream()), label);
    exec.fence();
    return total;
  } else
#endif
  {
    (void)temp;
    (void)bound;
    (void)path;
    return scan_counts_kokkos(exec, out, count, n, label, read_total);
  }
}

/// dst(0), dst(1), ... = value(i) of every i in [0, n) with flag(i), in index order (a stable stream compaction;
/// the caller knows how many there are and sized dst). `value` and `flag` are functors callable on the device (i of
/// std::int64_t) with a declared result type (value: dst's value type, flag: bool). CUB's DeviceSelect on Cuda from
/// kCubScanMinItems flags, Kokkos::parallel_scan below and on the other backends.
template <class ExecSpace, class Temp, class Dst, class Value, class Flag>
void compact_flagged(const ExecSpace& exec, Temp&& temp, const Dst& dst, const Value& value, const Flag& flag,
                     std::int64_t n, const std::string& label, ScanPath path = ScanPath::Auto) {
  static_assert(scan_contiguous<Dst>(), "compact_flagged: dst is a contiguous rank-1 View");
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (scans_by_cub<ExecSpace>()) {
    if (scan_by_cub<ExecSpace>(path, n))
      compact_flagged_cub(exec, temp, dst.data(), value, flag, n, label);
    else
      compact_flagged_kokkos(exec, dst, value, flag, n, label);
  } else
#endif
  {
    (void)temp;
    (void)path;
    compact_flagged_kokkos(exec, dst, value, flag, n, label);
  }
}

}  // namespace AsyncSparse::Impl
