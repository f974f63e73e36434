# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# fuzz_cli: the driver's command line (parse_command_line in src/driver/driver_cli.cpp) with the options of the
# subcommands named in AsyncSparse_FUZZ_DRIVER_COMMANDS ("all": every src/driver/cmd_*.cpp). The subcommand files
# are compiled whole (their run() too, which is never called), so each one adds minutes to the build: tools/fuzz
# builds `info` by default and every subcommand with --all-commands. Included from fuzz/CMakeLists.txt.
find_package(Kokkos 3.4 REQUIRED)
find_package(KokkosKernels REQUIRED HINTS "${Kokkos_DIR}/../KokkosKernels")
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3.9 CONFIG REQUIRED)

# The library's configuration header, without explicit instantiation (the driver files instantiate what they use).
file(STRINGS "${_root}/CMakeLists.txt" _project_line REGEX "^project\\(AsyncSparse VERSION")
string(REGEX REPLACE ".*VERSION ([0-9]+)\\.([0-9]+)\\.([0-9]+).*" "\\1;\\2;\\3" _v "${_project_line}")
list(GET _v 0 PROJECT_VERSION_MAJOR)
list(GET _v 1 PROJECT_VERSION_MINOR)
list(GET _v 2 PROJECT_VERSION_PATCH)
set(PROJECT_VERSION "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}.${PROJECT_VERSION_PATCH}")
set(AsyncSparse_HAVE_CUSPARSE OFF)
set(AsyncSparse_BACKENDS_STRING "fuzz")
set(AsyncSparse_ETI_ENABLED 0)
set(AsyncSparse_ETI_LIST "")
set(AsyncSparse_ETI_LIST_DOUBLE "")
configure_file(${_root}/cmake/AsyncSparse_config.hpp.in ${CMAKE_CURRENT_BINARY_DIR}/src/asyncsparse/AsyncSparse_config.hpp
               @ONLY)

set(_driver ${_root}/src/driver)
# Every shared driver file and the library's serial references (what the subcommand files call besides templates).
file(GLOB _cli_sources ${_driver}/driver_*.cpp ${_root}/src/asyncsparse/core/AsyncSparse_reference*.cpp)
if(AsyncSparse_FUZZ_DRIVER_COMMANDS STREQUAL "all")
  file(GLOB _cmd ${_driver}/cmd_*.cpp)
  list(APPEND _cli_sources ${_cmd})
else()
  foreach(_c ${AsyncSparse_FUZZ_DRIVER_COMMANDS})
    if(NOT EXISTS ${_driver}/cmd_${_c}.cpp)
      message(FATAL_ERROR "AsyncSparse_FUZZ_DRIVER_COMMANDS: no src/driver/cmd_${_c}.cpp")
    endif()
    file(GLOB _cmd ${_driver}/cmd_${_c}.cpp ${_driver}/cmd_${_c}_*.cpp)
    list(APPEND _cli_sources ${_cmd})
  endforeach()
endif()
message(STATUS "fuzz_cli: driver subcommands ${AsyncSparse_FUZZ_DRIVER_COMMANDS}")
asyncsparse_fuzz_target(cli ${_cli_sources})
target_include_directories(fuzz_cli PRIVATE ${_driver} ${CMAKE_CURRENT_BINARY_DIR}/src)
target_link_libraries(fuzz_cli PRIVATE fuzz_core Kokkos::kokkos Kokkos::kokkoskernels CLI11::CLI11
                                       nlohmann_json::nlohmann_json)
