#include "async/server.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "async/client.hpp"
#include "async/messages.hpp"
#include "async/mpi_status.hpp"
#include "async/outcome.hpp"
#include "async/protocol.hpp"
#include "async/server_loop.hpp"
#include "async/wire.hpp"
#include "common/agree.hpp"
#include "common/call_words.hpp"
#include "common/digest.hpp"
#include "common/types.hpp"
#include "datapath/describe.hpp"

namespace esmio::async {

namespace {

bool g_serving = false;

// This server's number among the servers (its index in placement.servers).
int server_index(const Placement &placement, int world_rank) {
  return static_cast<int>(
      std::find(placement.servers.begin(), placement.servers.end(), world_rank) -
      placement.servers.begin());
}

std::vector<int> world_ranks(const Placement &placement, const std::vector<int> &compute) {
  std::vector<int> ranks;
  for (int c : compute) ranks.push_back(placement.compute[c]);
  return ranks;
}

}  // namespace

Server::Server(MPI_Comm world, int world_rank, MPI_Comm group, const RingWindow &window,
               const Placement &placement, double trace_epoch, const InstanceHooks &hooks)
    : world_(world),
      group_(group),
      trace_epoch_(trace_epoch),
      hooks_(hooks),
      world_rank_(world_rank),
      // In the trace report the servers follow the compute ranks.
      report_rank_(static_cast<int>(placement.compute.size()) +
                   server_index(placement, world_rank_)),
      client_ranks_(placement.clients_of(server_index(placement, world_rank_))),
      clients_(world_ranks(placement, client_ranks_)),
      decomps_(client_ranks_),
      ring_(world, window, placement.group_of_server(server_index(placement, world_rank_)),
            clients_, [this](int64_t serial) { decomps_.freed_by(serial); }) {}

// A posted call in words, argument by argument where the protocol carries them, so that calls
// that differ are told apart by the argument that differs.
CallWords Server::words_of(const Message &m) const {
  const auto it = files_.find(m.file);
  const bool open = it != files_.end();
  const std::string path = open ? it->second.path : std::string();
  // The variable by name where this server has the file open.
  const auto variable = [&](int varid) {
    if (varid == ESMIO_GLOBAL) return std::string("global");
    char name[ESMIO_MAX_NAME + 1] = {0};
    const bool named =
        open && it->second.handle &&
        esmio_inq_varname(it->second.handle, varid, name, sizeof name) == ESMIO_NOERR;
    return (named ? datapath::quoted(name) + " " : std::string()) + "(varid " +
           std::to_string(varid) + ")";
  };
  CallWords call = std::visit(
      [&](const auto &a) -> CallWords {
        using A = std::decay_t<decltype(a)>;
        const char *what = op_name(m.op);
        if constexpr (std::is_same_v<A, DefDimArgs>) {
          return datapath::def_dim_call(path, a.name, a.len);
        } else if constexpr (std::is_same_v<A, DefVarArgs>) {
          std::vector<int64_t> ids(a.dimids.begin(), a.dimids.end());
          CallWords c = datapath::def_var_call(path, a.name, a.type, datapath::list_text(ids));
          c.args.back().first = "dimension ids";
          return c;
        } else if constexpr (std::is_same_v<A, PutAttArgs>) {
          const bool sent = a.len >= 0 && type_is_known(a.type) &&
                            m.data_bytes == a.len * static_cast<int64_t>(type_size(a.type));
          return datapath::put_att_call(
              path, variable(a.varid), a.name, a.type, a.len,
              sent ? datapath::values_text(a.type, m.data, a.len) : std::string("not sent"));
        } else if constexpr (std::is_same_v<A, WriteDarrayArgs> ||
                             std::is_same_v<A, ReadDarrayArgs>) {
          CallWords c = datapath::file_call(what, path);
          c.verb = std::is_same_v<A, WriteDarrayArgs> ? "writes" : "reads";
          c.args.emplace_back("variable", variable(a.varid));
          c.args.emplace_back("record", std::to_string(a.record));
          c.args.emplace_back("decomposition",
                              a.decomp < 0 ? "null" : "#" + std::to_string(a.decomp));
          c.args.emplace_back("memory type", datapath::type_text(a.type));
          return c;
        } else if constexpr (std::is_same_v<A, PutVaraArgs> || std::is_same_v<A, GetVaraArgs>) {
          // The values travel from one compute rank per server: compared by the digest.
          CallWords c =
              datapath::vara_call(what, path, variable(a.varid), datapath::list_text(a.start),
                                  datapath::list_text(a.count), a.type, nullptr);
          if (std::is_same_v<A, PutVaraArgs>) c.verb = "writes";
          return c;
        } else if constexpr (std::is_same_v<A, InqAttArgs>) {
          return datapath::att_inquiry_call(what, path, variable(a.varid), &a.name, nullptr,
                                            nullptr);
        } else if constexpr (std::is_same_v<A, GetAttArgs>) {
          return datapath::att_inquiry_call(what, path, variable(a.varid), &a.name, &a.memtype,
                                            &a.len);
        } else if constexpr (std::is_same_v<A, AttNamesArgs>) {
          return datapath::att_inquiry_call(what, path, variable(a.varid), nullptr, nullptr,
                                            nullptr);
        } else if constexpr (std::is_same_v<A, CreateArgs> || std::is_same_v<A, OpenArgs>) {
          CallWords c{what, "passes", {{"path", datapath::quoted(a.path)}}, ""};
          if constexpr (std::is_same_v<A, OpenArgs>)
            c.args.emplace_back("mode", std::to_string(a.mode));
          c.args.emplace_back("settings", datapath::quoted(a.settings));
          return c;
        } else if constexpr (std::is_same_v<A, DecompCreateArgs>) {
          return datapath::decomp_call(what, a.dims);
        } else {
          return datapath::file_call(what, path);
        }
      },
      m.args);
  call.verb = call.verb == "calls" ? "posts" : call.verb;
  // A file this server does not have open (yet): by the number the compute ranks gave it.
  if (!open && !call.args.empty() && call.args.front().first == "file")
    call.args.front().second = "number " + std::to_string(m.file);
  return call;
}

// The call every client posted, compared among them, then among the servers.
Status Server::agree_current() {
  const Message &first = ring_.message(0);
  Status local;
  for (std::size_t k = 0; k < ring_.size(); ++k) {
    const Message &m = ring_.message(k);
    if (m.op != first.op || m.file != first.file || m.digest != first.digest) {
      CallWords a = words_of(first), b = words_of(m);
      // Arguments the protocol does not carry to every server (put_vara's values, an
      // attribute's) differ in the digest alone: named by it.
      if (a.call == b.call && a.args == b.args) {
        a.args.emplace_back("arguments' digest", std::to_string(first.digest));
        b.args.emplace_back("arguments' digest", std::to_string(m.digest));
      }
      local = Status(ESMIO_EMISMATCH,
                     "compute ranks posted different calls (or the same call with different "
                     "arguments; ranks in the world communicator): " +
                         contrast(first.source, encode(a), m.source, encode(b)));
      break;
    }
    if (!m.local.is_ok() && local.is_ok()) local = m.local;
  }
  const uint64_t digest = Digest("async")
                              .add(static_cast<int64_t>(first.op))
                              .add(first.file)
                              .add(static_cast<int64_t>(first.digest))
                              .value();
  // Servers whose compute ranks agree among themselves but not with another server's: each
  // server's words are the call its compute ranks posted.
  return agree_call(group_, local, digest, [&] { return encode(words_of(first)); });
}

Status Server::reply_all(const Packer &reply) {
  for (int client : clients_)
    ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Send(reply.data().data(), static_cast<int>(reply.size()),
                                              MPI_BYTE, client, kTagReply, world_),
                                     "MPI_Send", "a reply to a compute rank"));
  return Status::ok();
}

