// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT sweep kernel choice (Params::sweep_kernel) and the product lists of the list kernel
// (ParILU's lists of the current pattern, Impl::build_product_lists). The sweeps themselves:
// AsyncSparse_par_ilut_sweep.hpp. Layout of the factors: AsyncSparse_par_ilut_common.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut_handle.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilu_kernels.hpp>  // SweepPairsOperands, build_product_lists
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_common.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_row_sweep.hpp>  // ilut_row_sweep_shape

namespace AsyncSparse {
namespace Impl {

/// The rule behind ParIlutSweepKernel::Auto: List for the concurrent sweeps of pattern-reusing numeric phases
/// (Params::reuse_pattern; `reuse`) on GPUs with the default launch (is_default_launch) when the tasks are at least
/// kIlutListMinTasksPerThread x the device's resident threads; else RowTeam or Entry (below). The lists of a pattern
/// cost about one entry sweep to build (a count and a fill pass, each merging the index lists of every task as a sweep
/// does) and make each sweep faster; a reusing phase keeps them for every later one on the same pattern. Measured on an
/// H200 (par_il*_reuse, three calls): on the matrices whose tasks fill the device a reusing phase after the first
/// gained 0.3-1.7 ms (ParILUT 27-point 64^3 Laplacian 7.4-7.6 -> 5.8-6.0 ms, 5-point 1024^2 3.0-3.1 -> 2.7-2.9,
/// bcsstk16 1.3-1.5 -> 1.2; ParICT 27-point 5.0 -> 4.4-4.7; ParICT 5-point, whose pattern has no products, equal); on
/// the smaller ones 0-0.1 ms (fv1, bodyy4; ParICT bcsstk16) while the first reusing phase, which builds the lists, took
/// 0.1-0.55 ms longer. Inside a full numeric phase a pattern lives for one sweep (after the candidate phase) or one
/// adaptive phase of 3-5 sweeps, where the lists gained at most the spread between runs (ParILUT step on the
/// 27-point grid 17.3 ms with them against 17.4; sweeps of bcsstk16 1.82 against 1.81 ms): Entry. Host backends keep
/// the entry kernel (not measured with the lists).
/// Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#par-ilut-list-sweeps
/// The other concurrent sweeps on GPUs with the default launch take RowTeam where the matrix has at least
/// kIlutRowTeamMinRowsPerThread x the resident threads `rows` (each row's updates share one staged row, and a few
/// threads per row must fill the device): measured on an H200 (driver, ParILUT steps 2-4; #par-ilut-row-team),
/// 27-point 64^3 grid (0.97x the resident threads in rows) 15.6-15.7 -> 12.7-13.4 ms per step, 5-point 1024^2
/// 5.9 -> 5.3-5.6 ms, ParICT 6.9-7.0 -> 6.6-6.7 and 2.8-2.9 -> 2.9; the smaller matrices, too few rows to fill the
/// device with a few threads each, kept Entry (bcsstk16, 0.018x: 3.6 ms per step against 3.9-33 ms in the ten
/// row-team shapes tried; fv1 0.036x: equal within the spread).
constexpr double kIlutListMinTasksPerThread = 1.0;
constexpr double kIlutRowTeamMinRowsPerThread = 0.25;

inline ParIlutSweepKernel ilut_auto_sweep_kernel(bool gpu, bool default_launch, bool ordered, bool reuse,
                                                 std::int64_t tasks, std::int64_t concurrency, std::int64_t rows = 0) {
  if (!gpu || !default_launch || ordered) return ParIlutSweepKernel::Entry;
  const auto c = static_cast<double>(concurrency);
  if (reuse && static_cast<double>(tasks) >= kIlutListMinTasksPerThread * c) return ParIlutSweepKernel::List;
  if (static_cast<double>(rows) >= kIlutRowTeamMinRowsPerThread * c) return ParIlutSweepKernel::RowTeam;
  return ParIlutSweepKernel::Entry;
}

/// The product lists of the current pattern (State::lists, built when the pattern changed): per task its row, column
/// and position (L entry p; U entry q: its position umap(q) in Ut), then build_product_lists. Returns false when the
/// pattern has too many products (more than offset_t holds; `bounded`: more than kParIluMaxProductsPerUnknown per
/// unknown), which the lists remember for the pattern; `products` is their number.
template <class Kind, class ExecSpace, class Handle>
bool ilut_product_lists(const ExecSpace& exec, Handle& h, bool bounded, std::int64_t& products) {
  using Device = typename Handle::device_type;
  using OV = typename Handle::ordinal_view;
  using PV = typename Handle::offset_view;
  auto& st = h.state();
  auto& pl = st.lists;
  if (pl.generation == st.pattern_generation && (pl.ptr.extent(0) > 0 || bounded)) {
    products = pl.products;
    return pl.ptr.extent(0) > 0;
  }
  pl = {};  // the old lists' buffers go back to the pool
  auto& ws = ilut_ws(h);
  const std::int64_t ntasks = Kind::ict ? static_cast<std::int64_t>(st.L.nnz) : std::int64_t(st.tasks.extent(0));
  const OV trow = ilut_alloc<OV>(ws, cand_label<Kind>("task_row"), static_cast<std::size_t>(ntasks));
  const OV tcol = ilut_alloc<OV>(ws, cand_label<Kind>("task_col"), static_cast<std::size_t>(ntasks));
  const PV tdst = ilut_alloc<PV>(ws, cand_label<Kind>("task_dst"), static_cast<std::size_t>(ntasks));
  const auto tasks = st.tasks;
  const auto lrow = st.L.row, lcol = st.L.col, urow = st.U.row, ucol = st.U.col;
  const auto umap = st.umap;
  const offset_t nnz_l = st.L.nnz;
  Kokkos::parallel_for(
      cand_label<Kind>("list_tasks"), Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, ntasks),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const offset_t p = Kind::ict ? static_cast<offset_t>(t) : tasks(t);
        if (p < nnz_l) {
          trow(t) = lrow(p);
          tcol(t) = lcol(p);
          tdst(t) = p;
        } else {
          const offset_t q = p - nnz_l;
          trow(t) = urow(q);
          tcol(t) = ucol(q);
          tdst(t) = umap(q);
        }
      });
  SweepPairsOperands<Device> ops;
  ops.task_row = trow;
  ops.task_col = tcol;
  ops.task_dst = tdst;
  ops.l_rm = st.L.ptr;
  ops.l_ent = st.L.col;
  ops.u_rm = Kind::ict ? st.L.ptr : st.Ut.ptr;
  ops.u_ent = Kind::ict ? st.L.col : st.Ut.col;
  ops.nnz_l = nnz_l;
  const std::int64_t unknowns = static_cast<std::int64_t>(nnz_l) + (Kind::ict ? 0 : std::int64_t(st.Ut.nnz));
  const auto alloc = [&](const std::string& name, std::size_t n) {
    return ilut_alloc<PV>(ws, cand_label<Kind>(name.c_str()), n);
  };
  constexpr ParIluKind k = Kind::ict ? ParIluKind::Ic : ParIluKind::Ilu;
  const bool built =
      build_product_lists<k>(exec, ops, unknowns, bounded, Kind::prefix, alloc, pl.ptr, pl.px, pl.py, products);
  pl.generation = st.pattern_generation;
  pl.products = products;
  return built;
}

