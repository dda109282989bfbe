// Fixed-size variables that no call wrote. The file is in netCDF's NOFILL mode (the fill would
// cost a second write of every variable), so such a variable would read as zeros; esmio_close
// writes its fill value instead (the _FillValue attribute, or netCDF's default for its type),
// as netCDF's fill mode would have. Only variables this file handle defined: those of a file
// opened for writing may hold data from an earlier open, and are left as they are. Record
// variables are the business of skipped.hpp (their records no write reached). A put_vara that
// writes part of a variable (or of a record) nothing wrote before fills it first, as netCDF's
// fill mode would have (fill_before_slice).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"

namespace esmio::datapath {

// The varids of the fixed-size variables this handle defined and no call wrote, in order;
// alike on every rank (the writes are agreed before this is asked).
std::vector<int> unwritten_variables(const FileState &file);

// Writes the fill value into every element of those variables, straight through the backend:
// each I/O task a contiguous share of each variable, in rounds of at most the write cache's
// size (at least 1 MiB), so that no rank holds a buffer that grows with the variable. Collective
// over the group; the same status on every rank.
Status fill_unwritten(Group &group, FileState *file, const std::vector<int> &varids);

// Writes the fill value into every element of varid, or of its record `record` for a record
// variable, in the same bounded rounds. Collective over the backend's tasks (a no-op on other
// ranks); the same status on each of them, and every task's fill written when it returns.
Status fill_extent(FileState *file, int varid, int64_t record);

// A put_vara slice (start, count: one entry per dimension, the record dimension first for a
// record variable) that covers part of a region nothing wrote yet would leave the rest reading
// as zeros: the records (0 for a fixed-size variable) to fill before the slice is written.
// Empty where the slice covers its records whole, or they were written or filled before. Pure.
std::vector<int64_t> fill_before_slice(const Variable &var, const int64_t *start,
                                       const int64_t *count);

// "'a', 'b'": the variables' names, for messages.
std::string variable_names(const FileState &file, const std::vector<int> &varids);

}  // namespace esmio::datapath
