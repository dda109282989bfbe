// Where the write cache's pending writes go at a flush, decided from the list of writes alone
// (pure, the same on every rank): which group of I/O tasks takes each record that a group takes
// whole, the order in which senders pack and receivers place the writes, how each write is
// placed on this rank (in place, packed, or as its task's whole buffer with the holes filled),
// the placement itself, and the storage requests that result. The exchange in between, the
// one collective step, is the write cache's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "aggregate/cache_store.hpp"
#include "aggregate/record_dealing.hpp"
#include "backend/backend.hpp"
#include "decomp/plan.hpp"

namespace esmio::aggregate {

// What the record dealing needs of a flush: one entry per variable record of the writes that a
// group of tasks takes whole, in file order (records of the classic formats lie record after
// record, variables in definition order within one), and the bytes each task writes of the
// records every task shares.
struct Dealing {
  std::vector<DealtRecord> records;
  std::vector<double> shared;  // per task
  std::vector<int> record_of;  // per pending write: its entry in records; -1: not dealt
};
Dealing dealing_of(const std::vector<CachedWrite> &pending, int ntasks);

// Appends the values of each write that the dealing gave a group (CachedWrite::group) from the
// floating buffer to the outgoing buffers of that group's tasks, in placement order, after what
// the buffers hold: every peer's share to the rank of its task in the group.
void append_dealt(const std::vector<CachedWrite> &pending,
                  const std::vector<unsigned char> &floating, CacheStore::Buffers *outgoing);

// The order in which each sender appends the writes' values to a destination's buffer and the
// receiver places them: the writes to a fixed set of tasks first, then the dealt ones, each in
// pending order.
std::vector<std::size_t> placement_order(const std::vector<CachedWrite> &pending);

// How this rank places each pending write (in the group set by the dealing).
struct Placement {
  // The task's whole buffer, holes filled, handed over as its few file stretches: where the
  // data and the holes tile the buffer, no other pending write touches the record, and the
  // backend writes stretches itself (dense_ok).
  std::vector<char> dense;
  // Received from this rank alone and already in file order: handed over from its outgoing
  // buffer, without a placement copy.
  std::vector<char> in_place;
  std::map<int, int64_t> from;  // bytes received from each source rank, this rank included
  int64_t slab_bytes = 0;       // the placement buffer the others need
};
// me: this rank in the flush's communicator; holds_file: this rank has a backend.
Placement placement_of(const std::vector<CachedWrite> &pending, int me, bool dense_ok,
                       bool holds_file);

// The stretches of pending[i]'s holes (its task's holes of the record) that no other pending
// write of its variable record holds data for.
std::vector<decomp::Extent> holes_left(const std::vector<CachedWrite> &pending, std::size_t i,
                                       const std::vector<decomp::Extent> &holes);

// One stretch for the backend: file offsets of pending[write]'s record, values in memory.
struct Piece {
  std::size_t write;
  int64_t offset;
  int64_t length;
  const unsigned char *values;
};

// What the placement gives: each write's packed values on this rank (null: dense, or none),
// and the stretches to hand over, grouped by write (its data, then the holes it fills).
struct Placed {
  std::vector<unsigned char *> slab_of;
  std::vector<Piece> pieces;
};
// Places the received values of the writes, in order: cursor[source] points at the next
// values from that source (advanced as they are used; cursor[me] into this rank's outgoing
// buffer). slabs holds placement.slab_bytes; holes[i]: the holes write i fills (holes_left),
// each pointing at fill_of(i), a stretch of its fill value as long as the longest.
Placed place(const std::vector<CachedWrite> &pending, const std::vector<std::size_t> &order,
             const Placement &placement, int me, std::map<int, unsigned char *> &cursor,
             unsigned char *slabs, const std::vector<std::vector<decomp::Extent>> &holes,
             const std::vector<const unsigned char *> &fill_of);

// One request per piece, or with merge, adjacent pieces of one variable record joined into
// one (copied together into *merged, grown as needed): a backend without nonblocking requests
// (netCDF-4/HDF5) then makes one collective call instead of one per stretch. Sorts pieces into
// file order within each variable record when merging.
std::vector<backend::Backend::PutRequest> put_requests(const std::vector<CachedWrite> &pending,
                                                       std::vector<Piece> &pieces, bool merge,
                                                       std::vector<unsigned char> *merged);
// For a backend that takes stretches (takes_extents): one request per write.
std::vector<backend::Backend::ExtentRequest> extent_requests(
    const std::vector<CachedWrite> &pending, const std::vector<Piece> &pieces);

}  // namespace esmio::aggregate
