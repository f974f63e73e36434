// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — allocation helpers for work arrays that are written in full before they are read, and the
// process-wide cache of arrays (device and host memory) that serves them.
#pragma once

#include <asyncsparse/core/AsyncSparse_buffer_pool.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace AsyncSparse {

/// Free arrays the cache keeps, in bytes per View type (element type, layout, memory space: a CUDA build uses about
/// eight); a request that finds more frees the earlier ones. 64 MiB made the set-up of the default ParIc on the 2D
/// Laplacian 1024^2 slower than without the cache (its arrays did not fit: freed and allocated again every set-up),
/// 256 MiB faster (MEASUREMENTS.md#device-cache).
inline constexpr std::size_t kDeviceCacheMaxFreeBytes = std::size_t(256) << 20;
/// The process-wide cache of arrays (Impl::cached_uninitialized): arrays of at most this many bytes are
/// kept for reuse when their last View goes away: the free arrays' budget per View type, since a larger array could
/// not be kept anyway. At 64 MiB the largest arrays of the default ParIc set-up on the 27-point
/// 64^3 grid (116 and 122 MB) and the 2D Laplacian 1024^2 were allocated and freed every set-up (about 0.1 ms each
/// on an H200); at 256 MiB the set-up took 3.38-3.47 instead of 3.58 ms there and 2.23-2.34 instead of 2.38-2.46 ms
/// on the 2D Laplacian (MEASUREMENTS.md#device-cache).
inline constexpr std::size_t kDeviceCacheMaxArrayBytes = kDeviceCacheMaxFreeBytes;

namespace Impl {

/// The caches in use (one per View type), so that all can be emptied at once: by release_cached_device_memory, when
/// a device allocation fails, and at Kokkos::finalize (a finalize hook, pushed again after each initialisation).
class DeviceCacheRegistry {
 public:
  static DeviceCacheRegistry& instance() {
    static auto* r = new DeviceCacheRegistry;  // never destroyed: its caches are emptied at Kokkos::finalize
    return *r;
  }
  void enlist(void (*release)()) {
    const std::lock_guard<std::mutex> lock(m_);
    if (std::find(releases_.begin(), releases_.end(), release) == releases_.end()) releases_.push_back(release);
    if (!hooked_) {
      Kokkos::push_finalize_hook([] { instance().release_all(true); });
      hooked_ = true;
    }
  }
  void release_all(bool finalizing = false) {
    // after Kokkos::finalize the caches are empty; an array a user still held then may not be freed any more
    if (!finalizing && !Kokkos::is_initialized()) return;
    std::vector<void (*)()> releases;
    {
      const std::lock_guard<std::mutex> lock(m_);
      releases = releases_;
      if (finalizing) hooked_ = false;
    }
    for (auto* release : releases) release();
  }

 private:
  std::mutex m_;
  std::vector<void (*)()> releases_;
  bool hooked_ = false;
};

/// One cache of arrays per View type (device or host memory): a BufferPool (core/AsyncSparse_buffer_pool.hpp) of exact
/// sizes, a request of n served from at most n + n / 8 + 1024 entries, behind a mutex. A buffer handed out again is
/// preceded by a Kokkos::fence(): its last user's kernels may still run on another execution space instance (which
/// cudaFree used to wait for; with Kokkos 3.4 a fresh allocation waits for the device as well, in the synchronous copy
/// of its header).
template <class View>
class DeviceCache {
 public:
  static View get(const std::string& label, std::size_t n) {
    DeviceCacheRegistry::instance().enlist(&release);
    State& s = state();
    bool reused = false;
    View v;
    for (int attempt = 0;; ++attempt) {
      try {
        const std::lock_guard<std::mutex> lock(s.m);
        v = s.pool.get(n, label, &reused);
        if (s.pool.free_bytes() > kDeviceCacheMaxFreeBytes) s.pool.release_free(kDeviceCacheMaxFreeBytes);
        break;
      } catch (const std::exception& e) {
        // out of memory (Kokkos 3: std::bad_alloc, 4: std::runtime_error): free the cached arrays and try once more
        if (attempt > 0 || !is_out_of_memory(e)) throw;
        DeviceCacheRegistry::instance().release_all();
      }
    }
    if (reused) Kokkos::fence();
    return v;
  }
  /// Lets go of every array: the free ones are freed now, those in use when their last View goes away.
  static void release() {
    State& s = state();
    const std::lock_guard<std::mutex> lock(s.m);
    s.pool.clear();
  }
  static WorkspaceStats stats() {
    State& s = state();
    const std::lock_guard<std::mutex> lock(s.m);
    return s.pool.stats();
  }

