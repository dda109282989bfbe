// The outputs of case model-loop: its table on stdout and its JSON (docs/bench.md), from what
// the three runs measured, gathered on rank 0.
#pragma once

#include <string>
#include <vector>

namespace esmio_bench {

// One of the runs (compute only, synchronous, with servers) over every repeat.
struct LoopRun {
  std::vector<double> seconds;           // per repeat: end to end, slowest compute rank
  std::vector<double> peak_rss_mib;      // per rank taking part: VmHWM, max over repeats
  std::vector<double> baseline_rss_mib;  // per rank: RSS when its peak was reset (first repeat)
};

struct ModelLoopReport {
  std::string command, fields_case, description, fields, backend, layout, settings_async;
  std::string durability, label;  // "durable" / "durable (fsync)" or "cache" / "page cache"
  std::string dir, loadavg_start, loadavg_end;
  int steps = 0, compute_ranks = 0, servers = 0, repeat = 0;
  int files = 1;             // the steps spread over this many files (--files)
  std::string server_close;  // esmio's io_server_close for them (--server-close)
  double scale = 1, compute_seconds = 0;
  bool compute_busy = true;
  long long passes = 0;  // busy: passes per step on every compute rank, the median of:
  long long passes_min = 0, passes_max = 0;  // the ranks' own calibrations
  LoopRun compute, sync, async;              // async: its compute ranks
  LoopRun server;                            // the server ranks during the run with servers
  bool peak_reset = true;  // false: the kernel refused clear_refs; peaks are since start
  // Run with servers, per repeat, max over compute ranks: esmio's trace counters there.
  std::vector<double> async_wait, async_convert, async_post;
  // Per repeat, max over compute ranks: from the last step's writes to the file closed (and
  // synced where durable). With servers: the wait for the records they still write.
  std::vector<double> sync_closing, async_closing;
  // Per repeat, with servers: posting (async_post, max over compute ranks) of the first step,
  // and the median of the later steps' (empty with one step). The first step's messages are
  // the first to touch the ring's pages.
  std::vector<double> async_post_first, async_post_later;
  // Per repeat, max over compute ranks: esmio_init with servers, outside the loop's clock (with
  // async_buffer_pages=init the ring's pages are taken there).
  std::vector<double> async_init;
  // The files of the first repeat, checked value by value against the values written
  // (verify_file: every value, and the fill value in the holes).
  bool sync_verified = false, async_verified = false;
  std::string sync_note, async_note;
};

// 1 - (t_async - t_compute) / (t_sync - t_compute); NaN where the synchronous run took no
// longer than compute only (no I/O time to hide: the fraction is undefined).
double hidden_fraction(double t_compute, double t_sync, double t_async);

void print_model_loop(const ModelLoopReport &r);
// Returns false when the file cannot be written.
bool write_model_loop_json(const std::string &path, const ModelLoopReport &r);

}  // namespace esmio_bench
