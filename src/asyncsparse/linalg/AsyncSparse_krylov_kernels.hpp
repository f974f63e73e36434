// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — fused vector kernels of the Krylov solvers (CG, GMRES).
//
// A Krylov iteration on a sparse matrix is memory bound: its cost is the bytes it moves. Written with one
// BLAS-1 call per vector operation, every call reads its vectors again, and every reduction (dot, norm)
// returns its value to the host, which waits for the device each time. The kernels here merge the vector
// operations that touch the same data into one pass and leave every reduction result on the device, in a
// small View of scalars (ScalarReadback) that the next kernels read directly:
//
//  * spmv_dot: y = A x, optionally with x·y in the same pass; with a direction update it first forms
//    p_new = z + β p_old on the fly (β = s[num] / s[den] read on the device), writes p_new, y = A p_new and
//    reduces p_new·y — CG's search direction, matrix-vector product and pᵀAp in one kernel. On GPUs, for
//    rows of at most kRowSpmvMaxAvgNnz entries on average, one thread per row (RowSpmvFunctor, a range launch
//    whose sum is Kokkos' own range reduction); otherwise the Kokkos-Kernels layout (a team of lane groups, a
//    lane group per row, its lanes over the row's entries) with the vector length and team size of
//    resolve_launch_config. The other vector of the reduction may be given (`dot_with`: a preconditioner's
//    last product reduces rᵀz).
//  * cg_update: α = s[rz] / s[pq]; x += α p, r −= α q and ‖r‖² in one pass. The update is skipped (‖r‖² then
//    reads 0) when s[rz] or s[pq] is not a positive finite number, so a breakdown never corrupts x or r; the
//    caller checks those two scalars before ‖r‖².
//  * dot_into: a dot product into a device scalar (preconditioned CG's rᵀz).
//    The sums of these three are team-policy launches of about one team per resident slot of the device, ended
//    by finish_team_sums: per-team partials added up by the last team in a fixed order (reproducible, no host
//    synchronisation). Kokkos 3.4's team-policy reductions end with one warp reading one value per block, which
//    made the fused product-and-dot with a team per row chunk cost 3.4x (2D) to 5.5x (3D Laplacian) a plain
//    product on an H100. The row-per-thread product is the exception: its sum is Kokkos' range reduction (at most
//    one block per thread of a block, also in a fixed order), measured faster there
//    (perf_tests/results/MEASUREMENTS.md#spmv-row-per-thread).
//  * GMRES's classical Gram–Schmidt twice (CGS2) on a column-major basis V: multi_dot (h = Vᵀw),
//    ortho_update (w −= V h, then either h' = Vᵀw or ‖w‖² of the new w, in the same pass over V) and
//    scale_by_norm (v = w / ‖w‖ with the norm read on the device). CGS2 then reads V three times per
//    Arnoldi step instead of four, and the host reads the Hessenberg column once. Small systems on GPUs run the
//    three passes and the scaling in one launch of one team instead (arnoldi_one_team).
//
// All kernels are asynchronous (reductions go to device Views); nothing here synchronises the host.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include <asyncsparse/core/AsyncSparse_crs.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_kokkos_compat.hpp>  // Compat::JoinDst, Compat::parallel_for_prefer_l1
#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/core/AsyncSparse_row_launch.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>
#include <asyncsparse/exec/AsyncSparse_launch_config.hpp>

