// A path longer than Open MPI 4's ompio opens (its sharedfp component lockedfile aborts the job
// in MPI_File_open past 244 characters): with argument "refused", esmio_create refuses it with
// every backend (the serial one reads through PnetCDF) on every rank, naming the cause and what
// avoids it; a 244-character path opens. With "opens" (the job run with
// OMPI_MCA_sharedfp=^lockedfile) the long path is written and read back with every backend.
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

// A path of exactly length characters under dir (a directory of 100 characters, then a file
// whose name ends in tag).
std::string path_of_length(const std::string &dir, std::size_t length, const std::string &tag) {
  const std::string deep = dir + "/" + std::string(100, 'd');
  if (rank == 0) mkdir(deep.c_str(), 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  return deep + "/" + std::string(length - deep.size() - 1 - tag.size(), 'f') + tag;
}

// Creates path, writes one variable of 8 values, closes, opens again and reads them back.
int write_and_read(esmio_t io, const std::string &path, const std::string &backend) {
  esmio_file_t f = nullptr;
  const std::string settings =
      "backend=" + backend + (backend == "netcdf4" ? ",format=netcdf4" : "");
  const int rc = esmio_create(io, path.c_str(), settings.c_str(), &f);
  if (rc != ESMIO_NOERR) return rc;
  int x = -1, v = -1;
  ok(esmio_def_dim(f, "x", 8, &x), "def_dim");
  ok(esmio_def_var(f, "v", ESMIO_DOUBLE, 1, &x, &v), "def_var");
  ok(esmio_enddef(f), "enddef");
  const int64_t start = 0, count = 8;
  const std::vector<double> values = {1, 2, 3, 4, 5, 6, 7, 8};
  ok(esmio_put_vara(f, v, &start, &count, ESMIO_DOUBLE, values.data()), "put_vara");
  ok(esmio_close(&f), "close");
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, ("backend=" + backend).c_str(), &f), "open");
  std::vector<double> got(8, 0);
  ok(esmio_get_vara(f, v, &start, &count, ESMIO_DOUBLE, got.data()), "get_vara");
  ok(esmio_close(&f), "close the file read");
  check(got == values, std::to_string(path.size()) + " characters, " + backend + ": values differ");
  return ESMIO_NOERR;
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string expect = argc > 1 ? argv[1] : "refused";
  esmio_t io = nullptr;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const std::string dir = out_dir() + "/test_long_path_np" + std::to_string(nranks) + "_" + expect;
  if (rank == 0) mkdir(dir.c_str(), 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<std::string> written;
  for (const char *backend : {"pnetcdf", "netcdf4"}) {
    const std::string path = path_of_length(dir, 244, backend);
    expect_all(write_and_read(io, path, backend), ESMIO_NOERR,
               std::string(backend) + ": a path of 244 characters");
    written.push_back(path);
  }
  for (const char *backend : {"pnetcdf", "netcdf4", "serial"}) {
    const std::string path = path_of_length(dir, 300, backend);
    const bool refused = expect == "refused";
    expect_all(write_and_read(io, path, backend), refused ? ESMIO_EINVAL : ESMIO_NOERR,
               std::string(backend) + ": a path of 300 characters",
               refused ? "OMPI_MCA_sharedfp=^lockedfile" : "");
    if (!refused) written.push_back(path);
  }
  ok(esmio_finalize(&io), "finalize");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    for (const std::string &p : written) std::remove(p.c_str());
  return finish("test_long_path");
}
