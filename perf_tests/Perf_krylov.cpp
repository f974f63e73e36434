// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Krylov iterations against the matrix-vector product they are built on, in the same process: the time of
// one CG iteration (unpreconditioned and Jacobi-preconditioned; fused kernels and the textbook Reference
// loop) and of one GMRES(30) iteration, on the 2D 5-point and 3D 27-point Laplacians, with the counter
// iteration_over_spmv = iteration time / the fastest vendor or Kokkos-Kernels spmv of this run on that matrix
// (krylov_spmv/<matrix>/kokkos_kernels, kokkos_kernels_handle or cusparse). krylov_spmv also times AsyncSparse's own
// CRS product (the fused kernel without and with its pᵀAp reduction), which must not be slower than Kokkos-Kernels',
// and on GPUs the product-and-dot of the lane-group kernel with each vector length (asyncsparse_dot_vl<k>: lanes per
// row, team size by the launch rule) against the default launch (asyncsparse_dot: one thread per row for short rows,
// counter row_per_thread = 1; otherwise the rule's vector length, counter vector_length), and the product alone with
// one thread per row forced, in Kokkos' default blocks and in 256-thread blocks (asyncsparse_row_default_blocks,
// asyncsparse_row_256_blocks: the choice of SpmvLaunch::bounded_blocks). On CUDA builds
// krylov_spmv/<matrix>/cusparse times cuSPARSE's generic SpMV (CSR, default algorithm, its buffer and descriptors made
// outside the timed region) on the same matrix, and AsyncSparse's products get the counter time_over_cusparse. With
// Kokkos-Kernels >= 4.3, krylov_spmv/<matrix>/kokkos_kernels_handle calls its spmv with an SPMVHandle made once (built
// with the cuSPARSE TPL, both Kokkos-Kernels variants call cuSPARSE; without the handle, its descriptors and buffer are
// made per call).
//
// pcg_kernel/<matrix>/<kernel> times each kernel of a CG iteration alone, launched R times back to back with one fence
// at the end (as the fused loop issues them; no synchronisation per kernel), with the counter GB/s from the bytes
// the kernel must move at least (each vector and matrix array read or written once): copy (y = x, the bandwidth
// reference of this run), dot (rᵀq into a device scalar, as preconditioned CG's rᵀz without apply_dot), cg_update,
// cg_update_diagonal, direction_spmv (p = z + beta p, q = A p, pᵀq), direction_product (the same without pᵀq) and, for
// the default ParIC preconditioner (make_preconditioner("par_ic"); counter isai = 1 where the auto rule takes ISAI
// solves, two products, and GB/s only then), par_ic_apply (z = M⁻¹ r)
// and par_ic_apply_dot (the same with rᵀz, what the fused loop calls). cg_iteration/<matrix>/fused_par_ic is the
// iteration of that preconditioned solve. L2D_small (the 128 x 128 grid) shows the launch-bound regime of the
// shared matrices.
//
// Iteration time: a solve of K iterations (b = ones, x0 = 0, a tolerance it cannot reach) and the per-iteration
// times recorded by the solver: (t_K − t_1) / (K − 1), i.e. the steady-state period of the loop without its
// set-up and the final true-residual check. The spmv is timed alone with a fence before and after (as in
// Perf_spmv), so the ratio includes the one synchronisation an iteration needs.
//
//   AsyncSparse_Perf_krylov                         (ASYNCSPARSE_PERF_SCALE=paper: L2D 1024^2, L3D 64^3)
#include "PerfHelpers.hpp"

#include <KokkosSparse_spmv.hpp>

#include <asyncsparse/AsyncSparse_config.hpp>
#include <asyncsparse/exec/AsyncSparse_graph_replay.hpp>
#include <asyncsparse/linalg/AsyncSparse_krylov_kernels.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_preconditioner.hpp>
#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>
#if ASYNCSPARSE_HAVE_CUSPARSE
#include <asyncsparse/factorization/AsyncSparse_cusparse_baseline.hpp>  // Impl::cusparse_check, Impl::cuda_check
#endif

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;
using Vec = Kokkos::View<double*, Device>;

