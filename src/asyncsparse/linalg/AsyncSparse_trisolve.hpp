// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — sparse triangular solves for the incomplete-factorization preconditioners.
//
// TriangularSolver solves T x = b for a sparse lower or upper triangular matrix T in CSR form with sorted rows
// and the diagonal stored (the last entry of each row of a lower, the first entry of each row of an upper
// triangular matrix; for a unit-diagonal solve the stored diagonal value is ignored and 1 used). Two kinds:
//
//  * Exact: Kokkos-Kernels sptrsv (level-set scheduling, algorithm SEQLVLSCHD_TP1): the rows of one level
//    of the dependency DAG are solved in parallel, the levels one after another. It is the triangular solve
//    of the conventional ILU/IC preconditioner; its parallelism is limited by the number of levels. On host
//    backends the per-level synchronisation dominates (a 2D Laplacian of 1024^2 rows has 2047 levels of ~500
//    rows), so there the exact solve runs as plain forward/backward substitution in one thread by default
//    (ExactAlgorithm::Auto; set_exact_algorithm() chooses explicitly). Both give the exact solution.
//  * Jacobi: a fixed number of Jacobi sweeps on the triangular system,
//        x_0 = D^{-1} b,   x_{k+1} = D^{-1} (b - (T - D) x_k),
//    the iterative triangular solve of Chow & Patel (SISC 2015, sect. 4) and of Anzt, Chow & Dongarra
//    ("Iterative sparse triangular solves for preconditioning", Euro-Par 2015), offered by Ginkgo, hypre and
//    Trilinos' FastILU. D^{-1}(T - D) is nilpotent, so n sweeps give the exact solution; a few sweeps give an
//    approximation that is usually as good a preconditioner, with full row parallelism in every sweep.
//
// Input checks: setup() throws InvalidInput for a non-square matrix, a row whose diagonal is not stored at the
// expected position, an entry on the wrong side of the diagonal, unsorted or duplicate columns, and
// non-finite values; BreakdownError (with the row) for a zero or non-finite diagonal of a non-unit solve.
// update_values() repeats the value checks.
#pragma once

#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_sptrsv.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>
#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/exec/AsyncSparse_atomics.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>
#include <asyncsparse/linalg/AsyncSparse_transpose.hpp>

namespace AsyncSparse {

/// How TriangularSolver solves: exactly or by a fixed number of Jacobi sweeps.
enum class TriSolveKind { Exact, Jacobi };

/// Algorithm of an exact solve: Kokkos-Kernels level sets, serial substitution (one thread), or Auto (level sets
/// on GPUs, serial substitution on host backends).
enum class ExactAlgorithm { Auto, LevelSet, Serial };

inline const char* to_string(TriSolveKind k) { return k == TriSolveKind::Exact ? "exact" : "jacobi"; }
inline TriSolveKind tri_solve_kind_from_string(const std::string& s) {
  if (s == "exact") return TriSolveKind::Exact;
  if (s == "jacobi") return TriSolveKind::Jacobi;
  throw InvalidInput("triangular solve kind '" + s + "' unknown (valid: exact, jacobi)");
}

/// Solves T x = b for a lower or upper triangular CSR matrix T (see the header comment).
template <class Scalar, class Device>
class TriangularSolver {
 public:
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  using crs_type = Crs<Scalar, Device>;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;
  using handle_type = KokkosKernels::Experimental::KokkosKernelsHandle<offset_t, ordinal_t, Scalar, execution_space,
                                                                       memory_space, memory_space>;

  TriangularSolver() = default;

  /// Analyses T (structure checks; level sets for Exact) and copies its values.
  /// T: square, sorted rows, diagonal stored last (lower) / first (upper) in every row.
  /// lower: T is lower (true) or upper (false) triangular.
  /// unit_diagonal: take the diagonal as 1 (the stored value is ignored).
  /// kind: Exact (Kokkos-Kernels sptrsv) or Jacobi (`jacobi_sweeps` sweeps, >= 0; default 5).
  /// Algorithm of the Exact kind; takes effect at the next setup(). Default Auto.
  void set_exact_algorithm(ExactAlgorithm a) { exact_algorithm_ = a; }
  /// True when Exact solves use Kokkos-Kernels level sets (after setup()).
  bool uses_level_sets() const { return static_cast<bool>(kh_); }

