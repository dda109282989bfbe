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
#include "datapath/read_batch.hpp"
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

// The guess for a variable whose successor is not learned yet: the next variable of the same
// shape, found once for every variable (a file may have hundreds) and again when esmio_redef
// added some.
ReadAhead::SameShapeAfter same_shape_after(FileState *file) {
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
  return [&next_alike](int v) { return next_alike[static_cast<std::size_t>(v)]; };
}

bool record_exists(const FileState &file, int varid, int64_t record) {
  const Variable &var = file.vars[static_cast<std::size_t>(varid)];
  return var.record ? record < file.nrecords : record == 0;
}

// An I/O task that has just read (varid, record) through `plan` asks its backend for what it
// is predicted to read next (datapath/read_ahead.hpp), so that the disk reads it while the
// task rearranges this one.
void read_ahead(FileState *file, int varid, int64_t record,
                const std::shared_ptr<const rearrange::Plan> &plan) {
  const auto bytes_of = [file](int v, int64_t r, const rearrange::Plan &p) -> int64_t {
    if (!record_exists(*file, v, r)) return 0;
    const int dealt = static_cast<int>((v + r) % p.groups);
    return p.recv_in(dealt).buffer_size *
           static_cast<int64_t>(type_size(file->vars[static_cast<std::size_t>(v)].type));
  };
  const std::vector<ReadAhead::Read> next = file->read_ahead.after(
      {varid, record, plan}, file->read_ahead_bytes, bytes_of, same_shape_after(file));
  for (const ReadAhead::Read &r : file->read_ahead.dropped())
    file->backend->read_ahead_cancel(r.varid, r.record);
  for (const ReadAhead::Read &r : next) {
    const std::shared_ptr<const rearrange::Plan> p = r.plan.lock();
    if (!p) continue;
    const int dealt = static_cast<int>((r.varid + r.record) % p->groups);
    file->backend->read_ahead(r.varid, r.record, p->recv_in(dealt).file_runs);
  }
}

// Converts a read's parts, as they lie in `incoming` (from_at: per send peer), into the caller's
// memory.
void scatter_parts(const rearrange::Plan &plan, esmio_type type, const unsigned char *incoming,
                   const std::vector<int64_t> &from_at, esmio_type memtype, void *buf, int me,
                   RangeCount *range) {
  unsigned char memfill[8];  // type_size is at most 8
  default_fill_value(memtype, memfill);
  const decomp::SendPlan &send = plan.send;
  for (std::size_t k = 0; k < send.peers.size(); ++k) {
    const decomp::Peer &p = send.peers[k];
    range->add(convert::scatter_convert(type, incoming + from_at[k], send.runs.data() + p.first_run,
                                        p.end_run - p.first_run, memtype, buf, memfill),
               me);
  }
}

// The global bytes of one batch: read_ahead's bytes for each I/O task of the layout.
int64_t batch_budget(const FileState &file, const rearrange::Plan &plan) {
  return file.read_batch_bytes * plan.units * plan.groups;
}

// The reads to make with (varid, record) in one batch (datapath/read_batch.hpp), itself first:
// only itself where it is not small (*small false: the same on every rank, the sizes are
// global) or nothing small is predicted after it. The candidates are the same on every rank
// (the order is learned everywhere), but a rank that has freed a decomposition the prediction
// goes through stops there, and esmio_decomp_free is local: each rank's batch is a prefix of
// the same sequence, and the caller agrees on the shortest.
std::vector<BatchRead> batch_of(FileState *file, int varid, int64_t record,
                                const std::shared_ptr<const rearrange::Plan> &plan, bool *small) {
  const int64_t small_below = kBatchBelowPerTask * plan->units * plan->groups;
  const int64_t budget = batch_budget(*file, *plan);
  const auto read_of = [file](int v, int64_t r, const std::shared_ptr<const rearrange::Plan> &p) {
    return BatchRead{v, r, p, static_cast<int>((v + r) % p->groups),
                     static_cast<int64_t>(type_size(file->vars[static_cast<std::size_t>(v)].type))};
  };
  std::vector<BatchRead> reads{read_of(varid, record, plan)};
  int64_t total = plan->global_count * reads[0].esize;
  *small = total < small_below;
  if (!*small) return reads;
  const std::vector<ReadAhead::Read> next = file->read_ahead.chain(
      {varid, record, plan}, same_shape_after(file),
      [&](const ReadAhead::Read &r, const rearrange::Plan &p) {
        // A read already kept ends the chain: it is read, and what follows it likely too.
        if (!record_exists(*file, r.varid, r.record) ||
            file->read_batch.holds(r.varid, r.record, &p))
          return false;
        const int64_t bytes =
            p.global_count *
            static_cast<int64_t>(type_size(file->vars[static_cast<std::size_t>(r.varid)].type));
        if (bytes >= kBatchBelowPerTask * p.units * p.groups || total + bytes > budget)
          return false;
        total += bytes;
        return true;
      });
  for (const ReadAhead::Read &r : next) {
    std::shared_ptr<const rearrange::Plan> p = r.plan.lock();
    if (!p) break;
    reads.push_back(read_of(r.varid, r.record, p));
  }
  return reads;
}

