// Builds a decomposition's rearrangement plan over MPI: each rank plans its sends, tells the
// I/O tasks its offsets once, and each I/O task plans where they land. No rank sees the map.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "common/status.hpp"
#include "decomp/io_layout.hpp"
#include "decomp/plan.hpp"
#include "rearrange/exchange.hpp"

namespace esmio::rearrange {

struct Plan {
  decomp::SendPlan send;
  decomp::RecvPlan recv;     // empty on ranks that are not I/O tasks
  int64_t global_count = 0;  // elements written by anyone (holes excluded)
  // The most elements any rank holds for one write (sent, received, and placed for the
  // backend), and the longest hole of any I/O task (the fill a write's holes need): the same on
  // every rank, so that cache decisions need no communication.
  int64_t max_rank_elements = 0;
  int64_t max_rank_hole = 0;
  // The most elements any rank holds for one write when its I/O tasks place it with its holes
  // filled (sent, received, and the task's whole buffer: the write cache's dense slabs).
  int64_t max_rank_dense = 0;
};

// Collective over comm. The map must be range-checked already. Returns the same status on
// every rank (duplicates found on an I/O task are reported everywhere).
Status build_plan(MPI_Comm comm, const decomp::IoLayout &layout, const std::vector<int64_t> &dims,
                  const decomp::LocalMap &map, const ExchangeLimits &limits, Plan *plan);

}  // namespace esmio::rearrange
