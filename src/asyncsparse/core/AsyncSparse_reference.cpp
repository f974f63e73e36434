// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <asyncsparse/core/AsyncSparse_reference.hpp>


#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <utility>

namespace AsyncSparse {
namespace Reference {
namespace Impl {

inline std::string fmt(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

/// CSR arrays consistent, columns in range, sorted and unique, values finite.
inline void check_csr(const char* fn, const char* name, const CsrHost<double>& A) {
  const std::string where = std::string(fn) + ": " + name + ": ";
  if (A.nrows < 0 || A.ncols < 0)
    throw InvalidInput(where + "negative dimensions (" + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) +
                       ")");
  if (A.row_ptr.size() != static_cast<std::size_t>(A.nrows) + 1)
    throw InvalidInput(where + "malformed CSR: row_ptr has " + std::to_string(A.row_ptr.size()) +
                       " entries, expected nrows + 1 = " + std::to_string(A.nrows + 1));
  if (A.row_ptr[0] != 0) throw InvalidInput(where + "malformed CSR: row_ptr[0] != 0");
  for (ordinal_t i = 0; i < A.nrows; ++i)
    if (A.row_ptr[i + 1] < A.row_ptr[i])
      throw InvalidInput(where + "malformed CSR: row_ptr decreases at row " + std::to_string(i));
  const std::size_t nnz = static_cast<std::size_t>(A.row_ptr[A.nrows]);
  if (A.col_idx.size() != nnz || A.values.size() != nnz)
    throw InvalidInput(where + "malformed CSR: col_idx / values sizes (" + std::to_string(A.col_idx.size()) + ", " +
                       std::to_string(A.values.size()) + ") differ from nnz = " + std::to_string(nnz));
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p] < 0 || A.col_idx[p] >= A.ncols)
        throw InvalidInput(where + "column index " + std::to_string(A.col_idx[p]) + " out of range in row " +
                           std::to_string(i));
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i] + 1; p < A.row_ptr[i + 1]; ++p)
      if (A.col_idx[p - 1] >= A.col_idx[p])
        throw InvalidInput(where + "column indices of row " + std::to_string(i) +
                           " are not sorted and unique (required; sort with csr_from_triplets)");
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (!std::isfinite(A.values[p]))
        throw InvalidInput(where + "non-finite value " + fmt(A.values[p]) + " at (" + std::to_string(i) + ", " +
                           std::to_string(A.col_idx[p]) + ")");
}

/// check_csr plus square and non-empty.
inline void check_square(const char* fn, const char* name, const CsrHost<double>& A) {
  check_csr(fn, name, A);
  if (A.nrows != A.ncols)
    throw InvalidInput(std::string(fn) + ": " + name + " is not square (" + std::to_string(A.nrows) + " x " +
                       std::to_string(A.ncols) + ")");
  if (A.nrows == 0) throw InvalidInput(std::string(fn) + ": " + name + " is empty (0 x 0)");
}

/// Position of the diagonal entry of every row; throws when one is missing.
inline std::vector<offset_t> diagonal_positions(const char* fn, const char* name, const CsrHost<double>& A) {
  std::vector<offset_t> d(A.nrows);
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    d[i] = find_entry(A, i, i);
    if (d[i] < 0)
      throw InvalidInput(std::string(fn) + ": " + name + ": missing diagonal entry in row " + std::to_string(i));
  }
  return d;
}

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

inline void check_vector(const char* fn, const char* name, const std::vector<double>& v, ordinal_t n) {
  if (v.size() != static_cast<std::size_t>(n))
    throw InvalidInput(std::string(fn) + ": " + name + " has size " + std::to_string(v.size()) + ", expected " +
                       std::to_string(n));
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw InvalidInput(std::string(fn) + ": " + name + "[" + std::to_string(i) + "] is non-finite (" + fmt(v[i]) +
                         ")");
}

