// The write cache's bound: the most bytes any rank holds for the pending writes, known alike on
// every rank without communicating (each plan's figures are maxima over the ranks), and the
// rule for a write that goes out at once. Pure: esmio-bench's planner runs the same rules at
// production scale without MPI.
#pragma once

#include <cstdint>

#include "rearrange/plan_builder.hpp"

namespace esmio::aggregate {

class CacheBound {
 public:
  // Flushes that merge adjacent stretches hold one more copy of what a task received; dense
  // slabs hold a task's whole buffer (WriteCache::set_merge, set_dense).
  void set_merge(bool merge) { merge_ = merge; }
  void set_dense(bool dense) { dense_ = dense; }

  int64_t bytes() const { return bytes_; }
  // The bound once a write through plan (esize bytes per value) is added.
  int64_t with(const rearrange::Plan &plan, int64_t esize, bool fill_holes) const;
  void add(const rearrange::Plan &plan, int64_t esize, bool fill_holes);
  void clear() {
    bytes_ = 0;
    dealt_reserve_ = 0;
  }

 private:
  // The values a write through plan holds on the rank that holds most: its data (sent,
  // received, placed; or its dense slab), and the stretch of fill values its holes need, which
  // the task that takes it holds whole.
  struct Parts {
    rearrange::Plan::Held data;
    int64_t fill;
  };
  Parts parts(const rearrange::Plan &plan, bool fill_holes) const;

  bool merge_ = false;
  bool dense_ = false;
  int64_t bytes_ = 0;
  // Part of bytes_: room for the largest pending dealt record on one task beyond its share
  // (rearrange::Plan::held): the dealing's rounding. (What a record's hole fill counts is a
  // stretch of fill values the cache keeps once per fill value, so this errs high already.)
  int64_t dealt_reserve_ = 0;
};

// A write that goes out at once, with what is pending: some rank would hold at least `direct`
// bytes of it, and every I/O task has a share of it (waiting buys nothing). A record that a
// group of tasks takes whole never does: alone in a flush it would keep the other groups idle,
// so it waits (within the cache's size) to be dealt out with others, each group writing its
// own.
bool goes_out_at_once(const rearrange::Plan &plan, int64_t esize, int64_t direct);

}  // namespace esmio::aggregate
