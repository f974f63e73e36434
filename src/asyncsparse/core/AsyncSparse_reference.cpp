// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Serial host references: the factorizations (ILU(0), IC(0), ILU(k), ILUT / ICT and their fixed-nnz variants,
// exact ILU / IC on a given pattern).
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/impl/AsyncSparse_reference_checks.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <set>
#include <string>
#include <utility>

namespace AsyncSparse {
namespace Reference {
namespace Impl {

inline void check_symmetric(const char* fn, const CsrHost<double>& A) {
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A.col_idx[p];
      if (j >= i) continue;
      const offset_t q = find_entry(A, j, i);
      const double aij = A.values[p], aji = q < 0 ? 0.0 : A.values[q];
      if (q < 0 || std::abs(aij - aji) > 1e-12 * std::max(std::abs(aij), std::abs(aji)))
        throw InvalidInput(std::string(fn) + ": A is not symmetric: a(" + std::to_string(i) + ", " + std::to_string(j) +
                           ") = " + fmt(aij) + " but a(" + std::to_string(j) + ", " + std::to_string(i) +
                           ") = " + (q < 0 ? std::string("(not stored)") : fmt(aji)));
    }
}

/// LU pivot u (of a row whose a_ii is `aii`) under `rule`: replaced when |u| < t |a_ii| (counted in `count`).
inline double lu_pivot(double u, double aii, const FactorOptions& rule, offset_t& count) {
  const double t = rule.pivot_tolerance * std::abs(aii);
  if (rule.pivot_tolerance > 0.0 && std::isfinite(u) && std::abs(u) < t) {
    ++count;
    return u < 0.0 ? -t : t;
  }
  return u;
}

/// IC pivot d = l_ii^2 under `rule`: replaced when d < t a_ii.
inline double ic_pivot(double d, double aii, const FactorOptions& rule, offset_t& count) {
  const double t = rule.pivot_tolerance * aii;
  if (rule.pivot_tolerance > 0.0 && std::isfinite(d) && !(d >= t) && t > 0.0) {
    ++count;
    return t;
  }
  return d;
}

/// Throws TimeLimitExceeded when `timer` has run past rule.max_seconds (checked every 64 rows).
inline void check_time(const char* fn, const FactorOptions& rule, const std::chrono::steady_clock::time_point& start,
                       ordinal_t row, ordinal_t n) {
  if (rule.max_seconds <= 0.0 || row == 0 || row % 64 != 0) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (s > rule.max_seconds) throw TimeLimitExceeded(fn, row, n, s);
}

inline void report_pivots(const FactorOptions& rule, offset_t count) {
  if (rule.pivots_replaced) *rule.pivots_replaced = count;
}

/// In-place IKJ incomplete LU on the combined pattern P (strict lower part = L, rest = U), values of A already
/// scattered into P. Every update outside the pattern is discarded.
inline void factor_on_pattern(const char* fn, CsrHost<double>& P, const std::vector<offset_t>& diag,
                              const FactorOptions& rule = {}) {
  const ordinal_t n = P.nrows;
  std::vector<offset_t> pos(n, -1);
  offset_t replaced = 0;
  for (ordinal_t i = 0; i < n; ++i) {
    const double aii = P.values[diag[i]];  // row i is modified only while it is eliminated
    for (offset_t p = P.row_ptr[i]; p < P.row_ptr[i + 1]; ++p) pos[P.col_idx[p]] = p;
    for (offset_t p = P.row_ptr[i]; p < diag[i]; ++p) {
      const ordinal_t k = P.col_idx[p];
      const double lik = P.values[p] / P.values[diag[k]];
      if (!std::isfinite(lik))
        throw BreakdownError(fn, i,
                             "non-finite value l(" + std::to_string(i) + ", " + std::to_string(k) + ") = " + fmt(lik));
      P.values[p] = lik;
      for (offset_t q = diag[k] + 1; q < P.row_ptr[k + 1]; ++q) {
        const offset_t t = pos[P.col_idx[q]];
        if (t >= 0) P.values[t] -= lik * P.values[q];
      }
    }
    for (offset_t p = diag[i]; p < P.row_ptr[i + 1]; ++p)
      if (!std::isfinite(P.values[p]))
        throw BreakdownError(fn, i,
                             "non-finite value u(" + std::to_string(i) + ", " + std::to_string(P.col_idx[p]) +
                                 ") = " + fmt(P.values[p]));
    P.values[diag[i]] = lu_pivot(P.values[diag[i]], aii, rule, replaced);
    if (P.values[diag[i]] == 0.0) throw BreakdownError(fn, i, "zero pivot u_ii = " + fmt(P.values[diag[i]]));
    for (offset_t p = P.row_ptr[i]; p < P.row_ptr[i + 1]; ++p) pos[P.col_idx[p]] = -1;
  }
  report_pivots(rule, replaced);
}

/// Splits a combined factor into unit lower L (explicit unit diagonal) and upper U.
inline IluFactors split_factors(const CsrHost<double>& P, const std::vector<offset_t>& diag) {
  const ordinal_t n = P.nrows;
  IluFactors F;
  F.L = CsrHost<double>(n, n);
  F.U = CsrHost<double>(n, n);
  for (ordinal_t i = 0; i < n; ++i) {
    for (offset_t p = P.row_ptr[i]; p < diag[i]; ++p) {
      F.L.col_idx.push_back(P.col_idx[p]);
      F.L.values.push_back(P.values[p]);
    }
    F.L.col_idx.push_back(i);
    F.L.values.push_back(1.0);
    F.L.row_ptr[i + 1] = static_cast<offset_t>(F.L.col_idx.size());
    for (offset_t p = diag[i]; p < P.row_ptr[i + 1]; ++p) {
      F.U.col_idx.push_back(P.col_idx[p]);
      F.U.values.push_back(P.values[p]);
    }
    F.U.row_ptr[i + 1] = static_cast<offset_t>(F.U.col_idx.size());
  }
  return F;
}

inline double row_norm2(const CsrHost<double>& A, ordinal_t i) {
  double s = 0.0;
  for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) s += A.values[p] * A.values[p];
  return std::sqrt(s);
}

/// Keeps the `cap` largest-magnitude entries of `cand` (ties: smaller column first), sorted by column.
inline void keep_largest(std::vector<std::pair<ordinal_t, double>>& cand, long long cap) {
  if (cap < 0) cap = 0;
  if (static_cast<long long>(cand.size()) > cap) {
    auto larger = [](const std::pair<ordinal_t, double>& a, const std::pair<ordinal_t, double>& b) {
      const double x = std::abs(a.second), y = std::abs(b.second);
      return x > y || (x == y && a.first < b.first);
    };
    std::nth_element(cand.begin(), cand.begin() + cap, cand.end(), larger);
    cand.resize(static_cast<std::size_t>(cap));
  }
  std::sort(cand.begin(), cand.end());
}

/// ILUT engine. cap_L(i, kept) / cap_U(i, kept) give the maximum number of strict-lower / strict-upper
/// entries of row i, `kept` being the number of such entries kept in rows < i.
template <class CapL, class CapU>
IluFactors ilut_core(const char* fn, const CsrHost<double>& A, double tau, CapL cap_L, CapU cap_U,
                     const FactorOptions& rule = {}) {
  const ordinal_t n = A.nrows;
  IluFactors F;
  F.L = CsrHost<double>(n, n);
  F.U = CsrHost<double>(n, n);
  std::vector<double> w(n, 0.0);
  std::vector<char> dropped(n, 0);
  std::set<ordinal_t> cols;
  std::vector<std::pair<ordinal_t, double>> candL, candU;
  offset_t keptL = 0, keptU = 0, replaced = 0;
  const auto start = std::chrono::steady_clock::now();
  for (ordinal_t i = 0; i < n; ++i) {
    check_time(fn, rule, start, i, n);
    const double tau_i = tau * row_norm2(A, i);
    double aii = 0.0;
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      w[A.col_idx[p]] = A.values[p];
      cols.insert(A.col_idx[p]);
      if (A.col_idx[p] == i) aii = A.values[p];
    }
    for (auto it = cols.begin(); it != cols.end() && *it < i; ++it) {
      const ordinal_t k = *it;
      const offset_t dk = F.U.row_ptr[k];  // diagonal is the first entry of row k of U
      const double wk = w[k] / F.U.values[dk];
      if (!std::isfinite(wk))
        throw BreakdownError(fn, i,
                             "non-finite value l(" + std::to_string(i) + ", " + std::to_string(k) + ") = " + fmt(wk));
      if (std::abs(wk) < tau_i) {
        w[k] = 0.0;
        dropped[k] = 1;
        continue;
      }
      w[k] = wk;
      for (offset_t q = dk + 1; q < F.U.row_ptr[k + 1]; ++q) {
        const ordinal_t j = F.U.col_idx[q];
        cols.insert(j);
        w[j] -= wk * F.U.values[q];
      }
    }
    candL.clear();
    candU.clear();
    for (ordinal_t j : cols) {
      if (j == i || dropped[j] || std::abs(w[j]) < tau_i) continue;
      if (!std::isfinite(w[j]))
        throw BreakdownError(
            fn, i, "non-finite value in row " + std::to_string(i) + " column " + std::to_string(j) + ": " + fmt(w[j]));
      (j < i ? candL : candU).emplace_back(j, w[j]);
    }
    keep_largest(candL, cap_L(i, keptL));
    keep_largest(candU, cap_U(i, keptU));
    const double uii = lu_pivot(w[i], aii, rule, replaced);
    if (!std::isfinite(uii)) throw BreakdownError(fn, i, "non-finite value u_ii = " + fmt(uii));
    if (uii == 0.0) throw BreakdownError(fn, i, "zero pivot u_ii = " + fmt(uii));
    for (const auto& e : candL) {
      F.L.col_idx.push_back(e.first);
      F.L.values.push_back(e.second);
    }
    F.L.col_idx.push_back(i);
    F.L.values.push_back(1.0);
    F.L.row_ptr[i + 1] = static_cast<offset_t>(F.L.col_idx.size());
    F.U.col_idx.push_back(i);
    F.U.values.push_back(uii);
    for (const auto& e : candU) {
      F.U.col_idx.push_back(e.first);
      F.U.values.push_back(e.second);
    }
    F.U.row_ptr[i + 1] = static_cast<offset_t>(F.U.col_idx.size());
    keptL += static_cast<offset_t>(candL.size());
    keptU += static_cast<offset_t>(candU.size());
    for (ordinal_t j : cols) {
      w[j] = 0.0;
      dropped[j] = 0;
    }
    cols.clear();
  }
  report_pivots(rule, replaced);
  return F;
}