/// In-place IKJ incomplete LU on the combined pattern P (strict lower part = L, rest = U), values of A already
/// scattered into P. Every update outside the pattern is discarded.
inline void factor_on_pattern(const char* fn, CsrHost<double>& P, const std::vector<offset_t>& diag) {
  const ordinal_t n = P.nrows;
  std::vector<offset_t> pos(n, -1);
  for (ordinal_t i = 0; i < n; ++i) {
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
    if (P.values[diag[i]] == 0.0) throw BreakdownError(fn, i, "zero pivot u_ii = " + fmt(P.values[diag[i]]));
    for (offset_t p = P.row_ptr[i]; p < P.row_ptr[i + 1]; ++p) pos[P.col_idx[p]] = -1;
  }
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
IluFactors ilut_core(const char* fn, const CsrHost<double>& A, double tau, CapL cap_L, CapU cap_U) {
  const ordinal_t n = A.nrows;
  IluFactors F;
  F.L = CsrHost<double>(n, n);
  F.U = CsrHost<double>(n, n);
  std::vector<double> w(n, 0.0);
  std::vector<char> dropped(n, 0);
  std::set<ordinal_t> cols;
  std::vector<std::pair<ordinal_t, double>> candL, candU;
  offset_t keptL = 0, keptU = 0;
  for (ordinal_t i = 0; i < n; ++i) {
    const double tau_i = tau * row_norm2(A, i);
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      w[A.col_idx[p]] = A.values[p];
      cols.insert(A.col_idx[p]);
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
    const double uii = w[i];
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
  return F;
}

/// ICT engine (row-wise IKJ on the lower triangle, column lists of L kept for the updates). cap(i, kept) as
/// in ilut_core for the strict lower part.
template <class Cap>
CsrHost<double> ict_core(const char* fn, const CsrHost<double>& A, double tau, Cap cap) {
  const ordinal_t n = A.nrows;
  CsrHost<double> L(n, n);
  std::vector<std::vector<std::pair<ordinal_t, double>>> colL(n);  // (row m > j, l_mj) per column j
  std::vector<double> diagL(n, 0.0);
  std::vector<double> w(n, 0.0);
  std::vector<char> dropped(n, 0);
  std::set<ordinal_t> cols;
  std::vector<std::pair<ordinal_t, double>> cand;
  offset_t kept = 0;
  for (ordinal_t i = 0; i < n; ++i) {
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

/// Adds row i of L U into the dense accumulator `acc`; `touched` lists (once, via `seen`) the columns reached.
inline void product_row(const CsrHost<double>& L, const CsrHost<double>& U, ordinal_t i, std::vector<double>& acc,
                        std::vector<char>& seen, std::vector<ordinal_t>& touched) {
  for (offset_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p) {
    const ordinal_t k = L.col_idx[p];
    const double lik = L.values[p];
    for (offset_t q = U.row_ptr[k]; q < U.row_ptr[k + 1]; ++q) {
      const ordinal_t j = U.col_idx[q];
      if (!seen[j]) {
        seen[j] = 1;
        touched.push_back(j);
      }
      acc[j] += lik * U.values[q];
    }
  }
}

inline void check_factor_dims(const char* fn, const CsrHost<double>& A, const CsrHost<double>& L,
                              const CsrHost<double>& U) {
  check_square(fn, "A", A);
  check_csr(fn, "L", L);
  check_csr(fn, "U", U);
  if (L.nrows != A.nrows || L.ncols != A.ncols || U.nrows != A.nrows || U.ncols != A.ncols)
    throw InvalidInput(std::string(fn) + ": factor dimensions (L " + std::to_string(L.nrows) + " x " +
                       std::to_string(L.ncols) + ", U " + std::to_string(U.nrows) + " x " + std::to_string(U.ncols) +
                       ") do not match A (" + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) + ")");
}

/// ||(A - L U)_S||_F and ||A_S||_F, S = pattern of A (only its lower part when `lower_only`).
inline std::pair<double, double> pattern_residual(const CsrHost<double>& A, const CsrHost<double>& L,
                                                  const CsrHost<double>& U, bool lower_only) {
  const ordinal_t n = A.nrows;
  std::vector<double> acc(n, 0.0);
  std::vector<char> seen(n, 0);
  std::vector<ordinal_t> touched;
  double r2 = 0.0, a2 = 0.0;
  for (ordinal_t i = 0; i < n; ++i) {
    product_row(L, U, i, acc, seen, touched);
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A.col_idx[p];
      if (lower_only && j > i) continue;
      const double d = A.values[p] - acc[j];
      r2 += d * d;
      a2 += A.values[p] * A.values[p];
    }
    for (ordinal_t j : touched) {
      acc[j] = 0.0;
      seen[j] = 0;
    }
    touched.clear();
  }
  return {std::sqrt(r2), std::sqrt(a2)};
}

inline double full_residual(const CsrHost<double>& A, const CsrHost<double>& L, const CsrHost<double>& U) {
  const ordinal_t n = A.nrows;
  std::vector<double> acc(n, 0.0);
  std::vector<char> seen(n, 0);
  std::vector<ordinal_t> touched;
  double r2 = 0.0;
  for (ordinal_t i = 0; i < n; ++i) {
    product_row(L, U, i, acc, seen, touched);
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A.col_idx[p];
      if (!seen[j]) {
        seen[j] = 1;
        touched.push_back(j);
      }
      acc[j] -= A.values[p];
    }
    for (ordinal_t j : touched) {
      r2 += acc[j] * acc[j];
      acc[j] = 0.0;
      seen[j] = 0;
    }
    touched.clear();
  }
  return std::sqrt(r2);
}

inline double residual_norm(const CsrHost<double>& A, const std::vector<double>& b, const std::vector<double>& x) {
  double s = 0.0;
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    double r = b[i];
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) r -= A.values[p] * x[A.col_idx[p]];
    s += r * r;
  }
  return std::sqrt(s);
}