namespace AsyncSparse {
namespace Impl {

/// Lanes per row, lane groups per team and rows per team of the CRS kernels, from the launch layer; `chunks` row
/// chunks of `rows_per_team` rows, handled by `league_size` teams (team t: chunks t, t + L, t + 2L, ...).
struct SpmvLaunch {
  /// one thread per row, a range launch (RowSpmvFunctor); the fields below then only size the team scratch
  bool row_per_thread = false;
  /// with row_per_thread: 256-thread blocks (Kokkos::LaunchBounds<256, 1>) instead of Kokkos' default block size
  /// (the product without a reduction; see kRowSpmvBoundedBlocksMinAvgNnz)
  bool bounded_blocks = false;
  /// with row_per_thread: the callers reduce in a pass of their own instead of in the product (the product without
  /// a reduction, then dot_into / scale_dot; see kFusedReductionMaxRows)
  bool separate_reduction = false;
  int vector_length = 1;
  int team_size = 1;
  int rows_per_team = 1;
  std::int64_t chunks = 0;
  std::int64_t league_size = 0;
};

/// Teams of the CRS and vector kernels: as many as the device holds at once (GPU: concurrency / threads per
/// team), on host backends four per thread; never more than the chunks. Each team's partial sum is one entry
/// the last team adds up (finish_team_sums), so this bounds the serial end of a reduction; on an H100/H200 the
/// product also ran faster than with a team per chunk (L2D: 77 µs with the dot against 84 µs without).
template <class ExecSpace>
std::int64_t resident_league_size(std::int64_t chunks, int team_size, int vector_length, std::int64_t concurrency) {
  const std::int64_t threads = static_cast<std::int64_t>(team_size) * vector_length;
  const std::int64_t resident =
      is_gpu_space<ExecSpace>() ? concurrency / (threads > 0 ? threads : 1) : 4 * concurrency;
  return std::max<std::int64_t>(std::min(chunks, resident), chunks > 0 ? 1 : 0);
}

/// Lanes per row of the lane-group CRS kernel on a GPU (LaunchConfig::vector_length = -1; rows longer than
/// kRowSpmvMaxAvgNnz on average, else one thread per row): row_lanes, the largest power of two at most avg / 2 (two
/// entries per lane), between 1 and 32. Measured on an H200 (krylov_spmv/<m>/asyncsparse_dot_vl<k> of
/// AsyncSparse_Perf_krylov, perf_tests/results/MEASUREMENTS.md#spmv-lanes): 4.996 entries per row (L2D) ran
/// fastest with 2 lanes (59.8 µs; 1 lane 62.6, 4 lanes 75.6), 26.2 per row (L3D) with 8 (65.2 µs; 4 lanes 77.0,
/// 16 lanes 73.2). The generic rule of the launch layer (the power of two nearest the average) took 4 and 32.
inline int spmv_vector_length(double avg_nnz_per_row) { return row_lanes(avg_nnz_per_row); }

/// Largest average entries per row for which the GPU product kernels take one thread per row (a range launch)
/// when the caller leaves vector_length, team_size and chunk_size of the LaunchConfig at -1. Measured on an H100
/// (perf_tests/results/MEASUREMENTS.md#spmv-row-per-thread; product and pᵀAp, µs): the 1024² 5-point Laplacian 58.5
/// against 65.9 for the lane-group kernel with 2 lanes, the 27-point 64³ Laplacian (26.2 per row) 58.0 against 73.3
/// with 8 lanes; the ISAI products of their lower triangles likewise. Longer rows are expected to want lanes (none
/// measured). The rule holds for every GPU backend; HIP is not measured.
constexpr double kRowSpmvMaxAvgNnz = 27.0;
/// Above this many entries per row on average the row-per-thread product without a reduction takes 256-thread
/// blocks. H100 (MEASUREMENTS.md#spmv-row-per-thread): Kokkos' default block size ran the 27-point Laplacian's rows
/// (26.2 per row) in 103.4 µs against 51.5 with 256-thread blocks, the 5-point rows (5.0) in 41.2 against 45.0
/// (Perf_krylov); in a microbenchmark the lower triangles, 13.6 per row: 36.0 against 31.8, 3.0 per row: 31.4
/// against 37.6. (Kokkos 3.4's range reduction takes 256-thread blocks either way.)
constexpr double kRowSpmvBoundedBlocksMinAvgNnz = 8.0;

/// Most rows for which the GPU solvers fuse a reduction into the pass that produces its vector (CG's pᵀAp into the
/// row-per-thread product, rᵀz into an ISAI preconditioner's last product or last Jacobi sweep, ‖r‖² and rᵀz into the
/// update with a diagonal preconditioner); with more rows the product or update runs without it and a separate pass
/// sums (SpmvLaunch::separate_reduction). Kokkos' range reduction runs at most 256 blocks of 256 threads, so each
/// thread of the reducing product walks n / 65536 rows one after the other. Measured on an H200
/// (perf_tests/results/MEASUREMENTS.md#separate-reductions; pcg_kernel/<m>/* of AsyncSparse_Perf_krylov, µs):
/// 1024² 5-point grid (16 rows per thread) CG's product 49.3 with pᵀAp against 32.7 + 10.9 for the product and a dot
/// pass, the ISAI preconditioner 61.7 with rᵀz against 37.8 + 10.9, the diagonal update 36.7 against 15.0 for the
/// update alone; 27-point 64³ grid (4 rows per thread) 42.5 against 40.3 + 9.3 and 46.2 against 42.7 + 9.3: fused.
constexpr std::int64_t kFusedReductionMaxRows = std::int64_t(1) << 19;

template <class ExecSpace>
SpmvLaunch spmv_launch(std::int64_t nrows, std::int64_t nnz, const LaunchConfig& cfg = LaunchConfig()) {
  const double avg = nrows > 0 ? static_cast<double>(nnz) / static_cast<double>(nrows) : 1.0;
  LaunchDefaults d;
  if (is_gpu_space<ExecSpace>()) d.vector_length = spmv_vector_length(avg);
  d.method = "spmv";
  const auto r = resolve_launch_config<ExecSpace>(cfg, nrows, avg, ExecSpace(), d);
  SpmvLaunch l;
  l.vector_length = r.vector_length;
  l.team_size = r.team_size;
  l.rows_per_team = r.chunk_size;
  l.chunks = r.num_chunks;
  l.league_size = resident_league_size<ExecSpace>(r.num_chunks, r.team_size, r.vector_length, r.concurrency);
  l.row_per_thread = is_gpu_space<ExecSpace>() && cfg.vector_length < 0 && cfg.team_size < 0 && cfg.chunk_size < 0 &&
                     avg <= kRowSpmvMaxAvgNnz;
  l.bounded_blocks = avg > kRowSpmvBoundedBlocksMinAvgNnz;
  l.separate_reduction = l.row_per_thread && nrows > kFusedReductionMaxRows;
  return l;
}

/// Scratch of the reducing launches: `values` partial sums per team and the count of teams that have stored
/// theirs. Made once per solve (the count returns to 0 at the end of every launch); one launch at a time may use
/// it.
template <class Device>
struct TeamSumScratch {
  Kokkos::View<double*, Device> partials;
  /// in the word after the partials, in their allocation (which `partials` holds)
  Kokkos::View<unsigned int, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> arrivals;
  TeamSumScratch() = default;
  /// Room for launches of up to `teams` teams summing up to `values` values each. The partials and the count come
  /// from one allocation (a device allocation costs about 40 us on an H200: MEASUREMENTS.md#setup-latency); the
  /// count starts at 0, the partials are written before they are read.
  explicit TeamSumScratch(std::int64_t teams, int values = 1) {
    const auto np = static_cast<std::size_t>(teams * values);
    const auto all = cached_uninitialized<Kokkos::View<double*, Device>>("AsyncSparse::krylov::team_sums", np + 1);
    Kokkos::deep_copy(typename Device::execution_space(), Kokkos::subview(all, np), 0.0);  // all bits 0: count 0
    partials = Kokkos::subview(all, std::make_pair(std::size_t(0), np));
    arrivals = decltype(arrivals)(reinterpret_cast<unsigned int*>(all.data() + np));
  }
  explicit TeamSumScratch(const SpmvLaunch& l) : TeamSumScratch(l.league_size) {}
  /// Throws InvalidInput naming `who` when a launch of `teams` teams summing `values` values does not fit.
  void check(const char* who, std::int64_t teams, int values = 1) const {
    if (static_cast<std::int64_t>(partials.extent(0)) < teams * values)
      throw InvalidInput(std::string(who) + ": team scratch for " + std::to_string(partials.extent(0)) +
                         " partial sums, the launch needs " + std::to_string(teams) + " teams x " +
                         std::to_string(values));
  }
};

/// The end of N deterministic sums over a team-policy launch: value[c] is this thread's share of sum c (the same
/// in each of its vector lanes). The team reduces its threads' shares, stores the team sums in partials and
/// counts itself in `arrivals`; the team that arrives last adds the partials up in index order and writes
/// s(out[c]). Every team of the launch must call it. For a given launch shape the summation order is fixed, so
/// the sums are the same from run to run (an atomic add per team would not be), and no host synchronisation is
/// needed.
template <int N, class Member, class Device>
KOKKOS_INLINE_FUNCTION void finish_team_sums(const Member& t, double (&value)[N], const TeamSumScratch<Device>& scratch,
                                             const Kokkos::View<double*, Device>& s, const int (&out)[N]) {
  // Kokkos' team reduction and broadcast pass their result through the same team scratch word and do not wait
  // after reading it: a barrier after each keeps the next one from overwriting a result a thread has not read
  // (without them two sums in a row came out wrong under compute-sanitizer's scheduling on an H200).
  for (int c = 0; c < N; ++c) {
    t.team_reduce(Kokkos::Sum<double>(value[c]));
    t.team_barrier();
  }
  const int league = t.league_size();
  bool last = false;
  Kokkos::single(
      Kokkos::PerTeam(t),
      [&](bool& is_last) {
        for (int c = 0; c < N; ++c) scratch.partials(c * league + t.league_rank()) = value[c];
        Kokkos::memory_fence();  // the partials are visible before the count says so
        const unsigned int before = Kokkos::atomic_fetch_add(&scratch.arrivals(), 1u);
        is_last = before + 1 == static_cast<unsigned int>(league);
      },
      last);
  t.team_barrier();
  if (!last) return;
  Kokkos::memory_fence();
  const volatile double* partials = scratch.partials.data();  // stored by other teams: no cached copies
  for (int c = 0; c < N; ++c) {
    double total = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(t, league), [&](const int k, double& acc) { acc += partials[c * league + k]; },
        total);
    Kokkos::single(Kokkos::PerTeam(t), [&]() { s(out[c]) = total; });
    t.team_barrier();
  }
  Kokkos::single(Kokkos::PerTeam(t), [&]() { scratch.arrivals() = 0; });
}

/// Shape of the vector kernels with a reduction (cg_update, dot_into): team t handles the contiguous elements
/// [t * per_team, min(n, (t + 1) * per_team)), its threads interleaved (coalesced on a GPU). GPU teams have
/// kVectorTeamSize threads; host teams one.
struct VectorLaunch {
  static constexpr int kVectorTeamSize = 256;
  int team_size = 1;
  std::int64_t league_size = 0;
  std::int64_t per_team = 0;
};

template <class ExecSpace>
VectorLaunch vector_launch(std::int64_t n) {
  VectorLaunch l;
  l.team_size = is_gpu_space<ExecSpace>() ? VectorLaunch::kVectorTeamSize : 1;
  const std::int64_t tiles = (n + l.team_size - 1) / l.team_size;
  l.league_size = resident_league_size<ExecSpace>(tiles, l.team_size, 1, ExecSpace().concurrency());
  l.per_team = l.league_size > 0 ? (n + l.league_size - 1) / l.league_size : 0;
  return l;
}

/// The fields and the row product of the CRS kernels: y = A x (Update = false) or p_new = z + β p_old,
/// y = A p_new (Update = true, x = z), β = s(num) / s(den); with a reduction (`reduce`) s(out) = d·y, d the vector
/// multiplied (p_new) unless `dot_with` is given. A's values are of type MatScalar (an ISAI stored in single
/// precision: float), each converted to Scalar before its product.
template <class Scalar, class Device, bool Update, class MatScalar = Scalar>
struct SpmvFields {
  using crs = Crs<Scalar, Device>;
  typename crs::row_map_type row_map;
  typename crs::index_type entries;
  Kokkos::View<const MatScalar*, Device> values;
  /// gathered through the read-only path, as Kokkos-Kernels' product reads x
  Kokkos::View<const Scalar*, Device, Kokkos::MemoryTraits<Kokkos::RandomAccess>> z, p_old;
  Kokkos::View<const Scalar*, Device> dot_with;
  Kokkos::View<Scalar*, Device> p_new, y;
  Kokkos::View<double*, Device> s;
  TeamSumScratch<Device> scratch;
  bool reduce = false;
  int num = 0, den = 0, out = 0;
  ordinal_t n = 0;
  int rows_per_team = 1;
  std::int64_t chunks = 0;

