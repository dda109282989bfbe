// Turning a rank's global offsets into what a direct PnetCDF writer needs: contiguous file runs
// and, for each run, the few hyperslabs (start, count) that cover it exactly.
#pragma once

#include <cstdint>
#include <vector>

namespace esmio_bench {

struct Run {
  int64_t offset;  // global C-order offset of the first element
  int64_t length;  // elements
  int64_t buffer;  // position of the first element in the writer's buffer
};

// Runs of consecutive offsets in the given sequence (negative offsets are skipped and take no
// buffer position): the buffer holds the valid elements in sequence order.
std::vector<Run> runs_in_sequence(const std::vector<int64_t> &offsets);

// Hyperslabs of a C-order array of shape `shape` covering [offset, offset + length) exactly,
// appended to starts/counts (shape.size() values per hyperslab). A run spanning whole rows or
// planes becomes one hyperslab; a ragged run at most 2 * ndims - 1 of them.
void run_to_hyperslabs(const std::vector<int64_t> &shape, int64_t offset, int64_t length,
                       std::vector<int64_t> *starts, std::vector<int64_t> *counts);

}  // namespace esmio_bench
