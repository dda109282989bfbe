#include "stage/publish.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/agree.hpp"
#include "stage/blocks.hpp"
#include "stage/copy.hpp"

namespace esmio::stage {
namespace {

std::string directory_of(const std::string &path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The first copying task prepares: the staged file's size, and the copy created at full size
// with its blocks reserved (a full target fails here, before any byte moves).
Status prepare(const CopyBack &job, int64_t *size) {
  struct stat st;
  if (::stat(job.staged.c_str(), &st) != 0)
    return Status(ESMIO_EIO, "the staged file '" + job.staged + "': " + std::strerror(errno));
  *size = st.st_size;
  const std::string copy = copy_path(job.target);
  const int fd = ::open(copy.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    return Status(errno == ENOSPC || errno == EDQUOT ? ESMIO_ENOSPC : ESMIO_EIO,
                  "creating '" + copy + "' next to the target: " + std::strerror(errno));
  int err = *size > 0 ? ::posix_fallocate(fd, 0, *size) : 0;
  // File systems without fallocate: sized by truncation, and a full disk shows at write.
  if (err == EOPNOTSUPP || err == EINVAL) err = ::ftruncate(fd, *size) == 0 ? 0 : errno;
  ::close(fd);
  if (err != 0)
    return Status(
        err == ENOSPC || err == EDQUOT || err == EFBIG ? ESMIO_ENOSPC : ESMIO_EIO,
        "reserving " + std::to_string(*size) + " bytes for '" + copy + "': " + std::strerror(err));
  return Status::ok();
}

// The verified copy replaces the target in one rename (*renamed says whether it happened); the
// directory is synced so that the new name survives a crash.
Status rename_into_place(const CopyBack &job, bool *renamed) {
  const std::string copy = copy_path(job.target);
  *renamed = std::rename(copy.c_str(), job.target.c_str()) == 0;
  if (!*renamed)
    return Status(ESMIO_EIO,
                  "renaming '" + copy + "' to '" + job.target + "': " + std::strerror(errno));
  const int fd = ::open(directory_of(job.target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0)
      return Status(ESMIO_EIO, "'" + job.target +
                                   "' was published, but syncing its directory failed (" +
                                   std::strerror(err) +
                                   "): after a crash the old version may be back; the staged "
                                   "file '" +
                                   job.staged + "' is kept");
  }
  return Status::ok();
}

}  // namespace

Status check_stage_dir(const Copiers &copiers, const std::string &stage_dir) {
  // The first task leaves a marker; every task must find it (the same directory everywhere).
  const std::string marker = stage_dir + "/.esmio-stage-check";
  Status status;
  if (copiers.task == 0) {
    struct stat st;
    if (::stat(stage_dir.c_str(), &st) != 0)
      status = Status(ESMIO_EIO, "stage_dir '" + stage_dir + "': " + std::strerror(errno));
    else if (!S_ISDIR(st.st_mode))
      status = Status(ESMIO_EIO, "stage_dir '" + stage_dir + "' is not a directory");
    if (status.is_ok()) {
      const int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
      if (fd < 0)
        status = Status(ESMIO_EIO,
                        "stage_dir '" + stage_dir + "' is not writable: " + std::strerror(errno));
      else
        ::close(fd);
    }
  }
  ESMIO_RETURN_IF_ERROR(agree(copiers.comm, status));
  if (copiers.task > 0 && ::access(marker.c_str(), F_OK) != 0)
    status = Status(ESMIO_EIO, "stage_dir '" + stage_dir +
                                   "' is not the same directory on every I/O task (a node-local "
                                   "stage needs all of a file's I/O tasks on one node; use a "
                                   "directory they share)");
  status = agree(copiers.comm, status);
  if (copiers.task == 0) ::unlink(marker.c_str());
  return status;
}

namespace {

Status failed_copy(const Copiers &copiers, const CopyBack &job, const Status &s) {
  if (copiers.task == 0) ::unlink(copy_path(job.target).c_str());
  return Status(s.code(), s.message() + "; the staged file '" + job.staged + "' is kept and '" +
                              job.target + "' was not changed");
}

}  // namespace

Status begin_copy(const Copiers &copiers, const CopyBack &job, CopyJob *mine) {
  int64_t size = -1;
  Status status;
  if (copiers.task == 0) status = prepare(job, &size);
  status = agree(copiers.comm, status);
  MPI_Allreduce(MPI_IN_PLACE, &size, 1, MPI_INT64_T, MPI_MAX, copiers.comm);
  if (!status.is_ok()) return failed_copy(copiers, job, status);
  *mine = CopyJob{job.staged,
                  copy_path(job.target),
                  size,
                  job.block_bytes,
                  blocks_of_task(size, job.block_bytes, copiers.task, copiers.ntasks),
                  job.corrupt_block,
                  job.delay_ms};
  return Status::ok();
}

Status copy_and_verify(const CopyJob &mine, CopyTimes *times) {
  std::vector<uint64_t> sums;
  // steady_clock, not MPI_Wtime: this may run on a thread that makes no MPI call.
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  Status status = copy_blocks(mine, &sums);
  const auto t1 = Clock::now();
  if (status.is_ok()) status = verify_blocks(mine, sums);
  *times = CopyTimes{part_bytes(mine), std::chrono::duration<double>(t1 - t0).count(),
                     std::chrono::duration<double>(Clock::now() - t1).count()};
  return status;
}

Status finish_copy(const Copiers &copiers, const CopyBack &job, const Status &local) {
  Status status = agree(copiers.comm, local);
  if (!status.is_ok()) return failed_copy(copiers, job, status);
  bool renamed = false;
  if (copiers.task == 0) status = rename_into_place(job, &renamed);
  int published = renamed ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &published, 1, MPI_INT, MPI_MAX, copiers.comm);
  status = agree(copiers.comm, status);
  if (!status.is_ok()) return published ? status : failed_copy(copiers, job, status);
  // Verified and in place: only now does the staged file go.
  if (copiers.task == 0) ::unlink(job.staged.c_str());
  return Status::ok();
}

Status copy_back(const Copiers &copiers, const CopyBack &job, CopyTimes *times) {
  CopyJob mine;
  ESMIO_RETURN_IF_ERROR(begin_copy(copiers, job, &mine));
  CopyTimes mine_times;
  const Status local = copy_and_verify(mine, &mine_times);
  if (times) *times = mine_times;
  return finish_copy(copiers, job, local);
}

}  // namespace esmio::stage