  void setup(const crs_type& T, bool lower, bool unit_diagonal, TriSolveKind kind, int jacobi_sweeps = 5) {
    if (T.numRows() != T.numCols())
      throw InvalidInput("TriangularSolver::setup: matrix must be square, got " + std::to_string(T.numRows()) + " x " +
                         std::to_string(T.numCols()));
    if (jacobi_sweeps < 0)
      throw InvalidInput("TriangularSolver::setup: jacobi_sweeps must be >= 0, got " + std::to_string(jacobi_sweeps));
    lower_ = lower;
    unit_ = unit_diagonal;
    kind_ = kind;
    sweeps_ = jacobi_sweeps;
    n_ = T.numRows();
    row_map_ = T.graph.row_map;
    entries_ = T.graph.entries;
    check_structure("TriangularSolver::setup");
    values_ = vector_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::trisolve::values"), T.nnz());
    inv_diag_ = vector_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::trisolve::inv_diag"), n_);
    work_ = vector_type("AsyncSparse::trisolve::work", n_);
    load_values(T, "TriangularSolver::setup");
    kh_.reset();
    const bool level_sets = exact_algorithm_ == ExactAlgorithm::LevelSet ||
                            (exact_algorithm_ == ExactAlgorithm::Auto && Impl::is_gpu_space<execution_space>());
    if (kind_ == TriSolveKind::Exact && n_ > 0 && level_sets) {
      kh_ = std::make_shared<handle_type>();
      kh_->create_sptrsv_handle(KokkosSparse::Experimental::SPTRSVAlgorithm::SEQLVLSCHD_TP1, n_, lower_);
      Compat::kk_sparse::sptrsv_symbolic(kh_.get(), row_map_, entries_);
    }
    ready_ = true;
  }

  /// New values for the pattern given to setup() (numeric phase only; the level sets are kept).
  void update_values(const crs_type& T) {
    if (!ready_) throw InvalidInput("TriangularSolver::update_values: setup() must be called first");
    if (T.numRows() != n_ || T.nnz() != static_cast<offset_t>(values_.extent(0)) ||
        (T.graph.entries.data() != entries_.data() && T.nnz() > 0 && !same_pattern(T)))
      throw InvalidInput("TriangularSolver::update_values: the matrix does not have the pattern given to setup()");
    load_values(T, "TriangularSolver::update_values");
  }

  /// x = T^{-1} b (Exact) or the Jacobi approximation of it. b and x of length n; they may alias.
  void solve(const const_vector_type& b, const vector_type& x) {
    if (!ready_) throw InvalidInput("TriangularSolver::solve: setup() must be called first");
    if (b.extent(0) != static_cast<std::size_t>(n_) || x.extent(0) != static_cast<std::size_t>(n_))
      throw InvalidInput("TriangularSolver::solve: vector lengths " + std::to_string(b.extent(0)) + ", " +
                         std::to_string(x.extent(0)) + " do not match the matrix (" + std::to_string(n_) + ")");
    if (n_ == 0) return;
    const_vector_type rhs = b;
    if (b.data() == x.data()) {  // keep the right-hand side: both algorithms read it while writing x
      if (rhs_copy_.extent(0) != static_cast<std::size_t>(n_))
        rhs_copy_ = vector_type("AsyncSparse::trisolve::rhs", n_);
      Kokkos::deep_copy(rhs_copy_, b);
      rhs = rhs_copy_;
    }
    if (kind_ == TriSolveKind::Jacobi)
      jacobi_solve(rhs, x);
    else if (kh_)
      Compat::kk_sparse::sptrsv_solve(kh_.get(), row_map_, entries_, values_, rhs, x);
    else
      serial_solve(rhs, x);
  }

