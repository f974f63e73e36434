// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — serial host reference implementations.
//
// Plain, unoptimised, sequential versions of everything the asynchronous kernels compute, on CsrHost<double>.
// They are the ground truth of the tests (the deterministic device kernels must agree with them on small
// matrices) and the conventional baselines of the benchmarks:
//   - exact ILU(0) / IC(0): the factorization the fixed-point sweeps of Chow & Anzt (SISC 2015,
//     "Fine-grained parallel incomplete LU factorization") converge to;
//   - ILU(k) level-of-fill pattern and factorization (Saad, "Iterative Methods for Sparse Linear Systems",
//     2nd ed., Sec. 10.3.3): the pattern option of the iterative ILU;
//   - ILUT(tau, p) (Saad, Sec. 10.4, Algorithm 10.6) and its symmetric counterpart ICT, plus variants
//     that keep a prescribed number of nonzeros: the "serial ILUT with the same number of nonzeros"
//     baseline of ParILUT / ParICT (Anzt, Chow, Dongarra, SISC 2018; Anzt et al. 2019);
//   - exact triangular solves and preconditioner applications;
//   - synchronous Jacobi and forward Gauss–Seidel with residual histories (the baselines of the
//     asynchronous relaxation papers);
//   - sparse product, transpose, and the residual norms the papers report: the nonlinear residual
//     ||(A - LU)_S||_F / ||A_S||_F and the ILU residual ||A - LU||_F.
//
// Input rules shared by every function: the CSR arrays must be consistent, each row's column indices sorted
// and unique (`is_sorted_unique`), every value finite; factorizations, solves and relaxations also need a
// square, non-empty matrix, and the factorizations and relaxations need every diagonal entry stored.
// Violations throw InvalidInput whose message starts with the function name ("ilu0: A: ..."). A
// factorization that meets a zero / non-positive / non-finite pivot throws BreakdownError carrying the row.
//
// Factor conventions: L of an LU factorization is unit lower triangular with its unit diagonal stored
// explicitly (last entry of each row); U is upper triangular with its diagonal stored (first entry of each
// row); an IC / ICT factor L is lower triangular with its (positive) diagonal stored. All outputs have
// sorted, unique column indices.
#pragma once

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace AsyncSparse {
namespace Reference {

/// The two factors of an incomplete LU factorization A ≈ L U.
struct IluFactors {
  CsrHost<double> L;  ///< unit lower triangular, unit diagonal stored as the last entry of each row
  CsrHost<double> U;  ///< upper triangular, diagonal stored as the first entry of each row
};

/// Options of the factorizations ilu0, ic0, ilut_nnz, ict_nnz.
///
/// Pivot replacement, the strategy of ParILUT / ParICT (ParIlutHandle::Params::pivot_tolerance) so that the serial
/// and the parallel factorizations can be compared like for like. With pivot_tolerance t > 0: an LU pivot with
/// |u_ii| < t |a_ii| becomes sign(u_ii) t |a_ii| (+ for 0); an IC pivot with l_ii^2 = a_ii - sum_k l_ik^2 < t a_ii
/// (non-positive included) becomes l_ii^2 = t a_ii. A non-finite value is still a breakdown. t = 0 (default): no
/// replacement, a zero / non-positive pivot is a BreakdownError.
///
/// Time budget (ilut_nnz, ict_nnz, whose fill during the elimination of a row is not bounded and can make them
/// take minutes, e.g. on a Trefethen matrix of order 20000): with max_seconds > 0 the factorization throws
/// TimeLimitExceeded once it has run that long.
///
/// Diagonal shift and retry (ParIlutHandle::Params::diagonal_shift): with diagonal_shift alpha > 0 a factorization
/// that breaks down starts over on A + alpha diag(|a_ii|), then 10 alpha, 100 alpha, ... while alpha <= 1; the first
/// error is thrown when none succeeds. *shift_used (when given) receives the alpha of the factors (0: none).
struct FactorOptions {
  double pivot_tolerance = 0.0;
  offset_t* pivots_replaced = nullptr;  ///< when given, set to the number of pivots replaced
  double max_seconds = 0.0;             ///< 0: no limit
  double diagonal_shift = 0.0;          ///< 0: no retry
  double* shift_used = nullptr;         ///< when given, set to the shift of the factors
};

/// A reference factorization stopped by FactorOptions::max_seconds.
class TimeLimitExceeded : public std::runtime_error {
 public:
  TimeLimitExceeded(const std::string& fn, ordinal_t row, ordinal_t n, double seconds)
      : std::runtime_error(fn + ": stopped at row " + std::to_string(row) + " of " + std::to_string(n) + " after " +
                           std::to_string(seconds) + " s (time limit)"),
        row_(row) {}
  ordinal_t row() const { return row_; }

 private:
  ordinal_t row_;
};

/// Outcome of a relaxation run until a tolerance.
struct RelaxResult {
  int sweeps = 0;               ///< sweeps performed
  double final_residual = 0.0;  ///< last relative residual ||b - A x||_2 / ||b||_2
  std::vector<double> history;  ///< relative residual before the first sweep, then after each sweep
  bool converged = false;       ///< final_residual <= tol
  bool diverged = false;        ///< stopped because the residual became non-finite or > 1e10 × the initial one
};

// ---------------------------------------------------------------------------------------------------------
// Factorizations
// ---------------------------------------------------------------------------------------------------------

/// Exact ILU(0): Gaussian elimination (IKJ variant) with every update outside the pattern of A discarded.
/// L holds the strict lower part of the pattern of A plus the unit diagonal, U the diagonal and upper part.
/// Throws BreakdownError("ilu0", row, "zero pivot u_ii = ...") or (..., "non-finite value ...") — with
/// `options` (FactorOptions) small pivots are replaced instead (ilut_nnz, ic0, ict_nnz likewise).
IluFactors ilu0(const CsrHost<double>& A, FactorOptions options = {});

/// Exact IC(0) of a symmetric matrix: lower triangular L (with diagonal) on the lower pattern of A such that
/// (L Lᵀ)_ij = a_ij on that pattern. Only the lower triangle enters the computation, but A must be symmetric
/// (pattern and values, relative tolerance 1e-12). Throws BreakdownError("ic0", row, "non-positive pivot ...")
/// when a diagonal would be the square root of a non-positive number.
CsrHost<double> ic0(const CsrHost<double>& A, FactorOptions options = {});

/// Symbolic ILU(k): the level-of-fill pattern. Entries of A have level 0; fill created at (i, j) by
/// eliminating with row m has level lev(i,m) + lev(m,j) + 1; entries of level <= k are kept.
/// Returns the L pattern (strict lower part plus diagonal) and the U pattern (diagonal plus upper part),
/// all values 0. `k` >= 0; k = 0 gives the pattern of ilu0.
IluFactors iluk_pattern(const CsrHost<double>& A, int k);

/// Numeric ILU(k): exact incomplete LU restricted to iluk_pattern(A, k). iluk(A, 0) equals ilu0(A); a large
/// enough k gives the exact LU factorization (no pivoting). Breakdowns as in ilu0, reported as "iluk".
IluFactors iluk(const CsrHost<double>& A, int k);

/// Exact incomplete LU on a given pattern S = pattern of S.L + S.U (the values of S are ignored): IKJ
/// elimination with every update outside S discarded, i.e. the solution of (L U)_ij = a_ij for (i, j) in S —
/// the fixed point of the Chow–Patel sweeps on S. Entries of A outside S do not enter; entries of S outside A
/// count as a_ij = 0. S.L must be lower triangular with the diagonal last in each row, S.U upper triangular with
/// the diagonal first (the layout of IluFactors), both sorted, square of A's size (InvalidInput otherwise).
/// Used to tell pattern quality from value quality: ilu_on_pattern(A, ilut_nnz(A, ...)) is what a ParILUT
/// would converge to if it had found ILUT's pattern. Breakdowns as in ilu0, reported as "ilu_on_pattern".
IluFactors ilu_on_pattern(const CsrHost<double>& A, const IluFactors& S);

/// Exact incomplete Cholesky on a given lower pattern (values of Lpattern ignored; lower triangular, sorted,
/// diagonal last in each row): (L Lᵀ)_ij = a_ij for (i, j) in the pattern, i >= j, the fixed point of the IC
/// sweeps on it. A must be symmetric. ic_on_pattern(A, lower part of A) equals ic0(A). Breakdowns as in ic0,
/// reported as "ic_on_pattern".
CsrHost<double> ic_on_pattern(const CsrHost<double>& A, const CsrHost<double>& Lpattern);

/// ILUT(tau, p) (Saad, Algorithm 10.6): row-wise IKJ elimination on a dense work row w. With
/// tau_i = tau * ||a_i||_2 (2-norm of row i of A):
///   - a multiplier w_k = w_k / u_kk with |w_k| < tau_i is dropped and not used for elimination;
///   - after the elimination, entries with |w_j| < tau_i are dropped, and of the rest only the `p` largest in
///     magnitude in the strict lower part (to L) and the `p` largest in the strict upper part (to U) are kept
///     (ties: smaller column first). The diagonal is always kept.
/// `tau` >= 0 (0: no threshold dropping); `p` >= 0 (p >= n: no cap). tau = 0, p = n is the exact LU.
/// Throws BreakdownError("ilut", row, "zero pivot u_ii = ...") or (..., "non-finite value ...").
IluFactors ilut(const CsrHost<double>& A, double tau, int p);

/// ILUT with a nonzero budget: the baseline "serial ILUT with the same number of nonzeros" as a ParILUT run.
/// `target_nnz_L` / `target_nnz_U` count every stored entry of L / U, diagonals included (so each is >= n).
/// Runs ILUT with tau = 0 and a per-row cap: the strict-lower budget B_L = target_nnz_L - n is shared out in
/// proportion to each row's strict-lower nonzero count in A, row by row from the budget still unspent,
///   p_i^L = round((B_L - kept_L(rows < i)) * nnzL_A(i) / sum_{r >= i} nnzL_A(r)),
/// (likewise for U with the strict upper counts), so a row that has fewer candidates than its share passes
/// the rest on to the rows after it. The result has exactly the budget (up to rounding in the last rows)
/// unless the budget exceeds what unlimited fill can produce (then it has fewer entries: at most the
/// exact LU factors restricted to rows that have entries in A on that side).
IluFactors ilut_nnz(const CsrHost<double>& A, offset_t target_nnz_L, offset_t target_nnz_U, FactorOptions options = {});

/// Incomplete Cholesky with threshold of a symmetric matrix (the symmetric counterpart of ILUT, computed
/// row by row on the lower triangle): multipliers l_ij with |l_ij| < tau * ||a_i||_2 are dropped during the
/// elimination, then only the `p` largest strict-lower entries of each row are kept, and the diagonal is
/// l_ii = sqrt(a_ii - sum_j l_ij^2) over the kept entries. `tau` >= 0, `p` >= 0. tau = 0, p = n is the exact
/// Cholesky factor. Throws BreakdownError("ict", row, "non-positive pivot ...").
CsrHost<double> ict(const CsrHost<double>& A, double tau, int p);

/// ICT with a nonzero budget: `target_nnz_L` counts every stored entry of L, diagonal included (>= n). The
/// strict-lower budget is shared out as in ilut_nnz (tau = 0, per-row cap from the unspent budget in
/// proportion to the row's strict-lower nonzero count in A).
CsrHost<double> ict_nnz(const CsrHost<double>& A, offset_t target_nnz_L, FactorOptions options = {});

// ---------------------------------------------------------------------------------------------------------
// Triangular solves and preconditioner application
// ---------------------------------------------------------------------------------------------------------

/// Solves L x = b by forward substitution. L must be lower triangular (an entry above the diagonal throws
/// InvalidInput). `unit_diag` (default false): when true the diagonal is taken as 1 and any stored diagonal
/// entry is ignored; when false every diagonal entry must be stored (InvalidInput otherwise) and non-zero
/// (BreakdownError("lower_solve", row, "zero diagonal ...") otherwise).
std::vector<double> lower_solve(const CsrHost<double>& L, const std::vector<double>& b, bool unit_diag = false);

/// Solves U x = b by backward substitution. U must be upper triangular with every diagonal entry stored and
/// non-zero (InvalidInput / BreakdownError("upper_solve", row, ...) otherwise).
std::vector<double> upper_solve(const CsrHost<double>& U, const std::vector<double>& b);

/// Applies an incomplete Cholesky preconditioner: solves L Lᵀ z = r (L lower triangular with diagonal).
std::vector<double> ic_apply(const CsrHost<double>& L, const std::vector<double>& r);

/// Applies an incomplete LU preconditioner: solves L U z = r (F.L unit lower, its stored diagonal ignored).
std::vector<double> ilu_apply(const IluFactors& F, const std::vector<double>& r);

// ---------------------------------------------------------------------------------------------------------
// Stationary iterations. Residuals are relative, ||b - A x||_2 / ||b||_2 (absolute when b = 0). A needs
// non-zero diagonal entries; b and x sizes must match A and their values be finite.
// ---------------------------------------------------------------------------------------------------------

/// `sweeps` (>= 0) synchronous (weighted) Jacobi sweeps x <- x + omega D^{-1} (b - A x), updating x in place.
/// `omega` (default 1.0, > 0) is the damping weight. Returns the relative residual before the first sweep and
/// after each sweep (size sweeps + 1), shorter when the residual becomes non-finite (the run stops there).
std::vector<double> jacobi(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                  int sweeps, double omega = 1.0);

/// `sweeps` (>= 0) forward Gauss–Seidel sweeps in place (row 0 to n-1, each row using the newest values).
/// History as in jacobi.
std::vector<double> gauss_seidel(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                        int sweeps);

/// Jacobi sweeps until the relative residual is <= `tol` (>= 0), at most `max_sweeps` (>= 0). Stops and sets
/// `diverged` when the residual becomes non-finite or exceeds 1e10 × the initial residual. `omega` (default
/// 1.0, > 0) as in jacobi.
RelaxResult jacobi_until(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                double tol, int max_sweeps, double omega = 1.0);

/// Forward Gauss–Seidel until the relative residual is <= `tol`; stopping rules as in jacobi_until.
RelaxResult gauss_seidel_until(const CsrHost<double>& A, const std::vector<double>& b, std::vector<double>& x,
                                      double tol, int max_sweeps);

// ---------------------------------------------------------------------------------------------------------
// Products and residual norms
// ---------------------------------------------------------------------------------------------------------

/// Sparse product A B (A.ncols == B.nrows). Every structurally produced entry is stored (also exact zeros
/// from cancellation); columns sorted.
CsrHost<double> multiply(const CsrHost<double>& A, const CsrHost<double>& B);

/// Transpose (columns sorted).
CsrHost<double> transpose(const CsrHost<double>& A);

/// Frobenius norm of the stored values.
double frobenius_norm(const CsrHost<double>& A);

/// Relative nonlinear residual ||(A - L U)_S||_F / ||A_S||_F, S the pattern of A (Chow & Anzt 2015): zero
/// exactly when L and U solve the ILU fixed-point equations on S. Returns the absolute norm when ||A_S|| = 0.
double nonlinear_residual(const CsrHost<double>& A, const CsrHost<double>& L, const CsrHost<double>& U);

/// IC version, ||(A - L Lᵀ)_S||_F / ||A_S||_F with S the lower triangular part of the pattern of A (the
/// equations IC sweeps solve).
double nonlinear_residual(const CsrHost<double>& A, const CsrHost<double>& L);

/// ILU residual ||A - L U||_F over the full product (absolute; divide by frobenius_norm(A) for relative).
double ilu_residual(const CsrHost<double>& A, const CsrHost<double>& L, const CsrHost<double>& U);

/// IC version, ||A - L Lᵀ||_F over the full product.
double ilu_residual(const CsrHost<double>& A, const CsrHost<double>& L);

}  // namespace Reference
}  // namespace AsyncSparse

