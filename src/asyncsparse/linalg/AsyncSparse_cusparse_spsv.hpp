// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — exact sparse triangular solves by cuSPARSE SpSV (generic API), the exact mode of
// TriangularSolver on CUDA.
//
// setup() creates the handle (on the stream of the default Kokkos CUDA instance), the CSR descriptor with its
// fill mode and diagonal type, the SpSV descriptor and its buffer, and runs cusparseSpSV_analysis once. The
// analysis keeps its own copy of the values, so new values of the same pattern are handed over with
// cusparseSpSV_updateMatrix (CUSPARSE_SPSV_UPDATE_GENERAL), without a new analysis. solve() points the two
// dense-vector descriptors at b and x and calls cusparseSpSV_solve; it is asynchronous on the stream.
//
// Only compiled in CUDA builds (ASYNCSPARSE_HAVE_CUSPARSE); `cusparse_spsv_supports<Scalar>` says whether a
// value type is one SpSV takes (float, double). Every cuSPARSE and CUDA status is checked and reported as an
// Error naming the call.
#pragma once

#include <asyncsparse/AsyncSparse_config.hpp>

#include <type_traits>

#if ASYNCSPARSE_HAVE_CUSPARSE
#include <cuda_runtime_api.h>
#include <cusparse.h>
#endif

#include <Kokkos_Core.hpp>

#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>

namespace AsyncSparse {

/// True when cuSPARSE SpSV can solve with values of type Scalar on Device in this build.
template <class Scalar, class Device>
constexpr bool cusparse_spsv_supports() {
#if ASYNCSPARSE_HAVE_CUSPARSE && defined(KOKKOS_ENABLE_CUDA)
  return std::is_same<typename Device::execution_space, Kokkos::Cuda>::value &&
         (std::is_same<Scalar, double>::value || std::is_same<Scalar, float>::value);
#else
  return false;
#endif
}

#if ASYNCSPARSE_HAVE_CUSPARSE && defined(KOKKOS_ENABLE_CUDA)

namespace Impl {
inline void spsv_check(cusparseStatus_t s, const char* call) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw Error(std::string("cuSPARSE: ") + call + " failed: " + cusparseGetErrorString(s) + " (status " +
                std::to_string(static_cast<int>(s)) + ")");
}
inline void spsv_check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw Error(std::string("CUDA: ") + call + " failed: " + cudaGetErrorString(e));
}
}  // namespace Impl

/// One triangle's cuSPARSE SpSV state (handle, descriptors, analysis buffer). Not copyable. Scalar: float or
/// double (cusparse_spsv_supports).
template <class Scalar>
class CusparseSpsv {
 public:
  CusparseSpsv() = default;
  CusparseSpsv(const CusparseSpsv&) = delete;
  CusparseSpsv& operator=(const CusparseSpsv&) = delete;
  ~CusparseSpsv() { release(); }

