// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — block-asynchronous relaxation async-(k), and the synchronous relaxation baselines.
//
// Anzt, Tomov, Dongarra, Heuveline, "A block-asynchronous relaxation method for graphics processing units"
// (2011), sect. III-C: the rows of A x = b are split into blocks of consecutive rows; each block is handled
// by one team (a CUDA thread block in the paper). In one *global iteration* every block
//   - reads the current values of the components outside the block once and keeps them fixed,
//   - performs k Jacobi sweeps on its own rows (the "local iterations", in team scratch memory), and
//   - publishes its new values as soon as it is done.
// There is no synchronisation across blocks: a block uses whatever values the other blocks have published
// (Baudet's "purely asynchronous" class, paper Table I). The scheme is denoted async-(k); the paper uses k = 5,
// for which one global iteration updates every component five times. Iteration counts reported here are global
// iterations, as in the paper ("the number of iterations we report is only the number of global iterations").
// Global iterations are streamed Params::global_iters_per_launch (default 10, as in the paper) at a time between
// residual checks: one kernel launch per global iteration queued without host synchronisation (the paper's and
// MAGMA's structure; the default on GPUs) or one fused kernel of persistent teams (the default on host backends that
// are not oversubscribed, where each thread owns a rebalanced range of blocks) — Params::launch_mode.
// tau-scaling (M = I - tau D^{-1} A, sect. IV-B) makes SPD matrices with rho(I - D^{-1} A) > 1 usable.
//
// Entry points (execution space instance first, as everywhere in AsyncSparse):
//   block_async_symbolic(exec, handle, A)           pattern: checks, block size, launch, per-block split of the
//                                                   pattern, block order. Reads Params::block_size, LaunchConfig.
//   block_async_numeric(exec, handle, A)            values: diagonal checks, per-block split of the values, the
//                                                   weights tau / a_ii. Reads Params::tau.
//   block_async_apply(exec, handle, b, x)           exactly Params::global_iters global iterations from x (smoother
//                                                   use). Reads local_iters, global_iters, global_iters_per_launch,
//                                                   launch_mode, deterministic.
//   block_async_solve(exec, handle, b, x)           iterate until the relative residual <= Params::tol. Reads also
//                                                   tol, max_global_iters, divergence_factor, record_history.
//   block_async_statistics(exec, handle, b, runs, checkpoints)   spread over repeated runs (paper Tables IV/V)
//   block_async_estimate_tau(exec, A)               tau = 2 / (lambda_min + lambda_max) of D^{-1} A (Lanczos)
// Baselines of the paper, in the same code base:
//   sync_jacobi_params(p)                           device synchronous Jacobi = async-(1) in deterministic mode
//   host_gauss_seidel_solve / host_jacobi_solve     sequential Gauss–Seidel / Jacobi (Reference, host)
//   kk_gauss_seidel_solve(exec, A, b, x, ...)       Kokkos-Kernels' (multicolor) Gauss–Seidel on the device
//                                                   (relaxation/AsyncSparse_kk_gauss_seidel.hpp)
//
// Block size: Params::block_size, else LaunchConfig::chunk_size, else 512 rows on GPUs / 1024 on host backends.
// Team size and vector length come from the LaunchConfig (-1: one thread, one lane per row on host; on GPUs
// vector length ~ nonzeros per row, 256 threads per team); the lanes of a row share its dot products.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#include <asyncsparse/linalg/AsyncSparse_diagonal.hpp>
#include <asyncsparse/linalg/AsyncSparse_graph.hpp>
#include <asyncsparse/relaxation/AsyncSparse_block_async_handle.hpp>
#include <asyncsparse/relaxation/impl/AsyncSparse_block_async_impl.hpp>

