// The entry points of the decomposed half of the data phase, write_darray / read_darray: their
// checks, their first agreement, and the call to the file's engine. Undecomposed slices
// (put_vara / get_vara) are in vara.cpp.
#include <string>

#include "api/darray_common.hpp"
#include "api/handles.hpp"
#include "common/agree.hpp"
#include "common/types.hpp"
#include "convert/convert.hpp"
#include "datapath/call.hpp"

namespace esmio::api {

// ESMIO_ERECORD for a record the file's format cannot hold or too far past the last one.
Status check_record_bound(const esmio_file *file, int64_t record, const std::string &at) {
  const std::string &format = file->settings.format;
  // CDF-1/2 count records in 32 bits, and 2^32-1 means "streaming, count unknown".
  const int64_t format_limit =
      format == "cdf1" || format == "cdf2" ? (int64_t(1) << 32) - 2 : INT64_MAX - 1;
  if (record > format_limit)
    return Status(ESMIO_ERECORD, at + ": record " + std::to_string(record) +
                                     " is beyond what format " + format + " can count (" +
                                     std::to_string(format_limit) + ")");
  if (record - file->nrecords > kMaxRecordGap)
    return Status(ESMIO_ERECORD, at + ": record " + std::to_string(record) + " is more than " +
                                     std::to_string(kMaxRecordGap) + " past the " +
                                     std::to_string(file->nrecords) +
                                     " records in the file (records skipped over are filled "
                                     "at close)");
  return Status::ok();
}

Status check_data_access(const esmio_file *file, int varid, const char *what, bool write,
                         std::string *at) {
  if (varid < 0 || varid >= static_cast<int>(file->vars.size()))
    return Status(ESMIO_EBADID, std::string(what) + ": no variable with id " +
                                    std::to_string(varid) + " in " + where(file));
  *at = std::string(what) + ": " + where(file, varid);
  if (file->define_mode)
    return Status(ESMIO_EINDEFINE, *at + ": the file is in define mode (call esmio_enddef)");
  if (write && !file->writable) return Status(ESMIO_EPERM, *at + ": the file is open read-only");
  return Status::ok();
}

namespace {

Status check_darray(esmio_file *file, int varid, int64_t record, esmio_decomp *decomp,
                    esmio_type memtype, const void *buf, int64_t nelems, bool write) {
  const char *what = write ? "esmio_write_darray" : "esmio_read_darray";
  if (decomp == nullptr)
    return Status(ESMIO_EBADID, std::string(what) + ": " + where(file, varid) +
                                    ": null, freed or foreign decomposition handle");
  if (decomp->io != file->io)
    return Status(ESMIO_EINVAL, std::string(what) +
                                    ": the decomposition belongs to another "
                                    "esmio instance than " +
                                    where(file));
  std::string at;
  ESMIO_RETURN_IF_ERROR(check_data_access(file, varid, what, write, &at));
  const datapath::Variable &var = file->vars[varid];
  if (decomp->dims != var.shape) {
    auto text = [](const std::vector<int64_t> &d) {
      std::string s = "(";
      for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
      return s + ")";
    };
    return Status(ESMIO_ESHAPE, at + ": decomposition of shape " + text(decomp->dims) +
                                    " does not fit the variable's " +
                                    (var.record ? "record shape " : "shape ") + text(var.shape));
  }
  if (record < 0) return Status(ESMIO_ERECORD, at + ": negative record " + std::to_string(record));
  if (!var.record && record != 0)
    return Status(ESMIO_ERECORD, at + ": record " + std::to_string(record) +
                                     " for a variable without the record dimension (use 0)");
  if (write && var.record) ESMIO_RETURN_IF_ERROR(check_record_bound(file, record, at));
  if (!write && var.record && record >= file->nrecords)
    return Status(ESMIO_ERECORD, at + ": record " + std::to_string(record) + " beyond the " +
                                     std::to_string(file->nrecords) + " records in the file");
  if (!type_is_known(memtype))
    return Status(ESMIO_EBADTYPE, at + ": unknown memory type " + std::to_string(memtype));
  if (!convert::convertible(memtype, var.type))
    return Status(ESMIO_EBADTYPE, at + ": no conversion between memory type " + type_name(memtype) +
                                      " and file type " + type_name(var.type));
  const int64_t nlocal = decomp->map.nlocal;
  if (nelems < nlocal)
    return Status(ESMIO_EBUFSIZE, at + ": rank " + std::to_string(file->io->group.rank) +
                                      " buffer has " + std::to_string(nelems) +
                                      " elements, the decomposition " + std::to_string(nlocal));
  if (nlocal > 0 && buf == nullptr)
    return Status(ESMIO_EINVAL,
                  at + ": rank " + std::to_string(file->io->group.rank) + " null buffer");
  return Status::ok();
}

// The checked digest of a read on a rank whose checks passed: whether it served the read from
// its batch. Compared among those ranks only, so that one rank's refusal is what every rank
// gets, not a disagreement over a read it never took.
constexpr uint64_t kKeptRead = 0x6b6570745f726561ull, kFileRead = 0x66696c655f726561ull;

// What a read's agreement compares beyond its arguments: what this rank keeps from batches of
// small reads (a digest of them, and how many) and whether it served its read from there.
struct KeptRead {
  uint64_t state = 0;
  int64_t count = 0;
  bool served = false;
};

// The first agreement of a data call: local checks and the call's arguments compared. A read
// (kept non-null) also compares the kept state (added to the digest) and, among the ranks whose
// checks passed, whether each served its read from its batch (the checked digest); the words
// for a mismatch say both, and are made only then.
Status agree_darray(esmio_file *file, const Status &local, const char *what, int varid,
                    int64_t record, esmio_decomp *decomp, esmio_type memtype, bool flag = false,
                    bool *any_flag = nullptr, const KeptRead *kept = nullptr) {
  const uint64_t digest = datapath::darray_digest(*file, what, varid, record, decomp, memtype);
  return agree_checked_call(
      file->io->group.comm, local, kept ? digest ^ kept->state : digest,
      kept ? (kept->served ? kKeptRead : kFileRead) : 0,
      [&] {
        const std::string source =
            kept ? std::string(kept->served ? "kept from a batch" : "read from the file") + " (" +
                       std::to_string(kept->count) + " read(s) kept)"
                 : std::string();
        return datapath::darray_words(*file, what, varid, record, decomp, memtype, local,
                                      kept ? source.c_str() : nullptr);
      },
      flag, any_flag);
}

}  // namespace

}  // namespace esmio::api

