// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <gtest/gtest.h>

using namespace AsyncSparse;

TEST(host, csr_from_triplets_sorts_and_sums_duplicates) {
  // rows given out of order, with a duplicate (1,0) that must be summed
  std::vector<ordinal_t> r{1, 0, 1, 0, 1};
  std::vector<ordinal_t> c{2, 1, 0, 0, 0};
  std::vector<double> v{3.0, 2.0, 4.0, 1.0, 5.0};
  auto A = csr_from_triplets(2, 3, r, c, v);
  ASSERT_EQ(A.nnz(), 4);
  EXPECT_EQ(A.row_ptr, (std::vector<offset_t>{0, 2, 4}));
  EXPECT_EQ(A.col_idx, (std::vector<ordinal_t>{0, 1, 0, 2}));
  EXPECT_EQ(A.values, (std::vector<double>{1.0, 2.0, 9.0, 3.0}));
  EXPECT_TRUE(is_sorted_unique(A));
  EXPECT_EQ(find_entry(A, 1, 2), 3);
  EXPECT_EQ(find_entry(A, 1, 1), -1);
  auto B = csr_from_triplets(2, 3, r, c, v, /*sort=*/true, /*sum_duplicates=*/false);
  EXPECT_EQ(B.nnz(), 5);
  EXPECT_FALSE(is_sorted_unique(B));
}
