// The compute rank's side of asynchronous mode: its ring buffer, exposed to the servers through
// an MPI window, and the posting of messages into it (protocol.hpp).
//
// Why a window: a message's bytes must reach the server while the model computes, without the
// compute rank entering MPI again. A large send does not move before the receiver is there
// (rendezvous) and needs the sender's MPI to progress it; a progress thread needs
// MPI_THREAD_MULTIPLE from the model. With the data in a window the server pulls it with
// MPI_Get at its own pace (passive target): out of shared memory where every rank shares a
// node, through the MPI's one-sided component otherwise (ring_window.hpp; docs/async.md has the
// measurement). The compute rank only publishes a notice of three integers: on its notice board
// in shared memory (notice_board.hpp), or as an eager send with rma.
//
// The ring holds messages in posting order. A server returns each message's id once it has
// read it (on the board, or kTagFreed); the space of the oldest messages becomes free as their
// ids come back. A post that does not fit waits for ids (back-pressure), timed into the trace.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "async/placement.hpp"
#include "async/protocol.hpp"
#include "async/ring_window.hpp"
#include "async/wire.hpp"
#include "common/status.hpp"
#include "trace/counters.hpp"

namespace esmio::async {

class Client {
 public:
  // Collective over world with the servers' serve(): creates the window over the ring of
  // buffer_bytes by the async_transport named (ring_window.hpp), and with pages_at_init
  // (async_buffer_pages=init) takes the ring's memory at once. world is the instance's
  // duplicate of esmio_init's communicator (kept).
  static Status make(MPI_Comm world, const Placement &placement, int64_t buffer_bytes,
                     const std::string &transport, bool pages_at_init,
                     std::unique_ptr<Client> *out);
  ~Client();
  Client(const Client &) = delete;
  Client &operator=(const Client &) = delete;

  int groups() const { return placement_.groups; }
  // The server group of the file-th file created or opened.
  int group_of_file(int64_t file) const { return static_cast<int>(file % placement_.groups); }
  // True if this rank is the first of the compute ranks its server in group g takes.
  bool first_of_server(int g) const;

  // Posts a message to this rank's server of group g: the head, the op's arguments, then
  // data_bytes bytes written by fill (which may convert straight into the ring). Waits while
  // the ring is full. Local. A message too large for the ring goes without its data and with
  // the error in its head (the server must see every call, or the ranks' streams part), and
  // the error is returned.
  Status post(int g, const Head &head, const Packer &args, int64_t data_bytes,
              const std::function<void(char *)> &fill, trace::Counters *file_counters,
              trace::Counters *instance_counters);
  // A decomposition this rank freed: told to the servers with its next post to each group
  // (esmio_decomp_free is local, so it posts nothing itself); a server frees its own once every
  // compute rank it takes has told it.
  void decomp_freed(int64_t serial);

  // Waits for the reply of this rank's server of group g to the last call posted there. The
  // replies of closes posted before it in the background (expect_close) come first: they are
  // received and kept.
  Status reply(int g, std::vector<char> *out);

  // A close of path posted to group g whose reply the caller does not wait for
  // (io_server_close=background): received with the group's next reply, when this rank next
  // posts or waits for ring space (a server blocked in sending it must not wait for this rank's
  // next reply), or by settle_close. Paths are compared as absolute, normal paths.
  void expect_close(int g, const std::string &path);
  // Receives the replies of the background closes of path still due; their outcomes are kept.
  Status wait_for_close(const std::string &path);
  // The same, and takes the outcomes. *found: whether path had a background close not yet
  // settled; *outcome: the first failure among the servers' outcomes of its closes (a path
  // closed twice before this), else success.
  Status settle_close(const std::string &path, bool *found, Status *outcome);
  // Receives every background close's reply still due and hands over the outcomes not yet
  // asked for, in closing order.
  Status settle_all_closes(std::vector<std::pair<std::string, Status>> *outcomes);

  // After the finalize replies: the window is freed (collective over world with the servers).
  Status close_window();

 private:
  Client() = default;
  struct InFlight {
    int64_t id, offset, length;
    int group;
    bool freed;
  };
  // Where a message of length bytes fits now, or -1.
  int64_t fits(int64_t length) const;
  // Takes the ids the servers returned (wait: block for at least one): from the board with the
  // shared transport, by MPI with rma (receive_freed).
  Status take_freed(bool wait);
  Status receive_freed(bool wait);
  void mark_freed(InFlight &m);

  MPI_Comm world_ = MPI_COMM_NULL;
  Placement placement_;
  int compute_index_ = -1;
  RingWindow ring_;
  int64_t ring_size_ = 0;
  std::deque<InFlight> in_flight_;
  std::vector<int64_t> unfreed_;     // per group: messages in flight not yet returned
  std::vector<int64_t> seen_freed_;  // shared transport, per group: the board's last watermark
  int64_t head_ = 0;                 // end of the newest message
  int64_t next_id_ = 0;
  std::vector<std::vector<int64_t>> freed_;  // per group: decompositions freed, not yet told
  // Background closes: per group the paths whose reply is still due, in posting order, and the
  // outcomes received but not yet asked for.
  struct Closed {
    std::string key, path;  // key: the path made absolute and normal
    Status outcome;
  };
  std::vector<std::deque<std::pair<std::string, std::string>>> closes_due_;  // (key, path)
  std::vector<Closed> closed_;
  // Receives the reply of group g's oldest background close into closed_.
  Status receive_close(int g);
  // Receives the replies of background closes that have arrived (MPI_Iprobe), without waiting.
  Status poll_closes();
  bool closes_due() const;
  // The reply itself, from this rank's server of group g.
  Status receive_reply(int g, std::vector<char> *out);
};

// The servers' side of the window: collective over world with Client::make (the same transport
// named). The servers expose no memory.
Status open_server_window(MPI_Comm world, const Placement &placement, const std::string &transport,
                          RingWindow *window);

}  // namespace esmio::async
