// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Iterative (Chow–Patel) ILU / IC: deterministic mode == serial host reference (bit for bit), convergence of the
// asynchronous sweeps to the exact ILU(0)/IC(0) on the shared SPD matrices, residual functions, pattern reuse,
// breakdown, bad inputs, task-list orderings, and the ParIlu / ParIc preconditioners.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_matrix_market.hpp>
#include <asyncsparse/core/AsyncSparse_rcm.hpp>
#include <asyncsparse/core/AsyncSparse_reference.hpp>
#include <asyncsparse/core/AsyncSparse_scaling.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilu.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>
#include <asyncsparse/solvers/AsyncSparse_cg.hpp>
#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>
#include <support/TestHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <set>
#include <utility>

namespace test_par_ilu {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using Exec = TEST_EXECSPACE;
using Handle = ParIluHandle<double, Dev>;

// A on the pattern S of ILU(k) (zeros at the fill positions), the matrix the reference sweeps take.
CsrHost<double> on_pattern(const CsrHost<double>& A, int k) {
  if (k == 0) return A;
  const auto P = Reference::iluk_pattern(A, k);
  CsrHost<double> S(A.nrows, A.ncols);
  for (int i = 0; i < A.nrows; ++i) {
    for (int p = P.L.row_ptr[i]; p < P.L.row_ptr[i + 1] - 1; ++p) S.col_idx.push_back(P.L.col_idx[p]);
    for (int p = P.U.row_ptr[i]; p < P.U.row_ptr[i + 1]; ++p) S.col_idx.push_back(P.U.col_idx[p]);
    S.row_ptr[i + 1] = static_cast<int>(S.col_idx.size());
  }
  S.values.assign(S.col_idx.size(), 0.0);
  for (int i = 0; i < A.nrows; ++i)
    for (int p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) S.values[find_entry(S, i, A.col_idx[p])] = A.values[p];
  return S;
}

void expect_same_bits(const CsrHost<double>& got, const CsrHost<double>& want, const std::string& what) {
  ASSERT_EQ(got.row_ptr, want.row_ptr) << what;
  ASSERT_EQ(got.col_idx, want.col_idx) << what;
  int mismatches = 0;
  for (std::size_t k = 0; k < want.values.size(); ++k)
    if (got.values[k] != want.values[k] && ++mismatches <= 5)
      ADD_FAILURE() << what << ": entry " << k << " is " << got.values[k] << ", reference " << want.values[k];
  EXPECT_EQ(mismatches, 0) << what;
}

/// Largest entrywise difference of two factors with the same pattern, and the largest magnitude in `want`.
std::pair<double, double> max_difference(const CsrHost<double>& got, const CsrHost<double>& want) {
  EXPECT_EQ(got.col_idx, want.col_idx);
  double err = 0, scale = 0;
  for (std::size_t k = 0; k < want.values.size() && k < got.values.size(); ++k) {
    err = std::max(err, std::abs(got.values[k] - want.values[k]));
    scale = std::max(scale, std::abs(want.values[k]));
  }
  return {err, scale};
}

/// ILU with 10 deterministic (Jacobi-style) sweeps and the nonlinear residual checked after each: the handle whose
/// sweeps diverge on bcsstk14 (par_ilu_divergence_is_reported).
Handle checked_deterministic_ilu() {
  Handle h(ParIluKind::Ilu);
  h.params.mode = SweepMode::Deterministic;
  h.params.sweeps = 10;
  h.params.residual_interval = 1;
  return h;
}

struct Run {
  CsrHost<double> L, U;
  Handle::Stats stats;
};

Run run(const CsrHost<double>& A, ParIluKind kind, int sweeps, SweepMode mode, int fill = 0,
        TaskOrdering ordering = TaskOrdering::RowMajor, LaunchConfig launch = LaunchConfig(),
        MeshBlocking mesh = MeshBlocking(), SweepKernel kernel = SweepKernel::Auto) {
  Handle h(kind);
  h.params.sweep_kernel = kernel;
  h.params.sweeps = sweeps;
  h.params.mode = mode;
  h.params.fill_level = fill;
  h.params.ordering = ordering;
  h.params.ordering_seed = 7;
  h.params.mesh = mesh;
  h.launch = launch;
  const auto Ad = to_device<Dev>(A);
  par_ilu_symbolic(Exec(), h, Ad);
  par_ilu_numeric(Exec(), h, Ad);
  const auto F = par_ilu_factors(Exec(), h);
  return {to_host(F.L), to_host(F.U), h.stats()};
}

CsrHost<double> nonsymmetric(int m) {  // convection–diffusion-like M-matrix
  auto A = lap2d(m);
  for (int i = 0; i < A.nrows; ++i)
    for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      if (A.col_idx[k] == i + 1) A.values[k] = -1.6;
      if (A.col_idx[k] == i - m) A.values[k] = -0.3;
      if (A.col_idx[k] == i) A.values[k] = 4.0 + 0.01 * (i % 5);
    }
  return A;
}

TEST(TEST_CATEGORY, par_ilu_deterministic_equals_host_reference) {
  for (int fill : {0, 1}) {
    for (const auto& A : {nonsymmetric(9), random_diag_dominant(150, 6, 11, false, 1.2)}) {
      const auto As = on_pattern(scale_unit_diagonal(A).A, fill);
      auto F = Impl::reference_ilu_initial_guess(As);
      for (int sweeps = 0; sweeps <= 3; ++sweeps) {
        const auto r = run(A, ParIluKind::Ilu, sweeps, SweepMode::Deterministic, fill);
        const std::string what = "ILU(" + std::to_string(fill) + ") n=" + std::to_string(A.nrows) + ", " +
                                 std::to_string(sweeps) + " sweeps";
        expect_same_bits(r.L, F.L, what + ", L");
        expect_same_bits(r.U, F.U, what + ", U");
        EXPECT_EQ(r.stats.sweeps, sweeps);
        Impl::reference_ilu_jacobi_sweep(As, F);
      }
    }
  }
}

TEST(TEST_CATEGORY, par_ic_deterministic_equals_host_reference) {
  for (int fill : {0, 2}) {
    for (const auto& A : {lap2d(9), trefethen(60), lap3d27(4)}) {
      const auto As = on_pattern(scale_unit_diagonal(A).A, fill);
      auto L = Impl::reference_ic_initial_guess(As);
      for (int sweeps = 0; sweeps <= 3; ++sweeps) {
        const auto r = run(A, ParIluKind::Ic, sweeps, SweepMode::Deterministic, fill);
        expect_same_bits(r.L, L,
                         "IC(" + std::to_string(fill) + ") n=" + std::to_string(A.nrows) + ", " +
                             std::to_string(sweeps) + " sweeps");
        expect_same_bits(r.U, Reference::transpose(L), "IC U = L^T");
        Impl::reference_ic_jacobi_sweep(As, L);
      }
    }
  }
}

// U made by the symbolic phase (ILU: U by rows with its gather map from Ut; IC: Lᵀ read off A's symmetric pattern),
// so that par_ilu_factors only gathers its values; by the general transpose where the host path made the pattern
// (fill). U = transpose of the factor bit for bit, also after a numeric phase on other values of the pattern (the
// same map, the values gathered again).
TEST(TEST_CATEGORY, par_ilu_transposed_factor_from_the_symbolic_phase) {
  for (const ParIluKind kind : {ParIluKind::Ic, ParIluKind::Ilu})
    for (int fill : {0, 1})
      for (const auto& A : {lap2d(9), trefethen(60), lap3d27(4)}) {
        const bool ic = kind == ParIluKind::Ic;
        SCOPED_TRACE(std::string(ic ? "IC" : "ILU") + ", n " + std::to_string(A.nrows) + ", fill " +
                     std::to_string(fill));
        Handle h(kind);
        h.params.fill_level = fill;
        h.params.sweeps = 2;
        const auto Ad = to_device<Dev>(A);
        par_ilu_symbolic(Exec(), h, Ad);
        const auto& st = h.state();
        const auto& map = ic ? st.lt_map : st.u_map;
        // level 0: the device symbolic phase; level 1 adds fill to each of these matrices (the host path)
        EXPECT_EQ(map.extent(0), fill == 0 ? static_cast<std::size_t>(ic ? st.L.nnz() : st.Ut.nnz()) : 0u);
        const auto* map_data = map.data();  // level 0: the symbolic phase's map serves every par_ilu_factors
        par_ilu_numeric(Exec(), h, Ad);
        const auto F = par_ilu_factors(Exec(), h);
        const auto U = to_host(F.U);
        const auto T = ic ? to_host(F.L) : to_host(h.state().Ut);  // IC: U = Lᵀ; ILU: U = (U by columns)ᵀ
        expect_same_bits(U, Reference::transpose(T), "U");
        if (fill == 0) EXPECT_EQ(map.data(), map_data);
        map_data = map.data();
        auto B = A;  // the same pattern, a heavier diagonal: other factors (a multiple of A would scale to the same)
        for (int i = 0; i < B.nrows; ++i)
          for (int k = B.row_ptr[i]; k < B.row_ptr[i + 1]; ++k)
            if (B.col_idx[k] == i) B.values[k] += 1.0;
        const auto Bvals = to_device<Dev>(B).values;
        const Crs<double, Dev> Bd("B", Ad.numRows(), Ad.numCols(), Ad.nnz(), Bvals, Ad.graph.row_map, Ad.graph.entries);
        par_ilu_numeric(Exec(), h, Bd);
        const auto G = par_ilu_factors(Exec(), h);
        const auto UB = to_host(G.U);
        EXPECT_NE(UB.values, U.values);
        expect_same_bits(UB, Reference::transpose(ic ? to_host(G.L) : to_host(h.state().Ut)), "U, new values");
        EXPECT_EQ((ic ? st.lt_map : st.u_map).data(), map_data);  // the pattern's map kept, the values gathered
      }
  // IC: an upper entry without its lower mirror passes the device checks (which look from the lower side) but
  // leaves the pattern unsymmetric: the host path names it
  auto A = lap2d(4);
  CsrHost<double> B;
  B.nrows = B.ncols = A.nrows;
  B.row_ptr.push_back(0);
  for (int i = 0; i < A.nrows; ++i) {
    for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      B.col_idx.push_back(A.col_idx[k]);
      B.values.push_back(A.values[k]);
      if (i == 0 && A.col_idx[k] == 1) {  // a(0, 2), without a(2, 0)
        B.col_idx.push_back(2);
        B.values.push_back(-0.5);
      }
    }
    B.row_ptr.push_back(static_cast<int>(B.col_idx.size()));
  }
  Handle h(ParIluKind::Ic);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_symbolic(Exec(), h, to_device<Dev>(B)), InvalidInput,
                               "matrix is not symmetric: entry (0, 2) is stored but (2, 0) is not");
}

template <class V>
std::vector<typename V::non_const_value_type> host_copy(const V& v) {
  std::vector<typename V::non_const_value_type> out(v.extent(0));
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = m(k);
  return out;
}

// The device symbolic phase (level 0, row-major) builds exactly the State of the host path, and leaves every
// input that fails a check to the host path (which then throws the host path's message).
TEST(TEST_CATEGORY, par_ilu_device_symbolic_equals_host_symbolic) {
  const Exec exec;
  const std::vector<std::pair<ParIluKind, CsrHost<double>>> cases = {
      {ParIluKind::Ilu, nonsymmetric(9)}, {ParIluKind::Ilu, random_diag_dominant(150, 6, 11, false, 1.2)},
      {ParIluKind::Ilu, lap3d27(4)},      {ParIluKind::Ic, lap2d(9)},
      {ParIluKind::Ic, trefethen(60)},    {ParIluKind::Ic, lap3d27(4)},
      {ParIluKind::Ilu, lap2d(1)}};
  for (const auto& c : cases) {
    const auto A = to_device<Dev>(c.second);
    Handle hd(c.first), hh(c.first);
    ASSERT_TRUE(Impl::par_ilu_symbolic_device(exec, hd, A)) << "n=" << c.second.nrows;
    Impl::par_ilu_symbolic_host(exec, hh, A, "par_ilu_symbolic");
    const auto& d = hd.state();
    const auto& h = hh.state();
    const std::string what =
        std::string(c.first == ParIluKind::Ic ? "IC" : "ILU") + " n=" + std::to_string(c.second.nrows);
    EXPECT_EQ(d.identity_tasks, h.identity_tasks) << what;
    EXPECT_EQ(host_copy(d.task_row), host_copy(h.task_row)) << what;
    EXPECT_EQ(host_copy(d.task_col), host_copy(h.task_col)) << what;
    EXPECT_EQ(host_copy(d.task_dst), host_copy(h.task_dst)) << what;
    EXPECT_EQ(host_copy(d.task_src), host_copy(h.task_src)) << what;
    EXPECT_EQ(host_copy(d.sym_lower), host_copy(h.sym_lower)) << what;
    EXPECT_EQ(host_copy(d.sym_upper), host_copy(h.sym_upper)) << what;
    EXPECT_EQ(host_copy(d.L.graph.row_map), host_copy(h.L.graph.row_map)) << what;
    EXPECT_EQ(host_copy(d.L.graph.entries), host_copy(h.L.graph.entries)) << what;
    EXPECT_EQ(host_copy(d.Ut.graph.row_map), host_copy(h.Ut.graph.row_map)) << what;
    EXPECT_EQ(host_copy(d.Ut.graph.entries), host_copy(h.Ut.graph.entries)) << what;
    EXPECT_EQ(d.task_a.extent(0), h.task_a.extent(0)) << what;
    EXPECT_EQ(hd.stats().nnz_L, hh.stats().nnz_L) << what;
    EXPECT_EQ(hd.stats().nnz_U, hh.stats().nnz_U) << what;
    EXPECT_EQ(hd.stats().num_tasks, hh.stats().num_tasks) << what;
  }
  // Inputs the device path refuses (the host path names the problem): missing diagonal, zero diagonal, NaN,
  // unsorted row; for IC a non-symmetric matrix and a non-positive diagonal.
  auto bad = [&](ParIluKind kind, CsrHost<double> B, const std::string& why) {
    Handle h(kind);
    EXPECT_FALSE(Impl::par_ilu_symbolic_device(exec, h, to_device<Dev>(B))) << why;
    EXPECT_FALSE(h.symbolic_done()) << why;
    EXPECT_THROW(par_ilu_symbolic(exec, h, to_device<Dev>(B)), InvalidInput) << why;
  };
  auto B = lap2d(4);
  B.values[find_entry(B, 5, 5)] = 0.0;
  bad(ParIluKind::Ilu, B, "zero diagonal");
  B = lap2d(4);
  B.values[find_entry(B, 6, 7)] = std::numeric_limits<double>::quiet_NaN();
  bad(ParIluKind::Ilu, B, "NaN");
  B = lap2d(4);
  std::swap(B.col_idx[B.row_ptr[3]], B.col_idx[B.row_ptr[3] + 1]);
  bad(ParIluKind::Ilu, B, "unsorted row");
  B = lap2d(4);
  B.col_idx[find_entry(B, 2, 2)] = 3;  // row 2: columns 1, 3, 3, 6 -> duplicate and no diagonal
  bad(ParIluKind::Ilu, B, "missing diagonal");
  B = lap2d(4);
  B.values[find_entry(B, 6, 7)] = -0.5;
  bad(ParIluKind::Ic, B, "not symmetric");
  B = lap2d(4);
  B.values[find_entry(B, 9, 9)] = -4.0;
  bad(ParIluKind::Ic, B, "negative diagonal");
}

TEST(TEST_CATEGORY, par_ilu_deterministic_independent_of_order_and_launch) {
  const auto A = lap2d(12);
  const MeshBlocking mesh{12, 12, 1, 4};
  const auto ref = run(A, ParIluKind::Ic, 4, SweepMode::Deterministic);
  const auto refu = run(nonsymmetric(12), ParIluKind::Ilu, 4, SweepMode::Deterministic);
  std::vector<LaunchConfig> launches(4);
  launches[1].block_order = BlockOrder::Backward;
  launches[2].block_order = BlockOrder::Random;
  launches[2].seed = 3;
  launches[2].chunk_size = 7;
  launches[3].max_concurrent_teams = 2;
  launches[3].team_size = std::min(2, static_cast<int>(Exec().concurrency()));
  for (auto ord : {TaskOrdering::RowMajor, TaskOrdering::Random, TaskOrdering::MeshBlocked})
    for (const auto& lc : launches) {
      const std::string what = std::string(to_string(ord)) + " " + to_string(lc.block_order);
      expect_same_bits(run(A, ParIluKind::Ic, 4, SweepMode::Deterministic, 0, ord, lc, mesh).L, ref.L, what);
      const auto u = run(nonsymmetric(12), ParIluKind::Ilu, 4, SweepMode::Deterministic, 0, ord, lc, mesh);
      expect_same_bits(u.L, refu.L, what + " ILU L");
      expect_same_bits(u.U, refu.U, what + " ILU U");
    }
}

