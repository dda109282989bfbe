// Variables never written on a disk too small for their fill: a model defines a 2 MB field it
// writes and a 16 MB field it never writes, on a 12 MB file system. The data fits, the fill
// value that esmio_close writes into the unwritten field does not. Checked, on every rank: no
// rank hangs or dies (the time limit); esmio_close returns ESMIO_ENOSPC on every rank and its
// message names the variable whose fill found no room; the written field was written (rank 0
// reads it back with netCDF where the file can be opened).
// Run as root (without arguments), the program mounts a 12 MB tmpfs and runs each case (pnetcdf
// and serial, 1 and 3 ranks) under mpirun with a time limit; each run is this program again
// with --worker. Not root: prints why and exits 77 (ctest: skipped). Not netcdf4: there the
// first write already reserves the room of every variable HDF5 allocated (guarantees.md), so
// the disk is found full before the close.
#include <mpi.h>
#include <netcdf.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "esmio.h"
#include "small_fs.hpp"

namespace {

constexpr int64_t kNy = 512, kNx = 1024, kBigNy = 4096;  // 2 MB and 16 MB of float
constexpr long kFsMb = 12;

int rank = 0, nranks = 1, failures = 0;

void fail(const std::string &what) {
  ++failures;
  std::fprintf(stderr, "[rank %d] FAIL %s\n", rank, what.c_str());
}

// The same rc on every rank, and want; true if rc is want.
bool expect(const std::string &what, int rc, int want) {
  int lo = 0, hi = 0;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi) fail(what + ": ranks returned different codes");
  if (rc != want)
    fail(what + ": returned " + std::to_string(rc) + " (" + esmio_strerror(rc) + "), expected " +
         std::to_string(want) + ": " + esmio_last_error());
  return rc == want;
}

int worker(const std::string &dir, const std::string &backend) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const std::string path = dir + "/unwritten.nc";
  esmio_t io;
  if (!expect("init", esmio_init(MPI_COMM_WORLD, "", &io), ESMIO_NOERR)) return 1;
  const int64_t y0 = rank * kNy / nranks, ny = (rank + 1) * kNy / nranks - y0;
  const int64_t shape[2] = {kNy, kNx}, start[2] = {y0, 0}, count[2] = {ny, kNx};
  esmio_decomp_t d;
  expect("decomp", esmio_decomp_create_block(io, 2, shape, start, count, nullptr, &d), ESMIO_NOERR);
  esmio_file_t f;
  const std::string settings = "backend=" + backend;
  if (expect("create", esmio_create(io, path.c_str(), settings.c_str(), &f), ESMIO_NOERR)) {
    int y, big_y, x, written, big;
    esmio_def_dim(f, "y", kNy, &y);
    esmio_def_dim(f, "big_y", kBigNy, &big_y);
    esmio_def_dim(f, "x", kNx, &x);
    const int wdims[2] = {y, x}, bdims[2] = {big_y, x};
    esmio_def_var(f, "written", ESMIO_FLOAT, 2, wdims, &written);
    esmio_def_var(f, "big", ESMIO_FLOAT, 2, bdims, &big);
    expect("enddef", esmio_enddef(f), ESMIO_NOERR);
    std::vector<float> values(static_cast<std::size_t>(ny * kNx) + 1);
    for (int64_t i = 0; i < ny * kNx; ++i) values[i] = static_cast<float>((y0 * kNx + i) % 997);
    expect("write", esmio_write_darray(f, written, 0, d, ESMIO_FLOAT, values.data(), ny * kNx),
           ESMIO_NOERR);
    expect("sync", esmio_sync(f), ESMIO_NOERR);
    const int rc = esmio_close(&f);
    const std::string message = esmio_last_error();
    if (expect("close", rc, ESMIO_ENOSPC) && message.find("'big'") == std::string::npos)
      fail("close: the message does not name variable 'big': " + message);
    if (rank == 0) std::printf("esmio_close: %s\n", message.c_str());
  }
  if (rank == 0) {
    // The data synced before the close is in the file.
    int ncid = -1, varid = -1;
    if (nc_open(path.c_str(), NC_NOWRITE, &ncid) == NC_NOERR) {
      std::vector<float> all(static_cast<std::size_t>(kNy * kNx));
      if (nc_inq_varid(ncid, "written", &varid) != NC_NOERR ||
          nc_get_var_float(ncid, varid, all.data()) != NC_NOERR)
        fail("netCDF cannot read variable 'written'");
      int64_t bad = 0;
      for (int64_t i = 0; i < kNy * kNx; ++i) bad += all[i] != static_cast<float>(i % 997);
      if (bad) fail("'written': " + std::to_string(bad) + " values differ from its data");
      nc_close(ncid);
    }
  }
  esmio_decomp_free(&d);
  esmio_finalize(&io);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total ? 1 : 0;
}

int launcher(const char *self) {
  if (geteuid() != 0) {
    std::printf("test_full_disk_unwritten: skipped: mounting a small file system needs root\n");
    return 77;
  }
  char tmpl[] = "/tmp/esmio_full_disk_unwritten.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const std::string base = tmpl;
  std::vector<small_fs::Case> cases;
  for (const std::string backend : {"pnetcdf", "serial"})
    for (int np : {1, 3}) {
      small_fs::Case c;
      c.name = "tmpfs " + backend + " np" + std::to_string(np);
      c.fs = "tmpfs";
      c.command = [=](const std::string &mnt) {
        return "mpirun --oversubscribe -np " + std::to_string(np) + " " + self + " --worker " +
               mnt + " " + backend;
      };
      cases.push_back(c);
    }
  int ran = 0;
  const int failed = small_fs::run_cases(base, kFsMb, cases, 90, &ran);
  rmdir(base.c_str());
  std::printf("test_full_disk_unwritten: %d of %d runs failed\n", failed, ran);
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 4 && std::strcmp(argv[1], "--worker") == 0) {
    MPI_Init(&argc, &argv);
    const int rc = worker(argv[2], argv[3]);
    MPI_Finalize();
    return rc;
  }
  return launcher(argv[0]);
}
