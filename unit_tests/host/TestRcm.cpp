// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reverse Cuthill–McKee, symmetric permutation, bandwidth, permutation helpers.
#include <gtest/gtest.h>
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_rcm.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <support/TestHelpers.hpp>

#include <algorithm>
#include <numeric>
#include <random>

using namespace AsyncSparse;

namespace {

std::vector<ordinal_t> random_permutation(ordinal_t n, unsigned seed) {
  std::vector<ordinal_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::mt19937 g(seed);
  for (ordinal_t i = n - 1; i > 0; --i) std::swap(p[i], p[g() % (i + 1)]);  // portable shuffle
  return p;
}

void expect_permutation(const std::vector<ordinal_t>& p, ordinal_t n) {
  ASSERT_EQ(p.size(), static_cast<std::size_t>(n));
  std::vector<ordinal_t> s(p);
  std::sort(s.begin(), s.end());
  for (ordinal_t i = 0; i < n; ++i) ASSERT_EQ(s[i], i);
}

/// B = P A P^T entry by entry, plus invariants: same nnz, same multiset of values, same diagonal multiset.
void expect_permuted(const CsrHost<double>& A, const CsrHost<double>& B, const std::vector<ordinal_t>& perm) {
  ASSERT_EQ(B.nrows, A.nrows);
  ASSERT_EQ(B.nnz(), A.nnz());
  EXPECT_TRUE(is_sorted_unique(B));
  for (ordinal_t r = 0; r < B.nrows; ++r) {
    EXPECT_EQ(B.row_ptr[r + 1] - B.row_ptr[r], A.row_ptr[perm[r] + 1] - A.row_ptr[perm[r]]);
    for (offset_t k = B.row_ptr[r]; k < B.row_ptr[r + 1]; ++k) {
      const offset_t a = find_entry(A, perm[r], perm[B.col_idx[k]]);
      ASSERT_GE(a, 0);
      EXPECT_EQ(B.values[k], A.values[a]);
    }
  }
  auto va = A.values, vb = B.values;
  std::sort(va.begin(), va.end());
  std::sort(vb.begin(), vb.end());
  EXPECT_EQ(va, vb);
}

}  // namespace

TEST(rcm, bandwidth) {
  EXPECT_EQ(bandwidth(lap2d(7)), 7);
  EXPECT_EQ(bandwidth(lap3d7(4)), 16);
  EXPECT_EQ(bandwidth(lap3d27(4)), 21);
  EXPECT_EQ(bandwidth(trefethen(20)), 16);
  EXPECT_EQ(bandwidth(CsrHost<double>(0, 0)), 0);
  EXPECT_EQ(bandwidth(csr_from_triplets<double>(3, 3, {0, 1, 2}, {0, 1, 2}, {1, 1, 1})), 0);
  EXPECT_EQ(bandwidth(csr_from_triplets<double>(2, 5, {0}, {4}, {1})), 4);
  CsrHost<double> bad(2, 2);
  bad.row_ptr = {0, 1};
  ASYNCSPARSE_EXPECT_THROW_MSG(bandwidth(bad), InvalidInput, "bandwidth: row_ptr has 2 entries");
}

TEST(rcm, recovers_lap2d_bandwidth_after_random_permutation) {
  for (int m : {8, 20, 33}) {
    auto A = lap2d(m);
    auto shuffle = random_permutation(A.nrows, 17u + m);
    auto S = permute_symmetric(A, shuffle);
    expect_permuted(A, S, shuffle);
    EXPECT_GT(bandwidth(S), 5 * m);
    auto p = rcm_permutation(S);
    expect_permutation(p, A.nrows);
    auto R = permute_symmetric(S, p);
    expect_permuted(S, R, p);
    EXPECT_LE(bandwidth(R), m + 1) << "m = " << m;
    EXPECT_NO_THROW(check_symmetric(R, "rcm"));
    auto pa = analyze(R);
    EXPECT_TRUE(pa.symmetric_values);
    EXPECT_EQ(pa.nnz, A.nnz());
    EXPECT_EQ(pa.diag_dominant_rows, analyze(A).diag_dominant_rows);
    // applying RCM to the natural order must not make it worse
    EXPECT_LE(bandwidth(permute_symmetric(A, rcm_permutation(A))), m);
  }
}

TEST(rcm, path_graph_gets_bandwidth_one) {
  // A path 0-1-...-n-1 in a scrambled numbering: RCM from a pseudo-peripheral end node is a
  // bandwidth-1 (tridiagonal) order.
  const ordinal_t n = 50;
  auto P = random_permutation(n, 3);
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (ordinal_t i = 0; i < n; ++i) {
    r.push_back(P[i]), c.push_back(P[i]), v.push_back(2.0);
    if (i + 1 < n) {
      r.push_back(P[i]), c.push_back(P[i + 1]), v.push_back(-1.0);
      r.push_back(P[i + 1]), c.push_back(P[i]), v.push_back(-1.0);
    }
  }
  auto A = csr_from_triplets(n, n, r, c, v);
  EXPECT_GT(bandwidth(A), 1);
  auto p = rcm_permutation(A);
  expect_permutation(p, n);
  EXPECT_EQ(bandwidth(permute_symmetric(A, p)), 1);
  // the first and last nodes of the new order are the two ends of the path
  std::vector<ordinal_t> ends{p.front(), p.back()};
  std::sort(ends.begin(), ends.end());
  std::vector<ordinal_t> expected{P.front(), P.back()};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ends, expected);
}

