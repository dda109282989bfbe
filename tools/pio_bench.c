/* A PIO model's history write, timed: the esmio-bench pio-layer variant's calls as a standalone
 * C program that uses only PIO's public C API (pio.h), so that the same source builds against
 * NCAR's ParallelIO (-lpioc) and against esmio's PIO layer (-lesmio_pio -lesmio) and the two
 * are measured doing the same thing. tools/pio_compare.sh builds it both ways and runs it
 * beside esmio-bench's native esmio variant (docs/pio.md, "Speed").
 *
 *   mpirun -np N pio_bench CASE [--scale X] [--records R] [--repeat K] [--iotasks N]
 *                               [--dir DIR] [--data DIR] [--keep] [--label L]
 *                               [--buffer-limit BYTES]
 *
 * CASE is cam-fvd or e3sm-f, laid out as esmio-bench lays them out (tools/esmio_bench/cases.cpp):
 * the same dimensions, variables, maps and values, so the files can be compared value by value.
 * --iotasks defaults to every rank; --data is the folder of e3sm/map_f_case_16p.nc (tests/data).
 * Before the first repeat: PIOc_Init_Intracomm (N I/O tasks, stride 1, base 0: esmio's
 * default placement; box rearranger) and one PIOc_InitDecomp per grid (float64 memory). Per repeat,
 * between two barriers: PIOc_createfile (PNETCDF, CDF-5), def_dim/def_var/enddef, PIOc_setframe +
 * PIOc_write_darray per variable record (values made just before each call, as esmio-bench
 * does), PIOc_closefile, then every rank fsyncs the file and rank 0 its directory. Memory as
 * esmio-bench measures it: freed heap returned (malloc_trim), the RSS taken as the baseline,
 * the peak reset (/proc/self/clear_refs) before the repeat and VmHWM read after it.
 *
 * --buffer-limit calls PIOc_set_buffer_size_limit first (PIO's I/O tasks' PnetCDF buffer,
 * 128 MiB by default; the layer accepts it and leaves the write cache to esmio's settings).
 * Rank 0 prints one line per repeat and a last line "result key=value ..." that
 * pio_compare.sh reads. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <mpi.h>
#include <netcdf.h>
#include <pio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MAX_GRIDS 2

typedef struct {
  int ndims;
  int dimids[3]; /* into the file's dimensions, after "time" (0) */
  int shape[3];
  PIO_Offset *map; /* 1-based, PIOc_InitDecomp's */
  int maplen;
  double *base; /* the per-slot part of the value, (map - 1) * 1e-6 */
  int ioid;
} Grid;

typedef struct {
  int ndims; /* without time */
  const char *dim_names[3];
  int dim_lens[3];
  int ngrids;
  Grid grids[MAX_GRIDS];
  int nvars;
  char (*var_names)[32];
  int *var_grid;
  int records;
} Case;

static int rank, nranks;

