// Writing one decomposed record (write.cpp): through the write cache (agreed at once or at the
// next flush, by the file's agree_writes), or gathered to rank 0 for the serial backend.
#pragma once

#include <cstdint>

#include "common/status.hpp"
#include "datapath/call.hpp"
#include "datapath/decomp.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"
#include "esmio.h"

namespace esmio::datapath {

// One write_darray call; decomp may be null when call.local says why. Collective (with
// agree_writes=flush, a cached call makes no collective: it is compared at the next flush).
// The record count grows when it succeeds.
Status write_record(Group &group, FileState *file, const Call &call, int varid, int64_t record,
                    const Decomp *decomp, esmio_type memtype, const void *buf);

}  // namespace esmio::datapath
