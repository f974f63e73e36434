// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — working arrays kept between the steps of an iterative method.
//
// A method that rebuilds its patterns at every step (ParILUT / ParICT: candidates, removal, transposes) needs some
// seventy temporary arrays per step. Allocating and freeing each one costs more than the step's kernels on a GPU
// (Kokkos 3.x on CUDA: cudaMalloc + cudaFree, which waits for the device, 19-20 us up to 160 KB and 110-130 us from
// 400 KB on an H100, against 5-6 us per kernel launch; perf_tests/results/nvidia-h100/par_ilut_step_anatomy).
// BufferPool keeps the arrays instead: get(n) returns the first n entries of a pooled buffer (a subview, so that it
// is assignable to a plain rank-1 View member), and a buffer is free again as soon as the pool holds its only
// reference (View::use_count() == 1), i.e. when every View handed out from it has been destroyed or reassigned.
// After the first steps of a method a step allocates nothing.
//
// Rules:
//  - A free buffer is reused by kernels launched after the release. The release happens on the host when the last
//    View of it goes away, not when the kernels that used it finish: the reuse is safe for work on the same
//    execution space instance (the same CUDA stream: in order) and for host backends. Before work on another
//    instance the caller fences the first one (the ParILUT driver ends every step with reads of the device that
//    wait for it).
//  - Contents are not initialised (as Kokkos::view_alloc(Kokkos::WithoutInitializing)): a reused buffer holds
//    whatever its last user wrote.
//  - Best fit: the smallest free buffer that holds n entries and at most 2 n + 1024 (a short per-row array does
//    not take a long per-entry buffer that the next request needs). When none does, the largest free buffer that
//    is too small is dropped and a new one of n + n / 8 entries is allocated, so that slowly growing requests (a
//    pattern gaining a few entries per step) do not allocate again every step.
//  - Host-side bookkeeping only; not thread safe (one pool per handle, used by one host thread at a time).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace AsyncSparse {

/// Counters of a BufferPool (or of several: operator+=).
struct WorkspaceStats {
  std::int64_t allocations = 0;  ///< buffers allocated on the device since construction / reset_counters()
  std::int64_t reuses = 0;       ///< requests served from a pooled buffer
  std::size_t bytes = 0;         ///< bytes held by the pool now (free and in use)
  /// most bytes in use at once, seen at the requests since construction / reset_counters() (for several pools:
  /// the sum of their peaks, an upper bound)
  std::size_t peak_bytes_in_use = 0;
  WorkspaceStats& operator+=(const WorkspaceStats& o) {
    allocations += o.allocations;
    reuses += o.reuses;
    bytes += o.bytes;
    peak_bytes_in_use += o.peak_bytes_in_use;
    return *this;
  }
};

template <class T, class Device>
class BufferPool {
 public:
  using view_type = Kokkos::View<T*, Device>;

  /// The first n entries of a free pooled buffer (uninitialised); allocates when no free buffer is large enough,
  /// under `label` (the request's name: Kokkos Tools see it).
  view_type get(std::size_t n, const std::string& label = "AsyncSparse::workspace") {
    std::size_t best = npos, small = npos, in_use = 0;
    for (std::size_t b = 0; b < bufs_.size(); ++b) {
      const std::size_t cap = bufs_[b].extent(0);
      if (bufs_[b].use_count() != 1) {
        in_use += cap;
        continue;
      }
      if (cap >= n && cap <= 2 * n + small_request) {
        if (best == npos || cap < bufs_[best].extent(0)) best = b;
      } else if (cap < n && (small == npos || cap > bufs_[small].extent(0))) {
        small = b;
      }
    }
    if (best == npos) {
      const std::size_t cap = n + n / 8;
      view_type fresh(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), cap);
      if (small != npos) {
        bufs_[small] = fresh;
      } else {
        bufs_.push_back(fresh);
      }
      ++stats_.allocations;
      best = small != npos ? small : bufs_.size() - 1;
    } else {
      ++stats_.reuses;
    }
    in_use += bufs_[best].extent(0);
    if (in_use * sizeof(T) > stats_.peak_bytes_in_use) stats_.peak_bytes_in_use = in_use * sizeof(T);
    view_type v = Kokkos::subview(bufs_[best], std::make_pair(std::size_t(0), n));
    if (poison_) Kokkos::deep_copy(v, poison_value());
    return v;
  }

  /// Checking aid (tests): fill every buffer handed out with NaN (floating point) or the largest value (integers),
  /// so that a read of an entry no one wrote shows up. Off by default; costs a fill per request.
  void set_poison(bool on) { poison_ = on; }

  /// Frees the buffers no View uses any more (those in use are freed when their last View goes away).
  void release_free() {
    std::vector<view_type> keep;
    for (auto& b : bufs_)
      if (b.use_count() != 1) keep.push_back(b);
    bufs_ = std::move(keep);
  }

  WorkspaceStats stats() const {
    WorkspaceStats s = stats_;
    s.bytes = 0;
    for (const auto& b : bufs_) s.bytes += b.extent(0) * sizeof(T);
    return s;
  }
  void reset_counters() { stats_ = WorkspaceStats{}; }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  /// a request is served only from a buffer of at most 2 n + small_request entries, so that short arrays (per
  /// row) do not take the long ones (per entry) that the next request needs, and the pool does not hold many
  /// more bytes than the arrays in use at once
  static constexpr std::size_t small_request = 1024;
  static T poison_value() {
    if constexpr (std::is_floating_point<T>::value)
      return std::numeric_limits<T>::quiet_NaN();
    else
      return std::numeric_limits<T>::max();
  }
  std::vector<view_type> bufs_;
  WorkspaceStats stats_;
  bool poison_ = false;
};

/// One BufferPool per element type a method uses: get<View>(n) picks the pool of View's value type. The types are
/// listed once each (duplicates, e.g. Scalar = double or offset_t = ordinal_t, are served by the first match).
template <class Device, class... Ts>
class Workspace {
 public:
  template <class View>
  View get(std::size_t n, const std::string& label = "AsyncSparse::workspace") {
    using T = typename View::non_const_value_type;
    static_assert(View::rank == 1, "Workspace::get: rank-1 Views only");
    return pool<T, 0>().get(n, label);
  }
  void release_free() {
    std::apply([](auto&... p) { (p.release_free(), ...); }, pools_);
  }
  WorkspaceStats stats() const {
    WorkspaceStats s;
    std::apply([&](const auto&... p) { ((s += p.stats()), ...); }, pools_);
    return s;
  }
  void reset_counters() {
    std::apply([](auto&... p) { (p.reset_counters(), ...); }, pools_);
  }
  void set_poison(bool on) {
    std::apply([on](auto&... p) { (p.set_poison(on), ...); }, pools_);
  }

 private:
  template <class T, std::size_t I>
  auto& pool() {
    static_assert(I < sizeof...(Ts), "Workspace::get: no pool for this value type");
    if constexpr (std::is_same<typename std::tuple_element<I, std::tuple<Ts...>>::type, T>::value)
      return std::get<I>(pools_);
    else
      return pool<T, I + 1>();
  }
  std::tuple<BufferPool<Ts, Device>...> pools_;
};

}  // namespace AsyncSparse
