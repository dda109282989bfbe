// Writes on a full file system. Run as root (without arguments), the program mounts
// small file systems itself (a 24 MB tmpfs, and a 24 MB ext4 loop image when mkfs.ext4 is
// there) and runs each scenario below under mpirun with a time limit, on both backends, both
// Open MPI MPI-IO components (ompio, romio321) and 1 and 3 ranks. Each run is this program
// again with --worker; it checks that
//   - no rank hangs or dies (the time limit),
//   - every call returns the same code on every rank, the first failure ESMIO_ENOSPC with a
//     message naming the file and "No space left",
//   - the file left behind opens (ncdump -h) and holds every record reported written, and its
//     record count never runs ahead of them.
// Scenarios (records of 4 MB, esmio_sync after each):
//   seq:    records 0..7 on an empty 24 MB file system (the disk fills at record 4 or 5);
//   sparse: record 7 first, then 0..6 (the file grows sparse; later writes fill holes);
//   create: the file system is full before esmio_create;
//   fsize:  a 10 MB file-size limit (RLIMIT_FSIZE) on every rank instead of a full disk (ext4
//           does not apply it to esmio's reservations; the message names the limit);
//   free:   5 records; the disk fills at the third, then space is freed and esmio_sync
//           retries: every record arrives.
// Each scenario also runs with an asynchronous I/O server (io_servers=1, 3 ranks: 2 compute
// ranks): there a failed write comes back from the next esmio_sync, on every compute rank.
// Not root: prints why and exits 77 (ctest: skipped).
#include <fcntl.h>
#include <mpi.h>
#include <netcdf.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

constexpr int kRecords = 8;
constexpr int64_t kNx = 1024, kNy = 1024;  // 4 MB of float per record
constexpr long kFsMb = 24;

float value(int rec, int64_t idx) { return static_cast<float>((rec + 1) * 1000 + idx % 997); }

// ---- worker (one MPI run) ----------------------------------------------------------------

int rank = 0, nranks = 1, failures = 0;
std::string scenario_;
MPI_Comm g_comm = MPI_COMM_WORLD;  // the ranks that make the calls (the compute ranks)

void fail(const std::string &what) {
  ++failures;
  std::fprintf(stderr, "[rank %d] FAIL %s\n", rank, what.c_str());
}

void fill_disk(const std::string &dir, long leave_mb) {
  const std::string path = dir + "/filler";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char> buf(1 << 20, 1);
  struct statvfs s;
  while (statvfs(dir.c_str(), &s) == 0 &&
         static_cast<long>(s.f_bavail * s.f_frsize >> 20) > leave_mb)
    if (::write(fd, buf.data(), buf.size()) <= 0) break;
  if (leave_mb == 0)  // to the last block
    while (::write(fd, buf.data(), 4096) > 0) {
    }
  fsync(fd);
  ::close(fd);
}

// The same rc on every rank, and the first failure ENOSPC naming the file; true if rc failed.
bool check_call(const char *call, int rec, int rc, const std::string &path, bool *seen_failure) {
  int lo = 0, hi = 0;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, g_comm);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, g_comm);
  const std::string where = std::string(call) + " rec " + std::to_string(rec);
  if (lo != hi)
    fail(where + ": ranks disagree (" + std::to_string(lo) + " vs " + std::to_string(hi) +
         "), this rank " + std::to_string(rc));
  if (rc != ESMIO_NOERR && !*seen_failure) {
    *seen_failure = true;
    const std::string msg = esmio_last_error();
    if (rc != ESMIO_ENOSPC) fail(where + ": expected ESMIO_ENOSPC, got " + std::to_string(rc));
    const char *cause = scenario_ == "fsize" ? "file-size limit" : "No space left";
    if (msg.find(path) == std::string::npos || msg.find(cause) == std::string::npos)
      fail(where + ": message does not name the file and the cause: " + msg);
    if (rank == 0) std::printf("  first failure: %s rc=%d: %s\n", where.c_str(), rc, msg.c_str());
  }
  return rc != ESMIO_NOERR;
}

