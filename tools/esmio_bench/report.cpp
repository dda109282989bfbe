// Table and JSON. Every rate is labelled with what it measured: "durable (fsync)" writes reached
// the disk, "page cache" writes and warm reads did not have to.
#include "report.hpp"

#include <cstdio>
#include <set>
#include <utility>

#include "bench_json.hpp"
#include "machine.hpp"
#include "real_fields.hpp"
#include "report_variables.hpp"
#include "stats.hpp"

namespace esmio_bench {

namespace {

constexpr double kMiB = 1048576.0;

std::vector<double> rates(const Result &r, double unit) {
  std::vector<double> out;
  for (double s : r.seconds) out.push_back(s > 0 ? static_cast<double>(unit) / s : 0);
  return out;
}

Summary mib_per_s(const Result &r) { return summarize(rates(r, r.bytes / kMiB)); }
Summary mvalues_per_s(const Result &r) { return summarize(rates(r, r.values / 1e6)); }

// Median over repeats of each phase's seconds.
std::vector<std::pair<std::string, double>> median_phases(const Result &r) {
  std::vector<std::pair<std::string, double>> out;
  if (r.phases.empty()) return out;
  for (const auto &kv : r.phases.front()) {
    std::vector<double> v;
    for (const auto &p : r.phases) {
      auto it = p.find(kv.first);
      v.push_back(it == p.end() ? 0 : it->second);
    }
    out.emplace_back(kv.first, summarize(v).median);
  }
  return out;
}

std::string size_label(int bin) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  const int u = bin / 10;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d %s", 1 << (bin % 10), units[u < 5 ? u : 4]);
  return buf;
}

// x as printf formats it with fmt, for the table.
std::string number(double x, const char *fmt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

Json summary_json(const Summary &s) {
  Json out = Json::object();
  out["min"] = number_or_null(s.min);
  out["median"] = number_or_null(s.median);
  out["max"] = number_or_null(s.max);
  return out;
}

// A ratio that was computed (above 0), or null.
Json ratio_or_null(double x) { return x > 0 ? number_or_null(x) : Json(nullptr); }

}  // namespace

const Result *find_result(const std::vector<Result> &results, const std::string &operation,
                          const std::string &variant) {
  for (const Result &r : results)
    if (r.operation == operation && r.variant == variant && r.error.empty() && !r.seconds.empty())
      return &r;
  return nullptr;
}

double ratio_of_medians(const Result &a, const Result *b) {
  if (!b || a.seconds.empty() || !a.error.empty() || b->bytes == 0 || a.bytes == 0) return 0;
  const double sa = summarize(a.seconds).median, sb = summarize(b->seconds).median;
  if (sa <= 0 || sb <= 0) return 0;
  // Rates, not seconds: cdo's file holds the same values count but may differ in bytes.
  return (a.bytes / sa) / (b->bytes / sb);
}

void print_table(const RunInfo &run, const std::vector<Result> &results) {
  std::printf("\nesmio-bench %s: %s\n", run.case_name.c_str(), run.description.c_str());
  std::printf(
      "  %d rank(s), %d record(s), %d repeat(s), variants interleaved per repeat; "
      "decompositions (esmio, setup): %.4f s\n",
      run.ranks, run.records, run.repeat, run.setup_seconds);
  // Which values: file sizes under compression only mean something with real fields.
  std::printf("  fields: %s\n", fields_in_use().c_str());
  std::printf("  load average (1, 5, 15 min) at start: %s, at end: %s\n", run.loadavg_start.c_str(),
              run.loadavg_end.c_str());
  if (!results.empty())
    std::printf("  per file: %.1f MiB of float32, %.2f million values%s\n",
                results.front().bytes / kMiB, results.front().values / 1e6,
                run.file_bytes > results.front().bytes
                    ? (", " + number(run.file_bytes / kMiB, "%.1f") +
                       " MiB with the holes' fill values (what raw writes; rates count the data)")
                          .c_str()
                    : "");
  std::set<std::string> ops;
  for (const Result &r : results) ops.insert(r.operation);
  for (const char *op : {"write", "read"}) {
    if (!ops.count(op)) continue;
    std::printf("\n  %-6s %-15s %-17s %3s  %-22s %-25s %8s %6s %6s %8s  %s\n", op, "variant",
                "label", "io", "seconds min/med/max", "MiB/s min/med/max", "Mval/s", "x raw",
                "x pnc", "RSS MiB", "verified");
    for (const Result &r : results) {
      if (r.operation != op) continue;
      if (!r.error.empty()) {
        std::printf("  %-6s %-15s FAILED: %s\n", "", r.variant.c_str(), r.error.c_str());
        continue;
      }
      const Summary s = summarize(r.seconds), m = mib_per_s(r), v = mvalues_per_s(r);
      double rss = 0;
      for (double x : r.peak_rss_mib) rss = std::max(rss, x);
      const double xr = ratio_of_medians(r, find_result(results, op, "raw"));
      const double xp = ratio_of_medians(r, find_result(results, op, "pnetcdf-direct"));
      std::printf(
          "  %-6s %-15s %-17s %3d  %6.3f %6.3f %6.3f  %7.1f %7.1f %7.1f  %8.1f %6s %6s %8.1f  %s\n",
          "", r.variant.c_str(), r.label.c_str(), r.io_tasks, s.min, s.median, s.max, m.min,
          m.median, m.max, v.median, xr > 0 ? number(xr, "%.2f").c_str() : "-",
          xp > 0 ? number(xp, "%.2f").c_str() : "-", rss,
          r.verified              ? "yes"
          : r.verify_note.empty() ? "no"
                                  : "no*");
    }
  }
  std::printf("\n  phases (median seconds over repeats, max over ranks):\n");
  for (const Result &r : results) {
    const auto ph = median_phases(r);
    if (ph.empty() || !r.error.empty()) continue;
    std::printf("    %-5s %-15s", r.operation.c_str(), r.variant.c_str());
    for (const auto &p : ph)
      if (p.second > 0) std::printf(" %s %.3f", p.first.c_str(), p.second);
    std::printf("\n");
  }
  bool any_hist = false;
  for (const Result &r : results) {
    int64_t total = 0;
    for (int64_t c : r.request_histogram) total += c;
    if (total == 0 || !r.error.empty()) continue;
    if (!any_hist)
      std::printf("\n  requests handed to the storage library (last repeat, all ranks):\n");
    any_hist = true;
    std::printf("    %-5s %-15s %lld:", r.operation.c_str(), r.variant.c_str(), (long long)total);
    for (std::size_t b = 0; b < r.request_histogram.size(); ++b)
      if (r.request_histogram[b])
        std::printf(" [%s..) %lld", size_label(static_cast<int>(b)).c_str(),
                    (long long)r.request_histogram[b]);
    std::printf("\n");
  }
  std::printf(
      "\n  peak RSS per rank (MiB, max over repeats; the bench's own buffers before the"
      " variant in brackets):\n");
  for (const Result &r : results) {
    if (r.peak_rss_mib.empty() || !r.error.empty()) continue;
    std::printf("    %-5s %-15s", r.operation.c_str(), r.variant.c_str());
    for (std::size_t i = 0; i < r.peak_rss_mib.size(); ++i)
      std::printf(" %.1f [%.1f]", r.peak_rss_mib[i],
                  i < r.baseline_rss_mib.size() ? r.baseline_rss_mib[i] : 0.0);
    std::printf("\n");
  }
  for (const Result &r : results)
    if (r.file_bytes >= 0 && r.operation == "write" && r.error.empty())
      std::printf(
          "  file  %-15s %.1f MiB on disk, %.2f x the float32 data\n", r.variant.c_str(),
          static_cast<double>(r.file_bytes) / 1048576.0,
          r.bytes > 0 ? static_cast<double>(r.file_bytes) / static_cast<double>(r.bytes) : 0.0);
  for (const Result &r : results)
    if (!r.verify_note.empty())
      std::printf("  verify %-5s %-15s %s\n", r.operation.c_str(), r.variant.c_str(),
                  r.verify_note.c_str());
  for (const Result &r : results) print_variable_table(r);
  for (const Result &r : results)
    if (!r.residency.empty()) {
      std::printf("  %-5s %-15s resident before reading:", r.operation.c_str(), r.variant.c_str());
      for (double x : r.residency) std::printf(" %.0f%%", 100 * x);
      std::printf("\n");
    }
  std::printf("\n");
  std::fflush(stdout);
}

bool write_json(const std::string &path, const RunInfo &run, const std::vector<Result> &results) {
  Json doc = Json::object();
  doc["schema"] = "esmio-bench/1";
  doc["machine"] = describe_machine(run.dir);
  doc["command"] = run.command;
  Json info = Json::object();
  info["case"] = run.case_name;
  info["description"] = run.description;
  info["ranks"] = run.ranks;
  info["records"] = run.records;
  info["repeat"] = run.repeat;
  info["scale"] = number_or_null(run.scale);
  info["setup_seconds"] = number_or_null(run.setup_seconds);
  info["loadavg_start"] = run.loadavg_start;
  info["loadavg_end"] = run.loadavg_end;
  info["fields"] = fields_in_use();
  info["file_bytes"] = run.file_bytes;
  info["nvars"] = run.nvars;
  doc["run"] = std::move(info);
  Json entries = Json::array();
  for (const Result &r : results) {
    Json j = Json::object();
    j["case"] = r.case_name;
    j["operation"] = r.operation;
    j["variant"] = r.variant;
    j["ranks"] = r.ranks;
    j["io_tasks"] = r.io_tasks;
    j["durability"] = r.durability;
    j["read"] = r.read_mode;
    j["label"] = r.label;
    j["settings"] = r.settings;
    j["bytes"] = r.bytes;
    j["values"] = r.values;
    j["file_bytes"] = r.file_bytes;
    j["repeats"] = r.seconds.size();
    j["seconds"] = numbers(r.seconds);
    j["mib_per_s"] = summary_json(mib_per_s(r));
    j["mvalues_per_s"] = summary_json(mvalues_per_s(r));
    j["ratio_to_raw"] =
        ratio_or_null(ratio_of_medians(r, find_result(results, r.operation, "raw")));
    j["ratio_to_pnetcdf_direct"] =
        ratio_or_null(ratio_of_medians(r, find_result(results, r.operation, "pnetcdf-direct")));
    Json phases = Json::object();
    for (const auto &p : median_phases(r)) phases[p.first] = number_or_null(p.second);
    j["phases"] = std::move(phases);
    int64_t requests = 0;
    for (int64_t c : r.request_histogram) requests += c;
    j["requests"] = requests;
    j["request_histogram"] = r.request_histogram;
    j["peak_rss_mib"] = numbers(r.peak_rss_mib);
    j["baseline_rss_mib"] = numbers(r.baseline_rss_mib);
    j["residency_before_read"] = numbers(r.residency);
    int64_t stored = 0;
    for (const VarCheck &v : r.variables) stored += v.stored_bytes >= 0 ? v.stored_bytes : 0;
    const double ratio = size_ratio(r);
    j["stored_bytes"] = ratio > 0 ? Json(stored) : Json(nullptr);
    j["size_ratio"] = ratio_or_null(ratio);
    j["variables"] = variables_json(r);
    j["verified"] = r.verified;
    j["verify_note"] = r.verify_note;
    j["error"] = r.error.empty() ? Json(nullptr) : Json(r.error);
    entries.push_back(std::move(j));
  }
  doc["results"] = std::move(entries);
  return write_json_file(path, doc);
}

}  // namespace esmio_bench
