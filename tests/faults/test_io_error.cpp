// A write that fails with EIO below MPI-IO (a failing device, injected by failfs) inside the
// file's size: ompio drops that error and used to hang the next sync. Records 0 and 3 are
// synced, the failure is armed (argv[2]: the control file, argv[3]: the byte limit), records 1
// and 2 are written: the sync fails on every rank with ESMIO_EIO naming the file, without a
// hang; close reports it; records 0 and 3 read back intact. argv[1]: the file (on failfs),
// argv[4]: the backend (pnetcdf when absent), argv[5]: a compression spec (netcdf4). Inside HDF5,
// ompio drops the error of the collective write on every rank, and H5Fflush's MPI_File_sync then
// hung.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "../mpi/mpi_check.hpp"
#include "esmio.h"

using namespace mpi_check;

namespace {
long long file_size(const std::string &path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  return static_cast<long long>(in.tellg());
}
}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  if (argc < 4 || argc > 6) return 2;
  const std::string path = argv[1], control = argv[2], limit = argv[3];
  const std::string backend = argc > 4 ? argv[4] : "pnetcdf";
  const std::string compress = argc > 5 ? argv[5] : "none";
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const int64_t n = 400000;
  const int64_t begin = rank * n / nranks, count = (rank + 1) * n / nranks - begin;
  esmio_decomp_t d;
  ok(esmio_decomp_create_block(io, 1, &n, &begin, &count, nullptr, &d), "decomp");
  std::vector<double> x(static_cast<std::size_t>(count) + 1);
  for (int64_t i = 0; i < count; ++i) x[i] = 1.0 + static_cast<double>(begin + i);
  esmio_file_t f;
  int dims[2], v;
  ok(esmio_create(io, path.c_str(), ("backend=" + backend + ",cache=size=64M;direct=1G").c_str(),
                  &f),
     "create");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim x");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &v), "def_var");
  if (compress != "none") ok(esmio_def_var_compress(f, v, compress.c_str()), "def_var_compress");
  ok(esmio_enddef(f), "enddef");
  ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), count), "write 0");
  ok(esmio_write_darray(f, v, 3, d, ESMIO_DOUBLE, x.data(), count), "write 3");
  ok(esmio_sync(f), "sync 0 and 3");
  MPI_Barrier(MPI_COMM_WORLD);
  // "end": every write past the file's present end fails (compressed chunks: their size is
  // not known in advance).
  if (rank == 0)
    std::ofstream(control) << (limit == "end" ? std::to_string(file_size(path)) : limit) << "\n";
  MPI_Barrier(MPI_COMM_WORLD);
  for (int64_t t = 1; t < 3; ++t)
    ok(esmio_write_darray(f, v, t, d, ESMIO_DOUBLE, x.data(), count), "write (cached)");
  expect_all(esmio_sync(f), ESMIO_EIO, "sync of records that fail with EIO", path);
  expect_all(esmio_close(&f), ESMIO_EIO, "close", "closed");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::remove(control.c_str());
  MPI_Barrier(MPI_COMM_WORLD);
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  std::vector<double> back(static_cast<std::size_t>(count) + 1);
  for (int64_t t : {0, 3}) {
    ok(esmio_read_darray(f, v, t, d, ESMIO_DOUBLE, back.data(), count), "read");
    int64_t bad = 0;
    for (int64_t i = 0; i < count; ++i) bad += back[i] != x[i];
    check(bad == 0, "record " + std::to_string(t) + ": " + std::to_string(bad) + " values lost");
  }
  ok(esmio_close(&f), "close read");
  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  return finish("test_io_error");
}
