// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Synchronous and asynchronous Jacobi (Tsai, Nayak, Chow & Anzt 2022): exact agreement with host
// references where the order is predictable (Sync always; Dynamic with one thread), convergence of every
// variant where rho(|M|) < 1, the static mode's rate on host backends against synchronous Jacobi, divergence
// reports where it does not converge, value-age traces, the preconditioner, and the error messages of every bad
// input.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_load.hpp>
#include <asyncsparse/core/AsyncSparse_norms.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi.hpp>
#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>
#include <support/TestHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace test_async_jacobi {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using Exec = TEST_EXECSPACE;
using V = Kokkos::View<double*, Dev>;
using Handle = AsyncJacobiHandle<double, Dev>;

constexpr bool on_gpu = Impl::is_gpu_space<Exec>();
bool single_thread() { return Exec().concurrency() == 1; }

// b uniform in (lo, hi) from raw mt19937_64 output (portable across standard libraries)
std::vector<double> uniform(int n, std::uint64_t seed, double lo = -0.125, double hi = 0.125) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
  return v;
}

CsrHost<double> scaled(const CsrHost<double>& A) { return scale_unit_diagonal(A).A; }

struct Entry {
  int i, j;
  double v;
};
CsrHost<double> csr(int nrows, int ncols, const std::vector<Entry>& e) {
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (const auto& x : e) {
    r.push_back(x.i);
    c.push_back(x.j);
    v.push_back(x.v);
  }
  return csr_from_triplets(nrows, ncols, r, c, v);
}

// x_i <- x_i + omega (b_i - A(i,:) x) / a_ii with the kernels' operation order
void host_row_update(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x, int i,
                     double omega) {
  double r = b[i], d = 0;
  for (int p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
    r -= A.values[p] * x[A.col_idx[p]];
    if (A.col_idx[p] == i) d += A.values[p];
  }
  x[i] = x[i] + omega * r / d;
}

// one sweep of rows [begin, end) in the host mappings' order (Impl::interleaved_rows)
void sweep_block(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x, int begin, int end,
                 double omega) {
  Impl::interleaved_rows(begin, end, [&](std::int64_t i) { host_row_update(A, b, x, static_cast<int>(i), omega); });
}

void expect_equal(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool ok = on_gpu ? std::abs(got[i] - want[i]) <= 1e-12 * (1 + std::abs(want[i])) : got[i] == want[i];
    if (!ok && bad++ < 5) ADD_FAILURE() << what << ": entry " << i << " is " << got[i] << ", expected " << want[i];
  }
  EXPECT_EQ(bad, 0) << what;
}

std::vector<int> host_copy(const Kokkos::View<int*, Dev>& v) { return to_std_vector(v); }

struct Run {
  std::vector<double> x;
  AsyncJacobiStats stats;
};

Run run(const CsrHost<double>& Ah, const std::vector<double>& bh, const AsyncJacobiParams& p,
        const LaunchConfig& l = LaunchConfig(), Handle* hout = nullptr) {
  auto A = to_device<Dev>(Ah);
  auto b = to_device<Dev>(bh);
  V x("x", Ah.nrows);
  Handle local(p, l);
  Handle& h = hout ? *hout : local;
  if (hout) {
    h.params = p;
    h.launch = l;
  }
  async_jacobi_symbolic(Exec(), h, A);
  async_jacobi_numeric(Exec(), h, A);
  async_jacobi_solve(Exec(), h, b, x);
  return {to_std_vector(x), h.stats};
}

AsyncJacobiParams params(JacobiMode mode, int updates, double omega = 1.0) {
  AsyncJacobiParams p;
  p.mode = mode;
  p.updates = updates;
  p.omega = omega;
  return p;
}

// ------------------------------------------------------------------------------------------------
// Deterministic mode: synchronous Jacobi == Reference::jacobi
// ------------------------------------------------------------------------------------------------

TEST(TEST_CATEGORY, async_jacobi_sync_matches_reference_exactly) {
  // unit diagonal (scaled: the kernels skip the diagonal) and general diagonals
  for (const auto& Ah : {lap2d(13), scaled(lap2d(13)), random_diag_dominant(300, 7, 3, false, 1.3)}) {
    const auto bh = uniform(Ah.nrows, 5);
    for (double omega : {1.0, 0.7}) {
      std::vector<double> xr(Ah.nrows, 0.0);
      const auto hist = Reference::jacobi(Ah, bh, xr, 37, omega);
      auto p = params(JacobiMode::Sync, 37, omega);
      p.record_history = true;
      p.check_interval = 1;
      LaunchConfig l;
      l.vector_length = 1;
      auto r = run(Ah, bh, p, l);
      expect_equal(r.x, xr, "sync jacobi");
      EXPECT_EQ(r.stats.updates_done, 37);
      EXPECT_EQ(r.stats.status, JacobiStatus::UpdatesDone);
      ASSERT_EQ(r.stats.residual_history.size(), hist.size());
      for (std::size_t k = 0; k < hist.size(); ++k) EXPECT_NEAR(r.stats.residual_history[k], hist[k], 1e-12 * hist[0]);
      EXPECT_NEAR(r.stats.final_residual, hist.back(), 1e-12);
      // the auto vector length (several lanes on GPUs) agrees to rounding
      auto r2 = run(Ah, bh, params(JacobiMode::Sync, 37, omega));
      for (int i = 0; i < Ah.nrows; ++i) EXPECT_NEAR(r2.x[i], xr[i], 1e-12);
    }
  }
}

TEST(TEST_CATEGORY, async_jacobi_sync_tolerance_matches_reference_until) {
  const auto Ah = scaled(lap2d(12));
  const auto bh = uniform(Ah.nrows, 9);
  std::vector<double> xr(Ah.nrows, 0.0);
  const auto R = Reference::jacobi_until(Ah, bh, xr, 1e-6, 5000);
  ASSERT_TRUE(R.converged);
  auto p = params(JacobiMode::Sync, 5000);
  p.tol = 1e-6;
  p.check_interval = 1;
  LaunchConfig l;
  l.vector_length = 1;
  auto r = run(Ah, bh, p, l);
  EXPECT_EQ(r.stats.status, JacobiStatus::Converged);
  EXPECT_NEAR(r.stats.updates_done, R.sweeps, 1);  // device and host norms may differ in the last bit
  if (r.stats.updates_done == R.sweeps) expect_equal(r.x, xr, "jacobi until tol");
  EXPECT_LE(r.stats.final_residual, 1e-6);
  // a coarser check interval stops at the first multiple of it past the reference count
  p.check_interval = 10;
  auto r10 = run(Ah, bh, p, l);
  EXPECT_EQ(r10.stats.status, JacobiStatus::Converged);
  EXPECT_GE(r10.stats.updates_done, R.sweeps - 1);
  EXPECT_LE(r10.stats.updates_done, R.sweeps + 10);
  EXPECT_EQ(r10.stats.updates_done % 10, 0);
}

TEST(TEST_CATEGORY, async_jacobi_apply_is_a_fixed_number_of_updates) {
  // apply ignores the tolerance and the checks: exactly `updates` updates, the same iterate as a solve without a
  // tolerance (synchronous: deterministic, bit for bit; also through jacobi_apply / jacobi_solve)
  const auto Ah = scaled(lap2d(11));
  const auto bh = uniform(Ah.nrows, 21);
  auto A = to_device<Dev>(Ah);
  auto b = to_device<Dev>(bh);
  LaunchConfig l;
  l.vector_length = 1;
  const auto fixed = run(Ah, bh, params(JacobiMode::Sync, 25), l);
  Handle h(params(JacobiMode::Sync, 25), l);
  h.params.tol = 0.9;  // would stop a solve after a few iterations
  h.params.check_interval = 1;
  h.params.record_history = true;
  async_jacobi_symbolic(Exec(), h, A);
  async_jacobi_numeric(Exec(), h, A);
  V x("x", Ah.nrows);
  const auto& st = async_jacobi_apply(Exec(), h, b, x);
  EXPECT_EQ(st.updates_done, 25);
  EXPECT_EQ(st.kernel_launches, 25);
  EXPECT_TRUE(st.residual_history.empty());
  EXPECT_EQ(st.status, JacobiStatus::UpdatesDone);
  expect_equal(to_std_vector(x), fixed.x, "async_jacobi_apply (sync)");
  V xs("xs", Ah.nrows);
  const auto& ss = async_jacobi_solve(Exec(), h, b, xs);
  EXPECT_EQ(ss.status, JacobiStatus::Converged);
  EXPECT_LT(ss.updates_done, 25);
  // the synchronous entry points read no mode
  Handle g(params(JacobiMode::Dynamic, 25), l);
  jacobi_symbolic(Exec(), g, A);
  jacobi_numeric(Exec(), g, A);
  V xj("xj", Ah.nrows);
  EXPECT_EQ(jacobi_apply(Exec(), g, b, xj).mode, JacobiMode::Sync);
  expect_equal(to_std_vector(xj), fixed.x, "jacobi_apply");
  Kokkos::deep_copy(xj, 0.0);
  jacobi_solve(Exec(), g, b, xj);
  expect_equal(to_std_vector(xj), fixed.x, "jacobi_solve");
  ASYNCSPARSE_EXPECT_THROW_MSG(jacobi_solve(Exec(), g, b, V("short", 2)), InvalidInput,
                               "jacobi_solve: x has length 2, the matrix 121 rows");
  // asynchronous apply: one launch, the requested updates
  for (auto mode : {JacobiMode::Static, JacobiMode::Dynamic}) {
    h.params.mode = mode;
    Kokkos::deep_copy(x, 0.0);
    const auto& sa = async_jacobi_apply(Exec(), h, b, x);
    EXPECT_EQ(sa.updates_done, 25) << to_string(mode);
    EXPECT_EQ(sa.kernel_launches, 1) << to_string(mode);
    EXPECT_LT(sa.final_residual, sa.initial_residual) << to_string(mode);
  }
  // new values on the same pattern: a new numeric phase, no new symbolic phase
  auto A2h = Ah;
  for (auto& v : A2h.values) v *= 2.0;
  auto A2 = to_device<Dev>(A2h);
  async_jacobi_numeric(Exec(), h, A2);
  EXPECT_FALSE(h.ws.unit_diagonal);
  for (double d : to_std_vector(h.diagonal())) EXPECT_EQ(d, 2.0);
}

