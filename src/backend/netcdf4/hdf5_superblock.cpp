#include "backend/netcdf4/hdf5_superblock.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>

namespace esmio::backend::hdf5 {

int64_t end_of_file_address(const unsigned char *head, std::size_t n) {
  static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  if (n < 9 || std::memcmp(head, signature, 8) != 0) return -1;
  const int version = head[8];
  std::size_t at = 0;      // where the end-of-file address starts
  std::size_t offset = 0;  // size of offsets in bytes
  if (version == 0 || version == 1) {
    if (n < 14) return -1;
    offset = head[13];
    // 8 signature, 4 version bytes, 1 reserved, then offset/length sizes, reserved, two K
    // values, flags (4): 24 bytes; version 1 adds indexed storage K and reserved (4). Then the
    // base address and the free-space address precede end of file.
    at = (version == 0 ? 24 : 28) + 2 * offset;
  } else if (version == 2 || version == 3) {
    if (n < 10) return -1;
    offset = head[9];
    at = 12 + 2 * offset;  // after base address and superblock extension address
  } else {
    return -1;
  }
  if (offset == 0 || offset > 8 || at + offset > n) return -1;
  uint64_t eof = 0;
  for (std::size_t i = 0; i < offset; ++i) eof |= uint64_t(head[at + i]) << (8 * i);  // LE
  if (offset == 8 && eof == ~uint64_t(0)) return -1;  // undefined address
  return static_cast<int64_t>(eof);
}

Status check_truncated(const std::string &path) {
  unsigned char head[64] = {0};
  std::size_t n = 0;
  if (FILE *f = std::fopen(path.c_str(), "rb")) {
    n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
  }
  const int64_t eof = end_of_file_address(head, n);
  struct stat info;
  if (eof < 0 || stat(path.c_str(), &info) != 0 || static_cast<int64_t>(info.st_size) >= eof)
    return Status::ok();
  return Status(ESMIO_ECORRUPT, "netcdf4: open '" + path + "': the file is truncated: it has " +
                                    std::to_string(info.st_size) +
                                    " bytes, its HDF5 superblock says " + std::to_string(eof) +
                                    "; data was lost when it was written or copied");
}

}  // namespace esmio::backend::hdf5
