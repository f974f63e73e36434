// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the execution policies every kernel of the library is launched with.
//
// Impl::RangePolicy<ExecSpace, Traits...> and Impl::TeamPolicy<ExecSpace, Traits...> are Kokkos' policies with the
// work-item property HintLightWeight. On CUDA the property decides how a kernel's closure (the functor with the
// policy) reaches the device. Without it, Kokkos (3.4 and 4.6 alike, DeduceCudaLaunchMechanism in
// Kokkos_Cuda_KernelLaunch.hpp) passes closures under 512 bytes as kernel arguments and copies larger ones into one
// constant-memory buffer per device — and before each such copy the host waits, with cudaEventSynchronize, until the
// previous kernel that used the buffer has finished. A chain of such kernels (a preconditioner's sweeps, a Krylov
// iteration) then runs one kernel at a time with the host's launch latency between them, instead of queueing them:
// on small systems the GPU idles most of the time (perf_tests/results/MEASUREMENTS.md#launch-mechanism). With the
// hint, closures under 4 KB (all of the library's) are kernel arguments, which CUDA queues without waiting; larger
// ones would go through global memory, which does not wait either. Host backends ignore the property.
//
// Impl::launch_rows: the range launch of the row-per-thread kernels (the CRS product's, the Jacobi sweeps'), with
// Kokkos' default block size or 256-thread blocks. Impl::parallel_for_row_team: the team launch of the ParIC / ParILU
// row-team sweep, with a register bound on GPUs (kRowTeamBoundMinBlocks).
//
// The execution space instance: kernels on a solver's iteration path take launch_instance<ExecSpace>() — the default
// instance, or the one a LaunchInstanceScope of the calling thread names (Impl::GraphReplay records a CG
// iteration's kernels on a stream of its own that way, without passing an instance through every interface).
//
// tools/check-source (rule `policies`) keeps Kokkos::RangePolicy / Kokkos::TeamPolicy out of src/ except here.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>

