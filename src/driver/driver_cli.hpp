// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse command-line driver — the pieces every subcommand shares: its options (declared on a CLI11
// subcommand and bound to typed variables), the subcommand registry, the common part of the JSON record,
// progress lines on a terminal and text tables. Nothing here needs Kokkos to be initialised.
//
// A subcommand is a Command: define() declares its arguments (the parse phase: CLI11 converts and checks the
// values; `--steps x` is "--steps: expects an integer, got 'x'", an unknown option lists the valid ones), and
// run() prepares the problem, runs the library and reports (table on stdout, JSON record). main() parses the
// whole command line first (parse_command_line) and initialises Kokkos only for subcommands that need the
// device, so that --help, --version, `info` and argument errors work on a node without a GPU.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <asyncsparse/diagnostics/AsyncSparse_sample_statistics.hpp>

#include "driver_json.hpp"

namespace CLI {
class App;
class Option;
class ParseError;
}  // namespace CLI

namespace AsyncSparse {
struct LaunchConfig;

namespace Driver {

/// The launch options that subcommands with a configurable launch accept (see LaunchConfig).
struct LaunchOptions {
  int team_size = -1;
  int vector_length = -1;
  int chunk_size = -1;
  int max_teams = -1;
  std::string occupancy_mode = "persistent-teams";
  std::string block_order = "forward";
  std::uint64_t seed = 0;
  std::string schedule = "auto";
  int unit_stride = -1;
};
/// The LaunchConfig the options ask for.
LaunchConfig launch_config(const LaunchOptions& o);

/// The options of one subcommand, on its CLI11 app. Every option is bound to a variable whose value at
/// declaration is the default (shown by --help and written into the record when the option is not given).
class Cli {
 public:
  Cli(CLI::App& app, std::string command);
  const std::string& command() const { return command_; }
  /// What the subcommand does, in a few lines (shown by `asyncsparse <command> --help`).
  void about(const std::string& text) { about_ = text; }
  const std::string& about() const { return about_; }

  /// The required positional argument <name>.
  void positional(const std::string& name, std::string& value, const std::string& help);
  /// `--name VALUE`; integers and numbers are checked when parsed.
  void option(const std::string& name, std::string& value, const std::string& help);
  void option(const std::string& name, int& value, const std::string& help);
  void option(const std::string& name, long long& value, const std::string& help);
  void option(const std::string& name, std::uint64_t& value, const std::string& help);
  void option(const std::string& name, double& value, const std::string& help);
  /// `--name VALUE` where VALUE is one of `choices`.
  void choice(const std::string& name, std::string& value, const std::vector<std::string>& choices,
              const std::string& help);
  /// `--name` (no value): sets `value` to true. With `recorded` false the flag is left out of the record's
  /// "options" (for flags that change the console output only).
  void flag(const std::string& name, bool& value, const std::string& help, bool recorded = true);
  /// --team-size, --vector-length, --chunk-size, --max-teams, --occupancy-mode, --block-order, --seed, --schedule,
  /// --unit-stride.
  void launch_options(LaunchOptions& o);
  /// --tri-solve (auto | exact | jacobi | jacobi_adaptive | isai) and --tri-solve-sweeps, the triangular solves of
  /// the incomplete-factorization preconditioners (the parameters tri_solve / tri_solve_sweeps of the library).
  void tri_solve_options(std::string& kind, int& sweeps);

  /// Whether the option was given on the command line.
  bool given(const std::string& name) const;
  /// Every argument and option with its value (as given, else the default; flags as true/false).
  Json to_json() const;
  /// "--a, --b, ..." (for the message about an unknown option).
  std::string option_names() const;
  /// The message for a command-line error of this subcommand: CLI11's, except for an unknown option ("unknown
  /// option '--x'; valid options: ..."), a surplus argument and a missing positional argument. `extras`: the
  /// arguments CLI11 could not place.
  std::string parse_error(const CLI::ParseError& e, const std::vector<std::string>& extras) const;

