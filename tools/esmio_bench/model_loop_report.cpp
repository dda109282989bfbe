// Table and JSON of case model-loop. The hidden fraction is computed from the medians of the
// three runs (and per repeat, from the runs of that repeat, to show its spread).
#include "model_loop_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "machine.hpp"
#include "stats.hpp"

namespace esmio_bench {

namespace {

// A JSON number, or null for NaN (an undefined fraction).
std::string number(double x, const char *fmt = "%.6g") {
  if (!std::isfinite(x)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

std::string array_json(const std::vector<double> &v, const char *fmt = "%.6f") {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + number(v[i], fmt);
  return out + "]";
}

std::string summary_json(const std::vector<double> &v) {
  const Summary s = summarize(v);
  return "{\"min\": " + number(s.min) + ", \"median\": " + number(s.median) +
         ", \"max\": " + number(s.max) + "}";
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

std::string run_json(const LoopRun &run) {
  return "{\"seconds\": " + array_json(run.seconds) +
         ", \"seconds_summary\": " + summary_json(run.seconds) +
         ", \"peak_rss_mib\": " + array_json(run.peak_rss_mib, "%.1f") +
         ", \"baseline_rss_mib\": " + array_json(run.baseline_rss_mib, "%.1f") + "}";
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
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  const double tc = median(r.compute.seconds), ts = median(r.sync.seconds),
               ta = median(r.async.seconds);
  std::fprintf(f, "{\n  \"schema\": \"esmio-bench/1\",\n  \"case\": \"model-loop\",\n");
  std::fprintf(f, "  \"machine\": {");
  const auto machine = describe_machine(r.dir);
  for (std::size_t i = 0; i < machine.size(); ++i)
    std::fprintf(f, "%s\n    %s: %s", i ? "," : "", json_string(machine[i].first).c_str(),
                 machine[i].second.c_str());
  std::fprintf(f, "\n  },\n  \"command\": %s,\n", json_string(r.command).c_str());
  std::fprintf(f, "  \"fields_case\": %s, \"description\": %s, \"fields\": %s,\n",
               json_string(r.fields_case).c_str(), json_string(r.description).c_str(),
               json_string(r.fields).c_str());
  std::fprintf(f,
               "  \"steps\": %d, \"compute_seconds\": %s, \"compute_kind\": %s, "
               "\"compute_passes\": {\"each_rank\": %lld, \"calibrated_min\": %lld, "
               "\"calibrated_max\": %lld},\n",
               r.steps, number(r.compute_seconds).c_str(),
               json_string(r.compute_busy ? "busy" : "sleep").c_str(), r.passes, r.passes_min,
               r.passes_max);
  std::fprintf(f,
               "  \"compute_ranks\": %d, \"servers\": %d, \"repeat\": %d, \"scale\": %s, "
               "\"backend\": %s, \"layout\": %s, \"settings_async\": %s,\n",
               r.compute_ranks, r.servers, r.repeat, number(r.scale).c_str(),
               json_string(r.backend).c_str(), json_string(r.layout).c_str(),
               json_string(r.settings_async).c_str());
  std::fprintf(f,
               "  \"durability\": %s, \"label\": %s, \"loadavg_start\": %s, \"loadavg_end\": %s,\n",
               json_string(r.durability).c_str(), json_string(r.label).c_str(),
               json_string(r.loadavg_start).c_str(), json_string(r.loadavg_end).c_str());
  std::fprintf(f, "  \"seconds\": {\"compute\": %s, \"sync\": %s, \"async\": %s},\n",
               array_json(r.compute.seconds).c_str(), array_json(r.sync.seconds).c_str(),
               array_json(r.async.seconds).c_str());
  std::fprintf(f, "  \"runs\": {\n    \"compute\": %s,\n    \"sync\": %s,\n    \"async\": %s,\n",
               run_json(r.compute).c_str(), run_json(r.sync).c_str(), run_json(r.async).c_str());
  std::fprintf(f, "    \"server\": {\"peak_rss_mib\": %s, \"baseline_rss_mib\": %s}\n  },\n",
               array_json(r.server.peak_rss_mib, "%.1f").c_str(),
               array_json(r.server.baseline_rss_mib, "%.1f").c_str());
  std::fprintf(f, "  \"hidden_fraction\": %s, \"hidden_fraction_per_repeat\": %s,\n",
               number(hidden_fraction(tc, ts, ta)).c_str(),
               array_json(hidden_per_repeat(r), "%.6g").c_str());
  std::fprintf(f,
               "  \"async_wait_seconds\": %s, \"async_convert_seconds\": %s, "
               "\"async_post_seconds\": %s,\n",
               array_json(r.async_wait).c_str(), array_json(r.async_convert).c_str(),
               array_json(r.async_post).c_str());
  std::fprintf(f,
               "  \"verified\": {\"sync\": %s, \"async\": %s}, \"verify_note\": {\"sync\": %s, "
               "\"async\": %s},\n",
               r.sync_verified ? "true" : "false", r.async_verified ? "true" : "false",
               json_string(r.sync_note).c_str(), json_string(r.async_note).c_str());
  std::fprintf(f, "  \"same_values\": %s,\n",
               r.sync_verified && r.async_verified ? "true" : "false");
  std::fprintf(f, "  \"peak_rss_mib\": {\"compute\": %s, \"server\": %s}, \"peak_reset\": %s\n}\n",
               number(std::max({largest(r.compute.peak_rss_mib), largest(r.sync.peak_rss_mib),
                                largest(r.async.peak_rss_mib)}),
                      "%.1f")
                   .c_str(),
               number(largest(r.server.peak_rss_mib), "%.1f").c_str(),
               r.peak_reset ? "true" : "false");
  return std::fclose(f) == 0;
}

}  // namespace esmio_bench