namespace AsyncSparse {
namespace Impl {

using LightWeightLaunch = Kokkos::Experimental::WorkItemProperty::HintLightWeight_t;

/// Kokkos::RangePolicy with the light-weight launch hint (see the header comment).
template <class... Traits>
using RangePolicy = Kokkos::RangePolicy<Traits..., LightWeightLaunch>;

/// Kokkos::TeamPolicy with the light-weight launch hint (see the header comment).
template <class... Traits>
using TeamPolicy = Kokkos::TeamPolicy<Traits..., LightWeightLaunch>;

/// True for the GPU execution spaces (CUDA, HIP), whose kernels take the GPU launch defaults.
template <class ExecSpace>
constexpr bool is_gpu_space() {
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<ExecSpace, Kokkos::Cuda>::value) return true;
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if (std::is_same<ExecSpace, Compat::HIP>::value) return true;
#endif
  return false;
}

/// Register bound of the ParIC / ParILU row-team sweep kernel on GPUs (SweepKernel::RowTeam): launched with
/// Kokkos::LaunchBounds<kRowTeamBoundThreads, kRowTeamBoundMinBlocks>, i.e. at most 65,536 / (256 x 8) = 32 registers
/// per thread, where a team has at most kRowTeamBoundThreads threads (lanes included; larger teams launch unbounded).
/// Without the bound the compiler gave its IC / ILU kernels 48 / 54 registers (56-63 % occupancy on an H100); with it
/// one sweep on the 27-point 64^3 Laplacian took 0.83x / 0.81x the time (6 blocks, 40 registers: 0.90x / 0.83x). Not
/// applied where it was measured slower: the list kernel (64 registers for its four loads in flight; 1.3x slower with
/// 6 blocks, 3-4x with 8) and the ParICT / ParILUT row-team kernel (1.03-1.12x per step on the 5- and 27-point grids).
/// Measured on CUDA only; HIP takes the same bound unmeasured.
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#row-team-registers
constexpr unsigned kRowTeamBoundThreads = 256;
constexpr unsigned kRowTeamBoundMinBlocks = 8;

/// Kokkos::parallel_for of the team functor `f` over `league` teams of `team` threads with `lanes` vector lanes and
/// `bytes` of scratch at `level`: with the register bound kRowTeamBoundMinBlocks on GPUs where the team has at most
/// kRowTeamBoundThreads threads and kRowTeamBoundMinBlocks such teams fit a multiprocessor's shared memory, else with
/// Impl::TeamPolicy. The second condition is Kokkos' own (team_size_max of the bounded policy with its scratch): its
/// block size deduction asks for the bound's blocks per multiprocessor, and a team of more than about 28 KB of team
/// memory (an H100's 228 KB / 8) was refused outright ("requested too large team size"; ParILU's row-team kernel on
/// rows of 37-53 entries).
template <class ExecSpace, class F>
void parallel_for_row_team(const std::string& label, const ExecSpace& exec, std::int64_t league, int team, int lanes,
                           int level, std::size_t bytes, const F& f) {
  if constexpr (is_gpu_space<ExecSpace>()) {
    if (static_cast<std::int64_t>(team) * lanes <= static_cast<std::int64_t>(kRowTeamBoundThreads)) {
      using bounded = TeamPolicy<ExecSpace, Kokkos::LaunchBounds<kRowTeamBoundThreads, kRowTeamBoundMinBlocks>>;
      const auto policy =
          bounded(exec, static_cast<int>(league), team, lanes).set_scratch_size(level, Kokkos::PerTeam(bytes));
      if (policy.team_size_max(f, Kokkos::ParallelForTag()) >= team) {
        Kokkos::parallel_for(label, policy, f);
        return;
      }
    }
  }
  Kokkos::parallel_for(label,
                       TeamPolicy<ExecSpace>(exec, static_cast<int>(league), team, lanes)
                           .set_scratch_size(level, Kokkos::PerTeam(bytes)),
                       f);
}

template <class ExecSpace>
struct LaunchInstanceSlot {
  static inline thread_local const ExecSpace* current = nullptr;
};

/// The instance the calling thread launches on: the innermost LaunchInstanceScope's, else the default instance.
template <class ExecSpace>
ExecSpace launch_instance() {
  const ExecSpace* p = LaunchInstanceSlot<ExecSpace>::current;
  return p ? *p : ExecSpace();
}

/// Within its lifetime, launch_instance<ExecSpace>() of this thread returns `exec` (scopes nest).
template <class ExecSpace>
class LaunchInstanceScope {
 public:
  explicit LaunchInstanceScope(const ExecSpace& exec) : exec_(exec), previous_(LaunchInstanceSlot<ExecSpace>::current) {
    LaunchInstanceSlot<ExecSpace>::current = &exec_;
  }
  ~LaunchInstanceScope() { LaunchInstanceSlot<ExecSpace>::current = previous_; }
  LaunchInstanceScope(const LaunchInstanceScope&) = delete;
  LaunchInstanceScope& operator=(const LaunchInstanceScope&) = delete;

 private:
  ExecSpace exec_;
  const ExecSpace* previous_;
};

/// A range launch over [0, n) on launch_instance<ExecSpace>(): Kokkos' default block size, or 256-thread blocks
/// (Kokkos::LaunchBounds<256, 1>) when `bounded_blocks` — the choice the row-per-thread kernels (the product's, the
/// Jacobi sweeps') make by their rows' length. A parallel_reduce into `out` when one is passed.
template <class ExecSpace, class Index, class F, class... Out>
void launch_rows(const char* name, Index n, bool bounded_blocks, const F& f, const Out&... out) {
  static_assert(sizeof...(Out) <= 1, "launch_rows reduces into one output at most");
  using index = Kokkos::IndexType<Index>;
  const ExecSpace exec = launch_instance<ExecSpace>();
  const auto run = [&](const auto& policy) {
    if constexpr (sizeof...(Out) == 0)
      Kokkos::parallel_for(name, policy, f);
    else
      Kokkos::parallel_reduce(name, policy, f, out...);
  };
  if (bounded_blocks)
    run(RangePolicy<ExecSpace, Kokkos::LaunchBounds<256, 1>, index>(exec, 0, n));
  else
    run(RangePolicy<ExecSpace, index>(exec, 0, n));
}

}  // namespace Impl
}  // namespace AsyncSparse
