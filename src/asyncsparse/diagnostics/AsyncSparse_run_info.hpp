// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — what a run ran on: Kokkos version and backends, execution space, concurrency,
// GPU name, and the resolved launch configuration, as JSON for records and as text for logs.
#pragma once

#include <Kokkos_Core.hpp>

#include <ctime>
#include <sstream>
#include <string>

#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_json.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
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

/// Kokkos configuration of this build and run.
inline Json kokkos_info() {
  Json j = Json::object();
  j["kokkos_version"] = std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
                        "." + std::to_string(KOKKOS_VERSION % 100);
  j["default_execution_space"] = Kokkos::DefaultExecutionSpace::name();
  j["default_host_execution_space"] = Kokkos::DefaultHostExecutionSpace::name();
  j["concurrency"] = static_cast<long long>(Kokkos::DefaultExecutionSpace().concurrency());
  j["host_concurrency"] = static_cast<long long>(Kokkos::DefaultHostExecutionSpace().concurrency());
  Json backends = Json::array();
#if defined(KOKKOS_ENABLE_SERIAL)
  backends.push_back("Serial");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  backends.push_back("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  backends.push_back("Cuda");
#endif
#if defined(KOKKOS_ENABLE_HIP)
  backends.push_back("HIP");
#endif
  j["backends"] = backends;
  const std::string dev = device_name();
  if (!dev.empty()) j["device"] = dev;
  return j;
}

inline Json to_json(const ResolvedLaunch& r) {
  Json j = Json::object();
  j["execution_space"] = r.execution_space;
  j["team_size"] = r.team_size;
  j["vector_length"] = r.vector_length;
  j["chunk_size"] = r.chunk_size;
  j["num_chunks"] = static_cast<long long>(r.num_chunks);
  j["league_size"] = r.league_size;
  j["max_concurrent_teams"] = r.max_concurrent_teams;
  j["occupancy_mode"] = to_string(r.occupancy_mode);
  j["scratch_pad_bytes"] = r.scratch_pad_bytes;
  j["block_order"] = to_string(r.block_order);
  j["seed"] = static_cast<long long>(r.seed);
  j["oversubscription"] = r.oversubscription;
  j["concurrency"] = r.concurrency;
  return j;
}

}  // namespace AsyncSparse
