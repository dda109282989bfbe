// Where the write cache's writes go at a flush, without MPI: which records are
// dealt and what they weigh, the order of placement, how each write is placed,
// the holes left to fill, the bytes each stretch of the file gets, and the
// requests that result.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "aggregate/flush_plan.hpp"

using namespace esmio;
using namespace esmio::aggregate;

namespace {

const float kFill = -1.0f;

// One task's buffer of one record: file offsets 100-105; rank 0 sends 100-101,
// rank 2 sends 104-105; 102-103 are holes.
decomp::RecvPlan two_senders() {
  decomp::RecvPlan r;
  r.peers = {{0, 2, 0, 1}, {2, 2, 1, 2}};
  r.runs = {{0, 2}, {4, 2}};
  r.count = 4;
  r.buffer_size = 6;
  r.file_runs = {{100, 6}};
  r.fill_runs = {{2, 2}};
  r.data_extents = {{100, 0, 2}, {104, 4, 2}};
  r.fill_extents = {{102, 2, 2}};
  r.range_data = {{100, 2}, {104, 2}};
  r.packed_runs = {{0, 2}, {2, 2}};
  r.packed_extents = {{100, 0, 2}, {104, 2, 2}};
  return r;
}

// File offsets 0-2, all from rank `from`, in order.
decomp::RecvPlan one_sender(int from) {
  decomp::RecvPlan r;
  r.peers = {{from, 3, 0, 1}};
  r.runs = {{0, 3}};
  r.count = 3;
  r.buffer_size = 3;
  r.file_runs = {{0, 3}};
  r.data_extents = {{0, 0, 3}};
  r.range_data = {{0, 3}};
  r.packed_runs = {{0, 3}};
  r.packed_extents = {{0, 0, 3}};
  return r;
}

std::shared_ptr<const rearrange::Plan> plan(decomp::RecvPlan recv, int64_t global, int units = 1,
                                            int groups = 1) {
  auto p = std::make_shared<rearrange::Plan>();
  p->recv = std::move(recv);
  p->global_count = global;
  p->units = units;
  p->groups = groups;
  p->group = 0;
  return p;
}

CachedWrite cached(int varid, int64_t record, std::shared_ptr<const rearrange::Plan> p,
                   bool fill_holes = false, int64_t floating_at = -1) {
  std::vector<unsigned char> fill(sizeof kFill);
  std::memcpy(fill.data(), &kFill, sizeof kFill);
  CachedWrite w{varid, ESMIO_FLOAT, fill, fill_holes, std::move(p), {1000}, true, record, nullptr};
  w.floating_at = floating_at;
  return w;
}

std::vector<float> floats(const void *at, int64_t n) {
  std::vector<float> out(static_cast<std::size_t>(n));
  std::memcpy(out.data(), at, out.size() * sizeof(float));
  return out;
}

}  // namespace

TEST(FlushPlan, DealtWritesArePlacedAfterTheOthers) {
  const auto p = plan(one_sender(0), 3);
  const std::vector<CachedWrite> pending = {cached(0, 0, p, false, 0), cached(1, 0, p),
                                            cached(2, 0, p, false, 12), cached(3, 0, p)};
  EXPECT_EQ(placement_order(pending), (std::vector<std::size_t>{1, 3, 0, 2}));
}

TEST(FlushPlan, DealingHasOneEntryPerVariableRecordInFileOrder) {
  const auto shared = plan(one_sender(0), 100);
  const auto dealt = plan(one_sender(0), 10, 2, 2);
  const std::vector<CachedWrite> pending = {
      cached(5, 1, dealt, false, 0),  cached(0, 0, shared),          cached(3, 1, dealt, false, 12),
      cached(5, 1, dealt, false, 24), cached(7, 0, dealt, true, 36),
  };
  const Dealing d = dealing_of(pending, 4);
  // (record 0, var 7), (record 1, var 3), (record 1, var 5).
  ASSERT_EQ(d.records.size(), 3u);
  EXPECT_EQ(d.record_of, (std::vector<int>{2, -1, 1, 2, 0}));
  // The hole-filling write weighs its whole record; the others their data,
  // summed per record.
  EXPECT_EQ(d.records[0].bytes, 1000 * 4);
  EXPECT_EQ(d.records[1].bytes, 10 * 4);
  EXPECT_EQ(d.records[2].bytes, 2 * 10 * 4);
  for (const DealtRecord &r : d.records) EXPECT_EQ(r.units, 2);
  // The shared record's bytes, spread over the 4 tasks.
  EXPECT_EQ(d.shared, (std::vector<double>(4, 100.0)));
}

