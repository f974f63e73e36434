// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the conventional (exact, level-scheduled) ILU(0)/IC(0) factorizations the iterative
// factorization is measured against (Chow, Anzt & Dongarra 2015, Table 2: "IC" computed with cuSPARSE):
//
//  * KkSpiluk: Kokkos-Kernels spiluk (level-of-fill k, level-scheduled numeric phase on the device, symbolic
//    phase on the host), on every backend. For an SPD matrix its ILU(0) factors give the same preconditioner as
//    IC(0) (L U = L D Lᵀ).
//  * CusparseIncompleteFactor (only when ASYNCSPARSE_HAVE_CUSPARSE, i.e. a CUDA build): cuSPARSE csrilu02 /
//    csric02 (deprecated in CUDA 12/13 but present), the baseline of the paper. The timings include the
//    analysis phase (cusparse*_analysis) and the factorization; the work buffer is allocated outside the timed
//    region. Every cuSPARSE and CUDA status is checked; a structural or numerical zero pivot is reported as a
//    BreakdownError with its row.
//
// The factors come back in AsyncSparse's conventions (sorted rows; L with its diagonal last, unit for ILU; U with
// its diagonal first) so that IncompleteFactorPreconditioner can apply them.
#pragma once

#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>
#include <asyncsparse/AsyncSparse_config.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_spiluk.hpp>
#include <Kokkos_Core.hpp>

#include <memory>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/factorization/AsyncSparse_kk_factor.hpp>
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>

#if ASYNCSPARSE_HAVE_CUSPARSE
#ifndef DISABLE_CUSPARSE_DEPRECATED
#define DISABLE_CUSPARSE_DEPRECATED  // csrilu02 / csric02 are deprecated, still the paper's baseline
#endif
#include <cuda_runtime_api.h>
#include <cusparse.h>
#endif

namespace AsyncSparse {

/// Kokkos-Kernels spiluk: symbolic() once per pattern, numeric() per set of values (timed separately).
template <class Scalar, class Device>
class KkSpiluk : public Impl::KkFactorBase<Scalar, Device> {
  using B = Impl::KkFactorBase<Scalar, Device>;
  using row_map_type = typename B::row_map_type;
  using entries_type = typename B::entries_type;
  using values_type = typename B::values_type;

 public:
  using typename B::crs_type;
  using typename B::execution_space;
  using typename B::handle_type;

  KkSpiluk() : B("AsyncSparse::spiluk") {}

  /// A: square, sorted rows, diagonal stored. fill_level >= 0.
  void symbolic(const crs_type& A, int fill_level = 0) {
    if (A.numRows() != A.numCols()) throw InvalidInput("KkSpiluk::symbolic: matrix must be square");
    if (fill_level < 0) throw InvalidInput("KkSpiluk::symbolic: fill level must be >= 0");
    Kokkos::Timer t;
    this->A_ = A;
    k_ = fill_level;
    const ordinal_t n = A.numRows();
    // KK needs upper bounds of nnz(L), nnz(U) up front: nnz(A) + n for level 0, generous for fill.
    const offset_t est = static_cast<offset_t>((A.nnz() + n) * (fill_level == 0 ? 1 : 2 + 2 * fill_level));
    this->kh_ = std::make_shared<handle_type>();
    this->kh_->create_spiluk_handle(KokkosSparse::Experimental::SPILUKAlgorithm::SEQLVLSCHD_TP1, n, est, est);
    this->l_rm_ = row_map_type(this->label("L_row_map"), n + 1);
    this->u_rm_ = row_map_type(this->label("U_row_map"), n + 1);
    this->l_ent_ = entries_type(this->label("L_entries"), est);
    this->u_ent_ = entries_type(this->label("U_entries"), est);
    Compat::kk_sparse::spiluk_symbolic(this->kh_.get(), k_, A.graph.row_map, A.graph.entries, this->l_rm_, this->l_ent_,
                                       this->u_rm_, this->u_ent_);
    Kokkos::resize(this->l_ent_, this->kh_->get_spiluk_handle()->get_nnzL());
    Kokkos::resize(this->u_ent_, this->kh_->get_spiluk_handle()->get_nnzU());
    this->l_val_ = values_type(this->label("L_values"), this->l_ent_.extent(0));
    this->u_val_ = values_type(this->label("U_values"), this->u_ent_.extent(0));
    execution_space().fence();
    this->symbolic_seconds_ = t.seconds();
  }

