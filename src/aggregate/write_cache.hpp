// The per-file write cache. Each write_darray is converted on the compute rank into one
// outgoing buffer per destination I/O task and remembered; a flush moves everything pending in
// one exchange (one message per pair of ranks, however many calls were cached), places it in
// the I/O tasks' buffers and hands all of it to the backend at once (PnetCDF: nonblocking posts
// and one collective wait, which merges the requests into few large file accesses).
//
// Every rank makes the same decisions without communicating: the bound on the bytes a rank
// holds grows by each plan's max_rank_elements (for a record a group of tasks takes whole: its
// share of it, rearrange::Plan::held), which is the same everywhere.
//
// Guarantee: a flush that fails keeps everything pending (a later sync or close retries it);
// data is in the file once a sync or close has returned success.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "aggregate/cache_bound.hpp"
#include "aggregate/record_dealing.hpp"
#include "backend/backend.hpp"
#include "common/status.hpp"
#include "quantize/information_count.hpp"
#include "rearrange/exchange.hpp"
#include "rearrange/plan_builder.hpp"
#include "trace/counters.hpp"

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

class WriteCache {
 public:
  bool empty() const { return pending_.empty(); }
  int64_t pending_writes() const { return static_cast<int64_t>(pending_.size()); }
  const std::vector<CachedWrite> &pending() const { return pending_; }
  // One past the highest record of a record variable that a pending write holds (0 if none).
  int64_t pending_records_end() const {
    int64_t end = 0;
    for (const CachedWrite &w : pending_)
      if (w.record_variable) end = std::max(end, w.record + 1);
    return end;
  }
  // The most bytes any rank holds for the pending writes.
  int64_t bound() const { return bound_.bytes(); }
  // The bound once a write through plan at esize bytes per element is added.
  int64_t bound_with(const rearrange::Plan &plan, int64_t esize, bool fill_holes) const;

  // Converts the caller's values (memtype, memory order) into the outgoing buffers and keeps
  // the write. Returns the number of values out of range of the file type.
  int64_t add(CachedWrite write, esmio_type memtype, const void *values);
  // Takes back the write add() just kept (the call failed on another rank).
  void drop_last();
  // Flushes merge adjacent file stretches of one variable record into one request (copying
  // them together), for backends that make one collective call per request. The same on
  // every rank.
  void set_merge(bool merge) {
    merge_ = merge;
    bound_.set_merge(merge);
  }
  // A write that fills its record's holes, alone in its record in a flush, is placed in its
  // I/O task's whole buffer, holes filled, and handed over as the buffer's few file stretches
  // (instead of one stretch per data run and per hole: a land-only map has hundreds of
  // thousands), for a backend that writes stretches itself (takes_extents). The same on
  // every rank.
  void set_dense(bool dense) {
    dense_ = dense;
    bound_.set_dense(dense);
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
  void clear();

  // Before a flush that makes room for a write of (varid, record): the pending writes at the
  // tail of the list that belong to that same variable record stay out of the flush, when
  // they are not all that is pending and hold at most `limit` bytes on any rank. A model that
  // writes a record in many small pieces (a multi-tasked model's slices, in any order) would
  // otherwise see the pieces it has written so far reach the file as scattered small requests
  // (and the hole fill write the gaps between them, which the rest of the record then
  // overwrites); held back, the record is flushed whole later. Returns whether any were held.
  // Every rank decides alike (the pending list is the same everywhere).
  bool hold_back_record(int varid, int64_t record, int64_t limit);
  // Puts the writes held back at the tail of the pending list again, byte for byte as they
  // were: after the flush and clear(), or after a flush that failed (then the list is as it
  // was before hold_back_record).
  void restore_held();

 private:
  // The bound of the pending writes, from scratch.
  void recompute_bound();
  // Deals the pending records that a group of tasks takes whole to groups (record_dealing),
  // setting each write's group.
  void deal_groups(int ntasks);
  // What this rank receives of pending write i.
  const decomp::RecvPlan &recv_of(std::size_t i) const {
    return pending_[i].plan->recv_in(pending_[i].group);
  }

  // One stretch for the backend: file offsets of write `write`'s record, values in memory.
  struct Piece {
    std::size_t write;
    int64_t offset;
    int64_t length;
    const unsigned char *values;
  };
  std::vector<backend::Backend::PutRequest> requests_of(std::vector<Piece> &pieces);
  // For a backend that takes stretches (takes_extents): one request per pending write.
  std::vector<backend::Backend::ExtentRequest> extent_requests_of(
      const std::vector<Piece> &pieces) const;
  // Information quantisation of the placed data (slab_of[i]: write i's packed values):
  // keepbits of each variable seen for the first time from neighbour-pair counts summed over
  // every task, then BitRound in place. Collective over comm.
  Status quantize_information(MPI_Comm comm, const std::vector<unsigned char *> &slab_of,
                              bool holds_file);
  // What this rank holds of pending write i, as the information count reads it.
  quantize::HeldSlab held_slab(std::size_t i, const std::vector<unsigned char *> &slab_of,
                               bool holds_file) const;

  // The stretches of w's holes that no other pending write of its record holds data for.
  std::vector<decomp::Extent> holes_left(const CachedWrite &w,
                                         const std::vector<decomp::Extent> &holes) const;

  std::vector<CachedWrite> pending_;
  std::map<int, std::vector<unsigned char>> outgoing_;  // destination rank -> packed values
  // hold_back_record's writes and their packed values (the tails of outgoing_).
  std::vector<CachedWrite> held_;
  std::map<int, std::vector<unsigned char>> held_outgoing_;
  // The packed values of writes dealt at the flush (CachedWrite::floating_at), and those of
  // the writes held back.
  std::vector<unsigned char> floating_, held_floating_;
  // Which group takes each record that a group of tasks takes whole, flush after flush.
  RecordDealer dealer_;
  int64_t floating_before_last_ = 0;
  CacheBound bound_;
  // What drop_last() restores: the bound and the outgoing sizes before the last add().
  CacheBound bound_before_last_;
  std::vector<std::pair<int, std::size_t>> sizes_before_last_;
  std::vector<unsigned char> incoming_, slabs_, merged_;  // reused from flush to flush
  bool merge_ = false;
  bool dense_ = false;
  std::vector<int> io_ranks_;
  int my_task_ = -1;
  // Fill values for the holes, one stretch per fill pattern as long as the longest hole.
  std::map<std::vector<unsigned char>, std::vector<unsigned char>> fills_;
};

}  // namespace esmio::aggregate