/// ICT engine (row-wise IKJ on the lower triangle, column lists of L kept for the updates). cap(i, kept) as
/// in ilut_core for the strict lower part.
template <class Cap>
CsrHost<double> ict_core(const char* fn, const CsrHost<double>& A, double tau, Cap cap,
                         const FactorOptions& rule = {}) {
  const ordinal_t n = A.nrows;
  CsrHost<double> L(n, n);
  std::vector<std::vector<std::pair<ordinal_t, double>>> colL(n);  // (row m > j, l_mj) per column j
  std::vector<double> diagL(n, 0.0);
  std::vector<double> w(n, 0.0);
  std::vector<char> dropped(n, 0);
  std::set<ordinal_t> cols;
  std::vector<std::pair<ordinal_t, double>> cand;
  offset_t kept = 0, replaced = 0;
  const auto start = std::chrono::steady_clock::now();
  for (ordinal_t i = 0; i < n; ++i) {
    check_time(fn, rule, start, i, n);
    const double tau_i = tau * row_norm2(A, i);
    double aii = 0.0;
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A.col_idx[p];
      if (j < i) {
        w[j] = A.values[p];
        cols.insert(j);
      } else if (j == i) {
        aii = A.values[p];
      }
    }
    for (auto it = cols.begin(); it != cols.end(); ++it) {
      const ordinal_t j = *it;
      const double lij = w[j] / diagL[j];
      if (!std::isfinite(lij))
        throw BreakdownError(fn, i,
                             "non-finite value l(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + fmt(lij));
      if (std::abs(lij) < tau_i) {
        w[j] = 0.0;
        dropped[j] = 1;
        continue;
      }
      w[j] = lij;
      for (const auto& e : colL[j]) {
        cols.insert(e.first);
        w[e.first] -= lij * e.second;
      }
    }
    cand.clear();
    for (ordinal_t j : cols)
      if (!dropped[j] && std::abs(w[j]) >= tau_i) cand.emplace_back(j, w[j]);
    keep_largest(cand, cap(i, kept));
    double d = aii;
    for (const auto& e : cand) d -= e.second * e.second;
    d = ic_pivot(d, aii, rule, replaced);
    if (!(d > 0.0) || !std::isfinite(d))
      throw BreakdownError(
          fn, i,
          "non-positive pivot l_ii^2 = " + fmt(d) + " (matrix not SPD or the incomplete factorization does not exist)");
    diagL[i] = std::sqrt(d);
    for (const auto& e : cand) {
      L.col_idx.push_back(e.first);
      L.values.push_back(e.second);
      colL[e.first].emplace_back(i, e.second);
    }
    L.col_idx.push_back(i);
    L.values.push_back(diagL[i]);
    L.row_ptr[i + 1] = static_cast<offset_t>(L.col_idx.size());
    kept += static_cast<offset_t>(cand.size());
    for (ordinal_t j : cols) {
      w[j] = 0.0;
      dropped[j] = 0;
    }
    cols.clear();
  }
  report_pivots(rule, replaced);
  return L;
}

