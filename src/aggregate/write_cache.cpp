#include "aggregate/write_cache.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "common/types.hpp"
#include "convert/convert.hpp"
#include "decomp/box_partition.hpp"
#include "quantize/bitround.hpp"
#include "quantize/information_collective.hpp"

namespace esmio::aggregate {
namespace {

int64_t element_size(esmio_type type) { return static_cast<int64_t>(type_size(type)); }

// True if the runs place the elements in the order they come: run k starts where run k-1 ended.
bool in_packed_order(const std::vector<Run> &runs) {
  int64_t at = 0;
  for (const Run &r : runs) {
    if (r.begin != at) return false;
    at += r.length;
  }
  return true;
}

// holes minus the file stretches that other pending writes of the same variable and record
// hold data for.
std::vector<decomp::Extent> subtract(const std::vector<decomp::Extent> &holes,
                                     std::vector<Run> taken) {
  std::sort(taken.begin(), taken.end(),
            [](const Run &a, const Run &b) { return a.begin < b.begin; });
  std::vector<decomp::Extent> out;
  std::size_t j = 0;  // holes ascend: stretches ending before one hole end before the next
  for (const decomp::Extent &h : holes) {
    int64_t at = h.offset;
    const int64_t end = h.offset + h.length;
    while (j < taken.size() && taken[j].begin + taken[j].length <= at) ++j;
    for (std::size_t k = j; at < end && k < taken.size() && taken[k].begin < end; ++k) {
      if (taken[k].begin > at)
        out.push_back({at, h.position + (at - h.offset), taken[k].begin - at});
      at = std::max(at, taken[k].begin + taken[k].length);
    }
    if (at < end) out.push_back({at, h.position + (at - h.offset), end - at});
  }
  return out;
}

}  // namespace

std::vector<decomp::Extent> WriteCache::holes_left(const CachedWrite &w,
                                                   const std::vector<decomp::Extent> &holes) const {
  std::vector<Run> taken;
  for (const CachedWrite &other : pending_) {
    if (&other == &w || other.varid != w.varid || other.record != w.record) continue;
    const std::vector<Run> &covered = other.plan->recv_in(other.group).range_data;
    taken.insert(taken.end(), covered.begin(), covered.end());
  }
  if (taken.empty()) return holes;
  return subtract(holes, std::move(taken));
}

int64_t WriteCache::bound_with(const rearrange::Plan &plan, int64_t esize, bool fill_holes) const {
  return bound_.with(plan, esize, fill_holes);
}

int64_t WriteCache::add(CachedWrite write, esmio_type memtype, const void *values) {
  const int64_t esize = element_size(write.type);
  const decomp::SendPlan &send = write.plan->send;
  int64_t out_of_range = 0;
  sizes_before_last_.clear();
  bound_before_last_ = bound_;
  floating_before_last_ = static_cast<int64_t>(floating_.size());
  write.group = 0;
  write.floating_at = -1;
  if (write.plan->groups > 1) {
    // Its destination is known at the flush: every peer's values, back to back.
    write.floating_at = static_cast<int64_t>(floating_.size());
    floating_.resize(floating_.size() + static_cast<std::size_t>(send.count * esize));
  }
  int64_t floating_at = write.floating_at;
  for (const decomp::Peer &peer : send.peers) {
    unsigned char *into = nullptr;
    if (write.floating_at >= 0) {
      into = floating_.data() + floating_at;
      floating_at += peer.count * esize;
    } else {
      std::vector<unsigned char> &out = outgoing_[peer.rank];
      const std::size_t at = out.size();
      sizes_before_last_.emplace_back(peer.rank, at);
      out.resize(at + static_cast<std::size_t>(peer.count * esize));
      into = out.data() + at;
    }
    out_of_range +=
        convert::gather_convert(memtype, values, send.runs.data() + peer.first_run,
                                peer.end_run - peer.first_run, write.type, into, write.fill.data());
  }
  bound_.add(*write.plan, esize, write.fill_holes);
  pending_.push_back(std::move(write));
  return out_of_range;
}

Status WriteCache::flush(MPI_Comm comm, const rearrange::ExchangeLimits &limits,
                         backend::Backend *backend, trace::Counters *file_counters,
                         trace::Counters *instance_counters) {
  // The records that a group of tasks takes whole are dealt to groups now, and their values go
  // after the others' in each destination's buffer; the receivers place the writes in the same
  // order: the others first, then the dealt ones, each in pending order. The dealt values
  // leave the outgoing buffers again at the end (a flush that fails keeps them as they were).
  std::map<int, std::size_t> undealt_size;
  for (const auto &o : outgoing_) undealt_size[o.first] = o.second.size();
  std::vector<std::size_t> order;
  order.reserve(pending_.size());
  for (std::size_t i = 0; i < pending_.size(); ++i)
    if (pending_[i].floating_at < 0) order.push_back(i);
  if (order.size() < pending_.size()) {
    deal_groups(static_cast<int>(pending_[0].plan->io_ranks.size()));
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      const CachedWrite &w = pending_[i];
      if (w.floating_at < 0) continue;
      order.push_back(i);
      const int64_t esize = element_size(w.type);
      const unsigned char *values = floating_.data() + w.floating_at;
      for (std::size_t k = 0; k < w.plan->send.peers.size(); ++k) {
        const int64_t bytes = w.plan->send.peers[k].count * esize;
        std::vector<unsigned char> &out = outgoing_[w.plan->send_rank(k, w.group)];
        out.insert(out.end(), values, values + bytes);
        values += bytes;
      }
    }
  }
  auto undeal = [&] {
    for (auto &o : outgoing_) {
      const auto kept = undealt_size.find(o.first);
      o.second.resize(kept == undealt_size.end() ? 0 : kept->second);
    }
  };

