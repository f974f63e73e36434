// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse — command-line driver of the AsyncSparse library.
//
//   asyncsparse <command> [arguments] [options]     (asyncsparse <command> --help for its options)
//
// Every command prints a readable table and, with --json FILE, writes a JSON record (matrix,
// parameters, resolved launch configuration, Kokkos configuration, timings, histories) that
// tools/plot turns into PNG figures. Errors in the input are reported in one line, exit status 2.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "driver_common.hpp"

namespace {
void print_commands() {
  auto list = AsyncSparse::Driver::commands();
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::cout << "usage: asyncsparse <command> [arguments] [options]\n"
               "       asyncsparse <command> --help\n\ncommands:\n";
  for (const auto& c : list)
    std::cout << "  " << c.name << std::string(c.name.size() < 10 ? 10 - c.name.size() : 1, ' ') << c.summary << "\n";
  std::cout << "\nMatrices: a Matrix Market file (.mtx or .mtx.gz) or a generator, e.g. gen:lap2d:1024,\n"
               "gen:lap3d7:64, gen:lap3d27:64, gen:aniso2d:256:0.01:30, gen:trefethen:2000, gen:random:10000.\n"
               "Kokkos options (--kokkos-threads=N, ...) are accepted by every command.\n";
}
}  // namespace

int main(int argc, char* argv[]) {
  // Thread binding for the OpenMP backend unless the user chose one (Kokkos warns when unset).
  if (!std::getenv("OMP_PROC_BIND")) setenv("OMP_PROC_BIND", "spread", 1);
  if (!std::getenv("OMP_PLACES")) setenv("OMP_PLACES", "threads", 1);
  // Kokkos answers a plain --help with its own option list: hide ours from it (--kokkos-help still shows it).
  static char help_sentinel[] = "--asyncsparse-help";
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help")) argv[i] = help_sentinel;
  Kokkos::ScopeGuard guard(argc, argv);  // removes --kokkos-* arguments
  static char help[] = "--help";
  for (int i = 1; i < argc; ++i)
    if (argv[i] == help_sentinel) argv[i] = help;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    print_commands();
    return argc < 2 ? 1 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::cout << "asyncsparse " << ASYNCSPARSE_VERSION_STRING << " (Kokkos "
              << AsyncSparse::kokkos_info()["kokkos_version"].string() << ", " << Kokkos::DefaultExecutionSpace::name()
              << ")\n";
    return 0;
  }
  for (const auto& c : AsyncSparse::Driver::commands()) {
    if (c.name != argv[1]) continue;
    try {
      return c.run(argc - 2, argv + 2);
    } catch (const AsyncSparse::Error& e) {
      std::cerr << "asyncsparse " << c.name << ": error: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "asyncsparse " << c.name << ": unexpected error: " << e.what() << "\n";
      return 2;
    }
  }
  std::cerr << "asyncsparse: unknown command '" << argv[1] << "'\n\n";
  print_commands();
  return 2;
}