// The default mode, Auto, is the measured rule default_jacobi_mode: Static on every backend; the statistics and the
// preconditioner's description name the mode that ran.
TEST(TEST_CATEGORY, async_jacobi_auto_mode_runs_the_backend_default) {
  const JacobiMode expected = JacobiMode::Static;
  EXPECT_EQ(AsyncJacobiParams().mode, JacobiMode::Auto);
  EXPECT_EQ(default_jacobi_mode<Exec>(), expected);
  EXPECT_EQ(resolve_jacobi_mode<Exec>(JacobiMode::Auto), expected);
  for (auto m : {JacobiMode::Sync, JacobiMode::Static, JacobiMode::Dynamic}) EXPECT_EQ(resolve_jacobi_mode<Exec>(m), m);
  EXPECT_EQ(jacobi_mode_from_string("auto"), JacobiMode::Auto);
  EXPECT_STREQ(to_string(JacobiMode::Auto), "auto");
  const auto Ah = scaled(lap2d(20));
  const auto bh = uniform(Ah.nrows, 5);
  AsyncJacobiParams p;  // mode left at its default
  p.updates = 60;
  const auto a = run(Ah, bh, p);
  EXPECT_EQ(a.stats.mode, expected);
  EXPECT_EQ(a.stats.updates_done, 60);
  EXPECT_LT(a.stats.final_residual, 0.5 * a.stats.initial_residual);
  // the static host mapping: one row block per thread
  if (!on_gpu) EXPECT_EQ(a.stats.workers, std::min<std::int64_t>(Exec().concurrency(), Ah.nrows));
  if (!on_gpu && Exec().concurrency() == 1) {  // one host thread: Gauss-Seidel sweeps, deterministic
    p.mode = JacobiMode::Static;
    expect_equal(run(Ah, bh, p).x, a.x, "mode auto against static");
  }
  auto M = make_preconditioner<double, Dev>("async_jacobi", to_device<Dev>(Ah));
  EXPECT_NE(M->description().find(std::string("mode=") + to_string(expected)), std::string::npos) << M->description();
}

// AsyncJacobiParams::max_updates_per_launch splits the updates of an apply (and those between two residual checks)
// into launches of at most that many; 0 is the rule default_max_updates_per_launch, whose bound the statistics name.
TEST(TEST_CATEGORY, async_jacobi_max_updates_per_launch) {
  const auto Ah = scaled(lap2d(20));
  const auto bh = uniform(Ah.nrows, 9);
  for (auto mode : {JacobiMode::Static, JacobiMode::Dynamic}) {
    SCOPED_TRACE(to_string(mode));
    auto p = params(mode, 10);
    p.max_updates_per_launch = 3;
    const auto a = run(Ah, bh, p);
    EXPECT_EQ(a.stats.updates_done, 10);
    EXPECT_EQ(a.stats.kernel_launches, 4);  // 3 + 3 + 3 + 1
    EXPECT_EQ(a.stats.max_updates_per_launch, 3);
    p.updates = 20;
    p.tol = 1e-30;  // never reached: a check every 5 updates, each in launches of 3 + 2
    p.check_interval = 5;
    const auto c = run(Ah, bh, p);
    EXPECT_EQ(c.stats.updates_done, 20);
    EXPECT_EQ(c.stats.kernel_launches, 8);
    p.max_updates_per_launch = std::numeric_limits<int>::max();  // one launch per check
    const auto e = run(Ah, bh, p);
    EXPECT_EQ(e.stats.updates_done, 20);
    EXPECT_EQ(e.stats.kernel_launches, 4);
    // the rule: no bound for this grid on any backend (every row has a running lane group or thread)
    p = params(mode, 10);
    const auto d = run(Ah, bh, p);
    EXPECT_EQ(d.stats.max_updates_per_launch, 0);
    EXPECT_EQ(d.stats.kernel_launches, 1);
    EXPECT_EQ(d.stats.max_updates_per_launch, default_max_updates_per_launch<Exec>(mode, Ah.nrows, d.stats.launch));
  }
  // the rule's cases (its GPU branch on every backend): host backends and the dynamic mode never bound; the static
  // mode on GPUs when the rows outnumber the lane groups that run at once; Auto as the mode it resolves to
  ResolvedLaunch rl;
  rl.concurrency = 1000;
  rl.vector_length = 2;
  for (bool gpu : {false, true}) {
    SCOPED_TRACE(gpu ? "GPU" : "host");
    const int bound = gpu ? kGpuStaticUpdatesPerLaunch : 0;
    EXPECT_EQ(Impl::max_updates_per_launch_rule(gpu, JacobiMode::Dynamic, 1 << 20, rl), 0);
    EXPECT_EQ(Impl::max_updates_per_launch_rule(gpu, JacobiMode::Static, 500, rl), 0);
    EXPECT_EQ(Impl::max_updates_per_launch_rule(gpu, JacobiMode::Static, 501, rl), bound);
    ResolvedLaunch persistent = rl;  // persistent teams: 2 teams of 100 lane groups run at once
    persistent.max_concurrent_teams = 2;
    persistent.team_size = 100;
    EXPECT_EQ(Impl::max_updates_per_launch_rule(gpu, JacobiMode::Static, 201, persistent), bound);
    EXPECT_EQ(Impl::max_updates_per_launch_rule(gpu, JacobiMode::Static, 200, persistent), 0);
  }
  const int here = is_host_space<Exec>() ? 0 : kGpuStaticUpdatesPerLaunch;
  EXPECT_EQ(default_max_updates_per_launch<Exec>(JacobiMode::Static, 501, rl), here);
  EXPECT_EQ(default_max_updates_per_launch<Exec>(JacobiMode::Auto, 501, rl), here);
  EXPECT_EQ(default_max_updates_per_launch<Exec>(JacobiMode::Dynamic, 501, rl), 0);
  // where the rule bounds (on GPUs: one resident team of 128 lane groups for the 400 rows), an apply of 25 updates
  // goes in launches of 10 + 10 + 5 and converges like the others
  {
    LaunchConfig one_team;
    one_team.max_concurrent_teams = 1;
    Handle h(params(JacobiMode::Auto, 25), one_team);
    auto A = to_device<Dev>(Ah);
    auto b = to_device<Dev>(bh);
    V x("x", Ah.nrows);
    async_jacobi_symbolic(Exec(), h, A);
    async_jacobi_numeric(Exec(), h, A);
    const auto& st = async_jacobi_apply(Exec(), h, b, x);
    EXPECT_EQ(st.mode, JacobiMode::Static);
    EXPECT_EQ(st.updates_done, 25);
    EXPECT_EQ(st.max_updates_per_launch, default_max_updates_per_launch<Exec>(JacobiMode::Auto, Ah.nrows, st.launch));
    if (!on_gpu) {
      EXPECT_EQ(st.max_updates_per_launch, 0);
      EXPECT_EQ(st.kernel_launches, 1);
    } else {
      EXPECT_EQ(st.launch.team_size * st.launch.vector_length, 128) << "the GPU default team: 128 threads";
      EXPECT_EQ(st.max_updates_per_launch, kGpuStaticUpdatesPerLaunch);
      EXPECT_EQ(st.kernel_launches, 3);
    }
    // host: Gauss-Seidel sweeps of the threads' blocks, at least as good as synchronous Jacobi; GPU: one team of
    // lane groups walks the row blocks (each block its 10 updates before the next), only progress is certain
    const auto sync = run(Ah, bh, params(JacobiMode::Sync, 25));
    if (!on_gpu)
      EXPECT_LT(st.final_residual, 1.5 * sync.stats.final_residual);
    else
      EXPECT_LT(st.final_residual, 0.9 * st.initial_residual);
  }
  // launches of 3 updates reach what one launch reaches: bit for bit with one host thread (Gauss-Seidel sweeps in
  // row order either way), else within the synchronous iteration's residual on hosts (at least as many updates of
  // each row with newer neighbours); on GPUs, as in the suite's other GPU checks, only convergence
  auto p = params(JacobiMode::Static, 150);
  const auto whole = run(Ah, bh, p);
  p.max_updates_per_launch = 3;
  const auto split = run(Ah, bh, p);
  EXPECT_EQ(split.stats.kernel_launches, 50);
  if (!on_gpu && single_thread()) expect_equal(split.x, whole.x, "launches of 3 updates against one launch");
  const auto sync = run(Ah, bh, params(JacobiMode::Sync, 150));
  if (!on_gpu)
    EXPECT_LT(split.stats.final_residual, 1.5 * sync.stats.final_residual);
  else
    EXPECT_LT(split.stats.final_residual, 0.5 * split.stats.initial_residual);
  p.max_updates_per_launch = -1;
  ASYNCSPARSE_EXPECT_THROW_MSG(run(Ah, bh, p), InvalidInput,
                               "async_jacobi_solve: max_updates_per_launch must be >= 0 (0: automatic), got -1");
}

