#include "common/settings.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "common/text.hpp"

namespace esmio {
namespace {

bool parse_int(const std::string &text, int64_t *value) {
  if (text.empty()) return false;
  errno = 0;
  char *end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *value = v;
  return true;
}

bool parse_bool(const std::string &text, bool *value) {
  const std::string t = lower(text);
  if (t == "1" || t == "true" || t == "yes" || t == "on") {
    *value = true;
    return true;
  }
  if (t == "0" || t == "false" || t == "no" || t == "off") {
    *value = false;
    return true;
  }
  return false;
}

Status bad_value(const std::string &origin, const std::string &key, const std::string &value,
                 const char *expected) {
  return Status(ESMIO_ESETTING, origin + ": bad value '" + value + "' for setting '" + key +
                                    "' (expected " + expected + ")");
}

Status set_int(const std::string &origin, const std::string &key, const std::string &value,
               int64_t *out) {
  if (!parse_int(value, out)) return bad_value(origin, key, value, "an integer");
  return Status::ok();
}
Status set_size(const std::string &origin, const std::string &key, const std::string &value,
                int64_t *out) {
  if (!parse_size(value, out)) return bad_value(origin, key, value, "a size such as 4096, 64K, 1G");
  return Status::ok();
}
Status set_bool(const std::string &origin, const std::string &key, const std::string &value,
                bool *out) {
  if (!parse_bool(value, out)) return bad_value(origin, key, value, "true or false");
  return Status::ok();
}
// Names with a fixed set of values are checked here, where the origin of the value is known.
// Backend names are checked by the backend registry (it knows which are built).
Status set_name(const std::string &origin, const std::string &key, const std::string &value,
                std::string *out) {
  const std::string v = lower(value);
  const char *choices = key == "layout"                ? "box|subset"
                        : key == "format"              ? "auto|cdf1|cdf2|cdf5|netcdf4"
                        : key == "publish"             ? "in_place|atomic"
                        : key == "agree_writes"        ? "flush|call"
                        : key == "writeback"           ? "early|sync"
                        : key == "io_server_placement" ? "last|first|spread"
                        : key == "io_server_close"     ? "wait|background"
                        : key == "async_transport"     ? "auto|shared|rma"
                        : key == "async_buffer_pages"  ? "init|use"
                        : key == "stage_copy"          ? "close|background|finalize"
                                                       : nullptr;
  if (choices != nullptr &&
      ("|" + std::string(choices) + "|").find("|" + v + "|") == std::string::npos)
    return Status(ESMIO_EBADNAME,
                  origin + ": unknown " + key + " '" + value + "' (known: " + choices + ")");
  *out = v;
  return Status::ok();
}

Status set_text(const std::string &, const std::string &, const std::string &value,
                std::string *out) {
  *out = value;
  return Status::ok();
}

std::string upper(std::string s) {
  for (char &c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

#define ESMIO_SETTING_KIND_int set_int
#define ESMIO_SETTING_KIND_size set_size
#define ESMIO_SETTING_KIND_bool set_bool
#define ESMIO_SETTING_KIND_name set_name
#define ESMIO_SETTING_KIND_text set_text

Status apply_one(const std::string &key, const std::string &value, bool allow_instance_keys,
                 const std::string &origin, Settings *settings) {
#define ESMIO_APPLY(name, scope, kind, def, doc)                                          \
  if (key == #name) {                                                                     \
    if (SettingScope::scope == SettingScope::instance && !allow_instance_keys)            \
      return Status(ESMIO_EBADNAME, origin +                                              \
                                        ": setting '" #name                               \
                                        "' applies to the whole instance (esmio_init or " \
                                        "ESMIO_" +                                        \
                                        upper(#name) + "), not to one file");             \
    return ESMIO_SETTING_KIND_##kind(origin, key, value, &settings->name);                \
  }
  ESMIO_SETTINGS_TABLE(ESMIO_APPLY)
#undef ESMIO_APPLY
  std::string known;
#define ESMIO_KNOWN(name, scope, kind, def, doc) \
  known += std::string(known.empty() ? "" : ", ") + #name;
  ESMIO_SETTINGS_TABLE(ESMIO_KNOWN)
#undef ESMIO_KNOWN
  return Status(ESMIO_EBADNAME,
                origin + ": unknown setting '" + key + "' (known settings: " + known + ")");
}

}  // namespace

Status parse_hints(const std::string &text, const std::string &origin,
                   std::vector<std::pair<std::string, std::string>> *hints) {
  std::vector<std::pair<std::string, std::string>> parsed;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find_first_of(",;", at);
    if (end == std::string::npos) end = text.size();
    const std::string item = trim(text.substr(at, end - at));
    at = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || trim(item.substr(0, eq)).empty() ||
        trim(item.substr(eq + 1)).empty())
      return Status(ESMIO_ESETTING, origin + ": MPI-IO hint '" + item +
                                        "' is not key=value (e.g. striping_unit=4194304)");
    parsed.emplace_back(trim(item.substr(0, eq)), trim(item.substr(eq + 1)));
  }
  *hints = std::move(parsed);
  return Status::ok();
}

bool parse_size(const std::string &text, int64_t *bytes) {
  std::string t = trim(text);
  if (t.empty()) return false;
  int shift = 0;
  const char suffix = static_cast<char>(std::toupper(static_cast<unsigned char>(t.back())));
  if (suffix == 'K' || suffix == 'M' || suffix == 'G' || suffix == 'T') {
    shift = suffix == 'K' ? 10 : suffix == 'M' ? 20 : suffix == 'G' ? 30 : 40;
    t.pop_back();
  }
  int64_t v = 0;
  if (!parse_int(t, &v) || v < 0) return false;
  if (shift > 0 && v > (INT64_MAX >> shift)) return false;
  *bytes = v << shift;
  return true;
}

Status apply_settings(const std::string &spec, bool allow_instance_keys, const std::string &origin,
                      Settings *settings) {
  // The environment's list comes one variable per line: values may hold commas (ESMIO_CACHE).
  const bool lines = spec.find('\n') != std::string::npos;
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, lines ? '\n' : ',')) {
    item = trim(item);
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos)
      return Status(ESMIO_ESETTING,
                    origin + ": setting '" + item + "' has no value (expected key=value)");
    const std::string key = lower(trim(item.substr(0, eq)));
    const std::string value = trim(item.substr(eq + 1));
    ESMIO_RETURN_IF_ERROR(apply_one(key, value, allow_instance_keys,
                                    lines ? origin + " ESMIO_" + upper(key) : origin, settings));
  }
  return Status::ok();
}