  // What each source sends: its chunks of every pending write, in order.
  std::map<int, int64_t> from;  // source rank -> bytes
  int64_t slab_bytes = 0;
  const bool dense_ok = dense_ && backend != nullptr && backend->takes_extents();
  std::vector<char> dense(pending_.size(), 0);
  // Writes per variable record in this flush: a dense slab fills every hole, so it is only for
  // a record no other pending write touches (another one may be placed by another task, in
  // the subset layout, and would race with the fill).
  std::map<std::pair<int, int64_t>, int> writes_of_record;
  if (dense_ok)
    for (const CachedWrite &w : pending_) ++writes_of_record[{w.varid, w.record}];
  int me = -1;
  MPI_Comm_rank(comm, &me);
  // A write this rank's task receives from itself alone, already in file order (one process,
  // the subset layout with every rank a task, a map aligned with the task's range): its
  // outgoing buffer is its slab, handed to the backend without a placement copy.
  std::vector<char> in_place(pending_.size(), 0);
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    const CachedWrite &w = pending_[i];
    const int64_t esize = element_size(w.type);
    const decomp::RecvPlan &recv = recv_of(i);
    for (const decomp::Peer &peer : recv.peers) from[peer.rank] += peer.count * esize;
    // Dense where the data runs and the holes tile the task's buffer (information
    // quantisation counts bits of the data alone: it keeps the packed form).
    int64_t holes = 0;
    for (const Run &h : recv.fill_runs) holes += h.length;
    dense[i] = dense_ok && w.fill_holes && w.information == nullptr && recv.count > 0 &&
               recv.count + holes == recv.buffer_size && writes_of_record[{w.varid, w.record}] == 1;
    in_place[i] = backend != nullptr && recv.peers.size() == 1 && recv.peers[0].rank == me &&
                  (!dense[i] || holes == 0) && in_packed_order(recv.packed_runs);
    if (in_place[i]) dense[i] = false;  // no holes: its data stretches are the whole buffer
    if (!in_place[i]) slab_bytes += (dense[i] ? recv.buffer_size : recv.count) * esize;
  }
  // What this rank sends itself is placed straight from its outgoing buffer: no message and no
  // copy into the incoming buffer.
  Status status;
  std::map<int, unsigned char *> cursor;
  const auto self_out = outgoing_.find(me);
  const int64_t self_sent =
      self_out != outgoing_.end() ? static_cast<int64_t>(self_out->second.size()) : 0;
  if (const auto self_in = from.find(me); self_in != from.end() || self_sent > 0) {
    const int64_t expected = self_in != from.end() ? self_in->second : 0;
    if (expected != self_sent)
      status = Status(ESMIO_EMPI, "rearrangement: rank " + std::to_string(me) + " sends itself " +
                                      std::to_string(self_sent) + " bytes but expects " +
                                      std::to_string(expected));
    else if (self_sent > 0)
      cursor[me] = self_out->second.data();
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
    cursor[f.first] = incoming_.data() + at;
    at += f.second;
  }
  std::vector<rearrange::SendSegment> sends;
  int64_t sent_bytes = 0;
  for (const auto &o : outgoing_) {
    if (o.second.empty() || o.first == me) continue;
    sends.push_back({o.first, o.second.data(), static_cast<int64_t>(o.second.size())});
    sent_bytes += static_cast<int64_t>(o.second.size());
  }
  {
    trace::Scope scope(trace::Counter::rearrange, file_counters, instance_counters,
                       sent_bytes + incoming_bytes);
    const Status moved = rearrange::exchange(comm, sends, recvs, limits);
    if (status.is_ok()) status = moved;
  }

  // Each write's data lands packed (no holes); its holes, where still needed, point at a
  // stretch of its fill value.
  const bool place = status.is_ok() && backend != nullptr;
  std::vector<unsigned char *> slab_of(pending_.size(), nullptr);
  std::vector<Piece> pieces;
  if (place) {
    if (static_cast<int64_t>(slabs_.size()) < slab_bytes)
      slabs_.resize(static_cast<std::size_t>(slab_bytes));
    std::vector<std::vector<decomp::Extent>> holes(pending_.size());
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      const CachedWrite &w = pending_[i];
      if (!w.fill_holes) continue;
      holes[i] = holes_left(w, recv_of(i).fill_extents);
      int64_t longest = 0;
      for (const decomp::Extent &e : holes[i]) longest = std::max(longest, e.length);
      std::vector<unsigned char> &fill = fills_[w.fill];
      const std::size_t bytes = static_cast<std::size_t>(longest) * w.fill.size();
      if (fill.size() < bytes) {
        fill.resize(bytes);
        convert::fill_runs(fill.data(), {Run{0, longest}}, w.fill.data(), w.fill.size());
      }
    }
    unsigned char *slab = slabs_.data();
    for (std::size_t i : order) {
      const CachedWrite &w = pending_[i];
      const int64_t esize = element_size(w.type);
      const decomp::RecvPlan &recv = recv_of(i);
      if (dense[i]) {
        // The whole buffer: holes filled, data placed, handed over as its file stretches.
        // Mostly holes (a land map): one fill of the whole buffer, data placed over it, costs
        // less than hundreds of thousands of short fills.
        // (dense: the holes are what the data leaves of the buffer)
        if (2 * (recv.buffer_size - recv.count) >= recv.buffer_size)
          convert::fill_runs(slab, {Run{0, recv.buffer_size}}, w.fill.data(), w.fill.size());
        else
          convert::fill_runs(slab, recv.fill_runs, w.fill.data(), w.fill.size());
        for (const decomp::Peer &peer : recv.peers) {
          unsigned char *&chunk = cursor[peer.rank];
          convert::scatter_convert(w.type, chunk, recv.runs.data() + peer.first_run,
                                   peer.end_run - peer.first_run, w.type, slab, nullptr);
          chunk += peer.count * esize;
        }
        int64_t position = 0;
        for (const Run &f : recv.file_runs) {
          pieces.push_back(Piece{i, f.begin, f.length, slab + position * esize});
          position += f.length;
        }
        slab += recv.buffer_size * esize;
        continue;
      }
      unsigned char *placed = slab;
      if (in_place[i]) {
        unsigned char *&chunk = cursor[me];
        placed = chunk;
        chunk += recv.count * esize;
      } else {
        for (const decomp::Peer &peer : recv.peers) {
          unsigned char *&chunk = cursor[peer.rank];
          convert::scatter_convert(w.type, chunk, recv.packed_runs.data() + peer.first_run,
                                   peer.end_run - peer.first_run, w.type, slab, nullptr);
          chunk += peer.count * esize;
        }
      }
      slab_of[i] = placed;
      auto put = [&](const decomp::Extent &e, const unsigned char *values) {
        pieces.push_back(Piece{i, e.offset, e.length, values});
      };
      for (const decomp::Extent &e : recv.packed_extents) put(e, placed + e.position * esize);
      // Holes that later writes of the same record (in this flush) fill with data are left
      // to them: requests of one collective wait have no order.
      for (const decomp::Extent &e : holes[i]) put(e, fills_[w.fill].data());
      if (!in_place[i]) slab += recv.count * esize;
    }
  }
  // Every rank takes part (the counts are summed over all of them), placed or not.
  const Status quantized = quantize_information(comm, slab_of, place);
  if (status.is_ok()) status = quantized;
  if (place && status.is_ok())
    status = backend->takes_extents() ? backend->put_extents(extent_requests_of(pieces))
                                      : backend->put_requests(requests_of(pieces));
  undeal();
  return status;
}