// AsyncJacobiParams::check_interval = 0 (the default) is the rule: the synchronous mode checks every
// kFirstCheckInterval updates (deterministic stop points); the asynchronous modes start there and set each next
// interval with next_check_interval (checks about kCheckTimeShare of the time, at most doubling per check).
TEST(TEST_CATEGORY, async_jacobi_check_interval_rule) {
  // the rule's function
  EXPECT_EQ(next_check_interval(10, 29e-6, 2.1e-6), 20);   // wants 138: at most twice the current interval
  EXPECT_EQ(next_check_interval(80, 29e-6, 2.1e-6), 138);  // 29 / (0.1 x 2.1) = 138.1
  EXPECT_EQ(next_check_interval(10, 1e-6, 1e-6), 10);      // a check costs one update: one check per 10 updates
  EXPECT_EQ(next_check_interval(100, 1e-6, 1e-6), 10);     // and it shrinks back
  EXPECT_EQ(next_check_interval(10, 1e-9, 1e-6), kFirstCheckInterval);  // never below the first interval
  EXPECT_EQ(next_check_interval(40, 0.0, 1e-6), 40);                    // no usable time: unchanged
  EXPECT_EQ(next_check_interval(40, 1e-6, 0.0), 40);
  EXPECT_EQ(next_check_interval(40, std::numeric_limits<double>::quiet_NaN(), 1e-6), 40);
  EXPECT_EQ(next_check_interval(40, 1e-6, std::numeric_limits<double>::infinity()), 40);
  EXPECT_EQ(next_check_interval(1 << 29, 1.0, 1e-12), 1000000000);  // no overflow
  EXPECT_EQ(AsyncJacobiParams().check_interval, 0);

  const auto Ah = scaled(lap2d(24));
  const auto bh = uniform(Ah.nrows, 3);
  auto p = params(JacobiMode::Sync, 100000);
  p.tol = 1e-6;
  p.record_history = true;
  const auto sync = run(Ah, bh, p);
  ASSERT_TRUE(sync.stats.converged());
  EXPECT_EQ(sync.stats.check_interval, kFirstCheckInterval);
  EXPECT_EQ(sync.stats.updates_done % kFirstCheckInterval, 0);
  EXPECT_EQ(sync.stats.checks, sync.stats.updates_done / kFirstCheckInterval);
  for (std::size_t k = 1; k < sync.stats.update_history.size(); ++k)
    EXPECT_EQ(sync.stats.update_history[k] - sync.stats.update_history[k - 1], kFirstCheckInterval);
  for (auto mode : {JacobiMode::Static, JacobiMode::Dynamic}) {
    SCOPED_TRACE(to_string(mode));
    p.mode = mode;
    const auto a = run(Ah, bh, p);
    ASSERT_TRUE(a.stats.converged()) << a.stats.message;
    const auto& u = a.stats.update_history;  // 0, then the updates at each check
    ASSERT_GE(u.size(), 2u);
    EXPECT_EQ(static_cast<int>(u.size()) - 1, a.stats.checks);
    EXPECT_EQ(u[1], kFirstCheckInterval);
    for (std::size_t k = 2; k < u.size(); ++k) {
      const int step = u[k] - u[k - 1], before = u[k - 1] - u[k - 2];
      EXPECT_LE(step, 2 * before) << "check " << k;
      if (k + 1 < u.size()) EXPECT_GE(step, kFirstCheckInterval) << "check " << k;  // the last may be cut short
    }
    EXPECT_EQ(a.stats.check_interval, u.back() - u[u.size() - 2]);
    EXPECT_LE(a.stats.final_residual, 1e-6);
    // on a GPU a check (kernel, reduction, read-back) costs many updates of this small grid: the intervals grow (on
    // host backends it costs about one update and the rule keeps 10)
    if (Impl::is_gpu_space<typename Dev::execution_space>()) {
      int longest = 0;
      for (std::size_t k = 1; k < u.size(); ++k) longest = std::max(longest, u[k] - u[k - 1]);
      EXPECT_GE(longest, 4 * kFirstCheckInterval);
    }
    // an explicit interval is kept
    auto q = p;
    q.check_interval = 7;
    const auto f = run(Ah, bh, q);
    ASSERT_TRUE(f.stats.converged());
    for (std::size_t k = 1; k + 1 < f.stats.update_history.size(); ++k)
      EXPECT_EQ(f.stats.update_history[k] - f.stats.update_history[k - 1], 7);
  }
}

TEST(TEST_CATEGORY, async_jacobi_numeric_on_new_values_equals_symbolic_and_numeric) {
  // a numeric phase on new values (same pattern, other Views) gives bit for bit the iterate of a fresh
  // symbolic + numeric phase (synchronous mode: deterministic)
  const auto Ah = lap2d(10);
  auto A2h = Ah;
  for (int i = 0; i < A2h.nrows; ++i)
    for (int p = A2h.row_ptr[i]; p < A2h.row_ptr[i + 1]; ++p)
      if (A2h.col_idx[p] == i) A2h.values[p] *= 1.0 + 0.1 * (i % 3);
  const auto bh = uniform(Ah.nrows, 5);
  auto A = to_device<Dev>(Ah), A2 = to_device<Dev>(A2h);
  auto b = to_device<Dev>(bh);
  Handle h(params(JacobiMode::Sync, 30));
  async_jacobi_symbolic(Exec(), h, A);
  async_jacobi_numeric(Exec(), h, A);
  V x1("x1", Ah.nrows), x2("x2", Ah.nrows), y("y", Ah.nrows);
  async_jacobi_solve(Exec(), h, b, x1);
  async_jacobi_numeric(Exec(), h, A2);
  async_jacobi_solve(Exec(), h, b, x2);
  Handle g(params(JacobiMode::Sync, 30));
  async_jacobi_symbolic(Exec(), g, A2);
  async_jacobi_numeric(Exec(), g, A2);
  async_jacobi_solve(Exec(), g, b, y);
  expect_equal(to_std_vector(x2), to_std_vector(y), "numeric on new values");
  EXPECT_NE(to_std_vector(x1), to_std_vector(x2));
  ASYNCSPARSE_EXPECT_THROW_MSG(async_jacobi_numeric(Exec(), h, to_device<Dev>(lap2d(9))), InvalidInput,
                               "async_jacobi_numeric: the matrix does not have the pattern given to "
                               "async_jacobi_symbolic");
}

// ------------------------------------------------------------------------------------------------
// Dynamic assignment with one thread: the order is fixed, the result exactly predictable
// ------------------------------------------------------------------------------------------------

