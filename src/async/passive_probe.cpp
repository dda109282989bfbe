#include "async/passive_probe.hpp"

#include <time.h>

#include <algorithm>

#include "async/mpi_status.hpp"
#include "async/protocol.hpp"

namespace esmio::async {

Status probe_passive_reads(MPI_Comm world, MPI_Win window, const Placement &placement,
                           bool have_buffer, bool *passive) {
  const char *what = "esmio_init: probing the async buffers' window";
  int rank = 0;
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_rank(world, &rank), "MPI_Comm_rank", what));
  *passive = true;
  // Every buffer is there, and the ranks leave this together (the probed ones then sleep).
  int have = have_buffer ? 1 : 0, all_have = 0;
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, world),
                                   "MPI_Allreduce", what));
  if (all_have == 0) return Status::ok();
  int moved = 1;  // this rank's vote: 0 where a read waited for its target
  Status status;
  const auto server = std::find(placement.servers.begin(), placement.servers.end(), rank);
  if (server != placement.servers.end()) {
    const std::vector<int> clients =
        placement.clients_of(static_cast<int>(server - placement.servers.begin()));
    if (!clients.empty()) {
      const int target = placement.compute[static_cast<std::size_t>(clients.front())];
      // First a read while the rank waits inside MPI for the notice that follows it (what MPI
      // sets up on first use is then set up); then, once the rank sleeps, a timed one.
      char byte = 0;
      int done = 1;
      status =
          mpi_status(MPI_Get(&byte, 1, MPI_BYTE, target, 0, 1, MPI_BYTE, window), "MPI_Get", what);
      if (status.is_ok()) status = mpi_status(MPI_Win_flush(target, window), "MPI_Win_flush", what);
      if (status.is_ok())
        status =
            mpi_status(MPI_Send(&done, 1, MPI_INT, target, kTagProbe, world), "MPI_Send", what);
      if (status.is_ok()) {
        // Reads while the rank sleeps (from a fifth to four fifths of its sleep): one that
        // completes within a fifth of the sleep moved without the rank. Several, so that a
        // server that lost its core for a moment still finds out; one that waits for the rank
        // ends the loop (it returns only once the rank wakes).
        const double sleep_s = kProbeSleepNs * 1e-9, began = MPI_Wtime();
        const timespec settle{0, kProbeSleepNs / 5};
        nanosleep(&settle, nullptr);
        moved = 0;
        while (status.is_ok() && !moved && MPI_Wtime() - began < 0.8 * sleep_s) {
          const double start = MPI_Wtime();
          status = mpi_status(MPI_Get(&byte, 1, MPI_BYTE, target, 0, 1, MPI_BYTE, window),
                              "MPI_Get", what);
          if (status.is_ok())
            status = mpi_status(MPI_Win_flush(target, window), "MPI_Win_flush", what);
          moved = MPI_Wtime() - start < 0.2 * sleep_s ? 1 : 0;
        }
      }
    }
  } else {
    // A probed compute rank: inside MPI for the first read, out of it for the timed ones.
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