void WriteCache::deal_groups(int ntasks) {
  // One entry per variable record (every write of a record goes to the same group: its
  // writes through several decompositions share the record's shape, so its units, and must
  // not race), in file order: records of the classic formats lie record after record,
  // variables in definition order within one.
  struct Key {
    int64_t record;
    int varid;
  };
  auto before = [](const Key &a, const Key &b) {
    return std::tie(a.record, a.varid) < std::tie(b.record, b.varid);
  };
  std::vector<Key> keys;
  std::vector<DealtRecord> records;
  std::vector<double> loads(static_cast<std::size_t>(ntasks), 0.0);
  for (const CachedWrite &w : pending_) {
    if (w.floating_at < 0) {
      // Shared by every task (within the partition's balance).
      const int64_t bytes = (w.fill_holes ? decomp::shape_size(w.shape) : w.plan->global_count) *
                            element_size(w.type);
      for (double &l : loads) l += static_cast<double>(bytes) / ntasks;
      continue;
    }
    keys.push_back(Key{w.record_variable ? w.record : -1, w.varid});
  }
  std::sort(keys.begin(), keys.end(), before);
  keys.erase(
      std::unique(keys.begin(), keys.end(),
                  [&](const Key &a, const Key &b) { return !before(a, b) && !before(b, a); }),
      keys.end());
  records.assign(keys.size(), DealtRecord{0, 1});
  auto index_of = [&](const CachedWrite &w) {
    const Key k{w.record_variable ? w.record : -1, w.varid};
    return static_cast<std::size_t>(std::lower_bound(keys.begin(), keys.end(), k, before) -
                                    keys.begin());
  };
  // A record's bytes: the data of its writes, or all of it where one of them fills its holes.
  for (const CachedWrite &w : pending_) {
    if (w.floating_at < 0) continue;
    DealtRecord &r = records[index_of(w)];
    r.bytes += w.plan->global_count * element_size(w.type);
    r.units = w.plan->units;
  }
  for (const CachedWrite &w : pending_) {
    if (w.floating_at < 0 || !w.fill_holes) continue;
    DealtRecord &r = records[index_of(w)];
    r.bytes = std::max(r.bytes, decomp::shape_size(w.shape) * element_size(w.type));
  }
  const std::vector<int> groups = dealer_.deal(records, std::move(loads));
  for (CachedWrite &w : pending_)
    if (w.floating_at >= 0) w.group = groups[index_of(w)];
}

