// The local engine: a file's calls run through the data path on the group's own ranks (the
// synchronous mode, and the I/O servers' own instances).
#pragma once

#include <memory>
#include <vector>

#include "datapath/engine.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"
#include "datapath/publish.hpp"

namespace esmio::datapath {

// file and group outlive the engine; staged copies that finish later go to later.
std::unique_ptr<Engine> make_local_engine(Group &group, FileState &file,
                                          std::vector<PendingCopy> *later);

}  // namespace esmio::datapath
