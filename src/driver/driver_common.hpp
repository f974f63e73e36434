// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse command-line driver — shared pieces: option parsing, the subcommand registry, matrix
// loading on the default device, tables, progress output and the JSON run record.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <asyncsparse/AsyncSparse_config.hpp>
#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_load.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_json.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_run_info.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>

namespace AsyncSparse {
namespace Driver {

using Device = Kokkos::DefaultExecutionSpace::device_type;
using ExecSpace = Kokkos::DefaultExecutionSpace;

/// `--name value` / `--flag` options declared by a subcommand. Unknown options are errors that list
/// the valid ones; values are checked when read (`--sweeps x` → "--sweeps expects an integer, got 'x'").
class Cli {
 public:
  Cli(std::string command, std::string summary) : command_(std::move(command)), summary_(std::move(summary)) {}

  Cli& positional(const std::string& name, const std::string& help) {
    positional_.push_back({name, help});
    return *this;
  }
  Cli& option(const std::string& name, const std::string& def, const std::string& help) {
    opts_[name] = {def, help, false, false};
    order_.push_back(name);
    return *this;
  }
  Cli& flag(const std::string& name, const std::string& help) {
    opts_[name] = {"", help, true, false};
    order_.push_back(name);
    return *this;
  }
  /// Options every subcommand with a launch accepts (team size, vector length, occupancy, order).
  Cli& launch_options() {
    option("team-size", "-1", "threads per team (-1: auto)");
    option("vector-length", "-1", "lanes per row / subwarp size (-1: auto)");
    option("chunk-size", "-1", "work units per team chunk (-1: auto)");
    option("max-teams", "-1", "maximum concurrently running teams, occupancy control (-1: unlimited)");
    option("occupancy-mode", "persistent-teams", "how --max-teams is enforced: persistent-teams | scratch-pad");
    option("block-order", "forward", "order of work blocks: forward | backward | random");
    option("seed", "0", "seed of random orders");
    return *this;
  }

  /// Returns false when --help was given (usage already printed).
  bool parse(int argc, char** argv) {
    std::size_t pos = 0;
    for (int i = 0; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        std::cout << usage();
        return false;
      }
      if (a.rfind("--", 0) == 0) {
        std::string name = a.substr(2), value;
        const auto eq = name.find('=');
        bool has_eq = eq != std::string::npos;
        if (has_eq) {
          value = name.substr(eq + 1);
          name = name.substr(0, eq);
        }
        auto it = opts_.find(name);
        if (it == opts_.end()) throw InvalidInput(command_ + ": unknown option '--" + name + "'; valid options: " + names());
        if (it->second.is_flag) {
          if (has_eq) throw InvalidInput(command_ + ": option '--" + name + "' takes no value");
          it->second.value = "1";
        } else {
          if (!has_eq) {
            if (i + 1 >= argc) throw InvalidInput(command_ + ": option '--" + name + "' needs a value");
            value = argv[++i];
          }
          it->second.value = value;
        }
        it->second.given = true;
      } else {
        if (pos >= positional_.size())
          throw InvalidInput(command_ + ": unexpected argument '" + a + "'" +
                             (positional_.empty() ? "" : " (expects: " + positional_names() + ")"));
        positional_values_[positional_[pos++].name] = a;
      }
    }
    if (pos < positional_.size())
      throw InvalidInput(command_ + ": missing argument <" + positional_[pos].name + ">; usage: asyncsparse " + command_ +
                         " " + positional_names() + " [options]");
    return true;
  }

  std::string arg(const std::string& name) const { return positional_values_.at(name); }
  bool given(const std::string& name) const { return entry(name).given; }
  bool flag_set(const std::string& name) const { return entry(name).given; }
  std::string str(const std::string& name) const {
    const auto& e = entry(name);
    return e.given ? e.value : e.def;
  }
  long long integer(const std::string& name) const {
    const std::string s = str(name);
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0') throw InvalidInput(command_ + ": --" + name + " expects an integer, got '" + s + "'");
    return v;
  }
  double real(const std::string& name) const {
    const std::string s = str(name);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0') throw InvalidInput(command_ + ": --" + name + " expects a number, got '" + s + "'");
    return v;
  }
  /// Comma-separated list of integers ("0,1,2,5").
  std::vector<int> int_list(const std::string& name) const {
    std::vector<int> out;
    std::stringstream ss(str(name));
    std::string tok;
    while (std::getline(ss, tok, ',')) {
      char* end = nullptr;
      const long v = std::strtol(tok.c_str(), &end, 10);
      if (tok.empty() || *end != '\0')
        throw InvalidInput(command_ + ": --" + name + " expects comma-separated integers, got '" + str(name) + "'");
      out.push_back(static_cast<int>(v));
    }
    return out;
  }
  LaunchConfig launch_config() const {
    LaunchConfig c;
    c.team_size = static_cast<int>(integer("team-size"));
    c.vector_length = static_cast<int>(integer("vector-length"));
    c.chunk_size = static_cast<int>(integer("chunk-size"));
    c.max_concurrent_teams = static_cast<int>(integer("max-teams"));
    const std::string om = str("occupancy-mode");
    if (om == "persistent-teams")
      c.occupancy_mode = OccupancyMode::PersistentTeams;
    else if (om == "scratch-pad")
      c.occupancy_mode = OccupancyMode::ScratchPad;
    else
      throw InvalidInput(command_ + ": --occupancy-mode must be persistent-teams or scratch-pad, got '" + om + "'");
    c.block_order = block_order_from_string(str("block-order"));
    c.seed = static_cast<std::uint64_t>(integer("seed"));
    return c;
  }