/// The most entries of a row of L and (ParILUT) the most updates of a row (strict L entries and U entries): an array
/// reduction of two maxima, one wait for the device.
template <class PV>
struct IlutLongestRow {
  using value_type = offset_t[];
  using size_type = unsigned;
  size_type value_count = 2;
  PV lp, up;  ///< up empty for ParICT
  bool ict = false;
  KOKKOS_INLINE_FUNCTION void init(offset_t* v) const { v[0] = v[1] = 0; }
  KOKKOS_INLINE_FUNCTION void join(Compat::JoinDst<offset_t> dst, Compat::JoinSrc<offset_t> src) const {
    if (src[0] > dst[0]) dst[0] = src[0];
    if (src[1] > dst[1]) dst[1] = src[1];
  }
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, offset_t* acc) const {
    const offset_t e = lp(i + 1) - lp(i), t = ict ? e : e - 1 + up(i + 1) - up(i);
    if (e > acc[0]) acc[0] = e;
    if (t > acc[1]) acc[1] = t;
  }
};

/// The most entries of a row of L and the most updates of a row on the current pattern (State::longest_l: one
/// reduction per pattern; ParICT: the updates are the entries).
template <class ExecSpace, class Handle>
const typename Handle::State::LongestRow& ilut_longest_row(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  auto& c = st.longest_l;
  if (c.generation == st.pattern_generation) return c;
  IlutLongestRow<typename Handle::offset_view> f;
  f.lp = st.L.ptr;
  f.up = st.U.ptr;
  f.ict = st.kind == ParIlutKind::Ict;
  offset_t most[2] = {0, 0};
  Kokkos::parallel_reduce("AsyncSparse::par_ilut::longest_row", Impl::RangePolicy<ExecSpace>(exec, 0, st.n), f,
                          Kokkos::View<offset_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(most, 2));
  exec.fence();  // a reduction into a View need not wait for its result (Kokkos 4 does not)
  c.generation = st.pattern_generation;
  c.entries = most[0];
  c.tasks = most[1];
  return c;
}

