#include "async/server.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "async/client.hpp"
#include "async/polite_wait.hpp"
#include "async/protocol.hpp"
#include "async/wire.hpp"
#include "common/agree.hpp"
#include "common/digest.hpp"
#include "common/schema_codec.hpp"
#include "common/types.hpp"
#include "esmio.h"
#include "trace/counters.hpp"

namespace esmio::async {

const char *op_name(Op op) {
  switch (op) {
    case Op::finalize:
      return "esmio_finalize";
    case Op::decomp_create:
      return "esmio_decomp_create";
    case Op::create:
      return "esmio_create";
    case Op::open:
      return "esmio_open";
    case Op::def_dim:
      return "esmio_def_dim";
    case Op::def_var:
      return "esmio_def_var";
    case Op::put_att:
      return "esmio_put_att";
    case Op::def_var_chunking:
      return "esmio_def_var_chunking";
    case Op::def_var_compress:
      return "esmio_def_var_compress";
    case Op::def_var_quantize:
      return "esmio_def_var_quantize";
    case Op::enddef:
      return "esmio_enddef";
    case Op::redef:
      return "esmio_redef";
    case Op::write_darray:
      return "esmio_write_darray";
    case Op::read_darray:
      return "esmio_read_darray";
    case Op::put_vara:
      return "esmio_put_vara";
    case Op::get_vara:
      return "esmio_get_vara";
    case Op::inq_att:
      return "esmio_inq_att";
    case Op::get_att:
      return "esmio_get_att";
    case Op::att_names:
      return "esmio_inq_attname";
    case Op::stage_wait:
      return "esmio_stage_wait";
    case Op::sync:
      return "esmio_sync";
    case Op::close:
      return "esmio_close";
    case Op::trace_report:
      return "esmio_trace_write";
  }
  return "an unknown call";
}

namespace {

bool g_serving = false;

// The outcome of a replayed call, with the message esmio gave for it.
Status outcome_of(int code) {
  return code == ESMIO_NOERR ? Status::ok() : Status(code, esmio_last_error());
}

// One compute rank's posted call, as read from its ring.
struct Message {
  int source = -1;  // world rank
  int64_t id = -1;
  int64_t length = 0;
  Op op = Op::finalize;
  int64_t file = -1;
  uint64_t digest = 0;
  Status local;
  std::optional<Unpacker> args;  // the op's arguments, after the head
  const char *data = nullptr;
  int64_t data_bytes = 0;
};

struct ServedDecomp {
  esmio_decomp_t handle = nullptr;
  std::vector<int64_t> nlocal;  // per client, in client order
  int64_t total = 0;
};

struct ServedFile {
  esmio_file_t handle = nullptr;
  std::string path;
  Status pending;  // the first failure not yet reported
  void keep(const Status &s) {
    if (!s.is_ok() && pending.is_ok()) pending = s;
  }
};

class Server {
 public:
  Server(MPI_Comm world, MPI_Comm group, MPI_Win window, const Placement &placement,
         double trace_epoch, const InstanceHooks &hooks)
      : world_(world), group_(group), window_(window), trace_epoch_(trace_epoch), hooks_(hooks) {
    MPI_Comm_rank(world, &world_rank_);
    const auto s = static_cast<int>(
        std::find(placement.servers.begin(), placement.servers.end(), world_rank_) -
        placement.servers.begin());
    // In the trace report the servers follow the compute ranks.
    report_rank_ = static_cast<int>(placement.compute.size()) + s;
    for (int c : placement.clients_of(s)) {
      clients_.push_back(placement.compute[c]);
      client_ranks_.push_back(c);
    }
    current_.resize(clients_.size());
    buffers_.resize(clients_.size());
  }

  Status run(const std::string &settings);

 private:
  // Reads the next message of every client (waits for their notices): the reads of all of
  // them in flight at once.
  void receive_all();
  // Reads the next message of client k into current_[k].
  void receive(std::size_t k);
  // The two halves: the notice and the MPI_Get into client k's buffer; then, after the reads
  // completed, the space given back and the head parsed.
  void start_read(std::size_t k);
  void finish_read(std::size_t k);
  // Drops write_darray messages until each client's next boundary (protocol.hpp).
  void skip_to_boundary();
  Status agree_current();
  void dispatch();
  void reply_all(const Packer &reply);
  void reply_each(const std::function<Packer(std::size_t)> &reply);

