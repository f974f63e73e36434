// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — order statistics of repeated runs (host): minimum, quartiles, median, maximum.
//
// Asynchronous methods give a different result in every run; their outcome is a distribution, reported as the
// median, the quartiles and the worst case (for iteration counts and residuals: the maximum). Quantiles interpolate
// linearly between order statistics (the "type 7" definition of Hyndman & Fan 1996, numpy's default): for sorted
// values v_0 <= ... <= v_{n-1}, q(f) = v_k + (h - k) (v_{k+1} - v_k) with h = f (n - 1), k = floor(h). So the
// median of an even count is the mean of the two middle values, and q(0) and q(1) are the minimum and maximum.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_errors.hpp>

namespace AsyncSparse {

/// Order statistics of a sample (all 0 for an empty one; count says so).
struct SampleSummary {
  std::size_t count = 0;
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
};

/// The quantile f in [0, 1] of sorted values (linear interpolation between order statistics, see above).
inline double sorted_quantile(const std::vector<double>& sorted, double f) {
  if (sorted.empty()) throw InvalidInput("sorted_quantile: no values");
  if (!(f >= 0.0 && f <= 1.0)) throw InvalidInput("sorted_quantile: f must be in [0, 1], got " + std::to_string(f));
  const double h = f * static_cast<double>(sorted.size() - 1);
  const std::size_t k = static_cast<std::size_t>(std::floor(h));
  if (static_cast<double>(k) == h || k + 1 >= sorted.size()) return sorted[k];  // on an order statistic
  return sorted[k] + (h - static_cast<double>(k)) * (sorted[k + 1] - sorted[k]);
}

/// Minimum, quartiles, median and maximum of `values` (any order). A NaN (a run that failed) ranks above every
/// number, as the worst case: the maximum is then NaN, and so is every quantile interpolated towards it.
inline SampleSummary summarize_samples(std::vector<double> values) {
  SampleSummary s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end(),
            [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : (!std::isnan(a) && a < b); });
  s.min = values.front();
  s.max = values.back();
  s.q1 = sorted_quantile(values, 0.25);
  s.median = sorted_quantile(values, 0.5);
  s.q3 = sorted_quantile(values, 0.75);
  return s;
}

}  // namespace AsyncSparse
