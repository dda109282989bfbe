// The per-file write cache. Each write_darray is converted on the compute rank into one
// outgoing buffer per destination I/O task and remembered; a flush moves everything pending in
// one exchange (one message per pair of ranks, however many calls were cached), places it in
// the I/O tasks' buffers and hands all of it to the backend at once (PnetCDF: nonblocking posts
// and one collective wait, which merges the requests into few large file accesses).
//
// What it holds is the cache store's (cache_store); where it goes, the flush plan's
// (flush_plan); this class composes them with the flush's one exchange and the information
// quantisation of what the I/O tasks placed.
//
// Every rank makes the same decisions without communicating: the bound on the bytes a rank
// holds grows by each plan's max_rank_elements (for a record a group of tasks takes whole: its
// share of it, rearrange::Plan::held), which is the same everywhere.
//
// Guarantee: a flush that fails keeps everything pending (a later sync or close retries it);
// data is in the file once a sync or close has returned success.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <vector>

#include "aggregate/cache_store.hpp"
#include "aggregate/flush_plan.hpp"
#include "aggregate/record_dealing.hpp"
#include "backend/backend.hpp"
#include "common/status.hpp"
#include "quantize/information_count.hpp"
#include "rearrange/exchange.hpp"
#include "rearrange/plan_builder.hpp"
#include "trace/counters.hpp"

namespace esmio::aggregate {

class WriteCache {
 public:
  bool empty() const { return store_.empty(); }
  int64_t pending_writes() const { return static_cast<int64_t>(store_.pending().size()); }
  const std::vector<CachedWrite> &pending() const { return store_.pending(); }
  // One past the highest record of a record variable that a pending write holds (0 if none).
  int64_t pending_records_end() const { return store_.records_end(); }
  // The most bytes any rank holds for the pending writes.
  int64_t bound() const { return store_.bound().bytes(); }
  // The bound once a write through plan at esize bytes per element is added.
  int64_t bound_with(const rearrange::Plan &plan, int64_t esize, bool fill_holes) const {
    return store_.bound().with(plan, esize, fill_holes);
  }

  // Converts the caller's values (memtype, memory order) into the outgoing buffers and keeps
  // the write. Returns the number of values out of range of the file type.
  int64_t add(CachedWrite write, esmio_type memtype, const void *values) {
    return store_.add(std::move(write), memtype, values);
  }
  // Takes back the write add() just kept (the call failed on another rank).
  void drop_last() { store_.drop_last(); }
  // Takes back the pending writes at these indices (ascending): calls another rank refused.
  void take_back(const std::vector<std::size_t> &writes) { store_.take_back(writes); }
  // Pending write `write` fills its record's holes instead of a write taken back.
  void set_fill_holes(std::size_t write) { store_.set_fill_holes(write); }
  // Flushes merge adjacent file stretches of one variable record into one request (copying
  // them together), for backends that make one collective call per request. The same on
  // every rank.
  void set_merge(bool merge) {
    merge_ = merge;
    store_.bound().set_merge(merge);
  }
  // A write that fills its record's holes, alone in its record in a flush, is placed in its
  // I/O task's whole buffer, holes filled, and handed over as the buffer's few file stretches
  // (instead of one stretch per data run and per hole: a land-only map has hundreds of
  // thousands), for a backend that writes stretches itself (takes_extents). The same on
  // every rank.
  void set_dense(bool dense) {
    dense_ = dense;
    store_.bound().set_dense(dense);
  }
  // The I/O tasks' ranks in comm, in task order (box layout: ranges ascend with the task), and
  // this rank's task (-1: none): information quantisation needs each task's right neighbour.
  void set_io_tasks(std::vector<int> io_ranks, int my_task) {
    io_ranks_ = std::move(io_ranks);
    my_task_ = my_task;
  }