namespace AsyncSparse {

// ------------------------------------------------------------------------------------------------------------
// tau estimate
// ------------------------------------------------------------------------------------------------------------

/// Extreme eigenvalue estimates of D^{-1} A for symmetric A with positive diagonal, by `steps` Lanczos steps
/// on the similar matrix D^{-1/2} A D^{-1/2} (no reorthogonalisation: the extreme Ritz values converge first
/// and ghost copies do not move them). lambda_max is approached from below, lambda_min from above.
struct SpectrumEstimate {
  double lambda_min = 0, lambda_max = 0;
  int steps = 0;
};

namespace Impl {
/// Number of eigenvalues of the symmetric tridiagonal (alpha, beta) below x (Sturm sequence count).
inline int sturm_count(const std::vector<double>& a, const std::vector<double>& b, double x) {
  int count = 0;
  double q = 1.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double bb = i == 0 ? 0.0 : b[i - 1] * b[i - 1];
    q = a[i] - x - (i == 0 ? 0.0 : bb / q);
    if (q == 0.0) q = -1e-300;
    if (q < 0) ++count;
  }
  return count;
}
/// k-th smallest eigenvalue (0-based) of the tridiagonal by bisection on [lo, hi].
inline double tridiag_eig(const std::vector<double>& a, const std::vector<double>& b, int k, double lo, double hi) {
  for (int it = 0; it < 200 && hi - lo > 1e-14 * std::max(1.0, std::abs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    if (sturm_count(a, b, mid) > k)
      hi = mid;
    else
      lo = mid;
  }
  return 0.5 * (lo + hi);
}
}  // namespace Impl

template <class ExecSpace, class Scalar, class Device>
SpectrumEstimate block_async_estimate_spectrum(const ExecSpace& exec, const Crs<Scalar, Device>& A, int steps = 40) {
  using V = Kokkos::View<Scalar*, Device>;
  using B = Blas<Scalar, Device>;
  if (A.numRows() != A.numCols() || A.numRows() == 0)
    throw InvalidInput("block_async_estimate_spectrum: matrix must be square and non-empty");
  if (steps < 1) throw InvalidInput("block_async_estimate_spectrum: steps must be >= 1, got " + std::to_string(steps));
  const ordinal_t n = A.numRows();
  auto dinv = inverse_diagonal(A, "block_async_estimate_spectrum");
  // Lanczos for D^{-1} A, which is self-adjoint in the D inner product <u, v>_D = u^T D v (equivalent to Lanczos
  // on D^{-1/2} A D^{-1/2}, without square roots on the device).
  V d("AsyncSparse::lanczos_d", n), v("AsyncSparse::lanczos_v", n), vp("AsyncSparse::lanczos_vprev", n),
      w("AsyncSparse::lanczos_w", n), t("AsyncSparse::lanczos_t", n);
  int negative = 0;
  Kokkos::parallel_reduce(
      "AsyncSparse::lanczos_init", Impl::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, int& neg) {
        if (!(dinv(i) > Scalar(0))) neg = 1;
        d(i) = Scalar(1) / dinv(i);
        v(i) = Scalar(1) + Scalar(0.5) * static_cast<Scalar>((i * 7919) % 1009) / Scalar(1009);  // all frequencies
      },
      Kokkos::Max<int>(negative));
  if (negative == 1) throw InvalidInput("block_async_estimate_spectrum: needs a positive diagonal (SPD matrix)");
  auto dnorm = [&](const V& u) {  // ||u||_D
    B::mult(Scalar(0), t, Scalar(1), d, u);
    return std::sqrt(B::dot(t, u));
  };
  B::scal(v, Scalar(1.0 / dnorm(v)), v);
  std::vector<double> alpha, beta;
  double b_prev = 0;
  const int m = std::min<int>(steps, n);
  for (int j = 0; j < m; ++j) {
    B::spmv(Scalar(1), A, v, Scalar(0), t);     // t = A v
    const double a = B::dot(t, v);              // <D^{-1} A v, v>_D = v^T A v
    B::mult(Scalar(0), w, Scalar(1), dinv, t);  // w = D^{-1} A v
    B::axpby(Scalar(-a), v, Scalar(1), w);
    if (j > 0) B::axpby(Scalar(-b_prev), vp, Scalar(1), w);
    const double bn = dnorm(w);
    alpha.push_back(a);
    if (!std::isfinite(a) || !std::isfinite(bn))
      throw InvalidInput("block_async_estimate_spectrum: non-finite value in the Lanczos iteration");
    if (bn <= 1e-12 * std::abs(a) || j + 1 == m) break;
    beta.push_back(bn);
    Kokkos::deep_copy(vp, v);
    B::scal(v, Scalar(1.0 / bn), w);
    b_prev = bn;
  }
  beta.resize(alpha.size() - 1);
  double lo = alpha[0], hi = alpha[0];
  for (std::size_t i = 0; i < alpha.size(); ++i) {  // Gershgorin bounds of the tridiagonal
    const double r = (i > 0 ? std::abs(beta[i - 1]) : 0.0) + (i < beta.size() ? std::abs(beta[i]) : 0.0);
    lo = std::min(lo, alpha[i] - r);
    hi = std::max(hi, alpha[i] + r);
  }
  SpectrumEstimate e;
  e.steps = static_cast<int>(alpha.size());
  e.lambda_min = Impl::tridiag_eig(alpha, beta, 0, lo, hi);
  e.lambda_max = Impl::tridiag_eig(alpha, beta, static_cast<int>(alpha.size()) - 1, lo, hi);
  return e;
}

