// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The set-up paths that do several things in one pass or one allocation: the numeric phase's checks with the
// scaling's diagonal, the triangular solver's structure check with its value loading, the solvers' arrays in
// storage given by the caller (FactorApply: one allocation for both triangles) and the Jacobi probe in scratch.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu.hpp>
#include <asyncsparse/linalg/AsyncSparse_trisolve.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <support/TestHelpers.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace test_setup_paths {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using Exec = typename Dev::execution_space;
using V = Kokkos::View<double*, Dev>;

TEST(TEST_CATEGORY, setup_paths_numeric_checks_store_the_scaling_of_scale_unit_diagonal) {
  for (const auto kind : {ParIluKind::Ic, ParIluKind::Ilu}) {
    auto Ah = lap2d(6);
    for (int i = 0; i < Ah.nrows; ++i)  // a diagonal that is not constant (the values stay symmetric)
      for (auto k = Ah.row_ptr[i]; k < Ah.row_ptr[i + 1]; ++k)
        if (Ah.col_idx[k] == i) Ah.values[k] = 4.0 + 0.1 * static_cast<double>(i % 7);
    const auto A = to_device<Dev>(Ah);
    ParIluHandle<double, Dev> h(kind);
    h.params.sweeps = 0;
    par_ilu_symbolic(Exec(), h, A);
    par_ilu_numeric(Exec(), h, A);
    const auto expected = scale_unit_diagonal(Exec(), A);
    EXPECT_EQ(to_std_vector(h.state().s), to_std_vector(expected.s));  // bit for bit: the same expression
    EXPECT_EQ(to_std_vector(h.state().a_scaled), to_std_vector(expected.A.values));
  }
}

TEST(TEST_CATEGORY, setup_paths_numeric_checks_report_a_bad_row_before_asymmetry) {
  const auto Ah = lap2d(4);
  const auto A = to_device<Dev>(Ah);
  ParIluHandle<double, Dev> h(ParIluKind::Ic);
  par_ilu_symbolic(Exec(), h, A);
  auto Hb = Ah;
  Hb.values[1] = -0.5;                                                 // a(0,1) != a(1,0): an asymmetric pair
  Hb.values[Hb.row_ptr[9]] = std::numeric_limits<double>::infinity();  // and a non-finite value in row 9
  auto Ab = to_device<Dev>(Hb);
  Ab = Crs<double, Dev>("Ab", 16, 16, Ab.nnz(), Ab.values, A.graph.row_map, A.graph.entries);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, Ab), InvalidInput, "par_ic_numeric: row 9 has a non-finite");
  // without scaling the checks are the same
  ParIluHandle<double, Dev> u(ParIluKind::Ic);
  u.params.scale = false;
  par_ilu_symbolic(Exec(), u, A);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), u, Ab), InvalidInput, "row 9 has a non-finite");
  Hb.values[Hb.row_ptr[9]] = Ah.values[Ah.row_ptr[9]];
  auto Aa = to_device<Dev>(Hb);
  Aa = Crs<double, Dev>("Aa", 16, 16, Aa.nnz(), Aa.values, A.graph.row_map, A.graph.entries);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), u, Aa), InvalidInput, "a(1, 0) differs from its transposed");
}

TEST(TEST_CATEGORY, setup_paths_trisolve_reports_structure_before_values) {
  // row 1 has a zero diagonal (a value problem), row 3 unsorted columns (a structure problem): structure first
  auto M = csr_from_triplets<double>(4, 4, {0, 1, 1, 2, 3, 3, 3}, {0, 0, 1, 2, 1, 0, 3},
                                     {1.0, 2.0, 0.0, 1.0, 1.0, 1.0, 1.0});
  // csr_from_triplets sorts the columns: unsort row 3 by hand
  std::swap(M.col_idx[M.row_ptr[3]], M.col_idx[M.row_ptr[3] + 1]);
  TriangularSolver<double, Dev> S;
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(M), true, false, TriSolveKind::Jacobi), InvalidInput,
                               "lower triangular matrix, row 3: column indices not sorted");
  std::swap(M.col_idx[M.row_ptr[3]], M.col_idx[M.row_ptr[3] + 1]);
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(M), true, false, TriSolveKind::Jacobi), BreakdownError,
                               "breakdown at row 1: zero diagonal");
}

// Isai on T's own pattern, whose values the storage holds (an extended pattern's values are allocated with it).
TriSolveOptions options(TriSolveKind kind, int sweeps) {
  TriSolveOptions o;
  o.kind = kind;
  o.sweeps = sweeps;
  o.isai_power = 1;
  return o;
}

