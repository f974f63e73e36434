// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse command-line driver — loading and checking the matrix, the diagonal shift and the right-hand side.
#include "driver_problem.hpp"

#include <chrono>
#include <random>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_load.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>

namespace AsyncSparse {
namespace Driver {

void add_matrix_argument(Cli& cli, ProblemOptions& o, const std::string& help) {
  cli.positional("matrix", o.matrix, help);
}

void add_shift_option(Cli& cli, ProblemOptions& o) {
  cli.option("shift", o.shift, "add this to every diagonal entry (A + shift I)");
}

void add_rhs_options(Cli& cli, ProblemOptions& o, const std::vector<std::string>& kinds, const std::string& help,
                     const std::string& seed_option) {
  cli.choice("rhs", o.rhs, kinds, help);
  cli.option(seed_option, o.rhs_seed, "seed of the random right-hand side");
}

Problem load_problem(const std::string& command, const ProblemOptions& o, Json& record, bool checked) {
  const auto t0 = std::chrono::steady_clock::now();
  Problem p;
  p.spec = o.matrix;
  p.name = matrix_display_name(o.matrix);
  p.A = load_matrix(o.matrix);
  Json m = Json::object();
  m["spec"] = p.spec;
  m["name"] = p.name;
  m["nrows"] = p.A.nrows;
  m["ncols"] = p.A.ncols;
  m["nnz"] = p.A.nnz();
  m["load_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  record["matrix"] = m;
  if (checked) {
    check_square(p.A, command);
    check_nonempty(p.A, command);
    check_finite(p.A, command);
  }
  if (o.shift != 0) {
    check_diagonal(p.A, command);
    for (ordinal_t i = 0; i < p.A.nrows; ++i)
      for (offset_t k = p.A.row_ptr[i]; k < p.A.row_ptr[i + 1]; ++k)
        if (p.A.col_idx[k] == i) p.A.values[k] += o.shift;
  }
  return p;
}

std::vector<double> make_rhs(const std::string& command, const ProblemOptions& o, ordinal_t n) {
  std::vector<double> b(static_cast<std::size_t>(n), 1.0);
  if (o.rhs == "random") {
    std::mt19937_64 rng(o.rhs_seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (auto& v : b) v = u(rng);
  } else if (o.rhs == "uniform") {
    std::mt19937_64 rng(o.rhs_seed);
    const double lo = -0.125, hi = 0.125;
    for (auto& x : b) x = lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
  } else if (o.rhs != "ones") {
    throw InvalidInput(command + ": --rhs must be ones, random or uniform, got '" + o.rhs + "'");
  }
  return b;
}

std::vector<std::int64_t> stencil_grid(const std::string& spec) {
  if (!is_generator_spec(spec)) return {};
  const auto g = parse_generator(spec);
  if (g.name == "lap2d" || g.name == "aniso2d" || g.name == "convdiff2d") return {g.size, g.size};
  if (g.name == "lap3d7" || g.name == "lap3d27") return {g.size, g.size, g.size};
  return {};
}

}  // namespace Driver
}  // namespace AsyncSparse