inline double norm2(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

/// Checks A (square, sorted, finite, non-zero diagonal), b, x; returns the diagonal positions.
inline std::vector<offset_t> check_relax(const char* fn, const CsrHost<double>& A, const std::vector<double>& b,
                                         const std::vector<double>& x) {
  check_square(fn, "A", A);
  std::vector<offset_t> d = diagonal_positions(fn, "A", A);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    if (A.values[d[i]] == 0.0)
      throw InvalidInput(std::string(fn) + ": A: zero diagonal entry in row " + std::to_string(i));
  check_vector(fn, "b", b, A.nrows);
  check_vector(fn, "x", x, A.nrows);
  return d;
}

inline void jacobi_sweep(const CsrHost<double>& A, const std::vector<offset_t>& d, const std::vector<double>& b,
                         std::vector<double>& x, std::vector<double>& xnew, double omega) {
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    double r = b[i];
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) r -= A.values[p] * x[A.col_idx[p]];
    xnew[i] = x[i] + omega * r / A.values[d[i]];
  }
  x.swap(xnew);
}

inline void gs_sweep(const CsrHost<double>& A, const std::vector<offset_t>& d, const std::vector<double>& b,
                     std::vector<double>& x) {
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    double s = b[i];
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      if (p != d[i]) s -= A.values[p] * x[A.col_idx[p]];
    x[i] = s / A.values[d[i]];
  }
}

template <class Sweep>
std::vector<double> relax_fixed(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                int sweeps, Sweep sweep) {
  const double bn = norm2(b);
  const double scale = bn > 0.0 ? 1.0 / bn : 1.0;
  std::vector<double> hist{residual_norm(A, b, x) * scale};
  for (int s = 0; s < sweeps && std::isfinite(hist.back()); ++s) {
    sweep();
    hist.push_back(residual_norm(A, b, x) * scale);
  }
  return hist;
}

template <class Sweep>
RelaxResult relax_until(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x, double tol,
                        int max_sweeps, Sweep sweep) {
  const double bn = norm2(b);
  const double scale = bn > 0.0 ? 1.0 / bn : 1.0;
  RelaxResult R;
  const double r0 = residual_norm(A, b, x) * scale;
  R.history.push_back(r0);
  R.final_residual = r0;
  R.converged = r0 <= tol;
  while (!R.converged && R.sweeps < max_sweeps) {
    sweep();
    ++R.sweeps;
    const double r = residual_norm(A, b, x) * scale;
    R.history.push_back(r);
    R.final_residual = r;
    if (!std::isfinite(r) || r > 1e10 * r0) {
      R.diverged = true;
      break;
    }
    R.converged = r <= tol;
  }
  return R;
}