  void decomp_create();
  // Closes what the compute ranks left and finalizes this server's instance (once).
  Status finalize_instance();
  // One more compute rank freed decomposition serial: freed here once all of them did.
  void decomp_freed_by(int64_t serial);
  void write_darray(ServedFile *file);
  void read_darray(ServedFile *file);
  void put_vara(ServedFile *file);
  void get_vara(ServedFile *file);
  void open_file();
  // The group's entries of the trace report (mine: this server's), joined, on the server that
  // takes compute rank 0's calls, sent to it (the other clients get an empty text) after
  // reply_head(status). Collective over the group.
  void reply_trace(const Status &status, const std::string &mine);

  MPI_Comm world_, group_;
  MPI_Win window_;
  double trace_epoch_;
  InstanceHooks hooks_;
  int world_rank_ = 0;
  int report_rank_ = 0;
  trace::Counters *counters_ = nullptr;  // the instance's (null: it could not be made)
  std::string final_entry_;              // the instance's trace entry, left by its finalize
  std::vector<int> clients_;             // world ranks of the compute ranks this server takes
  std::vector<int> client_ranks_;        // the same, as ranks of the compute ranks' communicator
  std::vector<std::optional<Message>> current_;
  std::vector<std::vector<char>> buffers_;  // per client, reused: the message read
  esmio_t io_ = nullptr;
  std::map<int64_t, ServedFile> files_;
  std::map<int64_t, ServedDecomp> decomps_;
  std::map<int64_t, std::size_t> free_votes_;  // decomposition -> compute ranks that freed it
  Status instance_pending_;   // failures of instance calls (decompositions), for finalize
  std::vector<char> values_;  // the concatenated values of a data call (reused)
  bool done_ = false;
};

void Server::start_read(std::size_t k) {
  Notice notice{};
  {
    // The compute ranks may compute for long before their next call: the wait leaves the core.
    trace::Scope idle(trace::Counter::serve_wait, counters_);
    polite_probe(clients_[k], kTagNotice, world_, MPI_STATUS_IGNORE);
    MPI_Recv(&notice, 3, MPI_INT64_T, clients_[k], kTagNotice, world_, MPI_STATUS_IGNORE);
  }
  Message m;
  m.source = clients_[k];
  m.id = notice.id;
  m.length = notice.length;
  std::vector<char> &bytes = buffers_[k];
  if (bytes.size() < static_cast<std::size_t>(notice.length))
    bytes.resize(static_cast<std::size_t>(notice.length));
  MPI_Get(bytes.data(), static_cast<int>(notice.length), MPI_BYTE, m.source, notice.offset,
          static_cast<int>(notice.length), MPI_BYTE, window_);
  current_[k] = std::move(m);
}

void Server::finish_read(std::size_t k) {
  Message &m = *current_[k];
  // Read: the space goes back to the compute rank at once (a small send, eager).
  MPI_Send(&m.id, 1, MPI_INT64_T, m.source, kTagFreed, world_);
  const char *bytes = buffers_[k].data();
  int64_t head_bytes = 0;
  std::memcpy(&head_bytes, bytes, sizeof head_bytes);
  std::memcpy(&m.data_bytes, bytes + sizeof head_bytes, sizeof m.data_bytes);
  const int64_t framing = 2 * int64_t(sizeof(int64_t));
  const bool framed =
      head_bytes >= 0 && m.data_bytes >= 0 && framing + head_bytes + m.data_bytes <= m.length;
  const char *head = bytes + framing;
  m.args.emplace(head, framed ? static_cast<std::size_t>(head_bytes) : 0);
  m.op = static_cast<Op>(m.args->i64());
  m.file = m.args->i64();
  m.digest = static_cast<uint64_t>(m.args->i64());
  const auto code = static_cast<int>(m.args->i64());
  std::string message = m.args->str();
  if (code != ESMIO_NOERR) m.local = Status(code, message);
  for (int64_t serial : m.args->i64s()) decomp_freed_by(serial);
  if (!framed || !m.args->ok())
    m.local = Status(ESMIO_EMPI,
                     "a message from compute rank " + std::to_string(m.source) + " was cut short");
  m.data = framed ? head + head_bytes : nullptr;
  if (!framed) m.data_bytes = 0;
}

void Server::receive(std::size_t k) {
  start_read(k);
  trace::Scope read(trace::Counter::serve_receive, counters_, nullptr, current_[k]->length);
  MPI_Win_flush(clients_[k], window_);
  finish_read(k);
}

void Server::receive_all() {
  for (std::size_t k = 0; k < clients_.size(); ++k) start_read(k);
  int64_t bytes = 0;
  for (const auto &m : current_) bytes += m->length;
  trace::Scope read(trace::Counter::serve_receive, counters_, nullptr, bytes);
  MPI_Win_flush_all(window_);
  for (std::size_t k = 0; k < clients_.size(); ++k) finish_read(k);
}

void Server::skip_to_boundary() {
  for (std::size_t k = 0; k < clients_.size(); ++k)
    while (current_[k]->op == Op::write_darray) receive(k);
}

// The call every client posted, compared among them, then among the servers.
Status Server::agree_current() {
  const Message &first = *current_[0];
  auto file_name = [&](int64_t serial) {
    const auto it = files_.find(serial);
    return it == files_.end() ? "file number " + std::to_string(serial)
                              : "file '" + it->second.path + "'";
  };
  Status local;
  for (std::size_t k = 0; k < clients_.size(); ++k) {
    const Message &m = *current_[k];
    if (m.op != first.op || m.file != first.file || m.digest != first.digest) {
      local = Status(ESMIO_EMISMATCH,
                     std::string("compute ranks posted different calls (or the same call with "
                                 "different arguments): ") +
                         op_name(first.op) + " on " + file_name(first.file) + " from world rank " +
                         std::to_string(first.source) + ", " + op_name(m.op) + " on " +
                         file_name(m.file) + " from world rank " + std::to_string(m.source));
      break;
    }
    if (!m.local.is_ok() && local.is_ok()) local = m.local;
  }
  const uint64_t digest = Digest("async")
                              .add(static_cast<int64_t>(first.op))
                              .add(first.file)
                              .add(static_cast<int64_t>(first.digest))
                              .value();
  return agree_call(group_, local, digest, [&] {
    return std::string(op_name(first.op)) + " on " + file_name(first.file) +
           " (posted by the compute ranks this server takes)";
  });
}

void Server::reply_all(const Packer &reply) {
  for (int client : clients_)
    MPI_Send(reply.data().data(), static_cast<int>(reply.size()), MPI_BYTE, client, kTagReply,
             world_);
}

void Server::reply_each(const std::function<Packer(std::size_t)> &reply) {
  for (std::size_t k = 0; k < clients_.size(); ++k) {
    const Packer p = reply(k);
    MPI_Send(p.data().data(), static_cast<int>(p.size()), MPI_BYTE, clients_[k], kTagReply, world_);
  }
}

// "variable 'T' in file 'out.nc'" for the servers' own messages.
std::string where(const ServedFile &file, int varid) {
  char name[ESMIO_MAX_NAME + 1] = {0};
  if (file.handle == nullptr ||
      esmio_inq_varname(file.handle, varid, name, static_cast<int64_t>(sizeof name)) != 0)
    std::snprintf(name, sizeof name, "%d", varid);
  return std::string("variable '") + name + "' in file '" + file.path + "'";
}

Status missing_decomp(const char *what, const ServedFile &file, int varid, int64_t serial) {
  return Status(ESMIO_EBADID, std::string(what) + ": " + where(file, varid) +
                                  ": decomposition number " + std::to_string(serial) +
                                  " is not on the I/O servers (its creation failed)");
}

bool waits_for_reply(Op op) {
  switch (op) {
    case Op::finalize:
    case Op::decomp_create:
    case Op::open:
    case Op::read_darray:
    case Op::get_vara:
    case Op::inq_att:
    case Op::get_att:
    case Op::att_names:
    case Op::stage_wait:
    case Op::sync:
    case Op::close:
    case Op::trace_report:
      return true;
    default:
      return false;
  }
}

Status Server::run(const std::string &settings) {
  // The compute ranks wait for answers whatever happens here: an instance that could not be
  // made fails every call (alike on every server of the group: esmio_init agrees).
  instance_pending_ = outcome_of(esmio_init(group_, settings.c_str(), &io_));
  if (io_) {
    if (hooks_.counters) counters_ = hooks_.counters(io_);
    if (hooks_.align_trace && !std::isnan(trace_epoch_)) hooks_.align_trace(io_, trace_epoch_);
    if (hooks_.keep_final_entry)
      hooks_.keep_final_entry(io_, report_rank_, world_rank_, &final_entry_);
  }
  while (!done_) {
    if (!current_[0])
      receive_all();  // none kept: after a call, all of them are read again
    else
      for (std::size_t k = 0; k < clients_.size(); ++k)
        if (!current_[k]) receive(k);
    const Status agreed = agree_current();
    const Message &first = *current_[0];
    if (agreed.is_ok()) {
      dispatch();
    } else {
      if (first.file >= 0) files_[first.file].keep(agreed);
      // An instance call that is answered now reports its failure now; only the others keep it
      // for esmio_finalize.
      if (first.file < 0 && !waits_for_reply(first.op))
        instance_pending_ = instance_pending_.is_ok() ? agreed : instance_pending_;
      // A write_darray among the calls (on any server of the group): the ranks' streams may
      // have parted, and a server whose ranks are at a boundary must not answer it while
      // another drops writes, or the servers would part too. Every server drops the writes up
      // to its ranks' next boundary; the boundary is then agreed and run as usual, and its
      // file answers with the failure kept above.
      int at_write = 0;
      for (const auto &m : current_) at_write |= m->op == Op::write_darray ? 1 : 0;
      MPI_Allreduce(MPI_IN_PLACE, &at_write, 1, MPI_INT, MPI_MAX, group_);
      if (at_write) {
        skip_to_boundary();
        continue;  // the boundary is the next call
      }
      if (waits_for_reply(first.op)) reply_all(reply_head(agreed));
      if (first.op == Op::finalize) done_ = true;
    }
    for (auto &m : current_) m.reset();
  }
  return finalize_instance();
}

Status Server::finalize_instance() {
  if (io_ == nullptr) return Status::ok();
  counters_ = nullptr;
  for (auto &f : files_)
    if (f.second.handle) esmio_close(&f.second.handle);
  for (auto &d : decomps_)
    if (d.second.handle) esmio_decomp_free(&d.second.handle);
  return outcome_of(esmio_finalize(&io_));
}

void Server::reply_trace(const Status &status, const std::string &mine) {
  int group_rank = 0;
  MPI_Comm_rank(group_, &group_rank);
  const bool takes_rank0 =
      std::find(client_ranks_.begin(), client_ranks_.end(), 0) != client_ranks_.end();
  int root = takes_rank0 ? group_rank : -1;
  MPI_Allreduce(MPI_IN_PLACE, &root, 1, MPI_INT, MPI_MAX, group_);
  if (root < 0) root = 0;  // every group takes every compute rank: not expected
  int nservers = 0;
  MPI_Comm_size(group_, &nservers);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(group_rank == root ? static_cast<std::size_t>(nservers) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, group_);
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = total;
    total += lengths[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              root, group_);
  // One entry per line (an entry is one line of JSON).
  std::string joined;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] == 0) continue;
    if (!joined.empty()) joined += ",\n";
    joined.append(all, static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i]));
  }
  reply_each([&](std::size_t k) {
    Packer p = reply_head(status);
    p.str(client_ranks_[k] == 0 ? joined : std::string());
    return p;
  });
}

