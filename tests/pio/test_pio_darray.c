/*
 * PIO's C interface on esmio, used the way a PIO model uses it: an I/O system, decompositions
 * from 1-based (PIOc_InitDecomp) and 0-based (PIOc_init_decomp) maps with holes, files of the
 * PNETCDF and NETCDF4P iotypes holding a 2-D and a 3-D record variable, a fixed-size variable
 * and coordinates, frames set and advanced, attributes of each kind. Every value is read back
 * through PIOc_read_darray / PIOc_get_vara_* and, on task 0, through netCDF itself; then the
 * error modes. Exit status 0 when all holds.
 * Usage: test_pio_darray            (the checks)
 *        test_pio_darray abort      (PIO_INTERNAL_ERROR: a failing call aborts, naming itself)
 */
#include <math.h>
#include <pio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREC 3
#define NZ 3
#define NY 4
#define NX 6
#define N2D (NY * NX)
#define N3D (NZ * NY * NX)
#define HOLE_POINT (N2D - 1) /* the point of the 2-D field that no task writes */

static int rank, ntasks, failures;

#define CHECK(cond, ...)                                     \
  do {                                                       \
    if (!(cond)) {                                           \
      fprintf(stderr, "rank %d, line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                          \
      fprintf(stderr, "\n");                                 \
      ++failures;                                            \
    }                                                        \
  } while (0)
#define CALL(expr)                                         \
  do {                                                     \
    int rc_ = (expr);                                      \
    CHECK(rc_ == PIO_NOERR, "%s returned %d", #expr, rc_); \
  } while (0)

static double ts_value(int rec, int g) { return 1000.0 * rec + g + 0.5; }
static float t_value(int rec, int g) { return 100.0f * rec + 0.25f * g; }
static int mask_value(int g) { return 7 * g - 30; }
static const double ts_fill = -999.0;

/* The 2-D map: this task's points g (g % ntasks == rank), slowest last in memory (descending),
 * the hole point as 0, and one more slot that is a hole. 1-based, as PIOc_InitDecomp wants. */
static int map_2d(PIO_Offset *map) {
  int n = 0;
  for (int g = N2D - 1; g >= 0; --g)
    if (g % ntasks == rank) map[n++] = g == HOLE_POINT ? 0 : g + 1;
  map[n++] = 0;
  return n;
}

/* The 3-D map: whole x rows, the row (z, y) on task (z * NY + y) % ntasks. 1-based. */
static int map_3d(PIO_Offset *map) {
  int n = 0;
  for (int row = 0; row < NZ * NY; ++row)
    if (row % ntasks == rank)
      for (int x = 0; x < NX; ++x) map[n++] = row * NX + x + 1;
  return n;
}

struct ids {
  int time, x, ts, t, mask, slab;
};
/* slab (z, y, x), without the record dimension, is written level by level through the 2-D
 * decomposition, the level being the frame (PIO's way for a decomposition of one dimension
 * fewer than the variable). */
static double slab_value(int z, int g) { return -100.0 * z - g; }

static void write_file(int iosysid, int iotype, int cmode, const char *path, int ioid_2d,
                       int ioid_3d, int ioid_mask) {
  PIO_Offset map2[N2D + 1], map3[N3D];
  const int n2 = map_2d(map2), n3 = map_3d(map3);
  int ncid, dim_time, dim_z, dim_y, dim_x;
  struct ids v;
  CALL(PIOc_createfile(iosysid, &ncid, &iotype, path, cmode));
  CALL(PIOc_def_dim(ncid, "time", PIO_UNLIMITED, &dim_time));
  CALL(PIOc_def_dim(ncid, "z", NZ, &dim_z));
  CALL(PIOc_def_dim(ncid, "y", NY, &dim_y));
  CALL(PIOc_def_dim(ncid, "x", NX, &dim_x));
  int d2[] = {dim_time, dim_y, dim_x}, d3[] = {dim_time, dim_z, dim_y, dim_x};
  int dmask[] = {dim_y, dim_x};
  CALL(PIOc_def_var(ncid, "time", PIO_DOUBLE, 1, &dim_time, &v.time));
  CALL(PIOc_def_var(ncid, "x", PIO_DOUBLE, 1, &dim_x, &v.x));
  CALL(PIOc_def_var(ncid, "ts", PIO_DOUBLE, 3, d2, &v.ts));
  CALL(PIOc_def_var(ncid, "t", PIO_FLOAT, 4, d3, &v.t));
  CALL(PIOc_def_var(ncid, "mask", PIO_INT, 2, dmask, &v.mask));
  int dslab[] = {dim_z, dim_y, dim_x};
  CALL(PIOc_def_var(ncid, "slab", PIO_DOUBLE, 3, dslab, &v.slab));
  CALL(PIOc_def_var_fill(ncid, v.ts, 0, &ts_fill));
  CALL(PIOc_put_att_text(ncid, v.ts, "units", 1, "K"));
  const int ivals[] = {1, 2};
  const float fval = 1.5f;
  const double dval = 2.25;
  CALL(PIOc_put_att_int(ncid, PIO_GLOBAL, "ival", PIO_INT, 2, ivals));
  CALL(PIOc_put_att_float(ncid, PIO_GLOBAL, "fval", PIO_DOUBLE, 1, &fval));
  CALL(PIOc_put_att_double(ncid, v.t, "scale", PIO_FLOAT, 1, &dval));
  CALL(PIOc_put_att(ncid, v.t, "offset", PIO_DOUBLE, 1, &dval));
  CALL(PIOc_enddef(ncid));

  double x[NX];
  for (int i = 0; i < NX; ++i) x[i] = 10.0 * i;
  CALL(PIOc_put_var_double(ncid, v.x, x));
  CALL(PIOc_setframe(ncid, v.t, 0));
  for (int rec = 0; rec < NREC; ++rec) {
    double ts[N2D + 1];
    float t[N3D];
    for (int i = 0; i < n2; ++i) ts[i] = map2[i] ? ts_value(rec, (int)map2[i] - 1) : -1.0;
    for (int i = 0; i < n3; ++i) t[i] = t_value(rec, (int)map3[i] - 1);
    CALL(PIOc_setframe(ncid, v.ts, rec));
    CALL(PIOc_write_darray(ncid, v.ts, ioid_2d, n2, ts, (void *)&ts_fill));
    if (rec > 0) CALL(PIOc_advanceframe(ncid, v.t));
    CALL(PIOc_write_darray(ncid, v.t, ioid_3d, n3, t, NULL));
    const PIO_Offset start = rec, count = 1;
    const double time = 0.5 * rec;
    CALL(PIOc_put_vara_double(ncid, v.time, &start, &count, &time));
  }
  int mask[N2D + 1];
  for (int i = 0; i < n2; ++i) mask[i] = map2[i] ? mask_value((int)map2[i] - 1) : 0;
  CALL(PIOc_write_darray(ncid, v.mask, ioid_mask, n2, mask, NULL));
  for (int z = 0; z < NZ; ++z) {
    double slab[N2D + 1];
    for (int i = 0; i < n2; ++i) slab[i] = map2[i] ? slab_value(z, (int)map2[i] - 1) : 0.0;
    CALL(PIOc_setframe(ncid, v.slab, z));
    CALL(PIOc_write_darray(ncid, v.slab, ioid_2d, n2, slab, NULL));
  }
  CALL(PIOc_closefile(ncid));
}

static void read_file(int iosysid, int iotype, const char *path, int ioid_2d, int ioid_3d,
                      int ioid_mask) {
  PIO_Offset map2[N2D + 1], map3[N3D];
  const int n2 = map_2d(map2), n3 = map_3d(map3);
  int ncid, ndims, nvars, natts, unlimdim, dim_time;
  PIO_Offset nrec;
  struct ids v;
  CALL(PIOc_openfile(iosysid, &ncid, &iotype, path, PIO_NOWRITE));
  CALL(PIOc_inq(ncid, &ndims, &nvars, &natts, &unlimdim));
  CHECK(ndims == 4 && nvars == 6 && natts == 2, "inq: %d dims, %d vars, %d atts", ndims, nvars,
        natts);
  CALL(PIOc_inq_dimid(ncid, "time", &dim_time));
  CHECK(unlimdim == dim_time, "unlimited dimension %d, time %d", unlimdim, dim_time);
  CALL(PIOc_inq_dimlen(ncid, dim_time, &nrec));
  CHECK(nrec == NREC, "%lld records", (long long)nrec);
  CALL(PIOc_inq_varid(ncid, "time", &v.time));
  CALL(PIOc_inq_varid(ncid, "ts", &v.ts));
  CALL(PIOc_inq_varid(ncid, "t", &v.t));
  CALL(PIOc_inq_varid(ncid, "mask", &v.mask));
  CALL(PIOc_inq_varid(ncid, "slab", &v.slab));
  char name[PIO_MAX_NAME + 1];
  nc_type type;
  int vndims;
  CALL(PIOc_inq_var(ncid, v.t, name, &type, &vndims, NULL, NULL));
  CHECK(strcmp(name, "t") == 0 && type == PIO_FLOAT && vndims == 4, "inq_var t: %s %d %d", name,
        type, vndims);

  for (int rec = 0; rec < NREC; ++rec) {
    double ts[N2D + 1];
    float t[N3D];
    for (int i = 0; i < n2; ++i) ts[i] = 12345.0; /* holes must come back as 0 */
    CALL(PIOc_setframe(ncid, v.ts, rec));
    CALL(PIOc_read_darray(ncid, v.ts, ioid_2d, n2, ts));
    for (int i = 0; i < n2; ++i) {
      const double want = map2[i] ? ts_value(rec, (int)map2[i] - 1) : 0.0;
      CHECK(ts[i] == want, "ts record %d slot %d: %g, expected %g", rec, i, ts[i], want);
    }
    CALL(PIOc_setframe(ncid, v.t, rec));
    CALL(PIOc_read_darray(ncid, v.t, ioid_3d, n3, t));
    for (int i = 0; i < n3; ++i)
      CHECK(t[i] == t_value(rec, (int)map3[i] - 1), "t record %d slot %d: %g", rec, i, t[i]);
  }
  int mask[N2D + 1];
  CALL(PIOc_read_darray(ncid, v.mask, ioid_mask, n2, mask));
  for (int i = 0; i < n2; ++i) {
    const int want = map2[i] ? mask_value((int)map2[i] - 1) : 0;
    CHECK(mask[i] == want, "mask slot %d: %d, expected %d", i, mask[i], want);
  }
  for (int z = NZ - 1; z >= 0; --z) {
    double slab[N2D + 1];
    CALL(PIOc_setframe(ncid, v.slab, z));
    CALL(PIOc_read_darray(ncid, v.slab, ioid_2d, n2, slab));
    for (int i = 0; i < n2; ++i) {
      const double want = map2[i] ? slab_value(z, (int)map2[i] - 1) : 0.0;
      CHECK(slab[i] == want, "slab level %d slot %d: %g, expected %g", z, i, slab[i], want);
    }
  }
  /* The point no task writes holds the fill value. */
  const PIO_Offset start[] = {NREC - 1, HOLE_POINT / NX, HOLE_POINT % NX}, count[] = {1, 1, 1};
  double hole = 0;
  CALL(PIOc_get_vara_double(ncid, v.ts, start, count, &hole));
  CHECK(hole == ts_fill, "unwritten point: %g, expected the fill value %g", hole, ts_fill);
  int no_fill = 1;
  double fill = 0;
  float tfill = 0;
  CALL(PIOc_inq_var_fill(ncid, v.ts, &no_fill, &fill));
  CHECK(no_fill == 0 && fill == ts_fill, "inq_var_fill ts: %d %g", no_fill, fill);
  CALL(PIOc_inq_var_fill(ncid, v.t, NULL, &tfill));
  CHECK(tfill == PIO_FILL_FLOAT, "inq_var_fill t: %g (netCDF's default)", tfill);
  double times[NREC];
  const PIO_Offset tstart = 0, tcount = NREC;
  CALL(PIOc_get_vara_double(ncid, v.time, &tstart, &tcount, times));
  for (int r = 0; r < NREC; ++r) CHECK(times[r] == 0.5 * r, "time %d: %g", r, times[r]);

  int ivals[2] = {0, 0};
  double fval = 0, scale = 0;
  char units[2] = {0, 0};
  PIO_Offset len = 0;
  CALL(PIOc_get_att_int(ncid, PIO_GLOBAL, "ival", ivals));
  CALL(PIOc_get_att_double(ncid, PIO_GLOBAL, "fval", &fval));
  CALL(PIOc_get_att_double(ncid, v.t, "scale", &scale));
  CALL(PIOc_inq_attlen(ncid, v.ts, "units", &len));
  CALL(PIOc_get_att_text(ncid, v.ts, "units", units));
  CHECK(ivals[0] == 1 && ivals[1] == 2 && fval == 1.5 && scale == 2.25, "attributes");
  CHECK(len == 1 && units[0] == 'K', "units attribute");
  CALL(PIOc_inq_atttype(ncid, v.t, "scale", &type));
  CHECK(type == PIO_FLOAT, "scale attribute type %d", type);
  CALL(PIOc_closefile(ncid));
}

/* Task 0 reads the whole file with netCDF, apart from esmio. */
static void check_with_netcdf(const char *path) {
  if (rank != 0) return;
  int ncid, vid;
  int rc = nc_open(path, NC_NOWRITE, &ncid);
  CHECK(rc == NC_NOERR, "nc_open %s: %s", path, nc_strerror(rc));
  if (rc != NC_NOERR) return;
  static double ts[NREC * N2D];
  static float t[NREC * N3D];
  static int mask[N2D];
  double x[NX];
  CALL(nc_inq_varid(ncid, "ts", &vid));
  CALL(nc_get_var_double(ncid, vid, ts));
  for (int r = 0; r < NREC; ++r)
    for (int g = 0; g < N2D; ++g) {
      const double want = g == HOLE_POINT ? ts_fill : ts_value(r, g);
      CHECK(ts[r * N2D + g] == want, "netCDF ts[%d][%d] = %g, expected %g", r, g, ts[r * N2D + g],
            want);
    }
  CALL(nc_inq_varid(ncid, "t", &vid));
  CALL(nc_get_var_float(ncid, vid, t));
  for (int r = 0; r < NREC; ++r)
    for (int g = 0; g < N3D; ++g)
      CHECK(t[r * N3D + g] == t_value(r, g), "netCDF t[%d][%d] = %g", r, g, t[r * N3D + g]);
  CALL(nc_inq_varid(ncid, "mask", &vid));
  CALL(nc_get_var_int(ncid, vid, mask));
  for (int g = 0; g < N2D; ++g) {
    const int want = g == HOLE_POINT ? NC_FILL_INT : mask_value(g);
    CHECK(mask[g] == want, "netCDF mask[%d] = %d, expected %d", g, mask[g], want);
  }
  static double slab[NZ * N2D];
  CALL(nc_inq_varid(ncid, "slab", &vid));
  CALL(nc_get_var_double(ncid, vid, slab));
  for (int z = 0; z < NZ; ++z)
    for (int g = 0; g < N2D; ++g) {
      const double want = g == HOLE_POINT ? NC_FILL_DOUBLE : slab_value(z, g);
      CHECK(slab[z * N2D + g] == want, "netCDF slab[%d][%d] = %g, expected %g", z, g,
            slab[z * N2D + g], want);
    }
  CALL(nc_inq_varid(ncid, "x", &vid));
  CALL(nc_get_var_double(ncid, vid, x));
  for (int i = 0; i < NX; ++i) CHECK(x[i] == 10.0 * i, "netCDF x[%d] = %g", i, x[i]);
  CALL(nc_close(ncid));
}

static int expected_format(int iotype, int cmode) {
  if (iotype == PIO_IOTYPE_NETCDF4P) return NC_FORMAT_NETCDF4;
  if (cmode & PIO_64BIT_DATA) return NC_FORMAT_CDF5;
  return (cmode & PIO_64BIT_OFFSET) ? NC_FORMAT_64BIT_OFFSET : NC_FORMAT_CLASSIC;
}

static void one_iotype(int iotype, int cmode, int num_iotasks, int stride, int base, int rearr,
                       const char *path) {
  int iosysid, ioid_2d, ioid_3d, ioid_mask, numio = 0;
  CALL(PIOc_Init_Intracomm(MPI_COMM_WORLD, num_iotasks, stride, base, rearr, &iosysid));
  CALL(PIOc_set_iosystem_error_handling(iosysid, PIO_RETURN_ERROR, NULL));
  CALL(PIOc_get_numiotasks(iosysid, &numio));
  CHECK(numio == num_iotasks, "%d I/O tasks, expected %d", numio, num_iotasks);
  bool ioproc = false;
  CALL(PIOc_iam_iotask(iosysid, &ioproc));
  const bool want_io =
      rank >= base && (rank - base) % stride == 0 && (rank - base) / stride < num_iotasks;
  CHECK(ioproc == want_io, "iam_iotask %d, expected %d", ioproc, want_io);

  PIO_Offset map2[N2D + 1], map3[N3D], map0[N2D + 1];
  const int n2 = map_2d(map2), n3 = map_3d(map3);
  const int gdim2[] = {NY, NX}, gdim3[] = {NZ, NY, NX};
  const int box = PIO_REARR_BOX;
  CALL(PIOc_InitDecomp(iosysid, PIO_DOUBLE, 2, gdim2, n2, map2, &ioid_2d, &box, NULL, NULL));
  CALL(PIOc_InitDecomp(iosysid, PIO_FLOAT, 3, gdim3, n3, map3, &ioid_3d, NULL, NULL, NULL));
  for (int i = 0; i < n2; ++i) map0[i] = map2[i] - 1; /* 0-based, -1 for holes */
  CALL(PIOc_init_decomp(iosysid, PIO_INT, 2, gdim2, n2, map0, &ioid_mask, 0, NULL, NULL));
  CHECK(PIOc_get_local_array_size(ioid_2d) == n2, "local array size");

  write_file(iosysid, iotype, cmode, path, ioid_2d, ioid_3d, ioid_mask);
  read_file(iosysid, iotype, path, ioid_2d, ioid_3d, ioid_mask);
  check_with_netcdf(path);
  if (rank == 0) {
    int ncid, format;
    if (nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR) {
      nc_inq_format(ncid, &format);
      CHECK(format == expected_format(iotype, cmode), "%s: format %d, expected %d", path, format,
            expected_format(iotype, cmode));
      nc_close(ncid);
    }
  }
  CALL(PIOc_freedecomp(iosysid, ioid_2d));
  CALL(PIOc_freedecomp(iosysid, ioid_3d));
  CALL(PIOc_freedecomp(iosysid, ioid_mask));
  CALL(PIOc_finalize(iosysid));
}

/* PIO_RETURN_ERROR and PIO_BCAST_ERROR: the netCDF (or PIO) code comes back, nothing aborts. */
static void error_modes(void) {
  int iosysid, ncid, dim, varid, ioid, old = 0;
  int iotype = PIO_IOTYPE_PNETCDF;
  CALL(PIOc_set_iosystem_error_handling(PIO_DEFAULT, PIO_RETURN_ERROR, &old));
  CHECK(old == PIO_INTERNAL_ERROR, "PIO's default handler is PIO_INTERNAL_ERROR, got %d", old);
  CHECK(
      PIOc_Init_Intracomm(MPI_COMM_WORLD, ntasks + 1, 1, 0, PIO_REARR_BOX, &iosysid) == PIO_EINVAL,
      "more I/O tasks than tasks");
  CHECK(PIOc_Init_Intracomm(MPI_COMM_WORLD, 1, 1, 0, 7, &iosysid) == PIO_EINVAL,
        "unknown rearranger");
  CHECK(PIOc_inq_ndims(424242, &dim) == PIO_EBADID, "bad ncid");
  CALL(PIOc_Init_Intracomm(MPI_COMM_WORLD, 1, 1, 0, PIO_REARR_SUBSET, &iosysid));
  /* New I/O systems take the default handler: PIO_RETURN_ERROR now. */
  CHECK(PIOc_set_iosystem_error_handling(iosysid, 12345, NULL) == PIO_EINVAL, "bad method");
  int bad_iotype = 99;
  CHECK(PIOc_createfile(iosysid, &ncid, &bad_iotype, "pio_errors.nc", PIO_CLOBBER) == PIO_EINVAL,
        "bad iotype");
  CALL(PIOc_createfile(iosysid, &ncid, &iotype, "pio_errors.nc", PIO_CLOBBER));
  CHECK(PIOc_Set_File_Error_Handling(ncid, PIO_BCAST_ERROR) == PIO_RETURN_ERROR,
        "Set_File_Error_Handling returns the previous method");
  CALL(PIOc_def_dim(ncid, "x", NX, &dim));
  CHECK(PIOc_def_var(ncid, "u", PIO_UINT, 1, &dim, &varid) == PIO_EBADTYPE, "unsigned type");
  CHECK(PIOc_def_dim(ncid, "x", NX, &dim) == PIO_ENAMEINUSE, "dimension defined twice");
  CALL(PIOc_def_var(ncid, "v", PIO_DOUBLE, 1, &dim, &varid));
  CHECK(PIOc_inq_varid(ncid, "no_such_var", &varid) == PIO_ENOTVAR, "missing variable");
  CHECK(PIOc_Set_IOSystem_Error_Handling(iosysid, PIO_RETURN_ERROR) == PIO_BCAST_ERROR,
        "Set_IOSystem_Error_Handling returns the previous method");
  CHECK(PIOc_get_att_int(ncid, varid, "no_such_att", &old) == PIO_ENOTATT, "missing attribute");
  const double v[NX] = {0};
  const PIO_Offset start = 2, count = NX;
  CHECK(PIOc_put_vara_double(ncid, varid, &start, &count, v) == PIO_EINDEFINE,
        "data in define mode");
  CALL(PIOc_enddef(ncid));
  CHECK(PIOc_put_vara_double(ncid, varid, &start, &count, v) == PIO_EEDGE,
        "start + count beyond the dimension");
  /* A decomposition that leaves a point unwritten, and a fill value that is not the variable's. */
  PIO_Offset map[1] = {rank == 0 ? 1 : 0};
  const int gdim = NX;
  CALL(PIOc_InitDecomp(iosysid, PIO_DOUBLE, 1, &gdim, 1, map, &ioid, NULL, NULL, NULL));
  double value = 1.0, other_fill = -1.0, default_fill = PIO_FILL_DOUBLE;
  CHECK(PIOc_write_darray(ncid, varid, ioid, 1, &value, &other_fill) == PIO_EINVAL,
        "a fill value that differs from the variable's");
  CALL(PIOc_write_darray(ncid, varid, ioid, 1, &value, &default_fill));
  CHECK(PIOc_write_darray(ncid, varid, 424242, 1, &value, NULL) == PIO_EBADID, "bad ioid");
  CHECK(PIOc_freedecomp(iosysid, 424242) == PIO_EBADID, "free a bad ioid");
  CALL(PIOc_closefile(ncid));
  CHECK(PIOc_closefile(ncid) == PIO_EBADID, "close twice");
  int nowrite_ncid;
  CALL(PIOc_openfile(iosysid, &nowrite_ncid, &iotype, "pio_errors.nc", PIO_NOWRITE));
  double back[NX];
  const PIO_Offset s0 = 0, cn = NX;
  CALL(PIOc_get_vara_double(nowrite_ncid, varid, &s0, &cn, back));
  CHECK(back[0] == 1.0 && back[1] == PIO_FILL_DOUBLE, "written value and fill: %g %g", back[0],
        back[1]);
  CHECK(PIOc_put_vara_double(nowrite_ncid, varid, &s0, &cn, v) == PIO_EPERM, "read-only file");
  CALL(PIOc_closefile(nowrite_ncid));
  CHECK(PIOc_create(iosysid, "pio_errors.nc", PIO_NOCLOBBER, &ncid) == PIO_EEXIST,
        "NC_NOCLOBBER on an existing file");
  CALL(PIOc_freedecomp(iosysid, ioid));
  CALL(PIOc_finalize(iosysid));
  CALL(PIOc_set_iosystem_error_handling(PIO_DEFAULT, PIO_INTERNAL_ERROR, NULL));
  /* Every netCDF code the layer returns has netCDF's own text. */
  const int codes[] = {NC_EBADID,     NC_EINVAL,       NC_ENOMEM,       NC_ENOTVAR,  NC_EBADDIM,
                       NC_ENOTATT,    NC_EINDEFINE,    NC_ENOTINDEFINE, NC_ERANGE,   NC_EBADTYPE,
                       NC_EEDGE,      NC_EINVALCOORDS, NC_ENOTNC,       NC_EPERM,    NC_EEXIST,
                       NC_ENAMEINUSE, NC_EIO,          NC_ETRUNC,       NC_EMAXDIMS, NC_EUNLIMPOS,
                       NC_ENOTBUILT};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i) {
    char text[PIO_MAX_NAME + 1];
    CALL(PIOc_strerror(codes[i], text));
    CHECK(strcmp(text, nc_strerror(codes[i])) == 0, "PIOc_strerror(%d): '%s', netCDF: '%s'",
          codes[i], text, nc_strerror(codes[i]));
  }
}

/* PIO_INTERNAL_ERROR (the default): the failing call prints its name and aborts the job. */
static void abort_mode(void) {
  int iosysid, ncid, varid, iotype = PIO_IOTYPE_PNETCDF;
  CALL(PIOc_Init_Intracomm(MPI_COMM_WORLD, 1, 1, 0, PIO_REARR_BOX, &iosysid));
  CALL(PIOc_createfile(iosysid, &ncid, &iotype, "pio_abort.nc", PIO_CLOBBER));
  PIOc_inq_varid(ncid, "no_such_var", &varid);
  fprintf(stderr, "rank %d: still running after a failed call under PIO_INTERNAL_ERROR\n", rank);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ntasks);
  if (argc > 1 && strcmp(argv[1], "abort") == 0) {
    abort_mode();
    MPI_Finalize();
    return 1;
  }
  const int io = ntasks > 1 ? 2 : 1;
  one_iotype(PIO_IOTYPE_PNETCDF, PIO_64BIT_OFFSET, io, ntasks > 1 ? ntasks / 2 : 1, 0,
             PIO_REARR_BOX, "pio_darray_pnetcdf.nc");
  one_iotype(PIO_IOTYPE_PNETCDF, PIO_64BIT_DATA, 1, 1, ntasks - 1, PIO_REARR_SUBSET,
             "pio_darray_cdf5.nc");
  one_iotype(PIO_IOTYPE_NETCDF4P, PIO_CLOBBER, io, 1, ntasks > 1 ? 1 : 0, PIO_REARR_SUBSET,
             "pio_darray_netcdf4p.nc");
  one_iotype(PIO_IOTYPE_NETCDF, PIO_CLOBBER, 1, 1, 0, PIO_REARR_BOX, "pio_darray_netcdf.nc");
  error_modes();
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failures\n", total ? "FAIL" : "PASS", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
