// Case model-loop: a model's time loop, N steps of a compute phase followed by one history
// record of a case's field set (cam-fvd or e3sm-f), run three ways on the same compute ranks:
//   compute   the compute phases only;
//   sync      esmio synchronous on the compute ranks (the K server ranks idle);
//   async     esmio with K I/O servers (io_servers=K): the server ranks write.
// The figure of merit is the fraction of the I/O time the servers hide,
//   hidden = 1 - (t_async - t_compute) / (t_sync - t_compute),
// with the time compute ranks waited for ring space (async_wait) and the peak memory of each
// role. Times are end to end: the loop and the file's close (its data on disk, or at least in
// the kernel: --durability applies as in the other cases only through esmio_sync at close).
#include "model_loop.hpp"

#include <esmio.h>
#include <netcdf.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cases.hpp"
#include "context.hpp"
#include "stats.hpp"

namespace esmio_bench {
namespace {

// The compute phase. It makes no MPI call and no esmio call (the point of the case: whatever
// the servers receive while it runs, they receive without the compute rank's help): busy
// arithmetic on a small array, or sleep.
double compute_phase(double seconds, bool busy, std::vector<double> *scratch) {
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  if (!busy) {
    std::this_thread::sleep_until(end);
    return 0;
  }
  double sum = 0;
  std::vector<double> &a = *scratch;
  while (std::chrono::steady_clock::now() < end)
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = a[i] * 0.999999 + std::sqrt(static_cast<double>(i) + a[i] * a[i]);
      sum += a[i];
    }
  return sum;
}

// Peak resident memory of this process so far (MiB).
double peak_rss_mib() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

struct LoopResult {
  double seconds = 0;
  double waited = 0;     // async_wait seconds on this rank
  double converted = 0;  // convert seconds: float64 to float32 on this rank (not hidden)
  double posted = 0;     // async_post seconds: the conversion into the ring and the notice
};

// One run of the loop on ctx's compute ranks; write: with esmio through ctx.io.
LoopResult run_loop(Context &ctx, const Options &opt, bool write, const std::string &path,
                    std::vector<double> *scratch) {
  const Workload &w = *ctx.work;
  esmio_file_t f = nullptr;
  std::vector<int> varids(w.vars.size());
  MPI_Barrier(ctx.comm);
  if (write) esmio_trace_reset(ctx.io);
  const double t0 = MPI_Wtime();
  if (write) {
    check_esmio(esmio_create(ctx.io, path.c_str(), ("backend=" + opt.backend).c_str(), &f),
                "esmio_create " + path);
    std::vector<int> dimids(w.dims.size());
    for (std::size_t d = 0; d < w.dims.size(); ++d)
      check_esmio(esmio_def_dim(f, w.dims[d].first.c_str(),
                                d == 0 ? ESMIO_UNLIMITED : w.dims[d].second, &dimids[d]),
                  "esmio_def_dim");
    for (std::size_t v = 0; v < w.vars.size(); ++v) {
      std::vector<int> vd = {dimids[0]};
      for (int d : w.grids[w.vars[v].grid].dimids) vd.push_back(dimids[d]);
      check_esmio(esmio_def_var(f, w.vars[v].name.c_str(), ESMIO_FLOAT, static_cast<int>(vd.size()),
                                vd.data(), &varids[v]),
                  "esmio_def_var");
    }
    check_esmio(esmio_enddef(f), "esmio_enddef");
  }
  for (int step = 0; step < w.records; ++step) {
    compute_phase(opt.compute_seconds, opt.compute_busy, scratch);
    if (!write) continue;
    for (std::size_t v = 0; v < w.vars.size(); ++v) {
      const LocalGrid &g = ctx.grids[w.vars[v].grid];
      ctx.generate(static_cast<int>(v), step);
      check_esmio(esmio_write_darray(f, varids[v], step, g.decomp, ESMIO_DOUBLE, ctx.memory.data(),
                                     static_cast<int64_t>(g.offsets.size())),
                  "esmio_write_darray");
    }
  }
  if (write) check_esmio(esmio_close(&f), "esmio_close " + path);
  LoopResult r;
  r.seconds = MPI_Wtime() - t0;
  if (write) {
    esmio_counter c{};
    esmio_trace_counter(ctx.io, "async_wait", &c);
    r.waited = c.seconds;
    esmio_trace_counter(ctx.io, "convert", &c);
    r.converted = c.seconds;
    esmio_trace_counter(ctx.io, "async_post", &c);
    r.posted = c.seconds;
  }
  return r;
}

// The files of the synchronous and the asynchronous run hold the same values, variable by
// variable (rank 0, netCDF-C): the servers' speed is not bought with other data. Empty when
// they do; else what differs.
std::string compare_files(const std::string &a, const std::string &b) {
  int fa, fb;
  if (nc_open(a.c_str(), NC_NOWRITE, &fa) != NC_NOERR) return "cannot open " + a;
  if (nc_open(b.c_str(), NC_NOWRITE, &fb) != NC_NOERR) {
    nc_close(fa);
    return "cannot open " + b;
  }
  int nvars = 0, nb = 0;
  nc_inq_nvars(fa, &nvars);
  nc_inq_nvars(fb, &nb);
  std::string why = nvars == nb ? "" : "variable counts differ";
  std::vector<float> x, y;
  for (int v = 0; v < nvars && why.empty(); ++v) {
    char name[NC_MAX_NAME + 1];
    int nd = 0, dims[NC_MAX_VAR_DIMS], vb = -1;
    nc_inq_var(fa, v, name, nullptr, &nd, dims, nullptr);
    std::size_t n = 1;
    for (int d = 0; d < nd; ++d) {
      std::size_t len = 0;
      nc_inq_dimlen(fa, dims[d], &len);
      n *= len;
    }
    x.resize(n);
    y.resize(n);
    if (nc_inq_varid(fb, name, &vb) != NC_NOERR || nc_get_var_float(fa, v, x.data()) != NC_NOERR ||
        nc_get_var_float(fb, vb, y.data()) != NC_NOERR || x != y)
      why = std::string("variable ") + name + " differs";
  }
  nc_close(fa);
  nc_close(fb);
  return why;
}

double max_over(MPI_Comm comm, double x) {
  double m = 0;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

std::string triple(const std::vector<double> &v) {
  const Summary s = summarize(v);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3f / %.3f / %.3f", s.min, s.median, s.max);
  return buf;
}

std::string json_list(const std::vector<double> &v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

int run_model_loop(const Options &opt, const std::string &data_dir) {
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  const int k = opt.servers;
  if (k < 1 || 2 * k > world_size) {
    if (world_rank == 0)
      std::fprintf(stderr,
                   "esmio-bench: model-loop needs 1 <= --servers <= ranks/2, got %d on %d\n", k,
                   world_size);
    return 2;
  }
  // The compute ranks are the first world_size - K (io_server_placement=last): the sync and
  // compute-only runs use exactly these, while the K last ranks wait.
  const int ncompute = world_size - k;
  const bool compute_rank = world_rank < ncompute;
  MPI_Comm compute = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, compute_rank ? 0 : MPI_UNDEFINED, world_rank, &compute);

  Options loop_opt = opt;
  loop_opt.case_name = opt.loop_fields;
  if (loop_opt.records == 0) loop_opt.records = 6;
  Workload w;
  std::string why;
  if (compute_rank && !make_workload(loop_opt, world_rank, ncompute, data_dir, &w, &why)) {
    if (world_rank == 0) std::fprintf(stderr, "esmio-bench: %s\n", why.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::vector<double> scratch(4096, 1.0);
  std::vector<double> t_compute, t_sync, t_async, waited, converted, posted;
  const std::string stem = opt.dir + "/model_loop";
  for (int rep = 0; rep < opt.repeat; ++rep) {
    // compute only, and synchronous esmio, on the compute ranks
    if (compute_rank) {
      Context ctx;
      ctx.comm = compute;
      MPI_Comm_rank(compute, &ctx.rank);
      MPI_Comm_size(compute, &ctx.size);
      ctx.opt = &loop_opt;
      ctx.work = &w;
      t_compute.push_back(max_over(compute, run_loop(ctx, loop_opt, false, "", &scratch).seconds));
      setup_context(&ctx);
      t_sync.push_back(
          max_over(compute, run_loop(ctx, loop_opt, true, stem + "_sync.nc", &scratch).seconds));
      teardown_context(&ctx);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    // K servers: the same loop on the compute ranks of an instance over every rank
    {
      Context ctx;
      ctx.opt = &loop_opt;
      ctx.work = &w;
      const std::string settings =
          "io_servers=" + std::to_string(k) + ",layout=" + opt.layout +
          (opt.iotasks > 0 ? ",num_iotasks=" + std::to_string(opt.iotasks) : std::string());
      check_esmio(esmio_init(MPI_COMM_WORLD, settings.c_str(), &ctx.io),
                  "esmio_init(" + settings + ")");
      int role = ESMIO_ROLE_COMPUTE;
      esmio_inq_role(ctx.io, &role);
      if (role == ESMIO_ROLE_SERVER) {
        esmio_finalize(&ctx.io);  // served the whole loop inside esmio_init
      } else {
        esmio_inq_comm(ctx.io, &ctx.comm);
        MPI_Comm_rank(ctx.comm, &ctx.rank);
        MPI_Comm_size(ctx.comm, &ctx.size);
        setup_context(&ctx);  // the decompositions, on the instance made above
        const LoopResult r = run_loop(ctx, loop_opt, true, stem + "_async.nc", &scratch);
        t_async.push_back(max_over(compute, r.seconds));
        waited.push_back(max_over(compute, r.waited));
        converted.push_back(max_over(compute, r.converted));
        posted.push_back(max_over(compute, r.posted));
        teardown_context(&ctx);  // esmio_finalize: the servers leave esmio_init
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int status = 0;
  // Peak memory per role (over the whole run: the sync runs on the compute ranks included).
  double peak = peak_rss_mib(), compute_peak = 0, server_peak = 0;
  double mine_c = compute_rank ? peak : 0, mine_s = compute_rank ? 0 : peak;
  MPI_Reduce(&mine_c, &compute_peak, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mine_s, &server_peak, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

  if (world_rank == 0) {
    const double tc = summarize(t_compute).median, ts = summarize(t_sync).median,
                 ta = summarize(t_async).median;
    const double hidden = ts > tc ? 1.0 - (ta - tc) / (ts - tc) : 0.0;
    const std::string differs = compare_files(stem + "_sync.nc", stem + "_async.nc");
    status = differs.empty() ? 0 : 1;
    std::printf(
        "model-loop: %s, %d steps of %.2f s %s compute on %d compute ranks; %d I/O "
        "server(s); backend %s, layout %s; %d repeats (min / median / max, s)\n",
        opt.loop_fields.c_str(), w.records, opt.compute_seconds,
        opt.compute_busy ? "busy" : "sleep", ncompute, k, opt.backend.c_str(), opt.layout.c_str(),
        opt.repeat);
    std::printf("  compute only        %s\n", triple(t_compute).c_str());
    std::printf("  esmio synchronous   %s   (I/O %.3f s)\n", triple(t_sync).c_str(), ts - tc);
    std::printf("  esmio, %d server(s)  %s   (I/O %.3f s)\n", k, triple(t_async).c_str(), ta - tc);
    std::printf(
        "  I/O time hidden     %.1f %%   (1 - (t_async - t_compute) / (t_sync - t_compute), "
        "medians)\n",
        100.0 * hidden);
    std::printf("  blocked on back-pressure (async_wait, max over ranks) %s s\n",
                triple(waited).c_str());
    std::printf(
        "  on the compute ranks with servers: convert %s s, posting (convert included) %s "
        "s (max over ranks)\n",
        triple(converted).c_str(), triple(posted).c_str());
    std::printf("  files of the synchronous and the asynchronous run: %s\n",
                differs.empty() ? "the same values" : differs.c_str());
    std::printf(
        "  peak memory: compute ranks %.0f MiB, servers %.0f MiB (max per rank, whole run)\n",
        compute_peak, server_peak);
    if (!opt.json_path.empty()) {
      std::ofstream out(opt.json_path);
      out << "{\"case\": \"model-loop\", \"command\": \"" << opt.command_line << "\", "
          << "\"fields_case\": \"" << opt.loop_fields << "\", \"steps\": " << w.records
          << ", \"compute_seconds\": " << opt.compute_seconds << ", \"compute_kind\": \""
          << (opt.compute_busy ? "busy" : "sleep") << "\", \"compute_ranks\": " << ncompute
          << ", \"servers\": " << k << ", \"backend\": \"" << opt.backend
          << "\", \"seconds\": {\"compute\": " << json_list(t_compute)
          << ", \"sync\": " << json_list(t_sync) << ", \"async\": " << json_list(t_async)
          << "}, \"async_wait_seconds\": " << json_list(waited)
          << ", \"async_convert_seconds\": " << json_list(converted)
          << ", \"async_post_seconds\": " << json_list(posted)
          << ", \"hidden_fraction\": " << hidden
          << ", \"same_values\": " << (differs.empty() ? "true" : "false")
          << ", \"peak_rss_mib\": {\"compute\": " << compute_peak << ", \"server\": " << server_peak
          << "}}\n";
    }
    if (!opt.keep) {
      std::remove((stem + "_sync.nc").c_str());
      std::remove((stem + "_async.nc").c_str());
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (compute != MPI_COMM_NULL) MPI_Comm_free(&compute);
  return status;
}

}  // namespace esmio_bench
