// Which reads of a file come next, so that an I/O task can ask the disk for them while it is
// still exchanging the current one: a cold read then keeps the disk busy through the
// rearrangement instead of leaving it idle between variables. Pure bookkeeping, no I/O
// (unit-tested in test_read_ahead); read.cpp turns its answers into backend hints.
//
// The order is learned: each variable's successor is the read that followed it last time (the
// next variable of the same record, or the same variable's next record for a time series).
// Before that is known (the first record of a file), the guess is the next variable in
// definition order that the same decomposition fits.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "rearrange/plan_builder.hpp"

namespace esmio::datapath {

class ReadAhead {
 public:
  // Reads followed at most this far ahead, whatever their size (a chain of empty reads, such as
  // records that another group of tasks takes, ends here).
  static constexpr int kMostReadsAhead = 32;

  struct Read {
    int varid = -1;
    int64_t record = 0;
    // Weak: a decomposition freed by its owner ends the predictions through it, and the file
    // keeps no plan alive.
    std::weak_ptr<const rearrange::Plan> plan;
  };
  // This rank's bytes of a read (0: none here, or a record past the file's end).
  using BytesOf = std::function<int64_t(int varid, int64_t record, const rearrange::Plan &plan)>;
  // The guess for a variable with no learned successor: a later variable of the same shape
  // (the plan fits it), or -1.
  using SameShapeAfter = std::function<int(int varid)>;

  // Notes that `read` is being made: what came after the previous read is learned (the latest
  // order wins, so that a program that changes its order is followed). Every rank calls it for
  // every read, so that the predictions are the same on every rank.
  void learn(const Read &read);
  // The reads predicted to follow `read` (learned before) that were not returned before: the
  // chain of predictions from `read` on, until it holds at least `budget` bytes of this rank's
  // (at least one read), and the ones not yet asked for. A prediction that did not come true
  // drops out of the window at the next call.
  std::vector<Read> after(const Read &read, int64_t budget, const BytesOf &bytes_of,
                          const SameShapeAfter &same_shape_after);
  // The chain of predictions from `read` on (not including it), as long as `take` accepts each
  // and at most kMostReadsAhead, ending at a read already in it (a cycle), at one with no
  // prediction or at a freed decomposition. Depends only on the reads learned: the same on every
  // rank. Keeps no window.
  using Take = std::function<bool(const Read &next, const rearrange::Plan &plan)>;
  std::vector<Read> chain(const Read &read, const SameShapeAfter &same_shape_after,
                          const Take &take);
  // The reads asked for before the last after() that it dropped from the window (predictions
  // that did not come true), for the caller to take back; their plans are not kept.
  const std::vector<Read> &dropped() const { return dropped_; }

 private:
  struct Successor {
    int varid;
    int64_t record_step;  // the successor's record minus its predecessor's
    std::weak_ptr<const rearrange::Plan> plan;
  };
  struct Key {
    int varid;
    int64_t record;
    bool operator==(const Key &o) const { return varid == o.varid && record == o.record; }
  };
  bool predict(const Read &from, const SameShapeAfter &same_shape_after, Read *next) const;

  std::unordered_map<int, Successor> successor_;
  Read last_;
  bool have_last_ = false;
  std::vector<Key> window_;  // the reads asked for ahead and not yet made
  std::vector<Read> dropped_;
  // The walk's scratch: the predictions followed (for the end of a cycle) and the next window.
  std::vector<Key> chain_, next_window_;
};

}  // namespace esmio::datapath