  bool is_setup() const { return ready_; }
  TriSolveKind kind() const { return kind_; }
  bool lower() const { return lower_; }
  bool unit_diagonal() const { return unit_; }
  int jacobi_sweeps() const { return sweeps_; }
  ordinal_t num_rows() const { return n_; }

  // Kernels: public only because nvcc rejects device lambdas in private or protected member functions.
  bool same_pattern(const crs_type& T) const {
    if (T.graph.row_map.data() == row_map_.data() && T.graph.entries.data() == entries_.data()) return true;
    auto a_rm = row_map_;
    auto a_e = entries_;
    auto b_rm = T.graph.row_map;
    auto b_e = T.graph.entries;
    int diff = 0;
    Kokkos::parallel_reduce(
        "AsyncSparse::trisolve::same_pattern", Kokkos::RangePolicy<execution_space>(0, n_),
        KOKKOS_LAMBDA(const ordinal_t i, int& d) {
          if (a_rm(i + 1) != b_rm(i + 1)) {
            d = 1;
            return;
          }
          for (offset_t k = a_rm(i); k < a_rm(i + 1); ++k)
            if (a_e(k) != b_e(k)) d = 1;
        },
        Kokkos::Max<int>(diff));
    return diff <= 0;  // Max identity is the lowest int
  }

  // First bad row and reason: 1 diagonal not stored at the expected place, 2 entry on the wrong side of the
  // diagonal, 3 columns unsorted or duplicated. Encoded 4 * row + code, minimised.
  void check_structure(const std::string& where) const {
    auto rm = row_map_;
    auto ent = entries_;
    const bool lower = lower_;
    const ordinal_t n = n_;
    std::int64_t bad = std::numeric_limits<std::int64_t>::max();
    Kokkos::parallel_reduce(
        "AsyncSparse::trisolve::check_structure", Kokkos::RangePolicy<execution_space>(0, n),
        KOKKOS_LAMBDA(const ordinal_t i, std::int64_t& b) {
          const offset_t beg = rm(i), end = rm(i + 1);
          int code = 0;
          if (end <= beg || ent(lower ? end - 1 : beg) != i) code = 1;
          for (offset_t k = beg; k < end && code == 0; ++k) {
            const ordinal_t j = ent(k);
            if (j < 0 || j >= n || (lower ? j > i : j < i)) code = 2;
            if (k > beg && ent(k - 1) >= j) code = code ? code : 3;
          }
          if (code) {
            const std::int64_t key = 4 * static_cast<std::int64_t>(i) + code;
            if (key < b) b = key;
          }
        },
        Kokkos::Min<std::int64_t>(bad));
    if (bad == std::numeric_limits<std::int64_t>::max()) return;
    const std::int64_t row = bad / 4;
    const int code = static_cast<int>(bad % 4);
    const std::string tri = lower_ ? "lower" : "upper";
    std::string what;
    if (code == 1)
      what = std::string("diagonal entry not stored as the ") + (lower_ ? "last" : "first") + " entry of the row";
    else if (code == 2)
      what = "entry outside the " + tri + " triangle (or column out of range)";
    else
      what = "column indices not sorted or duplicated";
    throw InvalidInput(where + ": " + tri + " triangular matrix, row " + std::to_string(row) + ": " + what);
  }

