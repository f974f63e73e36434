// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the differences between the Kokkos stacks the library supports, in one place: Kokkos 3.4.01 with
// Kokkos-Kernels 3.4.01 (Debian 12's Trilinos 13.2) and Kokkos 4.6.01 with Kokkos-Kernels 4.7.00. Everything else
// in the library uses the API both stacks share; each difference below names the version that introduced it.
#pragma once

#include <KokkosKernels_config.h>
#include <Kokkos_Core.hpp>

#include <string>

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