std::string settings_from_environment() {
  std::string spec;
#define ESMIO_FROM_ENV(name, scope, kind, def, doc)             \
  {                                                             \
    std::string var = "ESMIO_" + std::string(#name);            \
    for (char &c : var) c = static_cast<char>(std::toupper(c)); \
    if (const char *value = std::getenv(var.c_str()))           \
      spec += std::string(#name "=") + value + "\n";            \
  }
  ESMIO_SETTINGS_TABLE(ESMIO_FROM_ENV)
#undef ESMIO_FROM_ENV
  return spec;
}

namespace {

// ESMIO_* variables that are not settings but are read by esmio itself, its tools and its tests:
// no warning for them.
bool read_elsewhere(const std::string &variable) {
  static const char *const kNames[] = {
      "ESMIO_LIBRARY",                // the Python binding: which libesmio to load
      "ESMIO_REPORT_LIB",             // esmio-report: where its package lies
      "ESMIO_CLIENTS_KEEP",           // tests/clients: keep the files the clients read
      "ESMIO_FULL_DISK_CASES",        // tests/faults: which full-disk cases to run
      "ESMIO_ASYNC_FULL_DISK_CASES",  // tests/faults: the same, in asynchronous mode
      "ESMIO_PY_OUT",                 // tests/python, tests/quantize: where the files go
      "ESMIO_EXAMPLE_NP",             // tests/examples: how many ranks run an example
  };
  for (const char *name : kNames)
    if (variable == name) return true;
  // ESMIO_TEST_*: the library's test hooks and the tests' directories; ESMIO_BENCH_*: esmio-bench
  // and its scripts.
  return variable.rfind("ESMIO_TEST_", 0) == 0 || variable.rfind("ESMIO_BENCH_", 0) == 0;
}

// Levenshtein distance: insertions, deletions and substitutions, one each.
std::size_t edit_distance(const std::string &a, const std::string &b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_setting_variable(const std::string &variable) {
  const std::string wanted = upper(variable);
  std::string best;
  std::size_t best_distance = 0;
#define ESMIO_CLOSEST(name, scope, kind, def, doc)          \
  {                                                         \
    const std::string candidate = "ESMIO_" + upper(#name);  \
    const std::size_t d = edit_distance(wanted, candidate); \
    if (best.empty() || d < best_distance) {                \
      best = candidate;                                     \
      best_distance = d;                                    \
    }                                                       \
  }
  ESMIO_SETTINGS_TABLE(ESMIO_CLOSEST)
#undef ESMIO_CLOSEST
  // Near means at most half the edits the longer key (past ESMIO_) would take to write anew:
  // ESMIO_IOTASKS is near ESMIO_NUM_IOTASKS, ESMIO_VERBOSE near nothing.
  const std::size_t prefix = std::string("ESMIO_").size();
  const std::size_t longer = std::max(wanted.size(), best.size()) - prefix;
  return 2 * best_distance <= longer ? best : std::string();
}

std::vector<std::string> unknown_environment_warnings(const char *const *environment) {
  std::vector<std::string> warnings;
  for (const char *const *entry = environment; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || text.rfind("ESMIO_", 0) != 0) continue;
    const std::string variable = text.substr(0, eq);
    bool setting = false;
#define ESMIO_IS_SETTING(name, scope, kind, def, doc) \
  setting = setting || variable == "ESMIO_" + upper(#name);
    ESMIO_SETTINGS_TABLE(ESMIO_IS_SETTING)
#undef ESMIO_IS_SETTING
    if (setting || read_elsewhere(variable)) continue;
    const std::string closest = closest_setting_variable(variable);
    warnings.push_back("esmio: unknown environment variable " + variable +
                       (closest.empty() ? std::string(" (not a setting; esmio --settings-help "
                                                      "lists them)")
                                        : " (did you mean " + closest + "?)") +
                       "; ignored");
  }
  return warnings;
}

void warn_unknown_environment() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const std::string &warning : unknown_environment_warnings(environ))
      std::fprintf(stderr, "%s\n", warning.c_str());
  });
}

namespace {

// As the settings are written: booleans as true/false, the words the documentation uses.
template <typename T>
void put_value(std::ostringstream &out, const T &value) {
  out << value;
}
void put_value(std::ostringstream &out, bool value) { out << (value ? "true" : "false"); }

}  // namespace

std::vector<std::pair<std::string, std::string>> settings_items(const Settings &settings) {
  std::vector<std::pair<std::string, std::string>> items;
#define ESMIO_ITEM(name, scope, kind, def, doc) \
  {                                             \
    std::ostringstream out;                     \
    put_value(out, settings.name);              \
    items.emplace_back(#name, out.str());       \
  }
  ESMIO_SETTINGS_TABLE(ESMIO_ITEM)
#undef ESMIO_ITEM
  return items;
}

std::string format_settings(const Settings &settings) {
  std::ostringstream out;
  bool first = true;
#define ESMIO_FORMAT(name, scope, kind, def, doc) \
  out << (first ? "" : ",") << #name "=";         \
  put_value(out, settings.name);                  \
  first = false;
  ESMIO_SETTINGS_TABLE(ESMIO_FORMAT)
#undef ESMIO_FORMAT
  return out.str();
}

}  // namespace esmio
