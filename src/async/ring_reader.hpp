// The server's side of the compute ranks' rings (client.hpp): it waits for each compute rank's
// notice, reads the message out of that rank's ring and parses the head (protocol.hpp). With the
// shared transport the message is read in place and its space given back when the call it
// carries is done (dropped); with rma it is copied out with MPI_Get and given back at once. Notices
// and returns go through the rank's notice board with the shared transport, as MPI messages with
// rma (ring_window.hpp). One current message per compute rank the server takes: the call the server
// replays next is the one all of them hold.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "async/messages.hpp"
#include "async/protocol.hpp"
#include "async/ring_window.hpp"
#include "async/wire.hpp"
#include "common/status.hpp"
#include "trace/counters.hpp"

namespace esmio::async {

// One compute rank's posted call, as read from its ring.
struct Message {
  int source = -1;  // world rank
  int64_t id = -1;
  int64_t length = 0;
  Op op = Op::finalize;
  int64_t file = -1;
  uint64_t digest = 0;
  Status local;
  Args args;  // the op's arguments, after the head
  const char *data = nullptr;
  int64_t data_bytes = 0;
};

class RingReader {
 public:
  // group: this server's group; clients: the world ranks of the compute ranks this server
  // takes; decomp_freed is told each decomposition a message's head says its compute rank
  // freed. The window outlives the reader.
  RingReader(MPI_Comm world, const RingWindow &window, int group, std::vector<int> clients,
             std::function<void(int64_t)> decomp_freed);

  std::size_t size() const { return clients_.size(); }
  // Client k's current message (read, not yet dropped).
  Message &message(std::size_t k) { return *current_[k]; }
  const Message &message(std::size_t k) const { return *current_[k]; }

  // Reads the next message of every client whose current one was dropped: after a replayed
  // call all of them, with the reads of all of them in flight at once. A failing MPI call
  // fails it (a message that came garbled does not: its Message says so in local).
  Status receive_next();
  // Drops write_darray messages until each client's next boundary (protocol.hpp).
  Status skip_to_boundary();
  // The current call was replayed (or refused): every client's message is released (its space
  // goes back to the compute rank) and every client's next message is read next.
  void drop_all();
  // Where the server's waits are counted (null: nowhere).
  void set_counters(trace::Counters *counters) { counters_ = counters; }

 private:
  // Reads the next message of every client (waits for their notices).
  Status receive_all();
  // Reads the next message of client k.
  Status receive(std::size_t k);
  // The two halves: the notice and the MPI_Get into client k's buffer; then, after the reads
  // completed, the space given back and the head parsed.
  Status start_read(std::size_t k);
  Status finish_read(std::size_t k);
  // Client k's current message is done with: its space goes back (shared), it is dropped.
  void release(std::size_t k);

  // Client k's notice, waited for (politely).
  Status wait_notice(std::size_t k, Notice *notice);
  // Client k's segment of the shared window (shared transport; looked up on first use).
  Status segment(std::size_t k, char **out);
  bool shared() const { return window_.transport == RingTransport::shared; }

  MPI_Comm world_;
  const RingWindow &window_;
  int group_;
  std::vector<int> clients_;
  std::vector<char *> segments_;  // shared: per client, its board then its ring
  std::vector<int64_t> taken_;    // shared: per client, the notices taken
  std::function<void(int64_t)> decomp_freed_;
  trace::Counters *counters_ = nullptr;
  std::vector<std::optional<Message>> current_;
  std::vector<std::vector<char>> buffers_;  // rma: per client, reused: the message read
  std::vector<const char *> views_;         // per client: the current message's bytes
};

}  // namespace esmio::async
