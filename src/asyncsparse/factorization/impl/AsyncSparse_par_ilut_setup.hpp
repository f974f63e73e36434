// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT set-up: checks of the input and the parameters, the symmetric scaling, the
// pattern of the initial guess (symbolic phase) and the initial guess itself, step 0 (numeric phase). Layout of the
// factors: AsyncSparse_par_ilut_common.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/factorization/AsyncSparse_select.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_diagonal_shift.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_common.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_sweep.hpp>  // ilut_reset_breakdown
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>                       // Impl::find_sorted

namespace AsyncSparse {
namespace Impl {

// ------------------------------------------------------------------------------------------------------------
// Input and parameter checks
// ------------------------------------------------------------------------------------------------------------

/// Validates A on the device: square, non-empty, sorted unique columns in range, stored diagonal; ParICT also a
/// symmetric pattern. With `values` also finite values; ParICT symmetric values (|a_ij - a_ji| <= 1e-12
/// max(|a_ij|, |a_ji|)) and a positive diagonal; ParILUT a non-zero diagonal. Problems are InvalidInput naming
/// `where`, an unusable pivot a BreakdownError naming `method`.
template <class ExecSpace, class Scalar, class Device>
void ilut_check_matrix(const ExecSpace& exec, const Crs<Scalar, Device>& A, bool symmetric, bool values,
                       const std::string& where, const std::string& method) {
  const ordinal_t n = A.numRows();
  if (n != A.numCols())
    throw InvalidInput(where + ": matrix must be square, got " + std::to_string(n) + " x " +
                       std::to_string(A.numCols()));
  if (n == 0) throw InvalidInput(where + ": matrix is empty (0 rows)");
  auto rm = A.graph.row_map;
  auto ent = A.graph.entries;
  auto val = A.values;
  std::int64_t bad = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce(
      "AsyncSparse::par_ilut::check", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, std::int64_t& b) {
        int code = 0;
        bool diag = false;
        Scalar d = 0;
        for (offset_t k = rm(i); k < rm(i + 1); ++k) {
          const ordinal_t j = ent(k);
          if (j < 0 || j >= n || (k > rm(i) && ent(k - 1) >= j)) {
            code = 1;
            break;
          }
          if (values && !is_finite(val(k))) code = code ? code : 3;
          if (j == i) {
            diag = true;
            d = val(k);
          }
          if (symmetric && code == 0 && j != i) {
            const offset_t t = find_sorted(rm, ent, j, i);  // (j, i)
            const Scalar x = val(k);
            const Scalar y = t >= 0 ? val(t) : Scalar(0);
            const Scalar ax = ilut_abs(x), ay = ilut_abs(y);
            if (t < 0 || (values && ilut_abs(x - y) > Scalar(1e-12) * (ax > ay ? ax : ay))) code = 4;
          }
        }
        if (code == 0 && !diag) code = 2;
        if (values && code == 0 && (symmetric ? !(d > Scalar(0)) : d == Scalar(0))) code = 5;
        if (code) {
          const std::int64_t key = 8 * static_cast<std::int64_t>(i) + code;
          if (key < b) b = key;
        }
      },
      Kokkos::Min<std::int64_t>(bad));
  if (bad == std::numeric_limits<std::int64_t>::max()) return;
  const std::int64_t row = bad / 8;
  switch (static_cast<int>(bad % 8)) {
    case 1:
      throw InvalidInput(where + ": row " + std::to_string(row) +
                         ": column indices not sorted, duplicated or out of range");
    case 2:
      throw InvalidInput(where + ": row " + std::to_string(row) + " has no diagonal entry");
    case 3:
      throw InvalidInput(where + ": row " + std::to_string(row) + " has a non-finite value (NaN or Inf)");
    case 4:
      throw InvalidInput(where + ": matrix is not symmetric (row " + std::to_string(row) +
                         " has an entry without a matching transposed entry)");
    default:
      throw BreakdownError(method, row, symmetric ? "non-positive diagonal entry (pivot)" : "zero pivot a_ii = 0");
  }
}

inline void ilut_check_params(int max_steps, double fill, double stag, int reuse, double divergence,
                              const std::string& where) {
  if (!(divergence >= 0.0) || std::isinf(divergence))
    throw InvalidInput(where + ": divergence_tolerance must be finite and >= 0, got " + std::to_string(divergence));
  if (max_steps < 0) throw InvalidInput(where + ": max_steps must be >= 0, got " + std::to_string(max_steps));
  if (!(fill > 0.0) || !std::isfinite(fill))
    throw InvalidInput(where + ": fill_in_limit must be finite and > 0, got " + std::to_string(fill));
  if (!(stag >= 0.0) || !std::isfinite(stag))
    throw InvalidInput(where + ": stagnation_tolerance must be finite and >= 0, got " + std::to_string(stag));
  if (reuse < 0) throw InvalidInput(where + ": reuse_sweeps must be >= 0, got " + std::to_string(reuse));
}

/// The sweep and pivot parameters (initial_sweeps, initial_sweep_tolerance, initial_max_sweeps, sweep_tolerance,
/// max_sweeps, final_sweeps, pivot_tolerance).
template <class Params>
void ilut_check_sweep_params(const Params& p, const std::string& where) {
  if (p.initial_sweeps < -1)
    throw InvalidInput(where + ": initial_sweeps must be >= -1 (-1: adaptive), got " +
                       std::to_string(p.initial_sweeps));
  if (p.final_sweeps < -1)
    throw InvalidInput(where + ": final_sweeps must be >= -1 (-1: adaptive), got " + std::to_string(p.final_sweeps));
  if (p.max_sweeps < 1) throw InvalidInput(where + ": max_sweeps must be >= 1, got " + std::to_string(p.max_sweeps));
  if (!(p.sweep_tolerance >= 0.0 && p.sweep_tolerance < 1.0))
    throw InvalidInput(where + ": sweep_tolerance must be in [0, 1), got " + std::to_string(p.sweep_tolerance));
  if (p.initial_max_sweeps < 1)
    throw InvalidInput(where + ": initial_max_sweeps must be >= 1, got " + std::to_string(p.initial_max_sweeps));
  if (!(p.initial_sweep_tolerance >= 0.0 && p.initial_sweep_tolerance < 1.0))
    throw InvalidInput(where + ": initial_sweep_tolerance must be in [0, 1), got " +
                       std::to_string(p.initial_sweep_tolerance));
  check_diagonal_shift(p.diagonal_shift, where);
  if (!(p.pivot_tolerance >= 0.0 && p.pivot_tolerance < 1.0))
    throw InvalidInput(where + ": pivot_tolerance must be in [0, 1), got " + std::to_string(p.pivot_tolerance));
}

template <class Handle>
void ilut_check_handle_params(const Handle& h, const std::string& where) {
  const auto& p = h.params;
  ilut_check_params(p.max_steps, p.fill_in_limit, p.stagnation_tolerance, p.reuse_sweeps, p.divergence_tolerance,
                    where);
  ilut_check_sweep_params(p, where);
  select_check_params(p.select, where.c_str());
  if (p.team_select_max < -1)
    throw InvalidInput(where + ": Params::team_select_max must be >= -1 (-1: the default rule), got " +
                       std::to_string(p.team_select_max));
  if (p.bucket_select_max < -1)
    throw InvalidInput(where + ": Params::bucket_select_max must be >= -1 (-1: the default rule), got " +
                       std::to_string(p.bucket_select_max));
}

// ------------------------------------------------------------------------------------------------------------
// Initial guess (step 0): L0 = strict lower part of A_s + I, U0 = upper part (ParICT: L0 = lower part)
// ------------------------------------------------------------------------------------------------------------

/// Symbolic phase: the pattern of the initial guess (State::L0, U0; no values): L0 = strict lower part of A and
/// the diagonal (last in each row), U0 = upper part of A (diagonal first); ParICT: L0 = lower part of A.
template <class ExecSpace, class Handle>
void ilut_initial_pattern(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  using PV = typename Handle::offset_view;
  const bool ict = st.kind == ParIlutKind::Ict;
  const ordinal_t n = st.n;
  auto arm = st.a_row_map;
  auto aent = st.a_entries;
  PV lcount = ilut_alloc<PV>(ilut_ws(h), "AsyncSparse::par_ilut::lcount", n),
     ucount = ilut_alloc<PV>(ilut_ws(h), "AsyncSparse::par_ilut::ucount", n);
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::initial_count", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        offset_t l = 0;
        for (offset_t k = arm(i); k < arm(i + 1); ++k) l += aent(k) < i ? 1 : 0;
        lcount(i) = l + 1;  // + diagonal
        ucount(i) = (arm(i + 1) - arm(i)) - l;
      });
  st.L0 = typename Handle::Factor();
  st.U0 = typename Handle::Factor();
  st.L0.ptr = ilut_alloc<PV>(ilut_ws(h), "AsyncSparse::par_ilut::lptr", static_cast<std::size_t>(n) + 1);
  ilut_alloc_entries(ilut_ws(h), st.L0,
                     ilut_scan(exec, ilut_ws(h), st.L0.ptr, lcount, n, "AsyncSparse::par_ilut::lptr_scan"), false,
                     false);
  if (!ict) {
    st.U0.ptr = ilut_alloc<PV>(ilut_ws(h), "AsyncSparse::par_ilut::uptr", static_cast<std::size_t>(n) + 1);
    ilut_alloc_entries(ilut_ws(h), st.U0,
                       ilut_scan(exec, ilut_ws(h), st.U0.ptr, ucount, n, "AsyncSparse::par_ilut::uptr_scan"), false,
                       false);
  }
  const auto L0 = st.L0, U0 = st.U0;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::initial_fill", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        offset_t ql = L0.ptr(i), qu = ict ? 0 : U0.ptr(i);
        for (offset_t k = arm(i); k < arm(i + 1); ++k) {
          const ordinal_t c = aent(k);
          if (c < i || (ict && c == i)) {
            L0.col(ql) = c;
            L0.row(ql) = i;
            L0.apos(ql) = k;
            ++ql;
          } else if (!ict) {
            if (c == i) {  // unit diagonal of L (last entry of the row)
              const offset_t d = L0.ptr(i + 1) - 1;
              L0.col(d) = i;
              L0.row(d) = i;
              L0.apos(d) = k;
            }
            U0.col(qu) = c;
            U0.row(qu) = i;
            U0.apos(qu) = k;
            ++qu;
          }
        }
      });
}

