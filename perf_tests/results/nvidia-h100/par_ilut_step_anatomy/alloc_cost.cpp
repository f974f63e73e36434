// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Cost of a Kokkos View allocation + deallocation in CudaSpace (cudaMalloc + cudaFree in Kokkos 3.4), alone and
// between small kernels, against a small kernel launch + fence.
#include <Kokkos_Core.hpp>
#include <cstdio>
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    using V = Kokkos::View<double*, Kokkos::CudaSpace>;
    V keep("keep", 1 << 20);
    const int reps = 2000;
    for (long n : {1000L, 10000L, 20000L, 50000L, 100000L, 1000000L, 4000000L}) {
      Kokkos::fence();
      Kokkos::Timer t;
      for (int r = 0; r < reps; ++r) { V v(Kokkos::view_alloc(Kokkos::WithoutInitializing, "v"), n); }
      Kokkos::fence();
      const double alone = t.seconds() / reps;
      t.reset();
      for (int r = 0; r < reps; ++r) {
        V v(Kokkos::view_alloc(Kokkos::WithoutInitializing, "v"), n);
        Kokkos::parallel_for("k", Kokkos::RangePolicy<Kokkos::Cuda>(0, 1000), KOKKOS_LAMBDA(int i) { keep(i) += 1; });
      }
      Kokkos::fence();
      const double with_kernel = t.seconds() / reps;
      t.reset();
      for (int r = 0; r < reps; ++r)
        Kokkos::parallel_for("k", Kokkos::RangePolicy<Kokkos::Cuda>(0, 1000), KOKKOS_LAMBDA(int i) { keep(i) += 1; });
      Kokkos::fence();
      const double kernel_only = t.seconds() / reps;
      t.reset();
      for (int r = 0; r < reps; ++r) {
        Kokkos::parallel_for("k", Kokkos::RangePolicy<Kokkos::Cuda>(0, 1000), KOKKOS_LAMBDA(int i) { keep(i) += 1; });
        Kokkos::fence();
      }
      const double kernel_fence = t.seconds() / reps;
      std::printf("n=%8ld doubles: alloc+free %.1f us; alloc+free+kernel %.1f us; kernel %.1f us; kernel+fence %.1f us\n",
                  n, alone * 1e6, with_kernel * 1e6, kernel_only * 1e6, kernel_fence * 1e6);
    }
  }
  Kokkos::finalize();
}
