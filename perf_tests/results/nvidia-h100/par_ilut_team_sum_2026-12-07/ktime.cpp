// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Build: nvcc -O2 -shared -Xcompiler -fPIC -std=c++17 ktime.cpp -o libktime.so; run with
// KOKKOS_PROFILE_LIBRARY=libktime.so KTIME_OUT=<file>. Fenced per-kernel timer (Kokkos Tools): inside regions whose
// name ends in "_step", each kernel and deep copy is bracketed by cudaDeviceSynchronize; per name: count and total
// microseconds; per region: count and total.
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>
namespace {
using clk = std::chrono::steady_clock;
struct Acc {
  long n = 0;
  double us = 0;
};
std::map<std::string, Acc> kern, regions;
std::vector<std::pair<std::string, clk::time_point>> stack;
int active = 0;
std::vector<std::string> names;  // kID -> name
clk::time_point t0k;
uint64_t cur = 0;
bool ends_step(const std::string& s) { return s.size() >= 5 && s.compare(s.size() - 5, 5, "_step") == 0; }
void begin(const char* name, uint64_t* kID) {
  names.push_back(name);
  *kID = names.size() - 1;
  if (active) {
    cudaDeviceSynchronize();
    t0k = clk::now();
  }
}
void end(uint64_t kID) {
  if (!active) return;
  cudaDeviceSynchronize();
  auto& a = kern[names[kID]];
  a.n++;
  a.us += std::chrono::duration<double, std::micro>(clk::now() - t0k).count();
}
}  // namespace
extern "C" {
struct SpaceHandle {
  char name[64];
};
void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {}
void kokkosp_begin_parallel_for(const char* n, uint32_t, uint64_t* k) { begin(n, k); }
void kokkosp_end_parallel_for(uint64_t k) { end(k); }
void kokkosp_begin_parallel_reduce(const char* n, uint32_t, uint64_t* k) { begin(n, k); }
void kokkosp_end_parallel_reduce(uint64_t k) { end(k); }
void kokkosp_begin_parallel_scan(const char* n, uint32_t, uint64_t* k) { begin(n, k); }
void kokkosp_end_parallel_scan(uint64_t k) { end(k); }
void kokkosp_begin_deep_copy(SpaceHandle dh, const char* dn, const void*, SpaceHandle sh, const char* sn, const void*,
                             uint64_t size) {
  std::string n = std::string("deep_copy ") + sh.name + "->" + dh.name + " " + dn;
  uint64_t k;
  begin(n.c_str(), &k);
  cur = k;
}
void kokkosp_end_deep_copy() { end(cur); }
void kokkosp_push_profile_region(const char* n) {
  std::string s(n);
  if (ends_step(s)) {
    cudaDeviceSynchronize();
    active++;
  }
  stack.emplace_back(s, clk::now());
}
void kokkosp_pop_profile_region() {
  if (stack.empty()) return;
  auto [s, t] = stack.back();
  stack.pop_back();
  if (ends_step(s)) {
    cudaDeviceSynchronize();
    active--;
    auto& a = regions[s];
    a.n++;
    a.us += std::chrono::duration<double, std::micro>(clk::now() - t).count();
  }
}
void kokkosp_finalize_library() {
  const char* o = std::getenv("KTIME_OUT");
  FILE* f = o ? std::fopen(o, "w") : stdout;
  if (!f) f = stdout;
  for (auto& [n, a] : regions)
    std::fprintf(f, "REGION %s n=%ld total_us=%.1f per=%.2f\n", n.c_str(), a.n, a.us, a.us / a.n);
  std::vector<std::pair<std::string, Acc>> v(kern.begin(), kern.end());
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second.us > b.second.us; });
  for (auto& [n, a] : v) std::fprintf(f, "%10.1f us %7ld x %8.2f  %s\n", a.us, a.n, a.us / a.n, n.c_str());
  if (f != stdout) std::fclose(f);
}
}
