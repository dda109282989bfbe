#include "rearrange/plan_builder.hpp"

#include <algorithm>

#include "common/agree.hpp"
#include "decomp/box_partition.hpp"

namespace esmio::rearrange {
namespace {

// Runs of offsets each I/O task receives, one list per source rank, concatenated.
struct Received {
  std::vector<Run> runs;
  std::vector<decomp::Incoming> incoming;
};

// Sends each peer's offsets to its task in every group (plan->groups copies; one for the
// subset layout and for records that every task shares).
Status send_offsets_to_tasks(MPI_Comm comm, const Plan &plan, const decomp::SendPlan &send,
                             const decomp::SentOffsets &sent, const ExchangeLimits &limits,
                             Received *received) {
  int nranks = 0;
  MPI_Comm_size(comm, &nranks);
  const int groups = send.tasks.empty() ? 1 : plan.groups;
  auto rank_of = [&](std::size_t k, int g) {
    return groups == 1 ? send.peers[k].rank : plan.io_ranks[g * plan.units + send.tasks[k]];
  };
  std::vector<int64_t> runs_to(nranks, 0), runs_from(nranks, 0);
  for (std::size_t k = 0; k < send.peers.size(); ++k)
    for (int g = 0; g < groups; ++g)
      runs_to[rank_of(k, g)] = sent.peer_ends[k] - (k ? sent.peer_ends[k - 1] : 0);
  if (MPI_Alltoall(runs_to.data(), 1, MPI_INT64_T, runs_from.data(), 1, MPI_INT64_T, comm) !=
      MPI_SUCCESS)
    return Status(ESMIO_EMPI, "rearrangement: MPI_Alltoall of run counts failed");
  int64_t total = 0;
  for (int64_t c : runs_from) total += c;
  received->runs.assign(total, Run{0, 0});
  received->incoming.clear();
  std::vector<RecvSegment> recvs;
  int64_t at = 0;
  const int64_t run_bytes = static_cast<int64_t>(sizeof(Run));
  for (int r = 0; r < nranks; ++r) {
    if (runs_from[r] == 0) continue;
    recvs.push_back(RecvSegment{r, received->runs.data() + at, runs_from[r] * run_bytes});
    received->incoming.push_back(decomp::Incoming{r, received->runs.data() + at, runs_from[r]});
    at += runs_from[r];
  }
  std::vector<SendSegment> sends;
  for (std::size_t k = 0; k < send.peers.size(); ++k) {
    const int64_t first = k ? sent.peer_ends[k - 1] : 0;
    for (int g = 0; g < groups; ++g)
      sends.push_back(SendSegment{rank_of(k, g), sent.runs.data() + first,
                                  (sent.peer_ends[k] - first) * run_bytes});
  }
  return exchange(comm, sends, recvs, limits);
}

}  // namespace

const decomp::RecvPlan &Plan::recv_in(int g) const {
  static const decomp::RecvPlan nothing;
  return groups == 1 || g == group ? recv : nothing;
}

Status build_plan(MPI_Comm comm, const decomp::IoLayout &layout, const std::vector<int64_t> &dims,
                  const decomp::LocalMap &map, const ExchangeLimits &limits, Plan *plan) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  *plan = Plan{};
  const int ntasks = layout.ntasks();
  const bool box = layout.kind() == decomp::LayoutKind::box;
  plan->units = box ? decomp::record_units(dims, ntasks) : ntasks;
  plan->groups = ntasks / plan->units;
  plan->io_ranks = layout.io_ranks();
  const decomp::BoxPartition partition(dims, plan->units);
  const int task = layout.task_of_rank(rank);
  if (task >= 0) plan->group = task / plan->units;
  decomp::SentOffsets sent;
  Received received;

  // The box pass: the plan itself for the box layout; for the subset layout it finds the
  // duplicates across groups and the holes, which subset task i fills in box range i.
  decomp::SendPlan box_send;
  build_send_plan(map, layout, &partition, rank, &box_send, &sent);
  Status status = send_offsets_to_tasks(comm, *plan, box_send, sent, limits, &received);
  std::vector<Run> holes;
  decomp::RecvPlan box_recv;
  if (status.is_ok() && task >= 0)
    status = decomp::build_recv_plan_box(partition, task % plan->units, received.incoming,
                                         &box_recv, &holes);
  ESMIO_RETURN_IF_ERROR(agree(comm, status));

  std::vector<Run> range_data;
  for (const decomp::Extent &e : box_recv.data_extents)
    append_run(&range_data, Run{e.offset, e.length});
  if (layout.kind() == decomp::LayoutKind::box) {
    plan->send = std::move(box_send);
    plan->recv = std::move(box_recv);
  } else {
    build_send_plan(map, layout, nullptr, rank, &plan->send, &sent);
    status = send_offsets_to_tasks(comm, *plan, plan->send, sent, limits, &received);
    if (status.is_ok() && task >= 0)
      status = decomp::build_recv_plan_subset(received.incoming, holes, &plan->recv);
    ESMIO_RETURN_IF_ERROR(agree(comm, status));
  }
  plan->recv.range_data = std::move(range_data);
  decomp::expand_scattered_runs(&plan->recv);
  int64_t local = plan->send.count;
  MPI_Allreduce(&local, &plan->global_count, 1, MPI_INT64_T, MPI_SUM, comm);
  int64_t longest_hole = 0;
  for (const decomp::Extent &e : plan->recv.fill_extents)
    longest_hole = std::max(longest_hole, e.length);
  const int64_t local_max[4] = {plan->send.count + 2 * plan->recv.count, longest_hole,
                                plan->send.count + plan->recv.count + plan->recv.buffer_size,
                                plan->send.count};
  int64_t global_max[4] = {0, 0, 0, 0};
  MPI_Allreduce(local_max, global_max, 4, MPI_INT64_T, MPI_MAX, comm);
  plan->max_rank_elements = global_max[0];
  plan->max_rank_hole = global_max[1];
  plan->max_rank_dense = global_max[2];
  plan->max_rank_sent = global_max[3];
  return Status::ok();
}

}  // namespace esmio::rearrange
