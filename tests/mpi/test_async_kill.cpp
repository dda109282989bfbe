// A model with asynchronous I/O servers for kill_async.sh, which kills one of its ranks with -9
// while it writes. Two modes:
//   writer SERVERS BACKEND PATH: every rank prints "rank R pid P" before esmio_init (a server
//     stays in esmio_init until the end), every compute rank "rank R compute" after it; the
//     compute ranks write record after record of V(t, x) (float64, 128 KiB a record), each
//     followed by esmio_sync, and compute rank 0 prints "synced N" once records 0..N-1 are
//     reported written. It stops by itself after 3000 records (a job still running then was
//     not ended by the kill: the script sees it succeed).
//   verify PATH N: (one rank) the file opens with netCDF-C and records 0..N-1 hold their values.
#include <netcdf.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int64_t kN = 16384;  // elements of V per record
constexpr int kMaxRecords = 3000;

double value(int record, int64_t g) { return record * 100000.0 + static_cast<double>(g) + 0.5; }

int writer(int servers, const std::string &backend, const std::string &path) {
  std::printf("rank %d pid %d\n", rank, static_cast<int>(getpid()));
  std::fflush(stdout);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, ("io_servers=" + std::to_string(servers)).c_str(), &io), "init");
  int role = 0;
  ok(esmio_inq_role(io, &role), "inq_role");
  if (role == ESMIO_ROLE_SERVER) {
    ok(esmio_finalize(&io), "finalize server");
    MPI_Finalize();
    return 0;
  }
  std::printf("rank %d compute\n", rank);
  std::fflush(stdout);
  MPI_Comm comm;
  ok(esmio_inq_comm(io, &comm), "inq_comm");
  int me = 0, p = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  std::vector<int64_t> offsets;
  for (int64_t g = kN * me / p; g < kN * (me + 1) / p; ++g) offsets.push_back(g);
  const auto nlocal = static_cast<int64_t>(offsets.size());
  esmio_decomp_t d;
  ok(esmio_decomp_create(io, 1, &kN, nlocal, offsets.data(), &d), "decomp");
  esmio_file_t f;
  ok(esmio_create(io, path.c_str(), ("backend=" + backend).c_str(), &f), "create");
  int dims[2], v = -1;
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", kN, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "V", ESMIO_DOUBLE, 2, dims, &v), "def_var");
  ok(esmio_enddef(f), "enddef");
  std::vector<double> values(offsets.size());
  for (int r = 0; r < kMaxRecords; ++r) {
    for (std::size_t i = 0; i < offsets.size(); ++i) values[i] = value(r, offsets[i]);
    ok(esmio_write_darray(f, v, r, d, ESMIO_DOUBLE, values.data(), nlocal), "write");
    ok(esmio_sync(f), "sync");
    if (me == 0) {
      std::printf("synced %d\n", r + 1);
      std::fflush(stdout);
    }
    usleep(20000);  // a model step
  }
  ok(esmio_close(&f), "close");
  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  MPI_Finalize();
  return 0;
}

int verify(const std::string &path, int synced) {
  int nc = -1, v = -1, unlim = -1;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) {
    std::printf("verify: %s does not open with netCDF-C\n", path.c_str());
    return 1;
  }
  size_t nrec = 0;
  nc_inq_unlimdim(nc, &unlim);
  nc_inq_dimlen(nc, unlim, &nrec);
  int bad = nc_inq_varid(nc, "V", &v) != NC_NOERR;
  if (static_cast<int>(nrec) < synced) {
    std::printf("verify: %s has %zu records, %d were reported written\n", path.c_str(), nrec,
                synced);
    bad = 1;
  }
  std::vector<double> got(static_cast<std::size_t>(kN));
  for (int r = 0; r < synced && r < static_cast<int>(nrec) && !bad; ++r) {
    const size_t start[2] = {size_t(r), 0}, count[2] = {1, size_t(kN)};
    int wrong = nc_get_vara_double(nc, v, start, count, got.data()) != NC_NOERR;
    for (int64_t g = 0; g < kN && !wrong; ++g) wrong = got[g] != value(r, g);
    if (wrong) {
      std::printf("verify: record %d of %s was reported written but does not hold its values\n", r,
                  path.c_str());
      bad = 1;
    }
  }
  nc_close(nc);
  if (!bad)
    std::printf("verify: %s: %zu records, the %d reported written intact\n", path.c_str(), nrec,
                synced);
  return bad;
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "writer" && argc == 5) return writer(std::atoi(argv[2]), argv[3], argv[4]);
  int rc = 2;
  if (mode == "verify" && argc == 4)
    rc = verify(argv[2], std::atoi(argv[3]));
  else
    std::fprintf(stderr, "usage: %s writer SERVERS BACKEND PATH | verify PATH N\n", argv[0]);
  MPI_Finalize();
  return rc;
}