  // Collective over comm (every rank). backend is null on ranks that hold no file. Returns
  // this rank's outcome and keeps everything: the caller agrees on the outcome across ranks
  // and then clears (a rank that saw no error must not drop what another rank failed to write).
  Status flush(MPI_Comm comm, const rearrange::ExchangeLimits &limits, backend::Backend *backend,
               trace::Counters *file_counters, trace::Counters *instance_counters);
  void clear() { store_.clear(); }

  // Before a flush that makes room for a write of (varid, record): the pending writes at the
  // tail of the list that belong to that same variable record stay out of the flush, when
  // they are not all that is pending and hold at most `limit` bytes on any rank. A model that
  // writes a record in many small pieces (a multi-tasked model's slices, in any order) would
  // otherwise see the pieces it has written so far reach the file as scattered small requests
  // (and the hole fill write the gaps between them, which the rest of the record then
  // overwrites); held back, the record is flushed whole later. Returns whether any were held.
  // Every rank decides alike (the pending list is the same everywhere).
  bool hold_back_record(int varid, int64_t record, int64_t limit) {
    return store_.hold_back_record(varid, record, limit);
  }
  // Puts the writes held back at the tail of the pending list again, byte for byte as they
  // were: after the flush and clear(), or after a flush that failed (then the list is as it
  // was before hold_back_record).
  void restore_held() { store_.restore_held(); }

 private:
  // The flush's steps, in order.
  // Deals the pending records that a group of tasks takes whole to groups (record_dealing) and
  // appends their values to the outgoing buffers of the group's tasks, after the others'.
  // Returns the buffers' sizes before, which take_back_dealt restores at the end of the flush
  // (a flush that fails keeps the cache as it was).
  std::map<int, std::size_t> deal_records();
  void take_back_dealt(const std::map<int, std::size_t> &undealt_size);
  // The one exchange: every rank sends its outgoing buffers and receives from = placement's
  // `from` into the incoming buffer; cursor[source] is set where each source's values start
  // (this rank's own straight in its outgoing buffer: no message and no copy).
  Status exchange(MPI_Comm comm, const rearrange::ExchangeLimits &limits, int me,
                  std::map<int, int64_t> from, std::map<int, unsigned char *> *cursor,
                  trace::Counters *file_counters, trace::Counters *instance_counters);
  // Each write's data lands packed (no holes) in the placement buffer, or stays in place;
  // its holes, where still needed, point at a stretch of its fill value.
  Placed place_received(const Placement &placement, int me, std::map<int, unsigned char *> &cursor);
  // The holes each write fills (flush_plan's holes_left) and a stretch of its fill value as
  // long as the longest of them.
  void prepare_holes(std::vector<std::vector<decomp::Extent>> *holes,
                     std::vector<const unsigned char *> *fill_of);
  // Information quantisation of the placed data (slab_of[i]: write i's packed values):
  // keepbits of each variable seen for the first time, settled over every task
  // (quantize/information_collective), then BitRound in place. Collective over comm.
  Status quantize_information(MPI_Comm comm, const std::vector<unsigned char *> &slab_of,
                              bool holds_file);
  // What this rank holds of pending write i, as the information count reads it.
  quantize::HeldSlab held_slab(std::size_t i, const std::vector<unsigned char *> &slab_of,
                               bool holds_file) const;
  // The placed stretches to the backend, as requests of the kind it takes.
  Status hand_over(backend::Backend *backend, std::vector<Piece> &pieces);

  CacheStore store_;
  // Which group takes each record that a group of tasks takes whole, flush after flush.
  RecordDealer dealer_;
  std::vector<unsigned char> incoming_, slabs_, merged_;  // reused from flush to flush
  bool merge_ = false;
  bool dense_ = false;
  std::vector<int> io_ranks_;
  int my_task_ = -1;
  // Fill values for the holes, one stretch per fill pattern as long as the longest hole.
  std::map<std::vector<unsigned char>, std::vector<unsigned char>> fills_;
};

}  // namespace esmio::aggregate
