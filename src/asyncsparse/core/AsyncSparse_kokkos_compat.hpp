// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the differences between the Kokkos stacks the library supports, in one place: Kokkos 3.4.01 with
// Kokkos-Kernels 3.4.01 (Debian 12's Trilinos 13.2) and Kokkos 4.6.01 with Kokkos-Kernels 4.7.00. Everything else
// in the library uses the API both stacks share; each difference below names the version that introduced it.
#pragma once

#include <KokkosKernels_config.h>
#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace KokkosSparse {
namespace Experimental {}  // declared by the Kokkos-Kernels headers that use it; named here for the alias below
}  // namespace KokkosSparse

namespace AsyncSparse {
namespace Compat {

// Kokkos-Kernels 4.6.00 moved sptrsv_symbolic/_solve, spiluk_symbolic/_numeric, gauss_seidel_symbolic/_numeric and
// forward_sweep_gauss_seidel_apply from KokkosSparse::Experimental to KokkosSparse (the Experimental names are
// deprecated there). Their algorithm enums (SPTRSVAlgorithm, SPILUKAlgorithm) and KokkosKernelsHandle stay in the
// Experimental namespaces. Kokkos-Kernels 3.4 defines no KOKKOSKERNELS_VERSION; 4.x does (40700 for 4.7.00).
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40600
namespace kk_sparse = ::KokkosSparse;
#else
namespace kk_sparse = ::KokkosSparse::Experimental;
#endif

// Kokkos 4.0 takes the join() of a functor's array reduction with plain pointers and rejects the volatile form that
// Kokkos 3.4 needs: `void join(Compat::JoinDst<T> dst, Compat::JoinSrc<T> src) const`.
#if KOKKOS_VERSION >= 40000
template <class T>
using JoinDst = T*;
template <class T>
using JoinSrc = const T*;
#else
template <class T>
using JoinDst = volatile T*;
template <class T>
using JoinSrc = const volatile T*;
#endif

#if defined(KOKKOS_ENABLE_HIP)
// Kokkos 4.0 moved the HIP backend from Kokkos::Experimental to Kokkos.
#if KOKKOS_VERSION >= 40000
using HIP = Kokkos::HIP;
using HIPSpace = Kokkos::HIPSpace;
#else
using HIP = Kokkos::Experimental::HIP;
using HIPSpace = Kokkos::Experimental::HIPSpace;
#endif
#endif

// Kokkos 3.4 launches every TeamPolicy kernel on CUDA with cudaFuncCachePreferShared (configure_shmem_preference,
// once per kernel at its first launch): the largest shared-memory configuration (228 KiB of an H100's 256 KiB of L1
// and shared memory), whatever the kernel's team memory, which leaves its L1 at most 28 KiB. Kokkos 4.x sizes the
// carveout for the occupancy instead.
// parallel_for_prefer_l1 launches a kernel of one team with the carveout preference "maximum L1"
// (cudaSharedmemCarveoutMaxL1): the driver then takes the smallest configuration that holds the team's memory, and
// the rest of the multiprocessor's 256 KiB caches the operands the team rereads pass after pass (the one-team GMRES
// cycle, CGS2 and triangular solves; perf_tests/results/MEASUREMENTS.md#one-team-l1). Other backends and Kokkos 4.x:
// Kokkos::parallel_for as it is.
#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
namespace Impl {
/// The kernel that Kokkos::parallel_for(label, Policy, F) launches on Cuda (Kokkos 3.4's driver and launch types).
template <class Policy, class F>
struct CudaForKernel {
  using Driver = Kokkos::Impl::ParallelFor<F, Policy>;
  using Bounds = typename Policy::launch_bounds;
  static auto func() { return Kokkos::Impl::CudaParallelLaunch<Driver, Bounds>::get_kernel_func(); }
};

template <class Policy, class F>
void prefer_l1_once() {
  using K = CudaForKernel<Policy, F>;
  static const bool done = [] {
    const auto func = K::func();
    // Kokkos' own setting first (it is made once per kernel and kept while the preference it launches with, shared
    // memory, does not change), so that it does not replace the carveout at the first launch
    Kokkos::Impl::configure_shmem_preference<typename K::Driver, typename K::Bounds>(func, true);
    // a hint: where the driver refuses it, the kernel runs with Kokkos' setting (the error is not left pending)
    if (cudaFuncSetAttribute(reinterpret_cast<const void*>(func), cudaFuncAttributePreferredSharedMemoryCarveout,
                             static_cast<int>(cudaSharedmemCarveoutMaxL1)) != cudaSuccess)
      (void)cudaGetLastError();
    return true;
  }();
  (void)done;
}
}  // namespace Impl
#endif

/// Kokkos::parallel_for(label, policy, f) of a one-team kernel, with the largest L1 its team memory leaves on CUDA
/// under Kokkos 3.4 (see above).
template <class Policy, class F>
void parallel_for_prefer_l1(const std::string& label, const Policy& policy, const F& f) {
#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
  if constexpr (std::is_same<typename Policy::execution_space, Kokkos::Cuda>::value) Impl::prefer_l1_once<Policy, F>();
#endif
  Kokkos::parallel_for(label, policy, f);
}

/// The carveout preference CUDA holds for the kernel that Kokkos::parallel_for(label, Policy, F) launches
/// (cudaFuncAttributes::preferredShmemCarveout, percent of the largest shared-memory configuration; 0: maximum L1),
/// under Kokkos 3.4 on Cuda; -1 elsewhere (no such preference is set there).
template <class Policy, class F>
int preferred_carveout() {
#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
  if constexpr (std::is_same<typename Policy::execution_space, Kokkos::Cuda>::value) {
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(Impl::CudaForKernel<Policy, F>::func())) !=
        cudaSuccess) {
      (void)cudaGetLastError();
      return -1;
    }
    return attr.preferredShmemCarveout;
  }
#endif
  return -1;
}

/// A Kokkos Tools profiling region for the scope (what Kokkos 4.x's Kokkos::Profiling::ScopedRegion does; Kokkos
/// 3.4 has pushRegion / popRegion only). Costs nothing measurable without a tool loaded.
class ScopedRegion {
 public:
  explicit ScopedRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ScopedRegion() { Kokkos::Profiling::popRegion(); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
};

}  // namespace Compat
}  // namespace AsyncSparse
