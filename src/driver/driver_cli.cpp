// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse command-line driver — subcommand options on CLI11, the registry, the common record, progress lines
// and tables.
#include "driver_cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <unistd.h>

#include <asyncsparse/AsyncSparse_config.hpp>
#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_parse_number.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_run_info.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve_rule.hpp>

namespace AsyncSparse {
namespace Driver {

namespace driver_cli_local {
// Validators run on the text before CLI11 converts it; their message follows the option's name
// ("--steps: expects an integer, got 'x'").
CLI::Validator integer_check(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        long long v = 0;
        const Impl::NumberText t = Impl::parse_integer(s, v);
        if (t == Impl::NumberText::Malformed) return "expects an integer, got '" + s + "'";
        if (t == Impl::NumberText::OutOfRange || v < lo || v > hi)
          return "expects an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + s + "'";
        return "";
      },
      "");
}
CLI::Validator unsigned_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        unsigned long long v = 0;
        const Impl::NumberText t = Impl::parse_unsigned(s, v);
        if (t == Impl::NumberText::Malformed) return "expects a non-negative integer, got '" + s + "'";
        if (t == Impl::NumberText::OutOfRange)
          return "expects a non-negative integer of at most 64 bits, got '" + s + "'";
        return "";
      },
      "");
}
CLI::Validator number_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v = 0;
        const Impl::NumberText t = Impl::parse_number(s, v);
        if (t == Impl::NumberText::Malformed) return "expects a number, got '" + s + "'";
        if (t == Impl::NumberText::OutOfRange) return "expects a number in the range of double, got '" + s + "'";
        return "";
      },
      "");
}
std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}
}  // namespace driver_cli_local
using namespace driver_cli_local;  // named, not anonymous: the driver's files share unity batches

LaunchConfig launch_config(const LaunchOptions& o) {
  LaunchConfig c;
  c.team_size = o.team_size;
  c.vector_length = o.vector_length;
  c.chunk_size = o.chunk_size;
  c.max_concurrent_teams = o.max_teams;
  c.occupancy_mode = o.occupancy_mode == "scratch-pad" ? OccupancyMode::ScratchPad : OccupancyMode::PersistentTeams;
  c.block_order = block_order_from_string(o.block_order);
  c.seed = o.seed;
  c.schedule = chunk_schedule_from_string(o.schedule);
  c.unit_stride = o.unit_stride;
  return c;
}

Cli::Cli(CLI::App& app, std::string command) : app_(app), command_(std::move(command)) {}

void Cli::positional(const std::string& name, std::string& value, const std::string& help) {
  options_.emplace_back(name, app_.add_option(name, value, help)->required()->type_name(""));
}
void Cli::option(const std::string& name, std::string& value, const std::string& help) {
  options_.emplace_back(name, app_.add_option("--" + name, value, help)->capture_default_str()->type_name("TEXT"));
}
void Cli::option(const std::string& name, int& value, const std::string& help) {
  options_.emplace_back(name, app_.add_option("--" + name, value, help)
                                  ->capture_default_str()
                                  ->check(integer_check(INT_MIN, INT_MAX))
                                  ->type_name("INT"));
}
void Cli::option(const std::string& name, long long& value, const std::string& help) {
  options_.emplace_back(name, app_.add_option("--" + name, value, help)
                                  ->capture_default_str()
                                  ->check(integer_check(LLONG_MIN, LLONG_MAX))
                                  ->type_name("INT"));
}
void Cli::option(const std::string& name, std::uint64_t& value, const std::string& help) {
  options_.emplace_back(
      name,
      app_.add_option("--" + name, value, help)->capture_default_str()->check(unsigned_check())->type_name("UINT"));
}
void Cli::option(const std::string& name, double& value, const std::string& help) {
  options_.emplace_back(name, app_.add_option("--" + name, value, help)
                                  ->default_str(number_text(value))
                                  ->check(number_check())
                                  ->type_name("NUM"));
}
void Cli::choice(const std::string& name, std::string& value, const std::vector<std::string>& choices,
                 const std::string& help) {
  auto check = CLI::Validator(
      [choices](std::string& s) -> std::string {
        if (std::find(choices.begin(), choices.end(), s) != choices.end()) return "";
        return "expects " + join(choices, " | ") + ", got '" + s + "'";
      },
      "");
  options_.emplace_back(
      name,
      app_.add_option("--" + name, value, help)->capture_default_str()->check(check)->type_name(join(choices, "|")));
}
void Cli::flag(const std::string& name, bool& value, const std::string& help, bool recorded) {
  options_.emplace_back(name, app_.add_flag("--" + name, value, help), true, recorded);
}

