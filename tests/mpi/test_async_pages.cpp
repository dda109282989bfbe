// async_buffer_pages: with init a compute rank holds its whole async buffer when esmio_init
// returns (resident memory grows by the buffer); with use it holds only what messages reach.
// Either way a write through the servers then reads back as written.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int64_t kBuffer = int64_t(64) << 20;

// This process's resident memory (bytes), shared pages included.
int64_t resident_bytes() {
  long pages = 0, resident = 0;
  FILE *f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  const int n = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  return n == 2 ? static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE) : -1;
}

void run(const std::string &pages) {
  const std::string settings =
      "io_servers=1,async_buffer=" + std::to_string(kBuffer) + ",async_buffer_pages=" + pages;
  const int64_t before = resident_bytes();
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, settings.c_str(), &io), "init");
  const int64_t grown = resident_bytes() - before;
  int role = ESMIO_ROLE_COMPUTE;
  ok(esmio_inq_role(io, &role), "inq_role");
  if (role == ESMIO_ROLE_SERVER) {  // served the compute ranks' calls inside esmio_init
    ok(esmio_finalize(&io), "finalize (server)");
    return;
  }
  MPI_Comm compute;
  ok(esmio_inq_comm(io, &compute), "inq_comm");
  int me = 0, n = 1;
  MPI_Comm_rank(compute, &me);
  MPI_Comm_size(compute, &n);
  const std::string what = settings + ": rank " + std::to_string(rank) + " grew by " +
                           std::to_string(grown >> 20) + " MiB in esmio_init";
  if (pages == "init")
    check(grown >= kBuffer - (int64_t(4) << 20), what + ", expected the whole buffer");
  else
    check(grown < kBuffer / 2, what + ", expected no more than messages need");

  // One record through the servers, read back.
  const int64_t len = 1000;
  std::vector<int64_t> offsets;
  for (int64_t g = me; g < len; g += n) offsets.push_back(g);
  const int64_t count = static_cast<int64_t>(offsets.size());
  esmio_decomp_t d;
  ok(esmio_decomp_create(io, 1, &len, count, offsets.data(), &d), "decomp");
  std::vector<double> values(offsets.size()), back(offsets.size());
  for (std::size_t i = 0; i < offsets.size(); ++i)
    values[i] = 0.5 * static_cast<double>(offsets[i]);
  const std::string path = out_dir() + "/async_pages_" + pages + ".nc";
  esmio_file_t f;
  int dim, var;
  ok(esmio_create(io, path.c_str(), nullptr, &f), "create");
  ok(esmio_def_dim(f, "n", len, &dim), "def_dim");
  ok(esmio_def_var(f, "x", ESMIO_DOUBLE, 1, &dim, &var), "def_var");
  ok(esmio_enddef(f), "enddef");
  ok(esmio_write_darray(f, var, 0, d, ESMIO_DOUBLE, values.data(), count), "write");
  ok(esmio_close(&f), "close");
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, nullptr, &f), "open");
  ok(esmio_read_darray(f, var, 0, d, ESMIO_DOUBLE, back.data(), count), "read");
  ok(esmio_close(&f), "close after read");
  check(back == values, settings + ": the values read differ from those written");
  ok(esmio_decomp_free(&d), "decomp_free");
  ok(esmio_finalize(&io), "finalize");
  if (me == 0) std::remove(path.c_str());
}

}  // namespace

int main(int argc, char **argv) {
  // The setting under test, not the suite's ESMIO_ASYNC_BUFFER_PAGES (the environment would
  // override what esmio_init is given).
  unsetenv("ESMIO_ASYNC_BUFFER_PAGES");
  start(&argc, &argv);
  run("use");  // first: the buffer of init would still be counted after its instance
  run("init");
  return finish("async_pages");
}
