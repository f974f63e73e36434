// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — Ifpack2 adapter: AsyncSparse's preconditioners as an Ifpack2::Preconditioner.
//
// `Ifpack2Adapter<Scalar, LO, GO, Node>` lets a Trilinos application (Belos, Ifpack2::AdditiveSchwarz,
// MueLu smoothers through Ifpack2) use the fine-grained fixed-point preconditioners of this library
// the way it uses Ifpack2's own: iterative ILU(0)/IC(0) (Chow–Patel; Chow, Anzt, Dongarra 2015),
// ParILUT/ParICT (Anzt, Ribizel, Flegar, Chow, Dongarra 2019), asynchronous Jacobi (Tsai, Nayak,
// Chow, Anzt 2022), block-asynchronous relaxation (Anzt, Tomov, Dongarra, Heuveline 2011), or plain
// Jacobi — whatever AsyncSparse's factory (preconditioner/AsyncSparse_factory.hpp) has registered.
//
// How it works: initialize() extracts the local diagonal block of the (possibly distributed)
// Tpetra::RowMatrix — the rows this process owns × the columns that are also owned rows — into a
// KokkosSparse::CrsMatrix on the Tpetra node's device, and builds the AsyncSparse preconditioner on
// it with make_preconditioner(); compute() refreshes the values (pattern reuse: change the matrix'
// values, call compute() again) and runs the numeric set-up; apply() applies it column by column.
// Across processes this is block Jacobi, as Ifpack2's RILUK does on a distributed matrix, so the
// adapter is also a subdomain solver for Ifpack2::AdditiveSchwarz::setInnerPreconditioner (it
// implements Ifpack2::Details::CanChangeMatrix).
//
// Parameters (Teuchos::ParameterList, Ifpack2 naming; setParameters rejects unknown names and wrong
// types with a message listing the valid ones; parameters not given take their defaults):
//   "asyncsparse: method" (string, default "par_ilu"): a name registered in AsyncSparse's factory —
//       "par_ilu", "par_ic", "par_ilut", "par_ict", "async_jacobi", "block_async", "jacobi", "none".
//   "fact: absolute threshold" (double, default 0), "fact: relative threshold" (double, default 1): as in
//       Ifpack2 RILUK, every diagonal entry of the local block becomes rel * a_ii + sign(a_ii) * abs before
//       the method sees it (the Krylov operator is unchanged). The remedy when IC(0) does not exist, e.g.
//       bcsstk18 needs rel >= 1.02.
//   "asyncsparse: <name with spaces>": the method's AsyncSparse parameter <name_with_underscores>,
//       with its type, default and meaning as the method declares them (getValidParameters() lists
//       them; AsyncSparse_ifpack2_parameters_impl.hpp has the rule). For example
//       "asyncsparse: sweeps" (int): fixed-point sweeps of par_ilu / par_ic;
//       "asyncsparse: fill limit" (double): fill_in_limit of par_ilut / par_ict;
//       "asyncsparse: triangular solve" (string): tri_solve of par_ilu / par_ic / par_ilut / par_ict, one of
//       "auto" (default: chosen by backend and size), "exact", "jacobi", "jacobi_adaptive", "isai", with
//       "asyncsparse: triangular solve sweeps" (int), "... tolerance" (double), "... stagnation" (double) and
//       "... check interval" (int) (tri_solve_sweeps, tri_solve_tolerance, tri_solve_stagnation,
//       tri_solve_check_interval, "... one team entries": tri_solve_one_team_entries);
//       "asyncsparse: deterministic" (bool); the launch settings, named alike for every method that
//       launches kernels (exec/AsyncSparse_launch_parameters.hpp): "asyncsparse: team size",
//       "asyncsparse: vector length", "asyncsparse: chunk size", "asyncsparse: max concurrent teams",
//       "asyncsparse: occupancy mode", "asyncsparse: block order", "asyncsparse: launch seed", ...
#pragma once

#include <Ifpack2_Details_CanChangeMatrix.hpp>
#include <Ifpack2_Preconditioner.hpp>
#include <Kokkos_Core.hpp>
#include <Teuchos_Comm.hpp>
#include <Teuchos_FancyOStream.hpp>
#include <Teuchos_ParameterList.hpp>
#include <Teuchos_VerbosityLevel.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_MultiVector.hpp>
#include <Tpetra_RowMatrix.hpp>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <asyncsparse/adapters/ifpack2/AsyncSparse_tpetra_convert.hpp>
#include <asyncsparse/adapters/ifpack2/impl/AsyncSparse_ifpack2_parameters_impl.hpp>
#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>

