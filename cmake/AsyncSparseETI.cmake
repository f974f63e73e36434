# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Explicit template instantiation (ETI), the Kokkos-Kernels pattern: the compiled library instantiates the
# methods once for the configured scalars and Kokkos devices; the public headers declare those instantiations
# `extern template`, so a translation unit that includes them compiles only its own code. Other scalar or device
# types are still instantiated from the definitions in the headers (header-only use).
#
# Each public header that takes part ends with
#   #define ASYNCSPARSE_ETI_<GROUP>(EXTERN, SCALAR, DEVICE)  EXTERN template ... ;   (its entry points)
#   ASYNCSPARSE_ETI_DECLARE(ASYNCSPARSE_ETI_<GROUP>)          (extern declarations for the configured types)
# and `asyncsparse_eti_group(<group> <header> [DOUBLE_ONLY])` below generates one source file per (group, scalar,
# device) that expands the same macro without `extern` (the definitions).
#
# Options
#   AsyncSparse_ENABLE_ETI    ON (default): compile the instantiations into libasyncsparse
#   AsyncSparse_ETI_SCALARS   "double;float" (default)
#   AsyncSparse_ETI_BACKENDS  Kokkos backends to instantiate for; default: the backend of Kokkos' default execution
#                             space (Cuda, else HIP, else OpenMP, else Serial), the one the driver, the examples and
#                             the perf tests run on. The other backends stay usable header-only: a Serial unit test
#                             in an OpenMP build instantiates only what it calls, where the library would compile
#                             every member of every class for Serial too (measured: the instantiation objects took
#                             1052 s of CPU for Serial + OpenMP, about half of them for Serial).

option(AsyncSparse_ENABLE_ETI "Compile the methods for the configured scalars and backends into the library" ON)
set(AsyncSparse_ETI_SCALARS "double;float" CACHE STRING "Scalars the compiled library instantiates (double, float)")
set(AsyncSparse_ETI_BACKENDS "" CACHE STRING
    "Backends the compiled library instantiates (e.g. 'Serial;OpenMP'); empty: the default execution space's")

set(_eti_backends "")
foreach(_b Cuda HIP OpenMP Serial)  # Kokkos' order of preference for its default execution space
  if(_b IN_LIST AsyncSparse_BACKENDS)
    set(_eti_backends ${_b})
    break()
  endif()
endforeach()
if(AsyncSparse_ETI_BACKENDS)
  set(_eti_backends ${AsyncSparse_ETI_BACKENDS})
  foreach(_b ${_eti_backends})
    if(NOT _b IN_LIST AsyncSparse_BACKENDS)
      message(FATAL_ERROR "AsyncSparse_ETI_BACKENDS: '${_b}' is not a backend of this Kokkos (${AsyncSparse_BACKENDS})")
    endif()
  endforeach()
endif()
foreach(_s ${AsyncSparse_ETI_SCALARS})
  if(NOT _s MATCHES "^(double|float)$")
    message(FATAL_ERROR "AsyncSparse_ETI_SCALARS: '${_s}' is not supported (double, float)")
  endif()
endforeach()

# Kokkos device type of each backend (no commas: the names go through preprocessor macros).
set(_eti_device_Serial "Kokkos::Serial::device_type")
set(_eti_device_OpenMP "Kokkos::OpenMP::device_type")
set(_eti_device_Cuda "Kokkos::Cuda::device_type")
if(Kokkos_VERSION VERSION_LESS 4.0)
  set(_eti_device_HIP "Kokkos::Experimental::HIP::device_type")  # Kokkos 3.x: HIP still in Experimental
else()
  set(_eti_device_HIP "Kokkos::HIP::device_type")
endif()

# The list macros of the configuration header:
#   ASYNCSPARSE_ETI_FOR_EACH(M, E)         M(E, scalar, device) for every configured scalar and device
#   ASYNCSPARSE_ETI_FOR_EACH_DOUBLE(M, E)  the same for double only
set(AsyncSparse_ETI_ENABLED 0)
set(AsyncSparse_ETI_LIST "")
set(AsyncSparse_ETI_LIST_DOUBLE "")
if(AsyncSparse_ENABLE_ETI)
  set(AsyncSparse_ETI_ENABLED 1)
  foreach(_b ${_eti_backends})
    foreach(_s ${AsyncSparse_ETI_SCALARS})
      string(APPEND AsyncSparse_ETI_LIST " M(E, ${_s}, ${_eti_device_${_b}})")
      if(_s STREQUAL "double")
        string(APPEND AsyncSparse_ETI_LIST_DOUBLE " M(E, ${_s}, ${_eti_device_${_b}})")
      endif()
    endforeach()
  endforeach()
endif()
message(STATUS "AsyncSparse: ETI ${AsyncSparse_ENABLE_ETI} (scalars: ${AsyncSparse_ETI_SCALARS}; backends: ${_eti_backends})")

set(AsyncSparse_ETI_SOURCES "")
# asyncsparse_eti_group(GROUP HEADER [DOUBLE_ONLY]): one generated source per (scalar, backend) that defines the
# instantiations of macro ASYNCSPARSE_ETI_<GROUP> declared in HEADER (path below src/, e.g.
# asyncsparse/factorization/AsyncSparse_par_ilu.hpp).
function(asyncsparse_eti_group group header)
  if(NOT AsyncSparse_ENABLE_ETI)
    return()
  endif()
  set(_scalars ${AsyncSparse_ETI_SCALARS})
  if("DOUBLE_ONLY" IN_LIST ARGN)
    set(_scalars double)
  endif()
  string(TOUPPER ${group} _GROUP)
  set(_sources ${AsyncSparse_ETI_SOURCES})
  foreach(_b ${_eti_backends})
    string(TOUPPER ${_b} _B)
    foreach(_s ${_scalars})
      if(NOT _s IN_LIST AsyncSparse_ETI_SCALARS)
        continue()
      endif()
      set(_file ${PROJECT_BINARY_DIR}/eti/${group}/AsyncSparse_eti_${group}_${_s}_${_b}.cpp)
      set(_text "// Generated by cmake/AsyncSparseETI.cmake: explicit instantiation of ${group} for ${_s} on ${_b}.\n")
      string(APPEND _text "#include <${header}>\n\n#if defined(KOKKOS_ENABLE_${_B})\nnamespace AsyncSparse {\n")
      string(APPEND _text "ASYNCSPARSE_ETI_${_GROUP}(, ${_s}, ${_eti_device_${_b}})\n}  // namespace AsyncSparse\n#endif\n")
      file(WRITE ${_file}.tmp "${_text}")
      configure_file(${_file}.tmp ${_file} COPYONLY)  # rewritten only when it changes: no needless rebuilds
      list(APPEND _sources ${_file})
    endforeach()
  endforeach()
  set(AsyncSparse_ETI_SOURCES ${_sources} PARENT_SCOPE)
endfunction()
