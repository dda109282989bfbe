/* The file fortran_writer.F90 writes, written through the C API in C terms (dimensions slowest
 * first, 0-based ids and records), each rank holding a band of latitudes in C order. The two
 * files must be the same byte for byte (pnetcdf) or value for value (netcdf4).
 * Usage: mpirun -np N fortran_c_writer OUT.nc SETTINGS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "esmio.h"

enum { NLON = 8, NLAT = 6, NLEV = 3, NREC = 2 };

static void ok(int rc, const char *what) {
  if (rc != ESMIO_NOERR) {
    fprintf(stderr, "%s: %s: %s\n", what, esmio_strerror(rc), esmio_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/* The values, indexed as the Fortran program's (1-based lon i, lat j, lev k, record r). */
static double t_value(int i, int j, int k, int r) {
  return 1000.0 * r + 100.0 * k + 10.0 * j + i + 0.125;
}
static double ps_value(int i, int j, int r) { return 1.0e5 + 10.0 * r + 0.25 * j + i; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 3) {
    fprintf(stderr, "usage: fortran_c_writer OUT.nc SETTINGS\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const int lat0 = NLAT * rank / nranks, nlat = NLAT * (rank + 1) / nranks - lat0;
  const int64_t dims3[3] = {NLEV, NLAT, NLON}, start3[3] = {0, lat0, 0},
                count3[3] = {NLEV, nlat, NLON};
  const int64_t dims2[2] = {NLAT, NLON}, start2[2] = {lat0, 0}, count2[2] = {nlat, NLON};
  esmio_decomp_t band3, band2;
  ok(esmio_decomp_create_block(io, 3, dims3, start3, count3, NULL, &band3), "band3");
  ok(esmio_decomp_create_block(io, 2, dims2, start2, count2, NULL, &band2), "band2");

  esmio_file_t f;
  ok(esmio_create(io, argv[1], argv[2], &f), "create");
  int dtime, dlev, dlat, dlon, vtime, vlat, vlon, vt, vps, vmask, vcount;
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dtime), "time");
  ok(esmio_def_dim(f, "lev", NLEV, &dlev), "lev");
  ok(esmio_def_dim(f, "lat", NLAT, &dlat), "lat");
  ok(esmio_def_dim(f, "lon", NLON, &dlon), "lon");
  const int t4[4] = {dtime, dlev, dlat, dlon}, t3[3] = {dtime, dlat, dlon}, f2[2] = {dlat, dlon};
  ok(esmio_def_var(f, "time", ESMIO_DOUBLE, 1, &dtime, &vtime), "def time");
  ok(esmio_def_var(f, "lat", ESMIO_DOUBLE, 1, &dlat, &vlat), "def lat");
  ok(esmio_def_var(f, "lon", ESMIO_FLOAT, 1, &dlon, &vlon), "def lon");
  ok(esmio_def_var(f, "T", ESMIO_FLOAT, 4, t4, &vt), "def T");
  ok(esmio_def_var(f, "PS", ESMIO_DOUBLE, 3, t3, &vps), "def PS");
  ok(esmio_def_var(f, "mask", ESMIO_INT, 2, f2, &vmask), "def mask");
  ok(esmio_def_var(f, "count", ESMIO_INT64, 2, f2, &vcount), "def count");
  const char title[] = "esmio Fortran binding test", units[] = "days since 2000-01-01";
  const int step = 42, mask_fill = -1;
  const float range[2] = {150.0f, 350.0f}, t_fill = -999.0f;
  const double scale = 1.0;
  const int64_t big[2] = {(int64_t)1 << 40, -1};
  ok(esmio_put_att(f, ESMIO_GLOBAL, "title", ESMIO_CHAR, sizeof title - 1, title), "title");
  ok(esmio_put_att(f, ESMIO_GLOBAL, "step", ESMIO_INT, 1, &step), "step");
  ok(esmio_put_att(f, vtime, "units", ESMIO_CHAR, sizeof units - 1, units), "time units");
  ok(esmio_put_att(f, vt, "units", ESMIO_CHAR, 1, "K"), "T units");
  ok(esmio_put_att(f, vt, "valid_range", ESMIO_FLOAT, 2, range), "valid_range");
  ok(esmio_put_att(f, vps, "scale", ESMIO_DOUBLE, 1, &scale), "scale");
  ok(esmio_put_att(f, vcount, "big", ESMIO_INT64, 2, big), "big");
  ok(esmio_def_var_fill(f, vt, &t_fill), "T fill");
  ok(esmio_def_var_fill(f, vmask, &mask_fill), "mask fill");
  ok(esmio_enddef(f), "enddef");

  double lat[NLAT];
  float lon[NLON];
  for (int j = 0; j < NLAT; ++j) lat[j] = -75.0 + 30.0 * j;
  for (int i = 0; i < NLON; ++i) lon[i] = 45.0f * (float)i;
  ok(esmio_put_var(f, vlat, ESMIO_DOUBLE, lat, NLAT), "lat");
  ok(esmio_put_var(f, vlon, ESMIO_FLOAT, lon, NLON), "lon");
  const int64_t n3 = (int64_t)NLEV * nlat * NLON, n2 = (int64_t)nlat * NLON;
  double *t = malloc(sizeof(double) * (size_t)n3);
  float *ps = malloc(sizeof(float) * (size_t)n2);
  int *mask = malloc(sizeof(int) * (size_t)n2);
  int64_t *count = malloc(sizeof(int64_t) * (size_t)n2);
  for (int r = 1; r <= NREC; ++r) {
    const int64_t start = r - 1, one = 1;
    const double time = 0.5 * r;
    ok(esmio_put_vara(f, vtime, &start, &one, ESMIO_DOUBLE, &time), "time");
    int64_t at = 0;
    for (int k = 0; k < NLEV; ++k)
      for (int j = 0; j < nlat; ++j)
        for (int i = 0; i < NLON; ++i) t[at++] = t_value(i + 1, lat0 + j + 1, k + 1, r);
    ok(esmio_write_darray(f, vt, r - 1, band3, ESMIO_DOUBLE, t, n3), "write T");
    at = 0;
    for (int j = 0; j < nlat; ++j)
      for (int i = 0; i < NLON; ++i) ps[at++] = (float)ps_value(i + 1, lat0 + j + 1, r);
    ok(esmio_write_darray(f, vps, r - 1, band2, ESMIO_FLOAT, ps, n2), "write PS");
  }
  int64_t at = 0;
  for (int j = 0; j < nlat; ++j)
    for (int i = 0; i < NLON; ++i, ++at) {
      mask[at] = 100 * (i + 1) + lat0 + j + 1;
      count[at] = (int64_t)mask[at] << 33;
    }
  ok(esmio_write_darray(f, vmask, 0, band2, ESMIO_INT, mask, n2), "write mask");
  ok(esmio_write_darray(f, vcount, 0, band2, ESMIO_INT64, count, n2), "write count");
  ok(esmio_close(&f), "close");
  free(t);
  free(ps);
  free(mask);
  free(count);
  ok(esmio_decomp_free(&band3), "free");
  ok(esmio_decomp_free(&band2), "free");
  ok(esmio_finalize(&io), "finalize");
  if (rank == 0) printf("fortran_c_writer on %d ranks: wrote %s\n", nranks, argv[1]);
  MPI_Finalize();
  return 0;
}