  KOKKOS_INLINE_FUNCTION Scalar beta() const { return Update ? static_cast<Scalar>(s(num) / s(den)) : Scalar(0); }
  KOKKOS_INLINE_FUNCTION Scalar entry(const offset_t k, const Scalar beta) const {
    const ordinal_t j = entries(k);
    return static_cast<Scalar>(values(k)) * (Update ? z(j) + beta * p_old(j) : z(j));
  }
  /// Row i of the vector multiplied: p_new(i) (Update) or x(i).
  KOKKOS_INLINE_FUNCTION Scalar multiplied(const ordinal_t i, const Scalar beta) const {
    return Update ? z(i) + beta * p_old(i) : z(i);
  }
  KOKKOS_INLINE_FUNCTION void store(const ordinal_t i, const Scalar pi, const Scalar sum) const {
    if (Update) p_new(i) = pi;
    y(i) = sum;
  }
  /// Row i's term of the reduction.
  KOKKOS_INLINE_FUNCTION double term(const ordinal_t i, const Scalar pi, const Scalar sum) const {
    return static_cast<double>(dot_with.extent(0) > 0 ? dot_with(i) : pi) * static_cast<double>(sum);
  }
};

/// The lane-group layout: team t handles row chunks t, t + L, t + 2L, ... (L = league size), a lane group per
/// row; with a reduction each thread sums its rows' terms and finish_team_sums adds them up.
template <class Scalar, class Device, bool Update, class MatScalar = Scalar>
struct SpmvDotFunctor : SpmvFields<Scalar, Device, Update, MatScalar> {
  using exec = typename Device::execution_space;
  using member = typename Impl::TeamPolicy<exec>::member_type;