/// Seconds of one Kokkos-Kernels spmv per matrix, measured by krylov_spmv/<matrix>/kokkos_kernels.
std::map<std::string, double>& spmv_seconds() {
  static std::map<std::string, double> m;
  return m;
}

const Crs<double, Device>& device_matrix(const std::string& name) {
  static std::map<std::string, Crs<double, Device>> cache;
  static bool hooked = false;
  if (!hooked) {  // the cached Views must go before Kokkos::finalize
    Kokkos::push_finalize_hook([] { cache.clear(); });
    hooked = true;
  }
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, to_device<Device>(host_matrix(name))).first;
  return it->second;
}

/// Seconds of one cuSPARSE SpMV per matrix (CUDA builds), measured by krylov_spmv/<matrix>/cusparse.
std::map<std::string, double>& cusparse_seconds() {
  static std::map<std::string, double> m;
  return m;
}

/// The fastest vendor / Kokkos-Kernels product per matrix (kokkos_kernels, kokkos_kernels_handle, cusparse): the
/// "one spmv" an iteration is compared with (iteration_over_spmv).
std::map<std::string, double>& best_spmv_seconds() {
  static std::map<std::string, double> m;
  return m;
}
void note_best_spmv(const std::string& name, double t) {
  auto it = best_spmv_seconds().find(name);
  if (it == best_spmv_seconds().end() || t < it->second) best_spmv_seconds()[name] = t;
}

#if ASYNCSPARSE_HAVE_CUSPARSE
/// y = A x by cuSPARSE's generic SpMV on Kokkos' stream; handle, descriptors and buffer live as long as the object.
class CusparseSpmv {
 public:
  CusparseSpmv(const Crs<double, Device>& A, const Vec& x, const Vec& y)
      : rows_(row_map_as_int(A.graph.row_map, A.nnz(), "krylov_spmv/cusparse")) {
    try {
      create(A, x, y);
    } catch (...) {
      release();  // the destructor does not run for a constructor that throws
      throw;
    }
  }
  ~CusparseSpmv() { release(); }
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;
  void apply() {
    Impl::cusparse_check(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, A_, x_, &zero_, y_, CUDA_R_64F,
                                      CUSPARSE_SPMV_ALG_DEFAULT, buffer_.data()),
                         "cusparseSpMV");
  }

 private:
  void create(const Crs<double, Device>& A, const Vec& x, const Vec& y) {
    Impl::cusparse_check(cusparseCreate(&handle_), "cusparseCreate");
    Impl::cusparse_check(cusparseSetStream(handle_, Kokkos::Cuda().cuda_stream()), "cusparseSetStream");
    Impl::cusparse_check(
        cusparseCreateCsr(&A_, A.numRows(), A.numCols(), A.nnz(), const_cast<int*>(rows_.data()),
                          const_cast<int*>(A.graph.entries.data()), const_cast<double*>(A.values.data()),
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
        "cusparseCreateCsr");
    Impl::cusparse_check(cusparseCreateDnVec(&x_, x.extent(0), x.data(), CUDA_R_64F), "cusparseCreateDnVec");
    Impl::cusparse_check(cusparseCreateDnVec(&y_, y.extent(0), y.data(), CUDA_R_64F), "cusparseCreateDnVec");
    std::size_t bytes = 0;
    Impl::cusparse_check(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, A_, x_, &zero_, y_,
                                                 CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
                         "cusparseSpMV_bufferSize");
    buffer_ = Kokkos::View<char*, Device>("krylov_spmv::cusparse_buffer", bytes);
  }
  void release() {
    if (y_) cusparseDestroyDnVec(y_);
    if (x_) cusparseDestroyDnVec(x_);
    if (A_) cusparseDestroySpMat(A_);
    if (handle_) cusparseDestroy(handle_);
    y_ = x_ = nullptr;
    A_ = nullptr;
    handle_ = nullptr;
  }

  Kokkos::View<const int*, Device> rows_;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t A_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  Kokkos::View<char*, Device> buffer_;
  double one_ = 1.0, zero_ = 0.0;
};