TEST(FlushPlan, PlacementChoosesInPlaceDenseOrPacked) {
  const int me = 1;
  {
    // From this rank alone, in order: its outgoing buffer is the slab.
    const std::vector<CachedWrite> pending = {cached(0, 0, plan(one_sender(me), 3))};
    const Placement p = placement_of(pending, me, false, true);
    EXPECT_EQ(p.in_place[0], 1);
    EXPECT_EQ(p.slab_bytes, 0);
    EXPECT_EQ(p.from, (std::map<int, int64_t>{{me, 12}}));
    // Without a file, nothing is placed.
    EXPECT_EQ(placement_of(pending, me, false, false).in_place[0], 0);
  }
  {
    const std::vector<CachedWrite> pending = {cached(0, 0, plan(two_senders(), 4), true)};
    const Placement packed = placement_of(pending, me, false, true);
    EXPECT_EQ(packed.dense[0], 0);
    EXPECT_EQ(packed.slab_bytes, 4 * 4);
    EXPECT_EQ(packed.from, (std::map<int, int64_t>{{0, 8}, {2, 8}}));
    // Holes filled: the task's whole buffer.
    const Placement dense = placement_of(pending, me, true, true);
    EXPECT_EQ(dense.dense[0], 1);
    EXPECT_EQ(dense.slab_bytes, 6 * 4);
  }
  {
    // Not dense where another write touches the record, or the write fills no
    // holes.
    const auto p = plan(two_senders(), 4);
    const std::vector<CachedWrite> shared = {cached(0, 0, p, true), cached(0, 0, p)};
    EXPECT_EQ(placement_of(shared, me, true, true).dense[0], 0);
    EXPECT_EQ(placement_of({cached(0, 0, p)}, me, true, true).dense[0], 0);
  }
}

TEST(FlushPlan, HolesLeftSkipWhatOtherWritesOfTheRecordHold) {
  decomp::RecvPlan other = one_sender(0);
  other.range_data = {{101, 2}};  // covers 101-102 of the record
  const std::vector<CachedWrite> pending = {cached(0, 0, plan(two_senders(), 4), true),
                                            cached(0, 0, plan(other, 2)),
                                            cached(1, 0, plan(one_sender(0), 3))};
  const std::vector<decomp::Extent> holes = {{98, 0, 2}, {102, 4, 2}};
  const std::vector<decomp::Extent> left = holes_left(pending, 0, holes);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].offset, 98);
  EXPECT_EQ(left[0].length, 2);
  EXPECT_EQ(left[1].offset, 103);
  EXPECT_EQ(left[1].position, 5);
  EXPECT_EQ(left[1].length, 1);
  // Alone in its record: every hole is left to it.
  EXPECT_EQ(holes_left(pending, 2, holes).size(), 2u);
}

