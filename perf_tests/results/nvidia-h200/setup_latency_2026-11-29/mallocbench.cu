// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// cudaMalloc / cudaFree / cudaMallocAsync cost against size, fresh process.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <vector>
static double now() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
int main() {
  cudaFree(0);
  size_t sizes[] = {8, 40000, 200000, 400000, 1200000, 2400000, 5000000, 12000000, 50000000};
  for (int round = 0; round < 2; ++round) {
    printf("round %d: cudaMalloc (first) / cudaFree per size [us]\n", round);
    for (size_t s : sizes) {
      void* p;
      double t0 = now();
      cudaMalloc(&p, s);
      double t1 = now();
      cudaFree(p);
      double t2 = now();
      printf("  %10zu  malloc %7.1f  free %7.1f\n", s, t1 - t0, t2 - t1);
    }
  }
  // many live allocations of 1.2 MB (as a set-up holds them), then one of their total size
  std::vector<void*> ps(8);
  double t0 = now();
  for (auto& p : ps) cudaMalloc(&p, 1200000);
  double t1 = now();
  for (auto& p : ps) cudaFree(p);
  double t2 = now();
  printf("8 x 1.2 MB live: malloc %7.1f free %7.1f\n", t1 - t0, t2 - t1);
  void* big;
  t0 = now();
  cudaMalloc(&big, 8 * 1200000);
  t1 = now();
  cudaFree(big);
  t2 = now();
  printf("1 x 9.6 MB: malloc %7.1f free %7.1f\n", t1 - t0, t2 - t1);
  // stream-ordered pool that keeps freed memory
  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, 0);
  unsigned long long thr = ~0ull;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
  cudaStream_t st = 0;
  for (int round = 0; round < 2; ++round) {
    printf("async round %d\n", round);
    for (size_t s : sizes) {
      void* p;
      double t0 = now();
      cudaMallocAsync(&p, s, st);
      double t1 = now();
      cudaFreeAsync(p, st);
      double t2 = now();
      printf("  %10zu  mallocAsync %7.1f  freeAsync %7.1f\n", s, t1 - t0, t2 - t1);
    }
  }
  return 0;
}