static void fail(const char *what, int rc) {
  char why[PIO_MAX_NAME + 1] = {0};
  PIOc_strerror(rc, why);
  fprintf(stderr, "pio_bench: rank %d: %s: %s (%d)\n", rank, what, why, rc);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check(int rc, const char *what) {
  if (rc != PIO_NOERR) fail(what, rc);
}

static int scaled(int n, double scale) {
  const long v = lround(n * scale);
  return v < 1 ? 1 : (int)v;
}

static void add_vars(Case *c, const char *fmt, int count, int grid) {
  for (int v = 0; v < count; ++v) {
    snprintf(c->var_names[c->nvars], sizeof c->var_names[0], fmt, v);
    c->var_grid[c->nvars++] = grid;
  }
}

/* CAM FV history record: latitude bands, memory [lat][lev][lon] (esmio-bench's cam_fvd). */
static void cam_fvd(Case *c, double scale) {
  static const char *names3d[34] = {
      "T",      "U",      "V",      "Q",        "OMEGA", "Z3",  "RELHUM", "CLOUD", "CLDICE",
      "CLDLIQ", "CONCLD", "DTCOND", "DTV",      "QRL",   "QRS", "VD01",   "DCQ",   "CMFDT",
      "CMFDQ",  "ZMDT",   "ZMDQ",   "UU",       "VV",    "VU",  "VT",     "VQ",    "OMEGAT",
      "ICIMR",  "ICWMR",  "FICE",   "EVAPPREC", "QT",    "SL",  "TTEND"};
  const int nlev = 26, nlat = scaled(361, scale), nlon = scaled(576, scale);
  const long lat0 = (long)nlat * rank / nranks, lat1 = (long)nlat * (rank + 1) / nranks;
  c->ndims = 3;
  c->dim_names[0] = "lev", c->dim_names[1] = "lat", c->dim_names[2] = "lon";
  c->dim_lens[0] = nlev, c->dim_lens[1] = nlat, c->dim_lens[2] = nlon;
  c->ngrids = 2;
  Grid *g3 = &c->grids[0], *g2 = &c->grids[1];
  g3->ndims = 3, g3->dimids[0] = 1, g3->dimids[1] = 2, g3->dimids[2] = 3;
  g3->shape[0] = nlev, g3->shape[1] = nlat, g3->shape[2] = nlon;
  g3->maplen = (int)((lat1 - lat0) * nlev * nlon);
  g3->map = malloc(sizeof(PIO_Offset) * (size_t)(g3->maplen ? g3->maplen : 1));
  PIO_Offset *m = g3->map;
  for (long y = lat0; y < lat1; ++y)
    for (long z = 0; z < nlev; ++z)
      for (long x = 0; x < nlon; ++x) *m++ = (z * nlat + y) * nlon + x + 1;
  g2->ndims = 2, g2->dimids[0] = 2, g2->dimids[1] = 3;
  g2->shape[0] = nlat, g2->shape[1] = nlon;
  g2->maplen = (int)((lat1 - lat0) * nlon);
  g2->map = malloc(sizeof(PIO_Offset) * (size_t)(g2->maplen ? g2->maplen : 1));
  m = g2->map;
  for (long y = lat0; y < lat1; ++y)
    for (long x = 0; x < nlon; ++x) *m++ = y * nlon + x + 1;
  c->var_names = malloc(95 * sizeof *c->var_names);
  c->var_grid = malloc(95 * sizeof *c->var_grid);
  for (int v = 0; v < 34; ++v) {
    snprintf(c->var_names[c->nvars], sizeof c->var_names[0], "%s", names3d[v]);
    c->var_grid[c->nvars++] = 0;
  }
  add_vars(c, "FLD2D_%02d", 61, 1);
  c->records = 1;
}

/* One decomposition of an E3SM-IO map file (map_f_case_16p.nc): its raw_offsets, 1-based, of
 * processes rank, rank + nranks, ... in order, as esmio_decomp_load reassigns them. */
static void e3sm_map(const char *path, const char *d, Grid *g) {
  int ncid, varid, rc;
  char name[64];
  if ((rc = nc_open(path, NC_NOWRITE, &ncid))) fail(path, rc);
  int nprocs_dim;
  size_t nprocs, total;
  check(nc_inq_dimid(ncid, "decomp_nprocs", &nprocs_dim), "decomp_nprocs");
  check(nc_inq_dimlen(ncid, nprocs_dim, &nprocs), "decomp_nprocs");
  if ((size_t)nranks > nprocs) {
    fprintf(stderr, "pio_bench: %s has %zu processes; run on at most that many ranks\n", path,
            nprocs);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int *count = malloc(nprocs * sizeof *count);
  snprintf(name, sizeof name, "%s.raw_nreqs", d);
  check(nc_inq_varid(ncid, name, &varid), name);
  check(nc_get_var_int(ncid, varid, count), name);
  snprintf(name, sizeof name, "%s.total_raw_nreqs", d);
  int total_dim;
  check(nc_inq_dimid(ncid, name, &total_dim), name);
  check(nc_inq_dimlen(ncid, total_dim, &total), name);
  int *all = malloc(total * sizeof *all);
  snprintf(name, sizeof name, "%s.raw_offsets", d);
  check(nc_inq_varid(ncid, name, &varid), name);
  check(nc_get_var_int(ncid, varid, all), name);
  nc_close(ncid);
  size_t mine = 0, first = 0;
  for (size_t p = 0; p < nprocs; ++p)
    if ((int)(p % (size_t)nranks) == rank) mine += (size_t)count[p];
  g->map = malloc(sizeof(PIO_Offset) * (mine ? mine : 1));
  g->maplen = 0;
  for (size_t p = 0; p < nprocs; ++p) {
    if ((int)(p % (size_t)nranks) == rank)
      for (int i = 0; i < count[p]; ++i) g->map[g->maplen++] = all[first + (size_t)i];
    first += (size_t)count[p];
  }
  free(all);
  free(count);
}

/* E3SM F case (f_case_h0): 321 (time, ncol) + 63 (time, lev, ncol) float fields (esmio-bench's
 * e3sm_f). */
static void e3sm_f(Case *c, const char *data_dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/e3sm/map_f_case_16p.nc", data_dir);
  c->ndims = 2;
  c->dim_names[0] = "lev", c->dim_names[1] = "ncol";
  c->dim_lens[0] = 72, c->dim_lens[1] = 866;
  c->ngrids = 2;
  Grid *g2 = &c->grids[0], *g3 = &c->grids[1];
  g2->ndims = 1, g2->dimids[0] = 2, g2->shape[0] = 866;
  g3->ndims = 2, g3->dimids[0] = 1, g3->dimids[1] = 2, g3->shape[0] = 72, g3->shape[1] = 866;
  e3sm_map(path, "D2", g2);
  e3sm_map(path, "D3", g3);
  c->var_names = malloc(384 * sizeof *c->var_names);
  c->var_grid = malloc(384 * sizeof *c->var_grid);
  add_vars(c, "F2D_%03d", 321, 0);
  add_vars(c, "F3D_%03d", 63, 1);
  c->records = 5;
}

/* The value of kB of a "Key: n kB" line of /proc/self/status, or -1. */
static double status_mib(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  double v = -1;
  const size_t n = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, key, n) == 0 && line[n] == ':') {
      v = atof(line + n + 1) / 1024.0;
      break;
    }
  if (f) fclose(f);
  return v;
}

