// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — SampleSelect kernels (see AsyncSparse_select.hpp for the algorithm and its guarantees).
//
// One level = sample (on GPUs drawn and sorted in one team, else a device gather, a host sort, splitters back to
// the device) + counting kernel (per value: binary search among the splitters, bucket index stored as the value's
// "oracle", atomic increment of the bucket counter) + host prefix sum over the bucket counts + (exact mode) an
// order-preserving extraction of the chosen bucket by a prefix sum over the oracles.
//
// Bucket ("slot") numbering for splitters s_1 <= ... <= s_{B-1} (stored 0-based as sp(0..B-2)):
//   slot 0      values  < s_1
//   slot 2b-1   values == s_b                 (equality bucket of splitter b)
//   slot 2b     values in (s_b, s_{b+1})      (s_B = +infinity)
// so slots are ordered by value and there are 2B - 1 of them. With b = #{j : s_j <= x} (upper bound)
// equal splitters simply leave their lower equality buckets empty.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_device_scan.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>  // is_gpu_space

namespace AsyncSparse {
namespace Impl {

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T select_key(T x, bool magnitude) {
  return (magnitude && x < T(0)) ? -x : x;
}

/// splitmix64: sample positions as a function of (seed, level, index).
KOKKOS_INLINE_FUNCTION std::uint64_t select_hash(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Slot of `key` among the nsp sorted splitters `sp` (numbering above).
template <class SpView, class T>
KOKKOS_INLINE_FUNCTION int select_slot(const SpView& sp, int nsp, T key) {
  int lo = 0, hi = nsp;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (sp(mid) <= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return 0;
  return sp(lo - 1) == key ? 2 * lo - 1 : 2 * lo;
}

/// Grow a rank-1 workspace View to at least n entries (contents are not kept).
template <class View>
void select_reserve(View& v, std::size_t n, const char* label) {
  if (v.extent(0) < n) v = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n + n / 8 + 16);
}

inline void select_check_params(const SampleSelectParams& p, const char* where) {
  if (p.num_buckets < 2 || p.num_buckets > 2048)
    throw InvalidInput(std::string(where) + ": num_buckets must be in [2, 2048], got " + std::to_string(p.num_buckets));
  if (p.oversampling < 1)
    throw InvalidInput(std::string(where) + ": oversampling must be >= 1, got " + std::to_string(p.oversampling));
  if (p.base_case_size < 1)
    throw InvalidInput(std::string(where) + ": base_case_size must be >= 1, got " + std::to_string(p.base_case_size));
}

inline void select_check_rank(std::int64_t n, std::int64_t k, const char* where) {
  if (n == 0) throw InvalidInput(std::string(where) + ": no values (empty view)");
  if (k < 0 || k >= n)
    throw InvalidInput(std::string(where) + ": k = " + std::to_string(k) + " is out of range [0, " + std::to_string(n) +
                       ") for n = " + std::to_string(n) + " values");
}

/// Counting kernel. Every value of `src` (transformed by select_key when `magnitude`) gets its slot;
/// the slot is stored in `oracle` (exact mode) and counted, either in a per-team scratch histogram
/// that is written to partials(team, :) (TeamAtomics) or directly in the global `counts`
/// (GlobalAtomics). A NaN is not counted; the smallest NaN index is kept in nan_index.
template <class ExecSpace, class Src, class Scalar, class MemSpace>
struct SelectCountFunctor {
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  using scratch_space = typename ExecSpace::scratch_memory_space;
  using ScratchScalar = Kokkos::View<Scalar*, scratch_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using ScratchCount = Kokkos::View<int*, scratch_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Src src;
  bool magnitude;
  Kokkos::View<const Scalar*, MemSpace> splitters;
  int nsp, nslots;
  Kokkos::View<std::uint16_t*, MemSpace> oracle;
  bool write_oracle;
  bool team_mode;
  Kokkos::View<std::int64_t*, MemSpace> counts;
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemSpace> partials;
  Kokkos::View<std::int64_t, MemSpace> nan_index;
  std::int64_t n, per_team;

  static std::size_t scratch_bytes(int nsp_, int nslots_) {
    return ScratchScalar::shmem_size(nsp_) + ScratchCount::shmem_size(nslots_);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    ScratchScalar sp(team.team_scratch(0), nsp);
    ScratchCount hist(team.team_scratch(0), nslots);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nsp), [&](const int j) { sp(j) = splitters(j); });
    if (team_mode) Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nslots), [&](const int s) { hist(s) = 0; });
    team.team_barrier();
    const bool serial_team = team.team_size() == 1;
    const std::int64_t begin = static_cast<std::int64_t>(team.league_rank()) * per_team;
    const std::int64_t end = begin + per_team < n ? begin + per_team : n;
    if (begin < end) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t i) {
        const Scalar key = select_key<Scalar>(src(i), magnitude);
        if (key != key) {
          Kokkos::atomic_fetch_min(&nan_index(), i);
          return;
        }
        const int s = select_slot(sp, nsp, key);
        if (write_oracle) oracle(i) = static_cast<std::uint16_t>(s);
        if (team_mode && serial_team)  // one thread per team (host backends): the histogram is private
          ++hist(s);
        else if (team_mode)
          Kokkos::atomic_add(&hist(s), 1);
        else
          atomic_fetch_add_count(&counts(s), 1);
      });
    }
    if (team_mode) {
      team.team_barrier();
      const int rank = team.league_rank();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nslots), [&](const int s) { partials(rank, s) = hist(s); });
    }
  }
};

