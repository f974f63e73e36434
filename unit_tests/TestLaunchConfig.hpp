// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Launch-control layer: resolution per backend, block-order permutations, chunked execution, the host row-block
// partition.
#include <asyncsparse/exec/AsyncSparse_chunked_launch.hpp>
#include <asyncsparse/exec/AsyncSparse_host_blocks.hpp>
#include <asyncsparse/exec/AsyncSparse_workspace.hpp>
#include <support/TestHelpers.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <type_traits>
#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace test_launch_config {
using namespace AsyncSparse;

TEST(TEST_CATEGORY, launch_config_resolves_auto_values) {
  LaunchConfig cfg;
  auto r = resolve_launch_config<TEST_EXECSPACE>(cfg, 1000, 5.0);
  EXPECT_GE(r.team_size, 1);
  EXPECT_GE(r.vector_length, 1);
  EXPECT_EQ(r.num_chunks, (1000 + r.chunk_size - 1) / r.chunk_size);
  EXPECT_EQ(r.league_size, r.num_chunks);
  EXPECT_EQ(r.execution_space, std::string(TEST_EXECSPACE::name()));
  if (Impl::is_gpu_space<TEST_EXECSPACE>()) {
    EXPECT_EQ(r.vector_length, 4);  // 5 nnz/row -> nearest power of two
    EXPECT_EQ(r.team_size, 64);
  } else {
    EXPECT_EQ(r.vector_length, 1);
    EXPECT_EQ(r.team_size, 1);
  }
  EXPECT_NE(r.to_string().find("block_order=forward"), std::string::npos);
}

