// read_ahead: after reading one variable of a cold file open read-only, each I/O task's
// thread reads the next one into memory while the task rearranges the current one: the trace
// counts its bytes as asked for. The values read are the values written, bit for bit, with
// read ahead or without, in the file's order and out of it (reads that were not predicted).
// Without read ahead (read_ahead=0) the ranks have fetched v0 and little more from storage
// when its read returns (/proc/self/io read_bytes, counted as the reads are submitted). That
// the bytes read ahead are the ones a later read takes is shown on a file changed in between
// in unit.test_prefetch.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int64_t kValues = int64_t(4) << 20;  // 32 MiB of doubles per variable
constexpr int kVars = 3;

double value(int var, int64_t i) { return 1000.0 * var + static_cast<double>(i) * 0.25; }

// The share of [offset, offset + bytes) of the file in the page cache (-1: cannot tell).
double resident(const std::string &path, int64_t offset, int64_t bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  const int64_t page = sysconf(_SC_PAGESIZE);
  const int64_t begin = offset / page * page;
  const std::size_t length = static_cast<std::size_t>(offset + bytes - begin);
  void *map = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, begin);
  ::close(fd);
  if (map == MAP_FAILED) return -1;
  std::vector<unsigned char> in((length + page - 1) / page);
  double share = -1;
  if (mincore(map, length, in.data()) == 0) {
    int64_t n = 0;
    for (unsigned char c : in) n += c & 1;
    share = static_cast<double>(n) / static_cast<double>(in.size());
  }
  munmap(map, length);
  return share;
}

// Makes the file cold: on disk, and out of the page cache.
bool evict(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool done = fsync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  ::close(fd);
  return done;
}

// Bytes this process has had fetched from storage (-1: no I/O accounting in this kernel).
int64_t storage_read_bytes() {
  FILE *f = std::fopen("/proc/self/io", "r");
  if (f == nullptr) return -1;
  char key[64];
  long long value = 0;
  int64_t bytes = -1;
  while (std::fscanf(f, "%63[^:]: %lld\n", key, &value) == 2)
    if (std::string(key) == "read_bytes") bytes = value;
  std::fclose(f);
  return bytes;
}

void write_file(esmio_t io, const std::string &path, esmio_decomp_t d, int64_t first,
                int64_t count) {
  esmio_file_t f;
  int dim, varids[kVars];
  ok(esmio_create(io, path.c_str(), nullptr, &f), "create");
  ok(esmio_def_dim(f, "n", kValues, &dim), "def_dim");
  for (int v = 0; v < kVars; ++v) {
    const std::string name = "v" + std::to_string(v);
    ok(esmio_def_var(f, name.c_str(), ESMIO_DOUBLE, 1, &dim, &varids[v]), "def_var");
  }
  ok(esmio_enddef(f), "enddef");
  std::vector<double> values(static_cast<std::size_t>(count));
  for (int v = 0; v < kVars; ++v) {
    for (int64_t i = 0; i < count; ++i) values[static_cast<std::size_t>(i)] = value(v, first + i);
    ok(esmio_write_darray(f, varids[v], 0, d, ESMIO_DOUBLE, values.data(), count), "write");
  }
  ok(esmio_close(&f), "close");
}

