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

void ReadAhead::learn(const Read &read) {
  if (have_last_)
    successor_[last_.varid] = Successor{read.varid, read.record - last_.record, read.plan};
  last_ = read;
  have_last_ = true;
}

std::vector<ReadAhead::Read> ReadAhead::chain(const Read &read,
                                              const SameShapeAfter &same_shape_after,
                                              const Take &take) {
  std::vector<Key> &seen = chain_;  // reused: this runs once per read
  seen.clear();
  std::vector<Read> out;
  Read at = read;
  while (static_cast<int>(out.size()) < kMostReadsAhead) {
    Read next;
    if (!predict(at, same_shape_after, &next)) break;
    const Key key{next.varid, next.record};
    // Back at a read already in this chain (or the current one): the order is a cycle.
    if ((key.varid == read.varid && key.record == read.record) ||
        std::find(seen.begin(), seen.end(), key) != seen.end())
      break;
    const std::shared_ptr<const rearrange::Plan> plan = next.plan.lock();
    if (!plan || !take(next, *plan)) break;
    seen.push_back(key);
    out.push_back(next);
    at = next;
  }
  return out;
}

std::vector<ReadAhead::Read> ReadAhead::after(const Read &read, int64_t budget,
                                              const BytesOf &bytes_of,
                                              const SameShapeAfter &same_shape_after) {
  std::vector<Key> &window = next_window_;
  window.clear();
  std::vector<Read> asked;
  int64_t ahead = 0;
  // Reads with no bytes here (records another group of tasks takes) are followed, not asked for.
  chain(read, same_shape_after, [&](const Read &next, const rearrange::Plan &plan) {
    if (ahead >= budget) return false;
    const int64_t bytes = bytes_of(next.varid, next.record, plan);
    if (bytes > 0) {
      const Key key{next.varid, next.record};
      ahead += bytes;
      window.push_back(key);
      if (std::find(window_.begin(), window_.end(), key) == window_.end()) asked.push_back(next);
    }
    return true;
  });
  dropped_.clear();
  for (const Key &key : window_)
    if (!(key.varid == read.varid && key.record == read.record) &&
        std::find(window.begin(), window.end(), key) == window.end())
      dropped_.push_back(Read{key.varid, key.record, {}});
  window_.swap(window);
  return asked;
}

}  // namespace esmio::datapath