  KOKKOS_INLINE_FUNCTION void operator()(const member& t) const {
    const Scalar beta = this->beta();
    double dot[1] = {0};  // this thread's rows, the same in each of its vector lanes
    for (std::int64_t c = t.league_rank(); c < this->chunks; c += t.league_size()) {
      const ordinal_t begin = static_cast<ordinal_t>(c * this->rows_per_team);
      const ordinal_t end = begin + this->rows_per_team < this->n ? begin + this->rows_per_team : this->n;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, begin, end), [&](const ordinal_t i) {
        Scalar sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(t, this->row_map(i), this->row_map(i + 1)),
            [&](const offset_t k, Scalar& acc) { acc += this->entry(k, beta); }, sum);
        const Scalar pi = this->multiplied(i, beta);
        Kokkos::single(Kokkos::PerThread(t), [&]() { this->store(i, pi, sum); });
        dot[0] += this->term(i, pi, sum);
      });
    }
    if (this->reduce) finish_team_sums<1>(t, dot, this->scratch, this->s, {this->out});
  }
};

/// One thread per row (SpmvLaunch::row_per_thread): a range launch, its sum Kokkos' range reduction.
template <class Scalar, class Device, bool Update, class MatScalar = Scalar>
struct RowSpmvFunctor : SpmvFields<Scalar, Device, Update, MatScalar> {
  using value_type = double;  // of the reduction (Kokkos cannot deduce it from the two call operators)
  /// y(i) (and p_new(i)); returns row i's term of the reduction.
  KOKKOS_INLINE_FUNCTION double row(const ordinal_t i) const {
    const Scalar beta = this->beta();
    Scalar sum = 0;
    for (offset_t k = this->row_map(i); k < this->row_map(i + 1); ++k) sum += this->entry(k, beta);
    const Scalar pi = this->multiplied(i, beta);
    const double t = this->term(i, pi, sum);
    this->store(i, pi, sum);
    return t;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const { row(i); }
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, double& acc) const { acc += row(i); }
};

template <class Scalar, class Device, bool Update, class MatScalar>
void launch_spmv_dot(SpmvDotFunctor<Scalar, Device, Update, MatScalar> f, const SpmvLaunch& l) {
  using exec = typename Device::execution_space;
  f.chunks = l.chunks;
  if (l.league_size == 0) {
    if (f.reduce) Kokkos::deep_copy(Impl::launch_instance<exec>(), Kokkos::subview(f.s, f.out), 0.0);
    return;
  }
  if (l.row_per_thread) {
    RowSpmvFunctor<Scalar, Device, Update, MatScalar> r;
    static_cast<SpmvFields<Scalar, Device, Update, MatScalar>&>(r) = f;
    if (r.reduce)
      Impl::launch_rows<exec>("AsyncSparse::krylov::row_spmv_dot", r.n, l.bounded_blocks, r,
                              Kokkos::subview(r.s, r.out));
    else
      Impl::launch_rows<exec>("AsyncSparse::krylov::row_spmv", r.n, l.bounded_blocks, r);
    return;
  }
  if (f.reduce) f.scratch.check("spmv_dot", l.league_size);
  Kokkos::parallel_for(f.reduce ? "AsyncSparse::krylov::spmv_dot" : "AsyncSparse::krylov::spmv",
                       Impl::TeamPolicy<exec>(Impl::launch_instance<exec>(), static_cast<int>(l.league_size),
                                              l.team_size, l.vector_length),
                       f);
}

/// The product's functor with the fields spmv_dot and cg_direction_spmv share: A, y, the scalars s, the slot
/// `out` of the reduction (when `reduce`) and the launch's rows per team.
/// `values` (optional): A's values in another type (MatScalar, e.g. float), read instead of A.values.
template <bool Update, class Scalar, class Device, class MatScalar = Scalar>
SpmvDotFunctor<Scalar, Device, Update, MatScalar> spmv_functor(
    const Crs<Scalar, Device>& A, const Kokkos::View<Scalar*, Device>& y, const Kokkos::View<double*, Device>& s,
    int out, bool reduce, const SpmvLaunch& l, const TeamSumScratch<Device>& scratch,
    const Kokkos::View<const MatScalar*, Device>& values = {}) {
  SpmvDotFunctor<Scalar, Device, Update, MatScalar> f;
  f.row_map = A.graph.row_map;
  f.entries = A.graph.entries;
  if constexpr (std::is_same<MatScalar, Scalar>::value)
    f.values = values.extent(0) > 0 ? values : Kokkos::View<const Scalar*, Device>(A.values);
  else
    f.values = values;
  f.y = y;
  f.s = s;
  f.out = out;
  f.reduce = reduce;
  f.scratch = scratch;
  f.n = A.numRows();
  f.rows_per_team = l.rows_per_team;
  return f;
}

