// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — kernels and set-up shared by the synchronous and asynchronous Jacobi iterations:
// input validation, the diagonal, the residual r = b - A x, norms, and the stopping logic.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_chunked_launch.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>
#include <asyncsparse/relaxation/AsyncSparse_async_jacobi_handle.hpp>

namespace AsyncSparse {
namespace Impl {

/// Parameter checks common to all modes; `where` prefixes the messages.
inline void check_jacobi_params(const AsyncJacobiParams& p, const LaunchConfig& l, const char* where, bool async) {
  const std::string w(where);
  if (!(p.omega > 0.0) || !std::isfinite(p.omega))
    throw InvalidInput(w + ": omega must be finite and > 0, got " + format_number(p.omega));
  if (p.updates < 0) throw InvalidInput(w + ": updates must be >= 0, got " + std::to_string(p.updates));
  if (!(p.tol >= 0.0) || !std::isfinite(p.tol))
    throw InvalidInput(w + ": tol must be finite and >= 0, got " + format_number(p.tol));
  if (p.check_interval < 0)
    throw InvalidInput(w + ": check_interval must be >= 0 (0: automatic), got " + std::to_string(p.check_interval));
  if (p.max_updates_per_launch < 0)
    throw InvalidInput(w + ": max_updates_per_launch must be >= 0 (0: automatic), got " +
                       std::to_string(p.max_updates_per_launch));
  if (!p.residual_norms && (p.tol > 0 || p.record_history))
    throw InvalidInput(w + ": residual_norms = false needs tol == 0 and record_history == false");
  if (!(p.divergence_factor > 1.0))
    throw InvalidInput(w + ": divergence_factor must be > 1, got " + format_number(p.divergence_factor));
  if (async) {
    if (l.vector_length != -1 && (l.vector_length < 1 || l.vector_length > 32))
      throw InvalidInput(w + ": launch.vector_length (lanes per row) must be -1 (auto) or 1..32, got " +
                         std::to_string(l.vector_length));
    if (l.oversubscription < 1 || l.oversubscription > 16)
      throw InvalidInput(w + ": launch.oversubscription must be in 1..16, got " + std::to_string(l.oversubscription));
  }
}

/// Symbolic phase of jacobi_* and async_jacobi_* (`method` names the family): A square and non-empty, the
/// workspace (diagonal, residual, counter) sized for A, A's pattern kept for the numeric phase.
template <class ExecSpace, class Scalar, class Device>
void jacobi_symbolic_impl(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h, const Crs<Scalar, Device>& A,
                          const std::string& method) {
  const std::string w = method + "_symbolic";
  const ordinal_t n = A.numRows();
  if (A.numRows() != A.numCols())
    throw InvalidInput(w + ": matrix must be square, got " + std::to_string(A.numRows()) + " x " +
                       std::to_string(A.numCols()));
  if (n == 0) throw InvalidInput(w + ": matrix is empty (0 rows)");
  auto& ws = h.ws;
  ws.symbolic = ws.numeric = false;
  if (ws.diag.extent(0) != static_cast<std::size_t>(n)) {
    ws.diag =
        Kokkos::View<Scalar*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::jacobi_diag"), n);
    ws.r = Kokkos::View<Scalar*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::jacobi_r"), n);
  }
  if (!ws.counter.data()) ws.counter = Kokkos::View<std::int64_t, Device>("AsyncSparse::jacobi_counter");
  ws.row_map = A.graph.row_map;
  ws.entries = A.graph.entries;
  ws.A = Crs<Scalar, Device>();
  exec.fence();
  ws.symbolic = true;
}

/// Numeric phase: A has the symbolic pattern; its values are finite, every diagonal entry is stored and non-zero
/// (InvalidInput naming the first bad row); computes the diagonal and keeps A for the apply / solve calls.
template <class ExecSpace, class Scalar, class Device>
void jacobi_numeric_impl(const ExecSpace& exec, AsyncJacobiHandle<Scalar, Device>& h, const Crs<Scalar, Device>& A,
                         const std::string& method) {
  const std::string w = method + "_numeric";
  auto& ws = h.ws;
  if (!ws.symbolic) throw InvalidInput(w + ": " + method + "_symbolic must be called first");
  const ordinal_t n = A.numRows();
  if (A.numRows() != A.numCols() || static_cast<std::size_t>(n) + 1 != ws.row_map.extent(0) ||
      A.graph.entries.extent(0) != ws.entries.extent(0) ||
      !same_graph(exec, n, A.graph.row_map, A.graph.entries, ws.row_map, ws.entries))
    throw InvalidInput(w + ": the matrix does not have the pattern given to " + method + "_symbolic");
  ws.numeric = false;
  auto rows = A.graph.row_map;
  auto cols = A.graph.entries;
  auto vals = A.values;
  auto diag = ws.diag;
  // code: 1 non-finite value, 2 missing diagonal, 3 zero diagonal; the first row with a problem wins
  std::int64_t bad = std::int64_t(n) * 4;
  Kokkos::parallel_reduce(
      "AsyncSparse::jacobi::setup", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, std::int64_t& first) {
        Scalar d = 0;
        bool found = false, finite = true;
        for (offset_t p = rows(i); p < rows(i + 1); ++p) {
          finite = finite && is_finite(vals(p));
          if (cols(p) == i) {
            d += vals(p);
            found = true;
          }
        }
        diag(i) = d;
        const int code = !finite ? 1 : !found ? 2 : d == Scalar(0) ? 3 : 0;
        if (code && std::int64_t(i) * 4 + code < first) first = std::int64_t(i) * 4 + code;
      },
      Kokkos::Min<std::int64_t>(bad));
  if (bad < std::int64_t(n) * 4) {
    const std::int64_t row = bad / 4;
    const int code = static_cast<int>(bad % 4);
    const char* what = code == 1   ? "non-finite matrix entry"
                       : code == 2 ? "missing diagonal entry"
                                   : "zero diagonal entry";
    throw InvalidInput(w + ": " + what + " in row " + std::to_string(row));
  }
  std::int64_t non_unit = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::jacobi::unit_diagonal", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, std::int64_t& c) { c += diag(i) != Scalar(1); }, non_unit);
  ws.unit_diagonal = non_unit == 0;
  ws.A = A;
  ws.numeric = true;
}

/// Checks of an apply / solve call (`where`; `method` names the family): the numeric phase is done, b and x have
/// the matrix's length; with residual norms b and x are finite. Returns ||b||_2 (-1 without residual norms).
template <class ExecSpace, class Scalar, class Device>
double jacobi_check_vectors(const ExecSpace& exec, const AsyncJacobiHandle<Scalar, Device>& h,
                            const Kokkos::View<const Scalar*, Device>& b, const Kokkos::View<Scalar*, Device>& x,
                            const std::string& method, const std::string& where) {
  const std::string& w = where;
  if (!h.ws.numeric) throw InvalidInput(w + ": " + method + "_numeric must be called first");
  const ordinal_t n = h.ws.A.numRows();
  if (b.extent(0) != static_cast<std::size_t>(n))
    throw InvalidInput(w + ": b has length " + std::to_string(b.extent(0)) + ", the matrix " + std::to_string(n) +
                       " rows");
  if (x.extent(0) != static_cast<std::size_t>(n))
    throw InvalidInput(w + ": x has length " + std::to_string(x.extent(0)) + ", the matrix " + std::to_string(n) +
                       " rows");
  // without residual norms (preconditioner applies) ||b|| is not needed, and NaN/Inf in b or x show up in
  // the final finiteness check of x: two reductions per call saved
  if (!h.params.residual_norms) return -1.0;
  double bb = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::jacobi::norm_b", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, double& s) { s += static_cast<double>(b(i)) * static_cast<double>(b(i)); }, bb);
  if (!std::isfinite(bb)) throw InvalidInput(w + ": b contains NaN or Inf");
  ordinal_t bad_x = n;
  Kokkos::parallel_reduce(
      "AsyncSparse::jacobi::check_x", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, ordinal_t& first) {
        if (!is_finite(x(i)) && i < first) first = i;
      },
      Kokkos::Min<ordinal_t>(bad_x));
  if (bad_x < n) throw InvalidInput(w + ": initial guess x has a non-finite entry in row " + std::to_string(bad_x));
  return std::sqrt(bb);
}

