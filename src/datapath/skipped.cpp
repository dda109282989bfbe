#include "datapath/skipped.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <memory>

#include "common/record_set.hpp"
#include "datapath/call.hpp"
#include "datapath/decomp.hpp"
#include "datapath/write.hpp"

namespace esmio::datapath {

SkippedRecords skipped_records(const FileState &file) {
  SkippedRecords skipped(file.vars.size());
  if (!file.writable || file.define_mode) return skipped;
  for (std::size_t v = 0; v < file.vars.size(); ++v) {
    const Variable &var = file.vars[v];
    if (var.record) skipped[v] = var.holes_filled.gaps(var.filled_below, file.nrecords);
  }
  return skipped;
}

Status fill_skipped_records(Group &group, FileState *file, const SkippedRecords &skipped) {
  // One decomposition with no elements per record shape: every element is a hole, so its
  // first write of a record writes the fill value there, through the I/O tasks' slabs.
  std::map<std::vector<int64_t>, std::unique_ptr<Decomp>> holes_only;
  const int nvars = static_cast<int>(skipped.size());
  std::vector<std::size_t> range(skipped.size(), 0);  // each variable's next range
  std::vector<int64_t> next(skipped.size(), 0);       // and its next record there
  for (int v = 0; v < nvars; ++v)
    if (!skipped[v].empty()) next[v] = skipped[v][0].first;
  for (;;) {
    int64_t r = INT64_MAX;
    for (int v = 0; v < nvars; ++v)
      if (range[v] < skipped[v].size()) r = std::min(r, next[v]);
    if (r == INT64_MAX) return Status::ok();
    for (int varid = 0; varid < nvars; ++varid) {
      if (range[varid] >= skipped[varid].size() || next[varid] != r) continue;
      const Variable &var = file->vars[varid];
      std::unique_ptr<Decomp> &d = holes_only[var.shape];
      if (!d) {
        d = std::make_unique<Decomp>();
        d->serial = -1;  // internal: alike on every rank
        d->dims = var.shape;
        ESMIO_RETURN_IF_ERROR(plan_decomp(group, d.get()));
      }
      const Call call{Status::ok(),
                      darray_digest(*file, "esmio_write_darray", varid, r, d.get(), var.type), [&] {
                        return darray_words(*file, "esmio_close", varid, r, d.get(), var.type,
                                            Status::ok());
                      }};
      ESMIO_RETURN_IF_ERROR(write_record(group, file, call, varid, r, d.get(), var.type, nullptr));
      if (++next[varid] == skipped[varid][range[varid]].second &&
          ++range[varid] < skipped[varid].size())
        next[varid] = skipped[varid][range[varid]].first;
    }
  }
}

SkippedRecords unfilled_records(const FileState &file, const SkippedRecords &skipped) {
  SkippedRecords unfilled(skipped.size());
  for (std::size_t v = 0; v < skipped.size(); ++v) {
    if (skipped[v].empty()) continue;
    // The claims of the writes still cached did not reach the file.
    RecordSet reached = file.vars[v].holes_filled;
    for (const aggregate::CachedWrite &w : file.cache.pending())
      if (w.fill_holes && w.varid == static_cast<int>(v))
        reached.erase(w.record_variable ? w.record : 0);
    for (const auto &[begin, end] : skipped[v])
      for (const auto &gap : reached.gaps(begin, end)) unfilled[v].push_back(gap);
  }
  return unfilled;
}

int64_t first_record(const SkippedRecords &records) {
  int64_t first = INT64_MAX;
  for (const auto &ranges : records)
    if (!ranges.empty()) first = std::min(first, ranges.front().first);
  return first;
}

std::string describe_records(const FileState &file, const SkippedRecords &records, int64_t below) {
  constexpr std::size_t kMostRanges = 4;  // per variable: a message, not a listing
  std::string text;
  for (std::size_t v = 0; v < records.size(); ++v) {
    std::string ranges;
    std::size_t shown = 0, more = 0;
    bool single = false;  // one record in all
    for (const auto &[begin, end0] : records[v]) {
      const int64_t end = std::min(end0, below);
      if (begin >= end) break;
      if (shown == kMostRanges) {
        ++more;
        continue;
      }
      single = shown == 0 && end - begin == 1;
      ranges += std::string(shown++ ? ", " : "") +
                (end - begin == 1 ? std::to_string(begin)
                                  : std::to_string(begin) + " to " + std::to_string(end - 1));
    }
    if (ranges.empty()) continue;
    const bool one = single && more == 0;
    text += std::string(text.empty() ? "" : "; ") + "variable '" + file.vars[v].name +
            "': " + (one ? "record " : "records ") + ranges +
            (more ? " and " + std::to_string(more) + (more == 1 ? " more range" : " more ranges")
                  : std::string());
  }
  return text;
}

}  // namespace esmio::datapath