/// Params::sweep_kernel resolved for a concurrent sweep (`reuse`: of a pattern-reusing numeric phase), the lists
/// built where it is List; Stats::sweep_kernel, sweep_kernel_rule and sweep_products record it. Auto falls
/// back to Entry where the lists would be too large; explicit List throws InvalidInput there.
template <class Kind, class ExecSpace, class Handle>
ParIlutSweepKernel ilut_sweep_kernel(const ExecSpace& exec, Handle& h, bool reuse, std::int64_t ntasks) {
  auto& stats = h.stats();
  const bool gpu = is_gpu_space<ExecSpace>();
  ParIlutSweepKernel k = h.params.sweep_kernel;
  std::string rule = "explicit";
  if (k == ParIlutSweepKernel::Auto) {
    const bool default_launch = is_default_launch(h.launch);
    const auto concurrency = static_cast<std::int64_t>(exec.concurrency());
    const std::int64_t rows = h.state().n;
    k = ilut_auto_sweep_kernel(gpu, default_launch, h.state().ordered, reuse, ntasks, concurrency, rows);
    rule = std::string("auto: ") + (gpu ? "GPU" : "host backend") + ", " + (default_launch ? "default" : "explicit") +
           " launch, " + (h.state().ordered ? "ordered" : "concurrent") + " sweeps, " +
           (reuse ? "pattern-reusing phase" : "full numeric phase") + ", " + std::to_string(ntasks) + " tasks and " +
           std::to_string(rows) + " rows vs " + std::to_string(concurrency) +
           " resident threads (GPUs: list kernel for pattern-reusing phases from 1x in tasks, else row-team kernel "
           "from 0.25x in rows)";
  }
  if (k == ParIlutSweepKernel::RowTeam && h.params.mode == SweepMode::Deterministic) {
    k = ParIlutSweepKernel::Entry;
    rule += "; entry kernel: the deterministic mode";
  }
  if (k == ParIlutSweepKernel::RowTeam && h.params.sweep_kernel == ParIlutSweepKernel::Auto) {
    // a row longer than the staged rows would run its updates one thread after the other: Auto keeps Entry there
    const auto& st = h.state();
    const int cap = ilut_row_sweep_shape(gpu, st.n, static_cast<double>(st.L.nnz) / static_cast<double>(st.n),
                                         exec.concurrency(), h.launch)
                        .cap;
    const auto& longest = ilut_longest_row(exec, h);
    if (longest.entries > cap || longest.tasks > kIlutRowTeamMaxTasksPerCap * cap) {
      k = ParIlutSweepKernel::Entry;
      rule += "; entry kernel: rows of L of up to " + std::to_string(longest.entries) + " entries and rows of up to " +
              std::to_string(longest.tasks) + " updates, longer than the row-team kernel's staged rows of " +
              std::to_string(cap) + " (" + std::to_string(kIlutRowTeamMaxTasksPerCap * cap) + " updates)";
    }
  }
  std::int64_t products = 0;
  if (k == ParIlutSweepKernel::List) {
    const bool automatic = h.params.sweep_kernel == ParIlutSweepKernel::Auto;
    if (!ilut_product_lists<Kind>(exec, h, automatic, products)) {
      if (!automatic)
        throw InvalidInput(std::string(par_ilut_name(h)) + ": the list sweep kernel's product lists need " +
                           std::to_string(products) +
                           " entries, more than offset_t holds; use the entry kernel or a build with 64-bit offsets");
      k = ParIlutSweepKernel::Entry;
      rule += "; entry kernel: the product lists would hold " + std::to_string(products) + " entries";
      products = 0;
    }
  }
  stats.sweep_kernel = k;
  stats.sweep_kernel_rule = rule;
  stats.sweep_products = products;
  return k;
}

}  // namespace Impl
}  // namespace AsyncSparse