inline void check_relax_params(const char* fn, int sweeps, double omega) {
  if (sweeps < 0)
    throw InvalidInput(std::string(fn) + ": number of sweeps must be >= 0, got " + std::to_string(sweeps));
  if (!(omega > 0.0) || !std::isfinite(omega))
    throw InvalidInput(std::string(fn) + ": omega must be finite and > 0, got " + fmt(omega));
}

inline void check_tol(const char* fn, double tol) {
  if (!(tol >= 0.0) || !std::isfinite(tol))
    throw InvalidInput(std::string(fn) + ": tol must be finite and >= 0, got " + fmt(tol));
}

inline void check_ilut_params(const char* fn, double tau, int p) {
  if (!(tau >= 0.0) || !std::isfinite(tau))
    throw InvalidInput(std::string(fn) + ": tau must be finite and >= 0, got " + fmt(tau));
  if (p < 0) throw InvalidInput(std::string(fn) + ": p must be >= 0, got " + std::to_string(p));
}

}  // namespace Impl

// ---------------------------------------------------------------------------------------------------------

IluFactors ilu0(const CsrHost<double>& A) {
  Impl::check_square("ilu0", "A", A);
  const std::vector<offset_t> diag = Impl::diagonal_positions("ilu0", "A", A);
  CsrHost<double> P = A;
  Impl::factor_on_pattern("ilu0", P, diag);
  return Impl::split_factors(P, diag);
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
                                 CsrHost<double>& L) {
  const ordinal_t n = A.nrows;
  std::vector<offset_t> pos(n, -1);
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
    double d = L.values[di];
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
    if (!(d > 0.0) || !std::isfinite(d))
      throw BreakdownError(fn, i,
                           "non-positive pivot l_ii^2 = " + fmt(d) + " (matrix not SPD or " + what + " does not exist)");
    L.values[di] = std::sqrt(d);
    for (offset_t p = L.row_ptr[i]; p < di; ++p) pos[L.col_idx[p]] = -1;
  }
}
}  // namespace Impl

CsrHost<double> ic0(const CsrHost<double>& A) {
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
  Impl::ic_factor_on_pattern("ic0", "IC(0)", A, L);
  return L;
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

IluFactors ilut_nnz(const CsrHost<double>& A, offset_t target_nnz_L, offset_t target_nnz_U) {
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
  return Impl::ilut_core("ilut_nnz", A, 0.0, std::cref(capL), std::cref(capU));
}

CsrHost<double> ict(const CsrHost<double>& A, double tau, int p) {
  Impl::check_square("ict", "A", A);
  Impl::diagonal_positions("ict", "A", A);
  Impl::check_symmetric("ict", A);
  Impl::check_ilut_params("ict", tau, p);
  return Impl::ict_core("ict", A, tau, [p](ordinal_t, offset_t) { return static_cast<long long>(p); });
}

CsrHost<double> ict_nnz(const CsrHost<double>& A, offset_t target_nnz_L) {
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
  return Impl::ict_core("ict_nnz", A, 0.0, std::cref(cap));
}

// ---------------------------------------------------------------------------------------------------------

std::vector<double> lower_solve(const CsrHost<double>& L, const std::vector<double>& b, bool unit_diag) {
  Impl::check_square("lower_solve", "L", L);
  Impl::check_vector("lower_solve", "b", b, L.nrows);
  const ordinal_t n = L.nrows;
  std::vector<double> x(n);
  for (ordinal_t i = 0; i < n; ++i) {
    double s = b[i], d = 0.0;
    bool has_diag = false;
    for (offset_t p = L.row_ptr[i]; p < L.row_ptr[i + 1]; ++p) {
      const ordinal_t j = L.col_idx[p];
      if (j < i) {
        s -= L.values[p] * x[j];
      } else if (j == i) {
        has_diag = true;
        d = L.values[p];
      } else {
        throw InvalidInput("lower_solve: L is not lower triangular: entry (" + std::to_string(i) + ", " +
                           std::to_string(j) + ")");
      }
    }
    if (unit_diag) {
      x[i] = s;
      continue;
    }
    if (!has_diag) throw InvalidInput("lower_solve: L: missing diagonal entry in row " + std::to_string(i));
    if (d == 0.0) throw BreakdownError("lower_solve", i, "zero diagonal l_ii = 0");
    x[i] = s / d;
  }
  return x;
}

std::vector<double> upper_solve(const CsrHost<double>& U, const std::vector<double>& b) {
  Impl::check_square("upper_solve", "U", U);
  Impl::check_vector("upper_solve", "b", b, U.nrows);
  const ordinal_t n = U.nrows;
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t p = U.row_ptr[i]; p < U.row_ptr[i + 1]; ++p)
      if (U.col_idx[p] < i)
        throw InvalidInput("upper_solve: U is not upper triangular: entry (" + std::to_string(i) + ", " +
                           std::to_string(U.col_idx[p]) + ")");
  std::vector<double> x(n);
  for (ordinal_t i = n; i-- > 0;) {
    const offset_t b0 = U.row_ptr[i];
    if (b0 == U.row_ptr[i + 1] || U.col_idx[b0] != i)
      throw InvalidInput("upper_solve: U: missing diagonal entry in row " + std::to_string(i));
    double s = b[i];
    for (offset_t p = b0 + 1; p < U.row_ptr[i + 1]; ++p) s -= U.values[p] * x[U.col_idx[p]];
    if (U.values[b0] == 0.0) throw BreakdownError("upper_solve", i, "zero diagonal u_ii = 0");
    x[i] = s / U.values[b0];
  }
  return x;
}

