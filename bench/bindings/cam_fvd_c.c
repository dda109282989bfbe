/* The esmio-bench cam-fvd record set written through the C API, for the binding-overhead
 * comparison with the Fortran and Python paths: the same workload,
 * decompositions, values, call sequence, clock, options and JSON line as cam_fvd_python.py
 * (read its docstring for the workload); bench/bindings/compare.py runs the three.
 *
 *   mpirun -np 4 bindings_cam_fvd_c [--reps 5] [--dir .] [--backend pnetcdf|netcdf4]
 *          [--iotasks 0] [--scale 1.0] [--fsync] [--keep]
 *
 * Values: as the Python script, the global C-order offset of every memory slot times 1e-6 is
 * computed once (base); per field, buf[i] = base[i] + (1000*v + t) into one reused buffer,
 * timed separately (generate_s). Also per repetition, the slowest rank's sum of write_darray as
 * timed here (write_call_s) and of that minus the library's "write_darray" trace counter
 * (binding_s: here only the two clock reads; the Fortran and Python bindings' own cost there).
 */
#include <esmio.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *names3d[34] = {
    "T",      "U",      "V",      "Q",        "OMEGA", "Z3",  "RELHUM", "CLOUD", "CLDICE",
    "CLDLIQ", "CONCLD", "DTCOND", "DTV",      "QRL",   "QRS", "VD01",   "DCQ",   "CMFDT",
    "CMFDQ",  "ZMDT",   "ZMDQ",   "UU",       "VV",    "VU",  "VT",     "VQ",    "OMEGAT",
    "ICIMR",  "ICWMR",  "FICE",   "EVAPPREC", "QT",    "SL",  "TTEND"};
enum { n3d = 34, n2d = 61, nvars = n3d + n2d };

