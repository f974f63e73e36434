// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Recording launches in a CUDA graph and replaying them (Impl::GraphReplay), and the fused CG that replays each
// iteration's preconditioner and product (SolverParams::graph_from_iteration): the same iterates bit for bit, the
// replays counted, and the cases that must not record.
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/exec/AsyncSparse_graph_replay.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/solvers/AsyncSparse_cg.hpp>
#include <support/TestHelpers.hpp>

#include <string>
#include <vector>

namespace test_graph_replay {
using namespace AsyncSparse;
using Dev = TEST_DEVICE;
using Exec = typename Dev::execution_space;
using V = Kokkos::View<double*, Dev>;

constexpr bool cuda_space() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same<Exec, Kokkos::Cuda>::value;
#else
  return false;
#endif
}

/// Whether the default instance launches on the legacy default stream (CUDA with Kokkos 3.4).
template <class E>
bool default_is_legacy_stream(const E&) {
  return false;
}
#if defined(KOKKOS_ENABLE_CUDA)
inline bool default_is_legacy_stream(const Kokkos::Cuda&) { return Kokkos::Cuda().cuda_stream() == nullptr; }
#endif

void add_one(const V& x, const Exec& exec) {
  Kokkos::parallel_for(
      "test_graph_replay::add_one", Impl::RangePolicy<Exec>(exec, 0, static_cast<int>(x.extent(0))),
      KOKKOS_LAMBDA(const int i) { x(i) += 1.0; });
}

TEST(TEST_CATEGORY, graph_replay_records_once_and_replays) {
  const V x("x", 1000);
  Kokkos::fence();  // x's initialisation, before work on GraphReplay's stream
  Impl::GraphReplay<Exec> g;
  const Exec inst = Impl::GraphReplay<Exec>::instance();
  const bool recorded = g.record(inst, [&] {
    add_one(x, Impl::launch_instance<Exec>());
    add_one(x, Impl::launch_instance<Exec>());
  });
  ASSERT_EQ(recorded, cuda_space() && Impl::GraphReplay<Exec>::available());
  inst.fence();
  EXPECT_EQ(to_std_vector(x)[0], 0.0) << "recording must not run the work";
  if (!recorded) {
    EXPECT_FALSE(g.recorded());
    EXPECT_THROW(g.replay(inst), Error);
    return;
  }
  g.replay(inst);
  g.replay(inst);
  inst.fence();
  const auto h = to_std_vector(x);
  for (double v : h) ASSERT_EQ(v, 4.0);
}

TEST(TEST_CATEGORY, graph_replay_refuses_work_it_cannot_capture) {
  if (!cuda_space() || !Impl::GraphReplay<Exec>::available()) GTEST_SKIP() << "CUDA graphs only";
  const V x("x", 1000);
  Kokkos::fence();  // x's initialisation, before work on GraphReplay's stream
  const Exec inst = Impl::GraphReplay<Exec>::instance();
  Impl::GraphReplay<Exec> g;
  // Kokkos 3.4: the default instance is the legacy stream; a launch there invalidates the capture of the blocking
  // stream GraphReplay records on, and nothing runs (with Kokkos 4 it would run at once, outside the graph)
  if (default_is_legacy_stream(inst)) {
    EXPECT_FALSE(g.record(inst, [&] {
      add_one(x, Impl::launch_instance<Exec>());
      add_one(x, Exec());
    }));
    EXPECT_FALSE(g.recorded());
  }
  // a host synchronisation inside the work
  EXPECT_FALSE(g.record(inst, [&] {
    add_one(x, Impl::launch_instance<Exec>());
    Impl::launch_instance<Exec>().fence();
  }));
  Kokkos::fence();
  EXPECT_EQ(to_std_vector(x)[0], 0.0);
  // the stream is usable afterwards
  ASSERT_TRUE(g.record(inst, [&] { add_one(x, Impl::launch_instance<Exec>()); }));
  g.replay(inst);
  inst.fence();
  EXPECT_EQ(to_std_vector(x)[999], 1.0);
}

struct Solve {
  SolverResult res;
  std::vector<double> x;
  int applies = 0;
};

