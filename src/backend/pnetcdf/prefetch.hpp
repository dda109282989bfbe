// Reading ahead into memory: an I/O task's predicted next reads are read from the file by a
// thread of its own while the task exchanges and converts the current one, so that a cold read
// keeps the disk busy through the rearrangement instead of leaving it idle between variables.
// The next read of that variable then takes its bytes from memory (swapped into place) and
// waits only for what the thread has not finished.
//
// Only for a file open read-only: nothing can change the bytes between the read ahead and the
// read. The thread does plain pread on the task's read-only descriptor, no MPI. A read ahead
// that fails is dropped: the read itself then reads, and reports the error.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "backend/pnetcdf/direct_read.hpp"

namespace esmio::backend::pnetcdf {

class Prefetcher {
 public:
  // A stretch of the file to read ahead.
  struct Stretch {
    int64_t offset = 0;
    int64_t bytes = 0;
  };

  // A read smaller than this is left to the read itself: handing it to the thread and back
  // costs more than its disk time hides (E3SM maps' records of a few hundred KiB per task were
  // slower read ahead, from memory and from a disk model alike; docs/performance.md).
  static constexpr int64_t kMinBytes = int64_t(1) << 20;
  // The thread reads in pieces of this size, so that a read ahead dropped while in progress
  // (or the file closing) stops soon.
  static constexpr int64_t kPieceBytes = int64_t(8) << 20;

  Prefetcher() = default;
  ~Prefetcher();  // stop()
  Prefetcher(const Prefetcher &) = delete;
  Prefetcher &operator=(const Prefetcher &) = delete;

  // Queues the stretches (ascending, disjoint) of the read of (varid, record) for the thread
  // (started at the first call) to read from fd. A read already queued or held is not asked
  // again, nor one smaller than kMinBytes, nor one that would take what is held or queued
  // past limit bytes (unless nothing is). Returns the bytes queued.
  int64_t ask(int fd, int varid, int64_t record, std::vector<Stretch> stretches, int64_t limit);

  // The read of (varid, record) is being made: each run (sorted by offset) that lies within
  // what was read ahead for it is copied into place, swapped to native order, and its bytes
  // set to 0, so that the caller reads only the rest. It waits for a read ahead in progress;
  // one not yet started is taken off the queue (the caller reads sooner than the thread
  // would). Reads ahead asked before it were skipped and are dropped. A read that was not
  // asked for (a coordinate read between two fields) drops nothing. Returns the bytes served.
  int64_t serve(int varid, int64_t record, std::vector<ReadRun> *runs);
  // The read of (varid, record) will not be made after all (a prediction that did not come
  // true): it is dropped, and a read of it in progress stops at its next piece.
  void cancel(int varid, int64_t record);

  // Waits until the thread has nothing queued and nothing in progress.
  void wait_idle();
  // Drops everything, stops the read in progress at its next piece and ends the thread
  // (before the descriptor closes). ask() starts a new one.
  void stop();

  // Bytes held or queued (for tests).
  int64_t held_bytes() const;

 private:
  enum class State { queued, reading, read, failed };
  struct Unit {
    int fd = -1;
    int varid = -1;
    int64_t record = 0;
    std::vector<Stretch> stretches;
    std::vector<int64_t> at;  // where stretch k starts in bytes
    std::unique_ptr<char[]> bytes;
    int64_t total = 0;
    State state = State::queued;
    std::atomic<bool> cancelled{false};  // dropped: the thread reads no further piece
  };

  void run();
  // Drops units_[first, last), cancelling a read of them in progress.
  void drop(std::size_t first, std::size_t last);
  // Reads the unit's stretches (outside the lock); false if a read failed or the unit was
  // cancelled.
  static bool read_unit(Unit *unit);
  // Copies into place the runs that lie within the unit (it has been read).
  static int64_t copy_runs(const Unit &unit, std::vector<ReadRun> *runs);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<Unit>> units_;  // in the order asked
  bool stopping_ = false;
  bool busy_ = false;  // the thread is reading a unit
  std::thread thread_;
};

}  // namespace esmio::backend::pnetcdf
