#include "datapath/local_instance.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "datapath/local_engine.hpp"
#include "datapath/publish.hpp"

namespace esmio::datapath {
namespace {

class LocalInstance final : public InstanceEngine {
 public:
  explicit LocalInstance(Group &group) : group_(group) {}

  std::unique_ptr<Engine> file_engine(FileState &file) override {
    return make_local_engine(group_, file, &pending_copies_);
  }

  Status create_decomp(Decomp *decomp) override { return plan_decomp(group_, decomp); }

  // Nothing to release here: the plan goes with the decomposition (or with the write cache,
  // which shares it while it still holds writes through it).
  void free_decomp(const Decomp &) override {}

  Status stage_wait(const std::string &target, bool *pending) override {
    auto it = std::find_if(pending_copies_.begin(), pending_copies_.end(),
                           [&](const PendingCopy &p) { return p.job.target == target; });
    *pending = it != pending_copies_.end();
    if (!*pending) return Status::ok();
    const Status status = finish_pending(group_, &*it);
    pending_copies_.erase(it);
    return status.is_ok() ? status : Status(status.code(), "esmio_stage_wait: " + status.message());
  }

  // stage_copy=finalize or background: every staged file reaches its target now, verified.
  Status finalize(std::vector<std::string> *) override {
    Status status;
    for (PendingCopy &pending : pending_copies_) {
      const Status copied = finish_pending(group_, &pending);
      if (status.is_ok() && !copied.is_ok())
        status = Status(copied.code(), "esmio_finalize: " + copied.message());
    }
    pending_copies_.clear();
    return status;
  }

  Status server_trace(std::vector<std::string> *) override { return Status::ok(); }

 private:
  Group &group_;
  // Staged files closed with stage_copy=finalize or background, in closing order.
  std::vector<PendingCopy> pending_copies_;
};

}  // namespace

std::unique_ptr<InstanceEngine> make_local_instance(Group &group) {
  return std::make_unique<LocalInstance>(group);
}

}  // namespace esmio::datapath
