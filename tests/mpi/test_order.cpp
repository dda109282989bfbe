// The file holds what was written last, whatever the write cache holds: a put_vara after a
// cached write_darray of the same variable and record overwrites it (the cached write, and its
// hole fill, once reached the file after the put_vara and won). Writes of other variables stay
// cached across the put_vara. Every backend that caches, both agreement modes, read back with
// netCDF-C.
#include <netcdf.h>

#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

int main(int argc, char **argv) {
  start(&argc, &argv);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const int64_t n = 8 * nranks;
  // Each rank writes the first half of its block of 8; the second half is holes.
  std::vector<int64_t> offsets;
  for (int64_t i = 0; i < 4; ++i) offsets.push_back(8 * rank + i);
  esmio_decomp_t d;
  ok(esmio_decomp_create(io, 1, &n, 4, offsets.data(), &d), "decomp");
  for (const char *settings : {"backend=pnetcdf", "backend=pnetcdf,agree_writes=call",
                               "backend=netcdf4", "backend=netcdf4,agree_writes=call"}) {
    const std::string path = out_dir() + "/order_np" + std::to_string(nranks) + ".nc";
    esmio_file_t f;
    ok(esmio_create(io, path.c_str(), settings, &f), "create");
    int dims[2], v, w;
    ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
    ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim x");
    ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &v), "def_var v");
    ok(esmio_def_var(f, "w", ESMIO_FLOAT, 2, dims, &w), "def_var w");
    ok(esmio_enddef(f), "enddef");
    const double mine[4] = {1.0 + rank, 2.0 + rank, 3.0 + rank, 4.0 + rank};
    ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, mine, 4), "write v");
    ok(esmio_write_darray(f, w, 0, d, ESMIO_DOUBLE, mine, 4), "write w");
    // All of record 0 of v, after the cached write: these values must be what the file holds.
    std::vector<double> all(static_cast<std::size_t>(n), 100.0);
    const int64_t start[2] = {0, 0}, count[2] = {1, n};
    ok(esmio_put_vara(f, v, start, count, ESMIO_DOUBLE, all.data()), "put_vara v");
    ok(esmio_close(&f), "close");
    if (rank == 0) {
      int ncid, vid, wid;
      check(nc_open(path.c_str(), NC_NOWRITE, &ncid) == NC_NOERR, "nc_open");
      nc_inq_varid(ncid, "v", &vid);
      nc_inq_varid(ncid, "w", &wid);
      std::vector<float> got(static_cast<std::size_t>(n)), got_w(got.size());
      nc_get_var_float(ncid, vid, got.data());
      nc_get_var_float(ncid, wid, got_w.data());
      nc_close(ncid);
      int bad = 0, bad_w = 0;
      for (int64_t i = 0; i < n; ++i) {
        bad += got[i] != 100.0f;
        const int64_t r = i / 8, k = i % 8;
        bad_w += got_w[i] != (k < 4 ? static_cast<float>(1.0 + k + r) : 9.9692099683868690e+36f);
      }
      check(bad == 0, std::string(settings) + ": " + std::to_string(bad) +
                          " values of v are not put_vara's (first " + std::to_string(got[0]) + ")");
      check(bad_w == 0, std::string(settings) + ": w (cached, another variable) differs in " +
                            std::to_string(bad_w) + " values");
    }
  }
  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  return finish("test_order");
}
