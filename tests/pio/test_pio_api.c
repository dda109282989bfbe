/*
 * PIO's C interface on esmio: the calls and return codes that PIO 2.7's own programs rely on,
 * beyond the data path of test_pio_darray. Single values and strided regions (PIOc_put_var1 /
 * get_var1, put_vars / get_vars), whole local arrays at a record (PIOc_put_vard / get_vard), an
 * attribute's number, the unlimited dimensions, the I/O task ranks, quantisation, the fill mode
 * PIOc_set_fill keeps per file (and that it changes nothing in the data); and the codes
 * PIO returns (PIO_ENOTNC4 for quantisation or compression outside netCDF-4 files):
 * a variable id that names no variable is NC_ENOTVAR (a dimension id, NC_EBADDIM), an unknown
 * iotype PIO_EINVAL, variables of different ranks in one write_darray_multi
 * PIO_EVARDIMMISMATCH, a vard of another C type PIO_EBADTYPE. Then, on 2 tasks or more, an
 * asynchronous I/O system (PIOc_init_async): task 0 serves, the others write through it (and
 * through a decomposition read back from a netCDF decomposition file). Every
 * value is read back through PIO and, on task 0, through netCDF. Runs on any number of tasks;
 * exit status 0 when all holds.
 */
#include <pio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 2 /* records */
#define NY 5
#define NX 4

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

static int grid_value(int y, int x) { return 10 * y + x; }
static double field_value(int rec, int g) { return 100.0 * rec + g + 0.25; }

/* This task's points of the (NY, NX) field, round robin, 0-based. */
static int map_of(PIO_Offset *map) {
  int n = 0;
  for (int g = rank; g < NY * NX; g += ntasks) map[n++] = g;
  return n;
}

/* The fill mode PIOc_set_fill reports, as PIO keeps it: NOFILL after PIOc_createfile, the
 * library's default after PIOc_create and the opens (PnetCDF NOFILL, netCDF FILL); NC_EPERM on a
 * file opened read-only. Either mode gives the same data: a variable never written reads as its
 * fill value after a file written in NOFILL mode, as after one in FILL mode. */
static void fill_modes(int iosysid, int iotype, const char *path) {
  int ncid, dims[2], var, old = -1;
  const int cmode = iotype == PIO_IOTYPE_PNETCDF    ? NC_PNETCDF
                    : iotype == PIO_IOTYPE_NETCDF4P ? NC_NETCDF4 | NC_MPIIO
                                                    : 0;
  const int library_default = iotype == PIO_IOTYPE_PNETCDF ? NC_NOFILL : NC_FILL;
  for (int mode = 0; mode < 2; ++mode) {
    const int fillmode = mode ? NC_FILL : NC_NOFILL;
    CALL(PIOc_create(iosysid, path, cmode | NC_CLOBBER, &ncid));
    CALL(PIOc_set_fill(ncid, fillmode, &old));
    CHECK(old == library_default, "iotype %d: PIOc_create's fill mode is %d", iotype, old);
    CALL(PIOc_set_fill(ncid, fillmode, &old));
    CHECK(old == fillmode, "iotype %d: set to %d, reported %d", iotype, fillmode, old);
    CALL(PIOc_def_dim(ncid, "y", NY, &dims[0]));
    CALL(PIOc_def_dim(ncid, "x", NX, &dims[1]));
    CALL(PIOc_def_var(ncid, "unwritten", PIO_INT, 2, dims, &var));
    CALL(PIOc_enddef(ncid));
    CALL(PIOc_closefile(ncid));
    CALL(PIOc_openfile(iosysid, &ncid, &iotype, path, PIO_WRITE));
    CALL(PIOc_set_fill(ncid, NC_FILL, &old));
    CHECK(old == library_default, "iotype %d: fill mode %d after open", iotype, old);
    CALL(PIOc_closefile(ncid));
    CALL(PIOc_openfile(iosysid, &ncid, &iotype, path, PIO_NOWRITE));
    CHECK(PIOc_set_fill(ncid, NC_FILL, &old) == NC_EPERM, "set_fill on a read-only file");
    int values[NY][NX];
    memset(values, 0, sizeof values);
    CALL(PIOc_get_var_int(ncid, var, &values[0][0]));
    for (int y = 0; y < NY; ++y)
      for (int x = 0; x < NX; ++x)
        CHECK(values[y][x] == NC_FILL_INT, "iotype %d, mode %d: never written, (%d, %d) reads %d",
              iotype, fillmode, y, x, values[y][x]);
    CALL(PIOc_closefile(ncid));
  }
}

