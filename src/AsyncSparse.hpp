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
#include <exec/AsyncSparse_atomics.hpp>
#include <exec/AsyncSparse_chunked_launch.hpp>
#include <exec/AsyncSparse_launch_config.hpp>
#include <preconditioner/AsyncSparse_factory.hpp>
#include <preconditioner/AsyncSparse_preconditioner.hpp>
#include <solvers/AsyncSparse_cg.hpp>
#include <solvers/AsyncSparse_gmres.hpp>
