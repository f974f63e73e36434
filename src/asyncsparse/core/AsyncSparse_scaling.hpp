// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — symmetric diagonal scaling A_s = S A S, S = diag(s), s_i = 1 / sqrt(|a_ii|).
//
// The iterative ILU/IC papers (Chow & Patel, SISC 2015; Chow, Anzt & Dongarra, ISC 2015, sect. 2) scale A
// symmetrically to unit diagonal before the fixed-point sweeps, so that the initial guess L0 = strict
// lower part + I, U0 = upper part is meaningful and the sweeps converge faster. With D = |diag(A)|,
// A_s = D^{-1/2} A D^{-1/2}: an SPD matrix (positive diagonal) gets a unit diagonal; a general matrix
// with negative diagonal entries gets a_s,ii = sign(a_ii) = -1 in those rows. The scaling preserves
// symmetry, and A x = b is equivalent to A_s y = S b with x = S y: apply scale_vector with s to the
// right-hand side before and to the solution after.
//
// Stored diagonal entries of A_s are set to exactly sign(a_ii) (when a row stores its diagonal once);
// every other entry is (s_i * a_ij) * s_j, evaluated in that order on the host and on the device, so
// both give the same bits. Duplicated entries are allowed: a row's diagonal is the sum of its stored
// diagonal entries, each of which is then scaled like an off-diagonal entry.
//
// A missing, zero or non-finite diagonal is an InvalidInput naming the first such row; on the device it
// is found by a parallel_reduce (minimum bad row) before any value is written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>

namespace AsyncSparse {

/// Host result: A_s = S A S (same pattern as A) and s (A_s = diag(s) A diag(s)).
template <class Scalar>
struct ScaledMatrix {
  CsrHost<Scalar> A;
  std::vector<Scalar> s;
};

/// Host scaling of a square matrix (any structurally valid CsrHost). Throws InvalidInput
/// ("scale_unit_diagonal: row i has no / a zero / a non-finite diagonal entry").
template <class Scalar>
ScaledMatrix<Scalar> scale_unit_diagonal(const CsrHost<Scalar>& A);

/// Device result: the scaled matrix (new values View, graph shared with the input) and s.
template <class CrsType>
struct ScaledCrs {
  CrsType A;
  Kokkos::View<typename CrsType::non_const_value_type*, typename CrsType::device_type> s;
};

/// Device scaling on `exec` (a KokkosSparse::CrsMatrix such as Crs<Scalar, Device>).
/// A_in: square input matrix. A_out: output; either default-constructed (then it becomes a matrix that
/// shares A_in's graph with freshly allocated values) or a matrix sharing A_in's graph (same row_map and
/// entries Views, e.g. A_in itself for in-place scaling), whose values are overwritten. s: rank-1 View of
/// extent numRows() on a memory space `exec` can access; receives 1/sqrt(|a_ii|).
/// Throws InvalidInput for a non-square input, a wrong extent of s, an A_out with another graph, or a
/// missing / zero / non-finite diagonal (the first such row; A_out is then not written, s may be).
/// The diagonal pass is a reduction whose result the error check waits for; the value pass is enqueued
/// on `exec` and not fenced.
template <class ExecSpace, class CrsType, class SView>
void scale_unit_diagonal(const ExecSpace& exec, const CrsType& A_in, CrsType& A_out, const SView& s);

/// Convenience form: allocates s and the scaled values.
template <class ExecSpace, class CrsType>
ScaledCrs<CrsType> scale_unit_diagonal(const ExecSpace& exec, const CrsType& A_in);

/// x_i *= s_i on `exec` (in place). Extents must match (else InvalidInput).
template <class ExecSpace, class SView, class XView>
void scale_vector(const ExecSpace& exec, const SView& s, const XView& x);

/// y_i = s_i * x_i on `exec`. Extents must match (else InvalidInput).
template <class ExecSpace, class SView, class XView, class YView>
void scale_vector(const ExecSpace& exec, const SView& s, const XView& x, const YView& y);

}  // namespace AsyncSparse

#include <asyncsparse/core/impl/AsyncSparse_scaling_impl.hpp>
