// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — what the wrappers of Kokkos-Kernels' incomplete factorizations (KkSpiluk, KkParIlut) share: the
// Kokkos-Kernels handle, the CSR arrays of L and U that Kokkos-Kernels fills, the timings, and the factors handed out
// as AsyncSparse matrices (sorted rows; L with its diagonal last, U with its diagonal first: Kokkos-Kernels' layout).
#pragma once

#include <KokkosKernels_Handle.hpp>
#include <Kokkos_Core.hpp>

#include <memory>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>

namespace AsyncSparse {
namespace Impl {

template <class Scalar, class Device>
class KkFactorBase {
 public:
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  using crs_type = Crs<Scalar, Device>;
  using handle_type = KokkosKernels::Experimental::KokkosKernelsHandle<offset_t, ordinal_t, Scalar, execution_space,
                                                                       memory_space, memory_space>;

  crs_type L() const { return factor("L", l_rm_, l_ent_, l_val_); }
  crs_type U() const { return factor("U", u_rm_, u_ent_, u_val_); }
  double symbolic_seconds() const { return symbolic_seconds_; }
  double numeric_seconds() const { return numeric_seconds_; }

 protected:
  /// label: the prefix of every View label ("AsyncSparse::spiluk").
  explicit KkFactorBase(std::string label) : label_(std::move(label)) {}

  using row_map_type = typename crs_type::row_map_type::non_const_type;
  using entries_type = typename crs_type::index_type::non_const_type;
  using values_type = typename crs_type::values_type::non_const_type;

  std::string label(const char* what) const { return label_ + "::" + what; }

  std::string label_;
  crs_type A_;
  std::shared_ptr<handle_type> kh_;
  row_map_type l_rm_, u_rm_;
  entries_type l_ent_, u_ent_;
  values_type l_val_, u_val_;
  double symbolic_seconds_ = 0, numeric_seconds_ = 0;

 private:
  crs_type factor(const char* what, const row_map_type& rm, const entries_type& ent, const values_type& val) const {
    if (!kh_ || rm.extent(0) != static_cast<std::size_t>(A_.numRows()) + 1)
      throw InvalidInput(label_ + ": no factors yet (call symbolic() and numeric() first)");
    // the row map's last entry, not the View extents: Kokkos-Kernels may leave the Views longer than the factor
    offset_t nnz = 0;
    Kokkos::deep_copy(nnz, Kokkos::subview(rm, A_.numRows()));
    if (ent.extent(0) < static_cast<std::size_t>(nnz) || val.extent(0) < static_cast<std::size_t>(nnz))
      throw InvalidInput(label_ + ": no factors yet (call numeric() after symbolic())");
    const auto used = Kokkos::make_pair(offset_t(0), nnz);
    return crs_type(label(what), A_.numRows(), A_.numCols(), nnz, Kokkos::subview(val, used), rm,
                    Kokkos::subview(ent, used));
  }
};

}  // namespace Impl
}  // namespace AsyncSparse
