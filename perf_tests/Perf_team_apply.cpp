// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// team_apply/<matrix>/<variant>: one application z = U^{-1} L^{-1} x of the default ParIlu (nonsymmetric) or ParIc
// factors with Jacobi(3) triangular solves, the mean over 200 back-to-back applications (one fence at the end).
// Variants: launches (a kernel per sweep), one_team (Impl::FactorApply's one-team launch), and probes of the
// one-team kernel's loads (perf_tests/results/MEASUREMENTS.md#team-long-rows): read-only loads, the iterates in team
// scratch memory, the entries in slices of 32 rows stored entry by entry, four entries per step. max_diff compares a
// probe's z with the library's.
#include "PerfHelpers.hpp"

#include <asyncsparse/factorization/AsyncSparse_par_ilu.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>

namespace {

using namespace AsyncSparse;
using namespace AsyncSparse::Perf;
using Vec = Kokkos::View<double*, Device>;
using CVec = Kokkos::View<const double*, Device>;
template <class T>
using Ro = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

// Flags: 1 read-only loads of the triangles, 2 iterates in team scratch, 4 the off-diagonal entries in slices of 32
// rows, entry k of the slice's rows side by side (padded with zeros), so that a warp's loads of its rows' k-th
// entries are one coalesced access
template <int Flags>
struct PairProbe {
  using member = Impl::TeamPolicy<ExecSpace>::member_type;
  using scratch = Kokkos::View<double*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  struct Tri {
    Ro<offset_t> rm;
    Ro<ordinal_t> ent;
    Ro<double> val, dinv;
    Kokkos::View<const offset_t*, Device> rm_p;
    Kokkos::View<const ordinal_t*, Device> ent_p;
    Kokkos::View<const double*, Device> val_p, dinv_p;
    Ro<offset_t> sp;
    Ro<ordinal_t> se;
    Ro<double> sv;
    bool lower;
  };
  Tri L, U;
  CVec b;
  Vec w, z, wk, wk2;
  ordinal_t n;

  // the sum of val(q) x(ent(q)) over q = pos(0), ..., pos(count - 1); four entries per step with Flags & 8
  template <class Pos, class J, class Val, class X>
  KOKKOS_INLINE_FUNCTION static double sum(offset_t count, const Pos& pos, const J& ent, const Val& val, const X& x) {
    double s = 0;
    offset_t k = 0;
    if (Flags & 8)
      for (; k + 4 <= count; k += 4) {
        const offset_t q0 = pos(k), q1 = pos(k + 1), q2 = pos(k + 2), q3 = pos(k + 3);
        const ordinal_t j0 = ent(q0), j1 = ent(q1), j2 = ent(q2), j3 = ent(q3);
        const double v0 = val(q0), v1 = val(q1), v2 = val(q2), v3 = val(q3);
        const double x0 = x(j0), x1 = x(j1), x2 = x(j2), x3 = x(j3);
        s += v0 * x0;
        s += v1 * x1;
        s += v2 * x2;
        s += v3 * x3;
      }
    for (; k < count; ++k) {
      const offset_t q = pos(k);
      s += val(q) * x(ent(q));
    }
    return s;
  }
  template <class XIn>
  KOKKOS_INLINE_FUNCTION double row(const Tri& T, const CVec& bv, const XIn& xin, bool first, ordinal_t i) const {
    constexpr bool ro = Flags & 1;
    if (Flags & 4) {
      const ordinal_t sl = i / 32, lane = i % 32;
      const offset_t p0 = T.sp(sl), len = (T.sp(sl + 1) - p0) / 32;
      const auto x = [&](ordinal_t j) { return first ? T.dinv(j) * bv(j) : xin(j); };
      return T.dinv(i) * (bv(i) - sum(
                                      len, [&](offset_t k) { return p0 + 32 * k + lane; }, T.se, T.sv, x));
    }
    const offset_t r0 = ro ? T.rm(i) : T.rm_p(i), r1 = ro ? T.rm(i + 1) : T.rm_p(i + 1);
    const offset_t beg = T.lower ? r0 : r0 + 1, end = T.lower ? r1 - 1 : r1;
    const auto pos = [&](offset_t k) { return beg + k; };
    if (ro) {
      const auto x = [&](ordinal_t j) { return first ? T.dinv(j) * bv(j) : xin(j); };
      return T.dinv(i) * (bv(i) - sum(end - beg, pos, T.ent, T.val, x));
    }
    const auto x = [&](ordinal_t j) { return first ? T.dinv_p(j) * bv(j) : xin(j); };
    return T.dinv_p(i) * (bv(i) - sum(end - beg, pos, T.ent_p, T.val_p, x));
  }
  // 3 sweeps of T on bv into out (global), iterates in `a`, `c` (scratch or global)
  template <class V>
  KOKKOS_INLINE_FUNCTION void solve(const member& m, const Tri& T, const CVec& bv, const V& a, const V& c,
                                    const Vec& out) const {
    Kokkos::parallel_for(Kokkos::TeamVectorRange(m, n), [&](const ordinal_t i) { a(i) = row(T, bv, a, true, i); });
    m.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(m, n), [&](const ordinal_t i) { c(i) = row(T, bv, a, false, i); });
    m.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(m, n), [&](const ordinal_t i) { out(i) = row(T, bv, c, false, i); });
    m.team_barrier();
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member& m) const {
    if (Flags & 2) {
      scratch a(m.team_scratch(0), n), c(m.team_scratch(0), n);
      solve(m, L, b, a, c, w);
      solve(m, U, CVec(w), a, c, z);
    } else {
      solve(m, L, b, wk, wk2, w);
      solve(m, U, CVec(w), wk, wk2, z);
    }
  }
};

