// Ranks that disagree: every collective call compares what the ranks passed, and a difference
// gives ESMIO_EMISMATCH on every rank, with one message naming the ranks that differ, before
// anything reaches the file. After each mismatch the same handles go on working (no rank is
// left behind in a collective), and the file holds only what every rank agreed on.
// Misuse that needs no disagreement is here too: stale handles, MPI_COMM_NULL, paths that POSIX
// refuses. Needs at least 2 ranks (one to disagree).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

int last = 0;  // the rank that disagrees

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// A collective call where the last rank passed something else: EMISMATCH everywhere, the same
// message on every rank, naming the differing rank and needle.
void expect_mismatch(int rc, const std::string &what, const std::string &needle) {
  const std::string message = esmio_last_error();
  if (rank == 0 && std::getenv("ESMIO_TEST_VERBOSE"))
    std::printf("%s: %s\n", what.c_str(), message.c_str());
  expect_all(rc, ESMIO_EMISMATCH, what, needle);
  int len = static_cast<int>(message.size()), len0 = len;
  MPI_Bcast(&len0, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string root = message;
  root.resize(static_cast<std::size_t>(len0));
  MPI_Bcast(root.data(), len0, MPI_CHAR, 0, MPI_COMM_WORLD);
  check(root == message, what + ": message differs from rank 0's: " + message);
  check(message.find("rank " + std::to_string(last)) != std::string::npos,
        what + ": message does not name rank " + std::to_string(last) + ": " + message);
}

// The message of the last call names every needle: the argument that differs and each side's
// value, not only the ranks.
void expect_named(const std::string &what, const std::vector<std::string> &needles) {
  const std::string message = esmio_last_error();
  for (const std::string &needle : needles)
    check(message.find(needle) != std::string::npos,
          what + ": message does not name '" + needle + "': " + message);
}

// A value that is v on every rank but the last, v + 1 there.
int64_t differ(int64_t v) { return rank == last && nranks > 1 ? v + 1 : v; }

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  last = nranks - 1;
  if (nranks < 2) {
    std::fprintf(stderr, "test_mismatch needs at least 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  const std::string dir = out_dir();
  const std::string base = dir + "/mismatch_np" + std::to_string(nranks);
  const std::string path = base + ".nc";
  if (rank == 0) std::remove(path.c_str());
  MPI_Barrier(MPI_COMM_WORLD);

  // ---- instance ----
  esmio_t io = nullptr;
  check(esmio_init(MPI_COMM_NULL, "", &io) == ESMIO_EINVAL && io == nullptr,
        "esmio_init(MPI_COMM_NULL) is refused");
  const std::string iotasks = "num_iotasks=" + std::to_string(differ(1));
  const int init_rc = esmio_init(MPI_COMM_WORLD, iotasks.c_str(), &io);
  expect_mismatch(init_rc, "esmio_init with different num_iotasks", "esmio_init");
  const std::string last_passes = "rank " + std::to_string(last) + " passes ";
  expect_named("esmio_init with different num_iotasks",
               {"rank 0 passes setting num_iotasks 1, " + last_passes + "setting num_iotasks 2"});
  if (init_rc == ESMIO_NOERR) ok(esmio_finalize(&io), "finalize");
  const std::string two = "num_iotasks=" + std::to_string(nranks > 1 ? 2 : 1);
  ok(esmio_init(MPI_COMM_WORLD, two.c_str(), &io), "init");

  // ---- create / open: path, backend, layout and cache settings ----
  esmio_file_t f = nullptr;
  const std::string mine = rank == last && nranks > 1 ? base + "_other.nc" : path;
  expect_mismatch(esmio_create(io, mine.c_str(), "", &f), "create with different paths",
                  "_other.nc");
  if (nranks > 1)
    check(!exists(path) && !exists(base + "_other.nc"), "a refused create makes no file");
  if (f) ok(esmio_close(&f), "close");
  const char *backends[2] = {"backend=pnetcdf", "backend=netcdf4"};
  expect_mismatch(esmio_create(io, path.c_str(), backends[differ(0)], &f),
                  "create with different backends", "netcdf4");
  expect_named("create with different backends", {"rank 0 passes setting backend pnetcdf, " +
                                                  last_passes + "setting backend netcdf4"});
  if (f) ok(esmio_close(&f), "close");
  const std::string cache = "cache=size=" + std::to_string(differ(16)) + "M";
  expect_mismatch(esmio_create(io, path.c_str(), cache.c_str(), &f),
                  "create with different cache settings", "cache");
  if (f) ok(esmio_close(&f), "close");
  // A file that exists on rank 0 only (the last rank names a missing one).
  const std::string missing = rank == last && nranks > 1 ? base + "_missing/x.nc" : path;
  ok(esmio_create(io, path.c_str(), "", &f), "create");
  ok(esmio_close(&f), "close empty");
  expect_mismatch(esmio_open(io, missing.c_str(), ESMIO_NOWRITE, "", &f),
                  "open with one rank's path missing", "_missing");
  if (f) ok(esmio_close(&f), "close");

  // ---- definitions ----
  ok(esmio_create(io, path.c_str(), "", &f), "create");
  int dims[3], var = -1, other = -1;
  const std::string last_defines = "rank " + std::to_string(last) + " defines ";
  expect_mismatch(esmio_def_dim(f, "x", differ(12), &dims[2]), "def_dim with different lengths",
                  "esmio_def_dim on file '");
  expect_named("def_dim with different lengths",
               {"dimension 'x'", "rank 0 defines length 12, " + last_defines + "length 13"});
  expect_mismatch(esmio_def_dim(f, rank == last ? "y" : "x", 12, &dims[2]),
                  "def_dim with different names", "esmio_def_dim");
  expect_named("def_dim with different names",
               {"length 12", "rank 0 defines dimension 'x', " + last_defines + "dimension 'y'"});
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dims[0]), "def_dim time");
  ok(esmio_def_dim(f, "y", 4, &dims[1]), "def_dim y");
  ok(esmio_def_dim(f, "x", 6, &dims[2]), "def_dim x");
  const esmio_type types[2] = {ESMIO_FLOAT, ESMIO_DOUBLE};
  expect_mismatch(esmio_def_var(f, "v", types[differ(0)], 3, dims, &var),
                  "def_var with different types", "esmio_def_var on file '");
  expect_named("def_var with different types",
               {"variable 'v'", "dimensions (time,y,x)",
                "rank 0 defines type float, " + last_defines + "type double"});
  const int swapped[3] = {dims[0], rank == last ? dims[2] : dims[1],
                          rank == last ? dims[1] : dims[2]};
  expect_mismatch(esmio_def_var(f, "v", ESMIO_FLOAT, 3, swapped, &var),
                  "def_var with different dimensions", "esmio_def_var");
  expect_named("def_var with different dimensions",
               {"rank 0 defines dimensions (time,y,x), " + last_defines + "dimensions (time,x,y)"});
  // A null varid pointer on one rank is that rank's own error, on every rank.
  expect_all(esmio_def_var(f, "v", ESMIO_FLOAT, 3, dims, rank == last ? nullptr : &var),
             ESMIO_EINVAL, "def_var with a null varid pointer on one rank", "null varid pointer");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 3, dims, &var), "def_var v");
  ok(esmio_def_var(f, "w", ESMIO_INT, 3, dims, &other), "def_var w");
  const float fill = static_cast<float>(differ(-1));
  const std::string last_puts = "rank " + std::to_string(last) + " puts ";
  expect_mismatch(esmio_def_var_fill(f, var, &fill), "different fill values", "_FillValue");
  expect_named("different fill values",
               {"attribute '_FillValue'", "rank 0 puts values -1, " + last_puts + "values 0"});
  const double scale = static_cast<double>(differ(2));
  expect_mismatch(esmio_put_att(f, var, "scale", ESMIO_DOUBLE, 1, &scale),
                  "attribute values differ", "'scale'");
  expect_named("attribute values differ",
               {"variable 'v' (varid 0), attribute 'scale', type double, length 1",
                "rank 0 puts values 2, " + last_puts + "values 3"});
  const char *units = rank == last ? "K" : "degK";
  expect_mismatch(esmio_put_att(f, ESMIO_GLOBAL, "units", ESMIO_CHAR,
                                static_cast<int64_t>(std::strlen(units)), units),
                  "text attributes differ", "'units'");
  expect_named("text attributes differ",
               {"variable global",
                "rank 0 puts length 4, values 'degK', " + last_puts + "length 1, values 'K'"});
  // A variable id valid on some ranks only: every rank still takes the same collective path.
  expect_mismatch(esmio_def_var_fill(f, static_cast<int>(differ(var + 2)), &fill),
                  "fill of a variable some ranks do not have", "");
  // A fill value that fits the variable's type on some ranks only: no rank waits for another.
  const double typed_fill = rank == last && nranks > 1 ? 1e300 : -1.0;
  expect_mismatch(esmio_def_var_fill_typed(f, var, ESMIO_DOUBLE, &typed_fill),
                  "typed fill out of range on one rank", "_FillValue");
  // The rank whose checks refused the call says why.
  expect_named("typed fill out of range on one rank", {"which failed there: ", "out of range"});
  const float good_fill = -1.0f;
  ok(esmio_def_var_fill(f, var, &good_fill), "fill");
  ok(esmio_enddef(f), "enddef");

  // ---- data calls ----
  const int64_t shape[2] = {4, 6};
  const int64_t start[2] = {0, 0}, count[2] = {rank == 0 ? 4 : 0, 6};
  esmio_decomp_t d, d2;
  ok(esmio_decomp_create_block(io, 2, shape, start, count, nullptr, &d), "decomp");
  ok(esmio_decomp_create_block(io, 2, shape, start, count, nullptr, &d2), "decomp 2");
  const int64_t wrong_shape[2] = {4, differ(6)};
  const int64_t zero[2] = {0, 0};
  esmio_decomp_t bad = nullptr;
  expect_mismatch(esmio_decomp_create_block(io, 2, wrong_shape, zero, zero, nullptr, &bad),
                  "decompositions of different shapes", "shape (4,");
  expect_named("decompositions of different shapes",
               {"esmio_decomp_create_block",
                "rank 0 passes global shape (4,6), " + last_passes + "global shape (4,7)"});
  // One rank's own error (a negative count: a check no other rank makes) reaches every rank
  // as that error, not as a disagreement over the shape.
  const int64_t offset0 = 0;
  expect_all(esmio_decomp_create(io, 2, shape, rank == last ? -1 : 0, &offset0, &bad), ESMIO_EINVAL,
             "decomp_create with a negative count on one rank", "negative count or null offsets");
  check(bad == nullptr, "no decomposition from a refused create");
  if (bad) ok(esmio_decomp_free(&bad), "free");
  std::vector<double> values(24);
  for (int i = 0; i < 24; ++i) values[i] = i;
  const int64_t nlocal = rank == 0 ? 24 : 0;
  expect_mismatch(esmio_write_darray(f, var, differ(0), d, ESMIO_DOUBLE, values.data(), nlocal),
                  "write_darray with different records", "record 1");
  const std::string last_writes = "rank " + std::to_string(last) + " writes ";
  expect_named("write_darray with different records",
               {"esmio_write_darray on file '", "variable 'v' (varid 0)",
                "rank 0 writes record 0, " + last_writes + "record 1"});
  expect_mismatch(
      esmio_write_darray(f, var, 0, rank == last ? d2 : d, ESMIO_DOUBLE, values.data(), nlocal),
      "write_darray with different decompositions", "decomposition #1");
  expect_named("write_darray with different decompositions",
               {"rank 0 writes decomposition #0, " + last_writes + "decomposition #1", "record 0"});
  std::vector<float> fvalues(values.begin(), values.end());
  expect_mismatch(esmio_write_darray(f, var, 0, d, rank == last ? ESMIO_FLOAT : ESMIO_DOUBLE,
                                     rank == last ? static_cast<void *>(fvalues.data())
                                                  : static_cast<void *>(values.data()),
                                     nlocal),
                  "write_darray with different memory types", "memory type");
  expect_named("write_darray with different memory types",
               {"rank 0 writes memory type double, " + last_writes + "memory type float"});
  expect_mismatch(
      esmio_write_darray(f, rank == last ? other : var, 0, d, ESMIO_DOUBLE, values.data(), nlocal),
      "write_darray of different variables", "variable 'w'");
  expect_named("write_darray of different variables",
               {"rank 0 writes variable 'v' (varid 0), " + last_writes + "variable 'w' (varid 1)"});
  int64_t nrec = -1;
  ok(esmio_inq_nrecords(f, &nrec), "nrecords");
  int64_t nrec_lo = 0, nrec_hi = 0;
  MPI_Allreduce(&nrec, &nrec_lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&nrec, &nrec_hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  check(nrec_lo == 0 && nrec_hi == 0, "no record counted by a refused write");
  const int64_t vs[3] = {0, 0, 0}, vc[3] = {1, 1, 3};
  std::vector<double> row = {1.0, 2.0, static_cast<double>(differ(3))};
  expect_mismatch(esmio_put_vara(f, var, vs, vc, ESMIO_DOUBLE, row.data()),
                  "put_vara with different values", "esmio_put_vara");
  expect_named("put_vara with different values",
               {"start (0,0,0), count (1,1,3), memory type double",
                "rank 0 writes values 1, 2, 3, " + last_writes + "values 1, 2, 4"});
  const int64_t shifted[3] = {0, 0, differ(0)};
  const std::vector<double> same_row = {1.0, 2.0, 3.0};
  expect_mismatch(esmio_put_vara(f, var, shifted, vc, ESMIO_DOUBLE, same_row.data()),
                  "put_vara with different starts", "esmio_put_vara");
  expect_named(
      "put_vara with different starts",
      {"variable 'v' (varid 0)", "rank 0 writes start (0,0,0), " + last_writes + "start (0,0,1)"});
  // A null buffer on one rank is that rank's own error, which every rank gets.
  expect_all(esmio_put_vara(f, var, vs, vc, ESMIO_DOUBLE, rank == last ? nullptr : same_row.data()),
             ESMIO_EINVAL, "put_vara with a null buffer on one rank", "null buffer");

  // A create on one rank against a sync on the others: the create's first collective is its
  // agreement, so both sides get the same message.
  esmio_file_t g = nullptr;
  const std::string other_path = base + "_crossing.nc";
  if (rank == last)
    expect_mismatch(esmio_create(io, other_path.c_str(), "", &g), "create against sync",
                    "esmio_sync");
  else
    expect_mismatch(esmio_sync(f), "create against sync", "esmio_create");
  check(g == nullptr, "no handle from a refused create");

  // Different calls: the last rank syncs while the others write.
  if (rank == last && nranks > 1)
    expect_mismatch(esmio_sync(f), "one rank syncs, the others write", "esmio_write_darray");
  else
    expect_mismatch(esmio_write_darray(f, var, 0, d, ESMIO_DOUBLE, values.data(), nlocal),
                    "one rank syncs, the others write", "esmio_sync");

  // A read with writes in the cache against a sync: the read's agreement comes before its flush.
  ok(esmio_write_darray(f, var, 0, d, ESMIO_DOUBLE, values.data(), nlocal), "cached write");
  std::vector<double> scratch(24);
  if (rank == last)
    expect_mismatch(esmio_sync(f), "one rank syncs, the others read", "esmio_read_darray");
  else
    expect_mismatch(esmio_read_darray(f, var, 0, d, ESMIO_DOUBLE, scratch.data(), nlocal),
                    "one rank syncs, the others read", "esmio_sync");
  // A buffer larger than the variable is a local choice, not a disagreement.
  std::vector<double> whole(rank == last ? 200 : 100);
  ok(esmio_get_var(f, var, ESMIO_DOUBLE, whole.data(), static_cast<int64_t>(whole.size())),
     "get_var with buffers of different sizes");
  // A buffer too short on one rank is that rank's error, on every rank.
  expect_all(esmio_get_var(f, var, ESMIO_DOUBLE, whole.data(), rank == last ? 10 : 100),
             ESMIO_EBUFSIZE, "get_var with a short buffer on one rank", "buffer of 10 elements");
  std::vector<float> whole_f(100);
  expect_mismatch(esmio_get_var(f, var, rank == last ? ESMIO_FLOAT : ESMIO_DOUBLE,
                                rank == last ? static_cast<void *>(whole_f.data())
                                             : static_cast<void *>(whole.data()),
                                100),
                  "get_var with different memory types", "esmio_get_var");
  const std::string last_reads = "rank " + std::to_string(last) + " reads ";
  expect_named(
      "get_var with different memory types",
      {"count (1,4,6)", "rank 0 reads memory type double, " + last_reads + "memory type float"});
  const int64_t rs[3] = {0, 0, 0}, rc[3] = {1, 1, differ(2)};
  expect_mismatch(esmio_get_vara(f, var, rs, rc, ESMIO_DOUBLE, whole.data()),
                  "get_vara with different counts", "esmio_get_vara");
  expect_named("get_vara with different counts",
               {"start (0,0,0)", "rank 0 reads count (1,1,2), " + last_reads + "count (1,1,3)"});
  expect_mismatch(esmio_read_darray(f, var, 0, d, rank == last ? ESMIO_FLOAT : ESMIO_DOUBLE,
                                    rank == last ? static_cast<void *>(whole_f.data())
                                                 : static_cast<void *>(scratch.data()),
                                    nlocal),
                  "read_darray with different memory types", "esmio_read_darray");
  expect_named(
      "read_darray with different memory types",
      {"record 0", "rank 0 reads memory type double, " + last_reads + "memory type float"});
  // Attribute inquiries.
  const std::string last_asks = "rank " + std::to_string(last) + " asks for ";
  esmio_type att_type;
  int64_t att_len = 0;
  expect_mismatch(esmio_inq_att(f, var, rank == last ? "units" : "_FillValue", &att_type, &att_len),
                  "inq_att of different attributes", "esmio_inq_att");
  expect_named("inq_att of different attributes",
               {"variable 'v' (varid 0)",
                "rank 0 asks for attribute '_FillValue', " + last_asks + "attribute 'units'"});
  float att_values[2];
  expect_mismatch(esmio_get_att(f, var, "_FillValue", ESMIO_FLOAT, differ(1), att_values),
                  "get_att of different lengths", "esmio_get_att");
  expect_named("get_att of different lengths",
               {"attribute '_FillValue'", "rank 0 asks for length 1, " + last_asks + "length 2"});

  // Everything still works, and the file holds the agreed data only.
  ok(esmio_write_darray(f, var, 0, d, ESMIO_DOUBLE, values.data(), nlocal), "write");
  ok(esmio_close(&f), "close");
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  ok(esmio_inq_nrecords(f, &nrec), "nrecords");
  check(nrec == 1, "one record in the file, got " + std::to_string(nrec));
  float got_fill = 0;
  ok(esmio_get_att(f, var, "_FillValue", ESMIO_FLOAT, 1, &got_fill), "fill");
  check(got_fill == -1.0f, "the agreed fill value");
  esmio_type t;
  int64_t len = 0;
  check(esmio_inq_att(f, var, "scale", &t, &len) != ESMIO_NOERR, "no attribute 'scale'");
  std::vector<double> back(24, -5);
  ok(esmio_read_darray(f, var, 0, d, ESMIO_DOUBLE, back.data(), nlocal), "read");
  bool same = true;
  for (int64_t i = 0; i < nlocal; ++i) same = same && back[i] == values[i];
  check(same, "the record holds the agreed write");
  ok(esmio_close(&f), "close read");

  // Calls on different files: the file is an argument of every call on a file.
  {
    const std::string path_a = base + "_a.nc", path_b = base + "_b.nc";
    esmio_file_t a = nullptr, b = nullptr;
    ok(esmio_create(io, path_a.c_str(), "backend=netcdf4", &a), "create a");
    ok(esmio_create(io, path_b.c_str(), "", &b), "create b");
    int xa = -1, xb = -1, va = -1;
    ok(esmio_def_dim(a, "x", 8, &xa), "def_dim a");
    ok(esmio_def_dim(b, "x", 8, &xb), "def_dim b");
    ok(esmio_def_var(a, "v", ESMIO_FLOAT, 1, &xa, &va), "def_var a");
    // Storage is compared with the whole definition at enddef.
    const int64_t chunk = differ(4);
    ok(esmio_def_var_chunking(a, va, 1, &chunk), "chunking");
    expect_mismatch(esmio_enddef(a), "enddef with different chunks", "esmio_enddef on file '");
    expect_named("enddef with different chunks",
                 {"rank 0 has storage ('v' chunks (4))",
                  "rank " + std::to_string(last) + " has storage ('v' chunks (5))"});
    const int64_t same_chunk = 4;
    ok(esmio_def_var_chunking(a, va, 1, &same_chunk), "chunking again");
    ok(esmio_enddef(a), "enddef a");
    ok(esmio_enddef(b), "enddef b");
    const std::string mine_a = "rank 0 calls file '" + path_a + "', rank " + std::to_string(last) +
                               " calls file '" + path_b + "'";
    expect_mismatch(esmio_sync(rank == last ? b : a), "sync of different files", "esmio_sync");
    expect_named("sync of different files", {mine_a});
    expect_mismatch(esmio_redef(rank == last ? b : a), "redef of different files", "esmio_redef");
    expect_named("redef of different files", {mine_a});
    esmio_file_t one = rank == last ? b : a;
    expect_mismatch(esmio_close(&one), "close of different files", "esmio_close");
    expect_named("close of different files", {mine_a});
    check(one != nullptr, "a refused close keeps the handle");
    ok(esmio_close(&a), "close a");
    ok(esmio_close(&b), "close b");
    if (rank == 0) {
      std::remove(path_a.c_str());
      std::remove(path_b.c_str());
    }
  }

  // Paths that POSIX refuses are refused before MPI-IO sees them (Open MPI overflows a buffer on
  // a 300-character name).
  const std::string long_name = dir + "/" + std::string(300, 'n') + ".nc";
  check(esmio_create(io, long_name.c_str(), "", &f) == ESMIO_EINVAL && f == nullptr,
        "a 300-character path component is refused");
  std::string deep = dir;
  while (deep.size() < 6000) deep += "/" + std::string(100, 'd');
  check(esmio_create(io, deep.c_str(), "", &f) == ESMIO_EINVAL && f == nullptr,
        "a 6000-character path is refused");

  // Stale handles: copies of a closed file's, a freed decomposition's, a finalized instance's
  // handle, and a handle of the wrong kind, are refused (ESMIO_EBADID), never dereferenced.
  ok(esmio_open(io, path.c_str(), ESMIO_WRITE, "", &f), "open for stale");
  esmio_file_t stale_file = f;
  ok(esmio_close(&f), "close");
  check(esmio_sync(stale_file) == ESMIO_EBADID, "sync on a closed file's handle");
  check(esmio_close(&stale_file) == ESMIO_EBADID, "closing a file twice");
  int64_t n_stale = 0;
  check(esmio_inq_nrecords(stale_file, &n_stale) == ESMIO_EBADID, "inquiry on a closed file");
  esmio_decomp_t stale_decomp = d2;
  ok(esmio_decomp_free(&d2), "free 2");
  check(esmio_decomp_free(&stale_decomp) == ESMIO_EBADID, "freeing a decomposition twice");
  ok(esmio_open(io, path.c_str(), ESMIO_WRITE, "", &f), "open again");
  const int stale_write =
      esmio_write_darray(f, var, 0, stale_decomp, ESMIO_DOUBLE, values.data(), nlocal);
  const std::string stale_message = esmio_last_error();
  int stale_lo = 0, stale_hi = 0;
  MPI_Allreduce(&stale_write, &stale_lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&stale_write, &stale_hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  check(stale_write == ESMIO_EBADID && stale_lo == stale_hi,
        "a write through a freed decomposition fails on every rank: " + stale_message);
  check(esmio_sync(reinterpret_cast<esmio_file_t>(d)) == ESMIO_EBADID,
        "a decomposition handle passed as a file handle");
  ok(esmio_close(&f), "close again");
  ok(esmio_decomp_free(&d), "free");
  esmio_t stale_io = io;
  ok(esmio_finalize(&io), "finalize");
  check(esmio_create(stale_io, path.c_str(), "", &f) == ESMIO_EBADID && f == nullptr,
        "create on a finalized instance");
  check(esmio_finalize(&stale_io) == ESMIO_EBADID, "finalizing twice");
  if (rank == 0) std::remove(path.c_str());
  return finish("test_mismatch");
}
