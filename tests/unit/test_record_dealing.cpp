// Records too small for every I/O task to share: how many tasks split one (record_units) and
// which group of tasks takes each record of a flush (deal_records). Pure, without MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "aggregate/record_dealing.hpp"
#include "decomp/box_partition.hpp"

using namespace esmio;

namespace {

bool every_share_is_large_and_even(const std::vector<int64_t> &dims, int ntasks) {
  const decomp::BoxPartition p(dims, ntasks);
  const double mean = static_cast<double>(p.size()) / ntasks;
  for (int t = 0; t < ntasks; ++t) {
    const int64_t share = p.end(t) - p.begin(t);
    if (share < decomp::kMinShare || std::abs(share - mean) > 0.1 * mean) return false;
  }
  return true;
}

// Each task's bytes once the records are dealt (loads: what it had before).
std::vector<double> loads_after(const std::vector<aggregate::DealtRecord> &records,
                                const std::vector<int> &group, std::vector<double> loads) {
  for (std::size_t i = 0; i < records.size(); ++i) {
    const int u = records[i].units;
    for (int t = group[i] * u; t < (group[i] + 1) * u; ++t)
      loads[t] += static_cast<double>(records[i].bytes) / u;
  }
  return loads;
}

double spread(const std::vector<double> &loads) {
  const double mean = std::accumulate(loads.begin(), loads.end(), 0.0) / loads.size();
  const auto [lo, hi] = std::minmax_element(loads.begin(), loads.end());
  return std::max(mean - *lo, *hi - mean) / mean;
}

}  // namespace

TEST(RecordUnits, SmallRecordsGoToFewerTasks) {
  // E3SM F at ne30's test size: a 2-D field of 866 columns, a 3-D one of 72 x 866: one unit.
  EXPECT_EQ(decomp::record_units({866}, 2), 1);
  EXPECT_EQ(decomp::record_units({72, 866}, 2), 1);
  EXPECT_EQ(decomp::record_units({72, 866}, 16), 1);
  // E3SM I's 3-D land fields, 207,360 values: units of one level (64K values at least) in
  // shares within 10 % of each other: 2 of 7 or 8 levels, not 4 of 3 or 4.
  EXPECT_EQ(decomp::record_units({15, 96, 144}, 4), 2);
  EXPECT_EQ(decomp::record_units({15, 96, 144}, 8), 2);
  // A large record is shared by every task.
  EXPECT_EQ(decomp::record_units({26, 768, 1152}, 16), 16);
  EXPECT_EQ(decomp::record_units({50, 270, 360}, 4), 4);
  EXPECT_EQ(decomp::record_units({270, 360}, 4), 1);  // 97,200 values: units of 65,880
  EXPECT_EQ(decomp::record_units({}, 4), 1);          // a scalar
  EXPECT_EQ(decomp::record_units({0, 10}, 4), 1);     // an empty dimension
}

TEST(RecordUnits, LargestDivisorWhoseSharesAreLarge) {
  const std::vector<std::vector<int64_t>> shapes = {
      {96, 144}, {15, 96, 144}, {10, 96, 144}, {777602}, {72, 777602}, {360, 720}, {3, 1000000}};
  for (const auto &dims : shapes) {
    for (int n : {1, 2, 3, 4, 6, 8, 12, 16, 64, 96, 256}) {
      const int m = decomp::record_units(dims, n);
      ASSERT_GE(m, 1);
      EXPECT_EQ(n % m, 0) << n << " " << m;
      if (m > 1) {
        EXPECT_TRUE(every_share_is_large_and_even(dims, m)) << n << " " << m;
      }
      for (int larger = m + 1; larger <= n; ++larger) {
        if (n % larger == 0) {
          EXPECT_FALSE(every_share_is_large_and_even(dims, larger)) << larger;
        }
      }
    }
  }
}

TEST(DealRecords, E3smFieldsAtTwoTasksAreBalancedAndContiguous) {
  // One flush of the F case's record: 321 2-D fields (3.4 KiB) then 63 3-D ones (249 KiB).
  std::vector<aggregate::DealtRecord> records;
  for (int v = 0; v < 321; ++v) records.push_back({866 * 4, 1});
  for (int v = 0; v < 63; ++v) records.push_back({72 * 866 * 4, 1});
  for (int n : {2, 3, 4, 8, 16}) {
    const std::vector<int> group = aggregate::deal_records(records, std::vector<double>(n, 0.0));
    const std::vector<double> loads = loads_after(records, group, std::vector<double>(n, 0.0));
    // Within 10 % of the mean where each task takes many records; with 4 of the large ones
    // per task (16 tasks) a whole record is 24 % of a share: within one record then.
    const double mean = std::accumulate(loads.begin(), loads.end(), 0.0) / n;
    if (n <= 4) {
      EXPECT_LT(spread(loads), 0.10) << n << " tasks";
    }
    for (double l : loads) EXPECT_LE(std::abs(l - mean), 72 * 866 * 4) << n << " tasks";
    // Consecutive records stay together: the groups never go back, so each task's records
    // are one stretch of the file.
    EXPECT_TRUE(std::is_sorted(group.begin(), group.end())) << n << " tasks";
    EXPECT_EQ(group.back(), n - 1);
  }
}

TEST(DealRecords, FillsWhatTheSharedRecordsLeaveUneven) {
  // Task 0 already writes more than the others: the dealt records make up the difference.
  std::vector<aggregate::DealtRecord> records(40, aggregate::DealtRecord{1000, 1});
  const std::vector<double> before = {20000, 5000, 5000, 5000};
  const std::vector<int> group = aggregate::deal_records(records, before);
  const std::vector<double> loads = loads_after(records, group, before);
  EXPECT_EQ(std::count(group.begin(), group.end(), 0), 0);  // task 0 had more than its share
  // The others end within one record of each other.
  const auto [lo, hi] = std::minmax_element(loads.begin() + 1, loads.end());
  EXPECT_LE(*hi - *lo, 1000);
  EXPECT_GE(*lo, 18000);
}

