// The pnetcdf backend's own read path, the mirror of direct_write: each I/O task reads the
// stretches of the file its boxes cover with pread, at the offsets PnetCDF placed the
// variables, and turns the big-endian file bytes into native values in the caller's buffer.
// It skips MPI-IO's collective read and PnetCDF's copy of every value. Long stretches are read
// straight into the buffer and swapped in place; short ones near each other are read together
// into a staging buffer (one system call for many columns of a scattered map) and swapped out
// of it.
#pragma once

#include <cstdint>
#include <vector>

namespace esmio::backend::pnetcdf {

// A stretch of the file and where its values go in memory.
struct ReadRun {
  int64_t offset = 0;  // in the file
  char *data = nullptr;
  int64_t bytes = 0;
  int esize = 1;  // the element size, for the byte swap
};

class DirectReader {
 public:
  // A stretch this long is read into its place directly, a piece of kPieceBytes at a time,
  // each piece swapped while it is still in the core's L2 cache.
  static constexpr int64_t kDirectBytes = int64_t(256) << 10;
  static constexpr int64_t kPieceBytes = int64_t(512) << 10;
  // Short stretches closer than this are read with the bytes between them, in one call.
  static constexpr int64_t kGapBytes = int64_t(64) << 10;
  // As DirectWriter's: small enough to stay in L2 between the read and the swap out of it.
  static constexpr int64_t kStagingBytes = int64_t(512) << 10;

  // Reads every run from fd. Bytes past the end of the file read as zeros (a region nothing was
  // written to, as in a sparse file). 0, or the errno of the first read that failed
  // (*failed_at: the offset it was reading).
  int read(int fd, std::vector<ReadRun> *runs, int64_t *failed_at);

 private:
  std::vector<char> staging_;  // reused between calls
};

}  // namespace esmio::backend::pnetcdf
