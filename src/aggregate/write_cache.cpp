#include "aggregate/write_cache.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "convert/convert.hpp"
#include "quantize/bitround.hpp"
#include "quantize/information_collective.hpp"

namespace esmio::aggregate {

Status WriteCache::flush(MPI_Comm comm, const rearrange::ExchangeLimits &limits,
                         backend::Backend *backend, trace::Counters *file_counters,
                         trace::Counters *instance_counters) {
  const std::map<int, std::size_t> undealt_size = deal_records();
  const std::vector<CachedWrite> &pending = store_.pending();
  int me = -1;
  MPI_Comm_rank(comm, &me);
  const bool dense_ok = dense_ && backend != nullptr && backend->takes_extents();
  const Placement placement = placement_of(pending, me, dense_ok, backend != nullptr);
  std::map<int, unsigned char *> cursor;
  Status status =
      exchange(comm, limits, me, placement.from, &cursor, file_counters, instance_counters);

  const bool place_here = status.is_ok() && backend != nullptr;
  Placed placed;
  if (place_here) {
    trace::Scope scope(trace::Counter::place, file_counters, instance_counters,
                       placement.slab_bytes);
    placed = place_received(placement, me, cursor);
  } else {
    placed.slab_of.assign(pending.size(), nullptr);
  }
  // Every rank takes part (the counts are summed over all of them), placed or not.
  const Status quantized = quantize_information(comm, placed.slab_of, place_here);
  if (status.is_ok()) status = quantized;
  if (place_here && status.is_ok()) status = hand_over(backend, placed.pieces);
  take_back_dealt(undealt_size);
  return status;
}

std::map<int, std::size_t> WriteCache::deal_records() {
  CacheStore::Buffers &outgoing = store_.outgoing();
  std::map<int, std::size_t> undealt_size;
  for (const auto &o : outgoing) undealt_size[o.first] = o.second.size();
  const std::vector<CachedWrite> &pending = store_.pending();
  if (std::all_of(pending.begin(), pending.end(),
                  [](const CachedWrite &w) { return w.floating_at < 0; }))
    return undealt_size;
  const Dealing dealing = dealing_of(pending, static_cast<int>(pending[0].plan->io_ranks.size()));
  const std::vector<int> groups = dealer_.deal(dealing.records, dealing.shared);
  for (std::size_t i = 0; i < pending.size(); ++i)
    if (dealing.record_of[i] >= 0)
      store_.set_group(i, groups[static_cast<std::size_t>(dealing.record_of[i])]);
  append_dealt(pending, store_.floating(), &outgoing);
  return undealt_size;
}

void WriteCache::take_back_dealt(const std::map<int, std::size_t> &undealt_size) {
  for (auto &o : store_.outgoing()) {
    const auto kept = undealt_size.find(o.first);
    o.second.resize(kept == undealt_size.end() ? 0 : kept->second);
  }
}

Status WriteCache::exchange(MPI_Comm comm, const rearrange::ExchangeLimits &limits, int me,
                            std::map<int, int64_t> from, std::map<int, unsigned char *> *cursor,
                            trace::Counters *file_counters, trace::Counters *instance_counters) {
  CacheStore::Buffers &outgoing = store_.outgoing();
  // What this rank sends itself is placed straight from its outgoing buffer: no message and no
  // copy into the incoming buffer.
  Status status;
  const auto self_out = outgoing.find(me);
  const int64_t self_sent =
      self_out != outgoing.end() ? static_cast<int64_t>(self_out->second.size()) : 0;
  if (const auto self_in = from.find(me); self_in != from.end() || self_sent > 0) {
    const int64_t expected = self_in != from.end() ? self_in->second : 0;
    if (expected != self_sent)
      status = Status(ESMIO_EMPI, "rearrangement: rank " + std::to_string(me) + " sends itself " +
                                      std::to_string(self_sent) + " bytes but expects " +
                                      std::to_string(expected));
    else if (self_sent > 0)
      (*cursor)[me] = self_out->second.data();
    from.erase(me);
  }
  int64_t incoming_bytes = 0;
  for (const auto &f : from) incoming_bytes += f.second;
  if (static_cast<int64_t>(incoming_.size()) < incoming_bytes)
    incoming_.resize(static_cast<std::size_t>(incoming_bytes));
  std::vector<rearrange::RecvSegment> recvs;
  int64_t at = 0;
  for (const auto &f : from) {
    recvs.push_back({f.first, incoming_.data() + at, f.second});
    (*cursor)[f.first] = incoming_.data() + at;
    at += f.second;
  }
  std::vector<rearrange::SendSegment> sends;
  int64_t sent_bytes = 0;
  for (const auto &o : outgoing) {
    if (o.second.empty() || o.first == me) continue;
    sends.push_back({o.first, o.second.data(), static_cast<int64_t>(o.second.size())});
    sent_bytes += static_cast<int64_t>(o.second.size());
  }
  trace::Scope scope(trace::Counter::rearrange, file_counters, instance_counters,
                     sent_bytes + incoming_bytes);
  const Status moved = rearrange::exchange(comm, sends, recvs, limits);
  if (status.is_ok()) status = moved;
  return status;
}

Placed WriteCache::place_received(const Placement &placement, int me,
                                  std::map<int, unsigned char *> &cursor) {
  const std::vector<CachedWrite> &pending = store_.pending();
  if (static_cast<int64_t>(slabs_.size()) < placement.slab_bytes)
    slabs_.resize(static_cast<std::size_t>(placement.slab_bytes));
  std::vector<std::vector<decomp::Extent>> holes;
  std::vector<const unsigned char *> fill_of;
  prepare_holes(&holes, &fill_of);
  return place(pending, placement_order(pending), placement, me, cursor, slabs_.data(), holes,
               fill_of);
}

void WriteCache::prepare_holes(std::vector<std::vector<decomp::Extent>> *holes,
                               std::vector<const unsigned char *> *fill_of) {
  const std::vector<CachedWrite> &pending = store_.pending();
  holes->assign(pending.size(), {});
  fill_of->assign(pending.size(), nullptr);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const CachedWrite &w = pending[i];
    if (!w.fill_holes) continue;
    (*holes)[i] = holes_left(pending, i, w.plan->recv_in(w.group).fill_extents);
    int64_t longest = 0;
    for (const decomp::Extent &e : (*holes)[i]) longest = std::max(longest, e.length);
    std::vector<unsigned char> &fill = fills_[w.fill];
    const std::size_t bytes = static_cast<std::size_t>(longest) * w.fill.size();
    if (fill.size() < bytes) {
      fill.resize(bytes);
      convert::fill_runs(fill.data(), {Run{0, longest}}, w.fill.data(), w.fill.size());
    }
  }
  // Every stretch has its final length now: the pointers stay valid through the flush.
  for (std::size_t i = 0; i < pending.size(); ++i)
    if (pending[i].fill_holes) (*fill_of)[i] = fills_[pending[i].fill].data();
}

