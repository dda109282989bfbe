// The pnetcdf backend's own data path: each I/O task writes the stretches of the file its
// boxes cover with pwrite, in the file's big-endian order, at the offsets PnetCDF placed the
// variables (VarLayout). PnetCDF keeps the header; the data skips its byte-swap copy, MPI-IO's
// two-phase exchange between aggregators (needless for the large, disjoint, contiguous slabs an
// I/O task holds after rearrangement) and MPI-IO's error handling, which drops write errors
// (docs/guarantees.md, "Write errors below esmio"): pwrite reports them on the rank that hit them.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/pnetcdf/var_layout.hpp"

namespace esmio::backend::pnetcdf {

class DirectWriter {
 public:
  // Largest write handed to the kernel at once; runs adjacent in the file are joined up to it.
  // Small enough to stay in a core's L2 cache between the byte swap that fills it and the
  // kernel's copy out of it: with 8 MiB, the kernel read it back from L3/memory and cam-fvd's
  // backend_write on one I/O task took 0.41-0.55 s; with 1 MiB or 512 KiB, 0.21-0.24 s. Large
  // enough that the I/O tasks, which take turns on the file's inode lock for each write, hand
  // it over half as often as at 512 KiB: with two tasks, backend_write 5-25 % less
  // (docs/performance.md).
  static constexpr int64_t kStagingBytes = int64_t(1) << 20;

  // Writes every run to fd (in file order where no runs overlap; where they do, in the given
  // order, so the later one wins). 0, or the errno of the first write that failed (*failed_at: the
  // offset it was writing); a short write that makes no progress is EIO.
  int write(int fd, std::vector<Run> *runs, int64_t *failed_at);

  // early: each stretch written is handed to the disk at once (sync_file_range), so the disk
  // writes while the task converts, rearranges and copies the next; a later fsync (esmio_sync,
  // or the model's) then waits only for the last stretches. false: they wait in the page cache.
  void set_early_writeback(bool early) { early_writeback_ = early; }
  // Stretches handed to the disk so far, and their bytes (for tests and the trace).
  int64_t writebacks_started() const { return writebacks_started_; }
  int64_t writeback_bytes() const { return writeback_bytes_; }

  // Stretches are handed to the disk once this many contiguous bytes are written: large enough
  // that one call covers many pages, small enough that the disk starts while the task copies.
  static constexpr int64_t kWritebackBytes = int64_t(4) << 20;

 private:
  // Adds [offset, offset + bytes) to the stretch not yet handed to the disk; hands it over
  // when it reaches kWritebackBytes or the next bytes do not continue it.
  void written(int fd, int64_t offset, int64_t bytes);
  // Hands the pending stretch to the disk (SYNC_FILE_RANGE_WRITE: starts write-out, waits for
  // nothing but a full device queue).
  void start_writeback(int fd);

  bool early_writeback_ = true;
  int64_t pending_start_ = 0, pending_bytes_ = 0;
  int64_t writebacks_started_ = 0, writeback_bytes_ = 0;
  std::vector<char> staging_;  // reused between calls: the hot path allocates nothing
  std::vector<Run> sorted_;
};

}  // namespace esmio::backend::pnetcdf
