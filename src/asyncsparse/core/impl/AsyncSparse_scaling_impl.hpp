// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_row_launch.hpp>
#include <cmath>
#include <limits>
#include <type_traits>

namespace AsyncSparse {
namespace Impl {

/// 0: usable diagonal; 1: missing; 2: zero; 3: not finite.
template <class Scalar>
KOKKOS_INLINE_FUNCTION int diagonal_problem(const Scalar& d, int count) {
  using std::isfinite;
  if (count == 0) return 1;
  if (d == Scalar(0)) return 2;
  if (!isfinite(d)) return 3;
  return 0;
}

inline std::string diagonal_problem_text(const std::string& where, std::int64_t row, int code) {
  const char* what = code == 1   ? "no diagonal entry"
                     : code == 2 ? "a zero diagonal entry"
                                 : "a non-finite diagonal entry";
  return where + ": row " + std::to_string(row) + " has " + what;
}

template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar inv_sqrt_abs(const Scalar& d) {
  using std::sqrt;
  return Scalar(1) / sqrt(d < Scalar(0) ? -d : d);
}

/// Entry k of row i of S A S; `single_diag`: row i stores its diagonal exactly once.
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar scaled_entry(const Scalar& a, ordinal_t i, ordinal_t j, const Scalar& si,
                                           const Scalar& sj, bool single_diag) {
  if (j == i && single_diag) return a > Scalar(0) ? Scalar(1) : Scalar(-1);
  return (si * a) * sj;
}

/// Diagonal pass: s_i = 1/sqrt(|a_ii|), min-reduction of 4*row + problem code over the bad rows.
template <class RowMap, class Entries, class Values, class SView>
struct ScaleDiagonalFunctor {
  using scalar_type = typename SView::non_const_value_type;
  RowMap row_map;
  Entries entries;
  Values values;
  SView s;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, std::int64_t& bad) const {
    scalar_type d = 0;
    int count = 0;
    for (auto k = row_map(i); k < row_map(i + 1); ++k)
      if (entries(k) == i) {
        d += values(k);
        ++count;
      }
    const int code = diagonal_problem(d, count);
    if (code != 0) {
      const std::int64_t key = 4 * static_cast<std::int64_t>(i) + code;
      if (key < bad) bad = key;
    } else {
      s(i) = inv_sqrt_abs(d);
    }
  }
};

/// Value pass, one row per group of lanes (parallel_for_rows): out_k = (s_i a_k) s_j. In place (out == in) is
/// safe: entry k is read and written by the same lane only.
template <class RowMap, class Entries, class InValues, class OutValues, class SView>
struct ScaleValuesFunctor {
  RowMap row_map;
  Entries entries;
  InValues in;
  OutValues out;
  SView s;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m, const ordinal_t i) const {
    int count = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(m, row_map(i), row_map(i + 1)),
        [&](const offset_t k, int& c) { c += entries(k) == i ? 1 : 0; }, count);
    const auto si = s(i);
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, row_map(i), row_map(i + 1)), [&](const offset_t k) {
      const ordinal_t j = entries(k);
      out(k) = scaled_entry(in(k), i, j, si, s(j), count == 1);
    });
  }
};

/// The value pass of scale_unit_diagonal: A_out's values = S A_in S for the scaling s (A_out shares A_in's graph;
/// A_out = A_in in place is safe). Asynchronous on `exec`.
template <class ExecSpace, class CrsType, class SView>
void scale_values(const ExecSpace& exec, const CrsType& A_in, const CrsType& A_out, const SView& s) {
  using RowMap = decltype(A_in.graph.row_map);
  using Entries = decltype(A_in.graph.entries);
  using Values = typename CrsType::values_type;
  parallel_for_rows("AsyncSparse::scale_unit_diagonal::values", exec, A_in.numRows(), A_in.nnz(),
                    ScaleValuesFunctor<RowMap, Entries, Values, Values, SView>{A_in.graph.row_map, A_in.graph.entries,
                                                                               A_in.values, A_out.values, s});
}

template <class SView, class XView, class YView>
struct ScaleVectorFunctor {
  SView s;
  XView x;
  YView y;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { y(i) = s(i) * x(i); }
};

}  // namespace Impl