/// Everything one level needs to know about the launch of the counting kernel.
struct SelectLaunch {
  ResolvedLaunch resolved;
  int league = 1;
  int team_size = 1;
  std::int64_t per_team = 0;
};

/// Launch of the counting kernel: one lane per element (LaunchDefaults: vector_length 1, at most 1); the league is
/// the occupancy limit, or as many teams as the backend runs at once, at most one per team_size elements.
template <class ExecSpace>
SelectLaunch select_resolve_launch(const LaunchConfig& cfg, std::int64_t n, const ExecSpace& exec, const char* where) {
  LaunchDefaults d;
  d.vector_length = 1;
  d.max_vector_length = 1;
  d.method = std::string(where) + " (counting kernel)";
  SelectLaunch l;
  l.resolved = resolve_launch_config<ExecSpace>(cfg, n, 1.0, exec, d);
  l.team_size = l.resolved.team_size;
  std::int64_t league = cfg.max_concurrent_teams > 0 ? cfg.max_concurrent_teams
                                                     : std::max<std::int64_t>(1, l.resolved.concurrency / l.team_size);
  league = std::max<std::int64_t>(1, std::min<std::int64_t>(league, (n + l.team_size - 1) / l.team_size));
  l.league = static_cast<int>(league);
  l.per_team = (n + league - 1) / league;
  l.resolved.league_size = l.league;
  l.resolved.num_chunks = league;
  l.resolved.chunk_size = static_cast<int>(std::min<std::int64_t>(l.per_team, 1 << 30));
  l.resolved.work_items = n;
  return l;
}

/// Smallest index of a NaN in src (n when none).
template <class ExecSpace, class Src>
std::int64_t select_first_nan(const ExecSpace& exec, const Src& src, std::int64_t n) {
  std::int64_t first = n;
  Kokkos::parallel_reduce(
      "AsyncSparse::sample_select::find_nan", Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& m) {
        const auto v = src(i);
        if (v != v && i < m) m = i;
      },
      Kokkos::Min<std::int64_t>(first));
  return first;
}

[[noreturn]] inline void select_throw_nan(std::int64_t i, const char* where) {
  throw InvalidInput(std::string(where) + ": values(" + std::to_string(i) + ") is NaN; NaN cannot be ranked");
}

