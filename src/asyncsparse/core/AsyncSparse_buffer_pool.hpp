// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — a pool of rank-1 buffers handed out as subviews and free again when no View of them is left.
//
// Allocating and freeing a device array costs more than a small kernel on a GPU (Kokkos on CUDA: cudaMalloc, a
// synchronous copy of the allocation's header, cudaFree, which waits for the device; 19-130 us on an H100 and 48-69
// us per cudaMalloc on an H200 against 5-6 us per kernel launch; perf_tests/results/nvidia-h100/par_ilut_step_anatomy,
// nvidia-h200/setup_latency_2026-11-29). BufferPool keeps the buffers instead: get(n) returns the first n entries of
// a pooled buffer (a subview, so that it is assignable to a plain rank-1 View member), and a buffer is free again as
// soon as the pool holds its only reference (View::use_count() == 1), i.e. when every View handed out from it has
// been destroyed or reassigned. Users: the working arrays of ParILUT / ParICT (exec/AsyncSparse_workspace.hpp, one
// pool per handle) and the process-wide cache of device arrays (AsyncSparse_view_alloc.hpp).
//
// Rules:
//  - A free buffer is reused by kernels launched after the release. The release happens on the host when the last
//    View of it goes away, not when the kernels that used it finish: the reuse is safe for work on the same
//    execution space instance (the same CUDA stream: in order) and for host backends. Before work on another
//    instance the caller fences the first one (the ParILUT driver ends every step with reads of the device that
//    wait for it; the process-wide cache fences whenever it hands out a reused buffer).
//  - Contents are not initialised (as Kokkos::view_alloc(Kokkos::WithoutInitializing)): a reused buffer holds
//    whatever its last user wrote.
//  - Best fit: the smallest free buffer that holds n entries and at most n + n / fit_divisor + 1024 (fit_divisor 1
//    by default: 2 n + 1024; a short per-row array does not take a long per-entry buffer that the next request
//    needs). When none does, the largest free buffer that is too small is dropped and a new one of
//    n + n / slack_divisor entries is allocated (slack_divisor 8 by default, 0: n entries), so that slowly growing
//    requests (a pattern gaining a few entries per step) do not allocate again every step.
//  - Host-side bookkeeping only; not thread safe (the caller serialises the requests).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
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

/// ViewType: the rank-1 View type handed out (a View of T* on Device; another layout where the caller stores one).
template <class T, class Device, class ViewType = Kokkos::View<T*, Device>>
class BufferPool {
 public:
  using view_type = ViewType;

  /// slack_divisor: a new buffer holds n + n / slack_divisor entries (0: n); fit_divisor: a request of n takes a
  /// free buffer of at most n + n / fit_divisor + 1024 entries.
  explicit BufferPool(std::size_t slack_divisor = 8, std::size_t fit_divisor = 1)
      : slack_divisor_(slack_divisor), fit_divisor_(fit_divisor) {}

  /// The first n entries of a free pooled buffer (uninitialised); allocates when no free buffer is large enough,
  /// under `label` (the request's name: Kokkos Tools see it). *reused (when given) says whether a pooled buffer
  /// served the request.
  view_type get(std::size_t n, const std::string& label = "AsyncSparse::workspace", bool* reused = nullptr) {
    std::size_t best = npos, small = npos, in_use = 0;
    for (std::size_t b = 0; b < bufs_.size(); ++b) {
      const std::size_t cap = bufs_[b].extent(0);
      if (bufs_[b].use_count() != 1) {
        in_use += cap;
        continue;
      }
      if (cap >= n && cap <= n + n / fit_divisor_ + small_request) {
        if (best == npos || cap < bufs_[best].extent(0)) best = b;
      } else if (cap < n && (small == npos || cap > bufs_[small].extent(0))) {
        small = b;
      }
    }
    const bool fresh_needed = best == npos;
    if (best == npos) {
      const std::size_t cap = n + (slack_divisor_ ? n / slack_divisor_ : 0);
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
    if (reused) *reused = !fresh_needed;
    in_use += bufs_[best].extent(0);
    if (in_use * sizeof(T) > stats_.peak_bytes_in_use) stats_.peak_bytes_in_use = in_use * sizeof(T);
    view_type v = Kokkos::subview(bufs_[best], std::make_pair(std::size_t(0), n));
    if (poison_) Kokkos::deep_copy(v, poison_value());
    return v;
  }

  /// Checking aid (tests): fill every buffer handed out with NaN (floating point) or the largest value (integers),
  /// so that a read of an entry no one wrote shows up. Off by default; costs a fill per request.
  void set_poison(bool on) { poison_ = on; }

  /// Frees the buffers no View uses any more (those in use are freed when their last View goes away), except free
  /// ones of at most keep_free_bytes in all (the later buffers of the pool kept first).
  void release_free(std::size_t keep_free_bytes = 0) {
    std::vector<view_type> keep;
    std::size_t kept_free = 0;
    for (std::size_t b = bufs_.size(); b-- > 0;) {
      const std::size_t bytes = bufs_[b].extent(0) * sizeof(T);
      if (bufs_[b].use_count() != 1) {
        keep.push_back(bufs_[b]);
      } else if (kept_free + bytes <= keep_free_bytes) {
        kept_free += bytes;
        keep.push_back(bufs_[b]);
      }
    }
    bufs_.assign(keep.rbegin(), keep.rend());
  }

  /// Lets go of every buffer: the free ones are freed now, those in use when their last View goes away.
  void clear() { bufs_.clear(); }

  /// Bytes of the buffers no View uses any more.
  std::size_t free_bytes() const {
    std::size_t bytes = 0;
    for (const auto& b : bufs_)
      if (b.use_count() == 1) bytes += b.extent(0) * sizeof(T);
    return bytes;
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
  /// a request is served only from a buffer of at most n + n / fit_divisor_ + small_request entries, so that short
  /// arrays (per row) do not take the long ones (per entry) that the next request needs, and the pool does not hold
  /// many more bytes than the arrays in use at once
  static constexpr std::size_t small_request = 1024;
  static T poison_value() {
    if constexpr (std::is_floating_point<T>::value)
      return std::numeric_limits<T>::quiet_NaN();
    else
      return std::numeric_limits<T>::max();
  }
  std::vector<view_type> bufs_;
  WorkspaceStats stats_;
  std::size_t slack_divisor_;
  std::size_t fit_divisor_;
  bool poison_ = false;
};

}  // namespace AsyncSparse
