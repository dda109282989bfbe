// The write cache's run-time spec, one string:
// "size=512M,flush=full,direct=1M,max_request=64M,align=4M"
// (commas or semicolons between keys; ESMIO_CACHE or the `cache` setting). Parsed once, into a
// typed struct; an unknown key or a bad value is an error naming it, never ignored.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.hpp"

namespace esmio::aggregate {

enum class FlushPolicy {
  full,   // when the next write would exceed size, and at sync, close, reads and redef
  write,  // after every write_darray (the cache only batches one call's pieces)
};

struct CacheSpec {
  int64_t size = int64_t(8) << 20;  // bytes a rank may hold for pending writes; 0 = no cache
  FlushPolicy flush = FlushPolicy::full;
  // A write whose largest per-rank share is at least this large is flushed at once (with what
  // is pending): large writes gain nothing from waiting and cost memory and copies.
  int64_t direct = int64_t(1) << 20;
  int64_t max_request = 0;  // 0: keep the file's max_request
  int64_t align = 0;        // 0: the library's default alignment of data in the file
};

// Applies spec to *out (keys not named keep their value). origin names the source in messages.
Status parse_cache_spec(const std::string &spec, const std::string &origin, CacheSpec *out);

}  // namespace esmio::aggregate
