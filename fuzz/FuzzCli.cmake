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