/// Per-row cap sharing `budget` out of the unspent budget in proportion to `count[i]` (see ilut_nnz).
struct BudgetCap {
  std::vector<offset_t> count;  ///< strict-side nonzeros of row i in A
  std::vector<double> suffix;   ///< sum of count[r] for r >= i
  offset_t budget = 0;
  BudgetCap(std::vector<offset_t> c, offset_t b) : count(std::move(c)), suffix(count.size() + 1, 0.0), budget(b) {
    for (std::size_t i = count.size(); i-- > 0;) suffix[i] = suffix[i + 1] + count[i];
  }
  long long operator()(ordinal_t i, offset_t kept) const {
    if (count[i] == 0) return 0;
    const double left = static_cast<double>(budget) - static_cast<double>(kept);
    if (left <= 0.0) return 0;
    return std::llround(left * count[i] / suffix[i]);
  }
};

/// factor(A) with the diagonal shift and retry of `rule` (FactorOptions::diagonal_shift).
template <class Factor>
auto with_shift(const CsrHost<double>& A, const FactorOptions& rule, Factor factor) -> decltype(factor(A)) {
  if (rule.shift_used) *rule.shift_used = 0.0;
  try {
    return factor(A);
  } catch (const BreakdownError&) {
    if (!(rule.diagonal_shift > 0.0)) throw;
    const std::exception_ptr first = std::current_exception();
    for (double alpha = rule.diagonal_shift; alpha <= 1.0; alpha *= 10.0) {
      CsrHost<double> B = A;
      for (ordinal_t i = 0; i < B.nrows; ++i)
        for (offset_t p = B.row_ptr[i]; p < B.row_ptr[i + 1]; ++p)
          if (B.col_idx[p] == i) B.values[p] += alpha * std::abs(B.values[p]);
      try {
        auto F = factor(B);
        if (rule.shift_used) *rule.shift_used = alpha;
        return F;
      } catch (const BreakdownError&) {
      }
    }
    std::rethrow_exception(first);
  }
}

