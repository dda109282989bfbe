#include "aggregate/flush_plan.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>

#include "convert/convert.hpp"
#include "decomp/box_partition.hpp"

namespace esmio::aggregate {
namespace {

// What this rank receives of write w (in the group the dealing gave it).
const decomp::RecvPlan &recv_of(const CachedWrite &w) { return w.plan->recv_in(w.group); }

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

Dealing dealing_of(const std::vector<CachedWrite> &pending, int ntasks) {
  // One entry per variable record: every write of a record goes to the same group (its writes
  // through several decompositions share the record's shape, so its units, and must not race).
  struct Key {
    int64_t record;
    int varid;
  };
  auto before = [](const Key &a, const Key &b) {
    return std::tie(a.record, a.varid) < std::tie(b.record, b.varid);
  };
  auto key_of = [](const CachedWrite &w) {
    return Key{w.record_variable ? w.record : -1, w.varid};
  };
  Dealing dealing;
  dealing.shared.assign(static_cast<std::size_t>(ntasks), 0.0);
  std::vector<Key> keys;
  for (const CachedWrite &w : pending) {
    if (w.floating_at < 0) {
      // Shared by every task (within the partition's balance).
      const int64_t bytes = (w.fill_holes ? decomp::shape_size(w.shape) : w.plan->global_count) *
                            element_size(w.type);
      for (double &l : dealing.shared) l += static_cast<double>(bytes) / ntasks;
      continue;
    }
    keys.push_back(key_of(w));
  }
  std::sort(keys.begin(), keys.end(), before);
  keys.erase(
      std::unique(keys.begin(), keys.end(),
                  [&](const Key &a, const Key &b) { return !before(a, b) && !before(b, a); }),
      keys.end());
  dealing.records.assign(keys.size(), DealtRecord{0, 1});
  dealing.record_of.assign(pending.size(), -1);
  for (std::size_t i = 0; i < pending.size(); ++i)
    if (pending[i].floating_at >= 0)
      dealing.record_of[i] = static_cast<int>(
          std::lower_bound(keys.begin(), keys.end(), key_of(pending[i]), before) - keys.begin());
  // A record's bytes: the data of its writes, or all of it where one of them fills its holes.
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (dealing.record_of[i] < 0) continue;
    DealtRecord &r = dealing.records[static_cast<std::size_t>(dealing.record_of[i])];
    r.bytes += pending[i].plan->global_count * element_size(pending[i].type);
    r.units = pending[i].plan->units;
  }
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const CachedWrite &w = pending[i];
    if (dealing.record_of[i] < 0 || !w.fill_holes) continue;
    DealtRecord &r = dealing.records[static_cast<std::size_t>(dealing.record_of[i])];
    r.bytes = std::max(r.bytes, decomp::shape_size(w.shape) * element_size(w.type));
  }
  return dealing;
}

std::vector<std::size_t> placement_order(const std::vector<CachedWrite> &pending) {
  std::vector<std::size_t> order;
  order.reserve(pending.size());
  for (std::size_t i = 0; i < pending.size(); ++i)
    if (pending[i].floating_at < 0) order.push_back(i);
  for (std::size_t i = 0; i < pending.size(); ++i)
    if (pending[i].floating_at >= 0) order.push_back(i);
  return order;
}

void append_dealt(const std::vector<CachedWrite> &pending,
                  const std::vector<unsigned char> &floating, CacheStore::Buffers *outgoing) {
  for (std::size_t i : placement_order(pending)) {
    const CachedWrite &w = pending[i];
    if (w.floating_at < 0) continue;
    const int64_t esize = element_size(w.type);
    const unsigned char *values = floating.data() + w.floating_at;
    for (std::size_t k = 0; k < w.plan->send.peers.size(); ++k) {
      const int64_t bytes = w.plan->send.peers[k].count * esize;
      std::vector<unsigned char> &out = (*outgoing)[w.plan->send_rank(k, w.group)];
      out.insert(out.end(), values, values + bytes);
      values += bytes;
    }
  }
}

Placement placement_of(const std::vector<CachedWrite> &pending, int me, bool dense_ok,
                       bool holds_file) {
  Placement p;
  p.dense.assign(pending.size(), 0);
  p.in_place.assign(pending.size(), 0);
  // Writes per variable record in this flush: a dense slab fills every hole, so it is only for
  // a record no other pending write touches (another one may be placed by another task, in
  // the subset layout, and would race with the fill).
  std::map<std::pair<int, int64_t>, int> writes_of_record;
  if (dense_ok)
    for (const CachedWrite &w : pending) ++writes_of_record[{w.varid, w.record}];
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const CachedWrite &w = pending[i];
    const int64_t esize = element_size(w.type);
    const decomp::RecvPlan &recv = recv_of(w);
    for (const decomp::Peer &peer : recv.peers) p.from[peer.rank] += peer.count * esize;
    // Dense where the data runs and the holes tile the task's buffer (information
    // quantisation counts bits of the data alone: it keeps the packed form).
    int64_t holes = 0;
    for (const Run &h : recv.fill_runs) holes += h.length;
    p.dense[i] = dense_ok && w.fill_holes && w.information == nullptr && recv.count > 0 &&
                 recv.count + holes == recv.buffer_size &&
                 writes_of_record[{w.varid, w.record}] == 1;
    // One process, the subset layout with every rank a task, or a map aligned with the task's
    // range: the outgoing buffer is the slab.
    p.in_place[i] = holds_file && recv.peers.size() == 1 && recv.peers[0].rank == me &&
                    (!p.dense[i] || holes == 0) && in_packed_order(recv.packed_runs);
    if (p.in_place[i]) p.dense[i] = false;  // no holes: its data stretches are the whole buffer
    if (!p.in_place[i]) p.slab_bytes += (p.dense[i] ? recv.buffer_size : recv.count) * esize;
  }
  return p;
}

