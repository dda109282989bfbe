// The definition phase on the ranks of a group: one agreed step per definition, so that no
// rank's arguments reach the file unless every rank passed the same, and no rank enters a
// backend collective another rank skipped (define.cpp). Collective over the group.
#pragma once

#include <functional>

#include "backend/backend.hpp"
#include "common/status.hpp"
#include "datapath/call.hpp"
#include "datapath/engine.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"

namespace esmio::datapath {

// A definition (esmio_def_dim, esmio_def_var, esmio_put_att): agrees on call (the API's checks
// and the digest of its arguments) and runs op on the ranks that hold the file (none: the
// file is held by I/O servers). One allreduce: op's outcome is not agreed here. esmio's own
// checks (names, ids, types, what the format holds) leave the storage library little to
// refuse: a name netCDF-4 reserves, two names that differ only in their Unicode form, a failed
// allocation. Such a refusal is kept on its rank (FileState::refused_definition) and carried by
// the vote of every later definition, esmio_enddef and esmio_close, which then fail on every
// rank with its message.
Status define(const Group &group, FileState *file, const Call &call,
              const std::function<Status(backend::Backend &)> &op);
// The same with op's outcome agreed at once (two allreduces): for a step after which ranks
// must not go on alone (esmio_enddef's).
Status collective(const Group &group, FileState *file, const Call &call,
                  const std::function<Status(backend::Backend &)> &op);
// esmio_enddef's work: the plan's storage and the backend's enddef as one agreed step, then the
// mirror's variables fixed (and given their information quantisation) and data mode.
Status end_definitions(const Group &group, FileState *file, const Call &call,
                       const StoragePlan &plan);

}  // namespace esmio::datapath