void Server::dispatch() {
  Message &first = *current_[0];
  Unpacker &a = *first.args;
  ServedFile *file = first.file >= 0 ? &files_[first.file] : nullptr;
  // A file whose create or open failed on the servers: its calls fail with that failure.
  auto file_missing = [&] {
    return Status(
        ESMIO_EBADID,
        std::string(op_name(first.op)) + ": the file was not created or opened on the I/O servers" +
            (file->pending.is_ok() ? std::string() : " (" + file->pending.message() + ")"));
  };
  if (file && !file->handle && first.op != Op::create && first.op != Op::open) {
    const Status missing = file_missing();
    if (waits_for_reply(first.op)) {
      Status s = file->pending.is_ok() ? missing : file->pending;
      if (first.op == Op::close) files_.erase(first.file);
      reply_all(reply_head(s));
    }
    return;
  }
  switch (first.op) {
    case Op::finalize: {
      // The servers' own finalize publishes their pending staged copies: its outcome goes back.
      Status s = instance_pending_;
      const Status finalized = finalize_instance();
      if (s.is_ok()) s = finalized;
      reply_trace(s, std::isnan(trace_epoch_) ? std::string() : final_entry_);
      done_ = true;
      return;
    }
    case Op::trace_report:
      reply_trace(Status::ok(), hooks_.trace_entry
                                    ? hooks_.trace_entry(io_, report_rank_, world_rank_)
                                    : std::string());
      return;
    case Op::stage_wait: {
      const std::string path = a.str();
      reply_all(reply_head(outcome_of(esmio_stage_wait(io_, path.c_str()))));
      return;
    }
    case Op::decomp_create:
      decomp_create();
      return;
    case Op::create: {
      const std::string path = a.str();
      const std::string settings = a.str();
      file->path = path;
      file->keep(outcome_of(esmio_create(io_, path.c_str(), settings.c_str(), &file->handle)));
      return;
    }
    case Op::open:
      open_file();
      return;
    case Op::def_dim: {
      const std::string name = a.str();
      const int64_t len = a.i64();
      int dimid = -1;
      file->keep(outcome_of(esmio_def_dim(file->handle, name.c_str(), len, &dimid)));
      return;
    }
    case Op::def_var: {
      const std::string name = a.str();
      const auto type = static_cast<esmio_type>(a.i64());
      const std::vector<int> dimids = a.ints();
      int varid = -1;
      file->keep(outcome_of(esmio_def_var(file->handle, name.c_str(), type,
                                          static_cast<int>(dimids.size()), dimids.data(), &varid)));
      return;
    }
    case Op::put_att: {
      const auto varid = static_cast<int>(a.i64());
      const std::string name = a.str();
      const auto type = static_cast<esmio_type>(a.i64());
      const int64_t len = a.i64();
      file->keep(
          outcome_of(esmio_put_att(file->handle, varid, name.c_str(), type, len, first.data)));
      return;
    }
    case Op::def_var_chunking: {
      const auto varid = static_cast<int>(a.i64());
      const std::vector<int64_t> chunks = a.i64s();
      file->keep(
          outcome_of(esmio_def_var_chunking(file->handle, varid, static_cast<int>(chunks.size()),
                                            chunks.empty() ? nullptr : chunks.data())));
      return;
    }
    case Op::def_var_compress: {
      const auto varid = static_cast<int>(a.i64());
      const std::string spec = a.str();
      file->keep(outcome_of(esmio_def_var_compress(file->handle, varid, spec.c_str())));
      return;
    }
    case Op::def_var_quantize: {
      const auto varid = static_cast<int>(a.i64());
      const std::string spec = a.str();
      file->keep(outcome_of(esmio_def_var_quantize(file->handle, varid, spec.c_str())));
      return;
    }
    case Op::enddef:
      file->keep(outcome_of(esmio_enddef(file->handle)));
      return;
    case Op::redef:
      file->keep(outcome_of(esmio_redef(file->handle)));
      return;
    case Op::write_darray:
      write_darray(file);
      return;
    case Op::read_darray:
      read_darray(file);
      return;
    case Op::put_vara:
      put_vara(file);
      return;
    case Op::get_vara:
      get_vara(file);
      return;
    case Op::inq_att: {
      const auto varid = static_cast<int>(a.i64());
      const std::string name = a.str();
      esmio_type type = ESMIO_BYTE;
      int64_t len = 0;
      const Status s = outcome_of(esmio_inq_att(file->handle, varid, name.c_str(), &type, &len));
      Packer p = reply_head(s);
      p.i64(type).i64(len);
      reply_all(p);
      return;
    }
    case Op::get_att: {
      const auto varid = static_cast<int>(a.i64());
      const std::string name = a.str();
      const auto memtype = static_cast<esmio_type>(a.i64());
      const int64_t len = a.i64();
      std::vector<char> values(static_cast<std::size_t>(len) * type_size(memtype));
      const Status s =
          outcome_of(esmio_get_att(file->handle, varid, name.c_str(), memtype, len, values.data()));
      Packer p = reply_head(s);
      p.bytes(values.data(), values.size());
      reply_all(p);
      return;
    }
    case Op::att_names: {
      const auto varid = static_cast<int>(a.i64());
      int natts = 0;
      Status st = outcome_of(esmio_inq_natts(file->handle, varid, &natts));
      Packer names;
      char name[ESMIO_MAX_NAME + 1] = {0};
      for (int k = 0; st.is_ok() && k < natts; ++k) {
        st = outcome_of(
            esmio_inq_attname(file->handle, varid, k, name, static_cast<int64_t>(sizeof name)));
        names.str(name);
      }
      Packer p = reply_head(st);
      p.i64(st.is_ok() ? natts : 0);
      if (st.is_ok() && names.size() > 0) p.raw_append(names);
      reply_all(p);
      return;
    }
    case Op::sync: {
      Status s = outcome_of(esmio_sync(file->handle));
      // The first failure since the last report wins: it is what went wrong first.
      if (!file->pending.is_ok()) s = file->pending;
      file->pending = Status::ok();
      reply_all(reply_head(s));
      return;
    }
    case Op::close: {
      Status s = outcome_of(esmio_close(&file->handle));
      if (!file->pending.is_ok())
        s = Status(file->pending.code(),
                   file->pending.message() +
                       (s.is_ok() ? std::string("; the file was closed")
                                  : "; closing the file then failed too: " + s.message()));
      files_.erase(first.file);
      reply_all(reply_head(s));
      return;
    }
  }
}