/// Copy the (transformed) values of src to a host vector.
template <class ExecSpace, class Scalar, class Device, class Src>
std::vector<Scalar> select_to_host(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& h, const Src& src,
                                   std::int64_t n, bool magnitude) {
  select_reserve(h.sample_, static_cast<std::size_t>(n), "AsyncSparse::sample_select::base_case");
  auto dst = h.sample_;
  Kokkos::parallel_for(
      "AsyncSparse::sample_select::gather_base_case",
      Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { dst(i) = select_key<Scalar>(src(i), magnitude); });
  std::vector<Scalar> out(static_cast<std::size_t>(n));
  Kokkos::deep_copy(
      exec, Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(out.data(), out.size()),
      Kokkos::subview(dst, std::make_pair(std::int64_t(0), n)));
  exec.fence();
  return out;
}

/// Outcome of one level.
template <class Scalar>
struct SelectLevel {
  bool done = false;            ///< value is the answer (base case or equality bucket)
  Scalar value{};               ///< answer, or (approximate) the threshold
  std::int64_t next_n = 0;      ///< exact, not done: size of the extracted bucket
  std::int64_t next_k = 0;      ///< exact, not done: rank inside it
  std::int64_t count_less = 0;  ///< approximate: values < value
  std::int64_t bound = 0;       ///< approximate: rank error bound
  std::int64_t greater = 0;     ///< exact: values of this level above the answer's bucket (done: above the answer)
  std::int64_t equal = 0;       ///< exact, done: values equal to the answer
};

/// The sample of one level: its size S (nb x oversampling, at most n: then every value), and where its j-th element
/// comes from (a hash of the seed, the level and j).
struct SelectSample {
  std::int64_t n = 0, size = 0;
  bool take_all = false;
  std::uint64_t salt = 0;
  KOKKOS_INLINE_FUNCTION std::int64_t position(std::int64_t j) const {
    return take_all ? j
                    : static_cast<std::int64_t>(select_hash(salt + static_cast<std::uint64_t>(j)) %
                                                static_cast<std::uint64_t>(n));
  }
};

inline SelectSample select_sample(const SampleSelectParams& p, std::int64_t n, int level) {
  SelectSample s;
  s.n = n;
  s.size = std::min<std::int64_t>(static_cast<std::int64_t>(p.num_buckets) * p.oversampling, n);
  s.take_all = s.size == n;
  s.salt = p.seed * 0x100000001b3ull + static_cast<std::uint64_t>(level) * 0x9e3779b97f4a7c15ull;
  return s;
}

/// Smallest power of two >= s.
inline std::int64_t select_pow2(std::int64_t s) {
  std::int64_t p = 1;
  while (p < s) p *= 2;
  return p;
}

/// Most sample bytes (padded to a power of two) that select_splitters sorts in one team on a GPU: 4,096 doubles, four
/// times the default sample (256 buckets x oversampling 4), in team scratch memory. Larger samples are sorted on the
/// host.
constexpr std::size_t kSelectTeamSortMaxBytes = 32768;

