// Staging (stage_dir): a file written in the stage and copied back at close holds what a file
// written in place holds, for every backend; the staged copy goes only after a verified copy;
// stage_copy=finalize copies at esmio_finalize; a corrupted block, a missing stage directory and
// a target directory that does not exist fail on every rank, keep the staged file and leave the
// target absent or at its previous version.
#include <netcdf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "stage/blocks.hpp"

using namespace mpi_check;

namespace {

constexpr int64_t kNx = 3000;  // 24 KB of doubles a record: several 4K blocks

bool exists(const std::string &path) { return ::access(path.c_str(), F_OK) == 0; }

std::string bytes_of(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes three records of one decomposed variable, each rank a contiguous block; returns the
// code of the close.
int write_file(esmio_t io, const std::string &path, const std::string &settings) {
  std::vector<int64_t> offsets;
  for (int64_t g = kNx * rank / nranks; g < kNx * (rank + 1) / nranks; ++g) offsets.push_back(g);
  esmio_decomp_t d;
  ok(esmio_decomp_create(io, 1, &kNx, static_cast<int64_t>(offsets.size()), offsets.data(), &d),
     "decomp");
  esmio_file_t f;
  ok(esmio_create(io, path.c_str(), settings.c_str(), &f), ("create " + path).c_str());
  int dims[2], var;
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", kNx, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "V", ESMIO_DOUBLE, 2, dims, &var), "def_var");
  ok(esmio_enddef(f), "enddef");
  std::vector<double> v(offsets.size());
  for (int r = 0; r < 3; ++r) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1000.0 * r + double(offsets[i]) / 7.0;
    ok(esmio_write_darray(f, var, r, d, ESMIO_DOUBLE, v.data(), static_cast<int64_t>(v.size())),
       "write");
  }
  // Freed before the close, so that esmio_last_error is the close's (the cache keeps the plan).
  ok(esmio_decomp_free(&d), "free");
  return esmio_close(&f);
}

// The values of V in path, read with netCDF-C (rank 0).
std::vector<double> values_of(const std::string &path) {
  int nc, var;
  std::vector<double> v(3 * kNx, -1);
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return {};
  nc_inq_varid(nc, "V", &var);
  nc_get_var_double(nc, var, v.data());
  nc_close(nc);
  return v;
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string dir = out_dir() + "/stage_np" + std::to_string(nranks);
  const std::string stage = dir + "/fast";
  if (rank == 0) {
    ::mkdir(dir.c_str(), 0777);
    ::mkdir(stage.c_str(), 0777);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");

  // Every backend: the staged-and-copied file holds what the in-place one holds; the stage is
  // empty afterwards. stage_block=4K: many blocks, shared by every I/O task.
  for (const char *backend : {"backend=pnetcdf", "backend=netcdf4", "backend=serial"}) {
    const std::string plain = dir + "/plain.nc", target = dir + "/target.nc";
    expect_all(write_file(io, plain, backend), ESMIO_NOERR, std::string(backend) + " in place");
    const std::string staged = esmio::stage::staged_path(stage, target);
    expect_all(
        write_file(io, target, std::string(backend) + ",stage_dir=" + stage + ",stage_block=4K"),
        ESMIO_NOERR, std::string(backend) + " staged");
    if (rank == 0) {
      check(exists(target), std::string(backend) + ": the target exists");
      check(!exists(staged), std::string(backend) + ": the staged copy is gone");
      check(!exists(esmio::stage::copy_path(target)), std::string(backend) + ": no copy left");
      const std::vector<double> a = values_of(plain), b = values_of(target);
      check(!a.empty() && a == b, std::string(backend) + ": staged file differs from in place");
      if (std::strcmp(backend, "backend=netcdf4") != 0)
        check(bytes_of(plain) == bytes_of(target),
              std::string(backend) + ": classic files differ byte for byte");
      std::remove(plain.c_str());
      std::remove(target.c_str());
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }

  // stage_copy=finalize: nothing at the target until esmio_finalize copies it.
  {
    const std::string target = dir + "/late.nc";
    const std::string staged = esmio::stage::staged_path(stage, target);
    esmio_t late;
    ok(esmio_init(MPI_COMM_WORLD, ("stage_dir=" + stage + ",stage_copy=finalize").c_str(), &late),
       "init finalize");
    expect_all(write_file(late, target, ""), ESMIO_NOERR, "stage_copy=finalize close");
    if (rank == 0) {
      check(!exists(target), "stage_copy=finalize: no target before esmio_finalize");
      check(exists(staged), "stage_copy=finalize: the staged file waits");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    expect_all(esmio_finalize(&late), ESMIO_NOERR, "finalize copies");
    if (rank == 0) {
      check(exists(target) && !exists(staged), "stage_copy=finalize: copied at finalize");
      check(values_of(target).size() == 3 * kNx, "stage_copy=finalize: the copy reads");
      std::remove(target.c_str());
    }
  }

  // stage_copy=background: esmio_close begins the copy, esmio_stage_wait ends it; a second
  // file is left for esmio_finalize. With I/O servers (3 ranks or more) the servers copy.
  for (const char *servers : {"", "io_servers=1,"}) {
    if (*servers && nranks < 3) continue;
    esmio_t bg;
    ok(esmio_init(MPI_COMM_WORLD,
                  (std::string(servers) + "stage_copy=background,stage_block=8K,stage_dir=" + stage)
                      .c_str(),
                  &bg),
       "init background");
    int role = ESMIO_ROLE_COMPUTE;
    ok(esmio_inq_role(bg, &role), "inq_role");
    if (role == ESMIO_ROLE_SERVER) {
      ok(esmio_finalize(&bg), "finalize server");
      continue;
    }
    MPI_Comm esmio_comm, comm;  // a copy: esmio's goes with esmio_finalize
    ok(esmio_inq_comm(bg, &esmio_comm), "inq_comm");
    MPI_Comm_dup(esmio_comm, &comm);
    const int saved_rank = rank, saved_nranks = nranks;
    MPI_Comm_rank(comm, &rank);  // write_file's decomposition is over the compute ranks
    MPI_Comm_size(comm, &nranks);
    const std::string label = std::string("background ") + servers;
    const std::string first = dir + "/bg1.nc", second = dir + "/bg2.nc";
    expect_all(write_file(bg, first, ""), ESMIO_NOERR, label + "close", "", comm);
    expect_all(write_file(bg, second, ""), ESMIO_NOERR, label + "close second", "", comm);
    expect_all(esmio_stage_wait(bg, first.c_str()), ESMIO_NOERR, label + "stage_wait", "", comm);
    if (rank == 0) {
      check(exists(first) && values_of(first).size() == 3 * kNx, label + "published by the wait");
      check(!exists(esmio::stage::staged_path(stage, first)), label + "staged copy gone");
    }
    expect_all(esmio_stage_wait(bg, first.c_str()), ESMIO_EINVAL, label + "a second wait",
               "no copy", comm);
    expect_all(esmio_finalize(&bg), ESMIO_NOERR, label + "finalize publishes the second", "", comm);
    if (rank == 0) {
      check(exists(second) && !exists(esmio::stage::staged_path(stage, second)),
            label + "published by finalize");
      std::remove(first.c_str());
      std::remove(second.c_str());
    }
    rank = saved_rank;
    nranks = saved_nranks;
    MPI_Comm_free(&comm);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  // A block changed on its way (test hook): ESMIO_ECHECKSUM on every rank; the previous version
  // of the target is untouched, the staged file kept, no copy left behind.
  {
    const std::string target = dir + "/kept.nc";
    const std::string staged = esmio::stage::staged_path(stage, target);
    if (rank == 0) std::ofstream(target) << "the previous version";
    MPI_Barrier(MPI_COMM_WORLD);
    setenv("ESMIO_TEST_STAGE_CORRUPT_BLOCK", "2", 1);
    const int rc = write_file(io, target, "stage_block=4K,stage_dir=" + stage);
    unsetenv("ESMIO_TEST_STAGE_CORRUPT_BLOCK");
    expect_all(rc, ESMIO_ECHECKSUM, "a corrupted block", "block 2");
    const std::string message = esmio_last_error();
    check(message.find(staged) != std::string::npos && message.find(target) != std::string::npos,
          "the checksum error names both paths: " + message);
    if (rank == 0) {
      check(bytes_of(target) == "the previous version", "the target keeps its previous version");
      check(exists(staged), "the staged file is kept after a checksum error");
      check(!exists(esmio::stage::copy_path(target)), "the failed copy is removed");
      std::remove(target.c_str());
      std::remove(staged.c_str());
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }

  // A stage directory that does not exist: refused at create, naming it.
  {
    esmio_file_t f;
    const std::string missing = dir + "/no_such_stage";
    const int rc = esmio_create(io, (dir + "/x.nc").c_str(), ("stage_dir=" + missing).c_str(), &f);
    expect_all(rc, ESMIO_EIO, "a missing stage_dir", "no_such_stage");
  }

  // A target in a directory that does not exist: the file is written in the stage, the copy
  // fails at close on every rank naming both paths, and the staged file is kept.
  {
    const std::string target = dir + "/no_such_dir/t.nc";
    const std::string staged = esmio::stage::staged_path(stage, target);
    const int rc = write_file(io, target, "stage_dir=" + stage);
    expect_all(rc, ESMIO_EIO, "a target directory that does not exist", "no_such_dir");
    if (rank == 0) {
      check(exists(staged), "the staged file is kept when the target cannot be written");
      std::remove(staged.c_str());
    }
  }

  ok(esmio_finalize(&io), "finalize");
  if (rank == 0) {
    ::rmdir(stage.c_str());
    ::rmdir(dir.c_str());
  }
  return finish("test_stage");
}
