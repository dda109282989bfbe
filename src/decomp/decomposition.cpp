#include "decomp/decomposition.hpp"

#include <string>

#include "decomp/box_partition.hpp"

namespace esmio::decomp {

int64_t LocalMap::count() const {
  int64_t n = 0;
  for (const MapRun &r : runs) n += r.length;
  return n;
}

LocalMap compress_offsets(const int64_t *offsets, int64_t n) {
  LocalMap map;
  map.nlocal = n;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t o = offsets[i];
    if (o < 0) continue;
    if (!map.runs.empty()) {
      MapRun &last = map.runs.back();
      if (last.memory + last.length == i && last.offset + last.length == o) {
        ++last.length;
        continue;
      }
    }
    map.runs.push_back(MapRun{i, o, 1});
  }
  return map;
}

void expand_offsets(const LocalMap &map, int64_t *offsets) {
  for (int64_t i = 0; i < map.nlocal; ++i) offsets[i] = -1;
  for (const MapRun &r : map.runs)
    for (int64_t k = 0; k < r.length; ++k) offsets[r.memory + k] = r.offset + k;
}

Status block_map(const std::vector<int64_t> &dims, const std::vector<int64_t> &start,
                 const std::vector<int64_t> &count, const std::vector<int> &mem_order,
                 LocalMap *map) {
  const std::size_t n = dims.size();
  if (start.size() != n || count.size() != n)
    return Status(ESMIO_EINVAL,
                  "block decomposition: start and count need one entry per dimension");
  std::vector<int> order = mem_order;
  if (order.empty())
    for (std::size_t i = 0; i < n; ++i) order.push_back(static_cast<int>(i));
  if (order.size() != n)
    return Status(ESMIO_EINVAL, "block decomposition: mem_order needs one entry per dimension");
  std::vector<bool> seen(n, false);
  for (int d : order) {
    if (d < 0 || static_cast<std::size_t>(d) >= n || seen[d])
      return Status(ESMIO_EINVAL,
                    "block decomposition: mem_order is not a permutation of the dimensions");
    seen[d] = true;
  }
  for (std::size_t d = 0; d < n; ++d)
    if (dims[d] < 0 || start[d] < 0 || count[d] < 0 || start[d] > dims[d] - count[d])
      return Status(ESMIO_EDECOMP, "block decomposition: dimension " + std::to_string(d) +
                                       ": block " + std::to_string(start[d]) + "+" +
                                       std::to_string(count[d]) + " exceeds its length " +
                                       std::to_string(dims[d]));
  std::vector<int64_t> file_stride(n);
  int64_t s = 1;
  for (std::size_t d = n; d-- > 0;) {
    file_stride[d] = s;
    s *= dims[d];
  }
  *map = LocalMap{};
  map->nlocal = shape_size(count);
  if (map->nlocal == 0) return Status::ok();
  if (n == 0) {
    map->runs.push_back(MapRun{0, 0, 1});
    return Status::ok();
  }
  // Odometer over the memory dimensions but the fastest; each step is one row of the fastest
  // memory dimension: one run when it is also the file's fastest, else single elements.
  std::vector<int64_t> index(n, 0);
  int64_t base = 0;
  for (std::size_t d = 0; d < n; ++d) base += start[d] * file_stride[d];
  const int fast = order[n - 1];
  const int64_t fast_count = count[fast], fast_stride = file_stride[fast];
  int64_t memory = 0;
  while (true) {
    int64_t row = base;
    for (std::size_t i = 0; i + 1 < n; ++i) row += index[i] * file_stride[order[i]];
    if (fast_stride == 1) {
      map->runs.push_back(MapRun{memory, row, fast_count});
    } else {
      for (int64_t j = 0; j < fast_count; ++j)
        map->runs.push_back(MapRun{memory + j, row + j * fast_stride, 1});
    }
    memory += fast_count;
    std::size_t i = n - 1;
    while (i-- > 0) {
      if (++index[i] < count[order[i]]) break;
      index[i] = 0;
    }
    if (i == static_cast<std::size_t>(-1)) break;
  }
  return Status::ok();
}

Status check_offsets_in_range(const int64_t *offsets, int64_t n, int64_t size, int rank) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t o = offsets[i];
    if (o < -1 || o >= size)
      return Status(ESMIO_EDECOMP, "decomposition: rank " + std::to_string(rank) + " element " +
                                       std::to_string(i) + " has offset " + std::to_string(o) +
                                       ", outside 0.." + std::to_string(size - 1) +
                                       " (or -1 for a hole)");
  }
  return Status::ok();
}

}  // namespace esmio::decomp
