// Collective save of decomposition files: round trips on the same number of ranks (random maps
// with holes and empty ranks, pieces larger than one message, the real E3SM maps), and errors
// that every rank reports alike. Run with any number of ranks; exits nonzero on failure.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "decomp/decomp_files.hpp"

using esmio::Status;
using esmio::decomp::load_decomp_file;
using esmio::decomp::LoadedDecomp;
using esmio::decomp::save_decomp_file;

namespace {

int rank = 0, size = 1, failures = 0;

#define CHECK(cond, what)                                                               \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      ++failures;                                                                       \
      std::fprintf(stderr, "rank %d: %s:%d: %s: %s\n", rank, __FILE__, __LINE__, #cond, \
                   std::string(what).c_str());                                          \
    }                                                                                   \
  } while (0)

std::string data_dir() {
  if (const char *env = std::getenv("ESMIO_TEST_DATA")) return std::string(env) + "/e3sm/";
  std::string here = __FILE__;
  return here.substr(0, here.find_last_of('/') + 1) + "../data/e3sm/";
}

bool exists(const std::string &path) { return access(path.c_str(), F_OK) == 0; }

int64_t sum_over_ranks(int64_t v) {
  int64_t s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

// Same code everywhere, and rank 0's message everywhere.
void check_agreed(const Status &st, int expected_code, const std::string &what) {
  CHECK(st.code() == expected_code, what + ": code " + std::to_string(st.code()) + " (" +
                                        st.message() + "), expected " +
                                        std::to_string(expected_code));
  int lo = 0, hi = 0, code = st.code();
  MPI_Allreduce(&code, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&code, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lo == hi, what + ": ranks disagree on the code");
  std::string msg = st.message();
  int len = static_cast<int>(msg.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string root(static_cast<std::size_t>(len), '\0');
  if (rank == 0) root = msg;
  if (len > 0) MPI_Bcast(&root[0], len, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK(root == msg, what + ": message differs from rank 0's: " + msg);
  if (expected_code != ESMIO_NOERR) CHECK(!msg.empty(), what + ": empty message");
}

// Saves, then loads on the same ranks: every rank must get its own offsets back.
void round_trip(const std::string &path, const std::string &format,
                const std::vector<int64_t> &dims, const std::vector<int64_t> &offsets) {
  const std::string what = format + " round trip " + path;
  Status st = save_decomp_file(MPI_COMM_WORLD, path, format, dims, offsets.data(),
                               static_cast<int64_t>(offsets.size()));
  check_agreed(st, ESMIO_NOERR, what);
  if (!st.is_ok()) return;
  LoadedDecomp back;
  st = load_decomp_file(path, format, rank, size, &back);
  CHECK(st.is_ok(), what + ": load: " + st.message());
  CHECK(back.dims == dims, what + ": dims differ");
  CHECK(back.file_nprocs == size, what + ": file_nprocs " + std::to_string(back.file_nprocs));
  CHECK(back.offsets == offsets, what + ": offsets differ (" + std::to_string(back.offsets.size()) +
                                     " vs " + std::to_string(offsets.size()) + ")");
  // One reader gets every rank's piece, in rank order.
  if (rank == 0) {
    st = load_decomp_file(path, format, 0, 1, &back);
    CHECK(st.is_ok(), what + ": load on one rank: " + st.message());
  }
  int64_t total = static_cast<int64_t>(back.offsets.size());
  MPI_Bcast(&total, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  CHECK(total == sum_over_ranks(static_cast<int64_t>(offsets.size())),
        what + ": one reader got " + std::to_string(total) + " offsets");
}

void test_random(const std::string &dir) {
  const std::vector<int64_t> dims = {5, 7, 11};
  const int64_t gsize = 5 * 7 * 11;
  std::mt19937_64 same_everywhere(1234);
  std::vector<int64_t> perm(gsize);
  for (int64_t i = 0; i < gsize; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), same_everywhere);
  std::mt19937_64 mine(99 + rank);
  std::vector<int64_t> offsets;
  for (int64_t i = 0; i < gsize; ++i) {
    int owner = static_cast<int>(i % size);
    if (owner == 1 && size > 2) owner = 0;  // rank 1 holds nothing
    if (owner != rank) continue;
    offsets.push_back(i < gsize / 3 ? i : perm[i]);  // consecutive runs, then scattered
    if (mine() % 5 == 0) offsets.push_back(-1);
  }
  for (const char *fmt : {"esmio", "pio"}) round_trip(dir + "/random." + fmt, fmt, dims, offsets);
}

// Pieces above the 65536-element message size, and ranks of different sizes.
void test_large_pieces(const std::string &dir) {
  const std::vector<int64_t> dims = {size, 200000};
  std::vector<int64_t> offsets;
  for (int64_t i = 0; i < 100000 + 7919 * rank; ++i) offsets.push_back(rank * 200000 + i);
  offsets[5] = -1;
  for (const char *fmt : {"esmio", "pio"}) round_trip(dir + "/large." + fmt, fmt, dims, offsets);
}

void test_real_maps(const std::string &dir) {
  struct Source {
    std::string file, format;
  };
  const Source sources[] = {{"piodecomp16tasks16io02dims_ioid_548.dat", "pio"},
                            {"piodecomp16tasks16io01dims_ioid_516.dat", "pio"},
                            {"map_i_case_16p.nc", "e3sm:D2"},
                            {"map_f_case_16p.nc", "e3sm:D1"}};
  for (const Source &s : sources) {
    LoadedDecomp d;
    Status st = load_decomp_file(data_dir() + s.file, s.format, rank, size, &d);
    CHECK(st.is_ok(), s.file + ": " + st.message());
    for (const char *fmt : {"esmio", "pio"})
      round_trip(dir + "/real." + fmt, fmt, d.dims, d.offsets);
  }
}

void test_errors(const std::string &dir) {
  const std::vector<int64_t> dims = {4, 6};
  std::vector<int64_t> offsets = {rank % 24, -1};
  const std::string path = dir + "/bad.esmio";

  std::vector<int64_t> bad = offsets;
  if (rank == size - 1) bad[0] = 24;  // one rank only
  Status st = save_decomp_file(MPI_COMM_WORLD, path, "esmio", dims, bad.data(), 2);
  check_agreed(st, ESMIO_EDECOMP, "out-of-range offset on the last rank");
  CHECK(st.message().find("rank " + std::to_string(size - 1)) != std::string::npos,
        "message does not name the rank: " + st.message());
  CHECK(!exists(path) && !exists(path + ".esmio-tmp"), "a file was left behind");

  st = save_decomp_file(MPI_COMM_WORLD, dir + "/no/such/dir/x.dat", "pio", dims, offsets.data(), 2);
  check_agreed(st, ESMIO_EIO, "missing directory");

  st = save_decomp_file(MPI_COMM_WORLD, path, "netcdf", dims, offsets.data(), 2);
  check_agreed(st, ESMIO_EBADNAME, "unknown format");

  if (size > 1) {
    std::vector<int64_t> other = rank == size - 1 ? std::vector<int64_t>{6, 4} : dims;
    st = save_decomp_file(MPI_COMM_WORLD, path, "pio", other, offsets.data(), 2);
    check_agreed(st, ESMIO_EINVAL, "dims differ between ranks");
  }

  st = save_decomp_file(MPI_COMM_WORLD, path, "pio", dims, offsets.data(), rank == 0 ? -1 : 2);
  check_agreed(st, ESMIO_EINVAL, "negative count on rank 0");

  st = save_decomp_file(MPI_COMM_WORLD, path, "pio", {}, offsets.data(), 2);
  check_agreed(st, ESMIO_EINVAL, "no dims");
  CHECK(!exists(path), "a file was left behind");

  // After all those, a good save still works (no stray messages left in flight).
  round_trip(dir + "/after.pio", "pio", dims, offsets);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  char dir[4096] = {0};
  if (rank == 0) {
    const char *tmp = std::getenv("TMPDIR");
    std::snprintf(dir, sizeof(dir), "%s/esmio_decomp_save_XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) dir[0] = '\0';
  }
  MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (dir[0] == '\0') {
    if (rank == 0) std::fprintf(stderr, "test_decomp_save: cannot create a temporary directory\n");
    MPI_Finalize();
    return 1;
  }

  test_random(dir);
  test_large_pieces(dir);
  test_real_maps(dir);
  test_errors(dir);

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    if (std::system(("rm -rf '" + std::string(dir) + "'").c_str()) != 0)
      std::fprintf(stderr, "test_decomp_save: could not remove %s\n", dir);
    std::printf("test_decomp_save on %d ranks: %s (%d failed checks)\n", size,
                total ? "FAILED" : "passed", total);
  }
  MPI_Finalize();
  return total ? 1 : 0;
}
