// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — SampleSelect: the k-th smallest of n values on the device, exact or approximate.
//
// ParILUT (Anzt, Ribizel, Flegar, Chow, Dongarra, IPDPS 2019; slides in shared/papers) removes the
// smallest entries of its factors after every step; the threshold that keeps a fill budget is a
// selection problem: the k-th smallest magnitude of the candidate entries. SampleSelect (Ribizel &
// Anzt, "Approximate and Exact Selection on GPUs", ASHES 2019; Ginkgo's sampleselect) solves it
// without sorting:
//
//   1. draw a sample of `num_buckets * oversampling` values, sort it (it is small) and take
//      num_buckets - 1 equally spaced splitters s_1 <= ... <= s_{B-1};
//   2. count how many values fall into each bucket (one pass over the data, binary search among the
//      splitters), either with atomics on global counters or with atomics on per-team counters in
//      scratch (shared) memory followed by a reduction over the teams (BucketCounting);
//   3. find the bucket that holds rank k from the prefix sums of the counts;
//   4. exact: copy that bucket's values out and recurse on them with the rank shifted, until at
//      most `base_case_size` values remain, which are selected on the host (std::nth_element);
//      approximate: stop after one level and return the bucket's lower splitter.
//
// Duplicates: each splitter value has its own "equality bucket" (values equal to s_b are counted
// separately from the values strictly between s_b and s_{b+1}). A rank that falls into an equality
// bucket is answered at once (the k-th value is s_b), and every recursion drops at least the
// splitter values, so inputs with few distinct values, all-equal inputs and a single outlier need
// no special treatment and always terminate.
//
// The exact result is the value std::nth_element places at position k (for Order::Magnitude: the
// k-th smallest |x|, returned as a magnitude). NaN is rejected (InvalidInput naming the first NaN's
// index); +-Inf are ordinary values. Results never depend on the backend, the thread count or the
// counting variant: the sample positions come from a seeded hash, counting is exact integer
// arithmetic and the bucket extraction is a prefix sum (order preserving).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>

namespace AsyncSparse {

/// Order in which values are ranked.
enum class SelectOrder {
  Value,     ///< by value (x_0 <= x_1 <= ...): the k-th smallest value
  Magnitude  ///< by absolute value: the k-th smallest |x| (the result is the magnitude)
};

/// Where the bucket counts are accumulated (the two variants compared in the slides).
enum class BucketCounting {
  GlobalAtomics,  ///< every thread increments global counters (one atomic per value on device memory)
  TeamAtomics     ///< every team counts its chunk in scratch (shared) memory, then the per-team counts are
                  ///< reduced into the global ones
};

inline const char* to_string(BucketCounting c) { return c == BucketCounting::GlobalAtomics ? "global" : "team"; }
inline const char* to_string(SelectOrder o) { return o == SelectOrder::Value ? "value" : "magnitude"; }

/// Parameters of SampleSelect (defaults follow Ginkgo's sampleselect: 256 buckets, oversampling 4,
/// base case 1024).
struct SampleSelectParams {
  /// Rank values by value or by magnitude. Default Value.
  SelectOrder order = SelectOrder::Value;
  /// Bucket counting variant. Default TeamAtomics (fewer atomic collisions on GPUs).
  BucketCounting counting = BucketCounting::TeamAtomics;
  /// Number of buckets B per level (B - 1 splitters), 2 <= B <= 2048. More buckets shrink the bucket that
  /// is recursed into (and the approximate rank error) at the cost of a longer binary search. Default 256.
  int num_buckets = 256;
  /// Sample size per level = num_buckets * oversampling (capped at the number of values), >= 1. Larger
  /// samples give more even buckets. Default 4.
  int oversampling = 4;
  /// When at most this many values remain, they are copied to the host and selected there with
  /// std::nth_element. >= 1. Default 1024.
  int base_case_size = 1024;
  /// Seed of the sample positions (a hash of seed, level and sample index). The exact result does not
  /// depend on it; the approximate result and the statistics do. Default 0.
  std::uint64_t seed = 0;
};

/// What a selection did (the last call on a handle).
struct SampleSelectStats {
  std::int64_t n = 0;                     ///< number of values
  std::int64_t k = 0;                     ///< requested rank (0-based)
  int levels = 0;                         ///< counting passes over the data
  std::vector<std::int64_t> level_sizes;  ///< values entering each counting pass
  std::int64_t base_case_size = 0;        ///< values selected on the host at the end (0: none)
  bool equality_bucket_hit = false;       ///< the answer was a splitter whose equality bucket held rank k
  /// exact only: values greater than the result and values equal to it (in the handle's order; -1 after an
  /// approximate selection), counted from the levels' buckets and the base case at no extra pass
  std::int64_t count_greater = -1, count_equal = -1;
  std::int64_t count_less = 0;            ///< approximate only: values < the returned threshold (exact)
  std::int64_t rank_error_bound = 0;      ///< approximate only: 0 <= k - count_less < rank_error_bound
  double seconds = 0.0;                   ///< wall time of the call, fenced
  ResolvedLaunch launch;                  ///< launch of the counting kernel
};

/// Result of the approximate selection. `value` is an element of the input (a magnitude for
/// SelectOrder::Magnitude); exactly `count_less` values are smaller than it, and
///     count_less <= k < count_less + rank_error_bound,
/// i.e. keeping every value >= `value` keeps n - count_less >= n - k values, at most rank_error_bound - 1
/// more than n - k. rank_error_bound is the size of the bucket (equality bucket of `value` plus the
/// following strict bucket) that holds rank k: about n / num_buckets for unclustered data (the sample
/// picks splitters at equally spaced sample ranks), 1 when rank k is the value itself.
template <class Scalar>
struct ApproximateSelection {
  Scalar value{};
  std::int64_t count_less = 0;
  std::int64_t rank_error_bound = 0;
};

/// Handle of SampleSelect: parameters, launch configuration, statistics of the last call, and the
/// device workspace (bucket counts, per-value bucket indices, buffers of the recursion), which is kept
/// and grown as needed so repeated selections (one per ParILUT step) do not reallocate.
/// Scalar: float or double. Device: where the values live (a Kokkos::Device or memory space).
template <class Scalar, class Device>
class SampleSelectHandle {
 public:
  using scalar_type = Scalar;
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  static_assert(std::is_floating_point<Scalar>::value, "SampleSelectHandle: Scalar must be float or double");

