// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — ParILUT / ParICT threshold selection and removal (Ginkgo: par_ilut_select and par_ilut_filter):
// per factor the magnitude threshold that keeps the fill budget (SampleSelect, exact or approximate), then the
// factor without the off-diagonal entries below it. Layout of the factors: AsyncSparse_par_ilut_common.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut_handle.hpp>
#include <asyncsparse/factorization/AsyncSparse_select.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_par_ilut_common.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_team_select.hpp>

namespace AsyncSparse {
namespace Impl {

/// Keep rule of one factor: the diagonal always; |v| > threshold; |v| == threshold for the first `quota` such
/// entries in storage order (exact selection: the budget is met exactly), or all of them (all_ties; quota is then
/// not read: the approximate selection sets it to max, SampleSelect's exact path to the whole budget).
struct IlutKeepRule {
  bool remove = false;  ///< false: keep every entry
  double threshold = 0.0;
  std::int64_t quota = 0;
  /// the quota keeps every tie (approximate selection; exact selection where only the quota's ties exist, as with
  /// distinct magnitudes): ilut_keep then needs no ranking of the ties
  bool all_ties = false;
};

/// Params::team_select_max resolved: the most magnitudes the one-team radix select handles. Measured on an H100
/// (perf_tests/results/nvidia-h100/par_ilut_pool_and_team_select/, calls 3-5): on uniform random values
/// (`select_short`) the one-team select with its early exit takes 45-77 us from 1,024 to 32,768 values, 1.6-2.6x
/// faster than SampleSelect, 1.14x at 65,536 and 0.82x at 131,072 (one team reads at one SM's bandwidth). In the
/// ParILUT/ParICT steps it was clearly faster below 10,000 magnitudes (cryg2500: 0.12-0.17 ms per threshold phase
/// against 0.33-0.49), within the run-to-run spread around 56,000 (ParICT on fv1). The rule keeps it where it won in
/// every call: up to 32,768. Host backends have no launch latency to save: never.
template <class ExecSpace, class Params>
std::int64_t ilut_team_select_max(const Params& p) {
  if (p.team_select_max >= 0) return p.team_select_max;
  return is_gpu_space<ExecSpace>() ? std::int64_t(32768) : 0;
}

/// Select the threshold of factor F (rows, diagonal last: L or Ut) that keeps `budget` of its entries, the
/// diagonal included. F's strict entries are numbered p - F.row(p).
template <class ExecSpace, class Handle>
IlutKeepRule ilut_select(const ExecSpace& exec, Handle& h, const ilut_factor_t<Handle>& F, offset_t budget) {
  using Scalar = typename Handle::scalar_type;
  using VV = typename Handle::value_view;
  const ordinal_t n = h.state().n;
  const std::int64_t m = F.nnz - n, budget_offdiag = std::max<std::int64_t>(0, budget - n);
  IlutKeepRule rule;
  if (m <= budget_offdiag) return rule;
  rule.remove = true;
  if (budget_offdiag == 0) {  // a budget of at most n keeps the diagonal only: nothing to select
    rule.threshold = static_cast<double>(std::numeric_limits<Scalar>::max());
    rule.quota = 0;
    return rule;
  }
  VV mag = ilut_alloc<VV>(ilut_ws(h), "AsyncSparse::par_ilut::magnitudes", m);
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::magnitudes", Impl::RangePolicy<ExecSpace>(exec, 0, F.nnz),
      KOKKOS_LAMBDA(const offset_t p) {
        if (F.col(p) != F.row(p)) mag(p - F.row(p)) = ilut_abs(F.val(p));
      });
  auto& sel = h.state().select;
  sel.params = h.params.select;
  sel.params.order = SelectOrder::Magnitude;
  sel.launch = h.select_launch;
  const std::int64_t k = m - budget_offdiag;  // rank (ascending) of the smallest kept magnitude
  Scalar t;
  if (h.params.selection == ThresholdSelection::Exact && m <= ilut_team_select_max<ExecSpace>(h.params)) {
    auto& out = h.state().team_select;
    if (out.data() == nullptr)
      out = Kokkos::View<std::int64_t*, typename Handle::device_type>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "AsyncSparse::par_ilut::team_select"), 4);
    const auto r = team_select_magnitude(exec, mag, m, k, out);
    if (r.nan_count > 0) {
      sample_select(exec, sel, mag, k);  // names the first NaN (InvalidInput)
      throw InvalidInput(std::string(par_ilut_name(h)) + ": " + std::to_string(r.nan_count) +
                         " NaN among the magnitudes of the threshold selection");
    }
    t = r.value;
    rule.quota = budget_offdiag - r.greater;
    rule.all_ties = r.equal <= rule.quota;
    sel.stats = SampleSelectStats{};  // no SampleSelect ran
  } else if (h.params.selection == ThresholdSelection::Exact) {
    t = sample_select(exec, sel, mag, k);
    // How many reach the threshold (|v| >= t), from SampleSelect's counts (its buckets and base case, no pass of
    // its own). At most the budget (the usual case: t has no ties beyond the quota) means every tie stays and the
    // quota is never used; otherwise the strictly larger ones take their part of the budget first, the rest going to
    // the ties in storage order.
    const std::int64_t reaching = sel.stats.count_greater + sel.stats.count_equal;
    rule.all_ties = reaching <= budget_offdiag;
    rule.quota = budget_offdiag;
    if (!rule.all_ties) rule.quota -= sel.stats.count_greater;
  } else {
    t = sample_select_approximate(exec, sel, mag, k).value;
    rule.quota = std::numeric_limits<std::int64_t>::max();
    rule.all_ties = true;
  }
  h.stats().last_select = sel.stats;
  rule.threshold = static_cast<double>(t);
  return rule;
}

