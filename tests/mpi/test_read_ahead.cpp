// read_ahead: after reading one variable of a cold file, the I/O tasks ask the disk for the
// next one (the trace's read_ahead bytes), and its pages come into the page cache before
// anything reads them (mincore); with read_ahead=0 they do not. The values read are the
// values written, bit for bit, either way.
#include <fcntl.h>
#include <pnetcdf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int64_t kValues = int64_t(4) << 20;  // 32 MiB of doubles per variable
constexpr int kVars = 3;

double value(int var, int64_t i) { return 1000.0 * var + static_cast<double>(i) * 0.25; }

MPI_Offset var_offset(const std::string &path, const char *name) {
  MPI_Offset offset = -1;
  int nc, varid;
  if (ncmpi_open(MPI_COMM_SELF, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &nc) == NC_NOERR) {
    if (ncmpi_inq_varid(nc, name, &varid) == NC_NOERR) ncmpi_inq_varoffset(nc, varid, &offset);
    ncmpi_close(nc);
  }
  return offset;
}

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

// Reads v0, looks at v1's last quarter in the page cache, then reads v1 and v2; every value
// is compared with what was written.
void read_file(esmio_t io, const std::string &path, const char *settings, esmio_decomp_t d,
               int64_t first, int64_t count, bool ahead, MPI_Offset v1) {
  const std::string what = std::string(settings) + ": ";
  if (rank == 0) check(evict(path), what + "fsync and POSIX_FADV_DONTNEED of the file");
  MPI_Barrier(MPI_COMM_WORLD);
  const int64_t var_bytes = kValues * 8;
  const int64_t quarter = var_bytes / 4, last_quarter = v1 + var_bytes - quarter;
  ok(esmio_trace_reset(io), "trace_reset");
  esmio_file_t f;
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, settings, &f), "open");
  std::vector<double> back(static_cast<std::size_t>(count));
  for (int v = 0; v < kVars; ++v) {
    int varid = -1;
    ok(esmio_inq_varid(f, ("v" + std::to_string(v)).c_str(), &varid), "inq_varid");
    ok(esmio_read_darray(f, varid, 0, d, ESMIO_DOUBLE, back.data(), count), "read");
    int64_t wrong = 0;
    for (int64_t i = 0; i < count; ++i)
      wrong += back[static_cast<std::size_t>(i)] != value(v, first + i);
    check(wrong == 0, what + "v" + std::to_string(v) + ": " + std::to_string(wrong) +
                          " values differ from those written");
    if (v != 0) continue;
    // After v0: the trace says whether v1 was asked for, and the page cache shows it.
    const int64_t asked = read_ahead_bytes(io);
    if (ahead) {
      check(asked == var_bytes, what + "read_ahead bytes after v0: " + std::to_string(asked) +
                                    ", expected v1's " + std::to_string(var_bytes));
      if (rank == 0) {
        // The disk reads it while the test waits (a timeout, not a measurement).
        double share = 0;
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while ((share = resident(path, last_quarter, quarter)) < 0.9 &&
               std::chrono::steady_clock::now() < end)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        check(share >= 0.9, what + "v1's last quarter never came into the page cache (" +
                                std::to_string(share) + " resident)");
      }
    } else {
      check(asked == 0, what + "read_ahead bytes " + std::to_string(asked) + ", expected 0");
      if (rank == 0) {
        const double share = resident(path, last_quarter, quarter);
        check(share >= 0 && share < 0.1,
              what + "v1's last quarter is in the page cache before anything read it (" +
                  std::to_string(share) + " resident)");
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
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
  }
  MPI_Bcast(&cold, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (cold) {
    MPI_Offset v1 = rank == 0 ? var_offset(path, "v1") : 0;
    MPI_Bcast(&v1, 1, MPI_OFFSET, 0, MPI_COMM_WORLD);
    check(v1 > 0, "v1's offset in the file");
    read_file(io, path, "read_ahead=0", d, first, count, false, v1);
    read_file(io, path, "read_ahead=4M", d, first, count, true, v1);
  }
  ok(esmio_decomp_free(&d), "decomp_free");
  ok(esmio_finalize(&io), "finalize");
  if (rank == 0) std::remove(path.c_str());
  return finish("read_ahead");
}