int worker(const std::string &dir, const std::string &backend, const std::string &scenario,
           int servers) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  scenario_ = scenario;
  const std::string path = dir + "/out.nc";
  if (scenario == "fsize") {
    signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead of killing
    rlimit limit;
    getrlimit(RLIMIT_FSIZE, &limit);
    limit.rlim_cur = 10 << 20;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  if (rank == 0 && scenario == "create") fill_disk(dir, 0);
  if (rank == 0 && scenario == "free") fill_disk(dir, 14);
  MPI_Barrier(MPI_COMM_WORLD);

  esmio_t io;
  const std::string instance = servers ? "io_servers=" + std::to_string(servers) : "";
  if (esmio_init(MPI_COMM_WORLD, instance.c_str(), &io) != ESMIO_NOERR)
    MPI_Abort(MPI_COMM_WORLD, 2);
  int role = ESMIO_ROLE_COMPUTE;
  esmio_inq_role(io, &role);
  std::vector<int> confirmed;  // records whose write and sync returned success
  bool seen_failure = false;
  if (role == ESMIO_ROLE_SERVER) {
    esmio_finalize(&io);
  } else {
    if (servers) {
      MPI_Comm comm;
      esmio_inq_comm(io, &comm);
      MPI_Comm_dup(comm, &g_comm);
      MPI_Comm_rank(g_comm, &rank);
      MPI_Comm_size(g_comm, &nranks);
    }
    const int64_t shape[2] = {kNy, kNx};
    const int64_t y0 = rank * kNy / nranks, y1 = (rank + 1) * kNy / nranks;
    const int64_t start[2] = {y0, 0}, count[2] = {y1 - y0, kNx}, n = count[0] * kNx;
    esmio_decomp_t d;
    esmio_decomp_create_block(io, 2, shape, start, count, nullptr, &d);
    std::vector<float> buf(static_cast<std::size_t>(n));
    bool freed = false;
    // free: 5 records (20 MB) fit the 24 MB file system once the filler is gone.
    const int nrec = scenario == "free" ? 5 : kRecords;

    esmio_file_t f = nullptr;
    const std::string settings = "backend=" + backend;
    const int rc = esmio_create(io, path.c_str(), settings.c_str(), &f);
    if (!check_call("create", -1, rc, path, &seen_failure)) {
      int dims[3], var = -1;
      esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dims[0]);
      esmio_def_dim(f, "y", kNy, &dims[1]);
      esmio_def_dim(f, "x", kNx, &dims[2]);
      esmio_def_var(f, "T", ESMIO_FLOAT, 3, dims, &var);
      bool stop = check_call("enddef", -1, esmio_enddef(f), path, &seen_failure);
      for (int k = 0; k < nrec && !stop; ++k) {
        const int rec = scenario == "sparse" ? (k == 0 ? kRecords - 1 : k - 1) : k;
        for (int64_t i = 0; i < n; ++i) buf[i] = value(rec, y0 * kNx + i);
        bool failed =
            check_call("write", rec, esmio_write_darray(f, var, rec, d, ESMIO_FLOAT, buf.data(), n),
                       path, &seen_failure);
        failed = check_call("sync", rec, esmio_sync(f), path, &seen_failure) || failed;
        if (failed && scenario == "free" && !freed) {
          // Space comes back: the pending data must reach the file at the next sync.
          if (rank == 0) unlink((dir + "/filler").c_str());
          MPI_Barrier(g_comm);
          freed = true;
          failed = check_call("sync(retry)", rec, esmio_sync(f), path, &seen_failure);
          if (failed) fail("sync after space was freed failed");
        }
        if (!failed) confirmed.push_back(rec);
        stop = failed;
      }
      check_call("close", -1, esmio_close(&f), path, &seen_failure);
    }
    esmio_decomp_free(&d);
    esmio_finalize(&io);
    if (!seen_failure) fail("the disk never filled: nothing was tested");
    if (scenario == "free" && static_cast<int>(confirmed.size()) != nrec)
      fail("after space was freed, only " + std::to_string(confirmed.size()) + " records arrived");
    if (g_comm != MPI_COMM_WORLD) MPI_Comm_free(&g_comm);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank == 0) {
    int ncid = -1;
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      if (scenario != "create") fail("no file left behind");
    } else if (nc_open(path.c_str(), NC_NOWRITE, &ncid) != NC_NOERR) {
      fail("the file left behind does not open");
    } else {
      int unlim = -1, v = -1;
      size_t file_nrec = 0;
      nc_inq_unlimdim(ncid, &unlim);
      nc_inq_dimlen(ncid, unlim, &file_nrec);
      nc_inq_varid(ncid, "T", &v);
      std::vector<float> rec(static_cast<std::size_t>(kNy * kNx));
      std::vector<bool> ok(static_cast<std::size_t>(file_nrec), false);
      for (size_t r = 0; r < file_nrec; ++r) {
        size_t st3[3] = {r, 0, 0}, ct3[3] = {1, kNy, kNx};
        if (nc_get_vara_float(ncid, v, st3, ct3, rec.data()) != NC_NOERR) continue;
        bool good = true;
        for (int64_t i = 0; i < kNy * kNx && good; ++i)
          good = rec[i] == value(static_cast<int>(r), i);
        ok[r] = good;
      }
      nc_close(ncid);
      int last = -1;
      std::string have;
      for (int r : confirmed) {
        last = std::max(last, r);
        if (r >= static_cast<int>(file_nrec) || !ok[r])
          fail("record " + std::to_string(r) + " was reported written but is not in the file");
      }
      for (size_t r = 0; r < file_nrec; ++r) have += ok[r] ? "+" : ".";
      // The record count never runs ahead of the data reported written.
      if (static_cast<int>(file_nrec) != last + 1)
        fail("the file has " + std::to_string(file_nrec) + " records, the last written is " +
             std::to_string(last));
      std::printf("  file: %zu records [%s], %zu reported written\n", file_nrec, have.c_str(),
                  confirmed.size());
    }
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total ? 1 : 0;
}

