// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — run a kernel over work chunks in a controlled block order and occupancy.
//
// `ChunkedLaunch` is built once per (algorithm, problem) from a ResolvedLaunch: it uploads the
// block-order permutation to the device and then runs functors of the form
//     f(const member_type& team, std::int64_t unit)
// for every work unit in [0, work_items). Each team processes whole chunks (`chunk_size` consecutive
// units, one unit per thread of the team; the functor may use Kokkos::ThreadVectorRange over the
// team's vector lanes inside a unit). Launch position p runs chunk order[p]; with a persistent-team
// occupancy limit, team t runs positions t, t + P, t + 2P, ... in that sequence. On host backends the launch
// positions go to the threads in equal contiguous shares (Kokkos' static schedule), or with
// ResolvedLaunch::dynamic_schedule by Kokkos' dynamic schedule: each thread starts on its own share and, when done,
// takes positions from the end of the others' shares, so a thread slowed down by another process on its core runs
// fewer chunks instead of making the others wait at the end of the launch. A thread then runs its own share in
// ascending order and the positions it takes from the others in descending order; which thread runs a position
// (and so the block order across threads) is decided at run time. On host backends a thread visits the units of a
// chunk in ResolvedLaunch::unit_stride interleaved passes (begin, begin + s, ..., then begin + 1, ...), so that in an
// in-place sweep consecutive units need not wait on each other's results. A functor that declares
// `static constexpr bool host_sequence = true` and has `run_sequence(team, first, end, step)` gets each such pass
// (units first, first + step, ... below end) in one call on host backends when the team has one thread, so that it
// can carry values in registers from one unit to the next (the row-merge sweep carries the pivot of the row it has
// just finished); it runs the units in the same order as the per-unit calls would.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>

namespace AsyncSparse {
namespace Impl {
/// Whether a ChunkedLaunch functor takes a host thread's pass over a chunk in one call (run_sequence).
template <class F, class = void>
struct has_host_sequence : std::false_type {};
template <class F>
struct has_host_sequence<F, std::void_t<decltype(F::host_sequence)>> : std::bool_constant<F::host_sequence> {};
}  // namespace Impl

template <class ExecSpace>
class ChunkedLaunch {
 public:
  using execution_space = ExecSpace;
  using policy_type = Impl::TeamPolicy<ExecSpace>;
  using member_type = typename policy_type::member_type;
  using order_view = Kokkos::View<std::int64_t*, typename ExecSpace::memory_space>;

  ChunkedLaunch() = default;
  explicit ChunkedLaunch(const ResolvedLaunch& r) : launch_(r) {
    if (r.block_order == BlockOrder::Forward) return;  // identity: no permutation (order() stays empty)
    auto host = block_order_permutation(r.num_chunks, r.block_order, r.seed);
    order_ = order_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::block_order"), host.size());
    Kokkos::deep_copy(order_, Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                  host.data(), host.size()));
  }

  const ResolvedLaunch& resolved() const { return launch_; }
  /// The block-order permutation on the device; empty for BlockOrder::Forward (launch position = chunk).
  const order_view& order() const { return order_; }

  template <class Functor>
  void run(const std::string& label, const ExecSpace& exec, const Functor& f) const {
    if (launch_.num_chunks == 0) return;
    const Body<Functor> body{f,
                             order_,
                             launch_.work_items,
                             launch_.num_chunks,
                             launch_.chunk_size,
                             launch_.league_size,
                             launch_.unit_stride,
                             order_.data() == nullptr};
    if constexpr (!Impl::is_gpu_space<ExecSpace>()) {  // GPUs: no kernel of the dynamic schedule is compiled
      if (launch_.dynamic_schedule) {
        using dynamic_policy = Impl::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
        static_assert(std::is_same<typename dynamic_policy::member_type, member_type>::value,
                      "ChunkedLaunch: the dynamic schedule must have the same team member type");
        Kokkos::parallel_for(label, dynamic_policy(exec, launch_.league_size, launch_.team_size, launch_.vector_length),
                             body);
        return;
      }
    }
    policy_type policy(exec, launch_.league_size, launch_.team_size, launch_.vector_length);
    if (launch_.scratch_pad_bytes > 0) policy = policy.set_scratch_size(0, Kokkos::PerTeam(launch_.scratch_pad_bytes));
    Kokkos::parallel_for(label, policy, body);
  }

 public:
  /// Kernel body (public: CUDA's kernel stubs must be able to name it).
  template <class Functor>
  struct Body {
    Functor f;
    order_view order;
    std::int64_t work_items, num_chunks;
    int chunk_size, league;
    int stride;  // host backends: interleaved passes over a chunk's units (1 on GPUs)
    bool identity;
    static constexpr bool host_backend = !Impl::is_gpu_space<ExecSpace>();
    KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
      for (std::int64_t pos = team.league_rank(); pos < num_chunks; pos += league) {
        const std::int64_t chunk = identity ? pos : order(pos);
        const std::int64_t begin = chunk * chunk_size;
        const std::int64_t end = begin + chunk_size < work_items ? begin + chunk_size : work_items;
        if constexpr (host_backend && Impl::has_host_sequence<Functor>::value) {
          if (team.team_size() == 1) {
            for (int r = 0; r < stride && begin + r < end; ++r) f.run_sequence(team, begin + r, end, stride);
            continue;
          }
        }
        if constexpr (host_backend) {
          if (stride > 1) {
            for (int r = 0; r < stride && begin + r < end; ++r) {
              const std::int64_t first = begin + r, count = (end - first + stride - 1) / stride;
              Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count),
                                   [&](const std::int64_t k) { f(team, first + k * stride); });
            }
            continue;
          }
        }
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t unit) { f(team, unit); });
      }
    }
  };

 private:
  ResolvedLaunch launch_;
  order_view order_;
};

}  // namespace AsyncSparse
