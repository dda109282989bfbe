// Decompositions as pure values. A rank's part of a map is kept as runs: memory positions
// memory..memory+length-1 hold the file offsets offset..offset+length-1. A block decomposition
// is a few runs per row instead of one offset per element, and everything downstream (range
// checks, plans, the offsets sent once to the I/O tasks) costs O(runs), not O(elements).
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.hpp"

namespace esmio::decomp {

struct MapRun {
  int64_t memory;
  int64_t offset;
  int64_t length;
};

struct LocalMap {
  int64_t nlocal = 0;        // memory slots, holes included
  std::vector<MapRun> runs;  // ascending memory positions; slots not covered are holes
  int64_t count() const;     // elements written (holes excluded)
};

// From per-element offsets (memory order, -1 = hole).
LocalMap compress_offsets(const int64_t *offsets, int64_t n);
// Back to per-element offsets (n = map.nlocal), holes as -1.
void expand_offsets(const LocalMap &map, int64_t *offsets);

// The block start[d] .. start[d]+count[d] of the file shape dims, listed in memory order:
// memory is C order over the dimensions mem_order[0], mem_order[1], ... (file dimension
// numbers, slowest first). An empty mem_order means file order.
Status block_map(const std::vector<int64_t> &dims, const std::vector<int64_t> &start,
                 const std::vector<int64_t> &count, const std::vector<int> &mem_order,
                 LocalMap *map);

// Every offset is -1 (a hole) or within [0, size); holes as -1 only. rank names the rank.
Status check_offsets_in_range(const int64_t *offsets, int64_t n, int64_t size, int rank);

}  // namespace esmio::decomp