// The launch the sweeps resolve to: on GPUs the sweeps' own default of 16-thread teams (one task per thread, one
// team per chunk), on host backends the row-merge kernel's chunks of about kParIluHostChunkUnknowns unknowns (8x8
// grid: 176 unknowns of L in 64 rows, so 372 rows) handed out dynamically; an explicit team size is kept (and on host
// backends gives the entry kernel, 256 tasks per chunk).
TEST(TEST_CATEGORY, par_ilu_default_launch) {
  const auto A = to_device<Dev>(lap2d(8));
  Handle h(ParIluKind::Ic);
  h.params.sweeps = 1;
  par_ilu_symbolic(Exec(), h, A);
  par_ilu_numeric(Exec(), h, A);
  const auto& d = h.stats().launch;
  const bool gpu = Impl::is_gpu_space<Exec>();
  EXPECT_EQ(h.stats().sweep_kernel, gpu ? SweepKernel::Entry : SweepKernel::RowMerge);
  EXPECT_EQ(d.team_size, gpu ? Impl::kParIluGpuTeamSize : 1);
  EXPECT_EQ(d.vector_length, 1);
  EXPECT_EQ(d.chunk_size, gpu ? Impl::kParIluGpuTeamSize : 372);
  EXPECT_EQ(d.dynamic_schedule, !gpu);  // host backends: chunks to the next free thread
  h.launch.team_size = std::min(2, static_cast<int>(Exec().concurrency()));
  par_ilu_numeric(Exec(), h, A);
  EXPECT_EQ(h.stats().launch.team_size, h.launch.team_size);
  EXPECT_EQ(h.stats().launch.chunk_size, gpu ? h.launch.team_size : 256);
}

// The row kernel (SweepKernel::Row), the list kernel (SweepKernel::List) and the row-merge kernel
// (SweepKernel::RowMerge, one lane). With one lane per row / unknown their deterministic sweeps are the host reference
// bit for bit (the entry kernel's merge order); with 4 lanes the vector reduction adds the products in another order,
// so the factors agree within rounding. ILU(k) / IC(k) patterns with fill included.
TEST(TEST_CATEGORY, par_ilu_row_and_list_kernels_deterministic_equal_host_reference) {
  auto close = [](const CsrHost<double>& got, const CsrHost<double>& want, const std::string& what) {
    const auto d = max_difference(got, want);
    EXPECT_LE(d.first, 1e-13 * d.second) << what;
  };
  for (auto kernel : {SweepKernel::Row, SweepKernel::List, SweepKernel::RowMerge})
    for (int lanes : {1, 4}) {
      LaunchConfig lc;
      lc.vector_length = lanes;
      // the row-merge kernel: one lane per row (refused otherwise, see below); "4 lanes" runs it with two threads per
      // team where the backend has them (host backends then call it per unit instead of per pass)
      if (kernel == SweepKernel::RowMerge && lanes > 1) {
        if (Exec().concurrency() < 2) continue;
        lc.vector_length = 1;
        lc.team_size = 2;
      }
      const std::string l = kernel == SweepKernel::RowMerge && lanes > 1 ? ", 2 threads per team"
                                                                         : ", " + std::to_string(lanes) + " lane(s)";
      const std::string kn = std::string(to_string(kernel)) + " kernel";
      for (int fill : {0, 2}) {
        for (const auto& A : {lap2d(9), trefethen(60), lap3d27(4)}) {
          const auto As = on_pattern(scale_unit_diagonal(A).A, fill);
          auto L = Impl::reference_ic_initial_guess(As);
          for (int sweeps = 0; sweeps <= 3; ++sweeps) {
            const auto r = run(A, ParIluKind::Ic, sweeps, SweepMode::Deterministic, fill, TaskOrdering::RowMajor, lc,
                               MeshBlocking(), kernel);
            ASSERT_EQ(r.stats.sweep_kernel, kernel);
            const std::string what = kn + " IC(" + std::to_string(fill) + ") n=" + std::to_string(A.nrows) + ", " +
                                     std::to_string(sweeps) + " sweeps" + l;
            if (lanes == 1 || kernel == SweepKernel::RowMerge)
              expect_same_bits(r.L, L, what);
            else
              close(r.L, L, what);
            Impl::reference_ic_jacobi_sweep(As, L);
          }
        }
      }
      for (int fill : {0, 1}) {
        for (const auto& A : {nonsymmetric(9), random_diag_dominant(150, 6, 11, false, 1.2)}) {
          const auto As = on_pattern(scale_unit_diagonal(A).A, fill);
          auto F = Impl::reference_ilu_initial_guess(As);
          for (int sweeps = 0; sweeps <= 3; ++sweeps) {
            const auto r = run(A, ParIluKind::Ilu, sweeps, SweepMode::Deterministic, fill, TaskOrdering::RowMajor, lc,
                               MeshBlocking(), kernel);
            ASSERT_EQ(r.stats.sweep_kernel, kernel);
            const std::string what = kn + " ILU(" + std::to_string(fill) + ") n=" + std::to_string(A.nrows) + ", " +
                                     std::to_string(sweeps) + " sweeps" + l;
            if (lanes == 1 || kernel == SweepKernel::RowMerge) {
              expect_same_bits(r.L, F.L, what + ", L");
              expect_same_bits(r.U, F.U, what + ", U");
            } else {
              close(r.L, F.L, what + ", L");
              close(r.U, F.U, what + ", U");
            }
            Impl::reference_ilu_jacobi_sweep(As, F);
          }
        }
      }
    }
}

// Products in the lists of the list and row kernels, counted on the pattern S of A: for each unknown (i, j) of S (IC: i
// > j only; its diagonal sums its row's squares without a list) the k < min(i, j) with (i, k) and (k, j) in S.
std::int64_t host_products(const CsrHost<double>& A, bool ic) {
  std::int64_t count = 0;
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const ordinal_t j = A.col_idx[p];
      if (ic && j >= i) continue;
      for (offset_t q = A.row_ptr[i]; q < A.row_ptr[i + 1] && A.col_idx[q] < std::min(i, j); ++q)
        if (find_entry(A, A.col_idx[q], j) >= 0) ++count;
    }
  return count;
}

// The row, list and row-merge kernels give the reference's bits with a random task ordering too (the row kernels do
// not use the task-list order; the deterministic sweeps do not depend on it), keep their product lists (the row-merge
// kernel has none) for new values of the same pattern and rebuild them for a new pattern: one handle through
// numeric(A1), numeric(A2) (same pattern, other values) and symbolic + numeric(B) equals fresh handles bit for bit.
TEST(TEST_CATEGORY, par_ilu_row_and_list_kernels_orderings_values_and_patterns) {
  for (auto kernel : {SweepKernel::Row, SweepKernel::List, SweepKernel::RowMerge})
    for (auto kind : {ParIluKind::Ic, ParIluKind::Ilu}) {
      const bool ic = kind == ParIluKind::Ic;
      const auto A1 = ic ? lap3d27(4) : nonsymmetric(9);
      auto A2 = A1;
      for (ordinal_t i = 0; i < A2.nrows; ++i)
        for (offset_t p = A2.row_ptr[i]; p < A2.row_ptr[i + 1]; ++p)
          if (A2.col_idx[p] != i) A2.values[p] *= 0.5;
      const auto B = ic ? lap2d(8) : random_diag_dominant(60, 5, 3, false, 1.2);
      const std::string k = std::string(to_string(kernel)) + " kernel, " + to_string(kind);
      auto fresh = [&](const CsrHost<double>& M, TaskOrdering ord) {
        return run(M, kind, 3, SweepMode::Deterministic, 0, ord, LaunchConfig(), MeshBlocking(), kernel);
      };
      const auto ref = fresh(A1, TaskOrdering::RowMajor);
      const auto rnd = fresh(A1, TaskOrdering::Random);
      EXPECT_EQ(rnd.stats.sweep_kernel, kernel);
      expect_same_bits(rnd.L, ref.L, k + " random ordering, L");
      expect_same_bits(rnd.U, ref.U, k + " random ordering, U");
      Handle h(kind);
      h.params.sweeps = 3;
      h.params.mode = SweepMode::Deterministic;
      h.params.sweep_kernel = kernel;
      auto factors = [&](const CsrHost<double>& M, bool symbolic) {
        const auto Md = to_device<Dev>(M);
        if (symbolic) par_ilu_symbolic(Exec(), h, Md);
        par_ilu_numeric(Exec(), h, Md);
        const auto F = par_ilu_factors(Exec(), h);
        return test_par_ilu::Run{to_host(F.L), to_host(F.U), h.stats()};
      };
      const auto r1 = factors(A1, true);
      expect_same_bits(r1.L, ref.L, k + " A1");
      EXPECT_EQ(r1.stats.sweep_products, kernel == SweepKernel::RowMerge ? 0 : host_products(A1, ic)) << k;
      const auto r2 = factors(A2, false);
      const auto ref2 = fresh(A2, TaskOrdering::RowMajor);
      expect_same_bits(r2.L, ref2.L, k + " A2 after A1, L");
      expect_same_bits(r2.U, ref2.U, k + " A2 after A1, U");
      EXPECT_EQ(r2.stats.sweep_products, r1.stats.sweep_products);
      const auto r3 = factors(B, true);
      const auto ref3 = fresh(B, TaskOrdering::RowMajor);
      expect_same_bits(r3.L, ref3.L, k + " B after A2, L");
      expect_same_bits(r3.U, ref3.U, k + " B after A2, U");
      EXPECT_EQ(r3.stats.sweep_products, ref3.stats.sweep_products);
    }
}

// The asynchronous row, list and row-merge kernels reach the exact IC(0) / ILU(0) (every backend; GPUs at their
// default lanes).
TEST(TEST_CATEGORY, par_ilu_row_and_list_kernels_async_converge_to_exact_factors) {
  const std::vector<std::pair<ParIluKind, CsrHost<double>>> cases = {
      {ParIluKind::Ic, lap3d27(8)},
      {ParIluKind::Ic, lap2d(20)},
      {ParIluKind::Ilu, nonsymmetric(20)},
      {ParIluKind::Ilu, random_diag_dominant(400, 7, 5, false, 1.1)},
      {ParIluKind::Ilu, lap3d27(8)}};
  for (auto kernel : {SweepKernel::Row, SweepKernel::List, SweepKernel::RowMerge})
    for (const auto& [kind, A] : cases) {
      const bool ic = kind == ParIluKind::Ic;
      const std::string what =
          std::string(to_string(kernel)) + " kernel, " + (ic ? "IC" : "ILU") + " n=" + std::to_string(A.nrows);
      Handle h(kind);
      h.params.sweep_kernel = kernel;
      h.params.sweeps = 300;
      h.params.tolerance = 1e-12;
      const auto Ad = to_device<Dev>(A);
      par_ilu_symbolic(Exec(), h, Ad);
      par_ilu_numeric(Exec(), h, Ad);
      EXPECT_EQ(h.stats().sweep_kernel, kernel) << what;
      // the 27-point grid's lists (IC 2.8, ILU 3.3 products per unknown) take the grouped loads on GPUs
      if (kernel == SweepKernel::List && A.nrows == 512)
        EXPECT_EQ(h.stats().sweep_gather_group, Impl::is_gpu_space<Exec>() ? 4 : 1) << what;
      EXPECT_TRUE(h.stats().converged) << what;
      const auto F = par_ilu_unscaled_factors(Exec(), h);
      const auto R = ic ? Reference::IluFactors{Reference::ic0(A), CsrHost<double>()} : Reference::ilu0(A);
      EXPECT_LE(max_difference(to_host(F.L), R.L).first, 1e-9) << what << ", L";
      if (!ic) EXPECT_LE(max_difference(to_host(F.U), R.U).first, 1e-9) << what << ", U";
    }
}

// list_sub and squares_sub with Group = 4 (GPU code: the positions and values of four products loaded before they
// are summed) give the bits of Group = 1 (one product at a time) on product lists of 0-9 products and stretches of
// 0-9 entries; on host backends both are the one-at-a-time loop.
void run_grouped_sums(Kokkos::View<offset_t*, Dev> ptr, Kokkos::View<offset_t*, Dev> px,
                      Kokkos::View<offset_t*, Dev> py, Kokkos::View<double*, Dev> x, Kokkos::View<double*, Dev> y,
                      Kokkos::View<double* [4], Dev> out) {
  using policy = Kokkos::TeamPolicy<Exec>;
  const std::int64_t units = out.extent(0);
  Kokkos::parallel_for(
      "grouped_sums", policy(static_cast<int>(units), 1), KOKKOS_LAMBDA(const policy::member_type& team) {
        const std::int64_t u = team.league_rank();
        out(u, 0) = Impl::list_sub<false, false, 1>(team, 1, 1.0, ptr, px, py, u, x.data(), y.data());
        out(u, 1) = Impl::list_sub<false, false, 4>(team, 1, 1.0, ptr, px, py, u, x.data(), y.data());
        out(u, 2) = Impl::squares_sub<false, false, 1>(team, 1, 1.0, x.data(), ptr(u), ptr(u + 1));
        out(u, 3) = Impl::squares_sub<false, false, 4>(team, 1, 1.0, x.data(), ptr(u), ptr(u + 1));
      });
}

TEST(TEST_CATEGORY, par_ilu_grouped_list_loads_keep_the_sums) {
  const std::int64_t units = 200, m = 1000;
  std::vector<offset_t> ptr(units + 1, 0);
  for (std::int64_t u = 0; u < units; ++u) ptr[u + 1] = ptr[u] + static_cast<offset_t>((u * 7) % 10);
  std::vector<offset_t> px(ptr[units]), py(ptr[units]);
  std::vector<double> x(m), y(m);
  std::uint64_t state = 12345;
  auto next = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 11;
  };
  for (std::size_t k = 0; k < px.size(); ++k) {
    px[k] = static_cast<offset_t>(next() % m);
    py[k] = static_cast<offset_t>(next() % m);
  }
  for (std::int64_t k = 0; k < m; ++k) {
    x[k] = static_cast<double>(next() % 1000000) * 1e-6 - 0.5;
    y[k] = static_cast<double>(next() % 1000000) * 1e-6 - 0.5;
  }
  Kokkos::View<double* [4], Dev> out("out", units);
  run_grouped_sums(to_device<Dev>(ptr), to_device<Dev>(px), to_device<Dev>(py), to_device<Dev>(x), to_device<Dev>(y),
                   out);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  int nonzero = 0;
  for (std::int64_t u = 0; u < units; ++u) {
    EXPECT_EQ(h(u, 1), h(u, 0)) << "list, unit " << u << " (" << ptr[u + 1] - ptr[u] << " products)";
    EXPECT_EQ(h(u, 3), h(u, 2)) << "squares, unit " << u;
    nonzero += h(u, 0) != 1.0;
  }
  EXPECT_GT(nonzero, units / 2);  // the sums are not empty
}

// The row-merge kernel carries the pivot of the row it has just finished in a register (host backends: ChunkedLaunch
// hands it each pass over a chunk through run_sequence) and sums an IC diagonal's squares from the values it has just
// computed. Every carried value is the one in memory, so with one thread (which runs the passes in order) its
// asynchronous sweeps are bit for bit those of the row kernel with one lane — the same updates of the same rows in the
// same order, the pivots read from memory, the sums over product lists in the merge's order — for IC and ILU (whose
// carried pivot is u_jj, the end of row j of Ut), with unit strides 1, 2 and 3 (the passes of run_sequence; out of
// row order, so several sweeps differ from the fixed point) and chunks of the row-merge kernel's default size and of 7
// rows, after each of 1..3 sweeps; and with unit stride 1 also those of the entry kernel (its tasks in the same order).
TEST(TEST_CATEGORY, par_ilu_row_merge_async_one_thread_equals_row_kernel) {
  if (Exec().concurrency() != 1) GTEST_SKIP() << "needs one thread (the order of the asynchronous updates)";
  const std::vector<std::pair<ParIluKind, CsrHost<double>>> cases = {{ParIluKind::Ic, lap2d(13)},
                                                                     {ParIluKind::Ic, lap3d27(5)},
                                                                     {ParIluKind::Ilu, nonsymmetric(12)},
                                                                     {ParIluKind::Ilu, lap3d27(5)}};
  for (const auto& [kind, A] : cases)
    for (int stride : {1, 2, 3})
      for (int chunk : {-1, 7})
        for (int sweeps = 1; sweeps <= 3; ++sweeps) {
          LaunchConfig lc;
          lc.chunk_size = chunk;
          lc.unit_stride = stride;
          const auto merge = run(A, kind, sweeps, SweepMode::Async, 0, TaskOrdering::RowMajor, lc, MeshBlocking(),
                                 SweepKernel::RowMerge);
          LaunchConfig lr = lc;  // the same chunks of rows (the kernels' default chunk sizes differ)
          lr.chunk_size = merge.stats.launch.chunk_size;
          const auto row =
              run(A, kind, sweeps, SweepMode::Async, 0, TaskOrdering::RowMajor, lr, MeshBlocking(), SweepKernel::Row);
          ASSERT_EQ(merge.stats.sweep_kernel, SweepKernel::RowMerge);
          ASSERT_EQ(row.stats.launch.vector_length, 1);
          const std::string what = std::string(to_string(kind)) + " n=" + std::to_string(A.nrows) + ", stride " +
                                   std::to_string(stride) + ", chunk " + std::to_string(chunk) + ", " +
                                   std::to_string(sweeps) + " sweeps";
          expect_same_bits(merge.L, row.L, what + ", L");
          expect_same_bits(merge.U, row.U, what + ", U");
          if (stride == 1 && kind == ParIluKind::Ic) {
            const auto entry = run(A, kind, sweeps, SweepMode::Async, 0, TaskOrdering::RowMajor, LaunchConfig(),
                                   MeshBlocking(), SweepKernel::Entry);
            expect_same_bits(merge.L, entry.L, what + ", against the entry kernel");
          }
        }
}

