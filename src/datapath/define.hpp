// The definition phase on the ranks of a group: one agreed step per definition, so that no
// rank enters a backend collective another rank skipped and no rank's arguments reach the
// file unless every rank passed the same (define.cpp). Collective over the group.
#pragma once

#include <functional>

#include "backend/backend.hpp"
#include "common/status.hpp"
#include "datapath/call.hpp"
#include "datapath/engine.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"

namespace esmio::datapath {

// Agrees on call (the API's checks and the digest of its arguments), runs op on the ranks that
// hold the file (none: the file is held by I/O servers), agrees on the outcome.
Status collective(const Group &group, FileState *file, const Call &call,
                  const std::function<Status(backend::Backend &)> &op);
// esmio_enddef's work: the plan's storage and the backend's enddef as one agreed step, then the
// mirror's variables fixed (and given their information quantisation) and data mode.
Status end_definitions(const Group &group, FileState *file, const Call &call,
                       const StoragePlan &plan);

}  // namespace esmio::datapath
