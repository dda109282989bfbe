// The trace's timeline: with tracing on (the trace setting, ESMIO_TRACE), every timed scope of
// the counters (trace::Scope) is also kept as a span — counter, start, end, file, variable —
// for esmio-report's Gantt chart and the trace-event export. Memory is bounded: at most
// max_spans spans per rank; later ones are only counted (per counter, calls and seconds), and
// the counters, which always hold every call, remain the totals. The report says how many.
// Times are this rank's steady clock minus the start of the instance, plus clock_offset, which
// esmio_init sets so that every rank's times are on rank 0's scale (aligned_start below).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/counters.hpp"

namespace esmio::trace {

struct Span {
  double start = 0;  // seconds since the instance began, on rank 0's clock
  double end = 0;
  int32_t counter = 0;  // a Counter
  int32_t file = -1;    // a file id (Timeline::file_names), -1: none
  int32_t variable = -1;
  int64_t bytes = 0;  // the counter's bytes (API calls: the caller's buffer)
};
// The documented cost of a span (settings: trace_spans).
static_assert(sizeof(Span) == 40, "a span is 40 bytes");

class Timeline {
 public:
  // max_spans > 0; the origin is now (trace::now()).
  explicit Timeline(int64_t max_spans);

  void record(Counter counter, double start, double end, int32_t file, int32_t variable,
              int64_t bytes = 0);
  // The time origin moved by offset seconds (clock alignment across ranks).
  void set_clock_offset(double offset) { clock_offset_ = offset; }
  double clock_offset() const { return clock_offset_; }
  double origin() const { return origin_; }
  // The instant (trace::now()) that is time 0 of the aligned scale; set_epoch puts another
  // timeline (an I/O server's own instance) on the same scale.
  double epoch() const { return origin_ - clock_offset_; }
  void set_epoch(double epoch) { clock_offset_ = origin_ - epoch; }
  void name_file(int32_t file, const std::string &path) { file_names_[file] = path; }
  // The variables' names of a file, by variable id (recorded when the file closes).
  void name_variables(int32_t file, std::vector<std::string> names) {
    variable_names_[file] = std::move(names);
  }

  const std::vector<Span> &spans() const { return spans_; }
  const std::map<int32_t, std::string> &file_names() const { return file_names_; }
  int64_t max_spans() const { return max_spans_; }
  // Spans not kept (the limit was reached), and their tallies per counter.
  int64_t dropped() const { return dropped_; }
  const Counters &dropped_tallies() const { return dropped_tallies_; }
  void clear();
  // {"clock_offset": s, "max_spans": n, "dropped": n, "dropped_by_counter": {name: {calls,
  // seconds}}, "files": {id: path}, "variables": {file id: [name by variable id]},
  // "spans": [[counter name index, start, end, file, var, bytes]...]} as JSON text; counter
  // indices are into trace_counter_names().
  std::string to_json() const;

 private:
  int64_t max_spans_;
  double origin_;
  double clock_offset_ = 0;
  std::vector<Span> spans_;
  std::map<int32_t, std::string> file_names_;
  std::map<int32_t, std::vector<std::string>> variable_names_;
  int64_t dropped_ = 0;
  Counters dropped_tallies_;
};

// The counter names in Counter order: the "counters" list of the report, which span entries
// index.
std::vector<std::string> trace_counter_names();

}  // namespace esmio::trace