// The list and row kernels read their product lists (a check that would fail if either ran the entry kernel's merge
// instead): one deterministic sweep after the lists were emptied (every pair_ptr 0: no products) differs from one
// with the lists intact, which equals the host reference's sweep.
TEST(TEST_CATEGORY, par_ilu_list_and_row_kernels_read_their_lists) {
  for (auto kernel : {SweepKernel::List, SweepKernel::Row}) {
    for (auto kind : {ParIluKind::Ic, ParIluKind::Ilu}) {
      const auto A = kind == ParIluKind::Ic ? lap3d27(4) : nonsymmetric(9);
      const std::string what = std::string(to_string(kernel)) + " kernel, " + to_string(kind);
      auto one_more_sweep = [&](bool empty_lists) {
        Handle h(kind);
        h.params.sweeps = 1;
        h.params.mode = SweepMode::Deterministic;
        h.params.sweep_kernel = kernel;
        const auto Ad = to_device<Dev>(A);
        par_ilu_symbolic(Exec(), h, Ad);
        par_ilu_numeric(Exec(), h, Ad);
        EXPECT_EQ(h.stats().sweep_kernel, kernel) << what;
        EXPECT_GT(h.stats().sweep_products, 0) << what;
        if (empty_lists) Kokkos::deep_copy(h.state().pair_ptr, offset_t(0));
        par_ilu_sweep(Exec(), h, 1);
        const auto F = par_ilu_factors(Exec(), h);
        return test_par_ilu::Run{to_host(F.L), to_host(F.U), h.stats()};
      };
      const auto intact = one_more_sweep(false);
      const auto emptied = one_more_sweep(true);
      // IC: the off-diagonal entries of L lose their products; ILU (5-point): the diagonal of U loses them
      const double change = std::max(max_difference(emptied.L, intact.L).first,
                                     kind == ParIluKind::Ic ? 0.0 : max_difference(emptied.U, intact.U).first);
      EXPECT_GT(change, 1e-6) << what;
      const auto ref = run(A, kind, 2, SweepMode::Deterministic, 0, TaskOrdering::RowMajor, LaunchConfig(),
                           MeshBlocking(), SweepKernel::Entry);
      expect_same_bits(intact.L, ref.L, what + ", L");
      expect_same_bits(intact.U, ref.U, what + ", U");
    }
  }
}

// The asynchronous list kernel with 4 lanes per unknown (vector reduction of each product list) reaches the exact
// IC(0) / ILU(0) too.
TEST(TEST_CATEGORY, par_ilu_list_kernel_lanes_converge_to_exact_factors) {
  for (auto kind : {ParIluKind::Ic, ParIluKind::Ilu}) {
    const bool ic = kind == ParIluKind::Ic;
    const auto A = ic ? lap3d27(8) : random_diag_dominant(400, 7, 5, false, 1.1);
    Handle h(kind);
    h.params.sweep_kernel = SweepKernel::List;
    h.params.sweeps = 300;
    h.params.tolerance = 1e-12;
    h.launch.vector_length = 4;
    const auto Ad = to_device<Dev>(A);
    par_ilu_symbolic(Exec(), h, Ad);
    par_ilu_numeric(Exec(), h, Ad);
    EXPECT_EQ(h.stats().launch.vector_length, 4);
    EXPECT_TRUE(h.stats().converged) << to_string(kind);
    const auto F = par_ilu_unscaled_factors(Exec(), h);
    const auto R = ic ? Reference::IluFactors{Reference::ic0(A), CsrHost<double>()} : Reference::ilu0(A);
    EXPECT_LE(max_difference(to_host(F.L), R.L).first, 1e-9) << to_string(kind) << ", L";
    if (!ic) EXPECT_LE(max_difference(to_host(F.U), R.U).first, 1e-9) << "ILU, U";
  }
}

/// With `kernel` in `mode`, the numeric phase reports the breakdown at row 1 of a matrix made for it (IC(0): the
/// non-positive pivot l_11^2 = 1 - 2^2; ILU(0) of the singular [[1, 1], [1, 1]]: the zero pivot u_11), and the factors
/// stay finite.
void expect_breakdown_at_row_1(SweepKernel kernel, SweepMode mode) {
  const auto A = csr_from_triplets<double>(3, 3, {0, 0, 1, 1, 1, 2, 2}, {0, 1, 0, 1, 2, 1, 2},
                                           {1.0, 2.0, 2.0, 1.0, 0.5, 0.5, 1.0});
  const auto B = csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1.0, 1.0, 1.0, 1.0});
  for (auto kind : {ParIluKind::Ic, ParIluKind::Ilu}) {
    const bool ic = kind == ParIluKind::Ic;
    Handle h(kind);
    h.params.mode = mode;
    h.params.sweep_kernel = kernel;
    const auto Md = to_device<Dev>(ic ? A : B);
    par_ilu_symbolic(Exec(), h, Md);
    ASYNCSPARSE_EXPECT_THROW_MSG(
        par_ilu_numeric(Exec(), h, Md), BreakdownError,
        ic ? "par_ic: breakdown at row 1: non-positive pivot" : "par_ilu: breakdown at row 1: zero pivot");
    for (double v : to_host(ic ? h.L() : h.U_columns()).values) EXPECT_TRUE(std::isfinite(v)) << to_string(kernel);
  }
}

// The rule behind SweepKernel::Auto and the launches of the row and list kernels; their refusals and breakdown
// reports.
TEST(TEST_CATEGORY, par_ilu_sweep_kernel_rule_and_errors) {
  // the lanes rule at the measured cases (H100: 270,336 resident threads): 5-point 1024^2 -> 1, 27-point 64^3 -> 4,
  // bcsstk16 -> 32; never above the power of two >= the row length
  EXPECT_EQ(Impl::row_sweep_lanes(1048576, 3.0, 270336), 1);
  EXPECT_EQ(Impl::row_sweep_lanes(262144, 13.6, 270336), 4);
  EXPECT_EQ(Impl::row_sweep_lanes(4884, 30.2, 270336), 32);
  EXPECT_EQ(Impl::row_sweep_lanes(4884, 3.0, 270336), 4);
  EXPECT_EQ(Impl::pow2_at_least(0.0), 1);
  EXPECT_EQ(Impl::pow2_at_least(1000.0), 32);
  // the list kernel's loads per group on GPUs: 4 from 2 products per unknown (27-point 64^3 IC: 3.1), else 1
  // (5-point ILU lists: about 0.5); 1 on host backends
  EXPECT_EQ(Impl::list_gather_group(11049696, 3560572, true), 4);
  EXPECT_EQ(Impl::list_gather_group(11049696, 3560572, false), 1);
  EXPECT_EQ(Impl::list_gather_group(200, 100, true), 4);
  EXPECT_EQ(Impl::list_gather_group(199, 100, true), 1);
  EXPECT_EQ(Impl::list_gather_group(0, 0, true), 1);
  // The rule itself at the measured cases (270,336 resident threads on an H100 and an H200; rows, tasks, entries per
  // row, IC or ILU): 5-point 1024^2 -> row_merge (reordered tasks: list), 27-point 64^3 -> list, bcsstk16 IC -> list
  // (147,631 tasks x 30.2 entries per row), ILU -> list (290,378 tasks); host backends -> row_merge for row-major
  // tasks, else entry; explicit launches -> entry; the bounds of each branch.
  using Impl::auto_sweep_kernel;
  const std::int64_t h100 = 270336;
  const bool ic = true, ilu = false;
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 1048576, 3143680, 3.0, h100, ic), SweepKernel::RowMerge);
  EXPECT_EQ(auto_sweep_kernel(true, true, false, 1048576, 3143680, 3.0, h100, ic), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 262144, 3560572, 13.6, h100, ic), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 4884, 147631, 30.2, h100, ic), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 4884, 290378, 30.2, h100, ilu), SweepKernel::List);
  // IC's list from 1.5 tasks per resident thread or from 15 x the resident threads in tasks x entries per row
  // (27-point 28^3: 286,660 tasks x 13.1 -> entry; 30^3: 354,236 x 13.1 -> list; 32^3: 431,676 x 13.2 -> list;
  // bcsstk14: 32,630 x 18.1 -> entry), ILU's from 1 task per resident thread (27-point 24^3: 343,000 -> list)
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 21952, 286660, 13.1, h100, ic), SweepKernel::Entry);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 27000, 354236, 13.1, h100, ic), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 32768, 431676, 13.2, h100, ic), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 1806, 32630, 18.1, h100, ic), SweepKernel::Entry);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 13824, 343000, 13.0, h100, ilu), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 1000, 3 * h100 / 2, 2.0, h100, ic), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 1000, 3 * h100 / 2 - 1, 2.0, h100, ic), SweepKernel::Entry);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 1000, h100 / 2, 30.0, h100, ic), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 1000, h100 / 2 - 1, 30.0, h100, ic), SweepKernel::Entry);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 1000, h100, 13.0, h100, ilu), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(false, true, true, 1048576, 3143680, 3.0, 2, ic), SweepKernel::RowMerge);
  EXPECT_EQ(auto_sweep_kernel(false, true, false, 1048576, 3143680, 3.0, 2, ic), SweepKernel::Entry);
  EXPECT_EQ(auto_sweep_kernel(false, false, true, 1048576, 3143680, 3.0, 2, ic), SweepKernel::Entry);
  EXPECT_EQ(auto_sweep_kernel(true, false, true, 1048576, 3143680, 3.0, h100, ic), SweepKernel::Entry);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 3 * h100, 3 * h100, Impl::kParIluRowMaxAvgRow, h100, ic),
            SweepKernel::RowMerge);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 3 * h100 - 1, 3 * h100, 3.0, h100, ic), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 3 * h100, 3 * h100, Impl::kParIluRowMaxAvgRow + 0.01, h100, ic),
            SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 1000, h100 - 1, 30.0, h100, ilu), SweepKernel::Entry);
  // The row-team kernel for the first numeric phase on a pattern (first_phase: asynchronous, no product lists yet),
  // row-major tasks, in place of the list kernel: 27-point 64^3 IC (3,560,572 tasks: 13.2 per resident thread) and
  // ILU (6,859,000: 25.4); 27-point 32^3 IC (1.60); 5-point 400^2 IC (479,200 tasks, 3 entries per row); not ILU
  // there (rows of the 5-point stencil), not bcsstk16 (IC 0.55 tasks per thread: the list kernel by its merge work;
  // ILU 1.07), not the 27-point 30^3 grid's IC (1.31), not for reordered tasks, not in a later numeric phase; the 5-
  // point 1024^2 grid keeps the row-merge kernel; the bounds of tasks and rows.
  const bool first = true;
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 262144, 3560572, 13.6, h100, ic, first), SweepKernel::RowTeam);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 262144, 6859000, 13.6, h100, ilu, first), SweepKernel::RowTeam);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 32768, 431676, 13.2, h100, ic, first), SweepKernel::RowTeam);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 160000, 479200, 3.0, h100, ic, first), SweepKernel::RowTeam);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 160000, 798400, 3.0, h100, ilu, first), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 4884, 147631, 30.2, h100, ic, first), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 4884, 290378, 30.2, h100, ilu, first), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 27000, 354236, 13.1, h100, ic, first), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, false, 262144, 3560572, 13.6, h100, ic, first), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 262144, 3560572, 13.6, h100, ic, false), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, 1048576, 3143680, 3.0, h100, ic, first), SweepKernel::RowMerge);
  EXPECT_EQ(auto_sweep_kernel(true, false, true, 262144, 3560572, 13.6, h100, ic, first), SweepKernel::Entry);
  EXPECT_EQ(auto_sweep_kernel(false, true, true, 262144, 3560572, 13.6, 2, ic, first), SweepKernel::RowMerge);
  const std::int64_t min_rows = static_cast<std::int64_t>(
      std::ceil(Impl::kParIluRowTeamMinRowThreads * double(h100) / Impl::kParIluRowTeamGpuThreadsPerRow));
  EXPECT_EQ(auto_sweep_kernel(true, true, true, min_rows, 3 * h100 / 2, 12.0, h100, ic, first), SweepKernel::RowTeam);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, min_rows - 1, 3 * h100 / 2, 12.0, h100, ic, first), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, min_rows, 3 * h100 / 2 - 1, 12.0, h100, ic, first), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, min_rows, 4 * h100, 3.6, h100, ilu, first), SweepKernel::RowTeam);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, min_rows, 4 * h100 - 1, 3.6, h100, ilu, first), SweepKernel::List);
  EXPECT_EQ(auto_sweep_kernel(true, true, true, min_rows, 4 * h100, Impl::kParIluRowTeamMaxAvgRowIlu, h100, ilu, first),
            SweepKernel::List);
  const bool gpu = Impl::is_gpu_space<Exec>();
  const std::int64_t concurrency = Exec().concurrency();
  // Auto through par_ilu_numeric: on a small 5-point grid (IC and ILU, both task orderings, both modes, default and
  // explicit launch) the entry kernel on GPUs, and on host backends the row-merge kernel for row-major tasks with the
  // default launch, else the entry kernel; on GPUs also a 5-point grid just large enough for a row kernel (rows >=
  // 3x the resident threads, 3 entries per row of L): row_merge for row-major tasks, list for reordered ones.
  auto check = [&](const CsrHost<double>& A, ParIluKind kind, TaskOrdering ord, SweepMode mode, bool explicit_launch,
                   SweepKernel want) {
    Handle h(kind);
    h.params.sweeps = 1;
    h.params.ordering = ord;
    h.params.mode = mode;
    if (explicit_launch) h.launch.chunk_size = 64;
    const auto Ad = to_device<Dev>(A);
    par_ilu_symbolic(Exec(), h, Ad);
    par_ilu_numeric(Exec(), h, Ad);
    const std::string what = "n=" + std::to_string(A.nrows) + " " + to_string(kind) + " " + to_string(ord) + " " +
                             to_string(mode) + (explicit_launch ? " explicit launch" : "");
    EXPECT_EQ(h.stats().sweep_kernel, want) << what << ": " << h.stats().sweep_kernel_rule;
    EXPECT_NE(h.stats().sweep_kernel_rule.find("auto:"), std::string::npos) << what;
    const bool rows = sweeps_by_rows(want);
    EXPECT_EQ(h.stats().launch.work_items, rows ? std::int64_t(A.nrows) : h.stats().num_tasks) << what;
    if (want == SweepKernel::RowMerge && !gpu)  // about kParIluHostChunkUnknowns unknowns per chunk of rows
      EXPECT_EQ(h.stats().launch.chunk_size,
                static_cast<int>(std::round(Impl::kParIluHostChunkUnknowns * A.nrows / h.stats().num_tasks)))
          << what;
    if (rows && gpu)  // one lane per row (the row kernel: lanes by the rule, 1 here), kParIluRowGpuTeamThreads per team
      EXPECT_EQ(h.stats().launch.team_size * h.stats().launch.vector_length, Impl::kParIluRowGpuTeamThreads) << what;
    if (want == SweepKernel::List) {
      EXPECT_EQ(h.stats().launch.team_size, Impl::kParIluListGpuTeamThreads) << what;
      EXPECT_EQ(h.stats().launch.vector_length, 1) << what;
      EXPECT_EQ(h.stats().sweep_products, host_products(A, kind == ParIluKind::Ic)) << what;
    }
  };
  for (auto kind : {ParIluKind::Ic, ParIluKind::Ilu})
    for (auto ord : {TaskOrdering::RowMajor, TaskOrdering::Random})
      for (auto mode : {SweepMode::Async, SweepMode::Deterministic})
        for (bool explicit_launch : {false, true})
          check(lap2d(4), kind, ord, mode, explicit_launch,
                !gpu && ord == TaskOrdering::RowMajor && !explicit_launch ? SweepKernel::RowMerge : SweepKernel::Entry);
  if (gpu) {
    const auto A = lap2d(static_cast<ordinal_t>(std::ceil(std::sqrt(3.0 * double(concurrency)))) + 1);
    for (auto kind : {ParIluKind::Ic, ParIluKind::Ilu}) {
      check(A, kind, TaskOrdering::RowMajor, SweepMode::Async, false, SweepKernel::RowMerge);
      check(A, kind, TaskOrdering::Random, SweepMode::Async, false, SweepKernel::List);
      check(A, kind, TaskOrdering::RowMajor, SweepMode::Async, true, SweepKernel::Entry);
    }
    // The row-team kernel for the first numeric phase of a 5-point grid with IC tasks for it (3 per row, 1.5x the
    // resident threads, fewer rows than the row-merge kernel's 3x), the list kernel for the next two on the same
    // pattern; the same after a new symbolic phase; the deterministic mode takes the list kernel at once. Each
    // phase converges to IC(0)'s factors.
    {
      const auto G = lap2d(static_cast<ordinal_t>(std::ceil(std::sqrt(0.55 * double(concurrency)))));
      const auto Gd = to_device<Dev>(G);
      const auto exact = Reference::ic0(G);
      for (auto mode : {SweepMode::Async, SweepMode::Deterministic}) {
        Handle h(ParIluKind::Ic);
        h.params.mode = mode;
        h.params.sweeps = 300;
        h.params.tolerance = 1e-10;
        for (int symbolic = 0; symbolic < 2; ++symbolic) {
          par_ilu_symbolic(Exec(), h, Gd);
          for (int phase = 0; phase < 3; ++phase) {
            par_ilu_numeric(Exec(), h, Gd);
            const bool team = mode == SweepMode::Async && phase == 0;
            const std::string what = std::string(to_string(mode)) + " phase " + std::to_string(phase);
            EXPECT_EQ(h.stats().sweep_kernel, team ? SweepKernel::RowTeam : SweepKernel::List)
                << what << ": " << h.stats().sweep_kernel_rule;
            const char* phase_text = team                       ? "the first numeric phase"
                                     : mode == SweepMode::Async ? "a later numeric phase"
                                                                : "a deterministic numeric phase";
            EXPECT_NE(h.stats().sweep_kernel_rule.find(phase_text), std::string::npos) << h.stats().sweep_kernel_rule;
            EXPECT_TRUE(h.stats().converged) << what;
            const auto d = max_difference(to_host(par_ilu_unscaled_factors(Exec(), h).L), exact);
            EXPECT_LE(d.first, 1e-7 * d.second) << what;
          }
        }
      }
    }
    // ... but not where the rows do not fit the row-team kernel's team memory: the same grid with a dense last row
    // and column (an arrow) takes the list kernel, and the record says why
    {
      const auto G = lap2d(static_cast<ordinal_t>(std::ceil(std::sqrt(0.55 * double(concurrency)))));
      const ordinal_t n = G.nrows;
      std::vector<ordinal_t> r, c;
      std::vector<double> v;
      for (ordinal_t i = 0; i < n; ++i)
        for (offset_t p = G.row_ptr[i]; p < G.row_ptr[i + 1]; ++p) {
          const ordinal_t j = G.col_idx[p];
          if (i == n - 1 || j == n - 1) continue;
          r.push_back(i);
          c.push_back(j);
          v.push_back(G.values[p]);
        }
      for (ordinal_t j = 0; j + 1 < n; ++j) {  // the arrow: small entries, a large last diagonal
        r.insert(r.end(), {n - 1, j});
        c.insert(c.end(), {j, n - 1});
        v.insert(v.end(), {-1.0 / n, -1.0 / n});
      }
      r.push_back(n - 1);
      c.push_back(n - 1);
      v.push_back(8.0);
      Handle h(ParIluKind::Ic);
      h.params.sweeps = 1;
      const auto Ad = to_device<Dev>(csr_from_triplets<double>(n, n, r, c, v));
      par_ilu_symbolic(Exec(), h, Ad);
      par_ilu_numeric(Exec(), h, Ad);
      EXPECT_EQ(h.stats().sweep_kernel, SweepKernel::List) << h.stats().sweep_kernel_rule;
      EXPECT_NE(h.stats().sweep_kernel_rule.find("list kernel: rows of up to " + std::to_string(n) +
                                                 " entries do not fit the row-team kernel's team memory"),
                std::string::npos)
          << h.stats().sweep_kernel_rule;
    }
    // Auto's fallback: a dense ILU pattern with tasks enough for the list kernel, but about n/3 products per unknown
    // (more than kParIluMaxProductsPerUnknown): the entry kernel, and the record says why
    const ordinal_t n = static_cast<ordinal_t>(std::ceil(std::sqrt(double(concurrency)))) + 1;
    std::vector<ordinal_t> r, c;
    std::vector<double> v;
    for (ordinal_t i = 0; i < n; ++i)
      for (ordinal_t j = 0; j < n; ++j) {
        r.push_back(i);
        c.push_back(j);
        v.push_back(i == j ? 2.0 * n : -1.0);
      }
    Handle h(ParIluKind::Ilu);
    h.params.sweeps = 1;
    const auto Dd = to_device<Dev>(csr_from_triplets<double>(n, n, r, c, v));
    par_ilu_symbolic(Exec(), h, Dd);
    par_ilu_numeric(Exec(), h, Dd);
    EXPECT_EQ(h.stats().sweep_kernel, SweepKernel::Entry);
    EXPECT_NE(h.stats().sweep_kernel_rule.find("entry kernel: the product lists would hold"), std::string::npos)
        << h.stats().sweep_kernel_rule;
    EXPECT_EQ(h.stats().sweep_products, 0);
  }
  // the entry and row-merge kernels run one lane per unit: an explicit vector_length > 1 is refused with the kernel
  // named
  for (auto kernel : {SweepKernel::Entry, SweepKernel::RowMerge}) {
    Handle h(ParIluKind::Ic);
    h.params.sweep_kernel = kernel;
    h.launch.vector_length = 2;
    const auto Ad = to_device<Dev>(lap2d(4));
    par_ilu_symbolic(Exec(), h, Ad);
    ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, Ad), InvalidInput,
                                 std::string("par_ic_numeric (") + to_string(kernel) +
                                     " sweep kernel): launch.vector_length must be -1 or 1, got 2");
  }
  // An explicit row kernel (ILU): one unit per row, lanes by the rule for asynchronous sweeps on GPUs, else one; an
  // explicit list kernel (IC): one unit per task, one lane, kParIluListGpuTeamThreads per team on GPUs.
  for (auto kernel : {SweepKernel::Row, SweepKernel::List}) {
    const bool row = kernel == SweepKernel::Row;
    const auto A = lap3d27(6);
    for (auto mode : {SweepMode::Async, SweepMode::Deterministic}) {
      Handle h(row ? ParIluKind::Ilu : ParIluKind::Ic);
      h.params.sweeps = 1;
      h.params.mode = mode;
      h.params.sweep_kernel = kernel;
      const auto Ad = to_device<Dev>(A);
      par_ilu_symbolic(Exec(), h, Ad);
      par_ilu_numeric(Exec(), h, Ad);
      const std::string what = std::string(to_string(kernel)) + " " + to_string(mode);
      EXPECT_EQ(h.stats().sweep_kernel, kernel) << what;
      EXPECT_EQ(h.stats().sweep_kernel_rule, "explicit") << what;
      EXPECT_EQ(h.stats().launch.work_items, row ? std::int64_t(A.nrows) : h.stats().num_tasks) << what;
      EXPECT_EQ(h.stats().sweep_products, host_products(on_pattern(A, 0), !row)) << what;
      const double avg = double(h.stats().nnz_L + h.stats().nnz_U) / (2.0 * A.nrows);  // rows of L and of Ut
      EXPECT_EQ(h.stats().launch.vector_length,
                row && gpu && mode == SweepMode::Async ? Impl::row_sweep_lanes(A.nrows, avg, concurrency) : 1)
          << what;
      if (gpu && !row) EXPECT_EQ(h.stats().launch.team_size, Impl::kParIluListGpuTeamThreads) << what;
    }
  }
  EXPECT_EQ(sweep_kernel_from_string("row"), SweepKernel::Row);
  EXPECT_EQ(sweep_kernel_from_string("list"), SweepKernel::List);
  EXPECT_EQ(sweep_kernel_from_string("row_merge"), SweepKernel::RowMerge);
  EXPECT_EQ(sweep_kernel_from_string(to_string(SweepKernel::RowMerge)), SweepKernel::RowMerge);
  ASYNCSPARSE_EXPECT_THROW_MSG(sweep_kernel_from_string("rows"), InvalidInput,
                               "valid: auto, entry, list, row, row_merge, row_team");
  // breakdowns are reported as by the entry kernel (row and problem), by the three kernels in both modes; the factors
  // stay finite
  // row 2 of A divides by row 1's pivot, whose update is skipped (the row-merge kernel then carries nothing)
  for (auto kernel : {SweepKernel::Row, SweepKernel::List, SweepKernel::RowMerge})
    for (auto mode : {SweepMode::Async, SweepMode::Deterministic}) expect_breakdown_at_row_1(kernel, mode);
}

