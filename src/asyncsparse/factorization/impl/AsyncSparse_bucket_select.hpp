// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — exact selection of the k-th smallest magnitude launched without a wait for the device: one
// SampleSelect level, then the one-team radix select on the bucket that holds the rank.
//
// SampleSelect (AsyncSparse_select.hpp) reads the bucket counts back after each level, to choose the bucket and size
// the next level, and finishes on the host: two waits for the device per selection of 30,000-400,000 values, where
// the one-team radix select (AsyncSparse_team_select.hpp) is too slow (one team reads at one SM's bandwidth). Here the
// level's splitters (sorted in one team) and counts are computed as SampleSelect computes them, a one-team kernel picks
// the slot that holds rank k from the counts (`AsyncSparse::bucket_select::pick`, its findings in the entries
// BucketSelectEntry names), the values of that slot are gathered (in no particular order: the selection depends only
// on the multiset) and the one-team select ranks them: about n / num_buckets values. An equality slot (values equal to
// a splitter) is answered by its splitter. The result is the one team_select_launch gives, std::nth_element's value at
// position k, with the values greater and equal counted over all n values; the host reads it when it needs it (ParILUT
// / ParICT: with the other factor's, in one wait).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/factorization/AsyncSparse_select.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_team_select.hpp>

namespace AsyncSparse {
namespace Impl {

/// The k-th smallest of values(0..n) by magnitude (0 <= k < n), launched on `exec` without a wait: its result lands in
/// out(0..3) as team_select_launch's does (team_select_result; a NaN among the values is reported as nan_count 1, or,
/// where the level's sample is sorted on the host (select_team_sort) and holds it, thrown at once as SampleSelect
/// throws it).
/// `bucket`: kBucketEntries device entries of workspace; the handle's workspace (splitters, counts, oracle, buf_a_)
/// is used, and must not be used by another selection before this one is done on `exec`. h.stats records the level.
template <class ExecSpace, class Scalar, class Device, class Values, class Bucket, class Out>
void bucket_select_launch(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& h, const Values& values,
                          std::int64_t n, std::int64_t k, const Bucket& bucket, const Out& out) {
  const char* where = "bucket_select";
  const SelectLaunch launch = select_start(exec, h, n, k, where);
  if (bucket.extent(0) < static_cast<std::size_t>(kBucketEntries) || out.extent(0) < 4)
    throw InvalidInput(std::string(where) + ": `bucket` needs " + std::to_string(int(kBucketEntries)) +
                       " entries, `out` 4");
  h.stats.levels = 1;
  h.stats.level_sizes.assign(1, n);
  std::vector<Scalar> hsp;  // empty where the splitters were sorted on the device (GPUs)
  select_splitters(exec, h, values, true, n, 0, where, hsp);
  select_count_launch(exec, h, values, true, n, true, launch, hsp.empty());

  // the slot that holds rank k: an exclusive scan of the counts in one team
  const int nslots = 2 * h.params.num_buckets - 1;
  const auto counts = h.counts_;
  const auto nan_index = h.nan_index_;
  using Member = typename Impl::TeamPolicy<ExecSpace>::member_type;
  Kokkos::parallel_for(
      "AsyncSparse::bucket_select::pick", Impl::TeamPolicy<ExecSpace>(exec, 1, is_gpu_space<ExecSpace>() ? 256 : 1),
      KOKKOS_LAMBDA(const Member& team) {
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          bucket(kBucketNan) = nan_index() < n ? 1 : 0;  // NaN are not counted: rank k may lie in no slot
          bucket(kBucketFill) = 0;
        });
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, nslots),
                              [&](const int s, std::int64_t& partial, const bool final) {
                                const std::int64_t c = counts(s);
                                if (final && partial <= k && k < partial + c) {
                                  bucket(kBucketSlot) = s;
                                  bucket(kBucketBefore) = partial;
                                  bucket(kBucketSize) = c;
                                  bucket(kBucketAbove) = n - partial - c;
                                }
                                partial += c;
                              });
      });
  // its values, gathered into buf_a_ (an equality slot needs none: its splitter is the answer)
  select_reserve(h.buf_a_, static_cast<std::size_t>(n), "AsyncSparse::sample_select::buffer");
  const auto buf = h.buf_a_;
  const auto oracle = h.oracle_;
  Kokkos::parallel_for(
      "AsyncSparse::bucket_select::gather", Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t s = bucket(kBucketSlot);
        if (bucket(kBucketNan) != 0 || s % 2 == 1 || oracle(i) != s) return;
        buf(atomic_fetch_add_count(&bucket(kBucketFill), 1)) = select_key<Scalar>(values(i), true);
      });
  team_select_bucket_launch(exec, Kokkos::subview(buf, std::make_pair(std::int64_t(0), n)), k, bucket, h.splitters_,
                            out);
}

}  // namespace Impl
}  // namespace AsyncSparse
