#include "trace/counters.hpp"

#include <cstdio>

namespace esmio::trace {

const char *counter_name(Counter counter) {
  switch (counter) {
#define ESMIO_COUNTER_NAME(name) \
  case Counter::name:            \
    return #name;
    ESMIO_TRACE_COUNTERS(ESMIO_COUNTER_NAME)
#undef ESMIO_COUNTER_NAME
    case Counter::count:
      break;
  }
  return "unknown";
}

bool counter_by_name(const std::string &name, Counter *counter) {
  for (int c = 0; c < static_cast<int>(Counter::count); ++c)
    if (name == counter_name(static_cast<Counter>(c))) {
      *counter = static_cast<Counter>(c);
      return true;
    }
  return false;
}

void Counters::add(Counter counter, int64_t bytes, double seconds) {
  Tally &t = tallies[static_cast<int>(counter)];
  ++t.calls;
  t.bytes += bytes;
  t.seconds += seconds;
}

int size_bin(int64_t bytes) {
  int bin = 0;
  while (bytes > 1 && bin + 1 < ESMIO_TRACE_BINS) {
    bytes >>= 1;
    ++bin;
  }
  return bin;
}

void Counters::add_request(int64_t bytes) { ++request_sizes[size_bin(bytes)]; }

void Counters::merge(const Counters &other) {
  for (std::size_t i = 0; i < tallies.size(); ++i) {
    tallies[i].calls += other.tallies[i].calls;
    tallies[i].bytes += other.tallies[i].bytes;
    tallies[i].seconds += other.tallies[i].seconds;
  }
  for (std::size_t i = 0; i < request_sizes.size(); ++i) request_sizes[i] += other.request_sizes[i];
}

std::string to_json(const Counters &counters) {
  std::string out = "{";
  char buf[160];
  for (int c = 0; c < static_cast<int>(Counter::count); ++c) {
    const Tally &t = counters.tallies[c];
    std::snprintf(buf, sizeof buf,
                  "\"%s\": {\"calls\": %lld, \"bytes\": %lld, \"seconds\": %.9g}, ",
                  counter_name(static_cast<Counter>(c)), static_cast<long long>(t.calls),
                  static_cast<long long>(t.bytes), t.seconds);
    out += buf;
  }
  out += "\"request_sizes\": [";
  for (std::size_t i = 0; i < counters.request_sizes.size(); ++i)
    out += (i ? ", " : "") + std::to_string(counters.request_sizes[i]);
  return out + "]}";
}

}  // namespace esmio::trace
