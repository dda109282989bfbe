// Command-line options of esmio-bench: one struct, parsed once on every rank (argv is the same
// everywhere under mpirun, so no broadcast is needed).
#pragma once

#include <string>
#include <vector>

namespace esmio_bench {

enum class Durability { durable, cache };
enum class ReadMode { none, cold, warm };

struct Options {
  std::string case_name;
  double scale = 1.0;
  bool scale_given = false;
  int records = 0;  // 0: the case's own default
  int repeat = 5;
  std::vector<std::string> variants = {"esmio", "pnetcdf-direct", "gather-root", "raw"};
  bool variants_given = false;
  int iotasks = 0;  // 0: esmio's default (every rank)
  std::string layout = "box";
  std::string backend = "pnetcdf";
  Durability durability = Durability::durable;
  ReadMode read = ReadMode::none;
  bool read_given = false;
  std::string json_path;
  std::string plot_path;
  std::string dir = "esmio-bench-out";
  bool keep = false;
  // --wrong-read: a test hook; the last rank changes one value of every record it reads, so
  // that a test sees the read check fail the run.
  bool wrong_read = false;
  unsigned seed = 12345;
  // How esmio's variants hand data over: "field" (one write_darray per variable record),
  // "slice" (one per memory slice, e.g. latitude row), "auto" (slice for 'small' only).
  std::string calls = "auto";
  // netCDF-4 storage of every variable for the esmio variant (backend netcdf4): esmio's
  // compression and quantize settings, as "default:<spec>". Empty: none.
  std::string compression, quantize;
  // The values written: "formula" (value_of: smooth, fast to check) or "real" (real model
  // fields, one source per variable resampled onto its grid, real_fields.hpp: what
  // compression figures need).
  std::string fields = "formula";
  // Case model-loop: the field set each step writes (cam-fvd or e3sm-f), the compute phase
  // before each step (seconds; busy arithmetic or sleep), the I/O servers of its async run and
  // their ring buffer per compute rank (esmio's async_buffer; empty: esmio's default).
  std::string loop_fields = "cam-fvd";
  double compute_seconds = 1.0;
  bool compute_busy = true;
  int servers = 1;
  std::string async_buffer;
  // model-loop: the steps spread over this many files, each created at its first step and
  // closed after its last (a model's history files, one per month), and esmio's
  // io_server_close for them (wait or background: the close is posted and the servers finish
  // the file while the next file's steps compute; the loop waits for every file at its end,
  // esmio_stage_wait, inside the clock).
  int files = 1;
  std::string server_close = "wait";
  // --stage DIR: the esmio variant writes its file in DIR and copies it back at close (esmio's
  // stage_dir); its phases show the copy-back as stage_copy.
  std::string stage;
  // --stage-copy close|background: esmio's stage_copy. background: the esmio variant's time
  // ends at esmio_close (time to close) and esmio_stage_wait runs after the clock.
  std::string stage_copy = "close";
  // --trace DIR: the esmio variant's last write traced (esmio_trace_write) and reported
  // (esmio-report) into DIR.
  std::string trace;
  // esmio-bench plan CASE: the planner simulation's case, its rank count (0: the case's), the
  // ranks per node of the automatic I/O task rule, and the write cache spec (empty: esmio's).
  std::string plan_case;
  int ranks = 0;
  int ranks_per_node = 128;
  std::string cache;
  std::string command_line;  // argv joined, recorded in the JSON
};

// Parses argv. On --help prints the usage (rank 0 only) and returns 1; on a bad option prints
// the reason and returns 2; returns 0 when the run should go ahead.
int parse_options(int argc, char **argv, int rank, Options *out);

const char *to_string(Durability d);
const char *to_string(ReadMode r);

}  // namespace esmio_bench
