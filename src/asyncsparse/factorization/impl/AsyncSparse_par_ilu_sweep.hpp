// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — one sweep of the iterative (Chow–Patel) ILU / IC factorization: the choice of its kernel (the entry
// and list kernels ParIluSweepFunctor, the row kernel ParIluRowSweepFunctor, AsyncSparse_par_ilu_kernels.hpp), their
// launch defaults, the product lists of the list and row kernels, and the sweep itself with its breakdown handling.
// Used by AsyncSparse_par_ilu.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/exec/AsyncSparse_chunked_launch.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu_handle.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_kernels.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_row_merge.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_row_team.hpp>

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

/// GPU default threads per team of the row sweep kernel (SweepKernel::Row): LaunchConfig::team_size = -1 gives
/// max(1, kParIluRowGpuTeamThreads / vector_length) rows per team (64-256 threads per team measured within 5 %). The
/// row-merge kernel (one lane per row) takes the same 128 rows per team; its team size was not studied separately.
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

/// GPU default threads per team of the list kernel (SweepKernel::List), one unknown per thread: LaunchConfig::
/// team_size = -1 gives max(1, kParIluListGpuTeamThreads / vector_length) unknowns per team, vector_length = -1 one
/// lane per unknown. Measured on an H100 (16 / 64 / 256 threads x 1..16 lanes): one lane was the fastest on every
/// matrix (an unknown has 0-11 products on average; the lanes' reduction costs more than it splits), 64 and 256
/// threads within 2 %, 16 threads up to 1.5x slower on the 27-point Laplacian.
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#par-ilu-list-kernel
constexpr int kParIluListGpuTeamThreads = 64;

/// Products per unknown (on average over the product lists) from which the list kernel's asynchronous sweep loads
/// four products at a time on GPUs (list_sub's Group = 4; 1 below it and on host backends). Measured on an H200
/// (list kernel, loads through L1, one sweep): the 27-point 64^3 Laplacian (3.1 per unknown) IC 227 -> 201 us and
/// ILU 659 -> 655 us in one run, 313 -> 282 and 790 -> 715 us in another; the 5-point 1024^2 grid's ILU lists (0.5
/// per unknown) 220 -> 328 us (the four-product registers cost occupancy there), which the threshold leaves alone.
/// Measured on CUDA only; HIP takes the same rule unmeasured.
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#par-ilu-cached-gathers
constexpr double kParIluListGroupMinProducts = 2.0;

/// list_sub's Group for a list kernel on `gpu` with `products` products over `unknowns` unknowns (the rule above).
inline int list_gather_group(std::int64_t products, std::int64_t unknowns, bool gpu) {
  const double per_unknown = static_cast<double>(products) / static_cast<double>(std::max<std::int64_t>(unknowns, 1));
  return gpu && per_unknown >= kParIluListGroupMinProducts ? 4 : 1;
}

/// The launch defaults of a sweep kernel: on GPUs the kernel's threads per team (kParIluGpuTeamSize,
/// kParIluListGpuTeamThreads, kParIluRowGpuTeamThreads; LaunchConfig::team_size = -1 gives max(1, threads /
/// vector_length) work units per team; the row-merge kernel as the row kernel); one lane per unit, `lanes` per row
/// for the row kernel. The entry and row-merge kernels run one lane per unit: an explicit vector_length > 1 is refused
/// there (lanes per unknown are the list kernel's, lanes per row the row kernel's); the messages name the kernel.
/// Host backends: the row-merge kernel's chunks hold about kParIluHostChunkUnknowns unknowns (`tasks_per_row` per
/// row; at least one row), so that matrices with long rows still give the threads many chunks to share (bcsstk27,
/// 24 IC unknowns per row: chunks of 256 rows left 5 chunks to 2 threads, each sweep 1.35x the entry kernel's).
/// 256, 1024 and 4096 unknowns were within the run-to-run spread elsewhere (2 threads), but for bcsstk27 with 4096
/// (0.277 against 0.250 ms).
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#host-row-merge
constexpr double kParIluHostChunkUnknowns = 1024.0;

/// Row-team kernel (SweepKernel::RowTeam) on GPUs: threads per team (LaunchConfig::team_size = -1) and team threads
/// per row. Measured on an H200 (27-point 64^3 grid, one ILU sweep; rows per team x threads per row x lanes): 1 x 32 x
/// 2 1,613 us, 4 x 32 x 1 1,011, 8 x 16 x 1 674, 16 x 8 x 1 582, 32 x 4 x 1 547 (the list kernel 534), 32 x 8 x 1 635;
/// IC 16 x 8 289, 32 x 4 295. A GPU keeps at most 32 teams per SM: the rows in flight decide.
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#row-team-probe
constexpr int kParIluRowTeamGpuTeamThreads = 128;
constexpr int kParIluRowTeamGpuThreadsPerRow = 4;

