// Reading one decomposed record through the decomposition's plan (read.cpp). Collective over
// the group; the caller agrees the outcome.
#pragma once

#include <cstdint>

#include "common/status.hpp"
#include "datapath/decomp.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"
#include "datapath/schema.hpp"
#include "esmio.h"

namespace esmio::datapath {

// Reads record of varid into buf (memtype, in decomp's memory order; holes left untouched).
// Values out of the memory type's range are stored as its fill and counted in range.
Status read_rearranged(Group &group, FileState *file, int varid, int64_t record,
                       const Decomp &decomp, esmio_type memtype, void *buf, RangeCount *range);

// The read of (varid, record) through decomp that this rank kept from a batch, converted into
// buf: false where none is kept. Local; the read is not yet learned (kept_read_agreed does it,
// once every rank agreed that every rank served its read).
bool read_kept(Group &group, FileState *file, int varid, int64_t record, const Decomp &decomp,
               esmio_type memtype, void *buf, RangeCount *range);
void kept_read_agreed(FileState *file, int varid, int64_t record, const Decomp &decomp);

}  // namespace esmio::datapath