  /// Numeric factorization of A (the pattern given to symbolic(); new values allowed). Returns its seconds.
  double numeric(const crs_type& A) {
    if (!this->kh_) throw InvalidInput("KkSpiluk::numeric: symbolic() must be called first");
    execution_space().fence();
    Kokkos::Timer t;
    Compat::kk_sparse::spiluk_numeric(this->kh_.get(), k_, A.graph.row_map, A.graph.entries, A.values, this->l_rm_,
                                      this->l_ent_, this->l_val_, this->u_rm_, this->u_ent_, this->u_val_);
    execution_space().fence();
    this->numeric_seconds_ = t.seconds();
    return this->numeric_seconds_;
  }

 private:
  int k_ = 0;
};

#if ASYNCSPARSE_HAVE_CUSPARSE

namespace Impl {
inline void cusparse_check(cusparseStatus_t s, const char* call) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw Error(std::string("cuSPARSE: ") + call + " failed: " + cusparseGetErrorString(s) + " (status " +
                std::to_string(static_cast<int>(s)) + ")");
}
inline void cuda_check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw Error(std::string("CUDA: ") + call + " failed: " + cudaGetErrorString(e));
}
}  // namespace Impl

/// cuSPARSE csrilu02 (ILU(0)) or csric02 (IC(0), lower triangle of a symmetric matrix) on A's pattern, double
/// precision, on the default Kokkos CUDA stream.
template <class Device>
class CusparseIncompleteFactor {
 public:
  using crs_type = Crs<double, Device>;
  using execution_space = typename Device::execution_space;

  CusparseIncompleteFactor() = default;
  CusparseIncompleteFactor(const CusparseIncompleteFactor&) = delete;
  CusparseIncompleteFactor& operator=(const CusparseIncompleteFactor&) = delete;
  ~CusparseIncompleteFactor() { release(); }

  /// Prepares the factorization of A (square, sorted rows, diagonal stored): handle, descriptor, info and the
  /// work buffer. ic: csric02 (A symmetric) instead of csrilu02.
  void setup(const crs_type& A, bool ic) {
    release();
    if (A.numRows() != A.numCols()) throw InvalidInput("CusparseIncompleteFactor::setup: matrix must be square");
    A_ = A;
    ic_ = ic;
    row_map_ = row_map_as_int(A.graph.row_map, A.nnz(), ic ? "cuSPARSE csric02" : "cuSPARSE csrilu02");
    vals_ = typename crs_type::values_type::non_const_type("AsyncSparse::cusparse::values", A.nnz());
    Kokkos::deep_copy(vals_, A.values);
    Impl::cusparse_check(cusparseCreate(&handle_), "cusparseCreate");
    Impl::cusparse_check(cusparseSetStream(handle_, execution_space().cuda_stream()), "cusparseSetStream");
    Impl::cusparse_check(cusparseCreateMatDescr(&descr_), "cusparseCreateMatDescr");
    Impl::cusparse_check(cusparseSetMatIndexBase(descr_, CUSPARSE_INDEX_BASE_ZERO), "cusparseSetMatIndexBase");
    Impl::cusparse_check(cusparseSetMatType(descr_, CUSPARSE_MATRIX_TYPE_GENERAL), "cusparseSetMatType");
    int bytes = 0;
    const int n = A.numRows(), nnz = static_cast<int>(A.nnz());  // row_map_as_int: nnz fits in int
    if (ic_) {
      Impl::cusparse_check(cusparseCreateCsric02Info(&ic_info_), "cusparseCreateCsric02Info");
      Impl::cusparse_check(cusparseDcsric02_bufferSize(handle_, n, nnz, descr_, vals_.data(), row_map_.data(),
                                                       A.graph.entries.data(), ic_info_, &bytes),
                           "cusparseDcsric02_bufferSize");
    } else {
      Impl::cusparse_check(cusparseCreateCsrilu02Info(&ilu_info_), "cusparseCreateCsrilu02Info");
      Impl::cusparse_check(cusparseDcsrilu02_bufferSize(handle_, n, nnz, descr_, vals_.data(), row_map_.data(),
                                                        A.graph.entries.data(), ilu_info_, &bytes),
                           "cusparseDcsrilu02_bufferSize");
    }
    Impl::cuda_check(cudaMalloc(&buffer_, bytes > 0 ? bytes : 1), "cudaMalloc");
  }

