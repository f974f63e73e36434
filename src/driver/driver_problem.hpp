// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse command-line driver — the set-up every subcommand shares: load the matrix (Matrix Market file or
// generator), check it (square, non-empty, finite values), add an optional diagonal shift, and build the
// right-hand side. Host code only: needs no initialised Kokkos.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>

#include "driver_cli.hpp"

namespace AsyncSparse {
namespace Driver {

/// The problem options of a subcommand. Which of them a subcommand offers, it declares with the add_* functions.
struct ProblemOptions {
  std::string matrix;          ///< <matrix>: Matrix Market file (.mtx, .mtx.gz) or gen:... spec
  double shift = 0;            ///< --shift s: A + s I (0: A unchanged)
  std::string rhs = "ones";    ///< --rhs: ones | random (uniform in [-1, 1]) | uniform (in (-0.125, 0.125))
  std::uint64_t rhs_seed = 0;  ///< seed of random / uniform right-hand sides
};

/// The positional <matrix>.
void add_matrix_argument(Cli& cli, ProblemOptions& o, const std::string& help = "Matrix Market file or gen:... spec");
/// --shift.
void add_shift_option(Cli& cli, ProblemOptions& o);
/// --rhs (one of `kinds`, default o.rhs) and its seed option `seed_option` (--rhs-seed, --seed).
void add_rhs_options(Cli& cli, ProblemOptions& o, const std::vector<std::string>& kinds, const std::string& help,
                     const std::string& seed_option = "rhs-seed");

struct Problem {
  std::string spec;  ///< as given
  std::string name;  ///< display name (file name without folder and extension, or the spec)
  CsrHost<double> A;
};

/// Loads o.matrix and writes its "matrix" object (spec, name, nrows, ncols, nnz, load_seconds) into `record`.
/// With `checked`, throws InvalidInput (prefixed with `command`) unless A is square, non-empty and finite. Adds
/// o.shift to the diagonal (every row must store its diagonal entry then).
Problem load_problem(const std::string& command, const ProblemOptions& o, Json& record, bool checked = true);

/// The right-hand side o.rhs of `n` rows: ones; random = uniform in [-1, 1] (std::uniform_real_distribution of
/// mt19937_64(o.rhs_seed)); uniform = in (-0.125, 0.125) from the raw 64-bit output of mt19937_64(o.rhs_seed)
/// (the same on every standard library; Tsai et al. 2022).
std::vector<double> make_rhs(const std::string& command, const ProblemOptions& o, ordinal_t n);

/// Grid sizes of stencil generators in natural order ({m, m} for lap2d / aniso2d / convdiff2d of m points per
/// direction, {m, m, m} for the 3D ones), else empty.
std::vector<std::int64_t> stencil_grid(const std::string& spec);

}  // namespace Driver
}  // namespace AsyncSparse
