// The JSON documents esmio-bench writes (docs/bench.md, "JSON schema"): built as
// nlohmann::ordered_json (keys stay in the order they are set) and written by the library, so
// that paths, settings and names with quotes, backslashes or any other byte stay valid JSON.
#pragma once

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace esmio_bench {

using Json = nlohmann::ordered_json;

// x, or null where x is NaN or infinite (JSON has no such numbers: an undefined fraction or
// ratio is null).
inline Json number_or_null(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }

// An array of the values, each as number_or_null gives it.
inline Json numbers(const std::vector<double> &values) {
  Json out = Json::array();
  for (double x : values) out.push_back(number_or_null(x));
  return out;
}

// Writes doc to path, indented, with a final newline. Strings are written as UTF-8; bytes that
// are not UTF-8 (a path is any bytes) become U+FFFD rather than an exception. Returns false
// (errno set) when the file cannot be written.
inline bool write_json_file(const std::string &path, const Json &doc) {
  const std::string text = doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  return written && closed;
}

}  // namespace esmio_bench