// A lower bidiagonal of n rows (diagonal 1, subdiagonal 0.5) with the diagonal `d` in the rows `rows`.
CsrHost<double> bidiagonal_with(int n, double d, const std::vector<int>& rows) {
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    if (i > 0) {
      r.push_back(i);
      c.push_back(i - 1);
      v.push_back(0.5);
    }
    r.push_back(i);
    c.push_back(i);
    v.push_back(1.0);
  }
  auto B = csr_from_triplets<double>(n, n, r, c, v);
  for (const int i : rows) B.values[B.row_ptr[i + 1] - 1] = d;
  return B;
}

// The checking passes run over the whole grid and lower one verdict word to the smallest key they find: among many
// bad rows, found concurrently, the first is reported; a pass that found a problem leaves the word ready, so the
// next pass on good values passes (the numeric checks, the triangle's loading, ISAI).
TEST(TEST_CATEGORY, setup_paths_checks_report_the_first_of_many_bad_rows_and_recover) {
  const auto Ah = lap2d(80);  // 6,400 rows: many teams
  const auto A = to_device<Dev>(Ah);
  for (const auto kind : {ParIluKind::Ic, ParIluKind::Ilu}) {
    ParIluHandle<double, Dev> h(kind);
    h.params.sweeps = 1;
    par_ilu_symbolic(Exec(), h, A);
    auto Hb = Ah;
    for (const int row : {5000, 1234, 6399, 2500, 1235})
      Hb.values[Hb.row_ptr[row] + 1] = std::numeric_limits<double>::quiet_NaN();
    auto Ab = to_device<Dev>(Hb);
    Ab = Crs<double, Dev>("Ab", A.numRows(), A.numCols(), Ab.nnz(), Ab.values, A.graph.row_map, A.graph.entries);
    ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, Ab), InvalidInput, "row 1234 has a non-finite value");
    EXPECT_NO_THROW(par_ilu_numeric(Exec(), h, A));
    EXPECT_TRUE(h.state().numeric);
    EXPECT_EQ(h.stats().sweeps, 1);
  }
  // a triangle: zero diagonals in three rows, then good values
  const int n = 5000;
  TriangularSolver<double, Dev> S;
  TriSolveOptions o;
  o.kind = TriSolveKind::Isai;
  o.sweeps = 0;      // x = M b
  o.isai_power = 1;  // M on T's own pattern
  ASYNCSPARSE_EXPECT_THROW_MSG(S.setup(to_device<Dev>(bidiagonal_with(n, 0.0, {4000, 777, 3000})), true, false, o),
                               BreakdownError, "breakdown at row 777: zero diagonal");
  S.setup(to_device<Dev>(bidiagonal_with(n, 1.0, {})), true, false, o);
  ASYNCSPARSE_EXPECT_THROW_MSG(S.update_values(to_device<Dev>(bidiagonal_with(n, 0.0, {4000, 777, 3000}))),
                               BreakdownError, "breakdown at row 777: zero diagonal");
  // ISAI rows that overflow: row i's entry -l / (d_i d_{i-1}) with both diagonals 1e-200 (rows 901 and 2001)
  ASYNCSPARSE_EXPECT_THROW_MSG(S.update_values(to_device<Dev>(bidiagonal_with(n, 1e-200, {2000, 2001, 900, 901}))),
                               BreakdownError, "breakdown at row 901: non-finite ISAI row");
  // good values load and apply
  const auto G = bidiagonal_with(n, 1.0, {});
  EXPECT_NO_THROW(S.update_values(to_device<Dev>(G)));
  std::vector<double> b(n);
  for (int i = 0; i < n; ++i) b[i] = i > 0 ? 1.5 : 1.0;
  V bd("b", n), xd("x", n);
  Kokkos::deep_copy(bd, Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(b.data(), n));
  S.solve(bd, xd);
  // M on L's pattern: M(i, i) = 1, M(i, i - 1) = -0.5, so x_0 = 1, x_1 = 1.5 - 0.5 = 1, x_i = 1.5 - 0.75 = 0.75,
  // in the rows that were bad before too
  const auto x = to_std_vector(xd);
  for (int i = 0; i < n; ++i) ASSERT_EQ(x[i], i < 2 ? 1.0 : 0.75) << "row " << i;
  // IC: several asymmetric pairs, the first (in row order) reported; then the handle takes good values
  ParIluHandle<double, Dev> h(ParIluKind::Ic);
  par_ilu_symbolic(Exec(), h, A);
  auto Hs = Ah;
  for (const int row : {3000, 1000, 4321}) {
    const auto k = Hs.row_ptr[row];  // its first entry, left of the diagonal
    ASSERT_LT(Hs.col_idx[k], row);
    Hs.values[k] *= 1.5;
  }
  auto As = to_device<Dev>(Hs);
  As = Crs<double, Dev>("As", A.numRows(), A.numCols(), As.nnz(), As.values, A.graph.row_map, A.graph.entries);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, As), InvalidInput,
                               "a(1000, " + std::to_string(Ah.col_idx[Ah.row_ptr[1000]]) + ") differs");
  EXPECT_NO_THROW(par_ilu_numeric(Exec(), h, A));
}

