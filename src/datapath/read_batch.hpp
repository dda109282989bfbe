// Small reads exchanged together. A read of a few KiB per I/O task costs one exchange in which
// every rank waits for the slowest task's disk: a file of hundreds of small variables (E3SM's)
// is read at the pace of those waits, not at the disk's. On a file open read-only, a read too
// small for the read-ahead thread is made together with the reads predicted to follow it
// (datapath/read_ahead.hpp, the same prediction on every rank): each I/O task reads them all,
// one exchange carries them, and each rank keeps its parts of the predicted ones until the
// program asks for them, which then costs no message. The layout of that exchange is pure
// arithmetic over the plans (unit-tested in test_read_batch); read.cpp does the reading and the
// moving.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rearrange/plan_builder.hpp"

namespace esmio::datapath {

// A read is small, and made in a batch, below this many bytes per I/O task of the layout: the
// read-ahead thread's floor (backend/pnetcdf/prefetch.hpp), which counts a task's own share.
// Where a small record is dealt to groups of tasks, a task's share is larger than the layout's
// average and a read can be batched and read ahead both; it is then served once, either way.
constexpr int64_t kBatchBelowPerTask = int64_t(1) << 20;

// The batches kept hold at most this many times one batch's bytes (a few shapes read in turn).
constexpr int64_t kBatchesHeld = 4;

// One read of a batch: through which plan, which group of tasks takes it, its element size.
struct BatchRead {
  int varid = -1;
  int64_t record = 0;
  std::shared_ptr<const rearrange::Plan> plan;
  int dealt = 0;  // (varid + record) % plan->groups, as a single read deals it
  int64_t esize = 0;
};

// The bytes of a batch that come from (or go to) one rank, and where they begin in the buffer.
struct RankSpan {
  int rank;
  int64_t first;
  int64_t bytes;
};

// Where each part of a batch lies on one rank. Incoming is ordered by source rank, then by read;
// outgoing (an I/O task's) by destination rank, then by read: one message per rank pair. A
// rank's part of its own reads is placed straight into incoming. Only the ranks a read's plan
// names appear: the layout grows with the peers, not with the group.
struct BatchLayout {
  // Per read, per send peer k of its plan: the byte offset of that peer's part in incoming.
  std::vector<std::vector<int64_t>> from_at;
  // Per read, per receive peer of its plan (recv_in(dealt).peers, in order): the byte offset of
  // that peer's part in outgoing, or in incoming for this rank itself (self_peer).
  std::vector<std::vector<int64_t>> to_at;
  std::vector<int> self_peer;  // per read: which receive peer is this rank (-1: none)
  // By rank, ascending: what arrives from each rank (this rank's own part too, which arrives
  // without a message) and what goes to each other rank.
  std::vector<RankSpan> incoming, outgoing;
  int64_t incoming_bytes = 0, outgoing_bytes = 0;
  // False where a read's plan sends this rank's elements to itself but does not receive them
  // from itself, or the other way round (a broken plan: its own part would be left unset).
  bool consistent = true;
};

// The span of `rank` in spans (sorted by rank), or null.
const RankSpan *span_of(const std::vector<RankSpan> &spans, int rank);

// The layout of `reads` on rank `me`.
BatchLayout lay_out_batch(const std::vector<BatchRead> &reads, int me);

// The parts of predicted reads that this rank keeps until they are asked for, batch by batch.
// Several batches live at once: a program that reads variables of two shapes in turn, before
// the order is learned (the guess follows one shape), makes a batch of each. The oldest are
// let go while the batches' global bytes pass a bound, the same on every rank.
class ReadBatch {
 public:
  struct Kept {
    int varid;
    int64_t record;
    std::weak_ptr<const rearrange::Plan> plan;
    std::vector<int64_t> from_at;  // per send peer k, its part in its batch's buffer
  };
  // Takes the kept read of (varid, record) through `plan` out of its batch; *incoming: the
  // buffer its parts lie in, valid until the next call of take or open. False: none.
  bool take(int varid, int64_t record, const rearrange::Plan *plan, Kept *out,
            const unsigned char **incoming);
  // Whether (varid, record) through `plan` is kept.
  bool holds(int varid, int64_t record, const rearrange::Plan *plan) const;
  // The buffer of a new batch of `global_bytes` (the global bytes of its reads), for its kept
  // reads to follow (keep); older batches are let go first, the oldest first, while all of them
  // would hold more than `most_global_bytes`.
  std::vector<unsigned char> &open(int64_t global_bytes, int64_t most_global_bytes);
  void keep(Kept kept) { batches_.back().kept.push_back(std::move(kept)); }
  // Lets go of every batch (a call failed on some rank after some ranks took their read: what
  // the ranks keep must stay the same everywhere).
  void clear() { batches_.clear(); }
  std::size_t batches() const { return batches_.size(); }
  // The reads kept, (varid, record) in order, as one digest (0: none), and how many: the same on
  // every rank whose calls were the same, whether or not its decompositions are freed yet.
  uint64_t digest() const;
  int64_t kept() const;

 private:
  struct Batch {
    std::vector<unsigned char> incoming;
    std::vector<Kept> kept;
    int64_t global_bytes = 0;
  };
  // Lets go of batches with nothing kept; one buffer is kept for the next batch.
  void drop_empty();
  static bool matches(const Kept &kept, int varid, int64_t record, const rearrange::Plan *plan);

  std::vector<Batch> batches_;  // oldest first
  std::vector<unsigned char> spare_;
};

}  // namespace esmio::datapath