/// The splitters of one level in one launch of one team: the team draws the sample into team scratch memory (padded
/// with +Inf to a power of two), sorts it with a bitonic network (one team barrier per stage: 55 for 1,024 values)
/// and writes the nb - 1 splitters, the values at sample ranks j S / nb. The same multiset sorted as std::sort sorts
/// it: the same splitters as the host path. A NaN in the sample leaves the order undefined; the counting kernel
/// that follows finds it among the values and the level throws.
template <class ExecSpace, class Src, class Scalar, class MemSpace>
struct SelectTeamSplittersFunctor {
  using member_type = typename Impl::TeamPolicy<ExecSpace>::member_type;
  using ScratchScalar =
      Kokkos::View<Scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Src src;
  bool magnitude;
  SelectSample sample;
  int padded, nb;
  Scalar inf;  ///< the padding: sorts after every sample value (NaN aside)
  Kokkos::View<Scalar*, MemSpace> splitters;
  Kokkos::View<std::int64_t, MemSpace> nan_index;  ///< set to n here (no NaN found yet), for the counting kernel

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    ScratchScalar v(team.team_scratch(0), padded);
    const std::int64_t S = sample.size;
    Kokkos::single(Kokkos::PerTeam(team), [&]() { nan_index() = sample.n; });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, padded), [&](const int j) {
      v(j) = j < S ? select_key<Scalar>(src(sample.position(j)), magnitude) : inf;
    });
    team.team_barrier();
    for (int k = 2; k <= padded; k *= 2)
      for (int d = k / 2; d > 0; d /= 2) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, padded / 2), [&](const int q) {
          const int i = 2 * q - (q & (d - 1));  // q with a 0 inserted at bit d: the pair (i, i + d)
          const bool ascending = (i & k) == 0;
          const Scalar a = v(i), b = v(i + d);
          if ((a > b) == ascending && a != b) {
            v(i) = b;
            v(i + d) = a;
          }
        });
        team.team_barrier();
      }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nb - 1), [&](const int j) {
      splitters(j) = v(static_cast<int>((static_cast<std::int64_t>(j + 1) * S) / nb));
    });
  }
};

/// Whether select_splitters sorts the sample of `sample` on the device (GPUs, samples up to kSelectTeamSortMaxBytes
/// that also fit the backend's team memory).
template <class ExecSpace, class Scalar>
bool select_team_sort(const SelectSample& sample) {
  const std::size_t bytes = static_cast<std::size_t>(select_pow2(sample.size)) * sizeof(Scalar);
  return is_gpu_space<ExecSpace>() && bytes <= kSelectTeamSortMaxBytes &&
         bytes <= static_cast<std::size_t>(Impl::TeamPolicy<ExecSpace>::scratch_size_max(0));
}

/// The counting kernel's bucket counts (h.counts_, 2 num_buckets - 1 slots) and its NaN index h.nan_index_, which is
/// the slot after them: one copy reads both back (select_count).
template <class Scalar, class Device>
void select_nan_index(SampleSelectHandle<Scalar, Device>& h) {
  const int nslots = 2 * h.params.num_buckets - 1;
  select_reserve(h.counts_, static_cast<std::size_t>(nslots) + 1, "AsyncSparse::sample_select::counts");
  h.nan_index_ = Kokkos::subview(h.counts_, nslots);
}

/// The splitters of the last level (h.splitters_) on the host, where select_team_splitters left them on the device.
template <class ExecSpace, class Scalar, class Device>
void select_read_splitters(const ExecSpace& exec, const SampleSelectHandle<Scalar, Device>& h,
                           std::vector<Scalar>& hsp) {
  if (!hsp.empty()) return;
  const int nsp = h.params.num_buckets - 1;
  hsp.resize(static_cast<std::size_t>(nsp));
  Kokkos::deep_copy(
      exec, Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(hsp.data(), hsp.size()),
      Kokkos::subview(h.splitters_, std::make_pair(0, nsp)));
  exec.fence();
}

/// select_splitters on the device: the splitters in h.splitters_ and h.nan_index_ = n (one launch; nothing read
/// back).
template <class ExecSpace, class Scalar, class Device, class Src>
void select_team_splitters(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& h, const Src& src, bool magnitude,
                           const SelectSample& sample) {
  using MemSpace = typename Device::memory_space;
  using F = SelectTeamSplittersFunctor<ExecSpace, Src, Scalar, MemSpace>;
  const int nb = h.params.num_buckets;
  select_reserve(h.splitters_, static_cast<std::size_t>(nb - 1), "AsyncSparse::sample_select::splitters");
  const int padded = static_cast<int>(select_pow2(sample.size));
  select_nan_index(h);
  const F f{src, magnitude, sample, padded, nb, std::numeric_limits<Scalar>::infinity(), h.splitters_, h.nan_index_};
  Impl::TeamPolicy<ExecSpace> probe(exec, 1, 1);
  probe = probe.set_scratch_size(0, Kokkos::PerTeam(F::ScratchScalar::shmem_size(padded)));
  const int team = std::max(1, std::min(std::max(1, padded / 2), probe.team_size_max(f, Kokkos::ParallelForTag())));
  Impl::TeamPolicy<ExecSpace> policy(exec, 1, team);
  policy = policy.set_scratch_size(0, Kokkos::PerTeam(F::ScratchScalar::shmem_size(padded)));
  Kokkos::parallel_for("AsyncSparse::sample_select::team_splitters", policy, f);
}

