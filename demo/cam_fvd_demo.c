/* The esmio demo: a CAM FV 0.5-degree-like history file written from a latitude-band
 * decomposition held in CAM's memory order, from float64 memory into float32 CDF-5, then read
 * back in a different decomposition and checked value by value.
 *
 *   mpirun -np 4 esmio_demo [output.nc] [records] [LEVxLATxLON]
 *
 * The grid defaults to 26x361x576 (0.5 x 0.625 degrees); a coarser one (e.g. 26x91x144, 2 x 2.5
 * degrees) writes the same fields with the same formula in a fraction of the time, for tests.
 * Latitudes run from -90 to 90, longitudes from 0 in steps of 360/LON.
 *
 * The value of field v (0-based among the 95 fields, in definition order), record t, at global
 * C-order index g within the field's record is (float)((double)(1000*v + t) + (double)g * 1e-6).
 */
#include <esmio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

enum { N3D = 34, N2D = 61 };

static const char *names3d[N3D] = {
    "T",      "U",      "V",      "Q",        "OMEGA", "Z3",  "RELHUM", "CLOUD", "CLDICE",
    "CLDLIQ", "CONCLD", "DTCOND", "DTV",      "QRL",   "QRS", "VD01",   "DCQ",   "CMFDT",
    "CMFDQ",  "ZMDT",   "ZMDQ",   "UU",       "VV",    "VU",  "VT",     "VQ",    "OMEGAT",
    "ICIMR",  "ICWMR",  "FICE",   "EVAPPREC", "QT",    "SL",  "TTEND"};

