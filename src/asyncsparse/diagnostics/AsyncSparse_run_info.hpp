// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — what a run ran on: Kokkos version and backends, execution spaces, concurrency and GPU
// name, as a plain struct (the driver and the benchmarks write it into their records), and whether the
// GPU of a GPU build can be used at all, asked before Kokkos is initialised.
#pragma once

#include <Kokkos_Core.hpp>

#include <ctime>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif

namespace AsyncSparse {

/// Name of the GPU the default execution space runs on ("" on host backends).
inline std::string device_name() {
#if defined(KOKKOS_ENABLE_CUDA)
  cudaDeviceProp prop;
  int dev = 0;
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) return prop.name;
#endif
  return "";
}

inline std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

/// Kokkos configuration of this build and, once Kokkos is initialised, of this run.
struct KokkosInfo {
  std::string kokkos_version;                ///< "major.minor.patch" of the Kokkos headers
  std::string default_execution_space;       ///< e.g. "Cuda", "OpenMP"
  std::string default_host_execution_space;  ///< e.g. "OpenMP", "Serial"
  long long concurrency = -1;         ///< DefaultExecutionSpace().concurrency(); -1 while Kokkos is not initialised
  long long host_concurrency = -1;    ///< DefaultHostExecutionSpace().concurrency(); -1 likewise
  std::vector<std::string> backends;  ///< enabled Kokkos backends: Serial, OpenMP, Cuda, HIP
  std::string device;                 ///< GPU name; empty on host backends and while Kokkos is not initialised
  bool device_cache = true;  ///< whether arrays (device and host) are cached for reuse (device_cache_enabled())
};

/// The Kokkos configuration. Safe to call before Kokkos::initialize (and without a usable GPU): the
/// run-time fields then keep their "unknown" values.
inline KokkosInfo kokkos_info() {
  KokkosInfo k;
  k.kokkos_version = std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                     std::to_string(KOKKOS_VERSION % 100);
  k.default_execution_space = Kokkos::DefaultExecutionSpace::name();
  k.default_host_execution_space = Kokkos::DefaultHostExecutionSpace::name();
#if defined(KOKKOS_ENABLE_SERIAL)
  k.backends.push_back("Serial");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  k.backends.push_back("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  k.backends.push_back("Cuda");
#endif
#if defined(KOKKOS_ENABLE_HIP)
  k.backends.push_back("HIP");
#endif
  if (Kokkos::is_initialized()) {
    k.concurrency = static_cast<long long>(Kokkos::DefaultExecutionSpace().concurrency());
    k.host_concurrency = static_cast<long long>(Kokkos::DefaultHostExecutionSpace().concurrency());
    k.device = device_name();
  }
  k.device_cache = device_cache_enabled();
  return k;
}

/// Whether the default execution space can run, asked without initialising Kokkos: on a CUDA or HIP build,
/// whether the runtime finds a GPU (Kokkos::initialize aborts on a node without one, e.g. a login node); on
/// host backends always true. When false, `reason` says why (the runtime's error, e.g.
/// "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version").
inline bool default_device_available(std::string& reason) {
#if defined(KOKKOS_ENABLE_CUDA)
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    reason = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    return false;
  }
  if (n < 1) {
    reason = "the CUDA runtime reports no device";
    return false;
  }
#elif defined(KOKKOS_ENABLE_HIP)
  int n = 0;
  const hipError_t e = hipGetDeviceCount(&n);
  if (e != hipSuccess) {
    reason = std::string(hipGetErrorName(e)) + ": " + hipGetErrorString(e);
    return false;
  }
  if (n < 1) {
    reason = "the HIP runtime reports no device";
    return false;
  }
#endif
  reason.clear();
  return true;
}

}  // namespace AsyncSparse