TEST(TEST_CATEGORY, setup_paths_trisolve_storage_given_or_too_small) {
  const auto L = Reference::ic0(lap2d(7));
  const auto Ld = to_device<Dev>(L);
  const auto n = static_cast<std::size_t>(L.nrows), nnz = static_cast<std::size_t>(L.nnz());
  std::vector<double> bh(n);
  for (std::size_t i = 0; i < n; ++i) bh[i] = 1.0 + 0.25 * static_cast<double>(i % 5);
  const V b = to_device<Dev>(bh);
  const std::pair<TriSolveKind, int> modes[] = {
      {TriSolveKind::Jacobi, 3}, {TriSolveKind::Isai, 1}, {TriSolveKind::Isai, 0}, {TriSolveKind::Exact, 0}};
  for (const auto& m : modes) {
    const auto o = options(m.first, m.second);
    const auto sizes = TriangularSolver<double, Dev>::array_sizes(m.first, m.second, n, nnz);
    TriangularSolver<double, Dev> own, given, small;
    own.setup(Ld, true, false, o);
    // NaN-filled: a part the solver reads before writing it would show in the solution
    const V storage("storage", Impl::parts_extent(sizes)), too_small("small", Impl::parts_extent(sizes) - 1);
    Kokkos::deep_copy(storage, std::numeric_limits<double>::quiet_NaN());
    given.setup(Ld, true, false, o, {}, {}, nullptr, storage);
    small.setup(Ld, true, false, o, {}, {}, nullptr, too_small);
    V x0("x0", n), x1("x1", n), x2("x2", n);
    own.solve(b, x0);
    given.solve(b, x1);
    small.solve(b, x2);
    const auto ref = to_std_vector(x0);
    EXPECT_EQ(to_std_vector(x1), ref) << to_string(m.first);  // the same kernels on the same values
    EXPECT_EQ(to_std_vector(x2), ref) << to_string(m.first);
    // the given storage holds the solver's arrays (it and the solver share the allocation), the small one does not
    EXPECT_GT(storage.use_count(), 1) << to_string(m.first);
    EXPECT_EQ(too_small.use_count(), 1) << to_string(m.first);
    if (m.first == TriSolveKind::Isai) {
      const auto M = given.isai_matrix();
      EXPECT_GE(M.values.data(), storage.data());
      EXPECT_LE(M.values.data() + M.values.extent(0), storage.data() + storage.extent(0));
    }
  }
}

TEST(TEST_CATEGORY, setup_paths_jacobi_probe_in_scratch_equals_its_own_allocation) {
  const auto L = Reference::ic0(lap2d(9));
  const auto Ld = to_device<Dev>(L);
  const auto n = static_cast<std::size_t>(L.nrows);
  for (int k : {0, 1, 3}) {
    const double own = Impl::jacobi_probe<Exec>(Ld.graph.row_map, Ld.graph.entries, Ld.values, L.nrows, true, false, k);
    const V scratch("scratch", 2 * n + 5);
    Kokkos::deep_copy(scratch, std::numeric_limits<double>::quiet_NaN());  // every entry the probe reads it writes
    const double in_scratch =
        Impl::jacobi_probe<Exec>(Ld.graph.row_map, Ld.graph.entries, Ld.values, L.nrows, true, false, k, scratch);
    const double too_small = Impl::jacobi_probe<Exec>(Ld.graph.row_map, Ld.graph.entries, Ld.values, L.nrows, true,
                                                      false, k, V("s", 2 * n - 1));
    EXPECT_EQ(in_scratch, own) << k;
    EXPECT_EQ(too_small, own) << k;
  }
}