  /// Analysis + factorization of the values of the matrix given to setup(); returns the seconds (both phases).
  /// Throws BreakdownError on a zero pivot.
  double factor() {
    if (!handle_) throw InvalidInput("CusparseIncompleteFactor::factor: setup() must be called first");
    Kokkos::deep_copy(vals_, A_.values);
    execution_space().fence();
    const int n = A_.numRows(), nnz = static_cast<int>(A_.nnz());
    const int* rp = row_map_.data();
    const int* ci = A_.graph.entries.data();
    Kokkos::Timer t;
    int pivot = -1;
    if (ic_) {
      Impl::cusparse_check(cusparseDcsric02_analysis(handle_, n, nnz, descr_, vals_.data(), rp, ci, ic_info_,
                                                     CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_),
                           "cusparseDcsric02_analysis");
      structural_pivot(cusparseXcsric02_zeroPivot(handle_, ic_info_, &pivot), pivot, "structural");
      Impl::cusparse_check(cusparseDcsric02(handle_, n, nnz, descr_, vals_.data(), rp, ci, ic_info_,
                                            CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_),
                           "cusparseDcsric02");
      Impl::cuda_check(cudaStreamSynchronize(execution_space().cuda_stream()), "cudaStreamSynchronize");
      seconds_ = t.seconds();
      structural_pivot(cusparseXcsric02_zeroPivot(handle_, ic_info_, &pivot), pivot, "numerical");
    } else {
      Impl::cusparse_check(cusparseDcsrilu02_analysis(handle_, n, nnz, descr_, vals_.data(), rp, ci, ilu_info_,
                                                      CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_),
                           "cusparseDcsrilu02_analysis");
      structural_pivot(cusparseXcsrilu02_zeroPivot(handle_, ilu_info_, &pivot), pivot, "structural");
      Impl::cusparse_check(cusparseDcsrilu02(handle_, n, nnz, descr_, vals_.data(), rp, ci, ilu_info_,
                                             CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_),
                           "cusparseDcsrilu02");
      Impl::cuda_check(cudaStreamSynchronize(execution_space().cuda_stream()), "cudaStreamSynchronize");
      seconds_ = t.seconds();
      structural_pivot(cusparseXcsrilu02_zeroPivot(handle_, ilu_info_, &pivot), pivot, "numerical");
    }
    return seconds_;
  }

  double seconds() const { return seconds_; }

  /// The factors in AsyncSparse's conventions (copied out of the in-place result on the host).
  crs_type L() const { return split(true); }
  /// U (ILU) or Lᵀ (IC).
  crs_type U() const { return ic_ ? transpose(split(true)) : split(false); }

 private:
  void structural_pivot(cusparseStatus_t s, int pivot, const char* kind) const {
    if (s == CUSPARSE_STATUS_ZERO_PIVOT)
      throw BreakdownError(ic_ ? "cusparse csric02" : "cusparse csrilu02", pivot, std::string(kind) + " zero pivot");
    Impl::cusparse_check(s, "cusparseX*_zeroPivot");
  }
  crs_type split(bool lower) const {
    const auto H =
        to_host(crs_type("f", A_.numRows(), A_.numCols(), A_.nnz(), vals_, A_.graph.row_map, A_.graph.entries));
    CsrHost<double> F(H.nrows, H.ncols);
    for (ordinal_t i = 0; i < H.nrows; ++i) {
      for (offset_t p = H.row_ptr[i]; p < H.row_ptr[i + 1]; ++p) {
        const ordinal_t j = H.col_idx[p];
        if ((lower && j < i) || (!lower && j >= i) || (lower && ic_ && j == i)) {
          F.col_idx.push_back(j);
          F.values.push_back(H.values[p]);
        }
      }
      if (lower && !ic_) {  // unit diagonal of the ILU factor L
        F.col_idx.push_back(i);
        F.values.push_back(1.0);
      }
      F.row_ptr[i + 1] = static_cast<offset_t>(F.col_idx.size());
    }
    return to_device<Device>(F, "AsyncSparse::cusparse::factor");
  }
  void release() {
    if (buffer_) cudaFree(buffer_);
    if (ic_info_) cusparseDestroyCsric02Info(ic_info_);
    if (ilu_info_) cusparseDestroyCsrilu02Info(ilu_info_);
    if (descr_) cusparseDestroyMatDescr(descr_);
    if (handle_) cusparseDestroy(handle_);
    buffer_ = nullptr;
    ic_info_ = nullptr;
    ilu_info_ = nullptr;
    descr_ = nullptr;
    handle_ = nullptr;
  }

  crs_type A_;
  Kokkos::View<const int*, Device> row_map_;  // A's row map as cuSPARSE's 32-bit offsets
  typename crs_type::values_type::non_const_type vals_;
  bool ic_ = false;
  cusparseHandle_t handle_ = nullptr;
  cusparseMatDescr_t descr_ = nullptr;
  csric02Info_t ic_info_ = nullptr;
  csrilu02Info_t ilu_info_ = nullptr;
  void* buffer_ = nullptr;
  double seconds_ = 0;
};

#endif  // ASYNCSPARSE_HAVE_CUSPARSE

}  // namespace AsyncSparse
