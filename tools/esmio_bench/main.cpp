// esmio-bench: honest, model-shaped I/O measurements of esmio side by side with raw POSIX
// writes, direct PnetCDF and gather-to-root. Runs under mpirun; see --help and docs/bench.md.
#include <mpi.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "cases.hpp"
#include "context.hpp"
#include "model_loop.hpp"
#include "options.hpp"
#include "plan_case.hpp"
#include "plot.hpp"
#include "report.hpp"
#include "result.hpp"
#include "runner.hpp"
#include "variants.hpp"

#ifndef ESMIO_BENCH_DATA_DIR
#define ESMIO_BENCH_DATA_DIR "tests/data"
#endif

using namespace esmio_bench;

namespace {

// The E3SM maps: $ESMIO_BENCH_DATA, else the source tree's tests/data the binary was built from.
std::string data_dir() {
  const char *env = std::getenv("ESMIO_BENCH_DATA");
  return env && *env ? env : ESMIO_BENCH_DATA_DIR;
}

std::vector<std::unique_ptr<Variant>> make_variants(const Options &opt, const Workload &w, int rank,
                                                    MPI_Comm comm) {
  // cdo only exists for cdi's shape; it is added there by default when installed.
  int have_cdo = 0;
  if (w.case_name == "cdi" && rank == 0) have_cdo = cdo_available();
  MPI_Bcast(&have_cdo, 1, MPI_INT, 0, comm);
  std::vector<std::string> names = opt.variants;
  if (w.case_name == "cdi" && have_cdo && !opt.variants_given) names.push_back("cdo");
  std::vector<std::unique_ptr<Variant>> out;
  for (const auto &n : names) {
    if (n == "esmio") out.push_back(make_esmio_variant(opt.backend, EsmioFlavour::as_configured));
    if (n == "esmio-nocache")
      out.push_back(make_esmio_variant(opt.backend, EsmioFlavour::no_cache));
    if (n == "esmio-unstaged")
      out.push_back(make_esmio_variant(opt.backend, EsmioFlavour::unstaged));
    if (n == "gather-root")
      out.push_back(make_esmio_variant(opt.backend, EsmioFlavour::gather_root));
    if (n == "pnetcdf-direct") out.push_back(make_pnetcdf_direct_variant());
    if (n == "pio-layer") out.push_back(make_pio_layer_variant());
    if (n == "raw") out.push_back(make_raw_variant());
    if (n == "cdo") {
      if (w.case_name == "cdi" && have_cdo)
        out.push_back(make_cdo_variant());
      else if (rank == 0)
        std::fprintf(stderr, "esmio-bench: variant cdo skipped (%s)\n",
                     have_cdo ? "only for case cdi" : "cdo not on PATH");
    }
  }
  return out;
}

// Rank 0 makes dir (its parent must exist) and tells every rank how that went, so that a
// directory it cannot make ends the run on every rank with one message and no MPI_Abort: the
// caller returns, and every rank finalizes MPI. Collective over MPI_COMM_WORLD.
bool make_dir_on_rank0(const std::string &dir, const char *option, int world_rank) {
  int err = 0;
  if (world_rank == 0 && ::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) err = errno;
  MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (err != 0 && world_rank == 0)
    std::fprintf(stderr, "esmio-bench: %s %s: cannot create the directory: %s\n", option,
                 dir.c_str(), std::strerror(err));
  return err == 0;
}

int run(Options &opt, int world_rank, int world_size) {
  if (opt.case_name == "model-loop") {
    if (!make_dir_on_rank0(opt.dir, "--dir", world_rank)) return 2;
    return run_model_loop(opt, data_dir());
  }
  Workload w;
  std::string why;
  if (!make_workload(opt, world_rank, world_size, data_dir(), &w, &why)) {
    if (world_rank == 0) std::fprintf(stderr, "esmio-bench: %s\n", why.c_str());
    return 2;
  }
  if (w.case_name == "cdi" && !opt.read_given) opt.read = ReadMode::cold;  // cdiwrite + cdiread
  // --trace DIR is made like --dir (its parent must exist).
  if (!opt.trace.empty() && !make_dir_on_rank0(opt.trace, "--trace", world_rank)) return 2;
  if (!make_dir_on_rank0(opt.dir, "--dir", world_rank)) return 2;
  // cdi is one process: rank 0 alone, the others wait at the final barrier.
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, (!w.single_process || world_rank == 0) ? 0 : MPI_UNDEFINED,
                 world_rank, &comm);
  if (world_rank == 0 && w.single_process && world_size > 1)
    std::fprintf(stderr, "esmio-bench: case %s runs on rank 0 only; %d rank(s) wait\n",
                 w.case_name.c_str(), world_size - 1);
  int status = 0;
  const std::string loadavg_start = read_loadavg();
  if (comm != MPI_COMM_NULL) {
    Context ctx;
    ctx.comm = comm;
    MPI_Comm_rank(comm, &ctx.rank);
    MPI_Comm_size(comm, &ctx.size);
    ctx.opt = &opt;
    ctx.work = &w;
    try {
      setup_context(&ctx);
    } catch (const BenchError &e) {
      std::fprintf(stderr, "esmio-bench: rank %d: setup failed: %s\n", ctx.rank, e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const auto variants = make_variants(opt, w, ctx.rank, comm);
    const std::vector<Result> results = run_variants(ctx, variants);
    if (ctx.rank == 0) {
      RunInfo info;
      info.case_name = w.case_name;
      info.description = w.description;
      info.command = opt.command_line;
      info.ranks = ctx.size;
      info.records = w.records;
      info.nvars = static_cast<int>(w.vars.size());
      info.repeat = opt.repeat;
      info.scale = opt.scale;
      info.setup_seconds = ctx.setup_seconds;
      info.file_bytes = ctx.file_values * 4;
      info.dir = opt.dir;
      info.loadavg_start = loadavg_start;
      info.loadavg_end = read_loadavg();
      print_table(info, results);
      for (const Result &r : results) {
        if (!r.error.empty()) status = 1;
        if (r.verify_note.find("differ") != std::string::npos) status = 1;
      }
      if (!opt.json_path.empty()) {
        if (!write_json(opt.json_path, info, results)) {
          std::fprintf(stderr, "esmio-bench: cannot write %s\n", opt.json_path.c_str());
          status = 1;
        } else if (!opt.plot_path.empty()) {
          const int rc = draw_plot(opt.json_path, opt.plot_path);
          if (rc != 0) {
            std::fprintf(stderr, "esmio-bench: plot failed (%s)\n",
                         rc < 0 ? "esmio_bench_plot.py not found" : "python3/matplotlib");
            status = 1;
          }
        }
      } else if (!opt.plot_path.empty()) {
        std::fprintf(stderr, "esmio-bench: --plot needs --json (the plot is drawn from it)\n");
        status = 1;
      }
    }
    teardown_context(&ctx);
    MPI_Comm_free(&comm);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

}  // namespace

int main(int argc, char **argv) {
  // plan simulates every rank in this one process: no MPI at all, so it runs without mpirun.
  if (argc > 1 && std::strcmp(argv[1], "plan") == 0) {
    Options opt;
    const int parsed = parse_options(argc, argv, 0, &opt);
    return parsed == 0 ? run_plan(opt) : parsed == 1 ? 0 : 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options opt;
  const int parsed = parse_options(argc, argv, rank, &opt);  // 1: --help, 2: bad option
  const int status = parsed == 0 ? run(opt, rank, size) : parsed == 1 ? 0 : 2;
  MPI_Finalize();
  return status;
}