Solve solve(Preconditioner<double, Dev>& P, const Crs<double, Dev>& A, int graph_from) {
  const int n = A.numRows();
  const V b("b", n), x("x", n);
  Kokkos::deep_copy(b, 1.0);
  SolverParams p;
  p.tol = 1e-10;
  p.max_iterations = 500;
  p.graph_from_iteration = graph_from;
  p.implementation = KrylovImplementation::Fused;
  const int before = P.getNumApply();
  Solve s;
  s.res = cg<double, Dev>(A, b, x, &P, p);
  s.x = to_std_vector(x);
  s.applies = P.getNumApply() - before;
  return s;
}

TEST(TEST_CATEGORY, cg_graph_replay_gives_the_same_iterates) {
  const auto A40 = to_device<Dev>(lap2d(40)), A20 = to_device<Dev>(lap2d(20));
  // the exact solve in one launch of one team (forced on every backend; a 20 x 20 grid's triangles fit)
  for (const std::string tri :
       {"jacobi,tri_solve_sweeps=3", "jacobi,tri_solve_sweeps=1", "isai", "exact,tri_solve_one_team_entries=1000000"}) {
    SCOPED_TRACE(tri);
    const auto& A = tri.rfind("exact", 0) == 0 ? A20 : A40;
    auto P = make_preconditioner<double, Dev>("par_ic", A, parse_parameter_string("tri_solve=" + tri));
    P->compute();
    // ISAI replays where its product is the library's kernel (one thread per row: GPUs), not Kokkos-Kernels' spmv
    const bool replayable = tri != "isai" || Impl::is_gpu_space<Exec>();
    ASSERT_EQ(P->replayable(), replayable);
    const Solve plain = solve(*P, A, 0);
    ASSERT_EQ(plain.res.status, SolverStatus::Converged) << plain.res.message;
    EXPECT_EQ(plain.res.graph_replays, 0);
    const bool graphs = replayable && cuda_space() && Impl::GraphReplay<Exec>::available();
    for (int from : {1, kGraphFromIteration}) {
      SCOPED_TRACE(from);
      const Solve g = solve(*P, A, from);
      ASSERT_EQ(g.res.status, SolverStatus::Converged) << g.res.message;
      ASSERT_EQ(g.res.iterations, plain.res.iterations);
      EXPECT_EQ(g.res.residual_history, plain.res.residual_history) << "not the same iterates bit for bit";
      EXPECT_EQ(g.x, plain.x);
      EXPECT_EQ(g.res.final_relative_residual, plain.res.final_relative_residual);
      // every iteration launches the next one's work (the last one speculatively); from `from` on as a replay
      EXPECT_EQ(g.res.graph_replays, graphs ? g.res.iterations - from + 1 : 0);
      EXPECT_EQ(g.applies, plain.applies) << "replayed applications are counted as applications";
    }
  }
}

TEST(TEST_CATEGORY, cg_graph_replay_only_for_replayable_preconditioners) {
  const auto A = to_device<Dev>(lap2d(24));
  // exact solves other than in one team (cuSPARSE, level sets, serial substitution) do not replay
  auto exact = make_preconditioner<double, Dev>("par_ic", A,
                                                parse_parameter_string("tri_solve=exact,tri_solve_one_team_entries=0"));
  auto adaptive = make_preconditioner<double, Dev>("par_ic", A, parse_parameter_string("tri_solve=jacobi_adaptive"));
  auto diag = make_preconditioner<double, Dev>("jacobi", A);
  EXPECT_FALSE(exact->replayable()) << "before compute()";
  for (auto* P : {exact.get(), adaptive.get(), diag.get()}) {
    P->compute();
    EXPECT_FALSE(P->replayable()) << P->description();
    const Solve s = solve(*P, A, 1);
    EXPECT_EQ(s.res.status, SolverStatus::Converged) << P->description() << ": " << s.res.message;
    EXPECT_EQ(s.res.graph_replays, 0) << P->description();
  }
  SolverParams p;
  p.graph_from_iteration = -1;
  const V b("b", A.numRows()), x("x", A.numRows());
  Kokkos::deep_copy(b, 1.0);
  EXPECT_THROW((cg<double, Dev>(A, b, x, diag.get(), p)), InvalidInput);
}

}  // namespace test_graph_replay