TEST(TEST_CATEGORY, async_jacobi_dynamic_one_thread_follows_algorithm3_order) {
  if (!single_thread()) GTEST_SKIP() << "order is only predictable with one thread";
  const auto Ah = random_diag_dominant(97, 5, 7, false, 1.4);
  const auto bh = uniform(Ah.nrows, 3);
  const int updates = 6, n = Ah.nrows, chunk = 8, nb = (n + chunk - 1) / chunk;
  for (int oscb : {1, 3}) {
    // strided: L = concurrency (1) x oscb teams of one thread; team t takes row blocks g = t, t+L, ... of
    // the unrolled sequence of `updates` sweeps over nb blocks of 8 rows (Algorithm 3 on blocks); the
    // teams run one after another
    // teams run one after another; a thread sweeps a block as interleaved sub-blocks (Impl::interleaved_rows,
    // whose order is checked exactly in async_jacobi_host_row_order)
    std::vector<double> xr(n, 0.0);
    for (int t = 0; t < oscb; ++t)
      for (long g = t; g < long(updates) * nb; g += oscb)
        sweep_block(Ah, bh, xr, int(g % nb) * chunk, std::min(n, int(g % nb + 1) * chunk), 0.9);
    LaunchConfig l;
    l.oversubscription = oscb;
    l.chunk_size = chunk;
    auto ps = params(JacobiMode::Dynamic, updates, 0.9);
    ps.assignment = DynamicAssignment::Strided;
    auto r = run(Ah, bh, ps, l);
    expect_equal(r.x, xr, "dynamic strided, one thread");
    EXPECT_EQ(r.stats.assignment, DynamicAssignment::Strided);
    EXPECT_EQ(r.stats.workers, oscb);
    // atomic counter: the first team takes every block in order -> block-by-block sweeps (SOR form)
    std::vector<double> xs(n, 0.0);
    for (int k = 0; k < updates; ++k)
      for (int g = 0; g < nb; ++g) sweep_block(Ah, bh, xs, g * chunk, std::min(n, (g + 1) * chunk), 0.9);
    auto p = params(JacobiMode::Dynamic, updates, 0.9);
    p.assignment = DynamicAssignment::AtomicCounter;
    auto ra = run(Ah, bh, p, l);
    expect_equal(ra.x, xs, "dynamic atomic counter, one thread");
    // the default on host backends is the atomic counter, on GPUs the strided Algorithm 3
    auto rd = run(Ah, bh, params(JacobiMode::Dynamic, updates, 0.9), l);
    EXPECT_EQ(rd.stats.assignment, on_gpu ? DynamicAssignment::Strided : DynamicAssignment::AtomicCounter);
    if (!on_gpu) expect_equal(rd.x, xs, "dynamic default, one thread");
  }
  // oscb = 1, omega = 1, default launch (one block: the host default is at least 256 rows): `updates` Gauss–Seidel
  // sweeps in the interleaved row order
  std::vector<double> xg(n, 0.0);
  for (int k = 0; k < updates; ++k) sweep_block(Ah, bh, xg, 0, n, 1.0);
  auto r = run(Ah, bh, params(JacobiMode::Dynamic, updates));
  for (int i = 0; i < n; ++i) EXPECT_NEAR(r.x[i], xg[i], 1e-14);
}

TEST(TEST_CATEGORY, async_jacobi_host_block_balancer) {
  // boundaries of the static host mapping: even at first, then moved halfway toward equal expected times
  HostBlockBalancer bal(200, 2);
  EXPECT_EQ(bal.begin(0), 0);
  EXPECT_EQ(bal.begin(1), 100);
  EXPECT_EQ(bal.end(1), 200);
  bal.seconds()[0] = 0.001;
  bal.seconds()[1] = 0.003;  // block 1 three times slower: target boundary 150, halfway 125
  bal.rebalance();
  EXPECT_EQ(bal.begin(1), 125);
  EXPECT_EQ(bal.rebalances(), 1);
  bal.seconds()[0] = 0.0002;
  bal.seconds()[1] = 0.0009;  // launches under 1 ms: timer noise, nothing moves
  bal.rebalance();
  EXPECT_EQ(bal.begin(1), 125);
  bal.seconds()[0] = 0.0100;
  bal.seconds()[1] = 0.0105;  // within 10 %: nothing moves
  bal.rebalance();
  EXPECT_EQ(bal.begin(1), 125);
  // extreme rates never leave a block empty
  HostBlockBalancer few(3, 3);
  few.seconds()[0] = 1.0;
  few.seconds()[1] = 1e-3;
  few.seconds()[2] = 1e-3;
  for (int k = 0; k < 5; ++k) few.rebalance();
  for (std::int64_t b = 0; b < 3; ++b) EXPECT_EQ(few.end(b) - few.begin(b), 1) << "block " << b;
  // a fast first block: the last block still ends at the last row
  HostBlockBalancer fast_first(3, 3);
  fast_first.seconds()[0] = 1e-3;
  fast_first.seconds()[1] = 1.0;
  fast_first.seconds()[2] = 1.0;
  fast_first.rebalance();
  EXPECT_EQ(fast_first.end(2), 3);
  for (std::int64_t b = 0; b < 3; ++b) EXPECT_EQ(fast_first.end(b) - fast_first.begin(b), 1) << "block " << b;
  HostBlockBalancer four(1000, 4);
  for (int k = 0; k < 10; ++k) {
    for (std::int64_t b = 0; b < 4; ++b)  // block 3 runs at half speed
      four.seconds()[b] = 1e-5 * static_cast<double>(four.end(b) - four.begin(b)) * (b == 3 ? 2 : 1);
    four.rebalance();
  }
  EXPECT_EQ(four.end(3), 1000);
  // half the rate: half the rows of the others, up to the 10 % dead band (142.9 and 285.7 rows exactly)
  EXPECT_NEAR(four.end(3) - four.begin(3), 1000.0 / 7, 0.1 * 1000 / 7 + 1);
  EXPECT_GT(four.end(3) - four.begin(3), 1000.0 / 7 - 1);  // it moved from above, halfway each time
  for (std::int64_t b = 0; b < 3; ++b)
    EXPECT_NEAR(four.end(b) - four.begin(b), 2000.0 / 7, 0.1 * 2000 / 7 + 1) << "block " << b;
}

