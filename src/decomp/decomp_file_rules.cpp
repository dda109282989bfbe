#include "decomp/decomp_file_rules.hpp"

#include <algorithm>
#include <limits>

namespace esmio::decomp {

namespace {

// A hole allowance that does not shrink to nothing for tiny arrays (halo slots, say).
constexpr int64_t kMinHoleLimit = int64_t(1) << 20;

}  // namespace

int64_t checked_product(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d <= 0) return -1;
    if (n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

int64_t hole_limit(int64_t gsize) { return std::max(gsize, kMinHoleLimit); }

int64_t max_nlocal(int64_t gsize) {
  const int64_t holes = hole_limit(gsize);
  return gsize > std::numeric_limits<int64_t>::max() - holes ? std::numeric_limits<int64_t>::max()
                                                             : gsize + holes;
}

std::string dims_text(const std::vector<int64_t> &dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

Status check_rank(const std::string &path, int rank, int nranks) {
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return Status(ESMIO_EINVAL, path + ": bad reader rank " + std::to_string(rank) + " of " +
                                    std::to_string(nranks));
  return Status::ok();
}

int64_t last_own_process(int64_t nprocs, int rank, int nranks) {
  if (rank >= nprocs) return -1;
  return rank + (nprocs - 1 - rank) / nranks * nranks;
}

}  // namespace esmio::decomp
