// Undecomposed slices: one box (start, count: one entry per dimension of the variable, the
// record dimension included) of n values that every rank passes alike (vara.cpp). Collective.
#pragma once

#include <cstdint>

#include "common/status.hpp"
#include "datapath/call.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"
#include "esmio.h"

namespace esmio::datapath {

// Writes the box from buf (memtype); cached decomposed writes of the same variable go first.
Status put_vara(Group &group, FileState *file, const Call &call, int varid, const int64_t *start,
                const int64_t *count, int64_t n, esmio_type memtype, const void *buf);
// Reads the box into every rank's buf (memtype), after the cache's writes.
Status get_vara(Group &group, FileState *file, const Call &call, int varid, const int64_t *start,
                const int64_t *count, int64_t n, esmio_type memtype, void *buf);

}  // namespace esmio::datapath
