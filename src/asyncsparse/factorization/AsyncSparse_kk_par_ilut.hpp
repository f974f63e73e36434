// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — Kokkos-Kernels' own ParILUT (KokkosSparse::Experimental::par_ilut_symbolic / _numeric, Kokkos-Kernels
// 4.x; Anzt, Chow & Dongarra 2018) as a peer of AsyncSparse's ParILUT in benchmarks: the same algorithm written
// independently, run on the same matrix with the same fill budget.
//
//  * Available when ASYNCSPARSE_HAVE_KK_PAR_ILUT is 1 (Kokkos-Kernels >= 4.6.01, the version tested: 3.4 has no
//    par_ilut, 4.0 had another create_par_ilut_handle signature, and before 4.6.01 a residual_norm_delta_stop <= 0
//    did not skip the residual computation).
//  * Fill budget: Kokkos-Kernels aims at fill_in_limit × nnz(lower(A)) entries in L and fill_in_limit ×
//    nnz(upper(A)) in U, diagonals included — the definition of ParIlutHandle::Params::fill_in_limit — but keeps
//    every entry at its threshold (ties), so it can end above that budget (by 32 % on the Laplacians).
//  * Steps: exactly max_steps (its residual-based stop is switched off: residual_norm_delta_stop < 0, which also
//    skips its residual computation), synchronous updates (async_update = false, its default).
//  * The factors come back in AsyncSparse's conventions (sorted rows; L unit with its diagonal last; U with its
//    diagonal first — Kokkos-Kernels' own layout), so that IncompleteFactorPreconditioner can apply them.
#pragma once

#include <Kokkos_Core.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>

#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40601
#define ASYNCSPARSE_HAVE_KK_PAR_ILUT 1
#else
#define ASYNCSPARSE_HAVE_KK_PAR_ILUT 0
#endif

#if ASYNCSPARSE_HAVE_KK_PAR_ILUT
#include <KokkosSparse_par_ilut.hpp>

#include <memory>
#include <string>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/factorization/AsyncSparse_kk_factor.hpp>

namespace AsyncSparse {

/// Kokkos-Kernels par_ilut: symbolic() once per pattern (the ILU(0) pattern sizes), numeric() runs the steps.
template <class Scalar, class Device>
class KkParIlut : public Impl::KkFactorBase<Scalar, Device> {
  using B = Impl::KkFactorBase<Scalar, Device>;
  using row_map_type = typename B::row_map_type;
  using entries_type = typename B::entries_type;
  using values_type = typename B::values_type;

 public:
  using typename B::crs_type;
  using typename B::execution_space;
  using typename B::handle_type;

  /// max_steps >= 1 ParILUT steps; fill_in_limit > 0 (see the header comment).
  KkParIlut(int max_steps, double fill_in_limit)
      : B("AsyncSparse::kk_par_ilut"), max_steps_(max_steps), fill_(fill_in_limit) {
    if (max_steps < 1) throw InvalidInput("KkParIlut: max_steps must be >= 1, got " + std::to_string(max_steps));
    if (!(fill_in_limit > 0))
      throw InvalidInput("KkParIlut: fill_in_limit must be > 0, got " + format_number(fill_in_limit));
  }

  /// A: square, sorted rows, diagonal stored.
  void symbolic(const crs_type& A) {
    if (A.numRows() != A.numCols()) throw InvalidInput("KkParIlut::symbolic: matrix must be square");
    numeric_done_ = false;
    execution_space().fence();
    Kokkos::Timer t;
    this->A_ = A;
    const ordinal_t n = A.numRows();
    this->kh_ = std::make_shared<handle_type>();
    this->kh_->create_par_ilut_handle(static_cast<offset_t>(max_steps_), -1.0, fill_, /*async_update=*/false);
    this->l_rm_ = row_map_type(this->label("L_row_map"), n + 1);
    this->u_rm_ = row_map_type(this->label("U_row_map"), n + 1);
    KokkosSparse::Experimental::par_ilut_symbolic(this->kh_.get(), A.graph.row_map, A.graph.entries, this->l_rm_,
                                                  this->u_rm_);
    execution_space().fence();
    this->symbolic_seconds_ = t.seconds();
  }

  /// The ParILUT steps on A's values (the pattern given to symbolic()). Returns its seconds. Kokkos-Kernels grows
  /// the row maps of L and U in place, so a second numeric() first repeats the symbolic phase (untimed).
  double numeric(const crs_type& A) {
    if (!this->kh_) throw InvalidInput("KkParIlut::numeric: symbolic() must be called first");
    if (numeric_done_) symbolic(A);
    numeric_done_ = true;
    auto* ph = this->kh_->get_par_ilut_handle();
    // par_ilut_numeric resizes the entry/value Views as the pattern grows; it starts from the ILU(0) sizes.
    this->l_ent_ = entries_type(this->label("L_entries"), ph->get_nnzL());
    this->u_ent_ = entries_type(this->label("U_entries"), ph->get_nnzU());
    this->l_val_ = values_type(this->label("L_values"), ph->get_nnzL());
    this->u_val_ = values_type(this->label("U_values"), ph->get_nnzU());
    execution_space().fence();
    Kokkos::Timer t;
    KokkosSparse::Experimental::par_ilut_numeric(this->kh_.get(), A.graph.row_map, A.graph.entries, A.values,
                                                 this->l_rm_, this->l_ent_, this->l_val_, this->u_rm_, this->u_ent_,
                                                 this->u_val_);
    execution_space().fence();
    this->numeric_seconds_ = t.seconds();
    return this->numeric_seconds_;
  }

  /// Steps Kokkos-Kernels ran (its handle's statistic).
  int steps() const { return this->kh_ ? this->kh_->get_par_ilut_handle()->get_num_iters() : 0; }

 private:
  int max_steps_;
  double fill_;
  bool numeric_done_ = false;
};

}  // namespace AsyncSparse
#endif  // ASYNCSPARSE_HAVE_KK_PAR_ILUT