// A batch: every I/O task reads its slabs of all the reads and packs each rank's parts, one
// exchange moves them, the first read is converted into the caller's memory and the others
// are kept. A predicted read that fails on some task is dropped everywhere (the program may
// never ask for it; when it does, it is read again and meets the error then).
Status read_batched(Group &group, FileState *file, const std::vector<BatchRead> &reads,
                    esmio_type memtype, void *buf, RangeCount *range) {
  const int me = group.rank;
  ReadBatch &batch = file->read_batch;
  const BatchLayout layout = lay_out_batch(reads, me);
  int64_t global_bytes = 0;
  for (const BatchRead &r : reads) global_bytes += r.plan->global_count * r.esize;
  unsigned char *incoming = grow<unsigned char>(
      &batch.open(global_bytes, kBatchesHeld * batch_budget(*file, *reads[0].plan)),
      layout.incoming_bytes);
  unsigned char *outgoing = grow<unsigned char>(&file->recv_buffer, layout.outgoing_bytes);
  Status status;
  int64_t predicted_ok = static_cast<int64_t>(reads.size()) - 1;
  if (!layout.consistent) {
    status = Status(ESMIO_EMPI, "esmio_read_darray: " + where(*file, reads[0].varid) +
                                    ": rearrangement: rank " + std::to_string(me) +
                                    " does not receive from itself what its plan sends");
    predicted_ok = 0;
  }
  if (file->backend) {
    // Every read on every task, also after a failure: a backend's reads may be collective.
    for (std::size_t i = 0; i < reads.size(); ++i) {
      const BatchRead &r = reads[i];
      const Variable &var = file->vars[static_cast<std::size_t>(r.varid)];
      const decomp::RecvPlan &recv = r.plan->recv_in(r.dealt);
      unsigned char *slab = grow<unsigned char>(&file->io_buffer, recv.buffer_size * r.esize);
      const Status got = file->backend->get_boxes(r.varid, boxes_of(var, r.record, recv.file_runs),
                                                  var.type, slab);
      if (!got.is_ok()) {
        if (i == 0) status = got;
        predicted_ok = std::min<int64_t>(predicted_ok, i == 0 ? 0 : static_cast<int64_t>(i) - 1);
        continue;
      }
      auto place_scope = scope_of(group, file, trace::Counter::place, recv.count * r.esize);
      int64_t first = 0;  // where each peer's elements begin in recv.positions
      for (std::size_t j = 0; j < recv.peers.size(); ++j) {
        const decomp::Peer &p = recv.peers[j];
        const bool self = static_cast<int>(j) == layout.self_peer[i];
        if (self && layout.to_at[i][j] < 0) {  // checked below: receives from itself, sends not
          first += p.count;
          continue;
        }
        unsigned char *to = (self ? incoming : outgoing) + layout.to_at[i][j];
        if (!recv.positions.empty())
          convert::gather_positions(static_cast<std::size_t>(r.esize), slab,
                                    recv.positions.data() + first, p.count, to);
        else
          convert::gather_convert(var.type, slab, recv.runs.data() + p.first_run,
                                  p.end_run - p.first_run, var.type, to, nullptr);
        first += p.count;
      }
    }
  }
  std::vector<rearrange::SendSegment> sends;
  std::vector<rearrange::RecvSegment> recvs;
  for (const RankSpan &span : layout.outgoing)
    if (span.bytes > 0) sends.push_back({span.rank, outgoing + span.first, span.bytes});
  for (const RankSpan &span : layout.incoming)
    if (span.rank != me && span.bytes > 0)
      recvs.push_back({span.rank, incoming + span.first, span.bytes});
  {
    auto scope = scope_of(group, file, trace::Counter::rearrange,
                          layout.incoming_bytes + layout.outgoing_bytes);
    const Status moved = rearrange::exchange(group.comm, sends, recvs, group.limits);
    if (status.is_ok()) status = moved;
  }
  // Which predicted reads every rank has whole, after the exchange: the same batch kept on
  // every rank, none where the read asked for failed anywhere (its outcome is agreed after).
  if (!status.is_ok()) predicted_ok = 0;
  int64_t agreed = 0;
  if (MPI_Allreduce(&predicted_ok, &agreed, 1, MPI_INT64_T, MPI_MIN, group.comm) != MPI_SUCCESS) {
    agreed = 0;
    if (status.is_ok())
      status = Status(ESMIO_EMPI, "esmio_read_darray: " + where(*file, reads[0].varid) +
                                      ": MPI_Allreduce of the batch's reads failed");
  }
  const BatchRead &first = reads[0];
  {
    auto scope =
        scope_of(group, file, trace::Counter::convert, first.plan->send.count * first.esize);
    scatter_parts(*first.plan, file->vars[static_cast<std::size_t>(first.varid)].type, incoming,
                  layout.from_at[0], memtype, buf, me, range);
  }
  for (std::size_t i = 1; i <= static_cast<std::size_t>(agreed); ++i)
    batch.keep({reads[i].varid, reads[i].record, reads[i].plan, layout.from_at[i]});
  return status;
}