TEST(TEST_CATEGORY, setup_paths_transpose_map_with_or_without_the_row_map) {
  const Impl::ScopedDeviceCacheOff cache_off;  // the references counted below are the arrays' users only
  auto Ah = lap2d(5);
  for (std::size_t k = 0; k < Ah.values.size(); ++k) Ah.values[k] = 1.0 + static_cast<double>(k);  // all distinct
  const auto R = Reference::transpose(Ah);
  const auto A = to_device<Dev>(Ah);
  for (const bool packed : {true, false}) {
    const auto t = Impl::transpose_with_map(A, packed);
    Exec().fence();
    const auto h = to_host(t.T);
    EXPECT_EQ(h.row_ptr, R.row_ptr) << packed;
    EXPECT_EQ(h.col_idx, R.col_idx) << packed;
    EXPECT_EQ(h.values, R.values) << packed;
    const auto map = to_std_vector(t.map);
    for (std::size_t p = 0; p < map.size(); ++p) EXPECT_EQ(Ah.values[map[p]], R.values[p]) << p;
    // packed: the map and the row pointers are parts of one allocation (each holds it); else the map is alone
    if (packed) {
      EXPECT_GE(t.map.use_count(), 2);
      EXPECT_EQ(t.map.use_count(), t.T.graph.row_map.use_count());
      EXPECT_GT(t.map.data(), reinterpret_cast<const offset_t*>(t.T.graph.row_map.data()));
    } else {
      EXPECT_EQ(t.map.use_count(), 1);
    }
  }
  const auto T = transpose(A);  // the public transpose drops the map: nothing else holds its row pointers
  EXPECT_EQ(T.graph.row_map.use_count(), 1);
}

// Device allocations by label, counted through Kokkos Tools' allocation callback while one is installed (with the
// cache of device arrays off: an array it hands out again is no allocation).
std::map<std::string, int>& allocations() {
  static std::map<std::string, int> m;
  return m;
}
struct CountAllocations {
  const Impl::ScopedDeviceCacheOff cache_off;
  CountAllocations() {
    allocations().clear();
    Kokkos::Tools::Experimental::set_allocate_data_callback(
        [](auto, const char* label, const void*, std::uint64_t) { ++allocations()[label]; });
  }
  ~CountAllocations() { Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr); }
};

TEST(TEST_CATEGORY, setup_paths_preconditioner_modes_from_one_allocation) {
  // FactorApply sizes one allocation for both solvers from the rule's facts without the probe (no solver and no
  // probe allocates its own); every mode, given or chosen by the rule, applies as the solvers set up on their own
  // do.
  const auto Ah = lap2d(12);
  const auto A = to_device<Dev>(Ah);
  std::vector<double> rh(Ah.nrows);
  for (std::size_t i = 0; i < rh.size(); ++i) rh[i] = std::sin(0.3 * static_cast<double>(i)) + 1.5;
  const V r = to_device<Dev>(rh);
  for (const std::string mode : {"auto", "exact", "jacobi", "jacobi_adaptive", "isai"}) {
    for (const std::string method : {"par_ic", "par_ilu"}) {
      auto P =
          make_preconditioner<double, Dev>(method, A,
                                           parse_parameter_string("mode=deterministic,tri_solve_one_team_entries=0,"
                                                                  "tri_solve=" +
                                                                  mode));
      {
        const CountAllocations count;
        P->compute();
        EXPECT_EQ(allocations()["AsyncSparse::factor_apply::arrays"], 1) << method << " " << mode;
        EXPECT_EQ(allocations()["AsyncSparse::trisolve::arrays"], 0) << method << " " << mode;
        EXPECT_EQ(allocations()["AsyncSparse::trisolve::probe"], 0) << method << " " << mode;
      }
      V z("z", Ah.nrows);
      P->apply(r, z);
      // against the factors applied by two solvers set up separately, in the mode the preconditioner resolved
      auto* pp = dynamic_cast<ParIncompletePreconditioner<double, Dev>*>(P.get());
      ASSERT_NE(pp, nullptr);
      const auto F = par_ilu_factors(Exec(), pp->handle());
      const auto& ls = pp->lower_solve_stats();
      auto o = options(ls.kind, ls.sweeps);
      o.isai_power = ls.isai_power;  // the pattern the rule gave the preconditioner's ISAI
      o.one_team_entries = 0;        // as the preconditioner (its exact solves: the same algorithm)
      TriangularSolver<double, Dev> lower, upper;
      const V s = pp->handle().scaling();
      V inv_s("inv_s", Ah.nrows);
      const auto sh = to_std_vector(s);
      std::vector<double> ih(sh.size());
      for (std::size_t i = 0; i < sh.size(); ++i) ih[i] = 1.0 / sh[i];
      inv_s = to_device<Dev>(ih);
      lower.setup(F.L, true, method == "par_ilu", o, inv_s, V());
      upper.setup(F.U, false, false, o, V(), inv_s);
      V w("w", Ah.nrows), z2("z2", Ah.nrows);
      lower.solve(r, w);
      upper.solve(w, z2);
      EXPECT_EQ(to_std_vector(z), to_std_vector(z2)) << method << " " << mode;
    }
  }
}

