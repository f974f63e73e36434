// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — umbrella header: fine-grained and asynchronous fixed-point methods for sparse linear
// systems on Kokkos (iterative ILU/IC, ParILUT/ParICT, asynchronous and block-asynchronous Jacobi,
// mixed-precision iterative refinement), with Krylov solvers and a launch-control layer.
#pragma once

#include <asyncsparse/AsyncSparse_config.hpp>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_load.hpp>
#include <asyncsparse/core/AsyncSparse_matrix_market.hpp>
#include <asyncsparse/core/AsyncSparse_norms.hpp>
#include <asyncsparse/core/AsyncSparse_parameters.hpp>
#include <asyncsparse/core/AsyncSparse_preconditioner_interface.hpp>
#include <asyncsparse/core/AsyncSparse_rcm.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/core/AsyncSparse_solver_types.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_run_info.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_update_trace.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_chunked_launch.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/AsyncSparse_cusparse_baseline.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_handle.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut_handle.hpp>
#include <asyncsparse/factorization/AsyncSparse_residuals.hpp>
#include <asyncsparse/factorization/AsyncSparse_select.hpp>
#include <asyncsparse/factorization/AsyncSparse_task_list.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#include <asyncsparse/linalg/AsyncSparse_diagonal.hpp>
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_async_jacobi_preconditioner.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_block_async_preconditioner.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilut_preconditioner.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_preconditioner.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi.hpp>
#include <asyncsparse/relaxation/AsyncSparse_block_async.hpp>
#include <asyncsparse/relaxation/AsyncSparse_jacobi.hpp>
#include <asyncsparse/relaxation/AsyncSparse_kk_gauss_seidel.hpp>
#include <asyncsparse/solvers/AsyncSparse_cg.hpp>
#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>
#include <asyncsparse/solvers/AsyncSparse_iterative_refinement.hpp>
