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
#include <stdexcept>
#include <string>

#include <asyncsparse/core/AsyncSparse_policies.hpp>
#include <asyncsparse/factorization/AsyncSparse_par_ilut_handle.hpp>
#include <asyncsparse/factorization/AsyncSparse_select.hpp>
#include <asyncsparse/factorization/impl/AsyncSparse_bucket_select.hpp>
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
  /// the entries the rule keeps where the host knows them without a read-back, else -1: an exact selection keeps the
  /// diagonal and exactly its off-diagonal budget (ties beyond the quota go), the other rules keep what the values say
  std::int64_t kept = -1;
};

/// Params::team_select_max resolved: the most magnitudes the one-team radix select handles. Measured on an H100
/// (perf_tests/results/nvidia-h100/par_ilut_pool_and_team_select/, calls 3-5): on uniform random values
/// (`select_short`) the one-team select with its early exit takes 45-77 us from 1,024 to 32,768 values, 1.6-2.6x
/// faster than SampleSelect, 1.14x at 65,536 and 0.82x at 131,072 (one team reads at one SM's bandwidth). In the
/// ParILUT/ParICT steps it was clearly faster below 10,000 magnitudes (cryg2500: 0.12-0.17 ms per threshold phase
/// against 0.33-0.49), within the run-to-run spread around 56,000 (ParICT on fv1). The rule keeps it where it won in
/// every call: up to 32,768. Rechecked in the steps (H100, 2026-12-06, MEASUREMENTS.md#par-ilut-kept-count): forced
/// above the bound, ParILUT 1.08-1.21x slower (fv1's 56,262 magnitudes per factor to bcsstk16's 370,000), ParICT
/// 0.99-1.21x. Host backends have no launch latency to save: never.
template <class ExecSpace, class Params>
std::int64_t ilut_team_select_max(const Params& p) {
  if (p.team_select_max >= 0) return p.team_select_max;
  return is_gpu_space<ExecSpace>() ? std::int64_t(32768) : 0;
}

/// Params::bucket_select_max resolved: the most magnitudes that an exact selection of more than ilut_team_select_max
/// runs as one SampleSelect level finished by the one-team select, all on the device (Impl::bucket_select_launch),
/// instead of SampleSelect's levels with their waits. Measured on an H100 (MEASUREMENTS.md#par-ilut-bucket-select,
/// two calls, the steps' selection phases, both factors): fv1 (56,262 magnitudes per factor) 0.12 ms against 0.17-0.18,
/// bodyy4 (86,000) 0.15 against 0.22-0.23, bcsstk16 (370,000) 0.23-0.26 against 0.36-0.41; L2D (3.1 million) 0.41-0.42
/// against 0.41-0.43, L3D (7.7 million) 0.77-0.79 against 0.71-0.72, where the one-team select on the bucket (12,000-
/// 30,000 values) costs more than SampleSelect's waits.
/// The rule keeps it up to 2^20, between the sizes where it won and those where it did not. Host backends: never.
template <class ExecSpace, class Params>
std::int64_t ilut_bucket_select_max(const Params& p) {
  if (p.bucket_select_max >= 0) return p.bucket_select_max;
  return is_gpu_space<ExecSpace>() ? std::int64_t(1) << 20 : 0;
}

/// A threshold selection of ilut_select_begin: its rule, or (`pending`) a one-team select on the magnitudes `mag`
/// (or a bucket of them: `bucketed`) launched into entries 4 slot .. 4 slot + 3 of State::team_select, which
/// ilut_select_end reads.
template <class VV>
struct IlutSelection {
  IlutKeepRule rule;
  bool ran = false;      ///< a selection ran (its SampleSelect statistics in `stats`, none for the one-team select)
  bool pending = false;  ///< the one-team select's result is still on the device
  bool bucketed = false;  ///< pending after a SampleSelect level (its statistics in `stats`)
  SampleSelectStats stats;
  VV mag;
  std::int64_t k = 0, budget_offdiag = 0;
  int slot = 0;
};

