// Fixed-size variables that no call wrote. The file is in netCDF's NOFILL mode (the fill would
// cost a second write of every variable), so such a variable would read as zeros; esmio_close
// writes its fill value instead (the _FillValue attribute, or netCDF's default for its type),
// as netCDF's fill mode would have. Only variables this file handle defined: those of a file
// opened for writing may hold data from an earlier open, and are left as they are. Record
// variables are the business of skipped.hpp (their records no write reached).
#pragma once

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

// "'a', 'b'": the variables' names, for messages.
std::string variable_names(const FileState &file, const std::vector<int> &varids);

}  // namespace esmio::datapath
