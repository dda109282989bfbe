// A full disk in the middle of a time series: the record count that esmio_close reports and the
// one the file holds must be the same, and every record either of them claims must hold its data.
// Run as root (without arguments), the program mounts a 12 MB tmpfs (and a 12 MB ext4 loop
// image when mkfs.ext4 is there) itself and runs each case under mpirun with a time limit. Each
// run is this program again with --worker; a model's loop over records of 2 MB:
//   time_after: esmio_write_darray(T, r), esmio_sync, then esmio_put_vara(time, r) whatever
//               the sync returned (a model that does not look at the codes);
//   time_first: esmio_put_vara(time, r), esmio_write_darray(T, r), esmio_sync;
// until a call fails (ENOSPC: records 0..k fit, record k+1 does not), then esmio_close. With the
// default cache the 2 MB write goes out at once (it fails in esmio_write_darray); with `held`
// (cache=size=64M;direct=1G) it waits in the cache and fails at esmio_sync. Checked, on every
// rank:
//   - no rank hangs or dies (the time limit), every call returns the same code on every rank,
//     the first failure ESMIO_ENOSPC;
//   - esmio_close fails (the pending record is lost) and says "the file was closed with N
//     records", the same N on every rank, N at least the records whose calls all succeeded;
//   - esmio_open of the file left behind counts N records (esmio_inq_nrecords and the time
//     dimension's length), and every one of them holds its T and time values bit for bit
//     (esmio_read_darray, esmio_get_vara); so does netCDF's own reader (nc_open, rank 0), and
//     ncdump -h says "(N currently)" and ncdump -v time prints N time values, the right ones.
// ESMIO_FULL_DISK_CASES=TEXT runs only the cases whose name ("tmpfs netcdf4 time_after held
// np3") contains TEXT.
// Not root: prints why and exits 77 (ctest: skipped).
#include <fcntl.h>
#include <mpi.h>
#include <netcdf.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "esmio.h"
#include "small_fs.hpp"

namespace {

constexpr int kMaxRecords = 16;           // more than the file system holds
constexpr int64_t kNy = 512, kNx = 1024;  // 2 MB of float per record
constexpr long kFsMb = 12;

float value(int rec, int64_t idx) { return static_cast<float>((rec + 1) * 1000 + idx % 997); }
double time_of(int rec) { return 1800.0 * (rec + 1) + 0.25; }

// ---- worker (one MPI run) ----------------------------------------------------------------

int rank = 0, nranks = 1, failures = 0;

void fail(const std::string &what) {
  ++failures;
  std::fprintf(stderr, "[rank %d] FAIL %s\n", rank, what.c_str());
}

// The same rc on every rank, and the first failure ENOSPC; true if rc failed.
bool check_call(const std::string &where, int rc, bool *seen_failure) {
  int lo = 0, hi = 0;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi)
    fail(where + ": ranks disagree (" + std::to_string(lo) + " vs " + std::to_string(hi) +
         "), this rank " + std::to_string(rc));
  if (rc != ESMIO_NOERR && !*seen_failure) {
    *seen_failure = true;
    if (rc != ESMIO_ENOSPC) fail(where + ": expected ESMIO_ENOSPC, got " + std::to_string(rc));
    if (rank == 0)
      std::printf("  first failure: %s rc=%d: %s\n", where.c_str(), rc, esmio_last_error());
  } else if (rank == 0) {
    std::printf("  %s rc=%d%s%s\n", where.c_str(), rc, rc ? ": " : "",
                rc ? esmio_last_error() : "");
  }
  return rc != ESMIO_NOERR;
}

// The output of a shell command (rank 0).
std::string output_of(const std::string &cmd) {
  std::string out;
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    if (pclose(p) != 0) fail("'" + cmd + "' failed");
  } else {
    fail("cannot run '" + cmd + "'");
  }
  return out;
}

