#include "rearrange/plan_builder.hpp"

#include "common/agree.hpp"
#include "decomp/box_partition.hpp"
#include "decomp/decomposition.hpp"

namespace esmio::rearrange {
namespace {

// Offsets each I/O task receives, one list per source rank, concatenated.
struct Received {
  std::vector<int64_t> offsets;
  std::vector<decomp::Incoming> incoming;
};

Status send_offsets_to_tasks(MPI_Comm comm, const decomp::SendPlan &send,
                             const std::vector<int64_t> &send_offsets, const ExchangeLimits &limits,
                             Received *received) {
  int nranks = 0;
  MPI_Comm_size(comm, &nranks);
  std::vector<int64_t> counts_to(nranks, 0), counts_from(nranks, 0);
  for (const decomp::Peer &p : send.peers) counts_to[p.rank] = p.count;
  if (MPI_Alltoall(counts_to.data(), 1, MPI_INT64_T, counts_from.data(), 1, MPI_INT64_T, comm) !=
      MPI_SUCCESS)
    return Status(ESMIO_EMPI, "rearrangement: MPI_Alltoall of counts failed");
  int64_t total = 0;
  for (int64_t c : counts_from) total += c;
  received->offsets.assign(total, 0);
  received->incoming.clear();
  std::vector<RecvSegment> recvs;
  int64_t at = 0;
  for (int r = 0; r < nranks; ++r) {
    if (counts_from[r] == 0) continue;
    recvs.push_back(RecvSegment{r, received->offsets.data() + at,
                                counts_from[r] * static_cast<int64_t>(sizeof(int64_t))});
    received->incoming.push_back(
        decomp::Incoming{r, received->offsets.data() + at, counts_from[r]});
    at += counts_from[r];
  }
  std::vector<SendSegment> sends;
  int64_t from = 0;
  for (const decomp::Peer &p : send.peers) {
    sends.push_back(SendSegment{p.rank, send_offsets.data() + from,
                                p.count * static_cast<int64_t>(sizeof(int64_t))});
    from += p.count;
  }
  return exchange(comm, sends, recvs, limits);
}

}  // namespace

Status build_plan(MPI_Comm comm, const decomp::IoLayout &layout,
                  const std::vector<int64_t> &dims, const std::vector<int64_t> &offsets,
                  const ExchangeLimits &limits, Plan *plan) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  *plan = Plan{};
  ESMIO_RETURN_IF_ERROR(
      agree(comm, decomp::check_offsets_in_range(offsets, decomp::shape_size(dims), rank)));

  const decomp::BoxPartition partition(dims, layout.ntasks());
  const int task = layout.task_of_rank(rank);
  std::vector<int64_t> send_offsets;
  Received received;

  // The box pass: the plan itself for the box layout; for the subset layout it finds the
  // duplicates across groups and the holes, which subset task i fills in box range i.
  decomp::SendPlan box_send;
  build_send_plan(offsets, layout, &partition, rank, &box_send, &send_offsets);
  Status status = send_offsets_to_tasks(comm, box_send, send_offsets, limits, &received);
  std::vector<Run> holes;
  decomp::RecvPlan box_recv;
  if (status.is_ok() && task >= 0)
    status = decomp::build_recv_plan_box(partition, task, received.incoming, &box_recv, &holes);
  ESMIO_RETURN_IF_ERROR(agree(comm, status));

  if (layout.kind() == decomp::LayoutKind::box) {
    plan->send = std::move(box_send);
    plan->recv = std::move(box_recv);
  } else {
    build_send_plan(offsets, layout, nullptr, rank, &plan->send, &send_offsets);
    status = send_offsets_to_tasks(comm, plan->send, send_offsets, limits, &received);
    if (status.is_ok() && task >= 0)
      status = decomp::build_recv_plan_subset(received.incoming, holes, &plan->recv);
    ESMIO_RETURN_IF_ERROR(agree(comm, status));
  }
  int64_t local = plan->send.count;
  MPI_Allreduce(&local, &plan->global_count, 1, MPI_INT64_T, MPI_SUM, comm);
  return Status::ok();
}

}  // namespace esmio::rearrange
