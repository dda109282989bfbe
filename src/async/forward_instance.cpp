#include "async/forward_instance.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "async/client.hpp"
#include "async/forward_engine.hpp"
#include "async/messages.hpp"
#include "async/protocol.hpp"
#include "async/wire.hpp"
#include "common/agree.hpp"

namespace esmio::async {
namespace {

// The servers' outcome of a close posted with io_server_close=background, as reported later.
Status closed_in_background(const std::string &path, const Status &outcome) {
  if (outcome.is_ok()) return outcome;
  return Status(outcome.code(),
                "esmio_close of '" + path +
                    "' in the background (io_server_close=background): " + outcome.message());
}

class ForwardInstance final : public datapath::InstanceEngine {
 public:
  ForwardInstance(MPI_Comm world, std::unique_ptr<Client> client, datapath::Group &group)
      : world_(world), client_(std::move(client)), group_(group) {}

  std::unique_ptr<datapath::Engine> file_engine(datapath::FileState &file) override {
    return make_forward_engine(group_, file,
                               ForwardingContext{client_.get(), &next_file_, &remote_copies_});
  }

  // The servers rearrange: every server group builds its plan from the maps of the compute
  // ranks it takes (async/served_decomps.cpp). A map too large for the buffer fails there, alike.
  Status create_decomp(datapath::Decomp *decomp) override {
    const Packer args = DecompCreateArgs{decomp->serial, decomp->dims, decomp->map.nlocal}.encode();
    const auto &runs = decomp->map.runs;
    const auto bytes = static_cast<int64_t>(runs.size() * sizeof(decomp::MapRun));
    static_assert(sizeof(decomp::MapRun) == 3 * sizeof(int64_t), "runs travel as triples");
    Status posted;
    for (int g = 0; g < client_->groups(); ++g) {
      const Status s = client_->post(
          g, Head{Op::decomp_create, -1, 0, Status::ok()}, args, bytes,
          [&](char *to) { std::memcpy(to, runs.data(), static_cast<std::size_t>(bytes)); }, nullptr,
          &group_.counters);
      if (posted.is_ok()) posted = s;
    }
    // The servers answer: a map they refuse fails here, as it would without servers.
    for (int g = 0; g < client_->groups(); ++g) {
      DecompCreateReply reply;
      Status s = receive(g, &reply);
      if (s.is_ok()) s = reply.status;
      if (posted.is_ok()) posted = s;
    }
    return agree(group_.comm, posted);
  }

  // Told with the next post to each server group (client.hpp).
  void free_decomp(const datapath::Decomp &decomp) override {
    client_->decomp_freed(decomp.serial);
  }

  // A background close of the path still running ends first (its outcome is kept for
  // esmio_stage_wait or esmio_finalize): the path may be held by another server group.
  Status before_file(const std::string &path) override { return client_->wait_for_close(path); }

  // A background close of target first (io_server_close=background), then its copy, which the
  // servers of the file's group hold.
  Status stage_wait(const std::string &target, bool *pending) override {
    bool closing = false;
    Status closed;
    ESMIO_RETURN_IF_ERROR(client_->settle_close(target, &closing, &closed));
    auto it = std::find_if(remote_copies_.begin(), remote_copies_.end(),
                           [&](const auto &c) { return c.first == target; });
    const bool copying = it != remote_copies_.end();
    *pending = closing || copying;
    if (!copying || !closed.is_ok()) {
      // A close that failed left no copy for the servers to finish.
      remote_copies_.erase(std::remove_if(remote_copies_.begin(), remote_copies_.end(),
                                          [&](const auto &c) { return c.first == target; }),
                           remote_copies_.end());
      return closed_in_background(target, closed);
    }
    const int group = it->second;
    remote_copies_.erase(it);
    const Packer args = StageWaitArgs{target}.encode();
    client_->post(group, Head{Op::stage_wait, -1, 0, Status::ok()}, args, 0, nullptr, nullptr,
                  &group_.counters);
    StageWaitReply reply;
    ESMIO_RETURN_IF_ERROR(receive(group, &reply));
    return reply.status;
  }

  // Every server group answers with the failures of instance calls it kept; then the servers
  // leave their loop and the window goes (collective over the world). With the trace on, the
  // server that takes rank 0's calls adds its group's entries of the trace report (the
  // servers' last work included).
  Status finalize(std::vector<std::string> *server_entries) override {
    // Background closes not waited for: the first failure, naming its file.
    std::vector<std::pair<std::string, Status>> background;
    Status status = client_->settle_all_closes(&background);
    for (const auto &[path, outcome] : background)
      if (status.is_ok()) status = closed_in_background(path, outcome);
    for (int g = 0; g < client_->groups(); ++g)
      client_->post(g, Head{Op::finalize, -1, 0, Status::ok()}, FinalizeArgs{}.encode(), 0, nullptr,
                    nullptr, &group_.counters);
    for (int g = 0; g < client_->groups(); ++g) {
      FinalizeReply reply;
      Status s = receive(g, &reply);
      if (s.is_ok()) {
        s = reply.status;
        // A failed finalize still brings the entries of the servers' work.
        if (!reply.entries.empty()) server_entries->push_back(std::move(reply.entries));
      }
      if (status.is_ok()) status = s;
    }
    const Status closed = client_->close_window();
    if (status.is_ok()) status = closed;
    client_.reset();
    MPI_Comm_free(&world_);
    return status;
  }

  // Every server group's entries, from the server that takes compute rank 0's calls (the other
  // compute ranks get none).
  Status server_trace(std::vector<std::string> *entries) override {
    for (int g = 0; g < client_->groups(); ++g)
      ESMIO_RETURN_IF_ERROR(client_->post(g, Head{Op::trace_report, -1, 0, Status::ok()},
                                          TraceReportArgs{}.encode(), 0, nullptr, nullptr,
                                          &group_.counters));
    Status status;
    for (int g = 0; g < client_->groups(); ++g) {
      TraceReportReply reply;
      Status s = receive(g, &reply);
      if (s.is_ok()) {
        s = reply.status;
        if (s.is_ok() && !reply.entries.empty()) entries->push_back(std::move(reply.entries));
      }
      if (status.is_ok()) status = s;
    }
    return status;
  }

 private:
  // Waits for the reply of this rank's server of group g to the last call posted there, and
  // decodes it: the failure to receive or decode it (the servers' outcome is reply->status).
  template <typename Reply>
  Status receive(int g, Reply *reply) {
    std::vector<char> bytes;
    ESMIO_RETURN_IF_ERROR(client_->reply(g, &bytes));
    Unpacker u(bytes.data(), bytes.size());
    return Reply::decode(u, reply);
  }

  MPI_Comm world_;
  std::unique_ptr<Client> client_;
  datapath::Group &group_;
  int64_t next_file_ = 0;  // files created or opened, in order: the servers' name for a file
  // Staged files closed with stage_copy=finalize or background whose copy the servers finish
  // later: path and the server group that holds it.
  std::vector<std::pair<std::string, int>> remote_copies_;
};

}  // namespace

Status make_forward_instance(MPI_Comm world, const Placement &placement, int64_t buffer_bytes,
                             const std::string &transport, bool pages_at_init,
                             datapath::Group &group,
                             std::unique_ptr<datapath::InstanceEngine> *out) {
  std::unique_ptr<Client> client;
  ESMIO_RETURN_IF_ERROR(
      Client::make(world, placement, buffer_bytes, transport, pages_at_init, &client));
  *out = std::make_unique<ForwardInstance>(world, std::move(client), group);
  return Status::ok();
}

}  // namespace esmio::async
