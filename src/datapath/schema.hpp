// What every rank knows of an open file's dimensions and variables (the mirror that lets
// argument checks run without communication), and the per-call count of values out of range.
// The data path's vocabulary: the API and the I/O servers both hold a file's schema this way.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aggregate/information.hpp"
#include "codec/storage_spec.hpp"
#include "common/record_set.hpp"
#include "esmio.h"

namespace esmio::datapath {

struct Dimension {
  std::string name;
  int64_t len = 0;
  bool unlimited = false;
};

struct Variable {
  std::string name;
  esmio_type type = ESMIO_FLOAT;
  std::vector<int> dimids;
  bool record = false;              // first dimension is the unlimited one
  std::vector<int64_t> shape;       // lengths of the non-record dimensions
  std::vector<unsigned char> fill;  // fill value in the variable's type
  // Storage asked for with esmio_def_var_chunking/compress/quantize; resolved with the
  // chunking/compression/quantize settings and handed to the backend at the next enddef.
  std::optional<codec::ChunkChoice> chunks;
  std::optional<codec::CodecChoice> codec;
  std::optional<codec::QuantizeChoice> quantize;
  bool storage_defined = false;
  std::shared_ptr<aggregate::Information> information;  // information quantisation
  // Records whose holes have had their fill value written: a record's holes are filled by its
  // first write only, so that later partial writes of it do not overwrite data with fill.
  // Records below filled_below (those in a file when it was opened) count as filled. Records
  // never written by the time the file is closed are filled whole (fill_skipped_records).
  int64_t filled_below = 0;
  RecordSet holes_filled;
  // esmio_put_vara wrote some of this fixed-size variable: it is not filled at close
  // (unwritten.hpp), whatever the parts no call wrote.
  bool vara_written = false;
  // True (and remembered) the first time record's holes are claimed.
  bool claim_hole_fill(int64_t record) {
    return record >= filled_below && holes_filled.insert(record);
  }
  // Undoes a claim that just succeeded (the write it was for did not happen).
  void release_hole_fill(int64_t record) { holes_filled.erase(record); }
};

// Out-of-range values of one call on this rank, and the lowest rank that supplied them (the
// gather path converts on rank 0, for every rank).
struct RangeCount {
  int64_t count = 0;
  int source = INT32_MAX;
  void add(int64_t n, int rank) {
    count += n;
    if (n > 0) source = std::min(source, rank);
  }
};

}  // namespace esmio::datapath
