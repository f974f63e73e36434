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
// Kokkos' default block size or 256-thread blocks.
//
// The execution space instance: kernels on a solver's iteration path take launch_instance<ExecSpace>() — the default
// instance, or the one a LaunchInstanceScope of the calling thread names (Impl::GraphReplay records a CG
// iteration's kernels on a stream of its own that way, without passing an instance through every interface).
//
// tools/check-source (rule `policies`) keeps Kokkos::RangePolicy / Kokkos::TeamPolicy out of src/ except here.
#pragma once

#include <Kokkos_Core.hpp>

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
