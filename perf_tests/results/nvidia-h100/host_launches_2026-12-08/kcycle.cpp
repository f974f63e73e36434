// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fenced timer of the one-team GMRES cycle (Kokkos Tools): each launch whose name contains "team_cycle" is bracketed
// by cudaDeviceSynchronize; one line per launch: its microseconds and the CPU the calling thread ran on.
// Build: nvcc -O2 -shared -Xcompiler -fPIC -std=c++17 kcycle.cpp -o libkcycle.so; run with
// KOKKOS_PROFILE_LIBRARY=libkcycle.so KCYCLE_OUT=<file>.
#include <cuda_runtime.h>
#include <sched.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
namespace {
using clk = std::chrono::steady_clock;
clk::time_point t0;
bool on = false;
struct Rec {
  double us;
  int cpu0, cpu1;
};
std::vector<Rec> recs;
int cpu0 = -1;
}  // namespace
extern "C" {
void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {}
void kokkosp_begin_parallel_for(const char* n, uint32_t, uint64_t* k) {
  *k = 0;
  on = std::strstr(n, "team_cycle") != nullptr;
  if (on) {
    cudaDeviceSynchronize();
    cpu0 = sched_getcpu();
    t0 = clk::now();
  }
}
void kokkosp_end_parallel_for(uint64_t) {
  if (!on) return;
  cudaDeviceSynchronize();
  recs.push_back({std::chrono::duration<double, std::micro>(clk::now() - t0).count(), cpu0, sched_getcpu()});
  on = false;
}
void kokkosp_finalize_library() {
  const char* o = std::getenv("KCYCLE_OUT");
  FILE* f = o ? std::fopen(o, "w") : stdout;
  if (!f) f = stdout;
  for (auto& r : recs) std::fprintf(f, "%.1f %d %d\n", r.us, r.cpu0, r.cpu1);
  if (f != stdout) std::fclose(f);
}
}
