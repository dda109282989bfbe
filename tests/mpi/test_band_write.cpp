// Compressed netCDF-4 variables whose I/O tasks' shares of a record are several boxes (a
// task's range ends inside a level), written from every rank as an I/O task: the write
// regroups each record into bands of whole chunks (backend/netcdf4/band_regroup.hpp). Rank 0
// reads the file back with serial netCDF-C: every value of every record bit for bit, and the
// chunk shape asked for kept (a variable in chunks of 3 levels, whose bands are whole chunks
// of levels, some tasks holding none), and a variable without the record dimension.
#include <netcdf.h>
#include <netcdf_filter.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int kRecords = 3;
// Rows of 1024 and units of 64 rows: over 4 I/O tasks, a 3 x 256 x 1024 record is cut at rows
// 192, 384 and 576 (ranges that end inside a level), a 9-level one at 576, 1152 and 1728.
constexpr int64_t kNy = 256, kNx = 1024;

struct Var {
  const char *name;
  int64_t levels;
  const char *chunks;  // "" for esmio's default (one unit of the box layout)
  bool record = true;  // false: no record dimension (written once, as record 0)
  int id = -1;
  int64_t records() const { return record ? kRecords : 1; }
};

float value(int var, int64_t t, int64_t k, int64_t j, int64_t i) {
  // Smooth plus a little structure, rounded to 1/64 so that zstd has something to squeeze.
  const double v = 100.0 * std::sin(0.01 * static_cast<double>(i + 3 * j) + var) +
                   static_cast<double>(k) + 0.25 * static_cast<double>(t) +
                   static_cast<double>((i * 7 + j * 13) % 17) / 8.0;
  return static_cast<float>(std::round(v * 64.0) / 64.0);
}

// This rank's block: a band of rows of every level (a decomposition unlike the I/O layout).
void my_rows(int64_t levels, int64_t *start, int64_t *count) {
  const int64_t lo = rank * kNy / nranks, hi = (rank + 1) * kNy / nranks;
  start[0] = 0;
  count[0] = levels;
  start[1] = lo;
  count[1] = hi - lo;
  start[2] = 0;
  count[2] = kNx;
}

void write_record(esmio_file_t f, const Var &v, int var, int64_t t, esmio_decomp_t d) {
  int64_t start[3], count[3];
  my_rows(v.levels, start, count);
  std::vector<double> buf(static_cast<std::size_t>(count[0] * count[1] * count[2]));
  std::size_t n = 0;
  for (int64_t k = 0; k < count[0]; ++k)
    for (int64_t j = 0; j < count[1]; ++j)
      for (int64_t i = 0; i < count[2]; ++i) buf[n++] = value(var, t, k, start[1] + j, i);
  ok(esmio_write_darray(f, v.id, t, d, ESMIO_DOUBLE, buf.data(), static_cast<int64_t>(n)),
     "write_darray");
}

