// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — mixed-precision iterative refinement with a block-asynchronous error-correction solver.
//
// Anzt, Luszczek, Dongarra, Heuveline, "GPU-accelerated asynchronous error correction for mixed precision
// iterative refinement" (Euro-Par 2012), Algorithm 1 and Fig. 2:
//     r_0 = b - A x_0
//     while ||b - A x_i|| > tol ||b||:
//         r_i = b - A x_i                          (double)
//         solve A c_i = r_i approximately          (async-(k), in single precision on a single-precision copy of A)
//         x_{i+1} = x_i + c_i                      (double)
// The correction equation is solved for the scaled residual r_i / ||r_i|| (so that the single-precision inner
// solver never works near its underflow range, the "scaling process" of the paper's outer loop), and the
// correction is multiplied back by ||r_i|| in double. A is stored in both precisions (the paper: converting A
// per outer step would be too expensive).
//
// Number of inner iterations (paper sect. 3, "Implementation issues"): the first outer step measures the
// improvement — here: the inner solver runs, checking its residual every global_iters_per_launch iterations,
// until the inner residual has dropped by `inner_reduction` (~ the accuracy of the inner precision, 6-8 digits)
// or stops improving (the precision floor of the inner solver); the iteration count m* it needed is then used
// for every later outer step without any inner residual check, so that "the further loops all decrease the
// residual by 6 to 8 digits". The paper remarks that the last step would profit from fewer inner iterations;
// with shorten_last_step the last step runs only as many iterations as the rate of the last measuring step says are
// needed to reach tol (never more than m*).
// Asynchronous iterations are noisy where the threads do not run at once (a host shared with other processes:
// one thread descheduled for whole time slices while the others run ahead on its stale values): the inner
// residual jumps up by 10-20 % for a few checks while the error still falls. The stagnation test therefore looks
// at the best residual over a window of checks, on host backends one that grows with the checks made
// (stagnation_checks; GPUs keep a short window: no thread there is descheduled for milliseconds), and the
// outer loop corrects a measurement that was cut short anyway: an outer step that reduces the outer residual by
// less than 2x, or a blind one (m* iterations) that reduces it by less than half the digits measured, makes the
// next step measure again, for at least twice m* (m* never decreases). "stagnated" is therefore reported after
// outer_stagnation_steps consecutive steps of less than 2x that measured for doubling numbers of iterations.
//
// Variants: inner precision Single (the mixed-precision method) or Double (iterative refinement in double,
// the paper's second baseline); the plain double async-(k) baseline is block_async_solve itself.
//
// Life cycle (IterativeRefinementHandle):
//   iterative_refinement_symbolic(exec, h, A)     pattern: checks, the single-precision copy's storage, the inner
//                                                 async-(k)'s block_async_symbolic. Reads inner_precision,
//                                                 inner.block_size and the inner LaunchConfig.
//   iterative_refinement_numeric(exec, h, A)      values: A in single precision (InvalidInput when a value
//                                                 overflows float), the inner block_async_numeric. Reads inner.tau.
//   iterative_refinement_solve(exec, h, b, x)     the refinement; reads the other parameters.
// Divergence is never silent: outer residual growth, non-finite values or an inner solver that diverges in
// the measuring step end the solve with status Diverged / NonFinite and a message.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_solver_types.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>
#include <asyncsparse/relaxation/AsyncSparse_block_async.hpp>