/// y = A x; with `s` non-empty also s(out) = d·y (d = dot_with, or x when that is empty; dot_with of y's length and
/// not y itself, else InvalidInput), summed through `scratch` (made for the same launch; not needed by a
/// row-per-thread launch). One pass. `values` (optional, of A's length): A's values in another type (MatScalar:
/// an ISAI stored in single precision), read instead of A.values.
template <class Scalar, class Device, class MatScalar = Scalar>
void spmv_dot(const Crs<Scalar, Device>& A, const Kokkos::View<const Scalar*, Device>& x,
              const Kokkos::View<Scalar*, Device>& y, const Kokkos::View<double*, Device>& s, int out,
              const SpmvLaunch& l, const TeamSumScratch<Device>& scratch = TeamSumScratch<Device>(),
              const Kokkos::View<const Scalar*, Device>& dot_with = {},
              const Kokkos::View<const MatScalar*, Device>& values = {}) {
  if (dot_with.extent(0) != 0 && (dot_with.extent(0) != y.extent(0) || dot_with.data() == y.data()))
    throw InvalidInput("spmv_dot: the vector of the reduction has length " + std::to_string(dot_with.extent(0)) +
                       " for " + std::to_string(y.extent(0)) + " rows, or is the product's output");
  auto f = spmv_functor<false>(A, y, s, out, s.extent(0) > 0, l, scratch, values);
  f.z = x;
  f.dot_with = dot_with;
  launch_spmv_dot(f, l);
}

/// CG direction and product: p_new = z + β p_old with β = s(num) / s(den), y = A p_new, s(out) = p_new·y (summed
/// through `scratch`, made for the same launch; out < 0: no reduction).
template <class Scalar, class Device>
void cg_direction_spmv(const Crs<Scalar, Device>& A, const Kokkos::View<const Scalar*, Device>& z,
                       const Kokkos::View<const Scalar*, Device>& p_old, const Kokkos::View<Scalar*, Device>& p_new,
                       const Kokkos::View<Scalar*, Device>& y, const Kokkos::View<double*, Device>& s, int num, int den,
                       int out, const SpmvLaunch& l, const TeamSumScratch<Device>& scratch) {
  auto f = spmv_functor<true>(A, y, s, out, out >= 0, l, scratch);
  f.z = z;
  f.p_old = p_old;
  f.p_new = p_new;
  f.num = num;
  f.den = den;
  launch_spmv_dot(f, l);
}

/// Runs `f` (a team functor with members n and per_team) as a VectorLaunch; with no elements writes 0 to the
/// slots `outs` of s instead.
template <class Device, class F, int N>
void launch_vector(const char* name, F f, const VectorLaunch& l, const Kokkos::View<double*, Device>& s,
                   const int (&outs)[N]) {
  using exec = typename Device::execution_space;
  f.per_team = l.per_team;
  if (l.league_size == 0) {
    for (int c = 0; c < N; ++c) Kokkos::deep_copy(Impl::launch_instance<exec>(), Kokkos::subview(s, outs[c]), 0.0);
    return;
  }
  f.scratch.check(name, l.league_size, N);
  Kokkos::parallel_for(
      name, Impl::TeamPolicy<exec>(Impl::launch_instance<exec>(), static_cast<int>(l.league_size), l.team_size, 1), f);
}

/// cg_update's kernel; with a diagonal preconditioner (Diag) also z = dinv ∘ r and rᵀz.
template <class Scalar, class Device, bool Diag>
struct CgUpdateFunctor {
  using member = typename Impl::TeamPolicy<typename Device::execution_space>::member_type;
  static constexpr int N = Diag ? 2 : 1;
  Kokkos::View<Scalar*, Device> x, r, z;
  Kokkos::View<const Scalar*, Device> p, q, dinv;
  Kokkos::View<double*, Device> s;
  int rz = 0, pq = 0;
  int outs[N] = {};
  TeamSumScratch<Device> scratch;
  std::int64_t n = 0, per_team = 0;
  KOKKOS_INLINE_FUNCTION static bool usable(double v) { return v > 0 && v - v == 0; }
  KOKKOS_INLINE_FUNCTION void operator()(const member& t) const {
    const double a = s(rz), b = s(pq);
    double sums[N] = {};  // ‖r‖², then rᵀz
    if (usable(a) && usable(b)) {  // otherwise (breakdown) x and r stay as they are; the host reports it
      const Scalar alpha = static_cast<Scalar>(a / b);
      const std::int64_t begin = t.league_rank() * per_team;
      const std::int64_t end = begin + per_team < n ? begin + per_team : n;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, begin, end), [&](const std::int64_t i) {
        x(i) += alpha * p(i);
        const Scalar ri = r(i) - alpha * q(i);
        r(i) = ri;
        sums[0] += static_cast<double>(ri) * static_cast<double>(ri);
        if (Diag) {
          const Scalar zi = dinv(i) * ri;
          z(i) = zi;
          sums[N - 1] += static_cast<double>(ri) * static_cast<double>(zi);
        }
      });
    }
    finish_team_sums<N>(t, sums, scratch, s, outs);
  }
};