/// Splitters of one level: a sample of `src` (all values when n is not larger than the sample), sorted on the host
/// (or in one team on GPUs: select_team_sort; `hsp` is then left empty and select_count reads them back with the
/// counts); the nb - 1 splitters go to h.splitters_ and, on the host path, to `hsp`.
template <class ExecSpace, class Scalar, class Device, class Src>
void select_splitters(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& h, const Src& src, bool magnitude,
                      std::int64_t n, int level, const char* where, std::vector<Scalar>& hsp) {
  const SampleSelectParams& p = h.params;
  const int nb = p.num_buckets, nsp = nb - 1;
  const SelectSample smp = select_sample(p, n, level);
  const std::int64_t S = smp.size;
  hsp.clear();
  if (select_team_sort<ExecSpace, Scalar>(smp)) {
    select_team_splitters(exec, h, src, magnitude, smp);
    return;
  }
  select_reserve(h.sample_, static_cast<std::size_t>(S), "AsyncSparse::sample_select::sample");
  {
    auto sample = h.sample_;
    Kokkos::parallel_for(
        "AsyncSparse::sample_select::sample", Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, S),
        KOKKOS_LAMBDA(const std::int64_t j) { sample(j) = select_key<Scalar>(src(smp.position(j)), magnitude); });
  }
  std::vector<Scalar> hs(static_cast<std::size_t>(S));
  Kokkos::deep_copy(
      exec, Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(hs.data(), hs.size()),
      Kokkos::subview(h.sample_, std::make_pair(std::int64_t(0), S)));
  exec.fence();
  for (const Scalar& v : hs)
    if (v != v) select_throw_nan(select_first_nan(exec, src, n), where);
  std::sort(hs.begin(), hs.end());
  hsp.resize(static_cast<std::size_t>(nsp));
  for (int j = 1; j < nb; ++j) hsp[j - 1] = hs[static_cast<std::size_t>((static_cast<std::int64_t>(j) * S) / nb)];
  select_reserve(h.splitters_, static_cast<std::size_t>(nsp), "AsyncSparse::sample_select::splitters");
  Kokkos::deep_copy(
      exec, Kokkos::subview(h.splitters_, std::make_pair(0, nsp)),
      Kokkos::View<const Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(hsp.data(), hsp.size()));
}