namespace AsyncSparse {

/// Working precision of the error-correction (inner) solver.
enum class InnerPrecision {
  Single,  ///< float: the mixed-precision iterative refinement
  Double   ///< double: iterative refinement entirely in double
};

inline const char* to_string(InnerPrecision p) { return p == InnerPrecision::Single ? "float" : "double"; }
inline InnerPrecision inner_precision_from_string(const std::string& s) {
  if (s == "float" || s == "single") return InnerPrecision::Single;
  if (s == "double") return InnerPrecision::Double;
  throw InvalidInput("inner precision '" + s + "' unknown (valid: float, double)");
}

struct IterativeRefinementParams {
  /// Stop when ||b - A x||_2 / ||b||_2 <= tol (outer residual, computed in double). Default 1e-12. >= 0.
  double tol = 1e-12;
  /// Maximum outer (refinement) steps. Default 50. >= 0.
  int max_outer = 50;
  /// Inner solver precision. Default Single (mixed precision).
  InnerPrecision inner_precision = InnerPrecision::Single;
  /// The inner async-(k): local_iters, block_size, tau, deterministic, launch_mode and global_iters_per_launch are
  /// used as given (defaults: async-(5), 10 iterations per launch); its tol, max_global_iters, divergence_factor
  /// and record_history are ignored (the refinement sets the inner iteration counts).
  BlockAsyncParams inner;
  /// Inner residual reduction aimed at per outer step (by the measuring steps): the paper's "6 to 8 digits",
  /// about the accuracy of the inner precision. Default 0 = automatic: 1e-6 for a single-precision inner solver,
  /// 1e-8 for a double one. Otherwise in (0, 1). A single-precision solver that stalls above the target (its
  /// rounding floor on ill-conditioned systems) is stopped by the stagnation test below.
  double inner_reduction = 0;
  /// Limit of inner global iterations of a measuring step (step 1 and every re-measure). Default 20000. >= 1.
  /// A re-measure declares no stagnation before twice m*: each re-measure runs at most first_inner_max iterations,
  /// and at least min(2 m*, first_inner_max) unless its inner residual reaches the target reduction first.
  int first_inner_max = 20000;
  /// Limit of inner global iterations of any later step. Default 20000. >= 1.
  int max_inner_iters = 20000;
  /// Measuring steps: the inner solver is taken as stagnated (its precision floor reached) when over the last W
  /// residual checks the best inner residual fell by less than stagnation_fraction of what the average per-check
  /// reduction so far would give over W checks (in log scale). A slowly but steadily converging solver is not
  /// stopped, nor one whose residual jumps up for a few checks; one that has hit its rounding floor stops after
  /// about W checks. W = stagnation_checks when > 0; 0 (default) = automatic: on host backends
  /// W = max(10, checks made / 8) (asynchronous iterations on a host shared with other processes: the residual jumps
  /// up for several checks), on GPUs W = 3 (a longer window only lengthens the measurement there: fv3 mixed 14 %
  /// slower; perf_tests/results/MEASUREMENTS.md#ir-stagnation-window). The window used is in the result
  /// (stagnation_window). stagnation_fraction in (0, 1] (default 0.1), stagnation_checks >= 0.
  double stagnation_fraction = 0.1;
  int stagnation_checks = 0;
  /// Run only the inner iterations the measured rate says the last outer step needs. Default true.
  bool shorten_last_step = true;
  /// Outer residual growth beyond this factor in one step is reported as Diverged. Default 10. > 1.
  double growth_factor = 10;
  /// Stop (MaxIterations, "stagnated") after this many consecutive outer steps reducing the residual by less
  /// than a factor 2, the last of them a measuring step (a slow step makes the next one measure again, for at
  /// least twice m*). Default 3. >= 1.
  int outer_stagnation_steps = 3;
  /// 0 silent, 1 one line at the end, 2 one line per outer step (stderr). Default 0.
  int verbose = 0;
};

struct IterativeRefinementResult {
  SolverStatus status = SolverStatus::MaxIterations;
  std::string message;
  InnerPrecision inner_precision = InnerPrecision::Single;
  int outer_iterations = 0;
  long long inner_iterations = 0;        ///< inner global iterations over all outer steps
  int adapted_inner_iterations = 0;      ///< m*: inner iterations per blind step (the largest measured)
  double measured_inner_reduction = 0;   ///< inner residual reduction achieved in the last measuring step
  std::vector<int> measuring_steps;      ///< the outer steps (from 1) that measured m*: step 1, and re-measures
  std::string stagnation_window;         ///< the measuring steps' stagnation window, e.g. "max(10, checks/8)"
  double initial_residual = 0;           ///< relative residual of x0
  double final_relative_residual = 0;    ///< ||b - A x|| / ||b|| at exit (double)
  std::vector<int> inner_per_outer;      ///< inner global iterations of each outer step (after an inner divergence
                                         ///< also of the step it ended: then one entry more than outer_iterations)
  std::vector<double> residual_history;  ///< relative residual before step 1 and after each step
  std::vector<long long> inner_history;  ///< cumulative inner iterations at each residual_history entry
  std::vector<double> time_history;      ///< seconds since the start at each entry
  double seconds = 0;                    ///< solve time (set-up excluded)
  double inner_seconds = 0;              ///< of which inside the inner solver (incl. the measuring steps' checks)
  bool converged() const { return status == SolverStatus::Converged; }
};

template <class Device>
class IterativeRefinementHandle {
 public:
  using execution_space = typename Device::execution_space;
  using vector_type = Kokkos::View<double*, Device>;
  using const_vector_type = Kokkos::View<const double*, Device>;
  explicit IterativeRefinementHandle(const IterativeRefinementParams& p = IterativeRefinementParams(),
                                     const LaunchConfig& inner_launch = LaunchConfig())
      : params_(p), launch_(inner_launch) {}
  IterativeRefinementParams& params() { return params_; }
  const IterativeRefinementParams& params() const { return params_; }
  LaunchConfig& launch_config() { return launch_; }
  const LaunchConfig& launch_config() const { return launch_; }
  bool symbolic_done() const { return symbolic_; }
  bool numeric_done() const { return numeric_; }
  /// Time of the last symbolic + numeric phase.
  double setup_seconds() const { return setup_seconds_; }
  const IterativeRefinementResult& last_result() const { return last_; }
  /// Statistics of the inner async-(k) of the precision set up.
  const BlockAsyncStats& inner_stats() const {
    return setup_precision_ == InnerPrecision::Single ? inner_f_.stats() : inner_d_.stats();
  }

