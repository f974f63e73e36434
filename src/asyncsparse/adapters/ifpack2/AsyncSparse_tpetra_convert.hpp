// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — conversions between AsyncSparse's host CSR matrix and Tpetra matrices.
//
// `local_diagonal_block(A)` extracts the part of a (possibly distributed) Tpetra::RowMatrix that
// couples the rows this process owns with each other: local rows × those local columns whose global
// index is also an owned row. Preconditioning with it alone is block Jacobi across processes, which
// is what Ifpack2's RILUK / Relaxation do on a distributed matrix (through Ifpack2::LocalFilter) and
// what Ifpack2::AdditiveSchwarz hands to its subdomain solver. The Ifpack2 adapter builds its
// AsyncSparse preconditioner from this block.
//
// `make_tpetra_matrix(A, comm)` goes the other way (tests, examples): a CsrHost held by every process
// becomes a Tpetra::CrsMatrix whose rows are split into contiguous, nearly equal parts.
#pragma once

#include <Kokkos_Core.hpp>
#include <Teuchos_OrdinalTraits.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_RowMatrix.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>

namespace AsyncSparse {

namespace Impl {
// Tpetra renamed getNodeNum* to getLocalNum* after Trilinos 13.2; use whichever the installed one has.
template <class T, class = void>
struct has_get_local_num_rows : std::false_type {};
template <class T>
struct has_get_local_num_rows<T, decltype(void(std::declval<const T&>().getLocalNumRows()))> : std::true_type {};
template <class T, class = void>
struct has_get_local_num_elements : std::false_type {};
template <class T>
struct has_get_local_num_elements<T, decltype(void(std::declval<const T&>().getLocalNumElements()))> : std::true_type {
};

template <class RowMatrix>
std::size_t tpetra_local_num_rows(const RowMatrix& A) {
  if constexpr (has_get_local_num_rows<RowMatrix>::value)
    return A.getLocalNumRows();
  else
    return A.getNodeNumRows();
}
template <class Map>
std::size_t tpetra_local_num_elements(const Map& M) {
  if constexpr (has_get_local_num_elements<Map>::value)
    return M.getLocalNumElements();
  else
    return M.getNodeNumElements();
}
}  // namespace Impl

/// The local diagonal block of a RowMatrix and what was left out of it.
template <class Scalar>
struct LocalBlock {
  CsrHost<Scalar> matrix;       ///< local rows × owned local columns, sorted rows, duplicates summed
  std::size_t dropped_nnz = 0;  ///< entries of the local rows whose column belongs to another process
};

/// Extract the local diagonal block of `A` (row-map local indices for rows and columns). `A` must be
/// fill complete (it has a column Map).
template <class Scalar, class LO, class GO, class Node>
LocalBlock<typename Tpetra::RowMatrix<Scalar, LO, GO, Node>::impl_scalar_type> local_diagonal_block(
    const Tpetra::RowMatrix<Scalar, LO, GO, Node>& A) {
  using row_matrix_type = Tpetra::RowMatrix<Scalar, LO, GO, Node>;
  using IST = typename row_matrix_type::impl_scalar_type;
  if (!A.hasColMap())
    throw InvalidInput("local_diagonal_block: the matrix has no column Map (call fillComplete() first)");
  const auto row_map = A.getRowMap();
  const auto col_map = A.getColMap();
  const std::size_t n = Impl::tpetra_local_num_rows(A);
  if (n > static_cast<std::size_t>(std::numeric_limits<ordinal_t>::max()))
    throw InvalidInput("local_diagonal_block: " + std::to_string(n) +
                       " local rows exceed AsyncSparse's 32-bit ordinals");
  // Column local index -> row local index (or invalid), computed once per column.
  const LO invalid = Teuchos::OrdinalTraits<LO>::invalid();
  const std::size_t ncols_local = Impl::tpetra_local_num_elements(*col_map);
  std::vector<LO> col_to_row(ncols_local);
  for (std::size_t c = 0; c < ncols_local; ++c)
    col_to_row[c] = row_map->getLocalElement(col_map->getGlobalElement(static_cast<LO>(c)));

  LocalBlock<IST> out;
  std::vector<ordinal_t> rows, cols;
  std::vector<IST> vals;
  std::size_t max_entries = 0;
  for (std::size_t i = 0; i < n; ++i)
    max_entries = std::max(max_entries, A.getNumEntriesInLocalRow(static_cast<LO>(i)));
  typename row_matrix_type::nonconst_local_inds_host_view_type inds("AsyncSparse::local_block_inds", max_entries);
  typename row_matrix_type::nonconst_values_host_view_type v("AsyncSparse::local_block_vals", max_entries);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t count = 0;
    A.getLocalRowCopy(static_cast<LO>(i), inds, v, count);
    for (std::size_t k = 0; k < count; ++k) {
      const LO c = inds(k);
      const LO r = (c >= 0 && static_cast<std::size_t>(c) < ncols_local) ? col_to_row[c] : invalid;
      if (r == invalid) {
        ++out.dropped_nnz;
        continue;
      }
      rows.push_back(static_cast<ordinal_t>(i));
      cols.push_back(static_cast<ordinal_t>(r));
      vals.push_back(v(k));
    }
  }
  out.matrix = csr_from_triplets<IST>(static_cast<ordinal_t>(n), static_cast<ordinal_t>(n), rows, cols, vals);
  return out;
}

