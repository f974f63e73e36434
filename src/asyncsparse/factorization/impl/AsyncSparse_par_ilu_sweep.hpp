// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — one sweep of the iterative (Chow–Patel) ILU / IC factorization: the choice of its kernel (the entry
// kernel ParIluSweepFunctor or the row kernel ParIluRowSweepFunctor, AsyncSparse_par_ilu_kernels.hpp), their launch
// defaults, the product lists of the row kernel, and the sweep itself with its breakdown handling. Used by
// AsyncSparse_par_ilu.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/exec/AsyncSparse_chunked_launch.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_handle.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_kernels.hpp>

namespace AsyncSparse {
namespace Impl {

template <class Handle>
std::string par_ilu_name(const Handle& h) {
  return h.state().kind == ParIluKind::Ic ? "par_ic" : "par_ilu";
}

/// GPU default team size of the entry kernel's sweeps (LaunchConfig::team_size = -1): 16 threads per team, one task
/// each.
/// Fewer tasks in flight make the asynchronous sweeps more Gauss-Seidel-like (Chow, Anzt & Dongarra 2015,
/// sect. 4.6): with at most 32 resident teams per multiprocessor (NVIDIA), 16-thread teams keep 512 tasks per
/// SM in flight instead of 2048, and a few sweeps give factors whose PCG iteration count is that of the exact
/// IC(0) more often. The sweeps take longer (small next to any solve with the factors), more so for longer rows:
/// set team_size to 256 for the highest sweep throughput.
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#par-ilu-team-size
constexpr int kParIluGpuTeamSize = 16;

/// ParIlu's launch defaults of the sweeps: GPU teams of kParIluGpuTeamSize threads.
inline LaunchDefaults par_ilu_launch_defaults(const std::string& where) {
  LaunchDefaults d;
  d.gpu_team_threads = kParIluGpuTeamSize;
  d.method = where;
  return d;
}

/// GPU default threads per team of the row sweep kernel (SweepKernel::Row): LaunchConfig::team_size = -1 gives
/// max(1, kParIluRowGpuTeamThreads / vector_length) rows per team (64-256 threads per team measured within 5 %).
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#par-ilu-row-kernel
constexpr int kParIluRowGpuTeamThreads = 128;

/// Smallest power of two >= x (x <= 32), at least 1.
inline int pow2_at_least(double x) {
  int p = 1;
  while (p < 32 && p < x) p *= 2;
  return p;
}

/// Lanes per row of the row kernel on GPUs (LaunchConfig::vector_length = -1): the smallest power of two that gives
/// rows x lanes >= 3x the device's resident threads (`concurrency`), at most the power of two >= the average length
/// of the rows (`avg_row`). A row's unknowns are a chain (each waits for the sum before it), so the kernel needs
/// many rows in flight; the lanes only shorten each link (the sum over an unknown's products). Measured on an H100
/// (1..32 lanes x 64 and 256 threads per team): 1 lane on the 5-point 1024^2 Laplacian, 4 on the 27-point 64^3
/// one, 32 on bcsstk16 — the fastest of the six tried on each, for IC and ILU.
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#par-ilu-row-kernel
inline int row_sweep_lanes(std::int64_t rows, double avg_row, std::int64_t concurrency) {
  const int cap = pow2_at_least(avg_row);
  int lanes = 1;
  while (lanes < cap && rows * lanes < 3 * concurrency) lanes *= 2;
  return lanes;
}

inline LaunchDefaults par_ilu_row_launch_defaults(const std::string& where, int lanes) {
  LaunchDefaults d;
  d.gpu_team_threads = kParIluRowGpuTeamThreads;
  d.vector_length = lanes;
  d.method = where + " (row sweep kernel)";
  return d;
}

struct SweepKernelChoice {
  SweepKernel kernel = SweepKernel::Entry;
  double avg_row = 1.0;  ///< average length of the rows the row kernel's lanes run over
  int lanes = 1;         ///< the row kernel's default lanes per row (row_sweep_lanes; host backends: 1)
  std::string rule;      ///< the rule's quantities, for the run record
};

/// Params::sweep_kernel resolved. Auto takes Row for asynchronous sweeps on GPUs with row-major tasks and the default
/// launch (every LaunchConfig field but the seed at -1 / Forward: explicit team sizes, chunks, occupancy limits and
/// block orders keep the meaning they have for the entry kernel's tasks) when the rows at their full lane count fill
/// the device (rows x min(32, power of two >= avg_row) >= its resident threads), and Entry otherwise: on
/// host backends (the form their chunked launch was tuned for), for the deterministic mode (the entry kernel's sums
/// are bit-identical to the host reference on every backend), and on small matrices, where the chain of a row's
/// unknowns makes a row-kernel sweep latency-bound (measured: perf_tests/results/MEASUREMENTS.md#par-ilu-row-kernel).
/// The row kernel converges in fewer sweeps (Gauss-Seidel order inside a row) and is the faster sweep on the large
/// grids. It ignores the order of the task list. In the deterministic mode its default is one lane per row, so that
/// an explicit Row gives the host reference's bits there too.
template <class ExecSpace, class Handle>
SweepKernelChoice choose_sweep_kernel(const ExecSpace& exec, const Handle& h) {
  const auto& st = h.state();
  SweepKernelChoice c;
  const bool ilu = st.kind == ParIluKind::Ilu;
  const std::int64_t rows = std::max<std::int64_t>(st.n, 1);
  c.avg_row = ilu ? double(st.L.nnz() + st.Ut.nnz()) / (2.0 * double(rows)) : double(st.L.nnz()) / double(rows);
  const bool gpu = is_gpu_space<ExecSpace>();
  const bool async = h.params.mode == SweepMode::Async;
  const std::int64_t concurrency = static_cast<std::int64_t>(exec.concurrency());
  c.lanes = gpu && async ? row_sweep_lanes(rows, c.avg_row, concurrency) : 1;
  if (h.params.sweep_kernel != SweepKernel::Auto) {
    c.kernel = h.params.sweep_kernel;
    c.rule = "explicit";
    return c;
  }
  const bool row_major = h.params.ordering == TaskOrdering::RowMajor;
  const LaunchConfig& l = h.launch;
  const bool default_launch = l.team_size == -1 && l.vector_length == -1 && l.chunk_size == -1 &&
                              l.max_concurrent_teams == -1 && l.scratch_pad_bytes == -1 &&
                              l.block_order == BlockOrder::Forward;
  const std::int64_t full = rows * pow2_at_least(c.avg_row);
  c.kernel = gpu && async && row_major && default_launch && full >= concurrency ? SweepKernel::Row : SweepKernel::Entry;
  char buf[240];
  std::snprintf(buf, sizeof buf,
                "auto: %s, %s, %s tasks, %s launch, %lld rows x %d lanes vs %lld resident threads (%.1f entries per "
                "row; row kernel from 1x)",
                gpu ? "GPU" : "host", to_string(h.params.mode), row_major ? "row-major" : "reordered",
                default_launch ? "default" : "explicit", static_cast<long long>(rows), pow2_at_least(c.avg_row),
                static_cast<long long>(concurrency), c.avg_row);
  c.rule = buf;
  return c;
}

/// Auto keeps the entry kernel when the product lists would hold more than this many products per unknown on
/// average (memory: two positions per product; the shared matrices and generators need 0.7-11).
constexpr double kParIluMaxProductsPerUnknown = 32.0;

/// The product lists of the row kernel (SweepPairsFunctor), once per pattern: a count pass, a scan, a fill pass.
/// Returns false (and builds nothing) when the products would not fit offset_t or, with `bounded`, exceed
/// kParIluMaxProductsPerUnknown per unknown; `products` is their number.
template <class ExecSpace, class Scalar, class Device>
bool build_sweep_pairs(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h, bool bounded, std::int64_t& products) {
  auto& st = h.state();
  if (st.pair_ptr.extent(0) > 0) {
    products = static_cast<std::int64_t>(st.pair_x.extent(0));
    return true;
  }
  const bool ilu = st.kind == ParIluKind::Ilu;
  const offset_t nnz_l = st.L.nnz();
  const std::int64_t unknowns = static_cast<std::int64_t>(nnz_l) + (ilu ? static_cast<std::int64_t>(st.Ut.nnz()) : 0);
  Kokkos::View<offset_t*, Device> ptr("AsyncSparse::par_ilu::pair_ptr", static_cast<std::size_t>(unknowns + 1));
  auto pass = [&](auto kind_tag, auto fill_tag, const Kokkos::View<offset_t*, Device>& px,
                  const Kokkos::View<offset_t*, Device>& py) {
    SweepPairsFunctor<decltype(kind_tag)::value, decltype(fill_tag)::value, Device> f;
    f.task_row = st.task_row;
    f.task_col = st.task_col;
    f.task_dst = st.task_dst;
    f.l_rm = st.L.graph.row_map;
    f.l_ent = st.L.graph.entries;
    f.u_rm = st.Ut.graph.row_map;
    f.u_ent = st.Ut.graph.entries;
    f.nnz_l = nnz_l;
    f.ptr = ptr;
    f.px = px;
    f.py = py;
    Kokkos::parallel_for("AsyncSparse::par_ilu::sweep_pairs",
                         Kokkos::RangePolicy<ExecSpace>(exec, 0, static_cast<std::int64_t>(st.task_row.extent(0))), f);
  };
  using IluTag = ParIluKindTag<ParIluKind::Ilu>;
  using IcTag = ParIluKindTag<ParIluKind::Ic>;
  if (ilu)
    pass(IluTag(), std::false_type(), ptr, ptr);
  else
    pass(IcTag(), std::false_type(), ptr, ptr);
  products = 0;  // counted in 64 bits: there are several times as many products as entries
  Kokkos::parallel_reduce(
      "AsyncSparse::par_ilu::sweep_pairs_total", Kokkos::RangePolicy<ExecSpace>(exec, 1, unknowns + 1),
      KOKKOS_LAMBDA(const std::int64_t u, std::int64_t& sum) { sum += static_cast<std::int64_t>(ptr(u)); }, products);
  if (products > static_cast<std::int64_t>(std::numeric_limits<offset_t>::max()) ||
      (bounded && double(products) > kParIluMaxProductsPerUnknown * double(std::max<std::int64_t>(unknowns, 1))))
    return false;
  Kokkos::parallel_scan(
      "AsyncSparse::par_ilu::sweep_pairs_scan", Kokkos::RangePolicy<ExecSpace>(exec, 1, unknowns + 1),
      KOKKOS_LAMBDA(const std::int64_t u, offset_t& sum, const bool final) {
        sum += ptr(u);
        if (final) ptr(u) = sum;
      });
  Kokkos::View<offset_t*, Device> px(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilu::pair_x"),
                                     static_cast<std::size_t>(products));
  Kokkos::View<offset_t*, Device> py(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilu::pair_y"),
                                     static_cast<std::size_t>(products));
  if (ilu)
    pass(IluTag(), std::true_type(), px, py);
  else
    pass(IcTag(), std::true_type(), px, py);
  exec.fence();
  st.pair_ptr = ptr;
  st.pair_x = px;
  st.pair_y = py;
  return true;
}

/// The row kernel's a_ij per L entry and per Ut entry, from the task values (IC with the identity task list: the
/// task values themselves).
template <class ExecSpace, class Scalar, class Device>
void row_sweep_values(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h) {
  auto& st = h.state();
  const bool ilu = st.kind == ParIluKind::Ilu;
  if (!ilu && st.identity_tasks) {
    st.a_l = st.task_a;
    return;
  }
  if (st.a_l.extent(0) != st.L.values.extent(0))
    st.a_l = decltype(st.a_l)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilu::a_l"),
                              st.L.values.extent(0));
  if (ilu && st.a_u.extent(0) != st.Ut.values.extent(0))
    st.a_u = decltype(st.a_u)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilu::a_u"),
                              st.Ut.values.extent(0));
  auto row = st.task_row;
  auto col = st.task_col;
  auto dst = st.task_dst;
  auto a = st.task_a;
  auto al = st.a_l;
  auto au = st.a_u;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilu::row_values", Kokkos::RangePolicy<ExecSpace>(exec, 0, a.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t t) {
        if (!ilu || row(t) > col(t))
          al(dst(t)) = a(t);
        else
          au(dst(t)) = a(t);
      });
}