template <class Scalar>
ScaledMatrix<Scalar> scale_unit_diagonal(const CsrHost<Scalar>& A) {
  check_square(A, "scale_unit_diagonal");
  ScaledMatrix<Scalar> out;
  out.s.resize(static_cast<std::size_t>(A.nrows));
  std::vector<char> single(static_cast<std::size_t>(A.nrows));
  for (ordinal_t i = 0; i < A.nrows; ++i) {
    const auto d = Impl::row_diagonal(A, i);
    const int code = Impl::diagonal_problem(d.first, d.second);
    if (code != 0) throw InvalidInput(Impl::diagonal_problem_text("scale_unit_diagonal", i, code));
    out.s[i] = Impl::inv_sqrt_abs(d.first);
    single[i] = d.second == 1;
  }
  out.A = A;
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const ordinal_t j = A.col_idx[k];
      out.A.values[k] = Impl::scaled_entry(A.values[k], i, j, out.s[i], out.s[j], single[i] != 0);
    }
  return out;
}

template <class ExecSpace, class CrsType, class SView>
void scale_unit_diagonal(const ExecSpace& exec, const CrsType& A_in, CrsType& A_out, const SView& s) {
  using mem = typename CrsType::memory_space;
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, mem>::accessible,
                "scale_unit_diagonal: the matrix must be accessible from the execution space");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename SView::memory_space>::accessible,
                "scale_unit_diagonal: s must be accessible from the execution space");
  static_assert(SView::rank == 1, "scale_unit_diagonal: s must be a rank-1 View");
  const std::string where = "scale_unit_diagonal";
  const ordinal_t n = A_in.numRows();
  if (n != A_in.numCols())
    throw InvalidInput(where + ": matrix is not square (" + std::to_string(n) + " x " + std::to_string(A_in.numCols()) +
                       ")");
  if (s.extent(0) != static_cast<std::size_t>(n))
    throw InvalidInput(where + ": s has extent " + std::to_string(s.extent(0)) + ", the matrix " + std::to_string(n) +
                       " rows");
  const bool fresh = A_out.graph.row_map.data() == nullptr && A_out.values.data() == nullptr;
  if (!fresh && (A_out.graph.row_map.data() != A_in.graph.row_map.data() ||
                 A_out.graph.entries.data() != A_in.graph.entries.data() || A_out.nnz() != A_in.nnz()))
    throw InvalidInput(where + ": A_out must be default-constructed or share A_in's graph (row_map and entries)");
  if (n == 0) {
    if (fresh) A_out = A_in;
    return;
  }

  using RowMap = decltype(A_in.graph.row_map);
  using Entries = decltype(A_in.graph.entries);
  using Values = typename CrsType::values_type;
  using policy = Impl::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>;
  std::int64_t bad = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce("AsyncSparse::scale_unit_diagonal::diagonal", policy(exec, 0, n),
                          Impl::ScaleDiagonalFunctor<RowMap, Entries, Values, SView>{
                              A_in.graph.row_map, A_in.graph.entries, A_in.values, s},
                          Kokkos::Min<std::int64_t>(bad));
  if (bad != std::numeric_limits<std::int64_t>::max())
    throw InvalidInput(Impl::diagonal_problem_text(where, bad / 4, static_cast<int>(bad % 4)));

  if (fresh) {
    Values vals(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::scaled_values"), A_in.values.extent(0));
    A_out =
        CrsType("AsyncSparse::A_scaled", n, A_in.numCols(), A_in.nnz(), vals, A_in.graph.row_map, A_in.graph.entries);
  }
  Impl::scale_values(exec, A_in, A_out, s);
}

template <class ExecSpace, class CrsType>
ScaledCrs<CrsType> scale_unit_diagonal(const ExecSpace& exec, const CrsType& A_in) {
  ScaledCrs<CrsType> out;
  out.s = decltype(out.s)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::scaling"),
                          static_cast<std::size_t>(A_in.numRows()));
  scale_unit_diagonal(exec, A_in, out.A, out.s);
  return out;
}

template <class ExecSpace, class SView, class XView, class YView>
void scale_vector(const ExecSpace& exec, const SView& s, const XView& x, const YView& y) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename SView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename XView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename YView::memory_space>::accessible,
                "scale_vector: s, x and y must be accessible from the execution space");
  static_assert(SView::rank == 1 && XView::rank == 1 && YView::rank == 1, "scale_vector: rank-1 Views expected");
  if (x.extent(0) != s.extent(0) || y.extent(0) != s.extent(0))
    throw InvalidInput("scale_vector: extents differ (s " + std::to_string(s.extent(0)) + ", x " +
                       std::to_string(x.extent(0)) + ", y " + std::to_string(y.extent(0)) + ")");
  Kokkos::parallel_for("AsyncSparse::scale_vector", Impl::RangePolicy<ExecSpace>(exec, 0, s.extent(0)),
                       Impl::ScaleVectorFunctor<SView, XView, YView>{s, x, y});
}

template <class ExecSpace, class SView, class XView>
void scale_vector(const ExecSpace& exec, const SView& s, const XView& x) {
  scale_vector(exec, s, x, x);
}

}  // namespace AsyncSparse