void BM_cusparse_spmv(benchmark::State& state, const std::string& name) {
  const auto& Ah = host_matrix(name);
  const auto& A = device_matrix(name);
  Vec x("x", Ah.ncols), y("y", Ah.nrows);
  Kokkos::deep_copy(x, 1.0);
  double t = 0;
  try {
    CusparseSpmv op(A, x, y);
    op.apply();  // warm-up
    t = run_timed(state, [&] { op.apply(); });
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_matrix_counters(state, Ah);
  state.counters["GB/s"] = spmv_bytes(Ah.nrows, Ah.nnz()) * 1e-9 / t;
  cusparse_seconds()[name] = t;
  note_best_spmv(name, t);
  if (spmv_seconds().count(name)) state.counters["time_over_kk_spmv"] = t / spmv_seconds()[name];
}
#endif

/// FusedRowDefaultBlocks / FusedRowBoundedBlocks: the product without a reduction, one thread per row forced, with
/// Kokkos' default block size or 256-thread blocks (the choice of SpmvLaunch::bounded_blocks).
enum class SpmvKind {
  KokkosKernels,
  KokkosKernelsHandle,
  Fused,
  FusedDot,
  FusedRowDefaultBlocks,
  FusedRowBoundedBlocks
};

// Kokkos-Kernels 4.3 added SPMVHandle: spmv without one makes a temporary handle per call, i.e. with the cuSPARSE TPL
// new descriptors and a new work buffer for every product; with one they are made once.
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40300
#define ASYNCSPARSE_PERF_KK_SPMV_HANDLE 1
using KkSpmvHandle = KokkosSparse::SPMVHandle<Device, Crs<double, Device>, Vec, Vec>;
#else
#define ASYNCSPARSE_PERF_KK_SPMV_HANDLE 0
#endif

void BM_krylov_spmv(benchmark::State& state, const std::string& name, SpmvKind kind, int vector_length) {
  const auto& Ah = host_matrix(name);
  const auto& A = device_matrix(name);
  Vec x("x", Ah.ncols), y("y", Ah.nrows), s("s", 1);
  Kokkos::deep_copy(x, 1.0);
  LaunchConfig cfg;
  cfg.vector_length = vector_length;
  auto launch = Impl::spmv_launch<ExecSpace>(Ah.nrows, Ah.nnz(), cfg);
  if (kind == SpmvKind::FusedRowDefaultBlocks || kind == SpmvKind::FusedRowBoundedBlocks) {
    launch.row_per_thread = true;
    launch.bounded_blocks = kind == SpmvKind::FusedRowBoundedBlocks;
  }
  const Impl::TeamSumScratch<Device> team_sums(launch);
#if ASYNCSPARSE_PERF_KK_SPMV_HANDLE
  KkSpmvHandle kk_handle;
#endif
  auto run = [&] {
    if (kind == SpmvKind::KokkosKernels)
      KokkosSparse::spmv("N", 1.0, A, x, 0.0, y);
#if ASYNCSPARSE_PERF_KK_SPMV_HANDLE
    else if (kind == SpmvKind::KokkosKernelsHandle)
      KokkosSparse::spmv(&kk_handle, "N", 1.0, A, x, 0.0, y);
#endif
    else
      Impl::spmv_dot<double, Device>(A, x, y, kind == SpmvKind::FusedDot ? s : Vec(), 0, launch, team_sums);
  };
  run();  // warm-up
  const double t = run_timed(state, run);
  set_matrix_counters(state, Ah);
  state.counters["GB/s"] = spmv_bytes(Ah.nrows, Ah.nnz()) * 1e-9 / t;
  if (kind == SpmvKind::KokkosKernels || kind == SpmvKind::KokkosKernelsHandle) note_best_spmv(name, t);
  if (kind == SpmvKind::KokkosKernels) {
    spmv_seconds()[name] = t;
  } else {
    if (kind != SpmvKind::KokkosKernelsHandle) {
      state.counters["row_per_thread"] = launch.row_per_thread ? 1 : 0;
      state.counters["vector_length"] = launch.row_per_thread ? 1 : launch.vector_length;
      if (!launch.row_per_thread) state.counters["team_size"] = launch.team_size;
    }
    if (spmv_seconds().count(name)) state.counters["time_over_kk_spmv"] = t / spmv_seconds()[name];
    if (cusparse_seconds().count(name)) state.counters["time_over_cusparse"] = t / cusparse_seconds()[name];
  }
}

/// The default ParIC preconditioner of a matrix, computed once per matrix and freed before Kokkos::finalize.
Preconditioner<double, Device>& par_ic(const std::string& name) {
  static std::map<std::string, std::unique_ptr<PreconditionerBase<double, Device>>> cache;
  static bool hooked = false;
  if (!hooked) {
    Kokkos::push_finalize_hook([] { cache.clear(); });
    hooked = true;
  }
  auto& M = cache[name];
  if (!M) {
    M = make_preconditioner<double, Device>("par_ic", device_matrix(name));
    M->compute();
  }
  return *M;
}

/// The vectors and scalars of a PCG iteration, with the launches of A's product and the vector kernels: r = p0 = 1,
/// q = 1, d = 0.25; slots 0 rᵀz = 1, 1 pᵀq = 1e30 (alpha = 1e-30: the vectors stay finite over any number of
/// launches), 2 and 3 outputs.
struct PcgVectors {
  Vec x, r, z, p0, p1, q, d, s;
  Impl::SpmvLaunch launch;
  Impl::VectorLaunch vlaunch;
  Impl::TeamSumScratch<Device> team_sums;
  explicit PcgVectors(const CsrHost<double>& Ah)
      : x("x", Ah.nrows),
        r("r", Ah.nrows),
        z("z", Ah.nrows),
        p0("p0", Ah.nrows),
        p1("p1", Ah.nrows),
        q("q", Ah.nrows),
        d("d", Ah.nrows),
        s("s", 4),
        launch(Impl::spmv_launch<ExecSpace>(Ah.nrows, Ah.nnz())),
        vlaunch(Impl::vector_launch<ExecSpace>(Ah.nrows)),
        team_sums(std::max(launch.league_size, vlaunch.league_size), 2) {
    Kokkos::deep_copy(r, 1.0);
    Kokkos::deep_copy(p0, 1.0);
    Kokkos::deep_copy(q, 1.0);
    Kokkos::deep_copy(d, 0.25);
    Kokkos::deep_copy(Kokkos::subview(s, 0), 1.0);
    Kokkos::deep_copy(Kokkos::subview(s, 1), 1e30);
  }
};

enum class PcgKernel { Copy, Dot, Update, UpdateDiagonal, DirectionSpmv, DirectionProduct, ParIcApply, ParIcApplyDot };

void BM_pcg_kernel(benchmark::State& state, const std::string& name, PcgKernel kind) {
  const auto& Ah = host_matrix(name);
  const auto& A = device_matrix(name);
  const auto n = static_cast<std::size_t>(Ah.nrows);
  const PcgVectors v(Ah);
  const Vec &x = v.x, &r = v.r, &z = v.z, &p0 = v.p0, &p1 = v.p1, &q = v.q, &d = v.d, &s = v.s;
  const auto& launch = v.launch;
  const auto& vlaunch = v.vlaunch;
  const auto& team_sums = v.team_sums;
  using CV = Kokkos::View<const double*, Device>;
  Preconditioner<double, Device>* M = nullptr;
  const double vec = static_cast<double>(n) * sizeof(double);
  double bytes = 0;
  // a product with each triangle of the pattern, the diagonal included (symmetric pattern)
  const double tri_bytes = spmv_bytes(Ah.nrows, (Ah.nnz() + Ah.nrows) / 2);
  switch (kind) {
    case PcgKernel::Copy:
    case PcgKernel::Dot:
      bytes = 2 * vec;
      break;
    case PcgKernel::Update:
      bytes = 6 * vec;
      break;
    case PcgKernel::UpdateDiagonal:
      bytes = 8 * vec;
      break;
    case PcgKernel::DirectionSpmv:
    case PcgKernel::DirectionProduct:
      bytes = spmv_bytes(Ah.nrows, Ah.nnz()) + 2 * vec;  // also p_old read and p_new written
      break;
    case PcgKernel::ParIcApply:
    case PcgKernel::ParIcApplyDot:
      try {
        M = &par_ic(name);
      } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
      }
      bytes = 2 * tri_bytes + (kind == PcgKernel::ParIcApplyDot ? vec : 0);
      break;
  }
  bool fused_dot = true;
  auto run = [&] {
    switch (kind) {
      case PcgKernel::Copy:
        Kokkos::deep_copy(ExecSpace(), z, r);
        break;
      case PcgKernel::Dot:
        Impl::dot_into<double, Device>(r, q, s, 2, vlaunch, team_sums);
        break;
      case PcgKernel::Update:
        Impl::cg_update<double, Device>(x, r, p0, q, s, 0, 1, 2, vlaunch, team_sums);
        break;
      case PcgKernel::UpdateDiagonal:
        Impl::cg_update_diagonal<double, Device>(x, r, p0, q, d, z, s, 0, 1, 2, 3, vlaunch, team_sums);
        break;
      case PcgKernel::DirectionSpmv:
        Impl::cg_direction_spmv<double, Device>(A, CV(r), CV(p0), p1, q, s, 0, 1, 2, launch, team_sums);
        break;
      case PcgKernel::DirectionProduct:
        Impl::cg_direction_spmv<double, Device>(A, CV(r), CV(p0), p1, q, s, 0, 1, -1, launch, team_sums);
        break;
      case PcgKernel::ParIcApply:
        M->apply(r, z);
        break;
      case PcgKernel::ParIcApplyDot:
        if (!M->apply_dot(r, z, s, 2)) {  // as the fused loop: apply, then the separate dot product
          fused_dot = false;
          M->apply(r, z);
          Impl::dot_into<double, Device>(r, z, s, 2, vlaunch, team_sums);
        }
        break;
    }
  };
  run();  // warm-up
  // the bytes of the ParIC application hold for ISAI solves only (the auto rule's choice for large triangles); the
  // application followed by a separate dot pass reads r and z once more
  bool isai = true;
  if (M) {
    isai = M->description().find("isai") != std::string::npos;
    if (!isai) bytes = 0;
    if (isai && kind == PcgKernel::ParIcApplyDot && !fused_dot) bytes += vec;
  }
  const int R = 50;
  double total = 0, enqueue = 0;
  int runs = 0;
  for (auto _ : state) {
    const double t = timed([&] {
                       Kokkos::Timer host;
                       for (int k = 0; k < R; ++k) run();
                       enqueue += host.seconds() / R;
                     }) /
                     R;
    state.SetIterationTime(t);
    total += t;
    ++runs;
  }
  const double t = runs ? total / runs : 0.0;
  set_matrix_counters(state, Ah);
  // the host's time to launch one run (before the final wait): where it is close to the run's time, the launches,
  // not the device, set the pace of back-to-back runs
  if (runs) state.counters["enqueue_us"] = enqueue / runs * 1e6;
  if (bytes > 0) {
    state.counters["GB/s"] = t > 0 ? bytes * 1e-9 / t : 0.0;
    state.counters["MB"] = bytes * 1e-6;
  }
  if (M) state.counters["isai"] = isai ? 1 : 0;
  if (kind == PcgKernel::ParIcApplyDot) state.counters["fused_dot"] = fused_dot ? 1 : 0;
}

