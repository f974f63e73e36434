// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kokkos Tools library: per label, launches and the time from a device synchronization before the kernel to one
// after it (so each kernel's time includes one launch + synchronization, ~8-10 us); deep copies alike; fences and
// allocations counted. Built with nvcc -O2 -shared -Xcompiler -fPIC; loaded with KOKKOS_PROFILE_LIBRARY, written to
// $KTIMER_OUT at finalize.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
struct SpaceHandle {
  char name[64];
};
struct Acc {
  long n = 0;
  double us = 0;
};
static std::map<std::string, Acc>* acc;
static std::string cur;
static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static double start;
extern "C" void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {
  acc = new std::map<std::string, Acc>;
}
static void b(const char* kind, const char* n) {
  cudaDeviceSynchronize();
  cur = std::string(kind) + " " + n;
  start = now_us();
}
static void e() {
  cudaDeviceSynchronize();
  auto& a = (*acc)[cur];
  a.n++;
  a.us += now_us() - start;
}
extern "C" void kokkosp_begin_parallel_for(const char* n, const uint32_t, uint64_t* id) {
  *id = 0;
  b("for", n);
}
extern "C" void kokkosp_end_parallel_for(const uint64_t) { e(); }
extern "C" void kokkosp_begin_parallel_reduce(const char* n, const uint32_t, uint64_t* id) {
  *id = 0;
  b("reduce", n);
}
extern "C" void kokkosp_end_parallel_reduce(const uint64_t) { e(); }
extern "C" void kokkosp_begin_parallel_scan(const char* n, const uint32_t, uint64_t* id) {
  *id = 0;
  b("scan", n);
}
extern "C" void kokkosp_end_parallel_scan(const uint64_t) { e(); }
extern "C" void kokkosp_begin_fence(const char* n, const uint32_t, uint64_t* id) {
  *id = 0;
  (*acc)[std::string("fence ") + n].n++;
}
extern "C" void kokkosp_end_fence(const uint64_t) {}
extern "C" void kokkosp_begin_deep_copy(SpaceHandle dst, const char* dn, const void*, SpaceHandle src, const char* sn,
                                        const void*, uint64_t size) {
  b("copy", (std::string(src.name) + "->" + dst.name + " " + dn + (size <= 64 ? " small" : " big")).c_str());
}
extern "C" void kokkosp_end_deep_copy() { e(); }
extern "C" void kokkosp_allocate_data(const SpaceHandle h, const char* n, const void*, const uint64_t size) {
  (*acc)[std::string("alloc ") + h.name + " " + n].n++;
}
extern "C" void kokkosp_deallocate_data(const SpaceHandle, const char*, const void*, const uint64_t) {}
extern "C" void kokkosp_finalize_library() {
  const char* p = std::getenv("KTIMER_OUT");
  FILE* f = p ? std::fopen(p, "w") : stderr;
  for (auto& x : *acc) std::fprintf(f, "%8ld\t%10.1f\t%s\n", x.second.n, x.second.us, x.first.c_str());
  if (p) std::fclose(f);
}
