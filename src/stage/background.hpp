// stage_copy=background: one rank's part of a copy-back (copy_and_verify: local POSIX I/O and
// checksums, no MPI) on a thread of its own, so that the model goes on while the file travels.
// The collective steps before and after it (publish.hpp) run in esmio calls on the main thread;
// the model needs no MPI_THREAD_MULTIPLE.
#pragma once

#include <thread>

#include "common/status.hpp"
#include "stage/copy.hpp"

namespace esmio::stage {

class BackgroundCopy {
 public:
  explicit BackgroundCopy(CopyJob mine);
  ~BackgroundCopy();  // waits for the thread: a copy is never abandoned half-way
  BackgroundCopy(const BackgroundCopy &) = delete;
  BackgroundCopy &operator=(const BackgroundCopy &) = delete;
  // Waits for the part to be copied and verified; its outcome, and where its time went.
  Status join(CopyTimes *times);

 private:
  CopyJob mine_;
  Status status_;
  CopyTimes times_;
  std::thread thread_;
};

}  // namespace esmio::stage