/// Select the threshold of factor F (rows, diagonal last: L or Ut) that keeps `budget` of its entries, the
/// diagonal included. F's strict entries are numbered p - F.row(p). Where the one-team select takes the magnitudes
/// (or, up to ilut_bucket_select_max, one SampleSelect level and the one-team select on its bucket), it is only
/// launched (into slot `slot` of State::team_select): ilut_select_end reads the results of both factors in one wait for
/// the device. SampleSelect waits for the device at each level and returns the rule at once.
template <class ExecSpace, class Handle>
IlutSelection<typename Handle::value_view> ilut_select_begin(const ExecSpace& exec, Handle& h,
                                                             const ilut_factor_t<Handle>& F, offset_t budget,
                                                             int slot) {
  using Scalar = typename Handle::scalar_type;
  using VV = typename Handle::value_view;
  const ordinal_t n = h.state().n;
  const std::int64_t m = F.nnz - n, budget_offdiag = std::max<std::int64_t>(0, budget - n);
  IlutSelection<VV> s;
  IlutKeepRule& rule = s.rule;
  if (m <= budget_offdiag) return s;
  rule.remove = true;
  if (budget_offdiag == 0) {  // a budget of at most n keeps the diagonal only: nothing to select
    rule.threshold = static_cast<double>(std::numeric_limits<Scalar>::max());
    rule.quota = 0;
    return s;
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
  s.ran = true;
  const bool exact = h.params.selection == ThresholdSelection::Exact;
  // an exact selection keeps the diagonal and exactly the off-diagonal budget, whatever its threshold
  if (exact) rule.kept = n + budget_offdiag;
  const bool one_team = m <= ilut_team_select_max<ExecSpace>(h.params);
  if (exact && (one_team || m <= ilut_bucket_select_max<ExecSpace>(h.params))) {
    using DV = Kokkos::View<std::int64_t*, typename Handle::device_type>;
    auto& out = h.state().team_select;
    if (out.data() == nullptr)  // zeroed: ilut_select_end copies all eight entries, pending or not
      out = DV("AsyncSparse::par_ilut::team_select", 8);
    const auto res = Kokkos::subview(out, std::make_pair(4 * slot, 4 * slot + 4));
    if (one_team) {
      team_select_launch(exec, mag, m, k, res);
    } else {
      auto& bucket = h.state().bucket_select;
      if (bucket.data() == nullptr) bucket = DV("AsyncSparse::par_ilut::bucket_select", 2 * kBucketEntries);
      bucket_select_launch(exec, sel, mag, m, k,
                           Kokkos::subview(bucket, std::make_pair(kBucketEntries * slot, kBucketEntries * (slot + 1))),
                           res);
      s.bucketed = true;
      s.stats = sel.stats;
    }
    s.pending = true;
    s.mag = mag;
    s.k = k;
    s.budget_offdiag = budget_offdiag;
    s.slot = slot;
    return s;
  }
  Scalar t;
  if (exact) {
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
  s.stats = sel.stats;
  rule.threshold = static_cast<double>(t);
  return s;
}

/// Completes the selections `a` and `b` of ilut_select_begin: the pending one-team selects' results in one copy and
/// one wait; Stats::last_select gets the statistics of the last factor whose selection ran.
template <class ExecSpace, class Handle, class VV>
void ilut_select_end(const ExecSpace& exec, Handle& h, IlutSelection<VV>& a, IlutSelection<VV>& b) {
  using Scalar = typename Handle::scalar_type;
  if (a.pending || b.pending) {
    std::int64_t res[8];  // every slot of State::team_select: one copy whichever are pending
    Kokkos::deep_copy(exec,
                      Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(res, 8),
                      h.state().team_select);
    exec.fence();
    for (IlutSelection<VV>* s : {&a, &b}) {
      if (!s->pending) continue;
      const auto r = team_select_result<Scalar>(res + 4 * s->slot);
      if (r.nan_count > 0) {
        sample_select(exec, h.state().select, s->mag, s->k);  // names the first NaN (InvalidInput)
        throw InvalidInput(std::string(par_ilut_name(h)) + ": " + std::to_string(r.nan_count) +
                           " NaN among the magnitudes of the threshold selection");
      }
      s->rule.threshold = static_cast<double>(r.value);
      s->rule.quota = s->budget_offdiag - r.greater;
      s->rule.all_ties = r.equal <= s->rule.quota;
      if (s->bucketed) {  // one SampleSelect level ran: its statistics with the counts of the result
        s->stats.count_greater = r.greater;
        s->stats.count_equal = r.equal;
      } else {
        s->stats = SampleSelectStats{};  // no SampleSelect ran
      }
      s->pending = false;
      s->mag = VV();
    }
  }
  if (a.ran || b.ran) {
    h.state().select.stats = b.ran ? b.stats : a.stats;
    h.stats().last_select = h.state().select.stats;
  }
}

/// Which entries of a factor stay: entry p does where pos(p + 1) > pos(p); pos(p) is its compacted position,
/// pos(nnz) = kept (the count IlutKeepRule::kept promised, or -1 on the host until read: ilut_read_kept).
template <class PV>
struct IlutKeep {
  PV pos;
  offset_t kept = -1;
};

/// The totals of the keep decisions `a` and `b` (those with kept = -1 and a position array) in one wait for the
/// device: each total is pos(nnz), the last entry of its scan. Totals the rule knew (IlutKeepRule::kept: exact
/// selection) are not read on GPUs, which saves a wait per step (an H100: ParILUT steps 0.96-0.97x on fv1 and
/// bodyy4, MEASUREMENTS.md#par-ilut-kept-count); host backends, where a read costs no wait, read them too and check
/// them (a mismatch is an internal error: the compaction would be sized wrong).
template <class ExecSpace, class PV>
void ilut_read_kept(const ExecSpace& exec, IlutKeep<PV>& a, IlutKeep<PV>& b) {
  using H = Kokkos::View<offset_t, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  constexpr bool check = !is_gpu_space<ExecSpace>();
  offset_t read[2] = {-1, -1};
  IlutKeep<PV>* keeps[2] = {&a, &b};
  bool any = false;
  for (int f = 0; f < 2; ++f)
    if ((keeps[f]->kept < 0 || check) && keeps[f]->pos.extent(0) > 0) {
      Kokkos::deep_copy(exec, H(&read[f]), Kokkos::subview(keeps[f]->pos, keeps[f]->pos.extent(0) - 1));
      any = true;
    }
  if (!any) return;
  exec.fence();
  for (int f = 0; f < 2; ++f) {
    if (read[f] < 0) continue;
    if (keeps[f]->kept >= 0 && keeps[f]->kept != read[f])
      throw std::logic_error("par_ilut: the threshold rule keeps " + std::to_string(read[f]) + " entries, not the " +
                             std::to_string(keeps[f]->kept) + " its selection promised");
    keeps[f]->kept = read[f];
  }
}

/// The entries of factor F (rows, diagonal last) that stay under `rule`. Where every tie stays (IlutKeepRule::
/// all_ties, the usual case), one scan decides and positions at once. Where the quota keeps only some of the ties,
/// a first scan ranks the ties (|v| == threshold) in storage order and decides keep(p) from the global rank in its
/// final pass, the second turns keep into positions. (One scan cannot do both: its increment would depend on the
/// prefix, which a parallel scan's first pass only knows locally.) The total (IlutKeep::kept) is the rule's where it
/// knows it (IlutKeepRule::kept), otherwise left to ilut_read_kept, which reads those of both factors at once.
template <class ExecSpace, class Workspace, class Factor>
IlutKeep<decltype(Factor::ptr)> ilut_keep(const ExecSpace& exec, Workspace& ws, const Factor& F,
                                          const IlutKeepRule& rule) {
  using PV = decltype(Factor::ptr);
  using Scalar = typename decltype(Factor::val)::non_const_value_type;
  const offset_t nnz = F.nnz;
  IlutKeep<PV> k{ilut_alloc<PV>(ws, "AsyncSparse::par_ilut::pos", static_cast<std::size_t>(nnz) + 1),
                 static_cast<offset_t>(rule.kept)};
  const bool remove = rule.remove;
  const Scalar t = static_cast<Scalar>(rule.threshold);
  const std::int64_t quota = rule.quota;
  if (!remove || rule.all_ties) {
    ilut_scan_counts(
        exec, ws, k.pos,
        KOKKOS_LAMBDA(const std::int64_t p)->offset_t {
          return !remove || F.col(p) == F.row(p) || ilut_abs(F.val(p)) >= t ? 1 : 0;
        },
        nnz, nnz, "AsyncSparse::par_ilut::keep_scan", false);
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
  ilut_scan_counts(exec, ws, k.pos, keep, nnz, nnz, "AsyncSparse::par_ilut::keep_scan", false);
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
  // both factors' selections launched first, their results read in one wait (one-team selects)
  auto sel_L = ilut_select_begin(exec, h, st.L, h.stats().budget_L, 0);
  decltype(sel_L) sel_U;
  if (ilut) sel_U = ilut_select_begin(exec, h, st.Ut, h.stats().budget_U, 1);
  ilut_select_end(exec, h, sel_L, sel_U);
  const IlutKeepRule rule_L = sel_L.rule, rule_U = sel_U.rule;
  // no fence: each selection that ran has read its threshold from the device (ilut_select_end, SampleSelect)
  ss.select_seconds = timer.seconds();
  ss.threshold_L = rule_L.remove ? rule_L.threshold : 0.0;
  ss.threshold_U = rule_U.remove ? rule_U.threshold : 0.0;
  timer.reset();
  auto& ws = ilut_ws(h);
  // both factors' decisions first, then their totals in one wait (the compactions need them on the host)
  IlutKeep<typename Handle::offset_view> keep_L, keep_U;
  if (rule_L.remove) keep_L = ilut_keep(exec, ws, st.L, rule_L);
  if (ilut && rule_U.remove) keep_U = ilut_keep(exec, ws, st.Ut, rule_U);
  ilut_read_kept(exec, keep_L, keep_U);
  if (rule_L.remove) {
    st.L = ilut_compact(exec, ws, st.n, st.L, keep_L, true, h.params.mode == SweepMode::Deterministic);
    ++st.pattern_generation;
  }
  if (ilut && rule_U.remove) ilut_remove_u(exec, h, keep_U);
  if (ilut) ilut_build_tasks(exec, h);
  exec.fence();
  ss.remove_seconds = timer.seconds();
}

}  // namespace Impl
}  // namespace AsyncSparse
