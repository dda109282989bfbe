#include "trace/timeline.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace esmio::trace {

Timeline::Timeline(int64_t max_spans)
    : max_spans_(std::max<int64_t>(1, max_spans)), origin_(now()) {}

void Timeline::record(Counter counter, double start, double end, int32_t file, int32_t variable,
                      int64_t bytes) {
  if (static_cast<int64_t>(spans_.size()) >= max_spans_) {
    ++dropped_;
    dropped_tallies_.add(counter, 0, end - start);
    return;
  }
  // Grown by doubling up to the limit, never past it: a rank holds at most max_spans spans.
  if (spans_.size() == spans_.capacity())
    spans_.reserve(static_cast<std::size_t>(std::min<int64_t>(
        max_spans_, std::max<int64_t>(1024, 2 * static_cast<int64_t>(spans_.size())))));
  spans_.push_back(Span{start - origin_ + clock_offset_, end - origin_ + clock_offset_,
                        static_cast<int32_t>(counter), file, variable, bytes});
}

std::vector<std::string> trace_counter_names() {
  std::vector<std::string> names;
  for (int c = 0; c < static_cast<int>(Counter::count); ++c)
    names.emplace_back(counter_name(static_cast<Counter>(c)));
  return names;
}

std::string Timeline::to_json() const {
  nlohmann::ordered_json out;
  out["clock_offset"] = clock_offset_;
  out["max_spans"] = max_spans_;
  out["dropped"] = dropped_;
  nlohmann::ordered_json dropped = nlohmann::ordered_json::object();
  for (int c = 0; c < static_cast<int>(Counter::count); ++c) {
    const Tally &t = dropped_tallies_.tallies[c];
    if (t.calls > 0)
      dropped[counter_name(static_cast<Counter>(c))] = {{"calls", t.calls}, {"seconds", t.seconds}};
  }
  out["dropped_by_counter"] = dropped;
  nlohmann::ordered_json files = nlohmann::ordered_json::object();
  for (const auto &[id, path] : file_names_) files[std::to_string(id)] = path;
  out["files"] = files;
  nlohmann::ordered_json variables = nlohmann::ordered_json::object();
  for (const auto &[id, names] : variable_names_) variables[std::to_string(id)] = names;
  out["variables"] = variables;
  nlohmann::ordered_json spans = nlohmann::ordered_json::array();
  for (const Span &s : spans_)
    spans.push_back({s.counter, s.start, s.end, s.file, s.variable, s.bytes});
  out["spans"] = spans;
  // Paths are bytes, not always UTF-8: replaced, never a throw.
  return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void Timeline::clear() {
  spans_.clear();
  dropped_ = 0;
  dropped_tallies_ = Counters{};
}

}  // namespace esmio::trace
