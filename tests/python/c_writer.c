/* The C twin of same_as_c.py: the same definitions, decompositions, values and calls, so that
 * the two files must be byte-identical (tests/python/CMakeLists.txt, python.same_as_c_*).
 * Usage: c_writer OUT.nc "FILE SETTINGS" */
#include <esmio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREC 2
#define NLEV 5
#define NLAT 37
#define NLON 48

static void ok(int rc, const char *what) {
  if (rc != ESMIO_NOERR) {
    fprintf(stderr, "%s: %s: %s\n", what, esmio_strerror(rc), esmio_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3) {
    fprintf(stderr, "usage: c_writer OUT.nc SETTINGS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "num_iotasks=2", &io), "init");
  esmio_file_t f;
  ok(esmio_create(io, argv[1], argv[2], &f), "create");
  int time, lev, lat, lon, nchar;
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &time), "dim");
  ok(esmio_def_dim(f, "lev", NLEV, &lev), "dim");
  ok(esmio_def_dim(f, "lat", NLAT, &lat), "dim");
  ok(esmio_def_dim(f, "lon", NLON, &lon), "dim");
  ok(esmio_def_dim(f, "nchar", 8, &nchar), "dim");
  int vlat, vt, vps, vmask, vcount, vname;
  ok(esmio_def_var(f, "lat", ESMIO_DOUBLE, 1, &lat, &vlat), "var lat");
  ok(esmio_put_att(f, vlat, "units", ESMIO_CHAR, 13, "degrees_north"), "att");
  const int dt[4] = {time, lev, lat, lon};
  ok(esmio_def_var(f, "T", ESMIO_FLOAT, 4, dt, &vt), "var T");
  const float fill = 1.0e20f;
  ok(esmio_def_var_fill(f, vt, &fill), "fill");
  ok(esmio_put_att(f, vt, "units", ESMIO_CHAR, 1, "K"), "att");
  const float range[2] = {0.0f, 1.0e5f};
  ok(esmio_put_att(f, vt, "valid_range", ESMIO_FLOAT, 2, range), "att");
  const int dps[3] = {time, lat, lon};
  ok(esmio_def_var(f, "PS", ESMIO_DOUBLE, 3, dps, &vps), "var PS");
  const int dmask[2] = {lat, lon};
  ok(esmio_def_var(f, "MASK", ESMIO_INT, 2, dmask, &vmask), "var MASK");
  ok(esmio_def_var(f, "count", ESMIO_INT, 1, &time, &vcount), "var count");
  ok(esmio_def_var(f, "name", ESMIO_CHAR, 1, &nchar, &vname), "var name");
  ok(esmio_put_att(f, ESMIO_GLOBAL, "title", ESMIO_CHAR, 19, "esmio bit-for-bit t"), "att");
  const int version[3] = {1, 2, 3};
  ok(esmio_put_att(f, ESMIO_GLOBAL, "version", ESMIO_INT, 3, version), "att");
  const double scale = 0.5;
  ok(esmio_put_att(f, ESMIO_GLOBAL, "scale", ESMIO_DOUBLE, 1, &scale), "att");
  ok(esmio_enddef(f), "enddef");

  double lats[NLAT];
  for (int y = 0; y < NLAT; ++y) lats[y] = -90.0 + 5.0 * y;
  ok(esmio_put_var(f, vlat, ESMIO_DOUBLE, lats, NLAT), "put lat");
  ok(esmio_put_var(f, vname, ESMIO_CHAR, "esmio-py", 8), "put name");

  /* T: latitude bands held as [lat][lev][lon] */
  const int64_t lat0 = (int64_t)NLAT * rank / size, lat1 = (int64_t)NLAT * (rank + 1) / size;
  const int64_t shape3[3] = {NLEV, NLAT, NLON}, start3[3] = {0, lat0, 0},
                count3[3] = {NLEV, lat1 - lat0, NLON};
  const int order[3] = {1, 0, 2};
  esmio_decomp_t bands;
  ok(esmio_decomp_create_block(io, 3, shape3, start3, count3, order, &bands), "bands");
  /* PS: round-robin longitude columns, [column][lat]; (lat 0, lon 0) a hole */
  const int64_t shape2[2] = {NLAT, NLON};
  int64_t n2 = 0, *offsets = malloc(sizeof(int64_t) * NLAT * NLON);
  for (int64_t x = rank; x < NLON; x += size)
    for (int64_t y = 0; y < NLAT; ++y) offsets[n2++] = (x == 0 && y == 0) ? -1 : y * NLON + x;
  esmio_decomp_t columns;
  ok(esmio_decomp_create(io, 2, shape2, n2, offsets, &columns), "columns");
  /* MASK: latitude bands in file order */
  const int64_t start2[2] = {lat0, 0}, count2[2] = {lat1 - lat0, NLON};
  esmio_decomp_t rows;
  ok(esmio_decomp_create_block(io, 2, shape2, start2, count2, NULL, &rows), "rows");

  const int64_t n3 = NLEV * (lat1 - lat0) * NLON;
  double *t = malloc(sizeof(double) * n3);
  float *ps = malloc(sizeof(float) * n2);
  for (int r = 0; r < NREC; ++r) {
    int64_t i = 0;
    for (int64_t y = lat0; y < lat1; ++y)
      for (int64_t k = 0; k < NLEV; ++k)
        for (int64_t x = 0; x < NLON; ++x)
          t[i++] = (double)r + (double)((k * NLAT + y) * NLON + x) * 1.0e-3;
    ok(esmio_write_darray(f, vt, r, bands, ESMIO_DOUBLE, t, n3), "write T");
    for (int64_t j = 0; j < n2; ++j)
      ps[j] = (float)((2000.0 + r) + (double)(offsets[j] < 0 ? 0 : offsets[j]) * 0.01);
    ok(esmio_write_darray(f, vps, r, columns, ESMIO_FLOAT, ps, n2), "write PS");
    const int64_t rs[1] = {r}, one[1] = {1};
    const int c = 10 * r;
    ok(esmio_put_vara(f, vcount, rs, one, ESMIO_INT, &c), "put count");
  }
  const int64_t nm = (lat1 - lat0) * NLON;
  int *mask = malloc(sizeof(int) * (nm ? nm : 1));
  for (int64_t j = 0; j < nm; ++j) mask[j] = (int)(((lat0 + j / NLON) * 7 + j % NLON) % 5);
  ok(esmio_write_darray(f, vmask, 0, rows, ESMIO_INT, mask, nm), "write MASK");
  ok(esmio_close(&f), "close");
  ok(esmio_decomp_free(&bands), "free");
  ok(esmio_decomp_free(&columns), "free");
  ok(esmio_decomp_free(&rows), "free");
  ok(esmio_finalize(&io), "finalize");
  free(t);
  free(ps);
  free(mask);
  free(offsets);
  MPI_Finalize();
  return 0;
}