inline LaunchDefaults sweep_launch_defaults(const std::string& where, SweepKernel kernel, int lanes,
                                            double tasks_per_row = 1.0) {
  LaunchDefaults d;
  if (kernel == SweepKernel::RowMerge)
    d.host_chunk_size =
        static_cast<int>(std::max(1.0, std::round(kParIluHostChunkUnknowns / std::max(tasks_per_row, 1.0))));
  d.gpu_team_threads = kernel == SweepKernel::RowTeam ? kParIluRowTeamGpuTeamThreads
                       : sweeps_by_rows(kernel)       ? kParIluRowGpuTeamThreads
                       : kernel == SweepKernel::List  ? kParIluListGpuTeamThreads
                                                      : kParIluGpuTeamSize;
  d.vector_length = kernel == SweepKernel::Row ? lanes : 1;
  if (kernel == SweepKernel::Entry || kernel == SweepKernel::RowMerge) d.max_vector_length = 1;
  // host backends: chunks to the next free thread, so that a thread slowed down by another process on its core does
  // not hold up the sweep. Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#host-dynamic-schedule
  d.host_dynamic_schedule = true;
  d.method = where + " (" + to_string(kernel) + " sweep kernel)";
  return d;
}

/// Longest average row (entries of L per row; ILU: of L and Ut) for which Auto takes a row kernel on GPUs (since
/// 2026-11-28 the row-merge kernel): the 5-point Laplacian's 3 and the 27-point one's 13.6 were measured (row kernel
/// the fastest on the first, 1.5x slower than the list kernel on the second).
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#par-ilu-list-kernel
constexpr double kParIluRowMaxAvgRow = 4.0;

/// IC's list kernel from this many tasks per resident thread (ILU: 1). A one-time numeric phase (the lists built,
/// 5 sweeps; `BM_par_ic_factorization_{entry,list}` on an H200, 270,336 resident threads) on the 27-point grids:
/// 24^3 (0.66 tasks per thread) entry 320 / 347 us against list 362 / 412, 28^3 (1.06) 431 / 452 / 470 against
/// 459 / 518 / 578, 32^3 (1.60) 566 / 554 against 502 / 495, 36^3 (2.29) 740 / 730 against 577 / 561, and the list
/// ahead by more up to 64^3 (13.2): an IC task has half an ILU task's products, so its lists repay their build
/// later. (ILU was ahead with lists from 1.07: bcsstk16 892 against 786 us, 24^3 at 1.27 586 against 473.)
/// Rows of many entries reach the list kernel earlier: kParIcListMinMergePerThread.
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#setup-latency
constexpr double kParIcListMinTasksPerThread = 1.5;

/// IC's list kernel also from this much merge work per resident thread, tasks x average entries per row of L (an
/// entry sweep merges index lists as long as the rows; the lists leave only the products). A one-time numeric
/// phase with the lists against the entry kernel on two H200 machines (2026-12-03): bcsstk16 (0.55 tasks per
/// thread, 30 entries per row: merge work 16.5) 0.80x / 1.01x, 27-point 30^3 (17.2) 0.83x / 1.15x, 28^3 (13.9)
/// 0.86x / 1.23x, 26^3 (11.0) - / 1.35x, 24^3 (8.5) 1.06x / 1.30x: the build of the lists (two allocations, a
/// read-back) costs twice as much on the second machine. From 15 the lists lose at most 15 % there, and the sweeps
/// themselves are 2.5-3.2x faster (every later numeric phase on the pattern reuses the lists).
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#par-ic-list-merge-work
constexpr double kParIcListMinMergePerThread = 15.0;