/// Numeric phase: the initial guess on the pattern of the symbolic phase: L = strict lower part of A_s + I,
/// U = upper part (ParICT: L = lower part), with Ut, umap and the task list.
template <class ExecSpace, class Handle>
void ilut_initial_guess(const ExecSpace& exec, Handle& h) {
  auto& st = h.state();
  using Scalar = typename Handle::scalar_type;
  using VV = typename Handle::value_view;
  const bool det = h.params.mode == SweepMode::Deterministic;
  const bool ict = st.kind == ParIlutKind::Ict;
  // the pattern Views are shared with L0 / U0: no phase writes a factor's pattern in place
  st.L = st.L0;
  ++st.pattern_generation;
  st.U = st.U0;
  st.L.val = ilut_alloc<VV>(ilut_ws(h), "AsyncSparse::par_ilut::val", st.L.nnz);
  if (det) st.L.val2 = ilut_alloc<VV>(ilut_ws(h), "AsyncSparse::par_ilut::val2", st.L.nnz);
  VV uval;
  if (!ict) uval = ilut_alloc<VV>(ilut_ws(h), "AsyncSparse::par_ilut::uval", st.U.nnz);
  auto aval = st.a_val;
  const auto L = st.L, U = st.U;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::initial_values", Impl::RangePolicy<ExecSpace>(exec, 0, st.n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        for (offset_t q = L.ptr(i); q < L.ptr(i + 1); ++q) {
          const Scalar v = (!ict && L.col(q) == i) ? Scalar(1) : aval(L.apos(q));
          L.val(q) = v;
          if (det) L.val2(q) = v;
        }
        if (!ict)
          for (offset_t q = U.ptr(i); q < U.ptr(i + 1); ++q) uval(q) = aval(U.apos(q));
      });
  if (!ict) {
    ilut_build_ut(exec, h, uval, det);
    ilut_build_tasks(exec, h);
  }
}

