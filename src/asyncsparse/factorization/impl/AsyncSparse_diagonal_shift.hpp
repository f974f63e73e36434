// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — diagonal shift and retry of the iterative factorizations (Manteuffel's shifted incomplete
// factorization, as Ifpack2 / hypre / PETSc offer it): a numeric phase that breaks down or diverges on the scaled
// matrix A_s starts over on a shifted matrix (= A_s + alpha I for a positive diagonal; each caller documents its
// shift) with alpha = start, 10 start, 100 start, ... <= 1. The same sequence as
// Reference::FactorOptions::diagonal_shift, so that a serial reference with the same options is comparable. Used by
// par_ilu_numeric (ParIlu / ParIc) and par_ilut_numeric (ParIlut / ParIct).
#pragma once

#include <memory>
#include <string>

#include <asyncsparse/core/AsyncSparse_errors.hpp>

namespace AsyncSparse {
namespace Impl {

/// First shift of the incomplete-factorization preconditioners (ParIc, ParIlu, ParIct, ParIlut: parameter
/// "diagonal_shift"; the handles default to 0, no restart). Measured on the shared SPD matrices whose ParIC breaks
/// down (OpenMP, 2 threads; perf_tests/results/MEASUREMENTS.md#diagonal-shift): the shift that worked was 1e-2
/// (bcsstk14), 0.1 (bcsstk15, bcsstk18) or 1 (bcsstk13, nos1, nos2), and starting the sequence lower (1e-5, 1e-4)
/// ended at the same shift and PCG iterations after more restarts, each a numeric phase; 1e-3 is also the
/// ParILUT study driver's default.
constexpr double kPreconditionerDiagonalShift = 1e-3;

/// What the restarts did: the shift of the factors (0: none was needed), the restarts, and the error of the
/// unshifted matrix that made the first one necessary ("" when none).
struct ShiftOutcome {
  double shift = 0.0;
  int retries = 0;
  std::string reason;
};

/// Copies `o` into a handle's Stats (fields shift, shift_retries, shift_reason).
template <class Stats>
void record_shift(Stats& stats, const ShiftOutcome& o) {
  stats.shift = o.shift;
  stats.shift_retries = o.retries;
  stats.shift_reason = o.reason;
}

/// ", shift 0.1 after 3 restarts" for a preconditioner's description, "" when no shift was needed; with
/// `initial_only` ", shift 0.1 of the initial guess after 3 restarts".
template <class Stats>
std::string shift_description(const Stats& stats, bool initial_only = false) {
  if (!(stats.shift > 0)) return "";
  return ", shift " + format_number(stats.shift) + (initial_only ? " of the initial guess" : "") + " after " +
         std::to_string(stats.shift_retries) + " restart" + (stats.shift_retries == 1 ? "" : "s");
}

/// Checks a shift parameter: finite, in [0, 1).
inline void check_diagonal_shift(double start, const std::string& where) {
  if (!(start >= 0.0 && start < 1.0))
    throw InvalidInput(where + ": diagonal_shift must be in [0, 1), got " + std::to_string(start));
}

/// The shift after `alpha` in the sequence start, 10 start, ... <= 1 (alpha 0: the first). False when the
/// sequence is exhausted or start is 0 (no restarts).
inline bool next_diagonal_shift(double start, double& alpha) {
  const double next = alpha == 0.0 ? start : 10.0 * alpha;
  if (!(next > 0.0) || next > 1.0 + 1e-12) return false;
  alpha = next;
  return true;
}

/// Whether `alpha` is the last shift of the sequence from `start` > 0: the attempt whose failure ends the restarts
/// (ParIlu / ParIc give its asynchronous sweeps more time then: Impl::sweep_out_breakdown). False without restarts.
inline bool last_diagonal_shift(double start, double alpha) {
  double next = alpha;
  return start > 0 && alpha > 0 && !next_diagonal_shift(start, next);
}

/// The restarts of with_diagonal_shift; `out` says what happened, also when an error is thrown.
template <class Attempt>
void run_diagonal_shifts(double start, ShiftOutcome& out, Attempt&& attempt) {
  out = ShiftOutcome();
  double alpha = 0.0;
  std::unique_ptr<BreakdownError> first_breakdown;
  std::unique_ptr<DivergenceError> first_divergence;
  for (;;) {
    std::string last;
    try {
      attempt(alpha);
      out.shift = alpha;
      return;
    } catch (const BreakdownError& e) {
      if (out.reason.empty()) {
        out.reason = e.what();
        first_breakdown.reset(new BreakdownError(e));
      }
      last = e.what();
    } catch (const DivergenceError& e) {
      if (out.reason.empty()) {
        out.reason = e.what();
        first_divergence.reset(new DivergenceError(e));
      }
      last = e.what();
    }
    if (!next_diagonal_shift(start, alpha)) {
      std::string note;
      if (out.retries > 0)
        note = "; no diagonal shift helped (" + std::to_string(out.retries) +
               (out.retries == 1 ? " restart" : " restarts") +
               " on the shifted matrix, alpha = " + format_number(start) +
               (alpha != start ? " ... " + format_number(alpha) : std::string()) + "; the last: " + last + ")";
      if (first_breakdown) throw BreakdownError(*first_breakdown, note);
      throw DivergenceError(*first_divergence, note);
    }
    ++out.retries;
  }
}

/// SweepOrder::Auto's switch to ordered sweeps (ParIlu / ParIc at the last attempt, ParIlut / ParIct at the first
/// failure; each caller says where): run(false) with concurrent sweeps and, where that throws BreakdownError or
/// DivergenceError, `reason` = its message and run(true) with ordered ones; when those fail too, the concurrent
/// sweeps' error with the ordered sweeps' appended.
template <class Run>
void run_with_ordered_fallback(std::string& reason, Run&& run) {
  auto ordered = [&](const std::string& what) {
    reason = what;
    try {
      run(true);
      return std::string();
    } catch (const BreakdownError& e) {
      return std::string(e.what());
    } catch (const DivergenceError& e) {
      return std::string(e.what());
    }
  };
  std::string also;
  try {
    run(false);
    return;
  } catch (const BreakdownError& e) {
    if ((also = ordered(e.what())).empty()) return;
    throw BreakdownError(e, "; with ordered sweeps (sweep_order auto) too: " + also);
  } catch (const DivergenceError& e) {
    if ((also = ordered(e.what())).empty()) return;
    throw DivergenceError(e, "; with ordered sweeps (sweep_order auto) too: " + also);
  }
}

/// Runs attempt(alpha) for alpha = 0, and after each BreakdownError or DivergenceError again for the next shift;
/// records what happened in `stats` (record_shift), also when an error leaves. When no shift helps, the error of the
/// unshifted matrix is thrown (its type, row or iteration, as Reference::FactorOptions::diagonal_shift does) with
/// the shifts tried and the last attempt's error appended to its message.
template <class Stats, class Attempt>
void with_diagonal_shift(double start, Stats& stats, Attempt&& attempt) {
  ShiftOutcome out;
  try {
    run_diagonal_shifts(start, out, attempt);
  } catch (...) {
    record_shift(stats, out);
    throw;
  }
  record_shift(stats, out);
}

}  // namespace Impl
}  // namespace AsyncSparse
