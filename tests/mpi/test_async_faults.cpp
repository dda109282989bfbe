// Asynchronous mode when the compute ranks disagree: write_darray calls that differ between
// ranks (another variable, one call more) come back as an error from the next esmio_sync on
// every compute rank, never a hang, and the file and instance can still be closed; a call
// larger than async_buffer fails at once on its rank and at the next sync on the others.
// Run with 3 or more ranks (one server). With an argument "serve-and-die", a program for
// kill_server.sh: it writes forever, and prints its role and PID.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

struct Model {
  MPI_Comm comm;  // a copy of the compute ranks' communicator
  int me = 0, p = 1;
  esmio_decomp_t d = nullptr;
  std::vector<int64_t> offsets;
  std::vector<double> values;
};

Model start_model(esmio_t io, int64_t n) {
  Model m;
  MPI_Comm esmio_comm;
  ok(esmio_inq_comm(io, &esmio_comm), "inq_comm");
  MPI_Comm_dup(esmio_comm, &m.comm);
  MPI_Comm_rank(m.comm, &m.me);
  MPI_Comm_size(m.comm, &m.p);
  for (int64_t g = n * m.me / m.p; g < n * (m.me + 1) / m.p; ++g) m.offsets.push_back(g);
  m.values.assign(m.offsets.size(), 1.5);
  ok(esmio_decomp_create(io, 1, &n, static_cast<int64_t>(m.offsets.size()), m.offsets.data(), &m.d),
     "decomp");
  return m;
}

esmio_file_t make_file(esmio_t io, const std::string &path, int64_t n, int *a, int *b) {
  esmio_file_t f;
  ok(esmio_create(io, path.c_str(), "backend=pnetcdf", &f), "create");
  int dims[2];
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "A", ESMIO_DOUBLE, 2, dims, a), "def_var");
  ok(esmio_def_var(f, "B", ESMIO_DOUBLE, 2, dims, b), "def_var");
  ok(esmio_enddef(f), "enddef");
  return f;
}

int write(esmio_file_t f, int var, int64_t record, const Model &m) {
  return esmio_write_darray(f, var, record, m.d, ESMIO_DOUBLE, m.values.data(),
                            static_cast<int64_t>(m.values.size()));
}

// Writes until killed (kill_server.sh).
int serve_and_die(const std::string &dir) {
  // Printed before esmio_init, where a server stays until the end.
  std::printf("rank %d pid %d\n", rank, static_cast<int>(getpid()));
  std::fflush(stdout);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "io_servers=1", &io), "init");
  int role = 0;
  ok(esmio_inq_role(io, &role), "inq_role");
  if (role == ESMIO_ROLE_SERVER) {
    esmio_finalize(&io);
    MPI_Finalize();
    return 0;
  }
  Model m = start_model(io, 100000);
  int a, b;
  esmio_file_t f = make_file(io, dir + "/async_killed.nc", 100000, &a, &b);
  for (int64_t r = 0;; ++r) {
    write(f, a, r, m);
    if (r % 8 == 7) esmio_sync(f);
  }
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string dir = out_dir();
  if (argc > 1 && std::string(argv[1]) == "serve-and-die") return serve_and_die(dir);
  const std::string path = dir + "/async_faults_np" + std::to_string(nranks) + ".nc";
  const int64_t n = 4000;

  for (int kase = 0; kase < 3; ++kase) {
    esmio_t io;
    ok(esmio_init(MPI_COMM_WORLD, "io_servers=1,async_buffer=64K", &io), "init");
    int role = 0;
    ok(esmio_inq_role(io, &role), "inq_role");
    if (role == ESMIO_ROLE_SERVER) {
      ok(esmio_finalize(&io), "finalize server");
      continue;
    }
    Model m = start_model(io, n);
    int a, b;
    esmio_file_t f = make_file(io, path, n, &a, &b);
    std::string label;
    if (kase == 0) {
      // The first compute rank writes A twice, the others once.
      label = "one write more on one rank";
      write(f, a, 0, m);
      if (m.me == 0) write(f, a, 1, m);
    } else if (kase == 1) {
      // Another variable on the last compute rank.
      label = "another variable on one rank";
      write(f, m.me == m.p - 1 ? b : a, 0, m);
    } else {
      // More than the 64 KiB ring on the first rank: refused there at once.
      label = "a call larger than async_buffer on one rank";
      std::vector<double> big(10000, 2.0);
      // 10000 doubles (80 KB) of a decomposition on the first rank, one value elsewhere.
      esmio_decomp_t wide;
      const int64_t wide_n = 10000 * int64_t(m.p);
      std::vector<int64_t> mine;
      for (int64_t g = 0; g < 10000; ++g) mine.push_back(m.me * 10000 + g);
      const int64_t count = m.me == 0 ? 10000 : 1;
      ok(esmio_decomp_create(io, 1, &wide_n, count, mine.data(), &wide), "wide decomp");
      esmio_file_t g2;
      ok(esmio_create(io, (path + ".wide").c_str(), "backend=pnetcdf", &g2), "create wide");
      int x, v;
      ok(esmio_def_dim(g2, "x", wide_n, &x), "def_dim");
      ok(esmio_def_var(g2, "W", ESMIO_DOUBLE, 1, &x, &v), "def_var");
      ok(esmio_enddef(g2), "enddef");
      const int rc = esmio_write_darray(g2, v, 0, wide, ESMIO_DOUBLE, big.data(), count);
      if (m.me == 0) {
        check(rc == ESMIO_EINVAL, label + ": refused at once on its rank");
        check(std::string(esmio_last_error()).find("async_buffer") != std::string::npos,
              label + ": the message names async_buffer: " + esmio_last_error());
      } else {
        check(rc == ESMIO_NOERR, label + ": the other ranks' calls are posted");
      }
      const int synced = esmio_sync(g2);
      expect_all(synced == ESMIO_NOERR ? 0 : 1, 1, label + ": the next sync fails everywhere", "",
                 m.comm);
      esmio_close(&g2);
      ok(esmio_decomp_free(&wide), "free wide");
      if (m.me == 0) std::remove((path + ".wide").c_str());
      write(f, a, 0, m);
    }
    if (kase < 2) {
      const int rc = esmio_sync(f);
      expect_all(rc, ESMIO_EMISMATCH, label + ": esmio_sync", "different calls", m.comm);
      // The servers lined the ranks up again: the file still works and closes.
      expect_all(write(f, a, 2, m), ESMIO_NOERR, label + ": a write after the mismatch", "",
                 m.comm);
      expect_all(esmio_sync(f), ESMIO_NOERR, label + ": a sync after the mismatch", "", m.comm);
    }
    expect_all(esmio_close(&f), ESMIO_NOERR, label + ": close", "", m.comm);
    ok(esmio_decomp_free(&m.d), "free");
    expect_all(esmio_finalize(&io), ESMIO_NOERR, label + ": finalize", "", m.comm);
    if (m.me == 0) std::remove(path.c_str());
    MPI_Comm_free(&m.comm);
  }
  return finish("test_async_faults");
}
