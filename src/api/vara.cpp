// The entry points of the undecomposed half of the data phase: put_vara / get_vara (and
// put_var / get_var, the whole variable) check a hyperslab given by start and count against the
// variable's dimensions and hand it to the file's engine with the call to agree on.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "api/darray_common.hpp"
#include "api/handles.hpp"
#include "common/agree.hpp"
#include "common/digest.hpp"
#include "common/types.hpp"
#include "convert/convert.hpp"
#include "datapath/call.hpp"
#include "datapath/describe.hpp"

namespace esmio::api {
namespace {

Status check_vara(esmio_file *file, int varid, const int64_t *start, const int64_t *count,
                  esmio_type memtype, const void *buf, bool write, int64_t *nelems) {
  const char *what = write ? "esmio_put_vara" : "esmio_get_vara";
  std::string at;
  ESMIO_RETURN_IF_ERROR(check_data_access(file, varid, what, write, &at));
  const datapath::Variable &var = file->vars[varid];
  if (!type_is_known(memtype) || !convert::convertible(memtype, var.type))
    return Status(ESMIO_EBADTYPE, at + ": no conversion between memory type " + type_name(memtype) +
                                      " and file type " + type_name(var.type));
  const std::size_t nd = var.dimids.size();
  if (nd > 0 && (start == nullptr || count == nullptr))
    return Status(ESMIO_EINVAL, at + ": null start or count");
  int64_t n = 1;
  for (std::size_t d = 0; d < nd; ++d) {
    const bool rec = var.record && d == 0;
    const int64_t len = rec ? (write ? INT64_MAX : file->nrecords) : file->dims[var.dimids[d]].len;
    if (start[d] < 0 || count[d] < 0 || start[d] > len - count[d])
      return Status(rec ? ESMIO_ERECORD : ESMIO_EINVAL,
                    at + ": start " + std::to_string(start[d]) + " count " +
                        std::to_string(count[d]) + " outside dimension '" +
                        file->dims[var.dimids[d]].name + "' of length " + std::to_string(len));
    n *= count[d];
  }
  if (write && var.record && nd > 0 && count[0] > 0)
    ESMIO_RETURN_IF_ERROR(check_record_bound(file, start[0] + count[0] - 1, at));
  if (n > 0 && buf == nullptr) return Status(ESMIO_EINVAL, at + ": null buffer");
  *nelems = n;
  return Status::ok();
}

// put_vara/get_vara's collective arguments as a Call for the data path's vote; for put_vara
// the values too (every rank passes the same: a rank that does not would have its values
// silently replaced by the root's).
datapath::Call vara_call(esmio_file *file, const Status &local, const char *what, int varid,
                         const int64_t *start, const int64_t *count, esmio_type memtype,
                         const void *values, int64_t n) {
  Digest d(what);
  d.add(file->path).add(int64_t(varid)).add(int64_t(memtype));
  // Start and count wherever they can be read, whatever this rank's checks found: a rank that
  // refused the call for a reason of its own (a null buffer) passes the same slab as the others,
  // and its error, not a disagreement, is what every rank gets. The values only where the
  // checks passed (the checked digest, which a refusing rank takes no part in).
  const bool known = varid >= 0 && varid < static_cast<int>(file->vars.size());
  std::vector<int64_t> first, extent;
  if (known && start != nullptr && count != nullptr) {
    const std::size_t nd = file->vars[varid].dimids.size();
    first.assign(start, start + nd);
    extent.assign(count, count + nd);
  }
  d.add(int64_t(start != nullptr)).add(int64_t(count != nullptr)).add(first).add(extent);
  const bool write = values != nullptr || std::string(what) == "esmio_put_vara";
  uint64_t checked = 0;
  if (local.is_ok() && values != nullptr && n > 0)
    checked =
        Digest("values").add(values, static_cast<std::size_t>(n) * type_size(memtype)).value();
  // The words are made only on a mismatch.
  datapath::Call call{
      local, d.value(), [=] {
        const std::string shown =
            local.is_ok() ? datapath::values_text(memtype, values, n) : std::string("not read");
        const std::string variable =
            datapath::variable_text(varid, known ? &file->vars[varid].name : nullptr);
        return encode(datapath::checked(
            datapath::vara_call(
                what, file->path, variable, start ? datapath::list_text(first) : "null",
                count ? datapath::list_text(extent) : "null", memtype, write ? &shown : nullptr),
            local));
      }};
  call.checked = checked;
  return call;
}

Status put_vara(esmio_file *file, int varid, const int64_t *start, const int64_t *count,
                esmio_type memtype, const void *buf) {
  int64_t n = 0;
  const Status local = check_vara(file, varid, start, count, memtype, buf, true, &n);
  return file->engine->put_vara(
      vara_call(file, local, "esmio_put_vara", varid, start, count, memtype, buf, n), varid, start,
      count, n, memtype, buf);
}

Status get_vara(esmio_file *file, int varid, const int64_t *start, const int64_t *count,
                esmio_type memtype, void *buf) {
  int64_t n = 0;
  const Status local = check_vara(file, varid, start, count, memtype, buf, false, &n);
  return file->engine->get_vara(
      vara_call(file, local, "esmio_get_vara", varid, start, count, memtype, nullptr, n), varid,
      start, count, n, memtype, buf);
}

// Whole-variable count: the record dimension spans nelems / (record size) records on write,
// the records written so far on read.
Status whole_variable_local(esmio_file *file, int varid, int64_t nelems, bool write,
                            std::vector<int64_t> *start, std::vector<int64_t> *count) {
  if (varid < 0 || varid >= static_cast<int>(file->vars.size()))
    return Status(ESMIO_EBADID, std::string(write ? "esmio_put_var" : "esmio_get_var") +
                                    ": no variable with id " + std::to_string(varid) + " in " +
                                    where(file));
  const datapath::Variable &var = file->vars[varid];
  start->assign(var.dimids.size(), 0);
  count->clear();
  for (int d : var.dimids) count->push_back(file->dims[d].len);
  const int64_t record_size = decomp::shape_size(var.shape);
  // The count first, so that the ranks compare it even where the checks below fail.
  if (var.record) (*count)[0] = write ? (record_size ? nelems / record_size : 0) : file->nrecords;
  // A record variable's buffer says how many records to write: it must hold whole records,
  // or the rest of the last one would be dropped without a word.
  if (write && var.record && record_size > 0 && nelems % record_size != 0)
    return Status(ESMIO_EBUFSIZE, "esmio_put_var: " + where(file, varid) + ": buffer of " +
                                      std::to_string(nelems) +
                                      " elements is not a whole number of records of " +
                                      std::to_string(record_size));
  if (nelems < decomp::shape_size(*count))
    return Status(ESMIO_EBUFSIZE, std::string(write ? "esmio_put_var" : "esmio_get_var") + ": " +
                                      where(file, varid) + ": buffer of " + std::to_string(nelems) +
                                      " elements, the variable has " +
                                      std::to_string(decomp::shape_size(*count)));
  return Status::ok();
}

// put_var/get_var's start and count, agreed with the call's arguments (every rank passes the
// same variable, memory type and length).
Status whole_variable(esmio_file *file, const char *what, int varid, esmio_type memtype,
                      int64_t nelems, bool write, std::vector<int64_t> *start,
                      std::vector<int64_t> *count) {
  // The count derived from nelems is compared, not nelems: a buffer larger than the variable
  // is a local choice. It is compared whatever this rank's checks found: a buffer too short
  // for the variable is this rank's own error, which every rank then gets, not a disagreement.
  const Status local = whole_variable_local(file, varid, nelems, write, start, count);
  Digest digest(what);
  digest.add(file->path).add(int64_t(varid)).add(int64_t(memtype)).add(*count);
  return agree_call(file->io->group.comm, local, digest.value(), [&] {
    const bool known = varid >= 0 && varid < static_cast<int>(file->vars.size());
    return encode(datapath::checked(
        datapath::whole_var_call(
            what, file->path,
            datapath::variable_text(varid, known ? &file->vars[varid].name : nullptr), memtype,
            datapath::list_text(*count)),
        local));
  });
}

}  // namespace
}  // namespace esmio::api