TEST(TEST_CATEGORY, launch_config_method_defaults) {
  // a method's LaunchDefaults replace the generic automatic choices, never an explicit value
  const bool gpu = Impl::is_gpu_space<TEST_EXECSPACE>();
  LaunchDefaults d;
  d.vector_length = 2;
  d.gpu_team_threads = 16;
  d.host_chunk_size = 100;
  d.gpu_chunk_size = 48;
  d.method = "m";
  LaunchConfig cfg;
  auto r = resolve_launch_config<TEST_EXECSPACE>(cfg, 1000, 5.0, TEST_EXECSPACE(), d);
  EXPECT_EQ(r.vector_length, 2);
  EXPECT_EQ(r.team_size, gpu ? 8 : 1);
  EXPECT_EQ(r.chunk_size, gpu ? 48 : 100);
  EXPECT_EQ(r.num_chunks, gpu ? 21 : 10);
  cfg.vector_length = 1;
  cfg.team_size = 4;
  cfg.chunk_size = 250;
  r = resolve_launch_config<TEST_EXECSPACE>(cfg, 1000, 5.0, TEST_EXECSPACE(), d);
  EXPECT_EQ(r.vector_length, 1);
  EXPECT_EQ(r.team_size, 4);
  EXPECT_EQ(r.chunk_size, 250);
  // a kernel with one lane per unit
  LaunchDefaults one;
  one.vector_length = one.max_vector_length = 1;
  one.method = "one-lane kernel";
  EXPECT_EQ(resolve_launch_config<TEST_EXECSPACE>(LaunchConfig(), 10, 9.0, TEST_EXECSPACE(), one).vector_length, 1);
  LaunchConfig two;
  two.vector_length = 2;
  ASYNCSPARSE_EXPECT_THROW_MSG(resolve_launch_config<TEST_EXECSPACE>(two, 10, 1.0, TEST_EXECSPACE(), one), InvalidInput,
                               "one-lane kernel: launch.vector_length must be -1 or 1, got 2");
  one.max_vector_length = 4;
  two.vector_length = 8;
  ASYNCSPARSE_EXPECT_THROW_MSG(resolve_launch_config<TEST_EXECSPACE>(two, 10, 1.0, TEST_EXECSPACE(), one), InvalidInput,
                               "one-lane kernel: launch.vector_length must be -1 or at most 4, got 8");
  // the dynamic schedule: a host-only choice, taken by Auto when the method asks for it, and never with an
  // occupancy limit (persistent teams keep their fixed walk over the chunks, the scratch-pad mode its scratch)
  LaunchDefaults dyn;
  dyn.host_dynamic_schedule = true;
  EXPECT_FALSE(resolve_launch_config<TEST_EXECSPACE>(LaunchConfig(), 1000, 5.0).dynamic_schedule);
  r = resolve_launch_config<TEST_EXECSPACE>(LaunchConfig(), 1000, 5.0, TEST_EXECSPACE(), dyn);
  EXPECT_EQ(r.dynamic_schedule, !gpu);
  EXPECT_NE(r.to_string().find(gpu ? "schedule=static" : "schedule=dynamic"), std::string::npos) << r.to_string();
  LaunchConfig st;
  st.schedule = ChunkSchedule::Static;
  EXPECT_FALSE(resolve_launch_config<TEST_EXECSPACE>(st, 1000, 5.0, TEST_EXECSPACE(), dyn).dynamic_schedule);
  LaunchConfig dy;
  dy.schedule = ChunkSchedule::Dynamic;
  EXPECT_EQ(resolve_launch_config<TEST_EXECSPACE>(dy, 1000, 5.0).dynamic_schedule, !gpu);
  for (auto mode : {OccupancyMode::PersistentTeams, OccupancyMode::ScratchPad}) {
    LaunchConfig limited;
    limited.max_concurrent_teams = 2;
    limited.occupancy_mode = mode;
    EXPECT_FALSE(resolve_launch_config<TEST_EXECSPACE>(limited, 1000, 5.0, TEST_EXECSPACE(), dyn).dynamic_schedule);
    limited.schedule = ChunkSchedule::Dynamic;
    ASYNCSPARSE_EXPECT_THROW_MSG(resolve_launch_config<TEST_EXECSPACE>(limited, 1000, 5.0), InvalidInput,
                                 "schedule 'dynamic' takes no occupancy limit");
  }
  LaunchConfig scratch;  // a scratch request without a limit: the static policy, which carries it
  scratch.occupancy_mode = OccupancyMode::ScratchPad;
  scratch.scratch_pad_bytes = 1024;
  scratch.schedule = ChunkSchedule::Dynamic;
  r = resolve_launch_config<TEST_EXECSPACE>(scratch, 1000, 5.0, TEST_EXECSPACE(), dyn);
  EXPECT_FALSE(r.dynamic_schedule);
  EXPECT_EQ(r.scratch_pad_bytes, 1024);
  // the unit stride: a host-only choice, the method's default for -1 (1 without one), an explicit value over it
  LaunchDefaults strided;
  strided.host_unit_stride = 3;
  EXPECT_EQ(resolve_launch_config<TEST_EXECSPACE>(LaunchConfig(), 1000, 5.0).unit_stride, 1);
  r = resolve_launch_config<TEST_EXECSPACE>(LaunchConfig(), 1000, 5.0, TEST_EXECSPACE(), strided);
  EXPECT_EQ(r.unit_stride, gpu ? 1 : 3);
  EXPECT_NE(r.to_string().find(gpu ? "unit_stride=1" : "unit_stride=3"), std::string::npos) << r.to_string();
  LaunchConfig two_passes;
  two_passes.unit_stride = 2;
  EXPECT_EQ(resolve_launch_config<TEST_EXECSPACE>(two_passes, 1000, 5.0, TEST_EXECSPACE(), strided).unit_stride,
            gpu ? 1 : 2);
}