std::vector<double> ic_apply(const CsrHost<double>& L, const std::vector<double>& r) {
  Impl::check_square("ic_apply", "L", L);
  Impl::check_vector("ic_apply", "r", r, L.nrows);
  const ordinal_t n = L.nrows;
  for (ordinal_t i = 0; i < n; ++i) {
    const offset_t e = L.row_ptr[i + 1];
    if (e > L.row_ptr[i] && L.col_idx[e - 1] > i)
      throw InvalidInput("ic_apply: L is not lower triangular: entry (" + std::to_string(i) + ", " +
                         std::to_string(L.col_idx[e - 1]) + ")");
    if (e == L.row_ptr[i] || L.col_idx[e - 1] != i)
      throw InvalidInput("ic_apply: L: missing diagonal entry in row " + std::to_string(i));
    if (L.values[e - 1] == 0.0) throw BreakdownError("ic_apply", i, "zero diagonal l_ii = 0");
  }
  std::vector<double> z = lower_solve(L, r, false);
  // Lᵀ z = y, column-oriented: row i of L is column i of Lᵀ.
  for (ordinal_t i = n; i-- > 0;) {
    const offset_t di = L.row_ptr[i + 1] - 1;
    z[i] /= L.values[di];
    for (offset_t p = L.row_ptr[i]; p < di; ++p) z[L.col_idx[p]] -= L.values[p] * z[i];
  }
  return z;
}

std::vector<double> ilu_apply(const IluFactors& F, const std::vector<double>& r) {
  if (F.L.nrows != F.U.nrows)
    throw InvalidInput("ilu_apply: L has " + std::to_string(F.L.nrows) + " rows but U has " +
                       std::to_string(F.U.nrows));
  return upper_solve(F.U, lower_solve(F.L, r, true));
}

// ---------------------------------------------------------------------------------------------------------

std::vector<double> jacobi(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                  int sweeps, double omega) {
  const std::vector<offset_t> d = Impl::check_relax("jacobi", A, b, x);
  Impl::check_relax_params("jacobi", sweeps, omega);
  std::vector<double> xnew(x.size());
  return Impl::relax_fixed(A, b, x, sweeps, [&] { Impl::jacobi_sweep(A, d, b, x, xnew, omega); });
}

std::vector<double> gauss_seidel(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                        int sweeps) {
  const std::vector<offset_t> d = Impl::check_relax("gauss_seidel", A, b, x);
  Impl::check_relax_params("gauss_seidel", sweeps, 1.0);
  return Impl::relax_fixed(A, b, x, sweeps, [&] { Impl::gs_sweep(A, d, b, x); });
}