/// The counting kernel with the splitters in h.splitters_ (and, TeamAtomics, the reduction of the per-team counts),
/// launched: the counts land in h.counts_ (2 num_buckets - 1 slots), the smallest NaN index in h.nan_index_ (n when
/// none); with `exact` each value's slot is also kept in h.oracle_. `team_sorted`: select_team_splitters ran, which
/// also reset h.nan_index_.
template <class ExecSpace, class Scalar, class Device, class Src>
void select_count_launch(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& h, const Src& src, bool magnitude,
                         std::int64_t n, bool exact, const SelectLaunch& launch, bool team_sorted) {
  using MemSpace = typename Device::memory_space;
  const SampleSelectParams& p = h.params;
  const int nb = p.num_buckets, nsp = nb - 1, nslots = 2 * nb - 1;
  if (exact) select_reserve(h.oracle_, static_cast<std::size_t>(n), "AsyncSparse::sample_select::oracle");
  select_nan_index(h);
  if (!team_sorted) Kokkos::deep_copy(exec, h.nan_index_, n);
  const bool team_mode = p.counting == BucketCounting::TeamAtomics;
  if (team_mode) {
    if (h.partials_.extent(0) < static_cast<std::size_t>(launch.league) ||
        h.partials_.extent(1) != static_cast<std::size_t>(nslots))
      h.partials_ = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::sample_select::partials"), launch.league,
          nslots);
  } else {
    Kokkos::deep_copy(exec, Kokkos::subview(h.counts_, std::make_pair(0, nslots)), std::int64_t(0));
  }
  using F = SelectCountFunctor<ExecSpace, Src, Scalar, MemSpace>;
  F f{src,       magnitude, h.splitters_, nsp,          nslots, h.oracle_,      exact,
      team_mode, h.counts_, h.partials_,  h.nan_index_, n,      launch.per_team};
  Impl::TeamPolicy<ExecSpace> policy(exec, launch.league, launch.team_size);
  policy = policy.set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes(nsp, team_mode ? nslots : 0)));
  Kokkos::parallel_for(
      team_mode ? "AsyncSparse::sample_select::count_team" : "AsyncSparse::sample_select::count_global", policy, f);
  if (team_mode) {  // reduction of the per-team counts
    auto partials = h.partials_;
    auto counts = h.counts_;
    const int league = launch.league;
    Kokkos::parallel_for(
        "AsyncSparse::sample_select::reduce_counts", Impl::RangePolicy<ExecSpace>(exec, 0, nslots),
        KOKKOS_LAMBDA(const int s) {
          std::int64_t c = 0;
          for (int t = 0; t < league; ++t) c += partials(t, s);
          counts(s) = c;
        });
  }
}

/// Bucket counts of one level (select_count_launch), on the host (one copy, the NaN index with them). `hsp` empty:
/// select_team_splitters ran (the splitters stay on the device until select_read_splitters).
template <class ExecSpace, class Scalar, class Device, class Src>
std::vector<std::int64_t> select_count(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& h, const Src& src,
                                       bool magnitude, std::int64_t n, bool exact, const SelectLaunch& launch,
                                       const char* where, std::vector<Scalar>& hsp) {
  const int nslots = 2 * h.params.num_buckets - 1;
  select_count_launch(exec, h, src, magnitude, n, exact, launch, hsp.empty());
  std::vector<std::int64_t> hc(static_cast<std::size_t>(nslots) + 1);  // the counts, then the NaN index
  Kokkos::deep_copy(
      exec,
      Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(hc.data(), hc.size()),
      Kokkos::subview(h.counts_, std::make_pair(0, nslots + 1)));
  exec.fence();
  const std::int64_t nan_at = hc.back();
  if (nan_at < n) select_throw_nan(nan_at, where);
  hc.pop_back();
  return hc;
}

