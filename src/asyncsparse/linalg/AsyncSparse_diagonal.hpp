// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the inverse of a matrix diagonal, with a clear error for a missing, zero or non-finite entry
// (point Jacobi, block-asynchronous relaxation, spectrum estimates).
#pragma once

#include <Kokkos_Core.hpp>

#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>

namespace AsyncSparse {

/// Inverse of the diagonal of A; throws InvalidInput naming the first row whose diagonal is missing,
/// zero or not finite.
template <class Scalar, class Device>
Kokkos::View<Scalar*, Device> inverse_diagonal(const Crs<Scalar, Device>& A, const std::string& where) {
  using exec = typename Device::execution_space;
  const ordinal_t n = A.numRows();
  const auto dinv =
      Impl::cached_uninitialized<Kokkos::View<Scalar*, Device>>("AsyncSparse::dinv", static_cast<std::size_t>(n));
  auto rows = A.graph.row_map;
  auto cols = A.graph.entries;
  auto vals = A.values;
  ordinal_t bad = n;
  Kokkos::parallel_reduce(
      "AsyncSparse::inverse_diagonal", Impl::RangePolicy<exec>(0, n),
      KOKKOS_LAMBDA(const ordinal_t i, ordinal_t& first_bad) {
        Scalar d = 0;
        bool found = false;
        for (offset_t k = rows(i); k < rows(i + 1); ++k)
          if (cols(k) == i) {
            d += vals(k);
            found = true;
          }
        const bool ok = found && d != Scalar(0) && d == d && d - d == Scalar(0);
        dinv(i) = ok ? Scalar(1) / d : Scalar(0);
        if (!ok && i < first_bad) first_bad = i;
      },
      Kokkos::Min<ordinal_t>(bad));
  if (bad < n) {
    // find out which of the three problems it is, on the host, for the message
    auto h = to_host(A);
    bool found = false;
    Scalar d = 0;
    for (offset_t k = h.row_ptr[bad]; k < h.row_ptr[bad + 1]; ++k)
      if (h.col_idx[k] == bad) {
        found = true;
        d += h.values[k];
      }
    const std::string what = !found ? "missing diagonal entry" : (d == Scalar(0) ? "zero diagonal entry" : "non-finite diagonal entry");
    throw InvalidInput(where + ": " + what + " in row " + std::to_string(bad));
  }
  return dinv;
}

}  // namespace AsyncSparse
