// Records skipped over on a disk that fills: a model writes records 4 to 7 of a time series
// (esmio_put_vara of the time, esmio_write_darray of a 2 MB field, esmio_sync) and never records
// 0 to 3, on a 12 MB file system: the data fits, the fill value that esmio_close writes into the
// skipped records does not. Every record the file counts must hold what a healthy disk gives:
// records 0 to 3 the fill value, records 4 to 7 their data. Where the fill could not be written,
// the records synced stay counted and esmio_close fails, naming the records without fill.
// Run as root (without arguments), the program mounts a 12 MB tmpfs (and a 12 MB ext4 image
// when mkfs.ext4 is there) and runs each case under mpirun with a time limit; each run is this
// program again with --worker. Checked, on every rank:
//   - no rank hangs or dies (the time limit), every call returns the same code on every rank,
//     any failure is ESMIO_ENOSPC;
//   - esmio_close reports the same record count N on every rank (8 when it succeeds, else "the
//     file was closed with N records"), never below a record whose esmio_sync succeeded; a
//     skipped record that does not hold the fill value is named in its message ("hold no
//     fill value (variable 'T': records 0 to 3 ...)");
//   - esmio_open counts N records (esmio_inq_nrecords, the time dimension), and so does netCDF
//     (nc_open on rank 0); in netCDF's reading, records below 4 hold the fill value of T and
//     time bit for bit, records 4 and up their data; esmio_read_darray gives the same on every
//     rank.
// ESMIO_FULL_DISK_CASES=TEXT runs only the cases whose name ("tmpfs pnetcdf held np3") contains
// TEXT. Not root: prints why and exits 77 (ctest: skipped).
#include <mpi.h>
#include <netcdf.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "esmio.h"
#include "small_fs.hpp"

namespace {

constexpr int kFirst = 4, kEnd = 8;       // records written: kFirst..kEnd-1; 0..kFirst-1 skipped
constexpr int64_t kNy = 512, kNx = 1024;  // 2 MB of float per record
constexpr long kFsMb = 12;

float value(int rec, int64_t idx) { return static_cast<float>((rec + 1) * 1000 + idx % 997); }
double time_of(int rec) { return 1800.0 * (rec + 1) + 0.25; }

// What record rec of T holds at idx, and of time, on any disk: fill below kFirst, else data.
float want_t(int rec, int64_t idx) { return rec < kFirst ? NC_FILL_FLOAT : value(rec, idx); }
double want_time(int rec) { return rec < kFirst ? NC_FILL_DOUBLE : time_of(rec); }

int rank = 0, nranks = 1, failures = 0;

void fail(const std::string &what) {
  ++failures;
  std::fprintf(stderr, "[rank %d] FAIL %s\n", rank, what.c_str());
}

// The same rc on every rank, and ESMIO_ENOSPC if it failed; true if rc failed.
bool check_call(const std::string &where, int rc) {
  int lo = 0, hi = 0;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi)
    fail(where + ": ranks disagree (" + std::to_string(lo) + " vs " + std::to_string(hi) + ")");
  if (rc != ESMIO_NOERR && rc != ESMIO_ENOSPC)
    fail(where + ": expected ESMIO_ENOSPC, got " + std::to_string(rc) + ": " + esmio_last_error());
  if (rank == 0)
    std::printf("  %s rc=%d%s%s\n", where.c_str(), rc, rc ? ": " : "",
                rc ? esmio_last_error() : "");
  return rc != ESMIO_NOERR;
}

// The file as netCDF's own reader sees it (rank 0): n records, each holding what it should.
// Whether esmio_close's message names record rec of variable var among the skipped records
// that hold no fill value ("... hold no fill value (variable 'T': records 0 to 3; ...)").
bool named_unfilled(const std::string &msg, const std::string &var, int rec) {
  const std::size_t list = msg.find("hold no fill value (");
  if (list == std::string::npos) return false;
  const std::size_t at = msg.find("variable '" + var + "': record", list);
  if (at == std::string::npos) return false;
  const char *p = msg.c_str() + at + var.size() + std::strlen("variable '': record");
  long long lo = -1, hi = -1;
  if (std::sscanf(p, "s %lld to %lld", &lo, &hi) == 2 || std::sscanf(p, " %lld", &lo) == 1)
    return rec >= lo && rec <= (hi < 0 ? lo : hi);
  return false;
}