 private:
  CLI::App& app_;
  std::string command_, about_;
  struct Declared {
    Declared(std::string n, CLI::Option* o, bool f = false, bool r = true)
        : name(std::move(n)), option(o), flag(f), recorded(r) {}
    std::string name;
    CLI::Option* option;
    bool flag;      ///< written into the record as true/false
    bool recorded;  ///< written into the record at all
  };
  std::vector<Declared> options_;  // in the order declared
};

/// A subcommand: parse (define), then prepare / run / report (run).
class Command {
 public:
  virtual ~Command() = default;
  /// Declares the arguments and options, bound to members of the command.
  virtual void define(Cli& cli) = 0;
  /// False for commands that run on the host only (Kokkos is then not initialised).
  virtual bool needs_device() const { return true; }
  /// Prepares the problem, runs and reports (table on stdout, fields of `record`). Exit status: 0 success,
  /// 3 a run did not converge. Errors in the input throw InvalidInput.
  virtual int run(Json& record) = 0;
};

struct CommandEntry {
  std::string name, summary;
  std::function<std::unique_ptr<Command>()> make;
};
/// Every subcommand built into the driver (each cmd_*.cpp registers its own with a static Registrar).
std::vector<CommandEntry>& commands();
struct Registrar {
  Registrar(std::string name, std::string summary, std::function<std::unique_ptr<Command>()> make);
};

/// A subcommand on the command line: its entry, its options and the command object they are bound to.
struct Subcommand {
  const CommandEntry* entry = nullptr;
  std::unique_ptr<Command> command;
  std::unique_ptr<Cli> cli;
  CLI::App* app = nullptr;
  std::string json;          ///< --json FILE
  bool no_progress = false;  ///< --no-progress
};

/// The command line after parsing: what main() runs next.
struct CommandLine {
  CommandLine();
  ~CommandLine();
  std::unique_ptr<CLI::App> app;        ///< `asyncsparse` with every registered subcommand
  std::vector<Subcommand> subcommands;  ///< in name order; their options are bound to these elements
  std::vector<char*> kokkos_args;       ///< argv[0] and the --kokkos-* options (for Kokkos::initialize)
  bool kokkos_help = false;             ///< --kokkos-help was given
  bool version = false;                 ///< --version was given
  Subcommand* chosen = nullptr;         ///< the subcommand to run; null when none was given
};

/// Parses argv (argv[0] first) without running anything and without Kokkos: splits off the --kokkos-* options,
/// declares every registered subcommand (`help [command]` stands for `[command] --help`) and lets CLI11 convert
/// and check the rest. Returns -1 when main() goes on with `cl`, else the exit status after help (0, printed on
/// `out`) or an error (2, one line on `err`: an unknown command, option or choice, a malformed value, a missing
/// or surplus argument). The strings of argv must outlive `cl`.
int parse_command_line(int argc, char* argv[], CommandLine& cl, std::ostream& out, std::ostream& err);

/// The part of the JSON record common to all subcommands: version, command, date, options, Kokkos.
Json run_record(const Cli& cli);

/// "0,1,2,5" -> {0, 1, 2, 5}; throws InvalidInput naming `what` (e.g. "ic: --sweeps") for anything else.
std::vector<int> parse_int_list(const std::string& what, const std::string& text);
/// "a,b,,c" -> {"a", "b", "c"}.
std::vector<std::string> split_list(const std::string& text);

/// Progress of a long loop on stderr ("\r<label> k/N  12.3 s <extra>"), only when stderr is a terminal: quiet
/// in logs and CI, and with --no-progress. The line is cleared when the Progress ends.
class Progress {
 public:
  /// Off: no Progress prints anything (--no-progress).
  static void enable(bool on);
  Progress(std::string label, long long total);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress();
  /// k items done (of total); `extra` describes the one running now.
  void update(long long k, const std::string& extra = "");

 private:
  std::string label_;
  long long total_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
};

/// A fixed-width text table printed to stdout.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void row(std::vector<std::string> r) { rows_.push_back(std::move(r)); }
  void print(std::ostream& os = std::cout) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

/// The shortest text that reads back as `v`, with the exponent unpadded (1e-6, not 1e-06): how number defaults
/// are shown by --help and written into the record's "options".
std::string number_text(double v);
/// printf-style formatting of one number.
std::string fmt(const char* f, double v);
/// The outcome of repeated runs as one table cell: "median [q1, q3] max M" (quartiles, and the worst case of
/// iteration counts and residuals: the maximum); the value alone when every run gave the same, "-" for no runs.
std::string spread_text(const SampleSummary& s, const char* f);

}  // namespace Driver
}  // namespace AsyncSparse