namespace esmio::api {
namespace {

// The bytes of the caller's buffer for the trace: 0 where the arguments are not valid (the
// call refuses them).
int64_t vara_bytes(const esmio_file *file, int varid, const int64_t *count, esmio_type memtype) {
  if (count == nullptr || varid < 0 || static_cast<std::size_t>(varid) >= file->vars.size())
    return 0;
  int64_t n = static_cast<int64_t>(type_size(memtype));
  for (std::size_t d = 0; d < file->vars[static_cast<std::size_t>(varid)].dimids.size(); ++d) {
    if (count[d] < 0) return 0;
    n *= count[d];
  }
  return n;
}

}  // namespace
}  // namespace esmio::api

using esmio::Status;
using esmio::api::guarded;

extern "C" {

int esmio_put_vara(esmio_file_t file_handle, int varid, const int64_t *start, const int64_t *count,
                   esmio_type memtype, const void *buf) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_put_vara", &file));
    auto scope = esmio::api::traced(file, esmio::trace::Counter::put_vara);
    scope.set_variable(varid);
    scope.set_bytes(esmio::api::vara_bytes(file, varid, count, memtype));
    return esmio::api::put_vara(file, varid, start, count, memtype, buf);
  });
}

int esmio_get_vara(esmio_file_t file_handle, int varid, const int64_t *start, const int64_t *count,
                   esmio_type memtype, void *buf) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_get_vara", &file));
    auto scope = esmio::api::traced(file, esmio::trace::Counter::get_vara);
    scope.set_variable(varid);
    scope.set_bytes(esmio::api::vara_bytes(file, varid, count, memtype));
    return esmio::api::get_vara(file, varid, start, count, memtype, buf);
  });
}

int esmio_put_var(esmio_file_t file_handle, int varid, esmio_type memtype, const void *buf,
                  int64_t nelems) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_put_var", &file));
    auto scope = esmio::api::traced(file, esmio::trace::Counter::put_vara);
    scope.set_variable(varid);
    std::vector<int64_t> start, count;
    ESMIO_RETURN_IF_ERROR(esmio::api::whole_variable(file, "esmio_put_var", varid, memtype, nelems,
                                                     true, &start, &count));
    scope.set_bytes(esmio::api::vara_bytes(file, varid, count.data(), memtype));
    return esmio::api::put_vara(file, varid, start.data(), count.data(), memtype, buf);
  });
}

int esmio_get_var(esmio_file_t file_handle, int varid, esmio_type memtype, void *buf,
                  int64_t nelems) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_get_var", &file));
    auto scope = esmio::api::traced(file, esmio::trace::Counter::get_vara);
    scope.set_variable(varid);
    std::vector<int64_t> start, count;
    ESMIO_RETURN_IF_ERROR(esmio::api::whole_variable(file, "esmio_get_var", varid, memtype, nelems,
                                                     false, &start, &count));
    scope.set_bytes(esmio::api::vara_bytes(file, varid, count.data(), memtype));
    return esmio::api::get_vara(file, varid, start.data(), count.data(), memtype, buf);
  });
}

}  // extern "C"