/// tau = 2 / (lambda_min + lambda_max) of D^{-1} A (paper sect. IV-B), from block_async_estimate_spectrum.
/// Throws InvalidInput when the estimate says D^{-1} A is not positive definite.
template <class ExecSpace, class Scalar, class Device>
double block_async_estimate_tau(const ExecSpace& exec, const Crs<Scalar, Device>& A, int steps = 40) {
  const auto e = block_async_estimate_spectrum(exec, A, steps);
  if (!(e.lambda_min > 0))
    throw InvalidInput("block_async_estimate_tau: D^-1 A has a non-positive eigenvalue estimate (" +
                       std::to_string(e.lambda_min) + "): tau-scaling needs an SPD matrix");
  return 2.0 / (e.lambda_min + e.lambda_max);
}

// ------------------------------------------------------------------------------------------------------------
// async-(k)
// ------------------------------------------------------------------------------------------------------------

namespace Impl {
inline bool same_launch(const LaunchConfig& a, const LaunchConfig& b) {
  return a.team_size == b.team_size && a.vector_length == b.vector_length && a.chunk_size == b.chunk_size &&
         a.max_concurrent_teams == b.max_concurrent_teams && a.occupancy_mode == b.occupancy_mode &&
         a.scratch_pad_bytes == b.scratch_pad_bytes && a.block_order == b.block_order && a.seed == b.seed &&
         a.oversubscription == b.oversubscription && a.schedule == b.schedule && a.unit_stride == b.unit_stride;
}
template <class H>
void check_block_async_params(const char* who, const H& h) {
  const auto& p = h.params();
  const std::string w(who);
  if (p.local_iters < 1) throw InvalidInput(w + ": local_iters must be >= 1, got " + std::to_string(p.local_iters));
  if (p.global_iters < 0) throw InvalidInput(w + ": global_iters must be >= 0, got " + std::to_string(p.global_iters));
  if (p.block_size == 0 || p.block_size < -1)
    throw InvalidInput(w + ": block_size must be -1 (auto) or >= 1, got " + std::to_string(p.block_size));
  if (p.global_iters_per_launch < 1)
    throw InvalidInput(w + ": global_iters_per_launch must be >= 1, got " + std::to_string(p.global_iters_per_launch));
  if (!(p.tau >= 0) || !std::isfinite(p.tau))
    throw InvalidInput(w + ": tau must be finite and > 0 (or 0 = estimate), got " + std::to_string(p.tau));
  if (!(p.tol >= 0) || !std::isfinite(p.tol))
    throw InvalidInput(w + ": tol must be finite and >= 0, got " + std::to_string(p.tol));
  if (p.max_global_iters < 0)
    throw InvalidInput(w + ": max_global_iters must be >= 0, got " + std::to_string(p.max_global_iters));
  if (!(p.divergence_factor > 1))
    throw InvalidInput(w + ": divergence_factor must be > 1, got " + std::to_string(p.divergence_factor));
}
template <class H, class BV, class XV>
void check_block_async_call(const char* who, const H& h, const BV& b, const XV& x) {
  const std::string w(who);
  if (!h.numeric_done()) throw InvalidInput(w + ": block_async_numeric must be called first");
  check_block_async_params(who, h);
  if (h.params().block_size != h.setup_block_size_ || !same_launch(h.launch_config(), h.setup_launch_))
    throw InvalidInput(w + ": block_size or the LaunchConfig changed since block_async_symbolic; call it again");
  if (h.params().tau != h.setup_tau_param_)
    throw InvalidInput(w + ": tau changed since block_async_numeric; call it again");
  const auto n = static_cast<std::size_t>(h.matrix().numRows());
  if (b.extent(0) != n || x.extent(0) != n)
    throw InvalidInput(w + ": b and x must have " + std::to_string(n) + " entries, got " + std::to_string(b.extent(0)) +
                       " and " + std::to_string(x.extent(0)));
}

/// BlockAsyncLaunchMode::Auto resolved: Fused on host backends whose threads do not outnumber the hardware threads
/// it may run on (host_hardware_threads: the places of bound OpenMP threads, else the affinity mask), PerIteration
/// otherwise (GPUs; oversubscribed hosts, where a thread waits for others that the OS deschedules for whole time
/// slices; processes sharing the cores, e.g. MPI ranks, are not seen).
template <class ExecSpace>
bool auto_fused_launch(const ExecSpace& exec) {
  if constexpr (!is_host_space<ExecSpace>()) {
    return false;
  } else {
    const unsigned hw = host_hardware_threads<ExecSpace>();  // 0: unknown
    return hw == 0 || static_cast<unsigned>(exec.concurrency()) <= hw;
  }
}

/// Runs `iters` global iterations (in launches of Params::global_iters_per_launch), without residual checks.
template <class ExecSpace, class Scalar, class Device>
void block_async_run(const ExecSpace& exec, BlockAsyncHandle<Scalar, Device>& h,
                     const typename BlockAsyncHandle<Scalar, Device>::const_vector_type& b,
                     const typename BlockAsyncHandle<Scalar, Device>::vector_type& x, int iters) {
  using kernel_type = BlockAsyncKernel<Scalar, ExecSpace, typename Device::memory_space>;
  using policy_type = typename kernel_type::policy_type;
  if (iters <= 0) return;
  auto& st = h.stats_;
  const auto& p = h.params();
  const auto& L = st.launch;
  kernel_type k;
  k.lrow = h.local_row_map_;
  k.rrow = h.remote_row_map_;
  k.lcol = h.local_cols_;
  k.rcol = h.remote_cols_;
  k.lval = h.local_vals_;
  k.rval = h.remote_vals_;
  k.weight = h.weight_;
  k.b = b;
  k.order = h.order_;
  k.n = h.matrix().numRows();
  k.num_blocks = st.num_blocks;
  k.block_size = st.block_size;
  k.local_iters = p.local_iters;
  k.scratch_level = st.scratch_level;
  std::size_t scratch = st.scratch_bytes;
  const int extra = st.scratch_level == 0 ? L.scratch_pad_bytes : 0;
  auto make_policy = [&](int league) {
    policy_type pol(exec, league, L.team_size, L.vector_length);
    if (st.scratch_level == 0)
      pol = pol.set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(scratch) + extra));
    else
      pol = pol.set_scratch_size(1, Kokkos::PerTeam(static_cast<int>(scratch)));
    return pol;
  };
  if (p.deterministic) {
    // Jacobi-style double buffer at the block level: launch j reads cur and writes nxt
    Scalar* cur = x.data();
    Scalar* nxt = h.buffer_.data();
    k.global_iters = 1;
    k.league = L.league_size;
    for (int it = 0; it < iters; ++it) {
      k.x_read = cur;
      k.x_write = nxt;
      Kokkos::parallel_for("AsyncSparse::block_async::deterministic", make_policy(k.league), k);
      std::swap(cur, nxt);
      ++st.total_launches;
    }
    if (cur != x.data()) Kokkos::deep_copy(exec, x, h.buffer_);
  } else {
    k.x_read = x.data();
    k.x_write = x.data();
    const bool fits = auto_fused_launch(exec);  // host threads within the hardware threads (once per run)
    const bool fused =
        p.launch_mode == BlockAsyncLaunchMode::Fused || (p.launch_mode == BlockAsyncLaunchMode::Auto && fits);
    st.fused = fused;
    if (fused) {
      k.league = st.teams;
      for (int done = 0; done < iters;) {
        k.global_iters = std::min(p.global_iters_per_launch, iters - done);
        if constexpr (is_host_space<ExecSpace>()) {
          // one thread per contiguous range of blocks, the ranges rebalanced between launches
          // (BlockAsyncHostFusedBody); at most one range per thread that runs at once (each waits for the others'
          // progress)
          const int ranges = std::max(1, std::min(st.teams, host_threads_at_once(exec)));
          auto& bal = h.host_balancer_;
          if (!bal || bal->blocks() != ranges || bal->end(bal->blocks() - 1) != st.num_blocks)
            bal.emplace(st.num_blocks, ranges);
          using body_type = BlockAsyncHostFusedBody<kernel_type>;
          const int lead = fits ? kHostFusedMaxLead : kHostFusedMaxLeadOversubscribed;
          st.host_max_lead = lead;
          typename body_type::policy_type pol(exec, ranges, 1, L.vector_length);
          pol = pol.set_scratch_size(st.scratch_level, Kokkos::PerTeam(static_cast<int>(scratch) + extra));
          std::vector<int> progress(static_cast<std::size_t>(ranges), 0);
          Kokkos::parallel_for("AsyncSparse::block_async::async_fused_host", pol,
                               body_type{k, bal->bounds(), bal->seconds(), progress.data(), lead});
          exec.fence();
          const int before = bal->rebalances();
          bal->rebalance();
          st.host_rebalances += bal->rebalances() - before;
        } else {
          Kokkos::parallel_for("AsyncSparse::block_async::async_fused", make_policy(k.league), k);
        }
        done += k.global_iters;
        ++st.total_launches;
      }
    } else {
      k.global_iters = 1;
      k.league = L.league_size;
      for (int it = 0; it < iters; ++it) {
        Kokkos::parallel_for("AsyncSparse::block_async::async", make_policy(k.league), k);
        ++st.total_launches;
      }
    }
  }
  st.total_global_iters += iters;
}

