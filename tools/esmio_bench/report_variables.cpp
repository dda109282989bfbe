// Per-variable sizes, keepbits and errors (docs/bench.md, "The table" and the JSON schema).
#include "report_variables.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "stats.hpp"

namespace esmio_bench {

namespace {

// x as printf formats it with fmt, for the table.
std::string number(double x, const char *fmt) {
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

Json variables_json(const Result &r) {
  Json out = Json::array();
  for (const VarCheck &v : r.variables) {
    Json j = Json::object();
    j["name"] = v.name;
    j["source"] = v.source;
    j["zoom"] = v.zoom > 0 ? number_or_null(v.zoom) : Json(nullptr);
    j["float32_bytes"] = v.float32_bytes;
    j["stored_bytes"] = v.stored_bytes >= 0 ? Json(v.stored_bytes) : Json(nullptr);
    j["size_ratio"] = v.stored_bytes > 0 ? number_or_null(ratio_of(v)) : Json(nullptr);
    j["keepbits"] = v.keepbits >= 0 ? Json(v.keepbits) : Json(nullptr);
    j["keepbits_reference"] = v.has_keepbits_reference ? Json(v.keepbits_reference) : Json(nullptr);
    j["keepbits_reason"] = v.keepbits_reason.empty() ? Json(nullptr) : Json(v.keepbits_reason);
    j["max_abs_error"] = number_or_null(v.max_abs_error);
    j["max_rel_error"] = number_or_null(v.max_rel_error);
    j["values_checked"] = v.values_checked;
    j["mismatches"] = v.mismatches;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace esmio_bench
