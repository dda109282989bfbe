#include "stage/copy.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
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

// Both passes move a block in chunks of this size through one buffer, and checksum it as a
// stream (XXH3's streaming digest equals the one-shot digest of the block). A buffer of a whole
// block (64 MiB by default) was slower: every copy faulted in its pages afresh, and the data
// left the CPU caches between the read and the write.
constexpr int64_t kChunkBytes = int64_t{4} << 20;

struct ChunkBuffer {
  std::unique_ptr<char[]> bytes;
  int64_t size = 0;
  explicit ChunkBuffer(const CopyJob &job)
      : bytes(new char[static_cast<std::size_t>(std::min(kChunkBytes, job.block_bytes))]),
        size(std::min(kChunkBytes, job.block_bytes)) {}
};

struct Hasher {
  XXH3_state_t *state = XXH3_createState();
  ~Hasher() { XXH3_freeState(state); }
  Hasher(const Hasher &) = delete;
  Hasher &operator=(const Hasher &) = delete;
  Hasher() = default;
};

}  // namespace

int64_t part_bytes(const CopyJob &job) {
  if (job.range.count == 0) return 0;
  const int64_t start = job.range.first * job.block_bytes;
  return std::min(job.size, start + job.range.count * job.block_bytes) - start;
}

Status copy_blocks(const CopyJob &job, std::vector<uint64_t> *sums) {
  sums->clear();
  if (job.range.count == 0) return Status::ok();
  Fd in(::open(job.from.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) return io_error(errno, job, "opening the staged file");
  Fd out(::open(job.to.c_str(), O_WRONLY | O_CLOEXEC));
  if (out.fd < 0) return io_error(errno, job, "opening the copy");
  const int64_t first = job.range.first * job.block_bytes;
  ::posix_fadvise(in.fd, first, job.range.count * job.block_bytes, POSIX_FADV_SEQUENTIAL);
  ChunkBuffer buf(job);
  Hasher hash;
  if (hash.state == nullptr) return Status(ESMIO_ENOMEM, "copying staged file: no hash state");
  for (int64_t b = job.range.first; b < job.range.first + job.range.count; ++b) {
    const int64_t n = block_length(job, b), offset = b * job.block_bytes;
    XXH3_64bits_reset(hash.state);
    for (int64_t done = 0; done < n; done += buf.size) {
      const int64_t k = std::min(buf.size, n - done);
      if (const int err = read_fully(in.fd, buf.bytes.get(), k, offset + done))
        return io_error(err, job, "reading block " + std::to_string(b));
      XXH3_64bits_update(hash.state, buf.bytes.get(), static_cast<std::size_t>(k));
      if (b == job.corrupt_block && done == 0)
        buf.bytes[0] = static_cast<char>(buf.bytes[0] ^ 0x5a);
      if (const int err = write_fully(out.fd, buf.bytes.get(), k, offset + done))
        return io_error(err, job, "writing block " + std::to_string(b));
    }
    sums->push_back(XXH3_64bits_digest(hash.state));
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
  ChunkBuffer buf(job);
  Hasher hash;
  if (hash.state == nullptr) return Status(ESMIO_ENOMEM, "verifying a copy: no hash state");
  for (int64_t b = job.range.first; b < job.range.first + job.range.count; ++b) {
    const int64_t n = block_length(job, b);
    XXH3_64bits_reset(hash.state);
    for (int64_t done = 0; done < n; done += buf.size) {
      const int64_t k = std::min(buf.size, n - done);
      if (const int err = read_fully(fd.fd, buf.bytes.get(), k, b * job.block_bytes + done))
        return io_error(err, job, "reading back block " + std::to_string(b));
      XXH3_64bits_update(hash.state, buf.bytes.get(), static_cast<std::size_t>(k));
    }
    if (XXH3_64bits_digest(hash.state) != sums[static_cast<std::size_t>(b - job.range.first)])
      return Status(ESMIO_ECHECKSUM, "copying staged file '" + job.from + "' to '" + job.to +
                                         "': block " + std::to_string(b) + " (bytes " +
                                         std::to_string(b * job.block_bytes) + " to " +
                                         std::to_string(b * job.block_bytes + n - 1) +
                                         ") reads back with another checksum than the staged one");
  }
  return Status::ok();
}

}  // namespace esmio::stage
