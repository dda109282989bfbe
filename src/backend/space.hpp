// Disk space reserved before the storage libraries write, so that a full disk (or a quota, or a
// file-size limit) fails in esmio, on every rank at once, and never inside MPI-IO or HDF5.
//
// Why: below esmio a failed write is not reported reliably. Open MPI 4.1's ompio drops the
// error of an independent write (common_ompio_file_write.c ignores a negative fbtl_pwritev
// result) and reports a collective write's error on the aggregator alone; the failed request
// then stays on ompio's pending list, so every later MPI_File_sync on that rank returns
// MPI_ERR_OTHER before its barrier while the other ranks wait in it (a hang). HDF5 that gets an
// error on some ranks only takes different collective paths on different ranks (a hang at the
// next flush or close). Blocks allocated beforehand cannot run out during the write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace esmio::backend::space {

struct Range {
  int64_t begin = 0, end = 0;  // bytes [begin, end) of the file
};

// A file's descriptor for reservations (the storage library keeps its own). Closed on
// destruction; fd < 0 when the file could not be opened (then nothing is reserved).
class Reserver {
 public:
  Reserver() = default;
  Reserver(const Reserver &) = delete;
  Reserver &operator=(const Reserver &) = delete;
  ~Reserver() { close(); }

  // Opens path for reservations (not collective).
  void open(const std::string &path);
  // Releases the blocks reserved past the end of the file, then closes.
  void close();
  bool is_open() const { return fd_ >= 0; }
  // The descriptor (for reading back what was written), or -1.
  int fd() const { return fd_; }

  // Allocates the blocks of ranges without changing the file size (fallocate with
  // FALLOC_FL_KEEP_SIZE; ranges are sorted and merged). 0, or the errno of the failure.
  // A file system without fallocate gives 0 and *supported = false (nothing was checked).
  int reserve(std::vector<Range> ranges);
  // Allocates tail bytes past the file's end and, if holes, the holes inside it (SEEK_HOLE):
  // where HDF5 puts what it writes next (new chunks and metadata at the end of its address
  // space, or chunks it allocated earlier and left unwritten inside the file). On failure
  // gives back what it allocated.
  int reserve_holes_and_tail(int64_t tail, bool holes);

  bool supported() const { return supported_; }

 private:
  void release_tail();  // the blocks past the end of the file

  int fd_ = -1;
  bool supported_ = true;
  bool reserved_ = false;  // something was reserved: release the tail at close
};

// Whether the bytes all ranks write in one transfer (bytes in all, within span) are reserved
// as that one span, by one rank, rather than piece by piece by each rank.
//
// Why: a file system places blocks when they are allocated. Many ranks that reserve their own
// small interleaved pieces (a few KiB per rank per level of an unstructured grid) get blocks in
// the order their calls arrive: the file becomes thousands of unwritten extents, adjacent in
// the file but scattered on the disk. At write-back ext4 converts every unwritten extent a
// write reaches on its own (a journaled extent-tree update each), and pieces that are not
// adjacent on the disk go out as separate I/Os: the fsync took an order of magnitude longer
// than that of the same bytes written without a reservation, which delayed allocation places
// in file order at write-back. One fallocate of the whole span gives a few long unwritten
// extents in file order, converted in long runs that merge again once written.
// Gaps inside the span (bytes nobody writes now) stay allocated and read as zeros, like holes.
// A span with more than a quarter of its bytes (plus 1 MiB) in gaps is reserved piece by
// piece instead, so that a sparse write neither takes disk space nor fails on a full disk for
// bytes it does not write.
bool reserve_as_span(const Range &span, int64_t bytes);

// Before a file exists: 0 if the file system holding path has bytes free, else ENOSPC (or the
// errno of statvfs). Not collective. Catches a disk already full when a file is created, where
// HDF5 and PnetCDF would fail their first metadata writes on some ranks only.
int check_free(const std::string &path, int64_t bytes);

// The status of a failed reservation: code ESMIO_ENOSPC for ENOSPC, EDQUOT and EFBIG (the
// message names the cause), ESMIO_EIO for other errno values.
// " of variable 'T'" / " of variables 'T', 'PS', 'U' and 4 more": what a failed write was for,
// for the message of failure() (the request of one call may hold many variables).
std::string of_variables(const std::vector<std::string> &names);

Status failure(int err, const std::string &driver, const std::string &operation,
               const std::string &path, int64_t bytes);

}  // namespace esmio::backend::space
