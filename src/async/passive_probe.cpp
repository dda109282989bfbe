#include "async/passive_probe.hpp"

#include <time.h>

#include <algorithm>

#include "async/mpi_status.hpp"
#include "async/protocol.hpp"

namespace esmio::async {

namespace {

// The byte the server puts into the probed rank's buffer.
constexpr char kMark = 1;

}  // namespace

Status probe_passive_reads(MPI_Comm world, MPI_Win window, const Placement &placement,
                           char *own_buffer, bool *passive) {
  const char *what = "esmio_init: probing the async buffers' window";
  int rank = 0;
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_rank(world, &rank), "MPI_Comm_rank", what));
  *passive = true;
  const auto server = std::find(placement.servers.begin(), placement.servers.end(), rank);
  const bool is_server = server != placement.servers.end();
  // Every compute rank's buffer is there (else nothing is probed), and the probed bytes are
  // cleared before any server writes one.
  if (!is_server && own_buffer != nullptr) *static_cast<volatile char *>(own_buffer) = 0;
  int have = is_server || own_buffer != nullptr ? 1 : 0, all_have = 0;
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, world),
                                   "MPI_Allreduce", what));
  if (all_have == 0) return Status::ok();
  int moved = 1;  // this rank's vote: 0 where the server's byte waited for the rank
  Status status;
  if (is_server) {
    const std::vector<int> clients =
        placement.clients_of(static_cast<int>(server - placement.servers.begin()));
    if (!clients.empty()) {
      const int target = placement.compute[static_cast<std::size_t>(clients.front())];
      // A read while the rank waits inside MPI for the notice that follows it (what MPI sets
      // up on first use is then set up); then, once the rank sleeps, the byte.
      char byte = 0;
      int done = 1;
      status =
          mpi_status(MPI_Get(&byte, 1, MPI_BYTE, target, 0, 1, MPI_BYTE, window), "MPI_Get", what);
      if (status.is_ok()) status = mpi_status(MPI_Win_flush(target, window), "MPI_Win_flush", what);
      if (status.is_ok())
        status =
            mpi_status(MPI_Send(&done, 1, MPI_INT, target, kTagProbe, world), "MPI_Send", what);
      if (status.is_ok()) {
        const timespec settle{0, kProbeSleepNs / 5};
        nanosleep(&settle, nullptr);
        const char mark = kMark;
        status = mpi_status(MPI_Put(&mark, 1, MPI_BYTE, target, 0, 1, MPI_BYTE, window), "MPI_Put",
                            what);
        if (status.is_ok())
          status = mpi_status(MPI_Win_flush(target, window), "MPI_Win_flush", what);
      }
    }
  } else {
    // A probed compute rank: inside MPI for the first read, then out of it; is the server's
    // byte in its buffer when it wakes, before it calls MPI again?
    int server_rank = -1;
    for (std::size_t s = 0; s < placement.servers.size() && server_rank < 0; ++s) {
      const std::vector<int> clients = placement.clients_of(static_cast<int>(s));
      if (!clients.empty() && placement.compute[static_cast<std::size_t>(clients.front())] == rank)
        server_rank = placement.servers[s];
    }
    if (server_rank >= 0) {
      int done = 0;
      status =
          mpi_status(MPI_Recv(&done, 1, MPI_INT, server_rank, kTagProbe, world, MPI_STATUS_IGNORE),
                     "MPI_Recv", what);
      const timespec pause{0, kProbeSleepNs};
      nanosleep(&pause, nullptr);
      moved = *static_cast<volatile char *>(own_buffer) == kMark ? 1 : 0;
    }
  }
  int all = 0;
  const Status agreed =
      mpi_status(MPI_Allreduce(&moved, &all, 1, MPI_INT, MPI_MIN, world), "MPI_Allreduce", what);
  *passive = all == 1;
  return status.is_ok() ? agreed : status;
}

const char *passive_reads_warning() {
  return "esmio: io_servers: MPI moves a compute rank's async buffer only while that rank is "
         "inside MPI (Open MPI's osc/pt2pt, which it uses when vader's single copy is off), so "
         "the I/O servers cannot work while the model computes and are slower than synchronous "
         "I/O; see docs/async.md, \"What the servers need from MPI\"";
}

}  // namespace esmio::async
