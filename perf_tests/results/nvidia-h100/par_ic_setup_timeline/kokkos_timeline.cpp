// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kokkos Tools library: a timeline of every event (kernel begin/end, View allocation/deallocation, deep copy begin/
// end, fence begin/end) with wall-clock times, written to $KTIME_OUT at finalize (tab-separated: microseconds since
// init, event, name, bytes). Kokkos reports an allocation after the allocation returned and a deallocation before
// it is freed, so the gap before an "alloc" event is (mostly) the allocation's cost.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
struct SpaceHandle { char name[64]; };
struct Ev { double t; const char* kind; std::string name; std::uint64_t bytes; };
static std::vector<Ev>* evs;
static std::chrono::steady_clock::time_point t0;
static double now() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count(); }
static void rec(const char* k, const char* n, std::uint64_t b = 0) { evs->push_back({now(), k, n ? n : "", b}); }
extern "C" void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {
  evs = new std::vector<Ev>; evs->reserve(1 << 20); t0 = std::chrono::steady_clock::now();
}
extern "C" void kokkosp_begin_parallel_for(const char* n, const uint32_t, uint64_t* id) { *id = 0; rec("for", n); }
extern "C" void kokkosp_end_parallel_for(const uint64_t) { rec("end", ""); }
extern "C" void kokkosp_begin_parallel_reduce(const char* n, const uint32_t, uint64_t* id) { *id = 0; rec("reduce", n); }
extern "C" void kokkosp_end_parallel_reduce(const uint64_t) { rec("end", ""); }
extern "C" void kokkosp_begin_parallel_scan(const char* n, const uint32_t, uint64_t* id) { *id = 0; rec("scan", n); }
extern "C" void kokkosp_end_parallel_scan(const uint64_t) { rec("end", ""); }
extern "C" void kokkosp_begin_fence(const char* n, const uint32_t, uint64_t* id) { *id = 0; rec("fence", n); }
extern "C" void kokkosp_end_fence(const uint64_t) { rec("endfence", ""); }
extern "C" void kokkosp_begin_deep_copy(SpaceHandle dst, const char* dn, const void*, SpaceHandle src, const char* sn,
                                       const void*, uint64_t size) {
  rec("copy", (std::string(src.name) + "->" + dst.name + " " + (dn ? dn : "")).c_str(), size);
}
extern "C" void kokkosp_end_deep_copy() { rec("endcopy", ""); }
extern "C" void kokkosp_allocate_data(const SpaceHandle h, const char* n, const void*, const uint64_t size) {
  rec("alloc", (std::string(h.name) + " " + (n ? n : "")).c_str(), size);
}
extern "C" void kokkosp_deallocate_data(const SpaceHandle h, const char* n, const void*, const uint64_t size) {
  rec("free", (std::string(h.name) + " " + (n ? n : "")).c_str(), size);
}
extern "C" void kokkosp_push_profile_region(const char* n) { rec("push", n); }
extern "C" void kokkosp_pop_profile_region() { rec("pop", ""); }
extern "C" void kokkosp_finalize_library() {
  const char* p = std::getenv("KTIME_OUT");
  FILE* f = p ? std::fopen(p, "w") : stderr;
  for (auto& e : *evs) std::fprintf(f, "%.1f\t%s\t%s\t%llu\n", e.t, e.kind, e.name.c_str(), (unsigned long long)e.bytes);
  if (p) std::fclose(f);
}
