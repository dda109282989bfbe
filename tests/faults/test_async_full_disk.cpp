// Asynchronous mode on a full disk: the I/O servers write to a small tmpfs (16 MB) that the model
// fills. Run as root (without arguments), the program mounts the tmpfs itself and runs the
// model under mpirun with a time limit (small_fs::run_cases: two runs at a time), for io_servers=1
// on 3 ranks and io_servers=2 on 4 and 5 ranks, backends pnetcdf and netcdf4, with the servers'
// write cache on (default) and off (cache=size=0: the servers' write_darray itself meets the full
// disk). Each run is this program again with --worker; it checks that
//   - no rank hangs or dies (the time limit),
//   - every call returns the same code on every compute rank, and a failure reaches them at the
//     latest by the esmio_sync after it (or the esmio_close): ESMIO_ENOSPC, with a message naming
//     the file and "No space left" (and, with the cache off, the variable written),
//   - esmio_finalize then succeeds everywhere,
//   - the file left behind opens with netCDF-C and holds, value for value, every record an
//     esmio_sync reported written (A: 2 MB of float per record, B: double, time by put_vara).
// Not root: prints why and exits 77 (ctest: skipped).
#include <mpi.h>
#include <netcdf.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "esmio.h"
#include "small_fs.hpp"

namespace {

constexpr int kMaxRecords = 20;           // 40 MB of A: more than the file system holds
constexpr int64_t kNy = 512, kNx = 1024;  // A: 2 MB of float per record
constexpr long kFsMb = 16;

float a_value(int rec, int64_t idx) { return static_cast<float>((rec + 1) * 1000 + idx % 997); }
double b_value(int rec, int64_t x) { return -1.0e6 * (rec + 1) - static_cast<double>(x) - 0.125; }
double time_value(int rec) { return 6.0 * rec + 0.5; }

// ---- worker (one MPI run) ----------------------------------------------------------------

int rank = 0, failures = 0;
MPI_Comm g_comm = MPI_COMM_NULL;  // the compute ranks

void fail(const std::string &what) {
  ++failures;
  std::fprintf(stderr, "[rank %d] FAIL %s\n", rank, what.c_str());
}

struct Outcome {
  bool failed = false;  // a call failed
  std::string first;    // the first failed call
};

// The same code on every compute rank; the first failure ESMIO_ENOSPC naming the file and the
// cause (and a variable, where want_variable). Returns true if rc is a failure.
bool check_call(const std::string &call, int rc, const std::string &path, bool want_variable,
                Outcome *outcome) {
  int lo = 0, hi = 0;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, g_comm);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, g_comm);
  if (lo != hi)
    fail(call + ": compute ranks returned different codes (" + std::to_string(lo) + " to " +
         std::to_string(hi) + "), this rank " + std::to_string(rc) + ": " + esmio_last_error());
  if (rc != ESMIO_NOERR && !outcome->failed) {
    outcome->failed = true;
    outcome->first = call;
    const std::string msg = esmio_last_error();
    if (rc != ESMIO_ENOSPC)
      fail(call + ": expected ESMIO_ENOSPC, got " + std::to_string(rc) + ": " + msg);
    if (msg.find(path) == std::string::npos || msg.find("No space left") == std::string::npos)
      fail(call + ": the message does not name the file and the cause: " + msg);
    if (want_variable && msg.find("variable '") == std::string::npos)
      fail(call + ": the failure is in a write: the message does not name the variable: " + msg);
    if (rank == 0) std::printf("  first failure: %s: rc=%d: %s\n", call.c_str(), rc, msg.c_str());
  }
  return rc != ESMIO_NOERR;
}

