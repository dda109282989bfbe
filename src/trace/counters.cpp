#include "trace/counters.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "trace/timeline.hpp"

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

void Scope::span(double end) const {
  first_->timeline->record(counter_, start_, end, first_->file, variable_, bytes_);
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
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (int c = 0; c < static_cast<int>(Counter::count); ++c) {
    const Tally &t = counters.tallies[c];
    out[counter_name(static_cast<Counter>(c))] = {
        {"calls", t.calls}, {"bytes", t.bytes}, {"seconds", t.seconds}};
  }
  out["request_sizes"] = counters.request_sizes;
  return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace esmio::trace