TEST(TEST_CATEGORY, launch_config_explicit_and_occupancy) {
  LaunchConfig cfg;
  cfg.team_size = 1;
  cfg.vector_length = 1;
  cfg.chunk_size = 10;
  cfg.max_concurrent_teams = 3;
  auto r = resolve_launch_config<TEST_EXECSPACE>(cfg, 95);
  EXPECT_EQ(r.num_chunks, 10);
  EXPECT_EQ(r.league_size, 3);
  cfg.occupancy_mode = OccupancyMode::ScratchPad;
  cfg.scratch_pad_bytes = 4096;
  r = resolve_launch_config<TEST_EXECSPACE>(cfg, 95);
  EXPECT_EQ(r.league_size, 10);
  EXPECT_EQ(r.scratch_pad_bytes, 4096);
}

TEST(TEST_CATEGORY, launch_config_rejects_bad_values) {
  LaunchConfig cfg;
  cfg.vector_length = 0;
  ASYNCSPARSE_EXPECT_THROW_MSG(resolve_launch_config<TEST_EXECSPACE>(cfg, 10), InvalidInput, "vector_length");
  cfg = LaunchConfig();
  cfg.max_concurrent_teams = 0;
  ASYNCSPARSE_EXPECT_THROW_MSG(resolve_launch_config<TEST_EXECSPACE>(cfg, 10), InvalidInput, "max_concurrent_teams");
  for (int stride : {0, -2}) {
    cfg = LaunchConfig();
    cfg.unit_stride = stride;
    ASYNCSPARSE_EXPECT_THROW_MSG(resolve_launch_config<TEST_EXECSPACE>(cfg, 10), InvalidInput,
                                 "unit_stride must be -1 (auto) or >= 1, got " + std::to_string(stride));
  }
  cfg = LaunchConfig();
  cfg.oversubscription = 0;
  ASYNCSPARSE_EXPECT_THROW_MSG(resolve_launch_config<TEST_EXECSPACE>(cfg, 10), InvalidInput, "oversubscription");
  ASYNCSPARSE_EXPECT_THROW_MSG(block_order_from_string("sideways"), InvalidInput, "forward, backward, random");
}

TEST(TEST_CATEGORY, block_order_permutations) {
  auto f = block_order_permutation(5, BlockOrder::Forward, 0);
  auto b = block_order_permutation(5, BlockOrder::Backward, 0);
  auto r1 = block_order_permutation(100, BlockOrder::Random, 7);
  auto r2 = block_order_permutation(100, BlockOrder::Random, 7);
  auto r3 = block_order_permutation(100, BlockOrder::Random, 8);
  EXPECT_EQ(f, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(b, (std::vector<std::int64_t>{4, 3, 2, 1, 0}));
  EXPECT_EQ(r1, r2);
  EXPECT_NE(r1, r3);
  auto s = r1;
  std::sort(s.begin(), s.end());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(s[i], i);
}

void record_visits(const ChunkedLaunch<TEST_EXECSPACE>& launch, Kokkos::View<int*, TEST_DEVICE> visits,
                   Kokkos::View<int*, TEST_DEVICE> stamp) {
  Kokkos::View<int, TEST_DEVICE> counter("counter");
  launch.run(
      "test", TEST_EXECSPACE(),
      KOKKOS_LAMBDA(const typename ChunkedLaunch<TEST_EXECSPACE>::member_type&, std::int64_t u) {
        Kokkos::atomic_add(&visits(u), 1);
        stamp(u) = Kokkos::atomic_fetch_add(&counter(), 1);
      });
}

/// The OpenMP thread running the caller (0 on other backends and on devices).
template <class Exec>
KOKKOS_INLINE_FUNCTION int host_thread_rank() {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && defined(KOKKOS_ENABLE_OPENMP)
  if (std::is_same<Exec, Kokkos::OpenMP>::value) return omp_get_thread_num();
#endif
  return 0;
}
/// Holds up the calling host thread for `ms` milliseconds (no effect on devices).
template <class Exec>
KOKKOS_INLINE_FUNCTION void host_pause_ms(int ms) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  if (!Impl::is_gpu_space<Exec>()) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
#else
  (void)ms;
#endif
}