// The file as netCDF's own reader and ncdump see it (rank 0): n records, all of them whole.
void check_with_netcdf(const std::string &path, int64_t n) {
  int ncid = -1;
  if (nc_open(path.c_str(), NC_NOWRITE, &ncid) != NC_NOERR) {
    fail("nc_open of the file left behind fails");
    return;
  }
  int unlim = -1, t = -1, tv = -1;
  size_t file_nrec = 0;
  nc_inq_unlimdim(ncid, &unlim);
  nc_inq_dimlen(ncid, unlim, &file_nrec);
  nc_inq_varid(ncid, "T", &t);
  nc_inq_varid(ncid, "time", &tv);
  if (static_cast<int64_t>(file_nrec) != n)
    fail("netCDF counts " + std::to_string(file_nrec) + " records, esmio_close said " +
         std::to_string(n));
  std::vector<float> rec(static_cast<std::size_t>(kNy * kNx));
  std::string have;
  for (size_t r = 0; r < file_nrec; ++r) {
    size_t st3[3] = {r, 0, 0}, ct3[3] = {1, kNy, kNx}, st1[1] = {r}, ct1[1] = {1};
    double tval = 0;
    bool good = nc_get_vara_float(ncid, t, st3, ct3, rec.data()) == NC_NOERR &&
                nc_get_vara_double(ncid, tv, st1, ct1, &tval) == NC_NOERR;
    for (int64_t i = 0; i < kNy * kNx && good; ++i) {
      const float want = value(static_cast<int>(r), i);
      good = std::memcmp(&rec[i], &want, sizeof want) == 0;
    }
    const double want_t = time_of(static_cast<int>(r));
    const bool good_t = good && std::memcmp(&tval, &want_t, sizeof want_t) == 0;
    have += !good ? "." : good_t ? "+" : "t";
    if (!good_t)
      fail("netCDF: record " + std::to_string(r) + " of the file does not hold its data (" +
           (good ? "time" : "T") + ")");
  }
  nc_close(ncid);
  std::printf("  netCDF: %zu records [%s]\n", file_nrec, have.c_str());

  const std::string header = output_of("ncdump -h " + path);
  const std::string currently = "(" + std::to_string(n) + " currently)";
  if (header.find(currently) == std::string::npos)
    fail("ncdump -h does not say " + currently + ":\n" + header);
  const std::string dump = output_of("ncdump -v time " + path);
  const std::size_t data = dump.find("data:");
  const std::size_t at = dump.find("time =", data == std::string::npos ? 0 : data);
  const std::size_t end = at == std::string::npos ? at : dump.find(';', at);
  if (at == std::string::npos || end == std::string::npos) {
    fail("ncdump -v time prints no time values:\n" + dump);
    return;
  }
  std::string values = dump.substr(at + 6, end - at - 6);
  int64_t count = 0;
  for (std::size_t p = 0; p < values.size();) {
    while (p < values.size() && (values[p] == ' ' || values[p] == ',' || values[p] == '\n')) ++p;
    if (p >= values.size()) break;
    std::size_t q = values.find_first_of(" ,\n", p);
    if (q == std::string::npos) q = values.size();
    const std::string word = values.substr(p, q - p);
    if (word == "_" || std::strtod(word.c_str(), nullptr) != time_of(static_cast<int>(count)))
      fail("ncdump -v time: record " + std::to_string(count) + " holds " + word);
    ++count;
    p = q;
  }
  if (count != n)
    fail("ncdump -v time prints " + std::to_string(count) + " values, esmio_close said " +
         std::to_string(n) + " records");
}

