// Undecomposed slices (put_vara / get_vara, and put_var / get_var through them): the backend's
// root rank converts and does the I/O; a read is broadcast to every rank.
#include "datapath/vara.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "common/agree.hpp"
#include "common/types.hpp"
#include "convert/convert.hpp"
#include "datapath/flush.hpp"
#include "datapath/unwritten.hpp"

namespace esmio::datapath {
namespace {

// True if this rank's write cache holds a write of varid (to be written before what follows).
bool has_pending_write(const FileState &file, int varid) {
  for (const aggregate::CachedWrite &w : file.cache.pending())
    if (w.varid == varid) return true;
  return false;
}

}  // namespace

Status put_vara(Group &group, FileState *file, const Call &call, int varid, const int64_t *start,
                const int64_t *count, int64_t n, esmio_type memtype, const void *buf) {
  // Cached write_darray calls of this variable go first, or they would land later and win over
  // these values (their hole fill included). Decided in the call's vote, alike on every rank;
  // writes of other variables stay cached.
  bool cached = false;
  ESMIO_RETURN_IF_ERROR(
      agree_checked_call(group.comm, call.local, call.digest, call.checked, call.words,
                         call.local.is_ok() && has_pending_write(*file, varid), &cached));
  if (cached) ESMIO_RETURN_IF_ERROR(flush_cache(group, file));
  const Variable &var = file->vars[varid];
  Status status;
  RangeCount range;
  // Part of a variable or record nothing wrote yet: the rest must read as the fill value, as in
  // netCDF's fill mode (the file is in NOFILL mode); filled first, whole.
  if (n > 0)
    for (int64_t r : fill_before_slice(var, start, count)) {
      status = fill_extent(file, varid, r);
      if (!status.is_ok()) break;
    }
  if (file->backend && status.is_ok()) {
    std::vector<backend::Box> boxes;
    std::vector<unsigned char> converted;
    if (group.rank == file->backend_root && n > 0) {
      boxes.push_back(backend::Box{std::vector<int64_t>(start, start + var.dimids.size()),
                                   std::vector<int64_t>(count, count + var.dimids.size())});
      converted.resize(n * type_size(var.type));
      range.add(convert::convert(memtype, buf, var.type, converted.data(), n, var.fill.data()),
                group.rank);
    }
    status = file->backend->put_boxes(varid, boxes, var.type, converted.data());
  }
  const Status agreed =
      agree_with_range(group, *file, varid, "esmio_put_vara", memtype, var.type, status, range);
  if ((agreed.is_ok() || agreed.code() == ESMIO_ERANGE) && var.record && n > 0) {
    file->nrecords = std::max(file->nrecords, start[0] + count[0]);
    file->nrecords_agreed = std::max(file->nrecords_agreed, start[0] + count[0]);
    // Written here, whole or in part: not a record skipped over, never filled at close.
    for (int64_t r = start[0]; r < start[0] + count[0]; ++r) file->vars[varid].claim_hole_fill(r);
  }
  if ((agreed.is_ok() || agreed.code() == ESMIO_ERANGE) && !var.record && n > 0)
    file->vars[varid].vara_written = true;  // never filled at close (unwritten.hpp)
  return agreed;
}

Status get_vara(Group &group, FileState *file, const Call &call, int varid, const int64_t *start,
                const int64_t *count, int64_t n, esmio_type memtype, void *buf) {
  ESMIO_RETURN_IF_ERROR(
      agree_checked_call(group.comm, call.local, call.digest, call.checked, call.words));
  ESMIO_RETURN_IF_ERROR(flush_cache(group, file));  // read what was written
  const Variable &var = file->vars[varid];
  const int64_t bytes = n * static_cast<int64_t>(type_size(memtype));
  if (bytes > INT32_MAX)
    return Status(ESMIO_EINVAL, "esmio_get_vara: " + where(*file, varid) +
                                    ": more than 2 GiB requested; use esmio_read_darray");
  Status status;
  RangeCount range;
  if (file->backend) {
    std::vector<backend::Box> boxes;
    std::vector<unsigned char> raw;
    if (group.rank == file->backend_root && n > 0) {
      boxes.push_back(backend::Box{std::vector<int64_t>(start, start + var.dimids.size()),
                                   std::vector<int64_t>(count, count + var.dimids.size())});
      raw.resize(n * type_size(var.type));
    }
    status = file->backend->get_boxes(varid, boxes, var.type, raw.data());
    if (status.is_ok() && !raw.empty()) {
      std::vector<unsigned char> memfill(type_size(memtype));
      default_fill_value(memtype, memfill.data());
      range.add(convert::convert(var.type, raw.data(), memtype, buf, n, memfill.data()),
                group.rank);
    }
  }
  status =
      agree_with_range(group, *file, varid, "esmio_get_vara", var.type, memtype, status, range);
  if (bytes > 0 && (status.is_ok() || status.code() == ESMIO_ERANGE))
    MPI_Bcast(buf, static_cast<int>(bytes), MPI_BYTE, file->backend_root, group.comm);
  return status;
}

}  // namespace esmio::datapath