TEST(FlushPlan, PlacedValuesAndRequests) {
  const int me = 1;
  const std::vector<CachedWrite> pending = {cached(4, 2, plan(two_senders(), 4), true)};
  const std::vector<std::size_t> order = placement_order(pending);
  const float from0[] = {1.0f, 2.0f}, from2[] = {5.0f, 6.0f};
  const float fill[] = {kFill, kFill};
  const std::vector<std::vector<decomp::Extent>> holes = {holes_left(pending, 0, {{102, 2, 2}})};
  const std::vector<const unsigned char *> fill_of = {
      reinterpret_cast<const unsigned char *>(fill)};
  auto cursors = [&] {
    return std::map<int, unsigned char *>{
        {0, reinterpret_cast<unsigned char *>(const_cast<float *>(from0))},
        {2, reinterpret_cast<unsigned char *>(const_cast<float *>(from2))}};
  };

  // Packed: the data stretches from the slab, the hole from the fill stretch.
  const Placement packed = placement_of(pending, me, false, true);
  std::vector<unsigned char> slabs(static_cast<std::size_t>(packed.slab_bytes));
  std::map<int, unsigned char *> cursor = cursors();
  Placed placed = place(pending, order, packed, me, cursor, slabs.data(), holes, fill_of);
  EXPECT_EQ(floats(slabs.data(), 4), (std::vector<float>{1.0f, 2.0f, 5.0f, 6.0f}));
  EXPECT_EQ(placed.slab_of[0], slabs.data());
  EXPECT_EQ(cursor[0], reinterpret_cast<const unsigned char *>(from0 + 2));
  EXPECT_EQ(cursor[2], reinterpret_cast<const unsigned char *>(from2 + 2));
  ASSERT_EQ(placed.pieces.size(), 3u);
  EXPECT_EQ(placed.pieces[2].offset, 102);
  EXPECT_EQ(placed.pieces[2].values, fill_of[0]);

  const std::vector<backend::Backend::ExtentRequest> extents =
      extent_requests(pending, placed.pieces);
  ASSERT_EQ(extents.size(), 1u);
  EXPECT_EQ(extents[0].varid, 4);
  EXPECT_EQ(extents[0].record, 2);
  EXPECT_EQ(extents[0].stretches.size(), 3u);

  // One request per stretch, or merged: the record's six values in file order,
  // one request.
  std::vector<unsigned char> merged;
  std::vector<Piece> pieces = placed.pieces;
  EXPECT_EQ(put_requests(pending, pieces, false, &merged).size(), 3u);
  pieces = placed.pieces;
  const std::vector<backend::Backend::PutRequest> one =
      put_requests(pending, pieces, true, &merged);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].varid, 4);
  EXPECT_EQ(floats(one[0].buffer, 6), (std::vector<float>{1.0f, 2.0f, kFill, kFill, 5.0f, 6.0f}));
  ASSERT_EQ(one[0].boxes.size(), 1u);

  // Dense: the whole buffer, holes filled, as its one file stretch.
  const Placement dense = placement_of(pending, me, true, true);
  std::vector<unsigned char> whole(static_cast<std::size_t>(dense.slab_bytes));
  cursor = cursors();
  placed = place(pending, order, dense, me, cursor, whole.data(), holes, fill_of);
  EXPECT_EQ(floats(whole.data(), 6), (std::vector<float>{1.0f, 2.0f, kFill, kFill, 5.0f, 6.0f}));
  ASSERT_EQ(placed.pieces.size(), 1u);
  EXPECT_EQ(placed.pieces[0].offset, 100);
  EXPECT_EQ(placed.pieces[0].length, 6);
  EXPECT_EQ(placed.slab_of[0], nullptr);
}

TEST(FlushPlan, DealtValuesGoToTheTasksOfTheirGroup) {
  // Two peers, to tasks 0 and 1 of a group of 2; 4 tasks on ranks 20-23 make 2
  // groups.
  auto dealt = std::make_shared<rearrange::Plan>();
  dealt->send.peers = {{20, 2, 0, 1}, {21, 1, 1, 2}};
  dealt->send.tasks = {0, 1};
  dealt->send.count = 3;
  dealt->units = 2;
  dealt->groups = 2;
  dealt->io_ranks = {20, 21, 22, 23};
  std::vector<CachedWrite> pending = {cached(0, 0, dealt, false, 0),
                                      cached(1, 0, plan(one_sender(20), 3)),
                                      cached(2, 0, dealt, false, 12)};
  pending[0].group = 1;
  pending[2].group = 0;
  const std::vector<float> values = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  std::vector<unsigned char> floating(values.size() * sizeof(float));
  std::memcpy(floating.data(), values.data(), floating.size());
  CacheStore::Buffers outgoing;
  outgoing[20].resize(sizeof(float));
  std::memcpy(outgoing[20].data(), &kFill, sizeof(float));
  append_dealt(pending, floating, &outgoing);
  auto at = [&](int rank) {
    return floats(outgoing[rank].data(), static_cast<int64_t>(outgoing[rank].size() / 4));
  };
  EXPECT_EQ(at(20), (std::vector<float>{kFill, 4.0f, 5.0f}));
  EXPECT_EQ(at(21), (std::vector<float>{6.0f}));
  EXPECT_EQ(at(22), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(at(23), (std::vector<float>{3.0f}));
}