using esmio::Status;
using esmio::api::guarded;

extern "C" {

int esmio_write_darray(esmio_file_t file_handle, int varid, int64_t record,
                       esmio_decomp_t decomp_handle, esmio_type memtype, const void *buf,
                       int64_t nelems) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_write_darray", &file));
    esmio_decomp *decomp = nullptr;  // null when stale: refused in the agreed checks
    esmio::api::resolve(decomp_handle, "esmio_write_darray", &decomp);
    auto scope = esmio::api::traced(file, esmio::trace::Counter::write_darray);
    scope.set_variable(varid);
    if (nelems > 0) scope.set_bytes(nelems * static_cast<int64_t>(esmio::type_size(memtype)));
    const Status local =
        esmio::api::check_darray(file, varid, record, decomp, memtype, buf, nelems, true);
    const esmio::datapath::Call call{
        local,
        esmio::datapath::darray_digest(*file, "esmio_write_darray", varid, record, decomp, memtype),
        [&] {
          return esmio::datapath::darray_words(*file, "esmio_write_darray", varid, record, decomp,
                                               memtype, local);
        }};
    return file->engine->write_darray(call, varid, record, decomp, memtype, buf);
  });
}

int esmio_read_darray(esmio_file_t file_handle, int varid, int64_t record,
                      esmio_decomp_t decomp_handle, esmio_type memtype, void *buf, int64_t nelems) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_read_darray", &file));
    esmio_decomp *decomp = nullptr;  // null when stale: refused in the agreed checks
    esmio::api::resolve(decomp_handle, "esmio_read_darray", &decomp);
    auto scope = esmio::api::traced(file, esmio::trace::Counter::read_darray);
    scope.set_variable(varid);
    if (nelems > 0) scope.set_bytes(nelems * static_cast<int64_t>(esmio::type_size(memtype)));
    // The agreement first (two ranks in different calls meet there), then the cache's writes,
    // so that the read sees them. A read this rank kept from a batch of small reads is converted
    // first, so that the agreement (with the values out of range) is all the call costs.
    const Status checked =
        esmio::api::check_darray(file, varid, record, decomp, memtype, buf, nelems, false);
    esmio::api::KeptRead kept;
    file->engine->kept_state(&kept.state, &kept.count);
    esmio::datapath::RangeCount range;
    kept.served =
        checked.is_ok() && file->engine->read_kept(varid, record, *decomp, memtype, buf, &range);
    const Status local =
        kept.served && range.count > 0 ? Status(ESMIO_ERANGE, std::string()) : checked;
    bool any_kept = false;
    const Status agreed = esmio::api::agree_darray(file, local, "esmio_read_darray", varid, record,
                                                   decomp, memtype, kept.served, &any_kept, &kept);
    Status status = agreed;
    if (agreed.is_ok() || agreed.code() == ESMIO_ERANGE) {
      if (!any_kept) {
        status = file->engine->read_darray(varid, record, *decomp, memtype, buf);
      } else {
        // Every rank served its read from its batch (the checked digests agreed).
        file->engine->kept_read_agreed(varid, record, *decomp);
        if (!agreed.is_ok())
          status = esmio::datapath::agree_with_range(file->io->group, *file, varid,
                                                     "esmio_read_darray", file->vars[varid].type,
                                                     memtype, Status::ok(), range);
      }
    }
    // A read that failed (the same outcome everywhere), perhaps after some ranks took their
    // kept read: no rank keeps anything now, so that what the ranks keep stays the same.
    if (!status.is_ok() && status.code() != ESMIO_ERANGE) file->engine->forget_kept();
    return status;
  });
}

}  // extern "C"