/// The launch behind cg_update and cg_update_diagonal (Diag: dinv and z are used, outs has two slots).
template <bool Diag, class Scalar, class Device>
void launch_cg_update(const Kokkos::View<Scalar*, Device>& x, const Kokkos::View<Scalar*, Device>& r,
                      const Kokkos::View<const Scalar*, Device>& p, const Kokkos::View<const Scalar*, Device>& q,
                      const Kokkos::View<const Scalar*, Device>& dinv, const Kokkos::View<Scalar*, Device>& z,
                      const Kokkos::View<double*, Device>& s, int rz, int pq, const int (&outs)[Diag ? 2 : 1],
                      const VectorLaunch& l, const TeamSumScratch<Device>& scratch) {
  CgUpdateFunctor<Scalar, Device, Diag> f;
  f.x = x;
  f.r = r;
  f.z = z;
  f.p = p;
  f.q = q;
  f.dinv = dinv;
  f.s = s;
  f.rz = rz;
  f.pq = pq;
  for (int c = 0; c < (Diag ? 2 : 1); ++c) f.outs[c] = outs[c];
  f.scratch = scratch;
  f.n = static_cast<std::int64_t>(x.extent(0));
  launch_vector<Device>(Diag ? "AsyncSparse::krylov::cg_update_diagonal" : "AsyncSparse::krylov::cg_update", f, l, s,
                        outs);
}

/// α = s(rz) / s(pq); x += α p; r −= α q; s(out) = ‖r‖² (summed through `scratch`, room for l.league_size
/// teams). When s(rz) or s(pq) is not a positive finite number, x and r are left unchanged and s(out) = 0 (the
/// caller reports the breakdown from s(rz) and s(pq)).
template <class Scalar, class Device>
void cg_update(const Kokkos::View<Scalar*, Device>& x, const Kokkos::View<Scalar*, Device>& r,
               const Kokkos::View<const Scalar*, Device>& p, const Kokkos::View<const Scalar*, Device>& q,
               const Kokkos::View<double*, Device>& s, int rz, int pq, int out, const VectorLaunch& l,
               const TeamSumScratch<Device>& scratch) {
  launch_cg_update<false, Scalar, Device>(x, r, p, q, {}, {}, s, rz, pq, {out}, l, scratch);
}

/// cg_update with a diagonal preconditioner applied in the same pass: besides x and r, z = dinv ∘ r,
/// s(out_rr) = ‖r‖² and s(out_rz) = rᵀz (scratch: room for l.league_size teams x 2 sums).
template <class Scalar, class Device>
void cg_update_diagonal(const Kokkos::View<Scalar*, Device>& x, const Kokkos::View<Scalar*, Device>& r,
                        const Kokkos::View<const Scalar*, Device>& p, const Kokkos::View<const Scalar*, Device>& q,
                        const Kokkos::View<const Scalar*, Device>& dinv, const Kokkos::View<Scalar*, Device>& z,
                        const Kokkos::View<double*, Device>& s, int rz, int pq, int out_rr, int out_rz,
                        const VectorLaunch& l, const TeamSumScratch<Device>& scratch) {
  launch_cg_update<true, Scalar, Device>(x, r, p, q, dinv, z, s, rz, pq, {out_rr, out_rz}, l, scratch);
}

/// s(out) = a·b; with Scale, z = b ∘ a and s(out) = aᵀz (a diagonal preconditioner b applied to the residual a).
template <class Scalar, class Device, bool Scale = false>
struct DotFunctor {
  using member = typename Impl::TeamPolicy<typename Device::execution_space>::member_type;
  Kokkos::View<const Scalar*, Device> a, b;
  Kokkos::View<Scalar*, Device> z;
  Kokkos::View<double*, Device> s;
  int out = 0;
  TeamSumScratch<Device> scratch;
  std::int64_t n = 0, per_team = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const member& t) const {
    const std::int64_t begin = t.league_rank() * per_team;
    const std::int64_t end = begin + per_team < n ? begin + per_team : n;
    double d[1] = {0};
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, begin, end), [&](const std::int64_t i) {
      const Scalar ai = a(i), bi = Scale ? b(i) * ai : b(i);
      if (Scale) z(i) = bi;
      d[0] += static_cast<double>(ai) * static_cast<double>(bi);
    });
    finish_team_sums<1>(t, d, scratch, s, {out});
  }
};

/// The launch behind dot_into and scale_dot.
template <bool Scale, class Scalar, class Device>
void launch_dot(const char* name, const Kokkos::View<const Scalar*, Device>& a,
                const Kokkos::View<const Scalar*, Device>& b, const Kokkos::View<Scalar*, Device>& z,
                const Kokkos::View<double*, Device>& s, int out, const VectorLaunch& l,
                const TeamSumScratch<Device>& scratch) {
  DotFunctor<Scalar, Device, Scale> f;
  f.a = a;
  f.b = b;
  f.z = z;
  f.s = s;
  f.out = out;
  f.scratch = scratch;
  f.n = static_cast<std::int64_t>(a.extent(0));
  launch_vector<Device>(name, f, l, s, {out});
}

/// s(out) = a·b, asynchronously (summed through `scratch`, room for l.league_size teams).
template <class Scalar, class Device>
void dot_into(const Kokkos::View<const Scalar*, Device>& a, const Kokkos::View<const Scalar*, Device>& b,
              const Kokkos::View<double*, Device>& s, int out, const VectorLaunch& l,
              const TeamSumScratch<Device>& scratch) {
  launch_dot<false, Scalar, Device>("AsyncSparse::krylov::dot", a, b, {}, s, out, l, scratch);
}

/// z = d ∘ r and s(out) = rᵀz in one pass (a diagonal preconditioner applied after cg_update), asynchronously
/// (summed through `scratch`, room for l.league_size teams).
template <class Scalar, class Device>
void scale_dot(const Kokkos::View<const Scalar*, Device>& d, const Kokkos::View<const Scalar*, Device>& r,
               const Kokkos::View<Scalar*, Device>& z, const Kokkos::View<double*, Device>& s, int out,
               const VectorLaunch& l, const TeamSumScratch<Device>& scratch) {
  launch_dot<true, Scalar, Device>("AsyncSparse::krylov::scale_dot", r, d, z, s, out, l, scratch);
}

