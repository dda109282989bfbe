#include "async/ring_window.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <new>

#include "async/mpi_status.hpp"
#include "async/notice_board.hpp"

namespace esmio::async {

bool shared_memory_holds(int64_t rings, int64_t room, int64_t file_limit) {
  const int64_t segment = rings + kSegmentOverhead;
  return room >= 0 && segment <= room && (file_limit < 0 || segment <= file_limit);
}

RingTransport choose_transport(bool one_node, int64_t rings, int64_t room, int64_t file_limit) {
  return one_node && shared_memory_holds(rings, room, file_limit) ? RingTransport::shared
                                                                  : RingTransport::rma;
}

namespace {

// Free bytes of the shared-memory file system, -1 where it cannot be read.
int64_t shared_memory_room() {
  struct statvfs fs {};
  if (statvfs(kSharedMemoryDir, &fs) != 0) return -1;
  return static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
}

// This process's largest file (RLIMIT_FSIZE's soft limit), -1 where unlimited.
int64_t file_size_limit() {
  struct rlimit limit {};
  if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1;
  return static_cast<int64_t>(std::min<rlim_t>(limit.rlim_cur, INT64_MAX));
}

// Whether every rank of world shares this rank's node, the same answer on every rank.
Status whole_world_on_one_node(MPI_Comm world, bool *one_node) {
  const char *what = "esmio_init: which ranks share a node";
  MPI_Comm node = MPI_COMM_NULL;
  ESMIO_RETURN_IF_ERROR(
      mpi_status(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                 "MPI_Comm_split_type", what));
  int node_size = 0, world_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_size(world, &world_size);
  MPI_Comm_free(&node);
  int mine = node_size == world_size ? 1 : 0, all = 0;
  ESMIO_RETURN_IF_ERROR(
      mpi_status(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, world), "MPI_Allreduce", what));
  *one_node = all == 1;
  return Status::ok();
}

}  // namespace

void take_pages(char *p, int64_t bytes) {
  const int64_t page = sysconf(_SC_PAGESIZE);
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t first = (begin + page - 1) / page * page;
  const uintptr_t end = begin + static_cast<uintptr_t>(bytes);
  const uintptr_t last = end / page * page;
#ifdef MADV_POPULATE_WRITE
  if (last > first &&
      madvise(reinterpret_cast<void *>(first), last - first, MADV_POPULATE_WRITE) == 0) {
    if (first > begin) p[0] = 0;
    if (end > last) p[bytes - 1] = 0;
    return;
  }
  // A kernel that knows the advice but could not take the memory now (ENOMEM, EFAULT on a
  // full /dev/shm): the pages are left to be taken as used, where a store now could end the
  // process (SIGBUS) instead of failing later with the same shortage.
  if (last > first && errno != EINVAL) return;
#endif
  for (int64_t at = 0; at < bytes; at += page) p[at] = 0;
  if (bytes > 0) p[bytes - 1] = 0;
}

