// Records skipped over: the records of a record variable that no write reached, below the
// file's record count. The file is in netCDF's NOFILL mode (the fill would cost a second write
// of every record), so esmio_close writes the fill value into them (skipped.cpp), and finds
// those whose fill did not reach the file (a disk too full for it), which esmio_close's error
// then names.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/status.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"

namespace esmio::datapath {

// Per variable (indexed by varid), the ranges [first, second) of its skipped records, in order.
using SkippedRecords = std::vector<std::vector<std::pair<int64_t, int64_t>>>;

// The records that no write reached, below the record count; alike on every rank.
SkippedRecords skipped_records(const FileState &file);

// Writes the fill value into the skipped records, lowest record first (every variable's, then
// the next record), so that a disk that fills leaves the lowest ones filled. Stops at the first
// failure and returns it. Collective.
Status fill_skipped_records(Group &group, FileState *file, const SkippedRecords &skipped);

// After the close's last flush: the records of `skipped` that hold no fill value, those whose
// fill was refused or is among the writes a failed flush left in the cache (lost with the
// handle). Alike on every rank.
SkippedRecords unfilled_records(const FileState &file, const SkippedRecords &skipped);

// The lowest record in `records`, or INT64_MAX when there is none.
int64_t first_record(const SkippedRecords &records);

// "variable 'T': records 2 to 3; variable 'time': record 0", for the records below `below`.
std::string describe_records(const FileState &file, const SkippedRecords &records, int64_t below);

}  // namespace esmio::datapath