  /// Analysis of the n x n triangle (row_map, entries, values: CUDA device pointers, zero-based, sorted rows;
  /// they must stay valid while this object is used). lower: fill mode; unit: take the diagonal as 1.
  void setup(int n, int nnz, const int* row_map, const int* entries, const Scalar* values, bool lower, bool unit) {
    release();
    n_ = n;
    row_map_ = const_cast<int*>(row_map);
    entries_ = const_cast<int*>(entries);
    values_ = values;
    const cudaDataType type = std::is_same<Scalar, double>::value ? CUDA_R_64F : CUDA_R_32F;
    Impl::spsv_check(cusparseCreate(&handle_), "cusparseCreate");
    Impl::spsv_check(cusparseSetStream(handle_, Kokkos::Cuda().cuda_stream()), "cusparseSetStream");
    Impl::spsv_check(cusparseCreateCsr(&mat_, n, n, nnz, const_cast<int*>(row_map), const_cast<int*>(entries),
                                       const_cast<Scalar*>(values), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, type),
                     "cusparseCreateCsr");
    cusparseFillMode_t fill = lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t diag = unit ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
    Impl::spsv_check(cusparseSpMatSetAttribute(mat_, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof(fill)),
                     "cusparseSpMatSetAttribute(FILL_MODE)");
    Impl::spsv_check(cusparseSpMatSetAttribute(mat_, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof(diag)),
                     "cusparseSpMatSetAttribute(DIAG_TYPE)");
    // The vector descriptors need some device memory at creation; solve() repoints them.
    Impl::spsv_check(cudaMalloc(&dummy_, 2 * sizeof(Scalar) * static_cast<std::size_t>(n > 0 ? n : 1)), "cudaMalloc");
    Scalar* d = static_cast<Scalar*>(dummy_);
    Impl::spsv_check(cusparseCreateDnVec(&x_, n, d, type), "cusparseCreateDnVec");
    Impl::spsv_check(cusparseCreateDnVec(&y_, n, d + n, type), "cusparseCreateDnVec");
    Impl::spsv_check(cusparseSpSV_createDescr(&spsv_), "cusparseSpSV_createDescr");
    const Scalar one = 1;
    std::size_t bytes = 0;
    Impl::spsv_check(cusparseSpSV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, x_, y_, type,
                                             CUSPARSE_SPSV_ALG_DEFAULT, spsv_, &bytes),
                     "cusparseSpSV_bufferSize");
    Impl::spsv_check(cudaMalloc(&buffer_, bytes > 0 ? bytes : 1), "cudaMalloc");
    Impl::spsv_check(cusparseSpSV_analysis(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, x_, y_, type,
                                           CUSPARSE_SPSV_ALG_DEFAULT, spsv_, buffer_),
                     "cusparseSpSV_analysis");
    buffer_bytes_ = bytes;
  }

  /// New values (same pattern, device pointer; the pointer given to setup() may be passed again after its
  /// contents changed). No new analysis.
  void update_values(const Scalar* values) {
    if (values != values_)
      Impl::spsv_check(cusparseCsrSetPointers(mat_, row_map_, entries_, const_cast<Scalar*>(values)),
                       "cusparseCsrSetPointers");
    values_ = values;
    Impl::spsv_check(
        cusparseSpSV_updateMatrix(handle_, spsv_, const_cast<Scalar*>(values), CUSPARSE_SPSV_UPDATE_GENERAL),
        "cusparseSpSV_updateMatrix");
  }

  /// x = T^{-1} b (device pointers of length n; b is not modified).
  void solve(const Scalar* b, Scalar* x) {
    const cudaDataType type = std::is_same<Scalar, double>::value ? CUDA_R_64F : CUDA_R_32F;
    Impl::spsv_check(cusparseDnVecSetValues(x_, const_cast<Scalar*>(b)), "cusparseDnVecSetValues");
    Impl::spsv_check(cusparseDnVecSetValues(y_, x), "cusparseDnVecSetValues");
    const Scalar one = 1;
    Impl::spsv_check(cusparseSpSV_solve(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, x_, y_, type,
                                        CUSPARSE_SPSV_ALG_DEFAULT, spsv_),
                     "cusparseSpSV_solve");
  }

  /// Bytes of the analysis buffer.
  std::size_t buffer_bytes() const { return buffer_bytes_; }

 private:
  void release() {
    if (spsv_) cusparseSpSV_destroyDescr(spsv_);
    if (x_) cusparseDestroyDnVec(x_);
    if (y_) cusparseDestroyDnVec(y_);
    if (mat_) cusparseDestroySpMat(mat_);
    if (handle_) cusparseDestroy(handle_);
    if (buffer_) cudaFree(buffer_);
    if (dummy_) cudaFree(dummy_);
    spsv_ = nullptr;
    x_ = y_ = nullptr;
    mat_ = nullptr;
    handle_ = nullptr;
    buffer_ = dummy_ = nullptr;
    buffer_bytes_ = 0;
  }

  int n_ = 0;
  int* row_map_ = nullptr;
  int* entries_ = nullptr;
  const Scalar* values_ = nullptr;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t mat_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  cusparseSpSVDescr_t spsv_ = nullptr;
  void* buffer_ = nullptr;
  void* dummy_ = nullptr;
  std::size_t buffer_bytes_ = 0;
};

#endif  // ASYNCSPARSE_HAVE_CUSPARSE && KOKKOS_ENABLE_CUDA

}  // namespace AsyncSparse