// The servers' check names the offset and server ranks: every server says which of its
// compute ranks give that offset, so that the message names compute ranks as without servers.
// Collective over the group (the failure is agreed, so every server is here).
template <typename Claims>
Status name_compute_ranks(MPI_Comm group, const Status &failed, const Claims &claims) {
  const std::string &text = failed.message();
  const std::size_t at = text.find("offset ");
  int64_t offset = -1;
  if (at != std::string::npos) offset = std::atoll(text.c_str() + at + 7);
  int range[2] = {INT_MAX, INT_MAX};  // lowest rank, and minus the highest
  for (const auto &c : claims)
    if (offset >= c.offset && offset < c.offset + c.length) {
      range[0] = std::min(range[0], c.rank);
      range[1] = std::min(range[1], -c.rank);
    }
  MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MIN, group);
  if (offset < 0 || range[0] == INT_MAX)
    return Status(failed.code(), text +
                                     " (ranks here are I/O servers, each holding the maps of a "
                                     "block of compute ranks)");
  const int lo = range[0], hi = -range[1];
  return Status(failed.code(), "decomposition: offset " + std::to_string(offset) +
                                   (lo == hi ? " is given twice by rank " + std::to_string(lo)
                                             : " is given by both rank " + std::to_string(lo) +
                                                   " and rank " + std::to_string(hi)));
}