/* grid(y, x) written with var1 on the even rows and with one strided call (every other row)
 * on the odd ones; read back whole, with vars over every second column, and with var1. */
static void strided_and_single(int ncid, int grid) {
  for (int x = 0; x < NX; ++x)
    for (int y = 0; y < NY; y += 2) {
      PIO_Offset index[2] = {y, x};
      int value = grid_value(y, x);
      CALL(PIOc_put_var1_int(ncid, grid, index, &value));
    }
  PIO_Offset start[2] = {1, 0}, count[2] = {NY / 2, NX}, stride[2] = {2, 1};
  int odd[NY / 2][NX];
  for (int i = 0; i < NY / 2; ++i)
    for (int x = 0; x < NX; ++x) odd[i][x] = grid_value(1 + 2 * i, x);
  CALL(PIOc_put_vars_int(ncid, grid, start, count, stride, &odd[0][0]));
  CALL(PIOc_sync(ncid));

  int whole[NY][NX];
  CALL(PIOc_get_var_int(ncid, grid, &whole[0][0]));
  for (int y = 0; y < NY; ++y)
    for (int x = 0; x < NX; ++x)
      CHECK(whole[y][x] == grid_value(y, x), "grid(%d,%d) = %d", y, x, whole[y][x]);
  PIO_Offset cstart[2] = {0, 1}, ccount[2] = {NY, NX / 2}, cstride[2] = {1, 2};
  double columns[NY][NX / 2];
  CALL(PIOc_get_vars_double(ncid, grid, cstart, ccount, cstride, &columns[0][0]));
  for (int y = 0; y < NY; ++y)
    for (int i = 0; i < NX / 2; ++i)
      CHECK(columns[y][i] == grid_value(y, 1 + 2 * i), "column %d of row %d = %g", 1 + 2 * i, y,
            columns[y][i]);
  PIO_Offset index[2] = {NY - 1, NX - 1};
  short one = 0;
  CALL(PIOc_get_var1_short(ncid, grid, index, &one));
  CHECK(one == grid_value(NY - 1, NX - 1), "get_var1_short = %d", one);
  PIO_Offset bad_stride[2] = {0, 1};
  CHECK(PIOc_get_vars_int(ncid, grid, start, count, bad_stride, &odd[0][0]) == PIO_ESTRIDE,
        "stride 0");
}

static void codes(int iosysid, int ncid, int grid, int field, int ioid) {
  int n = 0, ids[2] = {-1, -1};
  bool active = false;
  CALL(PIOc_inq_unlimdims(ncid, &n, ids));
  CHECK(n == 1 && ids[0] == 0, "inq_unlimdims: %d, %d", n, ids[0]);
  CALL(PIOc_inq_attid(ncid, grid, "units", &n));
  CHECK(n == 1, "units is attribute %d of grid, not 1", n);
  CHECK(PIOc_inq_attid(ncid, grid, "no_such_att", &n) == PIO_ENOTATT, "missing attribute");
  CHECK(PIOc_inq_varndims(ncid, 42, &n) == PIO_ENOTVAR, "inq_varndims of varid 42");
  CHECK(PIOc_inq_dimlen(ncid, 42, NULL) == PIO_EBADDIM, "inq_dimlen of dimid 42");
  CHECK(PIOc_get_att_int(ncid, 42, "units", &n) == PIO_ENOTVAR, "get_att of varid 42");
  double values[NY * NX] = {0};
  CHECK(PIOc_write_darray(ncid, 42, ioid, PIOc_get_local_array_size(ioid), values, NULL) ==
            PIO_ENOTVAR,
        "write_darray to varid 42");
  /* The map covers every point, and still a fill value other than the variable's is refused. */
  double other_fill = -1.0;
  CHECK(PIOc_write_darray(ncid, field, ioid, PIOc_get_local_array_size(ioid), values,
                          &other_fill) == PIO_EINVAL,
        "a fill value that is not the variable's");
  int varids[2] = {field, grid};
  CHECK(PIOc_write_darray_multi(ncid, varids, ioid, 2, PIOc_get_local_array_size(ioid), values,
                                NULL, NULL, false) == PIO_EVARDIMMISMATCH,
        "write_darray_multi of a record and a fixed-size variable");
  float as_float[NY * NX] = {0};
  CHECK(PIOc_put_vard_float(ncid, field, ioid, 0, as_float) == PIO_EBADTYPE,
        "put_vard_float to a double variable");
  CALL(PIOc_iosystem_is_active(iosysid, NULL));
  CALL(PIOc_iosystem_is_active(iosysid, &active));
  CHECK(active, "the I/O system is active");
  int bad_iotype = 99, other = 0;
  CHECK(PIOc_createfile(iosysid, &other, &bad_iotype, "pio_api_bad.nc", PIO_CLOBBER) == PIO_EINVAL,
        "unknown iotype");
}