// ------------------------------------------------------------------------------------------ GMRES (CGS2)

/// Column-major Krylov basis V (n × (m+1)).
template <class Scalar, class Device>
using Basis = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;

/// The passes over the first k columns of V: Dot: h_out = Vᵀw. UpdateDot: w −= V h_in, then h_out = Vᵀw.
/// UpdateNorm: w −= V h_in, then h_out(0) = ‖w‖². Array reduction of k values (1 for UpdateNorm).
enum class OrthoPass { Dot, UpdateDot, UpdateNorm };

/// Row i of CGS2's update, w_i − Σ_{c<k} V(i, c) h(c) (ortho_pass and arnoldi_one_team).
template <class Scalar, class BasisView, class Coefficients>
KOKKOS_INLINE_FUNCTION Scalar basis_update(const BasisView& V, const ordinal_t i, const int k, Scalar wi,
                                           const Coefficients& h) {
  for (int c = 0; c < k; ++c) wi -= V(i, c) * static_cast<Scalar>(h(c));
  return wi;
}

/// w_i / sqrt(nrm2), or 0 when nrm2 is zero or not finite (scale_by_norm and arnoldi_one_team).
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar scaled_by_norm(const Scalar wi, const double nrm2) {
  return nrm2 > 0 && nrm2 - nrm2 == 0 ? static_cast<Scalar>(static_cast<double>(wi) / sqrt(nrm2)) : Scalar(0);
}

template <class Scalar, class Device>
struct OrthoFunctor {
  using value_type = double[];
  using size_type = typename Device::execution_space::size_type;
  size_type value_count = 1;
  Basis<const Scalar, Device> V;
  Kokkos::View<Scalar*, Device> w;
  Kokkos::View<const double*, Device> h_in;
  int k = 0;
  OrthoPass pass = OrthoPass::Dot;

  KOKKOS_INLINE_FUNCTION void init(double* v) const {
    for (size_type c = 0; c < value_count; ++c) v[c] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(Compat::JoinDst<double> dst, Compat::JoinSrc<double> src) const {
    for (size_type c = 0; c < value_count; ++c) dst[c] += src[c];
  }
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, double* acc) const {
    Scalar wi = w(i);
    if (pass != OrthoPass::Dot) {
      wi = basis_update(V, i, k, wi, h_in);
      w(i) = wi;
    }
    if (pass == OrthoPass::UpdateNorm) {
      acc[0] += static_cast<double>(wi) * static_cast<double>(wi);
    } else {
      for (int c = 0; c < k; ++c) acc[c] += static_cast<double>(V(i, c)) * static_cast<double>(wi);
    }
  }
};

/// One pass of CGS2 over the first k columns of V (see OrthoPass); h_out receives k values (Dot, UpdateDot)
/// or one (UpdateNorm). Asynchronous.
template <class Scalar, class Device>
void ortho_pass(OrthoPass pass, const Basis<Scalar, Device>& V, int k, const Kokkos::View<Scalar*, Device>& w,
                const Kokkos::View<const double*, Device>& h_in, const Kokkos::View<double*, Device>& h_out) {
  using exec = typename Device::execution_space;
  OrthoFunctor<Scalar, Device> f;
  f.value_count = pass == OrthoPass::UpdateNorm ? 1 : k;
  f.V = V;
  f.w = w;
  f.h_in = h_in;
  f.k = k;
  f.pass = pass;
  Kokkos::parallel_reduce("AsyncSparse::krylov::cgs2_pass",
                          Impl::RangePolicy<exec>(0, static_cast<ordinal_t>(w.extent(0))), f, h_out);
}

template <class Scalar, class Device>
struct ScaleByNormFunctor {
  Kokkos::View<const Scalar*, Device> w;
  Kokkos::View<Scalar*, Device> v;
  Kokkos::View<const double*, Device> s;
  int idx = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const { v(i) = scaled_by_norm(w(i), s(idx)); }
};

/// v = w / sqrt(s(idx)) (v = 0 when s(idx) is zero or not finite: the caller stops the cycle then).
template <class Scalar, class Device>
void scale_by_norm(const Kokkos::View<const Scalar*, Device>& w, const Kokkos::View<Scalar*, Device>& v,
                   const Kokkos::View<const double*, Device>& s, int idx) {
  using exec = typename Device::execution_space;
  Kokkos::parallel_for("AsyncSparse::krylov::scale_by_norm",
                       Impl::RangePolicy<exec>(0, static_cast<ordinal_t>(w.extent(0))),
                       ScaleByNormFunctor<Scalar, Device>{w, v, s, idx});
}

/// The lanes of arnoldi_one_team's team: 32 where the backend has them (a warp per column's dot product on CUDA), one
/// on host backends.
template <class ExecSpace>
constexpr int arnoldi_one_team_lanes() {
  return Impl::is_gpu_space<ExecSpace>() ? 32 : 1;
}

