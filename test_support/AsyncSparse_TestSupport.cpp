// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Test matrices shared by the unit, perf and Ifpack2 tests (see support/TestMatrices.hpp) and their numeric settings
// from environment variables (support/TestEnvironment.hpp).
#include <support/TestEnvironment.hpp>
#include <support/TestMatrices.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_load.hpp>
#include <asyncsparse/core/AsyncSparse_parse_number.hpp>
#include <asyncsparse/core/AsyncSparse_rcm.hpp>

namespace AsyncSparse {
namespace Test {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string env_or(const char* variable, const char* configured) {
  const char* env = std::getenv(variable);
  return env ? std::string(env) : std::string(configured);
}

template <class T>
std::string text(T v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

/// std::invalid_argument for environment variable `name` set to `value`, which is not `what`.
[[noreturn]] void bad_setting(const char* name, const char* value, const std::string& what) {
  throw std::invalid_argument(std::string(name) + "='" + value + "' is not " + what);
}

}  // namespace

long env_integer(const char* name, long fallback, long lo, long hi) {
  const char* env = std::getenv(name);
  if (!env) return fallback;
  long long v = 0;
  if (!Impl::parse_integer_in(env, lo, hi, v))
    bad_setting(name, env, "an integer in [" + text(lo) + ", " + text(hi) + "]");
  return static_cast<long>(v);
}

double env_number(const char* name, double fallback, double lo, double hi) {
  const char* env = std::getenv(name);
  if (!env) return fallback;
  double v = 0;
  if (Impl::parse_number(env, v) != Impl::NumberText::Ok || !std::isfinite(v) || v < lo || v > hi)
    bad_setting(name, env, "a finite number in [" + text(lo) + ", " + text(hi) + "]");
  return v;
}

std::string matrix_dir() { return env_or("ASYNCSPARSE_MATRIX_DIR", ASYNCSPARSE_TEST_MATRIX_DIR); }

std::string matrix_path(const std::string& name) { return matrix_dir() + "/" + name + ".mtx.gz"; }

std::string data_path(const std::string& name) {
  return env_or("ASYNCSPARSE_TEST_DATA_DIR", ASYNCSPARSE_TEST_DATA_DIR) + "/" + name;
}

std::string matrix_spec(const std::string& name) {
  if (is_generator_spec(name) || name.find('/') != std::string::npos || ends_with(name, ".mtx") ||
      ends_with(name, ".mtx.gz"))
    return name;
  return matrix_path(name);
}

std::vector<std::string> shared_matrix_names() {
  const std::string ext = ".mtx.gz";
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(matrix_dir(), ec)) {
    const std::string f = e.path().filename().string();
    if (f.size() > ext.size() && ends_with(f, ext)) names.push_back(f.substr(0, f.size() - ext.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

const CsrHost<double>& host_matrix(const std::string& name) {
  static std::map<std::string, std::unique_ptr<CsrHost<double>>> cache;  // by spec: follows ASYNCSPARSE_MATRIX_DIR
  const std::string spec = matrix_spec(name);
  auto& p = cache[spec];
  if (!p) p.reset(new CsrHost<double>(load_matrix(spec)));
  return *p;
}

CsrHost<double> rcm_matrix(const std::string& name) {
  const auto& A = host_matrix(name);
  return permute_symmetric(A, rcm_permutation(A));
}

CsrHost<double> nonsymmetric_lap2d(ordinal_t m) {
  CsrHost<double> A = lap2d(m);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (auto k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      if (A.col_idx[k] == i + 1) A.values[k] = -1.5;
      if (A.col_idx[k] == i - 1) A.values[k] = -0.5;
    }
  return A;
}

}  // namespace Test
}  // namespace AsyncSparse
