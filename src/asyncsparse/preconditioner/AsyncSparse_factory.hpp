// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — create a preconditioner by name (driver, examples, adapters).
//
// Names: "none" (identity), "jacobi" (diagonal). Each further method adds itself here. Parameters
// are passed through setParameters, so unknown names and wrong types are rejected by the
// preconditioner's own ParameterSpec. parse_parameter_string (the driver's --param text) is in
// core/AsyncSparse_parameters.hpp.
#pragma once

#include <memory>
#include <string>

#include <asyncsparse/core/AsyncSparse_parameters.hpp>

#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilut_preconditioner.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_preconditioner.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_async_jacobi_preconditioner.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_block_async_preconditioner.hpp>

namespace AsyncSparse {

inline std::string preconditioner_names() {
  return "none | jacobi | async_jacobi | par_ilu | par_ic | par_ilut | par_ict | block_async";
}

template <class Scalar, class Device>
std::unique_ptr<PreconditionerBase<Scalar, Device>> make_preconditioner(const std::string& name,
                                                                        const Crs<Scalar, Device>& A,
                                                                        const ParameterList& params = {}) {
  std::unique_ptr<PreconditionerBase<Scalar, Device>> M;
  if (name == "none" || name == "identity")
    M.reset(new IdentityPreconditioner<Scalar, Device>(A));
  else if (name == "jacobi")
    M.reset(new JacobiPreconditioner<Scalar, Device>(A));
  else if (name == "par_ilu")
    M.reset(new ParIlu<Scalar, Device>(A));
  else if (name == "par_ic")
    M.reset(new ParIc<Scalar, Device>(A));
  else if (name == "par_ilut")
    M.reset(new ParIlut<Scalar, Device>(A));
  else if (name == "par_ict")
    M.reset(new ParIct<Scalar, Device>(A));
  else if (name == "async_jacobi")
    M.reset(new AsyncJacobiPreconditioner<Scalar, Device>(A));
  else if (name == "block_async")
    M.reset(new BlockAsyncPreconditioner<Scalar, Device>(A));
  else
    throw InvalidInput("unknown preconditioner '" + name + "'; valid: " + preconditioner_names());
  M->setParameters(params);
  return M;
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured scalars
// and devices; other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_FACTORY(EXTERN, S, D)                                                                         \
  EXTERN template std::unique_ptr<PreconditionerBase<S, D>> make_preconditioner(const std::string&, const Crs<S, D>&, \
                                                                                const ParameterList&);
ASYNCSPARSE_ETI_DECLARE_DOUBLE(ASYNCSPARSE_ETI_FACTORY)

}  // namespace AsyncSparse