/// One Arnoldi orthogonalization of w against the first k columns of V in one launch of one team (small systems on
/// GPUs, Impl::gmres_one_team): the three CGS2 passes and scale_by_norm with the team's barriers between them instead
/// of four kernels (each about 4 us of device latency, more for a pass's array reduction: on watt_2, 1,856 rows, the
/// four took about 50 us of a 120 us GMRES(30) iteration,
/// perf_tests/results/nvidia-h200/gmres_cache_2026-12-04/tl_watt_2_f1.txt.gz). One team reads the basis three times
/// with one multiprocessor's loads: the rule's bound (kGmresOneTeamMaxRows, 2,048 rows) is where that stops paying. The
/// same results as the passes up to the order of the sums: h1 = Vᵀw into s[h1, h1 + k), w −= V h1, h2 = Vᵀw into s[h2,
/// h2 + k), w −= V h2, ‖w‖² into s[nrm], v = w / ‖w‖ (v = 0 when ‖w‖² is zero or not finite). Each column's dot product
/// is a thread's vector lanes over the rows, each lane's share in four sums (lane_dot) (splitting the rows into a
/// stretch per thread instead, with partial sums per column added afterwards, was measured slower: each thread's sums
/// over the columns became a chain of reductions, MEASUREMENTS.md#gmres-team-cycle); the updates take the team's
/// threads and lanes over the rows. GmresTeamCycle runs it inside its own team with the coefficients in its scratch
/// (run()).
template <class Scalar, class Device>
struct ArnoldiOneTeamFunctor {
  using member = typename Impl::TeamPolicy<typename Device::execution_space>::member_type;
  Basis<const Scalar, Device> V;
  Kokkos::View<Scalar*, Device> w, v;
  Kokkos::View<double*, Device> s;
  int k = 0, h1 = 0, h2 = 0, nrm = 0;

  static constexpr int kLanes = arnoldi_one_team_lanes<typename Device::execution_space>();
  KOKKOS_INLINE_FUNCTION double vw(ordinal_t i, int c) const {
    return static_cast<double>(V(i, c)) * static_cast<double>(w(i));
  }
  // lane l's share of column c's dot product: rows l, l + kLanes, ..., in four sums so that each lane has eight loads
  // in flight (with one sum each product waited for the one before; MEASUREMENTS.md#gmres-lane-sums)
  KOKKOS_INLINE_FUNCTION double lane_dot(int c, ordinal_t l, ordinal_t n) const {
    constexpr ordinal_t S = kLanes;
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    ordinal_t i = l;
    for (; i + 3 * S < n; i += 4 * S) {
      a0 += vw(i, c);
      a1 += vw(i + S, c);
      a2 += vw(i + 2 * S, c);
      a3 += vw(i + 3 * S, c);
    }
    for (; i < n; i += S) a0 += vw(i, c);
    return (a0 + a1) + (a2 + a3);
  }
  template <class S>
  KOKKOS_INLINE_FUNCTION void dots(const member& t, const S& sv, ordinal_t n, int out) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, k), [&](const int c) {
      double sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(t, kLanes), [&](const int l, double& a) { a += lane_dot(c, l, n); }, sum);
      Kokkos::single(Kokkos::PerThread(t), [&] { sv(out + c) = sum; });
    });
  }
  template <class S>
  KOKKOS_INLINE_FUNCTION Scalar updated(const S& sv, ordinal_t i, int in) const {
    return basis_update(V, i, k, w(i), [&](const int c) { return sv(in + c); });
  }
  /// The orthogonalization with the coefficients in `sv` (s, or the caller's scratch).
  template <class S>
  KOKKOS_INLINE_FUNCTION void run(const member& t, const S& sv) const {
    const auto n = static_cast<ordinal_t>(w.extent(0));
    dots(t, sv, n, h1);  // the team's barrier makes each thread's writes to sv and w visible to the others
    t.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(t, n), [&](const ordinal_t i) { w(i) = updated(sv, i, h1); });
    t.team_barrier();
    dots(t, sv, n, h2);
    t.team_barrier();
    double nrm2 = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(t, n),
        [&](const ordinal_t i, double& a) {
          const Scalar wi = updated(sv, i, h2);
          w(i) = wi;
          a += static_cast<double>(wi) * static_cast<double>(wi);
        },
        nrm2);
    Kokkos::single(Kokkos::PerTeam(t), [&] { sv(nrm) = nrm2; });
    t.team_barrier();
    const double r = sv(nrm);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(t, n), [&](const ordinal_t i) { v(i) = scaled_by_norm(w(i), r); });
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member& t) const { run(t, s); }
};

/// The threads of arnoldi_one_team's team: as many as fit with its lanes, at most 32 (1024 on CUDA). A solver asks once
/// and passes it to every launch.
template <class Scalar, class Device>
int arnoldi_one_team_threads() {
  using exec = typename Device::execution_space;
  const int lanes = arnoldi_one_team_lanes<exec>();
  return std::max(1,
                  std::min(32, Impl::TeamPolicy<exec>(1, 1, lanes)
                                   .team_size_max(ArnoldiOneTeamFunctor<Scalar, Device>(), Kokkos::ParallelForTag())));
}

/// CGS2 of w against the first k columns of V and v = w / ‖w‖ in one launch of one team (ArnoldiOneTeamFunctor) of
/// `threads` threads (arnoldi_one_team_threads; 0: ask here): h1 into s[h1, h1 + k), h2 into s[h2, h2 + k), ‖w‖²
/// into s[nrm]. Asynchronous.
template <class Scalar, class Device>
void arnoldi_one_team(const Basis<Scalar, Device>& V, int k, const Kokkos::View<Scalar*, Device>& w,
                      const Kokkos::View<Scalar*, Device>& v, const Kokkos::View<double*, Device>& s, int h1, int h2,
                      int nrm, int threads = 0) {
  using exec = typename Device::execution_space;
  const ArnoldiOneTeamFunctor<Scalar, Device> f{V, w, v, s, k, h1, h2, nrm};
  if (threads <= 0) threads = arnoldi_one_team_threads<Scalar, Device>();
  Compat::parallel_for_prefer_l1(
      "AsyncSparse::krylov::arnoldi_one_team",
      Impl::TeamPolicy<exec>(Impl::launch_instance<exec>(), 1, threads, arnoldi_one_team_lanes<exec>()), f);
}

}  // namespace Impl
}  // namespace AsyncSparse