// The row-team kernel (SweepKernel::RowTeam: rows staged in team memory, lanes over the other operand) reaches the
// exact IC(0) / ILU(0) with the default launch and, on GPUs, with 32-thread teams of 2 lanes per thread (8 rows per
// team); it builds no product lists. Asynchronous mode only: the deterministic mode and a later deterministic
// par_ilu_sweep are refused with InvalidInput; breakdowns are reported as by the other kernels.
TEST(TEST_CATEGORY, par_ilu_row_team_kernel_converges_to_exact_factors) {
  const bool gpu = Impl::is_gpu_space<Exec>();
  const std::vector<std::pair<ParIluKind, CsrHost<double>>> cases = {
      {ParIluKind::Ic, lap3d27(8)},
      {ParIluKind::Ilu, lap3d27(6)},
      {ParIluKind::Ilu, random_diag_dominant(400, 7, 5, false, 1.1)}};
  for (const auto& [kind, A] : cases)
    for (int lanes : {1, 2}) {
      if (lanes > 1 && !gpu) continue;
      const bool ic = kind == ParIluKind::Ic;
      const std::string what =
          std::string(to_string(kind)) + " n=" + std::to_string(A.nrows) + ", " + std::to_string(lanes) + " lanes";
      Handle h(kind);
      h.params.sweep_kernel = SweepKernel::RowTeam;
      h.params.sweeps = 300;
      h.params.tolerance = 1e-12;
      if (lanes > 1) {
        h.launch.team_size = 32;
        h.launch.vector_length = lanes;
      }
      const auto Ad = to_device<Dev>(A);
      par_ilu_symbolic(Exec(), h, Ad);
      par_ilu_numeric(Exec(), h, Ad);
      EXPECT_EQ(h.stats().sweep_kernel, SweepKernel::RowTeam) << what;
      EXPECT_EQ(h.stats().sweep_products, 0) << what;
      EXPECT_NE(h.stats().sweep_kernel_rule.find("rows per team: "), std::string::npos) << h.stats().sweep_kernel_rule;
      EXPECT_EQ(h.state().pair_ptr.extent(0), 0u) << what;
      EXPECT_EQ(h.stats().launch.work_items, std::int64_t(A.nrows)) << what;
      EXPECT_EQ(h.state().row_team_threads, gpu ? Impl::kParIluRowTeamGpuThreadsPerRow : 1) << what;
      EXPECT_EQ(h.state().row_team_rows * h.state().row_team_threads, h.stats().launch.team_size) << what;
      EXPECT_TRUE(h.stats().converged) << what;
      const auto F = par_ilu_unscaled_factors(Exec(), h);
      const auto R = ic ? Reference::IluFactors{Reference::ic0(A), CsrHost<double>()} : Reference::ilu0(A);
      EXPECT_LE(max_difference(to_host(F.L), R.L).first, 1e-9) << what << ", L";
      if (!ic) EXPECT_LE(max_difference(to_host(F.U), R.U).first, 1e-9) << what << ", U";
      h.params.mode = SweepMode::Deterministic;  // a later sweep in the other mode is refused (as for every kernel)
      ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_sweep(Exec(), h, 1), InvalidInput, "mode changed to deterministic");
    }
  Handle h(ParIluKind::Ilu);
  h.params.sweep_kernel = SweepKernel::RowTeam;
  h.params.mode = SweepMode::Deterministic;
  const auto Ad = to_device<Dev>(nonsymmetric(6));
  par_ilu_symbolic(Exec(), h, Ad);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, Ad), InvalidInput,
                               "par_ilu_numeric: the row_team sweep kernel runs asynchronous sweeps only");
  EXPECT_EQ(sweep_kernel_from_string("row_team"), SweepKernel::RowTeam);
  EXPECT_EQ(sweep_kernel_from_string(to_string(SweepKernel::RowTeam)), SweepKernel::RowTeam);
  // breakdowns: reported as by the other kernels
  expect_breakdown_at_row_1(SweepKernel::RowTeam, SweepMode::Async);
  // rows too long for team memory (a GPU's 32 rows of a team x 600 entries x 12 bytes x 2 exceed it): the staged rows
  // go to scratch level 1 (global memory), with the same result. Rows of 45 entries fit team memory (34 KB per team
  // on a GPU), but not for the register bound's 8 teams per multiprocessor: launched without the bound.
  for (const int n : {45, 600}) {
    std::vector<ordinal_t> ri, ci;
    std::vector<double> vi;
    for (int i = 0; i < n; ++i) {  // tridiagonal, plus a full last row and column of small entries
      for (int j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j) {
        ri.push_back(i);
        ci.push_back(j);
        vi.push_back(i == j ? 4.0 : -1.0);
      }
      if (i < n - 2) {
        ri.insert(ri.end(), {i, n - 1});
        ci.insert(ci.end(), {n - 1, i});
        vi.insert(vi.end(), {0.001, 0.002});
      }
    }
    const auto arrow = csr_from_triplets<double>(n, n, ri, ci, vi);
    SCOPED_TRACE("arrow n=" + std::to_string(n));
    Handle a(ParIluKind::Ilu);
    a.params.sweep_kernel = SweepKernel::RowTeam;
    a.params.sweeps = 300;
    a.params.tolerance = 1e-12;
    const auto Arrow = to_device<Dev>(arrow);
    par_ilu_symbolic(Exec(), a, Arrow);
    par_ilu_numeric(Exec(), a, Arrow);
    EXPECT_EQ(a.state().row_team_max_row, n);
    EXPECT_NE(a.stats().sweep_kernel_rule.find(gpu && n > 45 ? "global scratch memory" : "team memory"),
              std::string::npos)
        << a.stats().sweep_kernel_rule;
    EXPECT_TRUE(a.stats().converged);
    const auto F = par_ilu_unscaled_factors(Exec(), a);
    const auto R = Reference::ilu0(arrow);
    EXPECT_LE(max_difference(to_host(F.L), R.L).first, 1e-9) << "arrow, L";
    EXPECT_LE(max_difference(to_host(F.U), R.U).first, 1e-9) << "arrow, U";
  }
}

/// Whether the Jacobi-style (deterministic) IC sweeps reach the nonlinear residual 1e-10 on A in 200 sweeps.
bool jacobi_ic_sweeps_converge(const Crs<double, Dev>& A) {
  Handle h(ParIluKind::Ic);
  h.params.mode = SweepMode::Deterministic;
  h.params.sweeps = 200;
  h.params.tolerance = 1e-10;
  try {
    par_ilu_symbolic(Exec(), h, A);
    par_ilu_numeric(Exec(), h, A);
  } catch (const BreakdownError&) {
    return false;
  } catch (const DivergenceError&) {
    return false;
  }
  return h.stats().converged;
}

// Acceptance 1: the asynchronous sweeps reach the exact IC(0) (nonlinear residual <= 1e-10) on every SPD matrix of
// the shared collection for which IC(0) exists — with one exception on GPUs. There the updates of a wave are
// Jacobi-like, and on a matrix where even the Jacobi-style (deterministic) sweeps fail (bcsstk27: a non-positive
// pivot within a few sweeps), the asynchronous ones pass through non-finite factors (H100, both Kokkos stacks:
// "inf" from 25 to 150 sweeps) and recover or not by sweep 200 depending on the order of the updates (Kokkos 3.4:
// exact IC(0) after 185-197 sweeps; Kokkos 4.6: not). For bcsstk27 on a GPU, and only while its deterministic sweeps
// fail, a DivergenceError or BreakdownError naming the problem, or no convergence within the 200 sweeps (seen on an
// H100 with Kokkos 3.4: residual 5.3e-5 after 200 sweeps), is accepted; anywhere else each fails the test.
// LaunchConfig::unit_stride reaches the sweeps (host backends: interleaved passes over a chunk's units; GPUs
// resolve it to 1), and the asynchronous sweeps still converge to the fixed point with it, with the entry, row and
// row-merge kernels and a chunk that is not a multiple of the stride.
TEST(TEST_CATEGORY, par_ilu_sweeps_converge_with_a_unit_stride) {
  const bool gpu = Impl::is_gpu_space<Exec>();
  for (auto kind : {ParIluKind::Ic, ParIluKind::Ilu})
    for (auto kernel : {SweepKernel::Entry, SweepKernel::Row, SweepKernel::RowMerge})
      for (int stride : {2, 3}) {
        Handle h(kind);
        h.params.sweeps = 200;
        h.params.tolerance = 1e-11;
        h.params.sweep_kernel = kernel;
        h.launch.unit_stride = stride;
        h.launch.chunk_size = 50;
        const auto Ad = to_device<Dev>(lap2d(12));
        par_ilu_symbolic(Exec(), h, Ad);
        par_ilu_numeric(Exec(), h, Ad);
        const std::string what =
            std::string(to_string(kind)) + " " + to_string(kernel) + " stride " + std::to_string(stride);
        EXPECT_EQ(h.stats().launch.unit_stride, gpu ? 1 : stride) << what;
        EXPECT_NE(h.stats().launch.to_string().find("unit_stride="), std::string::npos) << what;
        EXPECT_TRUE(h.stats().converged) << what;
        EXPECT_LE(par_ilu_nonlinear_residual(Exec(), h), 1e-10) << what;
      }
}