// ------------------------------------------------------------------------------------------------------------
// Symbolic phase, and step 0 of the numeric phase
// ------------------------------------------------------------------------------------------------------------

/// Scaled values of A (new View) and s; a_norm2 = ||A_s||_F^2.
template <class ExecSpace, class Handle, class Mat>
void ilut_scale(const ExecSpace& exec, Handle& h, const Mat& A) {
  auto& st = h.state();
  auto scaled = scale_unit_diagonal(exec, A);
  st.a_val = scaled.A.values;
  st.s = scaled.s;
  using DV = Kokkos::View<double*, typename Handle::device_type>;
  DV rowsum = ilut_alloc<DV>(ilut_ws(h), "AsyncSparse::par_ilut::a_rowsum", st.n);
  auto rm = A.graph.row_map;
  auto v = st.a_val;
  if (st.shift > 0.0 && !st.shift_released) {  // A_s + shift I (Params::diagonal_shift)
    auto ent = A.graph.entries;
    using Scalar = typename Handle::scalar_type;
    const Scalar alpha = static_cast<Scalar>(st.shift);
    Kokkos::parallel_for(
        "AsyncSparse::par_ilut::shift", Impl::RangePolicy<ExecSpace>(exec, 0, st.n), KOKKOS_LAMBDA(const ordinal_t i) {
          for (offset_t k = rm(i); k < rm(i + 1); ++k)
            if (ent(k) == i) v(k) += alpha;
        });
  }
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::a_norm", Impl::RangePolicy<ExecSpace>(exec, 0, st.n), KOKKOS_LAMBDA(const ordinal_t i) {
        double s = 0;
        for (offset_t k = rm(i); k < rm(i + 1); ++k)
          s += ilut_mul(static_cast<double>(v(k)), static_cast<double>(v(k)));
        rowsum(i) = s;
      });
  st.a_norm2 = ilut_sum(exec, rowsum, st.n, h.params.mode == SweepMode::Deterministic);
}

