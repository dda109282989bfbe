// A read that fails with EIO below esmio (a bad stretch of the device, injected by failfs) while
// small reads are made in batches: the reads predicted after the current one include the bad
// variables, so the batch meets the error before the program asks for them. The read asked
// for succeeds everywhere, the predicted good ones are served intact, and the bad ones fail
// when they are asked for, with ESMIO_EIO on every rank naming the file, as they do one by one
// (read_ahead=0). argv[1]: the file (on failfs, with direct I/O), argv[2]: the read limit's
// control file.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "../mpi/mpi_check.hpp"
#include "esmio.h"

using namespace mpi_check;

namespace {

constexpr int kVars = 6, kBad = 4;  // v4 and v5 lie past the limit
constexpr int64_t kValues = 2000;

long long file_size(const std::string &path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  return static_cast<long long>(in.tellg());
}

double value(int v, int64_t i) { return 100.0 * v + static_cast<double>(i); }

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  if (argc != 3) return 2;
  const std::string path = argv[1], control = argv[2];
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const int64_t begin = rank * kValues / nranks;
  const int64_t count = (rank + 1) * kValues / nranks - begin;
  esmio_decomp_t d;
  ok(esmio_decomp_create_block(io, 1, &kValues, &begin, &count, nullptr, &d), "decomp");
  std::vector<double> x(static_cast<std::size_t>(count) + 1);

  // Fixed-size variables, laid out one after the other at the file's end: v<k> begins
  // (kVars - k) * kValues * 8 bytes before it.
  esmio_file_t f;
  int dim, varid[kVars];
  ok(esmio_create(io, path.c_str(), nullptr, &f), "create");
  ok(esmio_def_dim(f, "n", kValues, &dim), "def_dim");
  for (int v = 0; v < kVars; ++v)
    ok(esmio_def_var(f, ("v" + std::to_string(v)).c_str(), ESMIO_DOUBLE, 1, &dim, &varid[v]),
       "def_var");
  ok(esmio_enddef(f), "enddef");
  for (int v = 0; v < kVars; ++v) {
    for (int64_t i = 0; i < count; ++i) x[static_cast<std::size_t>(i)] = value(v, begin + i);
    ok(esmio_write_darray(f, varid[v], 0, d, ESMIO_DOUBLE, x.data(), count), "write");
  }
  ok(esmio_close(&f), "close");
  const long long bad = file_size(path) - (kVars - kBad) * kValues * 8;

  for (const char *settings : {"", "read_ahead=0"}) {
    const std::string what = std::string("settings '") + settings + "': ";
    ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, settings, &f), (what + "open").c_str());
    // Armed once the file is open: the header is read whole, past the bad stretch's start.
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) std::ofstream(control) << bad << "\n";
    MPI_Barrier(MPI_COMM_WORLD);
    for (int v = 0; v < kVars; ++v) {
      const std::string call = what + "read v" + std::to_string(v);
      const int rc = esmio_read_darray(f, varid[v], 0, d, ESMIO_DOUBLE, x.data(), count);
      if (v >= kBad) {
        expect_all(rc, ESMIO_EIO, call, path);
        continue;
      }
      expect_all(rc, ESMIO_NOERR, call);
      int64_t wrong = 0;
      for (int64_t i = 0; i < count; ++i)
        wrong += x[static_cast<std::size_t>(i)] != value(v, begin + i);
      check(wrong == 0, call + ": " + std::to_string(wrong) + " values differ from those written");
    }
    // The bad ones again, now out of the order learned: still the error, never old values.
    expect_all(esmio_read_darray(f, varid[kBad], 0, d, ESMIO_DOUBLE, x.data(), count), ESMIO_EIO,
               what + "read v4 again", path);
    ok(esmio_close(&f), (what + "close").c_str());
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) std::remove(control.c_str());
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ok(esmio_decomp_free(&d), "decomp_free");
  ok(esmio_finalize(&io), "finalize");
  return finish("read_error");
}
