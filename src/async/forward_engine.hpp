// The forwarding engine: on a compute rank in asynchronous mode, a file's call, once its checks
// passed and the compute ranks agreed on it, is posted to the file's I/O servers (client.hpp)
// instead of running the data path here; the servers replay it on their own instance
// (server.hpp). The compute ranks keep the file's mirror for the API's checks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "async/client.hpp"
#include "datapath/engine.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"

namespace esmio::async {

// What the instance's forwarding engine (forward_instance.hpp) lends a file's: its client, the
// number the next file created or opened gets (the servers' name for it, alike on every compute
// rank), and where a staged file whose copy the servers finish later is noted, with the
// server group that holds it (esmio_stage_wait, esmio_finalize). All outlive the engine.
struct ForwardingContext {
  Client *client = nullptr;
  int64_t *next_file = nullptr;
  std::vector<std::pair<std::string, int>> *remote_copies = nullptr;
};

// group: the compute ranks. file and group outlive the engine.
std::unique_ptr<datapath::Engine> make_forward_engine(datapath::Group &group,
                                                      datapath::FileState &file,
                                                      const ForwardingContext &context);

}  // namespace esmio::async
