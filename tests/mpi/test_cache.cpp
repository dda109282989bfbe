// The write cache's guarantee: a flush that fails reports the same error on every rank and
// keeps what was pending, so a later sync writes it. The failure is real: the file-size limit
// (RLIMIT_FSIZE) is lowered so that the storage refuses the flush, then raised again.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

void set_file_limit(rlim_t bytes) {
  rlimit limit;
  getrlimit(RLIMIT_FSIZE, &limit);
  limit.rlim_cur = bytes == RLIM_INFINITY ? limit.rlim_max : bytes;
  setrlimit(RLIMIT_FSIZE, &limit);
}
}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG instead of killing
  const std::string dir = out_dir();
  const std::string path = dir + "/cache_np" + std::to_string(nranks) + ".nc";

  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "num_iotasks=2", &io), "init");
  const int64_t n = 200000;  // 800 KB per record in float
  const int64_t begin = rank * n / nranks, count = (rank + 1) * n / nranks - begin;
  esmio_decomp_t d;
  ok(esmio_decomp_create_block(io, 1, &n, &begin, &count, nullptr, &d), "decomp");
  std::vector<double> values(static_cast<std::size_t>(count));

  esmio_file_t f;
  int dims[2], var;
  ok(esmio_create(io, path.c_str(), "cache=size=64M;direct=1G", &f), "create");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &var), "def_var");
  ok(esmio_enddef(f), "enddef");
  const int records = 4;
  for (int t = 0; t < records; ++t) {
    for (int64_t i = 0; i < count; ++i) values[i] = 1000.0 * t + static_cast<double>(begin + i);
    ok(esmio_write_darray(f, var, t, d, ESMIO_DOUBLE, values.data(), count), "write (cached)");
  }

  set_file_limit(256 * 1024);  // the header fits, the records do not
  const int failed = esmio_sync(f);
  const std::string message = esmio_last_error();
  set_file_limit(RLIM_INFINITY);
  int lo = 0, hi = 0;
  MPI_Allreduce(&failed, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&failed, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  check(failed != ESMIO_NOERR, "the sync under the file-size limit should fail");
  check(lo == hi, "the failed sync returns the same code on every rank");
  check(message.find(path) != std::string::npos, "the message names the file: " + message);

  ok(esmio_sync(f), "sync again, limit lifted");  // writes what was kept
  ok(esmio_close(&f), "close");

  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  int64_t nrec = 0;
  ok(esmio_inq_nrecords(f, &nrec), "nrecords");
  check(nrec == records, "all records in the file");
  for (int t = 0; t < records; ++t) {
    ok(esmio_read_darray(f, var, t, d, ESMIO_DOUBLE, values.data(), count), "read");
    int64_t bad = 0;
    for (int64_t i = 0; i < count; ++i)
      if (values[i] != static_cast<double>(static_cast<float>(1000.0 * t + (begin + i)))) ++bad;
    check(bad == 0, "record " + std::to_string(t) + ": " + std::to_string(bad) + " wrong values");
  }
  ok(esmio_close(&f), "close read");

  // A call that fails on one rank is taken back everywhere: neither its data nor its claim on
  // the record's holes survives, so the retry fills the holes and the file holds the retry.
  const int64_t half = n / 2, hb = rank * half / nranks, hc = (rank + 1) * half / nranks - hb;
  esmio_decomp_t first_half;
  ok(esmio_decomp_create_block(io, 1, &n, &hb, &hc, nullptr, &first_half), "decomp half");
  ok(esmio_create(io, path.c_str(), "cache=size=64M;direct=1G", &f), "create again");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &var), "def_var");
  ok(esmio_enddef(f), "enddef");
  std::vector<double> part(static_cast<std::size_t>(hc) + 1, 7777.0);
  const int64_t short_count = rank == nranks - 1 ? hc - 1 : hc;
  const int bad_call =
      esmio_write_darray(f, var, 0, first_half, ESMIO_DOUBLE, part.data(), short_count);
  int bad_lo = 0, bad_hi = 0;
  MPI_Allreduce(&bad_call, &bad_lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&bad_call, &bad_hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  check(bad_call == ESMIO_EBUFSIZE && bad_lo == bad_hi,
        "a short buffer on one rank fails the call on every rank with ESMIO_EBUFSIZE, got " +
            std::to_string(bad_call));
  for (int64_t i = 0; i < hc; ++i) part[i] = static_cast<double>(hb + i);
  ok(esmio_write_darray(f, var, 0, first_half, ESMIO_DOUBLE, part.data(), hc), "retry");
  ok(esmio_close(&f), "close after retry");
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open after retry");
  ok(esmio_read_darray(f, var, 0, d, ESMIO_DOUBLE, values.data(), count), "read after retry");
  int64_t wrong = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t g = begin + i;
    const double want =
        g < half ? static_cast<double>(g) : static_cast<double>(9.9692099683868690e+36f);
    if (values[i] != want) ++wrong;
  }
  check(wrong == 0, std::to_string(wrong) + " values are not the retry's data or the fill value");
  ok(esmio_close(&f), "close read after retry");
  // A write that never reaches the disk is not counted: records 0-1 are synced, 2-3 fail
  // and the file is closed without a retry. The header then counts the 2 records whose data is
  // in the file, not 4 (PnetCDF alone would write 4 and leave two records of zeros), although
  // the time coordinate, written at once with put_vara, reached all 4.
  int time_var = -1;
  ok(esmio_create(io, path.c_str(), "cache=size=64M;direct=1G", &f), "create for loss");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &var), "def_var");
  ok(esmio_def_var(f, "time", ESMIO_DOUBLE, 1, dims, &time_var), "def_var time");
  ok(esmio_enddef(f), "enddef");
  for (int t = 0; t < 4; ++t) {
    for (int64_t i = 0; i < count; ++i) values[i] = 1000.0 * t + static_cast<double>(begin + i);
    ok(esmio_write_darray(f, var, t, d, ESMIO_DOUBLE, values.data(), count), "write for loss");
    const int64_t at = t, one = 1;
    const double day = t;
    ok(esmio_put_vara(f, time_var, &at, &one, ESMIO_DOUBLE, &day), "time");
    if (t == 1) ok(esmio_sync(f), "sync records 0-1");
  }
  set_file_limit(256 * 1024 + 2 * n * 4 + 4096);  // the first two records fit
  const int lost_sync = esmio_sync(f);
  const int lost_close = esmio_close(&f);
  const std::string close_message = esmio_last_error();
  set_file_limit(RLIM_INFINITY);
  check(lost_sync != ESMIO_NOERR && lost_close != ESMIO_NOERR,
        "sync and close of records that do not fit fail");
  check(f == nullptr, "a failed close releases the handle");
  check(close_message.find("closed") != std::string::npos &&
            close_message.find("2 records") != std::string::npos,
        "the close message says the file was closed with 2 records: " + close_message);
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open after loss");
  ok(esmio_inq_nrecords(f, &nrec), "nrecords after loss");
  check(nrec == 2, "the file counts the 2 records written, not " + std::to_string(nrec));
  for (int t = 0; t < 2 && t < nrec; ++t) {
    ok(esmio_read_darray(f, var, t, d, ESMIO_DOUBLE, values.data(), count), "read after loss");
    int64_t bad = 0;
    for (int64_t i = 0; i < count; ++i)
      if (values[i] != static_cast<double>(static_cast<float>(1000.0 * t + (begin + i)))) ++bad;
    check(bad == 0,
          "record " + std::to_string(t) + " after loss: " + std::to_string(bad) + " wrong values");
  }
  ok(esmio_close(&f), "close read after loss");

  // agree_writes=call, a 1 MiB cache (two records' shares fit, three do not), the storage
  // refusing: record 1 fits, its flush fails, and it stays cached with record 0 (the cache keeps
  // what was pending); record 2 does not fit, the flush it needs fails, and the call is refused
  // (it was once cached all the same: the cache grew past its size on every call while the disk
  // stayed full, and a refused record reached the file at the next sync). The retry writes
  // records 0 and 1, not 2.
  ok(esmio_create(io, path.c_str(), "agree_writes=call,cache=size=1M;direct=1G", &f),
     "create call mode");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &var), "def_var");
  ok(esmio_enddef(f), "enddef");
  for (int64_t i = 0; i < count; ++i) values[i] = static_cast<double>(begin + i);
  ok(esmio_write_darray(f, var, 0, d, ESMIO_DOUBLE, values.data(), count), "write record 0");
  set_file_limit(256 * 1024);  // the header fits, the records do not
  for (int t = 1; t <= 2; ++t) {
    for (int64_t i = 0; i < count; ++i) values[i] = 1000.0 * t + static_cast<double>(begin + i);
    const int rc = esmio_write_darray(f, var, t, d, ESMIO_DOUBLE, values.data(), count);
    int rc_lo = 0, rc_hi = 0;
    MPI_Allreduce(&rc, &rc_lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &rc_hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    check(rc != ESMIO_NOERR && rc_lo == rc_hi,
          "record " + std::to_string(t) + " with a full cache and a failing flush is refused");
  }
  set_file_limit(RLIM_INFINITY);
  ok(esmio_sync(f), "sync, limit lifted: records 0 and 1 arrive");
  ok(esmio_close(&f), "close call mode");
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open call mode");
  ok(esmio_inq_nrecords(f, &nrec), "nrecords call mode reopened");
  check(nrec == 2, "records in the file after the refused call: " + std::to_string(nrec));
  for (int t = 0; t < 2 && t < nrec; ++t) {
    ok(esmio_read_darray(f, var, t, d, ESMIO_DOUBLE, values.data(), count), "read call mode");
    int64_t bad = 0;
    for (int64_t i = 0; i < count; ++i)
      if (values[i] != static_cast<double>(static_cast<float>(1000.0 * t + (begin + i)))) ++bad;
    check(bad == 0, "record " + std::to_string(t) + " after the retry: " + std::to_string(bad) +
                        " wrong values");
  }
  ok(esmio_close(&f), "close read call mode");
  if (rank == 0) {
    struct stat st {};
    ::stat(path.c_str(), &st);
    // Header (< 256 KiB) and two records: the refused record's data must not be there.
    check(st.st_size < 256 * 1024 + 3 * n * 4,
          "file size " + std::to_string(st.st_size) + ": the refused record reached the file");
  }

  ok(esmio_decomp_free(&first_half), "free half");
  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  if (rank == 0) std::remove(path.c_str());
  return finish("test_cache");
}