/// One sweep; throws BreakdownError (the factors keep the last finite values).
template <class ExecSpace, class Scalar, class Device>
void one_sweep(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h) {
  auto& st = h.state();
  auto& stats = h.stats();
  const bool async = h.params.mode == SweepMode::Async;
  // st.breakdown holds kNoBreakdown here: set by par_ilu_numeric, reset below after a sweep that skipped an update
  // (one device-to-host transfer per sweep, none the other way unless a sweep reported something).
  Kokkos::Timer timer;
  const bool ilu = st.kind == ParIluKind::Ilu;
  Scalar* lr = st.L.values.data();
  Scalar* lw = async ? lr : st.L_alt.data();
  Scalar* ur = ilu ? st.Ut.values.data() : nullptr;
  Scalar* uw = ilu && !async ? st.Ut_alt.data() : ur;
  auto run = [&](auto kind_tag, auto async_tag, auto identity_tag) {
    constexpr ParIluKind kind = decltype(kind_tag)::value;
    constexpr bool is_async = decltype(async_tag)::value;
    ParIluSweepFunctor<kind, is_async, decltype(identity_tag)::value, Scalar, Device> f;
    f.task_row = st.task_row;
    f.task_col = st.task_col;
    f.task_dst = st.task_dst;
    f.task_a = st.task_a;
    f.l_rm = st.L.graph.row_map;
    f.l_ent = st.L.graph.entries;
    f.l_read = lr;
    f.l_write = lw;
    if constexpr (kind == ParIluKind::Ilu) {
      f.u_rm = st.Ut.graph.row_map;
      f.u_ent = st.Ut.graph.entries;
      f.u_read = ur;
      f.u_write = uw;
    }
    f.flag = st.breakdown;
    const char* label = kind == ParIluKind::Ilu
                            ? (is_async ? "AsyncSparse::par_ilu::sweep" : "AsyncSparse::par_ilu::sweep_deterministic")
                            : (is_async ? "AsyncSparse::par_ic::sweep" : "AsyncSparse::par_ic::sweep_deterministic");
    st.chunks.run(label, exec, f);
  };
  auto run_rows = [&](auto kind_tag, auto async_tag) {
    constexpr ParIluKind kind = decltype(kind_tag)::value;
    constexpr bool is_async = decltype(async_tag)::value;
    ParIluRowSweepFunctor<kind, is_async, Scalar, Device> f;
    f.l_rm = st.L.graph.row_map;
    f.l_ent = st.L.graph.entries;
    f.a_l = st.a_l;
    f.l_read = lr;
    f.l_write = lw;
    if constexpr (kind == ParIluKind::Ilu) {
      f.u_rm = st.Ut.graph.row_map;
      f.u_ent = st.Ut.graph.entries;
      f.a_u = st.a_u;
      f.u_read = ur;
      f.u_write = uw;
    }
    f.pair_ptr = st.pair_ptr;
    f.pair_x = st.pair_x;
    f.pair_y = st.pair_y;
    f.nnz_l = st.L.nnz();
    f.flag = st.breakdown;
    f.vector_length = st.chunks.resolved().vector_length;
    const char* label =
        kind == ParIluKind::Ilu
            ? (is_async ? "AsyncSparse::par_ilu::sweep_rows" : "AsyncSparse::par_ilu::sweep_rows_deterministic")
            : (is_async ? "AsyncSparse::par_ic::sweep_rows" : "AsyncSparse::par_ic::sweep_rows_deterministic");
    st.chunks.run(label, exec, f);
  };
  using IluTag = ParIluKindTag<ParIluKind::Ilu>;
  using IcTag = ParIluKindTag<ParIluKind::Ic>;
  if (st.row_sweeps) {
    if (ilu && async)
      run_rows(IluTag(), std::true_type());
    else if (ilu)
      run_rows(IluTag(), std::false_type());
    else if (async)
      run_rows(IcTag(), std::true_type());
    else
      run_rows(IcTag(), std::false_type());
  } else if (ilu && async)
    run(IluTag(), std::true_type(), std::false_type());
  else if (ilu)
    run(IluTag(), std::false_type(), std::false_type());
  else if (async && st.identity_tasks)
    run(IcTag(), std::true_type(), std::true_type());
  else if (async)
    run(IcTag(), std::true_type(), std::false_type());
  else if (st.identity_tasks)
    run(IcTag(), std::false_type(), std::true_type());
  else
    run(IcTag(), std::false_type(), std::false_type());
  exec.fence();
  const double dt = timer.seconds();
  unsigned long long flag = 0;
  Kokkos::deep_copy(flag, st.breakdown);
  stats.sweep_times.push_back(dt);
  stats.sweep_seconds += dt;
  if (flag == kNoBreakdown) {
    stats.consecutive_breakdowns = 0;
  } else {
    Kokkos::deep_copy(exec, st.breakdown, kNoBreakdown);
    exec.fence();
    // The offending update was not written; every entry keeps a finite value.
    ++stats.breakdown_sweeps;
    ++stats.consecutive_breakdowns;
    stats.breakdown_row = static_cast<std::int64_t>(flag / 4);
    stats.breakdown_problem = breakdown_text(unsigned(flag % 4));
    // A synchronous sweep is a deterministic function of the previous one: it would break down again. Drop the
    // new buffer (the previous sweep's factors stay) and stop. In the asynchronous mode a bad pivot can come
    // from stale values and disappear in the next sweep: stop only when it persists (Params::breakdown_patience).
    if (!async || (h.params.breakdown_patience > 0 && stats.consecutive_breakdowns >= h.params.breakdown_patience))
      throw BreakdownError(par_ilu_name(h), stats.breakdown_row, stats.breakdown_problem);
  }
  if (!async) {
    std::swap(st.L.values, st.L_alt);
    if (ilu) std::swap(st.Ut.values, st.Ut_alt);
  }
}

}  // namespace Impl
}  // namespace AsyncSparse
