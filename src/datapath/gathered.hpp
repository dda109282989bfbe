// The serial backend's data path: whole records gathered to rank 0 and written there, and read
// there and scattered (gathered.cpp). Collective over the group; the caller agrees the outcome.
#pragma once

#include <cstdint>

#include "common/status.hpp"
#include "datapath/decomp.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"
#include "datapath/schema.hpp"
#include "esmio.h"

namespace esmio::datapath {

// Writes one record of varid from every rank's buf (memtype, in decomp's memory order); the
// first write of a record fills its holes. Values out of range are counted in range.
Status write_gathered(Group &group, FileState *file, int varid, int64_t record,
                      const Decomp &decomp, esmio_type memtype, const void *buf, RangeCount *range);
// Reads one record of varid into every rank's buf (memtype, decomp's memory order).
Status read_gathered(Group &group, FileState *file, int varid, int64_t record, const Decomp &decomp,
                     esmio_type memtype, void *buf, RangeCount *range);

}  // namespace esmio::datapath
