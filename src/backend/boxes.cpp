#include "backend/backend.hpp"
#include "decomp/box_partition.hpp"

namespace esmio::backend {

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