  std::string usage() const {
    std::ostringstream os;
    os << "usage: asyncsparse " << command_ << " " << positional_names() << " [options]\n" << summary_ << "\n";
    for (const auto& p : positional_) os << "  <" << p.name << ">  " << p.help << "\n";
    os << "options:\n";
    for (const auto& n : order_) {
      const auto& e = opts_.at(n);
      os << "  --" << n << (e.is_flag ? "" : " VALUE") << "  " << e.help;
      if (!e.is_flag && !e.def.empty()) os << " (default " << e.def << ")";
      os << "\n";
    }
    return os.str();
  }
  /// All options and their values, for the JSON record.
  Json to_json() const {
    Json j = Json::object();
    for (const auto& p : positional_values_) j[p.first] = p.second;
    for (const auto& n : order_) {
      const auto& e = opts_.at(n);
      if (e.is_flag)
        j[n] = e.given;
      else
        j[n] = e.given ? e.value : e.def;
    }
    return j;
  }

 private:
  struct Entry {
    std::string def, help;
    bool is_flag = false, given = false;
    std::string value;
  };
  struct Positional {
    std::string name, help;
  };
  const Entry& entry(const std::string& name) const {
    auto it = opts_.find(name);
    if (it == opts_.end()) throw Error("driver: option '" + name + "' was not declared");
    return it->second;
  }
  std::string names() const {
    std::string s;
    for (const auto& n : order_) s += (s.empty() ? "--" : ", --") + n;
    return s;
  }
  std::string positional_names() const {
    std::string s;
    for (const auto& p : positional_) s += (s.empty() ? "<" : " <") + p.name + ">";
    return s;
  }
  std::string command_, summary_;
  std::map<std::string, Entry> opts_;
  std::vector<std::string> order_;
  std::vector<Positional> positional_;
  std::map<std::string, std::string> positional_values_;
};

/// Subcommand registry: each cmd_*.cpp registers itself with a static Registrar.
struct Command {
  std::string name, summary;
  std::function<int(int, char**)> run;
};
inline std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}
struct Registrar {
  Registrar(const std::string& name, const std::string& summary, std::function<int(int, char**)> run) {
    commands().push_back({name, summary, std::move(run)});
  }
};

/// Progress on a terminal: "\r<label> k/N" on stderr, only when stderr is a TTY (quiet in logs/CI).
class Progress {
 public:
  Progress(std::string label, long long total) : label_(std::move(label)), total_(total), tty_(isatty(2) != 0) {}
  void update(long long k, const std::string& extra = "") {
    if (!tty_) return;
    std::fprintf(stderr, "\r%s %lld/%lld %s   ", label_.c_str(), k, total_, extra.c_str());
    std::fflush(stderr);
  }
  ~Progress() {
    if (tty_) std::fprintf(stderr, "\r%*s\r", 80, "");
  }

 private:
  std::string label_;
  long long total_;
  bool tty_;
};

/// A fixed-width text table printed to stdout.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void row(std::vector<std::string> r) { rows_.push_back(std::move(r)); }
  void print(std::ostream& os = std::cout) const {
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

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

inline std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// The JSON record common to all subcommands: command, options, Kokkos configuration, time stamp.
inline Json run_record(const std::string& command, const Cli& cli) {
  Json j = Json::object();
  j["asyncsparse_version"] = ASYNCSPARSE_VERSION_STRING;
  j["command"] = command;
  j["date"] = utc_timestamp();
  j["options"] = cli.to_json();
  j["kokkos"] = kokkos_info();
  return j;
}

/// Load a matrix spec with a message on stderr for large files; records name/size in `record`.
inline CsrHost<double> load_for_command(const std::string& spec, Json* record = nullptr) {
  Kokkos::Timer t;
  auto A = load_matrix(spec);
  if (record) {
    Json m = Json::object();
    m["spec"] = spec;
    m["name"] = matrix_display_name(spec);
    m["nrows"] = A.nrows;
    m["ncols"] = A.ncols;
    m["nnz"] = A.nnz();
    m["load_seconds"] = t.seconds();
    (*record)["matrix"] = m;
  }
  return A;
}

}  // namespace Driver
}  // namespace AsyncSparse

#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>

namespace AsyncSparse {
namespace Driver {

/// Solve A x = b with b = ones and x0 = 0 (the papers' convention) by PCG (`spd`) or GMRES.
inline SolverResult solve_ones(const Crs<double, Device>& A, Preconditioner<double, Device>* M, bool spd,
                               const SolverParams& params) {
  Kokkos::View<double*, Device> b("b", A.numRows()), x("x", A.numRows());
  Kokkos::deep_copy(b, 1.0);
  return spd ? cg<double, Device>(A, b, x, M, params) : gmres<double, Device>(A, b, x, M, params);
}

inline Json to_json(const SolverResult& r) {
  Json j = Json::object();
  j["status"] = to_string(r.status);
  j["iterations"] = r.iterations;
  j["final_relative_residual"] = r.final_relative_residual;
  j["time_seconds"] = r.time_seconds;
  if (!r.message.empty()) j["message"] = r.message;
  j["residual_history"] = r.residual_history;
  j["time_history"] = r.time_history;
  return j;
}

}  // namespace Driver
}  // namespace AsyncSparse