 private:
  struct State {
    std::mutex m;
    BufferPool<typename View::non_const_value_type, typename View::device_type, View> pool{0, 8};
  };
  static State& state() {
    static auto* s = new State;  // never destroyed: emptied at Kokkos::finalize
    return *s;
  }
};

/// The cache's switch: -1 until first read (then from the environment variable ASYNCSPARSE_DEVICE_CACHE, "0" is
/// off), else 1 on, 0 off.
inline std::atomic<int>& device_cache_switch() {
  static std::atomic<int> on{-1};
  return on;
}

/// The View type the cache keeps for V (V's memory traits dropped; V is constructible from it).
template <class V>
using cached_view_t = Kokkos::View<typename V::non_const_data_type, typename V::array_layout, typename V::device_type>;

/// Allocation properties of a View without its initialization kernel (for Views written in full before they are
/// read). The label goes in as a std::string: Kokkos would take a bare const char* for memory to wrap.
inline auto uninitialized(const char* label) {
  return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
}

}  // namespace Impl

/// Whether arrays (device and host) go through the process-wide cache (Impl::cached_uninitialized): on unless the
/// environment variable ASYNCSPARSE_DEVICE_CACHE is "0" or set_device_cache_enabled(false) was called.
inline bool device_cache_enabled() {
  auto& on = Impl::device_cache_switch();
  int v = on.load();
  if (v < 0) {
    const char* e = std::getenv("ASYNCSPARSE_DEVICE_CACHE");
    v = (e != nullptr && std::strcmp(e, "0") == 0) ? 0 : 1;
    on.store(v);
  }
  return v == 1;
}

inline void release_cached_device_memory();

/// Turns the cache on or off for the arrays allocated from now on (off also lets go of what it holds: the free arrays
/// are freed, those in use when their last View goes away).
inline void set_device_cache_enabled(bool on) {
  Impl::device_cache_switch().store(on ? 1 : 0);
  if (!on) release_cached_device_memory();
}

namespace Impl {

/// The cache off for a scope (tests that count allocations or references to arrays), then as it was.
class ScopedDeviceCacheOff {
 public:
  ScopedDeviceCacheOff() : was_(device_cache_enabled()) { set_device_cache_enabled(false); }
  ~ScopedDeviceCacheOff() { set_device_cache_enabled(was_); }
  ScopedDeviceCacheOff(const ScopedDeviceCacheOff&) = delete;
  ScopedDeviceCacheOff& operator=(const ScopedDeviceCacheOff&) = delete;

 private:
  bool was_;
};

/// An uninitialized rank-1 array of n entries under `label`: from the process-wide cache (an array of the same View
/// type, at least n and at most n + n / 8 + 1024 entries, whose last View went away; at most
/// kDeviceCacheMaxArrayBytes), else allocated. A set-up of a small matrix spends about 40 % of its time in device
/// allocations (about 50 us per cudaMalloc on an H200, and its wait; MEASUREMENTS.md#setup-latency), and a set-up on
/// the host most of its time in the first touch of fresh pages (a large host array comes from mmap: ParIC's set-up of
/// the 5-point 256^2 grid, OpenMP, 31-32 ms with fresh arrays, 4.7-5.6 ms with cached ones;
/// MEASUREMENTS.md#host-cache): a set-up or solve repeated on a pattern takes these arrays from the cache
/// (MEASUREMENTS.md#device-cache). Kokkos Tools see an allocation only when one is made; a reused array keeps the label
/// it was allocated under.
template <class View>
View cached_uninitialized(const char* label, std::size_t n) {
  static_assert(View::rank == 1, "cached_uninitialized: rank-1 Views only");
  static_assert(View::traits::is_managed, "cached_uninitialized: managed Views only (they hold the array)");
  if (device_cache_enabled() && n * sizeof(typename View::value_type) <= kDeviceCacheMaxArrayBytes)
    return DeviceCache<cached_view_t<View>>::get(label, n);
  return View(uninitialized(label), n);
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

/// Arrays of sizes[0], sizes[1], ... entries, uninitialized, from one allocation (subviews of one View from
/// cached_uninitialized; each part starts at a multiple of 64 entries). A set-up of a small matrix spends about 40 % of
/// its time in its device allocations: on an H200 (CUDA 13) about 50 us per cudaMalloc whatever the size up to 12 MB,
/// and the set-up of the default ParIc preconditioner made 28 of them
/// (perf_tests/results/nvidia-h200/setup_latency_2026-11-29/; MEASUREMENTS.md#setup-latency), so arrays that live and
/// die together share one.
template <class View, std::size_t N>
std::array<View, N> uninitialized_parts(const char* label, const std::array<std::size_t, N>& sizes) {
  return parts_of<View, N>(cached_uninitialized<View>(label, parts_extent<N>(sizes)), sizes);
}

/// Two arrays of n entries each, uninitialized, from one allocation (uninitialized_parts).
template <class View>
std::pair<View, View> uninitialized_pair(const char* label, std::size_t n) {
  const auto p = uninitialized_parts<View, 2>(label, {n, n});
  return {p[0], p[1]};
}

}  // namespace Impl

/// Frees the arrays (device and host memory) that AsyncSparse keeps for reuse (the arrays still in use are freed when
/// their last View goes away). The cache holds at most kDeviceCacheMaxFreeBytes of free arrays per View type, is
/// emptied when one of its allocations fails (before it is tried again) and at Kokkos::finalize; call this to give the
/// memory back earlier (e.g. before large allocations of your own).
inline void release_cached_device_memory() { Impl::DeviceCacheRegistry::instance().release_all(); }

}  // namespace AsyncSparse
