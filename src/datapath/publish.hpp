// A closed file under its published name: publish=atomic renames the written file, staging
// copies it back from the stage (now, in the background, or at finalize), verified. Collective
// over the group.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"
#include "stage/background.hpp"
#include "stage/publish.hpp"
#include "trace/counters.hpp"

namespace esmio::datapath {

// A staged file closed but not yet published: stage_copy=finalize (nothing begun) or background
// (this rank's part running on a thread).
struct PendingCopy {
  stage::CopyBack job;
  std::unique_ptr<stage::BackgroundCopy> running;
};

// The ranks that copy a staged file back: the I/O tasks.
inline stage::Copiers copiers(const Group &group) {
  return stage::Copiers{group.comm, group.task, group.layout.ntasks()};
}

// publish=atomic at close: the written file takes the target's name only when the close
// succeeded on every rank (closed); otherwise it is removed and the target keeps its previous
// version.
Status publish_atomic(const Group &group, const FileState &file, const Status &closed);
// A staged file after its close: copied to its path now (stage_copy "close"), or later
// (stage_copy "background" or "finalize": the copy is appended to later). A failed close
// copies nothing and keeps the staged file.
Status publish_staged(Group &group, FileState *file, const Status &closed,
                      const std::string &stage_copy, int64_t stage_block,
                      std::vector<PendingCopy> *later);
// A pending copy published: joined and finished, or copied whole (stage_copy=finalize).
Status finish_pending(Group &group, PendingCopy *pending);

}  // namespace esmio::datapath
