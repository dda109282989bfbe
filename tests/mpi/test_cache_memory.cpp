// The write cache's memory bound on a map with many holes: the E3SM I case's land map
// (e3sm:D1, 96 x 144, land points only) written as 200 2-D fields x 2 records through the
// default cache (size=8M). The growth of each rank's peak resident memory (VmHWM) over the
// writes must stay within a few times the cache size: before the dense slabs and the stretch
// interface, the per-hole bookkeeping of one flush took hundreds of MiB on one rank
// (esmio-bench e3sm-i: 805 MiB with a 64M cache). Memory, not time: no timing threshold.
// argv[1]: the map file.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

// Peak resident memory of this process in KiB (Linux), or -1.
long peak_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  if (argc != 2) return 2;
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  esmio_decomp_t d;
  ok(esmio_decomp_load(io, argv[1], "e3sm:D1", &d), "decomp_load");
  int ndims = 0;
  int64_t dims[4] = {0, 0, 0, 0}, nlocal = 0;
  ok(esmio_decomp_inq(d, &ndims, dims, &nlocal), "decomp_inq");
  std::vector<int64_t> offsets(static_cast<std::size_t>(nlocal));
  ok(esmio_decomp_inq_offsets(d, offsets.data(), nlocal), "decomp_inq_offsets");
  const std::string path = out_dir() + "/test_cache_memory_np" + std::to_string(nranks) + ".nc";
  esmio_file_t f;
  ok(esmio_create(io, path.c_str(), "", &f), "create");
  int t = -1;
  std::vector<int> fdims(static_cast<std::size_t>(ndims) + 1);
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &t), "def_dim time");
  fdims[0] = t;
  for (int k = 0; k < ndims; ++k)
    ok(esmio_def_dim(f, ("d" + std::to_string(k)).c_str(), dims[k], &fdims[k + 1]), "def_dim");
  const int nvars = 200, nrecords = 2;
  std::vector<int> vars(nvars);
  for (int v = 0; v < nvars; ++v)
    ok(esmio_def_var(f, ("f" + std::to_string(v)).c_str(), ESMIO_FLOAT, ndims + 1, fdims.data(),
                     &vars[v]),
       "def_var");
  ok(esmio_enddef(f), "enddef");
  std::vector<double> values(static_cast<std::size_t>(nlocal) + 1);
  const long before = peak_kib();
  for (int r = 0; r < nrecords; ++r)
    for (int v = 0; v < nvars; ++v) {
      for (int64_t i = 0; i < nlocal; ++i)
        values[i] = static_cast<double>(offsets[i]) + 0.001 * v + r;
      ok(esmio_write_darray(f, vars[v], r, d, ESMIO_DOUBLE, values.data(), nlocal), "write");
    }
  ok(esmio_close(&f), "close");
  const long growth_mib = (peak_kib() - before) / 1024;
  // 8 MiB of cache; its bound counts what a flush holds (converted, received, placed); the
  // rest is room for MPI's and the allocator's own buffers.
  const long allowed_mib = 48;
  check(before > 0, "VmHWM readable");
  check(growth_mib <= allowed_mib, "peak memory grew by " + std::to_string(growth_mib) +
                                       " MiB writing through an 8 MiB cache (allowed " +
                                       std::to_string(allowed_mib) + ")");
  if (rank == 0) std::printf("test_cache_memory: peak grew by %ld MiB on rank 0\n", growth_mib);
  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  std::remove(path.c_str());
  return finish("test_cache_memory");
}