/// ||b - A x||_2 with the handle's work vector.
template <class Scalar, class Device>
double block_async_residual_norm(BlockAsyncHandle<Scalar, Device>& h,
                                 const typename BlockAsyncHandle<Scalar, Device>::const_vector_type& b,
                                 const typename BlockAsyncHandle<Scalar, Device>::vector_type& x) {
  return Blas<Scalar, Device>::residual(h.matrix(), x, b, h.residual_);
}
}  // namespace Impl

/// Symbolic phase of async-(k): validates A's shape (square, non-empty) and the parameters, resolves the block
/// size (Params::block_size, else LaunchConfig::chunk_size, else the backend default) and the launch, splits the
/// pattern into per-block local / remote parts and sets the block order. Call again after changing the pattern,
/// block_size or the LaunchConfig. Throws InvalidInput.
template <class ExecSpace, class Scalar, class Device>
void block_async_symbolic(const ExecSpace& exec, BlockAsyncHandle<Scalar, Device>& h, const Crs<Scalar, Device>& A) {
  using kernel_type = Impl::BlockAsyncKernel<Scalar, ExecSpace, typename Device::memory_space>;
  using policy_type = typename kernel_type::policy_type;
  Kokkos::Timer timer;
  Impl::check_block_async_params("block_async_symbolic", h);
  if (A.numRows() != A.numCols())
    throw InvalidInput("block_async_symbolic: matrix must be square, got " + std::to_string(A.numRows()) + " x " +
                       std::to_string(A.numCols()));
  if (A.numRows() == 0) throw InvalidInput("block_async_symbolic: matrix is empty (0 rows)");
  const auto& p = h.params();
  const auto& cfg = h.launch_config();
  const bool gpu = Impl::is_gpu_space<ExecSpace>();
  const ordinal_t n = A.numRows();
  h.symbolic_ = h.numeric_ = false;
  h.A_ = A;

  BlockAsyncStats st;
  // a block is a chunk of the launch: Params::block_size, else LaunchConfig::chunk_size, else block_async's
  // default of 512 rows on GPUs, 1024 on host backends; at most n
  LaunchConfig c = cfg;
  if (p.block_size > 0) c.chunk_size = p.block_size;
  if (c.chunk_size > 0) c.chunk_size = static_cast<int>(std::min<std::int64_t>(c.chunk_size, n));
  LaunchDefaults d;
  d.gpu_chunk_size = static_cast<int>(std::min<std::int64_t>(512, n));
  d.host_chunk_size = static_cast<int>(std::min<std::int64_t>(1024, n));
  d.method = "block_async_symbolic";
  st.launch = resolve_launch_config<ExecSpace>(c, n, static_cast<double>(A.nnz()) / n, exec, d);
  st.block_size = st.launch.chunk_size;
  st.num_blocks = st.launch.num_chunks;
  // persistent teams of the fused asynchronous mode: as many as can run at once (or the occupancy limit)
  int resident = gpu ? std::max(1, st.launch.concurrency / (st.launch.team_size * st.launch.vector_length))
                     : std::max(1, st.launch.concurrency / st.launch.team_size);
  if (cfg.max_concurrent_teams > 0) resident = cfg.max_concurrent_teams;
  st.teams = static_cast<int>(std::min<std::int64_t>(resident, st.num_blocks));
  st.scratch_bytes = kernel_type::scratch_bytes(st.block_size);
  st.scratch_level =
      static_cast<int>(st.scratch_bytes) + st.launch.scratch_pad_bytes <= policy_type::scratch_size_max(0) ? 0 : 1;
  if (st.scratch_level == 1 && static_cast<int>(st.scratch_bytes) > policy_type::scratch_size_max(1))
    throw InvalidInput("block_async_symbolic: block_size " + std::to_string(st.block_size) +
                       " needs more team scratch than the backend allows; use smaller blocks");

  Impl::split_block_pattern(A, st.block_size, h.local_row_map_, h.local_cols_, h.local_vals_, h.remote_row_map_,
                            h.remote_cols_, h.remote_vals_);
  st.local_nnz = static_cast<std::int64_t>(h.local_vals_.extent(0));
  st.remote_nnz = static_cast<std::int64_t>(h.remote_vals_.extent(0));
  h.weight_ = Kokkos::View<Scalar*, Device>("AsyncSparse::block_async::weight", n);
  h.buffer_ = Kokkos::View<Scalar*, Device>("AsyncSparse::block_async::buffer", n);
  h.residual_ = Kokkos::View<Scalar*, Device>("AsyncSparse::block_async::residual", n);
  auto perm = block_order_permutation(st.num_blocks, st.launch.block_order, st.launch.seed);
  h.order_ = to_device<Device>(perm, "AsyncSparse::block_async::order");
  exec.fence();
  st.setup_seconds = timer.seconds();
  h.stats_ = st;
  h.host_balancer_.reset();
  h.setup_block_size_ = p.block_size;
  h.setup_launch_ = cfg;
  h.symbolic_ = true;
}

