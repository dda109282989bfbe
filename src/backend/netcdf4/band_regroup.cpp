#include "backend/netcdf4/band_regroup.hpp"

#include <algorithm>
#include <cstring>

namespace esmio::backend::netcdf4 {

int64_t BandBox::elements() const {
  int64_t n = 1;
  for (int64_t c : count) n *= c;
  return n;
}

BandBox BandPlan::band(const std::vector<int64_t> &shape, std::size_t record_dims, int64_t record,
                       int task) const {
  BandBox b;
  b.start.assign(shape.size(), 0);
  b.count = shape;
  if (record_dims == 1) {
    b.start[0] = record;
    b.count[0] = 1;
  }
  b.start[dim] = bounds[static_cast<std::size_t>(task)];
  b.count[dim] = bounds[static_cast<std::size_t>(task) + 1] - b.start[dim];
  return b;
}

bool plan_bands(const std::vector<int64_t> &shape, const std::vector<int64_t> &chunks,
                std::size_t record_dims, int ntasks, BandPlan *out) {
  if (ntasks < 1 || shape.size() != chunks.size() || shape.size() <= record_dims) return false;
  std::size_t best = shape.size();
  int64_t best_chunks = 1;
  for (std::size_t d = record_dims; d < shape.size(); ++d) {
    if (chunks[d] < 1 || shape[d] < 1) return false;
    const int64_t n = (shape[d] + chunks[d] - 1) / chunks[d];
    if (n >= ntasks) {
      best = d;
      best_chunks = n;
      break;
    }
    if (n > best_chunks) {
      best = d;
      best_chunks = n;
    }
  }
  if (best == shape.size()) return false;
  out->dim = best;
  out->bounds.assign(static_cast<std::size_t>(ntasks) + 1, 0);
  for (int t = 0; t <= ntasks; ++t) {
    // Chunk boundaries dealt out evenly: task t takes chunks [t*n/ntasks, (t+1)*n/ntasks).
    const int64_t chunk = static_cast<int64_t>(t) * best_chunks / ntasks;
    out->bounds[static_cast<std::size_t>(t)] = std::min(shape[best], chunk * chunks[best]);
  }
  return true;
}

bool intersect(const BandBox &a, const BandBox &b, BandBox *out) {
  const std::size_t nd = a.start.size();
  out->start.resize(nd);
  out->count.resize(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    const int64_t lo = std::max(a.start[d], b.start[d]);
    const int64_t hi = std::min(a.start[d] + a.count[d], b.start[d] + b.count[d]);
    if (hi <= lo) return false;
    out->start[d] = lo;
    out->count[d] = hi - lo;
  }
  return true;
}

void copy_region(const unsigned char *src, const BandBox &src_box, unsigned char *dst,
                 const BandBox &dst_box, const BandBox &region, std::size_t esize) {
  const std::size_t nd = region.start.size();
  if (nd == 0) {
    std::memcpy(dst, src, esize);
    return;
  }
  // Strides (elements) of both layouts, then one memcpy per row of the last dimension.
  std::vector<int64_t> src_stride(nd, 1), dst_stride(nd, 1);
  for (std::size_t d = nd - 1; d-- > 0;) {
    src_stride[d] = src_stride[d + 1] * src_box.count[d + 1];
    dst_stride[d] = dst_stride[d + 1] * dst_box.count[d + 1];
  }
  const std::size_t row = static_cast<std::size_t>(region.count[nd - 1]) * esize;
  std::vector<int64_t> at(nd, 0);  // index within the region, all but the last dimension
  while (true) {
    int64_t s = 0, t = 0;
    for (std::size_t d = 0; d < nd; ++d) {
      const int64_t i = region.start[d] + at[d];
      s += (i - src_box.start[d]) * src_stride[d];
      t += (i - dst_box.start[d]) * dst_stride[d];
    }
    std::memcpy(dst + static_cast<std::size_t>(t) * esize,
                src + static_cast<std::size_t>(s) * esize, row);
    std::size_t d = nd - 1;
    while (d-- > 0) {
      if (++at[d] < region.count[d]) break;
      at[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

}  // namespace esmio::backend::netcdf4
