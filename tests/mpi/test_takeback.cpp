// A write_darray call refused on one rank (a buffer one element short: a check no other rank can
// make) is taken back on every rank, as if it had never been made; the calls after it land.
//   - retried: the refusing rank gets ESMIO_EBUFSIZE from the call (agree_writes=call: every
//     rank does); the model writes records 0 and 1 correctly; esmio_close succeeds on every
//     rank and the file holds both records, every value, holes as the fill value;
//   - not retried: the model writes record 1 only; with agree_writes=flush esmio_close returns
//     ESMIO_EBUFSIZE on every rank naming the refused call, its rank and its cause (the file
//     must not silently lack the record), with agree_writes=call the call said so everywhere
//     and the close succeeds; either way record 1 is in the file and record 0 reads as fill.
// pnetcdf and netcdf4, agree_writes=flush (the default) and call. The decomposition leaves
// holes, so that the claim to fill them passes from the refused call to the one after it.
#include <netcdf.h>

#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr float kFill = 9.9692099683868690e+36f;

double value(int64_t t, int64_t i) { return 1.0 + static_cast<double>(t * 1000 + i); }

// Element i of record t as the file must hold it: each rank's block of 8 holds data in its first
// half (written by that rank), holes in the second; a record not written holds fill only.
float wanted(int64_t t, int64_t i, bool written) {
  return written && i % 8 < 4 ? static_cast<float>(value(t, i)) : kFill;
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const int64_t n = 8 * nranks;
  std::vector<int64_t> offsets;
  for (int64_t i = 0; i < 4; ++i) offsets.push_back(8 * rank + i);
  esmio_decomp_t d;
  ok(esmio_decomp_create(io, 1, &n, 4, offsets.data(), &d), "decomp");
  const int bad_rank = nranks > 1 ? 1 : 0;
  std::vector<double> x(4);
  auto fill_record = [&](int64_t t) {
    for (int64_t i = 0; i < 4; ++i) x[i] = value(t, offsets[i]);
  };

  for (const std::string backend : {"pnetcdf", "netcdf4"})
    for (const std::string agree : {"flush", "call"})
      for (const bool retried : {true, false}) {
        const std::string label =
            backend + ", agree_writes=" + agree + (retried ? ", retried" : ", not retried");
        const std::string path = out_dir() + "/takeback_np" + std::to_string(nranks) + ".nc";
        esmio_file_t f;
        ok(esmio_create(io, path.c_str(), ("backend=" + backend + ",agree_writes=" + agree).c_str(),
                        &f),
           "create");
        int dims[2], v;
        ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
        ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim x");
        ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &v), "def_var");
        ok(esmio_enddef(f), "enddef");

        // Record 0 with one element short on bad_rank.
        fill_record(0);
        const int rc =
            esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), rank == bad_rank ? 3 : 4);
        const int want = rank == bad_rank || agree == "call" ? ESMIO_EBUFSIZE : ESMIO_NOERR;
        check(rc == want, label + ": the short call returned " + std::to_string(rc) +
                              ", expected " + std::to_string(want));
        if (retried) {
          ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), 4), "write record 0");
        }
        fill_record(1);
        ok(esmio_write_darray(f, v, 1, d, ESMIO_DOUBLE, x.data(), 4), "write record 1");
        const bool told_at_close = !retried && agree == "flush" && nranks > 1;
        if (told_at_close)
          expect_all(esmio_close(&f), ESMIO_EBUFSIZE, label + ": close",
                     "record 0, was refused on rank " + std::to_string(bad_rank) + " (");
        else
          expect_all(esmio_close(&f), ESMIO_NOERR, label + ": close");
        check(f == nullptr, label + ": the handle is released");

        // Every value of the file, through netCDF.
        if (rank == 0) {
          int ncid = -1, varid = -1, unlim = -1;
          size_t nrec = 0;
          check(nc_open(path.c_str(), NC_NOWRITE, &ncid) == NC_NOERR, label + ": nc_open");
          nc_inq_varid(ncid, "v", &varid);
          nc_inq_unlimdim(ncid, &unlim);
          nc_inq_dimlen(ncid, unlim, &nrec);
          check(nrec == 2, label + ": records in the file: " + std::to_string(nrec));
          std::vector<float> got(static_cast<std::size_t>(2 * n), 0.0f);
          check(nc_get_var_float(ncid, varid, got.data()) == NC_NOERR, label + ": read back");
          nc_close(ncid);
          int64_t bad = 0;
          for (int64_t t = 0; t < 2; ++t)
            for (int64_t i = 0; i < n; ++i)
              bad += got[t * n + i] != wanted(t, i, t == 1 || retried);
          check(bad == 0, label + ": " + std::to_string(bad) + " values differ");
        }
        MPI_Barrier(MPI_COMM_WORLD);
      }
  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  return finish("test_takeback");
}