TEST(TEST_CATEGORY, async_jacobi_host_row_order) {
  // a host thread sweeps its rows as min(kHostStreams = 4, rows) contiguous sub-blocks in lockstep
  auto order = [](std::int64_t begin, std::int64_t end) {
    std::vector<std::int64_t> v;
    Impl::interleaved_rows(begin, end, [&](std::int64_t i) { v.push_back(i); });
    return v;
  };
  ASSERT_EQ(kHostStreams, 4);
  EXPECT_EQ(order(0, 10), (std::vector<std::int64_t>{0, 2, 5, 7, 1, 3, 6, 8, 4, 9}));
  EXPECT_EQ(order(20, 28), (std::vector<std::int64_t>{20, 22, 24, 26, 21, 23, 25, 27}));
  EXPECT_EQ(order(0, 3), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(order(7, 8), (std::vector<std::int64_t>{7}));
  EXPECT_TRUE(order(5, 5).empty());
  // every row exactly once, for every length
  for (std::int64_t len = 0; len < 40; ++len) {
    auto v = order(100, 100 + len);
    std::sort(v.begin(), v.end());
    std::vector<std::int64_t> want(len);
    for (std::int64_t i = 0; i < len; ++i) want[i] = 100 + i;
    EXPECT_EQ(v, want) << "length " << len;
  }
  // the dynamic mode's default block on host backends: 8 per thread and sweep, at least 256 rows
  EXPECT_EQ(host_dynamic_chunk(90000, 2), 5625);
  EXPECT_EQ(host_dynamic_chunk(1000, 2), 256);
  EXPECT_EQ(host_dynamic_chunk(90000, 0), 11250);
}

TEST(TEST_CATEGORY, async_jacobi_tracing_and_fence_do_not_change_one_thread_results) {
  if (!single_thread()) GTEST_SKIP() << "bitwise comparison needs one thread";
  const auto Ah = scaled(lap2d(15));
  const auto bh = uniform(Ah.nrows, 8);
  for (auto mode : {JacobiMode::Static, JacobiMode::Dynamic}) {
    auto base = run(Ah, bh, params(mode, 9));
    auto p = params(mode, 9);
    p.trace.value_age = true;
    p.trace.timestamps = true;
    expect_equal(run(Ah, bh, p).x, base.x, "traced");
    p = params(mode, 9);
    p.fence = false;
    p.load_kind = LoadKind::Plain;
    expect_equal(run(Ah, bh, p).x, base.x, "no fence, plain loads");
  }
}

// ------------------------------------------------------------------------------------------------
// Convergence where rho(|M|) < 1
// ------------------------------------------------------------------------------------------------

struct Variant {
  const char* name;
  JacobiMode mode;
  int subwarp, oscb;
  bool fence;
  DynamicAssignment assignment;
  LoadKind load;
};
const Variant variants[] = {
    {"sync", JacobiMode::Sync, -1, 1, true, DynamicAssignment::Strided, LoadKind::Relaxed},
    {"static sw1", JacobiMode::Static, 1, 1, true, DynamicAssignment::Strided, LoadKind::Relaxed},
    {"static sw4", JacobiMode::Static, 4, 1, true, DynamicAssignment::Strided, LoadKind::Relaxed},
    {"static no-fence", JacobiMode::Static, 1, 1, false, DynamicAssignment::Strided, LoadKind::Relaxed},
    {"dynamic oscb1", JacobiMode::Dynamic, 1, 1, true, DynamicAssignment::Strided, LoadKind::Relaxed},
    {"dynamic oscb4 sw2", JacobiMode::Dynamic, 2, 4, true, DynamicAssignment::Strided, LoadKind::Relaxed},
    {"dynamic atomic", JacobiMode::Dynamic, 1, 2, true, DynamicAssignment::AtomicCounter, LoadKind::Relaxed},
    {"dynamic plain loads", JacobiMode::Dynamic, 1, 1, true, DynamicAssignment::Strided, LoadKind::Plain},
};

void expect_all_variants_converge(const CsrHost<double>& Ah, const std::vector<double>& bh, double tol, int max_updates,
                                  const char* what) {
  for (const auto& v : variants) {
    auto p = params(v.mode, max_updates);
    p.tol = tol;
    p.check_interval = 10;
    p.fence = v.fence;
    p.assignment = v.assignment;
    p.load_kind = v.load;
    LaunchConfig l;
    l.vector_length = v.subwarp;
    l.oversubscription = v.oscb;
    auto r = run(Ah, bh, p, l);
    EXPECT_EQ(r.stats.status, JacobiStatus::Converged)
        << what << " / " << v.name << ": " << to_string(r.stats.status) << " residual " << r.stats.final_residual
        << " after " << r.stats.updates_done;
    EXPECT_LE(r.stats.final_residual, tol) << what << " / " << v.name;
    // the host residual of the returned x agrees
    EXPECT_LE(relative_residual_norm(Ah, r.x, bh), 1.0001 * tol) << what << " / " << v.name;
  }
}

TEST(TEST_CATEGORY, async_jacobi_all_variants_converge_on_scaled_laplacians) {
  // small grids keep the number of kernel launches (and barriers) low on busy machines; the update limits
  // are far above what is needed (sync: ~340 / ~150 iterations) because with more threads than cores a
  // descheduled worker delays its rows' progress by whole launches
  {
    const auto A = scaled(lap2d(10));
    expect_all_variants_converge(A, uniform(A.nrows, 1), 1e-6, 20000, "lap2d(10)");
  }
  {
    const auto A = scaled(lap3d7(6));
    expect_all_variants_converge(A, uniform(A.nrows, 2), 1e-6, 20000, "lap3d7(6)");
  }
}

// ------------------------------------------------------------------------------------------------
// Static mode on host backends: one block of rows per thread (exec/AsyncSparse_host_blocks.hpp)
// ------------------------------------------------------------------------------------------------

// updates per row a mode needs for relative residual 1e-6, checked every `interval` updates; fails the test (and
// returns -1) when the run does not converge within `limit`
int updates_to_tolerance(const CsrHost<double>& A, const std::vector<double>& b, JacobiMode mode, int limit,
                         int interval, const std::string& what, AsyncJacobiStats* stats = nullptr) {
  auto p = params(mode, limit);
  p.tol = 1e-6;
  p.check_interval = interval;
  const auto r = run(A, b, p);
  if (stats) *stats = r.stats;
  EXPECT_EQ(r.stats.status, JacobiStatus::Converged)
      << what << " / " << to_string(mode) << ": " << to_string(r.stats.status) << ", residual "
      << r.stats.final_residual << " after " << r.stats.updates_done << " updates";
  EXPECT_LE(relative_residual_norm(A, r.x, b), 1.0001e-6) << what << " / " << to_string(mode);
  return r.stats.converged() ? r.stats.updates_done : -1;
}

TEST(TEST_CATEGORY, async_jacobi_static_and_dynamic_converge_at_least_as_fast_as_sync) {
  // On host backends each thread sweeps its own block of rows `updates` times (static mode): Gauss–Seidel within
  // the block, asynchronous between blocks. On these 5-point matrices in natural order (consistently ordered: rho
  // of Gauss–Seidel = rho(Jacobi)^2) one thread needs about half the updates of synchronous Jacobi; more threads
  // add block boundaries read up to a sweep late, and a thread that the OS deschedules (more threads than cores, a
  // busy machine) leaves its block behind for a while: the bound 1.2 x sync leaves room for that. (The earlier
  // per-row mapping, `updates` relaxations of one row before the next, stopped at residual 0.39 on lap2d(150)
  // whatever the number of updates.) The dynamic mode's row blocks, handed out in order by the atomic counter,
  // give the same Gauss–Seidel-like progress. On GPUs, where the kernels are the paper's, only convergence is
  // checked.
  const int threads = static_cast<int>(Exec().concurrency());
  for (const char* spec : {"gen:lap2d:150", "gen:convdiff2d:150", "gen:convdiff2d:150:-1"}) {
    const std::string what = std::string(spec) + ", " + std::to_string(threads) + " thread(s)";
    const auto A = scaled(generate(spec));
    const auto b = uniform(A.nrows, 1);
    // synchronous Jacobi is deterministic and equals the host reference (tests above); the host loop costs no
    // barrier per iteration, which matters with more threads than cores
    std::vector<double> xs(A.nrows, 0.0);
    const auto ref = Reference::jacobi_until(A, b, xs, 1e-6, 100000);
    ASSERT_TRUE(ref.converged) << what;
    const int sync = ref.sweeps;
    // Each launch between two checks ends with all threads joined, and so does each check: with more threads than
    // cores such synchronisations are costly, but the longer a launch, the longer a descheduled thread's block may
    // lag behind the others. Checks every 10 updates where sync needs ~1,200 (convection-diffusion: the margin to
    // 1.2 x sync is smallest, and against the flow a lagging block delays its upstream neighbours), every 50 where
    // it needs ~41,000 (lap2d: the asynchronous modes need about half of it).
    const int interval = sync > 5000 ? 50 : 10;
    for (auto mode : {JacobiMode::Static, JacobiMode::Dynamic}) {
      AsyncJacobiStats st;
      const int updates = updates_to_tolerance(A, b, mode, (on_gpu ? 4 : 2) * sync, interval, what, &st);
      if (on_gpu) continue;
      EXPECT_LE(updates, 1.2 * sync) << what << ": " << to_string(mode) << " " << updates << " updates, sync " << sync;
      if (mode == JacobiMode::Static) {
        // one block of contiguous rows per thread, each updated by its thread only
        EXPECT_EQ(st.workers, std::min<std::int64_t>(threads, A.nrows)) << what;
        EXPECT_EQ(st.launch.league_size, st.workers) << what;
        EXPECT_EQ(st.launch.team_size, 1) << what;
      }
    }
  }
}

TEST(TEST_CATEGORY, async_jacobi_static_host_blocks_follow_the_launch_config) {
  // max_concurrent_teams caps the blocks (1: one thread sweeps every row, Gauss–Seidel); every row is updated
  // exactly `updates` times, by one worker (its block's thread)
  const auto A = scaled(lap2d(20));
  const auto bh = uniform(A.nrows, 4);
  for (int teams : {-1, 1, 3}) {
    auto p = params(JacobiMode::Static, 12);
    p.trace.value_age = true;
    p.trace.timestamps = true;
    LaunchConfig l;
    l.max_concurrent_teams = teams;
    Handle h;
    const auto r = run(A, bh, p, l, &h);
    EXPECT_LT(r.stats.final_residual, r.stats.initial_residual);
    for (int c : host_copy(h.trace.count())) EXPECT_EQ(c, 12);
    if (on_gpu) continue;
    const std::int64_t threads = Exec().concurrency();
    const std::int64_t blocks = teams > 0 ? std::min<std::int64_t>(threads, teams) : threads;
    EXPECT_EQ(r.stats.workers, blocks) << "max_concurrent_teams " << teams;
    const auto part = host_block_partition(r.stats.launch, A.nrows);
    ASSERT_EQ(part.blocks, blocks);
    const auto wk = to_std_vector(h.trace.stamp_workers());
    ASSERT_EQ(wk.size(), static_cast<std::size_t>(12 * A.nrows));
    for (std::int64_t blk = 0; blk < blocks; ++blk)
      for (std::int64_t i = part.begin(blk); i < part.end(blk); ++i)
        for (int k = 0; k < 12; ++k) EXPECT_EQ(wk[i * 12 + k], blk) << "row " << i << " update " << k;
  }
}

// power iteration on |M|, M = I - D^-1 A: the premise of the convergence test
double rho_abs_jacobi(const CsrHost<double>& A, int iters) {
  std::vector<double> d(A.nrows, 0.0), v(A.nrows, 1.0), w(A.nrows);
  for (int i = 0; i < A.nrows; ++i)
    for (int p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] == i) d[i] += A.values[p];
  double lam = 0;
  for (int k = 0; k < iters; ++k) {
    lam = 0;
    for (int i = 0; i < A.nrows; ++i) {
      double s = 0;
      for (int p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
        if (A.col_idx[p] != i) s += std::abs(A.values[p] / d[i]) * v[A.col_idx[p]];
      w[i] = s;
      lam = std::max(lam, s);
    }
    for (int i = 0; i < A.nrows; ++i) v[i] = w[i] / lam;
  }
  return lam;  // an upper bound of rho(|M|) (Collatz–Wielandt), decreasing towards it
}

TEST(TEST_CATEGORY, async_jacobi_all_variants_converge_on_diagonally_dominant_shared_matrices) {
  for (const char* name : {"fv1", "trefethen_2000"}) {
    const auto A = scaled(load_matrix(AsyncSparse::Test::matrix_path(name)));
    const double rho = rho_abs_jacobi(A, 200);
    ASSERT_LT(rho, 0.9) << name << ": rho(|M|) bound";
    expect_all_variants_converge(A, uniform(A.nrows, 3), 1e-6, 4000, name);
  }
}

// ------------------------------------------------------------------------------------------------
// Divergence is detected and reported
// ------------------------------------------------------------------------------------------------

// n/2 copies of [[1, 2], [2, 1]]: M = [[0, -2], [-2, 0]], rho(|M|) = rho(M) = 2
CsrHost<double> two_by_two_blocks(int blocks) {
  std::vector<Entry> t;
  for (int k = 0; k < blocks; ++k) {
    t.push_back({2 * k, 2 * k, 1.0});
    t.push_back({2 * k, 2 * k + 1, 2.0});
    t.push_back({2 * k + 1, 2 * k, 2.0});
    t.push_back({2 * k + 1, 2 * k + 1, 1.0});
  }
  return csr(2 * blocks, 2 * blocks, t);
}

TEST(TEST_CATEGORY, async_jacobi_reports_divergence) {
  const auto B = two_by_two_blocks(50);
  const auto bb = uniform(B.nrows, 6);
  const auto K =
      scaled(load_matrix(AsyncSparse::Test::matrix_path("bcsstk01")));  // SPD, rho(|M|) ~ 1.13, Jacobi diverges
  const auto bk = uniform(K.nrows, 7);
  EXPECT_GT(rho_abs_jacobi(K, 500), 1.0);
  for (const auto& v : variants) {
    auto p = params(v.mode, 20000);
    p.tol = 1e-6;
    p.check_interval = 10;
    p.fence = v.fence;
    p.assignment = v.assignment;
    p.load_kind = v.load;
    LaunchConfig l;
    l.vector_length = v.subwarp;
    l.oversubscription = v.oscb;
    // rho(|M|) = 2: every update order diverges
    auto r = run(B, bb, p, l);
    EXPECT_EQ(r.stats.status, JacobiStatus::Diverged) << v.name << ": " << to_string(r.stats.status);
    // each launch of 10 updates at least doubles the error (both rows of a block get updated after the
    // other changed), so the factor 1e10 is passed within ~35 launches whatever the interleaving
    EXPECT_LT(r.stats.updates_done, 1000) << v.name << ": must stop early";
    EXPECT_NE(r.stats.message.find("grew"), std::string::npos) << r.stats.message;
    EXPECT_TRUE(std::isfinite(r.stats.final_residual));  // stopped before overflow
    // bcsstk01: synchronous Jacobi diverges (rho(M) > 1); asynchronous orders close to Gauss–Seidel (one
    // thread) converge on this SPD matrix — either way the outcome is reported, never a silent NaN
    p.updates = 2000;
    p.check_interval = 50;
    auto rk = run(K, bk, p, l);
    if (v.mode == JacobiMode::Sync) EXPECT_EQ(rk.stats.status, JacobiStatus::Diverged) << rk.stats.message;
    if (rk.stats.status == JacobiStatus::Converged) EXPECT_LE(rk.stats.final_residual, 1e-6);
    if (rk.stats.failed()) EXPECT_FALSE(rk.stats.message.empty());
    for (double xi : rk.x) EXPECT_TRUE(std::isfinite(xi) || rk.stats.failed());
  }
  // fixed number of updates without checks: reported at the end, also when the values overflowed
  // (synchronous: deterministic growth 2^k)
  auto p = params(JacobiMode::Sync, 100);
  auto r = run(B, bb, p);
  EXPECT_EQ(r.stats.status, JacobiStatus::Diverged) << r.stats.message;
  p.updates = 3000;  // 2^3000 overflows
  r = run(B, bb, p);
  EXPECT_EQ(r.stats.status, JacobiStatus::NonFinite) << r.stats.message;
  EXPECT_NE(r.stats.message.find("non-finite"), std::string::npos) << r.stats.message;
  // asynchronous runs on this tiny problem may interleave little (a worker can finish a whole launch
  // before another starts), so only the reporting is checked: non-finite values are never silent
  for (auto mode : {JacobiMode::Static, JacobiMode::Dynamic}) {
    auto q = params(mode, 3000);
    auto ra = run(B, bb, q);
    bool finite = true;
    for (double xi : ra.x) finite = finite && std::isfinite(xi);
    if (!finite) EXPECT_EQ(ra.stats.status, JacobiStatus::NonFinite) << ra.stats.message;
    EXPECT_NE(ra.stats.status, JacobiStatus::Converged);
  }
  // ... and thrown when asked to
  p.updates = 200;
  p.throw_on_divergence = true;
  ASYNCSPARSE_EXPECT_THROW_MSG(run(B, bb, p), DivergenceError, "async_jacobi_solve: diverged at iteration 200");
  p.mode = JacobiMode::Dynamic;
  p.tol = 1e-6;  // with checks the asynchronous run stops at the first check past the growth limit
  ASYNCSPARSE_EXPECT_THROW_MSG(run(B, bb, p), DivergenceError, "async_jacobi_solve: diverged at iteration ");
}

// ------------------------------------------------------------------------------------------------
// Value ages and time stamps
// ------------------------------------------------------------------------------------------------

TEST(TEST_CATEGORY, async_jacobi_value_ages) {
  const int m = 12, updates = 20;
  const auto A = scaled(lap2d(m));
  const auto bh = uniform(A.nrows, 1);
  for (auto mode : {JacobiMode::Static, JacobiMode::Dynamic}) {
    auto p = params(mode, updates);
    p.trace.value_age = true;
    Handle h;
    run(A, bh, p, LaunchConfig(), &h);
    ASSERT_TRUE(h.trace.recorded());
    EXPECT_EQ(h.trace.midway(), updates / 2);
    const auto count = host_copy(h.trace.count());
    for (int c : count) EXPECT_EQ(c, updates);
    const auto mid = host_copy(h.trace.age_mid()), fin = host_copy(h.trace.age_final());
    std::vector<int> pos(A.nrows);  // position of each row in a one-thread sweep
    int next = 0;
    Impl::interleaved_rows(0, A.nrows, [&](std::int64_t r) { pos[r] = next++; });
    for (int i = 0; i < A.nrows; ++i)
      for (int q = A.row_ptr[i]; q < A.row_ptr[i + 1]; ++q) {
        const int j = A.col_idx[q];
        ASSERT_GE(mid[q], 0);
        ASSERT_LE(mid[q], updates);
        ASSERT_GE(fin[q], 0);
        ASSERT_LE(fin[q], updates);
        if (j == i && (mode == JacobiMode::Static || single_thread())) {
          EXPECT_EQ(mid[q], updates / 2);  // a row's own count before its midway update
          EXPECT_EQ(fin[q], updates - 1);
        } else if (single_thread()) {
          // one thread: both modes sweep all rows in one fixed order, once per update (static: one block of rows
          // per thread, dynamic with oscb 1: one block of at least 256 rows; a block in the host mappings'
          // interleaved order), so rows earlier in that order are one update ahead
          EXPECT_EQ(mid[q], pos[j] < pos[i] ? updates / 2 + 1 : updates / 2) << "row " << i << " col " << j;
        }
      }
    const auto S = summarize_value_ages(A, mid, updates / 2, "midway", ConnectionClass::Offset, {m, m});
    EXPECT_EQ(S.missing, 0);
    EXPECT_EQ(S.all.count, static_cast<std::int64_t>(4 * m * m - 4 * m));
    ASSERT_EQ(S.by_type.size(), 4u);
    for (const auto& t : S.by_type) {
      EXPECT_TRUE(t.label == "E" || t.label == "W" || t.label == "N" || t.label == "S") << t.label;
      EXPECT_EQ(t.count, m * m - m);
    }
    const auto D = summarize_value_ages(A, fin, updates - 1, "final", ConnectionClass::Degree);
    std::map<std::string, std::int64_t> counts;
    for (const auto& t : D.by_type) counts[t.label] = t.count;
    // corners read 2 side points each; side points read 1 corner (near corners) ...
    EXPECT_EQ(counts["2_3"], 8);
    EXPECT_EQ(counts["3_2"], 8);
    EXPECT_EQ(counts["3_3"], 8 * (m - 3));  // each side: a path of m-2 points, 2 (m-3) directed pairs
    EXPECT_EQ(counts["4_3"], 4 * (m - 2));
    EXPECT_EQ(counts["3_4"], 4 * (m - 2));
    EXPECT_EQ(D.all.max, updates);  // no neighbour can have more than `updates` updates
    EXPECT_EQ(counts["4_4"], 4 * (m - 2) * (m - 2) - 4 * (m - 2));
    if (single_thread()) EXPECT_GE(D.all.min, updates - 1);
  }
}

TEST(TEST_CATEGORY, async_jacobi_time_stamps_give_the_update_schedule) {
  const auto A = scaled(lap2d(10));
  const auto bh = uniform(A.nrows, 1);
  auto p = params(JacobiMode::Dynamic, 8);
  p.assignment = DynamicAssignment::Strided;
  p.trace.timestamps = true;
  p.trace.max_timestamps = 8 * 40;  // only rows 0..39
  LaunchConfig l;
  l.chunk_size = 10;  // 10 row blocks
  Handle h;
  run(A, bh, p, l, &h);
  ASSERT_EQ(h.trace.stamp_rows(), 40);
  const auto st = to_std_vector(h.trace.stamps());
  const auto wk = to_std_vector(h.trace.stamp_workers());
  ASSERT_EQ(st.size(), 320u);
  const long T = h.stats.launch.team_size, C = h.stats.launch.chunk_size, L = h.stats.workers / T, nb = 10;
  ASSERT_EQ(C, 10);
  for (int i = 0; i < 40; ++i)
    for (int k = 0; k < 8; ++k) {
      EXPECT_GT(st[i * 8 + k], 0u);
      // when nb is a multiple of L a row always has the same worker, and its updates are in order
      if (k > 0 && nb % L == 0) EXPECT_GE(st[i * 8 + k], st[i * 8 + k - 1]) << "row " << i;
      // strided assignment: block position g = k nb + i / C belongs to team g mod L, lane (i mod C) mod T
      const long g = k * nb + i / C;
      EXPECT_EQ(wk[i * 8 + k], (g % L) * T + (i % C) % T) << "row " << i << " update " << k;
    }
}

// ------------------------------------------------------------------------------------------------
// Preconditioner
// ------------------------------------------------------------------------------------------------

TEST(TEST_CATEGORY, async_jacobi_preconditioner) {
  const auto Ah = lap2d(16);
  auto A = to_device<Dev>(Ah);
  V b("b", Ah.nrows);
  Kokkos::deep_copy(b, 1.0);
  SolverParams sp;
  sp.tol = 1e-7;
  sp.max_iterations = 2000;
  sp.restart = 30;
  V x0("x0", Ah.nrows);
  const auto plain = gmres<double, Dev>(A, b, x0, nullptr, sp);
  for (const char* mode : {"sync", "static", "dynamic"}) {
    auto M = make_preconditioner<double, Dev>("async_jacobi", A, {{"mode", std::string(mode)}, {"updates", 3}});
    M->compute();
    V x("x", Ah.nrows);
    const auto r = gmres<double, Dev>(A, b, x, M.get(), sp);
    EXPECT_TRUE(r.converged()) << mode << ": " << r.message;
    // the synchronous polynomial preconditioner always helps here; the asynchronous ones are a different
    // operator at each apply (the interleaving changes), so their iteration counts are not compared
    if (std::string(mode) == "sync") EXPECT_LT(r.iterations, plain.iterations) << mode;
    EXPECT_NE(M->description().find(mode), std::string::npos);
  }
  // sync mode, 2 updates: M^-1 = (2I - D^-1 A) D^-1, symmetric, and positive definite for the Laplacian
  auto M = make_preconditioner<double, Dev>("async_jacobi", A, {{"mode", std::string("sync")}, {"updates", 2}});
  M->compute();
  V x("x", Ah.nrows);
  const auto rc = cg<double, Dev>(A, b, x, M.get(), sp);
  EXPECT_TRUE(rc.converged());
  // apply from z0 = 0 with one sync update is exactly omega D^-1 r
  auto M1 = make_preconditioner<double, Dev>("async_jacobi", A,
                                             {{"mode", std::string("sync")}, {"updates", 1}, {"omega", 0.5}});
  M1->compute();
  V z("z", Ah.nrows);
  M1->apply(b, z);
  for (double v : to_std_vector(z)) EXPECT_EQ(v, 0.5 * 1.0 / 4.0);
  // max_updates_per_launch: an apply's updates in launches of at most that many, named in the description
  auto ML = make_preconditioner<double, Dev>(
      "async_jacobi", A, {{"mode", std::string("static")}, {"updates", 5}, {"max_updates_per_launch", 2}});
  ML->compute();
  ML->apply(b, z);
  const auto* aj = dynamic_cast<const AsyncJacobiPreconditioner<double, Dev>*>(ML.get());
  ASSERT_NE(aj, nullptr);
  EXPECT_EQ(aj->handle().stats.updates_done, 5);
  EXPECT_EQ(aj->handle().stats.kernel_launches, 3);  // 2 + 2 + 1
  EXPECT_EQ(aj->handle().stats.max_updates_per_launch, 2);
  EXPECT_NE(ML->description().find("max_updates_per_launch=2"), std::string::npos) << ML->description();
  ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>("async_jacobi", A, {{"max_updates_per_launch", -1}})),
                               InvalidInput, "AsyncJacobi: max_updates_per_launch must be >= 0 (0: automatic), got -1");

  ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>("async_jacobi", A, {{"sweeps", 2}})), InvalidInput,
                               "AsyncJacobi: unknown parameter 'sweeps'");
  ASYNCSPARSE_EXPECT_THROW_MSG(
      (make_preconditioner<double, Dev>("async_jacobi", A, {{"mode", std::string("chaotic")}})), InvalidInput,
      "parameter 'mode' = 'chaotic' is not one of: sync static dynamic auto");
  ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>("async_jacobi", A, {{"updates", 0}})), InvalidInput,
                               "AsyncJacobi: updates must be >= 1, got 0");
  ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>("async_jacobi", A, {{"oversubscription", 17}})),
                               InvalidInput, "AsyncJacobi: launch.oversubscription must be in 1..16, got 17");
  // the launch vocabulary shared by every preconditioner: the old names are unknown
  ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>("async_jacobi", A, {{"oscb", 2}})), InvalidInput,
                               "AsyncJacobi: unknown parameter 'oscb'");
  ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>("async_jacobi", A, {{"subwarp", 2}})), InvalidInput,
                               "AsyncJacobi: unknown parameter 'subwarp'");
  // a diverging apply is an exception, not NaN
  auto Bh = two_by_two_blocks(4);
  auto B = to_device<Dev>(Bh);
  auto MB = make_preconditioner<double, Dev>("async_jacobi", B, {{"mode", std::string("sync")}, {"updates", 1100}});
  MB->compute();
  V bb("bb", 8), zb("zb", 8);
  Kokkos::deep_copy(bb, 1.0);
  ASYNCSPARSE_EXPECT_THROW_MSG(MB->apply(bb, zb), DivergenceError, "non-finite");
  // missing diagonal reported by compute()
  auto Zh = csr(2, 2, {{0, 1, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}});
  auto MZ = make_preconditioner<double, Dev>("async_jacobi", to_device<Dev>(Zh));
  ASYNCSPARSE_EXPECT_THROW_MSG(MZ->compute(), InvalidInput, "missing diagonal entry in row 0");
}

