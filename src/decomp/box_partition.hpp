// The box layout's partition of a variable's record: I/O task i owns one contiguous range of
// linear offsets [begin(i), end(i)), made of whole rows along the slowest dimensions, balanced
// so that every task gets a share (sizes differ by at most one row). Pure index arithmetic.
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
  int64_t begin(int task) const;
  int64_t end(int task) const { return begin(task + 1); }
  // The task whose range holds offset (0 <= offset < size()).
  int owner(int64_t offset) const;

 private:
  int64_t rows_ = 0;
  int64_t row_length_ = 1;
  int ntasks_ = 1;
};

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
