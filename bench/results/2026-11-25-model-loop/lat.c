/* Round trips through one I/O server: N esmio_get_att calls (each posted, answered by the server).
 */
#include <esmio.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  const char *dir = argc > 2 ? argv[2] : "/tmp";
  esmio_t io;
  esmio_init(MPI_COMM_WORLD, "io_servers=1", &io);
  int role;
  esmio_inq_role(io, &role);
  if (role == ESMIO_ROLE_COMPUTE) {
    char path[4096];
    snprintf(path, sizeof path, "%s/lat.nc", dir);
    esmio_file_t f;
    double v = 42, w = 0;
    if (esmio_create(io, path, "", &f) ||
        esmio_put_att(f, ESMIO_GLOBAL, "a", ESMIO_DOUBLE, 1, &v) || esmio_enddef(f)) {
      fprintf(stderr, "%s\n", esmio_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int rep = 0; rep < 3; ++rep) {
      double t0 = MPI_Wtime();
      for (int i = 0; i < n; ++i)
        if (esmio_get_att(f, ESMIO_GLOBAL, "a", ESMIO_DOUBLE, 1, &w) || w != 42)
          MPI_Abort(MPI_COMM_WORLD, 2);
      double t = MPI_Wtime() - t0;
      printf("%d get_att round trips: %.1f us each\n", n, 1e6 * t / n);
    }
    esmio_close(&f);
  }
  esmio_finalize(&io);
  MPI_Finalize();
  return 0;
}