TEST(TEST_CATEGORY, par_ic_async_converges_to_exact_ic0_on_shared_matrices) {
  const std::vector<std::string> names = {"1138_bus", "494_bus",  "bcsstk01", "bcsstk13", "bcsstk14", "bcsstk15",
                                          "bcsstk16", "bcsstk18", "bcsstk27", "bodyy4",   "bodyy5",   "bodyy6",
                                          "fv1",      "fv2",      "fv3",      "nos1",     "nos2",     "nos3",
                                          "nos4",     "nos5",     "nos6",     "nos7",     "ted_b",    "trefethen_2000"};
  int tested = 0;
  for (const auto& name : names) {
    const auto A = read_matrix_market(AsyncSparse::Test::matrix_path(name));
    CsrHost<double> L0;
    try {
      L0 = Reference::ic0(A);
    } catch (const BreakdownError& e) {
      std::cout << "  " << name << ": IC(0) does not exist (" << e.what() << "), skipped\n";
      continue;
    }
    ++tested;
    Handle h(ParIluKind::Ic);
    h.params.sweeps = 200;
    h.params.tolerance = 1e-10;
    const auto Ad = to_device<Dev>(A);
    par_ilu_symbolic(Exec(), h, Ad);
    // On bcsstk27 the asynchronous GPU sweeps may fail as the Jacobi-style sweeps do: a growth stop
    // (DivergenceError), a non-finite factor when the values overflow first (BreakdownError), or no convergence
    // within the sweeps.
    std::string diverged;
    try {
      par_ilu_numeric(Exec(), h, Ad);
    } catch (const DivergenceError& e) {
      diverged = e.what();
    } catch (const BreakdownError& e) {
      diverged = e.what();
    }
    const double res = diverged.empty() ? par_ilu_nonlinear_residual(Exec(), h) : 0.0;
    const bool allowed = (!diverged.empty() || !h.stats().converged) && Impl::is_gpu_space<Exec>() &&
                         name == "bcsstk27" && !jacobi_ic_sweeps_converge(Ad);
    ASSERT_TRUE(diverged.empty() || allowed) << name << ": " << diverged;
    if (allowed) {
      std::cout << "  " << name << ": ";
      if (diverged.empty())
        std::cout << "not converged in " << h.stats().sweeps << " sweeps (residual " << res << ")";
      else
        std::cout << diverged;
      std::cout << " (the Jacobi-style sweeps fail on it too)\n";
      --tested;
      continue;
    }
    EXPECT_TRUE(h.stats().converged) << name;
    EXPECT_LE(res, 1e-10) << name;
    // the factors of A itself agree with the exact IC(0)
    const auto L = to_host(par_ilu_unscaled_factors(Exec(), h).L);
    ASSERT_EQ(L.col_idx, L0.col_idx) << name;
    const auto [err, scale] = max_difference(L, L0);
    // A nonlinear residual of 1e-10 bounds the factor error only up to the conditioning of the fixed-point map,
    // which is large on the bodyy family (max-entry error 1.2e-7 x max|l| on bodyy5 on an H200); 1e-6 still
    // separates the exact IC(0) from any other factor of the pattern.
    EXPECT_LE(err, 1e-6 * scale) << name;
    EXPECT_LE(Reference::nonlinear_residual(A, L), 1e-9) << name;
    std::cout << "  " << name << ": n=" << A.nrows << " nnz=" << A.nnz() << " sweeps to 1e-10: " << h.stats().sweeps
              << " (residual " << res << ")\n";
  }
  EXPECT_GE(tested, 10);
}

TEST(TEST_CATEGORY, par_ilu_async_converges_to_exact_ilu0) {
  for (const auto& A : {nonsymmetric(20), random_diag_dominant(400, 7, 5, false, 1.1)}) {
    Handle h(ParIluKind::Ilu);
    h.params.sweeps = 300;
    h.params.tolerance = 1e-12;
    const auto Ad = to_device<Dev>(A);
    par_ilu_symbolic(Exec(), h, Ad);
    par_ilu_numeric(Exec(), h, Ad);
    EXPECT_TRUE(h.stats().converged);
    const auto F = par_ilu_unscaled_factors(Exec(), h);
    const auto R = Reference::ilu0(A);
    const auto L = to_host(F.L), U = to_host(F.U);
    ASSERT_EQ(L.col_idx, R.L.col_idx);
    ASSERT_EQ(U.col_idx, R.U.col_idx);
    for (std::size_t k = 0; k < R.L.values.size(); ++k) EXPECT_NEAR(L.values[k], R.L.values[k], 1e-9);
    for (std::size_t k = 0; k < R.U.values.size(); ++k) EXPECT_NEAR(U.values[k], R.U.values[k], 1e-9);
    // residual history: recorded every sweep, decreasing overall
    const auto& hist = h.stats().residual_history;
    ASSERT_EQ(hist.size(), static_cast<std::size_t>(h.stats().sweeps) + 1);
    EXPECT_LT(hist.back(), 1e-12);
    EXPECT_LT(hist.back(), hist.front());
  }
  // ILU(2): converges to the exact ILU(2) of the reference
  const auto A = nonsymmetric(10);
  Handle h(ParIluKind::Ilu);
  h.params.fill_level = 2;
  h.params.sweeps = 300;
  h.params.tolerance = 1e-13;
  h.params.mode = SweepMode::Deterministic;
  const auto Ad = to_device<Dev>(A);
  par_ilu_symbolic(Exec(), h, Ad);
  par_ilu_numeric(Exec(), h, Ad);
  EXPECT_TRUE(h.stats().converged);
  const auto F = par_ilu_unscaled_factors(Exec(), h);
  const auto R = Reference::iluk(A, 2);
  const auto L = to_host(F.L);
  ASSERT_EQ(L.col_idx, R.L.col_idx);
  for (std::size_t k = 0; k < R.L.values.size(); ++k) EXPECT_NEAR(L.values[k], R.L.values[k], 1e-10);
  EXPECT_EQ(h.stats().nnz_L, R.L.nnz());
  EXPECT_EQ(h.stats().nnz_U, R.U.nnz());
}

TEST(TEST_CATEGORY, par_ilu_async_no_slower_than_sync) {
  // Every backend, every thread count (the OpenMP tests run at 1, 2 and 4 threads): the asynchronous sweeps (in
  // place, each thread's chunk of the task list in order: Gauss–Seidel-like inside a chunk, asynchronous between
  // chunks) reach the nonlinear-residual tolerance in at most 1.2x (+1) the sweeps of the synchronous ones (the
  // deterministic mode: every sweep reads the previous sweep's factors, a Jacobi fixed-point iteration).
  const int threads = static_cast<int>(Exec().concurrency());
  for (const std::string spec : {"gen:lap2d:48", "gen:convdiff2d:48"}) {
    const auto A = generate(spec);
    for (auto kind : {ParIluKind::Ic, ParIluKind::Ilu}) {
      if (kind == ParIluKind::Ic && spec != "gen:lap2d:48") continue;  // IC needs a symmetric matrix
      int sweeps[2] = {0, 0};
      for (auto mode : {SweepMode::Deterministic, SweepMode::Async}) {
        Handle h(kind);
        h.params.sweeps = 500;
        h.params.tolerance = 1e-10;
        h.params.mode = mode;
        const auto Ad = to_device<Dev>(A);
        par_ilu_symbolic(Exec(), h, Ad);
        par_ilu_numeric(Exec(), h, Ad);
        const std::string what = spec + (kind == ParIluKind::Ic ? ", IC, " : ", ILU, ") + to_string(mode) + ", " +
                                 std::to_string(threads) + " thread(s)";
        ASSERT_TRUE(h.stats().converged) << what;
        EXPECT_LE(par_ilu_nonlinear_residual(Exec(), h), 1e-10) << what;
        sweeps[mode == SweepMode::Async] = h.stats().sweeps;
      }
      EXPECT_LE(sweeps[1], 1.2 * sweeps[0] + 1) << spec << ": asynchronous " << sweeps[1] << " sweeps, synchronous "
                                               << sweeps[0] << " (" << threads << " threads)";
    }
  }
}

TEST(TEST_CATEGORY, par_ilu_residuals_match_host_reference) {
  const auto A = nonsymmetric(10);
  const auto As = scale_unit_diagonal(A).A;
  const auto r = run(A, ParIluKind::Ilu, 2, SweepMode::Deterministic);
  const auto Ad = to_device<Dev>(As);
  const auto Ld = to_device<Dev>(r.L), Ud = to_device<Dev>(r.U);
  const double nl = nonlinear_residual(Exec(), Ad, Ld, Ud);
  EXPECT_NEAR(nl, Reference::nonlinear_residual(As, r.L, r.U), 1e-13);
  EXPECT_GT(nl, 1e-4);
  EXPECT_NEAR(ilu_residual(Exec(), Ad, Ld, Ud), Reference::ilu_residual(As, r.L, r.U), 1e-12);
  // through the handle (its residual uses the task list)
  Handle h(ParIluKind::Ilu);
  h.params.sweeps = 2;
  h.params.mode = SweepMode::Deterministic;
  h.params.residual_interval = 1;
  const auto A0 = to_device<Dev>(A);
  par_ilu_symbolic(Exec(), h, A0);
  par_ilu_numeric(Exec(), h, A0);
  EXPECT_NEAR(par_ilu_nonlinear_residual(Exec(), h), nl, 1e-13);
  EXPECT_NEAR(par_ilu_ilu_residual(Exec(), h), Reference::ilu_residual(As, r.L, r.U), 1e-12);
  ASSERT_EQ(h.stats().residual_history.size(), 3u);
  EXPECT_EQ(h.stats().residual_sweeps, (std::vector<int>{0, 1, 2}));
  EXPECT_NEAR(h.stats().residual_history[2], nl, 1e-13);
  EXPECT_EQ(h.stats().sweep_times.size(), 2u);
  // IC
  const auto S = lap2d(9);
  const auto Ss = scale_unit_diagonal(S).A;
  const auto ic = run(S, ParIluKind::Ic, 1, SweepMode::Deterministic);
  const auto Sd = to_device<Dev>(Ss);
  const auto Ic = to_device<Dev>(ic.L);
  EXPECT_NEAR(nonlinear_residual_ic(Exec(), Sd, Ic), Reference::nonlinear_residual(Ss, ic.L), 1e-13);
  EXPECT_NEAR(ilu_residual_ic(Exec(), Sd, Ic), Reference::ilu_residual(Ss, ic.L), 1e-12);
}

TEST(TEST_CATEGORY, par_ilu_initial_guess_reuse_and_user_factors) {
  const auto A = lap2d(16);
  const auto Ad = to_device<Dev>(A);
  Handle h(ParIluKind::Ic);
  h.params.sweeps = 30;
  h.params.tolerance = 1e-12;
  par_ilu_symbolic(Exec(), h, Ad);
  par_ilu_numeric(Exec(), h, Ad);
  ASSERT_TRUE(h.stats().converged);
  // same values, reuse: the previous (converged) factors are kept, no sweep needed
  h.params.reuse_factors = true;
  par_ilu_numeric(Exec(), h, Ad);
  EXPECT_EQ(h.stats().sweeps, 0);
  EXPECT_TRUE(h.stats().converged);
  // new values (a time step: a diagonal change, so also a new scaling) — one synchronous sweep from the old factors
  // beats one from the paper's initial guess (in the asynchronous mode a sequential row-major sweep is exact
  // from any start, so the comparison is made in the deterministic mode)
  h.params.mode = SweepMode::Deterministic;
  auto A2 = A;
  for (int i = 0; i < A2.nrows; ++i) A2.values[find_entry(A2, i, i)] += 0.01 * (1 + i % 3);
  auto A2d = to_device<Dev>(A2);
  A2d = Crs<double, Dev>("A2", A2d.numRows(), A2d.numCols(), A2d.nnz(), A2d.values, Ad.graph.row_map, Ad.graph.entries);
  h.params.tolerance = 0;
  h.params.sweeps = 1;
  par_ilu_numeric(Exec(), h, A2d);
  const double reused = par_ilu_nonlinear_residual(Exec(), h);
  h.params.reuse_factors = false;
  par_ilu_numeric(Exec(), h, A2d);
  const double fresh = par_ilu_nonlinear_residual(Exec(), h);
  EXPECT_LT(reused, 0.2 * fresh);
  // user-supplied exact factors of A (unscaled): the nonlinear residual is round-off before any sweep
  Handle g(ParIluKind::Ic);
  g.params.sweeps = 0;
  par_ilu_symbolic(Exec(), g, Ad);
  {
    const auto Ld = to_device<Dev>(Reference::ic0(A));
    par_ilu_set_factors(Exec(), g, Ld, Ld);
  }
  par_ilu_numeric(Exec(), g, Ad);
  EXPECT_LT(par_ilu_nonlinear_residual(Exec(), g), 1e-14);
  Handle u(ParIluKind::Ilu);
  u.params.sweeps = 0;
  const auto N = nonsymmetric(8);
  const auto Nd = to_device<Dev>(N);
  par_ilu_symbolic(Exec(), u, Nd);
  const auto R = Reference::ilu0(N);
  par_ilu_set_factors(Exec(), u, to_device<Dev>(R.L), to_device<Dev>(R.U));
  par_ilu_numeric(Exec(), u, Nd);
  EXPECT_LT(par_ilu_nonlinear_residual(Exec(), u), 1e-14);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_set_factors(Exec(), u, to_device<Dev>(R.U), to_device<Dev>(R.U)), InvalidInput,
                               "L does not have the pattern");
  // more sweeps later on
  u.params.sweeps = 1;
  par_ilu_numeric(Exec(), u, Nd);
  EXPECT_EQ(par_ilu_sweep(Exec(), u, 3), 3);
  EXPECT_EQ(u.stats().sweeps, 4);
}

TEST(TEST_CATEGORY, par_ilu_numeric_on_new_values_equals_symbolic_and_numeric) {
  // the symbolic phase depends on the pattern only: a numeric phase on new values (same pattern, other Views)
  // gives bit for bit the factors of a fresh symbolic + numeric phase (deterministic mode, no factor reuse)
  for (auto kind : {ParIluKind::Ilu, ParIluKind::Ic}) {
    const auto A = kind == ParIluKind::Ic ? lap2d(9) : nonsymmetric(9);
    auto A2 = A;
    for (int i = 0; i < A2.nrows; ++i)
      for (int p = A2.row_ptr[i]; p < A2.row_ptr[i + 1]; ++p)
        A2.values[p] *= A2.col_idx[p] == i ? 1.0 + 0.02 * (i % 4) : 0.9 + 0.01 * ((i + A2.col_idx[p]) % 3);
    const std::string what = kind == ParIluKind::Ic ? "par_ic" : "par_ilu";
    Handle h(kind);
    h.params.mode = SweepMode::Deterministic;
    h.params.sweeps = 4;
    h.params.fill_level = 1;
    const auto Ad = to_device<Dev>(A), A2d = to_device<Dev>(A2);
    par_ilu_symbolic(Exec(), h, Ad);
    par_ilu_numeric(Exec(), h, Ad);
    const auto F1 = par_ilu_factors(Exec(), h);
    const auto L1 = to_host(F1.L);
    par_ilu_numeric(Exec(), h, A2d);
    const auto F = par_ilu_factors(Exec(), h);
    Handle g(kind);
    g.params = h.params;
    par_ilu_symbolic(Exec(), g, A2d);
    par_ilu_numeric(Exec(), g, A2d);
    const auto G = par_ilu_factors(Exec(), g);
    expect_same_bits(to_host(F.L), to_host(G.L), what + " L");
    expect_same_bits(to_host(F.U), to_host(G.U), what + " U");
    EXPECT_NE(to_host(F.L).values, L1.values) << what << ": the new values must change the factors";
    // the phase is named in the message of a numeric phase on another pattern
    ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, to_device<Dev>(lap2d(8))), InvalidInput,
                                 what + "_numeric: the matrix does not have the pattern given to par_ilu_symbolic");
  }
}

