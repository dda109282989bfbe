/* PIO's asynchronous mode on esmio's I/O servers (PIOc_init_async), as a PIO model uses it: one
 * I/O process and the other tasks one computational component. The component writes two records
 * of a field through PIOc_write_darray, closes, reads them back through PIOc_read_darray and
 * checks every value; the I/O process returns from PIOc_init_async once the component has called
 * PIOc_finalize. Then the lists esmio cannot serve are refused with PIO_EINVAL on every task:
 * two components, I/O processes in the middle of the tasks, a task in no list.
 * Usage: test_pio_async DIR (4 or more tasks). */
#include <mpi.h>
#include <pio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NY 6
#define NX 8

static int failures = 0;
#define CHECK(cond, ...)                           \
  do {                                             \
    if (!(cond)) {                                 \
      fprintf(stderr, "FAIL line %d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                \
      fprintf(stderr, "\n");                       \
      ++failures;                                  \
    }                                              \
  } while (0)

static double value(int record, int point) { return 1000.0 * record + point + 0.25; }

/* The component: a column-block decomposition of (y, x), written and read back. */
static void component(int iosysid, MPI_Comm comp, const char *path) {
  int me = 0, n = 1;
  MPI_Comm_rank(comp, &me);
  MPI_Comm_size(comp, &n);
  const int total = NY * NX, first = me * total / n, last = (me + 1) * total / n;
  const int len = last - first;
  PIO_Offset *map = malloc(sizeof(PIO_Offset) * (len > 0 ? len : 1));
  double *data = malloc(sizeof(double) * (len > 0 ? len : 1));
  for (int i = 0; i < len; ++i) map[i] = first + i + 1; /* 1-based */
  int dims[2] = {NY, NX}, ioid = -1;
  int rc = PIOc_InitDecomp(iosysid, PIO_DOUBLE, 2, dims, len, map, &ioid, NULL, NULL, NULL);
  CHECK(rc == PIO_NOERR, "PIOc_InitDecomp: %d", rc);
  int ncid = -1, iotype = PIO_IOTYPE_PNETCDF, dim[3], varid = -1;
  rc = PIOc_createfile(iosysid, &ncid, &iotype, path, PIO_CLOBBER);
  CHECK(rc == PIO_NOERR, "PIOc_createfile: %d", rc);
  PIOc_def_dim(ncid, "time", PIO_UNLIMITED, &dim[0]);
  PIOc_def_dim(ncid, "y", NY, &dim[1]);
  PIOc_def_dim(ncid, "x", NX, &dim[2]);
  rc = PIOc_def_var(ncid, "T", PIO_DOUBLE, 3, dim, &varid);
  CHECK(rc == PIO_NOERR, "PIOc_def_var: %d", rc);
  rc = PIOc_enddef(ncid);
  CHECK(rc == PIO_NOERR, "PIOc_enddef: %d", rc);
  for (int record = 0; record < 2; ++record) {
    for (int i = 0; i < len; ++i) data[i] = value(record, first + i);
    PIOc_setframe(ncid, varid, record);
    rc = PIOc_write_darray(ncid, varid, ioid, len, data, NULL);
    CHECK(rc == PIO_NOERR, "PIOc_write_darray record %d: %d", record, rc);
  }
  rc = PIOc_closefile(ncid);
  CHECK(rc == PIO_NOERR, "PIOc_closefile: %d", rc);

  rc = PIOc_openfile(iosysid, &ncid, &iotype, path, PIO_NOWRITE);
  CHECK(rc == PIO_NOERR, "PIOc_openfile: %d", rc);
  for (int record = 0; record < 2 && rc == PIO_NOERR; ++record) {
    memset(data, 0, sizeof(double) * (len > 0 ? len : 1));
    PIOc_setframe(ncid, varid, record);
    rc = PIOc_read_darray(ncid, varid, ioid, len, data);
    CHECK(rc == PIO_NOERR, "PIOc_read_darray record %d: %d", record, rc);
    for (int i = 0; i < len; ++i)
      CHECK(data[i] == value(record, first + i), "record %d point %d: %g", record, first + i,
            data[i]);
  }
  PIOc_closefile(ncid);
  PIOc_freedecomp(iosysid, ioid);
  free(map);
  free(data);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc < 2 || n < 4) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np 4 test_pio_async DIR\n");
    MPI_Finalize();
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/pio_async.nc", argv[1]);

  /* PIO's defaults: the first task does I/O, the others compute. */
  int nio = 1, ncomp = n - 1, iosysid = -7;
  MPI_Comm io_comm = MPI_COMM_NULL, comp_comm = MPI_COMM_NULL;
  int rc = PIOc_init_async(MPI_COMM_WORLD, nio, NULL, 1, &ncomp, NULL, &io_comm, &comp_comm,
                           PIO_REARR_BOX, &iosysid);
  CHECK(rc == PIO_NOERR, "PIOc_init_async: %d", rc);
  if (rank == 0) {
    /* The I/O process: back once the component finalized. */
    CHECK(io_comm != MPI_COMM_NULL && comp_comm == MPI_COMM_NULL, "task 0's communicators");
    CHECK(iosysid == -1, "the I/O process's iosysid: %d", iosysid);
  } else {
    CHECK(io_comm == MPI_COMM_NULL && comp_comm != MPI_COMM_NULL, "task %d's communicators", rank);
    int size = 0;
    MPI_Comm_size(comp_comm, &size);
    CHECK(size == n - 1, "the component's communicator holds %d tasks", size);
    PIOc_Set_IOSystem_Error_Handling(iosysid, PIO_RETURN_ERROR);
    component(iosysid, comp_comm, path);
    rc = PIOc_finalize(iosysid);
    CHECK(rc == PIO_NOERR, "PIOc_finalize: %d", rc);
  }
  if (io_comm != MPI_COMM_NULL) MPI_Comm_free(&io_comm);
  if (comp_comm != MPI_COMM_NULL) MPI_Comm_free(&comp_comm);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Lists esmio cannot serve: refused on every task, nothing started. */
  PIOc_set_iosystem_error_handling(PIO_DEFAULT, PIO_RETURN_ERROR, NULL);
  int counts[2] = {1, n - 2};
  rc = PIOc_init_async(MPI_COMM_WORLD, 1, NULL, 2, counts, NULL, NULL, NULL, PIO_REARR_BOX,
                       &iosysid);
  CHECK(rc == PIO_EINVAL, "two components: %d", rc);
  int middle = 1;
  rc = PIOc_init_async(MPI_COMM_WORLD, 1, &middle, 1, &ncomp, NULL, NULL, NULL, PIO_REARR_BOX,
                       &iosysid);
  CHECK(rc == PIO_EINVAL, "an I/O process in the middle: %d", rc);
  int fewer = n - 2;
  rc = PIOc_init_async(MPI_COMM_WORLD, 1, NULL, 1, &fewer, NULL, NULL, NULL, PIO_REARR_BOX,
                       &iosysid);
  CHECK(rc == PIO_EINVAL, "a task in no list: %d", rc);

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("test_pio_async on %d tasks: %s\n", n, all ? "FAILED" : "passed");
  MPI_Finalize();
  return all ? 1 : 0;
}
