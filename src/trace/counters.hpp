// Trace counters: calls, bytes and seconds at every boundary of the data path, per rank, kept
// per file and per instance; and a histogram of the request sizes handed to the backend.
// Always on: a boundary costs two clock reads and a few additions.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

#include "esmio.h"

namespace esmio::trace {

// The list is kept out of clang-format, which does not settle on one layout for it.
// clang-format off
#define ESMIO_TRACE_COUNTERS(X)                                      \
  X(define) X(open) X(convert) X(rearrange) X(backend_write)         \
  X(backend_read) X(sync) X(close) X(write_darray) X(read_darray)    \
  X(put_vara) X(get_vara) X(plan) X(async_post) X(async_wait) X(stage_copy) \
  X(stage_write) X(stage_verify) X(serve_wait) X(serve_receive) X(read_ahead)    \
  X(place)
// clang-format on

enum class Counter : int {
#define ESMIO_COUNTER_ENUM(name) name,
  ESMIO_TRACE_COUNTERS(ESMIO_COUNTER_ENUM)
#undef ESMIO_COUNTER_ENUM
      count
};

const char *counter_name(Counter counter);
// False for an unknown name.
bool counter_by_name(const std::string &name, Counter *counter);

struct Tally {
  int64_t calls = 0;
  int64_t bytes = 0;
  double seconds = 0;
};

class Timeline;

struct Counters {
  std::array<Tally, static_cast<int>(Counter::count)> tallies{};
  std::array<int64_t, ESMIO_TRACE_BINS> request_sizes{};
  // With tracing on: where scopes timed into these counters also go as spans (timeline.hpp),
  // and the file they belong to (-1: the instance's own counters). Not part of the counts:
  // merge() and the report leave them out.
  Timeline *timeline = nullptr;
  int32_t file = -1;

  void add(Counter counter, int64_t bytes, double seconds);
  void add_request(int64_t bytes);
  void merge(const Counters &other);
  const Tally &operator[](Counter c) const { return tallies[static_cast<int>(c)]; }
};

// Histogram bin of a request size: floor(log2(bytes)), 0 for 0 and 1 byte.
int size_bin(int64_t bytes);

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Times a scope into one or two sets of counters (a file's and its instance's).
class Scope {
 public:
  Scope(Counter counter, Counters *first, Counters *second = nullptr, int64_t bytes = 0)
      : counter_(counter), first_(first), second_(second), bytes_(bytes), start_(now()) {}
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;
  ~Scope() {
    const double end = now();
    const double seconds = end - start_;
    if (first_) first_->add(counter_, bytes_, seconds);
    if (second_) second_->add(counter_, bytes_, seconds);
    if (first_ && first_->timeline) span(end);
  }
  void set_bytes(int64_t bytes) { bytes_ = bytes; }
  // The variable the span is about (timeline only; -1: none or several).
  void set_variable(int variable) { variable_ = variable; }

 private:
  Counter counter_;
  Counters *first_;
  Counters *second_;
  int64_t bytes_;
  double start_;
  int variable_ = -1;
  void span(double end) const;  // out of line: the timeline is off on the fast path
};

// {"define": {"calls": .., "bytes": .., "seconds": ..}, ..., "request_sizes": [..]}, as JSON text
// (nlohmann::json inside: names and numbers escaped and formatted by the library).
std::string to_json(const Counters &counters);

}  // namespace esmio::trace