void check_with_netcdf(const std::string &path, int64_t n, const std::string &msg) {
  int ncid = -1, unlim = -1, t = -1, tv = -1;
  if (nc_open(path.c_str(), NC_NOWRITE, &ncid) != NC_NOERR) {
    fail("nc_open of the file left behind fails");
    return;
  }
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
    const int rec_i = static_cast<int>(r);
    bool good_t = nc_get_vara_float(ncid, t, st3, ct3, rec.data()) == NC_NOERR;
    int64_t bad = 0;
    for (int64_t i = 0; i < kNy * kNx && good_t; ++i) {
      const float want = want_t(rec_i, i);
      bad += std::memcmp(&rec[i], &want, sizeof want) != 0;
    }
    good_t = good_t && bad == 0;
    const double want_tv = want_time(rec_i);
    const bool good_time = nc_get_vara_double(ncid, tv, st1, ct1, &tval) == NC_NOERR &&
                           std::memcmp(&tval, &want_tv, sizeof tval) == 0;
    have += !good_t ? "." : good_time ? "+" : "t";
    const std::string what = rec_i < kFirst ? "the fill value" : "its data";
    // A skipped record esmio_close named as holding no fill value may read as anything.
    if (!good_t && !(rec_i < kFirst && named_unfilled(msg, "T", rec_i)))
      fail("netCDF: T of record " + std::to_string(r) + " does not hold " + what + " (" +
           std::to_string(bad) + " values differ), and esmio_close did not say so");
    if (!good_time && !(rec_i < kFirst && named_unfilled(msg, "time", rec_i)))
      fail("netCDF: time of record " + std::to_string(r) + " does not hold " + what +
           ", and esmio_close did not say so");
  }
  nc_close(ncid);
  std::printf("  netCDF: %zu records [%s]\n", file_nrec, have.c_str());
}

int worker(const std::string &dir, const std::string &backend, const std::string &cache) {
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

  // ---- the model: records kFirst..kEnd-1, until a call fails ----
  int64_t reported = -1;
  std::string msg;
  esmio_file_t f = nullptr;
  int synced_through = -1;  // the last record whose writes and esmio_sync succeeded
  if (check_call("create", esmio_create(io, path.c_str(), settings.c_str(), &f))) {
    fail("esmio_create failed: nothing was tested");
  } else {
    int dims[3], tv = -1, var = -1;
    esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dims[0]);
    esmio_def_dim(f, "y", kNy, &dims[1]);
    esmio_def_dim(f, "x", kNx, &dims[2]);
    esmio_def_var(f, "time", ESMIO_DOUBLE, 1, dims, &tv);
    esmio_def_var(f, "T", ESMIO_FLOAT, 3, dims, &var);
    bool stop = check_call("enddef", esmio_enddef(f));
    for (int r = kFirst; r < kEnd && !stop; ++r) {
      const std::string rec = " rec " + std::to_string(r);
      const int64_t ts[1] = {r}, tc[1] = {1};
      const double t = time_of(r);
      for (int64_t i = 0; i < n; ++i) buf[i] = value(r, y0 * kNx + i);
      stop = check_call("put_vara(time)" + rec, esmio_put_vara(f, tv, ts, tc, ESMIO_DOUBLE, &t));
      stop = check_call("write_darray(T)" + rec,
                        esmio_write_darray(f, var, r, d, ESMIO_FLOAT, buf.data(), n)) ||
             stop;
      stop = check_call("sync" + rec, esmio_sync(f)) || stop;
      if (!stop) synced_through = r;
    }
    const int rc = esmio_close(&f);
    check_call("close", rc);
    msg = rc ? esmio_last_error() : "";
    const std::string key = "the file was closed with ";
    const std::size_t at = msg.find(key);
    if (rc == ESMIO_NOERR)
      reported = kEnd;
    else if (at == std::string::npos)
      fail("esmio_close's message does not say how many records the file holds: " + msg);
    else
      reported = std::atoll(msg.c_str() + at + key.size());
  }
  esmio_decomp_free(&d);
  int64_t lo = 0, hi = 0;
  MPI_Allreduce(&reported, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&reported, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi)
    fail("esmio_close reports " + std::to_string(lo) + " records on one rank, " +
         std::to_string(hi) + " on another");
  // Every record that was synced stays counted: a skipped record without fill below it does
  // not take it away (the message names that record instead).
  if (reported >= 0 && reported < synced_through + 1)
    fail("esmio_close counts " + std::to_string(reported) + " records, but record " +
         std::to_string(synced_through) + " was synced: " + msg);
  if (rank == 0)
    std::printf("  esmio_close reports %lld records\n", static_cast<long long>(reported));

  // ---- the file left behind, through esmio ----
  esmio_decomp_t d2;
  esmio_decomp_create_block(io, 2, shape, start, count, nullptr, &d2);
  esmio_file_t g = nullptr;
  const std::string read_settings = "backend=" + backend;
  if (esmio_open(io, path.c_str(), ESMIO_NOWRITE, read_settings.c_str(), &g) != ESMIO_NOERR) {
    fail("esmio_open of the file left behind: " + std::string(esmio_last_error()));
  } else {
    int64_t nrec = -1, dimlen = -1;
    int tdim = -1, var = -1;
    esmio_inq_nrecords(g, &nrec);
    esmio_inq_dimid(g, "time", &tdim);
    esmio_inq_dimlen(g, tdim, &dimlen);
    esmio_inq_varid(g, "T", &var);
    if (nrec != reported || dimlen != reported)
      fail("esmio_open counts " + std::to_string(nrec) + " records (time dimension " +
           std::to_string(dimlen) + "), esmio_close said " + std::to_string(reported));
    std::vector<float> got(static_cast<std::size_t>(n));
    for (int64_t r = 0; r < nrec; ++r) {
      const int rec_i = static_cast<int>(r);
      if (esmio_read_darray(g, var, r, d2, ESMIO_FLOAT, got.data(), n) != ESMIO_NOERR) {
        fail("esmio_read_darray of record " + std::to_string(r) + ": " + esmio_last_error());
        continue;
      }
      int64_t bad = 0;
      for (int64_t i = 0; i < n; ++i) {
        const float want = want_t(rec_i, y0 * kNx + i);
        bad += std::memcmp(&got[i], &want, sizeof want) != 0;
      }
      if (bad && !(rec_i < kFirst && named_unfilled(msg, "T", rec_i)))
        fail("esmio: T of record " + std::to_string(r) + ": " + std::to_string(bad) +
             " values differ from " + (rec_i < kFirst ? "the fill value" : "its data") +
             ", and esmio_close did not say so");
    }
    if (esmio_close(&g) != ESMIO_NOERR)
      fail("esmio_close after reading: " + std::string(esmio_last_error()));
  }
  esmio_decomp_free(&d2);
  esmio_finalize(&io);
  if (rank == 0 && reported >= 0) check_with_netcdf(path, reported, msg);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total ? 1 : 0;
}

