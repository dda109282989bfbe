#include "backend/space.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace esmio::backend::space {

void Reserver::open(const std::string &path) {
  close();
  supported_ = true;
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
}

void Reserver::close() {
  if (fd_ < 0) return;
  // Blocks kept past the end (FALLOC_FL_KEEP_SIZE) that nothing wrote: give them back.
  if (reserved_) release_tail();
  reserved_ = false;
  ::close(fd_);
  fd_ = -1;
}

int Reserver::reserve(std::vector<Range> ranges) {
  if (fd_ < 0 || !supported_ || ranges.empty()) return 0;
  std::sort(ranges.begin(), ranges.end(),
            [](const Range &a, const Range &b) { return a.begin < b.begin; });
  // Ranges closer than this are reserved as one: fewer calls; the gap is usually written too.
  constexpr int64_t kJoin = 64 * 1024;
  std::size_t n = 0;
  for (const Range &r : ranges) {
    if (r.end <= r.begin) continue;
    if (n > 0 && r.begin <= ranges[n - 1].end + kJoin)
      ranges[n - 1].end = std::max(ranges[n - 1].end, r.end);
    else
      ranges[n++] = r;
  }
  // The file-size limit (RLIMIT_FSIZE): tmpfs applies it to fallocate, ext4 not with
  // FALLOC_FL_KEEP_SIZE, and a write past it fails with EFBIG inside MPI-IO.
  rlimit limit;
  if (n > 0 && getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      ranges[n - 1].end > static_cast<int64_t>(limit.rlim_cur))
    return EFBIG;
  for (std::size_t i = 0; i < n; ++i) {
    if (fallocate(fd_, FALLOC_FL_KEEP_SIZE, ranges[i].begin, ranges[i].end - ranges[i].begin) ==
        0) {
      reserved_ = true;
      continue;
    }
    const int err = errno;
    if (err == EINTR) {
      --i;
      continue;
    }
    if (err == EOPNOTSUPP || err == ENOSYS) {
      supported_ = false;
      return 0;
    }
    release_tail();  // nothing writes past the end now: what a failed call kept goes back
    return err;
  }
  return 0;
}

void Reserver::release_tail() {
  struct stat info;
  if (fd_ < 0 || fstat(fd_, &info) != 0) return;
  // tmpfs and xfs give back blocks past the end on a punched hole; ext4 ignores a hole past
  // the end but frees those blocks when the file is truncated to its own size.
  fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, info.st_size, int64_t(1) << 40);
  if (ftruncate(fd_, info.st_size) != 0) {
  }
}

int Reserver::reserve_holes_and_tail(int64_t tail, bool holes) {
  if (fd_ < 0 || !supported_) return 0;
  struct stat info;
  if (fstat(fd_, &info) != 0) return errno;
  const int64_t size = info.st_size;
  std::vector<Range> ranges;
  // A file whose blocks cover its size has no holes: skip the scan.
  if (holes && info.st_blocks * 512 < size) {
    off_t at = 0;
    while (at < size) {
      const off_t hole = lseek(fd_, at, SEEK_HOLE);
      if (hole < 0 || hole >= size) break;
      off_t data = lseek(fd_, hole, SEEK_DATA);
      if (data < 0) data = size;  // ENXIO: no data after the hole
      ranges.push_back(Range{hole, std::min<int64_t>(data, size)});
      at = data;
    }
  }
  const std::vector<Range> holes_found = ranges;
  if (tail > 0) ranges.push_back(Range{size, size + tail});
  const int err = reserve(std::move(ranges));
  if (err != 0) {
    // A failed fallocate may keep what it allocated (ext4): a full disk made fuller by a
    // reservation would fail the metadata writes that follow. The holes held no data and
    // nothing writes past the end now, so both are given back.
    for (const Range &r : holes_found)
      fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, r.begin, r.end - r.begin);
  }
  return err;
}

bool reserve_as_span(const Range &span, int64_t bytes) {
  constexpr int64_t kSlack = int64_t(1) << 20;
  const int64_t gaps = span.end - span.begin - bytes;
  return bytes > 0 && gaps <= bytes / 4 + kSlack;
}

int check_free(const std::string &path, int64_t bytes) {
  const std::string::size_type slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string(".")
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  struct statvfs info;
  if (statvfs(dir.c_str(), &info) != 0) return 0;  // the create will say what is wrong
  const int64_t free_bytes = static_cast<int64_t>(info.f_bavail) * info.f_frsize;
  return free_bytes < bytes ? ENOSPC : 0;
}

std::string of_variables(const std::vector<std::string> &names) {
  if (names.empty()) return std::string();
  if (names.size() == 1) return " of variable '" + names[0] + "'";
  std::string text = " of variables";
  const std::size_t shown = std::min<std::size_t>(names.size(), 3);
  for (std::size_t i = 0; i < shown; ++i) text += (i ? ", '" : " '") + names[i] + "'";
  if (names.size() > shown) text += " and " + std::to_string(names.size() - shown) + " more";
  return text;
}

Status failure(int err, const std::string &driver, const std::string &operation,
               const std::string &path, int64_t bytes) {
  const bool space = err == ENOSPC || err == EDQUOT || err == EFBIG;
  std::string cause = std::strerror(err);
  if (err == ENOSPC) cause += " (disk full)";
  if (err == EDQUOT) cause += " (quota)";
  if (err == EFBIG) cause += " (file-size limit)";
  return Status(space ? ESMIO_ENOSPC : ESMIO_EIO,
                driver + ": " + operation + " on '" + path + "': " + cause +
                    ": the file system could not reserve " + std::to_string(bytes) +
                    " bytes; nothing of this write reached the file");
}

}  // namespace esmio::backend::space
