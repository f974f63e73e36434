// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — exact selection of the k-th smallest magnitude in one kernel of one team (radix select).
//
// SampleSelect (AsyncSparse_select.hpp) takes two or three levels of sample, count and extract, and the host waits
// for the device at each: on an H100 0.1-0.16 ms per selection from 2,048 values on, which made the threshold
// phase of a ParILUT step on cryg2500 (2,500 rows) 0.4 ms of a 1.2 ms step. For short arrays one team does the
// whole selection in one launch: the magnitudes, as the bits of non-negative IEEE numbers, order like unsigned
// integers, so the k-th smallest is found digit by digit from the most significant end (11 bits per pass: a
// 2048-bin histogram in scratch memory, counted with scratch atomics over the values that match the digits found
// so far, and a team scan of it), 6 passes for double and 3 for float, fewer when a single value is left with the
// digits found so far (then one pass reads its other digits). The same passes count the values strictly
// larger than the result (those in higher bins of each pass), which the ParILUT removal needs for its ties. The
// result is the value std::nth_element puts at position k (a value, not a position: unique), so this path and
// SampleSelect give the same threshold. -0 counts as +0; a NaN is reported (nan_count), not ranked. One team
// reads the data at one SM's bandwidth: for long arrays SampleSelect is faster (ParIlutHandle::Params::
// team_select_max), or one SampleSelect level whose chosen bucket this kernel finishes, all on the device
// (team_select_bucket_launch, AsyncSparse_bucket_select.hpp). At most 512 values (TeamSelectKernel::count_max) are
// ranked without passes: each value's rank is counted against all keys in scratch memory.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>  // is_gpu_space

namespace AsyncSparse {
namespace Impl {

/// Result of team_select_magnitude.
template <class Scalar>
struct TeamSelection {
  Scalar value{};              ///< the k-th smallest |x| (0-based)
  std::int64_t greater = 0;    ///< values with |x| > value
  std::int64_t equal = 0;      ///< values with |x| == value (the value included)
  std::int64_t nan_count = 0;  ///< NaN among the values (value and greater are then meaningless)
};

/// Entries of the bucket View of bucket_select_launch (AsyncSparse_bucket_select.hpp) and team_select_bucket_launch:
/// the slot that holds rank k, the values in lower slots, the slot's size, the values in higher slots, whether a NaN
/// was found (then the others are not set), the gather counter.
enum BucketSelectEntry : int {
  kBucketSlot,
  kBucketBefore,
  kBucketSize,
  kBucketAbove,
  kBucketNan,
  kBucketFill,
  kBucketEntries
};

template <class Scalar>
using team_select_key_t = std::conditional_t<sizeof(Scalar) == 8, std::uint64_t, std::uint32_t>;

/// Bits of |x| as an unsigned integer (order preserving for non-negative x; -0 -> 0; NaN above +Inf).
template <class Scalar>
KOKKOS_INLINE_FUNCTION team_select_key_t<Scalar> team_select_key(Scalar x) {
  using K = team_select_key_t<Scalar>;
  K k;
  memcpy(&k, &x, sizeof(K));
  return k & ~(K(1) << (8 * sizeof(K) - 1));
}

/// Key of +Inf: a larger key is a NaN.
template <class Scalar>
KOKKOS_INLINE_FUNCTION constexpr team_select_key_t<Scalar> team_select_inf_key() {
  return sizeof(Scalar) == 8 ? team_select_key_t<Scalar>(0x7FF0000000000000ull)
                             : team_select_key_t<Scalar>(0x7F800000u);
}

template <class ExecSpace, class Values>
struct TeamSelectKernel {
  using Scalar = std::remove_cv_t<typename Values::value_type>;
  static_assert(std::is_floating_point<Scalar>::value && (sizeof(Scalar) == 4 || sizeof(Scalar) == 8),
                "team_select_magnitude: float or double values");
  using K = team_select_key_t<Scalar>;
  using Member = typename Impl::TeamPolicy<ExecSpace>::member_type;
  static constexpr int digit_bits = 11;  // 2048 bins: 6 passes for double (63 bits of |x|), 3 for float (31)
  static constexpr int bins = 1 << digit_bits;
  static constexpr int passes = (8 * static_cast<int>(sizeof(K)) - 1 + digit_bits - 1) / digit_bits;
  /// At most this many values are ranked by counting instead (each value's rank: the values below it and equal to it,
  /// from all keys in scratch; about nv^2 / team size comparisons per thread against the radix passes' barriers and
  /// 2048-bin scans). On an H100 (one team of 1,024 threads, fenced): 237 values 21 us by counting against 35 us by
  /// the passes, 1,454 values 162 us against 40 us; the quadratic cost crosses near 512.
  static constexpr int count_max = 512;
  // scratch: 4 words of state (prefix bits, rank within the prefix, values greater, values with the prefix), then
  // the histogram (32-bit counts) or the keys of the counting path
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t area_bytes() {
    return bins * sizeof(std::uint32_t) > count_max * sizeof(K) ? bins * sizeof(std::uint32_t) : count_max * sizeof(K);
  }
  static constexpr std::size_t scratch_bytes = 4 * sizeof(std::int64_t) + area_bytes();