std::vector<backend::Backend::PutRequest> WriteCache::requests_of(std::vector<Piece> &pieces) {
  auto same_record = [&](const Piece &a, const Piece &b) {
    const CachedWrite &x = pending_[a.write], &y = pending_[b.write];
    return x.varid == y.varid && x.record == y.record;
  };
  std::vector<std::pair<std::size_t, std::size_t>> groups;  // [first, end) of merged pieces
  if (merge_) {
    // File order within each variable record; equal offsets keep the order of the writes.
    std::stable_sort(pieces.begin(), pieces.end(), [&](const Piece &a, const Piece &b) {
      const CachedWrite &x = pending_[a.write], &y = pending_[b.write];
      if (x.varid != y.varid) return x.varid < y.varid;
      if (x.record != y.record) return x.record < y.record;
      return a.offset < b.offset;
    });
    int64_t merged_bytes = 0;
    for (std::size_t k = 0; k < pieces.size();) {
      std::size_t end = k + 1;
      while (end < pieces.size() && same_record(pieces[k], pieces[end]) &&
             pieces[end - 1].offset + pieces[end - 1].length == pieces[end].offset)
        ++end;
      if (end - k > 1)
        for (std::size_t j = k; j < end; ++j)
          merged_bytes += pieces[j].length * element_size(pending_[pieces[j].write].type);
      groups.emplace_back(k, end);
      k = end;
    }
    if (static_cast<int64_t>(merged_.size()) < merged_bytes)
      merged_.resize(static_cast<std::size_t>(merged_bytes));
  } else {
    for (std::size_t k = 0; k < pieces.size(); ++k) groups.emplace_back(k, k + 1);
  }
  std::vector<backend::Backend::PutRequest> requests;
  unsigned char *at = merged_.data();
  for (const auto &[first, end] : groups) {
    const CachedWrite &w = pending_[pieces[first].write];
    const int64_t esize = element_size(w.type);
    const unsigned char *values = pieces[first].values;
    int64_t length = pieces[first].length;
    if (end - first > 1) {
      // Adjacent stretches of one record become one request: a backend without nonblocking
      // requests (netCDF-4/HDF5) then makes one collective call instead of one per stretch.
      values = at;
      length = 0;
      for (std::size_t j = first; j < end; ++j) {
        std::memcpy(at, pieces[j].values, static_cast<std::size_t>(pieces[j].length * esize));
        at += pieces[j].length * esize;
        length += pieces[j].length;
      }
    }
    requests.push_back({w.varid,
                        backend::record_boxes(w.shape, w.record_variable, w.record,
                                              {Run{pieces[first].offset, length}}),
                        w.type, values});
  }
  return requests;
}