// ---- launcher (root): mounts, runs, unmounts ---------------------------------------------

using small_fs::run;

int launcher(const char *self) {
  if (geteuid() != 0) {
    std::printf("test_full_disk: skipped: mounting a small file system needs root\n");
    return 77;
  }
  char tmpl[] = "/tmp/esmio_full_disk.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const std::string base = tmpl;
  const bool have_ext4 = run("command -v mkfs.ext4 > /dev/null") == 0;
  const char *only = std::getenv("ESMIO_FULL_DISK_CASES");  // e.g. "tmpfs" or "ext4"
  std::vector<small_fs::Case> cases;
  for (const std::string fs : {"tmpfs", "ext4"}) {
    if (fs == "ext4" && !have_ext4) {
      std::printf("ext4: skipped (no mkfs.ext4)\n");
      continue;
    }
    if (only && std::string(only).find(fs) == std::string::npos) continue;
    for (const std::string scenario : {"seq", "sparse", "create", "free", "fsize"})
      for (const std::string backend : {"netcdf4", "pnetcdf"})
        for (const std::string component : {"ompio", "romio321", "async"})
          for (int np : {1, 3}) {
            // ext4 (slower to set up): the cases that differ from tmpfs, on 3 ranks.
            if (fs == "ext4" && (np == 1 || scenario == "free")) continue;
            // async: one I/O server and 2 compute ranks, ompio, tmpfs.
            const bool async = component == "async";
            if (async && (np == 1 || fs == "ext4")) continue;
            small_fs::Case c;
            c.name =
                fs + " " + scenario + " " + backend + " " + component + " np" + std::to_string(np);
            c.fs = fs;
            c.command = [=](const std::string &mnt) {
              return "env OMPI_MCA_io=" + (async ? std::string("ompio") : component) +
                     " mpirun --oversubscribe -np " + std::to_string(np) + " " + self +
                     " --worker " + mnt + " " + backend + " " + scenario + (async ? " 1" : "");
            };
            c.check = [=](const std::string &mnt) {
              const std::string file = mnt + "/out.nc";
              struct stat st;
              if (scenario != "create" && stat(file.c_str(), &st) == 0 &&
                  run(("ncdump -h " + file + " > /dev/null").c_str()) != 0)
                return std::string("  ncdump -h fails on the file left behind\n");
              return std::string();
            };
            cases.push_back(c);
          }
  }
  int ran = 0;
  const int failed = small_fs::run_cases(base, kFsMb, cases, 90, &ran);
  rmdir(base.c_str());
  std::printf("test_full_disk: %d of %d runs failed\n", failed, ran);
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 5 && std::strcmp(argv[1], "--worker") == 0) {
    MPI_Init(&argc, &argv);
    const int rc = worker(argv[2], argv[3], argv[4], argc >= 6 ? std::atoi(argv[5]) : 0);
    MPI_Finalize();
    return rc;
  }
  return launcher(argv[0]);
}