/// The row-team kernel instead of the list kernel for the first numeric phase on a pattern (GPUs, asynchronous mode,
/// the default launch): from this many tasks per resident thread for IC, from kParIluRowTeamMinTasksPerThreadIlu for
/// ILU, and only with at least kParIluRowTeamMinRowThreads x the resident threads in rows x
/// kParIluRowTeamGpuThreadsPerRow. The row-team kernel needs no product lists, whose build (allocations, passes and
/// a read-back of their size) is most of a one-time numeric phase on large grids; its sweeps are slower than the
/// list kernel's (IC 1.3-1.8x, ILU at parity on 3D grids), so a later numeric phase on the pattern builds the lists
/// once and keeps them. The one-time numeric phase (set-up and 5 sweeps), row_team / list, on H200s (2026-12-03, 7
/// calls, MEASUREMENTS.md#row-team-probe), with IC tasks per resident thread (270,336): 27-point 24^3 (0.67) 1.2x,
/// 28^3 (1.06) 0.98-1.00x, 32^3 (1.60) 0.63-0.87x, 40^3 0.73-0.85x, 48^3 0.77-0.83x, 64^3 0.83-0.88x, 80^3
/// 0.85-0.87x; 7-point 40^3 (0.92) 1.1x, 48^3 (1.61) 0.64-0.73x, 64^3 0.65-0.66x; 5-point 400^2 (1.77) 0.65-0.75x,
/// 700^2 0.85-0.90x; bcsstk16 (0.55, 30 entries per row) 3.5-4.4x. Checked with the rule on two more H200s
/// (2026-12-03/04): the phase IC 0.71-1.09x (L3D 1.00-1.09x), ILU 0.83-1.01x; the default ParIC's time to solution
/// 0.89-1.01x the list kernel's, fewer iterations on 5-point grids.
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#row-team-rule
constexpr double kParIcRowTeamMinTasksPerThread = 1.5;
/// ILU, tasks (the entries of A) per resident thread: 27-point 24^3 (1.27) 1.7-1.8x, 28^3 (2.0) 1.4x, 32^3 (3.1)
/// 0.79-1.00x, 40^3 (6.1) 0.79-0.89x, 48^3 0.78-0.79x, 64^3 0.73-0.75x, 80^3 0.65-0.66x; 7-point 32^3 (0.82) 1.4x,
/// 40^3 (1.6) 0.89-0.99x, 48^3 (2.8) 0.96x, 64^3 (6.6) 0.69-0.71x; bcsstk16 (1.07) 5.5-6.0x; and rows of at most
/// kParIluRowTeamMaxAvgRowIlu entries excluded: 5-point 400^2 (3.0) 1.04-1.06x, 700^2 (9.1) 0.94-1.27x.
constexpr double kParIluRowTeamMinTasksPerThreadIlu = 4.0;
/// ILU: the row-team kernel only for rows longer than this (the 5-point stencil's 3 entries of L and Ut per row).
constexpr double kParIluRowTeamMaxAvgRowIlu = 3.5;
/// rows x kParIluRowTeamGpuThreadsPerRow against the resident threads: below 30,000 rows no matrix measured gained
/// (bodyy6, 19,366 rows of 7 entries: 1.2-1.8x; the 27-point 28^3 grid, 21,952 rows: 0.98-1.4x); the smallest that
/// gained has 32,768 (27-point 32^3).
constexpr double kParIluRowTeamMinRowThreads = 0.4;

struct SweepKernelChoice {
  SweepKernel kernel = SweepKernel::Entry;
  double avg_row = 1.0;  ///< average length of the rows the row kernel's lanes run over
  int lanes = 1;         ///< the row kernel's default lanes per row (row_sweep_lanes; host backends: 1)
  std::string rule;      ///< the rule's quantities, for the run record
};