// FactorApply reads both Jacobi triangles' checks in one wait (TriangularSolver::defer_verdict): a bad value is
// reported as before, the lower triangle's first when both have one (even at a later row), by setup() and by
// update(); the verdict words are reset, so that good values afterwards load without an error.
TEST(TEST_CATEGORY, factor_apply_checks_both_triangles_in_one_wait) {
  const auto A = lap2d(6);
  const auto Lh = Reference::ic0(A), Uh = Reference::transpose(Lh);
  const auto diag = [](const CsrHost<double>& T, int row) {  // position of T's diagonal entry in `row`
    for (auto k = T.row_ptr[row]; k < T.row_ptr[row + 1]; ++k)
      if (T.col_idx[k] == row) return k;
    return T.row_ptr[row];
  };
  auto bad_L = Lh, bad_U = Uh;
  bad_L.values[diag(Lh, 9)] = 0.0;
  bad_U.values[diag(Uh, 3)] = std::numeric_limits<double>::quiet_NaN();
  TriSolveOptions o;
  o.kind = TriSolveKind::Jacobi;
  o.sweeps = 2;
  o.one_team_entries = 0;  // two solvers' launches on every backend
  const auto row_of = [&](const CsrHost<double>& L, const CsrHost<double>& U, bool update) -> std::int64_t {
    Impl::FactorApply<double, Dev> fa;
    if (update) fa.setup(to_device<Dev>(Lh), to_device<Dev>(Uh), false, V(), o);
    try {
      if (update)
        fa.update(to_device<Dev>(L), to_device<Dev>(U), V());
      else
        fa.setup(to_device<Dev>(L), to_device<Dev>(U), false, V(), o);
    } catch (const BreakdownError& e) {
      // the words were reset: good values load without an error
      if (update) EXPECT_NO_THROW(fa.update(to_device<Dev>(Lh), to_device<Dev>(Uh), V()));
      return e.row();
    }
    return -1;
  };
  for (const bool update : {false, true}) {
    SCOPED_TRACE(update ? "update" : "setup");
    EXPECT_EQ(row_of(bad_L, Uh, update), 9);
    EXPECT_EQ(row_of(Lh, bad_U, update), 3);
    EXPECT_EQ(row_of(bad_L, bad_U, update), 9);  // the lower triangle's problem first
    EXPECT_EQ(row_of(Lh, Uh, update), -1);
  }
  // the deferral itself: setup() returns without the check, take_pending_verdicts reads it (and the solver is not
  // set up after a failed setup), solve() reads a check nobody took
  const auto Ld = to_device<Dev>(Lh), Ud = to_device<Dev>(Uh), bad_Ld = to_device<Dev>(bad_L);
  TriangularSolver<double, Dev> sl, su;
  sl.defer_verdict(true);
  su.defer_verdict(true);
  EXPECT_NO_THROW(sl.setup(bad_Ld, true, false, o));
  su.setup(Ud, false, false, o);
  EXPECT_THROW((TriangularSolver<double, Dev>::take_pending_verdicts(sl, su)), BreakdownError);
  EXPECT_FALSE(sl.is_setup());
  EXPECT_TRUE(su.is_setup());
  EXPECT_NO_THROW(sl.setup(bad_Ld, true, false, o));
  V x("x", A.nrows), y("y", A.nrows);
  EXPECT_THROW(sl.solve(x, y), BreakdownError);
  EXPECT_FALSE(sl.is_setup());
  // good factors: the pair applies as two separate Jacobi solves do
  sl.defer_verdict(false);
  su.defer_verdict(false);
  sl.setup(Ld, true, false, o);
  su.setup(Ud, false, false, o);
  Impl::FactorApply<double, Dev> fa;
  fa.setup(Ld, Ud, false, V(), o);
  EXPECT_EQ(fa.mode(), "jacobi(2)");
  const V b = to_device<Dev>(std::vector<double>(static_cast<std::size_t>(A.nrows), 1.0));
  V z("z", A.nrows), w("w", A.nrows);
  fa.apply(b, z);
  sl.solve(b, w);
  su.solve(w, y);
  EXPECT_EQ(to_std_vector(z), to_std_vector(y));
}

}  // namespace test_setup_paths