  // ---- set-up data (public for the implementation; not a user API) ----
  Crs<double, Device> A_;
  Crs<float, Device> A_float_;
  BlockAsyncHandle<float, Device> inner_f_;
  BlockAsyncHandle<double, Device> inner_d_;
  Kokkos::View<double*, Device> r_;
  Kokkos::View<float*, Device> rhat_f_, c_f_;
  Kokkos::View<double*, Device> rhat_d_, c_d_;
  InnerPrecision setup_precision_ = InnerPrecision::Single;
  bool symbolic_ = false, numeric_ = false;
  double setup_seconds_ = 0;
  IterativeRefinementResult last_;

 private:
  IterativeRefinementParams params_;
  LaunchConfig launch_;
};

namespace Impl {
inline void check_ir_params(const char* who, const IterativeRefinementParams& p) {
  const std::string w(who);
  if (!(p.tol >= 0) || !std::isfinite(p.tol)) throw InvalidInput(w + ": tol must be finite and >= 0");
  if (p.max_outer < 0) throw InvalidInput(w + ": max_outer must be >= 0, got " + std::to_string(p.max_outer));
  if (!(p.inner_reduction >= 0 && p.inner_reduction < 1))
    throw InvalidInput(w + ": inner_reduction must be 0 (automatic) or in (0, 1), got " +
                       std::to_string(p.inner_reduction));
  if (p.first_inner_max < 1 || p.max_inner_iters < 1)
    throw InvalidInput(w + ": first_inner_max and max_inner_iters must be >= 1");
  if (!(p.stagnation_fraction > 0 && p.stagnation_fraction <= 1) || p.stagnation_checks < 0)
    throw InvalidInput(w + ": stagnation_fraction must be in (0, 1] and stagnation_checks >= 0 (0: automatic)");
  if (!(p.growth_factor > 1)) throw InvalidInput(w + ": growth_factor must be > 1");
  if (p.outer_stagnation_steps < 1) throw InvalidInput(w + ": outer_stagnation_steps must be >= 1");
}

/// What a measuring step found.
struct IrMeasurement {
  int iterations = 0;  ///< inner global iterations run
  int best_at = 0;     ///< iterations after which the inner residual was lowest (0: never below r0)
  double r0 = 0, best = 0, last = 0;
  bool diverged = false;
};

/// The automatic stagnation window (IterativeRefinementParams::stagnation_checks = 0): W = kIrGpuWindow checks on
/// GPUs, max(kIrHostWindow, checks made / kIrHostWindowDivisor) on host backends.
inline constexpr int kIrGpuWindow = 3;
inline constexpr int kIrHostWindow = 10;
inline constexpr int kIrHostWindowDivisor = 8;

/// Stagnation window W of a measuring step after `checks` residual checks (IterativeRefinementParams::
/// stagnation_checks; 0: the backend's rule), and its description for the result.
template <class ExecSpace>
int ir_stagnation_window(const IterativeRefinementParams& p, int checks) {
  if (p.stagnation_checks > 0) return p.stagnation_checks;
  return is_gpu_space<ExecSpace>() ? kIrGpuWindow : std::max(kIrHostWindow, checks / kIrHostWindowDivisor);
}
template <class ExecSpace>
std::string ir_stagnation_window_name(const IterativeRefinementParams& p) {
  if (p.stagnation_checks > 0) return std::to_string(p.stagnation_checks) + " checks";
  if (is_gpu_space<ExecSpace>()) return std::to_string(kIrGpuWindow) + " checks (GPU default)";
  return "max(" + std::to_string(kIrHostWindow) + ", checks/" + std::to_string(kIrHostWindowDivisor) +
         ") (host default)";
}

/// A measuring step: inner iterations with a residual check every global_iters_per_launch iterations until the
/// inner residual has dropped by `target`, stagnates (the windowed test of IterativeRefinementParams), diverges
/// or first_inner_max iterations have run; no stagnation is declared before min_iters iterations.
template <class ExecSpace, class Low, class Device>
IrMeasurement ir_measure(const ExecSpace& exec, BlockAsyncHandle<Low, Device>& inner,
                         const Kokkos::View<Low*, Device>& rhat, const Kokkos::View<Low*, Device>& c,
                         const IterativeRefinementParams& p, double target, int min_iters) {
  IrMeasurement M;
  M.r0 = M.best = M.last = Impl::block_async_residual_norm(inner, rhat, c);
  std::vector<double> best_after{M.r0};  // best residual after each check
  const int G = p.inner.global_iters_per_launch;
  while (M.iterations < p.first_inner_max) {
    const int g = std::min(G, p.first_inner_max - M.iterations);
    Impl::block_async_run(exec, inner, rhat, c, g);
    M.iterations += g;
    M.last = Impl::block_async_residual_norm(inner, rhat, c);
    if (!std::isfinite(M.last) || M.last > 1e3 * M.best) {  // grew far beyond the best value: divergence
      M.diverged = true;
      break;
    }
    if (M.last < M.best) {
      M.best = M.last;
      M.best_at = M.iterations;
    }
    best_after.push_back(M.best);
    if (M.best <= target * M.r0) break;
    const int checks = static_cast<int>(best_after.size()) - 1;
    const int window = ir_stagnation_window<ExecSpace>(p, checks);
    if (checks >= window && M.iterations >= min_iters) {
      const double drop = std::log(best_after[checks - window] / M.best);  // over the window
      const double average = std::log(M.r0 / M.best) / checks;             // per check, so far
      if (drop <= p.stagnation_fraction * window * average) break;
    }
  }
  return M;
}

/// One refinement solve with inner precision Low (float or double).
template <class Low, class ExecSpace, class Device>
IterativeRefinementResult ir_run(const ExecSpace& exec, IterativeRefinementHandle<Device>& h,
                                 BlockAsyncHandle<Low, Device>& inner, const Kokkos::View<Low*, Device>& rhat,
                                 const Kokkos::View<Low*, Device>& c, const Kokkos::View<const double*, Device>& b,
                                 const Kokkos::View<double*, Device>& x) {
  const auto& p = h.params();
  const auto& A = h.A_;
  auto r = h.r_;
  const ordinal_t n = A.numRows();
  IterativeRefinementResult R;
  R.inner_precision = p.inner_precision;
  R.stagnation_window = ir_stagnation_window_name<ExecSpace>(p);
  Kokkos::Timer timer;
  auto residual = [&]() { return Blas<double, Device>::residual(A, x, b, r); };
  const double bn = Blas<double, Device>::nrm2(b);
  const double scale = bn > 0 ? 1.0 / bn : 1.0;
  double rnorm = residual();
  double rel = rnorm * scale;
  R.initial_residual = rel;
  auto record = [&]() {
    R.residual_history.push_back(rel);
    R.inner_history.push_back(R.inner_iterations);
    R.time_history.push_back(timer.seconds());
  };
  record();
  if (!std::isfinite(bn) || !std::isfinite(rel)) {
    R.status = SolverStatus::NonFinite;
    R.message = "initial residual is not finite (NaN/Inf in A, b or x)";
  } else if (rel <= p.tol) {
    R.status = SolverStatus::Converged;
  } else {
    R.status = SolverStatus::MaxIterations;
    const double target = p.inner_reduction > 0 ? p.inner_reduction : (sizeof(Low) == sizeof(float) ? 1e-6 : 1e-8);
    double rate = 0;  // measured inner residual reduction per global iteration
    int slow_steps = 0;
    bool remeasure = false;
    for (int step = 1; step <= p.max_outer; ++step) {
      // scaled residual in the inner precision, zero initial correction
      const double inv = 1.0 / rnorm;
      Kokkos::parallel_for(
          "AsyncSparse::ir::to_inner", Impl::RangePolicy<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t i) {
            rhat(i) = static_cast<Low>(r(i) * inv);
            c(i) = Low(0);
          });
      Kokkos::Timer inner_timer;
      int m = 0;
      const bool measuring = R.measuring_steps.empty() || remeasure;
      if (measuring) {
        const int min_iters = R.measuring_steps.empty() ? 0 : 2 * R.adapted_inner_iterations;
        const auto M = ir_measure(exec, inner, rhat, c, p, target, min_iters);
        m = M.iterations;
        R.inner_seconds += inner_timer.seconds();
        R.inner_iterations += m;
        R.inner_per_outer.push_back(m);
        R.measuring_steps.push_back(step);
        if (M.diverged || M.best_at == 0) {  // diverged, or never got below the initial residual
          R.status = std::isfinite(M.last) ? SolverStatus::Diverged : SolverStatus::NonFinite;
          R.message = "the inner async-(k) solver diverged in outer step " + std::to_string(step) +
                      " (inner residual " + format_number(M.last / M.r0) + " after " + std::to_string(m) +
                      " iterations; try tau-scaling)";
          break;
        }
        R.adapted_inner_iterations = std::max(R.adapted_inner_iterations, M.best_at);
        R.measured_inner_reduction = M.best / M.r0;
        rate = std::pow(std::max(R.measured_inner_reduction, 1e-300), 1.0 / M.best_at);
      } else {
        m = std::min(R.adapted_inner_iterations, p.max_inner_iters);
        if (p.shorten_last_step && rate > 0 && rate < 1) {
          const double needed = 0.5 * p.tol / rel;  // remaining reduction to reach tol, with a margin of 2
          if (needed > R.measured_inner_reduction)
            m = std::max(1, std::min(m, static_cast<int>(std::ceil(std::log(needed) / std::log(rate)))));
        }
        Impl::block_async_run(exec, inner, rhat, c, m);
        exec.fence();
        R.inner_seconds += inner_timer.seconds();
        R.inner_iterations += m;
        R.inner_per_outer.push_back(m);
      }
      // x += ||r|| c in double, new residual in double
      Kokkos::parallel_for(
          "AsyncSparse::ir::update", Impl::RangePolicy<ExecSpace>(exec, 0, n),
          KOKKOS_LAMBDA(const ordinal_t i) { x(i) += rnorm * static_cast<double>(c(i)); });
      const double prev = rel;
      rnorm = residual();
      rel = rnorm * scale;
      R.outer_iterations = step;
      record();
      if (p.verbose >= 2)
        std::fprintf(stderr, "ir(%s) step %3d  inner %6d%s  rel. residual %.3e\n", to_string(p.inner_precision), step,
                     m, measuring ? " (measured)" : "", rel);
      if (!std::isfinite(rel)) {
        R.status = SolverStatus::NonFinite;
        R.message = "outer residual became NaN/Inf in step " + std::to_string(step);
        break;
      }
      if (rel <= p.tol) {
        R.status = SolverStatus::Converged;
        break;
      }
      if (rel > p.growth_factor * prev) {
        R.status = SolverStatus::Diverged;
        R.message = "outer residual grew from " + format_number(prev) + " to " + format_number(rel) + " in step " +
                    std::to_string(step);
        break;
      }
      slow_steps = rel > 0.5 * prev ? slow_steps + 1 : 0;
      if (slow_steps >= p.outer_stagnation_steps && measuring) {
        R.message = "stagnated: " + std::to_string(slow_steps) + " outer steps reduced the residual by less than 2x (" +
                    format_number(rel) + "); the inner precision cannot resolve this system to tol";
        break;
      }
      // a slow step, or a blind full-length one far short of the measurement: measure again (see the header)
      remeasure = slow_steps > 0 || (!measuring && m == std::min(R.adapted_inner_iterations, p.max_inner_iters) &&
                                     rel > std::sqrt(R.measured_inner_reduction) * prev);
    }
    if (R.status == SolverStatus::MaxIterations && R.message.empty())
      R.message = "no convergence to " + format_number(p.tol) + " in " + std::to_string(p.max_outer) + " outer steps";
  }
  exec.fence();
  R.final_relative_residual = rel;
  R.seconds = timer.seconds();
  if (p.verbose >= 1)
    std::fprintf(stderr, "ir(%s): %s after %d outer / %lld inner iterations, rel. residual %.3e, %.3f s%s%s\n",
                 to_string(p.inner_precision), to_string(R.status), R.outer_iterations, R.inner_iterations,
                 R.final_relative_residual, R.seconds, R.message.empty() ? "" : ": ", R.message.c_str());
  return R;
}
}  // namespace Impl

