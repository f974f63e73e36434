// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse command-line driver — how the library's result structs are written into the JSON run records.
#include "driver_json.hpp"

#include <fstream>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_solver_types.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_run_info.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_sample_statistics.hpp>
#include <asyncsparse/diagnostics/AsyncSparse_update_trace.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut_handle.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi_handle.hpp>
#include <asyncsparse/relaxation/AsyncSparse_block_async.hpp>
#include <asyncsparse/solvers/AsyncSparse_iterative_refinement.hpp>

namespace AsyncSparse {

namespace Driver {
void save_json(const Json& j, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw Error("cannot write JSON file '" + path + "'");
  // invalid UTF-8 (a file name in another encoding) is replaced, not an error
  f << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  if (!f) throw Error("error while writing JSON file '" + path + "'");
}
}  // namespace Driver

using Driver::Json;

namespace driver_json_local {
/// -1 ("unknown") as null.
Json known(long long v) { return v < 0 ? Json(nullptr) : Json(v); }
}  // namespace driver_json_local
using namespace driver_json_local;  // named, not anonymous: the driver's files share unity batches

void to_json(Json& j, const KokkosInfo& k) {
  j = Json::object();
  j["kokkos_version"] = k.kokkos_version;
  j["default_execution_space"] = k.default_execution_space;
  j["default_host_execution_space"] = k.default_host_execution_space;
  j["concurrency"] = known(k.concurrency);  // null: the command ran on the host without initialising Kokkos
  j["host_concurrency"] = known(k.host_concurrency);
  j["backends"] = k.backends;
  if (!k.device.empty()) j["device"] = k.device;
  j["device_cache"] = k.device_cache;  // device and host arrays; ASYNCSPARSE_DEVICE_CACHE=0 turns it off
}

void to_json(Json& j, const ResolvedLaunch& r) {
  j = Json::object();
  j["execution_space"] = r.execution_space;
  j["team_size"] = r.team_size;
  j["vector_length"] = r.vector_length;
  j["chunk_size"] = r.chunk_size;
  j["num_chunks"] = r.num_chunks;
  j["league_size"] = r.league_size;
  j["max_concurrent_teams"] = r.max_concurrent_teams;
  j["occupancy_mode"] = to_string(r.occupancy_mode);
  j["scratch_pad_bytes"] = r.scratch_pad_bytes;
  j["block_order"] = to_string(r.block_order);
  j["seed"] = r.seed;
  j["oversubscription"] = r.oversubscription;
  j["schedule"] = r.schedule_name();
  j["unit_stride"] = r.unit_stride;
  j["concurrency"] = r.concurrency;
}

void to_json(Json& j, const SolverResult& r) {
  j = Json::object();
  j["status"] = to_string(r.status);
  j["iterations"] = r.iterations;
  j["final_relative_residual"] = r.final_relative_residual;
  j["time_seconds"] = r.time_seconds;
  j["graph_replays"] = r.graph_replays;
  j["one_team_orthogonalization"] = r.one_team_orthogonalization;
  j["one_team_cycles"] = r.one_team_cycles;
  if (!r.message.empty()) j["message"] = r.message;
  j["residual_history"] = r.residual_history;
  j["time_history"] = r.time_history;
}

void to_json(Json& j, const AgeStats& s) {
  j = Json::object();
  j["type"] = s.label;
  j["count"] = s.count;
  j["min"] = s.min;
  j["q1"] = s.q1;
  j["median"] = s.median;
  j["q3"] = s.q3;
  j["max"] = s.max;
  j["mean"] = s.mean;
  j["relative_median"] = s.relative_median;
}

void to_json(Json& j, const SampleSummary& s) {
  j = Json::object();
  j["median"] = s.median;
  j["min"] = s.min;
  j["max"] = s.max;
  j["q1"] = s.q1;
  j["q3"] = s.q3;
}

void to_json(Json& j, const ValueAgeSummary& s) {
  j = Json::object();
  j["snapshot"] = s.snapshot;
  j["own_update"] = s.own_update;
  j["missing"] = s.missing;
  j["all"] = s.all;
  j["by_type"] = s.by_type;
}

void to_json(Json& j, const AsyncJacobiStats& s) {
  j = Json::object();
  j["mode"] = to_string(s.mode);
  j["status"] = to_string(s.status);
  j["updates_done"] = s.updates_done;
  j["initial_residual"] = s.initial_residual;
  j["final_residual"] = s.final_residual;
  j["update_seconds"] = s.update_seconds;
  j["check_seconds"] = s.check_seconds;
  j["total_seconds"] = s.total_seconds;
  j["time_per_update"] = s.time_per_update;
  j["kernel_launches"] = s.kernel_launches;
  j["max_updates_per_launch"] = s.max_updates_per_launch;
  j["checks"] = s.checks;
  j["check_interval"] = s.check_interval;
  j["workers"] = s.workers;
  if (!s.message.empty()) j["message"] = s.message;
  if (!s.residual_history.empty()) {
    j["residual_history"] = s.residual_history;
    j["update_history"] = s.update_history;
    j["time_history"] = s.time_history;
  }
}

void to_json(Json& j, const RelaxationResult& r) {
  j = Json::object();
  j["status"] = to_string(r.status);
  j["iterations"] = r.iterations;
  j["initial_residual"] = r.initial_residual;
  j["final_residual"] = r.final_residual;
  j["seconds"] = r.seconds;
  if (!r.message.empty()) j["message"] = r.message;
  j["history_iterations"] = r.history.iterations;
  j["history_residual"] = r.history.residual;
  j["history_seconds"] = r.history.seconds;
}

void to_json(Json& j, const BlockAsyncStats& s) {
  j = Json::object();
  j["block_size"] = s.block_size;
  j["num_blocks"] = s.num_blocks;
  j["tau"] = s.tau;
  j["fused"] = s.fused;
  j["fused_teams"] = s.teams;
  j["host_rebalances"] = s.host_rebalances;
  j["host_max_lead"] = s.host_max_lead;
  j["scratch_bytes"] = s.scratch_bytes;
  j["scratch_level"] = s.scratch_level;
  j["local_nnz"] = s.local_nnz;
  j["remote_nnz"] = s.remote_nnz;
  j["setup_seconds"] = s.setup_seconds;
  j["launch"] = s.launch;
}

void to_json(Json& j, const RelaxationStatistics& s) {
  j = Json::object();
  j["runs"] = s.runs;
  j["checkpoints"] = s.checkpoints;
  j["mean"] = s.mean;
  j["variance"] = s.variance;
  j["std_deviation"] = s.std_deviation;
  j["std_error"] = s.std_error;
  j["min"] = s.min;
  j["max"] = s.max;
  j["variation"] = s.variation;
  j["relative_spread"] = s.relative_spread;
  j["samples"] = s.samples;
}

void to_json(Json& j, const IterativeRefinementResult& r) {
  j = Json::object();
  j["status"] = to_string(r.status);
  if (!r.message.empty()) j["message"] = r.message;
  j["inner_precision"] = to_string(r.inner_precision);
  j["outer_iterations"] = r.outer_iterations;
  j["inner_iterations"] = r.inner_iterations;
  j["adapted_inner_iterations"] = r.adapted_inner_iterations;
  j["measured_inner_reduction"] = r.measured_inner_reduction;
  j["measuring_steps"] = r.measuring_steps;
  j["stagnation_window"] = r.stagnation_window;
  j["initial_residual"] = r.initial_residual;
  j["final_relative_residual"] = r.final_relative_residual;
  j["inner_per_outer"] = r.inner_per_outer;
  j["residual_history"] = r.residual_history;
  j["inner_history"] = r.inner_history;
  j["time_history"] = r.time_history;
  j["seconds"] = r.seconds;
  j["inner_seconds"] = r.inner_seconds;
}

void to_json(Json& j, const ParIlutStepStats& s) {
  j = Json::object();
  j["step"] = s.step;
  j["nnz_L"] = s.nnz_L;
  j["nnz_U"] = s.nnz_U;
  j["candidates_L"] = s.candidates_L;
  j["candidates_U"] = s.candidates_U;
  j["threshold_L"] = s.threshold_L;
  j["threshold_U"] = s.threshold_U;
  j["kept_new_L"] = s.kept_new_L;
  j["kept_new_U"] = s.kept_new_U;
  j["pattern_unchanged"] = s.pattern_unchanged;
  j["sweeps"] = s.sweeps;
  j["pattern_residual"] = s.pattern_residual;
  j["pivots_replaced"] = s.pivots_replaced;
  j["residual"] = s.residual;
  j["candidates_seconds"] = s.candidates_seconds;
  j["sweep_seconds"] = s.sweep_seconds;
  j["select_seconds"] = s.select_seconds;
  j["remove_seconds"] = s.remove_seconds;
  j["total_seconds"] = s.total_seconds;
  j["workspace_allocations"] = s.workspace_allocations;
}

}  // namespace AsyncSparse