/// The rule behind SweepKernel::Auto, on GPUs with the default launch (team_size, vector_length, chunk_size,
/// max_concurrent_teams and scratch_pad_bytes at -1, block_order Forward; the other LaunchConfig fields do not
/// decide it):
///  - RowMerge for row-major tasks when the rows are short (avg_row <= kParIluRowMaxAvgRow) and so many that one
///    thread per row fills the device three times (rows >= 3x its resident threads), as on the 5-point 1024^2
///    Laplacian: the row's few unknowns in Gauss-Seidel order give better factors per sweep (the row kernel's updates
///    with one lane, in the same order), and without product lists the sweep is the fastest measured there (H100: IC
///    70.9 us against the row kernel's 86.3 and the entry kernel's 165.5, ILU 105.6 against 110.1 and 456.1;
///    MEASUREMENTS.md#par-ilu-row-kernel; the row kernel was the rule's choice here before 2026-11-28);
///  - List when the tasks alone fill the device (ILU: tasks >= its resident threads; IC: tasks >=
///    kParIcListMinTasksPerThread x the resident threads; longer rows or fewer of them: the 27-point 64^3 Laplacian)
///    or, IC, when the merges are long (tasks x avg_row >= kParIcListMinMergePerThread x the resident threads:
///    bcsstk16, the 27-point 30^3 grid), one thread per unknown over its product list; par_ilu_numeric falls back to
///    Entry where the lists would be too large;
///  - RowTeam instead of List for the first numeric phase on the pattern (asynchronous mode, row-major tasks, no
///    product lists built yet) of a large matrix: IC from kParIcRowTeamMinTasksPerThread tasks per resident thread,
///    ILU from kParIluRowTeamMinTasksPerThreadIlu with rows longer than kParIluRowTeamMaxAvgRowIlu, both with rows x
///    kParIluRowTeamGpuThreadsPerRow >= kParIluRowTeamMinRowThreads x the resident threads: its sweeps need no
///    product lists, whose build is most of a one-time numeric phase there (0.63-0.88x its time on 3D grids);
///    later numeric phases build the lists once (their sweeps are faster) and keep them;
///  - Entry otherwise: on smaller matrices the set-up is latency-bound and building the lists (two allocations, two
///    passes and a scan that returns their size: 85-200 us for the small shared matrices on an H200) costs more
///    than five sweeps save (MEASUREMENTS.md#setup-latency); explicit `list` is the faster sweep there when the
///    pattern serves many numeric phases;
/// on host backends RowMerge for row-major tasks (a thread runs its rows in order, the pivot of the row just finished
/// carried in a register: on 2 cores an IC sweep of the 5-point 1024^2 Laplacian 1.7x faster, the other matrices
/// measured 0.82-1.07x the entry kernel's time per sweep, the same residual after 5 sweeps;
/// MEASUREMENTS.md#host-row-merge); and Entry with explicit launch
/// settings (they keep the meaning they have for the paper's kernel: tasks per team, chunks, occupancy limits, block
/// orders) and for reordered task lists on host backends (the row kernels do not follow the task order).
/// The mode does not matter: with one lane the four kernels give the host reference's bits in the deterministic
/// mode (the row kernel's default there is one lane).
/// Measured: perf_tests/results/MEASUREMENTS.md#par-ilu-list-kernel
inline SweepKernel auto_sweep_kernel(bool gpu, bool default_launch, bool row_major, std::int64_t rows,
                                     std::int64_t tasks, double avg_row, std::int64_t concurrency, bool ic,
                                     bool first_phase = false) {
  if (!default_launch) return SweepKernel::Entry;
  if (!gpu) return row_major ? SweepKernel::RowMerge : SweepKernel::Entry;
  if (row_major && rows >= 3 * concurrency && avg_row <= kParIluRowMaxAvgRow) return SweepKernel::RowMerge;
  const auto threads = static_cast<double>(concurrency);
  const double t = static_cast<double>(tasks);
  const bool fill = t >= (ic ? kParIcListMinTasksPerThread : 1.0) * threads;
  const bool long_merges = ic && t * avg_row >= kParIcListMinMergePerThread * threads;
  if (!fill && !long_merges) return SweepKernel::Entry;
  const bool row_team =
      first_phase && row_major &&
      t >= (ic ? kParIcRowTeamMinTasksPerThread : kParIluRowTeamMinTasksPerThreadIlu) * threads &&
      (ic || avg_row > kParIluRowTeamMaxAvgRowIlu) &&
      static_cast<double>(rows) * kParIluRowTeamGpuThreadsPerRow >= kParIluRowTeamMinRowThreads * threads;
  return row_team ? SweepKernel::RowTeam : SweepKernel::List;
}

/// Params::sweep_kernel resolved: explicit, or Auto by auto_sweep_kernel, with the rule's quantities for the record.
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
  const bool default_launch = is_default_launch(h.launch);
  const std::int64_t tasks = static_cast<std::int64_t>(st.task_row.extent(0));
  // the first numeric phase on the pattern, asynchronous: no product lists built yet, none kept for later
  const bool first_phase = async && st.numeric_phases == 0 && st.pair_ptr.extent(0) == 0;
  c.kernel = auto_sweep_kernel(gpu, default_launch, row_major, rows, tasks, c.avg_row, concurrency, !ilu, first_phase);
  if (!gpu) {
    c.rule = std::string("auto: host backend, ") + (row_major ? "row-major" : "reordered") + " tasks, " +
             (default_launch ? "default" : "explicit") + " launch" +
             (c.kernel == SweepKernel::RowMerge ? "" : " (row_merge needs row-major tasks and the default launch)");
    return c;
  }
  char merge[64];
  std::snprintf(merge, sizeof merge, " or %gx tasks x entries per row", kParIcListMinMergePerThread);
  char longer[64] = "";
  if (ilu) std::snprintf(longer, sizeof longer, ", more than %g entries per row", kParIluRowTeamMaxAvgRowIlu);
  char team[240];
  std::snprintf(team, sizeof team,
                "; %s numeric phase on the pattern: row_team kernel instead of list from %gx tasks%s and rows x %d "
                ">= %gx the threads",
                first_phase ? "the first" : (async ? "a later" : "a deterministic"),
                ilu ? kParIluRowTeamMinTasksPerThreadIlu : kParIcRowTeamMinTasksPerThread, longer,
                kParIluRowTeamGpuThreadsPerRow, kParIluRowTeamMinRowThreads);
  char buf[560];
  std::snprintf(
      buf, sizeof buf,
      "auto: GPU, %s tasks, %s launch, %lld rows and %lld tasks vs %lld resident threads, %.1f entries per row "
      "(row_merge kernel from 3x rows and at most %.0f per row, list kernel from %gx tasks%s%s)",
      row_major ? "row-major" : "reordered", default_launch ? "default" : "explicit", static_cast<long long>(rows),
      static_cast<long long>(tasks), static_cast<long long>(concurrency), c.avg_row, kParIluRowMaxAvgRow,
      ilu ? 1.0 : kParIcListMinTasksPerThread, ilu ? "" : merge, team);
  c.rule = buf;
  return c;
}