/// Symbolic phase of the refinement for A (double): checks (square, non-empty), the storage of the
/// single-precision copy of A when the inner precision is Single, and the inner async-(k)'s symbolic phase. Call
/// again after changing A's pattern, the inner precision, or the inner block_size / LaunchConfig.
template <class ExecSpace, class Device>
void iterative_refinement_symbolic(const ExecSpace& exec, IterativeRefinementHandle<Device>& h,
                                   const Crs<double, Device>& A) {
  Kokkos::Timer timer;
  Impl::check_ir_params("iterative_refinement_symbolic", h.params());
  if (A.numRows() != A.numCols())
    throw InvalidInput("iterative_refinement_symbolic: matrix must be square, got " + std::to_string(A.numRows()) +
                       " x " + std::to_string(A.numCols()));
  if (A.numRows() == 0) throw InvalidInput("iterative_refinement_symbolic: matrix is empty (0 rows)");
  h.symbolic_ = h.numeric_ = false;
  h.A_ = A;
  const ordinal_t n = A.numRows();
  const auto& p = h.params();
  h.r_ = Kokkos::View<double*, Device>("AsyncSparse::ir::r", n);
  if (p.inner_precision == InnerPrecision::Single) {
    Kokkos::View<float*, Device> vf(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::ir::A_float"),
                                    A.nnz());
    h.A_float_ = Crs<float, Device>("AsyncSparse::ir::A_float", n, n, A.nnz(), vf, A.graph.row_map, A.graph.entries);
    h.inner_f_ = BlockAsyncHandle<float, Device>(p.inner, h.launch_config());
    block_async_symbolic(exec, h.inner_f_, h.A_float_);
    h.rhat_f_ = Kokkos::View<float*, Device>("AsyncSparse::ir::rhat", n);
    h.c_f_ = Kokkos::View<float*, Device>("AsyncSparse::ir::c", n);
  } else {
    h.inner_d_ = BlockAsyncHandle<double, Device>(p.inner, h.launch_config());
    block_async_symbolic(exec, h.inner_d_, A);
    h.rhat_d_ = Kokkos::View<double*, Device>("AsyncSparse::ir::rhat", n);
    h.c_d_ = Kokkos::View<double*, Device>("AsyncSparse::ir::c", n);
  }
  exec.fence();
  h.setup_precision_ = p.inner_precision;
  h.setup_seconds_ = timer.seconds();
  h.symbolic_ = true;
}

