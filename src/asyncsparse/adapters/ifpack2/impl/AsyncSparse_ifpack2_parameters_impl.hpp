// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — translation of Ifpack2-style Teuchos parameters ("asyncsparse: sweeps") into the
// AsyncSparse::ParameterList names of a preconditioner ("sweeps"), with validation.
//
// Rule: "asyncsparse: <words>" names the AsyncSparse parameter "<words>" with spaces replaced by
// underscores ("asyncsparse: max concurrent teams" -> "max_concurrent_teams"), except for the few
// Ifpack2-flavoured aliases in `ifpack2_aliases()`, which try their candidates in order. Which names
// exist is decided by the chosen method's own ParameterSpec, so every parameter a preconditioner
// declares is reachable from Teuchos without this file listing it.
#pragma once

#include <Teuchos_ParameterList.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_parameters.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>

namespace AsyncSparse {
namespace Impl {

inline const std::string& ifpack2_prefix() {
  static const std::string p = "asyncsparse: ";
  return p;
}
inline const std::string& ifpack2_method_key() {
  static const std::string k = "asyncsparse: method";
  return k;
}

/// Teuchos suffix -> AsyncSparse names tried in order (first one the method declares wins).
inline const std::vector<std::pair<std::string, std::vector<std::string>>>& ifpack2_aliases() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> a = {
      {"fill limit", {"fill_in_limit", "fill_limit"}},
      {"triangular solve", {"tri_solve", "triangular_solve"}},
      {"triangular solve sweeps", {"tri_solve_sweeps", "triangular_solve_sweeps"}},
      {"triangular solve tolerance", {"tri_solve_tolerance"}},
      {"triangular solve stagnation", {"tri_solve_stagnation"}},
      {"triangular solve check interval", {"tri_solve_check_interval"}},
      {"triangular solve one team entries", {"tri_solve_one_team_entries"}},
      {"triangular solve isai power", {"tri_solve_isai_power"}},
      {"triangular solve isai precision", {"tri_solve_isai_precision"}},
      {"local sweeps", {"local_iters", "local_sweeps"}},
  };
  return a;
}

inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

/// Names registered in AsyncSparse's preconditioner factory ("none | jacobi | ..." split).
inline std::vector<std::string> factory_method_names() {
  std::vector<std::string> names;
  std::string cur;
  for (char c : preconditioner_names() + "|") {
    if (c == '|' || c == ',') {
      cur = trim(cur);
      if (!cur.empty()) names.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return names;
}

inline bool factory_has_method(const std::string& name) {
  const auto n = factory_method_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

inline std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

/// The AsyncSparse name `suffix` ("fill limit") stands for in `spec`, or "" if none.
inline std::string asyncsparse_name_for(const std::string& suffix, const ParameterSpec& spec) {
  auto declared = [&](const std::string& n) {
    for (const auto& e : spec.entries())
      if (e.name == n) return true;
    return false;
  };
  for (const auto& a : ifpack2_aliases())
    if (a.first == suffix) {
      for (const auto& c : a.second)
        if (declared(c)) return c;
      return "";
    }
  std::string n = suffix;
  std::replace(n.begin(), n.end(), ' ', '_');
  return declared(n) ? n : "";
}

/// The Teuchos name of AsyncSparse parameter `name` ("fill_in_limit" -> "asyncsparse: fill limit").
inline std::string ifpack2_name_for(const std::string& name) {
  for (const auto& a : ifpack2_aliases())
    for (const auto& c : a.second)
      if (c == name) return ifpack2_prefix() + a.first;
  std::string n = name;
  std::replace(n.begin(), n.end(), '_', ' ');
  return ifpack2_prefix() + n;
}

/// Parameters of the adapter itself (valid for every method), with Ifpack2 RILUK's names and meaning:
/// the local block's diagonal a_ii becomes rel * a_ii + sign(a_ii) * abs before the method sees it.
inline const std::string& ifpack2_absolute_threshold_key() {
  static const std::string k = "fact: absolute threshold";
  return k;
}
inline const std::string& ifpack2_relative_threshold_key() {
  static const std::string k = "fact: relative threshold";
  return k;
}

/// All Teuchos names valid for a method with parameters `spec`.
inline std::vector<std::string> ifpack2_valid_names(const ParameterSpec& spec) {
  std::vector<std::string> v{ifpack2_method_key(), ifpack2_absolute_threshold_key(), ifpack2_relative_threshold_key()};
  for (const auto& e : spec.entries()) v.push_back(ifpack2_name_for(e.name));
  return v;
}

/// Teuchos entry -> ParameterValue (bool, int, double, string); false when of another type.
inline bool to_parameter_value(const Teuchos::ParameterEntry& e, ParameterValue& out) {
  if (e.isType<bool>()) {
    out = e.getValue<bool>(nullptr);
  } else if (e.isType<int>()) {
    out = e.getValue<int>(nullptr);
  } else if (e.isType<double>()) {
    out = e.getValue<double>(nullptr);
  } else if (e.isType<std::string>()) {
    out = e.getValue<std::string>(nullptr);
  } else {
    return false;
  }
  return true;
}

/// ParameterValue -> Teuchos list entry.
inline void set_teuchos(Teuchos::ParameterList& list, const std::string& name, const ParameterValue& v,
                        const std::string& doc = "") {
  std::visit([&](const auto& x) { list.set(name, x, doc); }, v);
}

/// A double-valued Teuchos entry (an int is accepted); throws InvalidInput otherwise.
inline double get_double(const Teuchos::ParameterList& in, const std::string& name, double fallback,
                         const std::string& owner) {
  if (!in.isParameter(name)) return fallback;
  const auto& e = in.getEntry(name);
  if (e.isType<double>()) return e.getValue<double>(nullptr);
  if (e.isType<int>()) return e.getValue<int>(nullptr);
  throw InvalidInput(owner + ": parameter '" + name + "' must be of type double, got " + e.getAny(false).typeName());
}

/// Validate `in` and translate it for method `method` (read from `in`, default `default_method`),
/// whose parameters are declared by `spec_of(method)` (a callable returning a ParameterSpec). The
/// adapter's own parameters (the two thresholds) are checked and returned in `abs_threshold` and
/// `rel_threshold` (defaults 0 and 1: no change).
/// Throws InvalidInput, prefixed with `owner`, naming the offending entry and listing what is valid.
template <class SpecOf>
ParameterList translate_ifpack2_parameters(const Teuchos::ParameterList& in, const std::string& default_method,
                                           const std::string& owner, SpecOf&& spec_of, std::string& method,
                                           double& abs_threshold, double& rel_threshold) {
  abs_threshold = get_double(in, ifpack2_absolute_threshold_key(), 0.0, owner);
  rel_threshold = get_double(in, ifpack2_relative_threshold_key(), 1.0, owner);
  method = default_method;
  if (in.isParameter(ifpack2_method_key())) {
    const auto& e = in.getEntry(ifpack2_method_key());
    if (!e.isType<std::string>())
      throw InvalidInput(owner + ": parameter '" + ifpack2_method_key() + "' must be of type string, got " +
                         e.getAny(false).typeName());
    method = e.getValue<std::string>(nullptr);
  }
  const auto methods = factory_method_names();
  if (std::find(methods.begin(), methods.end(), method) == methods.end())
    throw InvalidInput(owner + ": parameter '" + ifpack2_method_key() + "' = '" + method + "'" +
                       (in.isParameter(ifpack2_method_key()) ? "" : " (the default)") +
                       " is not a registered AsyncSparse preconditioner; valid methods: " + join(methods));
  const ParameterSpec spec = spec_of(method);

  ParameterList out;
  for (auto it = in.begin(); it != in.end(); ++it) {
    const std::string& name = in.name(it);
    const Teuchos::ParameterEntry& e = in.entry(it);
    if (name == ifpack2_method_key() || name == ifpack2_absolute_threshold_key() ||
        name == ifpack2_relative_threshold_key())
      continue;
    const bool prefixed = name.compare(0, ifpack2_prefix().size(), ifpack2_prefix()) == 0;
    const std::string target = prefixed ? asyncsparse_name_for(name.substr(ifpack2_prefix().size()), spec) : "";
    if (target.empty()) {
      std::ostringstream os;
      os << owner << ": unknown parameter '" << name << "' for method '" << method
         << "'; valid parameters: " << join(ifpack2_valid_names(spec));
      throw InvalidInput(os.str());
    }
    if (e.isList()) throw InvalidInput(owner + ": parameter '" + name + "' must be a value, not a sublist");
    ParameterValue v;
    if (!to_parameter_value(e, v))
      throw InvalidInput(owner + ": parameter '" + name + "' has unsupported type " + e.getAny(false).typeName() +
                         " (use bool, int, double or std::string)");
    const ParameterSpec::Entry* decl = nullptr;
    for (const auto& d : spec.entries())
      if (d.name == target) decl = &d;
    const bool int_as_double = decl->default_value.index() == 2 && v.index() == 1;
    if (v.index() != decl->default_value.index() && !int_as_double)
      throw InvalidInput(owner + ": parameter '" + name + "' must be of type " +
                         parameter_type_name(decl->default_value) + ", got " + parameter_type_name(v));
    if (int_as_double) v = static_cast<double>(std::get<int>(v));
    if (!decl->choices.empty()) {
      const auto& s = std::get<std::string>(v);
      if (std::find(decl->choices.begin(), decl->choices.end(), s) == decl->choices.end())
        throw InvalidInput(owner + ": parameter '" + name + "' = '" + s + "' is not one of: " + join(decl->choices));
    }
    out.set(target, v);
  }
  return out;
}

}  // namespace Impl
}  // namespace AsyncSparse