int worker(const std::string &dir, const std::string &backend, const std::string &order,
           const std::string &cache) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const std::string path = dir + "/out.nc";
  esmio_t io;
  if (esmio_init(MPI_COMM_WORLD, "", &io) != ESMIO_NOERR) MPI_Abort(MPI_COMM_WORLD, 2);
  const int64_t shape[2] = {kNy, kNx};
  const int64_t y0 = rank * kNy / nranks, y1 = (rank + 1) * kNy / nranks;
  const int64_t start[2] = {y0, 0}, count[2] = {y1 - y0, kNx}, n = count[0] * kNx;
  esmio_decomp_t d;
  esmio_decomp_create_block(io, 2, shape, start, count, nullptr, &d);
  std::vector<float> buf(static_cast<std::size_t>(n));
  const std::string settings =
      "backend=" + backend + (cache == "held" ? ",cache=size=64M;direct=1G" : "");

  // ---- the model ----
  bool seen_failure = false;
  int complete = 0;  // records 0..complete-1: every call for them succeeded
  int64_t reported = -1;
  esmio_file_t f = nullptr;
  if (check_call("create", esmio_create(io, path.c_str(), settings.c_str(), &f), &seen_failure)) {
    fail("esmio_create failed: nothing was tested");
  } else {
    int dims[3], tv = -1, var = -1;
    esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dims[0]);
    esmio_def_dim(f, "y", kNy, &dims[1]);
    esmio_def_dim(f, "x", kNx, &dims[2]);
    esmio_def_var(f, "time", ESMIO_DOUBLE, 1, dims, &tv);
    esmio_def_var(f, "T", ESMIO_FLOAT, 3, dims, &var);
    bool stop = check_call("enddef", esmio_enddef(f), &seen_failure);
    for (int r = 0; r < kMaxRecords && !stop; ++r) {
      const std::string rec = " rec " + std::to_string(r);
      const int64_t ts[1] = {r}, tc[1] = {1};
      const double t = time_of(r);
      for (int64_t i = 0; i < n; ++i) buf[i] = value(r, y0 * kNx + i);
      bool failed = false;
      if (order == "time_first")
        failed = check_call("put_vara(time)" + rec, esmio_put_vara(f, tv, ts, tc, ESMIO_DOUBLE, &t),
                            &seen_failure);
      failed =
          check_call("write_darray(T)" + rec,
                     esmio_write_darray(f, var, r, d, ESMIO_FLOAT, buf.data(), n), &seen_failure) ||
          failed;
      failed = check_call("sync" + rec, esmio_sync(f), &seen_failure) || failed;
      // The model writes the time of the record whatever happened to its data.
      if (order == "time_after")
        failed = check_call("put_vara(time)" + rec, esmio_put_vara(f, tv, ts, tc, ESMIO_DOUBLE, &t),
                            &seen_failure) ||
                 failed;
      if (!failed) complete = r + 1;
      stop = failed;
    }
    const int rc = esmio_close(&f);
    check_call("close", rc, &seen_failure);
    const std::string msg = rc ? esmio_last_error() : "";
    const std::string key = "the file was closed with ";
    const std::size_t at = msg.find(key);
    if (rc == ESMIO_NOERR)
      fail("esmio_close succeeded although a record's data was lost");
    else if (at == std::string::npos)
      fail("esmio_close's message does not say how many records the file holds: " + msg);
    else
      reported = std::atoll(msg.c_str() + at + key.size());
  }
  esmio_decomp_free(&d);
  if (!seen_failure) fail("the disk never filled: nothing was tested");
  if (complete == 0) fail("no record fitted the file system: nothing was tested");
  int64_t lo = 0, hi = 0;
  MPI_Allreduce(&reported, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&reported, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi)
    fail("esmio_close reports " + std::to_string(lo) + " records on one rank, " +
         std::to_string(hi) + " on another");
  if (reported >= 0 && reported < complete)
    fail("esmio_close reports " + std::to_string(reported) + " records, but records 0.." +
         std::to_string(complete - 1) + " were written and synced without an error");
  if (rank == 0)
    std::printf("  %d records complete, esmio_close reports %lld\n", complete,
                static_cast<long long>(reported));

  // ---- the file left behind, through esmio ----
  esmio_decomp_t d2;
  esmio_decomp_create_block(io, 2, shape, start, count, nullptr, &d2);
  esmio_file_t g = nullptr;
  const std::string read_settings = "backend=" + backend;
  int rc = esmio_open(io, path.c_str(), ESMIO_NOWRITE, read_settings.c_str(), &g);
  if (rc != ESMIO_NOERR) {
    fail("esmio_open of the file left behind: " + std::string(esmio_last_error()));
  } else {
    int64_t nrec = -1, dimlen = -1;
    int tdim = -1, tv = -1, var = -1;
    esmio_inq_nrecords(g, &nrec);
    esmio_inq_dimid(g, "time", &tdim);
    esmio_inq_dimlen(g, tdim, &dimlen);
    esmio_inq_varid(g, "time", &tv);
    esmio_inq_varid(g, "T", &var);
    if (nrec != reported || dimlen != reported)
      fail("esmio_open counts " + std::to_string(nrec) + " records (time dimension " +
           std::to_string(dimlen) + "), esmio_close said " + std::to_string(reported));
    std::vector<float> got(static_cast<std::size_t>(n));
    for (int64_t r = 0; r < nrec; ++r) {
      const std::string rec = "record " + std::to_string(r);
      if (esmio_read_darray(g, var, r, d2, ESMIO_FLOAT, got.data(), n) != ESMIO_NOERR) {
        fail("esmio_read_darray of " + rec + ": " + esmio_last_error());
        continue;
      }
      int64_t bad = 0;
      for (int64_t i = 0; i < n; ++i) {
        const float want = value(static_cast<int>(r), y0 * kNx + i);
        if (std::memcmp(&got[i], &want, sizeof want) != 0) ++bad;
      }
      if (bad) fail("esmio: T of " + rec + ": " + std::to_string(bad) + " values differ");
      const int64_t ts[1] = {r}, tc[1] = {1};
      double t = 0;
      const double want_t = time_of(static_cast<int>(r));
      if (esmio_get_vara(g, tv, ts, tc, ESMIO_DOUBLE, &t) != ESMIO_NOERR)
        fail("esmio_get_vara(time) of " + rec + ": " + esmio_last_error());
      else if (std::memcmp(&t, &want_t, sizeof t) != 0)
        fail("esmio: time of " + rec + " is " + std::to_string(t));
    }
    if (esmio_close(&g) != ESMIO_NOERR)
      fail("esmio_close after reading: " + std::string(esmio_last_error()));
  }
  esmio_decomp_free(&d2);
  esmio_finalize(&io);

  // ---- the file left behind, through netCDF and ncdump ----
  if (rank == 0 && reported >= 0) check_with_netcdf(path, reported);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total ? 1 : 0;
}

