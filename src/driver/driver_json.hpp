// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse command-line driver — the JSON run records (nlohmann_json): the record type, writing it to a file,
// and how the library's result structs are written into it. The library itself returns plain structs; only the
// driver knows JSON.
//
// Records keep their keys in the order they were written (ordered_json). Non-finite numbers are written as null
// (JSON has no NaN or Inf); the "status" fields of a record say what happened.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace AsyncSparse {

namespace Driver {
using Json = nlohmann::ordered_json;

/// Writes `j` to `path` (indented by two spaces). Throws Error naming the file when it cannot be written.
void save_json(const Json& j, const std::string& path);
}  // namespace Driver

// Serialisation of library structs (found by nlohmann_json through argument-dependent lookup: `j["x"] = result;`).
struct KokkosInfo;
struct ResolvedLaunch;
struct SolverResult;
struct AgeStats;
struct ValueAgeSummary;
struct AsyncJacobiStats;
struct RelaxationResult;
struct BlockAsyncStats;
struct RelaxationStatistics;
struct IterativeRefinementResult;
struct ParIlutStepStats;
struct SampleSummary;

void to_json(Driver::Json& j, const KokkosInfo& k);
void to_json(Driver::Json& j, const ResolvedLaunch& r);
void to_json(Driver::Json& j, const SolverResult& r);
void to_json(Driver::Json& j, const AgeStats& s);
void to_json(Driver::Json& j, const ValueAgeSummary& s);
void to_json(Driver::Json& j, const AsyncJacobiStats& s);
void to_json(Driver::Json& j, const RelaxationResult& r);
void to_json(Driver::Json& j, const BlockAsyncStats& s);
void to_json(Driver::Json& j, const RelaxationStatistics& s);
/// The result of iterative_refinement_solve (without the set-up time, which the handle holds).
void to_json(Driver::Json& j, const IterativeRefinementResult& r);
/// One step of ParILUT / ParICT (without the solve after it).
void to_json(Driver::Json& j, const ParIlutStepStats& s);
/// Order statistics over repeated runs: median, min, max, q1, q3 (max: the worst case of iterations and residuals).
void to_json(Driver::Json& j, const SampleSummary& s);

}  // namespace AsyncSparse