TEST(TEST_CATEGORY, preconditioners_share_the_launch_parameters) {
  // every preconditioner that launches kernels declares the launch parameters under the same names, with the same
  // types and defaults, and hands them to its handle
  ParameterSpec launch;
  add_launch_parameters(launch);
  const auto A = to_device<Dev>(lap2d(6));
  for (const char* method : {"par_ilu", "par_ic", "par_ilut", "par_ict", "async_jacobi", "block_async"}) {
    const auto M = make_preconditioner<double, Dev>(method, A);
    const auto& entries = M->parameter_spec().entries();
    for (const auto& e : launch.entries()) {
      auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& x) { return x.name == e.name; });
      ASSERT_NE(it, entries.end()) << method << " lacks launch parameter " << e.name;
      EXPECT_EQ(it->default_value, e.default_value) << method << " " << e.name;
    }
    // a bad value is rejected by the method (where it resolves the launch: set-up or apply)
    auto set_up_and_apply = [&](const ParameterList& l) {
      auto B = make_preconditioner<double, Dev>(method, A, l);
      B->compute();
      V r("r", A.numRows()), z("z", A.numRows());
      Kokkos::deep_copy(r, 1.0);
      B->apply(r, z);
    };
    ASYNCSPARSE_EXPECT_THROW_MSG(set_up_and_apply({{"team_size", 0}}), InvalidInput,
                                 "team_size must be -1 (auto) or >= 1, got 0");
    EXPECT_NO_THROW(set_up_and_apply({{"block_order", std::string("backward")}, {"launch_seed", 3}})) << method;
    ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>(method, A, {{"launch_seed", -1}})), InvalidInput,
                                 "parameter 'launch_seed' must be >= 0, got -1");
  }
  const ParameterList l{{"team_size", 1},
                        {"vector_length", 2},
                        {"chunk_size", 7},
                        {"max_concurrent_teams", 3},
                        {"occupancy_mode", std::string("scratch-pad")},
                        {"scratch_pad_bytes", 64},
                        {"block_order", std::string("random")},
                        {"launch_seed", 11},
                        {"oversubscription", 2},
                        {"schedule", std::string("static")},
                        {"unit_stride", 2}};
  const LaunchConfig c = launch_config_from_parameters(l, "test");
  EXPECT_EQ(c.team_size, 1);
  EXPECT_EQ(c.vector_length, 2);
  EXPECT_EQ(c.chunk_size, 7);
  EXPECT_EQ(c.max_concurrent_teams, 3);
  EXPECT_EQ(c.occupancy_mode, OccupancyMode::ScratchPad);
  EXPECT_EQ(c.scratch_pad_bytes, 64);
  EXPECT_EQ(c.block_order, BlockOrder::Random);
  EXPECT_EQ(c.seed, 11u);
  EXPECT_EQ(c.oversubscription, 2);
  EXPECT_EQ(c.schedule, ChunkSchedule::Static);
  EXPECT_EQ(c.unit_stride, 2);
  ASYNCSPARSE_EXPECT_THROW_MSG(launch_config_from_parameters({{"schedule", std::string("guided")}}, "test"),
                               InvalidInput, "chunk schedule 'guided' unknown");
  AsyncJacobiPreconditioner<double, Dev> J(A);
  J.setParameters({{"vector_length", 2}, {"oversubscription", 3}, {"block_order", std::string("backward")}});
  EXPECT_EQ(J.handle().launch.vector_length, 2);
  EXPECT_EQ(J.handle().launch.oversubscription, 3);
  EXPECT_EQ(J.handle().launch.block_order, BlockOrder::Backward);
  // absent launch parameters keep the LaunchConfig given to the block_async constructor
  LaunchConfig base;
  base.block_order = BlockOrder::Backward;
  base.team_size = 1;
  BlockAsyncPreconditioner<double, Dev> P(A, base);
  P.setParameters({{"chunk_size", 9}});
  EXPECT_EQ(P.handle().launch_config().block_order, BlockOrder::Backward);
  EXPECT_EQ(P.handle().launch_config().chunk_size, 9);
  EXPECT_EQ(P.handle().launch_config().team_size, 1);
}

