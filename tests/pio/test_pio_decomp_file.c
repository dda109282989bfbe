/*
 * PIO's netCDF decomposition files on esmio: a decomposition with uneven maps and holes is
 * written with PIOc_write_nc_decomp and read back with PIOc_read_nc_decomp, for each of the
 * classic, PnetCDF and netCDF-4 create modes. The map read back equals the one written, task by
 * task (a field whose values are its 1-based offsets, written through the first decomposition,
 * reads through the second as that task's map, 0 at its holes); title, history and array order
 * come back; task 0 reads the file through netCDF and checks PIO's layout (dimensions dims, task
 * and map_element, int variables global_size, maplen and map, each task's row its 0-based map
 * padded with NC_FILL_INT, and the global attributes). Tasks that give different file names
 * write task 0's, as PIO does. The refusals: a title longer than PIO_MAX_NAME, an unknown ioid,
 * and reading on a communicator of another size (PIO_EINVAL). Runs on any number of tasks;
 * exit status 0 when all holds.
 */
#include <netcdf.h>
#include <pio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NY 5
#define NX 4
#define NPOINTS (NY * NX)

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

/* Task t's map, 0-based with -1 for a hole: the points g with g % ntasks == t, round robin; odd
 * tasks have a hole in second place, and the last task leaves its last point to nobody, so that
 * the maps differ in length. */
static int map_of(int t, PIO_Offset *map) {
  int n = 0;
  for (int g = t; g < NPOINTS; g += ntasks) {
    if (n == 1 && t % 2 == 1) map[n++] = -1;
    map[n++] = g;
  }
  if (t == ntasks - 1 && n > 1) --n;
  return n;
}

/* Task 0: the file through netCDF, against PIO's layout. */
static void check_layout(const char *path, const char *title, int max_maplen) {
  int ncid, dimid, varid, ndims = 0, nvars = 0, value;
  size_t len;
  char text[NC_MAX_NAME + 1];
  if (nc_open(path, NC_NOWRITE, &ncid) != NC_NOERR) {
    CHECK(0, "netCDF cannot open %s", path);
    return;
  }
  CHECK(nc_inq(ncid, &ndims, &nvars, NULL, NULL) == NC_NOERR && ndims == 3 && nvars == 3,
        "%s: %d dimensions, %d variables", path, ndims, nvars);
  const char *dim_names[3] = {"dims", "task", "map_element"};
  const size_t dim_lens[3] = {2, (size_t)ntasks, (size_t)max_maplen};
  for (int d = 0; d < 3; ++d)
    CHECK(nc_inq_dimid(ncid, dim_names[d], &dimid) == NC_NOERR &&
              nc_inq_dimlen(ncid, dimid, &len) == NC_NOERR && len == dim_lens[d],
          "%s: dimension %s", path, dim_names[d]);
  const char *var_names[3] = {"global_size", "maplen", "map"};
  const int var_ndims[3] = {1, 1, 2};
  for (int v = 0; v < 3; ++v) {
    nc_type type = NC_NAT;
    int n = 0;
    CHECK(nc_inq_varid(ncid, var_names[v], &varid) == NC_NOERR &&
              nc_inq_var(ncid, varid, NULL, &type, &n, NULL, NULL) == NC_NOERR && type == NC_INT &&
              n == var_ndims[v],
          "%s: variable %s", path, var_names[v]);
  }
  int gsize[2] = {0, 0};
  nc_inq_varid(ncid, "global_size", &varid);
  CHECK(nc_get_var_int(ncid, varid, gsize) == NC_NOERR && gsize[0] == NY && gsize[1] == NX,
        "%s: global_size %d %d", path, gsize[0], gsize[1]);
  int *maplens = malloc(sizeof(int) * ntasks);
  int *rows = malloc(sizeof(int) * ntasks * max_maplen);
  PIO_Offset expected[NPOINTS + 1];
  nc_inq_varid(ncid, "maplen", &varid);
  CHECK(nc_get_var_int(ncid, varid, maplens) == NC_NOERR, "%s: maplen", path);
  nc_inq_varid(ncid, "map", &varid);
  CHECK(nc_get_var_int(ncid, varid, rows) == NC_NOERR, "%s: map", path);
  for (int t = 0; t < ntasks; ++t) {
    const int n = map_of(t, expected);
    CHECK(maplens[t] == n, "%s: task %d's maplen %d, not %d", path, t, maplens[t], n);
    for (int e = 0; e < max_maplen; ++e) {
      const int want = e < n ? (int)expected[e] : NC_FILL_INT;
      CHECK(rows[t * max_maplen + e] == want, "%s: map[%d][%d] is %d, not %d", path, t, e,
            rows[t * max_maplen + e], want);
    }
  }
  free(maplens);
  free(rows);
  CHECK(nc_get_att_int(ncid, NC_GLOBAL, "max_maplen", &value) == NC_NOERR && value == max_maplen,
        "%s: max_maplen", path);
  const char *names[5] = {"title", "source", "array_order", "PIO_library_version", "history"};
  const char *values[5] = {title, "Decomposition file produced by PIO library.", "Fortran", "2.7.0",
                           "written by test_pio_decomp_file"};
  for (int a = 0; a < 5; ++a) {
    memset(text, 0, sizeof text);
    /* Written as PIO writes them, with the terminating NUL. */
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, names[a], &len) == NC_NOERR &&
              len == strlen(values[a]) + 1 &&
              nc_get_att_text(ncid, NC_GLOBAL, names[a], text) == NC_NOERR &&
              strcmp(text, values[a]) == 0,
          "%s: attribute %s is '%s'", path, names[a], text);
  }
  nc_close(ncid);
}

