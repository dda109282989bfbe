#include "datapath/define.hpp"

#include <memory>

#include "aggregate/information.hpp"
#include "common/agree.hpp"

namespace esmio::datapath {

Status collective(const Group &group, FileState *file, const Call &call,
                  const std::function<Status(backend::Backend &)> &op) {
  ESMIO_RETURN_IF_ERROR(
      agree_checked_call(group.comm, call.local, call.digest, call.checked, call.words));
  Status status;
  if (file->backend) status = op(*file->backend);
  return agree(group.comm, status);
}

Status end_definitions(const Group &group, FileState *file, const Call &call,
                       const StoragePlan &plan) {
  ESMIO_RETURN_IF_ERROR(collective(group, file, call, [&](backend::Backend &b) {
    for (const auto &[varid, s] : plan.storage) ESMIO_RETURN_IF_ERROR(b.def_var_storage(varid, s));
    return b.enddef();
  }));
  for (auto &v : file->vars) v.storage_defined = true;
  for (const auto &[varid, choice] : plan.information) {
    Variable &var = file->vars[varid];
    var.information = std::make_shared<aggregate::Information>();
    var.information->fraction = choice.fraction;
    var.information->maxrel = choice.maxrel;
    if (choice.minbits >= 0) var.information->minbits = choice.minbits;
  }
  file->define_mode = false;
  return Status::ok();
}

}  // namespace esmio::datapath
