// A file's backend, made for its setup: the named backend wrapped into the trace of the file
// and the group, its capabilities recorded in the file's state (on every rank, so that the
// API's checks can read them) and the write cache set for them. Both engines make it: the
// local one keeps it on the ranks that hold the file, the forwarding one only learns from it.
#pragma once

#include <memory>

#include "backend/backend.hpp"
#include "common/status.hpp"
#include "datapath/engine.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"

namespace esmio::datapath {

// Local: every rank reaches the same outcome (ESMIO_EBADNAME, ESMIO_ENOTBUILT).
Status make_file_backend(Group &group, FileState *file, const FileSetup &setup,
                         std::unique_ptr<backend::Backend> *out);

}  // namespace esmio::datapath