TEST(rcm, several_components_and_unsymmetric_pattern) {
  // two scrambled grids side by side, an isolated node, and an upper-triangular (unsymmetric) coupling
  auto G = lap2d(6);
  const ordinal_t g = G.nrows, n = 2 * g + 1;
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (int b = 0; b < 2; ++b)
    for (ordinal_t i = 0; i < g; ++i)
      for (offset_t k = G.row_ptr[i]; k < G.row_ptr[i + 1]; ++k)
        if (b == 0 || G.col_idx[k] >= i) {  // second block: upper triangle only
          r.push_back(b * g + i), c.push_back(b * g + G.col_idx[k]), v.push_back(G.values[k]);
        }
  r.push_back(2 * g), c.push_back(2 * g), v.push_back(1.0);
  auto A0 = csr_from_triplets(n, n, r, c, v);
  auto shuffle = random_permutation(n, 99);
  auto A = permute_symmetric(A0, shuffle);
  auto p = rcm_permutation(A);
  expect_permutation(p, n);
  auto B = permute_symmetric(A, p);
  expect_permuted(A, B, p);
  EXPECT_LE(bandwidth(B), 7);
  // components stay contiguous in the new order: new k is original node shuffle[p[k]]
  int changes = 0;
  auto component = [&](ordinal_t k) { return shuffle[p[k]] / g; };
  for (ordinal_t k = 1; k < n; ++k) changes += component(k) != component(k - 1);
  EXPECT_EQ(changes, 2);
}

TEST(rcm, trivial_inputs) {
  EXPECT_TRUE(rcm_permutation(CsrHost<double>(0, 0)).empty());
  EXPECT_EQ(rcm_permutation(lap2d(1)), std::vector<ordinal_t>{0});
  auto D = csr_from_triplets<double>(4, 4, {0, 1, 2, 3}, {0, 1, 2, 3}, {1, 2, 3, 4});
  expect_permutation(rcm_permutation(D), 4);
  auto E = CsrHost<double>(3, 3);  // no entries at all
  expect_permutation(rcm_permutation(E), 3);
  // deterministic
  auto T = trefethen(300);
  EXPECT_EQ(rcm_permutation(T), rcm_permutation(T));
  expect_permutation(rcm_permutation(T), 300);
}

TEST(rcm, permutation_helpers) {
  std::vector<ordinal_t> p{2, 0, 3, 1};
  EXPECT_EQ(inverse_permutation(p), (std::vector<ordinal_t>{1, 3, 0, 2}));
  std::vector<double> x{10, 11, 12, 13};
  auto y = permute_vector(x, p);
  EXPECT_EQ(y, (std::vector<double>{12, 10, 13, 11}));
  EXPECT_EQ(unpermute_vector(y, p), x);
  // (P A P^T)(P x) = P (A x)
  auto A = random_diag_dominant(4, 3, 8, false);
  auto B = permute_symmetric(A, p);
  for (ordinal_t r = 0; r < 4; ++r) {
    double bx = 0, ax = 0;
    for (offset_t k = B.row_ptr[r]; k < B.row_ptr[r + 1]; ++k) bx += B.values[k] * y[B.col_idx[k]];
    const ordinal_t i = p[r];
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) ax += A.values[k] * x[A.col_idx[k]];
    EXPECT_DOUBLE_EQ(bx, ax);
  }
}

TEST(rcm, bad_inputs) {
  ASYNCSPARSE_EXPECT_THROW_MSG(rcm_permutation(CsrHost<double>(2, 3)), InvalidInput,
                               "rcm_permutation: matrix is not square (2 x 3)");
  ASYNCSPARSE_EXPECT_THROW_MSG(permute_symmetric(CsrHost<double>(2, 3), {0, 1}), InvalidInput,
                               "permute_symmetric: matrix is not square");
  auto A = lap2d(2);
  ASYNCSPARSE_EXPECT_THROW_MSG(permute_symmetric(A, {0, 1, 2}), InvalidInput,
                               "permute_symmetric: permutation has 3 entries, expected 4");
  ASYNCSPARSE_EXPECT_THROW_MSG(permute_symmetric(A, {0, 1, 2, 4}), InvalidInput,
                               "permute_symmetric: perm[3] = 4 is outside [0, 4)");
  ASYNCSPARSE_EXPECT_THROW_MSG(permute_symmetric(A, {0, -1, 2, 3}), InvalidInput, "perm[1] = -1 is outside");
  ASYNCSPARSE_EXPECT_THROW_MSG(permute_symmetric(A, {0, 2, 2, 3}), InvalidInput,
                               "permute_symmetric: not a permutation: 2 appears twice (perm[1] and perm[2])");
  ASYNCSPARSE_EXPECT_THROW_MSG(inverse_permutation({1, 1}), InvalidInput,
                               "inverse_permutation: not a permutation: 1 appears twice");
  ASYNCSPARSE_EXPECT_THROW_MSG(permute_vector(std::vector<double>{1, 2}, {0}), InvalidInput,
                               "permute_vector: permutation has 1 entries, expected 2");
  ASYNCSPARSE_EXPECT_THROW_MSG(unpermute_vector(std::vector<double>{1, 2}, {0, 5}), InvalidInput,
                               "unpermute_vector: perm[1] = 5 is outside [0, 2)");
  CsrHost<double> bad(2, 2);
  bad.row_ptr = {0, 1, 2};
  bad.col_idx = {0, 9};
  bad.values = {1, 1};
  ASYNCSPARSE_EXPECT_THROW_MSG(rcm_permutation(bad), InvalidInput, "rcm_permutation: row 1 has column index 9");
}
