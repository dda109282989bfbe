// Records a write skipped over hold the fill value once the file is closed (netCDF's fill
// mode would have put it there; the file is in NOFILL mode, so they would read as zeros), on
// every backend; record indices beyond what the format counts, or far past the last record,
// are refused on every rank (ESMIO_ERECORD) without allocating per record.
#include <cstdio>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string base = out_dir() + "/records_np" + std::to_string(nranks);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const int64_t n = 1000;
  const int64_t begin = rank * n / nranks, count = (rank + 1) * n / nranks - begin;
  esmio_decomp_t d;
  ok(esmio_decomp_create_block(io, 1, &n, &begin, &count, nullptr, &d), "decomp");
  std::vector<double> values(static_cast<std::size_t>(count) + 1);
  for (int64_t i = 0; i < count; ++i) values[i] = static_cast<double>(begin + i);
  const float v_fill = -7.0f;

  const char *settings[] = {"backend=pnetcdf,format=cdf2", "backend=netcdf4",
                            "backend=serial,format=cdf5", "backend=pnetcdf,cache=size=0"};
  for (const char *s : settings) {
    const std::string path = base + ".nc";
    esmio_file_t f;
    int dims[2], v, u, time;
    ok(esmio_create(io, path.c_str(), s, &f), "create");
    ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
    ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim x");
    ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &v), "def_var v");
    ok(esmio_def_var(f, "u", ESMIO_INT, 2, dims, &u), "def_var u");
    ok(esmio_def_var(f, "time", ESMIO_DOUBLE, 1, dims, &time), "def_var time");
    ok(esmio_def_var_fill(f, v, &v_fill), "fill v");
    ok(esmio_enddef(f), "enddef");
    ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, values.data(), count), "write v 0");
    ok(esmio_write_darray(f, u, 0, d, ESMIO_DOUBLE, values.data(), count), "write u 0");
    ok(esmio_write_darray(f, v, 3, d, ESMIO_DOUBLE, values.data(), count), "write v 3");
    for (int64_t t : {0, 3}) {  // an undecomposed record variable: written by put_vara
      const double day = 10.0 * t;
      const int64_t one = 1;
      ok(esmio_put_vara(f, time, &t, &one, ESMIO_DOUBLE, &day), "put time");
    }
    const std::string what = std::string(s) + ": ";
    expect_all(esmio_write_darray(f, v, int64_t(1) << 33, d, ESMIO_DOUBLE, values.data(), count),
               ESMIO_ERECORD, what + "record 2^33");
    if (std::string(s).find("cdf2") != std::string::npos)
      expect_all(
          esmio_write_darray(f, v, (int64_t(1) << 32) - 1, d, ESMIO_DOUBLE, values.data(), count),
          ESMIO_ERECORD, what + "record 2^32-1 in CDF-2");
    const int64_t far_start[2] = {int64_t(1) << 40, 0}, one[2] = {1, 1};
    const double x = 1;
    expect_all(esmio_put_vara(f, v, far_start, one, ESMIO_DOUBLE, &x), ESMIO_ERECORD,
               what + "put_vara at record 2^40");
    ok(esmio_close(&f), "close");

    ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
    int64_t nrec = 0;
    ok(esmio_inq_nrecords(f, &nrec), "nrecords");
    check(nrec == 4, what + "4 records, got " + std::to_string(nrec));
    std::vector<double> back(static_cast<std::size_t>(count) + 1);
    for (int64_t t = 0; t < 4; ++t)
      for (int var : {v, u}) {
        ok(esmio_read_darray(f, var, t, d, ESMIO_DOUBLE, back.data(), count), "read");
        const bool written = t == 0 || (var == v && t == 3);
        const double fill = var == v ? -7.0 : -2147483647.0;  // u: netCDF's default int fill
        int64_t bad = 0;
        for (int64_t i = 0; i < count; ++i)
          if (back[i] != (written ? values[i] : fill)) ++bad;
        check(bad == 0, what + (var == v ? "v" : "u") + " record " + std::to_string(t) + ": " +
                            std::to_string(bad) + " values are not " +
                            (written ? "the data" : "the fill value"));
      }
    std::vector<double> days(4);
    ok(esmio_get_var(f, time, ESMIO_DOUBLE, days.data(), 4), "get time");
    const double dfill = 9.9692099683868690e+36;
    check(days[0] == 0.0 && days[1] == dfill && days[2] == dfill && days[3] == 30.0,
          what + "time: the records put_vara wrote, fill in the others");
    ok(esmio_close(&f), "close read");
    if (rank == 0) std::remove(path.c_str());
  }
  // Holes in many rows: the fill values of many hole stretches come from one shared buffer in
  // one flush, and must reach the file in the file's byte order (PnetCDF's in-place swap of
  // that shared buffer wrote some of them byte-reversed).
  {
    const std::string path = base + "_holes.nc";
    const int64_t rows = 8, cols = 20000, shape[2] = {rows, cols};
    const int64_t hb[2] = {rank * rows / nranks, cols / 2 - 100};
    const int64_t hc[2] = {(rank + 1) * rows / nranks - hb[0], 200};
    esmio_decomp_t middle;
    ok(esmio_decomp_create_block(io, 2, shape, hb, hc, nullptr, &middle), "decomp middle");
    esmio_file_t f;
    int dims[2], v;
    ok(esmio_create(io, path.c_str(), "backend=pnetcdf", &f), "create holes");
    ok(esmio_def_dim(f, "y", rows, &dims[0]), "def_dim y");
    ok(esmio_def_dim(f, "x", cols, &dims[1]), "def_dim x");
    ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &v), "def_var v");
    ok(esmio_def_var_fill(f, v, &v_fill), "fill v");
    ok(esmio_enddef(f), "enddef");
    std::vector<double> mine(static_cast<std::size_t>(hc[0] * hc[1]) + 1, 1.0);
    ok(esmio_write_darray(f, v, 0, middle, ESMIO_DOUBLE, mine.data(), hc[0] * hc[1]),
       "write the middle of each row");
    ok(esmio_close(&f), "close holes");
    ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open holes");
    std::vector<float> all(static_cast<std::size_t>(rows * cols));
    ok(esmio_get_var(f, v, ESMIO_FLOAT, all.data(), rows * cols), "get_var holes");
    int64_t bad = 0;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        const bool data = c >= cols / 2 - 100 && c < cols / 2 + 100;
        bad += all[static_cast<std::size_t>(r * cols + c)] != (data ? 1.0f : v_fill);
      }
    check(bad == 0, "holes: " + std::to_string(bad) + " values are neither the data nor the fill");
    ok(esmio_close(&f), "close read holes");
    ok(esmio_decomp_free(&middle), "free middle");
    if (rank == 0) std::remove(path.c_str());
  }

  // A file closed in define mode (after redef) still gets its skipped records filled.
  for (const char *s : {"backend=pnetcdf", "backend=netcdf4"}) {
    const std::string path = base + "_redef.nc";
    esmio_file_t f;
    int dims[2], v, w;
    ok(esmio_create(io, path.c_str(), s, &f), "create");
    ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
    ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim x");
    ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &v), "def_var v");
    ok(esmio_def_var_fill(f, v, &v_fill), "fill v");
    ok(esmio_enddef(f), "enddef");
    ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, values.data(), count), "write v 0");
    ok(esmio_write_darray(f, v, 2, d, ESMIO_DOUBLE, values.data(), count), "write v 2");
    ok(esmio_redef(f), "redef");
    ok(esmio_def_var(f, "w", ESMIO_FLOAT, 2, dims, &w), "def_var w");
    ok(esmio_close(&f), "close in define mode");
    ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
    std::vector<double> back(static_cast<std::size_t>(count) + 1);
    ok(esmio_read_darray(f, v, 1, d, ESMIO_DOUBLE, back.data(), count), "read v 1");
    int64_t bad = 0;
    for (int64_t i = 0; i < count; ++i) bad += back[i] != -7.0;
    check(bad == 0, std::string(s) + ": skipped record 1 of a file closed in define mode: " +
                        std::to_string(bad) + " values are not the fill value");
    ok(esmio_close(&f), "close read");
    if (rank == 0) std::remove(path.c_str());
  }
  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  return finish("test_records");
}
