// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — Kokkos-Kernels' Gauss–Seidel on the device, the synchronous baseline of block-asynchronous relaxation
// (relaxation/AsyncSparse_block_async.hpp):
//   kk_gauss_seidel_solve(exec, A, b, x, tol, max_sweeps, check_every, &setup_seconds)
// forward sweeps of Kokkos-Kernels' point (multicolor) Gauss–Seidel until the relative residual is <= tol.
//
// Kokkos-Kernels' gauss_seidel_symbolic / _numeric / _apply choose among three algorithms (point, cluster,
// two-stage) at run time, so a call compiles all three and their graph colorings: about 450 CUDA kernels, 170 s of
// nvcc for this one function on two cores, where the point algorithm alone (the one GS_DEFAULT selects) is 170
// kernels. Impl::KkPointGaussSeidel calls the point algorithm of Kokkos-Kernels 3.x directly, with the argument
// conversions of Kokkos-Kernels' own wrappers (KokkosSparse_gauss_seidel.hpp); with Kokkos-Kernels 4.x it calls the
// public functions (their internals changed there).
#pragma once

#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_gauss_seidel.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>
#include <asyncsparse/linalg/AsyncSparse_blas.hpp>
#include <asyncsparse/linalg/AsyncSparse_diagonal.hpp>
#include <asyncsparse/relaxation/AsyncSparse_block_async_handle.hpp>

namespace AsyncSparse {
namespace Impl {

/// Point Gauss–Seidel of Kokkos-Kernels on the matrix A with the handle kh (gs handle created with GS_DEFAULT).
template <class Handle, class Matrix>
class KkPointGaussSeidel {
 public:
  KkPointGaussSeidel(Handle& kh, const Matrix& A) : kh_(kh), A_(A), n_(A.numRows()) {}

#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
  void symbolic() { Compat::kk_sparse::gauss_seidel_symbolic(&kh_, n_, n_, A_.graph.row_map, A_.graph.entries, true); }
  void numeric() {
    Compat::kk_sparse::gauss_seidel_numeric(&kh_, n_, n_, A_.graph.row_map, A_.graph.entries, A_.values, true);
  }
  template <class X, class B>
  void forward_sweeps(const X& x, const B& b, int sweeps) {
    Compat::kk_sparse::forward_sweep_gauss_seidel_apply(&kh_, n_, n_, A_.graph.row_map, A_.graph.entries, A_.values, x,
                                                        b, false, true, 1.0, sweeps);
  }
#else
  // Kokkos-Kernels 3.x (checked against 3.4.01, the version of Debian 12's Trilinos 13.2; 3.x defines no
  // KOKKOSKERNELS_VERSION): KokkosSparse::Impl::PointGaussSeidel with the const handle and unmanaged views that
  // gauss_seidel_symbolic / _numeric / forward_sweep_gauss_seidel_apply build before their dispatch, under the same
  // profiling region names.
  using const_handle = KokkosKernels::Experimental::KokkosKernelsHandle<
      typename Handle::const_size_type, typename Handle::const_nnz_lno_t, typename Handle::const_nnz_scalar_t,
      typename Handle::HandleExecSpace, typename Handle::HandleTempMemorySpace,
      typename Handle::HandlePersistentMemorySpace>;
  using U = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  template <class V>
  using layout = typename KokkosKernels::Impl::GetUnifiedLayout<V>::array_layout;
  using row_map_t = typename Matrix::row_map_type;
  using entries_t = typename Matrix::index_type;
  using values_t = typename Matrix::values_type;
  using row_map_view =
      Kokkos::View<typename row_map_t::const_value_type*, layout<row_map_t>, typename row_map_t::device_type, U>;
  using entries_view =
      Kokkos::View<typename entries_t::const_value_type*, layout<entries_t>, typename entries_t::device_type, U>;
  using values_view =
      Kokkos::View<typename values_t::const_value_type*, layout<values_t>, typename values_t::device_type, U>;

  void symbolic() {
    check_algorithm();
    Compat::ScopedRegion r("KokkosSparse::Impl::gauss_seidel_symbolic");
    const_handle h(kh_);
    KokkosSparse::Impl::PointGaussSeidel<const_handle, row_map_view, entries_view,
                                         typename const_handle::in_scalar_nnz_view_t>
        gs(&h, n_, n_, row_map(), entries(), true);
    gs.initialize_symbolic();
  }
  void numeric() {
    Compat::ScopedRegion r("KokkosSparse::Impl::gauss_seidel_numeric");
    const_handle h(kh_);
    KokkosSparse::Impl::PointGaussSeidel<const_handle, row_map_view, entries_view, values_view> gs(
        &h, n_, n_, row_map(), entries(), values(), true);
    gs.initialize_numeric();
  }
  template <class X, class B>
  void forward_sweeps(const X& x, const B& b, int sweeps) {
    using x_view = Kokkos::View<typename X::non_const_value_type**, layout<X>, typename X::device_type, U>;
    using b_view = Kokkos::View<typename B::const_value_type**, layout<B>, typename B::device_type, U>;
    Compat::ScopedRegion r("KokkosSparse::Impl::gauss_seidel_apply");
    const_handle h(kh_);
    KokkosSparse::Impl::PointGaussSeidel<const_handle, row_map_view, entries_view, values_view> gs(
        &h, n_, n_, row_map(), entries(), values());
    // PointGaussSeidel::apply(x, y, init_zero_x, sweeps, omega, forward, backward, update_y)
    gs.apply(x_view(x.data(), x.extent(0), 1), b_view(b.data(), b.extent(0), 1), false, sweeps, 1.0, true, false, true);
  }