/// Numeric phase: A (with the pattern of the symbolic phase) in single precision when the inner precision is
/// Single (InvalidInput when a value overflows float), and the inner async-(k)'s numeric phase (its validation
/// applies: non-zero finite diagonal). Call again after changing A's values or the inner tau.
template <class ExecSpace, class Device>
void iterative_refinement_numeric(const ExecSpace& exec, IterativeRefinementHandle<Device>& h,
                                  const Crs<double, Device>& A) {
  Kokkos::Timer timer;
  if (!h.symbolic_done())
    throw InvalidInput("iterative_refinement_numeric: iterative_refinement_symbolic must be called first");
  Impl::check_ir_params("iterative_refinement_numeric", h.params());
  if (h.params().inner_precision != h.setup_precision_)
    throw InvalidInput("iterative_refinement_numeric: inner_precision changed since iterative_refinement_symbolic");
  if (A.numRows() != h.A_.numRows() || A.numCols() != h.A_.numCols() || A.nnz() != h.A_.nnz() ||
      !Impl::same_graph(exec, A.numRows(), A.graph.row_map, A.graph.entries, h.A_.graph.row_map, h.A_.graph.entries))
    throw InvalidInput(
        "iterative_refinement_numeric: the matrix does not have the pattern given to iterative_refinement_symbolic");
  h.numeric_ = false;
  BlockAsyncParams& inner = h.setup_precision_ == InnerPrecision::Single ? h.inner_f_.params() : h.inner_d_.params();
  inner.tau = h.params().inner.tau;  // read by the inner numeric phase
  if (h.setup_precision_ == InnerPrecision::Single) {
    auto vf = h.A_float_.values;
    auto vd = A.values;
    offset_t bad = A.nnz();
    Kokkos::parallel_reduce(
        "AsyncSparse::ir::to_float", Impl::RangePolicy<ExecSpace>(exec, 0, A.nnz()),
        KOKKOS_LAMBDA(const offset_t k, offset_t& first_bad) {
          vf(k) = static_cast<float>(vd(k));
          if (!is_finite(vf(k)) && k < first_bad) first_bad = k;
        },
        Kokkos::Min<offset_t>(bad));
    if (bad < A.nnz())
      throw InvalidInput("iterative_refinement_numeric: matrix entry " + std::to_string(bad) +
                         " is not finite in single precision (|a| > 3.4e38 or NaN/Inf)");
    block_async_numeric(exec, h.inner_f_, h.A_float_);
  } else {
    block_async_numeric(exec, h.inner_d_, A);
  }
  h.A_ = A;
  exec.fence();
  h.setup_seconds_ += timer.seconds();
  h.numeric_ = true;
}