Status WriteCache::quantize_information(MPI_Comm comm, const std::vector<unsigned char *> &slab_of,
                                        bool holds_file) {
  const std::vector<CachedWrite> &pending = store_.pending();
  std::vector<quantize::Information *> information(pending.size());
  std::vector<int64_t> records(pending.size());
  for (std::size_t i = 0; i < pending.size(); ++i) {
    information[i] = pending[i].information.get();
    records[i] = pending[i].record;
  }
  const quantize::FreshVariables fresh = quantize::fresh_variables(information, records);
  Status status;
  if (!fresh.variables.empty()) {
    std::vector<std::vector<quantize::HeldSlab>> slabs(fresh.variables.size());
    for (std::size_t s = 0; s < fresh.variables.size(); ++s)
      for (std::size_t i : fresh.counted[s]) slabs[s].push_back(held_slab(i, slab_of, holds_file));
    quantize::TaskNeighbours neighbours;
    if (my_task_ >= 0) {
      const int ntasks = static_cast<int>(io_ranks_.size());
      neighbours.task = true;
      if (my_task_ > 0) neighbours.previous = io_ranks_[my_task_ - 1];
      if (my_task_ + 1 < ntasks) neighbours.next = io_ranks_[my_task_ + 1];
    }
    status = quantize::settle_information(comm, neighbours, fresh, slabs);
  }
  for (std::size_t i = 0; holds_file && i < pending.size(); ++i) {
    const CachedWrite &w = pending[i];
    if (!w.information || slab_of[i] == nullptr) continue;
    const Status rounded = quantize::bitround(w.type, slab_of[i], w.plan->recv_in(w.group).count,
                                              w.information->keepbits, w.fill.data());
    if (status.is_ok()) status = rounded;
  }
  return status;
}

quantize::HeldSlab WriteCache::held_slab(std::size_t i, const std::vector<unsigned char *> &slab_of,
                                         bool holds_file) const {
  const CachedWrite &w = store_.pending()[i];
  const decomp::RecvPlan &recv = w.plan->recv_in(w.group);
  quantize::HeldSlab slab;
  slab.type = w.type;
  slab.values = holds_file ? slab_of[i] : nullptr;
  slab.row = w.shape.empty() ? 1 : w.shape.back();
  slab.fill = w.fill.data();
  if (slab.values == nullptr) return slab;
  slab.stretches.reserve(recv.packed_extents.size());
  for (const decomp::Extent &e : recv.packed_extents)
    slab.stretches.push_back({e.offset, e.position, e.length});
  if (!recv.file_runs.empty()) {
    slab.has_range = true;
    slab.range_begin = recv.file_runs.front().begin;
    slab.range_end = recv.file_runs.back().begin + recv.file_runs.back().length;
  }
  return slab;
}

Status WriteCache::hand_over(backend::Backend *backend, std::vector<Piece> &pieces) {
  const std::vector<CachedWrite> &pending = store_.pending();
  return backend->takes_extents()
             ? backend->put_extents(extent_requests(pending, pieces))
             : backend->put_requests(put_requests(pending, pieces, merge_, &merged_));
}

}  // namespace esmio::aggregate