inline void check_factor_options(const char* fn, const FactorOptions& rule) {
  if (!(rule.pivot_tolerance >= 0.0 && rule.pivot_tolerance < 1.0))
    throw InvalidInput(std::string(fn) + ": pivot tolerance must be in [0, 1), got " + fmt(rule.pivot_tolerance));
  if (!(rule.diagonal_shift >= 0.0 && rule.diagonal_shift < 1.0))
    throw InvalidInput(std::string(fn) + ": diagonal shift must be in [0, 1), got " + fmt(rule.diagonal_shift));
  if (!(rule.max_seconds >= 0.0))
    throw InvalidInput(std::string(fn) + ": max_seconds must be >= 0, got " + fmt(rule.max_seconds));
}

inline void check_ilut_params(const char* fn, double tau, int p) {
  if (!(tau >= 0.0) || !std::isfinite(tau))
    throw InvalidInput(std::string(fn) + ": tau must be finite and >= 0, got " + fmt(tau));
  if (p < 0) throw InvalidInput(std::string(fn) + ": p must be >= 0, got " + std::to_string(p));
}

}  // namespace Impl

// ---------------------------------------------------------------------------------------------------------

IluFactors ilu0(const CsrHost<double>& A, FactorOptions options) {
  Impl::check_square("ilu0", "A", A);
  const std::vector<offset_t> diag = Impl::diagonal_positions("ilu0", "A", A);
  Impl::check_factor_options("ilu0", options);
  return Impl::with_shift(A, options, [&](const CsrHost<double>& B) {
    CsrHost<double> Q = B;
    Impl::factor_on_pattern("ilu0", Q, diag, options);
    return Impl::split_factors(Q, diag);
  });
}

