// The window through which the I/O servers read the compute ranks' rings (client.hpp), and how
// it is made: the async_transport setting.
//
// shared: the window is MPI_Win_allocate_shared over the whole communicator, which therefore
//   lies on one node. The servers' MPI_Get is then a copy out of shared memory (Open MPI's
//   osc/sm), made by the server alone whatever the compute rank does: no single-copy mechanism,
//   no progress on the target, nothing for esmio_init to probe. The rings live in the MPI
//   library's shared-memory files (Open MPI: /dev/shm); their pages are taken at esmio_init or
//   as messages reach them (async_buffer_pages).
// rma: MPI_Win_create over ring memory each compute rank allocates. Works across nodes; whether
//   a read moves while its target computes depends on the MPI's one-sided component
//   (passive_probe.hpp checks it).
// auto: shared where every rank shares one node, the shared-memory file system has room for every
//   ring and the ranks may write a file that large (RLIMIT_FSIZE: the MPI library backs the
//   window with one file, and a larger one would end the job in MPI_Win_allocate_shared), rma
//   otherwise.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.hpp"

namespace esmio::async {

enum class RingTransport { shared, rma };

struct RingWindow {
  MPI_Win window = MPI_WIN_NULL;
  RingTransport transport = RingTransport::rma;
  int groups = 1;
  // shared: each compute rank's segment is its notice board (notice_board.hpp) of
  // NoticeBoard::bytes(groups), then its ring; rma: the ring alone, and notices go by MPI.
  char *ring = nullptr;           // this rank's ring in the window (nullptr on a server)
  char *board = nullptr;          // this rank's notice board (shared only; nullptr on a server)
  std::unique_ptr<char[]> owned;  // the ring's memory with rma
};

// Where the shared-memory files of MPI_Win_allocate_shared go (Open MPI's default for
// osc_sm_backing_directory on Linux): auto takes shared only when this file system has room.
constexpr const char *kSharedMemoryDir = "/dev/shm";

// What the MPI library adds to the rings in its shared-memory file (its own state per rank).
constexpr int64_t kSegmentOverhead = int64_t(1) << 20;

// Whether shared memory holds the rings, from the facts every rank agreed on: pure, unit-tested.
// rings: the bytes of every ring and board; room: the free bytes of kSharedMemoryDir (-1:
// unknown); file_limit: the smallest RLIMIT_FSIZE of the ranks (-1: unlimited).
bool shared_memory_holds(int64_t rings, int64_t room, int64_t file_limit);

// The transport auto takes; one_node: every rank of the communicator shares one node.
RingTransport choose_transport(bool one_node, int64_t rings, int64_t room, int64_t file_limit);

// Collective over world (the compute ranks and the servers): the window of every rank's ring of
// ring_bytes (0 on a server), by the transport that choice names ("auto", "shared", "rma"),
// locked with MPI_Win_lock_all for the whole run; groups: the server groups (the boards' size).
// With shared, every board is cleared before the call returns on any rank. A ring that could not be
// allocated gives ESMIO_ENOMEM on its rank, with a window made all the same (it must be freed
// collectively); shared named where the ranks span nodes gives ESMIO_ESETTING on every rank, and no
// window.
Status open_ring_window(MPI_Comm world, int64_t ring_bytes, int groups, const std::string &choice,
                        RingWindow *out);

// Takes the memory of [p, p + bytes) now (async_buffer_pages=init): MADV_POPULATE_WRITE where the
// kernel has it (Linux 5.14), else a store to every page. The bytes are not part of any message
// yet, so what they hold does not matter. Where the kernel cannot give the memory now, the pages
// are left to be taken as used.
void take_pages(char *p, int64_t bytes);

// shared: the segment of world rank `rank` in this process (its board, then its ring).
Status shared_segment(const RingWindow &w, int rank, char **segment);

// Collective over world: unlocks and frees the window (no-op without one).
Status close_ring_window(RingWindow *w, const char *what);

}  // namespace esmio::async
