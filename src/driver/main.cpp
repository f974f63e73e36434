// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse — command-line driver of the AsyncSparse library.
//
//   asyncsparse <command> [arguments] [options]     (asyncsparse <command> --help for its options)
//   asyncsparse --version
//
// Every command prints a readable table and, with --json FILE, writes a JSON record (matrix, parameters,
// resolved launch configuration, Kokkos configuration, timings, histories) that tools/plot turns into PNG
// figures. The command line is parsed before Kokkos is initialised, and Kokkos is initialised only for commands
// that run on the device: --help, --version, `info` and argument errors need no GPU (a login node will do).
//
// Exit status: 0 success; 1 no command given; 2 an error in the command line or the input; 3 a run did not
// converge; 4 the device cannot be used (a GPU build without a usable GPU, Kokkos initialisation failed).
#include <Kokkos_Core.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <asyncsparse/AsyncSparse_config.hpp>
#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_run_info.hpp>

#include "driver_cli.hpp"

namespace main_local {

using namespace AsyncSparse::Driver;

void print_version() {
  std::cout << "asyncsparse " << ASYNCSPARSE_VERSION_STRING << "\n"
            << "Kokkos " << ASYNCSPARSE_KOKKOS_VERSION_STRING << ", Kokkos-Kernels "
            << ASYNCSPARSE_KOKKOSKERNELS_VERSION_STRING << "\n"
            << "backends: " << ASYNCSPARSE_BACKENDS_STRING << " (default execution space "
            << Kokkos::DefaultExecutionSpace::name() << ")\n"
            << "offsets: " << 8 * sizeof(AsyncSparse::offset_t) << "-bit (at most " << AsyncSparse::max_stored_entries
            << " stored entries per matrix)\n";
}

/// Initialises Kokkos with its own options (`kokkos_args`, argv[0] first); false (message printed) when the
/// device cannot be used.
bool initialize_kokkos(const std::string& who, std::vector<char*> kokkos_args) {
  std::string reason;
  if (!AsyncSparse::default_device_available(reason)) {
    std::cerr << who << ": error: this build runs on " << Kokkos::DefaultExecutionSpace::name()
              << ", but no usable GPU was found (" << reason << ")\n";
    return false;
  }
  int n = static_cast<int>(kokkos_args.size());
  kokkos_args.push_back(nullptr);
  try {
    Kokkos::initialize(n, kokkos_args.data());
  } catch (const std::exception& e) {
    std::cerr << who << ": error: Kokkos could not be initialised on " << Kokkos::DefaultExecutionSpace::name() << ": "
              << e.what() << "\n";
    return false;
  }
  return true;
}

/// Finalises Kokkos at the end of main when it was initialised.
struct KokkosFinalizer {
  ~KokkosFinalizer() {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  }
};

/// Runs the chosen subcommand: Kokkos (when it needs the device), the record, the command, the JSON file.
int run_subcommand(Subcommand& s, const std::vector<char*>& kokkos_args, bool kokkos_help) {
  const std::string who = "asyncsparse " + s.entry->name;
  KokkosFinalizer finalizer;
  Progress::enable(!s.no_progress);
  if ((s.command->needs_device() || kokkos_help) && !initialize_kokkos(who, kokkos_args)) return 4;
  try {
    Json record = run_record(*s.cli);
    const int status = s.command->run(record);
    if (!s.json.empty()) save_json(record, s.json);
    return status;
  } catch (const std::exception& e) {
    // A failed allocation (host or device: Kokkos names the View and its size) is an error of its own kind, not
    // an unexpected one.
    if (AsyncSparse::is_out_of_memory(e) && !dynamic_cast<const AsyncSparse::OutOfMemory*>(&e))
      std::cerr << who << ": error: out of memory: " << e.what() << "\n";
    else if (dynamic_cast<const AsyncSparse::Error*>(&e))
      std::cerr << who << ": error: " << e.what() << "\n";
    else
      std::cerr << who << ": unexpected error: " << e.what() << "\n";
  }
  return 2;
}

}  // namespace main_local
using namespace main_local;  // named, not anonymous: the driver's files share unity batches

int main(int argc, char* argv[]) {
  // Thread binding for the OpenMP backend unless the user chose one (Kokkos warns when unset).
  if (!std::getenv("OMP_PROC_BIND")) setenv("OMP_PROC_BIND", "spread", 1);
  if (!std::getenv("OMP_PLACES")) setenv("OMP_PLACES", "threads", 1);

  CommandLine cl;
  const int status = parse_command_line(argc, argv, cl, std::cout, std::cerr);
  if (status >= 0) return status;
  if (cl.version) {
    print_version();
    return 0;
  }
  if (cl.chosen) return run_subcommand(*cl.chosen, cl.kokkos_args, cl.kokkos_help);
  if (cl.kokkos_help) {  // Kokkos prints its options when it is initialised
    KokkosFinalizer finalizer;
    if (!initialize_kokkos("asyncsparse", cl.kokkos_args)) return 4;
  }
  std::cout << cl.app->help();
  return 1;
}