namespace Impl {
/// Checks that P is an n x n triangular pattern (sorted, unique, in range) whose every row stores its diagonal
/// (last in a lower, first in an upper pattern).
inline void check_triangular_pattern(const char* fn, const char* name, const CsrHost<double>& P, ordinal_t n,
                                     bool lower) {
  if (P.nrows != n || P.ncols != n || P.row_ptr.size() != static_cast<std::size_t>(n) + 1)
    throw InvalidInput(std::string(fn) + ": " + name + " is " + std::to_string(P.nrows) + " x " +
                       std::to_string(P.ncols) + ", A is " + std::to_string(n) + " x " + std::to_string(n));
  check_csr(fn, name, P);
  for (ordinal_t i = 0; i < n; ++i) {
    const offset_t b = P.row_ptr[i], e = P.row_ptr[i + 1];
    if (b == e || P.col_idx[lower ? e - 1 : b] != i)
      throw InvalidInput(std::string(fn) + ": " + name + " row " + std::to_string(i) + " does not " +
                         (lower ? "end" : "start") + " with its diagonal entry");
  }
}

/// IC on the lower pattern L (values overwritten): scatters the lower triangle of A into L, then row by row
/// l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj for j < i ascending and l_ii = sqrt(a_ii - sum_k l_ik^2).
/// `what` names the factorization in the breakdown message ("IC(0)", "IC on this pattern").
inline void ic_factor_on_pattern(const char* fn, const std::string& what, const CsrHost<double>& A,
                                 CsrHost<double>& L, const FactorOptions& rule = {}) {
  const ordinal_t n = A.nrows;
  std::vector<offset_t> pos(n, -1);
  offset_t replaced = 0;
  std::fill(L.values.begin(), L.values.end(), 0.0);
  for (ordinal_t i = 0; i < n; ++i) {
    for (offset_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p) pos[L.col_idx[p]] = p;
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1] && A.col_idx[p] <= i; ++p)
      if (pos[A.col_idx[p]] >= 0) L.values[pos[A.col_idx[p]]] = A.values[p];
    for (offset_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p) pos[L.col_idx[p]] = -1;
  }
  for (ordinal_t i = 0; i < n; ++i) {
    const offset_t di = L.row_ptr[i + 1] - 1;
    for (offset_t p = L.row_ptr[i]; p < di; ++p) pos[L.col_idx[p]] = p;
    const double aii = L.values[di];
    double d = aii;
    for (offset_t p = L.row_ptr[i]; p < di; ++p) {
      const ordinal_t j = L.col_idx[p];
      const offset_t dj = L.row_ptr[j + 1] - 1;
      double s = L.values[p];
      for (offset_t q = L.row_ptr[j]; q < dj; ++q) {
        const offset_t t = pos[L.col_idx[q]];
        if (t >= 0 && t < p) s -= L.values[t] * L.values[q];
      }
      L.values[p] = s / L.values[dj];
      if (!std::isfinite(L.values[p]))
        throw BreakdownError(
            fn, i, "non-finite value l(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + fmt(L.values[p]));
      d -= L.values[p] * L.values[p];
    }
    d = ic_pivot(d, aii, rule, replaced);
    if (!(d > 0.0) || !std::isfinite(d))
      throw BreakdownError(fn, i,
                           "non-positive pivot l_ii^2 = " + fmt(d) + " (matrix not SPD or " + what + " does not exist)");
    L.values[di] = std::sqrt(d);
    for (offset_t p = L.row_ptr[i]; p < di; ++p) pos[L.col_idx[p]] = -1;
  }
  report_pivots(rule, replaced);
}
}  // namespace Impl