/// The cost of recording a CG iteration's graph (Impl::GraphReplay::record: capture and instantiation) against its
/// replay and the launches it replaces: the default ParIC's application with its dot product and the direction
/// product, as the fused CG launches them after each update. Manual time: one replay, back to back; counters
/// record_us (one recording), direct_us (the same work launched kernel by kernel, back to back).
void BM_graph_record(benchmark::State& state, const std::string& name) {
  using G = Impl::GraphReplay<ExecSpace>;
  if (!G::available()) {
    state.SkipWithError("CUDA graphs only");
    return;
  }
  const auto& Ah = host_matrix(name);
  const auto& A = device_matrix(name);
  Preconditioner<double, Device>* M = nullptr;
  try {
    M = &par_ic(name);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const PcgVectors v(Ah);
  const Vec &r = v.r, &z = v.z, &p0 = v.p0, &p1 = v.p1, &q = v.q, &s = v.s;
  const auto& launch = v.launch;
  const auto& vlaunch = v.vlaunch;
  const auto& team_sums = v.team_sums;
  using CV = Kokkos::View<const double*, Device>;
  const ExecSpace inst = G::instance();
  const Impl::LaunchInstanceScope<ExecSpace> scope(inst);
  auto work = [&] {
    if (!M->apply_dot(r, z, s, 0)) {
      M->apply(r, z);
      Impl::dot_into<double, Device>(r, z, s, 0, vlaunch, team_sums);
    }
    Impl::cg_direction_spmv<double, Device>(A, CV(z), CV(p0), p1, q, s, 0, 1, launch.separate_reduction ? -1 : 2,
                                            launch, team_sums);
  };
  work();  // warm-up (Kokkos' per-kernel first-launch work)
  inst.fence();
  const int R = 20;
  G g;
  Kokkos::Timer t;
  for (int k = 0; k < R; ++k)
    if (!g.record(inst, work)) {
      state.SkipWithError("recording failed");
      return;
    }
  const double record = t.seconds() / R;
  const double direct = timed([&] {
                          for (int k = 0; k < R; ++k) work();
                          inst.fence();
                        }) /
                        R;
  double total = 0;
  int runs = 0;
  for (auto _ : state) {
    const double tr = timed([&] {
                        for (int k = 0; k < R; ++k) g.replay(inst);
                        inst.fence();
                      }) /
                      R;
    state.SetIterationTime(tr);
    total += tr;
    ++runs;
  }
  set_matrix_counters(state, Ah);
  state.counters["record_us"] = record * 1e6;
  state.counters["direct_us"] = direct * 1e6;
  state.counters["replay_us"] = runs ? total / runs * 1e6 : 0.0;
}

struct IterationSetup {
  bool gmres = false;
  bool jacobi = false;
  KrylovImplementation impl = KrylovImplementation::Fused;
  bool par_ic = false;
  bool graphs = true;  // SolverParams::graph_from_iteration at its default; false: 0 (never)
};

void BM_iteration(benchmark::State& state, const std::string& name, IterationSetup is) {
  const auto& Ah = host_matrix(name);
  const auto& A = device_matrix(name);
  const int K = paper_scale() ? 200 : 60;
  SolverParams p;
  p.tol = 1e-300;  // never reached: exactly K iterations
  p.max_iterations = K;
  p.restart = 30;
  p.divergence_factor = 1e300;
  p.implementation = is.impl;
  if (!is.graphs) p.graph_from_iteration = 0;
  JacobiPreconditioner<double, Device> jac(A);
  jac.compute();
  Preconditioner<double, Device>* M = is.jacobi ? &jac : nullptr;
  if (is.par_ic) {
    try {
      M = &par_ic(name);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
  }
  Vec b("b", Ah.nrows), x("x", Ah.nrows);
  Kokkos::deep_copy(b, 1.0);
  auto solve = [&] {
    Kokkos::deep_copy(x, 0.0);
    return is.gmres ? gmres<double, Device>(A, b, x, M, p) : cg<double, Device>(A, b, x, M, p);
  };
  solve();  // warm-up
  double total = 0;
  int runs = 0, iterations = 0, replays = 0;
  for (auto _ : state) {
    const auto r = solve();
    iterations = r.iterations;
    replays = r.graph_replays;
    if (r.iterations < 2 || r.time_history.size() < static_cast<std::size_t>(r.iterations) + 1) {
      state.SkipWithError(("the solve stopped after " + std::to_string(r.iterations) +
                           " iterations: " + to_string(r.status) + " " + r.message)
                              .c_str());
      return;
    }
    const double t = (r.time_history[r.iterations] - r.time_history[1]) / (r.iterations - 1);
    state.SetIterationTime(t);
    total += t;
    ++runs;
  }
  const double t = runs ? total / runs : 0.0;
  set_matrix_counters(state, Ah);
  state.counters["iterations_per_solve"] = iterations;
  state.counters["graph_replays"] = replays;
  if (best_spmv_seconds().count(name)) state.counters["iteration_over_spmv"] = t / best_spmv_seconds()[name];
}

void register_all() {
  auto reg = [](const std::string& label, auto... args) {
    benchmark::RegisterBenchmark(label.c_str(), args...)->UseManualTime()->Unit(benchmark::kMicrosecond);
  };
  for (const std::string m : {"L2D", "L3D", "L2D_small"}) {
    reg("krylov_spmv/" + m + "/kokkos_kernels", BM_krylov_spmv, m, SpmvKind::KokkosKernels, -1);
#if ASYNCSPARSE_PERF_KK_SPMV_HANDLE
    reg("krylov_spmv/" + m + "/kokkos_kernels_handle", BM_krylov_spmv, m, SpmvKind::KokkosKernelsHandle, -1);
#endif
#if ASYNCSPARSE_HAVE_CUSPARSE
    reg("krylov_spmv/" + m + "/cusparse", BM_cusparse_spmv, m);
#endif
    reg("krylov_spmv/" + m + "/asyncsparse", BM_krylov_spmv, m, SpmvKind::Fused, -1);
    reg("krylov_spmv/" + m + "/asyncsparse_dot", BM_krylov_spmv, m, SpmvKind::FusedDot, -1);
    if (Impl::is_gpu_space<ExecSpace>()) {
      for (int vl : {1, 2, 4, 8, 16, 32})
        reg("krylov_spmv/" + m + "/asyncsparse_dot_vl" + std::to_string(vl), BM_krylov_spmv, m, SpmvKind::FusedDot,
            vl);
      reg("krylov_spmv/" + m + "/asyncsparse_row_default_blocks", BM_krylov_spmv, m, SpmvKind::FusedRowDefaultBlocks,
          -1);
      reg("krylov_spmv/" + m + "/asyncsparse_row_256_blocks", BM_krylov_spmv, m, SpmvKind::FusedRowBoundedBlocks, -1);
    }
    const std::pair<const char*, IterationSetup> variants[] = {
        {"cg_iteration/%s/fused", {false, false, KrylovImplementation::Fused}},
        {"cg_iteration/%s/reference", {false, false, KrylovImplementation::Reference}},
        {"cg_iteration/%s/fused_jacobi", {false, true, KrylovImplementation::Fused}},
        {"cg_iteration/%s/reference_jacobi", {false, true, KrylovImplementation::Reference}},
        {"cg_iteration/%s/fused_par_ic", {false, false, KrylovImplementation::Fused, true}},
        {"cg_iteration/%s/fused_par_ic_no_graphs", {false, false, KrylovImplementation::Fused, true, false}},
        {"gmres_iteration/%s/fused", {true, false, KrylovImplementation::Fused}},
    };
    for (const auto& v : variants) {
      std::string label = v.first;
      label.replace(label.find("%s"), 2, m);
      benchmark::RegisterBenchmark(label.c_str(), BM_iteration, m, v.second)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(5);  // each benchmark iteration is a solve of K iterations
    }
    const std::pair<const char*, PcgKernel> kernels[] = {
        {"copy", PcgKernel::Copy},
        {"dot", PcgKernel::Dot},
        {"cg_update", PcgKernel::Update},
        {"cg_update_diagonal", PcgKernel::UpdateDiagonal},
        {"direction_spmv", PcgKernel::DirectionSpmv},
        {"direction_product", PcgKernel::DirectionProduct},
        {"par_ic_apply", PcgKernel::ParIcApply},
        {"par_ic_apply_dot", PcgKernel::ParIcApplyDot},
    };
    reg("graph_record/" + m + "/par_ic", BM_graph_record, m);
    for (const auto& k : kernels)  // a fixed count: each benchmark iteration is R launches
      benchmark::RegisterBenchmark(("pcg_kernel/" + m + "/" + k.first).c_str(), BM_pcg_kernel, m, k.second)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(20);
  }
}

const bool registered = (register_all(), true);

}  // namespace