/// The product lists of the list and row kernels (build_product_lists), once per pattern. Returns false (and builds
/// nothing) when the products would not fit offset_t or, with `bounded`, exceed kParIluMaxProductsPerUnknown per
/// unknown; `products` is their number.
template <class ExecSpace, class Scalar, class Device>
bool build_sweep_pairs(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h, bool bounded, std::int64_t& products) {
  auto& st = h.state();
  if (st.pair_ptr.extent(0) > 0) {
    products = static_cast<std::int64_t>(st.pair_x.extent(0));
    return true;
  }
  const bool ilu = st.kind == ParIluKind::Ilu;
  SweepPairsOperands<Device> ops;
  ops.task_row = st.task_row;
  ops.task_col = st.task_col;
  ops.task_dst = st.task_dst;
  ops.l_rm = st.L.graph.row_map;
  ops.l_ent = st.L.graph.entries;
  ops.u_rm = st.Ut.graph.row_map;
  ops.u_ent = st.Ut.graph.entries;
  ops.nnz_l = st.L.nnz();
  const std::int64_t unknowns =
      static_cast<std::int64_t>(ops.nnz_l) + (ilu ? static_cast<std::int64_t>(st.Ut.nnz()) : 0);
  const auto alloc = [](const std::string& name, std::size_t n) {
    return Kokkos::View<offset_t*, Device>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilu::" + name), n);
  };
  const std::string prefix = "AsyncSparse::par_ilu::";
  const bool built = ilu ? build_product_lists<ParIluKind::Ilu>(exec, ops, unknowns, bounded, prefix, alloc,
                                                                st.pair_ptr, st.pair_x, st.pair_y, products)
                         : build_product_lists<ParIluKind::Ic>(exec, ops, unknowns, bounded, prefix, alloc, st.pair_ptr,
                                                               st.pair_x, st.pair_y, products);
  exec.fence();
  return built;
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
      "AsyncSparse::par_ilu::row_values", Impl::RangePolicy<ExecSpace>(exec, 0, a.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t t) {
        if (!ilu || row(t) > col(t))
          al(dst(t)) = a(t);
        else
          au(dst(t)) = a(t);
      });
}

/// The longest row of L and (ILU) Ut, once per pattern (State::row_team_max_row; 0: not known yet).
template <class ExecSpace, class Scalar, class Device>
int row_team_longest_row(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h) {
  auto& st = h.state();
  if (st.row_team_max_row > 0) return st.row_team_max_row;
  const bool ilu = st.kind == ParIluKind::Ilu;
  auto lrm = st.L.graph.row_map;
  auto urm = st.Ut.graph.row_map;
  int longest = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::par_ilu::row_team_longest_row", Impl::RangePolicy<ExecSpace>(exec, 0, st.n),
      KOKKOS_LAMBDA(const std::int64_t r, int& m) {
        int len = static_cast<int>(lrm(r + 1) - lrm(r));
        if (ilu && static_cast<int>(urm(r + 1) - urm(r)) > len) len = static_cast<int>(urm(r + 1) - urm(r));
        if (len > m) m = len;
      },
      Kokkos::Max<int>(longest));
  st.row_team_max_row = longest;
  return longest;
}

/// Whether `rows` rows of the longest length (row_team_longest_row, known) fit the team memory of one team.
template <class ExecSpace, class Scalar, class Device>
bool row_team_fits_team_memory(const ParIluHandle<Scalar, Device>& h, int rows) {
  const auto& st = h.state();
  const std::size_t bytes =
      st.kind == ParIluKind::Ilu
          ? ParIluRowTeamSweepFunctor<ParIluKind::Ilu, Scalar, Device>::scratch_bytes(st.row_team_max_row, rows)
          : ParIluRowTeamSweepFunctor<ParIluKind::Ic, Scalar, Device>::scratch_bytes(st.row_team_max_row, rows);
  return bytes <= static_cast<std::size_t>(Impl::TeamPolicy<ExecSpace>::scratch_size_max(0));
}

/// SweepKernel::Auto's row-team choice kept only where the default launch's rows (kParIluRowTeamGpuTeamThreads /
/// kParIluRowTeamGpuThreadsPerRow per team) fit team memory: a matrix with a few long rows (a dense row or column,
/// as in circuit matrices) would otherwise stage them in global scratch memory for every team in flight (a 9-point
/// 600^2 grid with one dense row and column: 272 GB asked for). Otherwise `kernel` becomes List and `rule` says why.
template <class ExecSpace, class Scalar, class Device>
void row_team_auto_veto(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h, SweepKernel& kernel,
                        std::string& rule) {
  if (kernel != SweepKernel::RowTeam) return;
  const int longest = row_team_longest_row(exec, h);
  const int rows = std::max(1, kParIluRowTeamGpuTeamThreads / kParIluRowTeamGpuThreadsPerRow);
  if (row_team_fits_team_memory<ExecSpace>(h, rows)) return;
  kernel = SweepKernel::List;
  rule += "; list kernel: rows of up to " + std::to_string(longest) + " entries do not fit the row-team kernel's " +
          "team memory";
}