/// Runs n units of one unit per chunk with `schedule`; the thread that runs unit 0 is held up there for 200 ms.
/// Checks that every unit runs once and returns how many units that thread ran.
int units_of_held_up_thread(ChunkSchedule schedule, int n) {
  LaunchConfig cfg;
  cfg.chunk_size = 1;
  cfg.schedule = schedule;
  ChunkedLaunch<TEST_EXECSPACE> launch(resolve_launch_config<TEST_EXECSPACE>(cfg, n));
  EXPECT_EQ(launch.resolved().dynamic_schedule,
            schedule == ChunkSchedule::Dynamic && !Impl::is_gpu_space<TEST_EXECSPACE>());
  Kokkos::View<int*, TEST_DEVICE> visits("visits", n), rank("rank", n);
  launch.run(
      "test", TEST_EXECSPACE(),
      KOKKOS_LAMBDA(const typename ChunkedLaunch<TEST_EXECSPACE>::member_type&, std::int64_t u) {
        Kokkos::atomic_increment(&visits(u));
        rank(u) = host_thread_rank<TEST_EXECSPACE>();
        if (u == 0) host_pause_ms<TEST_EXECSPACE>(200);
      });
  TEST_EXECSPACE().fence();
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), visits);
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rank);
  int held = 0;
  for (int u = 0; u < n; ++u) {
    EXPECT_EQ(hv(u), 1) << "unit " << u;
    held += hr(u) == hr(0) ? 1 : 0;
  }
  return held;
}

// The dynamic schedule on a host backend with several threads: the thread that runs unit 0 is held up there; the
// others take over its share, so it runs fewer units than under the static schedule, and every unit still runs
// once. (GPUs and one-thread backends: the schedule is static or has no effect; only the visits are checked.)
TEST(TEST_CATEGORY, chunked_launch_dynamic_schedule_lets_other_threads_take_a_held_up_share) {
  const int threads = static_cast<int>(TEST_EXECSPACE().concurrency());
  const int n = 16 * std::max(threads, 1);
  const int static_units = units_of_held_up_thread(ChunkSchedule::Static, n);
  const int dynamic_units = units_of_held_up_thread(ChunkSchedule::Dynamic, n);
  if (Impl::is_gpu_space<TEST_EXECSPACE>() || threads < 2) return;
  EXPECT_GE(static_units, n / threads) << "static: the held-up thread keeps its share";
  EXPECT_LT(dynamic_units, static_units) << "dynamic: the other threads take part of the held-up share";
}

