// The box layout's partition of a variable's record: I/O task i owns one contiguous range of
// linear offsets [begin(i), end(i)), made of whole units. A unit is up to `quantum` rows along
// the last of the slowest dimensions that the partition splits (rows are whole along the
// faster ones), never crossing an index of the dimensions before it: so a unit is one chunk
// of unit_chunk(), and no chunk is shared by two tasks. Each range starts at the unit boundary
// nearest to its balanced share's start, so shares differ by at most two units. Units hold at
// most 1/16 of a task's share of rows (the imbalance bound), at least 64K elements where the
// record has them (HDF5 chunks much smaller than that cost more than they save: small
// variables then go to fewer tasks), and near 1M elements otherwise. Pure index arithmetic.
#pragma once

#include <cstdint>
#include <vector>

namespace esmio::decomp {

class BoxPartition {
 public:
  // dims: the record's shape (C order); ntasks >= 1.
  BoxPartition(const std::vector<int64_t> &dims, int ntasks);

  int ntasks() const { return ntasks_; }
  int64_t size() const { return rows_ * row_length_; }
  int64_t row_length() const { return row_length_; }
  int64_t quantum() const { return quantum_; }  // rows per (full) unit
  int64_t begin(int task) const;
  int64_t end(int task) const { return begin(task + 1); }
  // The task whose range holds offset (0 <= offset < size()): O(log ntasks).
  int owner(int64_t offset) const;
  // The shape of one unit as a chunk of the record: 1 along the split dimensions before the
  // last, quantum along the last, whole along the faster ones, which are then cut (halved,
  // slowest first) until the chunk holds at most max(max_elements, quantum) elements.
  std::vector<int64_t> unit_chunk(int64_t max_elements) const;

  static constexpr int64_t kTargetUnitElements = int64_t(1) << 20;
  static constexpr int64_t kMinUnitElements = int64_t(1) << 16;

 private:
  std::vector<int64_t> dims_;
  std::size_t split_dims_ = 0;  // dims_[0 .. split_dims_) are split into rows
  int64_t rows_ = 0;
  int64_t row_length_ = 1;
  int64_t line_ = 1;  // rows per index of the dimensions before the last split one
  int64_t quantum_ = 1;
  int ntasks_ = 1;
};

// How many I/O tasks one record of shape dims is split over: the largest divisor m of ntasks
// whose partition BoxPartition(dims, m) gives every task at least kMinShare elements, within
// 10 % of the mean share (1 if none does). A record too small for that (a 2-D field of a few
// thousand columns, or one of a few partition units per task) is split over
// fewer tasks, and the ntasks / m groups of m consecutive tasks then take whole records in
// turn (the write cache deals them out by bytes), instead of the first tasks taking every one
// and the others none, or every task a few KiB. m divides ntasks so that the groups tile the
// tasks.
// 32K elements: 128 KiB of float32, twice the smallest request worth a storage call of its own.
constexpr int64_t kMinShare = int64_t(1) << 15;
int record_units(const std::vector<int64_t> &dims, int ntasks);
// Whether BoxPartition(dims, ntasks) gives every task at least kMinShare elements, within 10 %
// of the mean share.
bool splits_evenly(const std::vector<int64_t> &dims, int ntasks);

// A hyperslab of the record: start/count per dimension, elements in C order.
struct Slab {
  std::vector<int64_t> start;
  std::vector<int64_t> count;
};

// The fewest hyperslabs (at most 2*ndims-1) that cover the linear range [begin, end) of an array
// of shape dims, in file order.
std::vector<Slab> linear_range_slabs(const std::vector<int64_t> &dims, int64_t begin, int64_t end);

// Product of dims (1 for a scalar).
int64_t shape_size(const std::vector<int64_t> &dims);

}  // namespace esmio::decomp
