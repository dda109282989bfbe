// A set of record indices kept as disjoint intervals: which records of a variable have had
// their holes filled. Memory grows with the number of gaps, not with the largest index (a
// write to record 2^33 costs one interval, not a gigabyte of flags). Pure; unit-tested.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

namespace esmio {

class RecordSet {
 public:
  bool contains(int64_t r) const {
    auto it = runs_.upper_bound(r);
    if (it == runs_.begin()) return false;
    --it;
    return r < it->second;
  }

  // Adds r; false if it was there already.
  bool insert(int64_t r) {
    if (contains(r)) return false;
    auto next = runs_.upper_bound(r);
    int64_t begin = r, end = r + 1;
    if (next != runs_.begin()) {
      auto prev = std::prev(next);
      if (prev->second == r) {
        begin = prev->first;
        runs_.erase(prev);
      }
    }
    if (next != runs_.end() && next->first == end) {
      end = next->second;
      runs_.erase(next);
    }
    runs_[begin] = end;
    return true;
  }

  // Removes r (if present).
  void erase(int64_t r) {
    auto it = runs_.upper_bound(r);
    if (it == runs_.begin()) return;
    --it;
    const int64_t begin = it->first, end = it->second;
    if (r >= end) return;
    runs_.erase(it);
    if (begin < r) runs_[begin] = r;
    if (r + 1 < end) runs_[r + 1] = end;
  }

  // The intervals [first, second) of [from, to) that are not in the set, in order.
  std::vector<std::pair<int64_t, int64_t>> gaps(int64_t from, int64_t to) const {
    std::vector<std::pair<int64_t, int64_t>> out;
    int64_t at = from;
    auto it = runs_.upper_bound(from);
    if (it != runs_.begin()) --it;
    for (; it != runs_.end() && at < to; ++it) {
      if (it->second <= at) continue;
      if (it->first > at) out.emplace_back(at, std::min(it->first, to));
      at = std::max(at, it->second);
    }
    if (at < to) out.emplace_back(at, to);
    return out;
  }

  std::size_t intervals() const { return runs_.size(); }

 private:
  std::map<int64_t, int64_t> runs_;  // begin -> end (exclusive), disjoint, not adjacent
};

}  // namespace esmio