Status Server::reply_each(const std::function<Packer(std::size_t)> &reply) {
  for (std::size_t k = 0; k < clients_.size(); ++k) {
    const Packer p = reply(k);
    ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Send(p.data().data(), static_cast<int>(p.size()), MPI_BYTE,
                                              clients_[k], kTagReply, world_),
                                     "MPI_Send", "a reply to a compute rank"));
  }
  return Status::ok();
}

Status Server::run(const std::string &settings) {
  // The compute ranks wait for answers whatever happens here: an instance that could not be
  // made fails every call (alike on every server of the group: esmio_init agrees).
  instance_pending_ = outcome_of(esmio_init(group_, settings.c_str(), &io_));
  if (io_) {
    if (hooks_.counters) counters_ = hooks_.counters(io_);
    ring_.set_counters(counters_);
    if (hooks_.align_trace && !std::isnan(trace_epoch_)) hooks_.align_trace(io_, trace_epoch_);
    if (hooks_.keep_final_entry)
      hooks_.keep_final_entry(io_, report_rank_, world_rank_, &final_entry_);
  }
  // A failing MPI call ends the loop with its failure: the compute ranks can no longer be
  // read or answered.
  while (!done_) {
    ESMIO_RETURN_IF_ERROR(ring_.receive_next());
    const Status agreed = agree_current();
    const Message &first = ring_.message(0);
    if (agreed.is_ok()) {
      ESMIO_RETURN_IF_ERROR(dispatch());
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
      for (std::size_t k = 0; k < ring_.size(); ++k)
        at_write |= ring_.message(k).op == Op::write_darray ? 1 : 0;
      ESMIO_RETURN_IF_ERROR(
          mpi_status(MPI_Allreduce(MPI_IN_PLACE, &at_write, 1, MPI_INT, MPI_MAX, group_),
                     "MPI_Allreduce", "whether a write_darray is among the refused calls"));
      if (at_write) {
        ESMIO_RETURN_IF_ERROR(ring_.skip_to_boundary());
        continue;  // the boundary is the next call
      }
      if (waits_for_reply(first.op)) ESMIO_RETURN_IF_ERROR(reply_all(encode_failure_alone(agreed)));
      if (first.op == Op::finalize) done_ = true;
    }
    ring_.drop_all();
  }
  return finalize_instance();
}

