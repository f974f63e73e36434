// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — launch-control layer.
//
// The GPU papers this library implements tune *how* a fixed-point kernel runs, not only what it
// computes: the number of threads per block (team size), the subwarp size per row (vector length),
// how many blocks may be resident at once (occupancy; Chow–Anzt–Dongarra 2015, Table 5, limit it by
// requesting unused shared memory), the order in which work blocks execute (forward / backward /
// random block order, ibid. sect. 4), and how many workers cycle over the rows (oversubscription;
// Tsai–Nayak–Chow–Anzt 2022, Algorithm 3). Every kernel of AsyncSparse takes a `LaunchConfig`; -1
// (or Auto) means "choose for me", and `resolve_launch_config<ExecSpace>` is the one place where
// those choices are made per backend; a method that wants other automatic choices than the generic
// ones (a vector length of 1, smaller GPU teams, ...) passes them as `LaunchDefaults`. The resolved
// values are stored in each algorithm's Stats, printed by verbose mode and recorded by the benchmarks.
//
// Work model: a kernel has `work_items` units (rows, or entries of a task list). They are cut into
// `num_chunks` chunks of `chunk_size` consecutive units; a chunk is processed by one team. The team
// that runs first (league rank 0) takes chunk `order[0]`, and so on: `BlockOrder` sets that
// permutation. With `max_concurrent_teams` > 0 only that many teams are launched and each walks over
// the chunks `order[t], order[t + P], ...` (a persistent-team occupancy limit that works on every
// backend); `OccupancyMode::ScratchPad` instead launches one team per chunk and requests unused
// scratch memory per team so the GPU cannot keep more than the wanted number of teams resident.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>  // Impl::is_gpu_space

