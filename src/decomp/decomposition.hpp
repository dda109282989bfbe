// Decompositions as pure values: per-rank global offsets, and the block constructor whose memory
// index order differs from the file's. Checks that need no other rank happen here.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.hpp"

namespace esmio::decomp {

// Offsets of the block start[d] .. start[d]+count[d] of the file shape dims, listed in memory
// order: memory is C order over the dimensions mem_order[0], mem_order[1], ... (file dimension
// numbers, slowest first). An empty mem_order means file order.
Status block_offsets(const std::vector<int64_t> &dims, const std::vector<int64_t> &start,
                     const std::vector<int64_t> &count, const std::vector<int> &mem_order,
                     std::vector<int64_t> *offsets);

// Every offset is -1 (a hole) or within [0, size). rank names the rank in the message.
Status check_offsets_in_range(const std::vector<int64_t> &offsets, int64_t size, int rank);

}  // namespace esmio::decomp