  // Copies the values (diagonal := 1 for a unit solve), computes 1/d_ii and checks that every value is finite
  // and every used diagonal non-zero. Codes: 1 zero diagonal, 2 non-finite diagonal, 3 non-finite off-diagonal.
  void load_values(const crs_type& T, const std::string& where) {
    auto rm = row_map_;
    auto src = T.values;
    auto dst = values_;
    auto dinv = inv_diag_;
    const bool lower = lower_, unit = unit_;
    std::int64_t bad = std::numeric_limits<std::int64_t>::max();
    Kokkos::parallel_reduce(
        "AsyncSparse::trisolve::load_values", Kokkos::RangePolicy<execution_space>(0, n_),
        KOKKOS_LAMBDA(const ordinal_t i, std::int64_t& b) {
          const offset_t beg = rm(i), end = rm(i + 1);
          const offset_t dpos = lower ? end - 1 : beg;
          int code = 0;
          for (offset_t k = beg; k < end; ++k) {
            const Scalar v = src(k);
            if (k != dpos && !is_finite(v)) code = 3;
            dst(k) = v;
          }
          Scalar d = src(dpos);
          if (unit) {
            d = Scalar(1);
            dst(dpos) = d;
          } else if (!is_finite(d)) {
            code = 2;
          } else if (d == Scalar(0)) {
            code = 1;
          }
          dinv(i) = code == 0 ? Scalar(1) / d : Scalar(0);
          if (code) {
            const std::int64_t key = 4 * static_cast<std::int64_t>(i) + code;
            if (key < b) b = key;
          }
        },
        Kokkos::Min<std::int64_t>(bad));
    if (bad == std::numeric_limits<std::int64_t>::max()) return;
    const std::int64_t row = bad / 4;
    const int code = static_cast<int>(bad % 4);
    if (code == 3) throw InvalidInput(where + ": non-finite off-diagonal value in row " + std::to_string(row));
    throw BreakdownError(where, row, code == 1 ? "zero diagonal entry" : "non-finite diagonal entry");
  }

  // Forward / backward substitution by one thread of the execution space.
  void serial_solve(const const_vector_type& b, const vector_type& x) {
    auto rm = row_map_;
    auto ent = entries_;
    auto val = values_;
    auto dinv = inv_diag_;
    const bool lower = lower_;
    const ordinal_t n = n_;
    Kokkos::parallel_for(
        "AsyncSparse::trisolve::serial", Kokkos::RangePolicy<execution_space>(0, 1), KOKKOS_LAMBDA(const int) {
          for (ordinal_t r = 0; r < n; ++r) {
            const ordinal_t i = lower ? r : n - 1 - r;
            const offset_t beg = lower ? rm(i) : rm(i) + 1;
            const offset_t end = lower ? rm(i + 1) - 1 : rm(i + 1);
            Scalar s = b(i);
            for (offset_t k = beg; k < end; ++k) s -= val(k) * x(ent(k));
            x(i) = s * dinv(i);
          }
        });
  }

  void jacobi_solve(const const_vector_type& b, const vector_type& x) {
    auto rm = row_map_;
    auto ent = entries_;
    auto val = values_;
    auto dinv = inv_diag_;
    const bool lower = lower_;
    Kokkos::parallel_for(
        "AsyncSparse::trisolve::jacobi_init", Kokkos::RangePolicy<execution_space>(0, n_),
        KOKKOS_LAMBDA(const ordinal_t i) { x(i) = dinv(i) * b(i); });
    vector_type cur = x, next = work_;
    for (int s = 0; s < sweeps_; ++s) {
      // Jacobi: every row reads only `cur` and writes only its own entry of `next` (no races).
      Kokkos::parallel_for(
          "AsyncSparse::trisolve::jacobi_sweep", Kokkos::RangePolicy<execution_space>(0, n_),
          KOKKOS_LAMBDA(const ordinal_t i) {
            const offset_t beg = lower ? rm(i) : rm(i) + 1;
            const offset_t end = lower ? rm(i + 1) - 1 : rm(i + 1);
            Scalar r = b(i);
            for (offset_t k = beg; k < end; ++k) r -= val(k) * cur(ent(k));
            next(i) = dinv(i) * r;
          });
      vector_type t = cur;
      cur = next;
      next = t;
    }
    if (cur.data() != x.data()) Kokkos::deep_copy(x, cur);
  }

 private:
  bool ready_ = false;
  ExactAlgorithm exact_algorithm_ = ExactAlgorithm::Auto;
  bool lower_ = true, unit_ = false;
  TriSolveKind kind_ = TriSolveKind::Exact;
  int sweeps_ = 5;
  ordinal_t n_ = 0;
  typename crs_type::row_map_type row_map_;
  typename crs_type::index_type entries_;
  vector_type values_, inv_diag_, work_, rhs_copy_;
  std::shared_ptr<handle_type> kh_;
};

}  // namespace AsyncSparse
