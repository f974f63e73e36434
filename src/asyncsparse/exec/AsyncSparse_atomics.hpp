// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — relaxed atomic loads/stores and fences for asynchronous kernels.
//
// Asynchronous fixed-point methods (Chow–Patel ILU sweeps, asynchronous Jacobi, block-asynchronous
// relaxation) read values that other threads may be writing at the same time. The algorithms
// tolerate stale values by design (they converge for any "reasonable" delay, see the papers in
// shared/papers), but the compiler and hardware must still be told that these locations are shared:
//
//  * `load_relaxed` / `store_relaxed` perform single, untorn, unordered accesses. The compiler may not
//    cache the value in a register across loop iterations or split the access. On CUDA/HIP a volatile
//    access is used (ld.volatile / st.volatile: it bypasses the non-coherent L1 so the newest value in
//    L2 is seen — what MAGMA's and Ginkgo's asynchronous kernels do); on the host a relaxed
//    `__atomic_load`/`__atomic_store` (a plain aligned mov on x86-64 and AArch64).
//  * `load_relaxed_cached` is `load_relaxed` except that on CUDA the load may be served by the SM's L1
//    cache (ld.global.ca). L1 is not kept coherent across SMs during a kernel, so such a load returns
//    either the value it would return through L2 or an older one cached on this SM earlier in the same
//    kernel — never one older than at the kernel's start (the driver invalidates L1 between dependent
//    launches, e.g. kernels in one stream, which is how the sweeps run) and never a torn one (one aligned
//    access). For sweeps whose asynchronous model allows any value of the
//    previous sweep or newer (the ParILU/ParIC list and entry kernels), this cuts the L2 traffic of
//    their gathers: perf_tests/results/MEASUREMENTS.md#par-ilu-cached-gathers.
//  * `fence()` is `Kokkos::memory_fence()`: on CUDA `__threadfence()`, on the host a full barrier. Used
//    where a kernel must publish a row's new values before anything that follows (the async-Jacobi
//    paper's fence after each row update; without it CUDA may keep writes in L1 indefinitely).
//
// Every shared entry of an asynchronous kernel in AsyncSparse goes through these helpers; plain
// accesses are used only for data a thread owns exclusively.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace AsyncSparse {

/// Relaxed (unordered, untorn) load of a shared location.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_relaxed(const T* ptr) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return *static_cast<const volatile T*>(ptr);
#else
  T value;
  __atomic_load(ptr, &value, __ATOMIC_RELAXED);
  return value;
#endif
}

/// Relaxed load of a shared location that may return a value cached on this SM earlier in the same kernel (CUDA:
/// ld.global.ca, for the built-in types __ldca takes; HIP and the host: load_relaxed). Only for kernels whose model
/// accepts any value written since the kernel started (see the header comment).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_relaxed_cached(const T* ptr) {
#if defined(__CUDA_ARCH__)
  return __ldca(ptr);
#else
  return load_relaxed(ptr);
#endif
}

/// Relaxed (unordered, untorn) store to a shared location.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void store_relaxed(T* ptr, T value) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  *static_cast<volatile T*>(ptr) = value;
#else
  __atomic_store(ptr, &value, __ATOMIC_RELAXED);
#endif
}

/// Read / write of an entry that other threads may access concurrently when Async (the asynchronous sweeps of the
/// incomplete factorizations: other tasks write the same arrays): relaxed atomics then, plain accesses otherwise
/// (the deterministic mode, whose read and write arrays differ).
template <bool Async, class T>
KOKKOS_FORCEINLINE_FUNCTION T read_entry(const T* p) {
  if constexpr (Async) return load_relaxed(p);
  return *p;
}
/// read_entry for the gathers of the sweeps: with Cached, a load that may be served by the GPU's L1
/// (load_relaxed_cached: a value of this sweep or the previous one, as the relaxed load).
template <bool Async, bool Cached, class T>
KOKKOS_FORCEINLINE_FUNCTION T read_shared(const T* p) {
  if constexpr (Async && Cached) return load_relaxed_cached(p);
  return read_entry<Async>(p);
}
template <bool Async, class T>
KOKKOS_FORCEINLINE_FUNCTION void write_entry(T* p, T v) {
  if constexpr (Async)
    store_relaxed(p, v);
  else
    *p = v;
}

/// Atomic fetch-and-add on a non-negative 64-bit counter, done on its unsigned long long bits: every backend adds
/// those with a native atomic, while Kokkos 3.4 emulates signed 64-bit atomic addition on CUDA with a
/// compare-and-swap loop (hundreds of times slower under contention). Same result for values in [0, 2^63).
KOKKOS_FORCEINLINE_FUNCTION std::int64_t atomic_fetch_add_count(std::int64_t* counter, std::int64_t inc) {
  return static_cast<std::int64_t>(
      Kokkos::atomic_fetch_add(reinterpret_cast<unsigned long long*>(counter), static_cast<unsigned long long>(inc)));
}

/// Memory fence: prior writes of this thread become visible device-wide before later ones.
KOKKOS_FORCEINLINE_FUNCTION void fence() { Kokkos::memory_fence(); }

/// True for finite values (no NaN, no ±Inf). Device-callable without <cmath> overload ambiguity.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION bool is_finite(T v) {
  return v == v && v - v == T(0);
}

}  // namespace AsyncSparse
