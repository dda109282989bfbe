#include "datapath/read_ahead.hpp"

#include <algorithm>

namespace esmio::datapath {

bool ReadAhead::predict(const Read &from, const SameShapeAfter &same_shape_after,
                        Read *next) const {
  const auto learned = successor_.find(from.varid);
  if (learned != successor_.end()) {
    *next = Read{learned->second.varid, from.record + learned->second.record_step,
                 learned->second.plan};
    return next->record >= 0;
  }
  const int varid = same_shape_after ? same_shape_after(from.varid) : -1;
  if (varid < 0) return false;
  *next = Read{varid, from.record, from.plan};
  return true;
}

std::vector<ReadAhead::Read> ReadAhead::after(const Read &read, int64_t budget,
                                              const BytesOf &bytes_of,
                                              const SameShapeAfter &same_shape_after) {
  // Learn: what came after the previous read (the latest order wins, so that a program that
  // changes its order is followed).
  if (have_last_)
    successor_[last_.varid] = Successor{read.varid, read.record - last_.record, read.plan};
  last_ = read;
  have_last_ = true;

  std::vector<Key> &chain = chain_;  // reused: this runs once per read
  std::vector<Key> &window = next_window_;
  chain.clear();
  window.clear();
  std::vector<Read> asked;
  int64_t ahead = 0;
  Read at = read;
  for (int step = 0; step < kMostReadsAhead && ahead < budget; ++step) {
    Read next;
    if (!predict(at, same_shape_after, &next)) break;
    const Key key{next.varid, next.record};
    // Back at a read already in this chain (or the current one): the order is a cycle.
    if ((key.varid == read.varid && key.record == read.record) ||
        std::find(chain.begin(), chain.end(), key) != chain.end())
      break;
    const std::shared_ptr<const rearrange::Plan> plan = next.plan.lock();
    if (!plan) break;
    chain.push_back(key);
    const int64_t bytes = bytes_of(next.varid, next.record, *plan);
    if (bytes > 0) {
      ahead += bytes;
      window.push_back(key);
      if (std::find(window_.begin(), window_.end(), key) == window_.end()) asked.push_back(next);
    }
    at = next;
  }
  dropped_.clear();
  for (const Key &key : window_)
    if (!(key.varid == read.varid && key.record == read.record) &&
        std::find(window.begin(), window.end(), key) == window.end())
      dropped_.push_back(Read{key.varid, key.record, {}});
  window_.swap(window);
  return asked;
}

}  // namespace esmio::datapath
