// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — update traces of asynchronous relaxations: value ages, per-update time stamps, the
// update schedule, and their summaries per connection type.
//
// Tsai, Nayak, Chow & Anzt, "Implementing Asynchronous Jacobi Iteration on GPUs" (2022), sect. IV-E,
// record three things about an asynchronous run, without disturbing it:
//  * the *final update value age*: for the last update of every row, how many updates each neighbour
//    had received when its value was read;
//  * the *midway update value age*: the same for the update in the middle of the run (update 500 of
//    1000 in their Fig. 11, whose median is "close to 500, which is expected");
//  * *time measurements* of the updates, from which the update schedule (which row was updated when,
//    their Fig. 9) follows.
// The paper encodes the ages in the bits of the iteration vector itself (no numerical output while
// logging). Here the numerical iteration keeps running, and the trace uses side arrays:
//  * `count(i)`: the number of updates row i has completed, stored by the updating thread right after
//    the new x_i (one relaxed 4-byte store per update — the only cost of value-age logging in all but
//    two updates per row);
//  * `age_mid(p)`, `age_final(p)` for every stored entry p = (i, j) of A: count(j) as read, right after
//    x_j, by the midway / final update of row i (-1: not recorded). The neighbour's count is read
//    next to its value, so under a concurrent update of row j it may be off by one.
//  * `stamp(i, k)`, `stamp_worker(i, k)`: completion time (device clock, ns) of update k of row i and
//    the worker (lane group) that did it, for the first `stamp_rows` rows (capacity-limited).
// Everything is off by default; the kernels compile the recording code only into a separately
// instantiated "traced" variant, so the untraced kernels carry no branch for it.
//
// Summaries (host, after the run): ages grouped by connection type, either as in the paper's Fig. 10
// ("{#connections of target}_{#connections of source}", e.g. 4_3 for an interior point reading a
// boundary point of the 2D 5-point stencil) or by stencil direction (the column offset j - i: W/E for
// -1/+1, S/N for -m/+m, B/T for -m^2/+m^2 on an m-point grid in natural order).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>

namespace AsyncSparse {

/// What an asynchronous relaxation records about its updates. All off by default.
struct UpdateTraceOptions {
  /// Record the value ages of the midway and the final update of every row (paper, sect. IV-E).
  /// Costs one relaxed int store per update plus one int load and store per nonzero in two updates
  /// per row. Default false.
  bool value_age = false;
  /// Record the completion time stamp and worker of every update of the first rows (update schedule).
  /// Costs a clock read and a 12-byte store per recorded update. Default false.
  bool timestamps = false;
  /// Update index (0-based, per row) of the midway snapshot. Default -1: updates / 2 (paper: 500 of 1000).
  int midway = -1;
  /// Capacity of the time-stamp buffer in updates: rows 0 .. stamp_rows-1 are recorded, stamp_rows =
  /// min(n, max_timestamps / updates). Default 1 << 24 (16M updates, 192 MB while timestamps is on).
  std::int64_t max_timestamps = std::int64_t(1) << 24;

  bool any() const { return value_age || timestamps; }
};

/// Monotonic clock readable from device code, in nanoseconds. CUDA: the %globaltimer register (a
/// device-wide clock, comparable across SMs; it advances in steps of up to 1 µs on some GPUs). HIP:
/// wall_clock64() (a constant-rate device counter, in its own ticks). Host: std::chrono::steady_clock.
KOKKOS_INLINE_FUNCTION std::uint64_t device_clock_ns() {
#if defined(__CUDA_ARCH__)
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#elif defined(__HIP_DEVICE_COMPILE__)
  return static_cast<std::uint64_t>(wall_clock64());
#else
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
#endif
}

/// Device side of a trace: Views plus the run constants, copied by value into the kernels.
template <class Device>
struct UpdateTraceRecorder {
  Kokkos::View<int*, Device> count;
  Kokkos::View<int*, Device> age_mid, age_final;
  Kokkos::View<std::uint64_t*, Device> stamp;
  Kokkos::View<int*, Device> stamp_worker;
  bool value_age = false, timestamps = false;
  int midway = 0, final_update = 0, updates = 0;
  std::int64_t stamp_rows = 0;

