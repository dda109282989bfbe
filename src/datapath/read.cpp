// Reading decomposed records: each I/O task reads its slab, sends each compute rank its part,
// and every rank converts what it receives into the caller's memory. A rank that is its own
// I/O task converts its part straight from the slab (no packed copy, no message).
#include "datapath/read.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/types.hpp"
#include "convert/convert.hpp"
#include "datapath/requests.hpp"
#include "rearrange/exchange.hpp"

namespace esmio::datapath {
namespace {

template <typename T>
T *grow(std::vector<unsigned char> *buffer, int64_t bytes) {
  if (static_cast<int64_t>(buffer->size()) < bytes) buffer->resize(static_cast<std::size_t>(bytes));
  return reinterpret_cast<T *>(buffer->data());
}

// One message segment per peer over a buffer packed in peer order.
template <typename Segment, typename Byte>
std::vector<Segment> segments(const std::vector<decomp::Peer> &peers, Byte *buffer, int64_t esize) {
  std::vector<Segment> out;
  int64_t at = 0;
  for (const decomp::Peer &p : peers) {
    out.push_back(Segment{p.rank, buffer + at * esize, p.count * esize});
    at += p.count;
  }
  return out;
}

// The rearrangement's one exchange, timed. outgoing/incoming are packed in peer order.
Status traced_exchange(Group &group, FileState *file, const std::vector<decomp::Peer> &to,
                       const unsigned char *outgoing, const std::vector<decomp::Peer> &from,
                       unsigned char *incoming, int64_t esize, int64_t bytes) {
  auto scope = scope_of(group, file, trace::Counter::rearrange, bytes);
  return rearrange::exchange(group.comm, segments<rearrange::SendSegment>(to, outgoing, esize),
                             segments<rearrange::RecvSegment>(from, incoming, esize), group.limits);
}

// The peers other than this rank, and this rank's own entry (null if it sends itself nothing).
std::vector<decomp::Peer> other_peers(const std::vector<decomp::Peer> &peers, int me,
                                      const decomp::Peer **self) {
  std::vector<decomp::Peer> others;
  others.reserve(peers.size());
  *self = nullptr;
  for (const decomp::Peer &p : peers) {
    if (p.rank == me)
      *self = &p;
    else
      others.push_back(p);
  }
  return others;
}

// Where each peer other than `me` begins in plan.positions (the peers' elements follow each
// other there in plan.peers order), in the order of other_peers; *self: where `me` begins.
std::vector<int64_t> first_positions(const decomp::RecvPlan &plan, int me, int64_t *self) {
  std::vector<int64_t> first;
  int64_t at = 0;
  *self = 0;
  for (const decomp::Peer &p : plan.peers) {
    if (p.rank == me)
      *self = at;
    else
      first.push_back(at);
    at += p.count;
  }
  return first;
}

// An I/O task that has just read (varid, record) through `plan` asks its backend for what it
// is predicted to read next (datapath/read_ahead.hpp), so that the disk reads it while the
// task rearranges this one.
void read_ahead(FileState *file, int varid, int64_t record,
                const std::shared_ptr<const rearrange::Plan> &plan) {
  const auto bytes_of = [file](int v, int64_t r, const rearrange::Plan &p) -> int64_t {
    const Variable &var = file->vars[static_cast<std::size_t>(v)];
    if (var.record ? r >= file->nrecords : r != 0) return 0;
    const int dealt = static_cast<int>((v + r) % p.groups);
    return p.recv_in(dealt).buffer_size * static_cast<int64_t>(type_size(var.type));
  };
  // The next variable of the same shape, found once for every variable (a file may have
  // hundreds) and again when esmio_redef added some.
  std::vector<int> &next_alike = file->next_same_shape;
  if (next_alike.size() != file->vars.size()) {
    next_alike.assign(file->vars.size(), -1);
    std::map<std::pair<bool, std::vector<int64_t>>, int> later;
    for (std::size_t k = file->vars.size(); k-- > 0;) {
      const Variable &var = file->vars[k];
      int &seen = later.try_emplace({var.record, var.shape}, -1).first->second;
      next_alike[k] = seen;
      seen = static_cast<int>(k);
    }
  }
  const auto same_shape_after = [&next_alike](int v) {
    return next_alike[static_cast<std::size_t>(v)];
  };
  const std::vector<ReadAhead::Read> next = file->read_ahead.after(
      {varid, record, plan}, file->read_ahead_bytes, bytes_of, same_shape_after);
  for (const ReadAhead::Read &r : file->read_ahead.dropped())
    file->backend->read_ahead_cancel(r.varid, r.record);
  for (const ReadAhead::Read &r : next) {
    const std::shared_ptr<const rearrange::Plan> p = r.plan.lock();
    if (!p) continue;
    const int dealt = static_cast<int>((r.varid + r.record) % p->groups);
    file->backend->read_ahead(r.varid, r.record, p->recv_in(dealt).file_runs);
  }
}

}  // namespace

// Reads the I/O task's slab, sends each compute rank its part and converts it into the
// caller's memory. A rank that is its own I/O task converts its part straight from the slab
// (no packed copy, no message).
Status read_rearranged(Group &group, FileState *file, int varid, int64_t record,
                       const Decomp &decomp, esmio_type memtype, void *buf, RangeCount *range) {
  const Variable &var = file->vars[varid];
  const int64_t esize = static_cast<int64_t>(type_size(var.type));
  const rearrange::Plan &plan = *decomp.plan;
  const decomp::SendPlan &send = plan.send;
  // A record that a group of tasks takes whole: the groups take turns, variable by variable
  // and record by record (the same choice on every rank).
  const int dealt = static_cast<int>((varid + record) % plan.groups);
  const decomp::RecvPlan &recv = plan.recv_in(dealt);
  // The plan's peers are group 0's tasks: another group's only when that group reads.
  std::vector<decomp::Peer> regrouped;
  if (plan.groups > 1) {
    regrouped = send.peers;
    for (std::size_t k = 0; k < regrouped.size(); ++k) regrouped[k].rank = plan.send_rank(k, dealt);
  }
  const std::vector<decomp::Peer> &send_peers = plan.groups > 1 ? regrouped : send.peers;
  const int me = group.rank;
  const decomp::Peer *self_recv = nullptr, *self_send = nullptr;
  const std::vector<decomp::Peer> to = other_peers(recv.peers, me, &self_recv);
  const std::vector<decomp::Peer> from = other_peers(send_peers, me, &self_send);
  const int64_t to_count = recv.count - (self_recv != nullptr ? self_recv->count : 0);
  const int64_t from_count = send.count - (self_send != nullptr ? self_send->count : 0);

  Status status;
  unsigned char *outgoing = grow<unsigned char>(&file->recv_buffer, to_count * esize);
  unsigned char *slab = nullptr;
  int64_t self_first = 0;  // where this rank's own elements begin in recv.positions
  if (file->backend) {
    slab = grow<unsigned char>(&file->io_buffer, recv.buffer_size * esize);
    status = file->backend->get_boxes(varid, boxes_of(var, record, recv.file_runs), var.type, slab);
    if (status.is_ok() && file->read_ahead_bytes > 0) read_ahead(file, varid, record, decomp.plan);
    auto place_scope = scope_of(group, file, trace::Counter::place, to_count * esize);
    int64_t at = 0;
    const std::vector<int64_t> first =
        recv.positions.empty() ? std::vector<int64_t>() : first_positions(recv, me, &self_first);
    for (std::size_t k = 0; k < to.size(); ++k) {
      const decomp::Peer &p = to[k];
      if (!recv.positions.empty())  // a scattered map: 4 bytes of map per element
        convert::gather_positions(static_cast<std::size_t>(esize), slab,
                                  recv.positions.data() + first[k], p.count, outgoing + at * esize);
      else
        convert::gather_convert(var.type, slab, recv.runs.data() + p.first_run,
                                p.end_run - p.first_run, var.type, outgoing + at * esize, nullptr);
      at += p.count;
    }
  }
  unsigned char *packed = grow<unsigned char>(&file->send_buffer, from_count * esize);
  const Status moved = traced_exchange(group, file, to, outgoing, from, packed, esize,
                                       (to_count + from_count) * esize);
  if (status.is_ok()) status = moved;
  std::vector<unsigned char> memfill(type_size(memtype));
  default_fill_value(memtype, memfill.data());
  auto scope = scope_of(group, file, trace::Counter::convert, send.count * esize);
  if (self_send != nullptr || self_recv != nullptr) {
    int64_t bad = -1;
    if (self_send != nullptr && self_recv != nullptr && slab != nullptr) {
      const Run *into = send.runs.data() + self_send->first_run;
      const int64_t ninto = self_send->end_run - self_send->first_run;
      // A scattered map: one buffer position per element rather than a run each.
      bad = !recv.positions.empty()
                ? convert::remap_positions_convert(
                      var.type, slab, recv.positions.data() + self_first, self_recv->count, memtype,
                      buf, into, ninto, memfill.data())
                : convert::remap_convert(var.type, slab, recv.runs.data() + self_recv->first_run,
                                         self_recv->end_run - self_recv->first_run, memtype, buf,
                                         into, ninto, memfill.data());
    }
    if (bad < 0 && status.is_ok())
      status = Status(ESMIO_EMPI, "esmio_read_darray: " + where(*file, varid) +
                                      ": rearrangement: rank " + std::to_string(me) +
                                      " does not receive from itself what its plan sends");
    range->add(std::max<int64_t>(bad, 0), me);
  }
  int64_t at = 0;
  for (const decomp::Peer &p : from) {
    range->add(
        convert::scatter_convert(var.type, packed + at * esize, send.runs.data() + p.first_run,
                                 p.end_run - p.first_run, memtype, buf, memfill.data()),
        me);
    at += p.count;
  }
  return status;
}

}  // namespace esmio::datapath
