// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse ilu / ic — the rows of the exact incomplete factorizations (serial host reference, Kokkos-Kernels
// spiluk, cuSPARSE csric02/csrilu02 in CUDA builds), the solves with given factors, and the entrywise error of
// iterative factors against the exact ones.
#include <asyncsparse/AsyncSparse_config.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/factorization/AsyncSparse_cusparse_baseline.hpp>
#include <asyncsparse/factorization/AsyncSparse_residuals.hpp>
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>

#include "cmd_ilu.hpp"

namespace AsyncSparse {
namespace Driver {
namespace Ilu {

namespace cmd_ilu_exact_local {
bool same_factor(const CrsD& a, const CrsD& b) {
  if (a.numRows() != b.numRows() || a.nnz() != b.nnz()) return false;
  auto ra = a.graph.row_map, rb = b.graph.row_map;
  auto ea = a.graph.entries, eb = b.graph.entries;
  auto va = a.values, vb = b.values;
  int diff = 0;
  Kokkos::parallel_reduce(
      "asyncsparse::ilu::same_factor", Impl::RangePolicy<ExecSpace>(0, a.numRows()),
      KOKKOS_LAMBDA(const ordinal_t i, int& d) {
        if (ra(i + 1) != rb(i + 1)) {
          d = 1;
          return;
        }
        for (offset_t k = ra(i); k < ra(i + 1); ++k)
          if (ea(k) != eb(k) || va(k) != vb(k)) d = 1;
      },
      Kokkos::Max<int>(diff));
  return diff <= 0;  // the identity of Max is the lowest int
}

CrsD copy_values(const CrsD& M) {
  CrsD::values_type::non_const_type v("asyncsparse::ilu::copy", M.nnz());
  Kokkos::deep_copy(v, M.values);
  return CrsD("copy", M.numRows(), M.numCols(), M.nnz(), v, M.graph.row_map, M.graph.entries);
}

void record(const SolverResult& r, Row& row, bool verbose, bool ran = true) {
  if (verbose) {
    std::fprintf(stderr, "  %s: %s, %d iterations, %s\n", row.label.c_str(), to_string(r.status), r.iterations,
                 ran ? fmt("%.2f s", r.time_seconds).c_str() : ("same factors as " + row.reused_from).c_str());
    std::fflush(stderr);
  }
  row.statuses.push_back(to_string(r.status));
  if (ran) row.solve_s.add(r.time_seconds);
  if (r.converged())
    row.iterations.add(r.iterations);
  else
    row.note = std::string("solver ") + to_string(r.status) + (r.message.empty() ? "" : ": " + r.message);
}
}  // namespace cmd_ilu_exact_local
using namespace cmd_ilu_exact_local;  // named, not anonymous: the driver's files share unity batches

void solve_with(const CrsD& A, const CrsD& L, const CrsD& U, bool unit_lower, const Kokkos::View<double*, Device>& s,
                TriSolveKind tri, int tri_sweeps, const SolveSetup& ss, Row& row, SolveCache* cache) {
  if (!ss.solve) return;
  if (cache)
    for (const auto& c : *cache)
      if (same_factor(c.L, L) && same_factor(c.U, U)) {
        row.reused_from = c.label;
        record(c.result, row, ss.verbose, false);
        ++row.reused;
        return;
      }
  IncompleteFactorPreconditioner<double, Device> M(A, L, U, unit_lower, s, tri, tri_sweeps, row.label);
  Kokkos::fence();
  const auto t0 = std::chrono::steady_clock::now();
  M.compute();
  Kokkos::fence();
  row.tri_setup_ms.add(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  row.tri_solve = M.tri_solve_mode();
  row.tri_reason = M.tri_solve_reason();
  const auto r = solve_ones(A, &M, ss.spd, ss.params);
  record(r, row, ss.verbose);
  if (cache) cache->push_back({row.label, copy_values(L), copy_values(U), r});
}

void host_exact_factors(const CsrHost<double>& As, bool ic, int fill, CsrHost<double>& L, CsrHost<double>& U) {
  if (ic) {
    L = Reference::ic0(As);
    return;
  }
  auto F = fill == 0 ? Reference::ilu0(As) : Reference::iluk(As, fill);
  L = std::move(F.L);
  U = std::move(F.U);
}

std::string FactorError::describe() const {
  if (max_rel == 0) return "factors equal the exact ones";
  std::string s = "max factor error " + fmt("%.2e", max_rel) + " at " + factor + "(" + std::to_string(row) + ", " +
                  std::to_string(col) + "); " + std::to_string(above_1e3) + " entries > 1e-3, " +
                  std::to_string(above_1e2) + " > 1e-2; per sixteenth of the rows:";
  for (double b : band_max) s += " " + fmt("%.1e", b);
  return s;
}

void add_factor_error(const CrsD& F, const CsrHost<double>& X, char name, FactorError& e) {
  const auto Fh = to_host(F);
  if (Fh.nrows != X.nrows) throw InvalidInput("--factor-error: factor and exact factor differ in size");
  for (ordinal_t i = 0; i < X.nrows; ++i) {
    const int band = static_cast<int>((static_cast<long long>(i) * FactorError::kBands) / X.nrows);
    offset_t p = Fh.row_ptr[i], q = X.row_ptr[i];
    while (p < Fh.row_ptr[i + 1] && q < X.row_ptr[i + 1]) {
      if (Fh.col_idx[p] < X.col_idx[q]) {
        ++p;
      } else if (X.col_idx[q] < Fh.col_idx[p]) {
        ++q;
      } else {
        const double ref = std::abs(X.values[q]);
        const double err = std::abs(Fh.values[p] - X.values[q]) / (ref > 0 ? ref : 1.0);
        if (err > e.max_rel) {
          e.max_rel = err;
          e.row = i;
          e.col = X.col_idx[q];
          e.factor = name;
        }
        if (err > 1e-3) ++e.above_1e3;
        if (err > 1e-2) ++e.above_1e2;
        e.band_max[band] = std::max(e.band_max[band], err);
        ++p;
        ++q;
      }
    }
  }
}

namespace cmd_ilu_exact_local {
/// Nonlinear residual (and ILU residual) of exact factors of the scaled matrix.
void residuals(const Setup& s, const CrsD& L, const CrsD& U, bool ic_form, Row& row) {
  row.nonlinear.add(ic_form ? nonlinear_residual_ic(s.exec, s.scaled.A, L)
                            : nonlinear_residual(s.exec, s.scaled.A, L, U));
  if (s.want_ilu_residual) row.ilu_residual.add(ilu_residual(s.exec, s.scaled.A, L, U));
}

/// Host reference (serial Gaussian elimination on the scaled matrix).
Row host_row(const Setup& s, SolveCache& cache) {
  Row row;
  row.label = std::string("exact ") + (s.ic ? "IC" : "ILU") + "(" + std::to_string(s.fill) + "), host reference";
  if (s.ic && s.fill > 0) {
    row.note = "no host IC(k) reference for k > 0";
    return row;
  }
  const auto Ash = to_host(s.scaled.A);
  Kokkos::Timer t;
  CsrHost<double> Lh, Uh;
  try {
    host_exact_factors(Ash, s.ic, s.fill, Lh, Uh);
    row.total_ms.add(1e3 * t.seconds());
    const auto L = to_device<Device>(Lh, "L_ref");
    const auto U = s.ic ? transpose(L) : to_device<Device>(Uh, "U_ref");
    residuals(s, L, U, s.ic, row);
    solve_with(s.A, L, U, !s.ic, s.scaled.s, s.tri, s.tri_sweeps, s.ss, row, &cache);
  } catch (const BreakdownError& e) {
    row.note = e.what();
  }
  return row;
}

/// Kokkos-Kernels spiluk on the device.
Row kk_row(const Setup& s, Json& baselines) {
  Row row;
  row.label = "exact ILU(" + std::to_string(s.fill) + "), Kokkos-Kernels spiluk";
  KkSpiluk<double, Device> kk;
  kk.symbolic(s.scaled.A, s.fill);
  double t = kk.numeric(s.scaled.A);
  if (t < 1.0) t = kk.numeric(s.scaled.A);  // the first run was a warm-up (unless it is slow anyway)
  row.total_ms.add(1e3 * t);
  row.note = "numeric phase; symbolic (host) " + fmt("%.1f", 1e3 * kk.symbolic_seconds()) + " ms";
  const auto L = kk.L(), U = kk.U();
  residuals(s, L, U, false, row);
  SolveSetup kss = s.ss;
  kss.solve = s.ss.solve && s.solve_all_exact;
  if (s.ss.solve && !kss.solve)
    row.note +=
        "; solve skipped (same preconditioner as the host reference up to round-off; --solve-all-exact runs it)";
  solve_with(s.A, L, U, true, s.scaled.s, s.tri, s.tri_sweeps, kss, row);
  baselines["spiluk_symbolic_seconds"] = kk.symbolic_seconds();
  return row;
}

#if ASYNCSPARSE_HAVE_CUSPARSE
/// cuSPARSE csric02 / csrilu02 (level 0 only).
Row cusparse_row(const Setup& s, SolveCache& cache) {
  Row row;
  row.label = std::string("exact ") + (s.ic ? "IC(0), cuSPARSE csric02" : "ILU(0), cuSPARSE csrilu02");
  try {
    CusparseIncompleteFactor<Device> cf;
    cf.setup(s.scaled.A, s.ic);
    cf.factor();  // warm-up
    row.total_ms.add(1e3 * cf.factor());
    row.note = "analysis + factorization";
    const auto L = cf.L(), U = cf.U();
    residuals(s, L, U, s.ic, row);
    solve_with(s.A, L, U, !s.ic, s.scaled.s, s.tri, s.tri_sweeps, s.ss, row, &cache);
  } catch (const Error& e) {
    row.note = e.what();
  }
  return row;
}
#endif
}  // namespace cmd_ilu_exact_local

std::vector<Row> exact_factorization_rows(const Setup& s, SolveCache& cache, Json& baselines) {
  std::vector<Row> rows;
  if (s.exact.count("host")) rows.push_back(host_row(s, cache));
  if (s.exact.count("kk")) rows.push_back(kk_row(s, baselines));
#if ASYNCSPARSE_HAVE_CUSPARSE
  if (s.fill == 0 && s.exact.count("cusparse")) rows.push_back(cusparse_row(s, cache));
#endif
  return rows;
}

}  // namespace Ilu
}  // namespace Driver
}  // namespace AsyncSparse