int worker(const std::string &dir, const std::string &backend, int servers,
           const std::string &cache) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string path = dir + "/out.nc";
  esmio_t io;
  const std::string instance = "io_servers=" + std::to_string(servers);
  if (esmio_init(MPI_COMM_WORLD, instance.c_str(), &io) != ESMIO_NOERR)
    MPI_Abort(MPI_COMM_WORLD, 2);
  int role = ESMIO_ROLE_COMPUTE;
  esmio_inq_role(io, &role);
  int confirmed = 0;  // records 0..confirmed-1: written, and a later sync succeeded
  if (role == ESMIO_ROLE_SERVER) {
    if (esmio_finalize(&io) != ESMIO_NOERR) fail("finalize on a server");
  } else {
    MPI_Comm comm;
    esmio_inq_comm(io, &comm);
    MPI_Comm_dup(comm, &g_comm);
    int me = 0, p = 1;
    MPI_Comm_rank(g_comm, &me);
    MPI_Comm_size(g_comm, &p);
    const int64_t shape[2] = {kNy, kNx};
    const int64_t y0 = me * kNy / p, y1 = (me + 1) * kNy / p;
    const int64_t start[2] = {y0, 0}, count[2] = {y1 - y0, kNx}, n = count[0] * kNx;
    const int64_t x0 = me * kNx / p, x1 = (me + 1) * kNx / p;
    std::vector<int64_t> xs;
    for (int64_t x = x0; x < x1; ++x) xs.push_back(x);
    esmio_decomp_t da, db;
    if (esmio_decomp_create_block(io, 2, shape, start, count, nullptr, &da) != ESMIO_NOERR ||
        esmio_decomp_create(io, 1, &kNx, x1 - x0, xs.data(), &db) != ESMIO_NOERR)
      MPI_Abort(MPI_COMM_WORLD, 2);
    std::vector<float> a(static_cast<std::size_t>(n));
    std::vector<double> b(xs.size());
    const bool write_fails_itself = cache == "size=0";
    Outcome outcome;
    esmio_file_t f = nullptr;
    const std::string settings = "backend=" + backend + ",cache=" + cache;
    // The create is posted: a failure would come back later, like any other.
    if (!check_call("create", esmio_create(io, path.c_str(), settings.c_str(), &f), path, false,
                    &outcome)) {
      int dims[3], va = -1, vb = -1, vt = -1;
      esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dims[0]);
      esmio_def_dim(f, "y", kNy, &dims[1]);
      esmio_def_dim(f, "x", kNx, &dims[2]);
      esmio_def_var(f, "A", ESMIO_FLOAT, 3, dims, &va);
      const int bdims[2] = {dims[0], dims[2]};
      esmio_def_var(f, "B", ESMIO_DOUBLE, 2, bdims, &vb);
      esmio_def_var(f, "time", ESMIO_DOUBLE, 1, dims, &vt);
      check_call("enddef", esmio_enddef(f), path, false, &outcome);
      for (int rec = 0; rec < kMaxRecords && !outcome.failed; ++rec) {
        const std::string at = " record " + std::to_string(rec);
        for (int64_t i = 0; i < n; ++i) a[i] = a_value(rec, y0 * kNx + i);
        for (std::size_t i = 0; i < xs.size(); ++i) b[i] = b_value(rec, xs[i]);
        // Posts: they return at once, whatever the disk does.
        check_call("write A" + at, esmio_write_darray(f, va, rec, da, ESMIO_FLOAT, a.data(), n),
                   path, write_fails_itself, &outcome);
        check_call("write B" + at,
                   esmio_write_darray(f, vb, rec, db, ESMIO_DOUBLE, b.data(), x1 - x0), path,
                   write_fails_itself, &outcome);
        const int64_t t0 = rec, t1 = 1;
        const double when = time_value(rec);
        check_call("put_vara time" + at, esmio_put_vara(f, vt, &t0, &t1, ESMIO_DOUBLE, &when), path,
                   false, &outcome);
        // A sync every second record: the failure may be a record or two behind.
        if (rec % 2 == 1 &&
            !check_call("sync after" + at, esmio_sync(f), path, write_fails_itself, &outcome))
          confirmed = rec + 1;
      }
      const bool before_close = outcome.failed;
      const int rc = esmio_close(&f);
      check_call("close", rc, path, write_fails_itself, &outcome);
      if (rank == 0 && before_close)
        std::printf("  close after the failure: rc=%d: %s\n", rc, esmio_last_error());
    }
    if (!outcome.failed)
      fail("the disk never filled, or no call reported it: nothing was tested");
    else if (outcome.first.rfind("write", 0) == 0 || outcome.first.rfind("put_vara", 0) == 0)
      fail("a posted call failed (" + outcome.first + "): the failure should wait for the sync");
    esmio_decomp_free(&da);
    esmio_decomp_free(&db);
    const int rc = esmio_finalize(&io);
    int lo = 0, hi = 0;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, g_comm);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, g_comm);
    if (rc != ESMIO_NOERR || lo != hi)
      fail("finalize: " + std::to_string(rc) + " (" + esmio_last_error() + ")");
    MPI_Comm_free(&g_comm);
  }
  MPI_Bcast(&confirmed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);

  // World rank 0 (a compute rank: the servers are the last ranks) reads the file.
  if (rank == 0) {
    int ncid = -1;
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      fail("no file left behind");
    } else if (nc_open(path.c_str(), NC_NOWRITE, &ncid) != NC_NOERR) {
      fail("the file left behind does not open with netCDF-C");
    } else {
      int unlim = -1, va = -1, vb = -1, vt = -1;
      size_t nrec = 0;
      nc_inq_unlimdim(ncid, &unlim);
      nc_inq_dimlen(ncid, unlim, &nrec);
      nc_inq_varid(ncid, "A", &va);
      nc_inq_varid(ncid, "B", &vb);
      nc_inq_varid(ncid, "time", &vt);
      if (static_cast<int>(nrec) < confirmed)
        fail("the file has " + std::to_string(nrec) + " records, " + std::to_string(confirmed) +
             " were reported written");
      std::vector<float> a(static_cast<std::size_t>(kNy * kNx));
      std::vector<double> b(static_cast<std::size_t>(kNx));
      std::string have;
      for (int r = 0; r < static_cast<int>(nrec); ++r) {
        const size_t s3[3] = {size_t(r), 0, 0}, c3[3] = {1, kNy, kNx};
        const size_t s2[2] = {size_t(r), 0}, c2[2] = {1, kNx}, s1 = size_t(r), c1 = 1;
        double when = 0;
        bool good = nc_get_vara_float(ncid, va, s3, c3, a.data()) == NC_NOERR &&
                    nc_get_vara_double(ncid, vb, s2, c2, b.data()) == NC_NOERR &&
                    nc_get_vara_double(ncid, vt, &s1, &c1, &when) == NC_NOERR;
        for (int64_t i = 0; i < kNy * kNx && good; ++i) good = a[i] == a_value(r, i);
        for (int64_t x = 0; x < kNx && good; ++x) good = b[x] == b_value(r, x);
        good = good && when == time_value(r);
        have += good ? "+" : ".";
        if (r < confirmed && !good)
          fail("record " + std::to_string(r) +
               " was reported written (a sync after it succeeded) but does not hold its values");
      }
      nc_close(ncid);
      std::printf("  file: %zu records [%s], %d reported written\n", nrec, have.c_str(), confirmed);
    }
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total ? 1 : 0;
}