/* Task 0 reads the file through netCDF: the grid and (with_field) both records of the field. */
static void check_with_netcdf(const char *path, int with_field) {
  if (rank != 0) return;
  int ncid, grid, field;
  CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR, "nc_open %s", path);
  nc_inq_varid(ncid, "grid", &grid);
  int whole[NY][NX];
  CHECK(nc_get_var_int(ncid, grid, &whole[0][0]) == NC_NOERR, "nc_get_var grid");
  for (int y = 0; y < NY; ++y)
    for (int x = 0; x < NX; ++x)
      CHECK(whole[y][x] == grid_value(y, x), "netCDF: grid(%d,%d) = %d", y, x, whole[y][x]);
  if (!with_field) {
    nc_close(ncid);
    return;
  }
  nc_inq_varid(ncid, "field", &field);
  double records[NT][NY * NX];
  CHECK(nc_get_var_double(ncid, field, &records[0][0]) == NC_NOERR, "nc_get_var field");
  for (int r = 0; r < NT; ++r)
    for (int g = 0; g < NY * NX; ++g)
      CHECK(records[r][g] == field_value(r, g), "netCDF: field(%d,%d) = %g", r, g, records[r][g]);
  nc_close(ncid);
}

static void one_iotype(int iotype, const char *path) {
  int iosysid, ioid, ncid, dims[3], grid, field, io_rank = -2;
  bool io_task = false;
  CALL(PIOc_Init_Intracomm(MPI_COMM_WORLD, ntasks, 1, 0, PIO_REARR_BOX, &iosysid));
  CALL(PIOc_set_iosystem_error_handling(iosysid, PIO_RETURN_ERROR, NULL));
  CALL(PIOc_iam_iotask(iosysid, &io_task));
  CALL(PIOc_iotask_rank(iosysid, &io_rank));
  CHECK(io_task && io_rank == rank, "every task is an I/O task, rank %d has I/O rank %d", rank,
        io_rank);
  PIO_Offset map[NY * NX];
  const int maplen = map_of(map);
  const int gdims[2] = {NY, NX};
  CALL(PIOc_init_decomp(iosysid, PIO_DOUBLE, 2, gdims, maplen, map, &ioid, PIO_REARR_BOX, NULL,
                        NULL));

  fill_modes(iosysid, iotype, path);
  CALL(PIOc_createfile(iosysid, &ncid, &iotype, path, PIO_CLOBBER));
  int old_fill = -1;
  CALL(PIOc_set_fill(ncid, NC_FILL, &old_fill));
  CHECK(old_fill == NC_NOFILL, "PIOc_createfile's fill mode is %d, not NC_NOFILL", old_fill);
  CALL(PIOc_def_dim(ncid, "time", PIO_UNLIMITED, &dims[0]));
  CALL(PIOc_def_dim(ncid, "y", NY, &dims[1]));
  CALL(PIOc_def_dim(ncid, "x", NX, &dims[2]));
  CALL(PIOc_def_var(ncid, "grid", PIO_INT, 2, &dims[1], &grid));
  CALL(PIOc_def_var(ncid, "field", PIO_DOUBLE, 3, dims, &field));
  CALL(PIOc_put_att_text(ncid, grid, "long_name", 4, "grid"));
  CALL(PIOc_put_att_text(ncid, grid, "units", 1, "1"));
  /* Quantisation: BitRound and Granular BitRound are esmio's; BitGroom and integer variables
   * are PIO_EINVAL, classic files PIO_ENOTNC4. The kept bits hold grid_value exactly. */
  int quantized;
  CALL(PIOc_def_var(ncid, "quantized", PIO_FLOAT, 2, &dims[1], &quantized));
  if (iotype == PIO_IOTYPE_NETCDF4P) {
    CALL(PIOc_def_var_quantize(ncid, quantized, PIO_QUANTIZE_BITROUND, 8));
    CHECK(PIOc_def_var_quantize(ncid, quantized, PIO_QUANTIZE_BITGROOM, 3) == PIO_EINVAL,
          "BitGroom");
    CHECK(PIOc_def_var_quantize(ncid, grid, PIO_QUANTIZE_BITROUND, 8) == PIO_EINVAL,
          "quantize an int variable");
  } else {
    CHECK(PIOc_def_var_quantize(ncid, quantized, PIO_QUANTIZE_BITROUND, 8) == PIO_ENOTNC4,
          "quantize in a classic file");
    CHECK(PIOc_def_var_deflate(ncid, quantized, 0, 1, 1) == PIO_ENOTNC4,
          "deflate in a classic file");
  }
  CALL(PIOc_enddef(ncid));
  int exact[NY][NX];
  for (int y = 0; y < NY; ++y)
    for (int x = 0; x < NX; ++x) exact[y][x] = grid_value(y, x);
  CALL(PIOc_put_var_int(ncid, quantized, &exact[0][0]));

  double values[NY * NX];
  for (int r = 0; r < NT; ++r) { /* the record is vard's argument: no frame is set */
    for (int i = 0; i < maplen; ++i) values[i] = field_value(r, (int)map[i]);
    CALL(PIOc_put_vard_double(ncid, field, ioid, r, values));
  }
  /* The same records again through write_darray_multi, which reads its fill values as PIO
   * does: one value per variable, one after the other (declared void **). */
  double records[NT * NY * NX], fills[NT];
  int same[NT], frames[NT];
  for (int r = 0; r < NT; ++r) {
    for (int i = 0; i < maplen; ++i) records[r * maplen + i] = field_value(r, (int)map[i]);
    fills[r] = PIO_FILL_DOUBLE;
    same[r] = field;
    frames[r] = r;
  }
  CALL(
      PIOc_write_darray_multi(ncid, same, ioid, NT, maplen, records, frames, (void **)fills, true));
  strided_and_single(ncid, grid);
  codes(iosysid, ncid, grid, field, ioid);
  CALL(PIOc_closefile(ncid));

  CALL(PIOc_openfile(iosysid, &ncid, &iotype, path, PIO_NOWRITE));
  int quantized_in[NY][NX];
  CALL(PIOc_get_var_int(ncid, quantized, &quantized_in[0][0]));
  CHECK(memcmp(quantized_in, exact, sizeof exact) == 0, "quantized values differ");
  for (int r = 0; r < NT; ++r) {
    CALL(PIOc_get_vard(ncid, field, ioid, r, values));
    for (int i = 0; i < maplen; ++i)
      CHECK(values[i] == field_value(r, (int)map[i]), "get_vard record %d, point %d: %g", r,
            (int)map[i], values[i]);
  }
  CALL(PIOc_closefile(ncid));
  CALL(PIOc_freedecomp(iosysid, ioid));
  CALL(PIOc_finalize(iosysid));
  check_with_netcdf(path, 1);
}