  /// True when update `iter` of a row records value ages (uniform within a lane group).
  KOKKOS_INLINE_FUNCTION bool records_ages(int iter) const {
    return value_age && (iter == midway || iter == final_update);
  }
  /// Age of the value of row `col`, as read now: the updates it has completed.
  KOKKOS_INLINE_FUNCTION int neighbour_age(ordinal_t col) const { return load_relaxed(&count(col)); }
  /// Store the age read for entry p by update `iter` of its row.
  KOKKOS_INLINE_FUNCTION void store_age(int iter, offset_t p, int age) const {
    if (iter == midway) age_mid(p) = age;
    if (iter == final_update) age_final(p) = age;  // both when updates == 1
  }
  /// After each update (one lane): count(row) = iter + 1 when value_age (stored by the update kernel itself),
  /// then this: time stamp and lane group of the update (rows below stamp_rows only).
  KOKKOS_INLINE_FUNCTION void stamp_update(ordinal_t row, int iter, int worker) const {
    if (row < stamp_rows) {
      const std::int64_t k = static_cast<std::int64_t>(row) * updates + iter;
      stamp(k) = device_clock_ns();
      stamp_worker(k) = worker;
    }
  }
};

/// Host-side owner of a trace: options, device buffers, and the host copies after a run.
template <class Device>
class UpdateTrace {
 public:
  /// Allocate and reset the buffers for a run with `opts` of `updates` updates per row on a matrix with `n`
  /// rows and `nnz` stored entries. Throws InvalidInput (prefixed with `where`) for invalid options.
  template <class ExecSpace>
  UpdateTraceRecorder<Device> prepare(const ExecSpace& exec, const UpdateTraceOptions& opts, ordinal_t n, offset_t nnz,
                                      int updates, const std::string& where) {
    options = opts;
    UpdateTraceRecorder<Device> r;
    n_ = n;
    updates_ = updates;
    midway_ = options.midway < 0 ? updates / 2 : options.midway;
    if (options.value_age && updates > 0 && midway_ >= updates)
      throw InvalidInput(where + ": trace midway update " + std::to_string(midway_) + " must be < updates (" +
                         std::to_string(updates) + ")");
    if (options.max_timestamps < 0)
      throw InvalidInput(where + ": trace max_timestamps must be >= 0, got " + std::to_string(options.max_timestamps));
    r.value_age = options.value_age;
    r.timestamps = options.timestamps;
    r.midway = midway_;
    r.final_update = updates - 1;
    r.updates = updates;
    if (options.value_age) {
      realloc(count_, "AsyncSparse::trace_count", n);
      realloc(age_mid_, "AsyncSparse::trace_age_mid", nnz);
      realloc(age_final_, "AsyncSparse::trace_age_final", nnz);
      Kokkos::deep_copy(exec, count_, 0);
      Kokkos::deep_copy(exec, age_mid_, -1);
      Kokkos::deep_copy(exec, age_final_, -1);
      r.count = count_;
      r.age_mid = age_mid_;
      r.age_final = age_final_;
    }
    stamp_rows_ = 0;
    if (options.timestamps && updates > 0) {
      stamp_rows_ = std::min<std::int64_t>(n, options.max_timestamps / updates);
      const std::int64_t cap = stamp_rows_ * updates;
      if (static_cast<std::int64_t>(stamp_.extent(0)) != cap) {
        stamp_ = Kokkos::View<std::uint64_t*, Device>("AsyncSparse::trace_stamp", cap);
        stamp_worker_ = Kokkos::View<int*, Device>("AsyncSparse::trace_stamp_worker", cap);
      }
      Kokkos::deep_copy(exec, stamp_, std::uint64_t(0));
      Kokkos::deep_copy(exec, stamp_worker_, -1);
      r.stamp = stamp_;
      r.stamp_worker = stamp_worker_;
    }
    r.stamp_rows = stamp_rows_;
    recorded_ = options.any();
    return r;
  }

  /// Options of the last prepared run.
  UpdateTraceOptions options;

  bool recorded() const { return recorded_; }
  /// Mark the buffers as not belonging to the last run (a run without tracing).
  void clear() { recorded_ = false; }
  int updates() const { return updates_; }
  int midway() const { return midway_; }
  std::int64_t stamp_rows() const { return stamp_rows_; }

  /// Device buffers (valid after a traced run).
  const Kokkos::View<int*, Device>& count() const { return count_; }
  const Kokkos::View<int*, Device>& age_mid() const { return age_mid_; }
  const Kokkos::View<int*, Device>& age_final() const { return age_final_; }
  const Kokkos::View<std::uint64_t*, Device>& stamps() const { return stamp_; }
  const Kokkos::View<int*, Device>& stamp_workers() const { return stamp_worker_; }

 private:
  template <class V>
  static void realloc(V& v, const char* label, std::int64_t len) {
    if (static_cast<std::int64_t>(v.extent(0)) != len)
      v = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), len);
  }
  Kokkos::View<int*, Device> count_, age_mid_, age_final_;
  Kokkos::View<std::uint64_t*, Device> stamp_;
  Kokkos::View<int*, Device> stamp_worker_;
  ordinal_t n_ = 0;
  int updates_ = 0, midway_ = 0;
  std::int64_t stamp_rows_ = 0;
  bool recorded_ = false;
};