void Cli::launch_options(LaunchOptions& o) {
  option("team-size", o.team_size, "threads per team (-1: auto)");
  option("vector-length", o.vector_length, "lanes per row / subwarp size (-1: auto)");
  option("chunk-size", o.chunk_size, "work units per team chunk (-1: auto)");
  option("max-teams", o.max_teams, "maximum concurrently running teams, occupancy control (-1: unlimited)");
  choice("occupancy-mode", o.occupancy_mode, {"persistent-teams", "scratch-pad"}, "how --max-teams is enforced");
  choice("block-order", o.block_order, {"forward", "backward", "random"}, "order of work blocks");
  option("seed", o.seed, "seed of random orders");
  choice("schedule", o.schedule, {"auto", "static", "dynamic"},
         "host backends: how the chunks go to the threads (auto: the method's choice; dynamic: no --max-teams)");
  option("unit-stride", o.unit_stride,
         "host backends: interleaved passes over a chunk's units, so that in-place sweeps do not wait on the unit "
         "just before (-1: the method's choice)");
}

void Cli::tri_solve_options(std::string& kind, int& sweeps) {
  choice("tri-solve", kind, tri_solve_kind_names(),
         "triangular solves of the preconditioners: auto (the measured rule choose_tri_solve: exact on host "
         "backends; isai, jacobi or exact on GPUs by size and a Jacobi probe), exact, jacobi, jacobi_adaptive or isai");
  option("tri-solve-sweeps", sweeps,
         "jacobi: sweeps per solve; jacobi_adaptive: maximum sweeps; isai: correction steps; -1: the default "
         "(jacobi 3, jacobi_adaptive 10, isai 0; auto: the rule's)");
}

bool Cli::given(const std::string& name) const {
  for (const auto& o : options_)
    if (o.name == name) return o.option->count() > 0;
  throw Error("driver: option '" + name + "' was not declared");
}

Json Cli::to_json() const {
  Json j = Json::object();
  for (const auto& o : options_) {
    const CLI::Option& opt = *o.option;
    if (!o.recorded) continue;
    if (o.flag)
      j[o.name] = opt.count() > 0;
    else
      j[o.name] = opt.count() > 0 ? join(opt.results(), ",") : opt.get_default_str();
  }
  return j;
}

std::string Cli::option_names() const {
  std::vector<std::string> names;
  for (const auto& o : options_)
    if (!o.option->get_positional()) names.push_back("--" + o.name);
  names.push_back("--help");
  return join(names, ", ");
}

std::string Cli::parse_error(const CLI::ParseError& e, const std::vector<std::string>& extras) const {
  std::string positionals;
  for (const auto& o : options_)
    if (o.option->get_positional()) positionals += (positionals.empty() ? "<" : " <") + o.name + ">";
  for (const auto& o : options_)
    if (o.option->get_positional() && o.option->count() == 0 && dynamic_cast<const CLI::RequiredError*>(&e))
      return "missing argument <" + o.name + ">; usage: asyncsparse " + command_ + " " + positionals + " [options]";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) && !extras.empty()) {
    const std::string& x = extras.front();
    if (x.size() > 1 && x[0] == '-') {
      const std::string name = x.substr(0, x.find('='));
      return "unknown option '" + name + "'; valid options: " + option_names();
    }
    return "unexpected argument '" + x + "'" + (positionals.empty() ? "" : " (expects: " + positionals + ")");
  }
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && what.rfind("--", 0) == 0 &&
      what.find(" missing") != std::string::npos)
    return what.substr(0, what.find(':')) + ": needs a value";
  return what;
}

std::vector<CommandEntry>& commands() {
  static std::vector<CommandEntry> list;
  return list;
}
Registrar::Registrar(std::string name, std::string summary, std::function<std::unique_ptr<Command>()> make) {
  commands().push_back({std::move(name), std::move(summary), std::move(make)});
}

namespace driver_cli_local {
const char* const kFooter =
    "Matrices: a Matrix Market file (.mtx or .mtx.gz) or a generator, e.g. gen:lap2d:1024,\n"
    "gen:lap3d7:64, gen:lap3d27:64, gen:aniso2d:256:0.01:30, gen:convdiff2d:150:1, gen:trefethen:2000,\n"
    "gen:random:10000.\n"
    "Kokkos options (--kokkos-threads=N, --kokkos-device-id=N, ..., --kokkos-help) are accepted by every command.";

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
}  // namespace driver_cli_local

CommandLine::CommandLine() = default;
CommandLine::~CommandLine() = default;

