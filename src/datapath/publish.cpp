#include "datapath/publish.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/agree.hpp"
#include "stage/copy.hpp"

namespace esmio::datapath {

// The rename is atomic, and the directory is synced so that the new name survives a crash.
// Rank 0 renames.
Status publish_atomic(const Group &group, const FileState &file_state, const Status &closed) {
  const FileState *file = &file_state;
  Status status;
  if (group.rank == 0) {
    if (closed.is_ok()) {
      if (std::rename(file->storage_path.c_str(), file->path.c_str()) != 0) {
        status = Status(ESMIO_EIO, "esmio_close: publishing '" + file->storage_path + "' as '" +
                                       file->path + "': " + std::strerror(errno) + "; '" +
                                       file->path + "' was not replaced and '" +
                                       file->storage_path + "' was removed");
        std::remove(file->storage_path.c_str());
      } else {
        std::string dir = file->path.substr(0, file->path.find_last_of('/') + 1);
        if (dir.empty()) dir = ".";
        const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
        if (fd >= 0) {
          if (fsync(fd) != 0)
            status = Status(ESMIO_EIO, "esmio_close: '" + file->path +
                                           "' was published, but syncing its directory failed (" +
                                           std::strerror(errno) +
                                           "): after a crash the old version may be back");
          ::close(fd);
        }
      }
    } else {
      std::remove(file->storage_path.c_str());
    }
  }
  if (!closed.is_ok())
    return Status(closed.code(), closed.message() + "; publish=atomic: '" + file->path +
                                     "' was not replaced (the partial '" + file->storage_path +
                                     "' was removed)");
  return agree(group.comm, status);
}

namespace {

stage::CopyBack copy_job(const FileState *file, int64_t stage_block) {
  stage::CopyBack job;
  job.staged = file->storage_path;
  job.target = file->path;
  job.block_bytes = stage_block;
  // Test hook (tests/faults): a block changed after its checksum, on its way to the target.
  if (const char *hook = std::getenv("ESMIO_TEST_STAGE_CORRUPT_BLOCK"))
    job.corrupt_block = std::atoll(hook);
  if (const char *hook = std::getenv("ESMIO_TEST_STAGE_BLOCK_DELAY_MS"))
    job.delay_ms = std::atoi(hook);
  return job;
}

// This rank's part of a copy-back in the trace: stage_write and stage_verify (the stage_copy
// around them also holds the agreement, the rename and, in the background, the wait).
void count_copy(const stage::CopyTimes &times, trace::Counters *first, trace::Counters *second) {
  for (trace::Counters *c : {first, second}) {
    if (!c) continue;
    c->add(trace::Counter::stage_write, times.bytes, times.write_seconds);
    c->add(trace::Counter::stage_verify, times.bytes, times.verify_seconds);
  }
}

}  // namespace

// A staged file after its close: copied to its path now (stage_copy=close) or at
// esmio_finalize. A failed close copies nothing and keeps the staged file.
Status publish_staged(Group &group, FileState *file, const Status &closed,
                      const std::string &stage_copy, int64_t stage_block,
                      std::vector<PendingCopy> *later) {
  if (!closed.is_ok())
    return Status(closed.code(), closed.message() + "; the staged file '" + file->storage_path +
                                     "' is kept and '" + file->path + "' was not changed");
  const stage::CopyBack job = copy_job(file, stage_block);
  if (stage_copy == "finalize") {
    later->push_back(PendingCopy{job, nullptr});
    return Status::ok();
  }
  Status status;
  auto scope = scope_of(group, file, trace::Counter::stage_copy);
  if (stage_copy == "background") {
    stage::CopyJob mine;
    status = stage::begin_copy(copiers(group), job, &mine);
    if (status.is_ok())
      later->push_back(PendingCopy{job, std::make_unique<stage::BackgroundCopy>(std::move(mine))});
  } else {
    stage::CopyTimes times;
    status = stage::copy_back(copiers(group), job, &times);
    count_copy(times, &file->counters, &group.counters);
  }
  return status.is_ok() ? status : Status(status.code(), "esmio_close: " + status.message());
}

Status finish_pending(Group &group, PendingCopy *pending) {
  trace::Scope scope(trace::Counter::stage_copy, &group.counters);
  stage::CopyTimes times;
  Status status;
  if (pending->running) {
    const Status local = pending->running->join(&times);
    status = stage::finish_copy(copiers(group), pending->job, local);
  } else {
    status = stage::copy_back(copiers(group), pending->job, &times);
  }
  count_copy(times, &group.counters, nullptr);
  return status;
}

}  // namespace esmio::datapath