/// Parameters an apply / solve call runs with: *_apply does exactly `updates` updates per row, without residual
/// checks (tol, check_interval and record_history are not read).
inline AsyncJacobiParams jacobi_run_params(const AsyncJacobiParams& p, bool to_tolerance) {
  AsyncJacobiParams q = p;
  if (!to_tolerance) {
    q.tol = 0.0;
    q.record_history = false;
    q.check_interval = 1;
  }
  return q;
}

/// r = b - A x, one lane group per row. With one lane the sum is formed as r = b; r -= a_ij x_j in
/// column order, exactly as Reference::jacobi does.
template <class Scalar, class Device>
struct ResidualRow {
  typename Crs<Scalar, Device>::row_map_type rows;
  typename Crs<Scalar, Device>::index_type cols;
  typename Crs<Scalar, Device>::values_type vals;
  Kokkos::View<const Scalar*, Device> b, x;
  Kokkos::View<Scalar*, Device> r;
  int vector_length;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, std::int64_t unit) const {
    const ordinal_t i = static_cast<ordinal_t>(unit);
    const offset_t beg = rows(i), end = rows(i + 1);
    if (vector_length == 1) {
      Scalar s = b(i);
      for (offset_t p = beg; p < end; ++p) s -= vals(p) * x(cols(p));
      r(i) = s;
    } else {
      Scalar s = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, beg, end),
          [&](const offset_t p, Scalar& acc) { acc += vals(p) * x(cols(p)); }, s);
      Kokkos::single(Kokkos::PerThread(team), [&]() { r(i) = b(i) - s; });
    }
  }
};