namespace AsyncSparse {

/// Order in which the work chunks (blocks) are executed.
enum class BlockOrder {
  Forward,   ///< chunk 0 first (the natural / Gaussian-elimination order for row-major task lists)
  Backward,  ///< last chunk first
  Random     ///< a random permutation (seeded by LaunchConfig::seed)
};

/// How `max_concurrent_teams` is enforced.
enum class OccupancyMode {
  PersistentTeams,  ///< launch only max_concurrent_teams teams; each loops over its share of chunks (all backends)
  ScratchPad        ///< launch every chunk as a team, request unused scratch to cap resident teams (GPU technique)
};

inline const char* to_string(BlockOrder o) {
  switch (o) {
    case BlockOrder::Forward:
      return "forward";
    case BlockOrder::Backward:
      return "backward";
    default:
      return "random";
  }
}
inline BlockOrder block_order_from_string(const std::string& s) {
  if (s == "forward") return BlockOrder::Forward;
  if (s == "backward") return BlockOrder::Backward;
  if (s == "random") return BlockOrder::Random;
  throw InvalidInput("block order '" + s + "' unknown (valid: forward, backward, random)");
}
/// How the chunks of a launch go to the threads of a host backend (GPUs schedule their blocks themselves).
enum class ChunkSchedule {
  Auto,    ///< the method's choice (LaunchDefaults::host_dynamic_schedule)
  Static,  ///< equal contiguous shares of the launch positions per thread (Kokkos' static schedule)
  Dynamic  ///< threads that finish their share take launch positions from the others' (Kokkos' dynamic schedule)
};

inline const char* to_string(ChunkSchedule c) {
  return c == ChunkSchedule::Auto ? "auto" : c == ChunkSchedule::Static ? "static" : "dynamic";
}
inline ChunkSchedule chunk_schedule_from_string(const std::string& s) {
  if (s == "auto") return ChunkSchedule::Auto;
  if (s == "static") return ChunkSchedule::Static;
  if (s == "dynamic") return ChunkSchedule::Dynamic;
  throw InvalidInput("chunk schedule '" + s + "' unknown (valid: auto, static, dynamic)");
}

inline const char* to_string(OccupancyMode m) {
  return m == OccupancyMode::PersistentTeams ? "persistent-teams" : "scratch-pad";
}
inline OccupancyMode occupancy_mode_from_string(const std::string& s) {
  if (s == "persistent-teams") return OccupancyMode::PersistentTeams;
  if (s == "scratch-pad") return OccupancyMode::ScratchPad;
  throw InvalidInput("occupancy mode '" + s + "' unknown (valid: persistent-teams, scratch-pad)");
}

/// User-facing launch parameters. -1 means "choose for me" (resolved per backend).
struct LaunchConfig {
  /// Threads (vector-lane groups) per team. Default -1: 1 on host backends, 256/vector_length on GPUs.
  int team_size = -1;
  /// Lanes cooperating on one work unit (the "subwarp"). Default -1: 1 on host backends; on GPUs the
  /// power of two nearest the average nonzeros per row, at most 32 (Kokkos-Kernels' heuristic).
  int vector_length = -1;
  /// Work units per chunk (= per team pass). Default -1: team_size on GPUs (one unit per lane group),
  /// 256 on host backends (large enough to amortise the team dispatch, small enough to load-balance).
  int chunk_size = -1;
  /// Maximum number of teams running concurrently (occupancy / parallelism control).
  /// Default -1: no limit (one team per chunk). 1 runs the chunks one after another.
  int max_concurrent_teams = -1;
  /// How max_concurrent_teams is enforced (default PersistentTeams, portable).
  OccupancyMode occupancy_mode = OccupancyMode::PersistentTeams;
  /// Extra unused scratch (bytes per team) requested to lower occupancy (ScratchPad mode; computed from
  /// max_concurrent_teams when -1). Default -1.
  int scratch_pad_bytes = -1;
  /// Order in which chunks execute. Default Forward.
  BlockOrder block_order = BlockOrder::Forward;
  /// Seed of the Random block order (and of any other randomised launch choice). Default 0.
  std::uint64_t seed = 0;
  /// Oversubscription factor of dynamic row assignment: workers = concurrency × factor. Default 1.
  int oversubscription = 1;
  /// Host backends: how the chunks go to the threads (ChunkSchedule). Dynamic is refused with an occupancy limit
  /// (on every backend) and not applied with a scratch-pad request. Kernels that map their work to threads
  /// themselves (the static asynchronous Jacobi, async-(k)) keep their mapping. GPUs: not used. Default Auto.
  ChunkSchedule schedule = ChunkSchedule::Auto;
  /// Host backends: a thread visits the units of a chunk in `unit_stride` interleaved passes — begin, begin + s,
  /// begin + 2s, ..., then begin + 1, begin + 1 + s, ... (s = 1: in order). In an in-place sweep where a unit reads
  /// what its predecessor just wrote (a factor row the pivot of the row before it), consecutive units then no longer
  /// wait on each other: the dependency chain becomes s independent ones. GPUs: not used (a team's threads run
  /// consecutive units at once). Default -1: the method's LaunchDefaults::host_unit_stride (1 unless it sets one;
  /// no method does: 2 made the ParIC sweeps of a naturally ordered 2D grid 1.5x faster, but the other matrices
  /// measured no faster beyond sweeps of a few microseconds, and each sweep less converged —
  /// perf_tests/results/MEASUREMENTS.md#host-unit-stride).
  int unit_stride = -1;
};

/// Whether `l` leaves the launch to the method: team_size, vector_length, chunk_size, max_concurrent_teams and
/// scratch_pad_bytes at -1 and block_order Forward (the fields the sweep kernels' Auto rules look at; an explicit
/// setting keeps the meaning it has for the paper's entry kernel).
inline bool is_default_launch(const LaunchConfig& l) {
  return l.team_size == -1 && l.vector_length == -1 && l.chunk_size == -1 && l.max_concurrent_teams == -1 &&
         l.scratch_pad_bytes == -1 && l.block_order == BlockOrder::Forward;
}

/// A method's own choices for the -1 (auto) fields of a LaunchConfig, passed to resolve_launch_config. A field
/// left at -1 keeps the generic rule documented at LaunchConfig.
struct LaunchDefaults {
  /// vector_length when LaunchConfig::vector_length is -1. Default -1: the generic rule.
  int vector_length = -1;
  /// Largest vector_length the method's kernel supports; a larger explicit value throws InvalidInput naming
  /// `method`. Default -1: no limit besides the backend's.
  int max_vector_length = -1;
  /// GPU team size when LaunchConfig::team_size is -1: max(1, gpu_team_threads / vector_length). Default -1: 256.
  int gpu_team_threads = -1;
  /// chunk_size when LaunchConfig::chunk_size is -1, on host backends and on GPUs. Default -1: the generic rule
  /// (256 on host backends, the team size on GPUs).
  int host_chunk_size = -1;
  int gpu_chunk_size = -1;
  /// Host backends, LaunchConfig::schedule Auto: the dynamic schedule (threads done with their share take chunks
  /// from the others') instead of equal static shares, when the launch has no occupancy limit. A thread that
  /// shares its core with another process then runs fewer chunks instead of holding up the launch's end.
  /// Default false.
  bool host_dynamic_schedule = false;
  /// Host backends, LaunchConfig::unit_stride -1: the interleaved passes over a chunk's units. Default -1: 1.
  int host_unit_stride = -1;
  /// The method, named in the messages of the checks above. Default "LaunchConfig".
  std::string method = "LaunchConfig";
};

/// The launch actually used, after resolution. Printed by verbose modes and benchmarks.
struct ResolvedLaunch {
  std::string execution_space;
  int team_size = 1;
  int vector_length = 1;
  int chunk_size = 1;
  std::int64_t work_items = 0;
  std::int64_t num_chunks = 0;
  int league_size = 1;            ///< teams launched
  int max_concurrent_teams = -1;  ///< -1: unlimited
  OccupancyMode occupancy_mode = OccupancyMode::PersistentTeams;
  int scratch_pad_bytes = 0;
  BlockOrder block_order = BlockOrder::Forward;
  std::uint64_t seed = 0;
  int oversubscription = 1;
  /// Host backends: Kokkos' dynamic schedule of the teams (LaunchConfig::schedule,
  /// LaunchDefaults::host_dynamic_schedule)
  bool dynamic_schedule = false;
  /// Host backends: the interleaved passes over a chunk's units (LaunchConfig::unit_stride); 1 on GPUs
  int unit_stride = 1;
  int concurrency = 1;  ///< ExecSpace::concurrency() (hardware threads the backend can run at once)