/// The row-team kernel's launch for the current pattern (State::row_team_*): the longest row of L and Ut
/// (row_team_longest_row), threads per row (GPUs: kParIluRowTeamGpuThreadsPerRow, at most the team size; host backends:
/// one), rows per team (the team size / threads per row), and team memory for the staged rows, or scratch level 1
/// (global memory) where they do not fit there. Returns that launch in words, for the record (Stats::sweep_kernel_rule;
/// the chunk fields of Stats::launch do not apply to the kernel).
template <class ExecSpace, class Scalar, class Device>
std::string prepare_row_team(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h, const ResolvedLaunch& launch) {
  auto& st = h.state();
  const int longest = row_team_longest_row(exec, h);
  const int team = std::max(1, launch.team_size);
  st.row_team_threads = is_gpu_space<ExecSpace>() ? std::min(kParIluRowTeamGpuThreadsPerRow, team) : 1;
  st.row_team_rows = std::max(1, team / st.row_team_threads);
  st.row_team_scratch_level = row_team_fits_team_memory<ExecSpace>(h, st.row_team_rows) ? 0 : 1;
  return "rows per team: " + std::to_string(st.row_team_rows) +
         ", threads per row: " + std::to_string(st.row_team_threads) + ", rows of up to " + std::to_string(longest) +
         " entries staged in " + (st.row_team_scratch_level == 0 ? "team memory" : "global scratch memory");
}

/// One sweep of the row-team kernel (no wait), with the launch of prepare_row_team. Asynchronous mode only:
/// par_ilu_numeric refuses the kernel otherwise, par_ilu_sweep a change of the mode after the numeric phase.
template <ParIluKind Kind, class ExecSpace, class Scalar, class Device>
void launch_row_team_sweep(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h,
                           const Kokkos::View<unsigned long long, Device>& flag) {
  auto& st = h.state();
  ParIluRowTeamSweepFunctor<Kind, Scalar, Device> f;
  f.l_rm = st.L.graph.row_map;
  f.l_ent = st.L.graph.entries;
  f.a_l = st.a_l;
  f.l_read = f.l_write = st.L.values.data();
  if constexpr (Kind == ParIluKind::Ilu) {
    f.u_rm = st.Ut.graph.row_map;
    f.u_ent = st.Ut.graph.entries;
    f.a_u = st.a_u;
    f.u_read = f.u_write = st.Ut.values.data();
  }
  f.flag = flag;
  f.max_row = st.row_team_max_row;
  f.rows_per_team = st.row_team_rows;
  f.threads_per_row = st.row_team_threads;
  f.scratch_level = st.row_team_scratch_level;
  f.nrows = st.n;
  const std::int64_t teams = (static_cast<std::int64_t>(st.n) + f.rows_per_team - 1) / f.rows_per_team;
  const auto bytes = decltype(f)::scratch_bytes(f.max_row, f.rows_per_team);
  Impl::parallel_for_row_team(
      Kind == ParIluKind::Ilu ? "AsyncSparse::par_ilu::sweep_row_team" : "AsyncSparse::par_ic::sweep_row_team", exec,
      teams, f.rows_per_team * f.threads_per_row, std::max(1, st.chunks.resolved().vector_length), f.scratch_level,
      bytes, f);
}

