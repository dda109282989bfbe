// The rearrangement plan: which local elements go to which I/O task, and where they land in
// that task's buffer. Built by pure functions from one rank's map (compute side) and from the
// runs of offsets an I/O task received (I/O side), so no rank ever sees the global map; tests
// simulate any number of ranks in one process. Everything works on runs of consecutive
// offsets, so a block decomposition costs O(rows), not O(elements). The MPI driver is
// rearrange/plan_builder.
#pragma once

#include <cstdint>
#include <vector>

#include "common/run.hpp"
#include "common/status.hpp"
#include "decomp/box_partition.hpp"
#include "decomp/decomposition.hpp"
#include "decomp/io_layout.hpp"

namespace esmio::decomp {

// A partner of one rank in the exchange: count elements, described by runs[first_run, end_run).
struct Peer {
  int rank;
  int64_t count;
  int64_t first_run;
  int64_t end_run;
};

// Compute side: runs of local memory positions in send order, grouped by destination.
struct SendPlan {
  std::vector<Peer> peers;
  // Box layout: the partition's task of each peer (peer k goes to task tasks[k] of the group
  // that takes the record; see record_units).
  std::vector<int> tasks;
  std::vector<Run> runs;
  int64_t count = 0;
};

// A stretch of file offsets [offset, offset+length) held at buffer positions from position on.
struct Extent {
  int64_t offset;
  int64_t position;
  int64_t length;
};

// I/O side: the task's buffer holds the file ranges file_runs back to back (ascending offsets);
// what arrives from each source lands at the buffer positions runs[first_run, end_run); the
// positions fill_runs are holes, written with the variable's fill value. data_extents are the
// stretches that hold data (no holes), for writes that must leave the holes alone.
struct RecvPlan {
  std::vector<Peer> peers;
  std::vector<Run> runs;
  int64_t count = 0;
  int64_t buffer_size = 0;
  std::vector<Run> file_runs;
  std::vector<Run> fill_runs;
  std::vector<Extent> data_extents;
  std::vector<Extent> fill_extents;  // fill_runs as file stretches
  // Offsets of this task's box range that some rank writes (in either layout a task fills the
  // holes of its box range only): what a write of the decomposition covers there.
  std::vector<Run> range_data;
  // The same data without the holes: where each incoming run lands in a buffer that holds the
  // received elements only (count of them, in buffer order), and the data extents there. The
  // write cache keeps only this, so that a write of a few scattered rows does not hold its
  // task's whole slab.
  std::vector<Run> packed_runs;
  std::vector<Extent> packed_extents;
  // Where runs are mostly single elements (a scattered map: E3SM's), runs expanded to one
  // buffer position per element, in the same order (peer by peer): placing a write then reads
  // 4 bytes of map per element instead of 16 per run. Empty otherwise.
  std::vector<int32_t> positions;
};

// Fills plan->positions from plan->runs where the runs average under two elements and the
// buffer's positions fit an int32.
void expand_scattered_runs(RecvPlan *plan);

// The file stretches of the buffer positions `positions` (ascending) of a buffer laid out as
// file_runs, cut where the file runs end.
std::vector<Extent> extents_of(const std::vector<Run> &file_runs,
                               const std::vector<Run> &positions);
// The data stretches: the buffer minus the positions fill_runs (ascending).
std::vector<Extent> data_extents(const std::vector<Run> &file_runs,
                                 const std::vector<Run> &fill_runs);

// Fills plan->packed_runs and packed_extents from runs, fill_runs and data_extents.
void pack_positions(RecvPlan *plan);

// What the compute side tells each I/O task once: the file offsets it will send, as runs in
// send order; peer k's runs are runs[peer_ends[k-1] .. peer_ends[k]).
struct SentOffsets {
  std::vector<Run> runs;
  std::vector<int64_t> peer_ends;
};

// Builds the compute side. For the box layout, partition gives each element's task (the
// partition may have fewer tasks than the layout: those of its first group, io_rank(0 ..
// partition->ntasks()-1)); for the subset layout (partition null) every element goes to the task
// serving my_rank.
void build_send_plan(const LocalMap &map, const IoLayout &layout, const BoxPartition *partition,
                     int my_rank, SendPlan *plan, SentOffsets *sent);

// What one source told an I/O task: its rank and its offsets as runs, in send order.
struct Incoming {
  int rank;
  const Run *runs;
  int64_t nruns;
};

// I/O side, box layout: the task's buffer is its whole slab [begin(task), end(task)).
// Offsets given twice are an ESMIO_EDECOMP error naming both ranks. holes receives the
// uncovered linear offsets of the slab, as runs.
Status build_recv_plan_box(const BoxPartition &partition, int task,
                           const std::vector<Incoming> &incoming, RecvPlan *plan,
                           std::vector<Run> *holes);

// I/O side, subset layout: the buffer holds the union of the group's offsets and the holes this
// task fills (hole_runs: linear offsets, ascending, disjoint from the data), in file order.
Status build_recv_plan_subset(const std::vector<Incoming> &incoming,
                              const std::vector<Run> &hole_runs, RecvPlan *plan);

}  // namespace esmio::decomp