/// A ChunkedLaunch functor that takes a host thread's pass over a chunk in one call (host_sequence / run_sequence, as
/// the row-merge sweep does): records each unit's visit, its position in the visit order and whether it came through
/// run_sequence, and counts the run_sequence calls.
struct SequenceRecorder {
  static constexpr bool host_sequence = true;
  Kokkos::View<int*, TEST_DEVICE> visits, stamp, via_sequence;
  Kokkos::View<int, TEST_DEVICE> counter, sequences;
  KOKKOS_INLINE_FUNCTION void visit(std::int64_t u, int sequence) const {
    Kokkos::atomic_add(&visits(u), 1);
    stamp(u) = Kokkos::atomic_fetch_add(&counter(), 1);
    via_sequence(u) = sequence;
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member&, std::int64_t u) const {
    visit(u, 0);
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION void run_sequence(const Member&, std::int64_t first, std::int64_t end,
                                           std::int64_t step) const {
    Kokkos::atomic_add(&sequences(), 1);
    for (std::int64_t u = first; u < end; u += step) visit(u, 1);
  }
};

// On host backends with one-thread teams a functor with host_sequence gets each pass over a chunk (units begin + r,
// begin + r + s, ... for r < s) in one run_sequence call, in the order the per-unit calls would take, every unit once;
// with two threads per team, and on GPUs, it gets the per-unit calls.
TEST(TEST_CATEGORY, chunked_launch_hands_host_passes_to_run_sequence) {
  static_assert(Impl::has_host_sequence<SequenceRecorder>::value, "SequenceRecorder asks for run_sequence");
  static_assert(!Impl::has_host_sequence<SequenceRecorder*>::value, "no host_sequence member: per-unit calls");
  const bool gpu = Impl::is_gpu_space<TEST_EXECSPACE>();
  for (int stride : {-1, 3})
    for (int team : {1, 2}) {
      if (team == 2 && TEST_EXECSPACE().concurrency() < 2) continue;
      LaunchConfig cfg;
      cfg.unit_stride = stride;
      cfg.team_size = team;
      cfg.vector_length = 1;
      cfg.chunk_size = 7;
      cfg.max_concurrent_teams = team == 1 ? 1 : -1;  // one team: the visit order is checked
      const int n = 100;
      ChunkedLaunch<TEST_EXECSPACE> launch(resolve_launch_config<TEST_EXECSPACE>(cfg, n));
      SequenceRecorder f{Kokkos::View<int*, TEST_DEVICE>("visits", n), Kokkos::View<int*, TEST_DEVICE>("stamp", n),
                         Kokkos::View<int*, TEST_DEVICE>("via_sequence", n), Kokkos::View<int, TEST_DEVICE>("counter"),
                         Kokkos::View<int, TEST_DEVICE>("sequences")};
      launch.run("test", TEST_EXECSPACE(), f);
      TEST_EXECSPACE().fence();
      auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.visits);
      auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.stamp);
      auto hq = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.via_sequence);
      auto hn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.sequences);
      const bool sequences = !gpu && team == 1;
      const int s = launch.resolved().unit_stride;
      const std::string what = "stride " + std::to_string(s) + ", team " + std::to_string(team);
      int passes = 0, expected = 0;
      for (int begin = 0; begin < n; begin += 7)
        for (int r = 0; r < s && begin + r < std::min(n, begin + 7); ++r) {
          ++passes;
          for (int u = begin + r; u < std::min(n, begin + 7); u += s) {
            ASSERT_EQ(hv(u), 1) << what << ", unit " << u;
            EXPECT_EQ(hq(u), sequences ? 1 : 0) << what << ", unit " << u;
            if (team == 1) EXPECT_EQ(hs(u), expected) << what << ", unit " << u;
            ++expected;
          }
        }
      EXPECT_EQ(expected, n) << what;
      EXPECT_EQ(hn(), sequences ? passes : 0) << what;
    }
}