 private:
  void check_algorithm() const {
    const auto a = kh_.get_gs_handle()->get_algorithm_type();
    if (a == KokkosSparse::GS_CLUSTER || a == KokkosSparse::GS_TWOSTAGE)
      throw InvalidInput("KkPointGaussSeidel: the handle asks for a cluster or two-stage Gauss-Seidel");
  }
  row_map_view row_map() const { return row_map_view(A_.graph.row_map.data(), A_.graph.row_map.extent(0)); }
  entries_view entries() const { return entries_view(A_.graph.entries.data(), A_.graph.entries.extent(0)); }
  values_view values() const { return values_view(A_.values.data(), A_.values.extent(0)); }
#endif

 private:
  Handle& kh_;
  const Matrix& A_;
  typename Matrix::ordinal_type n_;
};

}  // namespace Impl

/// Kokkos-Kernels' point Gauss–Seidel on the device (its default algorithm: multicolor on GPUs, so its convergence
/// per sweep differs from the sequential one; Impl::KkPointGaussSeidel) until the relative residual is <= tol, checking
/// every `check_every` sweeps. `seconds` includes the symbolic/numeric set-up (reported separately in `setup_seconds`).
template <class ExecSpace, class Device>
RelaxationResult kk_gauss_seidel_solve(const ExecSpace& exec, const Crs<double, Device>& A,
                                       const typename BlockAsyncHandle<double, Device>::const_vector_type& b,
                                       const typename BlockAsyncHandle<double, Device>::vector_type& x, double tol,
                                       int max_sweeps, int check_every = 1, double* setup_seconds = nullptr) {
  using mem = typename Device::memory_space;
  using handle_t = KokkosKernels::Experimental::KokkosKernelsHandle<offset_t, ordinal_t, double, ExecSpace, mem, mem>;
  if (A.numRows() != A.numCols() || A.numRows() == 0)
    throw InvalidInput("kk_gauss_seidel_solve: matrix must be square and non-empty");
  if (b.extent(0) != static_cast<std::size_t>(A.numRows()) || x.extent(0) != b.extent(0))
    throw InvalidInput("kk_gauss_seidel_solve: b and x must have " + std::to_string(A.numRows()) + " entries");
  if (!(tol >= 0) || max_sweeps < 0 || check_every < 1)
    throw InvalidInput("kk_gauss_seidel_solve: need tol >= 0, max_sweeps >= 0, check_every >= 1");
  inverse_diagonal(A, "kk_gauss_seidel_solve");  // clear message for a missing / zero diagonal
  Kokkos::Timer timer;
  handle_t kh;
  kh.create_gs_handle(KokkosSparse::GS_DEFAULT);
  const ordinal_t n = A.numRows();
  Impl::KkPointGaussSeidel<handle_t, Crs<double, Device>> gs(kh, A);
  gs.symbolic();
  gs.numeric();
  exec.fence();
  if (setup_seconds) *setup_seconds = timer.seconds();
  Kokkos::View<double*, Device> r("AsyncSparse::kk_gs_r", n);
  auto resid = [&]() { return Blas<double, Device>::residual(A, x, b, r); };
  const double bn = Blas<double, Device>::nrm2(b);
  const double scale = bn > 0 ? 1.0 / bn : 1.0;
  RelaxationResult R;
  double rel = resid() * scale;
  R.initial_residual = rel;
  R.history.add(0, rel, timer.seconds());
  R.status = rel <= tol ? SolverStatus::Converged : SolverStatus::MaxIterations;
  while (R.status == SolverStatus::MaxIterations && R.iterations < max_sweeps) {
    const int s = std::min(check_every, max_sweeps - R.iterations);
    gs.forward_sweeps(x, b, s);
    R.iterations += s;
    rel = resid() * scale;
    R.history.add(R.iterations, rel, timer.seconds());
    if (!std::isfinite(rel)) {
      R.status = SolverStatus::NonFinite;
      R.message = "residual became NaN/Inf";
    } else if (rel <= tol) {
      R.status = SolverStatus::Converged;
    } else if (rel > 1e10 * R.initial_residual) {
      R.status = SolverStatus::Diverged;
      R.message = "residual grew by more than 1e10";
    }
  }
  kh.destroy_gs_handle();
  exec.fence();
  R.final_residual = rel;
  R.seconds = timer.seconds();
  return R;
}

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured devices;
// other types are instantiated from the definitions above.
// The Kokkos-Kernels Gauss-Seidel baseline (double; S is not used).
#define ASYNCSPARSE_ETI_KK_GAUSS_SEIDEL(EXTERN, S, D)                                                      \
  EXTERN template RelaxationResult kk_gauss_seidel_solve(const D::execution_space&, const Crs<double, D>&, \
                                                         const Kokkos::View<const double*, D>&,            \
                                                         const Kokkos::View<double*, D>&, double, int, int, double*);
ASYNCSPARSE_ETI_DECLARE_DOUBLE(ASYNCSPARSE_ETI_KK_GAUSS_SEIDEL)

}  // namespace AsyncSparse
