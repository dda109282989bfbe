// Where a classic (CDF-1/2/5) variable's elements lie in the file, and the stretches of the
// file a box of them covers: pure index arithmetic, no I/O (unit-tested in test_var_layout).
#pragma once

#include <cstdint>
#include <vector>

#include "common/types.hpp"

namespace esmio::backend::pnetcdf {

// Element i (C-order index within a record) of record r starts at
// begin + r * record_size + i * esize.
struct VarLayout {
  int64_t begin = 0, record_size = 0, esize = 0;
  esmio_type type = ESMIO_FLOAT;
  bool record = false;
  std::vector<int64_t> len;  // dimension lengths (the record dimension's is not used)
  // The index within a record of the box's first element (last: its last element).
  template <typename T>
  int64_t linear(const T *start, const T *count, bool last) const {
    int64_t i = 0;
    for (std::size_t d = record ? 1 : 0; d < len.size(); ++d)
      i = i * len[d] + start[d] + (last ? count[d] - 1 : 0);
    return i;
  }
  int64_t offset(int64_t record_index, int64_t linear_index) const {
    return begin + record_index * record_size + linear_index * esize;
  }
};

// A stretch of the file and the bytes that go there, in memory (native byte order).
struct Run {
  int64_t offset = 0;  // in the file
  const char *data = nullptr;
  int64_t bytes = 0;
  int esize = 1;  // the element size, for the byte swap to big-endian
};

// Appends to *runs the stretches of the file that a box of the variable covers, each as long
// as the file allows: the box's trailing dimensions that span their whole length join one run.
// data holds the box's elements in C order (record dimension first). Empty boxes add nothing.
void box_runs(const VarLayout &layout, const int64_t *start, const int64_t *count, const char *data,
              std::vector<Run> *runs);

}  // namespace esmio::backend::pnetcdf
