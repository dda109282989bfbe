/* esmio_init with one I/O server and esmio_finalize, nothing else: esmio_init's probe of the
 * async buffers' window (async/passive_probe.hpp) then prints its warning or not.
 * async_probe.sh runs it with Open MPI's defaults and with osc/pt2pt. */
#include <mpi.h>
#include <stdio.h>

#include "esmio.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  esmio_t io = NULL;
  int rc = esmio_init(MPI_COMM_WORLD, "io_servers=1", &io);
  if (rc == ESMIO_NOERR && io != NULL) rc = esmio_finalize(&io);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("esmio_init and esmio_finalize: %d %s\n", rc, esmio_last_error());
  MPI_Finalize();
  return rc == ESMIO_NOERR ? 0 : 1;
}