std::vector<decomp::Extent> holes_left(const std::vector<CachedWrite> &pending, std::size_t i,
                                       const std::vector<decomp::Extent> &holes) {
  const CachedWrite &w = pending[i];
  std::vector<Run> taken;
  for (std::size_t j = 0; j < pending.size(); ++j) {
    const CachedWrite &other = pending[j];
    if (j == i || other.varid != w.varid || other.record != w.record) continue;
    const std::vector<Run> &covered = recv_of(other).range_data;
    taken.insert(taken.end(), covered.begin(), covered.end());
  }
  if (taken.empty()) return holes;
  return subtract(holes, std::move(taken));
}

Placed place(const std::vector<CachedWrite> &pending, const std::vector<std::size_t> &order,
             const Placement &placement, int me, std::map<int, unsigned char *> &cursor,
             unsigned char *slabs, const std::vector<std::vector<decomp::Extent>> &holes,
             const std::vector<const unsigned char *> &fill_of) {
  Placed out;
  out.slab_of.assign(pending.size(), nullptr);
  unsigned char *slab = slabs;
  for (std::size_t i : order) {
    const CachedWrite &w = pending[i];
    const int64_t esize = element_size(w.type);
    const decomp::RecvPlan &recv = recv_of(w);
    if (placement.dense[i]) {
      // The whole buffer: holes filled, data placed, handed over as its file stretches.
      // Mostly holes (a land map): one fill of the whole buffer, data placed over it, costs
      // less than hundreds of thousands of short fills.
      // (dense: the holes are what the data leaves of the buffer)
      if (2 * (recv.buffer_size - recv.count) >= recv.buffer_size)
        convert::fill_runs(slab, {Run{0, recv.buffer_size}}, w.fill.data(), w.fill.size());
      else
        convert::fill_runs(slab, recv.fill_runs, w.fill.data(), w.fill.size());
      int64_t first = 0;  // the peer's first element in recv.positions
      for (const decomp::Peer &peer : recv.peers) {
        unsigned char *&chunk = cursor[peer.rank];
        if (!recv.positions.empty())
          convert::scatter_positions(static_cast<std::size_t>(esize), chunk,
                                     recv.positions.data() + first, peer.count, slab);
        else
          convert::scatter_convert(w.type, chunk, recv.runs.data() + peer.first_run,
                                   peer.end_run - peer.first_run, w.type, slab, nullptr);
        chunk += peer.count * esize;
        first += peer.count;
      }
      int64_t position = 0;
      for (const Run &f : recv.file_runs) {
        out.pieces.push_back(Piece{i, f.begin, f.length, slab + position * esize});
        position += f.length;
      }
      slab += recv.buffer_size * esize;
      continue;
    }
    unsigned char *placed = slab;
    if (placement.in_place[i]) {
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
    out.slab_of[i] = placed;
    for (const decomp::Extent &e : recv.packed_extents)
      out.pieces.push_back(Piece{i, e.offset, e.length, placed + e.position * esize});
    // Holes that later writes of the same record (in this flush) fill with data are left to
    // them: requests of one collective wait have no order.
    for (const decomp::Extent &e : holes[i])
      out.pieces.push_back(Piece{i, e.offset, e.length, fill_of[i]});
    if (!placement.in_place[i]) slab += recv.count * esize;
  }
  return out;
}

std::vector<backend::Backend::PutRequest> put_requests(const std::vector<CachedWrite> &pending,
                                                       std::vector<Piece> &pieces, bool merge,
                                                       std::vector<unsigned char> *merged) {
  auto same_record = [&](const Piece &a, const Piece &b) {
    const CachedWrite &x = pending[a.write], &y = pending[b.write];
    return x.varid == y.varid && x.record == y.record;
  };
  std::vector<std::pair<std::size_t, std::size_t>> groups;  // [first, end) of merged pieces
  if (merge) {
    // File order within each variable record; equal offsets keep the order of the writes.
    std::stable_sort(pieces.begin(), pieces.end(), [&](const Piece &a, const Piece &b) {
      const CachedWrite &x = pending[a.write], &y = pending[b.write];
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
          merged_bytes += pieces[j].length * element_size(pending[pieces[j].write].type);
      groups.emplace_back(k, end);
      k = end;
    }
    if (static_cast<int64_t>(merged->size()) < merged_bytes)
      merged->resize(static_cast<std::size_t>(merged_bytes));
  } else {
    for (std::size_t k = 0; k < pieces.size(); ++k) groups.emplace_back(k, k + 1);
  }
  std::vector<backend::Backend::PutRequest> requests;
  unsigned char *at = merged->data();
  for (const auto &[first, end] : groups) {
    const CachedWrite &w = pending[pieces[first].write];
    const int64_t esize = element_size(w.type);
    const unsigned char *values = pieces[first].values;
    int64_t length = pieces[first].length;
    if (end - first > 1) {
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

std::vector<backend::Backend::ExtentRequest> extent_requests(
    const std::vector<CachedWrite> &pending, const std::vector<Piece> &pieces) {
  // Pieces come grouped by write (data, then the holes it fills): one request per write.
  std::vector<backend::Backend::ExtentRequest> requests;
  std::size_t current = pending.size();
  for (const Piece &p : pieces) {
    if (p.write != current) {
      const CachedWrite &w = pending[p.write];
      requests.push_back({w.varid, w.record, w.record_variable, &w.shape, w.type, {}});
      current = p.write;
    }
    requests.back().stretches.push_back({p.offset, p.length, p.values});
  }
  return requests;
}

}  // namespace esmio::aggregate