// Every unit is visited exactly once, whatever the order / occupancy / schedule; with one team the visit order
// follows the block order exactly.
TEST(TEST_CATEGORY, chunked_launch_visits_every_unit_once_in_block_order) {
  for (auto order : {BlockOrder::Forward, BlockOrder::Backward, BlockOrder::Random}) {
    for (int teams : {-2, -1, 1, 3}) {  // -2: no limit and the dynamic schedule
      for (int stride : {-1, 2, 3, 8}) {  // 8 > the chunk: one unit per pass
        LaunchConfig cfg;
        cfg.unit_stride = stride;
        if (teams == -2) cfg.schedule = ChunkSchedule::Dynamic;
        cfg.team_size =
            teams == 3 && stride == 3 && TEST_EXECSPACE().concurrency() >= 2 ? 2 : 1;  // two threads share a pass
        cfg.vector_length = 1;
        cfg.chunk_size = 7;
        cfg.block_order = order;
        cfg.seed = 42;
        cfg.max_concurrent_teams = teams < 0 ? -1 : teams;
        const int n = 100;
        ChunkedLaunch<TEST_EXECSPACE> launch(resolve_launch_config<TEST_EXECSPACE>(cfg, n));
        Kokkos::View<int*, TEST_DEVICE> visits("visits", n), stamp("stamp", n);
        record_visits(launch, visits, stamp);
        auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), visits);
        auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), stamp);
        for (int i = 0; i < n; ++i) ASSERT_EQ(hv(i), 1) << "unit " << i;
        const int s = launch.resolved().unit_stride;
        EXPECT_EQ(s, Impl::is_gpu_space<TEST_EXECSPACE>() || stride < 0 ? 1 : stride);
        if (teams == 1) {
          // one team: chunks run in the permutation's order, a chunk's units in s interleaved passes
          auto perm = block_order_permutation(launch.resolved().num_chunks, order, 42);
          int expected = 0;
          for (auto c : perm) {
            const int begin = static_cast<int>(c) * 7, end = std::min(n, begin + 7);
            for (int r = 0; r < s; ++r)
              for (int u = begin + r; u < end; u += s) {
                EXPECT_EQ(hs(u), expected) << "unit " << u << ", stride " << s;
                ++expected;
              }
          }
          EXPECT_EQ(expected, n);
        }
      }
    }
  }
}
TEST(TEST_CATEGORY, host_block_partition_is_contiguous_and_balanced) {
  EXPECT_EQ(is_host_space<TEST_EXECSPACE>(), !Impl::is_gpu_space<TEST_EXECSPACE>());
  EXPECT_TRUE(is_host_space<Kokkos::DefaultHostExecutionSpace>());
  for (int concurrency : {1, 2, 3, 4, 7, 64})
    for (int max_teams : {-1, 1, 2, 5})
      for (std::int64_t rows : {1, 2, 5, 64, 1000, 22500}) {
        ResolvedLaunch r;
        r.concurrency = concurrency;
        r.max_concurrent_teams = max_teams;
        const HostBlockPartition part = host_block_partition(r, rows);
        std::int64_t blocks = concurrency;
        if (max_teams > 0) blocks = std::min<std::int64_t>(blocks, max_teams);
        blocks = std::min(blocks, rows);
        ASSERT_EQ(part.blocks, blocks) << concurrency << " " << max_teams << " " << rows;
        EXPECT_EQ(part.begin(0), 0);
        EXPECT_EQ(part.end(blocks - 1), rows);
        for (std::int64_t b = 0; b < blocks; ++b) {
          if (b > 0) EXPECT_EQ(part.begin(b), part.end(b - 1));
          const std::int64_t size = part.end(b) - part.begin(b);
          EXPECT_TRUE(size == rows / blocks || size == rows / blocks + 1) << "block " << b << " of " << rows;
        }
        record_host_blocks(r, part);
        EXPECT_EQ(r.league_size, blocks);
        EXPECT_EQ(r.num_chunks, blocks);
        EXPECT_EQ(r.team_size, 1);
        EXPECT_EQ(r.chunk_size, (rows + blocks - 1) / blocks);
      }
  // the partition of the backend's own launch: one block per thread
  const auto r = resolve_launch_config<TEST_EXECSPACE>(LaunchConfig(), 1000);
  EXPECT_EQ(host_block_partition(r, 1000).blocks, std::min<std::int64_t>(TEST_EXECSPACE().concurrency(), 1000));
}

