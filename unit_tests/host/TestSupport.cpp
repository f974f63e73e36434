// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The test-support library (asyncsparse_test_support): matrix folders and their environment overrides, matrix
// names to load specs, the shared-matrix list and the host-matrix cache.
#include <gtest/gtest.h>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <support/TestEnvironment.hpp>
#include <support/TestHelpers.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace AsyncSparse;
namespace fs = std::filesystem;
namespace support = AsyncSparse::Test;  // inside a TEST body, `Test` names testing::Test

namespace {

/// Sets an environment variable for the lifetime of the object and restores the previous state after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = std::string(old);
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

/// A fresh empty folder under the system's temporary folder.
fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("asyncsparse_test_support_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(TestSupport, matrix_spec_resolves_names_and_keeps_specs_and_paths) {
  EXPECT_EQ(support::matrix_spec("gen:lap2d:4"), "gen:lap2d:4");
  EXPECT_EQ(support::matrix_spec("/some/folder/m.mtx.gz"), "/some/folder/m.mtx.gz");
  EXPECT_EQ(support::matrix_spec("relative/m.mtx"), "relative/m.mtx");
  EXPECT_EQ(support::matrix_spec("m.mtx"), "m.mtx");
  EXPECT_EQ(support::matrix_spec("fv1"), support::matrix_dir() + "/fv1.mtx.gz");
  EXPECT_EQ(support::matrix_path("fv1"), support::matrix_dir() + "/fv1.mtx.gz");
}

TEST(TestSupport, environment_overrides_the_configured_folders) {
  const std::string configured_matrices = support::matrix_dir();
  const std::string configured_data = support::data_path("x");
  {
    ScopedEnv m("ASYNCSPARSE_MATRIX_DIR", "/elsewhere/matrices");
    ScopedEnv d("ASYNCSPARSE_TEST_DATA_DIR", "/elsewhere/data");
    EXPECT_EQ(support::matrix_dir(), "/elsewhere/matrices");
    EXPECT_EQ(support::matrix_spec("nos4"), "/elsewhere/matrices/nos4.mtx.gz");
    EXPECT_EQ(support::data_path("mm_general.mtx"), "/elsewhere/data/mm_general.mtx");
  }
  EXPECT_EQ(support::matrix_dir(), configured_matrices);
  EXPECT_EQ(support::data_path("x"), configured_data);
  EXPECT_NE(configured_matrices, "/elsewhere/matrices");
}

TEST(TestSupport, shared_matrix_names_lists_the_gzipped_matrices_sorted) {
  const fs::path d = fresh_dir("names");
  for (const char* f : {"b.mtx.gz", "a.mtx.gz", "plain.mtx", "SOURCES.md", ".mtx.gz"}) std::ofstream(d / f) << "x";
  {
    ScopedEnv m("ASYNCSPARSE_MATRIX_DIR", d.string());
    EXPECT_EQ(support::shared_matrix_names(), (std::vector<std::string>{"a", "b"}));
  }
  {
    ScopedEnv m("ASYNCSPARSE_MATRIX_DIR", (d / "missing").string());
    EXPECT_TRUE(support::shared_matrix_names().empty());
  }
  fs::remove_all(d);
}

TEST(TestSupport, host_matrix_loads_once_and_names_a_missing_file) {
  const CsrHost<double>& A = support::host_matrix("gen:lap2d:4");
  EXPECT_EQ(A.nrows, 16);
  EXPECT_EQ(A.nnz(), 64);
  EXPECT_EQ(&support::host_matrix("gen:lap2d:4"), &A);  // cached: the same object
  const fs::path d = fresh_dir("missing");
  ScopedEnv m("ASYNCSPARSE_MATRIX_DIR", d.string());
  ASYNCSPARSE_EXPECT_THROW_MSG(support::host_matrix("no_such_matrix"), ParseError,
                               "no_such_matrix.mtx.gz: read_matrix_market: cannot open file");
  fs::remove_all(d);
}

TEST(TestSupport, numeric_settings_are_read_strictly) {
  const char* v = "ASYNCSPARSE_TEST_SETTING";
  unsetenv(v);
  EXPECT_EQ(support::env_integer(v, 7, 0, 10), 7);  // unset: the fallback, even outside the range
  EXPECT_EQ(support::env_number(v, -2.5, 0.0, 1.0), -2.5);
  {
    ScopedEnv e(v, "10");
    EXPECT_EQ(support::env_integer(v, 7, 0, 10), 10);
    EXPECT_EQ(support::env_number(v, 0.0, 0.0, 10.0), 10.0);
  }
  {
    ScopedEnv e(v, "-1");
    EXPECT_EQ(support::env_integer(v, 7, -1, 10), -1);
  }
  {
    ScopedEnv e(v, "2.5e-3");
    EXPECT_EQ(support::env_number(v, 0.0, 0.0, 1.0), 2.5e-3);
  }
  {
    ScopedEnv e(v, "+5");
    EXPECT_EQ(support::env_integer(v, 7, 0, 10), 5);
  }
  for (const char* bad : {"", "3O", "1.5", " ", " 5", "5 ", "11", "-2", "99999999999999999999999"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    ScopedEnv e(v, bad);
    ASYNCSPARSE_EXPECT_THROW_MSG(support::env_integer(v, 7, -1, 10), std::invalid_argument,
                                 std::string("ASYNCSPARSE_TEST_SETTING='") + bad + "' is not an integer in [-1, 10]");
  }
  for (const char* bad : {"", "0.5x", " 0.5", "nan", "inf", "1e400", "1e-400", "-0.1", "2"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    ScopedEnv e(v, bad);
    ASYNCSPARSE_EXPECT_THROW_MSG(
        support::env_number(v, 0.5, 0.0, 1.0), std::invalid_argument,
        std::string("ASYNCSPARSE_TEST_SETTING='") + bad + "' is not a finite number in [0, 1]");
  }
}