// ---- launcher (root): the runs, two at a time, each on a tmpfs of its own ----------------

using small_fs::run;

int launcher(const char *self) {
  if (geteuid() != 0) {
    std::printf("test_async_full_disk: skipped: mounting a small file system needs root\n");
    return 77;
  }
  char tmpl[] = "/tmp/esmio_async_full_disk.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const std::string base = tmpl;
  // e.g. ESMIO_ASYNC_FULL_DISK_CASES="np4" or "netcdf4": only the runs whose name contains it.
  const char *only = std::getenv("ESMIO_ASYNC_FULL_DISK_CASES");
  std::vector<small_fs::Case> cases;
  const std::pair<int, int> layouts[] = {{3, 1}, {4, 2}, {5, 2}};  // ranks, servers
  for (const auto &layout : layouts)
    for (const std::string backend : {"pnetcdf", "netcdf4"})
      for (const std::string cache : {"size=8M", "size=0"}) {
        small_fs::Case c;
        c.name = backend + " cache=" + cache + " io_servers=" + std::to_string(layout.second) +
                 " np" + std::to_string(layout.first);
        if (only && c.name.find(only) == std::string::npos) continue;
        c.fs = "tmpfs";
        c.command = [=](const std::string &mnt) {
          return "mpirun --oversubscribe -np " + std::to_string(layout.first) + " " + self +
                 " --worker " + mnt + " " + backend + " " + std::to_string(layout.second) + " " +
                 cache;
        };
        c.check = [](const std::string &mnt) {
          const std::string file = mnt + "/out.nc";
          struct stat st;
          if (stat(file.c_str(), &st) == 0 && run("ncdump -h " + file + " > /dev/null") != 0)
            return std::string("  ncdump -h fails on the file left behind\n");
          return std::string();
        };
        cases.push_back(c);
      }
  int ran = 0;
  const int failed = small_fs::run_cases(base, kFsMb, cases, 120, &ran);
  rmdir(base.c_str());
  std::printf("test_async_full_disk: %d of %d runs failed\n", failed, ran);
  return failed || ran == 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 6 && std::strcmp(argv[1], "--worker") == 0) {
    MPI_Init(&argc, &argv);
    const int rc = worker(argv[2], argv[3], std::atoi(argv[4]), argv[5]);
    MPI_Finalize();
    return rc;
  }
  return launcher(argv[0]);
}
