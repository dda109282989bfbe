#include "datapath/define.hpp"

#include <memory>
#include <string>

#include "aggregate/information.hpp"
#include "common/agree.hpp"

namespace esmio::datapath {

namespace {

// The call's first vote, in which a definition refused earlier on this rank fails the call on
// every rank.
Status vote_on(const Group &group, const FileState &file, const Call &call) {
  const Status local = call.local.is_ok() ? file.refused_definition : call.local;
  return agree_checked_call(group.comm, local, call.digest, call.checked, call.words);
}

}  // namespace

Status define(const Group &group, FileState *file, const Call &call,
              const std::function<Status(backend::Backend &)> &op) {
  ESMIO_RETURN_IF_ERROR(vote_on(group, *file, call));
  if (!file->backend) return Status::ok();
  const Status status = op(*file->backend);
  if (!status.is_ok())
    file->refused_definition =
        Status(status.code(), status.message() + " (refused by the storage library on rank " +
                                  std::to_string(group.rank) +
                                  " of the file's group at an earlier definition; the file's "
                                  "definitions are incomplete: every later definition, "
                                  "esmio_enddef and esmio_close on it fail)");
  return Status::ok();
}

Status collective(const Group &group, FileState *file, const Call &call,
                  const std::function<Status(backend::Backend &)> &op) {
  ESMIO_RETURN_IF_ERROR(vote_on(group, *file, call));
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