/* CPU seconds (user + system, every thread) this process has used: on a machine that other jobs
 * load, the time a rank waits for a core shows in the wall-clock time and not here. */
static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
         (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static void reset_peak(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f) {
    fputs("5", f);
    fclose(f);
  }
}

static void fsync_path(const char *path) {
  const int fd = open(path, O_RDONLY);
  if (fd < 0 || fsync(fd) != 0) {
    fprintf(stderr, "pio_bench: fsync %s: %s\n", path, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  close(fd);
}

static void write_file(Case *c, int iosysid, const char *path, double *memory) {
  int ncid, iotype = PIO_IOTYPE_PNETCDF, dimids[4], varid;
  check(PIOc_createfile(iosysid, &ncid, &iotype, path, PIO_CLOBBER | PIO_64BIT_DATA),
        "PIOc_createfile");
  check(PIOc_def_dim(ncid, "time", PIO_UNLIMITED, &dimids[0]), "PIOc_def_dim");
  for (int d = 0; d < c->ndims; ++d)
    check(PIOc_def_dim(ncid, c->dim_names[d], c->dim_lens[d], &dimids[d + 1]), "PIOc_def_dim");
  int *varids = malloc((size_t)c->nvars * sizeof *varids);
  for (int v = 0; v < c->nvars; ++v) {
    const Grid *g = &c->grids[c->var_grid[v]];
    int vd[4] = {dimids[0]};
    for (int d = 0; d < g->ndims; ++d) vd[d + 1] = dimids[g->dimids[d]];
    check(PIOc_def_var(ncid, c->var_names[v], PIO_FLOAT, g->ndims + 1, vd, &varids[v]),
          "PIOc_def_var");
  }
  check(PIOc_enddef(ncid), "PIOc_enddef");
  for (int t = 0; t < c->records; ++t)
    for (int v = 0; v < c->nvars; ++v) {
      const Grid *g = &c->grids[c->var_grid[v]];
      const double k = (double)(1000 * v + t); /* esmio-bench's value_of(v, t, g) */
      for (int i = 0; i < g->maplen; ++i) memory[i] = k + g->base[i];
      varid = varids[v];
      check(PIOc_setframe(ncid, varid, t), "PIOc_setframe");
      check(PIOc_write_darray(ncid, varid, g->ioid, g->maplen, memory, NULL), "PIOc_write_darray");
    }
  check(PIOc_closefile(ncid), "PIOc_closefile");
  free(varids);
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char *case_name = argc > 1 ? argv[1] : "", *dir = ".", *label = "pio";
  const char *data_dir = "tests/data";
  double scale = 1;
  long long buffer_limit = 0; /* PIOc_set_buffer_size_limit's; 0: the library's default */
  int records = 0, repeat = 5, iotasks = nranks, keep = 0, bad_option = 0;
  for (int i = 2; i < argc && !bad_option; ++i) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--keep")) {
      keep = 1;
      continue;
    }
    if (!next) {
      bad_option = 1;
      break;
    }
    if (!strcmp(a, "--scale"))
      scale = atof(next);
    else if (!strcmp(a, "--records"))
      records = atoi(next);
    else if (!strcmp(a, "--repeat"))
      repeat = atoi(next);
    else if (!strcmp(a, "--iotasks"))
      iotasks = atoi(next);
    else if (!strcmp(a, "--dir"))
      dir = next;
    else if (!strcmp(a, "--data"))
      data_dir = next;
    else if (!strcmp(a, "--buffer-limit"))
      buffer_limit = atoll(next);
    else if (!strcmp(a, "--label"))
      label = next;
    else
      bad_option = 1; /* a misspelt option must not pass for a measurement of the default */
    ++i;
  }
  Case c = {0};
  if (!bad_option && !strcmp(case_name, "cam-fvd"))
    cam_fvd(&c, scale);
  else if (!bad_option && !strcmp(case_name, "e3sm-f"))
    e3sm_f(&c, data_dir);
  else {
    if (rank == 0)
      fprintf(stderr,
              "usage: mpirun -np N pio_bench cam-fvd|e3sm-f [--scale X] [--records R] "
              "[--repeat K] [--iotasks N] [--dir DIR] [--data DIR] [--keep] [--label L] "
              "[--buffer-limit B]\n");
    MPI_Finalize();
    return 2;
  }
  if (records > 0) c.records = records;
  if (iotasks < 1 || iotasks > nranks) iotasks = nranks;
  if (repeat < 1) repeat = 1;

  if (buffer_limit > 0) PIOc_set_buffer_size_limit((PIO_Offset)buffer_limit);
  int iosysid, maxlen = 1, old_method;
  PIOc_set_iosystem_error_handling(PIO_DEFAULT, PIO_RETURN_ERROR, &old_method);
  check(PIOc_Init_Intracomm(MPI_COMM_WORLD, iotasks, 1, 0, PIO_REARR_BOX, &iosysid),
        "PIOc_Init_Intracomm");
  for (int k = 0; k < c.ngrids; ++k) {
    Grid *g = &c.grids[k];
    check(PIOc_InitDecomp(iosysid, PIO_DOUBLE, g->ndims, g->shape, g->maplen, g->map, &g->ioid,
                          NULL, NULL, NULL),
          "PIOc_InitDecomp");
    g->base = malloc(sizeof(double) * (size_t)(g->maplen ? g->maplen : 1));
    for (int i = 0; i < g->maplen; ++i) g->base[i] = (double)(g->map[i] - 1) * 1.0e-6;
    if (g->maplen > maxlen) maxlen = g->maplen;
  }
  double *memory = calloc((size_t)maxlen, sizeof *memory);
  char path[4096];
  snprintf(path, sizeof path, "%s/pio_bench-%s-%s.nc", dir, case_name, label);

  double *seconds = malloc((size_t)repeat * sizeof *seconds);
  double *cpu = malloc((size_t)repeat * sizeof *cpu); /* all ranks together */
  double my_peak = 0, my_baseline = -1;
  for (int r = 0; r < repeat; ++r) {
    malloc_trim(0);
    const double baseline = status_mib("VmRSS");
    if (my_baseline < 0) my_baseline = baseline;
    reset_peak();
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime(), c0 = cpu_seconds();
    write_file(&c, iosysid, path, memory);
    const double t1 = MPI_Wtime();
    fsync_path(path);
    if (rank == 0) fsync_path(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    seconds[r] = MPI_Wtime() - t0;
    const double my_cpu = cpu_seconds() - c0;
    MPI_Reduce(&my_cpu, &cpu[r], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    const double peak = status_mib("VmHWM");
    if (peak > my_peak) my_peak = peak;
    /* Where the time went, on rank 0: up to the end of PIOc_closefile, and the rest (fsync). */
    if (rank == 0)
      printf("%s %s np=%d repeat %d: %.4f s (close %.4f s, fsync %.4f s), cpu %.4f s\n", label,
             case_name, nranks, r + 1, seconds[r], t1 - t0, seconds[r] - (t1 - t0), cpu[r]);
    if (rank == 0 && !(keep && r == repeat - 1)) unlink(path);
  }
  double *peaks = malloc((size_t)nranks * sizeof *peaks);
  double *baselines = malloc((size_t)nranks * sizeof *baselines);
  MPI_Gather(&my_peak, 1, MPI_DOUBLE, peaks, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(&my_baseline, 1, MPI_DOUBLE, baselines, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    qsort(seconds, (size_t)repeat, sizeof *seconds, by_value);
    qsort(cpu, (size_t)repeat, sizeof *cpu, by_value);
    const double median =
        repeat % 2 ? seconds[repeat / 2] : (seconds[repeat / 2 - 1] + seconds[repeat / 2]) / 2;
    printf("result label=%s case=%s np=%d iotasks=%d repeat=%d median=%.4f min=%.4f max=%.4f",
           label, case_name, nranks, iotasks, repeat, median, seconds[0], seconds[repeat - 1]);
    printf(" cpu=%.4f", repeat % 2 ? cpu[repeat / 2] : (cpu[repeat / 2 - 1] + cpu[repeat / 2]) / 2);
    printf(" peak_mib=");
    for (int i = 0; i < nranks; ++i) printf("%s%.1f", i ? "," : "", peaks[i]);
    printf(" baseline_mib=");
    for (int i = 0; i < nranks; ++i) printf("%s%.1f", i ? "," : "", baselines[i]);
    printf("\n");
  }
  for (int k = 0; k < c.ngrids; ++k) check(PIOc_freedecomp(iosysid, c.grids[k].ioid), "freedecomp");
  check(PIOc_finalize(iosysid), "PIOc_finalize");
  MPI_Finalize();
  return 0;
}
