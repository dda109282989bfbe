#include "datapath/read_batch.hpp"

#include <algorithm>
#include <utility>

namespace esmio::datapath {
namespace {

// Spans from (rank, bytes) pairs: summed per rank, ascending, each rank's bytes after the lower
// ranks'. Returns the total.
int64_t spans_of(std::vector<std::pair<int, int64_t>> *pairs, std::vector<RankSpan> *spans) {
  std::sort(pairs->begin(), pairs->end());
  spans->clear();
  int64_t at = 0;
  for (const auto &[rank, bytes] : *pairs) {
    if (spans->empty() || spans->back().rank != rank) spans->push_back({rank, at, 0});
    spans->back().bytes += bytes;
    at += bytes;
  }
  return at;
}

std::size_t index_of(const std::vector<RankSpan> &spans, int rank) {
  return static_cast<std::size_t>(
      std::lower_bound(spans.begin(), spans.end(), rank,
                       [](const RankSpan &s, int r) { return s.rank < r; }) -
      spans.begin());
}

}  // namespace

const RankSpan *span_of(const std::vector<RankSpan> &spans, int rank) {
  const std::size_t k = index_of(spans, rank);
  return k < spans.size() && spans[k].rank == rank ? &spans[k] : nullptr;
}

BatchLayout lay_out_batch(const std::vector<BatchRead> &reads, int me) {
  BatchLayout out;
  std::vector<std::pair<int, int64_t>> in, to;
  for (const BatchRead &r : reads) {
    const rearrange::Plan &plan = *r.plan;
    for (std::size_t k = 0; k < plan.send.peers.size(); ++k)
      in.emplace_back(plan.send_rank(k, r.dealt), plan.send.peers[k].count * r.esize);
    for (const decomp::Peer &p : plan.recv_in(r.dealt).peers)
      if (p.rank != me) to.emplace_back(p.rank, p.count * r.esize);
  }
  out.incoming_bytes = spans_of(&in, &out.incoming);
  out.outgoing_bytes = spans_of(&to, &out.outgoing);

  // Each rank's parts in read order: a cursor per rank, moved on read by read.
  std::vector<int64_t> in_at, out_at;
  for (const RankSpan &s : out.incoming) in_at.push_back(s.first);
  for (const RankSpan &s : out.outgoing) out_at.push_back(s.first);
  out.from_at.resize(reads.size());
  out.to_at.resize(reads.size());
  out.self_peer.assign(reads.size(), -1);
  for (std::size_t i = 0; i < reads.size(); ++i) {
    const BatchRead &r = reads[i];
    const rearrange::Plan &plan = *r.plan;
    int64_t self_at = -1;  // where this rank's part of its own read lands in incoming
    std::vector<int64_t> &from = out.from_at[i];
    from.resize(plan.send.peers.size());
    for (std::size_t k = 0; k < plan.send.peers.size(); ++k) {
      const int q = plan.send_rank(k, r.dealt);
      int64_t &cursor = in_at[index_of(out.incoming, q)];
      from[k] = cursor;
      if (q == me) self_at = from[k];
      cursor += plan.send.peers[k].count * r.esize;
    }
    const std::vector<decomp::Peer> &peers = plan.recv_in(r.dealt).peers;
    std::vector<int64_t> &dest = out.to_at[i];
    dest.resize(peers.size());
    for (std::size_t j = 0; j < peers.size(); ++j) {
      if (peers[j].rank == me) {
        out.self_peer[i] = static_cast<int>(j);
        dest[j] = self_at;
        continue;
      }
      int64_t &cursor = out_at[index_of(out.outgoing, peers[j].rank)];
      dest[j] = cursor;
      cursor += peers[j].count * r.esize;
    }
    // A plan that sends this rank to itself receives from itself, and the other way round.
    if ((self_at >= 0) != (out.self_peer[i] >= 0)) out.consistent = false;
  }
  return out;
}

bool ReadBatch::matches(const Kept &kept, int varid, int64_t record, const rearrange::Plan *plan) {
  if (kept.varid != varid || kept.record != record) return false;
  // A freed decomposition's reads match no plan, also not one made at the same address.
  const std::shared_ptr<const rearrange::Plan> held = kept.plan.lock();
  return held && held.get() == plan;
}

void ReadBatch::drop_empty() {
  for (std::size_t b = batches_.size(); b-- > 0;) {
    if (!batches_[b].kept.empty()) continue;
    if (batches_[b].incoming.capacity() > spare_.capacity()) spare_.swap(batches_[b].incoming);
    batches_.erase(batches_.begin() + static_cast<std::ptrdiff_t>(b));
  }
}

bool ReadBatch::take(int varid, int64_t record, const rearrange::Plan *plan, Kept *out,
                     const unsigned char **incoming) {
  drop_empty();
  for (Batch &batch : batches_)
    for (std::size_t k = 0; k < batch.kept.size(); ++k) {
      if (!matches(batch.kept[k], varid, record, plan)) continue;
      *out = std::move(batch.kept[k]);
      batch.kept.erase(batch.kept.begin() + static_cast<std::ptrdiff_t>(k));
      *incoming = batch.incoming.data();
      return true;
    }
  return false;
}

uint64_t ReadBatch::digest() const {
  uint64_t h = 0;
  for (const Batch &batch : batches_) {
    h = (h ^ 0x62u) * 0x100000001b3ull;  // a batch boundary
    for (const Kept &kept : batch.kept)
      for (const uint64_t word :
           {static_cast<uint64_t>(kept.varid) + 1, static_cast<uint64_t>(kept.record) + 1})
        h = (h ^ word) * 0x100000001b3ull;
  }
  return h;
}

int64_t ReadBatch::kept() const {
  int64_t n = 0;
  for (const Batch &batch : batches_) n += static_cast<int64_t>(batch.kept.size());
  return n;
}

bool ReadBatch::holds(int varid, int64_t record, const rearrange::Plan *plan) const {
  for (const Batch &batch : batches_)
    for (const Kept &kept : batch.kept)
      if (matches(kept, varid, record, plan)) return true;
  return false;
}

std::vector<unsigned char> &ReadBatch::open(int64_t global_bytes, int64_t most_global_bytes) {
  drop_empty();
  int64_t held = global_bytes;
  for (const Batch &batch : batches_) held += batch.global_bytes;
  std::size_t let_go = 0;
  while (let_go < batches_.size() && held > most_global_bytes)
    held -= batches_[let_go++].global_bytes;
  if (let_go > 0) {
    if (batches_[0].incoming.capacity() > spare_.capacity()) spare_.swap(batches_[0].incoming);
    batches_.erase(batches_.begin(), batches_.begin() + static_cast<std::ptrdiff_t>(let_go));
  }
  Batch batch;
  batch.incoming.swap(spare_);
  batch.global_bytes = global_bytes;
  batches_.push_back(std::move(batch));
  return batches_.back().incoming;
}

}  // namespace esmio::datapath
