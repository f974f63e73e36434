// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — reverse Cuthill–McKee ordering and symmetric permutation on the host.
//
// RCM (Cuthill & McKee 1969; reversed as proposed by George 1971) numbers the nodes of the graph of
// A + A^T breadth first, each node's unnumbered neighbours by increasing degree, and reverses the
// result; it reduces bandwidth and profile. Each connected component starts at a pseudo-peripheral node
// found with the George–Liu algorithm (ACM TOMS 5(3), 1979): from the component's minimum-degree node r,
// build the BFS level structure, take the minimum-degree node x of the last level, and move to x while
// its level structure is deeper than r's. The ILU experiments of the papers use this order for the
// SuiteSparse matrices ("other matrices: RCM order").
//
// Permutations follow one convention everywhere: perm[new] = old, i.e. row/column `new` of the
// permuted matrix is row/column perm[new] of the original: B = P A P^T with B(r, c) = A(perm[r], perm[c]).
#pragma once

#include <vector>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>

namespace AsyncSparse {

/// RCM permutation (perm[new] = old) of the symmetrised pattern of the square matrix A; diagonal
/// entries and values are ignored. Every connected component is ordered; ties in degree are broken by
/// the smaller index, so the result is deterministic.
template <class Scalar>
std::vector<ordinal_t> rcm_permutation(const CsrHost<Scalar>& A);

/// inv[perm[k]] = k. Throws InvalidInput when perm is not a permutation of 0..perm.size()-1.
inline std::vector<ordinal_t> inverse_permutation(const std::vector<ordinal_t>& perm);

/// B = P A P^T: B(r, c) = A(perm[r], perm[c]), rows of B sorted by column (duplicates of A are kept).
/// A square; perm a permutation of 0..n-1 (else InvalidInput).
template <class Scalar>
CsrHost<Scalar> permute_symmetric(const CsrHost<Scalar>& A, const std::vector<ordinal_t>& perm);

/// y[new] = x[perm[new]] (a right-hand side in the permuted numbering).
template <class T>
std::vector<T> permute_vector(const std::vector<T>& x, const std::vector<ordinal_t>& perm);

/// x[perm[new]] = y[new] (a solution back in the original numbering).
template <class T>
std::vector<T> unpermute_vector(const std::vector<T>& y, const std::vector<ordinal_t>& perm);

/// max |i - j| over the stored entries (0 for a diagonal or empty matrix).
template <class Scalar>
ordinal_t bandwidth(const CsrHost<Scalar>& A);

}  // namespace AsyncSparse

#include <asyncsparse/core/impl/AsyncSparse_rcm_impl.hpp>
