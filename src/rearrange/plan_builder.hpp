// Builds a decomposition's rearrangement plan over MPI: each rank plans its sends, tells the
// I/O tasks its offsets once, and each I/O task plans where they land. No rank sees the map.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/status.hpp"
#include "decomp/io_layout.hpp"
#include "decomp/plan.hpp"
#include "rearrange/exchange.hpp"

namespace esmio::rearrange {

// A record too small for every I/O task to get a share (decomp::record_units) is split over
// `units` tasks, and the layout's tasks form `groups` groups of that many consecutive tasks:
// group g is tasks g*units .. g*units+units-1, and any group can take a given write of the
// record. Every task holds the receive plan of its place in its group, so a write's group is
// chosen per write (the write cache deals records out by bytes; reads take turns) without
// planning again. A record every task shares has one group.
struct Plan {
  decomp::SendPlan send;  // to group 0 (send_rank gives another group's rank)
  decomp::RecvPlan recv;  // this task's place in its group; empty on ranks that are not I/O tasks
  int64_t global_count = 0;  // elements written by anyone (holes excluded)
  // The most elements any rank holds for one write (sent, received, and placed for the
  // backend), and the longest hole of any I/O task (the fill a write's holes need): the same on
  // every rank, so that cache decisions need no communication.
  int64_t max_rank_elements = 0;
  int64_t max_rank_hole = 0;
  // The most elements any rank holds for one write when its I/O tasks place it with its holes
  // filled (sent, received, and the task's whole buffer: the write cache's dense slabs).
  int64_t max_rank_dense = 0;
  // The most elements any rank sends for one write (every rank holds its own part until the
  // flush, whoever takes it).
  int64_t max_rank_sent = 0;
  int units = 1;   // tasks per group
  int groups = 1;  // groups of the layout's tasks; 1 unless the record is too small to split
  int group = -1;  // the group of this rank's task (-1: not an I/O task)
  std::vector<int> io_ranks;  // the layout's I/O tasks' ranks, for send_rank

  // The rank that send peer k's data goes to when group g takes the write.
  int send_rank(std::size_t k, int g) const {
    return groups == 1 ? send.peers[k].rank : io_ranks[g * units + send.tasks[k]];
  }
  // What this rank receives of a write that group g takes (an empty plan outside the group).
  const decomp::RecvPlan &recv_in(int g) const;
  // The elements a write through this plan adds to the most any rank holds, of which `placed`
  // on an I/O task: for a record that every task shares, max_rank_elements (or, holes
  // filled, the dense figure); for a record a group takes whole, the sender's part plus 1 /
  // groups of the task's: the flush deals such records evenly over the groups, so a task
  // takes its share of them and about one record more (the cache keeps room for it). Not
  // counted: at the flush the sender copies its dealt values once more, into its
  // destinations' outgoing buffers, for the length of the exchange.
  struct Held {
    int64_t amortized;
    int64_t placed;
  };
  Held held(int64_t elements) const {
    if (groups == 1) return Held{elements, 0};
    const int64_t placed = std::max<int64_t>(0, elements - max_rank_sent);
    return Held{max_rank_sent + (placed + groups - 1) / groups, placed};
  }
};

// Collective over comm. The map must be range-checked already. Returns the same status on
// every rank (duplicates found on an I/O task are reported everywhere).
Status build_plan(MPI_Comm comm, const decomp::IoLayout &layout, const std::vector<int64_t> &dims,
                  const decomp::LocalMap &map, const ExchangeLimits &limits, Plan *plan);

}  // namespace esmio::rearrange