template <class Handle>
void ilut_record_step0(Handle& h) {
  auto& st = h.state();
  ParIlutStepStats s0;
  s0.step = 0;
  s0.nnz_L = st.L.nnz;
  s0.nnz_U = st.kind == ParIlutKind::Ilut ? st.U.nnz : st.L.nnz;
  h.stats().steps.assign(1, s0);
}

/// Symbolic phase: checks of A's pattern (square, non-empty, sorted unique columns, stored diagonal; ParICT a
/// symmetric pattern), the pattern of A and the pattern of the initial guess. Resets the factors and Stats.
template <class ExecSpace, class Handle, class Mat>
void ilut_symbolic(const ExecSpace& exec, Handle& h, const Mat& A, const std::string& where) {
  Kokkos::Timer timer;
  const ParIlutKind kind = h.params.kind;
  ilut_check_handle_params(h, where);
  ilut_check_matrix(exec, A, kind == ParIlutKind::Ict, false, where, par_ilut_name(kind));
  auto& st = h.state();
  const auto select = std::move(st.select);
  st = typename Handle::State();
  st.select = select;
  st.kind = kind;
  st.n = A.numRows();
  st.nnz_A = A.nnz();
  st.a_row_map = A.graph.row_map;
  st.a_entries = A.graph.entries;
  ilut_reset_breakdown(exec, h);
  ilut_initial_pattern(exec, h);
  st.symbolic = true;
  auto& stats = h.stats();
  stats = typename Handle::Stats();
  stats.kind = kind;
  stats.n = st.n;
  stats.nnz_A = st.nnz_A;
  exec.fence();
  stats.symbolic_seconds = timer.seconds();
}

/// Scaling, initial guess (step 0) and the fill budgets. Resets the Stats of the numeric phase.
template <class ExecSpace, class Handle, class Mat>
void ilut_initialize(const ExecSpace& exec, Handle& h, const Mat& A) {
  Kokkos::Timer timer;
  auto& st = h.state();
  auto& stats = h.stats();
  const double symbolic_seconds = stats.symbolic_seconds;
  stats = typename Handle::Stats();
  stats.kind = st.kind;
  stats.n = st.n;
  stats.nnz_A = st.nnz_A;
  stats.symbolic_seconds = symbolic_seconds;
  stats.shift = st.shift;
  stats.ordered = st.ordered;
  st.ready = false;
  st.shift_released = false;
  ilut_scale(exec, h, A);
  ilut_initial_guess(exec, h);
  ilut_reset_breakdown(exec, h);
  const double f = h.params.fill_in_limit;
  stats.budget_L = static_cast<offset_t>(std::llround(f * static_cast<double>(st.L.nnz)));
  stats.budget_U =
      st.kind == ParIlutKind::Ilut ? static_cast<offset_t>(std::llround(f * static_cast<double>(st.U.nnz))) : 0;
  ilut_record_step0(h);
  st.ready = true;
  exec.fence();
  stats.setup_seconds = timer.seconds();
}

/// Step 0's sweeps on the initial pattern (Params::initial_sweeps): toward the fixed point ILU(0) / IC(0) of A's
/// pattern. A breakdown in the last of them throws in the deterministic mode and is counted otherwise (as a step's;
/// also with ordered sweeps: their exact IC(0) of a shifted matrix broke down on bcsstk13 and bcsstk18 where the
/// steps that followed did not, and throwing there instead cost 658 against 91 and 282 against 103 PCG iterations).
template <class ExecSpace, class Handle, class Phase>
void ilut_initial_sweeps(const ExecSpace& exec, Handle& h, Phase phase) {
  if (h.params.initial_sweeps == 0) return;
  Kokkos::Timer timer;
  auto& s0 = h.stats().steps.front();
  const auto ph = phase();
  s0.sweeps = ph.sweeps;
  s0.pattern_residual = ph.residual;
  s0.pivots_replaced = ilut_status(exec, h).replaced;
  h.stats().pivots_replaced = s0.pivots_replaced;
  exec.fence();
  s0.sweep_seconds = s0.total_seconds = timer.seconds();
  if (h.params.mode == SweepMode::Deterministic)
    ilut_check_breakdown(exec, h);
  else if (ilut_broke_down(exec, h))
    ++h.stats().breakdown_steps;
}

}  // namespace Impl
}  // namespace AsyncSparse
