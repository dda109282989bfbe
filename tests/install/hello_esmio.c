/* Built outside the source tree against an installed esmio (tests/install/test_install.sh):
 * the version, then a decomposed write and its read-back on every rank. */
#include <esmio.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                     \
  do {                                                                                  \
    int rc_ = (call);                                                                   \
    if (rc_ != ESMIO_NOERR) {                                                           \
      fprintf(stderr, "%s: %s (%s)\n", #call, esmio_strerror(rc_), esmio_last_error()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                     \
    }                                                                                   \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", ESMIO_VERSION_MAJOR, ESMIO_VERSION_MINOR,
           ESMIO_VERSION_PATCH);
  if (strcmp(esmio_version(), want) != 0) {
    fprintf(stderr, "esmio_version() %s, header %s\n", esmio_version(), want);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  esmio_t io;
  CHECK(esmio_init(MPI_COMM_WORLD, "", &io));
  enum { kLocal = 8 };
  const int64_t dims[1] = {kLocal * (int64_t)size};
  int64_t offsets[kLocal];
  double values[kLocal], back[kLocal];
  for (int i = 0; i < kLocal; ++i) {
    offsets[i] = (int64_t)i * size + rank; /* interleaved over the ranks */
    values[i] = 1000.0 * rank + i;
  }
  esmio_decomp_t decomp;
  CHECK(esmio_decomp_create(io, 1, dims, kLocal, offsets, &decomp));
  esmio_file_t file;
  CHECK(esmio_create(io, argc > 1 ? argv[1] : "hello_esmio.nc", "", &file));
  int dimid, varid;
  CHECK(esmio_def_dim(file, "x", dims[0], &dimid));
  CHECK(esmio_def_var(file, "v", ESMIO_DOUBLE, 1, &dimid, &varid));
  CHECK(esmio_enddef(file));
  CHECK(esmio_write_darray(file, varid, 0, decomp, ESMIO_DOUBLE, values, kLocal));
  CHECK(esmio_read_darray(file, varid, 0, decomp, ESMIO_DOUBLE, back, kLocal));
  CHECK(esmio_close(&file));
  for (int i = 0; i < kLocal; ++i)
    if (back[i] != values[i]) {
      fprintf(stderr, "rank %d: element %d read back %g, wrote %g\n", rank, i, back[i], values[i]);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  CHECK(esmio_decomp_free(&decomp));
  CHECK(esmio_finalize(&io));
  if (rank == 0) printf("esmio %s: written and read back on %d rank(s)\n", esmio_version(), size);
  MPI_Finalize();
  return 0;
}