/// Numeric phase of async-(k): A has the pattern of the symbolic phase and every diagonal entry stored, non-zero
/// and finite; splits its values into the per-block parts and computes the weights tau / a_ii (tau estimated
/// when Params::tau == 0). Call again after changing A's values or tau. Throws InvalidInput.
template <class ExecSpace, class Scalar, class Device>
void block_async_numeric(const ExecSpace& exec, BlockAsyncHandle<Scalar, Device>& h, const Crs<Scalar, Device>& A) {
  Kokkos::Timer timer;
  if (!h.symbolic_done()) throw InvalidInput("block_async_numeric: block_async_symbolic must be called first");
  Impl::check_block_async_params("block_async_numeric", h);
  const auto& S = h.matrix();
  if (A.numRows() != S.numRows() || A.numCols() != S.numCols() || A.nnz() != S.nnz() ||
      !Impl::same_graph(exec, A.numRows(), A.graph.row_map, A.graph.entries, S.graph.row_map, S.graph.entries))
    throw InvalidInput("block_async_numeric: the matrix does not have the pattern given to block_async_symbolic");
  h.numeric_ = false;
  auto dinv = inverse_diagonal(A, "block_async_numeric");  // throws for a missing / zero / non-finite diagonal
  auto& st = h.stats_;
  Impl::split_block_values(A, st.block_size, h.local_row_map_, h.local_vals_, h.remote_row_map_, h.remote_vals_);
  const auto& p = h.params();
  st.tau = p.tau > 0 ? p.tau : block_async_estimate_tau(exec, A);
  Blas<Scalar, Device>::scal(h.weight_, static_cast<Scalar>(st.tau), dinv);
  h.A_ = A;
  exec.fence();
  st.setup_seconds += timer.seconds();
  h.setup_tau_param_ = p.tau;
  h.numeric_ = true;
}

