// What the write cache holds: the pending writes, each converted on the compute rank into its
// packed values for the I/O tasks, and the bound on the bytes any rank holds for them. A write
// to a fixed set of tasks is packed into one outgoing buffer per destination rank; a write of a
// record that a group of tasks takes whole (plan->groups > 1) waits in the floating buffer
// until the flush deals it to a group (flush_plan). Where the values go at the flush is not
// decided here.
//
// Every rank holds the same list of writes (the calls are collective), so decisions from the
// list alone (the bound, the hold-back) are the same everywhere without communicating.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "aggregate/cache_bound.hpp"
#include "esmio.h"
#include "quantize/information.hpp"
#include "rearrange/plan_builder.hpp"

namespace esmio::aggregate {

struct CachedWrite {
  int varid;
  esmio_type type;                  // the file type, which the cache holds
  std::vector<unsigned char> fill;  // one value of type, for the holes
  bool fill_holes;                  // this write fills its record's holes
  std::shared_ptr<const rearrange::Plan> plan;
  std::vector<int64_t> shape;  // the variable's record shape
  bool record_variable;
  int64_t record;
  std::shared_ptr<quantize::Information> information;  // null: no information quantisation
  // A record that a group of I/O tasks takes whole (plan->groups > 1): its packed values wait
  // in the floating buffer from this byte on until the flush deals it to a group.
  int64_t floating_at = -1;
  int group = 0;  // the group that takes it (set by the flush)
};

// The bytes of one value of the file type.
int64_t element_size(esmio_type type);

class CacheStore {
 public:
  using Buffers = std::map<int, std::vector<unsigned char>>;  // destination rank -> values

  bool empty() const { return pending_.empty(); }
  const std::vector<CachedWrite> &pending() const { return pending_; }
  // One past the highest record of a record variable that a pending write holds (0 if none).
  int64_t records_end() const;

  CacheBound &bound() { return bound_; }
  const CacheBound &bound() const { return bound_; }

  // Converts the caller's values (memtype, memory order) into the outgoing or the floating
  // buffer and keeps the write. Returns the number of values out of range of the file type.
  int64_t add(CachedWrite write, esmio_type memtype, const void *values);
  // Takes back the write add() just kept, its values and its part of the bound.
  void drop_last();
  // Takes back the writes at these indices of pending() (ascending), their values and their
  // part of the bound, wherever they are in the list: a call another rank refused.
  void take_back(const std::vector<std::size_t> &writes);
  // Makes pending write `write` fill its record's holes (the claim of a write taken back).
  void set_fill_holes(std::size_t write) {
    pending_[write].fill_holes = true;
    recompute_bound();
  }

  // The pending writes of (varid, record) at the tail of the list leave it, with their values,
  // when they are not all that is pending and their own bound is at most limit bytes. Returns
  // whether any left. restore_held() puts them back at the tail, byte for byte as they were.
  bool hold_back_record(int varid, int64_t record, int64_t limit);
  void restore_held();
  void clear();

  // For the flush: the packed values per destination rank (a write placed in place is rounded
  // there by information quantisation), the floating values, and the group of each dealt write.
  Buffers &outgoing() { return outgoing_; }
  const std::vector<unsigned char> &floating() const { return floating_; }
  void set_group(std::size_t write, int group) { pending_[write].group = group; }

 private:
  // The bound of the pending writes, from scratch.
  void recompute_bound();

  std::vector<CachedWrite> pending_;
  Buffers outgoing_;
  // The packed values of the writes dealt at the flush (CachedWrite::floating_at).
  std::vector<unsigned char> floating_;
  CacheBound bound_;
  // hold_back_record's writes and their values (the tails of outgoing_ and floating_).
  std::vector<CachedWrite> held_;
  Buffers held_outgoing_;
  std::vector<unsigned char> held_floating_;
  // What drop_last() restores: the bound and the buffers' sizes before the last add().
  CacheBound bound_before_last_;
  std::vector<std::pair<int, std::size_t>> sizes_before_last_;
  int64_t floating_before_last_ = 0;
};

}  // namespace esmio::aggregate