// BufferPool: best fit among the free buffers, a buffer is free once no View handed out from it is left, a too
// small free buffer is replaced by a larger one (the pool does not grow in count), release_free keeps what is used.
TEST(TEST_CATEGORY, workspace_pool_reuses_free_buffers) {
  using Dev = TEST_EXECSPACE::device_type;
  using V = Kokkos::View<double*, Dev>;
  BufferPool<double, Dev> pool;
  V a = pool.get(100), b = pool.get(1000);
  EXPECT_EQ(a.extent(0), 100u);
  EXPECT_EQ(b.extent(0), 1000u);
  EXPECT_NE(a.data(), b.data());
  EXPECT_EQ(pool.stats().allocations, 2);
  EXPECT_EQ(pool.stats().bytes, (112u + 1125u) * sizeof(double));  // n + n / 8 entries each
  const double* pa = a.data();
  const double* pb = b.data();
  a = V();  // a's buffer is free again; b's is not
  V c = pool.get(50);
  EXPECT_EQ(c.data(), pa);
  EXPECT_EQ(c.extent(0), 50u);
  V d = pool.get(90);  // the only free buffer is in use by c: a new one
  EXPECT_NE(d.data(), pa);
  EXPECT_NE(d.data(), pb);
  EXPECT_EQ(pool.stats().allocations, 3);
  EXPECT_EQ(pool.stats().reuses, 1);
  EXPECT_EQ(pool.stats().peak_bytes_in_use, (112u + 1125u + 101u) * sizeof(double));  // c, b and d at once
  // best fit: of the free buffers of 112 and 1125 entries a request of 100 gets the smaller
  c = V();
  b = V();
  V e = pool.get(100);
  EXPECT_EQ(e.data(), pa);
  // a request larger than every free buffer replaces the largest of them
  V f = pool.get(5000);
  EXPECT_EQ(pool.stats().allocations, 4);
  EXPECT_EQ(pool.stats().bytes, (112u + 101u + 5625u) * sizeof(double));  // e's, d's, f's buffers
  // the data written through one View is what the next user of the buffer finds (no initialisation)
  Kokkos::deep_copy(f, 3.0);
  const double* pf = f.data();
  f = V();
  {
    V g = pool.get(3000);  // free: only f's buffer (5625)
    EXPECT_EQ(g.data(), pf);
    double last = 0;
    Kokkos::deep_copy(Kokkos::View<double, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(&last),
                      Kokkos::subview(g, 2999));
    EXPECT_EQ(last, 3.0);
  }
  // a short request does not take a buffer longer than 2 n + 1024 entries: a new one
  V h = pool.get(10);
  EXPECT_NE(h.data(), pf);
  EXPECT_EQ(pool.stats().allocations, 5);
  h = V();
  pool.release_free();
  EXPECT_EQ(pool.stats().bytes, (112u + 101u) * sizeof(double));  // e and d are still in use
  // poisoned: a buffer handed out again holds NaN, not what its last user wrote
  pool.set_poison(true);
  {
    V p = pool.get(50);  // e and d are in use: a new buffer
    const double* pp = p.data();
    Kokkos::deep_copy(p, 7.0);
    p = V();
    V q = pool.get(50);
    EXPECT_EQ(q.data(), pp);
    double first = 0;
    Kokkos::deep_copy(Kokkos::View<double, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(&first),
                      Kokkos::subview(q, 0));
    EXPECT_TRUE(std::isnan(first));
  }
  pool.set_poison(false);
  pool.reset_counters();
  EXPECT_EQ(pool.stats().peak_bytes_in_use, 0u);
  EXPECT_EQ(pool.stats().allocations, 0);
  EXPECT_EQ(pool.stats().reuses, 0);
}

TEST(TEST_CATEGORY, workspace_routes_by_value_type) {
  using Dev = TEST_EXECSPACE::device_type;
  // offset_t may be int like ordinal_t: the first matching pool serves both
  Workspace<Dev, float, double, offset_t, ordinal_t> ws;
  auto x = ws.get<Kokkos::View<float*, Dev>>(10, "x");
  auto y = ws.get<Kokkos::View<double*, Dev>>(10, "y");
  auto z = ws.get<Kokkos::View<ordinal_t*, Dev>>(8);
  EXPECT_EQ(x.extent(0), 10u);
  EXPECT_EQ(y.label(), "y");
  EXPECT_EQ(z.extent(0), 8u);
  EXPECT_EQ(ws.stats().allocations, 3);
  EXPECT_EQ(ws.stats().bytes, 11 * sizeof(float) + 11 * sizeof(double) + 9 * sizeof(ordinal_t));
  y = decltype(y)();
  auto w = ws.get<Kokkos::View<double*, Dev>>(11);
  EXPECT_EQ(ws.stats().allocations, 3);
  EXPECT_EQ(ws.stats().reuses, 1);
  EXPECT_EQ(w.extent(0), 11u);
}

}  // namespace test_launch_config
