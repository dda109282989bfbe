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
  // backend_write on one I/O task took 0.41-0.55 s; with 512 KiB, 0.21 s (docs/performance.md).
  static constexpr int64_t kStagingBytes = int64_t(512) << 10;

  // Writes every run to fd (in file order where no runs overlap; where they do, in the given
  // order, so the later one wins). 0, or the errno of the first write that failed (*failed_at: the
  // offset it was writing); a short write that makes no progress is EIO.
  int write(int fd, std::vector<Run> *runs, int64_t *failed_at);

 private:
  std::vector<char> staging_;  // reused between calls: the hot path allocates nothing
  std::vector<Run> sorted_;
};

}  // namespace esmio::backend::pnetcdf