int parse_command_line(int argc, char* argv[], CommandLine& cl, std::ostream& out, std::ostream& err) {
  // --kokkos-* options are Kokkos' (passed to Kokkos::initialize); the rest is parsed here.
  std::vector<char*> args{argv[0]};
  cl.kokkos_args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--kokkos-", 9) == 0) {
      cl.kokkos_args.push_back(argv[i]);
      cl.kokkos_help = cl.kokkos_help || std::strcmp(argv[i], "--kokkos-help") == 0;
    } else {
      args.push_back(argv[i]);
    }
  }
  static char help[] = "--help";
  if (args.size() > 1 && std::strcmp(args[1], "help") == 0) {  // `help` and `help <command>`
    args.erase(args.begin() + 1);
    args.push_back(help);
  }

  cl.app.reset(
      new CLI::App("asyncsparse — fine-grained and asynchronous fixed-point methods for sparse linear systems "
                   "(AsyncSparse " ASYNCSPARSE_VERSION_STRING ").",
                   "asyncsparse"));
  CLI::App& app = *cl.app;
  app.footer(kFooter);
  app.get_formatter()->column_width(34);
  app.add_flag("--version", cl.version,
               "print the versions of AsyncSparse, Kokkos and Kokkos-Kernels and the enabled backends");
  cl.subcommands = declare_subcommands(app);
  auto& subs = cl.subcommands;

  if (args.size() > 1 && args[1][0] != '-' &&
      std::none_of(subs.begin(), subs.end(), [&](const Subcommand& s) { return s.entry->name == args[1]; })) {
    err << "asyncsparse: unknown command '" << args[1] << "'\n\n" << app.help();
    return 2;
  }
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    const auto chosen = app.get_subcommands();
    const Subcommand* s = nullptr;
    for (const auto& x : subs)
      if (!chosen.empty() && x.app == chosen.front()) s = &x;
    err << "asyncsparse" << (s ? " " + s->entry->name : std::string())
        << ": error: " << (s ? s->cli->parse_error(e, app.remaining(true)) : std::string(e.what())) << "\n";
    return 2;
  }
  for (auto& s : subs)
    if (s.app->parsed()) cl.chosen = &s;
  return -1;
}

Json run_record(const Cli& cli) {
  Json j = Json::object();
  j["asyncsparse_version"] = ASYNCSPARSE_VERSION_STRING;
  j["offset_bits"] = 8 * sizeof(AsyncSparse::offset_t);  // AsyncSparse_OFFSET_TYPE of the build
  j["command"] = cli.command();
  j["date"] = utc_timestamp();
  j["options"] = cli.to_json();
  j["kokkos"] = kokkos_info();
  return j;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string tok;
  while (std::getline(ss, tok, ','))
    if (!tok.empty()) out.push_back(tok);
  return out;
}

std::vector<int> parse_int_list(const std::string& what, const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    long long v = 0;
    if (!Impl::parse_integer_in(tok, INT_MIN, INT_MAX, v))
      throw InvalidInput(what + " expects comma-separated integers, got '" + text + "'");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

namespace driver_cli_local {
bool progress_enabled = true;
}
void Progress::enable(bool on) { progress_enabled = on; }

Progress::Progress(std::string label, long long total)
    : label_(std::move(label)),
      total_(total),
      tty_(progress_enabled && isatty(2) != 0),
      start_(std::chrono::steady_clock::now()) {}

void Progress::update(long long k, const std::string& extra) {
  if (!tty_) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "\r%s %lld/%lld  %.1f s %s   ", label_.c_str(), k, total_, s, extra.c_str());
  std::fflush(stderr);
}

Progress::~Progress() {
  if (tty_) {
    std::fprintf(stderr, "\r%*s\r", 100, "");
    std::fflush(stderr);
  }
}

void Table::print(std::ostream& os) const {
  std::vector<std::size_t> w(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) w[c] = header_[c].size();
  for (const auto& r : rows_)
    for (std::size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
  auto line = [&](const std::vector<std::string>& r) {
    for (std::size_t c = 0; c < w.size(); ++c) {
      const std::string s = c < r.size() ? r[c] : "";
      os << (c ? "  " : "") << std::string(w[c] - s.size(), ' ') << s;
    }
    os << "\n";
  };
  line(header_);
  std::size_t total = 0;
  for (auto x : w) total += x + 2;
  os << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
  for (const auto& r : rows_) line(r);
}

std::string number_text(double v) {
  char buf[40];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  const auto e = s.find('e');
  if (e != std::string::npos) {
    std::string mant = s.substr(0, e), exp = s.substr(e + 1);
    const char sign = exp[0] == '-' ? '-' : '\0';
    if (exp[0] == '-' || exp[0] == '+') exp.erase(0, 1);
    exp.erase(0, std::min(exp.find_first_not_of('0'), exp.size() - 1));
    s = mant + "e" + (sign ? std::string(1, sign) : std::string()) + exp;
  }
  return s;
}
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string spread_text(const SampleSummary& s, const char* f) {
  if (s.count == 0) return "-";
  if (s.count == 1 || s.min == s.max) return fmt(f, s.median);
  return fmt(f, s.median) + " [" + fmt(f, s.q1) + ", " + fmt(f, s.q3) + "] max " + fmt(f, s.max);
}

}  // namespace Driver
}  // namespace AsyncSparse
