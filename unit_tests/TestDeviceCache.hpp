// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide cache of device arrays (core/AsyncSparse_view_alloc.hpp): a cache hands out an array again once
// its last View is gone (same address, no new allocation), never one still in use; release_cached_device_memory
// lets go of every array; a failed allocation frees the cached arrays before the second try; the switch turns it
// off. The cache's mechanics are checked on a HostSpace cache (the
// class serves any memory space); cached_uninitialized uses it in device memory spaces only, checked on the
// backend's own space. BufferPool's slack and release_free's byte budget as the cache uses them.
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <support/TestHelpers.hpp>

#include <cstddef>
#include <vector>

namespace test_device_cache {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;

TEST(TEST_CATEGORY, device_cache_reuses_free_arrays_only) {
  using V = Kokkos::View<double*, Kokkos::HostSpace>;
  using Cache = Impl::DeviceCache<V>;
  release_cached_device_memory();  // the cache registers itself on first use; nothing of this type is held after
  V a = Cache::get("test::a", 100);
  const double* pa = a.data();
  EXPECT_EQ(a.extent(0), 100u);
  const auto s0 = Cache::stats();
  V b = Cache::get("test::b", 100);  // a is in use: a new array
  EXPECT_NE(b.data(), pa);
  EXPECT_EQ(Cache::stats().allocations, s0.allocations + 1);
  a = V();
  V c = Cache::get("test::c", 80);  // a's array (100 entries, exact size: no slack) is free: handed out again
  EXPECT_EQ(c.data(), pa);
  EXPECT_EQ(c.extent(0), 80u);
  EXPECT_EQ(Cache::stats().reuses, s0.reuses + 1);
  EXPECT_EQ(Cache::stats().bytes, s0.bytes + 100 * sizeof(double));  // a's and b's arrays, nothing more
  // a free array is kept until released; a release lets go of every array, those in use stay valid (their Views
  // own them) and are not handed out again
  c = V();
  const double* pb = b.data();
  release_cached_device_memory();
  EXPECT_EQ(Cache::stats().bytes, 0u);
  Kokkos::deep_copy(b, 2.0);
  EXPECT_EQ(b(99), 2.0);
  V d = Cache::get("test::d", 100);
  EXPECT_NE(d.data(), pb);
  b = V();
  d = V();
  release_cached_device_memory();
  EXPECT_EQ(Cache::stats().bytes, 0u);
}

TEST(TEST_CATEGORY, device_cache_frees_its_arrays_when_an_allocation_fails) {
  using V = Kokkos::View<double*, Kokkos::HostSpace>;
  using Cache = Impl::DeviceCache<V>;
  release_cached_device_memory();
  Cache::get("test::kept", 1000);  // free at once: cached
  EXPECT_EQ(Cache::stats().bytes, 1000 * sizeof(double));
  // 2^58 bytes: more than any host has (as in failed_device_allocation_is_out_of_memory_naming_the_view); the cache
  // frees what it holds, tries once more and passes the failure on
  try {
    Cache::get("test::huge", std::size_t(1) << 55);
    ADD_FAILURE() << "an allocation of 2^58 bytes succeeded";
  } catch (const std::exception& e) {
    EXPECT_TRUE(is_out_of_memory(e)) << e.what();
  }
  EXPECT_EQ(Cache::stats().bytes, 0u);
  const V w = Cache::get("test::after", 10);  // the cache still works
  EXPECT_EQ(w.extent(0), 10u);
}

TEST(TEST_CATEGORY, device_cache_serves_every_space_and_can_be_turned_off) {
  using V = Kokkos::View<double*, Dev>;
  using Cache = Impl::DeviceCache<Impl::cached_view_t<V>>;
  const Impl::ScopedDeviceCacheOff restore;  // the switch as it was at the end
  set_device_cache_enabled(true);
  release_cached_device_memory();
  {
    V x = Impl::cached_uninitialized<V>("test::x", 1000);
    EXPECT_EQ(x.extent(0), 1000u);
    const double* px = x.data();
    x = V();
    const auto before = Cache::stats().reuses;
    V y = Impl::cached_uninitialized<V>("test::y", 1000);
    EXPECT_EQ(Cache::stats().reuses, before + 1);
    EXPECT_EQ(y.data(), px);
    // parts of one array from the cache: each part keeps it in use
    y = V();
    const auto parts = Impl::uninitialized_parts<V, 2>("test::parts", {10, 500});
    EXPECT_EQ(parts[0].extent(0), 10u);
    EXPECT_EQ(parts[1].extent(0), 500u);
    EXPECT_EQ(parts[0].data(), px);
    V z = Impl::cached_uninitialized<V>("test::z", 600);  // the only cached array is in use by the parts
    EXPECT_NE(z.data(), px);
  }
  // off: no array comes from the cache, and the free ones are freed
  set_device_cache_enabled(false);
  EXPECT_FALSE(device_cache_enabled());
  EXPECT_EQ(Cache::stats().bytes, 0u);
  const auto reuses = Cache::stats().reuses;
  for (int k = 0; k < 3; ++k) {
    const V w = Impl::cached_uninitialized<V>("test::w", 1000);
    EXPECT_EQ(w.extent(0), 1000u);
  }
  EXPECT_EQ(Cache::stats().reuses, reuses);
  EXPECT_EQ(Cache::stats().bytes, 0u);
}

TEST(TEST_CATEGORY, buffer_pool_exact_sizes_and_free_byte_budget) {
  using V = Kokkos::View<double*, Kokkos::HostSpace>;
  BufferPool<double, Kokkos::HostSpace::device_type, V> pool(0);  // slack 0: exact sizes, as the cache
  std::vector<V> held;
  for (std::size_t n : {100u, 200u, 300u}) held.push_back(pool.get(n));
  EXPECT_EQ(pool.stats().bytes, 600 * sizeof(double));
  EXPECT_EQ(pool.free_bytes(), 0u);
  held.clear();
  EXPECT_EQ(pool.free_bytes(), 600 * sizeof(double));
  // keep at most 450 entries' bytes of free buffers: the later ones first (300, then 200 does not fit, 100 does)
  pool.release_free(450 * sizeof(double));
  EXPECT_EQ(pool.stats().bytes, 400 * sizeof(double));
  bool reused = false;
  V a = pool.get(250, "a", &reused);
  EXPECT_TRUE(reused);
  EXPECT_EQ(a.extent(0), 250u);
  V b = pool.get(250, "b", &reused);  // the 100-entry buffer is too small: a new one
  EXPECT_FALSE(reused);
  EXPECT_EQ(pool.stats().bytes, 550 * sizeof(double));  // the 100-entry buffer was replaced by b's
}

}  // namespace test_device_cache