void check_file(const std::string &path, const std::vector<Var> &vars) {
  int ncid = -1;
  check(nc_open(path.c_str(), NC_NOWRITE, &ncid) == NC_NOERR, path + ": nc_open");
  if (ncid < 0) return;
  for (std::size_t var = 0; var < vars.size(); ++var) {
    const Var &v = vars[var];
    int id = -1;
    check(nc_inq_varid(ncid, v.name, &id) == NC_NOERR, std::string("nc_inq_varid ") + v.name);
    size_t nfilters = 0;
    nc_inq_var_filter_ids(ncid, id, &nfilters, nullptr);
    check(nfilters > 0, std::string(v.name) + ": not compressed");
    int storage = 0;
    size_t chunks[4] = {0, 0, 0, 0};
    nc_inq_var_chunking(ncid, id, &storage, chunks);
    check(storage == NC_CHUNKED, std::string(v.name) + ": not chunked");
    if (v.chunks[0] != '\0') {
      const std::string got = std::to_string(chunks[0]) + "x" + std::to_string(chunks[1]) + "x" +
                              std::to_string(chunks[2]) + "x" + std::to_string(chunks[3]);
      check(got == v.chunks, std::string(v.name) + ": chunks " + got + ", asked " + v.chunks);
    }
    const std::size_t per_record = static_cast<std::size_t>(v.levels * kNy * kNx);
    std::vector<float> got(per_record);
    for (int64_t t = 0; t < v.records(); ++t) {
      const size_t start[4] = {static_cast<size_t>(t), 0, 0, 0};
      const size_t count[4] = {1, static_cast<size_t>(v.levels), kNy, kNx};
      const std::size_t skip = v.record ? 0 : 1;  // no record dimension: from the level on
      check(nc_get_vara_float(ncid, id, start + skip, count + skip, got.data()) == NC_NOERR,
            std::string(v.name) + ": nc_get_vara");
      int64_t bad = 0, first_bad = -1;
      std::size_t n = 0;
      for (int64_t k = 0; k < v.levels; ++k)
        for (int64_t j = 0; j < kNy; ++j)
          for (int64_t i = 0; i < kNx; ++i, ++n) {
            const float want = value(static_cast<int>(var), t, k, j, i);
            if (std::memcmp(&want, &got[n], sizeof want) != 0) {
              if (bad++ == 0) first_bad = static_cast<int64_t>(n);
            }
          }
      check(bad == 0, std::string(v.name) + " record " + std::to_string(t) + ": " +
                          std::to_string(bad) + " values differ, the first at element " +
                          std::to_string(first_bad));
    }
  }
  nc_close(ncid);
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string dir = out_dir();
  esmio_t io;
  // Every rank an I/O task: the ranges above.
  ok(esmio_init(MPI_COMM_WORLD, ("num_iotasks=" + std::to_string(nranks)).c_str(), &io), "init");
  std::vector<Var> vars = {
      {"rows", 3, ""},               // bands of rows: 3 levels, 4 chunks of 64 rows each
      {"levels", 9, ""},             // bands of levels
      {"across", 9, "1x3x128x512"},  // chunks of 3 levels: bands of 3 levels (one empty)
      {"fixed", 9, "", false},       // no record dimension: the variable is one record
  };
  const std::string path = dir + "/band_write.nc";
  esmio_file_t f;
  ok(esmio_create(io, path.c_str(), "backend=netcdf4,compression=default:zstd:1:shuffle", &f),
     "create");
  int dims[4];
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
  ok(esmio_def_dim(f, "lev3", 3, &dims[1]), "def_dim lev3");
  ok(esmio_def_dim(f, "y", kNy, &dims[2]), "def_dim y");
  ok(esmio_def_dim(f, "x", kNx, &dims[3]), "def_dim x");
  int lev9 = -1;
  ok(esmio_def_dim(f, "lev9", 9, &lev9), "def_dim lev9");
  std::vector<esmio_decomp_t> decomps;
  for (Var &v : vars) {
    const int vd[4] = {dims[0], v.levels == 3 ? dims[1] : lev9, dims[2], dims[3]};
    ok(esmio_def_var(f, v.name, ESMIO_FLOAT, v.record ? 4 : 3, v.record ? vd : vd + 1, &v.id),
       "def_var");
    if (v.chunks[0] != '\0') {
      const int64_t chunks[4] = {1, 3, 128, 512};
      ok(esmio_def_var_chunking(f, v.id, 4, chunks), "def_var_chunking");
    }
    int64_t start[3], count[3];
    my_rows(v.levels, start, count);
    const int64_t shape[3] = {v.levels, kNy, kNx};
    esmio_decomp_t d;
    ok(esmio_decomp_create_block(io, 3, shape, start, count, nullptr, &d), "decomp");
    decomps.push_back(d);
  }
  ok(esmio_enddef(f), "enddef");
  for (int64_t t = 0; t < kRecords; ++t)
    for (std::size_t var = 0; var < vars.size(); ++var)
      if (t < vars[var].records())
        write_record(f, vars[var], static_cast<int>(var), t, decomps[var]);
  ok(esmio_close(&f), "close");
  if (rank == 0) check_file(path, vars);
  for (esmio_decomp_t &d : decomps) esmio_decomp_free(&d);
  ok(esmio_finalize(&io), "finalize");
  return finish("band_write");
}
