// A file shorter than its header says is refused at open (ESMIO_ECORRUPT on every rank, the
// message naming the file and both sizes), on every backend that writes classic files; a
// complete file whose last record variable was never written still opens, and an HDF5 file cut
// short is refused too. Files are cut with truncate(2), as a failed copy or a full disk leaves
// them.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

// Three records of v(t, x), and of u(t, x) (after v in each record) only when write_u: a
// variable a model writes less often than the others leaves the file ending before the header's
// extent of the last record.
void write_file(esmio_t io, const std::string &path, const char *settings, bool write_u) {
  const int64_t n = 5000;
  const int64_t begin = rank * n / nranks, count = (rank + 1) * n / nranks - begin;
  esmio_decomp_t d;
  ok(esmio_decomp_create_block(io, 1, &n, &begin, &count, nullptr, &d), "decomp");
  esmio_file_t f;
  int dims[2], v, u;
  ok(esmio_create(io, path.c_str(), settings, &f), "create");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim x");
  ok(esmio_def_var(f, "v", ESMIO_DOUBLE, 2, dims, &v), "def_var v");
  ok(esmio_def_var(f, "u", ESMIO_DOUBLE, 2, dims, &u), "def_var u");
  ok(esmio_enddef(f), "enddef");
  std::vector<double> values(static_cast<std::size_t>(count) + 1, 1.5);
  for (int t = 0; t < 3; ++t) {
    ok(esmio_write_darray(f, v, t, d, ESMIO_DOUBLE, values.data(), count), "write v");
    if (write_u) ok(esmio_write_darray(f, u, t, d, ESMIO_DOUBLE, values.data(), count), "write u");
  }
  ok(esmio_close(&f), "close");
  ok(esmio_decomp_free(&d), "free");
}

int64_t file_size(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return -1;
  std::fseek(f, 0, SEEK_END);
  const int64_t size = std::ftell(f);
  std::fclose(f);
  return size;
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string base = out_dir() + "/truncated_np" + std::to_string(nranks);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");

  struct Case {
    const char *name, *settings;
  };
  const Case cases[] = {{"pnetcdf", "backend=pnetcdf,format=cdf5"},
                        {"pnetcdf_cdf2", "backend=pnetcdf,format=cdf2"},
                        {"serial", "backend=serial,format=cdf2"},
                        {"netcdf4", "backend=netcdf4"}};
  for (const Case &c : cases) {
    const std::string path = base + "_" + c.name + ".nc";
    // Complete, with the fixed variable never written: opens.
    write_file(io, path, c.settings, false);
    esmio_file_t f = nullptr;
    expect_all(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), ESMIO_NOERR,
               std::string(c.name) + ": open a complete file with an unwritten variable", "");
    if (f) ok(esmio_close(&f), "close");
    // Cut in the middle of the last record: refused.
    write_file(io, path, c.settings, true);
    const int64_t size = file_size(path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && truncate(path.c_str(), size - 5000 * 8 / 2) != 0) std::perror("truncate");
    MPI_Barrier(MPI_COMM_WORLD);
    f = nullptr;
    expect_all(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), ESMIO_ECORRUPT,
               std::string(c.name) + ": open a truncated file", path);
    check(f == nullptr, std::string(c.name) + ": no handle for a truncated file");
    if (f) ok(esmio_close(&f), "close");
    if (rank == 0) std::remove(path.c_str());
  }
  // A file closed in define mode (never ended) is complete, as is one closed after redef.
  for (const char *settings : {"backend=pnetcdf", "backend=netcdf4"}) {
    const std::string p = base + "_define.nc";
    esmio_file_t f;
    int dim, var;
    ok(esmio_create(io, p.c_str(), settings, &f), "create");
    ok(esmio_def_dim(f, "x", 100000, &dim), "def_dim");
    ok(esmio_def_var(f, "v", ESMIO_DOUBLE, 1, &dim, &var), "def_var");
    ok(esmio_close(&f), "close in define mode");
    expect_all(esmio_open(io, p.c_str(), ESMIO_WRITE, "", &f), ESMIO_NOERR,
               std::string(settings) + ": open a file closed in define mode");
    ok(esmio_redef(f), "redef");
    ok(esmio_def_var(f, "w", ESMIO_DOUBLE, 1, &dim, &var), "def_var after redef");
    ok(esmio_close(&f), "close after redef");
    expect_all(esmio_open(io, p.c_str(), ESMIO_NOWRITE, "", &f), ESMIO_NOERR,
               std::string(settings) + ": open a file closed after redef");
    if (f) ok(esmio_close(&f), "close");
    if (rank == 0) std::remove(p.c_str());
  }

  // Files that are not netCDF at all, or whose header is cut: ESMIO_ENOTNC or ESMIO_ECORRUPT
  // (never EIO, which means the file system refused), with every backend the same.
  const std::string path = base + "_bad.nc";
  struct Bad {
    const char *name;
    int64_t keep;  // bytes of the good file kept (-1: replaced by text)
    int code;
  };
  const Bad bad[] = {{"empty file", 0, ESMIO_ENOTNC},
                     {"header cut at 40 bytes", 40, ESMIO_ECORRUPT},
                     {"header cut at 4 bytes", 4, ESMIO_ECORRUPT},
                     {"text file", -1, ESMIO_ENOTNC}};
  for (const Bad &b : bad) {
    write_file(io, path, "backend=pnetcdf,format=cdf5", true);
    if (rank == 0) {
      if (b.keep >= 0) {
        if (truncate(path.c_str(), b.keep) != 0) std::perror("truncate");
      } else if (FILE *t = std::fopen(path.c_str(), "w")) {
        std::fputs("this is not a netCDF file, but it is long enough to look at\n", t);
        std::fclose(t);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (const char *settings : {"", "backend=pnetcdf", "backend=netcdf4", "backend=serial"}) {
      esmio_file_t f = nullptr;
      expect_all(esmio_open(io, path.c_str(), ESMIO_NOWRITE, settings, &f), b.code,
                 std::string(b.name) + " (settings '" + settings + "')", path);
      if (f) ok(esmio_close(&f), "close");
    }
  }
  if (rank == 0) std::remove(path.c_str());
  ok(esmio_finalize(&io), "finalize");
  return finish("test_truncated");
}