int64_t read_ahead_bytes(esmio_t io) {
  esmio_counter c;
  ok(esmio_trace_counter(io, "read_ahead", &c), "trace_counter");
  int64_t total = 0;
  MPI_Allreduce(&c.bytes, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

// Reads the variables in the order given; every value is compared with what was written.
// After the first read (v0), the trace shows what was asked for ahead (v1, when ahead) and,
// without read ahead, what the ranks fetched.
void read_file(esmio_t io, const std::string &path, const char *settings, esmio_decomp_t d,
               int64_t first, int64_t count, bool ahead, const std::vector<int> &order) {
  const std::string what = std::string(settings) + ": ";
  if (rank == 0) check(evict(path), what + "fsync and POSIX_FADV_DONTNEED of the file");
  MPI_Barrier(MPI_COMM_WORLD);
  const int64_t var_bytes = kValues * 8;
  ok(esmio_trace_reset(io), "trace_reset");
  esmio_file_t f;
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, settings, &f), "open");
  std::vector<double> back(static_cast<std::size_t>(count));
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int v = order[k];
    int varid = -1;
    ok(esmio_inq_varid(f, ("v" + std::to_string(v)).c_str(), &varid), "inq_varid");
    const int64_t before = storage_read_bytes();
    ok(esmio_read_darray(f, varid, 0, d, ESMIO_DOUBLE, back.data(), count), "read");
    const int64_t fetched_here = storage_read_bytes() - before;
    int64_t wrong = 0;
    for (int64_t i = 0; i < count; ++i)
      wrong += back[static_cast<std::size_t>(i)] != value(v, first + i);
    check(wrong == 0, what + "v" + std::to_string(v) + ": " + std::to_string(wrong) +
                          " values differ from those written");
    if (k != 0) continue;
    // After v0: what the trace says was asked for, and what the ranks had fetched.
    const int64_t asked = read_ahead_bytes(io);
    int64_t fetched = 0;
    MPI_Allreduce(&fetched_here, &fetched, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    const std::string bytes = what + "reading v0 fetched " + std::to_string(fetched >> 20) + " MiB";
    if (ahead) {
      // The thread reads v1 while v0 is exchanged: how far it got is not for a test to say.
      check(asked == var_bytes, what + "read_ahead bytes after v0: " + std::to_string(asked) +
                                    ", expected v1's " + std::to_string(var_bytes));
    } else {
      check(asked == 0, what + "read_ahead bytes " + std::to_string(asked) + ", expected 0");
      // The kernel's own read-ahead may run past v0's end by its window (8 MiB on the disk here,
      // 128 KiB by default): below v0 and v1 all the same.
      check(fetched < var_bytes + 5 * var_bytes / 8,
            bytes + ", expected v0 (" + std::to_string(var_bytes >> 20) + " MiB) and little more");
    }
  }
  ok(esmio_close(&f), "close");
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, nullptr, &io), "init");
  const int64_t first = kValues * rank / nranks, last = kValues * (rank + 1) / nranks;
  const int64_t count = last - first;
  std::vector<int64_t> offsets(static_cast<std::size_t>(count));
  for (int64_t i = 0; i < count; ++i) offsets[static_cast<std::size_t>(i)] = first + i;
  esmio_decomp_t d;
  ok(esmio_decomp_create(io, 1, &kValues, count, offsets.data(), &d), "decomp");
  const std::string path = out_dir() + "/read_ahead.nc";
  write_file(io, path, d, first, count);

  // A file system that keeps files in memory (tmpfs) cannot show a cold read.
  int cold = 1;
  if (rank == 0) {
    cold = evict(path) && resident(path, 0, 3 * kValues * 8) < 0.05;
    if (!cold)
      std::printf("SKIP: %s stays in the page cache after POSIX_FADV_DONTNEED (tmpfs?)\n",
                  path.c_str());
    else if (storage_read_bytes() < 0) {
      cold = 0;
      std::printf("SKIP: no /proc/self/io read_bytes (task I/O accounting) in this kernel\n");
    }
  }
  MPI_Bcast(&cold, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (cold) {
    read_file(io, path, "read_ahead=0", d, first, count, false, {0, 1, 2});
    read_file(io, path, "read_ahead=4M", d, first, count, true, {0, 1, 2});
    // v1 is predicted after v0 (the next variable of its shape) but v2 is read; then v0 again,
    // and v1 last, predicted after v0 from the first time.
    read_file(io, path, "", d, first, count, true, {0, 2, 0, 1});
  }
  ok(esmio_decomp_free(&d), "decomp_free");
  ok(esmio_finalize(&io), "finalize");
  if (rank == 0) std::remove(path.c_str());
  return finish("read_ahead");
}
