// A run of consecutive element positions: the unit in which plans describe what moves where,
// so that block decompositions move whole rows with one copy instead of element by element.
#pragma once

#include <cstdint>
#include <vector>

namespace esmio {

struct Run {
  int64_t begin;
  int64_t length;
};

inline bool operator==(const Run &a, const Run &b) {
  return a.begin == b.begin && a.length == b.length;
}

// Appends position to runs, extending the last run when position follows it.
inline void append_position(std::vector<Run> *runs, int64_t position) {
  if (!runs->empty() && runs->back().begin + runs->back().length == position)
    ++runs->back().length;
  else
    runs->push_back(Run{position, 1});
}

// Appends run to runs, merging it with the last run when they touch.
inline void append_run(std::vector<Run> *runs, Run run) {
  if (run.length <= 0) return;
  if (!runs->empty() && runs->back().begin + runs->back().length == run.begin)
    runs->back().length += run.length;
  else
    runs->push_back(run);
}

}  // namespace esmio
