#include "backend/pnetcdf/direct_read.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "backend/pnetcdf/big_endian.hpp"

namespace esmio::backend::pnetcdf {
namespace {

// pread all of it; the part past the end of the file is zeroed. 0 or errno.
int read_all(int fd, char *data, int64_t bytes, int64_t offset) {
  while (bytes > 0) {
    const ssize_t n = pread(fd, data, static_cast<std::size_t>(bytes), offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) {
      std::memset(data, 0, static_cast<std::size_t>(bytes));
      return 0;
    }
    data += n;
    bytes -= n;
    offset += n;
  }
  return 0;
}

}  // namespace

int DirectReader::read(int fd, std::vector<ReadRun> *runs, int64_t *failed_at) {
  const auto by_offset = [](const ReadRun &a, const ReadRun &b) { return a.offset < b.offset; };
  if (!std::is_sorted(runs->begin(), runs->end(), by_offset))
    std::sort(runs->begin(), runs->end(), by_offset);
  const std::size_t n = runs->size();
  for (std::size_t i = 0; i < n;) {
    const ReadRun &first = (*runs)[i];
    if (first.bytes <= 0) {
      ++i;
      continue;
    }
    if (first.bytes >= kDirectBytes) {
      const int64_t esize = std::max(first.esize, 1);
      const int64_t piece = std::max<int64_t>(kPieceBytes - kPieceBytes % esize, esize);
      for (int64_t done = 0; done < first.bytes; done += piece) {
        const int64_t n = std::min(piece, first.bytes - done);
        if (const int err = read_all(fd, first.data + done, n, first.offset + done)) {
          *failed_at = first.offset + done;
          return err;
        }
        copy_from_big_endian(first.data + done, first.data + done, n, first.esize);
      }
      ++i;
      continue;
    }
    // Short runs: as many as fit one staging read, with gaps of at most kGapBytes between.
    const int64_t start = first.offset;
    int64_t end = first.offset + first.bytes;
    std::size_t last = i + 1;
    for (; last < n; ++last) {
      const ReadRun &r = (*runs)[last];
      if (r.bytes >= kDirectBytes || r.offset > end + kGapBytes) break;
      const int64_t reach = std::max(end, r.offset + r.bytes);
      if (reach - start > kStagingBytes) break;
      end = reach;
    }
    if (static_cast<int64_t>(staging_.size()) < end - start)
      staging_.resize(
          static_cast<std::size_t>(std::min(kStagingBytes, std::max(end - start, kDirectBytes))));
    if (const int err = read_all(fd, staging_.data(), end - start, start)) {
      *failed_at = start;
      return err;
    }
    for (std::size_t k = i; k < last; ++k) {
      const ReadRun &r = (*runs)[k];
      if (r.bytes > 0)
        copy_from_big_endian(r.data, staging_.data() + (r.offset - start), r.bytes, r.esize);
    }
    i = last;
  }
  return 0;
}

}  // namespace esmio::backend::pnetcdf