RelaxResult jacobi_until(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                double tol, int max_sweeps, double omega) {
  const std::vector<offset_t> d = Impl::check_relax("jacobi_until", A, b, x);
  Impl::check_relax_params("jacobi_until", max_sweeps, omega);
  Impl::check_tol("jacobi_until", tol);
  std::vector<double> xnew(x.size());
  return Impl::relax_until(A, b, x, tol, max_sweeps, [&] { Impl::jacobi_sweep(A, d, b, x, xnew, omega); });
}

RelaxResult gauss_seidel_until(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                      double tol, int max_sweeps) {
  const std::vector<offset_t> d = Impl::check_relax("gauss_seidel_until", A, b, x);
  Impl::check_relax_params("gauss_seidel_until", max_sweeps, 1.0);
  Impl::check_tol("gauss_seidel_until", tol);
  return Impl::relax_until(A, b, x, tol, max_sweeps, [&] { Impl::gs_sweep(A, d, b, x); });
}

// ---------------------------------------------------------------------------------------------------------

CsrHost<double> multiply(const CsrHost<double>& A, const CsrHost<double>& B) {
  Impl::check_csr("multiply", "A", A);
  Impl::check_csr("multiply", "B", B);
  if (A.ncols != B.nrows)
    throw InvalidInput("multiply: inner dimensions differ (A is " + std::to_string(A.nrows) + " x " +
                       std::to_string(A.ncols) + ", B is " + std::to_string(B.nrows) + " x " + std::to_string(B.ncols) +
                       ")");
  CsrHost<double> C(A.nrows, B.ncols);
  std::vector<double> acc(B.ncols, 0.0);
  std::vector<char> seen(B.ncols, 0);
  std::vector<ordinal_t> touched;
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    Impl::product_row(A, B, i, acc, seen, touched);
    std::sort(touched.begin(), touched.end());
    for (ordinal_t j : touched) {
      C.col_idx.push_back(j);
      C.values.push_back(acc[j]);
      acc[j] = 0.0;
      seen[j] = 0;
    }
    touched.clear();
    C.row_ptr[i + 1] = static_cast<offset_t>(C.col_idx.size());
  }
  return C;
}

CsrHost<double> transpose(const CsrHost<double>& A) {
  Impl::check_csr("transpose", "A", A);
  CsrHost<double> T(A.ncols, A.nrows);
  for (offset_t p = 0; p < A.nnz(); ++p) ++T.row_ptr[A.col_idx[p] + 1];
  for (ordinal_t j = 0; j < A.ncols; ++j) T.row_ptr[j + 1] += T.row_ptr[j];
  T.col_idx.resize(A.nnz());
  T.values.resize(A.nnz());
  std::vector<offset_t> next(T.row_ptr.begin(), T.row_ptr.end() - 1);
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const offset_t q = next[A.col_idx[p]]++;
      T.col_idx[q] = i;
      T.values[q] = A.values[p];
    }
  return T;
}

double frobenius_norm(const CsrHost<double>& A) {
  Impl::check_csr("frobenius_norm", "A", A);
  double s = 0.0;
  for (double v : A.values) s += v * v;
  return std::sqrt(s);
}

double nonlinear_residual(const CsrHost<double>& A, const CsrHost<double>& L, const CsrHost<double>& U) {
  Impl::check_factor_dims("nonlinear_residual", A, L, U);
  const auto r = Impl::pattern_residual(A, L, U, false);
  return r.second > 0.0 ? r.first / r.second : r.first;
}

double nonlinear_residual(const CsrHost<double>& A, const CsrHost<double>& L) {
  Impl::check_factor_dims("nonlinear_residual", A, L, L);
  const auto r = Impl::pattern_residual(A, L, transpose(L), true);
  return r.second > 0.0 ? r.first / r.second : r.first;
}

double ilu_residual(const CsrHost<double>& A, const CsrHost<double>& L, const CsrHost<double>& U) {
  Impl::check_factor_dims("ilu_residual", A, L, U);
  return Impl::full_residual(A, L, U);
}

double ilu_residual(const CsrHost<double>& A, const CsrHost<double>& L) {
  Impl::check_factor_dims("ilu_residual", A, L, L);
  return Impl::full_residual(A, L, transpose(L));
}

}  // namespace Reference
}  // namespace AsyncSparse