std::vector<backend::Backend::ExtentRequest> WriteCache::extent_requests_of(
    const std::vector<Piece> &pieces) const {
  // Pieces come grouped by write (data, then the holes it fills): one request per write.
  std::vector<backend::Backend::ExtentRequest> requests;
  std::size_t current = pending_.size();
  for (const Piece &p : pieces) {
    if (p.write != current) {
      const CachedWrite &w = pending_[p.write];
      requests.push_back({w.varid, w.record, w.record_variable, &w.shape, w.type, {}});
      current = p.write;
    }
    requests.back().stretches.push_back({p.offset, p.length, p.values});
  }
  return requests;
}

Status WriteCache::quantize_information(MPI_Comm comm, const std::vector<unsigned char *> &slab_of,
                                        bool holds_file) {
  std::vector<quantize::Information *> information(pending_.size());
  std::vector<int64_t> records(pending_.size());
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    information[i] = pending_[i].information.get();
    records[i] = pending_[i].record;
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
  for (std::size_t i = 0; holds_file && i < pending_.size(); ++i) {
    const CachedWrite &w = pending_[i];
    if (!w.information || slab_of[i] == nullptr) continue;
    const Status rounded = quantize::bitround(w.type, slab_of[i], recv_of(i).count,
                                              w.information->keepbits, w.fill.data());
    if (status.is_ok()) status = rounded;
  }
  return status;
}

