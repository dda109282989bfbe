#include <algorithm>

#include "backend/backend.hpp"
#include "decomp/box_partition.hpp"

namespace esmio::backend {
namespace {

// Cuts the box (start, count) into pieces of at most max_bytes and appends them in C order.
void cut(std::vector<int64_t> &start, std::vector<int64_t> &count, int64_t elem_bytes,
         int64_t max_bytes, std::vector<Box> *pieces) {
  const int64_t nelems = decomp::shape_size(count);
  if (nelems * elem_bytes <= max_bytes) {
    pieces->push_back(Box{start, count});
    return;
  }
  // Dimensions before d all have count 1, so slabs along d are contiguous in the buffer.
  std::size_t d = 0;
  while (count[d] == 1) ++d;
  const std::vector<int64_t> inner(count.begin() + static_cast<long>(d) + 1, count.end());
  const int64_t slab_bytes = decomp::shape_size(inner) * elem_bytes;
  const int64_t start_d = start[d];
  const int64_t count_d = count[d];
  if (slab_bytes <= max_bytes) {
    const int64_t step = max_bytes / slab_bytes;
    for (int64_t i = 0; i < count_d; i += step) {
      start[d] = start_d + i;
      count[d] = std::min(step, count_d - i);
      pieces->push_back(Box{start, count});
    }
  } else {
    for (int64_t i = 0; i < count_d; ++i) {
      start[d] = start_d + i;
      count[d] = 1;
      cut(start, count, elem_bytes, max_bytes, pieces);
    }
  }
  start[d] = start_d;
  count[d] = count_d;
}

}  // namespace

MPI_Info make_mpiio_info(const FileOptions &options) {
  if (options.mpiio_hints.empty()) return MPI_INFO_NULL;
  MPI_Info info;
  MPI_Info_create(&info);
  for (const auto &hint : options.mpiio_hints)
    MPI_Info_set(info, hint.first.c_str(), hint.second.c_str());
  return info;
}

void cut_box(const Box &box, int64_t elem_bytes, int64_t max_bytes, std::vector<Box> *pieces) {
  std::vector<int64_t> start = box.start, count = box.count;
  cut(start, count, std::max<int64_t>(elem_bytes, 1), std::max(max_bytes, elem_bytes), pieces);
}

std::vector<Box> record_boxes(const std::vector<int64_t> &shape, bool record_variable,
                              int64_t record, const std::vector<Run> &ranges) {
  std::vector<Box> boxes;
  for (const Run &r : ranges)
    for (decomp::Slab &s : decomp::linear_range_slabs(shape, r.begin, r.begin + r.length)) {
      Box b;
      if (record_variable) {
        b.start.push_back(record);
        b.count.push_back(1);
      }
      b.start.insert(b.start.end(), s.start.begin(), s.start.end());
      b.count.insert(b.count.end(), s.count.begin(), s.count.end());
      boxes.push_back(std::move(b));
    }
  return boxes;
}

}  // namespace esmio::backend
