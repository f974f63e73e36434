# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Which Kokkos backends AsyncSparse builds tests / benchmarks for: every backend the found Kokkos has.
set(AsyncSparse_BACKENDS "")
foreach(_b SERIAL OPENMP CUDA HIP)
  kokkos_check(DEVICES ${_b} RETURN_VALUE _has)
  if(_has)
    if(_b STREQUAL "SERIAL")
      list(APPEND AsyncSparse_BACKENDS Serial)
    elseif(_b STREQUAL "OPENMP")
      list(APPEND AsyncSparse_BACKENDS OpenMP)
    elseif(_b STREQUAL "CUDA")
      list(APPEND AsyncSparse_BACKENDS Cuda)
    else()
      list(APPEND AsyncSparse_BACKENDS HIP)
    endif()
  endif()
endforeach()
