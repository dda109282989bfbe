// Table and JSON. Every rate is labelled with what it measured: "durable (fsync)" writes reached
// the disk, "page cache" writes and warm reads did not have to.
#include "report.hpp"

#include <cstdio>
#include <set>

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

std::string number(double x, const char *fmt = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

std::string summary_json(const Summary &s) {
  return "{\"min\": " + number(s.min) + ", \"median\": " + number(s.median) +
         ", \"max\": " + number(s.max) + "}";
}

template <typename T>
std::string array_json(const std::vector<T> &v, const char *fmt) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    out += (i ? ", " : "") + number(static_cast<double>(v[i]), fmt);
  return out + "]";
}

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
          r.operation == "read"   ? "-"
          : r.verified            ? "yes"
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
    if (!r.verify_note.empty() && r.operation == "write")
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
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "{\n  \"schema\": \"esmio-bench/1\",\n  \"machine\": {");
  const auto machine = describe_machine(run.dir);
  for (std::size_t i = 0; i < machine.size(); ++i)
    std::fprintf(f, "%s\n    %s: %s", i ? "," : "", json_string(machine[i].first).c_str(),
                 machine[i].second.c_str());
  std::fprintf(f, "\n  },\n  \"command\": %s,\n", json_string(run.command).c_str());
  std::fprintf(f,
               "  \"run\": {\"case\": %s, \"description\": %s, \"ranks\": %d, \"records\": %d, "
               "\"repeat\": %d, \"scale\": %s, \"setup_seconds\": %s, \"loadavg_start\": %s, "
               "\"loadavg_end\": %s, \"fields\": %s, \"file_bytes\": %lld, \"nvars\": %d},\n",
               json_string(run.case_name).c_str(), json_string(run.description).c_str(), run.ranks,
               run.records, run.repeat, number(run.scale).c_str(),
               number(run.setup_seconds).c_str(), json_string(run.loadavg_start).c_str(),
               json_string(run.loadavg_end).c_str(), json_string(fields_in_use()).c_str(),
               static_cast<long long>(run.file_bytes), run.nvars);
  std::fprintf(f, "  \"results\": [");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    const Result *raw = find_result(results, r.operation, "raw");
    const Result *pnc = find_result(results, r.operation, "pnetcdf-direct");
    const double xr = ratio_of_medians(r, raw), xp = ratio_of_medians(r, pnc);
    std::string phases = "{";
    const auto ph = median_phases(r);
    for (std::size_t k = 0; k < ph.size(); ++k)
      phases += (k ? ", " : "") + json_string(ph[k].first) + ": " + number(ph[k].second);
    phases += "}";
    int64_t requests = 0;
    for (int64_t c : r.request_histogram) requests += c;
    std::fprintf(f, "%s\n    {", i ? "," : "");
    std::fprintf(f, "\"case\": %s, \"operation\": %s, \"variant\": %s, ",
                 json_string(r.case_name).c_str(), json_string(r.operation).c_str(),
                 json_string(r.variant).c_str());
    std::fprintf(f, "\"ranks\": %d, \"io_tasks\": %d, \"durability\": %s, \"read\": %s, ", r.ranks,
                 r.io_tasks, json_string(r.durability).c_str(), json_string(r.read_mode).c_str());
    std::fprintf(f, "\"label\": %s,\n     \"settings\": %s,\n     ", json_string(r.label).c_str(),
                 json_string(r.settings).c_str());
    std::fprintf(f, "\"bytes\": %lld, \"values\": %lld, \"file_bytes\": %lld, \"repeats\": %zu,\n",
                 (long long)r.bytes, (long long)r.values, (long long)r.file_bytes,
                 r.seconds.size());
    std::fprintf(f, "     \"seconds\": %s,\n", array_json(r.seconds, "%.6f").c_str());
    std::fprintf(f, "     \"mib_per_s\": %s, \"mvalues_per_s\": %s,\n",
                 summary_json(mib_per_s(r)).c_str(), summary_json(mvalues_per_s(r)).c_str());
    std::fprintf(f, "     \"ratio_to_raw\": %s, \"ratio_to_pnetcdf_direct\": %s,\n",
                 xr > 0 ? number(xr).c_str() : "null", xp > 0 ? number(xp).c_str() : "null");
    std::fprintf(f, "     \"phases\": %s,\n", phases.c_str());
    std::fprintf(f, "     \"requests\": %lld, \"request_histogram\": %s,\n", (long long)requests,
                 array_json(r.request_histogram, "%.0f").c_str());
    std::fprintf(f, "     \"peak_rss_mib\": %s, \"baseline_rss_mib\": %s,\n",
                 array_json(r.peak_rss_mib, "%.1f").c_str(),
                 array_json(r.baseline_rss_mib, "%.1f").c_str());
    std::fprintf(f, "     \"residency_before_read\": %s,\n",
                 array_json(r.residency, "%.4f").c_str());
    int64_t stored = 0;
    for (const VarCheck &v : r.variables) stored += v.stored_bytes >= 0 ? v.stored_bytes : 0;
    const double ratio = size_ratio(r);
    std::fprintf(f, "     \"stored_bytes\": %s, \"size_ratio\": %s,\n     \"variables\": %s,\n",
                 ratio > 0 ? std::to_string(stored).c_str() : "null",
                 ratio > 0 ? number(ratio).c_str() : "null", variables_json(r).c_str());
    std::fprintf(f, "     \"verified\": %s, \"verify_note\": %s, \"error\": %s}",
                 r.verified ? "true" : "false", json_string(r.verify_note).c_str(),
                 r.error.empty() ? "null" : json_string(r.error).c_str());
  }
  std::fprintf(f, "\n  ]\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace esmio_bench
