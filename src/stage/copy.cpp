#include "stage/copy.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace esmio::stage {
namespace {

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
};

Status io_error(int err, const CopyJob &job, const std::string &what) {
  const int code = err == ENOSPC || err == EDQUOT || err == EFBIG ? ESMIO_ENOSPC : ESMIO_EIO;
  return Status(code, "copying staged file '" + job.from + "' to '" + job.to + "': " + what + ": " +
                          std::strerror(err));
}

// Whole reads and writes: short transfers and EINTR are continued, 0 bytes read is an error
// (the file ended early).
int read_fully(int fd, char *buf, int64_t n, int64_t offset) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, buf, static_cast<std::size_t>(n), offset);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return got == 0 ? EIO : errno;
    buf += got;
    n -= got;
    offset += got;
  }
  return 0;
}

int write_fully(int fd, const char *buf, int64_t n, int64_t offset) {
  while (n > 0) {
    const ssize_t put = ::pwrite(fd, buf, static_cast<std::size_t>(n), offset);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return put == 0 ? EIO : errno;
    buf += put;
    n -= put;
    offset += put;
  }
  return 0;
}

int64_t block_length(const CopyJob &job, int64_t block) {
  const int64_t start = block * job.block_bytes;
  return std::min(job.block_bytes, job.size - start);
}

}  // namespace

Status copy_blocks(const CopyJob &job, std::vector<uint64_t> *sums) {
  sums->clear();
  if (job.range.count == 0) return Status::ok();
  Fd in(::open(job.from.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) return io_error(errno, job, "opening the staged file");
  Fd out(::open(job.to.c_str(), O_WRONLY | O_CLOEXEC));
  if (out.fd < 0) return io_error(errno, job, "opening the copy");
  std::unique_ptr<char[]> buf(new char[static_cast<std::size_t>(job.block_bytes)]);
  for (int64_t b = job.range.first; b < job.range.first + job.range.count; ++b) {
    const int64_t n = block_length(job, b), offset = b * job.block_bytes;
    if (const int err = read_fully(in.fd, buf.get(), n, offset))
      return io_error(err, job, "reading block " + std::to_string(b));
    sums->push_back(XXH3_64bits(buf.get(), static_cast<std::size_t>(n)));
    if (b == job.corrupt_block) buf[0] = static_cast<char>(buf[0] ^ 0x5a);
    if (const int err = write_fully(out.fd, buf.get(), n, offset))
      return io_error(err, job, "writing block " + std::to_string(b));
    if (job.delay_ms > 0) ::usleep(static_cast<useconds_t>(job.delay_ms) * 1000);
  }
  return Status::ok();
}

Status verify_blocks(const CopyJob &job, const std::vector<uint64_t> &sums) {
  if (job.range.count == 0) return Status::ok();
  Fd fd(::open(job.to.c_str(), O_RDWR | O_CLOEXEC));
  if (fd.fd < 0) return io_error(errno, job, "opening the copy to verify it");
  // Durable first, then out of the page cache: the read below comes from the device.
  if (::fdatasync(fd.fd) != 0) return io_error(errno, job, "making the copy durable (fdatasync)");
  const int64_t start = job.range.first * job.block_bytes;
  const int64_t end = std::min(job.size, (job.range.first + job.range.count) * job.block_bytes);
  ::posix_fadvise(fd.fd, start, end - start, POSIX_FADV_DONTNEED);
  std::unique_ptr<char[]> buf(new char[static_cast<std::size_t>(job.block_bytes)]);
  for (int64_t b = job.range.first; b < job.range.first + job.range.count; ++b) {
    const int64_t n = block_length(job, b);
    if (const int err = read_fully(fd.fd, buf.get(), n, b * job.block_bytes))
      return io_error(err, job, "reading back block " + std::to_string(b));
    const uint64_t sum = XXH3_64bits(buf.get(), static_cast<std::size_t>(n));
    if (sum != sums[static_cast<std::size_t>(b - job.range.first)])
      return Status(ESMIO_ECHECKSUM, "copying staged file '" + job.from + "' to '" + job.to +
                                         "': block " + std::to_string(b) + " (bytes " +
                                         std::to_string(b * job.block_bytes) + " to " +
                                         std::to_string(b * job.block_bytes + n - 1) +
                                         ") reads back with another checksum than the staged one");
  }
  return Status::ok();
}

}  // namespace esmio::stage