/// One SampleSelect level on `src` (n values, rank k). exact: recurse (extract the bucket into dst) or
/// finish; !exact: compute the approximate threshold.
template <class ExecSpace, class Scalar, class Device, class Src, class Dst>
SelectLevel<Scalar> select_level(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& h, const Src& src,
                                 bool magnitude, std::int64_t n, std::int64_t k, int level, bool exact, Dst& dst,
                                 const SelectLaunch& launch, const char* where) {
  const SampleSelectParams& p = h.params;
  SelectLevel<Scalar> out;
  auto& st = h.stats;

  if (exact && n <= p.base_case_size) {  // host base case
    auto v = select_to_host(exec, h, src, n, magnitude);
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] != v[i]) select_throw_nan(static_cast<std::int64_t>(i), where);
    std::nth_element(v.begin(), v.begin() + k, v.end());
    out.done = true;
    out.value = v[static_cast<std::size_t>(k)];
    for (const Scalar& x : v) {
      out.greater += x > out.value ? 1 : 0;
      out.equal += x == out.value ? 1 : 0;
    }
    st.base_case_size = n;
    return out;
  }

  // 1. sample and splitters, 2. count
  const int nslots = 2 * p.num_buckets - 1;
  std::vector<Scalar> hsp;
  select_splitters(exec, h, src, magnitude, n, level, where, hsp);
  const std::vector<std::int64_t> hc = select_count(exec, h, src, magnitude, n, exact, launch, where, hsp);
  ++st.levels;
  st.level_sizes.push_back(n);

  // 3. slot holding rank k
  std::int64_t before = 0;
  int slot = 0;
  for (; slot < nslots; ++slot) {
    if (k < before + hc[slot]) break;
    before += hc[slot];
  }
  if (slot == nslots) throw Error(std::string(where) + ": internal error: bucket counts do not add up to n");
  // every value equal to the answer is in its slot: a splitter's values fill its equality slot, a strict slot holds
  // the values strictly between two splitters
  out.greater = n - before - hc[slot];
  if (slot % 2 == 1 || (!exact && slot > 0)) select_read_splitters(exec, h, hsp);  // the answer is a splitter
  if (slot % 2 == 1) {  // equality bucket: the answer is its splitter
    out.done = true;
    out.value = hsp[static_cast<std::size_t>((slot + 1) / 2 - 1)];
    out.count_less = before;
    out.bound = hc[slot];
    out.equal = hc[slot];
    st.equality_bucket_hit = true;
    return out;
  }
  if (!exact) {
    if (slot == 0) {  // below the first splitter: the threshold is the minimum (keeps everything)
      Scalar mn{};
      Kokkos::parallel_reduce(
          "AsyncSparse::sample_select::min", Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
          KOKKOS_LAMBDA(const std::int64_t i, Scalar& m) {
            const Scalar v = select_key<Scalar>(src(i), magnitude);
            if (v < m) m = v;
          },
          Kokkos::Min<Scalar>(mn));
      out.value = mn;
      out.count_less = 0;
      out.bound = hc[0];
    } else {  // lower splitter of the strict bucket; its equality bucket precedes it
      out.value = hsp[static_cast<std::size_t>(slot / 2 - 1)];
      out.count_less = before - hc[slot - 1];
      out.bound = hc[slot - 1] + hc[slot];
    }
    return out;
  }
  // 4. extract the bucket (order preserving) for the next level
  const std::int64_t m = hc[slot];
  select_reserve(dst, static_cast<std::size_t>(m), "AsyncSparse::sample_select::buffer");
  auto oracle = h.oracle_;
  auto d = dst;
  const std::uint16_t want_slot = static_cast<std::uint16_t>(slot);
  const auto temp = [&](std::size_t bytes) -> void* {
    select_reserve(h.scan_temp_, bytes / sizeof(double) + 1, "AsyncSparse::sample_select::scan_temp");
    return h.scan_temp_.data();
  };
  compact_flagged(
      exec, temp, d, KOKKOS_LAMBDA(const std::int64_t i)->Scalar { return select_key<Scalar>(src(i), magnitude); },
      KOKKOS_LAMBDA(const std::int64_t i)->bool { return oracle(i) == want_slot; }, n,
      "AsyncSparse::sample_select::extract");
  out.next_n = m;
  out.next_k = k - before;
  return out;
}

/// The start of a selection of rank k among n values: parameters and rank checked, the handle's statistics reset to n
/// and k, and the counting kernel's launch resolved for n values (recorded in the statistics).
template <class ExecSpace, class Scalar, class Device>
SelectLaunch select_start(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& h, std::int64_t n, std::int64_t k,
                          const char* where) {
  select_check_params(h.params, where);
  select_check_rank(n, k, where);
  auto& st = h.stats;
  st = SampleSelectStats();
  st.n = n;
  st.k = k;
  const SelectLaunch launch = select_resolve_launch(h.launch, n, exec, where);
  st.launch = launch.resolved;
  return launch;
}

