// esmio_close's work on the ranks that hold the file: the cached calls settled, the records
// skipped over filled, the cache flushed, the records lost to a failed write left out of the
// file's count, the backend closed (close.cpp). Collective over the group.
#pragma once

#include "common/status.hpp"
#include "datapath/engine.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"

namespace esmio::datapath {

// ending: how to end a writable file still in define mode (null otherwise).
Status close_file(Group &group, FileState *file, const Ending *ending);

}  // namespace esmio::datapath