/// Launches one sweep (no wait); the kernels report a skipped update in `flag` (kNoBreakdown on entry).
template <class ExecSpace, class Scalar, class Device>
void launch_sweep(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h,
                  const Kokkos::View<unsigned long long, Device>& flag) {
  auto& st = h.state();
  const bool async = h.params.mode == SweepMode::Async;
  const bool ilu = st.kind == ParIluKind::Ilu;
  Scalar* lr = st.L.values.data();
  Scalar* lw = async ? lr : st.L_alt.data();
  Scalar* ur = ilu ? st.Ut.values.data() : nullptr;
  Scalar* uw = ilu && !async ? st.Ut_alt.data() : ur;
  using IluTag = ParIluKindTag<ParIluKind::Ilu>;
  using IcTag = ParIluKindTag<ParIluKind::Ic>;
  auto run = [&](auto kind_tag, auto async_tag, auto identity_tag, auto lists_tag, auto group_tag) {
    constexpr ParIluKind kind = decltype(kind_tag)::value;
    constexpr bool is_async = decltype(async_tag)::value;
    constexpr bool lists = decltype(lists_tag)::value;
    // grouped loads only where the rule can give them: asynchronous list sweeps on GPUs (no other instantiation)
    constexpr int group = lists && is_async && is_gpu_space<ExecSpace>() ? decltype(group_tag)::value : 1;
    ParIluSweepFunctor<kind, is_async, decltype(identity_tag)::value, Scalar, Device, lists, group> f;
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
    f.flag = flag;
    if constexpr (lists) {
      f.pair_ptr = st.pair_ptr;
      f.pair_x = st.pair_x;
      f.pair_y = st.pair_y;
      f.nnz_l = st.L.nnz();
      f.vector_length = st.chunks.resolved().vector_length;
    }
    const char* label =
        kind == ParIluKind::Ilu
            ? (lists ? (is_async ? "AsyncSparse::par_ilu::sweep_lists"
                                 : "AsyncSparse::par_ilu::sweep_lists_deterministic")
                     : (is_async ? "AsyncSparse::par_ilu::sweep" : "AsyncSparse::par_ilu::sweep_deterministic"))
            : (lists
                   ? (is_async ? "AsyncSparse::par_ic::sweep_lists" : "AsyncSparse::par_ic::sweep_lists_deterministic")
                   : (is_async ? "AsyncSparse::par_ic::sweep" : "AsyncSparse::par_ic::sweep_deterministic"));
    st.chunks.run(label, exec, f);
  };
  // the entry kernel (lists_tag false) or the list kernel (true, with the loads per group of group_tag), by kind,
  // mode and task list
  auto run_tasks = [&](auto lists_tag, auto group_tag) {
    if (ilu && async)
      run(IluTag(), std::true_type(), std::false_type(), lists_tag, group_tag);
    else if (ilu)
      run(IluTag(), std::false_type(), std::false_type(), lists_tag, group_tag);
    else if (async && st.identity_tasks)
      run(IcTag(), std::true_type(), std::true_type(), lists_tag, group_tag);
    else if (async)
      run(IcTag(), std::true_type(), std::false_type(), lists_tag, group_tag);
    else if (st.identity_tasks)
      run(IcTag(), std::false_type(), std::true_type(), lists_tag, group_tag);
    else
      run(IcTag(), std::false_type(), std::false_type(), lists_tag, group_tag);
  };
  // the row kernels (Row: product lists, lanes per row; RowMerge: merges, one thread per row), by kind and mode
  auto run_row_kernel = [&](auto kind_tag, auto async_tag, auto merge_tag) {
    constexpr ParIluKind kind = decltype(kind_tag)::value;
    constexpr bool is_async = decltype(async_tag)::value;
    constexpr bool merge = decltype(merge_tag)::value;
    std::conditional_t<merge, ParIluRowMergeSweepFunctor<kind, is_async, Scalar, Device>,
                       ParIluRowSweepFunctor<kind, is_async, Scalar, Device>>
        f;
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
    f.flag = flag;
    if constexpr (!merge) {
      f.pair_ptr = st.pair_ptr;
      f.pair_x = st.pair_x;
      f.pair_y = st.pair_y;
      f.nnz_l = st.L.nnz();
      f.vector_length = st.chunks.resolved().vector_length;
    }
    const std::string label = std::string(kind == ParIluKind::Ilu ? "AsyncSparse::par_ilu" : "AsyncSparse::par_ic") +
                              (merge ? "::sweep_row_merge" : "::sweep_rows") + (is_async ? "" : "_deterministic");
    st.chunks.run(label, exec, f);
  };
  auto run_rows = [&](auto merge_tag) {
    if (ilu && async)
      run_row_kernel(IluTag(), std::true_type(), merge_tag);
    else if (ilu)
      run_row_kernel(IluTag(), std::false_type(), merge_tag);
    else if (async)
      run_row_kernel(IcTag(), std::true_type(), merge_tag);
    else
      run_row_kernel(IcTag(), std::false_type(), merge_tag);
  };
  if (st.kernel == SweepKernel::RowTeam) {
    if (ilu)
      launch_row_team_sweep<ParIluKind::Ilu>(exec, h, flag);
    else
      launch_row_team_sweep<ParIluKind::Ic>(exec, h, flag);
  } else if (st.kernel == SweepKernel::RowMerge) {
    run_rows(std::true_type());
  } else if (st.kernel == SweepKernel::Row) {
    run_rows(std::false_type());
  } else if (st.kernel == SweepKernel::List) {
    if (st.gather_group == 4)
      run_tasks(std::true_type(), std::integral_constant<int, 4>());
    else
      run_tasks(std::true_type(), std::integral_constant<int, 1>());
  } else {
    run_tasks(std::false_type(), std::integral_constant<int, 1>());
  }
}