template <class ExecSpace, class Scalar, class Device, class ValuesView>
void select_check_types() {
  static_assert(Kokkos::is_view<ValuesView>::value && ValuesView::rank == 1,
                "sample_select: values must be a rank-1 View");
  static_assert(std::is_same<typename ValuesView::non_const_value_type, Scalar>::value,
                "sample_select: the handle's Scalar must be the value type of the View");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename ValuesView::memory_space>::accessible,
                "sample_select: the values must be accessible from the execution space");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Device::memory_space>::accessible,
                "sample_select: the handle's memory space must be accessible from the execution space");
}

template <class ExecSpace, class Scalar, class Device, class ValuesView>
SelectLevel<Scalar> select_run(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& h, const ValuesView& values,
                               std::int64_t k, bool exact, const char* where) {
  select_check_types<ExecSpace, Scalar, Device, ValuesView>();
  const std::int64_t n = static_cast<std::int64_t>(values.extent(0));
  Kokkos::Timer timer;
  SelectLaunch launch = select_start(exec, h, n, k, where);
  auto& st = h.stats;
  const bool magnitude = h.params.order == SelectOrder::Magnitude;

  auto r = select_level(exec, h, values, magnitude, n, k, 0, exact, h.buf_a_, launch, where);
  std::int64_t greater = r.greater;
  bool in_a = true;  // the current values are in buf_a_
  int level = 1;
  while (!r.done && exact) {
    if (level > 200) throw Error(std::string(where) + ": internal error: no progress in the recursion");
    launch = select_resolve_launch(h.launch, r.next_n, exec, where);
    auto& src = in_a ? h.buf_a_ : h.buf_b_;
    auto& dst = in_a ? h.buf_b_ : h.buf_a_;
    const auto cur = Kokkos::subview(src, std::make_pair(std::int64_t(0), r.next_n));
    auto next = select_level(exec, h, cur, false, r.next_n, r.next_k, level, true, dst, launch, where);
    r = next;
    greater += r.greater;
    in_a = !in_a;
    ++level;
  }
  if (!exact) {
    st.count_less = r.count_less;
    st.rank_error_bound = r.bound;
  } else {
    st.count_greater = greater;
    st.count_equal = r.equal;
  }
  exec.fence();
  st.seconds = timer.seconds();
  return r;
}

}  // namespace Impl

template <class ExecSpace, class Scalar, class Device, class ValuesView>
Scalar sample_select(const ExecSpace& exec, SampleSelectHandle<Scalar, Device>& handle, const ValuesView& values,
                     std::int64_t k) {
  return Impl::select_run(exec, handle, values, k, true, "sample_select").value;
}

template <class ExecSpace, class Scalar, class Device, class ValuesView>
ApproximateSelection<Scalar> sample_select_approximate(const ExecSpace& exec,
                                                       SampleSelectHandle<Scalar, Device>& handle,
                                                       const ValuesView& values, std::int64_t k) {
  auto r = Impl::select_run(exec, handle, values, k, false, "sample_select_approximate");
  ApproximateSelection<Scalar> out;
  out.value = r.value;
  out.count_less = r.count_less;
  out.rank_error_bound = r.bound;
  return out;
}

template <class ExecSpace, class ValuesView>
typename ValuesView::non_const_value_type sample_select(const ExecSpace& exec, const ValuesView& values, std::int64_t k,
                                                        const SampleSelectParams& params) {
  SampleSelectHandle<typename ValuesView::non_const_value_type,
                     Kokkos::Device<ExecSpace, typename ValuesView::memory_space>>
      h(params);
  return sample_select(exec, h, values, k);
}

template <class ExecSpace, class ValuesView>
ApproximateSelection<typename ValuesView::non_const_value_type> sample_select_approximate(
    const ExecSpace& exec, const ValuesView& values, std::int64_t k, const SampleSelectParams& params) {
  SampleSelectHandle<typename ValuesView::non_const_value_type,
                     Kokkos::Device<ExecSpace, typename ValuesView::memory_space>>
      h(params);
  return sample_select_approximate(exec, h, values, k);
}

}  // namespace AsyncSparse
