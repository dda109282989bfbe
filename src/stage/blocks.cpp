#include "stage/blocks.hpp"

#include <cstdio>
#include <functional>

namespace esmio::stage {

namespace {

// FNV-1a: stable across runs and compilers (std::hash is not promised to be).
uint64_t fnv1a(const std::string &text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string staged_path(const std::string &stage_dir, const std::string &path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char tag[17];
  std::snprintf(tag, sizeof tag, "%016llx", static_cast<unsigned long long>(fnv1a(path)));
  std::string dir = stage_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + "/" + name + "." + tag + ".esmio-stage";
}

std::string copy_path(const std::string &path) { return path + ".esmio-copy"; }

int64_t block_count(int64_t size, int64_t block_bytes) {
  return size <= 0 ? 0 : (size + block_bytes - 1) / block_bytes;
}

BlockRange blocks_of_task(int64_t size, int64_t block_bytes, int task, int ntasks) {
  const int64_t n = block_count(size, block_bytes);
  BlockRange r;
  if (task < 0 || ntasks < 1) return r;
  r.first = n * task / ntasks;
  r.count = n * (task + 1) / ntasks - r.first;
  return r;
}

}  // namespace esmio::stage