// ------------------------------------------------------------------------------------------------
// Bad input
// ------------------------------------------------------------------------------------------------

TEST(TEST_CATEGORY, async_jacobi_rejects_bad_input) {
  const auto L = lap2d(4);
  const auto bl = uniform(L.nrows, 1);
  auto expect_param_error = [&](AsyncJacobiParams p, LaunchConfig l, const char* msg) {
    ASYNCSPARSE_EXPECT_THROW_MSG(run(L, bl, p, l), InvalidInput, msg);
  };
  LaunchConfig l0;
  for (auto mode : {JacobiMode::Sync, JacobiMode::Static, JacobiMode::Dynamic}) {
    const std::string fn = "async_jacobi_solve: ";
    auto p = params(mode, 5);
    p.omega = 0;
    expect_param_error(p, l0, (fn + "omega must be finite and > 0, got 0").c_str());
    p = params(mode, -1);
    expect_param_error(p, l0, (fn + "updates must be >= 0, got -1").c_str());
    p = params(mode, 5);
    p.tol = -1;
    expect_param_error(p, l0, (fn + "tol must be finite and >= 0, got -1").c_str());
    p = params(mode, 5);
    p.tol = std::numeric_limits<double>::quiet_NaN();
    expect_param_error(p, l0, (fn + "tol must be finite and >= 0, got nan").c_str());
    p = params(mode, 5);
    p.check_interval = -1;
    expect_param_error(p, l0, (fn + "check_interval must be >= 0 (0: automatic), got -1").c_str());
    p = params(mode, 5);
    p.divergence_factor = 1;
    expect_param_error(p, l0, (fn + "divergence_factor must be > 1, got 1").c_str());
    p = params(mode, 5);
    p.residual_norms = false;
    p.tol = 1e-3;
    expect_param_error(p, l0, (fn + "residual_norms = false needs tol == 0").c_str());

    auto expect_matrix_error = [&](const CsrHost<double>& A, const std::string& msg) {
      ASYNCSPARSE_EXPECT_THROW_MSG(run(A, std::vector<double>(A.nrows, 1.0), params(mode, 3)), InvalidInput, msg);
    };
    expect_matrix_error(csr(2, 3, {{0, 0, 1.0}, {1, 1, 1.0}}),
                        "async_jacobi_symbolic: matrix must be square, got 2 x 3");
    expect_matrix_error(CsrHost<double>(0, 0), "async_jacobi_symbolic: matrix is empty (0 rows)");
    expect_matrix_error(csr(3, 3, {{0, 0, 1.0}, {1, 0, 1.0}, {2, 2, 1.0}}),
                        "async_jacobi_numeric: missing diagonal entry in row 1");
    expect_matrix_error(csr(3, 3, {{0, 0, 1.0}, {1, 1, 1.0}, {2, 2, 0.0}}),
                        "async_jacobi_numeric: zero diagonal entry in row 2");
    expect_matrix_error(
        csr(3, 3, {{0, 0, 1.0}, {1, 1, 1.0}, {1, 2, std::numeric_limits<double>::infinity()}, {2, 2, 1.0}}),
        "async_jacobi_numeric: non-finite matrix entry in row 1");

    auto A = to_device<Dev>(L);
    Handle h(params(mode, 3));
    V b("b", L.nrows), x("x", L.nrows), shortv("s", 3);
    // the phases in order
    ASYNCSPARSE_EXPECT_THROW_MSG(async_jacobi_numeric(Exec(), h, A), InvalidInput,
                                 "async_jacobi_numeric: async_jacobi_symbolic must be called first");
    async_jacobi_symbolic(Exec(), h, A);
    ASYNCSPARSE_EXPECT_THROW_MSG(async_jacobi_solve(Exec(), h, b, x), InvalidInput,
                                 "async_jacobi_solve: async_jacobi_numeric must be called first");
    ASYNCSPARSE_EXPECT_THROW_MSG(async_jacobi_apply(Exec(), h, b, x), InvalidInput,
                                 "async_jacobi_apply: async_jacobi_numeric must be called first");
    ASYNCSPARSE_EXPECT_THROW_MSG(async_jacobi_numeric(Exec(), h, to_device<Dev>(lap2d(3))), InvalidInput,
                                 "async_jacobi_numeric: the matrix does not have the pattern given to "
                                 "async_jacobi_symbolic");
    async_jacobi_numeric(Exec(), h, A);
    ASYNCSPARSE_EXPECT_THROW_MSG(async_jacobi_solve(Exec(), h, shortv, x), InvalidInput,
                                 fn + "b has length 3, the matrix 16 rows");
    ASYNCSPARSE_EXPECT_THROW_MSG(async_jacobi_solve(Exec(), h, b, shortv), InvalidInput,
                                 fn + "x has length 3, the matrix 16 rows");
    Kokkos::deep_copy(Kokkos::subview(b, 5), std::numeric_limits<double>::quiet_NaN());
    ASYNCSPARSE_EXPECT_THROW_MSG(async_jacobi_solve(Exec(), h, b, x), InvalidInput, fn + "b contains NaN or Inf");
    Kokkos::deep_copy(b, 1.0);
    Kokkos::deep_copy(Kokkos::subview(x, 7), std::numeric_limits<double>::infinity());
    ASYNCSPARSE_EXPECT_THROW_MSG(async_jacobi_solve(Exec(), h, b, x), InvalidInput,
                                 fn + "initial guess x has a non-finite entry in row 7");
    ASYNCSPARSE_EXPECT_THROW_MSG(async_jacobi_apply(Exec(), h, b, x), InvalidInput,
                                 "async_jacobi_apply: initial guess x has a non-finite entry in row 7");
  }
  for (auto mode : {JacobiMode::Static, JacobiMode::Dynamic}) {
    LaunchConfig l;
    l.vector_length = 33;
    expect_param_error(params(mode, 5), l,
                       "async_jacobi_solve: launch.vector_length (lanes per row) must be -1 (auto) or 1..32, got 33");
    l = LaunchConfig();
    l.oversubscription = 17;
    expect_param_error(params(mode, 5), l, "async_jacobi_solve: launch.oversubscription must be in 1..16, got 17");
    l.oversubscription = 0;
    expect_param_error(params(mode, 5), l, "async_jacobi_solve: launch.oversubscription must be in 1..16, got 0");
    auto p = params(mode, 10);
    p.trace.value_age = true;
    p.trace.midway = 10;
    expect_param_error(p, l0, "async_jacobi_solve: trace midway update 10 must be < updates (10)");
    p.trace.midway = -1;
    p.trace.max_timestamps = -5;
    p.trace.timestamps = true;
    expect_param_error(p, l0, "async_jacobi_solve: trace max_timestamps must be >= 0, got -5");
  }
  ASYNCSPARSE_EXPECT_THROW_MSG(jacobi_mode_from_string("chaotic"), InvalidInput,
                               "Jacobi mode 'chaotic' unknown (valid: sync, static, dynamic, auto)");
  ASYNCSPARSE_EXPECT_THROW_MSG(dynamic_assignment_from_string("random"), InvalidInput,
                               "dynamic assignment 'random' unknown (valid: auto, strided, atomic-counter)");
  ASYNCSPARSE_EXPECT_THROW_MSG(summarize_value_ages(L, std::vector<int>(3, 0), 0, "midway", ConnectionClass::Degree),
                               InvalidInput, "summarize_value_ages: ages has 3 entries, the matrix 64");
}

TEST(TEST_CATEGORY, async_jacobi_zero_updates_and_exact_initial_guess) {
  const auto A = scaled(lap2d(6));
  const auto bh = uniform(A.nrows, 1);
  for (auto mode : {JacobiMode::Sync, JacobiMode::Static, JacobiMode::Dynamic}) {
    auto r = run(A, bh, params(mode, 0));
    EXPECT_EQ(r.stats.updates_done, 0);
    EXPECT_EQ(r.stats.status, JacobiStatus::UpdatesDone);
    EXPECT_DOUBLE_EQ(r.stats.final_residual, 1.0);
    for (double v : r.x) EXPECT_EQ(v, 0.0);
    // b = 0, x0 = 0 is already converged
    auto p = params(mode, 10);
    p.tol = 1e-8;
    auto z = run(A, std::vector<double>(A.nrows, 0.0), p);
    EXPECT_EQ(z.stats.status, JacobiStatus::Converged);
    EXPECT_EQ(z.stats.updates_done, 0);
  }
}

}  // namespace test_async_jacobi