  SampleSelectParams params;
  /// Counting kernel launch: team_size (default: 256 on GPUs, 1 on host backends), max_concurrent_teams
  /// (default: one wave, concurrency / team_size teams; each team counts a contiguous chunk). Other fields
  /// are ignored (vector_length must be -1 or 1).
  LaunchConfig launch;
  SampleSelectStats stats;

  SampleSelectHandle() = default;
  explicit SampleSelectHandle(const SampleSelectParams& p) : params(p) {}

  // Workspace (implementation detail; public so the kernels in AsyncSparse::Impl can reach it).
  Kokkos::View<Scalar*, memory_space> buf_a_, buf_b_, sample_, splitters_;
  Kokkos::View<std::uint16_t*, memory_space> oracle_;
  Kokkos::View<std::int64_t*, memory_space> counts_;
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space> partials_;
  Kokkos::View<std::int64_t, memory_space> nan_index_;  ///< the slot after the counts (Impl::select_nan_index)
  Kokkos::View<double*, memory_space> scan_temp_;       ///< the extraction's device scratch (Impl::compact_flagged)
};

/// Exact selection: the k-th smallest (0-based) of `values` in the handle's order, equal to what
/// std::nth_element puts at position k. `values`: rank-1 View of float/double (any layout, const
/// allowed) accessible from `exec`. Throws InvalidInput for an empty view, k outside [0, n), a NaN among
/// the values (naming its index), or bad parameters. Blocks until the result is known.
template <class ExecSpace, class Scalar, class Device, class ValuesView>
Scalar sample_select(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& handle, const ValuesView& values,
                     std::int64_t k);

/// Approximate selection: one counting level, then the lower splitter of the bucket that holds rank k
/// (see ApproximateSelection for the guarantee). Same input rules as sample_select.
template <class ExecSpace, class Scalar, class Device, class ValuesView>
ApproximateSelection<Scalar> sample_select_approximate(const ExecSpace& exec,
                                                       SampleSelectHandle<Scalar, Device>& handle,
                                                       const ValuesView& values, std::int64_t k);

/// One-shot forms with a temporary handle.
template <class ExecSpace, class ValuesView>
typename ValuesView::non_const_value_type sample_select(const ExecSpace& exec, const ValuesView& values, std::int64_t k,
                                                        const SampleSelectParams& params = {});
template <class ExecSpace, class ValuesView>
ApproximateSelection<typename ValuesView::non_const_value_type> sample_select_approximate(
    const ExecSpace& exec, const ValuesView& values, std::int64_t k, const SampleSelectParams& params = {});

}  // namespace AsyncSparse

#include <asyncsparse/factorization/impl/AsyncSparse_select_kernels.hpp>