/// Exactly Params::global_iters (>= 0) global iterations of async-(k) on A x = b from the given x (x is updated in
/// place). No residual is computed: this is the smoother / preconditioner entry point.
template <class ExecSpace, class Scalar, class Device>
void block_async_apply(const ExecSpace& exec, BlockAsyncHandle<Scalar, Device>& h,
                       const typename BlockAsyncHandle<Scalar, Device>::const_vector_type& b,
                       const typename BlockAsyncHandle<Scalar, Device>::vector_type& x) {
  Impl::check_block_async_call("block_async_apply", h, b, x);
  const int global_iters = h.params().global_iters;
  Kokkos::Timer timer;
  Impl::block_async_run(exec, h, b, x, global_iters);
  exec.fence();
  auto& last = h.stats_.last;
  last = RelaxationResult();
  last.iterations = global_iters;
  last.seconds = timer.seconds();
  last.message = "fixed number of iterations, no residual computed";
}

/// async-(k) until ||b - A x|| / ||b|| <= Params::tol or Params::max_global_iters global iterations. The residual
/// is checked after every launch (every global_iters_per_launch global iterations; the paper's 10), so the
/// iteration count is a multiple of it unless max_global_iters is not. Never throws for divergence: a residual
/// growing beyond divergence_factor x the initial one gives status Diverged, a NaN/Inf residual NonFinite
/// (both with a message); x then holds the last iterate.
template <class ExecSpace, class Scalar, class Device>
RelaxationResult block_async_solve(const ExecSpace& exec, BlockAsyncHandle<Scalar, Device>& h,
                                   const typename BlockAsyncHandle<Scalar, Device>::const_vector_type& b,
                                   const typename BlockAsyncHandle<Scalar, Device>::vector_type& x) {
  Impl::check_block_async_call("block_async_solve", h, b, x);
  const auto& p = h.params();
  RelaxationResult R;
  Kokkos::Timer timer;
  const double bn = Blas<Scalar, Device>::nrm2(b);
  const double scale = bn > 0 ? 1.0 / bn : 1.0;
  double rel = Impl::block_async_residual_norm(h, b, x) * scale;
  R.initial_residual = rel;
  auto record = [&](int it, double r) {
    if (p.record_history) R.history.add(it, r, timer.seconds());
  };
  record(0, rel);
  if (!std::isfinite(bn) || !std::isfinite(rel)) {
    R.status = SolverStatus::NonFinite;
    R.message = "initial residual is not finite (NaN/Inf in A, b or x)";
  } else if (rel <= p.tol) {
    R.status = SolverStatus::Converged;
  } else {
    R.status = SolverStatus::MaxIterations;
    while (R.iterations < p.max_global_iters) {
      const int g = std::min(p.global_iters_per_launch, p.max_global_iters - R.iterations);
      Impl::block_async_run(exec, h, b, x, g);
      R.iterations += g;
      rel = Impl::block_async_residual_norm(h, b, x) * scale;
      record(R.iterations, rel);
      if (!std::isfinite(rel)) {
        R.status = SolverStatus::NonFinite;
        R.message = "residual became NaN/Inf after " + std::to_string(R.iterations) + " global iterations (diverged)";
        break;
      }
      if (rel <= p.tol) {
        R.status = SolverStatus::Converged;
        break;
      }
      if (rel > p.divergence_factor * R.initial_residual) {
        R.status = SolverStatus::Diverged;
        R.message = "residual grew by more than " + format_number(p.divergence_factor) + " after " +
                    std::to_string(R.iterations) + " global iterations (rho(|M|) >= 1? try tau-scaling)";
        break;
      }
    }
    if (R.status == SolverStatus::MaxIterations)
      R.message = "no convergence to " + format_number(p.tol) + " in " + std::to_string(p.max_global_iters) +
                  " global iterations";
  }
  exec.fence();
  R.final_residual = rel;
  R.seconds = timer.seconds();
  h.stats_.last = R;
  return R;
}

