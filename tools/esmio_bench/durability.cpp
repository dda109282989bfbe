// fsync, posix_fadvise and mincore; see durability.hpp.
#include "durability.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace esmio_bench {

bool fsync_file(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

bool fsync_parent_dir(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

bool drop_from_cache(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  bool ok = ::fsync(fd) == 0;
  ok = ok && ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  ::close(fd);
  return ok;
}

double resident_fraction(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  struct stat st;
  if (::fstat(fd, &st) != 0 || st.st_size == 0) {
    ::close(fd);
    return st.st_size == 0 ? 0.0 : -1.0;
  }
  void *map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return -1;
  const long page = ::sysconf(_SC_PAGESIZE);
  const size_t pages = (static_cast<size_t>(st.st_size) + page - 1) / page;
  std::vector<unsigned char> vec(pages);
  double fraction = -1;
  if (::mincore(map, static_cast<size_t>(st.st_size), vec.data()) == 0) {
    size_t resident = 0;
    for (unsigned char c : vec) resident += c & 1;
    fraction = static_cast<double>(resident) / static_cast<double>(pages);
  }
  ::munmap(map, static_cast<size_t>(st.st_size));
  return fraction;
}

long long read_through(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  std::vector<char> buf(4 << 20);
  long long total = 0;
  ssize_t n;
  while ((n = ::read(fd, buf.data(), buf.size())) > 0) total += n;
  ::close(fd);
  return total;
}

long long file_disk_bytes(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<long long>(st.st_blocks) * 512;
}

long long file_length(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<long long>(st.st_size);
}

}  // namespace esmio_bench
