// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The three CUDA driver-API functions Kokkos 4.x (Kokkos_Cuda_Instance.cpp: an execution space made from a user's
// stream) calls, resolved from libcuda.so.1 when first called instead of at program start.
//
// Why: Kokkos 4 links its CUDA backend against the driver library (CUDA::cuda_driver). A program linked that way
// does not start at all where the driver is not installed — a login or build node without a GPU: "error while
// loading shared libraries: libcuda.so.1". The asyncsparse driver must answer --help, --version and info there and
// say in one line that a command needs a GPU (the CUDA runtime reports a missing driver at run time, which the driver
// catches). With these definitions in the executable and the link flag --as-needed, libcuda.so.1 is no longer a
// load-time dependency; the CUDA runtime loads it itself when a GPU is used. Kokkos 3.4 calls no driver-API function;
// this file is compiled only into CUDA builds against Kokkos >= 4 (src/driver/CMakeLists.txt).
#include <cuda.h>
#include <dlfcn.h>

namespace {
void* driver_symbol(const char* name) {
  static void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  return lib ? dlsym(lib, name) : nullptr;
}
}  // namespace

extern "C" {
// cuda.h maps cuStreamGetCtx to a per-thread-stream variant only with CUDA_API_PER_THREAD_DEFAULT_STREAM (not used)
// and cuCtxPushCurrent to cuCtxPushCurrent_v2 (the name Kokkos' object references).
CUresult CUDAAPI cuStreamGetCtx(CUstream stream, CUcontext* ctx) {
  using F = CUresult(CUDAAPI*)(CUstream, CUcontext*);
  static const auto f = reinterpret_cast<F>(driver_symbol("cuStreamGetCtx"));
  return f ? f(stream, ctx) : CUDA_ERROR_NO_DEVICE;
}

CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx) {
  using F = CUresult(CUDAAPI*)(CUcontext);
  static const auto f = reinterpret_cast<F>(driver_symbol("cuCtxPushCurrent_v2"));
  return f ? f(ctx) : CUDA_ERROR_NO_DEVICE;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice* device) {
  using F = CUresult(CUDAAPI*)(CUdevice*);
  static const auto f = reinterpret_cast<F>(driver_symbol("cuCtxGetDevice"));
  return f ? f(device) : CUDA_ERROR_NO_DEVICE;
}
}