void Server::decomp_create() {
  const int64_t serial = current_[0]->args->i64();
  const std::vector<int64_t> dims = current_[0]->args->i64s();
  ServedDecomp d;
  for (auto &m : current_) {
    if (&m != &current_[0]) {
      m->args->i64();
      m->args->i64s();
    }
    d.nlocal.push_back(m->args->i64());
    d.total += d.nlocal.back();
  }
  // The compute ranks' maps one after the other: this server's memory is their values in
  // client order. Holes stay -1.
  std::vector<int64_t> offsets(static_cast<std::size_t>(d.total), -1);
  // Each run with its compute rank, to find offsets two of them give (named by compute rank,
  // as without servers; the servers' own check would name server ranks).
  struct Claim {
    int64_t offset, length;
    int rank;
  };
  std::vector<Claim> claims;
  Status s;
  int64_t base = 0;
  for (std::size_t k = 0; k < clients_.size() && s.is_ok(); ++k) {
    const Message &m = *current_[k];
    const auto *runs = reinterpret_cast<const int64_t *>(m.data);
    const int64_t nruns = m.data_bytes / int64_t(3 * sizeof(int64_t));
    for (int64_t r = 0; r < nruns; ++r) {
      int64_t triple[3];
      std::memcpy(triple, runs + 3 * r, sizeof triple);
      if (triple[0] < 0 || triple[2] < 0 || triple[0] + triple[2] > d.nlocal[k]) {
        s = Status(ESMIO_EMPI, "esmio_decomp_create: a map from compute rank " +
                                   std::to_string(client_ranks_[k]) + " was garbled on its way");
        break;
      }
      for (int64_t i = 0; i < triple[2]; ++i)
        offsets[static_cast<std::size_t>(base + triple[0] + i)] = triple[1] + i;
      claims.push_back(Claim{triple[1], triple[2], client_ranks_[k]});
    }
    base += d.nlocal[k];
  }
  std::sort(claims.begin(), claims.end(),
            [](const Claim &a, const Claim &b) { return a.offset < b.offset; });
  int64_t end = INT64_MIN;
  int end_rank = -1;
  for (const Claim &c : claims) {
    if (!s.is_ok()) break;
    if (c.offset < end) {
      const int lo = std::min(end_rank, c.rank), hi = std::max(end_rank, c.rank);
      s = Status(ESMIO_EDECOMP, "decomposition: offset " + std::to_string(c.offset) +
                                    (lo == hi ? " is given twice by rank " + std::to_string(lo)
                                              : " is given by both rank " + std::to_string(lo) +
                                                    " and rank " + std::to_string(hi)));
    }
    if (c.offset + c.length > end) {
      end = c.offset + c.length;
      end_rank = c.rank;
    }
  }
  // Agreed among the servers before their collective call (a clash found by one server).
  s = agree(group_, s);
  // The same check over every server: a clash between two servers' ranks is found there, and
  // its rank numbers are the servers'.
  if (s.is_ok()) {
    s = outcome_of(esmio_decomp_create(io_, static_cast<int>(dims.size()), dims.data(), d.total,
                                       offsets.data(), &d.handle));
    if (s.code() == ESMIO_EDECOMP) s = name_compute_ranks(group_, s, claims);
  }
  if (s.is_ok()) decomps_[serial] = std::move(d);
  reply_all(reply_head(s));
}