namespace AsyncSparse {

template <class Scalar = Tpetra::Operator<>::scalar_type,
          class LocalOrdinal = typename Tpetra::Operator<Scalar>::local_ordinal_type,
          class GlobalOrdinal = typename Tpetra::Operator<Scalar, LocalOrdinal>::global_ordinal_type,
          class Node = typename Tpetra::Operator<Scalar, LocalOrdinal, GlobalOrdinal>::node_type>
class Ifpack2Adapter
    : virtual public Ifpack2::Preconditioner<Scalar, LocalOrdinal, GlobalOrdinal, Node>,
      virtual public Ifpack2::Details::CanChangeMatrix<Tpetra::RowMatrix<Scalar, LocalOrdinal, GlobalOrdinal, Node>> {
 public:
  using scalar_type = Scalar;
  using local_ordinal_type = LocalOrdinal;
  using global_ordinal_type = GlobalOrdinal;
  using node_type = Node;
  using row_matrix_type = Tpetra::RowMatrix<Scalar, LocalOrdinal, GlobalOrdinal, Node>;
  using map_type = Tpetra::Map<LocalOrdinal, GlobalOrdinal, Node>;
  using mv_type = Tpetra::MultiVector<Scalar, LocalOrdinal, GlobalOrdinal, Node>;
  using impl_scalar_type = typename mv_type::impl_scalar_type;
  using device_type = typename Node::device_type;
  using execution_space = typename device_type::execution_space;
  /// The local block as AsyncSparse sees it.
  using local_matrix_type = Crs<impl_scalar_type, device_type>;
  using local_preconditioner_type = PreconditionerBase<impl_scalar_type, device_type>;

  /// Method used when "asyncsparse: method" is not given.
  static constexpr const char* default_method = "par_ilu";

  /// `A` may be null (Ifpack2::AdditiveSchwarz passes its subdomain matrix later through setMatrix).
  /// Parameters start at their defaults; call setParameters to choose the method.
  explicit Ifpack2Adapter(const Teuchos::RCP<const row_matrix_type>& A) : A_(A), method_(default_method) {}

  // ---- Ifpack2::Preconditioner ---------------------------------------------------------------

  /// Validate and store `params` (see the header comment). Invalidates initialize() and compute().
  void setParameters(const Teuchos::ParameterList& params) override {
    std::string method;
    double abs_threshold = 0, rel_threshold = 1;
    params_ = Impl::translate_ifpack2_parameters(
        params, default_method, "Ifpack2Adapter::setParameters", [](const std::string& m) { return method_spec(m); },
        method, abs_threshold, rel_threshold);
    teuchos_params_ = params;
    method_ = method;
    abs_threshold_ = abs_threshold;
    rel_threshold_ = rel_threshold;
    prec_.reset();
    initialized_ = computed_ = false;
  }

  /// Extract the local block and run the method's symbolic set-up.
  void initialize() override {
    const std::string where = "Ifpack2Adapter::initialize";
    check_matrix(where);
    Kokkos::Timer timer;
    initialized_ = computed_ = false;
    prec_.reset();
    auto block = local_diagonal_block(*A_);
    dropped_nnz_ = block.dropped_nnz;
    host_block_ = std::move(block.matrix);
    perturb_diagonal(host_block_);
    if (host_block_.nrows > 0) {
      A_local_ = to_device<device_type>(host_block_, "AsyncSparse::Ifpack2Adapter::A_local");
      prec_ = make_preconditioner<impl_scalar_type, device_type>(method_, A_local_, params_);
      prec_->initialize();
    } else {
      A_local_ = local_matrix_type();
    }
    execution_space().fence();
    values_fresh_ = true;
    initialized_ = true;
    ++num_initialize_;
    initialize_time_ += timer.seconds();
  }
  bool isInitialized() const override { return initialized_; }

  /// Numeric set-up; calls initialize() first when needed. A second call re-reads the matrix values
  /// (same pattern: the symbolic set-up is kept).
  void compute() override {
    if (!initialized_) initialize();
    Kokkos::Timer timer;
    computed_ = false;
    if (!values_fresh_) refresh_values();
    if (prec_) prec_->compute();
    execution_space().fence();
    values_fresh_ = false;
    computed_ = true;
    ++num_compute_;
    compute_time_ += timer.seconds();
  }
  bool isComputed() const override { return computed_; }

  /// Y = beta Y + alpha M⁻¹ X, M the local-block preconditioner (block Jacobi across processes).
  /// Only mode = NO_TRANS. Throws InvalidInput before compute() or for mismatched vectors.
  void apply(const mv_type& X, mv_type& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS,
             Scalar alpha = Teuchos::ScalarTraits<Scalar>::one(),
             Scalar beta = Teuchos::ScalarTraits<Scalar>::zero()) const override {
    const std::string where = "Ifpack2Adapter::apply";
    if (!computed_) throw InvalidInput(where + ": compute() must be called before apply()");
    if (mode != Teuchos::NO_TRANS)
      throw InvalidInput(where + ": only mode = Teuchos::NO_TRANS is supported (hasTransposeApply() is false)");
    if (X.getNumVectors() != Y.getNumVectors())
      throw InvalidInput(where + ": X has " + std::to_string(X.getNumVectors()) + " columns but Y has " +
                         std::to_string(Y.getNumVectors()));
    const std::size_t n = static_cast<std::size_t>(host_block_.nrows);
    if (X.getLocalLength() != n || Y.getLocalLength() != n)
      throw InvalidInput(where + ": local lengths of X (" + std::to_string(X.getLocalLength()) + ") and Y (" +
                         std::to_string(Y.getLocalLength()) + ") do not match the local block (" + std::to_string(n) +
                         " rows)");
    Kokkos::Timer timer;
    if (x_.extent(0) != n) {
      x_ = Kokkos::View<impl_scalar_type*, device_type>("AsyncSparse::Ifpack2Adapter::x", n);
      z_ = Kokkos::View<impl_scalar_type*, device_type>("AsyncSparse::Ifpack2Adapter::z", n);
    }
    const impl_scalar_type a = static_cast<impl_scalar_type>(alpha), b = static_cast<impl_scalar_type>(beta);
    for (std::size_t j = 0; j < X.getNumVectors() && n > 0; ++j) {
      {  // copy the column first: X and Y may share storage
        auto xj = X.getVector(j)->getLocalViewDevice(Tpetra::Access::ReadOnly);
        Kokkos::deep_copy(x_, Kokkos::subview(xj, Kokkos::ALL(), 0));
      }
      prec_->apply(x_, z_);
      auto yj_all = Y.getVectorNonConst(j);
      auto yv = yj_all->getLocalViewDevice(Tpetra::Access::ReadWrite);
      auto yj = Kokkos::subview(yv, Kokkos::ALL(), 0);
      auto z = z_;
      const bool zero_beta = b == impl_scalar_type(0);
      // beta = 0 overwrites Y (NaN in Y does not propagate), as Tpetra::Operator::apply specifies.
      Kokkos::parallel_for(
          "AsyncSparse::Ifpack2Adapter::update", Impl::RangePolicy<execution_space>(0, n),
          KOKKOS_LAMBDA(const std::size_t i) { yj(i) = zero_beta ? a * z(i) : b * yj(i) + a * z(i); });
    }
    execution_space().fence();
    ++num_apply_;
    apply_time_ += timer.seconds();
  }

  Teuchos::RCP<const map_type> getDomainMap() const override {
    check_matrix("Ifpack2Adapter::getDomainMap");
    return A_->getDomainMap();
  }
  Teuchos::RCP<const map_type> getRangeMap() const override {
    check_matrix("Ifpack2Adapter::getRangeMap");
    return A_->getRangeMap();
  }
  Teuchos::RCP<const row_matrix_type> getMatrix() const override { return A_; }

  int getNumInitialize() const override { return num_initialize_; }
  int getNumCompute() const override { return num_compute_; }
  int getNumApply() const override { return num_apply_; }
  double getInitializeTime() const override { return initialize_time_; }
  double getComputeTime() const override { return compute_time_; }
  double getApplyTime() const override { return apply_time_; }

  // ---- Ifpack2::Details::CanChangeMatrix ----------------------------------------------------------

  /// Use another matrix (may be null). A different matrix object invalidates initialize() and
  /// compute(); to reuse the pattern with new values, keep the matrix and call compute() again.
  void setMatrix(const Teuchos::RCP<const row_matrix_type>& A) override {
    if (A.get() == A_.get()) return;
    A_ = A;
    prec_.reset();
    host_block_ = CsrHost<impl_scalar_type>();
    A_local_ = local_matrix_type();
    initialized_ = computed_ = false;
  }

  // ---- Teuchos::Describable ---------------------------------------------------------------------

  std::string description() const override {
    std::ostringstream os;
    os << "\"AsyncSparse::Ifpack2Adapter\": {Initialized: " << (initialized_ ? "true" : "false")
       << ", Computed: " << (computed_ ? "true" : "false") << ", method: \"" << method_ << "\"";
    if (abs_threshold_ != 0.0 || rel_threshold_ != 1.0)
      os << ", diagonal: " << rel_threshold_ << " a_ii + " << abs_threshold_ << " sign(a_ii)";
    if (!params_.values().empty()) {
      os << ", parameters: {";
      bool first = true;
      for (const auto& kv : params_.values()) {
        os << (first ? "" : ", ") << kv.first << ": ";
        std::visit([&](const auto& v) { os << v; }, kv.second);
        first = false;
      }
      os << "}";
    }
    if (A_.is_null()) {
      os << ", Matrix: null";
    } else {
      os << ", Global matrix dimensions: [" << A_->getGlobalNumRows() << ", " << A_->getGlobalNumCols()
         << "], Global nnz: " << A_->getGlobalNumEntries();
    }
    os << "}";
    return os.str();
  }

  void describe(Teuchos::FancyOStream& out,
                const Teuchos::EVerbosityLevel verbLevel = Teuchos::Describable::verbLevel_default) const override {
    if (verbLevel == Teuchos::VERB_NONE) return;
    Teuchos::OSTab tab0(out);
    out << description() << std::endl;
    if (verbLevel == Teuchos::VERB_LOW || verbLevel == Teuchos::VERB_DEFAULT) return;
    Teuchos::OSTab tab1(out);
    out << "local block: " << host_block_.nrows << " rows, " << host_block_.nnz() << " entries kept, " << dropped_nnz_
        << " off-process entries dropped (block Jacobi across processes)" << std::endl;
    if (prec_) out << "AsyncSparse preconditioner: " << prec_->description() << std::endl;
    out << "initialize: " << num_initialize_ << " calls, " << initialize_time_ << " s; compute: " << num_compute_
        << " calls, " << compute_time_ << " s; apply: " << num_apply_ << " calls, " << apply_time_ << " s" << std::endl;
    if (verbLevel == Teuchos::VERB_EXTREME) out << "valid parameters of '" << method_ << "':\n" << spec_text();
  }

  // ---- AsyncSparse extras -----------------------------------------------------------------------

  /// The method in use ("par_ic", "jacobi", ...).
  const std::string& method() const { return method_; }
  /// Methods registered in AsyncSparse's factory (valid values of "asyncsparse: method").
  static std::vector<std::string> methods() { return Impl::factory_method_names(); }
  /// The parameters as given to setParameters, and as translated for the AsyncSparse method.
  const Teuchos::ParameterList& getParameters() const { return teuchos_params_; }
  const ParameterList& asyncsparse_parameters() const { return params_; }
  /// Every parameter the current method accepts, with its default value and documentation.
  Teuchos::RCP<const Teuchos::ParameterList> getValidParameters() const {
    auto list = Teuchos::rcp(new Teuchos::ParameterList("AsyncSparse::Ifpack2Adapter"));
    list->set(Impl::ifpack2_method_key(), std::string(default_method),
              "AsyncSparse method; valid: " + Impl::join(methods()));
    list->set(Impl::ifpack2_absolute_threshold_key(), 0.0, "added to the diagonal as sign(a_ii) * value");
    list->set(Impl::ifpack2_relative_threshold_key(), 1.0, "multiplies the diagonal");
    const ParameterSpec spec = method_spec(method_);
    for (const auto& e : spec.entries())
      Impl::set_teuchos(*list, Impl::ifpack2_name_for(e.name), e.default_value, e.doc);
    return list;
  }
  /// The AsyncSparse preconditioner of the local block (null before initialize() and on a process
  /// that owns no rows).
  const local_preconditioner_type* local_preconditioner() const { return prec_.get(); }
  const local_matrix_type& local_matrix() const { return A_local_; }
  /// Entries of the local rows that couple to other processes and are therefore not in the block.
  std::size_t dropped_nnz() const { return dropped_nnz_; }

 private:
  /// ParameterSpec of a registered method (from an instance on an empty matrix: constructors only
  /// store the matrix; all checks happen in initialize/compute).
  static ParameterSpec method_spec(const std::string& method) {
    return make_preconditioner<impl_scalar_type, device_type>(method, local_matrix_type(), ParameterList())
        ->parameter_spec();
  }
  std::string spec_text() const {
    std::ostringstream os;
    const ParameterSpec spec = method_spec(method_);
    for (const auto& e : spec.entries()) {
      os << "  " << Impl::ifpack2_name_for(e.name) << " (" << parameter_type_name(e.default_value) << ", default ";
      std::visit([&](const auto& v) { os << v; }, e.default_value);
      os << "): " << e.doc << "\n";
    }
    return os.str();
  }

  void check_matrix(const std::string& where) const {
    if (A_.is_null()) throw InvalidInput(where + ": the matrix is null; pass one to the constructor or to setMatrix()");
    if (!A_->hasColMap()) throw InvalidInput(where + ": the matrix has no column Map (call fillComplete() first)");
    if (A_->getGlobalNumRows() != A_->getGlobalNumCols())
      throw InvalidInput(where + ": the matrix must be square, got " + std::to_string(A_->getGlobalNumRows()) + " x " +
                         std::to_string(A_->getGlobalNumCols()));
    // The local block is indexed by the row Map; apply() reads X and writes Y by the same local index.
    if (!A_->getRowMap()->locallySameAs(*A_->getDomainMap()) || !A_->getRowMap()->locallySameAs(*A_->getRangeMap()))
      throw InvalidInput(where + ": the row Map must equal the domain and range Maps on every process");
  }

  /// a_ii <- rel * a_ii + sign(a_ii) * abs on the stored diagonal entries (Ifpack2 RILUK's "fact: absolute /
  /// relative threshold"; sign(0) = +1). A missing diagonal entry stays missing (the method reports it).
  void perturb_diagonal(CsrHost<impl_scalar_type>& B) const {
    if (abs_threshold_ == 0.0 && rel_threshold_ == 1.0) return;
    for (ordinal_t i = 0; i < B.nrows; ++i) {
      const offset_t p = find_entry(B, i, i);
      if (p < 0) continue;
      auto& v = B.values[p];
      const double sign = Teuchos::ScalarTraits<Scalar>::real(static_cast<Scalar>(v)) < 0 ? -1.0 : 1.0;
      v = static_cast<impl_scalar_type>(rel_threshold_) * v + static_cast<impl_scalar_type>(sign * abs_threshold_);
    }
  }

  /// Re-read the values of A_ into the local block; same pattern: keep the symbolic set-up.
  void refresh_values() {
    auto block = local_diagonal_block(*A_);
    perturb_diagonal(block.matrix);
    const bool same_pattern =
        block.matrix.row_ptr == host_block_.row_ptr && block.matrix.col_idx == host_block_.col_idx;
    if (!same_pattern) {  // the matrix changed its structure behind our back: start over
      initialize();
      return;
    }
    host_block_.values = std::move(block.matrix.values);
    if (host_block_.nrows == 0) return;
    using U = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    Kokkos::deep_copy(A_local_.values, Kokkos::View<const impl_scalar_type*, Kokkos::HostSpace, U>(
                                           host_block_.values.data(), host_block_.values.size()));
    prec_->setMatrix(A_local_);  // same graph Views: AsyncSparse keeps the symbolic set-up
  }

  Teuchos::RCP<const row_matrix_type> A_;
  Teuchos::ParameterList teuchos_params_;
  ParameterList params_;
  std::string method_;
  double abs_threshold_ = 0, rel_threshold_ = 1;
  CsrHost<impl_scalar_type> host_block_;
  local_matrix_type A_local_;
  std::size_t dropped_nnz_ = 0;
  std::unique_ptr<local_preconditioner_type> prec_;
  mutable Kokkos::View<impl_scalar_type*, device_type> x_, z_;
  bool initialized_ = false, computed_ = false, values_fresh_ = false;
  int num_initialize_ = 0, num_compute_ = 0;
  mutable int num_apply_ = 0;
  double initialize_time_ = 0, compute_time_ = 0;
  mutable double apply_time_ = 0;
};

}  // namespace AsyncSparse