Status open_ring_window(MPI_Comm world, int64_t ring_bytes, int groups, const std::string &choice,
                        RingWindow *out) {
  const char *what = "esmio_init: the window over the async buffers";
  int rank = 0;
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_rank(world, &rank), "MPI_Comm_rank", what));
  RingTransport transport = RingTransport::rma;
  if (choice != "rma") {
    bool one_node = false;
    ESMIO_RETURN_IF_ERROR(whole_world_on_one_node(world, &one_node));
    if (choice == "shared" && !one_node)
      return Status(ESMIO_ESETTING,
                    "esmio_init: async_transport=shared needs every rank of the communicator on "
                    "one node, and these ranks span nodes (use async_transport=auto or rma)");
    // Rank 0's view of the file system (the node's) against the sum of the rings and boards, and
    // the smallest file-size limit of the ranks: the MPI library writes one file of that size.
    const int64_t segment = ring_bytes > 0 ? ring_bytes + NoticeBoard::bytes(groups) : 0;
    int64_t facts[2] = {segment, rank == 0 ? shared_memory_room() : 0};
    int64_t sums[2] = {0, 0};
    ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Allreduce(facts, sums, 2, MPI_INT64_T, MPI_SUM, world),
                                     "MPI_Allreduce", what));
    const int64_t mine = file_size_limit();
    int64_t least = mine < 0 ? INT64_MAX : mine;
    ESMIO_RETURN_IF_ERROR(
        mpi_status(MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_INT64_T, MPI_MIN, world),
                   "MPI_Allreduce", what));
    const int64_t file_limit = least == INT64_MAX ? -1 : least;
    if (choice == "shared" && !shared_memory_holds(sums[0], sums[1], file_limit))
      return Status(ESMIO_ESETTING,
                    "esmio_init: async_transport=shared needs a shared-memory file of " +
                        std::to_string(sums[0] + kSegmentOverhead) + " bytes in " +
                        kSharedMemoryDir + ", which has " + std::to_string(sums[1]) +
                        " bytes free" +
                        (file_limit >= 0 ? " and a file-size limit (ulimit -f) of " +
                                               std::to_string(file_limit) + " bytes"
                                         : std::string()) +
                        " (lower async_buffer, or use async_transport=auto or rma)");
    transport = choice == "shared" ? RingTransport::shared
                                   : choose_transport(one_node, sums[0], sums[1], file_limit);
  }
  out->transport = transport;
  out->groups = groups;
  Status status;
  if (transport == RingTransport::shared) {
    // Each rank's ring on pages of its own, placed near the rank that writes it.
    MPI_Info info = MPI_INFO_NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    const int64_t board_bytes = ring_bytes > 0 ? NoticeBoard::bytes(groups) : 0;
    void *base = nullptr;
    status = mpi_status(MPI_Win_allocate_shared(static_cast<MPI_Aint>(board_bytes + ring_bytes), 1,
                                                info, world, &base, &out->window),
                        "MPI_Win_allocate_shared", what);
    MPI_Info_free(&info);
    ESMIO_RETURN_IF_ERROR(status);
    if (ring_bytes > 0) {
      out->board = static_cast<char *>(base);
      out->ring = out->board + board_bytes;
      NoticeBoard(out->board, groups).clear();
    }
  } else {
    if (ring_bytes > 0) {
      try {
        // Not value-initialised: with async_buffer_pages=use the pages are taken as messages
        // first reach them, so a rank that writes little never holds the whole buffer.
        out->owned.reset(new char[static_cast<std::size_t>(ring_bytes)]);
        out->ring = out->owned.get();
      } catch (const std::bad_alloc &) {
        status = Status(ESMIO_ENOMEM, "esmio_init: async_buffer of " + std::to_string(ring_bytes) +
                                          " bytes could not be allocated on rank " +
                                          std::to_string(rank));
      }
    }
    // Every rank of world takes part in the window, whatever happened above.
    const MPI_Aint size = out->ring != nullptr ? static_cast<MPI_Aint>(ring_bytes) : 0;
    ESMIO_RETURN_IF_ERROR(
        mpi_status(MPI_Win_create(out->ring, size, 1, MPI_INFO_NULL, world, &out->window),
                   "MPI_Win_create", what));
  }
  // A shared lock on every window for the whole run: MPI_Win_sync then orders the bytes a
  // compute rank stores before the notice that tells a server to read them.
  ESMIO_RETURN_IF_ERROR(
      mpi_status(MPI_Win_lock_all(MPI_MODE_NOCHECK, out->window), "MPI_Win_lock_all", what));
  if (transport == RingTransport::shared) {
    // Every board cleared before any server looks at one.
    ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Win_sync(out->window), "MPI_Win_sync", what));
    ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Barrier(world), "MPI_Barrier", what));
  }
  return status;
}

Status shared_segment(const RingWindow &w, int rank, char **segment) {
  MPI_Aint size = 0;
  int unit = 0;
  void *base = nullptr;
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Win_shared_query(w.window, rank, &size, &unit, &base),
                                   "MPI_Win_shared_query", "a compute rank's async buffer"));
  *segment = static_cast<char *>(base);
  return Status::ok();
}

Status close_ring_window(RingWindow *w, const char *what) {
  if (w->window == MPI_WIN_NULL) return Status::ok();
  Status status = mpi_status(MPI_Win_unlock_all(w->window), "MPI_Win_unlock_all", what);
  const Status freed = mpi_status(MPI_Win_free(&w->window), "MPI_Win_free", what);
  w->ring = nullptr;
  w->board = nullptr;
  w->owned.reset();
  return status.is_ok() ? freed : status;
}

}  // namespace esmio::async