TEST(TEST_CATEGORY, par_ilu_breakdown_is_reported_and_factors_stay_finite) {
  // symmetric, positive diagonal, indefinite: l_11^2 = 1 - 4 < 0
  const auto A = csr_from_triplets<double>(3, 3, {0, 0, 1, 1, 2}, {0, 1, 0, 1, 2}, {1.0, 2.0, 2.0, 1.0, 1.0});
  for (auto mode : {SweepMode::Async, SweepMode::Deterministic}) {
    Handle h(ParIluKind::Ic);
    h.params.mode = mode;
    const auto Ad = to_device<Dev>(A);
    par_ilu_symbolic(Exec(), h, Ad);
    ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, Ad), BreakdownError, "par_ic: breakdown at row 1");
    try {
      par_ilu_numeric(Exec(), h, Ad);
    } catch (const BreakdownError& e) {
      EXPECT_EQ(e.row(), 1);
      EXPECT_NE(std::string(e.what()).find("non-positive pivot"), std::string::npos);
    }
    for (double v : to_host(h.L()).values) EXPECT_TRUE(std::isfinite(v));
    EXPECT_FALSE(h.numeric_done());
  }
  // a transient breakdown of the asynchronous iteration: a bad initial guess (|l_10| too large) makes the first
  // update of l_11 a square root of a negative number when l_11 is updated before l_10 (backward block order, one
  // task per block); the update is skipped and the next sweep, with the corrected l_10, succeeds
  {
    const auto S = lap2d(3);
    auto L0 = Reference::ic0(S);
    L0.values[L0.row_ptr[1]] = -5.0;  // l_10 (exact: -0.5)
    Handle h(ParIluKind::Ic);
    h.params.sweeps = 6;
    h.launch.block_order = BlockOrder::Backward;
    h.launch.chunk_size = 1;
    h.launch.max_concurrent_teams = 1;
    const auto Sd = to_device<Dev>(S);
    par_ilu_symbolic(Exec(), h, Sd);
    {
      const auto Ld = to_device<Dev>(L0);
      par_ilu_set_factors(Exec(), h, Ld, Ld);
    }
    par_ilu_numeric(Exec(), h, Sd);
    EXPECT_EQ(h.stats().breakdown_sweeps, 1);
    EXPECT_EQ(h.stats().breakdown_row, 1);
    EXPECT_EQ(h.stats().consecutive_breakdowns, 0);
    EXPECT_EQ(h.stats().sweep_times.size(), 6u);
    EXPECT_TRUE(h.numeric_done());
    EXPECT_LT(par_ilu_nonlinear_residual(Exec(), h), 1e-8);
    // The 6 sweeps above ran as one batch (Impl::sweep_batch: nothing checked between them; each sweep is given the
    // batch's time); 11 sweeps run as batches of 8 and 3, and with residual checks (every 100 sweeps: none fall
    // inside) one sweep at a time. One team in flight makes the asynchronous sweeps sequential: both runs give the
    // same factors bit for bit and record the same breakdown (the first sweep only).
    const auto run = [&](int sweeps, int interval) {
      h.params.sweeps = sweeps;
      h.params.residual_interval = interval;
      const auto Ld = to_device<Dev>(L0);
      par_ilu_set_factors(Exec(), h, Ld, Ld);
      par_ilu_numeric(Exec(), h, Sd);
      EXPECT_EQ(h.stats().breakdown_sweeps, 1) << sweeps << " sweeps, residual interval " << interval;
      EXPECT_EQ(h.stats().breakdown_row, 1);
      EXPECT_EQ(h.stats().consecutive_breakdowns, 0);
      EXPECT_EQ(h.stats().sweep_times.size(), static_cast<std::size_t>(sweeps));
      return to_host(h.L()).values;
    };
    const auto batched = run(11, 0);
    const auto& t = h.stats().sweep_times;
    for (int k = 1; k < 8; ++k) EXPECT_EQ(t[k], t[0]) << "sweep " << k << " of the first batch";
    for (int k = 9; k < 11; ++k) EXPECT_EQ(t[k], t[8]) << "sweep " << k << " of the second batch";
    EXPECT_EQ(run(11, 100), batched);
    // a breakdown in the last sweep of a batch (here its only one) leaves unusable factors: the numeric phase throws
    for (int interval : {0, 100}) {
      h.params.sweeps = 1;
      h.params.residual_interval = interval;
      const auto Ld = to_device<Dev>(L0);
      par_ilu_set_factors(Exec(), h, Ld, Ld);
      ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, Sd), BreakdownError, "breakdown at row 1");
    }
    h.params.sweeps = 6;
    h.params.residual_interval = 0;
    h.params.breakdown_patience = 1;  // no patience: the first skipped update throws
    {
      const auto Ld = to_device<Dev>(L0);
      par_ilu_set_factors(Exec(), h, Ld, Ld);
    }
    ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, Sd), BreakdownError, "breakdown at row 1");
  }
  // ILU: u_11 = 1 - 1 * 1 = 0
  const auto B = csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1.0, 1.0, 1.0, 1.0});
  Handle h(ParIluKind::Ilu);
  h.params.mode = SweepMode::Deterministic;
  const auto Bd = to_device<Dev>(B);
  par_ilu_symbolic(Exec(), h, Bd);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, Bd), BreakdownError,
                               "par_ilu: breakdown at row 1: zero pivot");
  for (double v : to_host(h.U_columns()).values) EXPECT_TRUE(std::isfinite(v));
}

// Diagonal shift and retry (Params::diagonal_shift). IC(0) of [[1, 1.02], [1.02, 1]] does not exist, nor does that
// of A + alpha I for alpha = 1e-3, 1e-2 (l_11^2 = 1 + alpha - 1.0404 / (1 + alpha) < 0); alpha = 0.1 works: three
// restarts. ILU(0) of [[1, 1], [1, 1]] has the pivot u_11 = 0, that of A + 1e-3 I the pivot 0.002: one restart. The
// factors equal those of the serial reference with the same shift option (five sweeps reach the exact factors of
// a 2 x 2 matrix in both modes). IC(0) of [[1, 10], [10, 1]] breaks down at every shift up to 1: the error of the
// unshifted matrix is thrown, naming the shifts and the last error.
TEST(TEST_CATEGORY, par_ilu_diagonal_shift_and_retry) {
  struct Case {
    ParIluKind kind;
    CsrHost<double> A;
    double shift;
    int retries;
    const char* problem;
  };
  const Case cases[] = {
      {ParIluKind::Ic, csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1, 1.02, 1.02, 1}), 0.1, 3,
       "non-positive pivot"},
      {ParIluKind::Ilu, csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1, 1, 1, 1}), 1e-3, 1,
       "zero pivot"}};
  for (const auto& c : cases)
    for (auto mode : {SweepMode::Async, SweepMode::Deterministic}) {
      SCOPED_TRACE(std::string(c.kind == ParIluKind::Ic ? "ic " : "ilu ") + to_string(mode));
      Handle h(c.kind);
      h.params.mode = mode;
      const auto Ad = to_device<Dev>(c.A);
      par_ilu_symbolic(Exec(), h, Ad);
      ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, Ad), BreakdownError, c.problem);
      EXPECT_EQ(h.stats().shift_retries, 0);
      EXPECT_EQ(h.stats().shift, 0.0);
      h.params.diagonal_shift = 1e-3;
      par_ilu_numeric(Exec(), h, Ad);
      EXPECT_TRUE(h.numeric_done());
      EXPECT_NEAR(h.stats().shift, c.shift, 1e-15);
      EXPECT_EQ(h.stats().shift_retries, c.retries);
      EXPECT_NE(h.stats().shift_reason.find(c.problem), std::string::npos) << h.stats().shift_reason;
      double used = -1;
      Reference::FactorOptions o;
      o.diagonal_shift = 1e-3;
      o.shift_used = &used;
      const auto F = par_ilu_factors(Exec(), h);
      if (c.kind == ParIluKind::Ic) {
        const auto L0 = Reference::ic0(c.A, o);
        EXPECT_LT(max_difference(to_host(F.L), L0).first, 1e-12);
      } else {
        const auto F0 = Reference::ilu0(c.A, o);
        EXPECT_LT(max_difference(to_host(F.L), F0.L).first, 1e-12);
        EXPECT_LT(max_difference(to_host(F.U), F0.U).first, 1e-12);
      }
      EXPECT_NEAR(used, c.shift, 1e-15);
      // a well-posed matrix needs no restart, and the next numeric phase reports that
      const auto S = lap2d(4);
      Handle w(c.kind);
      w.params.diagonal_shift = 1e-3;
      par_ilu_symbolic(Exec(), w, to_device<Dev>(S));
      par_ilu_numeric(Exec(), w, to_device<Dev>(S));
      EXPECT_EQ(w.stats().shift, 0.0);
      EXPECT_EQ(w.stats().shift_retries, 0);
      EXPECT_TRUE(w.stats().shift_reason.empty());
    }
  // no shift up to 1 helps: the error names the shifts and the unshifted matrix's breakdown
  const auto Ad = to_device<Dev>(csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1, 10, 10, 1}));
  Handle h(ParIluKind::Ic);
  h.params.diagonal_shift = 1e-3;
  par_ilu_symbolic(Exec(), h, Ad);
  try {
    par_ilu_numeric(Exec(), h, Ad);
    ADD_FAILURE() << "expected a BreakdownError";
  } catch (const BreakdownError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.row(), 1);
    EXPECT_EQ(msg.find("par_ic: breakdown at row 1: non-positive pivot"), 0u) << msg;  // the unshifted matrix's
    EXPECT_NE(msg.find("; no diagonal shift helped (4 restarts on the shifted matrix, alpha = 0.001 ... 1; the last: "
                       "par_ic: breakdown at row 1: non-positive pivot"),
              std::string::npos)
        << msg;
  }
  EXPECT_FALSE(h.numeric_done());
  EXPECT_EQ(h.stats().shift, 0.0);
  EXPECT_EQ(h.stats().shift_retries, 4);
  // bad values of the parameter
  for (double bad : {-1e-3, 1.0, std::numeric_limits<double>::quiet_NaN()}) {
    h.params.diagonal_shift = bad;
    ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, Ad), InvalidInput,
                                 "par_ic_numeric: diagonal_shift must be in [0, 1)");
  }
}

// The ParIc / ParIlu preconditioners restart with a shift by default (parameter "diagonal_shift", default
// Impl::kPreconditionerDiagonalShift) and say so in their description; diagonal_shift = 0 restores the error, after
// which the preconditioner is not computed.
TEST(TEST_CATEGORY, par_ic_preconditioner_shifts_by_default) {
  const auto A = to_device<Dev>(csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1, 1.02, 1.02, 1}));
  auto M = make_preconditioner<double, Dev>("par_ic", A);
  M->compute();
  const auto* P = dynamic_cast<ParIc<double, Dev>*>(M.get());
  ASSERT_NE(P, nullptr);
  EXPECT_NEAR(P->handle().stats().shift, 0.1, 1e-15);
  EXPECT_NE(M->description().find("shift 0.1 after 3 restarts"), std::string::npos) << M->description();
  M->setParameters(ParameterList{{"diagonal_shift", 0.0}});
  ASYNCSPARSE_EXPECT_THROW_MSG(M->compute(), BreakdownError, "par_ic: breakdown at row 1: non-positive pivot");
  // the failed compute() leaves no preconditioner to apply (not the factors of the failed numeric phase)
  Kokkos::View<double*, Dev> x("x", 2), z("z", 2);
  ASYNCSPARSE_EXPECT_THROW_MSG(M->apply(x, z), InvalidInput, "compute() must be called before apply()");
  M->setParameters(ParameterList{{"diagonal_shift", 1.5}});
  ASYNCSPARSE_EXPECT_THROW_MSG(M->compute(), InvalidInput, "diagonal_shift must be in [0, 1)");
}

// The last diagonal shift's asynchronous sweeps get more sweeps when their last one still skipped an update
// (Impl::sweep_out_breakdown), the other attempts do not. A = [[1, 1.3], [1.3, 1]] is indefinite: every sweep of
// the unshifted attempt meets l_11^2 = 1 - 1.69 < 0. With diagonal_shift 0.5 the next attempt, alpha = 0.5, is the last
// (5 > 1); sequential backward sweeps (one team, one task per chunk) update l_11 before l_10, so the first sweep
// reads the initial guess l_10 = 1.3 and meets 1.5 - 1.69 < 0 (skipped), the second reads l_10 = 1.3 / sqrt(1.5)
// and finds the factor of A + 0.5 I. With one sweep the attempt fails without the tail and succeeds with it.
TEST(TEST_CATEGORY, par_ic_last_shift_sweeps_out_a_breakdown) {
  const auto Ah = csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1, 1.3, 1.3, 1});
  const auto A = to_device<Dev>(Ah);
  Handle h(ParIluKind::Ic);
  h.params.sweeps = 1;
  h.launch.block_order = BlockOrder::Backward;
  h.launch.chunk_size = 1;
  h.launch.max_concurrent_teams = 1;
  par_ilu_symbolic(Exec(), h, A);
  h.params.diagonal_shift = 0.5;
  par_ilu_numeric(Exec(), h, A);
  EXPECT_TRUE(h.numeric_done());
  EXPECT_EQ(h.stats().shift, 0.5);
  EXPECT_EQ(h.stats().shift_retries, 1);
  EXPECT_EQ(h.stats().breakdown_tail_sweeps, Impl::kBreakdownTailBatch);
  EXPECT_EQ(h.stats().sweeps, 1 + Impl::kBreakdownTailBatch);
  EXPECT_EQ(h.stats().breakdown_sweeps, 1);  // the first sweep of the last attempt only
  EXPECT_EQ(h.stats().consecutive_breakdowns, 0);
  Reference::FactorOptions o;
  o.diagonal_shift = 0.5;
  EXPECT_LT(max_difference(to_host(par_ilu_factors(Exec(), h).L), Reference::ic0(Ah, o)).first, 1e-12);
  // the deterministic mode stops at its first skipped update (a synchronous sweep would break down again), before any
  // tail: every shift fails
  h.params.mode = SweepMode::Deterministic;
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, A), BreakdownError, "no diagonal shift helped");
  EXPECT_EQ(h.stats().breakdown_tail_sweeps, 0);
  // without restarts (diagonal_shift 0) the unshifted attempt is not a last shift either: no tail, the error
  h.params.mode = SweepMode::Async;
  h.params.diagonal_shift = 0;
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, A), BreakdownError, "breakdown at row 1");
  EXPECT_EQ(h.stats().breakdown_tail_sweeps, 0);
  EXPECT_EQ(h.stats().sweeps, 1);
  // where the breakdown persists the tail gives up after kBreakdownTailSweeps: shift 0.2 (last: 2 > 1) keeps
  // 1.2 < 1.69, but 1.2 - 1.69 / 1.2 < 0 too, so no sweep finds a positive pivot
  h.params.diagonal_shift = 0.2;
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, A), BreakdownError, "no diagonal shift helped");
  EXPECT_EQ(h.stats().breakdown_tail_sweeps, Impl::kBreakdownTailSweeps);
  EXPECT_EQ(h.stats().sweeps, 1 + Impl::kBreakdownTailSweeps);
  EXPECT_FALSE(h.numeric_done());
  // the preconditioner says when its factors needed the tail (with concurrent sweeps only: its default sweep order
  // would switch to the ordered sweep on host backends)
  auto M = make_preconditioner<double, Dev>("par_ic", A,
                                            ParameterList{{"sweeps", 1},
                                                          {"sweep_order", std::string("concurrent")},
                                                          {"diagonal_shift", 0.5},
                                                          {"block_order", std::string("backward")},
                                                          {"chunk_size", 1},
                                                          {"max_concurrent_teams", 1}});
  M->compute();
  EXPECT_NE(M->description().find("shift 0.5 after 1 restart, 5 sweeps more after a breakdown"), std::string::npos)
      << M->description();
  // a failed compute() leaves no factors, and the description speaks of no tail
  M->setParameters(ParameterList{{"diagonal_shift", 0.2}, {"sweep_order", std::string("concurrent")}});
  ASYNCSPARSE_EXPECT_THROW_MSG(M->compute(), BreakdownError, "no diagonal shift helped");
  EXPECT_EQ(M->description().find("sweeps more"), std::string::npos) << M->description();
}

// The ordered sweep (Params::sweep_order Ordered) leaves the exact incomplete factorization of the pattern in one
// sweep, in both modes: IC(0) of the 2D Laplacian and of nos3 (RCM order), ILU(0) and ILU(1) (whose fill entries the
// schedule orders too) of the convection-diffusion matrix; the 300 x 300 grid's levels (up to 300 rows) are wider
// than a team runs on GPUs (256 rows), so there its middle levels get launches of their own. Each row is computed by
// one thread after the rows it reads, so two runs (one per mode, the same kernel) give the same bits, whatever the
// threads' timing. Concurrent sweeps after it keep the fixed point.
TEST(TEST_CATEGORY, par_ilu_ordered_sweep_is_the_exact_factorization) {
  const auto nos3 = AsyncSparse::Test::rcm_matrix("nos3");
  struct Case {
    const char* name;
    CsrHost<double> A;
    ParIluKind kind;
    int fill;
  };
  const Case cases[] = {{"lap2d", generate("gen:lap2d:24"), ParIluKind::Ic, 0},
                        {"nos3", nos3, ParIluKind::Ic, 0},
                        {"convdiff2d", generate("gen:convdiff2d:24"), ParIluKind::Ilu, 0},
                        {"convdiff2d ILU(1)", generate("gen:convdiff2d:24"), ParIluKind::Ilu, 1},
                        {"lap2d 300", generate("gen:lap2d:300"), ParIluKind::Ic, 0}};
  for (const auto& c : cases) {
    const auto Ad = to_device<Dev>(c.A);
    const auto R = c.kind == ParIluKind::Ic ? Reference::IluFactors{Reference::ic0(c.A), CsrHost<double>()}
                   : c.fill == 0            ? Reference::ilu0(c.A)
                                            : Reference::iluk(c.A, c.fill);
    std::vector<double> first;
    for (auto mode : {SweepMode::Async, SweepMode::Deterministic}) {
      const std::string what = std::string(c.name) + ", " + to_string(mode);
      Handle h(c.kind);
      h.params.sweep_order = SweepOrder::Ordered;
      h.params.mode = mode;
      h.params.fill_level = c.fill;
      par_ilu_symbolic(Exec(), h, Ad);
      par_ilu_numeric(Exec(), h, Ad);
      ASSERT_TRUE(h.numeric_done()) << what;
      EXPECT_TRUE(h.stats().ordered) << what;
      EXPECT_EQ(h.stats().sweeps, 1) << what;
      EXPECT_GT(h.stats().ordered_levels, 1) << what;
      EXPECT_GE(h.stats().ordered_launches, 1) << what;
      if (c.A.nrows == 300 * 300)  // levels wider than 256 rows (GPUs) or 4 x the threads (host backends)
        EXPECT_GT(h.stats().ordered_launches, 50) << what;  // GPUs: 87 wide levels + 2 runs
      EXPECT_EQ(h.stats().sweep_kernel, SweepKernel::RowMerge) << what;
      const auto F = par_ilu_unscaled_factors(Exec(), h);
      const auto dl = max_difference(to_host(F.L), R.L);
      EXPECT_LE(dl.first, 1e-12 * dl.second) << what;
      if (c.kind == ParIluKind::Ilu) {
        const auto du = max_difference(to_host(F.U), R.U);
        EXPECT_LE(du.first, 1e-12 * du.second) << what;
      }
      const auto values = to_host(par_ilu_factors(Exec(), h).L).values;
      if (first.empty())
        first = values;
      else
        EXPECT_EQ(values, first) << what;
      par_ilu_sweep(Exec(), h, 2);
      EXPECT_LT(par_ilu_nonlinear_residual(Exec(), h), 1e-12) << what;
    }
  }
  // a pivot the ordered sweep cannot take: [[1, 1.3], [1.3, 1]] is indefinite
  const auto B = to_device<Dev>(csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1, 1.3, 1.3, 1}));
  Handle h(ParIluKind::Ic);
  h.params.sweep_order = SweepOrder::Ordered;
  par_ilu_symbolic(Exec(), h, B);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, B), BreakdownError,
                               "par_ic (ordered sweep): breakdown at row 1: non-positive pivot");
  EXPECT_FALSE(h.numeric_done());
  EXPECT_EQ(h.stats().breakdown_sweeps, 1);
}

