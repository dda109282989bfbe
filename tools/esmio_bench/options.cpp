// Parsing of esmio-bench's command line, and the --help text that lists every option.
#include "options.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace esmio_bench {

namespace {

const char *kUsage = R"(usage: mpirun -np N esmio-bench CASE [options]

esmio-bench runs under mpirun (it does not launch MPI itself): the ranks of MPI_COMM_WORLD are
the model's ranks. It writes the case's files with every variant, interleaved per repeat
(v1,v2,v3,v1,v2,v3,...), and prints min/median/max of seconds, MiB/s and million values/s.

Cases:
  cam-fvd   CAM FV 0.5 deg history record: 34 3-D + 61 2-D float fields, 26 x 361 x 576
            (lat/lon times --scale), latitude bands in CAM memory order, f64 -> f32. 1 record.
  cdi       CDO's cdiwrite/cdiread method, on ONE process (rank 0; other ranks wait):
            10 vars x 10 levels x 360 x 180 values per step, 16 steps (times --scale), f64 ->
            f32 CDF-5 in record-sized pieces, then read back as f64 (read defaults to cold).
            With cdo on PATH a variant 'cdo' runs 'cdo cdiwrite'/'cdiread' on the same sizes.
  small     64 2-D fields 360 x 720 (times --scale) written as latitude slices of 2.8 KiB,
            dealt to ranks in a seeded random order and held in that order. 2 records.
  e3sm-f    E3SM F case map (16 processes, ncol=866, lev=72) reassigned to the run's ranks:
            321 2-D (ncol, map D2) + 63 3-D (lev,ncol, map D3) fields (f_case_h0). 5 records.
  e3sm-i    E3SM I case map (lat 96 x lon 144): 460 2-D (D1), 69 levgrnd (D2), 2 levlak (D3),
            1 ltype (D4), 1 natpft (D5) fields (i_case_h0). 2 records.
  ocean     MOM 0.1 deg-like: 3600 x 2700 x 50 (x,y times --scale, default scale 0.1), 4 3-D + 4
            2-D fields, 2-D block decomposition over a PE layout of aspect 48x15. 1 record.
  model-loop  a model's time loop: --records steps (default 6), each a compute phase of
            --compute seconds (--compute-kind busy: a fixed amount of arithmetic, calibrated to
            take that long, that makes no MPI or esmio call; sleep) then one history record of
            --fields-of (cam-fvd or e3sm-f), one write_darray per variable, the file closed at
            the end. Run compute only, with synchronous esmio and with --servers K I/O servers
            (the last K ranks; the model runs on the other ranks in all three runs, the K
            idle in the first two). Reports end-to-end times, the fraction of I/O time hidden,
            back-pressure waits, peak memory per role; both files are verified.
  plan CASE  esmio's planner and write cache simulated in ONE process, no MPI (no mpirun
            needed): esmio-bench plan CASE --ranks P [--iotasks N] [--ranks-per-node R]
            [--records K] [--cache SPEC] [--json FILE]. CASE e3sm-f-ne120 (777,602 columns,
            synthetic space-filling-curve map; default P 21600) or e3sm-i-prod (360 x 720 land
            map; default P 1344). Prints seconds per phase, peak RSS, the I/O tasks (--iotasks
            0: esmio's automatic rule over ceil(P/R) nodes, R default 128) and per task the
            storage requests per flush and their mean size.

Options:
  --stage DIR        the esmio variant writes in DIR (a fast directory) and copies the file
                     back to --dir at close, verified (stage_dir); phase stage_copy
  --stage-copy M     close (default) or background (esmio's stage_copy): with background
                     the esmio variant's time ends at esmio_close, the copy runs meanwhile
                     and esmio_stage_wait after the clock (phase copy_after_close)
  --trace DIR        write the esmio variant's trace of its last write (counters and timeline,
                     esmio_trace_write) as DIR/esmio-bench-CASE-trace.json, and esmio-report's
                     page of it as DIR/esmio-bench-CASE-report.html
  --fields-of CASE   model-loop: cam-fvd (default) or e3sm-f
  --compute S        model-loop: seconds of compute before each step (default 1)
  --compute-kind K   model-loop: busy (default) or sleep
  --servers K        model-loop: I/O servers of the asynchronous run (default 1)
  --async-buffer B   model-loop: esmio's async_buffer, the ring per compute rank (64K..1G;
                     default esmio's, 256M)
  --files F          model-loop: the steps spread over F files (F divides --records), each
                     created at its first step and closed after its last (default 1)
  --server-close C   model-loop: esmio's io_server_close for the files, wait (default) or
                     background (the close is posted, the servers finish the file while the
                     next steps compute; the loop's end waits for every file, in the clock)
  --scale X          scale the horizontal size (default 1; ocean 0.1) or cdi's steps
  --records R        records (time steps) per file (default: the case's)
  --repeat N         repeats of every variant (default 5)
  --variants LIST    comma-separated, any of esmio,esmio-nocache,pnetcdf-direct,gather-root,
                     raw,cdo,esmio-unstaged,pio-layer (esmio-nocache: esmio with its write
                     cache off; esmio-unstaged: esmio straight to --dir when --stage is
                     given; pio-layer: esmio's file through PIO's C interface, libesmio_pio:
                     PIOc_InitDecomp + PIOc_write_darray, PnetCDF, CDF-5, esmio's I/O tasks;
                     not with --backend netcdf4, --calls slice, --compression, --quantize
                     or --stage)
                     (default esmio,pnetcdf-direct,gather-root,raw; cdi adds cdo if installed)
  --iotasks N        esmio's num_iotasks (default 0: esmio's automatic choice, every rank up
                     to 8 per node and one per core; plan: the same rule, cores = R)
  --ranks P          plan: the simulated ranks (default: the case's)
  --ranks-per-node R plan: ranks per node for the automatic I/O task rule (default 128)
  --cache SPEC       plan: esmio's cache spec of the simulated flushes (default esmio's)
  --layout L         esmio's I/O layout: box | subset (default box)
  --backend B        esmio's backend for the 'esmio' variant (default pnetcdf)
  --durability D     durable: fsync of the file(s) before the clock stops (default);
                     cache: no fsync, results labelled "page cache"
  --read M           none | cold | warm (default none; cdi: cold). cold: fsync +
                     posix_fadvise(DONTNEED) first and report the residency (mincore);
                     warm: reads from the page cache and is labelled so
  --json FILE        write every measurement as JSON (schema: docs/bench.md)
  --plot FILE.png    draw rates with min-max whiskers (needs /usr/bin/python3 + matplotlib)
  --dir DIR          where files go (default ./esmio-bench-out)
  --keep             keep the files of the last repeat (default: removed after each repeat)
  --wrong-read       test hook: the last rank changes one value of every record it reads
                     (the run must then fail its read check)
  --seed S           seed of the random slice order of 'small' (default 12345)
  --compression S    esmio variant, backend netcdf4: codec of every variable (zstd:3,
                     deflate:4:shuffle, ...; esmio's compression setting, "default:S")
  --quantize S       esmio variant: lossy quantisation before the codec (bitround:NSB,
                     granularbr:NSD); the check then allows the mode's error bound
  --fields F         the values written: formula (default; 1000 v + t + g 1e-6, smooth) or
                     real (real model fields from libncarg-data, one source per variable
                     resampled onto its grid: the only values compression figures count on;
                     the table then lists every variable's size ratio, keepbits and errors)
  --calls C          how the esmio variants hand data over: field (one write_darray per
                     variable record), slice (one per latitude slice of every rank: 'small'
                     and cam-fvd), auto (default: slice for 'small', field otherwise)
  --help             this text
)";

bool parse_double(const char *s, double *out) {
  char *end = nullptr;
  *out = std::strtod(s, &end);
  return end != s && *end == '\0';
}

bool parse_int(const char *s, int *out) {
  char *end = nullptr;
  long v = std::strtol(s, &end, 10);
  *out = static_cast<int>(v);
  return end != s && *end == '\0';
}

std::vector<std::string> split_commas(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

const char *to_string(Durability d) { return d == Durability::durable ? "durable" : "cache"; }

const char *to_string(ReadMode r) {
  return r == ReadMode::none ? "none" : r == ReadMode::cold ? "cold" : "warm";
}

int parse_options(int argc, char **argv, int rank, Options *out) {
  Options &o = *out;
  for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
  auto fail = [&](const std::string &why) {
    if (rank == 0) std::fprintf(stderr, "esmio-bench: %s (try --help)\n", why.c_str());
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      if (rank == 0) std::fputs(kUsage, stdout);
      return 1;
    }
    if (arg == "--keep") {
      o.keep = true;
      continue;
    }
    if (arg == "--wrong-read") {
      o.wrong_read = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      if (o.case_name == "plan" && o.plan_case.empty()) {
        o.plan_case = arg;
        continue;
      }
      if (!o.case_name.empty()) return fail("two cases given: " + o.case_name + " and " + arg);
      o.case_name = arg;
      continue;
    }
    if (i + 1 >= argc) return fail("option " + arg + " needs a value");
    const char *value = argv[++i];
    bool ok = true;
    if (arg == "--scale") {
      ok = parse_double(value, &o.scale) && o.scale > 0;
      o.scale_given = true;
    } else if (arg == "--records") {
      ok = parse_int(value, &o.records) && o.records > 0;
    } else if (arg == "--repeat") {
      ok = parse_int(value, &o.repeat) && o.repeat > 0;
    } else if (arg == "--variants") {
      o.variants = split_commas(value);
      o.variants_given = true;
      for (const auto &v : o.variants)
        if (v != "esmio" && v != "esmio-nocache" && v != "esmio-unstaged" &&
            v != "pnetcdf-direct" && v != "gather-root" && v != "raw" && v != "cdo" &&
            v != "pio-layer")
          return fail("unknown variant '" + v + "'");
      ok = !o.variants.empty();
    } else if (arg == "--iotasks") {
      ok = parse_int(value, &o.iotasks) && o.iotasks >= 0;
    } else if (arg == "--layout") {
      o.layout = value;
      ok = o.layout == "box" || o.layout == "subset";
    } else if (arg == "--backend") {
      o.backend = value;
    } else if (arg == "--durability") {
      const std::string v = value;
      ok = v == "durable" || v == "cache";
      o.durability = v == "cache" ? Durability::cache : Durability::durable;
    } else if (arg == "--read") {
      const std::string v = value;
      ok = v == "none" || v == "cold" || v == "warm";
      o.read = v == "cold" ? ReadMode::cold : v == "warm" ? ReadMode::warm : ReadMode::none;
      o.read_given = true;
    } else if (arg == "--json") {
      o.json_path = value;
    } else if (arg == "--plot") {
      o.plot_path = value;
    } else if (arg == "--dir") {
      o.dir = value;
    } else if (arg == "--compression") {
      o.compression = value;
    } else if (arg == "--quantize") {
      o.quantize = value;
    } else if (arg == "--fields") {
      o.fields = value;
      ok = o.fields == "formula" || o.fields == "real";
    } else if (arg == "--calls") {
      o.calls = value;
      ok = o.calls == "field" || o.calls == "slice" || o.calls == "auto";
    } else if (arg == "--stage") {
      o.stage = value;
    } else if (arg == "--trace") {
      o.trace = value;
    } else if (arg == "--stage-copy") {
      o.stage_copy = value;
      ok = o.stage_copy == "close" || o.stage_copy == "background";
    } else if (arg == "--fields-of") {
      o.loop_fields = value;
      ok = o.loop_fields == "cam-fvd" || o.loop_fields == "e3sm-f";
    } else if (arg == "--compute") {
      ok = parse_double(value, &o.compute_seconds) && o.compute_seconds >= 0;
    } else if (arg == "--compute-kind") {
      const std::string v = value;
      ok = v == "busy" || v == "sleep";
      o.compute_busy = v == "busy";
    } else if (arg == "--servers") {
      ok = parse_int(value, &o.servers) && o.servers >= 1;
    } else if (arg == "--files") {
      ok = parse_int(value, &o.files) && o.files >= 1;
    } else if (arg == "--server-close") {
      o.server_close = value;
      ok = o.server_close == "wait" || o.server_close == "background";
    } else if (arg == "--async-buffer") {
      o.async_buffer = value;  // esmio checks the value (esmio_init fails on a bad one)
      ok = !o.async_buffer.empty();
    } else if (arg == "--ranks") {
      ok = parse_int(value, &o.ranks) && o.ranks > 0;
    } else if (arg == "--ranks-per-node") {
      ok = parse_int(value, &o.ranks_per_node) && o.ranks_per_node > 0;
    } else if (arg == "--cache") {
      o.cache = value;  // esmio's parser checks it
      ok = !o.cache.empty();
    } else if (arg == "--seed") {
      int s = 0;
      ok = parse_int(value, &s);
      o.seed = static_cast<unsigned>(s);
    } else {
      return fail("unknown option " + arg);
    }
    if (!ok) return fail("bad value '" + std::string(value) + "' for " + arg);
  }
  if (o.case_name.empty()) return fail("no CASE given");
  return 0;
}

}  // namespace esmio_bench