// ---------------------------------------------------------------------------------------------------------
// Summaries (host)
// ---------------------------------------------------------------------------------------------------------

/// How stored entries (i, j), i != j, are grouped.
enum class ConnectionClass {
  Degree,  ///< "{off-diagonals of row i}_{off-diagonals of row j}" (paper, Fig. 10)
  Offset   ///< stencil direction j - i (named W/E, S/N, B/T when grid sizes are given)
};

/// Distribution of a set of ages.
struct AgeStats {
  std::string label;
  std::int64_t count = 0;
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0, mean = 0;
  double relative_median = 0;  ///< median of (neighbour age - own updates before this update)
};

/// Value ages of one snapshot (midway or final), overall and per connection type.
struct ValueAgeSummary {
  std::string snapshot;      ///< "midway" or "final"
  int own_update = 0;        ///< the update index (= updates the row had completed before it)
  std::int64_t missing = 0;  ///< off-diagonal entries whose row never reached this update
  AgeStats all;
  std::vector<AgeStats> by_type;
};

namespace Impl {
inline AgeStats age_stats(const std::string& label, std::vector<int>& v, int own) {
  AgeStats s;
  s.label = label;
  s.count = static_cast<std::int64_t>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto q = [&](double f) {  // linear interpolation between order statistics
    const double pos = f * static_cast<double>(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  s.min = v.front();
  s.max = v.back();
  s.q1 = q(0.25);
  s.median = q(0.5);
  s.q3 = q(0.75);
  double sum = 0;
  for (int a : v) sum += a;
  s.mean = sum / static_cast<double>(v.size());
  s.relative_median = s.median - own;
  return s;
}

inline std::string offset_label(std::int64_t off, const std::vector<std::int64_t>& grid) {
  // grid = {mx, my, mz} (0 = absent): offsets +-1, +-mx, +-mx*my
  if (!grid.empty() && grid[0] > 0) {
    const std::int64_t sx = 1, sy = grid[0], sz = grid.size() > 1 && grid[1] > 0 ? grid[0] * grid[1] : 0;
    if (off == -sx) return "W";
    if (off == sx) return "E";
    if (off == -sy) return "S";
    if (off == sy) return "N";
    if (sz && off == -sz) return "B";
    if (sz && off == sz) return "T";
  }
  return "offset" + std::string(off > 0 ? "+" : "") + std::to_string(off);
}
}  // namespace Impl

/// Summarise the ages of one snapshot. `A`: the matrix pattern (host). `ages`: age_mid or age_final copied
/// to the host (size nnz). `own_update`: the snapshot's update index. `grid`: points per direction of a
/// stencil matrix in natural order ({m, m} for lap2d(m), {m, m, m} for lap3d7(m)); empty: generic offset
/// labels. At most 64 offset classes are listed (the rest are pooled as "other").
inline ValueAgeSummary summarize_value_ages(const CsrHost<double>& A, const std::vector<int>& ages, int own_update,
                                            const std::string& snapshot, ConnectionClass cls,
                                            const std::vector<std::int64_t>& grid = {}) {
  if (static_cast<offset_t>(ages.size()) != A.nnz())
    throw InvalidInput("summarize_value_ages: ages has " + std::to_string(ages.size()) + " entries, the matrix " +
                       std::to_string(A.nnz()));
  ValueAgeSummary S;
  S.snapshot = snapshot;
  S.own_update = own_update;
  std::vector<int> deg(A.nrows, 0);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) deg[i] += A.col_idx[p] != i;
  std::map<std::string, std::vector<int>> groups;
  std::map<std::int64_t, std::string> offset_names;
  std::vector<int> all;
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A.col_idx[p];
      if (j == i) continue;
      if (ages[p] < 0) {
        ++S.missing;
        continue;
      }
      all.push_back(ages[p]);
      std::string key;
      if (cls == ConnectionClass::Degree) {
        key = std::to_string(deg[i]) + "_" + std::to_string(deg[j]);
      } else {
        const std::int64_t off = static_cast<std::int64_t>(j) - i;
        auto it = offset_names.find(off);
        if (it == offset_names.end())
          it = offset_names.emplace(off, offset_names.size() < 64 ? Impl::offset_label(off, grid) : "other").first;
        key = it->second;
      }
      groups[key].push_back(ages[p]);
    }
  S.all = Impl::age_stats("all", all, own_update);
  for (auto& g : groups) S.by_type.push_back(Impl::age_stats(g.first, g.second, own_update));
  return S;
}

}  // namespace AsyncSparse