// One read on its own: the I/O task reads its slab, asks for the reads predicted next to be
// read ahead, sends each compute rank its part, and every rank converts what it receives into
// the caller's memory. A rank that is its own I/O task converts its part straight from the
// slab (no packed copy, no message).
Status read_one(Group &group, FileState *file, int varid, int64_t record, const Decomp &decomp,
                esmio_type memtype, void *buf, RangeCount *range) {
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
  unsigned char memfill[8];  // type_size is at most 8
  default_fill_value(memtype, memfill);
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
                      buf, into, ninto, memfill)
                : convert::remap_convert(var.type, slab, recv.runs.data() + self_recv->first_run,
                                         self_recv->end_run - self_recv->first_run, memtype, buf,
                                         into, ninto, memfill);
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
                                 p.end_run - p.first_run, memtype, buf, memfill),
        me);
    at += p.count;
  }
  return status;
}

}  // namespace

bool read_kept(Group &group, FileState *file, int varid, int64_t record, const Decomp &decomp,
               esmio_type memtype, void *buf, RangeCount *range) {
  ReadBatch::Kept kept;
  const unsigned char *incoming = nullptr;
  if (!file->read_batch.take(varid, record, decomp.plan.get(), &kept, &incoming)) return false;
  const esmio_type type = file->vars[static_cast<std::size_t>(varid)].type;
  auto scope = scope_of(group, file, trace::Counter::convert,
                        decomp.plan->send.count * static_cast<int64_t>(type_size(type)));
  scatter_parts(*decomp.plan, type, incoming, kept.from_at, memtype, buf, group.rank, range);
  return true;
}

void kept_read_agreed(FileState *file, int varid, int64_t record, const Decomp &decomp) {
  file->read_ahead.learn({varid, record, decomp.plan});
}

Status read_rearranged(Group &group, FileState *file, int varid, int64_t record,
                       const Decomp &decomp, esmio_type memtype, void *buf, RangeCount *range) {
  // Every rank learns the order of the reads, so that its predictions are everyone's.
  file->read_ahead.learn({varid, record, decomp.plan});
  if (file->read_batch_bytes > 0 && !file->writable) {
    bool small = false;
    std::vector<BatchRead> reads = batch_of(file, varid, record, decomp.plan, &small);
    if (small) {
      // The shortest of the ranks' batches (see batch_of): one allreduce for a batch of up to
      // 32 reads, or for a small read nobody predicted anything after.
      const int64_t mine = static_cast<int64_t>(reads.size());
      int64_t fewest = 1;
      if (MPI_Allreduce(&mine, &fewest, 1, MPI_INT64_T, MPI_MIN, group.comm) != MPI_SUCCESS)
        return Status(ESMIO_EMPI, "esmio_read_darray: " + where(*file, varid) +
                                      ": MPI_Allreduce of the batch's length failed");
      reads.resize(static_cast<std::size_t>(std::max<int64_t>(fewest, 1)));
      if (reads.size() > 1) return read_batched(group, file, reads, memtype, buf, range);
    }
  }
  return read_one(group, file, varid, record, decomp, memtype, buf, range);
}

}  // namespace esmio::datapath
