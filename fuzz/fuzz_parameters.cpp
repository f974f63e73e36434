// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: the parameter text of the driver's --param (parse_parameter_string) and the ParameterList /
// ParameterSpec checks every preconditioner's setParameters runs (typed get, validate, describe).
//
// Input: the parameter text. It either parses or throws AsyncSparse::InvalidInput; the list is then validated
// against a spec with one parameter of each type (and string choices), which accepts it or throws InvalidInput;
// each value is read back with the typed get of its declared type. Any other exception, crash or undefined
// behaviour is a finding. (The Ifpack2 names, "asyncsparse: sweeps", are translated by the Ifpack2 adapter,
// which needs Teuchos; it is not part of this target.)
#include <cstdint>
#include <string>

#include <asyncsparse/core/AsyncSparse_parameters.hpp>

#include "fuzz_support.hpp"

using namespace AsyncSparse;

namespace {

const ParameterSpec& spec() {
  static const ParameterSpec s = [] {
    ParameterSpec p;
    p.add("sweeps", 5, "int parameter")
        .add("tolerance", 1e-8, "double parameter")
        .add("deterministic", false, "bool parameter")
        .add("tri_solve", std::string("auto"), "string parameter with choices", {"auto", "exact", "jacobi"})
        .add("label", std::string(""), "string parameter");
    return p;
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ParameterList list;
  try {
    list = parse_parameter_string(text);
  } catch (const InvalidInput&) {
    return 0;
  }
  for (const auto& kv : list.values()) {
    if (kv.first.empty()) Fuzz::fail("parse_parameter_string: empty name");
    if (kv.first.find(',') != std::string::npos) Fuzz::fail("parse_parameter_string: ',' in a name");
  }
  try {
    spec().validate(list, "fuzz");
  } catch (const InvalidInput&) {
    return 0;
  }
  // Accepted: every typed read of a declared parameter succeeds.
  (void)list.get("sweeps", 5);
  (void)list.get("tolerance", 1e-8);
  (void)list.get("deterministic", false);
  (void)list.get("tri_solve", "auto");
  (void)list.get("label", "");
  if (spec().describe().empty()) Fuzz::fail("describe");
  return 0;
}