/// Distribute a square host matrix (the same on every process) as a Tpetra::CrsMatrix with a
/// contiguous, uniform row Map; domain and range Map = row Map.
template <class Scalar = Tpetra::CrsMatrix<>::scalar_type, class LO = Tpetra::CrsMatrix<>::local_ordinal_type,
          class GO = Tpetra::CrsMatrix<>::global_ordinal_type, class Node = Tpetra::CrsMatrix<>::node_type,
          class HostScalar>
Teuchos::RCP<Tpetra::CrsMatrix<Scalar, LO, GO, Node>> make_tpetra_matrix(
    const CsrHost<HostScalar>& A, const Teuchos::RCP<const Teuchos::Comm<int>>& comm) {
  using map_type = Tpetra::Map<LO, GO, Node>;
  using crs_type = Tpetra::CrsMatrix<Scalar, LO, GO, Node>;
  if (!A.square())
    throw InvalidInput("make_tpetra_matrix: matrix must be square, got " + std::to_string(A.nrows) + " x " +
                       std::to_string(A.ncols));
  auto map = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(A.nrows), GO(0), comm));
  const std::size_t nlocal = Impl::tpetra_local_num_elements(*map);
  Teuchos::Array<std::size_t> counts(nlocal);
  for (std::size_t l = 0; l < nlocal; ++l) {
    const GO g = map->getGlobalElement(static_cast<LO>(l));
    counts[l] = static_cast<std::size_t>(A.row_end(static_cast<ordinal_t>(g)) - A.row_begin(static_cast<ordinal_t>(g)));
  }
  auto M = Teuchos::rcp(new crs_type(map, counts()));
  std::vector<GO> gcols;
  std::vector<Scalar> gvals;
  for (std::size_t l = 0; l < nlocal; ++l) {
    const GO g = map->getGlobalElement(static_cast<LO>(l));
    const auto i = static_cast<ordinal_t>(g);
    gcols.assign(A.col_idx.begin() + A.row_begin(i), A.col_idx.begin() + A.row_end(i));
    gvals.assign(A.values.begin() + A.row_begin(i), A.values.begin() + A.row_end(i));
    if (!gcols.empty())
      M->insertGlobalValues(g, Teuchos::ArrayView<const GO>(gcols.data(), gcols.size()),
                            Teuchos::ArrayView<const Scalar>(gvals.data(), gvals.size()));
  }
  M->fillComplete();
  return M;
}

}  // namespace AsyncSparse