// SweepOrder::Auto (the preconditioners' default) runs the ordered sweep where concurrent sweeps fail: on host
// backends from the first failure on, on GPUs only where the attempt whose failure would end the numeric phase fails.
// bcsstk15 (RCM order): the Jacobi-style deterministic IC sweeps break down at every shift from 1e-3 to 1, and its
// exact IC(0) exists from shift 0.1 on. Host backends: the ordered sweeps from shift 0 on stop at 0.1; GPUs: the
// concurrent sweeps run at every shift, and the ordered sweep at shift 1 gives the exact IC(0) of A + diag(A).
TEST(TEST_CATEGORY, par_ilu_auto_order_rescues_the_last_attempt) {
  const auto Ah = AsyncSparse::Test::rcm_matrix("bcsstk15");
  const auto A = to_device<Dev>(Ah);
  Handle h(ParIluKind::Ic);
  h.params.mode = SweepMode::Deterministic;
  h.params.diagonal_shift = 1e-3;
  par_ilu_symbolic(Exec(), h, A);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, A), BreakdownError, "no diagonal shift helped");
  EXPECT_FALSE(h.stats().ordered);
  h.params.sweep_order = SweepOrder::Auto;
  par_ilu_numeric(Exec(), h, A);
  ASSERT_TRUE(h.numeric_done());
  const bool gpu = Impl::is_gpu_space<Exec>();
  EXPECT_NEAR(h.stats().shift, gpu ? 1.0 : 0.1, 1e-12);
  EXPECT_EQ(h.stats().shift_retries, gpu ? 4 : 3);
  EXPECT_TRUE(h.stats().ordered);
  EXPECT_EQ(h.stats().sweeps, 1);
  EXPECT_NE(h.stats().ordered_reason.find("par_ic: breakdown at row"), std::string::npos) << h.stats().ordered_reason;
  // host backends: the unshifted attempt already ran the ordered sweep after the concurrent ones (both failed)
  EXPECT_EQ(h.stats().shift_reason.find("with ordered sweeps (sweep_order auto) too") != std::string::npos, !gpu)
      << h.stats().shift_reason;
  auto shifted = Ah;
  for (ordinal_t i = 0; i < shifted.nrows; ++i)
    for (offset_t p = shifted.row_ptr[i]; p < shifted.row_ptr[i + 1]; ++p)
      if (shifted.col_idx[p] == i) shifted.values[p] *= 1.0 + h.stats().shift;
  const auto d = max_difference(to_host(par_ilu_unscaled_factors(Exec(), h).L), Reference::ic0(shifted));
  EXPECT_LE(d.first, 1e-12 * d.second);
  // where the concurrent sweeps succeed, no ordered sweep
  const auto S = to_device<Dev>(generate("gen:lap2d:16"));
  Handle w(ParIluKind::Ic);
  w.params.sweep_order = SweepOrder::Auto;
  par_ilu_symbolic(Exec(), w, S);
  par_ilu_numeric(Exec(), w, S);
  EXPECT_FALSE(w.stats().ordered);
  EXPECT_TRUE(w.stats().ordered_reason.empty());
  EXPECT_EQ(w.stats().sweeps, 5);
  // without restarts the only attempt is the last: the deterministic ILU sweeps diverge on bcsstk14
  // (par_ilu_divergence_is_reported), the ordered sweep gives its ILU(0)
  const auto Bh = AsyncSparse::Test::rcm_matrix("bcsstk14");
  const auto B = to_device<Dev>(Bh);
  Handle u = checked_deterministic_ilu();
  u.params.sweep_order = SweepOrder::Auto;
  par_ilu_symbolic(Exec(), u, B);
  par_ilu_numeric(Exec(), u, B);
  ASSERT_TRUE(u.numeric_done());
  EXPECT_TRUE(u.stats().ordered);
  EXPECT_NE(u.stats().ordered_reason.find("par_ilu: diverged at iteration 4"), std::string::npos)
      << u.stats().ordered_reason;
  const auto R = Reference::ilu0(Bh);
  const auto F = par_ilu_unscaled_factors(Exec(), u);
  const auto dl = max_difference(to_host(F.L), R.L), du = max_difference(to_host(F.U), R.U);
  EXPECT_LE(dl.first, 1e-12 * dl.second);
  EXPECT_LE(du.first, 1e-12 * du.second);
  // where the ordered sweep fails too, both errors
  const auto C = to_device<Dev>(csr_from_triplets<double>(2, 2, {0, 0, 1, 1}, {0, 1, 0, 1}, {1, 1.3, 1.3, 1}));
  Handle c(ParIluKind::Ic);
  c.params.sweep_order = SweepOrder::Auto;
  par_ilu_symbolic(Exec(), c, C);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), c, C), BreakdownError,
                               "(the matrix is not SPD or its incomplete Cholesky factorization does not exist); with "
                               "ordered sweeps (sweep_order auto) too: par_ic (ordered sweep): breakdown at row 1: ");
  EXPECT_FALSE(c.numeric_done());
  // the preconditioners default to auto and say when the ordered sweep made their factors
  auto M = make_preconditioner<double, Dev>("par_ic", A, ParameterList{{"mode", std::string("deterministic")}});
  M->compute();
  const std::string described = std::string("ParIc(1 ordered sweep after the concurrent ones failed, deterministic, ") +
                                (gpu ? "shift 1 after 4 restarts" : "shift 0.1 after 3 restarts");
  EXPECT_NE(M->description().find(described), std::string::npos) << M->description();
  M->setParameters(ParameterList{{"mode", std::string("deterministic")}, {"sweep_order", std::string("concurrent")}});
  ASYNCSPARSE_EXPECT_THROW_MSG(M->compute(), BreakdownError, "no diagonal shift helped");
  ASYNCSPARSE_EXPECT_THROW_MSG(M->setParameters(ParameterList{{"sweep_order", std::string("sorted")}}), InvalidInput,
                               "sweep_order");
}

// Jacobi-style (deterministic, so reproducible on every backend) ILU sweeps diverge on bcsstk14 (RCM order):
// nonlinear residual 0.14, 2.6, 43 after sweeps 1..3, then growing without bound. With residual checks the guard
// stops at the first check above Params::divergence_tolerance and leaves the numeric phase incomplete; with the
// guard off the same run ends on meaningless factors (what the guard is for). The asynchronous sweeps do not
// diverge here on host backends (checked in the same test).
TEST(TEST_CATEGORY, par_ilu_divergence_is_reported) {
  const auto Ah = AsyncSparse::Test::rcm_matrix("bcsstk14");
  const auto A = to_device<Dev>(Ah);
  Handle h = checked_deterministic_ilu();
  par_ilu_symbolic(Exec(), h, A);
  try {
    par_ilu_numeric(Exec(), h, A);
    ADD_FAILURE() << "expected a DivergenceError";
  } catch (const DivergenceError& e) {
    EXPECT_EQ(e.iteration(), 4);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("par_ilu: diverged at iteration 4: nonlinear residual "), std::string::npos) << msg;
    EXPECT_NE(msg.find("after sweep 4 exceeds divergence_tolerance 1e+03"), std::string::npos) << msg;
  }
  EXPECT_FALSE(h.numeric_done());
  EXPECT_TRUE(h.stats().diverged);
  ASSERT_EQ(h.stats().residual_history.size(), 5u);  // sweeps 0..4
  EXPECT_LT(h.stats().residual_history[3], 1e3);
  EXPECT_GT(h.stats().residual_history[4], 1e3);
  h.params.divergence_tolerance = 0.0;  // guard off: all 10 sweeps run
  par_ilu_numeric(Exec(), h, A);
  EXPECT_TRUE(h.numeric_done());
  EXPECT_FALSE(h.stats().diverged);
  EXPECT_GT(h.stats().residual_history.back(), 1e6);
  h.params.divergence_tolerance = -1.0;
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), h, A), InvalidInput,
                               "divergence_tolerance must be finite and >= 0");
  if (!Impl::is_gpu_space<Exec>()) {
    Handle a(ParIluKind::Ilu);
    a.params.sweeps = 10;
    a.params.residual_interval = 1;
    par_ilu_symbolic(Exec(), a, A);
    par_ilu_numeric(Exec(), a, A);
    EXPECT_LT(a.stats().residual_history.back(), 1.0);
  }
}

TEST(TEST_CATEGORY, par_ilu_guard_adds_the_sweeps_the_residual_asks_for) {
  // Deterministic sweeps: the residual after k sweeps is a fixed sequence r_k (taken one sweep at a time with
  // par_ilu_sweep). With `base` sweeps and the guard at tolerance tol, exactly the sweeps up to the first k >= base
  // with r_k <= tol are added (at most guard_max_sweeps), and the factors are those of base + added sweeps.
  for (const auto kind : {ParIluKind::Ilu, ParIluKind::Ic}) {
    const auto Ah = kind == ParIluKind::Ilu ? nonsymmetric(9) : lap2d(9);
    const auto A = to_device<Dev>(Ah);
    const std::string what = kind == ParIluKind::Ilu ? "ILU" : "IC";
    std::vector<double> r;
    {
      Handle h(kind);
      h.params.mode = SweepMode::Deterministic;
      h.params.sweeps = 0;
      par_ilu_symbolic(Exec(), h, A);
      par_ilu_numeric(Exec(), h, A);
      for (int k = 0; k <= 30; ++k) {
        r.push_back(par_ilu_nonlinear_residual(Exec(), h));
        par_ilu_sweep(Exec(), h, 1);
      }
    }
    const int base = 2;
    auto expected_added = [&](double tol, int cap) {
      int k = base;
      while (!(r[k] <= tol) && k - base < cap) ++k;
      return k - base;
    };
    struct Guarded {
      CsrHost<double> L, U;
      Handle::Stats stats;
    };
    auto guarded = [&](double tol, int cap, int interval) {
      Handle h(kind);
      h.params.mode = SweepMode::Deterministic;
      h.params.sweeps = base;
      h.params.guard_tolerance = tol;
      h.params.guard_max_sweeps = cap;
      h.params.residual_interval = interval;
      par_ilu_symbolic(Exec(), h, A);
      par_ilu_numeric(Exec(), h, A);
      const auto F = par_ilu_factors(Exec(), h);
      return Guarded{to_host(F.L), to_host(F.U), h.stats()};
    };
    // a tolerance halfway (geometrically) between r_6 and r_7: the guard stops at the first k >= base below it
    ASSERT_LT(r[7], r[6]) << what;
    const double tol = std::sqrt(r[6] * r[7]);
    const int added = expected_added(tol, 20);
    EXPECT_EQ(added, 5) << what;  // r decreases on these matrices: 5 sweeps after the 2 asked for
    for (int interval : {0, 1}) {
      const auto g = guarded(tol, 20, interval);
      EXPECT_EQ(g.stats.guard_sweeps, added) << what;
      EXPECT_EQ(g.stats.sweeps, base + added) << what;
      EXPECT_EQ(g.stats.guard_residual, r[base + added]) << what;
      EXPECT_LE(g.stats.guard_residual, tol) << what;
      // every residual was taken once: the guard reuses the check of run_sweeps at the same sweep count
      const std::size_t checks = interval == 1 ? static_cast<std::size_t>(base + added + 1) : added + 1u;
      EXPECT_EQ(g.stats.residual_history.size(), checks) << what;
      EXPECT_EQ(g.stats.residual_history.back(), r[base + added]) << what;
      const auto ref = run(Ah, kind, base + added, SweepMode::Deterministic);
      expect_same_bits(g.L, ref.L, what + " guarded L");
      expect_same_bits(g.U, ref.U, what + " guarded U");
    }
    // the cap: one sweep at most, the residual stays above the tolerance and is reported as it is
    const auto c = guarded(tol, 1, 0);
    EXPECT_EQ(c.stats.guard_sweeps, 1) << what;
    EXPECT_EQ(c.stats.sweeps, base + 1) << what;
    EXPECT_EQ(c.stats.guard_residual, r[base + 1]) << what;
    EXPECT_GT(c.stats.guard_residual, tol) << what;
    // already below the tolerance: one check, no sweep
    const auto m = guarded(2 * r[base], 20, 0);
    EXPECT_EQ(m.stats.guard_sweeps, 0) << what;
    EXPECT_EQ(m.stats.sweeps, base) << what;
    EXPECT_EQ(m.stats.guard_residual, r[base]) << what;
    EXPECT_EQ(m.stats.residual_history.size(), 1u) << what;
    // off (the default): nothing added, no residual taken
    const auto o = guarded(0.0, 20, 0);
    EXPECT_EQ(o.stats.guard_sweeps, 0) << what;
    EXPECT_EQ(o.stats.guard_residual, -1.0) << what;
    EXPECT_TRUE(o.stats.residual_history.empty()) << what;
  }
  // asynchronous sweeps: whatever the run, the guard ends below its tolerance (the cap is far away here), and the
  // residual it reports is the one of the factors it leaves. From the initial guess (0 sweeps): the guard runs
  // every sweep (one on a single thread, where an in-order asynchronous sweep is the exact IC(0)).
  const auto A = to_device<Dev>(lap2d(12));
  for (int rep = 0; rep < 3; ++rep) {
    Handle h(ParIluKind::Ic);
    h.params.sweeps = 0;
    h.params.guard_tolerance = 1e-6;
    h.params.guard_max_sweeps = 200;
    h.launch.seed = static_cast<std::uint64_t>(rep);
    par_ilu_symbolic(Exec(), h, A);
    par_ilu_numeric(Exec(), h, A);
    EXPECT_GT(h.stats().guard_sweeps, 0);
    EXPECT_LT(h.stats().guard_sweeps, 200);
    EXPECT_LE(h.stats().guard_residual, 1e-6);
    EXPECT_EQ(h.stats().sweeps, h.stats().guard_sweeps);
    EXPECT_DOUBLE_EQ(par_ilu_nonlinear_residual(Exec(), h), h.stats().guard_residual);
  }
  // bad guard parameters, named
  Handle p(ParIluKind::Ic);
  par_ilu_symbolic(Exec(), p, A);
  for (double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    p.params.guard_tolerance = bad;
    ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), p, A), InvalidInput,
                                 "par_ic_numeric: Params::guard_tolerance must be finite and >= 0, got ");
  }
  p.params.guard_tolerance = 1e-3;
  p.params.guard_max_sweeps = -1;
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), p, A), InvalidInput,
                               "par_ic_numeric: Params::guard_max_sweeps must be >= 0, got -1");
}

