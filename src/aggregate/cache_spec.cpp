#include "aggregate/cache_spec.hpp"

#include <cctype>

#include "common/settings.hpp"
#include "common/text.hpp"

namespace esmio::aggregate {
namespace {

std::string trim_lower(const std::string &s) { return lower(trim(s)); }

Status bad(const std::string &origin, const std::string &key, const std::string &value,
           const char *expected) {
  return Status(ESMIO_ESETTING, origin + ": bad value '" + value + "' for cache key '" + key +
                                    "' (expected " + expected + ")");
}

}  // namespace

Status parse_cache_spec(const std::string &spec, const std::string &origin, CacheSpec *out) {
  CacheSpec parsed = *out;
  std::size_t at = 0;
  while (at <= spec.size()) {
    std::size_t end = spec.find_first_of(",;", at);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(at, end - at);
    at = end + 1;
    if (trim_lower(item).empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos)
      return Status(ESMIO_ESETTING, origin + ": cache item '" + item +
                                        "' has no value (expected key=value, e.g. size=256M)");
    const std::string key = trim_lower(item.substr(0, eq));
    const std::string value = trim_lower(item.substr(eq + 1));
    if (key == "size") {
      if (!parse_size(value, &parsed.size))
        return bad(origin, key, value, "a size such as 0, 64M, 1G");
    } else if (key == "flush") {
      if (value == "full" || value == "close" || value == "sync")
        parsed.flush = FlushPolicy::full;
      else if (value == "write" || value == "always")
        parsed.flush = FlushPolicy::write;
      else
        return bad(origin, key, value, "full, close or write");
    } else if (key == "direct") {
      if (!parse_size(value, &parsed.direct)) return bad(origin, key, value, "a size such as 1M");
    } else if (key == "max_request") {
      if (!parse_size(value, &parsed.max_request) || parsed.max_request < 1)
        return bad(origin, key, value, "a positive size such as 64M");
    } else if (key == "align") {
      if (!parse_size(value, &parsed.align) || (parsed.align & (parsed.align - 1)) != 0)
        return bad(origin, key, value, "0 or a power of two such as 4M");
    } else {
      return Status(ESMIO_EBADNAME, origin + ": unknown cache key '" + key +
                                        "' (known: size, flush, direct, max_request, align)");
    }
  }
  *out = parsed;
  return Status::ok();
}

}  // namespace esmio::aggregate