static int check(int rc, const char *what) {
  if (rc != ESMIO_NOERR) {
    fprintf(stderr, "esmio_demo: %s failed: %s: %s\n", what, esmio_strerror(rc),
            esmio_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return rc;
}

static double value_of(int v, int t, long long g) {
  return (double)(1000 * v + t) + (double)g * 1.0e-6;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char *path = argc > 1 ? argv[1] : "demo/out/cam_fvd_h0.nc";
  const int nrec = argc > 2 ? atoi(argv[2]) : 3;
  int nlev = 26, nlat = 361, nlon = 576; /* the grid: the default, or the one named */
  if (argc > 3) {
    char tail;
    if (sscanf(argv[3], "%dx%dx%d%c", &nlev, &nlat, &nlon, &tail) != 3 || nlev < 2 || nlat < 2 ||
        nlon < 1) {
      if (rank == 0)
        fprintf(stderr, "esmio_demo: grid '%s' is not LEVxLATxLON (LEV, LAT >= 2; LON >= 1)\n",
                argv[3]);
      MPI_Finalize();
      return 2;
    }
  }

  esmio_t io;
  check(esmio_init(MPI_COMM_WORLD, "num_iotasks=2", &io), "esmio_init");

  /* Latitude bands, memory C [lat][lev][lon] (CAM's A(lon,lev,lat)); file (lev,lat,lon). */
  const int lat0 = rank * nlat / nranks, lat1 = (rank + 1) * nlat / nranks, my_nlat = lat1 - lat0;
  const int64_t dims3[3] = {nlev, nlat, nlon}, start3[3] = {0, lat0, 0},
                count3[3] = {nlev, my_nlat, nlon};
  const int64_t dims2[2] = {nlat, nlon}, start2[2] = {lat0, 0}, count2[2] = {my_nlat, nlon};
  const int cam_order[3] = {1, 0, 2};
  esmio_decomp_t d3, d2;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  check(esmio_decomp_create_block(io, 3, dims3, start3, count3, cam_order, &d3), "decomp 3-D");
  double t_decomp3 = MPI_Wtime() - t0;
  check(esmio_decomp_create_block(io, 2, dims2, start2, count2, NULL, &d2), "decomp 2-D");

  esmio_file_t f;
  check(esmio_create(io, path, "format=cdf5", &f), "esmio_create");
  char settings[1024]; /* the file's effective settings: backend and format resolved */
  check(esmio_inq_file_settings(f, settings, sizeof settings), "inq_file_settings");
  int dt, dl, dy, dx, vtime, vlev, vlat, vlon, var[N3D + N2D];
  check(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dt), "def_dim");
  check(esmio_def_dim(f, "lev", nlev, &dl), "def_dim");
  check(esmio_def_dim(f, "lat", nlat, &dy), "def_dim");
  check(esmio_def_dim(f, "lon", nlon, &dx), "def_dim");
  check(esmio_def_var(f, "time", ESMIO_DOUBLE, 1, &dt, &vtime), "def_var");
  check(esmio_def_var(f, "lev", ESMIO_DOUBLE, 1, &dl, &vlev), "def_var");
  check(esmio_def_var(f, "lat", ESMIO_DOUBLE, 1, &dy, &vlat), "def_var");
  check(esmio_def_var(f, "lon", ESMIO_DOUBLE, 1, &dx, &vlon), "def_var");
  const char *units[4][2] = {{"days since 2000-01-01 00:00:00", "time"},
                             {"hPa", "hybrid level"},
                             {"degrees_north", "latitude"},
                             {"degrees_east", "longitude"}};
  int coord[4] = {vtime, vlev, vlat, vlon};
  for (int i = 0; i < 4; ++i) {
    check(esmio_put_att(f, coord[i], "units", ESMIO_CHAR, strlen(units[i][0]), units[i][0]), "att");
    check(esmio_put_att(f, coord[i], "long_name", ESMIO_CHAR, strlen(units[i][1]), units[i][1]),
          "att");
  }
  const int d3ids[4] = {dt, dl, dy, dx}, d2ids[3] = {dt, dy, dx};
  for (int v = 0; v < N3D + N2D; ++v) {
    char name[32];
    if (v < N3D)
      snprintf(name, sizeof name, "%s", names3d[v]);
    else
      snprintf(name, sizeof name, "FLD2D_%02d", v - N3D);
    check(esmio_def_var(f, name, ESMIO_FLOAT, v < N3D ? 4 : 3, v < N3D ? d3ids : d2ids, &var[v]),
          "def_var");
    check(esmio_put_att(f, var[v], "units", ESMIO_CHAR, 1, "1"), "att");
    check(esmio_put_att(f, var[v], "cell_methods", ESMIO_CHAR, 10, "time: mean"), "att");
  }
  const double dlat = 180.0 / (nlat - 1), dlon = 360.0 / nlon;
  char title[128];
  snprintf(title, sizeof title, "esmio demo: CAM FV %g degree history record", dlat);
  check(esmio_put_att(f, ESMIO_GLOBAL, "title", ESMIO_CHAR, strlen(title), title), "att");
  check(esmio_put_att(f, ESMIO_GLOBAL, "Conventions", ESMIO_CHAR, 6, "CF-1.8"), "att");
  check(esmio_enddef(f), "enddef");

  double *lev = malloc(sizeof(double) * nlev), *lat = malloc(sizeof(double) * nlat),
         *lon = malloc(sizeof(double) * nlon);
  for (int i = 0; i < nlev; ++i) lev[i] = 3.6 + i * (992.6 - 3.6) / (nlev - 1);
  for (int i = 0; i < nlat; ++i) lat[i] = -90.0 + dlat * i;
  for (int i = 0; i < nlon; ++i) lon[i] = dlon * i;
  check(esmio_put_var(f, vlev, ESMIO_DOUBLE, lev, nlev), "put lev");
  check(esmio_put_var(f, vlat, ESMIO_DOUBLE, lat, nlat), "put lat");
  check(esmio_put_var(f, vlon, ESMIO_DOUBLE, lon, nlon), "put lon");

  const int64_t n3 = (int64_t)my_nlat * nlev * nlon, n2 = (int64_t)my_nlat * nlon;
  double *buf = malloc(sizeof(double) * (n3 > 0 ? n3 : 1));
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (int t = 0; t < nrec; ++t) {
    const int64_t ts = t, one = 1;
    const double day = 0.25 * t;
    check(esmio_put_vara(f, vtime, &ts, &one, ESMIO_DOUBLE, &day), "put time");
    for (int v = 0; v < N3D + N2D; ++v) {
      int64_t k = 0;
      if (v < N3D) {
        for (int y = lat0; y < lat1; ++y)
          for (int z = 0; z < nlev; ++z)
            for (int x = 0; x < nlon; ++x)
              buf[k++] = value_of(v, t, ((long long)z * nlat + y) * nlon + x);
        check(esmio_write_darray(f, var[v], t, d3, ESMIO_DOUBLE, buf, n3), "write_darray");
      } else {
        for (int y = lat0; y < lat1; ++y)
          for (int x = 0; x < nlon; ++x) buf[k++] = value_of(v, t, (long long)y * nlon + x);
        check(esmio_write_darray(f, var[v], t, d2, ESMIO_DOUBLE, buf, n2), "write_darray");
      }
    }
  }
  check(esmio_sync(f), "sync");
  check(esmio_close(&f), "close");
  MPI_Barrier(MPI_COMM_WORLD);
  const double t_write = MPI_Wtime() - t0;
  const double bytes = (double)nrec * (N3D * nlev + N2D) * nlat * nlon * 4.0;

  /* Read back in another decomposition: longitude blocks in file order. */
  const int lon0 = rank * nlon / nranks, lon1 = (rank + 1) * nlon / nranks, my_nlon = lon1 - lon0;
  const int64_t rstart3[3] = {0, 0, lon0}, rcount3[3] = {nlev, nlat, my_nlon};
  const int64_t rstart2[2] = {0, lon0}, rcount2[2] = {nlat, my_nlon};
  esmio_decomp_t r3, r2;
  check(esmio_decomp_create_block(io, 3, dims3, rstart3, rcount3, NULL, &r3), "decomp read 3-D");
  check(esmio_decomp_create_block(io, 2, dims2, rstart2, rcount2, NULL, &r2), "decomp read 2-D");
  check(esmio_open(io, path, ESMIO_NOWRITE, "", &f), "esmio_open");
  int64_t nrecords = 0;
  check(esmio_inq_nrecords(f, &nrecords), "inq_nrecords");
  const int64_t m3 = (int64_t)nlev * nlat * my_nlon;
  float *rbuf = malloc(sizeof(float) * (m3 > 0 ? m3 : 1));
  long long bad = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (int t = 0; t < nrec; ++t)
    for (int v = 0; v < N3D + N2D; ++v) {
      int vid;
      char name[32];
      if (v < N3D)
        snprintf(name, sizeof name, "%s", names3d[v]);
      else
        snprintf(name, sizeof name, "FLD2D_%02d", v - N3D);
      check(esmio_inq_varid(f, name, &vid), "inq_varid");
      const int is3 = v < N3D;
      check(esmio_read_darray(f, vid, t, is3 ? r3 : r2, ESMIO_FLOAT, rbuf,
                              is3 ? m3 : (int64_t)nlat * my_nlon),
            "read_darray");
      int64_t k = 0;
      for (int z = 0; z < (is3 ? nlev : 1); ++z)
        for (int y = 0; y < nlat; ++y)
          for (int x = lon0; x < lon1; ++x) {
            const long long g = ((long long)z * nlat + y) * nlon + x;
            if (rbuf[k++] != (float)value_of(v, t, g)) ++bad;
          }
    }
  MPI_Barrier(MPI_COMM_WORLD);
  const double t_read = MPI_Wtime() - t0;
  check(esmio_close(&f), "close");
  long long bad_total = 0;
  MPI_Reduce(&bad, &bad_total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  long rss = ru.ru_maxrss, *all_rss = malloc(sizeof(long) * nranks);
  MPI_Gather(&rss, 1, MPI_LONG, all_rss, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  double t_decomp_max;
  MPI_Reduce(&t_decomp3, &t_decomp_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("esmio demo: %d ranks, %lld records of 34 3-D + 61 2-D float fields (%.1f MiB)\n",
           nranks, (long long)nrecords, bytes / 1048576.0);
    printf("  3-D decomposition + plan (%.1f M points): %.4f s\n", (double)nlev * nlat * nlon / 1e6,
           t_decomp_max);
    printf("  write (f64 -> f32, incl. sync + close): %.2f s, %.1f MiB/s\n", t_write,
           bytes / 1048576.0 / t_write);
    printf("  read back in longitude blocks: %.2f s, %.1f MiB/s (may come from the page cache)\n",
           t_read, bytes / 1048576.0 / t_read);
    printf("  peak RSS per rank (MiB):");
    for (int r = 0; r < nranks; ++r) printf(" %.1f", all_rss[r] / 1024.0);
    printf("\n  settings: %s\n", settings);
    printf("  values checked: %s (%lld mismatches)\n", bad_total == 0 ? "all equal" : "MISMATCH",
           bad_total);
    printf("  file: %s\n", path);
  }
  free(lev);
  free(lat);
  free(lon);
  free(buf);
  free(rbuf);
  free(all_rss);
  esmio_decomp_free(&d3);
  esmio_decomp_free(&d2);
  esmio_decomp_free(&r3);
  esmio_decomp_free(&r2);
  check(esmio_finalize(&io), "finalize");
  MPI_Finalize();
  return bad_total == 0 ? 0 : 1;
}
