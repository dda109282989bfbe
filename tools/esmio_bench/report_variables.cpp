// Per-variable sizes, keepbits and errors (docs/bench.md, "The table" and the JSON schema).
#include "report_variables.hpp"

#include <algorithm>
#include <cstdio>

#include "machine.hpp"
#include "stats.hpp"

namespace esmio_bench {

namespace {

std::string number(double x, const char *fmt = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

double ratio_of(const VarCheck &v) {
  return v.stored_bytes > 0 ? static_cast<double>(v.float32_bytes) / v.stored_bytes : 0;
}

}  // namespace

double size_ratio(const Result &r) {
  int64_t f32 = 0, stored = 0;
  for (const VarCheck &v : r.variables)
    if (v.stored_bytes >= 0) {
      f32 += v.float32_bytes;
      stored += v.stored_bytes;
    }
  return stored > 0 ? static_cast<double>(f32) / static_cast<double>(stored) : 0;
}

void print_variable_table(const Result &r) {
  if (r.operation != "write" || !r.error.empty() || size_ratio(r) <= 0) return;
  const double s = r.seconds.empty() ? 0 : summarize(r.seconds).median;
  std::printf(
      "\n  per variable, %s write (ratio: float32 bytes / stored bytes; the file written in "
      "%.3f s, median, %.1f MiB/s):\n",
      r.variant.c_str(), s, s > 0 ? r.bytes / 1048576.0 / s : 0.0);
  int width = 6;
  for (const VarCheck &v : r.variables) width = std::max(width, static_cast<int>(v.source.size()));
  std::printf("    %-10s %-*s %6s %9s %9s %7s %8s %5s %-22s %10s %10s\n", "variable", width,
              "source", "zoom", "f32 MiB", "disk MiB", "ratio", "keepbits", "ref", "reason",
              "max abs", "max rel");
  int64_t f32 = 0, stored = 0;
  double max_abs = 0, max_rel = 0;
  for (const VarCheck &v : r.variables) {
    std::printf("    %-10s %-*s %6s %9.2f %9.2f %7s %8s %5s %-22s %10.3g %10.3g\n", v.name.c_str(),
                width, v.source.empty() ? "-" : v.source.c_str(),
                v.zoom > 0 ? number(v.zoom, "%.2f").c_str() : "-", v.float32_bytes / 1048576.0,
                v.stored_bytes >= 0 ? v.stored_bytes / 1048576.0 : 0.0,
                v.stored_bytes > 0 ? number(ratio_of(v), "%.2f").c_str() : "-",
                v.keepbits >= 0 ? std::to_string(v.keepbits).c_str() : "-",
                v.has_keepbits_reference ? std::to_string(v.keepbits_reference).c_str() : "-",
                v.keepbits_reason.empty() ? "-" : v.keepbits_reason.c_str(), v.max_abs_error,
                v.max_rel_error);
    if (v.stored_bytes >= 0) {
      f32 += v.float32_bytes;
      stored += v.stored_bytes;
    }
    max_abs = std::max(max_abs, v.max_abs_error);
    max_rel = std::max(max_rel, v.max_rel_error);
  }
  std::printf("    %-10s %-*s %6s %9.2f %9.2f %7.2f %8s %5s %-22s %10.3g %10.3g\n", "all", width,
              "", "", f32 / 1048576.0, stored / 1048576.0, size_ratio(r), "", "", "", max_abs,
              max_rel);
}

std::string variables_json(const Result &r) {
  std::string out = "[";
  for (std::size_t i = 0; i < r.variables.size(); ++i) {
    const VarCheck &v = r.variables[i];
    out += std::string(i ? ",\n       " : "\n       ") + "{\"name\": " + json_string(v.name) +
           ", \"source\": " + json_string(v.source) +
           ", \"zoom\": " + (v.zoom > 0 ? number(v.zoom) : "null") +
           ", \"float32_bytes\": " + std::to_string(v.float32_bytes) + ", \"stored_bytes\": " +
           (v.stored_bytes >= 0 ? std::to_string(v.stored_bytes) : "null") +
           ", \"size_ratio\": " + (v.stored_bytes > 0 ? number(ratio_of(v)) : "null") +
           ", \"keepbits\": " + (v.keepbits >= 0 ? std::to_string(v.keepbits) : "null") +
           ", \"keepbits_reference\": " +
           (v.has_keepbits_reference ? std::to_string(v.keepbits_reference) : "null") +
           ", \"keepbits_reason\": " +
           (v.keepbits_reason.empty() ? "null" : json_string(v.keepbits_reason)) +
           ", \"max_abs_error\": " + number(v.max_abs_error) +
           ", \"max_rel_error\": " + number(v.max_rel_error) +
           ", \"values_checked\": " + std::to_string(v.values_checked) +
           ", \"mismatches\": " + std::to_string(v.mismatches) + "}";
  }
  return out + "]";
}

}  // namespace esmio_bench