struct Pair {
  Crs<double, Device> L, U;
  Vec dl, du;
};

Pair factors(const std::string& name, bool ic) {
  const auto& Ah = host_matrix(name);
  const auto A = to_device<Device>(Ah);
  ParIluHandle<double, Device> h(ic ? ParIluKind::Ic : ParIluKind::Ilu);
  par_ilu_symbolic(ExecSpace(), h, A);
  par_ilu_numeric(ExecSpace(), h, A);
  const auto f = par_ilu_factors(ExecSpace(), h);
  Pair p{f.L, f.U, Vec("dl", Ah.nrows), Vec("du", Ah.nrows)};
  auto inv = [](const Crs<double, Device>& T, const Vec& d, bool lower) {
    auto rm = T.graph.row_map;
    auto v = T.values;
    Kokkos::parallel_for(
        Kokkos::RangePolicy<ExecSpace>(0, T.numRows()),
        KOKKOS_LAMBDA(const ordinal_t i) { d(i) = 1.0 / v(lower ? rm(i + 1) - 1 : rm(i)); });
  };
  inv(p.L, p.dl, true);
  inv(p.U, p.du, false);
  Kokkos::fence();
  return p;
}

constexpr int kReps = 200;

/// The factors of `name` into p, or false with the benchmark skipped (the factorization's error as the reason).
bool factors_or_skip(benchmark::State& state, const std::string& name, bool ic, Pair& p) {
  try {
    p = factors(name, ic);
    return true;
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return false;
  }
}

/// Impl::FactorApply of the pair with Jacobi(3) solves (one_team_entries: TriSolveOptions', -1 its default).
void jacobi3_apply(Impl::FactorApply<double, Device>& M, const Pair& p, bool ic, std::int64_t one_team_entries) {
  TriSolveOptions o;
  o.kind = TriSolveKind::Jacobi;
  o.sweeps = 3;
  o.one_team_entries = one_team_entries;
  M.setup(p.L, p.U, !ic, Vec(), o);
}

void BM_factor_apply(benchmark::State& state, const std::string& name, bool ic, std::int64_t one_team_entries) {
  Pair p;
  if (!factors_or_skip(state, name, ic, p)) return;
  Impl::FactorApply<double, Device> M;
  jacobi3_apply(M, p, ic, one_team_entries);
  Vec x("x", p.L.numRows()), z("z", p.L.numRows());
  Kokkos::deep_copy(x, 1.0);
  M.apply(x, z);
  for (auto _ : state)
    state.SetIterationTime(timed([&] {
                             for (int r = 0; r < kReps; ++r) M.apply(x, z);
                           }) /
                           kReps);
  state.counters["n"] = p.L.numRows();
  state.counters["nnz_L"] = p.L.nnz();
  state.counters["one_team"] = M.one_team();
}