Status Server::finalize_instance() {
  if (io_ == nullptr) return Status::ok();
  counters_ = nullptr;
  ring_.set_counters(nullptr);
  for (auto &f : files_)
    if (f.second.handle) esmio_close(&f.second.handle);
  decomps_.free_all();
  return outcome_of(esmio_finalize(&io_));
}

template <typename Reply>
Status Server::reply_trace(const Status &status, const std::string &mine) {
  const char *what = "gathering the servers' trace entries";
  int group_rank = 0;
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_rank(group_, &group_rank), "MPI_Comm_rank", what));
  const bool takes_rank0 =
      std::find(client_ranks_.begin(), client_ranks_.end(), 0) != client_ranks_.end();
  int root = takes_rank0 ? group_rank : -1;
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Allreduce(MPI_IN_PLACE, &root, 1, MPI_INT, MPI_MAX, group_),
                                   "MPI_Allreduce", what));
  if (root < 0) root = 0;  // every group takes every compute rank: not expected
  int nservers = 0;
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_size(group_, &nservers), "MPI_Comm_size", what));
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(group_rank == root ? static_cast<std::size_t>(nservers) : 0);
  ESMIO_RETURN_IF_ERROR(
      mpi_status(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, group_),
                 "MPI_Gather", what));
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = total;
    total += lengths[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  ESMIO_RETURN_IF_ERROR(
      mpi_status(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(),
                             offsets.data(), MPI_CHAR, root, group_),
                 "MPI_Gatherv", what));
  // One entry per line (an entry is one line of JSON).
  std::string joined;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] == 0) continue;
    if (!joined.empty()) joined += ",\n";
    joined.append(all, static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i]));
  }
  return reply_each([&](std::size_t k) {
    return Reply{status, client_ranks_[k] == 0 ? joined : std::string()}.encode();
  });
}
template Status Server::reply_trace<FinalizeReply>(const Status &, const std::string &);
template Status Server::reply_trace<TraceReportReply>(const Status &, const std::string &);

bool serving() { return g_serving; }

Status serve(MPI_Comm world, MPI_Comm group, const Placement &placement,
             const std::string &settings, const std::string &transport, double trace_epoch,
             const InstanceHooks &hooks) {
  int world_rank = 0;
  ESMIO_RETURN_IF_ERROR(
      mpi_status(MPI_Comm_rank(world, &world_rank), "MPI_Comm_rank", "an I/O server's rank"));
  RingWindow window;
  ESMIO_RETURN_IF_ERROR(open_server_window(world, placement, transport, &window));
  g_serving = true;
  Status status;
  {
    Server server(world, world_rank, group, window, placement, trace_epoch, hooks);
    status = server.run(settings);
  }
  g_serving = false;
  // The first failure is the one to report.
  const Status closed = close_ring_window(&window, "the I/O servers' window, at the end");
  return status.is_ok() ? closed : status;
}

}  // namespace esmio::async
