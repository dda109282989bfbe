// esmio_create where the file system refuses (argv[1]: the path): ESMIO_EIO from every
// backend, the same on every rank, and a message naming the path and the cause (argv[2]).
// Driven by readonly_fs.sh, which mounts a read-only file system.
#include <string>

#include "../mpi/mpi_check.hpp"
#include "esmio.h"

using namespace mpi_check;

int main(int argc, char **argv) {
  start(&argc, &argv);
  if (argc != 3) return 2;
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  for (const char *settings :
       {"backend=pnetcdf", "backend=netcdf4", "backend=serial", "backend=pnetcdf,publish=atomic"}) {
    esmio_file_t f = nullptr;
    expect_all(esmio_create(io, argv[1], settings, &f), ESMIO_EIO,
               std::string("create with ") + settings, argv[2]);
    check(f == nullptr, "no handle for a refused create");
    expect_all(esmio_create(io, argv[1], settings, &f), ESMIO_EIO,
               std::string("create again with ") + settings, argv[1]);
  }
  ok(esmio_finalize(&io), "finalize");
  return finish("test_create_refused");
}