template <class ExecSpace, class Scalar, class Device>
void compute_residual(const ExecSpace& exec, const ChunkedLaunch<ExecSpace>& launcher, const Crs<Scalar, Device>& A,
                      const Kokkos::View<const Scalar*, Device>& b, const Kokkos::View<const Scalar*, Device>& x,
                      const Kokkos::View<Scalar*, Device>& r) {
  ResidualRow<Scalar, Device> f{A.graph.row_map, A.graph.entries, A.values, b, x, r, launcher.resolved().vector_length};
  launcher.run("AsyncSparse::jacobi::residual", exec, f);
}

template <class ExecSpace, class Scalar, class Device>
double norm2(const ExecSpace& exec, const Kokkos::View<Scalar*, Device>& r) {
  double s = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::jacobi::norm", Impl::RangePolicy<ExecSpace>(exec, 0, r.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i, double& acc) {
        acc += static_cast<double>(r(i)) * static_cast<double>(r(i));
      },
      s);
  return std::sqrt(s);
}

/// Relative residual ||b - A x|| / ||b|| (absolute when b = 0), using the handle's r as workspace.
template <class ExecSpace, class Scalar, class Device>
double relative_residual(const ExecSpace& exec, const ChunkedLaunch<ExecSpace>& launcher,
                         AsyncJacobiHandle<Scalar, Device>& h, const Crs<Scalar, Device>& A,
                         const Kokkos::View<const Scalar*, Device>& b, const Kokkos::View<Scalar*, Device>& x,
                         double bnorm) {
  compute_residual(exec, launcher, A, b, Kokkos::View<const Scalar*, Device>(x), h.ws.r);
  const double rn = norm2(exec, h.ws.r);
  return bnorm > 0 ? rn / bnorm : rn;
}

/// Defaults shared by every Jacobi kernel: vector length -1 means one lane per row — the paper's best for the
/// asynchronous modes, and the fastest synchronous residual kernel measured on the 5-point Laplacian
/// (Kokkos-Kernels' heuristic, a power of two near the mean row length, gives 4 lanes there, and a slower
/// synchronous sweep). Default chosen by measurement: perf_tests/results/MEASUREMENTS.md#jacobi-vector-length
inline LaunchDefaults jacobi_launch_defaults() {
  LaunchDefaults d;
  d.vector_length = 1;
  d.method = "jacobi";
  return d;
}

