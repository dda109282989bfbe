#include "backend/cdf_header.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace esmio::backend::cdf {

Status lower_numrecs(const std::string &path, int64_t nrecords, int64_t *before) {
  const auto failed = [&](const char *what) {
    return Status(ESMIO_EIO, "lowering the record count of '" + path + "' to " +
                                 std::to_string(nrecords) + ": " + what + ": " +
                                 std::strerror(errno));
  };
  const int fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0) return failed("open");
  unsigned char head[12] = {0};
  if (pread(fd, head, sizeof head, 0) != static_cast<ssize_t>(sizeof head)) {
    const Status s = failed("read the header");
    ::close(fd);
    return s;
  }
  // "CDF" and the version; numrecs follows, big-endian: 4 bytes (CDF-1/2) or 8 (CDF-5).
  if (std::memcmp(head, "CDF", 3) != 0 || (head[3] != 1 && head[3] != 2 && head[3] != 5)) {
    ::close(fd);
    return Status(ESMIO_ENOTNC, "lowering the record count of '" + path + "': not a CDF file");
  }
  const int width = head[3] == 5 ? 8 : 4;
  uint64_t count = 0;
  for (int i = 0; i < width; ++i) count = (count << 8) | head[4 + i];
  *before = static_cast<int64_t>(count);
  if (static_cast<int64_t>(count) <= nrecords) {
    ::close(fd);
    return Status::ok();
  }
  unsigned char field[8];
  for (int i = 0; i < width; ++i)
    field[i] = static_cast<unsigned char>(static_cast<uint64_t>(nrecords) >> (8 * (width - 1 - i)));
  Status status;
  if (pwrite(fd, field, static_cast<std::size_t>(width), 4) != width)
    status = failed("write the header");
  else if (fsync(fd) != 0)
    status = failed("fsync");
  if (::close(fd) != 0 && status.is_ok()) status = failed("close");
  return status;
}

}  // namespace esmio::backend::cdf
