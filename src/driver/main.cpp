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
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_run_info.hpp>

#include "driver_cli.hpp"

namespace {

using namespace AsyncSparse::Driver;

const char* const kFooter =
    "Matrices: a Matrix Market file (.mtx or .mtx.gz) or a generator, e.g. gen:lap2d:1024,\n"
    "gen:lap3d7:64, gen:lap3d27:64, gen:aniso2d:256:0.01:30, gen:trefethen:2000, gen:random:10000.\n"
    "Kokkos options (--kokkos-threads=N, --kokkos-device-id=N, ..., --kokkos-help) are accepted by every command.";

/// A subcommand on the command line: its entry, its options and the command object they are bound to.
struct Subcommand {
  const CommandEntry* entry = nullptr;
  std::unique_ptr<Command> command;
  std::unique_ptr<Cli> cli;
  CLI::App* app = nullptr;
  std::string json;          ///< --json FILE
  bool no_progress = false;  ///< --no-progress
};

void print_version() {
  std::cout << "asyncsparse " << ASYNCSPARSE_VERSION_STRING << "\n"
            << "Kokkos " << ASYNCSPARSE_KOKKOS_VERSION_STRING << ", Kokkos-Kernels "
            << ASYNCSPARSE_KOKKOSKERNELS_VERSION_STRING << "\n"
            << "backends: " << ASYNCSPARSE_BACKENDS_STRING << " (default execution space "
            << Kokkos::DefaultExecutionSpace::name() << ")\n";
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

/// Declares every registered subcommand on `app`.
std::vector<Subcommand> declare_subcommands(CLI::App& app) {
  auto& entries = commands();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  // The options are bound to members of the elements (s.json): the vector must not reallocate once they are.
  std::vector<Subcommand> subs;
  subs.reserve(entries.size());
  for (const auto& e : entries) {
    subs.emplace_back();
    Subcommand& s = subs.back();
    s.entry = &e;
    s.app = app.add_subcommand(e.name, e.summary);
    s.command = e.make();
    s.cli.reset(new Cli(*s.app, e.name));
    s.command->define(*s.cli);
    s.app->footer(s.cli->about().empty() ? std::string(kFooter) : s.cli->about() + "\n\n" + kFooter);
    s.cli->option("json", s.json, "write a JSON record to this file");
    s.cli->flag("no-progress", s.no_progress,
                "print no progress lines on stderr (they appear only when stderr is a terminal)", /*recorded=*/false);
  }
  return subs;
}

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
  } catch (const AsyncSparse::Error& e) {
    std::cerr << who << ": error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << who << ": unexpected error: " << e.what() << "\n";
  }
  return 2;
}

}  // namespace

int main(int argc, char* argv[]) {
  // Thread binding for the OpenMP backend unless the user chose one (Kokkos warns when unset).
  if (!std::getenv("OMP_PROC_BIND")) setenv("OMP_PROC_BIND", "spread", 1);
  if (!std::getenv("OMP_PLACES")) setenv("OMP_PLACES", "threads", 1);

  // --kokkos-* options are Kokkos' (passed to Kokkos::initialize); the rest is parsed here.
  std::vector<char*> kokkos_args{argv[0]}, args{argv[0]};
  bool kokkos_help = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--kokkos-", 9) == 0) {
      kokkos_args.push_back(argv[i]);
      kokkos_help = kokkos_help || std::strcmp(argv[i], "--kokkos-help") == 0;
    } else {
      args.push_back(argv[i]);
    }
  }
  static char help[] = "--help";
  if (args.size() > 1 && std::strcmp(args[1], "help") == 0) {  // `help` and `help <command>`
    args.erase(args.begin() + 1);
    args.push_back(help);
  }

  CLI::App app(
      "asyncsparse — fine-grained and asynchronous fixed-point methods for sparse linear systems "
      "(AsyncSparse " ASYNCSPARSE_VERSION_STRING ").",
      "asyncsparse");
  app.footer(kFooter);
  app.get_formatter()->column_width(34);
  bool version = false;
  app.add_flag("--version", version,
               "print the versions of AsyncSparse, Kokkos and Kokkos-Kernels and the enabled backends");
  std::vector<Subcommand> subs = declare_subcommands(app);

  if (args.size() > 1 && args[1][0] != '-' &&
      std::none_of(subs.begin(), subs.end(), [&](const Subcommand& s) { return s.entry->name == args[1]; })) {
    std::cerr << "asyncsparse: unknown command '" << args[1] << "'\n\n" << app.help();
    return 2;
  }
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const auto chosen = app.get_subcommands();
    const Subcommand* s = nullptr;
    for (const auto& x : subs)
      if (!chosen.empty() && x.app == chosen.front()) s = &x;
    std::cerr << "asyncsparse" << (s ? " " + s->entry->name : std::string())
              << ": error: " << (s ? s->cli->parse_error(e, app.remaining(true)) : std::string(e.what())) << "\n";
    return 2;
  }
  if (version) {
    print_version();
    return 0;
  }
  for (auto& s : subs)
    if (s.app->parsed()) return run_subcommand(s, kokkos_args, kokkos_help);
  if (kokkos_help) {  // Kokkos prints its options when it is initialised
    KokkosFinalizer finalizer;
    if (!initialize_kokkos("asyncsparse", kokkos_args)) return 4;
  }
  std::cout << app.help();
  return 1;
}
