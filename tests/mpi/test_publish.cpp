// publish=atomic: the file is written as PATH.esmio-tmp and takes the name PATH only when
// esmio_close succeeds on every rank; a failed close leaves PATH at its previous version and
// removes the partial file. With "writer MODE BACKEND PATH" the program is the victim of
// kill_writer.sh instead: it writes two synced records and one unsynced, says it is ready, and
// waits to be killed with -9.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

const int64_t n = 100000;  // 400 KB per record in float
int64_t begin = 0, count = 0;

bool exists(const std::string &path) { return access(path.c_str(), F_OK) == 0; }

void set_file_limit(rlim_t bytes) {
  rlimit limit;
  getrlimit(RLIMIT_FSIZE, &limit);
  limit.rlim_cur = bytes == RLIM_INFINITY ? limit.rlim_max : bytes;
  setrlimit(RLIMIT_FSIZE, &limit);
}

// Creates path with variable v(t, x) and writes records [0, records) of value version*1000+t+x.
esmio_file_t start_file(esmio_t io, esmio_decomp_t d, const std::string &path,
                        const std::string &settings, int version, int records, int *var) {
  esmio_file_t f;
  int dims[2];
  ok(esmio_create(io, path.c_str(), settings.c_str(), &f), "create");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim x");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, var), "def_var");
  ok(esmio_put_att(f, ESMIO_GLOBAL, "version", ESMIO_INT, 1, &version), "version");
  ok(esmio_enddef(f), "enddef");
  std::vector<double> values(static_cast<std::size_t>(count) + 1);
  for (int t = 0; t < records; ++t) {
    for (int64_t i = 0; i < count; ++i) values[i] = version * 1000.0 + t + (begin + i) % 100;
    ok(esmio_write_darray(f, *var, t, d, ESMIO_DOUBLE, values.data(), count), "write");
  }
  return f;
}

// The version the file at path holds (its attribute, checked against record 0's values).
int version_of(esmio_t io, esmio_decomp_t d, const std::string &path) {
  esmio_file_t f;
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  int version = -1, var = -1;
  ok(esmio_get_att(f, ESMIO_GLOBAL, "version", ESMIO_INT, 1, &version), "version");
  ok(esmio_inq_varid(f, "v", &var), "varid");
  std::vector<double> values(static_cast<std::size_t>(count) + 1);
  ok(esmio_read_darray(f, var, 0, d, ESMIO_DOUBLE, values.data(), count), "read");
  int64_t bad = 0;
  for (int64_t i = 0; i < count; ++i)
    if (values[i] != version * 1000.0 + (begin + i) % 100) ++bad;
  check(bad == 0, path + ": " + std::to_string(bad) + " values are not version " +
                      std::to_string(version) + "'s");
  ok(esmio_close(&f), "close");
  return version;
}

int writer(esmio_t io, esmio_decomp_t d, const std::string &mode, const std::string &backend,
           const std::string &path) {
  int var = -1;
  const std::string settings = "backend=" + backend + ",publish=" + mode;
  esmio_file_t f = start_file(io, d, path, settings, 2, 2, &var);
  ok(esmio_sync(f), "sync");
  std::vector<double> values(static_cast<std::size_t>(count) + 1, 99.0);
  ok(esmio_write_darray(f, var, 2, d, ESMIO_DOUBLE, values.data(), count), "unsynced write");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::ofstream(path + ".ready") << "ready\n";
  sleep(600);  // killed before this ends
  return 1;
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  begin = rank * n / nranks;
  count = (rank + 1) * n / nranks - begin;
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  esmio_decomp_t d;
  ok(esmio_decomp_create_block(io, 1, &n, &begin, &count, nullptr, &d), "decomp");
  if (argc == 5 && std::string(argv[1]) == "writer")
    return writer(io, d, argv[2], argv[3], argv[4]);

  signal(SIGXFSZ, SIG_IGN);
  // pnetcdf first: a later netCDF-4 file in the same process must not suffer from the failed
  // write before it (an ompio request that failed used to poison the next files' syncs).
  std::vector<std::string> backends = {"pnetcdf", "netcdf4"};
  if (argc == 2) backends = {argv[1]};
  for (const std::string &backend : backends) {
    const std::string path = out_dir() + "/publish_np" + std::to_string(nranks) + "_" + backend +
                             ".nc",
                      tmp = path + ".esmio-tmp";
    // The cache keeps the records until close (direct=1G: even one rank's whole share).
    const std::string atomic = "backend=" + backend + ",publish=atomic,cache=size=64M;direct=1G";
    if (rank == 0) std::remove(path.c_str());
    MPI_Barrier(MPI_COMM_WORLD);

    // A new file: invisible under its name until close.
    int var = -1;
    esmio_file_t f = start_file(io, d, path, atomic, 1, 2, &var);
    ok(esmio_sync(f), "sync");
    if (rank == 0) check(!exists(path) && exists(tmp), backend + ": only the temporary exists");
    ok(esmio_close(&f), "close");
    if (rank == 0) check(exists(path) && !exists(tmp), backend + ": published at close");
    check(version_of(io, d, path) == 1, backend + ": version 1 published");

    // A close that fails keeps the previous version and removes the partial file.
    f = start_file(io, d, path, atomic, 2, 2, &var);
    check(version_of(io, d, path) == 1, backend + ": version 1 readable while 2 is written");
    set_file_limit(64 * 1024);
    const int rc = esmio_close(&f);
    const std::string message = esmio_last_error();
    set_file_limit(RLIM_INFINITY);
    int lo = 0, hi = 0;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    check(rc != ESMIO_NOERR && lo == hi, backend + ": the failed close fails on every rank");
    check(message.find("was not replaced") != std::string::npos,
          backend + ": the message says the file was not replaced: " + message);
    if (rank == 0) check(!exists(tmp), backend + ": the partial file is removed");
    check(version_of(io, d, path) == 1, backend + ": version 1 kept after a failed close");

    // A partial file left by a killed run does not block the next create, even with
    // clobber=false (which guards the published name only).
    if (rank == 0) std::remove(path.c_str());
    if (rank == 0)
      if (FILE *stale = std::fopen(tmp.c_str(), "w")) std::fclose(stale);
    MPI_Barrier(MPI_COMM_WORLD);
    f = start_file(io, d, path, atomic + ",clobber=false", 3, 1, &var);
    ok(esmio_close(&f), "close over a stale temporary");
    check(version_of(io, d, path) == 3, backend + ": published over a stale temporary");

    // A rename that fails (the target is a directory): ESMIO_EIO, the partial file removed.
    const std::string blocked = path + ".dir";
    if (rank == 0) mkdir(blocked.c_str(), 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    f = start_file(io, d, blocked, atomic, 4, 1, &var);
    expect_all(esmio_close(&f), ESMIO_EIO, backend + ": close whose rename fails",
               "was not replaced");
    if (rank == 0) check(!exists(blocked + ".esmio-tmp"), backend + ": partial file removed");
    if (rank == 0) rmdir(blocked.c_str());

    // clobber=false guards the published name.
    const std::string keep = atomic + ",clobber=false";
    const int exists_rc = esmio_create(io, path.c_str(), keep.c_str(), &f);
    check(exists_rc == ESMIO_EEXIST && f == nullptr, backend + ": clobber=false refuses");
    if (rank == 0) check(!exists(tmp), backend + ": no temporary for a refused create");
    if (rank == 0) std::remove(path.c_str());
  }
  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  return finish("test_publish");
}