void Server::decomp_freed_by(int64_t serial) {
  if (++free_votes_[serial] < clients_.size()) return;
  free_votes_.erase(serial);
  const auto it = decomps_.find(serial);
  if (it == decomps_.end()) return;
  if (it->second.handle) esmio_decomp_free(&it->second.handle);
  decomps_.erase(it);
}

void Server::write_darray(ServedFile *file) {
  Unpacker &a = *current_[0]->args;
  const auto varid = static_cast<int>(a.i64());
  const int64_t record = a.i64();
  const int64_t serial = a.i64();
  const auto type = static_cast<esmio_type>(a.i64());
  const ServedDecomp &d = decomps_[serial];
  const std::size_t esize = type_size(type);
  values_.resize(static_cast<std::size_t>(d.total) * esize);
  std::size_t at = 0;
  for (std::size_t k = 0; k < clients_.size(); ++k) {
    const Message &m = *current_[k];
    // Each compute rank sent its part of the decomposition, no more (a decomposition the
    // servers never made has no parts).
    if (d.nlocal.size() != clients_.size() ||
        m.data_bytes != d.nlocal[k] * static_cast<int64_t>(esize)) {
      file->keep(missing_decomp("esmio_write_darray", *file, varid, serial));
      return;
    }
    std::memcpy(values_.data() + at, m.data, static_cast<std::size_t>(m.data_bytes));
    at += static_cast<std::size_t>(m.data_bytes);
  }
  file->keep(outcome_of(
      esmio_write_darray(file->handle, varid, record, d.handle, type, values_.data(), d.total)));
}