/// Which entries of a factor stay: entry p does where pos(p + 1) > pos(p); pos(p) is its compacted position,
/// pos(nnz) = kept.
template <class PV>
struct IlutKeep {
  PV pos;
  offset_t kept = 0;
};

/// The entries of factor F (rows, diagonal last) that stay under `rule`. Where every tie stays (IlutKeepRule::
/// all_ties, the usual case), one scan decides and positions at once. Where the quota keeps only some of the ties,
/// a first scan ranks the ties (|v| == threshold) in storage order and decides keep(p) from the global rank in its
/// final pass, the second turns keep into positions. (One scan cannot do both: its increment would depend on the
/// prefix, which a parallel scan's first pass only knows locally.)
template <class ExecSpace, class Workspace, class Factor>
IlutKeep<decltype(Factor::ptr)> ilut_keep(const ExecSpace& exec, Workspace& ws, const Factor& F,
                                          const IlutKeepRule& rule) {
  using PV = decltype(Factor::ptr);
  using Scalar = typename decltype(Factor::val)::non_const_value_type;
  const offset_t nnz = F.nnz;
  IlutKeep<PV> k{ilut_alloc<PV>(ws, "AsyncSparse::par_ilut::pos", static_cast<std::size_t>(nnz) + 1)};
  const bool remove = rule.remove;
  const Scalar t = static_cast<Scalar>(rule.threshold);
  const std::int64_t quota = rule.quota;
  if (!remove || rule.all_ties) {
    k.kept = static_cast<offset_t>(ilut_scan_counts(
        exec, ws, k.pos,
        KOKKOS_LAMBDA(const std::int64_t p)->offset_t {
          return !remove || F.col(p) == F.row(p) || ilut_abs(F.val(p)) >= t ? 1 : 0;
        },
        nnz, nnz, "AsyncSparse::par_ilut::keep_scan"));
    return k;
  }
  const PV keep = ilut_alloc<PV>(ws, "AsyncSparse::par_ilut::keep", nnz);
  Kokkos::parallel_scan(
      "AsyncSparse::par_ilut::tie_scan", Impl::RangePolicy<ExecSpace>(exec, 0, nnz),
      KOKKOS_LAMBDA(const offset_t p, std::int64_t& ties_before, const bool final) {
        const Scalar a = ilut_abs(F.val(p));
        const bool d = F.col(p) == F.row(p);
        const bool tie = !d && a == t;
        if (final) keep(p) = (d || a > t || (tie && ties_before < quota)) ? 1 : 0;
        if (tie) ++ties_before;
      });
  k.kept = static_cast<offset_t>(ilut_scan_counts(exec, ws, k.pos, keep, nnz, nnz, "AsyncSparse::par_ilut::keep_scan"));
  return k;
}

