#include "decomp/box_partition.hpp"

#include <algorithm>
#include <cstdlib>

namespace esmio::decomp {
namespace {

// Rows per task below which the partition descends to the next dimension: with at least this
// many rows each, whole-row granularity unbalances tasks by at most 1/kMinRowsPerTask.
constexpr int64_t kMinRowsPerTask = 8;
// Units per task's share where the rows allow: a boundary moves by half a unit at most, so
// shares then stay within 1/16 of the mean (the layout's 10 % balance, with room).
constexpr int64_t kUnitsPerShare = 16;

using Wide = __int128;

}  // namespace

int64_t shape_size(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

BoxPartition::BoxPartition(const std::vector<int64_t> &dims, int ntasks)
    : dims_(dims), ntasks_(ntasks) {
  const int64_t total = shape_size(dims);
  std::size_t k = 0;
  rows_ = 1;
  while (k < dims.size() && rows_ < kMinRowsPerTask * ntasks) rows_ *= dims[k++];
  split_dims_ = k;
  if (total == 0) rows_ = 0;  // an empty dimension: no rows at all
  row_length_ = rows_ == 0 ? 1 : total / rows_;
  line_ = k == 0 ? 1 : std::max<int64_t>(dims[k - 1], 1);
  const int64_t balanced = std::max<int64_t>(1, rows_ / (kUnitsPerShare * ntasks));
  const int64_t target = std::max<int64_t>(1, kTargetUnitElements / row_length_);
  const int64_t least = (kMinUnitElements + row_length_ - 1) / row_length_;
  quantum_ = std::min(line_, std::max(least, std::min(balanced, target)));
}

int64_t BoxPartition::begin(int task) const {
  if (task >= ntasks_) return size();
  // The balanced row boundary, moved to the nearest unit boundary of its line (half a unit at
  // most, so shares differ by at most one unit).
  const int64_t row = static_cast<int64_t>(Wide(task) * rows_ / ntasks_);
  const int64_t within = row % line_;
  const int64_t snapped = std::min(line_, (within + quantum_ / 2) / quantum_ * quantum_);
  return (row - within + snapped) * row_length_;
}

int BoxPartition::owner(int64_t offset) const {
  // The largest task whose range begins at or before offset (begin() is monotone).
  int lo = 0, hi = ntasks_ - 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (begin(mid) <= offset)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

int record_units(const std::vector<int64_t> &dims, int ntasks) {
  for (int m = ntasks; m > 1; --m) {
    if (ntasks % m != 0) continue;
    if (splits_evenly(dims, m)) return m;
  }
  return 1;
}

bool splits_evenly(const std::vector<int64_t> &dims, int ntasks) {
  // Whole units per task: a few units each leave shares up to two units apart.
  const BoxPartition partition(dims, ntasks);
  const int64_t mean = partition.size() / ntasks;
  for (int t = 0; t < ntasks; ++t) {
    const int64_t share = partition.end(t) - partition.begin(t);
    if (share < kMinShare || 10 * std::abs(share - mean) > mean) return false;
  }
  return true;
}

std::vector<int64_t> BoxPartition::unit_chunk(int64_t max_elements) const {
  std::vector<int64_t> chunk(dims_.size(), 1);
  for (std::size_t d = split_dims_; d < dims_.size(); ++d)
    chunk[d] = std::max<int64_t>(dims_[d], 1);
  if (split_dims_ > 0) chunk[split_dims_ - 1] = quantum_;
  for (std::size_t d = split_dims_; d < dims_.size() && shape_size(chunk) > max_elements; ++d)
    while (chunk[d] > 1 && shape_size(chunk) > max_elements) chunk[d] = (chunk[d] + 1) / 2;
  return chunk;
}

namespace {

struct SlabEmitter {
  const std::vector<int64_t> &dims;
  std::vector<int64_t> stride;  // elements per index step of each dimension
  std::vector<Slab> *out;

  void emit_box(std::size_t d, int64_t a, int64_t b) {
    Slab s;
    s.start.resize(dims.size());
    s.count.resize(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (i < d) {
        s.start[i] = (a / stride[i]) % dims[i];
        s.count[i] = 1;
      } else if (i == d) {
        s.start[i] = (a / stride[i]) % dims[i];
        s.count[i] = (b - a) / stride[i];
      } else {
        s.start[i] = 0;
        s.count[i] = dims[i];
      }
    }
    out->push_back(std::move(s));
  }

  // [lo, hi) lies within one index of dimension d-1 (or anywhere, for d = 0).
  void emit(std::size_t d, int64_t lo, int64_t hi) {
    if (lo >= hi) return;
    const int64_t step = stride[d];
    const int64_t a = (lo + step - 1) / step * step;
    const int64_t b = hi / step * step;
    if (a > b) {  // no index boundary of dimension d inside: one index only
      emit(d + 1, lo, hi);
      return;
    }
    emit(d + 1, lo, a);
    if (a < b) emit_box(d, a, b);
    emit(d + 1, b, hi);
  }
};

}  // namespace

std::vector<Slab> linear_range_slabs(const std::vector<int64_t> &dims, int64_t begin, int64_t end) {
  std::vector<Slab> slabs;
  if (begin >= end) return slabs;
  if (dims.empty()) {
    slabs.push_back(Slab{});
    return slabs;
  }
  SlabEmitter emitter{dims, std::vector<int64_t>(dims.size()), &slabs};
  int64_t s = 1;
  for (std::size_t i = dims.size(); i-- > 0;) {
    emitter.stride[i] = s;
    s *= dims[i];
  }
  emitter.emit(0, begin, end);
  return slabs;
}

}  // namespace esmio::decomp