CsrHost<double> ic0(const CsrHost<double>& A, FactorOptions options) {
  Impl::check_square("ic0", "A", A);
  const std::vector<offset_t> diag = Impl::diagonal_positions("ic0", "A", A);
  Impl::check_symmetric("ic0", A);
  const ordinal_t n = A.nrows;
  CsrHost<double> L(n, n);
  for (ordinal_t i = 0; i < n; ++i) {
    for (offset_t p = A.row_ptr[i]; p <= diag[i]; ++p) L.col_idx.push_back(A.col_idx[p]);
    L.row_ptr[i + 1] = static_cast<offset_t>(L.col_idx.size());
  }
  L.values.assign(L.col_idx.size(), 0.0);
  Impl::check_factor_options("ic0", options);
  return Impl::with_shift(A, options, [&](const CsrHost<double>& B) {
    CsrHost<double> M = L;
    Impl::ic_factor_on_pattern("ic0", "IC(0)", B, M, options);
    return M;
  });
}

CsrHost<double> ic_on_pattern(const CsrHost<double>& A, const CsrHost<double>& Lpattern) {
  Impl::check_square("ic_on_pattern", "A", A);
  Impl::diagonal_positions("ic_on_pattern", "A", A);
  Impl::check_symmetric("ic_on_pattern", A);
  Impl::check_triangular_pattern("ic_on_pattern", "L", Lpattern, A.nrows, true);
  CsrHost<double> L = Lpattern;
  Impl::ic_factor_on_pattern("ic_on_pattern", "IC on this pattern", A, L);
  return L;
}

IluFactors iluk_pattern(const CsrHost<double>& A, int k) {
  Impl::check_square("iluk_pattern", "A", A);
  Impl::diagonal_positions("iluk_pattern", "A", A);
  if (k < 0) throw InvalidInput("iluk_pattern: level k must be >= 0, got " + std::to_string(k));
  const ordinal_t n = A.nrows;
  constexpr int absent = std::numeric_limits<int>::max();
  std::vector<int> lev(n, absent);
  std::vector<std::vector<std::pair<ordinal_t, int>>> urows(n);  // strict upper (column, level) of each row
  std::set<ordinal_t> cols;
  IluFactors F;
  F.L = CsrHost<double>(n, n);
  F.U = CsrHost<double>(n, n);
  for (ordinal_t i = 0; i < n; ++i) {
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      lev[A.col_idx[p]] = 0;
      cols.insert(A.col_idx[p]);
    }
    for (auto it = cols.begin(); it != cols.end() && *it < i; ++it) {
      const ordinal_t m = *it;
      for (const auto& e : urows[m]) {
        const int l = lev[m] + e.second + 1;
        if (l > k) continue;
        if (lev[e.first] == absent) cols.insert(e.first);
        lev[e.first] = std::min(lev[e.first], l);
      }
    }
    for (ordinal_t j : cols) {
      if (j <= i) {
        F.L.col_idx.push_back(j);
        F.L.values.push_back(0.0);
      }
      if (j >= i) {
        F.U.col_idx.push_back(j);
        F.U.values.push_back(0.0);
      }
      if (j > i) urows[i].emplace_back(j, lev[j]);
      lev[j] = absent;
    }
    F.L.row_ptr[i + 1] = static_cast<offset_t>(F.L.col_idx.size());
    F.U.row_ptr[i + 1] = static_cast<offset_t>(F.U.col_idx.size());
    cols.clear();
  }
  return F;
}

namespace Impl {
/// ILU on the combined pattern of S.L (strict part) and S.U: scatters A into it and eliminates (see ilu_on_pattern).
inline IluFactors ilu_factor_on_pattern(const char* fn, const CsrHost<double>& A, const IluFactors& S) {
  const ordinal_t n = A.nrows;
  CsrHost<double> P(n, n);
  std::vector<offset_t> diag(n);
  for (ordinal_t i = 0; i < n; ++i) {
    for (offset_t p = S.L.row_ptr[i]; p < S.L.row_ptr[i + 1] - 1; ++p) P.col_idx.push_back(S.L.col_idx[p]);
    diag[i] = static_cast<offset_t>(P.col_idx.size());
    for (offset_t p = S.U.row_ptr[i]; p < S.U.row_ptr[i + 1]; ++p) P.col_idx.push_back(S.U.col_idx[p]);
    P.row_ptr[i + 1] = static_cast<offset_t>(P.col_idx.size());
  }
  P.values.assign(P.col_idx.size(), 0.0);
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const offset_t t = find_entry(P, i, A.col_idx[p]);
      if (t >= 0) P.values[t] = A.values[p];
    }
  factor_on_pattern(fn, P, diag);
  return split_factors(P, diag);
}
}  // namespace Impl