/// Records a finished sweep of `dt` seconds whose breakdown word was `flag`: Stats::sweep_times, sweep_seconds and
/// the breakdown counts; throws BreakdownError where the mode stops (the factors keep the last finite values).
template <class Scalar, class Device>
void record_sweep(ParIluHandle<Scalar, Device>& h, unsigned long long flag, double dt) {
  auto& stats = h.stats();
  const bool async = h.params.mode == SweepMode::Async;
  stats.sweep_times.push_back(dt);
  stats.sweep_seconds += dt;
  if (flag == kNoBreakdown) {
    stats.consecutive_breakdowns = 0;
    return;
  }
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

/// Sweeps the numeric phase runs back to back with one wait at most (sweep_batch): the breakdown words of the
/// State, one per sweep of a batch.
constexpr int kSweepBatch = 8;

/// The State's breakdown words (kSweepBatch of them), holding kNoBreakdown (every numeric phase sets them again
/// before its sweeps; par_ilu_sweep after par_ilu_set_factors reads them as they are).
template <class ExecSpace, class State>
void allocate_breakdown_words(const ExecSpace& exec, State& s) {
  s.breakdown_words = cached_uninitialized<decltype(s.breakdown_words)>("AsyncSparse::par_ilu::breakdown", kSweepBatch);
  Kokkos::deep_copy(exec, s.breakdown_words, kNoBreakdown);
}

/// `count` (1..kSweepBatch) sweeps launched back to back, each reporting into its own breakdown word, then one wait
/// and one transfer of all the words to the host, recorded in order (record_sweep; the time of each sweep: the
/// batch's divided evenly). More than one sweep only in the asynchronous mode (the deterministic one swaps its
/// buffers after each sweep: one_sweep), for the phases that check nothing between sweeps (no residual checks,
/// breakdown_patience 0): there a wait and a transfer per sweep cost more than a sweep on small matrices (about
/// 35 us against 6 on an H200 for fv1; MEASUREMENTS.md#setup-latency).
template <class ExecSpace, class Scalar, class Device>
void sweep_batch(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h, int count) {
  if (count < 1 || count > kSweepBatch || (count > 1 && h.params.mode != SweepMode::Async))
    throw std::logic_error("sweep_batch: " + std::to_string(count) + " sweeps in one batch");
  auto& st = h.state();
  using word = Kokkos::View<unsigned long long, Device>;
  Kokkos::Timer timer;
  for (int k = 0; k < count; ++k) launch_sweep(exec, h, word(st.breakdown_words.data() + k));
  exec.fence();
  const double dt = timer.seconds() / count;  // the sweeps alone
  unsigned long long flags[kSweepBatch];
  Kokkos::View<unsigned long long*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(flags, count);
  Kokkos::deep_copy(host, Kokkos::subview(st.breakdown_words, std::make_pair(0, count)));
  bool reported = false;
  for (int k = 0; k < count; ++k) reported = reported || flags[k] != kNoBreakdown;
  if (reported) {  // back to kNoBreakdown for the next sweeps
    Kokkos::deep_copy(exec, st.breakdown_words, kNoBreakdown);
    exec.fence();
  }
  for (int k = 0; k < count; ++k) record_sweep(h, flags[k], dt);
}

/// One sweep, waited for and checked (a batch of one: the breakdown words hold kNoBreakdown before it, set by
/// par_ilu_numeric and reset after a sweep that skipped an update); throws BreakdownError (the factors keep the last
/// finite values). In the deterministic mode the new buffer then becomes the factors.
template <class ExecSpace, class Scalar, class Device>
void one_sweep(const ExecSpace& exec, ParIluHandle<Scalar, Device>& h) {
  sweep_batch(exec, h, 1);
  if (h.params.mode == SweepMode::Async) return;
  auto& st = h.state();
  std::swap(st.L.values, st.L_alt);
  if (st.kind == ParIluKind::Ilu) std::swap(st.Ut.values, st.Ut_alt);
}

/// Most sweeps the last diagonal shift adds when its last sweep still skipped an update (Stats::breakdown_tail_sweeps),
/// in batches of kBreakdownTailBatch with one wait each, until a batch's last sweep skips none. On an H200 the
/// default ParIC on bcsstk15 (RCM order) broke down at every shift up to 1 in 2 of 20 driver runs (5 of 10 benchmark
/// processes with their repeated set-ups): the last of the 5 sweeps at shift 1 still met a non-positive pivot; with
/// 10 or 20 sweeps none of 20 runs did; with this tail 2 of 10 processes and 1 of 20 runs still broke down (after
/// 15 sweeps at shift 1), so it lowers that rate at most (perf_tests/results/MEASUREMENTS.md#breakdown-tail). Only the
/// attempt whose failure would end the restarts runs them (Impl::sweep_out_breakdown): the matrices that need a shift
/// keep their set-up time.
constexpr int kBreakdownTailSweeps = 10;
constexpr int kBreakdownTailBatch = 5;

}  // namespace Impl
}  // namespace AsyncSparse
