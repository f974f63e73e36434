// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The order statistics of repeated runs (the driver's --runs tables): exact values of the type-7 quantiles.
#include <asyncsparse/diagnostics/AsyncSparse_sample_statistics.hpp>
#include <gtest/gtest.h>
#include <support/TestHelpers.hpp>

#include <cmath>
#include <limits>

using namespace AsyncSparse;

TEST(host, sample_summary_quartiles_are_exact) {
  // 4 values: h = f * 3 -> q1 at 0.75 (1 + 0.75 * 1), median at 1.5, q3 at 2.25; input order does not matter
  const SampleSummary a = summarize_samples({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(a.count, 4u);
  EXPECT_EQ(a.min, 1.0);
  EXPECT_EQ(a.q1, 1.75);
  EXPECT_EQ(a.median, 2.5);
  EXPECT_EQ(a.q3, 3.25);
  EXPECT_EQ(a.max, 4.0);
  // odd count: the median is the middle value; quartiles fall on order statistics for n = 5
  const SampleSummary b = summarize_samples({550, 616, 551, 550, 615});
  EXPECT_EQ(b.min, 550.0);
  EXPECT_EQ(b.q1, 550.0);
  EXPECT_EQ(b.median, 551.0);
  EXPECT_EQ(b.q3, 615.0);
  EXPECT_EQ(b.max, 616.0);
  // 9 runs of the L2D measurement: 7 near 550, 2 near 615; the upper quartile stays at 551
  const SampleSummary c = summarize_samples({551, 616, 551, 615, 550, 550, 551, 550, 551});
  EXPECT_EQ(c.median, 551.0);
  EXPECT_EQ(c.q1, 550.0);
  EXPECT_EQ(c.q3, 551.0);
  EXPECT_EQ(c.max, 616.0);
  // one value, and ties
  const SampleSummary d = summarize_samples({7.5});
  EXPECT_EQ(d.count, 1u);
  EXPECT_EQ(d.min, 7.5);
  EXPECT_EQ(d.q1, 7.5);
  EXPECT_EQ(d.median, 7.5);
  EXPECT_EQ(d.q3, 7.5);
  EXPECT_EQ(d.max, 7.5);
  const SampleSummary e = summarize_samples({2, 2, 2});
  EXPECT_EQ(e.q1, 2.0);
  EXPECT_EQ(e.q3, 2.0);
  // 3 values: q1 halfway between the first two, q3 between the last two
  const SampleSummary f = summarize_samples({10, 30, 20});
  EXPECT_EQ(f.q1, 15.0);
  EXPECT_EQ(f.median, 20.0);
  EXPECT_EQ(f.q3, 25.0);
  // empty: count 0, zeros
  const SampleSummary g = summarize_samples({});
  EXPECT_EQ(g.count, 0u);
  EXPECT_EQ(g.max, 0.0);
}

TEST(host, sample_summary_ranks_nan_as_the_worst_case) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const SampleSummary s = summarize_samples({3.0, nan, 1.0, 2.0, 4.0});
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.q1, 2.0);
  EXPECT_EQ(s.median, 3.0);
  EXPECT_EQ(s.q3, 4.0);
  EXPECT_TRUE(std::isnan(s.max));
  const SampleSummary t = summarize_samples({nan, 1.0});
  EXPECT_EQ(t.min, 1.0);
  EXPECT_TRUE(std::isnan(t.median));  // interpolated towards the failed run
}

TEST(host, sorted_quantile_values_and_errors) {
  const std::vector<double> v{0.0, 10.0, 20.0, 30.0, 40.0};
  EXPECT_EQ(sorted_quantile(v, 0.0), 0.0);
  EXPECT_EQ(sorted_quantile(v, 1.0), 40.0);
  EXPECT_EQ(sorted_quantile(v, 0.1), 4.0);
  EXPECT_EQ(sorted_quantile(v, 0.9), 36.0);
  ASYNCSPARSE_EXPECT_THROW_MSG(sorted_quantile({}, 0.5), InvalidInput, "sorted_quantile: no values");
  ASYNCSPARSE_EXPECT_THROW_MSG(sorted_quantile(v, 1.5), InvalidInput, "f must be in [0, 1], got 1.5");
  ASYNCSPARSE_EXPECT_THROW_MSG(sorted_quantile(v, std::nan("")), InvalidInput, "f must be in [0, 1]");
}