/// Spread of the residual over repeated asynchronous runs (paper Tables IV and V).
struct RelaxationStatistics {
  int runs = 0;
  std::vector<int> checkpoints;  ///< global iteration counts at which the residual was taken
  std::vector<double> mean, variance, std_deviation, std_error, min, max;
  std::vector<double> variation;             ///< max - min (the paper's "variation")
  std::vector<double> relative_spread;       ///< (max - min) / mean
  std::vector<std::vector<double>> samples;  ///< samples[c][r]: residual of run r at checkpoint c
};

/// Runs async-(k) `runs` times from x = 0 on A x = b and records the relative residual after each of the
/// (increasing, positive) `checkpoints` global iteration counts; returns mean, variance (n - 1 normalised),
/// standard deviation, standard error, min, max and spread per checkpoint. In deterministic mode all runs agree.
template <class ExecSpace, class Scalar, class Device>
RelaxationStatistics block_async_statistics(const ExecSpace& exec, BlockAsyncHandle<Scalar, Device>& h,
                                            const typename BlockAsyncHandle<Scalar, Device>::const_vector_type& b,
                                            int runs, const std::vector<int>& checkpoints) {
  if (runs < 1) throw InvalidInput("block_async_statistics: runs must be >= 1, got " + std::to_string(runs));
  if (checkpoints.empty()) throw InvalidInput("block_async_statistics: no checkpoints given");
  for (std::size_t c = 0; c < checkpoints.size(); ++c)
    if (checkpoints[c] < 1 || (c > 0 && checkpoints[c] <= checkpoints[c - 1]))
      throw InvalidInput("block_async_statistics: checkpoints must be positive and increasing");
  Kokkos::View<Scalar*, Device> x("AsyncSparse::block_async::stat_x", b.extent(0));
  Impl::check_block_async_call("block_async_statistics", h, b, x);
  const double bn = Blas<Scalar, Device>::nrm2(b);
  const double scale = bn > 0 ? 1.0 / bn : 1.0;
  RelaxationStatistics S;
  S.runs = runs;
  S.checkpoints = checkpoints;
  S.samples.assign(checkpoints.size(), std::vector<double>(runs));
  for (int r = 0; r < runs; ++r) {
    Kokkos::deep_copy(exec, x, Scalar(0));
    int done = 0;
    for (std::size_t c = 0; c < checkpoints.size(); ++c) {
      Impl::block_async_run(exec, h, b, x, checkpoints[c] - done);
      done = checkpoints[c];
      S.samples[c][r] = Impl::block_async_residual_norm(h, b, x) * scale;
    }
  }
  for (const auto& s : S.samples) {
    double mean = 0, mn = s[0], mx = s[0];
    for (double v : s) {
      mean += v;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
    mean /= runs;
    double var = 0;
    for (double v : s) var += (v - mean) * (v - mean);
    var = runs > 1 ? var / (runs - 1) : 0.0;
    S.mean.push_back(mean);
    S.variance.push_back(var);
    S.std_deviation.push_back(std::sqrt(var));
    S.std_error.push_back(std::sqrt(var / runs));
    S.min.push_back(mn);
    S.max.push_back(mx);
    S.variation.push_back(mx - mn);
    S.relative_spread.push_back(mean > 0 ? (mx - mn) / mean : 0.0);
  }
  return S;
}

// ------------------------------------------------------------------------------------------------------------
// Baselines
// ------------------------------------------------------------------------------------------------------------

/// Parameters of the device synchronous Jacobi baseline: async-(1) in deterministic mode, which is exactly
/// x <- x + tau D^{-1} (b - A x) (one local sweep with the previous iterate everywhere), keeping the other fields.
inline BlockAsyncParams sync_jacobi_params(BlockAsyncParams p = BlockAsyncParams()) {
  p.local_iters = 1;
  p.deterministic = true;
  return p;
}

namespace Impl {
inline RelaxationResult from_reference(const Reference::RelaxResult& r, double seconds, double tol) {
  RelaxationResult R;
  R.iterations = r.sweeps;
  R.initial_residual = r.history.empty() ? 0.0 : r.history.front();
  R.final_residual = r.final_residual;
  R.seconds = seconds;
  for (std::size_t i = 0; i < r.history.size(); ++i)
    R.history.add(static_cast<int>(i), r.history[i], seconds * i / std::max<std::size_t>(1, r.history.size() - 1));
  if (r.converged) {
    R.status = SolverStatus::Converged;
  } else if (r.diverged) {
    R.status = std::isfinite(r.final_residual) ? SolverStatus::Diverged : SolverStatus::NonFinite;
    R.message = "residual diverged after " + std::to_string(r.sweeps) + " sweeps";
  } else {
    R.status = SolverStatus::MaxIterations;
    R.message = "no convergence to " + format_number(tol) + " in " + std::to_string(r.sweeps) + " sweeps";
  }
  return R;
}
}  // namespace Impl

/// Sequential forward Gauss–Seidel on the host (Reference::gauss_seidel_until) until the relative residual is
/// <= tol. The residual is evaluated after every sweep (inside the reference), and `seconds` includes it; the
/// history's times are spread evenly over the sweeps.
inline RelaxationResult host_gauss_seidel_solve(const CsrHost<double>& A, const std::vector<double>& b,
                                                std::vector<double>& x, double tol, int max_sweeps) {
  Kokkos::Timer t;
  auto r = Reference::gauss_seidel_until(A, b, x, tol, max_sweeps);
  return Impl::from_reference(r, t.seconds(), tol);
}

/// Sequential synchronous (weighted) Jacobi on the host (Reference::jacobi_until); as host_gauss_seidel_solve.
inline RelaxationResult host_jacobi_solve(const CsrHost<double>& A, const std::vector<double>& b,
                                          std::vector<double>& x, double tol, int max_sweeps, double omega = 1.0) {
  Kokkos::Timer t;
  auto r = Reference::jacobi_until(A, b, x, tol, max_sweeps, omega);
  return Impl::from_reference(r, t.seconds(), tol);
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured scalars
// and devices; other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_BLOCK_ASYNC(EXTERN, S, D)                                                                     \
  EXTERN template void Impl::block_async_run(const D::execution_space&, BlockAsyncHandle<S, D>&,                      \
                                             const Kokkos::View<const S*, D>&, const Kokkos::View<S*, D>&, int);      \
  EXTERN template void block_async_symbolic(const D::execution_space&, BlockAsyncHandle<S, D>&, const Crs<S, D>&);    \
  EXTERN template void block_async_numeric(const D::execution_space&, BlockAsyncHandle<S, D>&, const Crs<S, D>&);     \
  EXTERN template RelaxationResult block_async_solve(const D::execution_space&, BlockAsyncHandle<S, D>&,              \
                                                    const Kokkos::View<const S*, D>&, const Kokkos::View<S*, D>&);    \
  EXTERN template SpectrumEstimate block_async_estimate_spectrum(const D::execution_space&, const Crs<S, D>&, int); \
  EXTERN template RelaxationStatistics block_async_statistics(const D::execution_space&, BlockAsyncHandle<S, D>&,    \
                                                              const Kokkos::View<const S*, D>&, int,                 \
                                                              const std::vector<int>&);
ASYNCSPARSE_ETI_DECLARE(ASYNCSPARSE_ETI_BLOCK_ASYNC)

}  // namespace AsyncSparse