void Server::read_darray(ServedFile *file) {
  Unpacker &a = *current_[0]->args;
  const auto varid = static_cast<int>(a.i64());
  const int64_t record = a.i64();
  const int64_t serial = a.i64();
  const auto type = static_cast<esmio_type>(a.i64());
  const ServedDecomp &d = decomps_[serial];
  if (d.nlocal.size() != clients_.size()) {
    reply_all(reply_head(missing_decomp("esmio_read_darray", *file, varid, serial)));
    return;
  }
  const std::size_t esize = type_size(type);
  values_.resize(static_cast<std::size_t>(d.total) * esize);
  const Status s = outcome_of(
      esmio_read_darray(file->handle, varid, record, d.handle, type, values_.data(), d.total));
  std::size_t at = 0;
  reply_each([&](std::size_t k) {
    Packer p = reply_head(s);
    const std::size_t n = static_cast<std::size_t>(d.nlocal[k]) * esize;
    p.bytes(values_.data() + at, s.is_ok() || s.code() == ESMIO_ERANGE ? n : 0);
    at += n;
    return p;
  });
}

// put_vara / get_vara's arguments: variable, start, count, the values' type.
struct Slice {
  int varid;
  std::vector<int64_t> start, count;
  esmio_type type;
  int64_t n = 1;
  explicit Slice(Unpacker &a)
      : varid(static_cast<int>(a.i64())),
        start(a.i64s()),
        count(a.i64s()),
        type(static_cast<esmio_type>(a.i64())) {
    for (int64_t c : count) n *= c;
  }
};

