// The layout of a batch of reads (datapath/read_batch): on three ranks, two of them I/O tasks,
// with a plan that every task shares and one whose records a single task takes (groups), the
// bytes each rank sends another are the bytes that rank expects, read by read at the same place
// in the message, a task's part of its own read lands where it converts from, and the parts
// tile the buffers exactly. Plans are made by hand; no MPI, no I/O.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "datapath/read_batch.hpp"

namespace esmio::datapath {
namespace {

constexpr int kRanks = 3;

// counts[r][t]: what rank r holds of task t's range (ranks 0 and 1 are the tasks).
using Counts = std::vector<std::vector<int64_t>>;

// Plan A: both tasks share every record. Plan B: a record is taken whole by one task (2 groups of
// 1); send peer 0 goes to the task of the group that takes it.
std::shared_ptr<const rearrange::Plan> shared_plan(int me, const Counts &counts) {
  auto p = std::make_shared<rearrange::Plan>();
  for (int t = 0; t < 2; ++t)
    if (counts[me][t] > 0) p->send.peers.push_back({t, counts[me][t], 0, 0});
  if (me < 2) {
    p->group = 0;
    for (int r = 0; r < kRanks; ++r)
      if (counts[r][me] > 0) p->recv.peers.push_back({r, counts[r][me], 0, 0});
  }
  return p;
}

std::shared_ptr<const rearrange::Plan> dealt_plan(int me, const std::vector<int64_t> &held) {
  auto p = std::make_shared<rearrange::Plan>();
  p->units = 1;
  p->groups = 2;
  p->io_ranks = {0, 1};
  p->send.peers.push_back({0, held[me], 0, 0});
  p->send.tasks = {0};
  if (me < 2) {
    p->group = me;
    for (int r = 0; r < kRanks; ++r) p->recv.peers.push_back({r, held[r], 0, 0});
  }
  return p;
}

struct Rank {
  std::vector<BatchRead> reads;
  BatchLayout layout;
};

// Every stretch [at, at + bytes) is disjoint from the others and together they fill [0, total).
void expect_tiles(std::vector<std::pair<int64_t, int64_t>> parts, int64_t total, const char *what) {
  std::sort(parts.begin(), parts.end());
  int64_t at = 0;
  for (const auto &[begin, bytes] : parts) {
    EXPECT_EQ(begin, at) << what;
    at = begin + bytes;
  }
  EXPECT_EQ(at, total) << what;
}

TEST(ReadBatch, EveryRankSendsWhatItsPeerExpectsReadByRead) {
  const Counts counts = {{2, 3}, {4, 0}, {1, 5}};  // rank 1 holds nothing of task 1's range
  const std::vector<int64_t> held = {3, 2, 6};
  std::vector<Rank> ranks(kRanks);
  for (int me = 0; me < kRanks; ++me) {
    const auto a = shared_plan(me, counts);
    const auto b = dealt_plan(me, held);
    // Doubles and floats, both plans, both groups of plan B.
    ranks[me].reads = {{0, 0, a, 0, 8}, {1, 0, b, 1, 4}, {2, 0, b, 0, 4}, {3, 1, a, 0, 4}};
    ranks[me].layout = lay_out_batch(ranks[me].reads, me);
  }
  for (int me = 0; me < kRanks; ++me) {
    const Rank &r = ranks[me];
    std::vector<std::pair<int64_t, int64_t>> in_parts, out_parts;
    for (std::size_t i = 0; i < r.reads.size(); ++i) {
      const BatchRead &read = r.reads[i];
      const rearrange::Plan &plan = *read.plan;
      for (std::size_t k = 0; k < plan.send.peers.size(); ++k) {
        const int from = plan.send_rank(k, read.dealt);
        const int64_t bytes = plan.send.peers[k].count * read.esize;
        in_parts.emplace_back(r.layout.from_at[i][k], bytes);
        // The part lies within what arrives from `from`.
        const RankSpan *span = span_of(r.layout.incoming, from);
        ASSERT_NE(span, nullptr);
        const int64_t within = r.layout.from_at[i][k] - span->first;
        EXPECT_GE(within, 0);
        EXPECT_LE(within + bytes, span->bytes);
        if (from == me) continue;
        // The sender puts it at the same place in its message to this rank.
        const Rank &s = ranks[from];
        const std::vector<decomp::Peer> &peers = s.reads[i].plan->recv_in(read.dealt).peers;
        bool found = false;
        for (std::size_t j = 0; j < peers.size(); ++j) {
          if (peers[j].rank != me) continue;
          found = true;
          EXPECT_EQ(peers[j].count * read.esize, bytes);
          const RankSpan *sent = span_of(s.layout.outgoing, me);
          ASSERT_NE(sent, nullptr);
          EXPECT_EQ(s.layout.to_at[i][j] - sent->first, within)
              << "read " << i << " from rank " << from << " to rank " << me;
        }
        EXPECT_TRUE(found);
      }
      const std::vector<decomp::Peer> &peers = plan.recv_in(read.dealt).peers;
      for (std::size_t j = 0; j < peers.size(); ++j) {
        if (static_cast<int>(j) == r.layout.self_peer[i]) {
          // Its own part: straight into incoming, where the conversion takes it from.
          bool matched = false;
          for (std::size_t k = 0; k < plan.send.peers.size(); ++k)
            if (plan.send_rank(k, read.dealt) == me)
              matched = r.layout.to_at[i][j] == r.layout.from_at[i][k];
          EXPECT_TRUE(matched) << "read " << i << " on rank " << me;
          continue;
        }
        out_parts.emplace_back(r.layout.to_at[i][j], peers[j].count * read.esize);
      }
    }
    expect_tiles(in_parts, r.layout.incoming_bytes, "incoming");
    expect_tiles(out_parts, r.layout.outgoing_bytes, "outgoing");
    EXPECT_EQ(span_of(r.layout.outgoing, me), nullptr);
    const auto bytes_in = [](const std::vector<RankSpan> &spans, int rank) {
      const RankSpan *span = span_of(spans, rank);
      return span ? span->bytes : 0;
    };
    for (int q = 0; q < kRanks; ++q) {
      if (q != me) {
        EXPECT_EQ(bytes_in(r.layout.outgoing, q), bytes_in(ranks[q].layout.incoming, me));
      }
    }
  }
  // Rank 2 is no I/O task: it sends nothing. Rank 1 holds nothing of task 1's range.
  EXPECT_EQ(ranks[2].layout.outgoing_bytes, 0);
  EXPECT_EQ(ranks[2].layout.self_peer, (std::vector<int>{-1, -1, -1, -1}));
  // Read 1 (group 1) is task 1's, read 2 (group 0) task 0's: neither receives the other's.
  EXPECT_EQ(ranks[0].layout.self_peer[1], -1);
  EXPECT_EQ(ranks[1].layout.self_peer[2], -1);
  EXPECT_EQ(ranks[0].layout.self_peer[0], 0);
  EXPECT_EQ(ranks[1].layout.self_peer[1], 1);
}

TEST(ReadBatch, KeptReadsAreTakenOnceAndOnlyThroughTheirPlan) {
  auto plan = std::make_shared<const rearrange::Plan>();
  auto other = std::make_shared<const rearrange::Plan>();
  ReadBatch batch;
  batch.open(100, 1000).assign(40, 1);
  batch.keep({3, 1, plan, {0, 8}});
  batch.keep({4, 1, plan, {16, 24}});
  ReadBatch::Kept kept;
  const unsigned char *incoming = nullptr;
  EXPECT_FALSE(batch.take(3, 1, other.get(), &kept, &incoming));
  EXPECT_FALSE(batch.take(3, 2, plan.get(), &kept, &incoming));
  EXPECT_TRUE(batch.holds(4, 1, plan.get()));
  ASSERT_TRUE(batch.take(4, 1, plan.get(), &kept, &incoming));
  EXPECT_EQ(kept.from_at, (std::vector<int64_t>{16, 24}));
  EXPECT_EQ(incoming[39], 1);
  EXPECT_FALSE(batch.holds(4, 1, plan.get()));
  EXPECT_FALSE(batch.take(4, 1, plan.get(), &kept, &incoming));
  // A freed decomposition's reads are not served, also not to a plan at the same address.
  plan.reset();
  EXPECT_FALSE(batch.take(3, 1, nullptr, &kept, &incoming));
}

TEST(ReadBatch, BatchesLiveTogetherUntilTheirBytesPassTheBound) {
  auto a = std::make_shared<const rearrange::Plan>();
  auto b = std::make_shared<const rearrange::Plan>();
  ReadBatch batch;
  batch.open(300, 1000).assign(8, 'a');
  batch.keep({1, 0, a, {0}});
  batch.open(300, 1000).assign(8, 'b');
  batch.keep({2, 0, b, {0}});
  // Two shapes read in turn: both batches serve.
  ReadBatch::Kept kept;
  const unsigned char *incoming = nullptr;
  ASSERT_TRUE(batch.take(1, 0, a.get(), &kept, &incoming));
  EXPECT_EQ(incoming[0], 'a');
  ASSERT_TRUE(batch.take(2, 0, b.get(), &kept, &incoming));
  EXPECT_EQ(incoming[0], 'b');
  // Emptied batches go at the next call; then three of 300 fit 1000, a fourth lets the oldest go.
  for (int n = 0; n < 4; ++n) {
    batch.open(300, 1000).assign(8, static_cast<unsigned char>('0' + n));
    batch.keep({10 + n, 0, a, {0}});
  }
  EXPECT_EQ(batch.batches(), 3u);
  EXPECT_FALSE(batch.holds(10, 0, a.get()));
  ASSERT_TRUE(batch.take(11, 0, a.get(), &kept, &incoming));
  EXPECT_EQ(incoming[0], '1');
  ASSERT_TRUE(batch.take(13, 0, a.get(), &kept, &incoming));
  EXPECT_EQ(incoming[0], '3');
}

}  // namespace
}  // namespace esmio::datapath
