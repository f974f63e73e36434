// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse command-line driver — the async-(k) options of `relax` and `ir`.
#include "driver_block_async.hpp"

namespace AsyncSparse {
namespace Driver {

void add_block_async_options(Cli& cli, BlockAsyncOptions& o, const BlockAsyncHelp& help,
                             const std::function<void()>& after_block_size) {
  cli.option("local-iters", o.local_iters, help.local_iters);
  cli.option("block-size", o.block_size, "rows per block (-1: --chunk-size, else 512 GPU / 1024 host)");
  if (after_block_size) after_block_size();
  cli.option("tau", o.tau, help.tau);
  cli.option("iters-per-launch", o.iters_per_launch, help.iters_per_launch);
  cli.choice("launch-mode", o.launch_mode, {"auto", "per-iteration", "fused"},
             "auto (per-iteration on GPUs, fused on host backends) | per-iteration (one launch per global iteration, "
             "the paper's) | fused (persistent teams; on host backends a rebalanced range of blocks per thread)");
  cli.flag("deterministic", o.deterministic, help.deterministic);
}

void set_block_async_params(BlockAsyncParams& p, const BlockAsyncOptions& o) {
  p.local_iters = o.local_iters;
  p.block_size = o.block_size;
  p.tau = o.tau;
  p.global_iters_per_launch = o.iters_per_launch;
  p.launch_mode = block_async_launch_mode_from_string(o.launch_mode);
  p.deterministic = o.deterministic;
}

}  // namespace Driver
}  // namespace AsyncSparse