void Server::put_vara(ServedFile *file) {
  // Every compute rank passed the same values (their call digests agree); the first of this
  // server's compute ranks sent them.
  const Slice slice(*current_[0]->args);
  file->keep(outcome_of(esmio_put_vara(file->handle, slice.varid, slice.start.data(),
                                       slice.count.data(), slice.type, current_[0]->data)));
}

void Server::get_vara(ServedFile *file) {
  const Slice slice(*current_[0]->args);
  values_.resize(static_cast<std::size_t>(slice.n) * type_size(slice.type));
  const Status s = outcome_of(esmio_get_vara(file->handle, slice.varid, slice.start.data(),
                                             slice.count.data(), slice.type, values_.data()));
  Packer p = reply_head(s);
  p.bytes(values_.data(), values_.size());
  reply_all(p);
}

// The schema goes back to the compute ranks in the one schema encoding (common/schema_codec.hpp).
void Server::open_file() {
  Unpacker &a = *current_[0]->args;
  const std::string path = a.str();
  const auto mode = static_cast<int>(a.i64());
  const std::string settings = a.str();
  ServedFile &file = files_[current_[0]->file];
  file.path = path;
  Status s = outcome_of(esmio_open(io_, path.c_str(), mode, settings.c_str(), &file.handle));
  Packer p;
  if (s.is_ok()) {
    int ndims = 0, nvars = 0, unlimdim = -1;
    esmio_inq_ndims(file.handle, &ndims);
    esmio_inq_nvars(file.handle, &nvars);
    esmio_inq_unlimdim(file.handle, &unlimdim);
    FileSchema schema;
    char name[ESMIO_MAX_NAME + 1];
    for (int d = 0; d < ndims; ++d) {
      int64_t len = 0;
      esmio_inq_dimname(file.handle, d, name, sizeof name);
      esmio_inq_dimlen(file.handle, d, &len);
      schema.dims.push_back(SchemaDim{name, len, d == unlimdim});
    }
    for (int v = 0; v < nvars; ++v) {
      SchemaVar var;
      int nd = 0;
      var.dimids.resize(static_cast<std::size_t>(ndims) + 1);
      esmio_inq_varname(file.handle, v, name, sizeof name);
      esmio_inq_var(file.handle, v, &var.type, &nd, var.dimids.data());
      var.name = name;
      var.dimids.resize(static_cast<std::size_t>(nd));
      var.fill.resize(type_size(var.type));
      default_fill_value(var.type, var.fill.data());
      esmio_type att_type = ESMIO_BYTE;
      int64_t att_len = 0;
      if (esmio_inq_att(file.handle, v, "_FillValue", &att_type, &att_len) == ESMIO_NOERR &&
          att_type == var.type && att_len == 1)
        esmio_get_att(file.handle, v, "_FillValue", var.type, 1, var.fill.data());
      schema.vars.push_back(std::move(var));
    }
    const std::string bytes = encode_schema(schema);
    p = reply_head(s);
    p.bytes(bytes.data(), bytes.size());
  } else {
    file.keep(s);
    p = reply_head(s);
  }
  reply_all(p);
}

}  // namespace

bool serving() { return g_serving; }

Status serve(MPI_Comm world, MPI_Comm group, const Placement &placement,
             const std::string &settings, double trace_epoch, const InstanceHooks &hooks) {
  MPI_Win window = MPI_WIN_NULL;
  ESMIO_RETURN_IF_ERROR(open_server_window(world, &window));
  g_serving = true;
  Status status;
  {
    Server server(world, group, window, placement, trace_epoch, hooks);
    status = server.run(settings);
  }
  g_serving = false;
  MPI_Win_unlock_all(window);
  MPI_Win_free(&window);
  return status;
}

}  // namespace esmio::async