TEST(TEST_CATEGORY, par_ilu_bad_inputs) {
  auto sym = [](Handle& h, const CsrHost<double>& A) { par_ilu_symbolic(Exec(), h, to_device<Dev>(A)); };
  Handle ilu(ParIluKind::Ilu), ic(ParIluKind::Ic);
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(ilu, csr_from_triplets<double>(2, 3, {0, 1}, {0, 1}, {1.0, 1.0})), InvalidInput,
                               "par_ilu_symbolic");
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(ilu, csr_from_triplets<double>(2, 3, {0, 1}, {0, 1}, {1.0, 1.0})), InvalidInput,
                               "square");
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(ilu, CsrHost<double>(0, 0)), InvalidInput, "empty");
  // missing diagonal in row 1, zero diagonal in row 2
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(ilu, csr_from_triplets<double>(3, 3, {0, 1, 2}, {0, 0, 2}, {1.0, 1.0, 1.0})),
                               InvalidInput, "row 1");
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(ilu, csr_from_triplets<double>(3, 3, {0, 1, 2}, {0, 1, 2}, {1.0, 1.0, 0.0})),
                               InvalidInput, "row 2");
  auto nan = lap2d(3);
  nan.values[7] = std::numeric_limits<double>::quiet_NaN();
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(ilu, nan), InvalidInput, "par_ilu_symbolic");
  auto unsorted = lap2d(3);
  std::swap(unsorted.col_idx[0], unsorted.col_idx[1]);
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(ilu, unsorted), InvalidInput, "row 0");
  // IC: not symmetric, non-positive diagonal
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(ic, nonsymmetric(4)), InvalidInput, "par_ic_symbolic");
  auto neg = lap2d(3);
  for (int k = neg.row_ptr[4]; k < neg.row_ptr[5]; ++k)
    if (neg.col_idx[k] == 4) neg.values[k] = -4.0;
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(ic, neg), InvalidInput, "row 4 has a non-positive diagonal");
  // parameters
  Handle p(ParIluKind::Ilu);
  p.params.sweeps = -1;
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(p, lap2d(3)), InvalidInput, "Params::sweeps must be >= 0");
  p.params.sweeps = 1;
  p.params.fill_level = -2;
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(p, lap2d(3)), InvalidInput, "fill_level");
  p.params.fill_level = 0;
  p.params.ordering = TaskOrdering::MeshBlocked;
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(p, lap2d(3)), InvalidInput, "no mesh given");
  p.params.mesh = MeshBlocking{4, 4, 1, 2};
  ASYNCSPARSE_EXPECT_THROW_MSG(sym(p, lap2d(3)), InvalidInput, "has 16 points, the matrix 9 rows");
  // numeric: before symbolic, other pattern, values that became bad
  Handle q(ParIluKind::Ic);
  const auto A = to_device<Dev>(lap2d(4));
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), q, A), InvalidInput, "par_ilu_symbolic must be called first");
  par_ilu_symbolic(Exec(), q, A);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), q, to_device<Dev>(lap2d(5))), InvalidInput,
                               "does not have the pattern");
  std::vector<int> perm(16);
  for (int i = 0; i < 16; ++i) perm[i] = (5 * i + 3) % 16;
  const auto Ap = permute_symmetric(lap2d(4), perm);  // same size and nnz, other pattern
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), q, to_device<Dev>(Ap)), InvalidInput,
                               "does not have the pattern");
  auto Hn = lap2d(4);
  Hn.values[3] = std::numeric_limits<double>::infinity();
  auto An = to_device<Dev>(Hn);
  An = Crs<double, Dev>("An", 16, 16, An.nnz(), An.values, A.graph.row_map, A.graph.entries);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), q, An), InvalidInput, "par_ic_numeric: row 1 has a non-finite");
  auto Ha = lap2d(4);
  Ha.values[1] = -0.5;  // a(0,1) != a(1,0)
  auto Aa = to_device<Dev>(Ha);
  Aa = Crs<double, Dev>("Aa", 16, 16, Aa.nnz(), Aa.values, A.graph.row_map, A.graph.entries);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), q, Aa), InvalidInput, "a(1, 0) differs from its transposed");
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_sweep(Exec(), q, 1), InvalidInput, "par_ilu_numeric must be called first");
  Handle t(ParIluKind::Ic);
  t.launch.team_size = 100000;
  par_ilu_symbolic(Exec(), t, A);
  ASYNCSPARSE_EXPECT_THROW_MSG(par_ilu_numeric(Exec(), t, A), InvalidInput, "team_size");
  EXPECT_EQ(sweep_mode_from_string("deterministic"), SweepMode::Deterministic);
  ASYNCSPARSE_EXPECT_THROW_MSG(sweep_mode_from_string("sync"), InvalidInput, "valid: async, deterministic");
  ASYNCSPARSE_EXPECT_THROW_MSG(task_ordering_from_string("rcm"), InvalidInput, "valid: row-major");
}

TEST(TEST_CATEGORY, par_ilu_task_orderings) {
  // 4 x 4 mesh, 2 x 2 blocks: block (0,0) = rows 0 1 4 5, then block (1,0) = 2 3 6 7, ...
  const auto rows = mesh_blocked_row_order(MeshBlocking{4, 4, 1, 2}, 16);
  EXPECT_EQ(rows, (std::vector<int>{0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}));
  const auto rows3 = mesh_blocked_row_order(MeshBlocking{3, 3, 3, 2}, 27);  // uneven blocks at the border
  EXPECT_EQ(std::set<int>(rows3.begin(), rows3.end()).size(), 27u);
  EXPECT_EQ((std::vector<int>(rows3.begin(), rows3.begin() + 8)), (std::vector<int>{0, 1, 3, 4, 9, 10, 12, 13}));
  const auto A = lap2d(5);
  auto perm = task_order(A.row_ptr, TaskOrdering::Random, MeshBlocking(), 4);
  EXPECT_EQ(perm, task_order(A.row_ptr, TaskOrdering::Random, MeshBlocking(), 4));
  EXPECT_NE(perm, task_order(A.row_ptr, TaskOrdering::RowMajor));
  std::sort(perm.begin(), perm.end());
  EXPECT_EQ(perm, task_order(A.row_ptr, TaskOrdering::RowMajor));
  const auto m = mesh_from_generator_spec("gen:lap3d27:6", 3);
  EXPECT_EQ(m.nx * m.ny * m.nz, 216);
  EXPECT_EQ(m.block, 3);
  EXPECT_FALSE(mesh_from_generator_spec("fv1.mtx.gz").valid());
  // the asynchronous sweeps converge under every ordering
  for (auto ord : {TaskOrdering::RowMajor, TaskOrdering::Random, TaskOrdering::MeshBlocked}) {
    const auto B = lap2d(20);
    Handle h(ParIluKind::Ic);
    h.params.ordering = ord;
    h.params.mesh = MeshBlocking{20, 20, 1, 5};
    h.params.sweeps = 100;
    h.params.tolerance = 1e-10;
    const auto Bd = to_device<Dev>(B);
    par_ilu_symbolic(Exec(), h, Bd);
    par_ilu_numeric(Exec(), h, Bd);
    EXPECT_TRUE(h.stats().converged) << to_string(ord);
  }
}

// PCG iterations with the preconditioner after 5 sweeps are those of the exact IC(0) (Table 2 of the paper).
TEST(TEST_CATEGORY, par_ic_preconditioner_in_pcg) {
  const auto Ah = lap2d(40);
  const auto A = to_device<Dev>(Ah);
  SolverParams sp;
  sp.tol = 1e-6;
  Kokkos::View<double*, Dev> b("b", Ah.nrows), x("x", Ah.nrows);
  Kokkos::deep_copy(b, 1.0);
  auto pcg = [&](Preconditioner<double, Dev>* M) {
    Kokkos::deep_copy(x, 0.0);
    auto r = cg<double, Dev>(A, b, x, M, sp);
    EXPECT_TRUE(r.converged()) << r.message;
    return r.iterations;
  };
  // exact IC(0) of the scaled matrix, applied with the scaling
  const auto sc = scale_unit_diagonal(Ah);
  const auto L0 = Reference::ic0(sc.A);
  IncompleteFactorPreconditioner<double, Dev> exact(A, to_device<Dev>(L0), to_device<Dev>(Reference::transpose(L0)),
                                                    false, to_device<Dev>(sc.s));
  exact.compute();
  const int it_exact = pcg(&exact);
  const std::string exact_tri = "exact";  // the comparison with the exact IC(0) needs exact triangular solves
  auto M = make_preconditioner<double, Dev>("par_ic", A, ParameterList{{"sweeps", 5}, {"tri_solve", exact_tri}});
  M->compute();
  const int it5 = pcg(M.get());
  // Five sweeps are as good as the exact factors (within one iteration). In order (host threads) they are the exact
  // IC(0) here; with every task of this 1,600-row grid running at once (GPUs: Jacobi-like sweeps) the factors are
  // not yet at the fixed point and the count moves either way — 26-27 against 29 in 6 of 40 runs on an H200 —
  // so only the side that would be a defect is asserted for five sweeps, and equality once the sweeps converge.
  EXPECT_LE(it5, it_exact + 1) << "exact " << it_exact << ", 5 sweeps " << it5;
  if (!Impl::is_gpu_space<Exec>()) EXPECT_GE(it5, it_exact - 1) << "exact " << it_exact << ", 5 sweeps " << it5;
  M->setParameters(ParameterList{{"sweeps", 100}, {"tolerance", 1e-12}, {"tri_solve", exact_tri}});
  M->compute();
  const int itc = pcg(M.get());
  EXPECT_LE(std::abs(itc - it_exact), 1) << "exact " << it_exact << ", converged sweeps " << itc;
  M->setParameters(ParameterList{{"sweeps", 0}, {"tri_solve", exact_tri}});
  M->compute();
  EXPECT_GT(pcg(M.get()), it_exact);
  M->setParameters(ParameterList{{"sweeps", 5}, {"tri_solve", std::string("jacobi")}, {"tri_solve_sweeps", 6}});
  M->compute();
  const int itj = pcg(M.get());
  EXPECT_LT(itj, 3 * it_exact);
  EXPECT_NE(M->description().find("jacobi(6) tri-solve"), std::string::npos) << M->description();
  // time stepping: setMatrix with the same pattern, reuse the factors
  auto* P = dynamic_cast<ParIc<double, Dev>*>(M.get());
  ASSERT_NE(P, nullptr);
  M->setParameters(ParameterList{{"sweeps", 5}, {"reuse_factors", true}, {"tri_solve", exact_tri}});
  M->compute();
  const int inits = M->getNumInitialize();
  M->setMatrix(A);
  M->compute();
  EXPECT_EQ(M->getNumInitialize(), inits);  // same graph: no new symbolic phase
  EXPECT_EQ(P->handle().stats().sweeps, 5);
  EXPECT_LE(std::abs(pcg(M.get()) - it_exact), 1);
  // GMRES with ParIlu on a nonsymmetric matrix
  const auto N = to_device<Dev>(nonsymmetric(30));
  auto G = make_preconditioner<double, Dev>("par_ilu", N,
                                            ParameterList{{"sweeps", 3}, {"mode", std::string("deterministic")}});
  G->compute();
  Kokkos::View<double*, Dev> bn("bn", N.numRows()), xn("xn", N.numRows());
  Kokkos::deep_copy(bn, 1.0);
  const auto plain = gmres<double, Dev>(N, bn, xn, nullptr, sp);
  Kokkos::deep_copy(xn, 0.0);
  const auto prec = gmres<double, Dev>(N, bn, xn, G.get(), sp);
  EXPECT_TRUE(prec.converged());
  EXPECT_LT(prec.iterations, plain.iterations / 2);
  ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>("par_ic", A, ParameterList{{"sweep", 5}})),
                               InvalidInput, "unknown parameter 'sweep'");
  ASYNCSPARSE_EXPECT_THROW_MSG(
      (make_preconditioner<double, Dev>("par_ic", A, ParameterList{{"mode", std::string("sync")}})), InvalidInput,
      "is not one of");
}

// Every triangular-solve mode through the preconditioner parameters: the apply equals S U^{-1} L^{-1} S x of the
// preconditioner's own factors (exact mode, host reference), PCG converges with each mode, and the description and
// statistics name what ran.
TEST(TEST_CATEGORY, par_ic_tri_solve_modes_in_pcg) {
  const auto Ah = lap2d(32);
  const auto A = to_device<Dev>(Ah);
  SolverParams sp;
  sp.tol = 1e-6;
  Kokkos::View<double*, Dev> b("b", Ah.nrows), x("x", Ah.nrows);
  Kokkos::deep_copy(b, 1.0);
  auto pcg = [&](Preconditioner<double, Dev>* P) {
    Kokkos::deep_copy(x, 0.0);
    auto r = cg<double, Dev>(A, b, x, P, sp);
    EXPECT_TRUE(r.converged()) << r.message;
    return r.iterations;
  };
  using PL = ParameterList;
  const std::string det = "deterministic";
  auto M = make_preconditioner<double, Dev>("par_ic", A,
                                            PL{{"sweeps", 3}, {"mode", det}, {"tri_solve", std::string("exact")}});
  M->compute();
  auto* P = dynamic_cast<ParIc<double, Dev>*>(M.get());
  ASSERT_NE(P, nullptr);
  // the apply against the host: z = S U^{-1} L^{-1} S x with the factors and scaling of the handle
  const auto F = par_ilu_factors(Exec(), P->handle());
  const auto Lh = to_host(F.L), Uh = to_host(F.U);
  const auto s = to_std_vector(P->handle().scaling());
  std::vector<double> xv(Ah.nrows);
  for (int i = 0; i < Ah.nrows; ++i) xv[i] = std::sin(0.1 * i) + 1.5;
  std::vector<double> t(Ah.nrows);
  for (int i = 0; i < Ah.nrows; ++i) t[i] = s[i] * xv[i];
  auto z_ref = Reference::upper_solve(Uh, Reference::lower_solve(Lh, t, false));
  for (int i = 0; i < Ah.nrows; ++i) z_ref[i] *= s[i];
  Kokkos::View<double*, Dev> xd = to_device<Dev>(xv), zd("z", Ah.nrows);
  M->apply(xd, zd);
  const auto z = to_std_vector(zd);
  double err = 0, ref = 0;
  for (int i = 0; i < Ah.nrows; ++i)
    err = std::max(err, std::abs(z[i] - z_ref[i])), ref = std::max(ref, std::abs(z_ref[i]));
  EXPECT_LT(err, 1e-12 * ref);
  const int it_exact = pcg(M.get());
  EXPECT_NE(M->description().find("exact("), std::string::npos) << M->description();
  // the other modes
  struct Mode {
    PL params;
    std::string shows;
  };
  const std::vector<Mode> modes = {
      {PL{{"tri_solve", std::string("jacobi")}}, "jacobi(3) tri-solve"},
      {PL{{"tri_solve", std::string("jacobi")}, {"tri_solve_sweeps", 1}}, "jacobi(1) tri-solve"},
      {PL{{"tri_solve", std::string("jacobi_adaptive")}, {"tri_solve_tolerance", 1e-3}},
       "jacobi_adaptive(<=10) tri-solve"},
      {PL{{"tri_solve", std::string("jacobi_adaptive")}, {"tri_solve_sweeps", 40}, {"tri_solve_check_interval", 2}},
       "jacobi_adaptive(<=40) tri-solve"},
      {PL{{"tri_solve", std::string("isai")}, {"tri_solve_isai_power", 1}}, "isai tri-solve"},
      {PL{{"tri_solve", std::string("isai")}, {"tri_solve_sweeps", 2}, {"tri_solve_isai_power", 1}},
       "isai+2 tri-solve"},
      {PL{{"tri_solve", std::string("isai")}}, "isai^2 tri-solve"},  // the rule's pattern for the 5-point grid
      {PL{{"tri_solve", std::string("isai")}, {"tri_solve_isai_power", 3}}, "isai^3 tri-solve"},
      {PL{}, "auto: "},
  };
  for (const auto& m : modes) {
    PL l = m.params;
    l.set("sweeps", 3).set("mode", det);
    M->setParameters(l);
    M->compute();
    EXPECT_NE(M->description().find(m.shows), std::string::npos) << M->description();
    const int it = pcg(M.get());
    EXPECT_LE(it, 3 * it_exact) << M->description();
    EXPECT_GE(2 * it, it_exact) << M->description();
    const auto& st = P->lower_solve_stats();
    EXPECT_GT(st.solves, 0);
    if (st.kind == TriSolveKind::JacobiAdaptive) {
      EXPECT_GT(st.checks, 0);
      EXPECT_GT(st.last_relative_residual, 0);
    }
    if (m.params.values().empty()) {
      EXPECT_FALSE(st.reason.empty());
      EXPECT_EQ(P->upper_solve_stats().kind, st.kind);  // one decision for both triangles
    }
  }
  // ParIlu with ISAI in GMRES (unit lower factor with the scaling folded in)
  const auto N = to_device<Dev>(nonsymmetric(24));
  auto G = make_preconditioner<double, Dev>("par_ilu", N,
                                            PL{{"sweeps", 3}, {"mode", det}, {"tri_solve", std::string("isai")}});
  G->compute();
  Kokkos::View<double*, Dev> bn("bn", N.numRows()), xn("xn", N.numRows());
  Kokkos::deep_copy(bn, 1.0);
  const auto plain = gmres<double, Dev>(N, bn, xn, nullptr, sp);
  Kokkos::deep_copy(xn, 0.0);
  const auto prec = gmres<double, Dev>(N, bn, xn, G.get(), sp);
  EXPECT_TRUE(prec.converged());
  EXPECT_LT(prec.iterations, plain.iterations / 2);
  // parameter errors
  ASYNCSPARSE_EXPECT_THROW_MSG(
      (make_preconditioner<double, Dev>("par_ic", A, PL{{"tri_solve", std::string("gauss_seidel")}})), InvalidInput,
      "parameter 'tri_solve' = 'gauss_seidel' is not one of");
  ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>("par_ic", A, PL{{"tri_solve_sweeps", -2}})),
                               InvalidInput,
                               "ParIc: parameter 'tri_solve_sweeps' must be >= 0 (or -1: default), got -2");
  ASYNCSPARSE_EXPECT_THROW_MSG(
      (make_preconditioner<double, Dev>("par_ic", A,
                                        PL{{"tri_solve", std::string("jacobi_adaptive")}, {"tri_solve_sweeps", 0}})),
      InvalidInput, "must be >= 1 for jacobi_adaptive");
  ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>("par_ilut", A, PL{{"tri_solve_tolerance", 0.0}})),
                               InvalidInput, "ParIlut: parameter 'tri_solve_tolerance' must be > 0");
  ASYNCSPARSE_EXPECT_THROW_MSG((make_preconditioner<double, Dev>("par_ict", A, PL{{"tri_solve_check_interval", 0}})),
                               InvalidInput, "ParIct: parameter 'tri_solve_check_interval' must be >= 1");
}

}  // namespace test_par_ilu