static void check(int code, const char *what) {
  if (code == ESMIO_NOERR) return;
  fprintf(stderr, "cam_fvd_c: %s: %s (%s)\n", what, esmio_strerror(code), esmio_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void usage(const char *why) {
  fprintf(stderr,
          "cam_fvd_c: %s\nusage: cam_fvd_c [--reps N] [--dir DIR] [--backend pnetcdf|netcdf4] "
          "[--iotasks N] [--scale X] [--fsync] [--keep]\n",
          why);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Like Python's round() for the scales used (half away from zero, as esmio-bench's llround). */
static int64_t scaled(int64_t n, double scale) {
  const int64_t m = llround((double)n * scale);
  return m < 1 ? 1 : m;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Python's statistics.median. */
static double median(const double *v, int n) {
  double *s = malloc(sizeof *s * (size_t)n);
  memcpy(s, v, sizeof *s * (size_t)n);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  const double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

static void print_list(const double *v, int n) {
  putchar('[');
  for (int i = 0; i < n; ++i) printf("%s%.6f", i ? ", " : "", v[i]);
  putchar(']');
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  int reps = 5, iotasks = 0, fsync_file = 0, keep = 0;
  const char *dir = ".", *backend = "pnetcdf";
  double scale = 1.0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *eq = strchr(a, '=');
    char key[32];
    const size_t klen = eq ? (size_t)(eq - a) : strlen(a);
    if (klen >= sizeof key) usage(a);
    memcpy(key, a, klen);
    key[klen] = '\0';
    if (!strcmp(key, "--fsync") && !eq) {
      fsync_file = 1;
      continue;
    }
    if (!strcmp(key, "--keep") && !eq) {
      keep = 1;
      continue;
    }
    const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (!val) usage(a);
    if (!strcmp(key, "--reps"))
      reps = atoi(val);
    else if (!strcmp(key, "--dir"))
      dir = val;
    else if (!strcmp(key, "--backend"))
      backend = val;
    else if (!strcmp(key, "--iotasks"))
      iotasks = atoi(val);
    else if (!strcmp(key, "--scale"))
      scale = atof(val);
    else
      usage(a);
  }
  if (reps < 1 || scale <= 0) usage("--reps must be >= 1 and --scale > 0");
  if (strcmp(backend, "pnetcdf") && strcmp(backend, "netcdf4")) usage("unknown --backend");

  const int64_t nlev = 26, nlat = scaled(361, scale), nlon = scaled(576, scale);
  const int64_t lat0 = nlat * rank / nranks, lat1 = nlat * (rank + 1) / nranks;
  char path[4096], settings[128], instance[64];
  snprintf(path, sizeof path, "%s/cam_fvd_c.nc", dir);
  snprintf(settings, sizeof settings, "backend=%s,format=%s", backend,
           strcmp(backend, "netcdf4") ? "cdf5" : "netcdf4");
  snprintf(instance, sizeof instance, "num_iotasks=%d", iotasks);

  esmio_t io = NULL;
  check(esmio_init(MPI_COMM_WORLD, instance, &io), "esmio_init");
  esmio_decomp_t d3 = NULL, d2 = NULL;
  {
    const int64_t dims[3] = {nlev, nlat, nlon}, start[3] = {0, lat0, 0},
                  count[3] = {nlev, lat1 - lat0, nlon};
    const int mem_order[3] = {1, 0, 2}; /* memory [lat][lev][lon], CAM's A(lon,lev,lat) */
    check(esmio_decomp_create_block(io, 3, dims, start, count, mem_order, &d3), "decomp 3-D");
  }
  {
    const int64_t dims[2] = {nlat, nlon}, start[2] = {lat0, 0}, count[2] = {lat1 - lat0, nlon};
    check(esmio_decomp_create_block(io, 2, dims, start, count, NULL, &d2), "decomp 2-D");
  }
  /* base[g][i] = global offset of memory slot i * 1e-6, as the Python script's d.offsets * 1e-6 */
  esmio_decomp_t decomps[2] = {d3, d2};
  int64_t nlocal[2];
  double *base[2];
  for (int g = 0; g < 2; ++g) {
    int nd;
    int64_t dims[ESMIO_MAX_DIMS];
    check(esmio_decomp_inq(decomps[g], &nd, dims, &nlocal[g]), "esmio_decomp_inq");
    int64_t *off = malloc(sizeof *off * (size_t)(nlocal[g] > 0 ? nlocal[g] : 1));
    base[g] = malloc(sizeof *base[g] * (size_t)(nlocal[g] > 0 ? nlocal[g] : 1));
    check(esmio_decomp_inq_offsets(decomps[g], off, nlocal[g]), "esmio_decomp_inq_offsets");
    for (int64_t i = 0; i < nlocal[g]; ++i) base[g][i] = (double)off[i] * 1.0e-6;
    free(off);
  }
  double *buf = malloc(sizeof *buf * (size_t)(nlocal[0] > 0 ? nlocal[0] : 1));

  double *seconds = malloc(sizeof(double) * (size_t)reps);
  double *generate = malloc(sizeof(double) * (size_t)reps);
  double *write_call = malloc(sizeof(double) * (size_t)reps);
  double *binding = malloc(sizeof(double) * (size_t)reps);
  for (int r = 0; r < reps; ++r) {
    esmio_counter lib0, lib1;
    check(esmio_trace_counter(io, "write_darray", &lib0), "esmio_trace_counter");
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    double gen = 0.0, wcall = 0.0;
    esmio_file_t f = NULL;
    check(esmio_create(io, path, settings, &f), "esmio_create");
    int dtime, dlev, dlat, dlon;
    check(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dtime), "def_dim time");
    check(esmio_def_dim(f, "lev", nlev, &dlev), "def_dim lev");
    check(esmio_def_dim(f, "lat", nlat, &dlat), "def_dim lat");
    check(esmio_def_dim(f, "lon", nlon, &dlon), "def_dim lon");
    int varids[nvars];
    for (int v = 0; v < nvars; ++v) {
      char name[32];
      const int dims3[4] = {dtime, dlev, dlat, dlon}, dims2[3] = {dtime, dlat, dlon};
      if (v < n3d)
        snprintf(name, sizeof name, "%s", names3d[v]);
      else
        snprintf(name, sizeof name, "FLD2D_%02d", v - n3d);
      check(
          esmio_def_var(f, name, ESMIO_FLOAT, v < n3d ? 4 : 3, v < n3d ? dims3 : dims2, &varids[v]),
          "def_var");
    }
    check(esmio_enddef(f), "enddef");
    for (int v = 0; v < nvars; ++v) {
      const int g = v < n3d ? 0 : 1;
      const double g0 = MPI_Wtime();
      const double c = (double)(1000 * v + 0); /* record t = 0 */
      const double *b = base[g];
      for (int64_t i = 0; i < nlocal[g]; ++i) buf[i] = b[i] + c;
      gen += MPI_Wtime() - g0;
      const double w0 = MPI_Wtime();
      const int code =
          esmio_write_darray(f, varids[v], 0, decomps[g], ESMIO_DOUBLE, buf, nlocal[g]);
      wcall += MPI_Wtime() - w0;
      check(code, "write_darray");
    }
    check(esmio_close(&f), "esmio_close");
    if (fsync_file && rank == 0) {
      const int fd = open(path, O_RDONLY);
      if (fd < 0 || fsync(fd) != 0) perror("cam_fvd_c: fsync");
      if (fd >= 0) close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    seconds[r] = MPI_Wtime() - t0;
    MPI_Allreduce(&gen, &generate[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* The binding's own cost: write_darray timed by the caller minus the library's counter. */
    check(esmio_trace_counter(io, "write_darray", &lib1), "esmio_trace_counter");
    const double own = wcall - (lib1.seconds - lib0.seconds);
    MPI_Allreduce(&wcall, &write_call[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&own, &binding[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !(keep && r == reps - 1)) remove(path); /* each repetition: a new file */
    MPI_Barrier(MPI_COMM_WORLD);
  }
  check(esmio_decomp_free(&d3), "free d3");
  check(esmio_decomp_free(&d2), "free d2");
  int num_iotasks = 0, mine = 0;
  check(esmio_inq_iotasks(io, &num_iotasks, &mine), "esmio_inq_iotasks");
  char io_settings[4096];
  check(esmio_inq_settings(io, io_settings, sizeof io_settings), "esmio_inq_settings");
  check(esmio_finalize(&io), "esmio_finalize");

  if (rank == 0) {
    const long long data_bytes = 4LL * (n3d * nlev + n2d) * nlat * nlon;
    const double med = median(seconds, reps);
    printf(
        "{\"case\": \"cam-fvd\", \"binding\": \"c\", \"ranks\": %d, \"iotasks\": %d, "
        "\"backend\": \"%s\", \"file_settings\": \"%s\", \"durable\": %s, "
        "\"shape\": [%lld, %lld, %lld], \"fields\": [%d, %d], \"records\": 1, "
        "\"bytes\": %lld, \"reps\": %d, \"seconds\": ",
        nranks, num_iotasks, backend, settings, fsync_file ? "true" : "false", (long long)nlev,
        (long long)nlat, (long long)nlon, n3d, n2d, data_bytes, reps);
    print_list(seconds, reps);
    printf(", \"median_s\": %.6f, \"median_MiB_s\": %.1f, \"generate_s\": ", med,
           (double)data_bytes / 1048576.0 / med);
    print_list(generate, reps);
    printf(", \"write_call_s\": ");
    print_list(write_call, reps);
    printf(", \"binding_s\": ");
    print_list(binding, reps);
    printf(", \"settings\": \"%s\"}\n", io_settings);
    fflush(stdout);
  }
  for (int g = 0; g < 2; ++g) free(base[g]);
  free(buf);
  free(seconds);
  free(generate);
  free(write_call);
  free(binding);
  MPI_Finalize();
  return 0;
}