// ---- launcher (root): mounts, runs, unmounts ---------------------------------------------

using small_fs::run;

int launcher(const char *self) {
  if (geteuid() != 0) {
    std::printf("test_full_disk_records: skipped: mounting a small file system needs root\n");
    return 77;
  }
  char tmpl[] = "/tmp/esmio_full_disk_records.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const std::string base = tmpl;
  const bool have_ext4 = run("command -v mkfs.ext4 > /dev/null") == 0;
  const char *only = std::getenv("ESMIO_FULL_DISK_CASES");
  std::vector<small_fs::Case> cases;
  for (const std::string fs : {"tmpfs", "ext4"}) {
    if (fs == "ext4" && !have_ext4) {
      std::printf("ext4: skipped (no mkfs.ext4)\n");
      continue;
    }
    for (const std::string backend : {"pnetcdf", "netcdf4", "serial"})
      for (const std::string order : {"time_after", "time_first"})
        for (const std::string cache : {"direct", "held"})
          for (int np : {1, 3}) {
            // ext4 (slower to set up): 3 ranks, the default cache.
            if (fs == "ext4" && (np == 1 || cache == "held")) continue;
            small_fs::Case c;
            c.name = fs + " " + backend + " " + order + " " + cache + " np" + std::to_string(np);
            if (only && c.name.find(only) == std::string::npos) continue;
            c.fs = fs;
            c.command = [=](const std::string &mnt) {
              return "mpirun --oversubscribe -np " + std::to_string(np) + " " + self +
                     " --worker " + mnt + " " + backend + " " + order + " " + cache;
            };
            cases.push_back(c);
          }
  }
  int ran = 0;
  const int failed = small_fs::run_cases(base, kFsMb, cases, 90, &ran);
  rmdir(base.c_str());
  std::printf("test_full_disk_records: %d of %d runs failed\n", failed, ran);
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 6 && std::strcmp(argv[1], "--worker") == 0) {
    MPI_Init(&argc, &argv);
    const int rc = worker(argv[2], argv[3], argv[4], argv[5]);
    MPI_Finalize();
    return rc;
  }
  return launcher(argv[0]);
}
