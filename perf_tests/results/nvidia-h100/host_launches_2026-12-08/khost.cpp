// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every Kokkos launch of the process by (device type, name): count, host microseconds from begin to end (the whole
// run for a host backend's kernel, the launch alone for a GPU's) and the longest. Kokkos Tools library.
// Build: nvcc -O2 -shared -Xcompiler -fPIC -std=c++17 khost.cpp -o libkhost.so; run with
// KOKKOS_PROFILE_LIBRARY=libkhost.so KHOST_OUT=<file>.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>
namespace {
using clk = std::chrono::steady_clock;
struct Acc {
  long n = 0;
  double us = 0, max = 0;
};
std::map<std::pair<unsigned, std::string>, Acc> acc;
std::vector<std::pair<std::pair<unsigned, std::string>, clk::time_point>> open_;
void begin(const char* n, uint32_t dev, uint64_t* k) {
  *k = open_.size();
  open_.push_back({{dev >> 24, n}, clk::now()});
}
void end(uint64_t k) {
  if (k >= open_.size()) return;
  const double us = std::chrono::duration<double, std::micro>(clk::now() - open_[k].second).count();
  auto& a = acc[open_[k].first];
  a.n++;
  a.us += us;
  if (us > a.max) a.max = us;
  if (k + 1 == open_.size()) open_.pop_back();
}
}  // namespace
extern "C" {
void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {}
void kokkosp_begin_parallel_for(const char* n, uint32_t d, uint64_t* k) { begin(n, d, k); }
void kokkosp_end_parallel_for(uint64_t k) { end(k); }
void kokkosp_begin_parallel_reduce(const char* n, uint32_t d, uint64_t* k) { begin(n, d, k); }
void kokkosp_end_parallel_reduce(uint64_t k) { end(k); }
void kokkosp_begin_parallel_scan(const char* n, uint32_t d, uint64_t* k) { begin(n, d, k); }
void kokkosp_end_parallel_scan(uint64_t k) { end(k); }
void kokkosp_finalize_library() {
  const char* o = std::getenv("KHOST_OUT");
  FILE* f = o ? std::fopen(o, "w") : stdout;
  if (!f) f = stdout;
  for (auto& [key, a] : acc)
    std::fprintf(f, "dev %u n %ld total_us %.1f max_us %.1f %s\n", key.first, a.n, a.us, a.max, key.second.c_str());
  if (f != stdout) std::fclose(f);
}
}
