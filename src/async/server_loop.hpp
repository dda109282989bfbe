// The server loop (server.hpp) as a class: its state is shared by the loop itself, which reads
// the compute ranks' calls, agrees on them and answers (server.cpp), and the replay of each
// call on the server's own instance (replay.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "async/placement.hpp"
#include "async/protocol.hpp"
#include "async/ring_reader.hpp"
#include "async/ring_window.hpp"
#include "async/served_decomps.hpp"
#include "async/server.hpp"
#include "async/wire.hpp"
#include "common/call_words.hpp"
#include "common/status.hpp"
#include "esmio.h"
#include "trace/counters.hpp"

namespace esmio::async {

// A file of the compute ranks, as this server holds it.
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
  Server(MPI_Comm world, int world_rank, MPI_Comm group, const RingWindow &window,
         const Placement &placement, double trace_epoch, const InstanceHooks &hooks);

  Status run(const std::string &settings);

 private:
  // The loop (server.cpp).
  // The call every client posted, compared among them, then among the servers.
  Status agree_current();
  CallWords words_of(const Message &m) const;
  Status reply_all(const Packer &reply);
  Status reply_each(const std::function<Packer(std::size_t)> &reply);
  // Closes what the compute ranks left and finalizes this server's instance (once).
  Status finalize_instance();
  // The group's entries of the trace report (mine: this server's), joined, on the server that
  // takes compute rank 0's calls, sent to it with status as a Reply (FinalizeReply or
  // TraceReportReply; the other clients get an empty text). Collective over the group.
  template <typename Reply>
  Status reply_trace(const Status &status, const std::string &mine);

  // The replay of the agreed call (replay.cpp): through the handler of its op, which takes
  // the call's file (null for the instance's calls) and reads the arguments of the first
  // client's message (the clients agreed on them). The call's outcome goes to the compute
  // ranks (or is kept for the file's next report); what the handler returns is a failure to
  // reach them (a failing MPI call).
  Status dispatch();
  using Replay = Status (Server::*)(ServedFile *file);
  static Replay replay_of(Op op);
  template <typename A>
  const A &args() const {
    return std::get<A>(ring_.message(0).args);
  }
  Status finalize(ServedFile *);
  Status trace_report(ServedFile *);
  Status stage_wait(ServedFile *);
  Status decomp_create(ServedFile *);
  Status create(ServedFile *file);
  // The schema goes back to the compute ranks with the reply.
  Status open_file(ServedFile *);
  Status def_dim(ServedFile *file);
  Status def_var(ServedFile *file);
  Status put_att(ServedFile *file);
  Status def_var_chunking(ServedFile *file);
  Status def_var_compress(ServedFile *file);
  Status def_var_quantize(ServedFile *file);
  Status enddef(ServedFile *file);
  Status redef(ServedFile *file);
  Status write_darray(ServedFile *file);
  Status read_darray(ServedFile *file);
  Status put_vara(ServedFile *file);
  Status get_vara(ServedFile *file);
  Status inq_att(ServedFile *file);
  Status get_att(ServedFile *file);
  Status att_names(ServedFile *file);
  Status sync(ServedFile *file);
  Status close(ServedFile *file);

  MPI_Comm world_, group_;
  double trace_epoch_;
  InstanceHooks hooks_;
  int world_rank_ = 0;
  int report_rank_ = 0;
  trace::Counters *counters_ = nullptr;  // the instance's (null: it could not be made)
  std::string final_entry_;              // the instance's trace entry, left by its finalize
  std::vector<int> client_ranks_;        // the compute ranks this server takes, as ranks of theirs
  std::vector<int> clients_;             // the same, as world ranks
  esmio_t io_ = nullptr;
  std::map<int64_t, ServedFile> files_;
  ServedDecomps decomps_;
  RingReader ring_;
  Status instance_pending_;   // failures of instance calls (decompositions), for finalize
  std::vector<char> values_;  // the concatenated values of a data call (reused)
  bool done_ = false;
};

}  // namespace esmio::async