template <int Flags>
void BM_probe(benchmark::State& state, const std::string& name, bool ic) {
  Pair p;
  if (!factors_or_skip(state, name, ic, p)) return;
  const ordinal_t n = p.L.numRows();
  using F = PairProbe<Flags>;
  F f;
  auto tri = [](const Crs<double, Device>& T, const Vec& d, bool lower) {
    typename F::Tri t;
    t.rm = T.graph.row_map;
    t.ent = T.graph.entries;
    t.val = T.values;
    t.dinv = d;
    t.rm_p = T.graph.row_map;
    t.ent_p = T.graph.entries;
    t.val_p = T.values;
    t.dinv_p = d;
    t.lower = lower;
    // sliced copy of the off-diagonal entries
    const auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), T.graph.row_map);
    const auto en = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), T.graph.entries);
    const auto va = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), T.values);
    const ordinal_t nr = T.numRows(), slices = (nr + 31) / 32;
    std::vector<offset_t> sp(slices + 1, 0);
    for (ordinal_t sl = 0; sl < slices; ++sl) {
      offset_t len = 0;
      for (ordinal_t i = 32 * sl; i < std::min(nr, 32 * sl + 32); ++i)
        len = std::max<offset_t>(len, rm(i + 1) - rm(i) - 1);
      sp[sl + 1] = sp[sl] + 32 * len;
    }
    std::vector<ordinal_t> se(sp[slices]);
    std::vector<double> sv(sp[slices], 0.0);
    for (ordinal_t sl = 0; sl < slices; ++sl)
      for (ordinal_t lane = 0; lane < 32; ++lane) {
        const ordinal_t i = 32 * sl + lane;
        const offset_t len = (sp[sl + 1] - sp[sl]) / 32;
        offset_t k = 0;
        if (i < nr)
          for (offset_t q = rm(i) + (lower ? 0 : 1); q < rm(i + 1) - (lower ? 1 : 0); ++q, ++k) {
            se[sp[sl] + 32 * k + lane] = en(q);
            sv[sp[sl] + 32 * k + lane] = va(q);
          }
        for (; k < len; ++k) se[sp[sl] + 32 * k + lane] = i < nr ? i : 0;
      }
    t.sp = to_device<Device>(sp);
    t.se = to_device<Device>(se);
    t.sv = to_device<Device>(sv);
    return t;
  };
  f.L = tri(p.L, p.dl, true);
  f.U = tri(p.U, p.du, false);
  Vec x("x", n);
  Kokkos::deep_copy(x, 1.0);
  f.b = x;
  f.w = Vec("w", n);
  f.z = Vec("z", n);
  f.wk = Vec("wk", n);
  f.wk2 = Vec("wk2", n);
  f.n = n;
  const std::size_t bytes = (Flags & 2) ? 2 * F::scratch::shmem_size(n) : 0;
  if (bytes > static_cast<std::size_t>(Impl::TeamPolicy<ExecSpace>::scratch_size_max(0))) {
    state.SkipWithError("iterates do not fit the team's scratch memory");
    return;
  }
  auto policy0 = Impl::TeamPolicy<ExecSpace>(1, 1);
  policy0.set_scratch_size(0, Kokkos::PerTeam(bytes));
  const int team = std::min(1024, policy0.team_size_max(f, Kokkos::ParallelForTag()));
  auto policy = Impl::TeamPolicy<ExecSpace>(1, team);
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for("probe", policy, f);
  for (auto _ : state)
    state.SetIterationTime(timed([&] {
                             for (int r = 0; r < kReps; ++r) Kokkos::parallel_for("probe", policy, f);
                           }) /
                           kReps);
  state.counters["n"] = n;
  state.counters["team"] = team;
  {  // the probe's z against FactorApply's application of the same factors (in one team or a launch per sweep by its
     // bound: the same sums)
    Impl::FactorApply<double, Device> M;
    jacobi3_apply(M, p, ic, -1);
    Vec zr("zr", n);
    M.apply(x, zr);
    double d = 0;
    auto zp = f.z;
    Kokkos::parallel_reduce(
        Kokkos::RangePolicy<ExecSpace>(0, n),
        KOKKOS_LAMBDA(const ordinal_t i, double& acc) {
          const double e = zp(i) - zr(i) < 0 ? zr(i) - zp(i) : zp(i) - zr(i);
          acc = e > acc ? e : acc;
        },
        Kokkos::Max<double>(d));
    state.counters["max_diff"] = d;
  }
}

void BM_empty(benchmark::State& state) {
  auto policy = Impl::TeamPolicy<ExecSpace>(1, 1024);
  auto empty = KOKKOS_LAMBDA(const Impl::TeamPolicy<ExecSpace>::member_type& m) { m.team_barrier(); };
  for (auto _ : state)
    state.SetIterationTime(timed([&] {
                             for (int r = 0; r < kReps; ++r) Kokkos::parallel_for("empty", policy, empty);
                           }) /
                           kReps);
}

void register_all() {
  auto reg = [](const std::string& label, auto... args) {
    benchmark::RegisterBenchmark(label.c_str(), args...)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(5);  // each iteration is 200 launches
  };
  reg("team_apply/empty_kernel", BM_empty);
  const std::pair<const char*, bool> ms[] = {{"watt_2", false},  {"nos7", true},     {"nos3", true},
                                             {"nos5", true},     {"1138_bus", true}, {"fv3", true},
                                             {"bcsstk16", true}, {"L2D_small", true}};
  for (const auto& m : ms) {
    const std::string p = "team_apply/" + std::string(m.first) + "/";
    reg(p + "launches", BM_factor_apply, m.first, m.second, std::int64_t(0));
    reg(p + "one_team", BM_factor_apply, m.first, m.second, std::int64_t(1) << 40);
    reg(p + "probe_plain", BM_probe<0>, m.first, m.second);
    reg(p + "probe_ro", BM_probe<1>, m.first, m.second);
    reg(p + "probe_scratch", BM_probe<2>, m.first, m.second);
    reg(p + "probe_ro_scratch", BM_probe<3>, m.first, m.second);
    reg(p + "probe_sliced", BM_probe<5>, m.first, m.second);
    reg(p + "probe_sliced_scratch", BM_probe<7>, m.first, m.second);
    reg(p + "probe_ro_unroll4", BM_probe<9>, m.first, m.second);
    reg(p + "probe_sliced_unroll4", BM_probe<13>, m.first, m.second);
    reg(p + "probe_sliced_scratch_unroll4", BM_probe<15>, m.first, m.second);
  }
}

const bool registered = (register_all(), true);

}  // namespace