/// Compact factor F by pos into a new factor (ptr(i) = pos(F.ptr(i))).
template <class ExecSpace, class Workspace, class Factor, class PV>
Factor ilut_compact(const ExecSpace& exec, Workspace& ws, ordinal_t n, const Factor& F, const IlutKeep<PV>& k,
                    bool values, bool second) {
  Factor G;
  G.ptr = ilut_alloc<PV>(ws, "AsyncSparse::par_ilut::ptr", static_cast<std::size_t>(n) + 1);
  ilut_alloc_entries(ws, G, k.kept, values, second);
  auto pos = k.pos;
  // the entries (indices below nnz) and the row pointers (the n + 1 after them) in one launch
  const offset_t nnz = F.nnz;
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::compact",
      Impl::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, static_cast<std::int64_t>(nnz) + n + 1),
      KOKKOS_LAMBDA(const std::int64_t e) {
        if (e >= nnz) {  // row pointer i = e - nnz
          const auto i = static_cast<ordinal_t>(e - nnz);
          G.ptr(i) = pos(F.ptr(i));
          return;
        }
        const auto p = static_cast<offset_t>(e);
        const offset_t d = pos(p);
        if (pos(p + 1) == d) return;  // removed
        G.col(d) = F.col(p);
        G.row(d) = F.row(p);
        G.apos(d) = F.apos(p);
        if (values) {
          G.val(d) = F.val(p);
          if (second) G.val2(d) = F.val(p);
        }
      });
  return G;
}

/// ParILUT: removes from U, Ut and umap the entries that `kt` (the decisions for Ut) drops.
template <class ExecSpace, class Handle>
void ilut_remove_u(const ExecSpace& exec, Handle& h, const IlutKeep<typename Handle::offset_view>& kt) {
  using PV = typename Handle::offset_view;
  auto& st = h.state();
  const bool det = h.params.mode == SweepMode::Deterministic;
  // the same decisions for the row storage of U, through umap
  const offset_t nu = st.U.nnz;
  const auto pos_t = kt.pos;
  auto umap = st.umap;
  IlutKeep<PV> ku{ilut_alloc<PV>(ilut_ws(h), "AsyncSparse::par_ilut::pos_u", static_cast<std::size_t>(nu) + 1),
                  kt.kept};
  const auto pos_u = ku.pos;
  ilut_scan_counts(
      exec, ilut_ws(h), pos_u,
      KOKKOS_LAMBDA(const std::int64_t q)->offset_t { return pos_t(umap(q) + 1) - pos_t(umap(q)); }, nu, nu,
      "AsyncSparse::par_ilut::keep_u_scan", false);  // its total is kt.kept
  st.U = ilut_compact(exec, ilut_ws(h), st.n, st.U, ku, false, false);
  st.Ut = ilut_compact(exec, ilut_ws(h), st.n, st.Ut, kt, true, det);
  PV umap2 = ilut_alloc<PV>(ilut_ws(h), "AsyncSparse::par_ilut::umap", kt.kept);
  Kokkos::parallel_for(
      "AsyncSparse::par_ilut::umap_compact", Impl::RangePolicy<ExecSpace>(exec, 0, nu),
      KOKKOS_LAMBDA(const offset_t q) {
        if (pos_u(q + 1) > pos_u(q)) umap2(pos_u(q)) = pos_t(umap(q));
      });
  st.umap = umap2;
  ++st.pattern_generation;  // U's pattern, the task list and the product lists' positions changed
}

/// Select and remove for both factors; records thresholds and times in `ss`.
template <class ExecSpace, class Handle>
void ilut_select_and_remove(const ExecSpace& exec, Handle& h, ParIlutStepStats& ss) {
  auto& st = h.state();
  const bool ilut = st.kind == ParIlutKind::Ilut;
  Kokkos::Timer timer;
  const IlutKeepRule rule_L = ilut_select(exec, h, st.L, h.stats().budget_L);
  const IlutKeepRule rule_U = ilut ? ilut_select(exec, h, st.Ut, h.stats().budget_U) : IlutKeepRule();
  exec.fence();
  ss.select_seconds = timer.seconds();
  ss.threshold_L = rule_L.remove ? rule_L.threshold : 0.0;
  ss.threshold_U = rule_U.remove ? rule_U.threshold : 0.0;
  timer.reset();
  auto& ws = ilut_ws(h);
  if (rule_L.remove) {
    st.L = ilut_compact(exec, ws, st.n, st.L, ilut_keep(exec, ws, st.L, rule_L), true,
                        h.params.mode == SweepMode::Deterministic);
    ++st.pattern_generation;
  }
  if (ilut && rule_U.remove) ilut_remove_u(exec, h, ilut_keep(exec, ws, st.Ut, rule_U));
  if (ilut) ilut_build_tasks(exec, h);
  exec.fence();
  ss.remove_seconds = timer.seconds();
}

}  // namespace Impl
}  // namespace AsyncSparse
