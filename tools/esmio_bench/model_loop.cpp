// Case model-loop: a model's time loop, N steps of a compute phase followed by one history
// record of a case's field set (cam-fvd or e3sm-f), run three ways with the model on the same
// compute ranks, the first world_size - K ranks:
//   compute   the compute phases, and every record's values generated (a model computes its
//             output fields) but not written;
//   sync      the same, and each record written with synchronous esmio over the compute ranks
//             (their communicator is a split of MPI_COMM_WORLD; the K other ranks idle);
//   async     the same through esmio with K I/O servers (io_servers=K over MPI_COMM_WORLD, the
//             last K ranks: the ones that idled in the other two runs).
// Every run generates the same values, so t_sync - t_compute is esmio's time alone, and the
// figure of merit is the fraction of it the servers hide,
//   hidden = 1 - (t_async - t_compute) / (t_sync - t_compute),
// with the time compute ranks waited for ring space (async_wait) and the peak memory of each
// role. Times are end to end: create, define, the loop, close, and with --durability durable
// (the default) an fsync of the file. The first repeat's files are checked value by value.
#include "model_loop.hpp"

#include <esmio.h>
#include <malloc.h>
#include <mpi.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "cases.hpp"
#include "compute_phase.hpp"
#include "context.hpp"
#include "durability.hpp"
#include "memory.hpp"
#include "model_loop_report.hpp"
#include "real_fields.hpp"
#include "result.hpp"
#include "stats.hpp"
#include "verify.hpp"

