// agree_writes=flush (the default): cached esmio_write_darray calls make no collective; every
// rank's calls since the last flush are compared at the next one.
//   - calls that agree: written, bit for bit;
//   - a short buffer on one rank: that rank's call fails at once; the next esmio_sync takes the
//     call back on every rank and, since no later call wrote that record, fails with
//     ESMIO_EBUFSIZE on every rank naming the call, the rank and the cause (the record count
//     is the agreed one); the file stays usable (test_takeback: a retry that lands);
//   - a call that fails alike on every rank (a bad variable id) does not spoil the others;
//   - different records on one rank: ESMIO_EMISMATCH at the next sync on every rank;
//   - out-of-range values on one rank: ESMIO_ERANGE from that rank's call, and from the next
//     esmio_sync on every rank, with the total; the data is written.
//   - a write refused on a read-only file on one rank: reads go on everywhere, the close
//     reports ESMIO_EMISMATCH on every rank.
#include <netcdf.h>

#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

double value(int64_t t, int64_t i) { return 1.0 + static_cast<double>(t * 1000 + i); }

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const int64_t n = 1200;
  const int64_t begin = rank * n / nranks, count = (rank + 1) * n / nranks - begin;
  esmio_decomp_t d;
  ok(esmio_decomp_create_block(io, 1, &n, &begin, &count, nullptr, &d), "decomp");
  const std::string path = out_dir() + "/test_deferred_np" + std::to_string(nranks) + ".nc";
  esmio_file_t f;
  int dims[2], v;
  ok(esmio_create(io, path.c_str(), "", &f), "create");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim x");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &v), "def_var");
  ok(esmio_enddef(f), "enddef");
  std::vector<double> x(static_cast<std::size_t>(count) + 1);
  auto fill_record = [&](int64_t t) {
    for (int64_t i = 0; i < count; ++i) x[i] = value(t, begin + i);
  };

  // Record 0: calls that agree.
  fill_record(0);
  ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), count), "write 0");
  ok(esmio_sync(f), "sync 0");

  // Record 1: a short buffer on the last rank.
  fill_record(1);
  const bool short_here = rank == nranks - 1;
  const int rc =
      esmio_write_darray(f, v, 1, d, ESMIO_DOUBLE, x.data(), short_here ? count - 1 : count);
  check(rc == (short_here ? ESMIO_EBUFSIZE : ESMIO_NOERR),
        "a short buffer fails at once on its own rank only, got " + std::to_string(rc));
  if (nranks > 1) {
    expect_all(esmio_sync(f), ESMIO_EBUFSIZE, "sync after a call that failed on one rank",
               "was refused on rank " + std::to_string(nranks - 1) + " (");
    int64_t nrec = -1;
    ok(esmio_inq_nrecords(f, &nrec), "inq_nrecords");
    check(nrec == 1, "the record taken back is not counted: " + std::to_string(nrec));
    ok(esmio_sync(f), "reported once");
  } else {
    ok(esmio_sync(f), "a call that failed on the only rank leaves nothing behind");
  }

  // A call that fails alike everywhere (a bad variable) does not spoil a good one.
  check(esmio_write_darray(f, 99, 1, d, ESMIO_DOUBLE, x.data(), count) == ESMIO_EBADID,
        "a bad variable id fails at once");
  ok(esmio_write_darray(f, v, 1, d, ESMIO_DOUBLE, x.data(), count), "write 1");
  ok(esmio_sync(f), "sync 1 after a call that failed alike everywhere");

  // Record 2 on every rank but the last, record 3 there: found at the sync.
  if (nranks > 1) {
    fill_record(2);
    ok(esmio_write_darray(f, v, short_here ? 3 : 2, d, ESMIO_DOUBLE, x.data(), count),
       "write (different records)");
    expect_all(esmio_sync(f), ESMIO_EMISMATCH, "sync after different records", "cached");
  }

  // Record 2: one value out of float's range on rank 0.
  fill_record(2);
  if (rank == 0) x[0] = 1e300;
  const int rc2 = esmio_write_darray(f, v, 2, d, ESMIO_DOUBLE, x.data(), count);
  check(rc2 == (rank == 0 ? ESMIO_ERANGE : ESMIO_NOERR),
        "out of range: reported by the call on its own rank, got " + std::to_string(rc2));
  expect_all(esmio_sync(f), ESMIO_ERANGE, "sync reports the values out of range", "1 value(s)");
  ok(esmio_sync(f), "reported once");
  ok(esmio_close(&f), "close");

  // What the file holds: records 0, 1 and 2 (2 with fill at 0), nothing of the dropped writes.
  if (rank == 0) {
    int ncid = -1, varid = -1;
    size_t nrec = 0;
    int unlim = -1;
    check(nc_open(path.c_str(), NC_NOWRITE, &ncid) == NC_NOERR, "nc_open");
    nc_inq_varid(ncid, "v", &varid);
    nc_inq_unlimdim(ncid, &unlim);
    nc_inq_dimlen(ncid, unlim, &nrec);
    check(nrec == 3, "records in the file: " + std::to_string(nrec));
    std::vector<float> got(static_cast<std::size_t>(3 * n));
    check(nc_get_var_float(ncid, varid, got.data()) == NC_NOERR, "read back");
    int64_t bad = 0;
    for (int64_t t = 0; t < 3; ++t)
      for (int64_t i = 0; i < n; ++i) {
        const float want =
            t == 2 && i == 0 ? 9.9692099683868690e+36f : static_cast<float>(value(t, i));
        bad += got[t * n + i] != want;
      }
    check(bad == 0, std::to_string(bad) + " values differ from what was written");
    nc_close(ncid);
  }

  // Different records on one rank, then esmio_close without a sync: the close settles the cached
  // calls before filling skipped records (which starts collectives only where a record was
  // skipped: before, ranks took different collectives and hung), reports ESMIO_EMISMATCH on
  // every rank, and closes the file with what every rank agreed on: record 0.
  if (nranks > 1) {
    const std::string path2 =
        out_dir() + "/test_deferred_close_np" + std::to_string(nranks) + ".nc";
    ok(esmio_create(io, path2.c_str(), "", &f), "create 2");
    ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
    ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim x");
    ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &v), "def_var");
    ok(esmio_enddef(f), "enddef");
    fill_record(0);
    ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), count), "write record 0");
    ok(esmio_sync(f), "sync record 0");
    fill_record(1);
    ok(esmio_write_darray(f, v, short_here ? 2 : 1, d, ESMIO_DOUBLE, x.data(), count),
       "write (different records)");
    expect_all(esmio_close(&f), ESMIO_EMISMATCH, "close after different records", "cached");
    check(f == nullptr, "the handle is released");
    if (rank == 0) {
      int ncid = -1, unlim = -1;
      size_t nrec = 0;
      check(nc_open(path2.c_str(), NC_NOWRITE, &ncid) == NC_NOERR, "nc_open 2");
      nc_inq_unlimdim(ncid, &unlim);
      nc_inq_dimlen(ncid, unlim, &nrec);
      check(nrec == 1, "records after the failed close: " + std::to_string(nrec));
      nc_close(ncid);
    }
  }
  // A write refused on a read-only file (ESMIO_EPERM) on the last rank only: it made no
  // collective, so the reads after it go on on every rank (a read-only file's reads make no
  // agreement of cached calls), and the close reports the ranks' differing calls everywhere.
  if (nranks > 1) {
    ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open read-only");
    fill_record(0);
    if (short_here)
      check(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), count) == ESMIO_EPERM,
            "a write on a read-only file fails at once on its rank");
    std::vector<double> back(static_cast<std::size_t>(count));
    for (int read = 0; read < 2; ++read)
      expect_all(esmio_read_darray(f, v, 0, d, ESMIO_DOUBLE, back.data(), count), ESMIO_NOERR,
                 "read after a write refused on one rank");
    int64_t wrong = 0;
    for (int64_t i = 0; i < count; ++i) wrong += back[i] != static_cast<float>(value(0, begin + i));
    check(wrong == 0, std::to_string(wrong) + " values read differ from those written");
    expect_all(esmio_close(&f), ESMIO_EMISMATCH, "close after a write refused on one rank",
               "esmio_write_darray");
    check(f == nullptr, "the handle is released");
  }
  // Cached calls that differ: the message names the first call where the ranks' sequences
  // part, the argument that differs there and both values.
  if (nranks > 1) {
    const int last = nranks - 1;
    const std::string last_writes = "rank " + std::to_string(last) + " writes ";
    const std::string path3 =
        out_dir() + "/test_deferred_words_np" + std::to_string(nranks) + ".nc";
    int w = -1;
    ok(esmio_create(io, path3.c_str(), "", &f), "create 3");
    ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
    ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim x");
    ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &v), "def_var v");
    ok(esmio_def_var(f, "w", ESMIO_FLOAT, 2, dims, &w), "def_var w");
    ok(esmio_enddef(f), "enddef");
    fill_record(0);
    auto named = [&](const std::string &what, const std::vector<std::string> &needles) {
      const std::string message = esmio_last_error();
      for (const std::string &needle : needles)
        check(message.find(needle) != std::string::npos,
              what + ": message does not name '" + needle + "': " + message);
    };
    // The second call differs in its record.
    ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), count), "write record 0");
    ok(esmio_write_darray(f, v, rank == last ? 2 : 1, d, ESMIO_DOUBLE, x.data(), count),
       "write (different records)");
    expect_all(esmio_sync(f), ESMIO_EMISMATCH, "sync after different records", "cached");
    named("sync after different records",
          {"the 2nd of the cached esmio_write_darray call(s)", "variable 'v' (varid 0)",
           "rank 0 writes record 1, " + last_writes + "record 2"});
    // The first call differs in its variable.
    ok(esmio_write_darray(f, rank == last ? w : v, 0, d, ESMIO_DOUBLE, x.data(), count),
       "write (different variables)");
    expect_all(esmio_sync(f), ESMIO_EMISMATCH, "sync after different variables", "cached");
    named("sync after different variables",
          {"the 1st of the cached", "record 0",
           "rank 0 writes variable 'v' (varid 0), " + last_writes + "variable 'w' (varid 1)"});
    // The first call differs in its memory type.
    std::vector<float> xf(x.begin(), x.end());
    if (rank == last)
      ok(esmio_write_darray(f, v, 0, d, ESMIO_FLOAT, xf.data(), count), "write (float)");
    else
      ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), count), "write (double)");
    expect_all(esmio_sync(f), ESMIO_EMISMATCH, "sync after different memory types", "cached");
    named("sync after different memory types",
          {"rank 0 writes memory type double, " + last_writes + "memory type float"});
    // One call more on the last rank.
    ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), count), "write record 0");
    if (rank == last) ok(esmio_write_darray(f, w, 0, d, ESMIO_DOUBLE, x.data(), count), "extra");
    expect_all(esmio_sync(f), ESMIO_EMISMATCH, "sync after one call more", "cached");
    named("sync after one call more",
          {"rank 0 made 1, rank " + std::to_string(last) + " made 2",
           "the 2nd, on rank " + std::to_string(last) + " only", "variable 'w'"});
    // A short buffer on the last rank: the call is taken back on every rank and the sync names
    // it, the refusing rank and its cause, with the element counts.
    ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), count), "write record 0");
    esmio_write_darray(f, v, 1, d, ESMIO_DOUBLE, x.data(), rank == last ? count - 1 : count);
    expect_all(esmio_sync(f), ESMIO_EBUFSIZE, "sync after a short buffer", "taken back");
    named("sync after a short buffer",
          {"record 1", "refused on rank " + std::to_string(last),
           std::to_string((last + 1) * n / nranks - last * n / nranks - 1) + " elements"});
    // The file goes on.
    ok(esmio_write_darray(f, v, 0, d, ESMIO_DOUBLE, x.data(), count), "write after mismatches");
    ok(esmio_close(&f), "close 3");
  }
  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  return finish("test_deferred");
}