  Values values;
  std::int64_t n, k;
  Kokkos::View<std::int64_t*, typename Values::memory_space> out;  // key bits, greater, NaN count, equal
  /// team_select_bucket_launch: the bucket that holds rank k (BucketSelectEntry), whose values are `values`, and the
  /// splitters (an equality bucket's answer); empty otherwise
  Kokkos::View<const std::int64_t*, typename Values::memory_space> bucket;
  Kokkos::View<const Scalar*, typename Values::memory_space> splitters;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    auto* state = static_cast<std::int64_t*>(team.team_shmem().get_shmem(4 * sizeof(std::int64_t)));
    void* area = team.team_shmem().get_shmem(area_bytes());
    auto* hist = static_cast<std::uint32_t*>(area);
    const K nan_above = team_select_inf_key<Scalar>();
    std::int64_t nv = n, rank0 = k, greater0 = 0;  // the values ranked, the rank among them, values above them
    if (bucket.extent(0) > 0) {
      const std::int64_t slot = bucket(kBucketSlot);
      const bool nan = bucket(kBucketNan) != 0;
      if (nan || slot % 2 == 1) {  // a NaN among the values, or an equality bucket: its splitter is the answer
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          out(0) = nan ? 0 : static_cast<std::int64_t>(team_select_key(splitters((slot + 1) / 2 - 1)));
          out(1) = nan ? 0 : bucket(kBucketAbove);
          out(2) = nan ? 1 : 0;
          out(3) = nan ? 0 : bucket(kBucketSize);
        });
        return;
      }
      nv = bucket(kBucketSize);
      rank0 = k - bucket(kBucketBefore);
      greater0 = bucket(kBucketAbove);
    }
    if (nv <= count_max) {  // few values: each one's rank counted against all
      K* keys = static_cast<K*>(area);
      std::int64_t nans = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, nv),
          [&](const std::int64_t i, std::int64_t& c) {
            keys[i] = team_select_key(values(i));
            if (keys[i] > nan_above) ++c;
          },
          nans);
      team.team_barrier();
      const int m = static_cast<int>(nv);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const int i) {
        const K ki = keys[i];
        int less = 0, equal = 0, equal_before = 0;
        for (int j = 0; j < m; ++j) {
          const K kj = keys[j];
          less += kj < ki ? 1 : 0;
          equal += kj == ki ? 1 : 0;
          equal_before += (kj == ki && j < i) ? 1 : 0;
        }
        // the first of the values equal to the answer writes it (NaN: the first value writes the count)
        if (nans > 0 ? i == 0 : (equal_before == 0 && less <= rank0 && rank0 < less + equal)) {
          out(0) = nans > 0 ? 0 : static_cast<std::int64_t>(ki);
          out(1) = nans > 0 ? 0 : greater0 + nv - less - equal;
          out(2) = nans;
          out(3) = nans > 0 ? 0 : equal;
        }
      });
      return;
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      state[0] = 0;
      state[1] = rank0;
      state[2] = greater0;
      state[3] = nv;
    });
    bool single_left = false;  // the early exit below wrote the answer to state[1]
    for (int pass = passes - 1; pass >= 0; --pass) {
      const int shift = digit_bits * pass;
      const K mask = pass == passes - 1 ? K(0) : (~K(0) << (shift + digit_bits));
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, bins), [&](const int b) { hist[b] = 0; });
      team.team_barrier();
      const K prefix = static_cast<K>(state[0]);
      const std::int64_t rank = state[1], total = state[3];
      // histogram of the next digit over the values with the digits found so far; the first pass also counts
      // the NaN, which must not be ranked
      std::int64_t nans = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, nv),
          [&](const std::int64_t i, std::int64_t& c) {
            const K key = team_select_key(values(i));
            if ((key & mask) == prefix) Kokkos::atomic_add(&hist[(key >> shift) & K(bins - 1)], 1u);
            if (pass == passes - 1 && key > nan_above) ++c;
          },
          nans);
      if (nans > 0) {
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          out(0) = 0;
          out(1) = 0;
          out(2) = nans;
          out(3) = 0;
        });
        return;
      }
      team.team_barrier();
      // the bin holding rank: an exclusive scan of the counts, the one bin with partial <= rank < partial + count
      Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, bins),
                            [&](const int b, std::int64_t& partial, const bool final) {
                              const std::int64_t c = hist[b];
                              if (final && partial <= rank && rank < partial + c) {
                                state[0] = static_cast<std::int64_t>(prefix | (static_cast<K>(b) << shift));
                                state[1] = rank - partial;
                                state[2] += total - partial - c;
                                state[3] = c;
                              }
                              partial += c;
                            });
      team.team_barrier();
      // one value left with the digits found so far: it is the answer; one pass finds its remaining digits (on
      // spread-out values after two or three of the six passes). Its one matching thread writes state[1] (the rank,
      // no longer needed), not state[0], which the other threads are still reading.
      if (pass > 0 && state[3] == 1) {
        const K found = static_cast<K>(state[0]), found_mask = ~K(0) << shift;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nv), [&](const std::int64_t i) {
          const K key = team_select_key(values(i));
          if ((key & found_mask) == found) state[1] = static_cast<std::int64_t>(key);
        });
        team.team_barrier();
        single_left = true;
        break;
      }
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      out(0) = single_left ? state[1] : state[0];
      out(1) = state[2];
      out(2) = 0;
      out(3) = single_left ? 1 : state[3];  // after the last pass: the values with all digits of the answer
    });
  }
};

