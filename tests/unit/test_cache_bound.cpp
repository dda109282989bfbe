// The write cache's bound and its rule for writes that go out at once, without MPI: a record
// every I/O task shares counts its most loaded rank whole; a record that a group of tasks takes
// whole counts the sender's part and 1/groups of the task's, with room for one such record.
#include <gtest/gtest.h>

#include "aggregate/cache_bound.hpp"

using namespace esmio;

namespace {

rearrange::Plan plan(int64_t most, int64_t sent, int groups) {
  rearrange::Plan p;
  p.max_rank_elements = most;
  p.max_rank_sent = sent;
  p.units = 1;
  p.groups = groups;
  return p;
}

}  // namespace

TEST(CacheBound, SharedRecordsAddTheirMostLoadedRank) {
  aggregate::CacheBound bound;
  const rearrange::Plan shared = plan(1000, 300, 1);
  EXPECT_EQ(bound.with(shared, 4, false), 4000);
  bound.add(shared, 4, false);
  bound.add(shared, 4, false);
  EXPECT_EQ(bound.bytes(), 8000);
  bound.clear();
  EXPECT_EQ(bound.bytes(), 0);
}

TEST(CacheBound, DealtRecordsAddTheirShareAndKeepRoomForTwo) {
  aggregate::CacheBound bound;
  // 100 values sent by the busiest rank, 1900 placed on the task that takes the record whole;
  // 4 groups take such records in turn.
  const rearrange::Plan dealt = plan(2000, 100, 4);
  // Amortized: 100 + 1900 / 4 = 575 values; room for one record's 1900.
  EXPECT_EQ(bound.with(dealt, 4, false), (575 + 1900) * 4);
  for (int i = 0; i < 8; ++i) bound.add(dealt, 4, false);
  EXPECT_EQ(bound.bytes(), (8 * 575 + 1900) * 4);
  // Eight of them hold less than eight whole records would: they wait to be dealt out together.
  EXPECT_LT(bound.bytes(), 8 * 2000 * 4);
  // A larger one raises the room kept, once.
  const rearrange::Plan larger = plan(4000, 100, 4);
  const int64_t before = bound.bytes();
  bound.add(larger, 4, false);
  EXPECT_EQ(bound.bytes(), before + (100 + 975) * 4 + (3900 - 1900) * 4);
}

TEST(CacheBound, LargeWritesGoOutAtOnce) {
  EXPECT_TRUE(aggregate::goes_out_at_once(plan(300000, 1000, 1), 4, 1 << 20));
  EXPECT_FALSE(aggregate::goes_out_at_once(plan(200000, 1000, 1), 4, 1 << 20));
  // Whole records on a group of tasks wait to be dealt out with others, however large (the
  // cache's size still bounds what is pending).
  EXPECT_FALSE(aggregate::goes_out_at_once(plan(300000, 1000, 4), 4, 1 << 20));
  EXPECT_FALSE(aggregate::goes_out_at_once(plan(3000000, 1000, 2), 4, 1 << 20));
}
