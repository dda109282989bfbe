// A decomposition as the data path uses it: the rank's part of a field and the rearrangement
// plan over its group's I/O layout, built once when the decomposition is made.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/status.hpp"
#include "datapath/group.hpp"
#include "decomp/decomposition.hpp"
#include "rearrange/plan_builder.hpp"

namespace esmio::datapath {

struct Decomp {
  int64_t serial = 0;  // creation number, alike on every rank (-1: internal, made by the path)
  std::vector<int64_t> dims;
  decomp::LocalMap map;  // this rank's part, as runs
  // Shared with the write cache, which may still hold writes through it after a free.
  std::shared_ptr<const rearrange::Plan> plan;
};

// Collective over group.comm, agreed: builds d's plan from its dims and map.
Status plan_decomp(const Group &group, Decomp *d);

}  // namespace esmio::datapath
