// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — a small typed parameter list (the Teuchos::ParameterList idea without Trilinos).
//
// Preconditioners take their settings through `setParameters(const ParameterList&)`, in the
// Ifpack2 style. Each implementation declares the parameters it accepts (name, type, default, doc)
// in a `ParameterSpec`; `ParameterSpec::validate` rejects unknown names (listing the valid ones) and
// values of the wrong type, so a typo never silently falls back to a default.
#pragma once

#include <climits>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_parse_number.hpp>

namespace AsyncSparse {

using ParameterValue = std::variant<bool, int, double, std::string>;

inline const char* parameter_type_name(const ParameterValue& v) {
  switch (v.index()) {
    case 0:
      return "bool";
    case 1:
      return "int";
    case 2:
      return "double";
    default:
      return "string";
  }
}

class ParameterList {
 public:
  ParameterList() = default;
  ParameterList(std::initializer_list<std::pair<const std::string, ParameterValue>> init) : values_(init) {}

  ParameterList& set(const std::string& name, ParameterValue v) {
    values_[name] = std::move(v);
    return *this;
  }
  ParameterList& set(const std::string& name, const char* v) { return set(name, ParameterValue(std::string(v))); }
  bool isParameter(const std::string& name) const { return values_.count(name) != 0; }

  /// Value of `name`, or `fallback` when absent. An int is accepted where a double is asked for.
  template <class T>
  T get(const std::string& name, const T& fallback) const {
    auto it = values_.find(name);
    if (it == values_.end()) return fallback;
    if (const T* p = std::get_if<T>(&it->second)) return *p;
    if constexpr (std::is_same<T, double>::value) {
      if (const int* p = std::get_if<int>(&it->second)) return static_cast<double>(*p);
    }
    throw InvalidInput("parameter '" + name + "' has type " + parameter_type_name(it->second) + ", expected " +
                       parameter_type_name(ParameterValue(fallback)));
  }
  std::string get(const std::string& name, const char* fallback) const { return get<std::string>(name, fallback); }

  const std::map<std::string, ParameterValue>& values() const { return values_; }

 private:
  std::map<std::string, ParameterValue> values_;
};

/// Declaration of the parameters an object accepts.
class ParameterSpec {
 public:
  struct Entry {
    std::string name;
    ParameterValue default_value;
    std::string doc;
    std::vector<std::string> choices;  ///< for string parameters: allowed values (empty = any)
  };

  ParameterSpec& add(const std::string& name, ParameterValue def, const std::string& doc,
                     std::vector<std::string> choices = {}) {
    entries_.push_back({name, std::move(def), doc, std::move(choices)});
    return *this;
  }
  const std::vector<Entry>& entries() const { return entries_; }

  /// Throws InvalidInput (prefixed with `owner`) for unknown names, wrong types, or a string not in its choices.
  void validate(const ParameterList& list, const std::string& owner) const {
    for (const auto& kv : list.values()) {
      const Entry* e = find(kv.first);
      if (!e) {
        std::ostringstream os;
        os << owner << ": unknown parameter '" << kv.first << "'; valid parameters: " << names();
        throw InvalidInput(os.str());
      }
      const bool int_as_double = e->default_value.index() == 2 && kv.second.index() == 1;
      if (kv.second.index() != e->default_value.index() && !int_as_double) {
        throw InvalidInput(owner + ": parameter '" + kv.first + "' must be of type " +
                           parameter_type_name(e->default_value) + ", got " + parameter_type_name(kv.second));
      }
      if (!e->choices.empty()) {
        const auto& s = std::get<std::string>(kv.second);
        bool ok = false;
        for (const auto& c : e->choices) ok = ok || c == s;
        if (!ok) {
          std::ostringstream os;
          os << owner << ": parameter '" << kv.first << "' = '" << s << "' is not one of:";
          for (const auto& c : e->choices) os << " " << c;
          throw InvalidInput(os.str());
        }
      }
    }
  }

  std::string names() const {
    std::string s;
    for (const auto& e : entries_) s += (s.empty() ? "" : ", ") + e.name;
    return s;
  }

  /// Human-readable table of the parameters (for --help and documentation).
  std::string describe() const {
    std::ostringstream os;
    for (const auto& e : entries_) {
      os << "  " << e.name << " (" << parameter_type_name(e.default_value) << ", default ";
      std::visit([&](const auto& v) { os << v; }, e.default_value);
      os << "): " << e.doc << "\n";
    }
    return os.str();
  }

 private:
  const Entry* find(const std::string& name) const {
    for (const auto& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  std::vector<Entry> entries_;
};

/// "sweeps=5,tri_solve=jacobi" -> ParameterList (the driver's --param text). Items are separated by commas
/// (empty items are skipped) and written name=value with a non-empty name; a later item overrides an earlier one
/// of the same name. A value is an int when the whole text is a decimal integer in the range of int, else a
/// double when the whole text is a number (so an integer beyond the range of int becomes a double, which a
/// parameter of type int then rejects instead of receiving a wrapped-around value), else a bool for true/false,
/// else a string. Throws InvalidInput for an item without '=' or with an empty name.
inline ParameterList parse_parameter_string(const std::string& s) {
  ParameterList list;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw InvalidInput("parameter '" + item + "' must be written name=value");
    const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    long long iv = 0;
    if (Impl::parse_integer_in(val, INT_MIN, INT_MAX, iv)) {
      list.set(key, static_cast<int>(iv));
      continue;
    }
    double dv = 0;
    if (Impl::parse_number(val, dv) == Impl::NumberText::Ok) {
      list.set(key, dv);
      continue;
    }
    if (val == "true" || val == "false")
      list.set(key, val == "true");
    else
      list.set(key, val);
  }
  return list;
}

}  // namespace AsyncSparse
