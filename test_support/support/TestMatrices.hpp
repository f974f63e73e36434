// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Test matrices of the unit tests, the perf tests and the Ifpack2 tests (library asyncsparse_test_support):
// where the shared SuiteSparse matrices and the unit-test data files are, how a matrix name resolves to a
// loadable spec, and a per-process cache of loaded host matrices. No GoogleTest dependency.
#pragma once

#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>

namespace AsyncSparse {
namespace Test {

/// Folder with the shared SuiteSparse matrices: $ASYNCSPARSE_MATRIX_DIR when set, else the folder configured in
/// CMake (AsyncSparse_MATRIX_DIR, default ../shared/matrices beside the source tree).
std::string matrix_dir();

/// The file of the shared matrix `name` ("bcsstk18" -> <matrix_dir()>/bcsstk18.mtx.gz).
std::string matrix_path(const std::string& name);

/// A file of unit_tests/data: in $ASYNCSPARSE_TEST_DATA_DIR when set (binaries run on another machine set it),
/// else the configured source folder.
std::string data_path(const std::string& name);

/// The spec load_matrix() reads for `name`: a "gen:..." generator spec or a path (a name containing '/' or
/// ending in .mtx / .mtx.gz) as it is, any other name as the shared matrix matrix_path(name).
std::string matrix_spec(const std::string& name);

/// Names (without .mtx.gz) of the matrices in matrix_dir(), sorted; empty when the folder is missing.
std::vector<std::string> shared_matrix_names();

/// load_matrix(matrix_spec(name)), loaded once per process and spec and cached (not thread-safe). Throws what
/// load_matrix throws (a missing file names its path).
const CsrHost<double>& host_matrix(const std::string& name);

/// The shared matrix `name` in RCM order (permute_symmetric by rcm_permutation), as the benchmarks use the shared
/// matrices; a copy of host_matrix(name), permuted.
CsrHost<double> rcm_matrix(const std::string& name);

/// The nonsymmetric test matrix of the GMRES tests: lap2d(m) with -1.5 on the right and -0.5 on the left
/// neighbour of each row (an upwinded first-order term; still a diagonally dominant M-matrix). It is not
/// gen:convdiff2d, whose coefficients differ.
CsrHost<double> nonsymmetric_lap2d(ordinal_t m);

}  // namespace Test
}  // namespace AsyncSparse
