// A record's file runs as the backend's requests: boxes, and put requests for the data stretches
// of a packed buffer. Pure (no I/O, no communication).
#pragma once

#include <cstdint>
#include <vector>

#include "backend/backend.hpp"
#include "common/types.hpp"
#include "datapath/schema.hpp"
#include "decomp/decomposition.hpp"

namespace esmio::datapath {

// The boxes of file runs (linear offsets of one record) for the backend.
inline std::vector<backend::Box> boxes_of(const Variable &var, int64_t record,
                                          const std::vector<Run> &file_runs) {
  return backend::record_boxes(var.shape, var.record, record, file_runs);
}

// Requests for the data stretches only, each pointing into buffer: a write that leaves the
// holes (and whatever earlier writes put there) alone.
inline std::vector<backend::Backend::PutRequest> data_requests(
    const Variable &var, int varid, int64_t record, const std::vector<decomp::Extent> &extents,
    const unsigned char *buffer) {
  std::vector<backend::Backend::PutRequest> requests;
  const int64_t esize = static_cast<int64_t>(type_size(var.type));
  for (const decomp::Extent &e : extents)
    requests.push_back({varid, boxes_of(var, record, {Run{e.offset, e.length}}), var.type,
                        buffer + e.position * esize});
  return requests;
}

}  // namespace esmio::datapath