/// Resolve the launch of a Jacobi kernel for `A` (the residual kernel of synchronous Jacobi and of the residual
/// checks with jacobi_launch_defaults; the asynchronous modes with their own, resolve_async_jacobi_launch).
template <class ExecSpace, class Scalar, class Device>
ResolvedLaunch resolve_jacobi_launch(const LaunchConfig& cfg, const Crs<Scalar, Device>& A, const ExecSpace& exec,
                                     const LaunchDefaults& defaults = jacobi_launch_defaults()) {
  const double avg = A.numRows() > 0 ? static_cast<double>(A.nnz()) / A.numRows() : 1.0;
  return resolve_launch_config<ExecSpace>(cfg, A.numRows(), avg, exec, defaults);
}

/// Divergence test at a check; fills status and message. Returns true when the run must stop.
inline bool jacobi_diverged(AsyncJacobiStats& st, double res, double factor, int updates) {
  if (!std::isfinite(res)) {
    st.status = JacobiStatus::NonFinite;
    st.message = "residual became non-finite after " + std::to_string(updates) + " updates per row";
    return true;
  }
  if (st.initial_residual > 0 && res > factor * st.initial_residual) {
    st.status = JacobiStatus::Diverged;
    st.message = "relative residual grew from " + format_number(st.initial_residual) + " to " + format_number(res) +
                 " after " + std::to_string(updates) + " updates per row (more than the divergence factor " +
                 format_number(factor) + "); the iteration matrix likely has rho(|M|) >= 1";
    return true;
  }
  return false;
}

/// Index of the first non-finite entry of x (x.extent(0) when none).
template <class ExecSpace, class XView>
std::int64_t first_non_finite(const ExecSpace& exec, const XView& x) {
  std::int64_t bad = static_cast<std::int64_t>(x.extent(0));
  Kokkos::parallel_reduce(
      "AsyncSparse::jacobi::check_finite", Impl::RangePolicy<ExecSpace>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& first) {
        if (!is_finite(x(i)) && i < first) first = i;
      },
      Kokkos::Min<std::int64_t>(bad));
  return bad;
}

/// Final residual (or, without residual norms, a finiteness check of x), after the timed region.
template <class ExecSpace, class Scalar, class Device>
void jacobi_final_residual(const ExecSpace& exec, const ChunkedLaunch<ExecSpace>& launcher,
                           AsyncJacobiHandle<Scalar, Device>& h, AsyncJacobiStats& st, const Crs<Scalar, Device>& A,
                           const Kokkos::View<const Scalar*, Device>& b, const Kokkos::View<Scalar*, Device>& x) {
  if (h.params.residual_norms) {
    st.final_residual = relative_residual(exec, launcher, h, A, b, x, st.b_norm);
    return;
  }
  st.final_residual = -1.0;
  const std::int64_t bad = first_non_finite(exec, x);
  if (bad < static_cast<std::int64_t>(x.extent(0)) && !st.failed()) {
    st.status = JacobiStatus::NonFinite;
    st.message = "x has a non-finite entry in row " + std::to_string(bad) + " after " +
                 std::to_string(st.updates_done) + " updates per row";
  }
}

/// Final status (after jacobi_final_residual); throws DivergenceError when asked to.
inline void jacobi_finish(AsyncJacobiStats& st, const AsyncJacobiParams& p, const char* where) {
  if (!st.failed()) {
    if (!p.residual_norms) {
      st.status = JacobiStatus::UpdatesDone;
    } else if (!jacobi_diverged(st, st.final_residual, p.divergence_factor, st.updates_done)) {
      st.status = (p.tol > 0 && st.final_residual <= p.tol) ? JacobiStatus::Converged : JacobiStatus::UpdatesDone;
      if (st.status == JacobiStatus::UpdatesDone && st.final_residual > st.initial_residual && st.updates_done > 0)
        st.message = "relative residual grew from " + format_number(st.initial_residual) + " to " +
                     format_number(st.final_residual) + " (the iteration may diverge)";
    }
  }
  st.time_per_update = st.updates_done > 0 ? st.update_seconds / st.updates_done : 0.0;
  if (p.throw_on_divergence && st.failed()) throw DivergenceError(where, st.updates_done, st.message);
}

}  // namespace Impl
}  // namespace AsyncSparse
