#include "aggregate/cache_bound.hpp"

#include <algorithm>

namespace esmio::aggregate {

CacheBound::Parts CacheBound::parts(const rearrange::Plan &plan, bool fill_holes) const {
  // Merging adds one more copy of the received data: at most half of max_rank_elements.
  const int64_t data = merge_ ? plan.max_rank_elements * 3 / 2 : plan.max_rank_elements;
  const int64_t hole = fill_holes ? plan.max_rank_hole : 0;
  // A dense slab (the task's whole buffer, holes filled in place) needs no stretch of fill.
  if (dense_ && fill_holes && plan.max_rank_dense > data + hole)
    return Parts{plan.held(plan.max_rank_dense), 0};
  return Parts{plan.held(data), hole};
}

int64_t CacheBound::with(const rearrange::Plan &plan, int64_t esize, bool fill_holes) const {
  const Parts p = parts(plan, fill_holes);
  const int64_t reserve = std::max(dealt_reserve_, p.data.placed * esize);
  return bytes_ - dealt_reserve_ + (p.data.amortized + p.fill) * esize + reserve;
}

void CacheBound::add(const rearrange::Plan &plan, int64_t esize, bool fill_holes) {
  const int64_t placed = parts(plan, fill_holes).data.placed * esize;
  bytes_ = with(plan, esize, fill_holes);
  dealt_reserve_ = std::max(dealt_reserve_, placed);
}

bool goes_out_at_once(const rearrange::Plan &plan, int64_t esize, int64_t direct) {
  return plan.groups == 1 && plan.max_rank_elements * esize >= direct;
}

}  // namespace esmio::aggregate
