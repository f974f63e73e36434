// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kokkos Tools library: a host timeline of every event (no synchronization added unless $KTL_FENCE is set): kernel
// launches (begin/end of the call), deep copies, fences, allocations, deallocations, regions. Written to $KTL_OUT at
// finalize, only the events from the push of region $KTL_REGION's instance $KTL_INSTANCE (default 3) to the push of the
// next instance.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
struct SpaceHandle {
  char name[64];
};
struct ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};
// no fence around each kernel (the timeline shows the host's own waits), unless $KTL_FENCE is set: then Kokkos
// fences after every kernel and each kernel's end shows when the device finished it
extern "C" void kokkosp_request_tool_settings(const uint32_t, ToolSettings* s) {
  s->requires_global_fencing = getenv("KTL_FENCE") != nullptr;
}
struct Ev {
  double t;
  int depth;
  std::string what;
};
static std::vector<Ev>* evs;
static std::vector<std::string> stack;
static int instance = 0, want = 3, depth = 0;
static bool on = false;
static std::string region;
static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static void rec(const std::string& w) {
  if (on) evs->push_back({now_us(), depth, w});
}
extern "C" void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {
  evs = new std::vector<Ev>;
  if (const char* r = getenv("KTL_REGION")) region = r;
  if (const char* i = getenv("KTL_INSTANCE")) want = atoi(i);
}
extern "C" void kokkosp_push_profile_region(const char* n) {
  if (region == n) {
    ++instance;
    on = instance == want;
  }
  rec(std::string("push ") + n);
  ++depth;
  stack.push_back(n);
}
extern "C" void kokkosp_pop_profile_region() {
  --depth;
  std::string n = stack.empty() ? "" : stack.back();
  if (!stack.empty()) stack.pop_back();
  rec("pop " + n);
}
#define PAIR(kind)                                                                             \
  extern "C" void kokkosp_begin_parallel_##kind(const char* n, const uint32_t, uint64_t* id) { \
    *id = 0;                                                                                   \
    rec(std::string(#kind " ") + n);                                                           \
  }                                                                                            \
  extern "C" void kokkosp_end_parallel_##kind(const uint64_t) { rec("  end"); }
PAIR(for)
PAIR(reduce)
PAIR(scan)
extern "C" void kokkosp_begin_fence(const char* n, const uint32_t, uint64_t* id) {
  *id = 0;
  rec(std::string("fence ") + n);
}
extern "C" void kokkosp_end_fence(const uint64_t) { rec("  end"); }
extern "C" void kokkosp_begin_deep_copy(SpaceHandle d, const char* dn, const void*, SpaceHandle s, const char* sn,
                                        const void*, uint64_t size) {
  rec(std::string("copy ") + s.name + "->" + d.name + " " + dn + " " + std::to_string(size));
}
extern "C" void kokkosp_end_deep_copy() { rec("  end"); }
extern "C" void kokkosp_allocate_data(const SpaceHandle h, const char* n, const void*, const uint64_t size) {
  rec(std::string("alloc ") + h.name + " " + n + " " + std::to_string(size));
}
extern "C" void kokkosp_deallocate_data(const SpaceHandle h, const char* n, const void*, const uint64_t size) {
  rec(std::string("free ") + h.name + " " + n + " " + std::to_string(size));
}
extern "C" void kokkosp_finalize_library() {
  const char* out = getenv("KTL_OUT");
  FILE* f = out ? fopen(out, "w") : stdout;
  double t0 = evs->empty() ? 0 : (*evs)[0].t, prev = t0;
  for (auto& e : *evs) {
    fprintf(f, "%9.1f %7.1f %*s%s\n", e.t - t0, e.t - prev, 2 * e.depth, "", e.what.c_str());
    prev = e.t;
  }
  if (out) fclose(f);
}
