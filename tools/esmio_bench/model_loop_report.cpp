// Table and JSON of case model-loop. The hidden fraction is computed from the medians of the
// three runs (and per repeat, from the runs of that repeat, to show its spread).
#include "model_loop_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench_json.hpp"
#include "machine.hpp"
#include "stats.hpp"

namespace esmio_bench {

namespace {

Json summary_json(const std::vector<double> &v) {
  const Summary s = summarize(v);
  Json out = Json::object();
  out["min"] = number_or_null(s.min);
  out["median"] = number_or_null(s.median);
  out["max"] = number_or_null(s.max);
  return out;
}

std::string triple(const std::vector<double> &v) {
  const Summary s = summarize(v);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%7.3f / %7.3f / %7.3f", s.min, s.median, s.max);
  return buf;
}

double median(const std::vector<double> &v) { return summarize(v).median; }

double largest(const std::vector<double> &v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

std::vector<double> hidden_per_repeat(const ModelLoopReport &r) {
  std::vector<double> out;
  for (std::size_t i = 0;
       i < r.compute.seconds.size() && i < r.sync.seconds.size() && i < r.async.seconds.size(); ++i)
    out.push_back(hidden_fraction(r.compute.seconds[i], r.sync.seconds[i], r.async.seconds[i]));
  return out;
}

std::string percent(double x) {
  if (!std::isfinite(x)) return "undefined (no I/O time)";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100 * x);
  return buf;
}

void print_peaks(const char *what, const LoopRun &run, int first_rank) {
  std::printf("    %-22s", what);
  for (std::size_t i = 0; i < run.peak_rss_mib.size(); ++i)
    std::printf(" r%zu %.1f [%.1f]", first_rank + i, run.peak_rss_mib[i],
                i < run.baseline_rss_mib.size() ? run.baseline_rss_mib[i] : 0.0);
  std::printf("\n");
}

Json run_json(const LoopRun &run) {
  Json out = Json::object();
  out["seconds"] = numbers(run.seconds);
  out["seconds_summary"] = summary_json(run.seconds);
  out["peak_rss_mib"] = numbers(run.peak_rss_mib);
  out["baseline_rss_mib"] = numbers(run.baseline_rss_mib);
  return out;
}

}  // namespace

double hidden_fraction(double t_compute, double t_sync, double t_async) {
  if (!(t_sync > t_compute)) return std::nan("");
  return 1.0 - (t_async - t_compute) / (t_sync - t_compute);
}

void print_model_loop(const ModelLoopReport &r) {
  const double tc = median(r.compute.seconds), ts = median(r.sync.seconds),
               ta = median(r.async.seconds);
  std::printf("\nesmio-bench model-loop: %s (%s)\n", r.fields_case.c_str(), r.description.c_str());
  if (r.compute_busy)
    std::printf(
        "  %d steps, each: %.2f s of busy compute (a fixed amount of arithmetic: %lld passes on "
        "every rank, the median of the ranks' calibrations, %lld to %lld), then one record of "
        "every variable by write_darray\n",
        r.steps, r.compute_seconds, r.passes, r.passes_min, r.passes_max);
  else
    std::printf(
        "  %d steps, each: %.2f s of sleep, then one record of every variable by write_darray\n",
        r.steps, r.compute_seconds);
  std::printf(
      "  the model runs on the same %d compute rank(s) in all three runs; in the compute-only and "
      "synchronous runs the %d server rank(s) are idle (a barrier that sleeps)\n",
      r.compute_ranks, r.servers);
  std::printf("  esmio: backend %s, layout %s; with servers: %s\n", r.backend.c_str(),
              r.layout.c_str(), r.settings_async.c_str());
  if (r.files > 1 || r.server_close != "wait")
    std::printf(
        "  %d file(s) of %d step(s), each created at its first step and closed after its last; "
        "io_server_close=%s%s\n",
        r.files, r.steps / r.files, r.server_close.c_str(),
        r.server_close == "background"
            ? " (with servers the loop's end waits for every file, esmio_stage_wait, in the clock)"
            : "");
  std::printf(
      "  seconds: %s, end to end (every run generates the records' values; create, writes, "
      "close%s; slowest compute rank), %d repeat(s) interleaved\n",
      r.label.c_str(), r.durability == "durable" ? ", fsync" : "", r.repeat);
  std::printf("  fields: %s\n", r.fields.c_str());
  std::printf("  load average (1, 5, 15 min) at start: %s, at end: %s\n\n", r.loadavg_start.c_str(),
              r.loadavg_end.c_str());
  std::printf("  %-24s %-29s %10s  %s\n", "run", "seconds min / median / max", "I/O s (med)",
              "peak RSS MiB (max rank)");
  std::printf("  %-24s %s  %10s   %.1f\n", "compute only", triple(r.compute.seconds).c_str(), "-",
              largest(r.compute.peak_rss_mib));
  std::printf("  %-24s %s  %10.3f   %.1f\n", "esmio synchronous", triple(r.sync.seconds).c_str(),
              ts - tc, largest(r.sync.peak_rss_mib));
  char with[48];
  std::snprintf(with, sizeof with, "esmio, %d server(s)", r.servers);
  std::printf("  %-24s %s  %10.3f   %.1f compute rank, %.1f server\n", with,
              triple(r.async.seconds).c_str(), ta - tc, largest(r.async.peak_rss_mib),
              largest(r.server.peak_rss_mib));
  const std::vector<double> per_repeat = hidden_per_repeat(r);
  std::vector<double> defined;
  for (double h : per_repeat)
    if (std::isfinite(h)) defined.push_back(h);
  std::printf(
      "\n  I/O time hidden: %s   (1 - (t_async - t_compute) / (t_sync - t_compute), medians",
      percent(hidden_fraction(tc, ts, ta)).c_str());
  if (!defined.empty())
    std::printf("; per repeat %s to %s", percent(summarize(defined).min).c_str(),
                percent(summarize(defined).max).c_str());
  std::printf(")\n");
  std::printf("  blocked on back-pressure (async_wait, max over compute ranks): %s s\n",
              triple(r.async_wait).c_str());
  std::printf(
      "  with servers, on the compute ranks (cannot be hidden): convert %s s, posting (convert "
      "included) %s s\n",
      triple(r.async_convert).c_str(), triple(r.async_post).c_str());
  std::printf(
      "  esmio_init with servers (outside the loop's clock; max over compute ranks): %s s "
      "(with async_buffer_pages=init, the default, the ring's pages are taken there)\n",
      triple(r.async_init).c_str());
  std::printf(
      "  closing (after the last step: close%s; max over compute ranks): synchronous %s s, with "
      "servers %s s\n",
      r.durability == "durable" ? ", fsync" : "", triple(r.sync_closing).c_str(),
      triple(r.async_closing).c_str());
  if (ts > tc) {
    // What the servers left on the compute ranks' clock, part by part (medians): the posting
    // every call pays, and the wait at close for the records the servers still write, which
    // no compute follows to hide it; what is left over is the rest (noise, stragglers).
    const double unhidden = ta - tc, posting = median(r.async_post),
                 closing = median(r.async_closing);
    std::printf(
        "  not hidden: %.3f s = posting %.3f + waiting at close %.3f + the rest %.3f; without "
        "the wait at close %s would be hidden\n",
        unhidden, posting, closing, unhidden - posting - closing,
        percent(1.0 - posting / (ts - tc)).c_str());
    if (!r.async_post_later.empty() && r.steps > 1) {
      // A long run pays the first step's page touching once and each later step's posting
      // per record: what it tends to hide is 1 - (a later step's posting) / (one record's
      // synchronous I/O).
      const double later = median(r.async_post_later);
      std::printf(
          "  posting per step: the first %.3f s (one-time costs fall there), each later one %.3f s "
          "(median): a run of many records would hide %s\n",
          median(r.async_post_first), later, percent(1.0 - later / ((ts - tc) / r.steps)).c_str());
    }
  }
  std::printf("  verified, synchronous file: %s%s\n", r.sync_verified ? "yes, " : "NO, ",
              r.sync_note.c_str());
  std::printf("  verified, file written by the servers: %s%s\n",
              r.async_verified ? "yes, " : "NO, ", r.async_note.c_str());
  std::printf(
      "\n  peak RSS per rank (MiB, max over repeats; RSS when the peak was reset in "
      "brackets)%s:\n",
      r.peak_reset ? "" : " - the kernel refused the reset: peaks since the start");
  print_peaks("compute only", r.compute, 0);
  print_peaks("synchronous", r.sync, 0);
  print_peaks("with servers, compute", r.async, 0);
  print_peaks("with servers, server", r.server, r.compute_ranks);
  std::printf("\n");
  std::fflush(stdout);
}

bool write_model_loop_json(const std::string &path, const ModelLoopReport &r) {
  const double tc = median(r.compute.seconds), ts = median(r.sync.seconds),
               ta = median(r.async.seconds);
  Json doc = Json::object();
  doc["schema"] = "esmio-bench/1";
  doc["case"] = "model-loop";
  doc["machine"] = describe_machine(r.dir);
  doc["command"] = r.command;
  doc["fields_case"] = r.fields_case;
  doc["description"] = r.description;
  doc["fields"] = r.fields;
  doc["steps"] = r.steps;
  doc["files"] = r.files;
  doc["io_server_close"] = r.server_close;
  doc["compute_seconds"] = number_or_null(r.compute_seconds);
  doc["compute_kind"] = r.compute_busy ? "busy" : "sleep";
  doc["compute_passes"] = {
      {"each_rank", r.passes}, {"calibrated_min", r.passes_min}, {"calibrated_max", r.passes_max}};
  doc["compute_ranks"] = r.compute_ranks;
  doc["servers"] = r.servers;
  doc["repeat"] = r.repeat;
  doc["scale"] = number_or_null(r.scale);
  doc["backend"] = r.backend;
  doc["layout"] = r.layout;
  doc["settings_async"] = r.settings_async;
  doc["durability"] = r.durability;
  doc["label"] = r.label;
  doc["loadavg_start"] = r.loadavg_start;
  doc["loadavg_end"] = r.loadavg_end;
  doc["seconds"] = {{"compute", numbers(r.compute.seconds)},
                    {"sync", numbers(r.sync.seconds)},
                    {"async", numbers(r.async.seconds)}};
  doc["runs"] = {{"compute", run_json(r.compute)},
                 {"sync", run_json(r.sync)},
                 {"async", run_json(r.async)},
                 {"server",
                  {{"peak_rss_mib", numbers(r.server.peak_rss_mib)},
                   {"baseline_rss_mib", numbers(r.server.baseline_rss_mib)}}}};
  // NaN (null) where the synchronous run took no longer than compute only.
  doc["hidden_fraction"] = number_or_null(hidden_fraction(tc, ts, ta));
  doc["hidden_fraction_per_repeat"] = numbers(hidden_per_repeat(r));
  doc["async_wait_seconds"] = numbers(r.async_wait);
  doc["async_convert_seconds"] = numbers(r.async_convert);
  doc["async_post_seconds"] = numbers(r.async_post);
  doc["sync_closing_seconds"] = numbers(r.sync_closing);
  doc["async_closing_seconds"] = numbers(r.async_closing);
  doc["async_init_seconds"] = numbers(r.async_init);
  doc["async_post_first_step_seconds"] = numbers(r.async_post_first);
  doc["async_post_later_step_seconds"] = numbers(r.async_post_later);
  doc["verified"] = {{"sync", r.sync_verified}, {"async", r.async_verified}};
  doc["verify_note"] = {{"sync", r.sync_note}, {"async", r.async_note}};
  doc["same_values"] = r.sync_verified && r.async_verified;
  doc["peak_rss_mib"] = {{"compute", number_or_null(std::max({largest(r.compute.peak_rss_mib),
                                                              largest(r.sync.peak_rss_mib),
                                                              largest(r.async.peak_rss_mib)}))},
                         {"server", number_or_null(largest(r.server.peak_rss_mib))}};
  doc["peak_reset"] = r.peak_reset;
  return write_json_file(path, doc);
}

}  // namespace esmio_bench
