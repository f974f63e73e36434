// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — the two kinds of incomplete factorization (ILU, IC) that the iterative factorization, its
// kernels and the residual norms are written for once, as templates on the kind where they differ.
#pragma once

#include <type_traits>

namespace AsyncSparse {

/// Which factorization: A ≈ L U (L unit lower triangular) or, for symmetric A, A ≈ L Lᵀ.
enum class ParIluKind { Ilu, Ic };

inline const char* to_string(ParIluKind k) { return k == ParIluKind::Ilu ? "ilu" : "ic"; }

namespace Impl {
/// The kind as a type, to pick a template instantiation from a run-time kind.
template <ParIluKind Kind>
using ParIluKindTag = std::integral_constant<ParIluKind, Kind>;
}  // namespace Impl

}  // namespace AsyncSparse