IluFactors iluk(const CsrHost<double>& A, int k) {
  Impl::check_square("iluk", "A", A);
  Impl::diagonal_positions("iluk", "A", A);
  if (k < 0) throw InvalidInput("iluk: level k must be >= 0, got " + std::to_string(k));
  return Impl::ilu_factor_on_pattern("iluk", A, iluk_pattern(A, k));
}

IluFactors ilu_on_pattern(const CsrHost<double>& A, const IluFactors& S) {
  Impl::check_square("ilu_on_pattern", "A", A);
  Impl::diagonal_positions("ilu_on_pattern", "A", A);
  Impl::check_triangular_pattern("ilu_on_pattern", "S.L", S.L, A.nrows, true);
  Impl::check_triangular_pattern("ilu_on_pattern", "S.U", S.U, A.nrows, false);
  return Impl::ilu_factor_on_pattern("ilu_on_pattern", A, S);
}

IluFactors ilut(const CsrHost<double>& A, double tau, int p) {
  Impl::check_square("ilut", "A", A);
  Impl::diagonal_positions("ilut", "A", A);
  Impl::check_ilut_params("ilut", tau, p);
  auto cap = [p](ordinal_t, offset_t) { return static_cast<long long>(p); };
  return Impl::ilut_core("ilut", A, tau, cap, cap);
}

IluFactors ilut_nnz(const CsrHost<double>& A, offset_t target_nnz_L, offset_t target_nnz_U, FactorOptions options) {
  Impl::check_factor_options("ilut_nnz", options);
  Impl::check_square("ilut_nnz", "A", A);
  Impl::diagonal_positions("ilut_nnz", "A", A);
  const ordinal_t n = A.nrows;
  if (target_nnz_L < n || target_nnz_U < n)
    throw InvalidInput("ilut_nnz: targets (" + std::to_string(target_nnz_L) + ", " + std::to_string(target_nnz_U) +
                       ") must be >= n = " + std::to_string(n) + " (they include the diagonals)");
  std::vector<offset_t> cl(n, 0), cu(n, 0);
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      if (A.col_idx[p] < i) ++cl[i];
      if (A.col_idx[p] > i) ++cu[i];
    }
  Impl::BudgetCap capL(std::move(cl), target_nnz_L - n), capU(std::move(cu), target_nnz_U - n);
  return Impl::with_shift(A, options, [&](const CsrHost<double>& B) {
    return Impl::ilut_core("ilut_nnz", B, 0.0, std::cref(capL), std::cref(capU), options);
  });
}

CsrHost<double> ict(const CsrHost<double>& A, double tau, int p) {
  Impl::check_square("ict", "A", A);
  Impl::diagonal_positions("ict", "A", A);
  Impl::check_symmetric("ict", A);
  Impl::check_ilut_params("ict", tau, p);
  return Impl::ict_core("ict", A, tau, [p](ordinal_t, offset_t) { return static_cast<long long>(p); });
}

CsrHost<double> ict_nnz(const CsrHost<double>& A, offset_t target_nnz_L, FactorOptions options) {
  Impl::check_factor_options("ict_nnz", options);
  Impl::check_square("ict_nnz", "A", A);
  Impl::diagonal_positions("ict_nnz", "A", A);
  Impl::check_symmetric("ict_nnz", A);
  const ordinal_t n = A.nrows;
  if (target_nnz_L < n)
    throw InvalidInput("ict_nnz: target " + std::to_string(target_nnz_L) + " must be >= n = " + std::to_string(n) +
                       " (it includes the diagonal)");
  std::vector<offset_t> cl(n, 0);
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] < i) ++cl[i];
  Impl::BudgetCap cap(std::move(cl), target_nnz_L - n);
  return Impl::with_shift(A, options, [&](const CsrHost<double>& B) {
    return Impl::ict_core("ict_nnz", B, 0.0, std::cref(cap), options);
  });
}

}  // namespace Reference
}  // namespace AsyncSparse
