/* A PIO program built outside the source tree against an installed esmio, through pio.h and
 * libesmio_pio (tests/install/test_install.sh): an interleaved write and its read-back. */
#include <pio.h>
#include <stdio.h>

#define CHECK(call)                                    \
  do {                                                 \
    int rc_ = (call);                                  \
    if (rc_ != PIO_NOERR) {                            \
      fprintf(stderr, "%s returned %d\n", #call, rc_); \
      MPI_Abort(MPI_COMM_WORLD, 1);                    \
    }                                                  \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iosysid, ioid, ncid, dimid, varid, iotype = PIO_IOTYPE_PNETCDF;
  CHECK(PIOc_Init_Intracomm(MPI_COMM_WORLD, 1, 1, 0, PIO_REARR_BOX, &iosysid));
  enum { kLocal = 8 };
  const int gdim = kLocal * size;
  PIO_Offset map[kLocal];
  double values[kLocal], back[kLocal];
  for (int i = 0; i < kLocal; ++i) {
    map[i] = (PIO_Offset)i * size + rank + 1; /* 1-based, interleaved over the tasks */
    values[i] = 1000.0 * rank + i;
  }
  CHECK(PIOc_InitDecomp(iosysid, PIO_DOUBLE, 1, &gdim, kLocal, map, &ioid, NULL, NULL, NULL));
  CHECK(PIOc_createfile(iosysid, &ncid, &iotype, argc > 1 ? argv[1] : "hello_pio.nc", PIO_CLOBBER));
  CHECK(PIOc_def_dim(ncid, "x", gdim, &dimid));
  CHECK(PIOc_def_var(ncid, "v", PIO_DOUBLE, 1, &dimid, &varid));
  CHECK(PIOc_enddef(ncid));
  CHECK(PIOc_write_darray(ncid, varid, ioid, kLocal, values, NULL));
  CHECK(PIOc_read_darray(ncid, varid, ioid, kLocal, back));
  CHECK(PIOc_closefile(ncid));
  for (int i = 0; i < kLocal; ++i)
    if (back[i] != values[i]) {
      fprintf(stderr, "rank %d: value %d read back as %g\n", rank, i, back[i]);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  CHECK(PIOc_freedecomp(iosysid, ioid));
  CHECK(PIOc_finalize(iosysid));
  MPI_Finalize();
  return 0;
}
