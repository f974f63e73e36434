// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Size limits on a backend: the 32-bit copy of a row map that cuSPARSE's routines take (row_map_as_int, with its
// refusal of a matrix beyond 32-bit offsets), and a device allocation that cannot succeed reported as out of
// memory with the View's label (what the driver prints instead of an unexpected error), and the arrays that share one
// allocation (Impl::uninitialized_parts).
#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <support/TestHelpers.hpp>

#include <climits>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

namespace test_sizes {

using namespace AsyncSparse;
using Dev = TEST_DEVICE;

TEST(TEST_CATEGORY, row_map_as_int_copies_or_shares_the_row_map) {
  const auto A = to_device<Dev>(lap2d(9));
  const auto r = row_map_as_int(A.graph.row_map, A.nnz(), "test");
  ASSERT_EQ(r.extent(0), A.graph.row_map.extent(0));
  const auto a = to_std_vector(A.graph.row_map);
  const auto b = to_std_vector(r);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(static_cast<std::int64_t>(a[i]), b[i]) << i;
  // with 32-bit offsets it is the same array, with 64-bit ones a copy
  const bool shared = static_cast<const void*>(r.data()) == static_cast<const void*>(A.graph.row_map.data());
  EXPECT_EQ(shared, (std::is_same<offset_t, int>::value));
}

TEST(TEST_CATEGORY, row_map_as_int_refuses_entries_beyond_32_bit) {
  if (sizeof(offset_t) == 4) GTEST_SKIP() << "32-bit offsets: no matrix can have more than INT_MAX entries";
  const auto A = to_device<Dev>(lap2d(4));
  // the count decides (a matrix of 2^31 entries is not needed to check the refusal)
  ASYNCSPARSE_EXPECT_THROW_MSG(row_map_as_int(A.graph.row_map, std::int64_t(INT_MAX) + 1, "cuSPARSE csric02"),
                               InvalidInput,
                               "cuSPARSE csric02: 2147483648 stored entries need 64-bit offsets, and this routine "
                               "takes only 32-bit ones (at most 2147483647)");
  EXPECT_NO_THROW(row_map_as_int(A.graph.row_map, INT_MAX, "cuSPARSE csric02"));
}

TEST(TEST_CATEGORY, failed_device_allocation_is_out_of_memory_naming_the_view) {
  // 2^58 bytes: more than any device or host has, so the allocation fails at once (no overcommit involved)
  try {
    Kokkos::View<double*, Dev> v("AsyncSparse::test_sizes::huge", std::size_t(1) << 55);
    ADD_FAILURE() << "an allocation of 2^58 bytes succeeded";
  } catch (const std::exception& e) {
    EXPECT_TRUE(is_out_of_memory(e)) << e.what();
    EXPECT_NE(std::string(e.what()).find("AsyncSparse::test_sizes::huge"), std::string::npos) << e.what();
  }
  // the backend still works afterwards
  Kokkos::View<double*, Dev> w("AsyncSparse::test_sizes::small", 16);
  Kokkos::deep_copy(w, 2.0);
  EXPECT_EQ(to_std_vector(w)[15], 2.0);
  EXPECT_FALSE(is_out_of_memory(std::runtime_error("some other failure")));
  EXPECT_TRUE(is_out_of_memory(std::bad_alloc()));
  EXPECT_TRUE(is_out_of_memory(OutOfMemory("x")));
}

TEST(TEST_CATEGORY, uninitialized_parts_share_one_allocation_without_overlap) {
  using V = Kokkos::View<double*, Dev>;
  const auto p = Impl::uninitialized_parts<V, 4>("AsyncSparse::test_sizes::parts", {3, 0, 130, 64});
  const std::size_t sizes[] = {3, 0, 130, 64};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(p[k].extent(0), sizes[k]) << k;
    // each part starts at a multiple of 64 entries from the first
    EXPECT_EQ(static_cast<std::size_t>(p[k].data() - p[0].data()) % 64, 0u) << k;
    if (k > 0) EXPECT_GE(p[k].data(), p[k - 1].data() + p[k - 1].extent(0)) << k;  // no overlap, in order
  }
  // one allocation: every part holds it
  EXPECT_EQ(p[0].use_count(), p[3].use_count());
  EXPECT_GE(p[0].use_count(), 4);
  for (int k = 0; k < 4; ++k) Kokkos::deep_copy(p[k], double(k + 1));
  std::vector<double> got = to_std_vector(p[2]);
  EXPECT_EQ(std::accumulate(got.begin(), got.end(), 0.0), 3.0 * 130);
  EXPECT_EQ(to_std_vector(p[0]), std::vector<double>(3, 1.0));  // the later parts did not write into it
}

TEST(TEST_CATEGORY, uninitialized_parts_keep_their_allocation_alive) {
  const Impl::ScopedDeviceCacheOff cache_off;  // the references counted below are the parts' only
  using V = Kokkos::View<int*, Dev>;
  V last;
  {
    const auto p = Impl::uninitialized_parts<V, 3>("AsyncSparse::test_sizes::parts", {100, 7, 65});
    Kokkos::deep_copy(p[0], -1);
    Kokkos::deep_copy(p[2], 5);
    last = p[2];
  }  // the other parts are gone: the last one still owns the allocation
  EXPECT_EQ(last.use_count(), 1);
  EXPECT_EQ(to_std_vector(last), std::vector<int>(65, 5));
  Kokkos::deep_copy(last, 6);
  EXPECT_EQ(to_std_vector(last), std::vector<int>(65, 6));
}

}  // namespace test_sizes