  /// The schedule run: "dynamic" or "static" (AsyncSparse::to_string of the ChunkSchedule).
  const char* schedule_name() const {
    return AsyncSparse::to_string(dynamic_schedule ? ChunkSchedule::Dynamic : ChunkSchedule::Static);
  }

  std::string to_string() const {
    std::ostringstream os;
    os << "exec=" << execution_space << " team_size=" << team_size << " vector_length=" << vector_length
       << " chunk_size=" << chunk_size << " chunks=" << num_chunks << " league=" << league_size
       << " max_concurrent_teams=" << max_concurrent_teams << " occupancy=" << AsyncSparse::to_string(occupancy_mode)
       << " scratch_pad_bytes=" << scratch_pad_bytes << " block_order=" << AsyncSparse::to_string(block_order)
       << " seed=" << seed << " oversubscription=" << oversubscription << " schedule=" << schedule_name()
       << " unit_stride=" << unit_stride << " concurrency=" << concurrency;
    return os.str();
  }
};

namespace Impl {
inline int pow2_near(double x, int cap) {
  int v = 1;
  while (v * 2 <= cap && v * 2 <= x * 1.5) v *= 2;  // nearest power of two not exceeding ~1.5 x
  return v;
}
}  // namespace Impl

/// Resolve -1/Auto fields for `ExecSpace`, for `work_items` units of average `avg_nnz_per_unit`
/// nonzeros each, with the method's `defaults` for the automatic choices. Throws InvalidInput for inconsistent
/// explicit values.
template <class ExecSpace>
ResolvedLaunch resolve_launch_config(const LaunchConfig& cfg, std::int64_t work_items, double avg_nnz_per_unit = 1.0,
                                     const ExecSpace& exec = ExecSpace(),
                                     const LaunchDefaults& defaults = LaunchDefaults()) {
  const bool gpu = Impl::is_gpu_space<ExecSpace>();
  ResolvedLaunch r;
  r.execution_space = ExecSpace::name();
  r.concurrency = static_cast<int>(exec.concurrency());
  r.work_items = work_items;
  if (cfg.vector_length == 0 || cfg.vector_length < -1)
    throw InvalidInput("LaunchConfig: vector_length must be -1 (auto) or >= 1, got " +
                       std::to_string(cfg.vector_length));
  if (cfg.team_size == 0 || cfg.team_size < -1)
    throw InvalidInput("LaunchConfig: team_size must be -1 (auto) or >= 1, got " + std::to_string(cfg.team_size));
  if (cfg.chunk_size == 0 || cfg.chunk_size < -1)
    throw InvalidInput("LaunchConfig: chunk_size must be -1 (auto) or >= 1, got " + std::to_string(cfg.chunk_size));
  if (cfg.max_concurrent_teams == 0 || cfg.max_concurrent_teams < -1)
    throw InvalidInput("LaunchConfig: max_concurrent_teams must be -1 (unlimited) or >= 1, got " +
                       std::to_string(cfg.max_concurrent_teams));
  if (cfg.oversubscription < 1)
    throw InvalidInput("LaunchConfig: oversubscription must be >= 1, got " + std::to_string(cfg.oversubscription));
  if (cfg.unit_stride == 0 || cfg.unit_stride < -1)
    throw InvalidInput("LaunchConfig: unit_stride must be -1 (auto) or >= 1, got " + std::to_string(cfg.unit_stride));
  if (cfg.schedule == ChunkSchedule::Dynamic && cfg.max_concurrent_teams > 0)
    throw InvalidInput("LaunchConfig: schedule 'dynamic' takes no occupancy limit (max_concurrent_teams -1), got " +
                       std::to_string(cfg.max_concurrent_teams));

  const LaunchDefaults& d = defaults;
  if (cfg.vector_length > 0) {
    r.vector_length = cfg.vector_length;
  } else if (d.vector_length > 0) {
    r.vector_length = d.vector_length;
  } else {
    r.vector_length = gpu ? Impl::pow2_near(avg_nnz_per_unit, 32) : 1;
  }
  if (d.max_vector_length > 0 && r.vector_length > d.max_vector_length)
    throw InvalidInput(
        d.method + ": launch.vector_length must be -1 or " +
        (d.max_vector_length == 1 ? std::string("1") : "at most " + std::to_string(d.max_vector_length)) + ", got " +
        std::to_string(r.vector_length));
  if (gpu) {
    if (r.vector_length > 32 || (r.vector_length & (r.vector_length - 1)) != 0)
      throw InvalidInput("LaunchConfig: vector_length on a GPU must be a power of two <= 32, got " +
                         std::to_string(r.vector_length));
    const int threads = d.gpu_team_threads > 0 ? d.gpu_team_threads : 256;
    r.team_size = cfg.team_size > 0 ? cfg.team_size : std::max(1, threads / r.vector_length);
    if (r.team_size * r.vector_length > 1024)
      throw InvalidInput("LaunchConfig: team_size * vector_length must be <= 1024 on a GPU, got " +
                         std::to_string(r.team_size * r.vector_length));
    r.chunk_size = cfg.chunk_size > 0 ? cfg.chunk_size : (d.gpu_chunk_size > 0 ? d.gpu_chunk_size : r.team_size);
  } else {
    r.team_size = cfg.team_size > 0 ? cfg.team_size : 1;
    r.chunk_size = cfg.chunk_size > 0 ? cfg.chunk_size : (d.host_chunk_size > 0 ? d.host_chunk_size : 256);
  }
  r.num_chunks = work_items == 0 ? 0 : (work_items + r.chunk_size - 1) / r.chunk_size;
  r.max_concurrent_teams = cfg.max_concurrent_teams;
  r.occupancy_mode = cfg.occupancy_mode;
  r.block_order = cfg.block_order;
  r.seed = cfg.seed;
  r.oversubscription = cfg.oversubscription;
  const std::int64_t max_league = std::int64_t(1) << 30;
  if (r.num_chunks > max_league) throw InvalidInput("LaunchConfig: too many chunks; increase chunk_size");
  if (cfg.max_concurrent_teams > 0 && cfg.occupancy_mode == OccupancyMode::PersistentTeams) {
    r.league_size =
        static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(r.num_chunks, cfg.max_concurrent_teams)));
  } else {
    r.league_size = static_cast<int>(std::max<std::int64_t>(1, r.num_chunks));
  }
  r.scratch_pad_bytes = 0;
  if (cfg.occupancy_mode == OccupancyMode::ScratchPad) {
    if (cfg.scratch_pad_bytes >= 0) {
      r.scratch_pad_bytes = cfg.scratch_pad_bytes;
    } else if (gpu && cfg.max_concurrent_teams > 0) {
      // Resident teams per SM ≈ smem_per_sm / bytes. Hopper/Ampere: up to 228 KB per SM, 227 KB per
      // block; we spread max_concurrent_teams over the SMs reported by Kokkos' concurrency
      // (concurrency = SMs * 2048 threads on these GPUs).
      const int sms = std::max(1, r.concurrency / 2048);
      const int per_sm = std::max(1, cfg.max_concurrent_teams / sms);
      r.scratch_pad_bytes = std::min(227 * 1024, (228 * 1024) / per_sm - 1024);
    }
  }
  // the dynamic policy takes no scratch request and no persistent-team walk: only plain launches
  r.dynamic_schedule =
      !gpu && cfg.max_concurrent_teams <= 0 && r.scratch_pad_bytes == 0 &&
      (cfg.schedule == ChunkSchedule::Dynamic || (cfg.schedule == ChunkSchedule::Auto && d.host_dynamic_schedule));
  r.unit_stride = gpu ? 1 : cfg.unit_stride > 0 ? cfg.unit_stride : std::max(1, d.host_unit_stride);
  return r;
}

/// Permutation from launch position to chunk index for `order` (host vector).
inline std::vector<std::int64_t> block_order_permutation(std::int64_t num_chunks, BlockOrder order,
                                                         std::uint64_t seed) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(num_chunks));
  for (std::int64_t i = 0; i < num_chunks; ++i) p[i] = i;
  if (order == BlockOrder::Backward) std::reverse(p.begin(), p.end());
  if (order == BlockOrder::Random) {
    std::mt19937_64 rng(seed);
    std::shuffle(p.begin(), p.end(), rng);
  }
  return p;
}

}  // namespace AsyncSparse
