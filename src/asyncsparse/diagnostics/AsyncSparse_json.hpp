// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — a minimal JSON value for run records (driver --json, benchmarks, plots).
//
// Json holds null, bool, number, string, array or object (keys keep insertion order, so records read
// in the order they were written). Non-finite numbers are written as null (JSON has no NaN/Inf) —
// the record's "status" fields say what happened.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <asyncsparse/core/AsyncSparse_errors.hpp>

namespace AsyncSparse {

class Json {
 public:
  enum class Type { Null, Bool, Number, String, Array, Object };

  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool b) : type_(Type::Bool), bool_(b) {}
  Json(int v) : type_(Type::Number), num_(v), integer_(true), int_(v) {}
  Json(long v) : type_(Type::Number), num_(static_cast<double>(v)), integer_(true), int_(v) {}
  Json(long long v) : type_(Type::Number), num_(static_cast<double>(v)), integer_(true), int_(v) {}
  Json(unsigned long v) : Json(static_cast<long long>(v)) {}
  Json(unsigned v) : Json(static_cast<long long>(v)) {}
  Json(double v) : type_(Type::Number), num_(v) {}
  Json(float v) : Json(static_cast<double>(v)) {}
  Json(const char* s) : type_(Type::String), str_(s) {}
  Json(std::string s) : type_(Type::String), str_(std::move(s)) {}
  template <class T>
  Json(const std::vector<T>& v) : type_(Type::Array) {
    for (const auto& x : v) arr_.emplace_back(x);
  }

  static Json object() {
    Json j;
    j.type_ = Type::Object;
    return j;
  }
  static Json array() {
    Json j;
    j.type_ = Type::Array;
    return j;
  }

  Type type() const { return type_; }

  /// Object member access (creates the member; turns a null into an object).
  Json& operator[](const std::string& key) {
    if (type_ == Type::Null) type_ = Type::Object;
    if (type_ != Type::Object) throw Error("Json: operator[] on a non-object");
    for (auto& kv : obj_)
      if (kv.first == key) return kv.second;
    obj_.emplace_back(key, Json());
    return obj_.back().second;
  }
  const Json* find(const std::string& key) const {
    for (const auto& kv : obj_)
      if (kv.first == key) return &kv.second;
    return nullptr;
  }
  Json& push_back(Json v) {
    if (type_ == Type::Null) type_ = Type::Array;
    if (type_ != Type::Array) throw Error("Json: push_back on a non-array");
    arr_.push_back(std::move(v));
    return arr_.back();
  }
  std::size_t size() const { return type_ == Type::Array ? arr_.size() : obj_.size(); }
  double number() const { return num_; }
  const std::string& string() const { return str_; }

  std::string dump(int indent = 2) const {
    std::ostringstream os;
    write(os, indent, 0);
    return os.str();
  }
  void save(const std::string& path, int indent = 2) const {
    std::ofstream f(path);
    if (!f) throw Error("cannot write JSON file '" + path + "'");
    f << dump(indent) << "\n";
    if (!f) throw Error("error while writing JSON file '" + path + "'");
  }

 private:
  static void write_string(std::ostream& os, const std::string& s) {
    os << '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': os << "\\\""; break;
        case '\\': os << "\\\\"; break;
        case '\n': os << "\\n"; break;
        case '\t': os << "\\t"; break;
        case '\r': os << "\\r"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            os << buf;
          } else {
            os << c;
          }
      }
    }
    os << '"';
  }
  void write(std::ostream& os, int indent, int level) const {
    const std::string pad = indent > 0 ? std::string(static_cast<std::size_t>(indent) * (level + 1), ' ') : "";
    const std::string pad_end = indent > 0 ? std::string(static_cast<std::size_t>(indent) * level, ' ') : "";
    const char* nl = indent > 0 ? "\n" : "";
    switch (type_) {
      case Type::Null: os << "null"; break;
      case Type::Bool: os << (bool_ ? "true" : "false"); break;
      case Type::Number:
        if (integer_) {
          os << int_;
        } else if (!std::isfinite(num_)) {
          os << "null";
        } else {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.17g", num_);
          os << buf;
        }
        break;
      case Type::String: write_string(os, str_); break;
      case Type::Array: {
        // arrays of scalars on one line (histories), arrays of objects one per line
        bool flat = true;
        for (const auto& v : arr_) flat = flat && v.type_ != Type::Array && v.type_ != Type::Object;
        os << '[';
        for (std::size_t i = 0; i < arr_.size(); ++i) {
          if (i) os << (flat ? ", " : ",");
          if (!flat) os << nl << pad;
          arr_[i].write(os, flat ? 0 : indent, level + 1);
        }
        if (!flat && !arr_.empty()) os << nl << pad_end;
        os << ']';
        break;
      }
      case Type::Object: {
        os << '{';
        for (std::size_t i = 0; i < obj_.size(); ++i) {
          if (i) os << ',';
          os << nl << pad;
          write_string(os, obj_[i].first);
          os << (indent > 0 ? ": " : ":");
          obj_[i].second.write(os, indent, level + 1);
        }
        if (!obj_.empty()) os << nl << pad_end;
        os << '}';
        break;
      }
    }
  }

  Type type_ = Type::Null;
  bool bool_ = false;
  double num_ = 0;
  bool integer_ = false;
  long long int_ = 0;
  std::string str_;
  std::vector<Json> arr_;
  std::vector<std::pair<std::string, Json>> obj_;
};

}  // namespace AsyncSparse
