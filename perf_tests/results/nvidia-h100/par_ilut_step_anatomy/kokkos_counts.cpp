// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kokkos Tools library: counts kernel launches per label and deep copies per (dst, src) space pair; writes them to
// $KCOUNT_OUT at finalize. Launches are counted when issued (no timing).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
struct SpaceHandle { char name[64]; };
static std::map<std::string, long>* counts;
static std::map<std::string, long>* copies;
static std::map<std::string, long>* fences;
extern "C" void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {
  counts = new std::map<std::string, long>; copies = new std::map<std::string, long>; fences = new std::map<std::string, long>;
}
static void k(const char* kind, const char* name) { (*counts)[std::string(kind) + " " + name]++; }
extern "C" void kokkosp_begin_parallel_for(const char* n, const uint32_t, uint64_t* id) { *id = 0; k("for", n); }
extern "C" void kokkosp_end_parallel_for(const uint64_t) {}
extern "C" void kokkosp_begin_parallel_reduce(const char* n, const uint32_t, uint64_t* id) { *id = 0; k("reduce", n); }
extern "C" void kokkosp_end_parallel_reduce(const uint64_t) {}
extern "C" void kokkosp_begin_parallel_scan(const char* n, const uint32_t, uint64_t* id) { *id = 0; k("scan", n); }
extern "C" void kokkosp_end_parallel_scan(const uint64_t) {}
extern "C" void kokkosp_begin_fence(const char* n, const uint32_t, uint64_t* id) { *id = 0; (*fences)[n]++; }
extern "C" void kokkosp_end_fence(const uint64_t) {}
extern "C" void kokkosp_begin_deep_copy(SpaceHandle dst, const char* dn, const void*, SpaceHandle src, const char* sn,
                                       const void*, uint64_t size) {
  (*copies)[std::string(src.name) + " -> " + dst.name + (size <= 64 ? " (<=64 B)" : " (>64 B)")]++;
}
extern "C" void kokkosp_end_deep_copy() {}
static std::map<std::string, long>* allocs;
extern "C" void kokkosp_allocate_data(const SpaceHandle h, const char* n, const void*, const uint64_t size) {
  if (!allocs) allocs = new std::map<std::string, long>;
  const char* cls = size < 65536 ? "<64KiB" : size < 262144 ? "64-256KiB" : size < 1048576 ? "256KiB-1MiB" : ">=1MiB";
  (*allocs)[std::string(h.name) + " " + n + " [" + cls + "]"]++;
}
extern "C" void kokkosp_deallocate_data(const SpaceHandle, const char*, const void*, const uint64_t) {}
extern "C" void kokkosp_finalize_library() {
  const char* p = std::getenv("KCOUNT_OUT");
  FILE* f = p ? std::fopen(p, "w") : stderr;
  for (auto& e : *counts) std::fprintf(f, "K %ld\t%s\n", e.second, e.first.c_str());
  for (auto& e : *copies) std::fprintf(f, "C %ld\t%s\n", e.second, e.first.c_str());
  if (allocs) for (auto& e : *allocs) std::fprintf(f, "A %ld\t%s\n", e.second, e.first.c_str());
  for (auto& e : *fences) std::fprintf(f, "F %ld\t%s\n", e.second, e.first.c_str());
  if (p) std::fclose(f);
}