namespace esmio_bench {

namespace {

// Waits for every rank of comm without spinning. Open MPI's blocking barrier polls its core
// at full speed; the K server ranks wait here while the others run compute only and
// synchronous, and must leave their cores to the model as absent ranks would (on a machine
// with fewer cores than ranks it matters).
void idle_barrier(MPI_Comm comm) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  int done = 0;
  const timespec nap = {0, 10000000};  // 10 ms: about 0.3 % of a core; the wait is unclocked
  for (MPI_Test(&request, &done, MPI_STATUS_IGNORE); !done;
       MPI_Test(&request, &done, MPI_STATUS_IGNORE))
    nanosleep(&nap, nullptr);
}

// A failure on one rank (an esmio error, a file that cannot be made) ends the job: the servers
// and the idle ranks would otherwise wait for the failed rank forever.
void or_abort(int world_rank, const std::function<void()> &body) {
  try {
    body();
  } catch (const BenchError &e) {
    std::fprintf(stderr, "esmio-bench model-loop: rank %d: %s\n", world_rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

// The peak RSS of one run on this rank: its window opens with the allocator's free memory
// given back (malloc_trim, as the runner does) and the peak reset to the current RSS.
struct PeakWindow {
  double baseline = 0;
  bool reset = false;
  PeakWindow() {
    ::malloc_trim(0);
    baseline = current_rss_mib();
    reset = reset_peak_rss();
  }
};

// Per rank, over repeats: a run's peak (max) and the RSS its first window opened at.
struct RankPeak {
  double peak = 0, baseline = -1;
  void add(const PeakWindow &w, bool *all_reset) {
    peak = std::max(peak, peak_rss_mib());
    if (baseline < 0) baseline = w.baseline;
    *all_reset = *all_reset && w.reset;
  }
};

struct Measured {
  double seconds = 0;                            // slowest compute rank
  double waited = 0, converted = 0, posted = 0;  // esmio's counters, max over compute ranks
  // From the end of the last step's writes to the file closed (and synced where durable), max
  // over compute ranks: with servers, the wait for the records they still write.
  double closing = 0;
  // async_post of each step (the first one takes the ring's pages as they are first written),
  // max over compute ranks.
  std::vector<double> posting_steps;
};

// The paths of a run's files: path itself for one file, else path with ".K" before ".nc".
std::vector<std::string> file_paths(const std::string &path, int files) {
  if (files == 1) return {path};
  std::vector<std::string> paths;
  const std::string stem = path.substr(0, path.size() - 3);  // path ends in ".nc"
  for (int k = 0; k < files; ++k) paths.push_back(stem + "." + std::to_string(k) + ".nc");
  return paths;
}

// One run of the loop on ctx's compute ranks. path empty: compute only (the values are
// generated, nothing is written); else written with esmio through ctx.io, into --files files
// (file_paths) of records/files steps each, step s as record s of its file's steps.
Measured run_loop(Context &ctx, const ComputePhase &phase, const std::string &path, bool servers,
                  std::vector<double> *scratch) {
  const Workload &w = *ctx.work;
  const Options &opt = *ctx.opt;
  const bool write = !path.empty();
  const std::vector<std::string> paths = file_paths(path, opt.files);
  const int per_file = w.records / opt.files;
  esmio_file_t f = nullptr;
  std::vector<int> varids(w.vars.size());
  MPI_Barrier(ctx.comm);
  if (write) esmio_trace_reset(ctx.io);
  const double t0 = MPI_Wtime();
  const std::string settings = "backend=" + opt.backend +
                               (opt.backend == "netcdf4" ? ",format=netcdf4" : ",format=cdf5") +
                               ",io_server_close=" + opt.server_close;
  auto create = [&](const std::string &file_path) {
    check_esmio(esmio_create(ctx.io, file_path.c_str(), settings.c_str(), &f),
                "esmio_create " + file_path);
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
                  "esmio_def_var " + w.vars[v].name);
    }
    check_esmio(esmio_enddef(f), "esmio_enddef");
  };
  std::vector<double> posted_by_step(static_cast<std::size_t>(w.records), 0.0);
  double closing_from = t0;
  for (int step = 0; step < w.records; ++step) {
    const int file = step / per_file;
    if (write && step % per_file == 0) create(paths[static_cast<std::size_t>(file)]);
    // The checksum is not needed: the phase is in its own translation unit and its array
    // outlives the call, so the work cannot be optimised away.
    (void)run_compute_phase(phase, scratch);
    for (std::size_t v = 0; v < w.vars.size(); ++v) {
      ctx.generate(static_cast<int>(v), step);
      if (!write) continue;
      const LocalGrid &g = ctx.grids[w.vars[v].grid];
      check_esmio(esmio_write_darray(f, varids[v], step % per_file, g.decomp, ESMIO_DOUBLE,
                                     ctx.memory.data(), static_cast<int64_t>(g.offsets.size())),
                  "esmio_write_darray " + w.vars[v].name);
    }
    if (write) {
      esmio_counter c{};
      esmio_trace_counter(ctx.io, "async_post", &c);
      posted_by_step[static_cast<std::size_t>(step)] = c.seconds;  // so far: made per step below
    }
    if (step == w.records - 1) closing_from = MPI_Wtime();
    if (write && (step + 1) % per_file == 0)
      check_esmio(esmio_close(&f), "esmio_close " + paths[static_cast<std::size_t>(file)]);
  }
  for (std::size_t s = posted_by_step.size(); s-- > 1;) posted_by_step[s] -= posted_by_step[s - 1];
  if (write) {
    // Closed in the background: the model's end waits for every file (without servers the
    // close waited).
    if (servers && opt.server_close == "background")
      for (const std::string &p : paths)
        check_esmio(esmio_stage_wait(ctx.io, p.c_str()), "esmio_stage_wait " + p);
    // As in the other cases: every rank fsyncs (on a parallel file system each client must),
    // rank 0 the directory entry too. With servers the file's pages are theirs; fsync of the
    // path flushes them whoever wrote them.
    if (opt.durability == Durability::durable)
      for (const std::string &p : paths)
        if (!fsync_file(p) || (ctx.rank == 0 && !fsync_parent_dir(p)))
          throw BenchError("fsync " + p + " failed");
  }
  const double end = MPI_Wtime();
  double mine[5] = {end - t0, 0, 0, 0, end - closing_from}, worst[5];
  if (write) {
    esmio_counter c{};
    esmio_trace_counter(ctx.io, "async_wait", &c);
    mine[1] = c.seconds;
    esmio_trace_counter(ctx.io, "convert", &c);
    mine[2] = c.seconds;
    esmio_trace_counter(ctx.io, "async_post", &c);
    mine[3] = c.seconds;
  }
  MPI_Allreduce(mine, worst, 5, MPI_DOUBLE, MPI_MAX, ctx.comm);
  std::vector<double> steps(posted_by_step.size(), 0.0);
  MPI_Allreduce(posted_by_step.data(), steps.data(), static_cast<int>(steps.size()), MPI_DOUBLE,
                MPI_MAX, ctx.comm);
  return Measured{worst[0], worst[1], worst[2], worst[3], worst[4], std::move(steps)};
}

// After a run, outside its clock: no dirty page of its file may be written back during the
// next run (durable runs synced already).
void settle(const Context &ctx, const std::string &path) {
  if (ctx.opt->durability == Durability::cache && ctx.rank == 0) fsync_file(path);
}

// Every file of a run, each against the steps it holds; the first failure's note.
Verification verify_files(Context &ctx, const std::string &path) {
  const int files = ctx.opt->files, per_file = ctx.work->records / files;
  const std::vector<std::string> paths = file_paths(path, files);
  Verification all;
  for (int k = 0; k < files; ++k) {
    Verification one =
        verify_file(ctx, paths[static_cast<std::size_t>(k)], true, 0.0, k * per_file, per_file);
    if (k == 0 || (all.verified && !one.verified)) all = std::move(one);
  }
  return all;
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
  // The compute ranks are the first world_size - K (io_server_placement=last, esmio's
  // default): the compute-only and synchronous runs use exactly these, on a communicator split
  // from MPI_COMM_WORLD, while the K last ranks idle.
  const int ncompute = world_size - k;
  const bool compute_rank = world_rank < ncompute;
  MPI_Comm compute = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, compute_rank ? 0 : MPI_UNDEFINED, world_rank, &compute);

  Options loop_opt = opt;
  loop_opt.case_name = opt.loop_fields;
  loop_opt.calls = "field";  // one write_darray per variable record, as a model writes history
  if (loop_opt.records == 0) loop_opt.records = 6;
  if (loop_opt.records % loop_opt.files != 0) {
    if (world_rank == 0)
      std::fprintf(stderr, "esmio-bench: model-loop: --files %d does not divide --records %d\n",
                   loop_opt.files, loop_opt.records);
    return 2;
  }
  Workload w;
  std::string why;
  if (compute_rank && !make_workload(loop_opt, world_rank, ncompute, data_dir, &w, &why)) {
    std::fprintf(stderr, "esmio-bench: %s\n", why.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string settings_async = "io_servers=" + std::to_string(k) + ",layout=" + opt.layout;
  if (opt.iotasks > 0) settings_async += ",num_iotasks=" + std::to_string(std::min(opt.iotasks, k));
  if (!opt.async_buffer.empty()) settings_async += ",async_buffer=" + opt.async_buffer;
  const std::string sync_path = opt.dir + "/model_loop_sync.nc";
  const std::string async_path = opt.dir + "/model_loop_async.nc";

  const std::string loadavg_start = read_loadavg();
  std::vector<double> scratch;
  ComputePhase phase;
  long long passes_min = 0, passes_max = 0;  // the ranks' own calibrations
  if (compute_rank) {
    MPI_Barrier(compute);  // every compute rank calibrates at once, sharing cores as it will run
    phase = calibrate_compute_phase(opt.compute_seconds, opt.compute_busy, &scratch);
    // A balanced model: every rank does the same work, the median of what the ranks measured
    // (ranks sharing cores measure unevenly; on cores of their own they agree).
    std::vector<long long> passes(static_cast<std::size_t>(ncompute));
    MPI_Allgather(&phase.passes, 1, MPI_LONG_LONG, passes.data(), 1, MPI_LONG_LONG, compute);
    std::sort(passes.begin(), passes.end());
    passes_min = passes.front();
    passes_max = passes.back();
    phase.passes = passes[passes.size() / 2];
  }
  idle_barrier(MPI_COMM_WORLD);

  std::vector<Measured> t_compute, t_sync, t_async;
  std::vector<double> t_async_init;              // esmio_init with servers, max over compute ranks
  RankPeak compute_peak, sync_peak, async_peak;  // async_peak: a server's on a server rank
  bool all_reset = true;
  Verification sync_check, async_check;
  for (int rep = 0; rep < opt.repeat; ++rep) {
    // Synchronous, then compute only with the same instance and decompositions: on the compute
    // ranks, the K server ranks idle.
    if (compute_rank)
      or_abort(world_rank, [&] {
        Context ctx;
        ctx.comm = compute;
        MPI_Comm_rank(compute, &ctx.rank);
        MPI_Comm_size(compute, &ctx.size);
        ctx.opt = &loop_opt;
        ctx.work = &w;
        const PeakWindow sync_window;
        setup_context(&ctx);
        t_sync.push_back(run_loop(ctx, phase, sync_path, false, &scratch));
        sync_peak.add(sync_window, &all_reset);
        for (const std::string &p : file_paths(sync_path, loop_opt.files)) settle(ctx, p);
        const PeakWindow compute_window;
        t_compute.push_back(run_loop(ctx, phase, "", false, &scratch));
        compute_peak.add(compute_window, &all_reset);
        if (rep == 0) sync_check = verify_files(ctx, sync_path);
        teardown_context(&ctx);
      });
    idle_barrier(MPI_COMM_WORLD);
    // With K servers: one instance over every rank per repeat (the servers serve inside
    // esmio_init until the compute ranks finalize it).
    or_abort(world_rank, [&] {
      Context ctx;
      ctx.opt = &loop_opt;
      ctx.work = &w;
      const PeakWindow window;
      const double init_from = MPI_Wtime();
      check_esmio(esmio_init(MPI_COMM_WORLD, settings_async.c_str(), &ctx.io),
                  "esmio_init(" + settings_async + ")");
      const double init_seconds = MPI_Wtime() - init_from;
      int role = ESMIO_ROLE_COMPUTE;
      esmio_inq_role(ctx.io, &role);
      if (role == ESMIO_ROLE_SERVER) {
        async_peak.add(window, &all_reset);  // it served the whole run inside esmio_init
        check_esmio(esmio_finalize(&ctx.io), "esmio_finalize (server)");
        return;
      }
      esmio_inq_comm(ctx.io, &ctx.comm);
      MPI_Comm_rank(ctx.comm, &ctx.rank);
      MPI_Comm_size(ctx.comm, &ctx.size);
      double slowest_init = 0;
      MPI_Allreduce(&init_seconds, &slowest_init, 1, MPI_DOUBLE, MPI_MAX, ctx.comm);
      t_async_init.push_back(slowest_init);
      setup_context(&ctx);  // the decompositions, on the instance made above
      t_async.push_back(run_loop(ctx, phase, async_path, true, &scratch));
      async_peak.add(window, &all_reset);
      for (const std::string &p : file_paths(async_path, loop_opt.files)) settle(ctx, p);
      if (rep == 0) async_check = verify_files(ctx, async_path);
      teardown_context(&ctx);  // esmio_finalize: the servers leave esmio_init
    });
    idle_barrier(MPI_COMM_WORLD);
  }

  // Per rank: peak and baseline of each run, gathered on rank 0.
  constexpr int kPerRank = 6;
  const double mine[kPerRank] = {compute_peak.peak,  compute_peak.baseline, sync_peak.peak,
                                 sync_peak.baseline, async_peak.peak,       async_peak.baseline};
  std::vector<double> all(world_rank == 0 ? kPerRank * world_size : 0);
  MPI_Gather(mine, kPerRank, MPI_DOUBLE, all.data(), kPerRank, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int reset_here = all_reset, reset_everywhere = 0;
  MPI_Reduce(&reset_here, &reset_everywhere, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);

  int status = 0;
  if (world_rank == 0) {
    ModelLoopReport r;
    r.command = opt.command_line;
    r.fields_case = opt.loop_fields;
    r.description = w.description;
    r.fields = fields_in_use();
    r.backend = opt.backend;
    r.layout = opt.layout;
    r.settings_async = settings_async;
    const bool durable = opt.durability == Durability::durable;
    r.durability = to_string(opt.durability);
    r.label = durable ? "durable (fsync)" : "page cache";
    r.dir = opt.dir;
    r.loadavg_start = loadavg_start;
    r.loadavg_end = read_loadavg();
    r.steps = w.records;
    r.files = loop_opt.files;
    r.server_close = loop_opt.server_close;
    r.compute_ranks = ncompute;
    r.servers = k;
    r.repeat = opt.repeat;
    r.scale = opt.scale;
    r.compute_seconds = opt.compute_seconds;
    r.compute_busy = opt.compute_busy;
    r.peak_reset = reset_everywhere != 0;
    for (const Measured &m : t_compute) r.compute.seconds.push_back(m.seconds);
    r.async_init = t_async_init;
    for (const Measured &m : t_sync) {
      r.sync.seconds.push_back(m.seconds);
      r.sync_closing.push_back(m.closing);
    }
    for (const Measured &m : t_async) {
      r.async.seconds.push_back(m.seconds);
      r.async_wait.push_back(m.waited);
      r.async_convert.push_back(m.converted);
      r.async_post.push_back(m.posted);
      r.async_closing.push_back(m.closing);
      if (!m.posting_steps.empty()) r.async_post_first.push_back(m.posting_steps.front());
      if (m.posting_steps.size() > 1)
        r.async_post_later.push_back(
            summarize(std::vector<double>(m.posting_steps.begin() + 1, m.posting_steps.end()))
                .median);
    }
    r.passes = phase.passes;
    r.passes_min = passes_min;
    r.passes_max = passes_max;
    for (int i = 0; i < world_size; ++i) {
      const double *p = all.data() + kPerRank * i;
      if (i < ncompute) {
        r.compute.peak_rss_mib.push_back(p[0]);
        r.compute.baseline_rss_mib.push_back(p[1]);
        r.sync.peak_rss_mib.push_back(p[2]);
        r.sync.baseline_rss_mib.push_back(p[3]);
        r.async.peak_rss_mib.push_back(p[4]);
        r.async.baseline_rss_mib.push_back(p[5]);
      } else {
        r.server.peak_rss_mib.push_back(p[4]);
        r.server.baseline_rss_mib.push_back(p[5]);
      }
    }
    r.sync_verified = sync_check.verified;
    r.sync_note = sync_check.note;
    r.async_verified = async_check.verified;
    r.async_note = async_check.note;
    print_model_loop(r);
    if (!r.sync_verified || !r.async_verified) status = 1;
    if (!opt.json_path.empty() && !write_model_loop_json(opt.json_path, r)) {
      std::fprintf(stderr, "esmio-bench: cannot write %s\n", opt.json_path.c_str());
      status = 1;
    }
    if (!opt.keep)
      for (const std::string &path : {sync_path, async_path})
        for (const std::string &p : file_paths(path, loop_opt.files)) std::remove(p.c_str());
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (compute != MPI_COMM_NULL) MPI_Comm_free(&compute);
  return status;
}

}  // namespace esmio_bench
