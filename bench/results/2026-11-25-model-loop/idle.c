/* An idle I/O server's CPU: the compute rank creates a file, syncs, sleeps S seconds, closes.
   Every rank prints its CPU seconds (user+sys) over esmio_init..esmio_finalize and the wall time.
 */
#include <esmio.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
static double cpu(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + 1e-6 * u.ru_utime.tv_usec + u.ru_stime.tv_sec +
         1e-6 * u.ru_stime.tv_usec;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int s = argc > 1 ? atoi(argv[1]) : 5;
  const char *dir = argc > 2 ? argv[2] : "/tmp";
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  double c0 = cpu(), t0 = MPI_Wtime();
  esmio_t io;
  if (esmio_init(MPI_COMM_WORLD, "io_servers=1", &io)) {
    fprintf(stderr, "init failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int role;
  esmio_inq_role(io, &role);
  if (role == ESMIO_ROLE_COMPUTE) {
    char path[4096];
    snprintf(path, sizeof path, "%s/idle.nc", dir);
    esmio_file_t f;
    int dim;
    if (esmio_create(io, path, "", &f) || esmio_def_dim(f, "x", 4, &dim) || esmio_enddef(f) ||
        esmio_sync(f)) {
      fprintf(stderr, "%s\n", esmio_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double cs = cpu();
    sleep(s);
    double cslept = cpu() - cs;
    esmio_close(&f);
    printf("rank %d compute: cpu during sleep %.4f s\n", rank, cslept);
  }
  esmio_finalize(&io);
  double c = cpu() - c0, t = MPI_Wtime() - t0;
  printf("rank %d %s: cpu %.3f s over %.3f s wall = %.2f %% of a core\n", rank,
         role == ESMIO_ROLE_SERVER ? "server" : "compute", c, t, 100 * c / t);
  MPI_Finalize();
  return 0;
}
