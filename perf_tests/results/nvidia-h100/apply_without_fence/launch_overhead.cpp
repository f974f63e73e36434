// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host cost of a Kokkos kernel launch on CUDA: 2,000 launches of a trivial kernel (TeamPolicy 64 x 1, RangePolicy,
// TeamPolicy 16 x 4) without a fence between them, then 500 launches each followed by a fence. Built against the
// CUDA install of the default stack: nvcc_wrapper -arch=sm_90 -O3 -expt-extended-lambda -Xcompiler -fopenmp
// -std=c++17 launch_overhead.cpp -lkokkoscore -ldl -lcuda. Output on an H100 (2026-11-27): launch_overhead.txt.
#include <Kokkos_Core.hpp>
#include <cstdio>
using V = Kokkos::View<double*, Kokkos::CudaSpace>;
struct TeamF {
  V a, b, c, d, e, f, g;
  int n;
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Kokkos::Cuda>::member_type& t) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, 0, 4), [&](int i) {
      const int k = t.league_rank() * 4 + i;
      if (k < n) a(k) = b(k) + c(k);
    });
  }
};
struct RangeF {
  V a, b, c, d, e, f, g;
  int n;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const { if (k < n) a(k) = b(k) + c(k); }
};
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const int n = 4096, reps = 2000;
    V a("a", n), b("b", n), c("c", n);
    TeamF tf{a, b, c, a, b, c, a, n};
    RangeF rf{a, b, c, a, b, c, a, n};
    for (int pass = 0; pass < 2; ++pass) {
      for (int kind = 0; kind < 3; ++kind) {
        Kokkos::fence();
        Kokkos::Timer t;
        for (int r = 0; r < reps; ++r) {
          if (kind == 0) Kokkos::parallel_for("team", Kokkos::TeamPolicy<Kokkos::Cuda>(n / 4 / 64 + 1, 64, 1), tf);
          else if (kind == 1) Kokkos::parallel_for("range", Kokkos::RangePolicy<Kokkos::Cuda>(0, n), rf);
          else Kokkos::parallel_for("team_v4", Kokkos::TeamPolicy<Kokkos::Cuda>(n / 4 / 16 + 1, 16, 4), tf);
        }
        const double enq = t.seconds();
        Kokkos::fence();
        const double tot = t.seconds();
        if (pass == 1)
          std::printf("%-8s enqueue %.2f us/launch, with completion %.2f us/launch\n",
                      kind == 0 ? "team" : kind == 1 ? "range" : "team_v4", 1e6 * enq / reps, 1e6 * tot / reps);
      }
    }
    // launch + fence each time (round trip)
    Kokkos::Timer t;
    for (int r = 0; r < 500; ++r) {
      Kokkos::parallel_for("range", Kokkos::RangePolicy<Kokkos::Cuda>(0, n), rf);
      Kokkos::fence();
    }
    std::printf("range+fence %.2f us/launch\n", 1e6 * t.seconds() / 500);
  }
  Kokkos::finalize();
}
