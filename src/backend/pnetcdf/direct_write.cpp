#include "backend/pnetcdf/direct_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "backend/pnetcdf/big_endian.hpp"

namespace esmio::backend::pnetcdf {

namespace {

// pwrite all of it; 0 or errno.
int write_all(int fd, const char *data, int64_t bytes, int64_t offset) {
  while (bytes > 0) {
    const ssize_t n = pwrite(fd, data, static_cast<std::size_t>(bytes), offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    data += n;
    bytes -= n;
    offset += n;
  }
  return 0;
}

}  // namespace

void DirectWriter::start_writeback(int fd) {
  if (pending_bytes_ > 0 && early_writeback_) {
    // It only starts what the kernel's own write-back would do later: a device error it meets is
    // kept for the file's next fsync (esmio_sync's, checked on every task), as one met by the
    // kernel's write-back would be. A file system without it (ENOSYS, EINVAL, ESPIPE) just keeps
    // its bytes for that fsync.
    if (sync_file_range(fd, pending_start_, pending_bytes_, SYNC_FILE_RANGE_WRITE) == 0) {
      ++writebacks_started_;
      writeback_bytes_ += pending_bytes_;
    } else if (errno == ENOSYS || errno == EINVAL || errno == ESPIPE) {
      early_writeback_ = false;
    }
  }
  pending_bytes_ = 0;
}

void DirectWriter::written(int fd, int64_t offset, int64_t bytes) {
  if (!early_writeback_) return;
  if (pending_bytes_ > 0 && pending_start_ + pending_bytes_ != offset) start_writeback(fd);
  if (pending_bytes_ == 0) pending_start_ = offset;
  pending_bytes_ += bytes;
  if (pending_bytes_ >= kWritebackBytes) start_writeback(fd);
}

int DirectWriter::write(int fd, std::vector<Run> *runs, int64_t *failed_at) {
  // In file order, so that adjacent runs join; but where runs overlap (a record written
  // twice before a flush) the given order is kept, so that the later one wins.
  const auto by_offset = [](const Run &a, const Run &b) { return a.offset < b.offset; };
  if (!std::is_sorted(runs->begin(), runs->end(), by_offset)) {
    sorted_ = *runs;
    std::stable_sort(sorted_.begin(), sorted_.end(), by_offset);
    bool overlap = false;
    for (std::size_t k = 1; k < sorted_.size() && !overlap; ++k)
      overlap = sorted_[k].offset < sorted_[k - 1].offset + sorted_[k - 1].bytes;
    if (!overlap) runs->swap(sorted_);
  }
  int64_t total = 0;
  for (const Run &r : *runs) total += r.bytes;
  if (total == 0) return 0;
  const int64_t capacity = std::min(total, kStagingBytes);
  if (static_cast<int64_t>(staging_.size()) < capacity)
    staging_.resize(static_cast<std::size_t>(capacity));
  // The staging buffer holds file bytes [start, start + used).
  int64_t start = 0, used = 0;
  auto flush = [&]() -> int {
    const int err = used > 0 ? write_all(fd, staging_.data(), used, start) : 0;
    if (err != 0)
      *failed_at = start;
    else if (used > 0)
      written(fd, start, used);
    used = 0;
    return err;
  };
  for (const Run &r : *runs) {
    const int64_t esize = std::max(r.esize, 1);
    int64_t done = 0;
    while (done < r.bytes) {
      // A run that does not continue the staged bytes (a gap, or an overlap) starts anew.
      if (used > 0 && start + used != r.offset + done) {
        if (const int err = flush()) return err;
      }
      if (used == 0) start = r.offset + done;
      int64_t n = std::min(r.bytes - done, capacity - used);
      n -= n % esize;  // whole elements (capacity is at least one run's size, or 8 MiB)
      if (n <= 0) {
        if (const int err = flush()) return err;
        continue;
      }
      copy_to_big_endian(staging_.data() + used, r.data + done, n, r.esize);
      used += n;
      done += n;
    }
  }
  const int err = flush();
  start_writeback(fd);  // the last stretch too: the task may now wait for its next call
  return err;
}

}  // namespace esmio::backend::pnetcdf