/// Solve A x = b by iterative refinement (x: initial guess on entry, solution on exit). Returns the status,
/// outer / inner iteration counts, the outer residual history and times; never throws for divergence.
template <class ExecSpace, class Device>
IterativeRefinementResult iterative_refinement_solve(
    const ExecSpace& exec, IterativeRefinementHandle<Device>& h,
    const typename IterativeRefinementHandle<Device>::const_vector_type& b,
    const typename IterativeRefinementHandle<Device>::vector_type& x) {
  if (!h.numeric_done())
    throw InvalidInput("iterative_refinement_solve: iterative_refinement_numeric must be called first");
  Impl::check_ir_params("iterative_refinement_solve", h.params());
  if (h.params().inner_precision != h.setup_precision_)
    throw InvalidInput("iterative_refinement_solve: inner_precision changed since iterative_refinement_symbolic");
  const auto n = static_cast<std::size_t>(h.A_.numRows());
  if (b.extent(0) != n || x.extent(0) != n)
    throw InvalidInput("iterative_refinement_solve: b and x must have " + std::to_string(n) + " entries, got " +
                       std::to_string(b.extent(0)) + " and " + std::to_string(x.extent(0)));
  // inner parameters that may change between solves without a new set-up (block_size / tau are checked there)
  auto sync_inner = [&](auto& inner) {
    auto keep = inner.params();
    inner.params() = h.params().inner;
    inner.params().block_size = keep.block_size;
    inner.params().tau = keep.tau;
    if (h.params().inner.block_size != keep.block_size)
      throw InvalidInput("iterative_refinement_solve: inner block_size changed since iterative_refinement_symbolic");
    if (h.params().inner.tau != keep.tau)
      throw InvalidInput("iterative_refinement_solve: inner tau changed since iterative_refinement_numeric");
    Impl::check_block_async_params("iterative_refinement_solve (inner)", inner);
  };
  if (h.setup_precision_ == InnerPrecision::Single) {
    sync_inner(h.inner_f_);
    h.last_ = Impl::ir_run<float>(exec, h, h.inner_f_, h.rhat_f_, h.c_f_, b, x);
  } else {
    sync_inner(h.inner_d_);
    h.last_ = Impl::ir_run<double>(exec, h, h.inner_d_, h.rhat_d_, h.c_d_, b, x);
  }
  return h.last_;
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured devices
// (double: S is not used); other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_ITERATIVE_REFINEMENT(EXTERN, S, D)                                                            \
  EXTERN template void iterative_refinement_symbolic(const D::execution_space&, IterativeRefinementHandle<D>&,        \
                                                     const Crs<double, D>&);                                          \
  EXTERN template void iterative_refinement_numeric(const D::execution_space&, IterativeRefinementHandle<D>&,         \
                                                    const Crs<double, D>&);                                           \
  EXTERN template IterativeRefinementResult iterative_refinement_solve(                                               \
      const D::execution_space&, IterativeRefinementHandle<D>&, const Kokkos::View<const double*, D>&,                \
      const Kokkos::View<double*, D>&);
ASYNCSPARSE_ETI_DECLARE_DOUBLE(ASYNCSPARSE_ETI_ITERATIVE_REFINEMENT)

}  // namespace AsyncSparse
