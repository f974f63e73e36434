// AsyncSparse — umbrella header: fine-grained and asynchronous fixed-point methods for sparse linear
// systems on Kokkos (iterative ILU/IC, ParILUT/ParICT, asynchronous and block-asynchronous Jacobi,
// mixed-precision iterative refinement), with Krylov solvers and a launch-control layer.
#pragma once

#include <AsyncSparse_config.hpp>

#include <core/AsyncSparse_crs.hpp>
#include <core/AsyncSparse_csr_host.hpp>
#include <core/AsyncSparse_errors.hpp>
#include <core/AsyncSparse_generators.hpp>
#include <core/AsyncSparse_load.hpp>
#include <core/AsyncSparse_matrix_market.hpp>
#include <core/AsyncSparse_norms.hpp>
#include <core/AsyncSparse_parameters.hpp>
#include <core/AsyncSparse_rcm.hpp>
#include <core/AsyncSparse_reference.hpp>
#include <core/AsyncSparse_scaling.hpp>
#include <core/AsyncSparse_validation.hpp>
#include <diagnostics/AsyncSparse_json.hpp>
#include <diagnostics/AsyncSparse_run_info.hpp>
#include <diagnostics/AsyncSparse_update_trace.hpp>
#include <exec/AsyncSparse_atomics.hpp>
#include <exec/AsyncSparse_chunked_launch.hpp>
#include <exec/AsyncSparse_launch_config.hpp>
#include <factorization/AsyncSparse_cusparse_baseline.hpp>
#include <factorization/AsyncSparse_par_ilu.hpp>
#include <factorization/AsyncSparse_par_ilu_handle.hpp>
#include <factorization/AsyncSparse_par_ilut.hpp>
#include <factorization/AsyncSparse_par_ilut_handle.hpp>
#include <factorization/AsyncSparse_residuals.hpp>
#include <factorization/AsyncSparse_select.hpp>
#include <factorization/AsyncSparse_task_list.hpp>
#include <preconditioner/AsyncSparse_factory.hpp>
#include <preconditioner/AsyncSparse_preconditioner.hpp>
#include <preconditioner/AsyncSparse_async_jacobi_preconditioner.hpp>
#include <preconditioner/AsyncSparse_block_async_preconditioner.hpp>
#include <preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>
#include <preconditioner/AsyncSparse_par_ilut_preconditioner.hpp>
#include <relaxation/AsyncSparse_async_jacobi.hpp>
#include <relaxation/AsyncSparse_block_async.hpp>
#include <relaxation/AsyncSparse_jacobi.hpp>
#include <solvers/AsyncSparse_cg.hpp>
#include <solvers/AsyncSparse_gmres.hpp>
#include <solvers/AsyncSparse_iterative_refinement.hpp>
#include <solvers/AsyncSparse_trisolve.hpp>