/// One team of up to 1024 threads running `f` (a TeamSelectKernel) on GPUs (fewer where the kernel's registers do not
/// allow them), of one thread on host backends.
template <class ExecSpace, class F>
void team_select_run(const ExecSpace& exec, const F& f) {
  int team_size = 1;
  if constexpr (is_gpu_space<ExecSpace>())
    team_size = std::min(1024, Impl::TeamPolicy<ExecSpace>(exec, 1, 1)
                                   .set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes))
                                   .team_size_max(f, Kokkos::ParallelForTag()));
  Impl::TeamPolicy<ExecSpace> policy(exec, 1, team_size);
  policy = policy.set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes));
  Kokkos::parallel_for("AsyncSparse::team_select", policy, f);
}

/// Launches the one-team select of the k-th smallest |values(i)|, i < n (0 <= k < n), on `exec` without waiting:
/// its result lands in out(0..3) (`out`: at least 4 entries on the values' device), which team_select_result decodes
/// once read (team_select_run's team).
template <class ExecSpace, class Values, class Out>
void team_select_launch(const ExecSpace& exec, const Values& values, std::int64_t n, std::int64_t k, const Out& out) {
  using F = TeamSelectKernel<ExecSpace, Values>;
  if (n < 1 || k < 0 || k >= n || static_cast<std::size_t>(n) > values.extent(0))
    throw InvalidInput("team_select_magnitude: k = " + std::to_string(k) + " is out of range [0, " + std::to_string(n) +
                       ") or n exceeds the " + std::to_string(values.extent(0)) + " values");
  if (out.extent(0) < 4) throw InvalidInput("team_select_magnitude: `out` needs 4 entries");
  team_select_run(exec, F{values, n, k, out, {}, {}});
}

/// team_select_launch on the bucket of one SampleSelect level that holds rank k of the level's values
/// (Impl::bucket_select_launch): `bucket` holds its entries (BucketSelectEntry), `values` the bucket's values (at most
/// values.extent(0)), `splitters` the level's splitters. The result (greater counting every value of the level) lands
/// in out(0..3) as team_select_launch's does.
template <class ExecSpace, class Values, class Bucket, class Splitters, class Out>
void team_select_bucket_launch(const ExecSpace& exec, const Values& values, std::int64_t k, const Bucket& bucket,
                               const Splitters& splitters, const Out& out) {
  using F = TeamSelectKernel<ExecSpace, Values>;
  if (bucket.extent(0) < static_cast<std::size_t>(kBucketFill) || out.extent(0) < 4)
    throw InvalidInput("team_select_magnitude: `bucket` needs " + std::to_string(int(kBucketFill)) +
                       " entries, `out` 4");
  team_select_run(exec, F{values, static_cast<std::int64_t>(values.extent(0)), k, out, bucket, splitters});
}

/// The selection from the four entries of `out` that team_select_launch wrote, read back to the host (`h`).
template <class Scalar>
TeamSelection<Scalar> team_select_result(const std::int64_t* h) {
  using K = team_select_key_t<Scalar>;
  TeamSelection<Scalar> r;
  const K bits = static_cast<K>(h[0]);
  std::memcpy(&r.value, &bits, sizeof(K));
  r.greater = h[1];
  r.nan_count = h[2];
  r.equal = h[3];
  return r;
}

/// The k-th smallest |values(i)|, i < n (0 <= k < n), in one launch of one team on `exec` (team_select_launch);
/// blocks until known.
template <class ExecSpace, class Values, class Out>
TeamSelection<std::remove_cv_t<typename Values::value_type>> team_select_magnitude(const ExecSpace& exec,
                                                                                   const Values& values, std::int64_t n,
                                                                                   std::int64_t k, const Out& out) {
  team_select_launch(exec, values, n, k, out);
  std::int64_t h[4];
  Kokkos::deep_copy(exec, Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h, 4),
                    Kokkos::subview(out, std::make_pair(0, 4)));
  exec.fence();
  return team_select_result<std::remove_cv_t<typename Values::value_type>>(h);
}

}  // namespace Impl
}  // namespace AsyncSparse