/* Task 0 is PIO's I/O process (esmio's server), the others the component: they write the field
 * through a decomposition of their own communicator and read it back, then write a second file
 * and free the I/O system with it open (esmio closes it, as it must to release its server);
 * task 0 returns from PIOc_init_async once they have, and reads both files through netCDF. */
static void async_system(void) {
  const char *path = "pio_api_async.nc", *left_open = "pio_api_async_open.nc";
  int ncomp = ntasks - 1, iosysid = -1, two[2] = {1, ntasks - 2};
  MPI_Comm io_comm = MPI_COMM_NULL, comp_comm = MPI_COMM_NULL;
  int handler = 0;
  CALL(PIOc_set_iosystem_error_handling(PIO_DEFAULT, PIO_RETURN_ERROR, &handler));
  CHECK(PIOc_init_async(MPI_COMM_WORLD, 1, NULL, 2, two, NULL, NULL, NULL, PIO_REARR_BOX,
                        &iosysid) == PIO_EINVAL,
        "two components");
  CALL(PIOc_set_iosystem_error_handling(PIO_DEFAULT, handler, NULL));
  CALL(PIOc_init_async(MPI_COMM_WORLD, 1, NULL, 1, &ncomp, NULL, &io_comm, &comp_comm,
                       PIO_REARR_BOX, &iosysid));
  if (rank == 0) {
    int io_size = 0;
    CHECK(io_comm != MPI_COMM_NULL && comp_comm == MPI_COMM_NULL, "task 0 is the I/O process");
    if (io_comm != MPI_COMM_NULL) MPI_Comm_size(io_comm, &io_size), MPI_Comm_free(&io_comm);
    CHECK(io_size == 1, "one I/O process, not %d", io_size);
    check_with_netcdf(path, 1);
    check_with_netcdf(left_open, 0);
    return;
  }
  CHECK(io_comm == MPI_COMM_NULL && comp_comm != MPI_COMM_NULL, "task %d is in the component",
        rank);
  int crank = 0;
  MPI_Comm_rank(comp_comm, &crank);
  CALL(PIOc_set_iosystem_error_handling(iosysid, PIO_RETURN_ERROR, NULL));
  PIO_Offset map[NY * NX];
  int maplen = 0;
  for (int g = crank; g < NY * NX; g += ncomp) map[maplen++] = g;
  const int gdims[2] = {NY, NX};
  int ioid, ncid, dims[3], grid, field, iotype = PIO_IOTYPE_PNETCDF;
  CALL(PIOc_init_decomp(iosysid, PIO_DOUBLE, 2, gdims, maplen, map, &ioid, PIO_REARR_BOX, NULL,
                        NULL));
  CALL(PIOc_createfile(iosysid, &ncid, &iotype, path, PIO_CLOBBER));
  CALL(PIOc_def_dim(ncid, "time", PIO_UNLIMITED, &dims[0]));
  CALL(PIOc_def_dim(ncid, "y", NY, &dims[1]));
  CALL(PIOc_def_dim(ncid, "x", NX, &dims[2]));
  CALL(PIOc_def_var(ncid, "grid", PIO_INT, 2, &dims[1], &grid));
  CALL(PIOc_def_var(ncid, "field", PIO_DOUBLE, 3, dims, &field));
  CALL(PIOc_enddef(ncid));
  int whole[NY][NX];
  for (int y = 0; y < NY; ++y)
    for (int x = 0; x < NX; ++x) whole[y][x] = grid_value(y, x);
  CALL(PIOc_put_var_int(ncid, grid, &whole[0][0]));
  double values[NY * NX];
  for (int r = 0; r < NT; ++r) {
    for (int i = 0; i < maplen; ++i) values[i] = field_value(r, (int)map[i]);
    CALL(PIOc_setframe(ncid, field, r));
    CALL(PIOc_write_darray(ncid, field, ioid, maplen, values, NULL));
  }
  CALL(PIOc_closefile(ncid));
  /* The decomposition through a netCDF decomposition file, written and read through the
   * server: the field reads back through it as through the original. */
  int ioid_file = -1;
  CALL(PIOc_write_nc_decomp(iosysid, "pio_api_async_decomp.nc", 0, ioid, NULL, NULL, 0));
  CALL(PIOc_read_nc_decomp(iosysid, "pio_api_async_decomp.nc", &ioid_file, comp_comm, PIO_DOUBLE,
                           NULL, NULL, NULL));
  CALL(PIOc_openfile(iosysid, &ncid, &iotype, path, PIO_NOWRITE));
  CALL(PIOc_get_vard_double(ncid, field, ioid, NT - 1, values));
  for (int i = 0; i < maplen; ++i)
    CHECK(values[i] == field_value(NT - 1, (int)map[i]), "async: point %d reads %g", (int)map[i],
          values[i]);
  for (int i = 0; i < maplen; ++i) values[i] = -1;
  CALL(PIOc_get_vard_double(ncid, field, ioid_file, NT - 1, values));
  for (int i = 0; i < maplen; ++i)
    CHECK(values[i] == field_value(NT - 1, (int)map[i]),
          "async, decomposition from its file: point %d reads %g", (int)map[i], values[i]);
  CALL(PIOc_closefile(ncid));
  CALL(PIOc_freedecomp(iosysid, ioid_file));
  CALL(PIOc_createfile(iosysid, &ncid, &iotype, left_open, PIO_CLOBBER));
  CALL(PIOc_def_dim(ncid, "y", NY, &dims[1]));
  CALL(PIOc_def_dim(ncid, "x", NX, &dims[2]));
  CALL(PIOc_def_var(ncid, "grid", PIO_INT, 2, &dims[1], &grid));
  CALL(PIOc_enddef(ncid));
  CALL(PIOc_put_var_int(ncid, grid, &whole[0][0]));
  CALL(PIOc_freedecomp(iosysid, ioid));
  CALL(PIOc_free_iosystem(iosysid));
  CHECK(!PIOc_File_is_Open(ncid), "the file is closed with its I/O system");
  MPI_Comm_free(&comp_comm);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ntasks);
  CHECK(PIOc_set_buffer_size_limit(0) == 134217728, "PIO 2.7's default buffer size limit");
  CALL(PIOc_set_blocksize(2048));
  one_iotype(PIO_IOTYPE_PNETCDF, "pio_api_pnetcdf.nc");
  one_iotype(PIO_IOTYPE_NETCDF4P, "pio_api_netcdf4p.nc");
  one_iotype(PIO_IOTYPE_NETCDF, "pio_api_netcdf.nc");
  if (ntasks > 1) async_system();
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failures\n", total ? "FAIL" : "PASS", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