static void one_mode(int iosysid, int cmode, const char *path) {
  PIO_Offset map[NPOINTS + 1];
  const int maplen = map_of(rank, map);
  const int gdims[2] = {NY, NX};
  int ioid, ioid2, max_maplen = 0;
  for (int t = 0; t < ntasks; ++t) {
    PIO_Offset other[NPOINTS + 1];
    const int n = map_of(t, other);
    if (n > max_maplen) max_maplen = n;
  }
  CALL(PIOc_init_decomp(iosysid, PIO_INT, 2, gdims, maplen, map, &ioid, PIO_REARR_BOX, NULL, NULL));
  char title[] = "a decomposition of the test grid";
  char history[] = "written by test_pio_decomp_file";
  CALL(PIOc_write_nc_decomp(iosysid, path, cmode, ioid, title, history, 1));
  if (rank == 0) check_layout(path, title, max_maplen);
  MPI_Barrier(MPI_COMM_WORLD);

  char title_in[PIO_MAX_NAME + 1] = "", history_in[PIO_MAX_NAME + 1] = "";
  int fortran_order = -1;
  CALL(PIOc_read_nc_decomp(iosysid, path, &ioid2, MPI_COMM_WORLD, PIO_INT, title_in, history_in,
                           &fortran_order));
  CHECK(strcmp(title_in, title) == 0 && strcmp(history_in, history) == 0,
        "title '%s', history '%s'", title_in, history_in);
  CHECK(fortran_order == 1, "array order %d", fortran_order);
  CHECK(PIOc_get_local_array_size(ioid2) == maplen, "local size %d, not %d",
        PIOc_get_local_array_size(ioid2), maplen);

  /* Each point's value is its 1-based offset: written through ioid, read through ioid2, a task
   * gets its own map back (0 at holes). */
  char field_path[64];
  snprintf(field_path, sizeof field_path, "%s.field.nc", path);
  int ncid, dims[2], varid, iotype = PIO_IOTYPE_PNETCDF;
  int values[NPOINTS + 1], back[NPOINTS + 1];
  for (int i = 0; i < maplen; ++i) values[i] = map[i] < 0 ? 0 : (int)map[i] + 1;
  CALL(PIOc_createfile(iosysid, &ncid, &iotype, field_path, PIO_CLOBBER));
  CALL(PIOc_def_dim(ncid, "y", NY, &dims[0]));
  CALL(PIOc_def_dim(ncid, "x", NX, &dims[1]));
  CALL(PIOc_def_var(ncid, "offset", PIO_INT, 2, dims, &varid));
  CALL(PIOc_enddef(ncid));
  CALL(PIOc_write_darray(ncid, varid, ioid, maplen, values, NULL));
  CALL(PIOc_closefile(ncid));
  CALL(PIOc_openfile(iosysid, &ncid, &iotype, field_path, PIO_NOWRITE));
  for (int i = 0; i < maplen; ++i) back[i] = -7;
  CALL(PIOc_read_darray(ncid, varid, ioid2, maplen, back));
  CALL(PIOc_closefile(ncid));
  for (int i = 0; i < maplen; ++i)
    CHECK(back[i] == values[i], "%s: element %d of the map read back is %d, not %d", path, i,
          back[i] - 1, values[i] - 1);

  /* A file read without the optional texts, in C order. */
  CALL(PIOc_write_nc_decomp(iosysid, path, cmode, ioid, NULL, NULL, 0));
  int ioid3;
  strcpy(title_in, "stale");
  CALL(PIOc_read_nc_decomp(iosysid, path, &ioid3, MPI_COMM_WORLD, PIO_DOUBLE, title_in, NULL,
                           &fortran_order));
  CHECK(title_in[0] == '\0' && fortran_order == 0, "no title ('%s'), C order (%d)", title_in,
        fortran_order);
  CALL(PIOc_freedecomp(iosysid, ioid3));

  /* Each task naming a file of its own (as PIO's test_darray_async_simple does): task 0's name
   * is the file, as in PIO. */
  char own_path[64];
  snprintf(own_path, sizeof own_path, "%s.task%d.nc", path, rank);
  CALL(PIOc_write_nc_decomp(iosysid, own_path, cmode, ioid, NULL, NULL, 0));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(access(own_path, F_OK) == (rank == 0 ? 0 : -1), "%s %s", own_path,
        rank == 0 ? "is missing" : "exists");

  char long_title[PIO_MAX_NAME + 2];
  memset(long_title, 'x', sizeof long_title - 1);
  long_title[sizeof long_title - 1] = '\0';
  CHECK(PIOc_write_nc_decomp(iosysid, path, cmode, ioid, long_title, NULL, 0) == PIO_EINVAL,
        "a title longer than PIO_MAX_NAME");
  CHECK(PIOc_write_nc_decomp(iosysid, path, cmode, ioid + 1000, NULL, NULL, 0) == PIO_EBADID,
        "an unknown ioid");
  if (ntasks > 1)
    CHECK(PIOc_read_nc_decomp(iosysid, path, &ioid3, MPI_COMM_SELF, PIO_INT, NULL, NULL, NULL) ==
              PIO_EINVAL,
          "a file for %d tasks read on a communicator of 1", ntasks);
  CALL(PIOc_freedecomp(iosysid, ioid2));
  CALL(PIOc_freedecomp(iosysid, ioid));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ntasks);
  int iosysid;
  CALL(PIOc_Init_Intracomm(MPI_COMM_WORLD, ntasks, 1, 0, PIO_REARR_BOX, &iosysid));
  CALL(PIOc_set_iosystem_error_handling(iosysid, PIO_RETURN_ERROR, NULL));
  one_mode(iosysid, 0, "pio_decomp_classic.nc");
  one_mode(iosysid, NC_PNETCDF | NC_64BIT_DATA, "pio_decomp_pnetcdf.nc");
  one_mode(iosysid, NC_NETCDF4 | NC_MPIIO, "pio_decomp_netcdf4.nc");
  CALL(PIOc_finalize(iosysid));
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failures\n", total ? "FAIL" : "PASS", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