TEST(DealRecords, GroupsOfSeveralTasks) {
  // Records of two units each on 8 tasks (4 groups), mixed with single-unit ones.
  std::mt19937 random(7);
  std::vector<aggregate::DealtRecord> records;
  for (int i = 0; i < 300; ++i)
    records.push_back({static_cast<int64_t>(1000 + random() % 50000), i % 3 == 0 ? 2 : 1});
  const std::vector<int> group = aggregate::deal_records(records, std::vector<double>(8, 0.0));
  for (std::size_t i = 0; i < records.size(); ++i) {
    ASSERT_GE(group[i], 0);
    ASSERT_LT(group[i], 8 / records[i].units);
  }
  EXPECT_LT(spread(loads_after(records, group, std::vector<double>(8, 0.0))), 0.10);
}

TEST(DealRecords, OneRecordOrOneTask) {
  const std::vector<int> one = aggregate::deal_records({{5000, 1}}, std::vector<double>(4, 0.0));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0] >= 0 && one[0] < 4);
  EXPECT_EQ(aggregate::deal_records({{5000, 1}, {7, 1}}, std::vector<double>(1, 0.0)),
            (std::vector<int>{0, 0}));
  EXPECT_TRUE(aggregate::deal_records({}, std::vector<double>(4, 0.0)).empty());
}

TEST(RecordDealer, OneRecordPerFlushTakesTurns) {
  // A record alone in each flush: the groups take it in turn, so the file is even.
  aggregate::RecordDealer dealer;
  std::vector<int> taken(4, 0);
  for (int flush = 0; flush < 12; ++flush) {
    const std::vector<int> g = dealer.deal({{1000, 1}}, std::vector<double>(4, 0.0));
    ASSERT_EQ(g.size(), 1u);
    ++taken[static_cast<std::size_t>(g[0])];
  }
  EXPECT_EQ(taken, (std::vector<int>{3, 3, 3, 3}));
}

TEST(RecordDealer, AManyRecordFlushStaysEvenAfterAnUnevenOne) {
  aggregate::RecordDealer dealer;
  // Three records of 5000 on 4 tasks: one task is left out.
  dealer.deal({{5000, 1}, {5000, 1}, {5000, 1}}, std::vector<double>(4, 0.0));
  // Then 40 records of 1000: what the first flush left weighs at most one of them per task,
  // so this flush's own bytes stay within one record of even.
  const std::vector<aggregate::DealtRecord> many(40, aggregate::DealtRecord{1000, 1});
  const std::vector<int> g = dealer.deal(many, std::vector<double>(4, 0.0));
  const std::vector<double> loads = loads_after(many, g, std::vector<double>(4, 0.0));
  const auto [lo, hi] = std::minmax_element(loads.begin(), loads.end());
  EXPECT_LE(*hi - *lo, 2000) << loads[0] << " " << loads[1] << " " << loads[2] << " " << loads[3];
}

TEST(RecordDealer, FlushesWithARemainderStayWithinOneRecord) {
  // An E3SM F flush on 4 tasks: 41 whole 3-D records, one more than the tasks can share
  // evenly, flush after flush. The remainder goes to each task in turn, and every flush stays
  // within one record of even (carrying a whole record into the dealing let a task that took
  // the remainder take one fewer in the next flush and another one more: two records apart).
  aggregate::RecordDealer dealer;
  const std::vector<aggregate::DealtRecord> flush(41, aggregate::DealtRecord{62352 * 4, 1});
  std::vector<double> file(4, 0.0);
  for (int f = 0; f < 12; ++f) {
    const std::vector<int> g = dealer.deal(flush, std::vector<double>(4, 0.0));
    const std::vector<double> loads = loads_after(flush, g, std::vector<double>(4, 0.0));
    const auto [lo, hi] = std::minmax_element(loads.begin(), loads.end());
    EXPECT_LE(*hi - *lo, 62352 * 4) << "flush " << f << ": " << loads[0] << " " << loads[1] << " "
                                    << loads[2] << " " << loads[3];
    for (int t = 0; t < 4; ++t) file[t] += loads[t];
  }
  const auto [lo, hi] = std::minmax_element(file.begin(), file.end());
  EXPECT_LE(*hi - *lo, 62352 * 4) << "the file's bytes";
}

TEST(DealRecords, MixedGroupSizesStayEven) {
  // An E3SM I flush on 4 tasks: 3-D land records split over 2 tasks (groups {0,1}, {2,3})
  // between 2-D ones taken whole by one task, in file order. Dealt in one line, a 2-unit
  // record whose middle fell on a task with room put half of itself on its fuller neighbour.
  std::vector<aggregate::DealtRecord> records;
  for (int v = 0; v < 24; ++v) records.push_back({96 * 144 * 4, 1});
  for (int v = 0; v < 5; ++v) records.push_back({15 * 96 * 144 * 4, 2});
  for (int v = 0; v < 7; ++v) records.push_back({96 * 144 * 4, 1});
  for (int v = 0; v < 3; ++v) records.push_back({15 * 96 * 144 * 4, 2});
  const std::vector<int> g = aggregate::deal_records(records, std::vector<double>(4, 0.0));
  for (std::size_t i = 0; i < records.size(); ++i) ASSERT_LT(g[i], 4 / records[i].units);
  EXPECT_LT(spread(loads_after(records, g, std::vector<double>(4, 0.0))), 0.10);
}
