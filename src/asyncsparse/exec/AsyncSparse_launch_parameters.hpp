// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the launch settings as named parameters: one vocabulary for every preconditioner (and so for the
// Ifpack2 adapter, whose "asyncsparse: <name with spaces>" parameters are derived from the preconditioners'
// parameter specs).
//
// Every field of LaunchConfig has one parameter of the same name (the seed is `launch_seed`, as the methods have
// their own seeds):
//   team_size (int, default -1), vector_length (int, -1), chunk_size (int, -1), max_concurrent_teams (int, -1),
//   occupancy_mode (string, "persistent-teams" | "scratch-pad"), scratch_pad_bytes (int, -1),
//   block_order (string, "forward" | "backward" | "random"), launch_seed (int, 0), oversubscription (int, 1),
//   schedule (string, "auto" | "static" | "dynamic"), unit_stride (int, -1).
// -1 means "choose for me": resolve_launch_config makes that choice per backend, with the method's LaunchDefaults
// (documented at each method's launch resolution).
#pragma once

#include <cstdint>
#include <string>

#include <asyncsparse/core/AsyncSparse_parameters.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>

namespace AsyncSparse {

/// Appends the launch parameters (see the header comment) to `spec`; returns `spec`.
inline ParameterSpec& add_launch_parameters(ParameterSpec& spec) {
  spec.add("team_size", -1, "threads (lane groups) per team (-1: auto, per method and backend)")
      .add("vector_length", -1, "lanes per work unit, the subwarp (-1: auto, per method and backend)")
      .add("chunk_size", -1, "work units per team pass (-1: auto, per method and backend)")
      .add("max_concurrent_teams", -1, "occupancy limit: teams running at once (-1: unlimited)")
      .add("occupancy_mode", std::string("persistent-teams"), "how max_concurrent_teams is enforced",
           {"persistent-teams", "scratch-pad"})
      .add("scratch_pad_bytes", -1, "unused scratch per team of the scratch-pad occupancy mode (-1: from the limit)")
      .add("block_order", std::string("forward"), "execution order of the work chunks",
           {"forward", "backward", "random"})
      .add("launch_seed", 0, "seed of the random block order (>= 0)")
      .add("oversubscription", 1, "workers per hardware thread of dynamic row assignment (asynchronous Jacobi)")
      .add("schedule", std::string("auto"),
           "host backends: how the chunks go to the threads: static (equal shares) | dynamic (threads done early take "
           "chunks from the others; no occupancy limit) | auto (the method's choice: dynamic for the ParILU/ParIC "
           "sweeps); kernels that map work to threads themselves (static asynchronous Jacobi, async-(k) on host "
           "backends) keep their mapping; GPUs: not used",
           {"auto", "static", "dynamic"})
      .add("unit_stride", -1,
           "host backends: interleaved passes over a chunk's units (begin, begin+s, ..., then begin+1, ...), so that "
           "in an in-place sweep consecutive units do not wait on each other (-1: the method's choice, 1 for every "
           "method); GPUs: not used");
  return spec;
}

/// `base` with the launch parameters given in `list` (absent ones keep base's values; the default base holds the
/// parameters' defaults). Throws InvalidInput, prefixed with `owner`, for a negative launch_seed; the other
/// values are checked when the launch is resolved.
inline LaunchConfig launch_config_from_parameters(const ParameterList& list, const std::string& owner,
                                                  LaunchConfig base = LaunchConfig()) {
  LaunchConfig c = base;
  c.team_size = list.get("team_size", base.team_size);
  c.vector_length = list.get("vector_length", base.vector_length);
  c.chunk_size = list.get("chunk_size", base.chunk_size);
  c.max_concurrent_teams = list.get("max_concurrent_teams", base.max_concurrent_teams);
  if (list.isParameter("occupancy_mode"))
    c.occupancy_mode = occupancy_mode_from_string(list.get("occupancy_mode", "persistent-teams"));
  c.scratch_pad_bytes = list.get("scratch_pad_bytes", base.scratch_pad_bytes);
  if (list.isParameter("block_order")) c.block_order = block_order_from_string(list.get("block_order", "forward"));
  if (list.isParameter("launch_seed")) {
    const int seed = list.get("launch_seed", 0);
    if (seed < 0) throw InvalidInput(owner + ": parameter 'launch_seed' must be >= 0, got " + std::to_string(seed));
    c.seed = static_cast<std::uint64_t>(seed);
  }
  c.oversubscription = list.get("oversubscription", base.oversubscription);
  if (list.isParameter("schedule")) c.schedule = chunk_schedule_from_string(list.get("schedule", "auto"));
  c.unit_stride = list.get("unit_stride", base.unit_stride);
  return c;
}

}  // namespace AsyncSparse