quantize::HeldSlab WriteCache::held_slab(std::size_t i, const std::vector<unsigned char *> &slab_of,
                                         bool holds_file) const {
  const CachedWrite &w = pending_[i];
  const decomp::RecvPlan &recv = recv_of(i);
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

void WriteCache::drop_last() {
  if (pending_.empty()) return;
  pending_.pop_back();
  for (const auto &[rank, size] : sizes_before_last_) outgoing_[rank].resize(size);
  sizes_before_last_.clear();
  floating_.resize(static_cast<std::size_t>(floating_before_last_));
  bound_ = bound_before_last_;
}

void WriteCache::recompute_bound() {
  bound_.clear();
  for (const CachedWrite &w : pending_) bound_.add(*w.plan, element_size(w.type), w.fill_holes);
}

bool WriteCache::hold_back_record(int varid, int64_t record, int64_t limit) {
  std::size_t first = pending_.size();
  while (first > 0 && pending_[first - 1].varid == varid && pending_[first - 1].record == record)
    --first;
  if (first == pending_.size() || first == 0) return false;
  // The tail's bound, computed as the cache does (the same on every rank).
  CacheBound tail_bound = bound_;
  tail_bound.clear();
  for (std::size_t i = first; i < pending_.size(); ++i)
    tail_bound.add(*pending_[i].plan, element_size(pending_[i].type), pending_[i].fill_holes);
  const int64_t tail = tail_bound.bytes();
  if (tail > limit) return false;
  // The tail writes' packed values are the tails of the outgoing buffers.
  std::map<int, int64_t> bytes;
  int64_t floating_from = -1;  // the tail writes' values in the floating buffer start here
  for (std::size_t i = first; i < pending_.size(); ++i) {
    if (pending_[i].floating_at >= 0) {
      if (floating_from < 0) floating_from = pending_[i].floating_at;
      continue;
    }
    for (const decomp::Peer &peer : pending_[i].plan->send.peers)
      bytes[peer.rank] += peer.count * element_size(pending_[i].type);
  }
  held_floating_.clear();
  if (floating_from >= 0) {
    held_floating_.assign(floating_.begin() + floating_from, floating_.end());
    floating_.resize(static_cast<std::size_t>(floating_from));
    for (std::size_t i = first; i < pending_.size(); ++i)
      if (pending_[i].floating_at >= 0) pending_[i].floating_at -= floating_from;
  }
  for (const auto &[rank, n] : bytes) {
    std::vector<unsigned char> &out = outgoing_[rank];
    const auto from = out.end() - static_cast<std::ptrdiff_t>(n);
    held_outgoing_[rank].assign(from, out.end());
    out.erase(from, out.end());
  }
  held_.assign(std::make_move_iterator(pending_.begin() + static_cast<std::ptrdiff_t>(first)),
               std::make_move_iterator(pending_.end()));
  pending_.resize(first);
  recompute_bound();
  return true;
}

void WriteCache::restore_held() {
  if (held_.empty()) return;
  const int64_t floating_base = static_cast<int64_t>(floating_.size());
  floating_.insert(floating_.end(), held_floating_.begin(), held_floating_.end());
  held_floating_.clear();
  for (CachedWrite &w : held_) {
    if (w.floating_at >= 0) w.floating_at += floating_base;
    pending_.push_back(std::move(w));
  }
  held_.clear();
  for (auto &[rank, bytes] : held_outgoing_) {
    std::vector<unsigned char> &out = outgoing_[rank];
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  held_outgoing_.clear();
  recompute_bound();
}

void WriteCache::clear() {
  pending_.clear();
  for (auto &o : outgoing_) o.second.clear();
  floating_.clear();
  bound_.clear();
}

}  // namespace esmio::aggregate
