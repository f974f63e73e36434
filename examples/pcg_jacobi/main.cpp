// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Example: solve a 2D Poisson problem with Jacobi-preconditioned CG on the default Kokkos device.
//
//   example_pcg_jacobi [m]     (m x m mesh, default 128)
#include <AsyncSparse.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Device = Kokkos::DefaultExecutionSpace::device_type;
  long long m = 128;
  if (argc > 1 && !AsyncSparse::Impl::parse_integer_in(argv[1], 1, 46340, m)) {  // 46340^2 rows still fit in int
    std::fprintf(stderr, "usage: example_pcg_jacobi [m]: m must be an integer in [1, 46340], got '%s'\n", argv[1]);
    return 2;
  }
  try {  // what the library rejects (e.g. a grid whose entries do not fit this build's offsets) ends with its message
    // Build the matrix on the host, copy it to the device.
    const AsyncSparse::CsrHost<double> Ah = AsyncSparse::lap2d(static_cast<int>(m));
    const auto A = AsyncSparse::to_device<Device>(Ah);

    // b = ones, x0 = 0
    Kokkos::View<double*, Device> b("b", Ah.nrows), x("x", Ah.nrows);
    Kokkos::deep_copy(b, 1.0);

    AsyncSparse::JacobiPreconditioner<double, Device> M(A);
    M.compute();
    AsyncSparse::SolverParams params;
    params.tol = 1e-8;
    const auto result = AsyncSparse::cg<double, Device>(A, b, x, &M, params);

    std::printf("2D Laplacian %lldx%lld (n = %d): PCG/Jacobi %s in %d iterations, relative residual %.2e, %.3f s\n", m,
                m, Ah.nrows, AsyncSparse::to_string(result.status), result.iterations, result.final_relative_residual,
                result.time_seconds);
    return result.converged() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_pcg_jacobi: %s\n", e.what());
    return 1;
  }
}
