// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse command-line driver — what subcommands that run on the device share: the device types and the
// solve with b = ones, x0 = 0 (the papers' convention). Needs an initialised Kokkos.
#pragma once

#include <Kokkos_Core.hpp>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_solver_types.hpp>
#include <asyncsparse/solvers/AsyncSparse_cg.hpp>
#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>

#include "driver_cli.hpp"
#include "driver_problem.hpp"

namespace AsyncSparse {
namespace Driver {

using Device = Kokkos::DefaultExecutionSpace::device_type;
using ExecSpace = Kokkos::DefaultExecutionSpace;

/// Solve A x = b with b = ones and x0 = 0 by PCG (`spd`) or GMRES.
inline SolverResult solve_ones(const Crs<double, Device>& A, Preconditioner<double, Device>* M, bool spd,
                               const SolverParams& params) {
  Kokkos::View<double*, Device> b("b", A.numRows()), x("x", A.numRows());
  Kokkos::deep_copy(b, 1.0);
  return spd ? cg<double, Device>(A, b, x, M, params) : gmres<double, Device>(A, b, x, M, params);
}

}  // namespace Driver
}  // namespace AsyncSparse
