// RecordSet against a plain set of flags: random inserts and erases, gaps over random ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "common/record_set.hpp"

using esmio::RecordSet;

TEST(RecordSet, MatchesFlags) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    RecordSet set;
    std::set<int64_t> flags;
    for (int step = 0; step < 300; ++step) {
      const int64_t r = static_cast<int64_t>(rng() % 64);
      if (rng() % 3 == 0) {
        set.erase(r);
        flags.erase(r);
      } else {
        EXPECT_EQ(set.insert(r), flags.insert(r).second);
      }
      const int64_t from = static_cast<int64_t>(rng() % 70), to = from + rng() % 30;
      std::vector<std::pair<int64_t, int64_t>> want;
      for (int64_t k = from; k < to; ++k)
        if (!flags.count(k)) {
          if (!want.empty() && want.back().second == k)
            ++want.back().second;
          else
            want.emplace_back(k, k + 1);
        }
      ASSERT_EQ(set.gaps(from, to), want) << "round " << round << " step " << step;
      for (int64_t k = 0; k < 70; ++k) ASSERT_EQ(set.contains(k), flags.count(k) == 1);
    }
  }
}

TEST(RecordSet, FarRecordsCostOneInterval) {
  RecordSet set;
  EXPECT_TRUE(set.insert(int64_t(1) << 33));
  EXPECT_FALSE(set.insert(int64_t(1) << 33));
  EXPECT_EQ(set.intervals(), 1u);
  for (int64_t r = 0; r < 1000; ++r) set.insert(r);
  EXPECT_EQ(set.intervals(), 2u);
  const auto gaps = set.gaps(0, (int64_t(1) << 33) + 1);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0], std::make_pair(int64_t(1000), int64_t(1) << 33));
}
