// What the write cache holds, without MPI: each write's values packed per
// destination rank (or, for a record a group of tasks takes whole, back to back
// in the floating buffer until the flush deals it), the bound, taking the last
// write back, and holding back the tail of a record written piece by piece,
// byte for byte.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "aggregate/cache_store.hpp"

using namespace esmio;
using namespace esmio::aggregate;

namespace {

const float kFill = -1.0f;

// Sends this rank's memory positions 1-2 to rank 1 and position 0 to rank 3.
std::shared_ptr<const rearrange::Plan> plan(int groups = 1) {
  auto p = std::make_shared<rearrange::Plan>();
  p->send.peers = {{1, 2, 0, 1}, {3, 1, 1, 2}};
  p->send.tasks = {0, 1};
  p->send.runs = {{1, 2}, {0, 1}};
  p->send.count = 3;
  p->global_count = 3;
  p->max_rank_elements = 3;
  p->max_rank_sent = 3;
  p->groups = groups;
  return p;
}

CachedWrite cached(int varid, int64_t record, std::shared_ptr<const rearrange::Plan> p) {
  std::vector<unsigned char> fill(sizeof kFill);
  std::memcpy(fill.data(), &kFill, sizeof kFill);
  return CachedWrite{varid, ESMIO_FLOAT, fill, false, std::move(p), {3}, true, record, nullptr};
}

std::vector<float> floats(const std::vector<unsigned char> &bytes) {
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

int64_t bound_of(const std::vector<std::shared_ptr<const rearrange::Plan>> &plans) {
  CacheBound bound;
  for (const auto &p : plans) bound.add(*p, 4, false);
  return bound.bytes();
}

}  // namespace

TEST(CacheStore, AddPacksEachDestinationsValuesInTheFileType) {
  CacheStore store;
  const double values[] = {10.0, 20.0, 30.0};
  const auto p = plan();
  EXPECT_EQ(store.add(cached(0, 0, p), ESMIO_DOUBLE, values), 0);
  ASSERT_EQ(store.pending().size(), 1u);
  EXPECT_EQ(floats(store.outgoing()[1]), (std::vector<float>{20.0f, 30.0f}));
  EXPECT_EQ(floats(store.outgoing()[3]), (std::vector<float>{10.0f}));
  EXPECT_TRUE(store.floating().empty());
  EXPECT_EQ(store.bound().bytes(), bound_of({p}));
  // A value out of range of the file type is counted.
  const double large[] = {1e300, 1.0, 2.0};
  EXPECT_EQ(store.add(cached(0, 1, p), ESMIO_DOUBLE, large), 1);
  EXPECT_EQ(store.records_end(), 2);
}

TEST(CacheStore, DealtRecordsWaitInTheFloatingBuffer) {
  CacheStore store;
  const float values[] = {1.0f, 2.0f, 3.0f};
  store.add(cached(0, 0, plan()), ESMIO_FLOAT, values);
  store.add(cached(1, 0, plan(2)), ESMIO_FLOAT, values);
  EXPECT_EQ(store.pending()[0].floating_at, -1);
  EXPECT_EQ(store.pending()[1].floating_at, 0);
  // Every peer's values back to back, in peer order; the outgoing buffers hold
  // the first only.
  EXPECT_EQ(floats(store.floating()), (std::vector<float>{2.0f, 3.0f, 1.0f}));
  EXPECT_EQ(floats(store.outgoing()[1]), (std::vector<float>{2.0f, 3.0f}));
  EXPECT_EQ(floats(store.outgoing()[3]), (std::vector<float>{1.0f}));
}

TEST(CacheStore, DropLastTakesBackTheValuesAndTheBound) {
  CacheStore store;
  const float first[] = {1.0f, 2.0f, 3.0f}, second[] = {4.0f, 5.0f, 6.0f};
  store.add(cached(0, 0, plan()), ESMIO_FLOAT, first);
  store.add(cached(1, 0, plan(2)), ESMIO_FLOAT, first);
  const CacheStore::Buffers before = store.outgoing();
  const std::vector<unsigned char> floating_before = store.floating();
  const int64_t bound_before = store.bound().bytes();
  for (int groups : {1, 2}) {
    store.add(cached(2, 0, plan(groups)), ESMIO_FLOAT, second);
    EXPECT_GT(store.bound().bytes(), bound_before);
    store.drop_last();
    EXPECT_EQ(store.pending().size(), 2u);
    EXPECT_EQ(store.outgoing(), before);
    EXPECT_EQ(store.floating(), floating_before);
    EXPECT_EQ(store.bound().bytes(), bound_before);
  }
}

TEST(CacheStore, HoldBackTakesTheRecordAtTheTailAndRestoresItByteForByte) {
  CacheStore store;
  const float a[] = {1.0f, 2.0f, 3.0f}, b[] = {4.0f, 5.0f, 6.0f}, c[] = {7.0f, 8.0f, 9.0f};
  store.add(cached(0, 0, plan()), ESMIO_FLOAT, a);
  store.add(cached(1, 4, plan(2)), ESMIO_FLOAT, a);
  store.add(cached(2, 4, plan()), ESMIO_FLOAT, b);
  store.add(cached(2, 4, plan(2)), ESMIO_FLOAT, c);
  store.add(cached(2, 4, plan()), ESMIO_FLOAT, c);
  const std::vector<CachedWrite> all = store.pending();
  const CacheStore::Buffers outgoing = store.outgoing();
  const std::vector<unsigned char> floating = store.floating();
  const int64_t bound = store.bound().bytes();

  // Over the limit, or a record that is not at the tail: nothing is held.
  EXPECT_FALSE(store.hold_back_record(2, 4, 1));
  EXPECT_FALSE(store.hold_back_record(0, 0, 1 << 20));
  EXPECT_EQ(store.pending().size(), 5u);
  // Nor when the record is all that is pending.
  CacheStore alone;
  alone.add(cached(2, 4, plan()), ESMIO_FLOAT, b);
  EXPECT_FALSE(alone.hold_back_record(2, 4, 1 << 20));

  ASSERT_TRUE(store.hold_back_record(2, 4, 1 << 20));
  ASSERT_EQ(store.pending().size(), 2u);
  EXPECT_EQ(floats(store.outgoing()[1]), (std::vector<float>{2.0f, 3.0f}));
  EXPECT_EQ(floats(store.outgoing()[3]), (std::vector<float>{1.0f}));
  EXPECT_EQ(floats(store.floating()), (std::vector<float>{2.0f, 3.0f, 1.0f}));
  EXPECT_EQ(store.bound().bytes(), bound_of({plan(), plan(2)}));

  // After a flush and clear, the held writes come back as the whole list.
  CacheStore copy = store;
  copy.clear();
  copy.restore_held();
  ASSERT_EQ(copy.pending().size(), 3u);
  EXPECT_EQ(copy.pending()[1].floating_at, 0);
  EXPECT_EQ(floats(copy.floating()), (std::vector<float>{8.0f, 9.0f, 7.0f}));
  EXPECT_EQ(floats(copy.outgoing()[1]), (std::vector<float>{5.0f, 6.0f, 8.0f, 9.0f}));

  // After a failed flush, the list is as it was.
  store.restore_held();
  ASSERT_EQ(store.pending().size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(store.pending()[i].varid, all[i].varid);
    EXPECT_EQ(store.pending()[i].floating_at, all[i].floating_at);
  }
  EXPECT_EQ(store.outgoing(), outgoing);
  EXPECT_EQ(store.floating(), floating);
  EXPECT_EQ(store.bound().bytes(), bound);
}

TEST(CacheStore, TakeBackRemovesWritesFromTheMiddleByteForByte) {
  CacheStore store;
  const float a[] = {1.0f, 2.0f, 3.0f}, b[] = {4.0f, 5.0f, 6.0f}, c[] = {7.0f, 8.0f, 9.0f};
  const auto p = plan(), dealt = plan(2);
  store.add(cached(0, 0, p), ESMIO_FLOAT, a);
  store.add(cached(1, 0, dealt), ESMIO_FLOAT, a);
  store.add(cached(0, 1, p), ESMIO_FLOAT, b);      // taken back
  store.add(cached(1, 1, dealt), ESMIO_FLOAT, b);  // taken back
  store.add(cached(0, 2, p), ESMIO_FLOAT, c);
  store.add(cached(1, 2, dealt), ESMIO_FLOAT, c);
  store.take_back({2, 3});
  ASSERT_EQ(store.pending().size(), 4u);
  EXPECT_EQ(store.pending()[2].record, 2);
  EXPECT_EQ(floats(store.outgoing()[1]), (std::vector<float>{2.0f, 3.0f, 8.0f, 9.0f}));
  EXPECT_EQ(floats(store.outgoing()[3]), (std::vector<float>{1.0f, 7.0f}));
  EXPECT_EQ(store.pending()[3].floating_at, 3 * 4);
  EXPECT_EQ(floats(store.floating()), (std::vector<float>{2.0f, 3.0f, 1.0f, 8.0f, 9.0f, 7.0f}));
  EXPECT_EQ(store.bound().bytes(), bound_of({p, dealt, p, dealt}));
  // The claim to fill a record's holes passes to a remaining write: the bound follows it.
  store.set_fill_holes(2);
  EXPECT_TRUE(store.pending()[2].fill_holes);
}