// ---- launcher (root): mounts, runs, unmounts ---------------------------------------------

int launcher(const char *self) {
  if (geteuid() != 0) {
    std::printf("test_full_disk_skipped: skipped: mounting a small file system needs root\n");
    return 77;
  }
  char tmpl[] = "/tmp/esmio_full_disk_skipped.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const std::string base = tmpl;
  const bool have_ext4 = small_fs::run("command -v mkfs.ext4 > /dev/null") == 0;
  const char *only = std::getenv("ESMIO_FULL_DISK_CASES");
  std::vector<small_fs::Case> cases;
  for (const std::string fs : {"tmpfs", "ext4"}) {
    if (fs == "ext4" && !have_ext4) {
      std::printf("ext4: skipped (no mkfs.ext4)\n");
      continue;
    }
    for (const std::string backend : {"pnetcdf", "netcdf4"})
      for (const std::string cache : {"direct", "held"})
        for (int np : {1, 3}) {
          // ext4 (slower to set up): 3 ranks, the default cache.
          if (fs == "ext4" && (np == 1 || cache == "held")) continue;
          small_fs::Case c;
          c.name = fs + " " + backend + " " + cache + " np" + std::to_string(np);
          if (only && c.name.find(only) == std::string::npos) continue;
          c.fs = fs;
          c.command = [=](const std::string &mnt) {
            return "mpirun --oversubscribe -np " + std::to_string(np) + " " + self + " --worker " +
                   mnt + " " + backend + " " + cache;
          };
          cases.push_back(c);
        }
  }
  int ran = 0;
  const int failed = small_fs::run_cases(base, kFsMb, cases, 90, &ran);
  rmdir(base.c_str());
  std::printf("test_full_disk_skipped: %d of %d runs failed\n", failed, ran);
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 5 && std::strcmp(argv[1], "--worker") == 0) {
    MPI_Init(&argc, &argv);
    const int rc = worker(argv[2], argv[3], argv[4]);
    MPI_Finalize();
    return rc;
  }
  return launcher(argv[0]);
}
