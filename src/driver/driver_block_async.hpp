// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse command-line driver — the options of the block-asynchronous relaxation async-(k) (Anzt, Tomov,
// Dongarra, Heuveline 2011) that `relax` (async-(k) as the solver) and `ir` (async-(k) as the inner solver of
// iterative refinement) share, and the library parameters they ask for.
#pragma once

#include <functional>
#include <string>

#include <asyncsparse/relaxation/AsyncSparse_block_async_handle.hpp>

#include "driver_cli.hpp"

namespace AsyncSparse {
namespace Driver {

/// --local-iters, --block-size, --tau, --iters-per-launch, --launch-mode, --deterministic; the defaults are those
/// of BlockAsyncParams.
struct BlockAsyncOptions {
  int local_iters = 5, block_size = -1;
  double tau = 1;
  int iters_per_launch = 10;
  std::string launch_mode = "auto";
  bool deterministic = false;
};

/// The help texts that depend on the subcommand (--block-size and --launch-mode read the same in every one).
struct BlockAsyncHelp {
  std::string local_iters, tau, iters_per_launch, deterministic;
};

/// Declares the options in the order --local-iters, --block-size, then the subcommand's own options that
/// `after_block_size` declares (relax: --iters, --tol), then --tau, --iters-per-launch, --launch-mode,
/// --deterministic: the order of --help and of the record's "options".
void add_block_async_options(Cli& cli, BlockAsyncOptions& o, const BlockAsyncHelp& help,
                             const std::function<void()>& after_block_size = nullptr);

/// Sets the fields of `p` that the options give (the others are kept).
void set_block_async_params(BlockAsyncParams& p, const BlockAsyncOptions& o);

}  // namespace Driver
}  // namespace AsyncSparse
