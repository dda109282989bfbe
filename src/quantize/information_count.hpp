// Information quantisation over slabs held by different I/O tasks, the counting half (pure): which
// writes of a flush are counted, the pairs each task counts on what it holds, the value each
// task passes to the previous one (a box-layout partition may cut inside a row, so the right
// neighbour of a task's last value is the next task's first), and the keepbits chosen from the
// counts summed over every task. information_collective does the communication in between.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.hpp"
#include "esmio.h"
#include "quantize/bit_information.hpp"
#include "quantize/information.hpp"

namespace esmio::quantize {

// The variables of a flush's writes whose keepbits are not yet known, in write order, and for
// each the writes to count: those of its first record only. How many records the cache holds at
// its first flush depends on its size and on the number of I/O tasks, and keepbits must not (a
// file's precision is the same whatever the layout); later records are rounded with the same
// keepbits.
struct FreshVariables {
  std::vector<Information *> variables;
  std::vector<std::vector<std::size_t>> counted;  // indices of writes, ascending
};
// information[i], record[i]: write i's quantisation (null: none) and record.
FreshVariables fresh_variables(const std::vector<Information *> &information,
                               const std::vector<int64_t> &record);

// A stretch of record offsets [offset, offset + length) whose values lie in a slab from
// `position` on.
struct HeldStretch {
  int64_t offset;
  int64_t position;
  int64_t length;
};

// What one I/O task holds of one counted write.
struct HeldSlab {
  esmio_type type = ESMIO_FLOAT;
  const unsigned char *values = nullptr;  // null: this rank holds none of it
  std::vector<HeldStretch> stretches;     // where the values lie in the record, ascending
  // The task's range of the record: its first offset and one past its last (has_range false:
  // the task has none).
  bool has_range = false;
  int64_t range_begin = 0;
  int64_t range_end = 0;
  int64_t row = 1;             // the length of the record's fastest dimension
  const void *fill = nullptr;  // one value of type, or null: values equal to it are not counted
};

// A task's first value, when it holds the first offset of its range: the right neighbour of
// the previous task's last one. Two 64-bit words, so that an array of them travels as
// MPI_UINT64_T.
struct Halo {
  uint64_t held = 0;  // 1: bits holds the value
  uint64_t bits = 0;  // the value's bytes, from the first
};
Halo leading_value(const HeldSlab &slab);

// Adds the neighbour pairs of slab to *counts; next: the next task's leading_value of the same
// write. Every stretch is counted; the first error is returned.
Status count_held_pairs(const HeldSlab &slab, const Halo &next, BitPairCounts *counts);

// Sets info's keepbits (and how they were chosen) from the pair counts of its variable summed
// over every task.
void settle_keepbits(esmio_type type, const BitPairCounts &total, Information *info);

}  // namespace esmio::quantize
