// What the decomposition file formats share: the result of reading one rank's pieces, the rule
// that says which processes of a file a rank reads, the limits that keep a corrupt count from
// allocating memory, and the words messages use for shapes.
#pragma once

#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace esmio::decomp {

// What one rank reads from a decomposition file.
struct LoadedDecomp {
  std::vector<int64_t> dims;     // global shape, C order
  int64_t file_nprocs = 0;       // number of processes the file was written for
  std::vector<int64_t> offsets;  // this rank's pieces, concatenated; -1 = hole
};

constexpr int kPioVersion = 2001;
constexpr int kEsmioVersion = 1;
constexpr const char *kEsmioMagic = "esmio-decomp";

// Product of dims, or -1 when a length is not positive or the product overflows.
int64_t checked_product(const std::vector<int64_t> &dims);

// Most holes one process may hold in the esmio format: prod(dims), but never fewer than 2^20,
// so that tiny arrays (halo slots, say) keep room for them.
int64_t hole_limit(int64_t gsize);

// Most elements (offsets and holes) one process may hold in the esmio format; saturates, since
// prod(dims) may be close to 2^63.
int64_t max_nlocal(int64_t gsize);

// "72x866".
std::string dims_text(const std::vector<int64_t> &dims);

// ESMIO_EINVAL unless 0 <= rank < nranks.
Status check_rank(const std::string &path, int rank, int nranks);

// Last process of a P-process file that rank reads on nranks ranks (processes rank,
// rank + nranks, ...), or -1 if none.
int64_t last_own_process(int64_t nprocs, int rank, int nranks);

// Runs body() with *out cleared before and after a failure, and turns running out of memory
// into ESMIO_ENOMEM: a reader never hands back half a map.
template <typename F>
Status guarded_load(const std::string &path, LoadedDecomp *out, F &&body) {
  *out = LoadedDecomp();
  Status st;
  try {
    st = body();
  } catch (const std::bad_alloc &) {
    st = Status(ESMIO_ENOMEM, path + ": out of memory reading the decomposition");
  }
  if (!st.is_ok()) *out = LoadedDecomp();
  return st;
}

}  // namespace esmio::decomp
