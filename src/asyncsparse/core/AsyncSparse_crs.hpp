// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — Kokkos CRS aliases and host <-> device conversion.
//
// `Crs<Scalar, Device>` is the KokkosSparse::CrsMatrix every AsyncSparse algorithm takes. `to_device`
// copies a CsrHost into any memory space, `to_host` copies back. Vectors are rank-1 Views.
#pragma once

#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include <asyncsparse/AsyncSparse_config.hpp>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>

#include <climits>
#include <string>
#include <type_traits>

namespace AsyncSparse {

template <class Scalar, class Device>
using Crs = KokkosSparse::CrsMatrix<Scalar, ordinal_t, Device, void, offset_t>;

template <class Scalar, class Device>
using Vector = Kokkos::View<Scalar*, Device>;

/// Copy a host CSR matrix into a KokkosSparse::CrsMatrix on `Device` (deep copy).
template <class Device, class Scalar>
Crs<Scalar, Device> to_device(const CsrHost<Scalar>& A, const std::string& label = "AsyncSparse::A") {
  using M = Crs<Scalar, Device>;
  typename M::row_map_type::non_const_type row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "_row_map"),
                                                   static_cast<std::size_t>(A.nrows) + 1);
  typename M::index_type::non_const_type entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "_entries"),
                                                 static_cast<std::size_t>(A.nnz()));
  typename M::values_type::non_const_type values(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "_values"),
                                                 static_cast<std::size_t>(A.nnz()));
  using U = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::deep_copy(row_map, Kokkos::View<const offset_t*, Kokkos::HostSpace, U>(A.row_ptr.data(), A.row_ptr.size()));
  Kokkos::deep_copy(entries, Kokkos::View<const ordinal_t*, Kokkos::HostSpace, U>(A.col_idx.data(), A.col_idx.size()));
  Kokkos::deep_copy(values, Kokkos::View<const Scalar*, Kokkos::HostSpace, U>(A.values.data(), A.values.size()));
  return M(label, A.nrows, A.ncols, A.nnz(), values, row_map, entries);
}

/// Copy a KokkosSparse::CrsMatrix (any memory space) back into a host CSR matrix.
template <class Scalar, class Device>
CsrHost<typename std::remove_const<Scalar>::type> to_host(const Crs<Scalar, Device>& A) {
  using S = typename std::remove_const<Scalar>::type;
  CsrHost<S> H(A.numRows(), A.numCols());
  H.col_idx.resize(A.nnz());
  H.values.resize(A.nnz());
  using U = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::deep_copy(Kokkos::View<offset_t*, Kokkos::HostSpace, U>(H.row_ptr.data(), H.row_ptr.size()), A.graph.row_map);
  Kokkos::deep_copy(Kokkos::View<ordinal_t*, Kokkos::HostSpace, U>(H.col_idx.data(), H.col_idx.size()), A.graph.entries);
  Kokkos::deep_copy(Kokkos::View<S*, Kokkos::HostSpace, U>(H.values.data(), H.values.size()), A.values);
  return H;
}

/// Copy a std::vector into a new device View, and back.
template <class Device, class T>
Kokkos::View<T*, Device> to_device(const std::vector<T>& v, const std::string& label = "AsyncSparse::vec") {
  Kokkos::View<T*, Device> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(v.data(), v.size()));
  return d;
}

template <class View>
std::vector<typename View::non_const_value_type> to_std_vector(const View& d) {
  std::vector<typename View::non_const_value_type> v(d.extent(0));
  Kokkos::deep_copy(Kokkos::View<typename View::non_const_value_type*, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>(v.data(), v.size()),
                    d);
  return v;
}

/// The row map of a matrix with `nnz` entries as 32-bit offsets, for routines that take only those (cuSPARSE's
/// csric02/csrilu02 and its triangular solve here). With 32-bit offset_t this is `row_map` itself; with 64-bit
/// offsets a converted copy, or InvalidInput naming `where` when the entries do not fit in 32 bits.
template <class RowMap>
Kokkos::View<const int*, typename RowMap::device_type> row_map_as_int(const RowMap& row_map, std::int64_t nnz,
                                                                      const std::string& where) {
  using result = Kokkos::View<const int*, typename RowMap::device_type>;
  if constexpr (std::is_same<typename RowMap::non_const_value_type, int>::value) {
    return result(row_map);
  } else {
    if (nnz > INT_MAX)
      throw InvalidInput(where + ": " + std::to_string(nnz) +
                         " stored entries need 64-bit offsets, and this routine takes only 32-bit ones (at most " +
                         std::to_string(INT_MAX) + ")");
    Kokkos::View<int*, typename RowMap::device_type> r(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, where + "_row_map32"), row_map.extent(0));
    using exec = typename RowMap::execution_space;
    Kokkos::parallel_for(
        "AsyncSparse::row_map_as_int", Impl::RangePolicy<exec>(0, row_map.extent(0)),
        KOKKOS_LAMBDA(const std::size_t i) { r(i) = static_cast<int>(row_map(i)); });
    exec().fence();
    return result(r);
  }
}

}  // namespace AsyncSparse
