// The decomposed half of the data phase: write_darray / read_darray. Decomposed data is
// converted on the compute rank, rearranged onto the I/O tasks by the decomposition's plan, and
// written there as whole file ranges; the serial backend instead gathers every record to rank 0
// (the classic baseline). Undecomposed slices (put_vara / get_vara) are in vara.cpp.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "api/darray_common.hpp"
#include "api/handles.hpp"
#include "common/agree.hpp"
#include "common/digest.hpp"
#include "common/types.hpp"
#include "convert/convert.hpp"
#include "datapath/gathered.hpp"
#include "datapath/read.hpp"
#include "datapath/requests.hpp"
#include "decomp/box_partition.hpp"

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

// Agrees on the outcome of a data call. Out-of-range values are not one rank's error: the data
// is written (as fill) everywhere, and every rank reports the call's total count.
Status agree_with_range(const esmio_file *file, int varid, const char *what, esmio_type from,
                        esmio_type to, const Status &status, const datapath::RangeCount &range) {
  const Status local =
      status.is_ok() && range.count > 0 ? Status(ESMIO_ERANGE, std::string()) : status;
  const Status agreed = agree(file->io->group.comm, local);
  if (agreed.code() != ESMIO_ERANGE) return agreed;
  int64_t total = 0;
  int source = 0;
  MPI_Allreduce(&range.count, &total, 1, MPI_INT64_T, MPI_SUM, file->io->group.comm);
  MPI_Allreduce(&range.source, &source, 1, MPI_INT, MPI_MIN, file->io->group.comm);
  return Status(ESMIO_ERANGE,
                std::string(what) + ": " + where(file, varid) + ": " + std::to_string(total) +
                    " value(s) out of the range of " + type_name(to) + " (from " + type_name(from) +
                    "), stored as the fill value; the first from rank " + std::to_string(source));
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

// A data call's collective arguments: variable, record, decomposition (by its creation number:
// ranks that pass different decompositions differ here) and memory type. The buffer length is
// local and not compared.
uint64_t darray_digest(const char *what, int varid, int64_t record, esmio_decomp *decomp,
                       esmio_type memtype) {
  return Digest(what)
      .add(int64_t(varid))
      .add(record)
      .add(decomp ? decomp->serial : int64_t(-1))
      .add(int64_t(memtype))
      .value();
}

std::string darray_words(const esmio_file *file, const char *what, int varid, int64_t record,
                         esmio_decomp *decomp, esmio_type memtype) {
  return std::string(what) + "(" + where(file, varid) + " (varid " + std::to_string(varid) +
         "), record " + std::to_string(record) + ", decomposition #" +
         (decomp ? std::to_string(decomp->serial) : std::string("null")) + ", memory type " +
         type_name(memtype) + ")";
}

// The first agreement of a data call: local checks and the call's arguments compared.
Status agree_darray(esmio_file *file, const Status &local, const char *what, int varid,
                    int64_t record, esmio_decomp *decomp, esmio_type memtype, bool flag = false,
                    bool *any_flag = nullptr) {
  return agree_call(
      file->io->group.comm, local, darray_digest(what, varid, record, decomp, memtype),
      [&] { return darray_words(file, what, varid, record, decomp, memtype); }, flag, any_flag);
}

// agree_writes=flush: through the write cache without a collective per call. The call is
// checked here and folded, with its outcome, into the file's running digest; the next flush (a
// full cache, a large write, sync, close, a read, redef) compares every rank's digest in one
// allreduce. A call that failed here returns its error here at once; if it did not fail alike
// everywhere, every rank gets ESMIO_EMISMATCH (naming the failure) at that flush, which drops
// everything pending on every rank (nothing inconsistent reaches the file). Every rank makes the
// same flush decisions as long as the calls agree; where they do not, the first flush anywhere
// meets the others' first collective, which is the same agreement, and the digests differ.
Status write_deferred(esmio_file *file, int varid, int64_t record, esmio_decomp *decomp,
                      esmio_type memtype, const void *buf, int64_t nelems) {
  const Status local = check_darray(file, varid, record, decomp, memtype, buf, nelems, true);
  aggregate::WriteCache &cache = file->cache;
  const aggregate::CacheSpec &spec = file->cache_spec;
  // The arguments and the outcome here: a call that failed alike on every rank (define mode,
  // a bad variable) left nothing behind anywhere and is forgotten; one that failed on some
  // ranks only makes the digests differ.
  auto fold = [&] {
    file->pending_digest = Digest("pending")
                               .add(static_cast<int64_t>(file->pending_digest))
                               .add(static_cast<int64_t>(darray_digest("esmio_write_darray", varid,
                                                                       record, decomp, memtype)))
                               .add(int64_t(local.code()))
                               .value();
    ++file->pending_calls;
  };
  if (!local.is_ok()) {
    fold();
    if (file->deferred.is_ok())  // the first, for the message of the next flush
      file->deferred = Status(local.code(), local.message());
    return local;
  }
  const datapath::Variable &var = file->vars[varid];
  const int64_t hole_record = var.record ? record : 0;
  const bool fill_holes = file->vars[varid].claim_hole_fill(hole_record);
  const int64_t esize = static_cast<int64_t>(type_size(var.type));
  Status status;
  if (!cache.empty() && cache.bound_with(*decomp->plan, esize, fill_holes) > spec.size) {
    status = datapath::flush_cache(file->io->group, file);
    if (!status.is_ok() && status.code() != ESMIO_ERANGE) {
      if (fill_holes) file->vars[varid].release_hole_fill(hole_record);
      return status;
    }
  }
  int64_t out_of_range = 0;
  {
    aggregate::CachedWrite write{varid,     var.type,   var.fill, fill_holes,     decomp->plan,
                                 var.shape, var.record, record,   var.information};
    auto scope = traced(file, trace::Counter::convert, decomp->plan->send.count * esize);
    out_of_range = cache.add(std::move(write), memtype, buf);
  }
  fold();
  if (out_of_range > 0) {
    if (file->pending_range == 0) file->pending_range_source = file->io->group.rank;
    file->pending_range += out_of_range;
  }
  const bool large = decomp->plan->max_rank_elements * esize >= spec.direct;
  if (spec.flush == aggregate::FlushPolicy::write || cache.bound() > spec.size || large) {
    const Status flushed = datapath::flush_cache(file->io->group, file);
    if (status.is_ok()) status = flushed;
  }
  if (status.is_ok() && out_of_range > 0)
    status = Status(ESMIO_ERANGE, "esmio_write_darray: " + where(file, varid) + ": " +
                                      std::to_string(out_of_range) +
                                      " value(s) out of the range of " + type_name(var.type) +
                                      " on rank " + std::to_string(file->io->group.rank) +
                                      ", stored as the fill value (every rank is told at the "
                                      "next esmio_sync or esmio_close)");
  return status;
}

// agree_writes=call: through the write cache, the call's checks and its out-of-range count
// agreed in one allreduce: a model writing many small pieces pays one collective per call,
// and a call that failed anywhere is taken back everywhere before it returns.
Status write_rearranged(esmio_file *file, int varid, int64_t record, esmio_decomp *decomp,
                        esmio_type memtype, const void *buf, int64_t nelems) {
  if (file->defer_agreement)
    return write_deferred(file, varid, record, decomp, memtype, buf, nelems);
  Status local = check_darray(file, varid, record, decomp, memtype, buf, nelems, true);
  aggregate::WriteCache &cache = file->cache;
  const aggregate::CacheSpec &spec = file->cache_spec;
  datapath::RangeCount range;
  bool fill_holes = false, added = false, full = false;
  int64_t hole_record = 0;
  auto add = [&] {
    const datapath::Variable &var = file->vars[varid];
    aggregate::CachedWrite write{varid,     var.type,   var.fill, fill_holes,     decomp->plan,
                                 var.shape, var.record, record,   var.information};
    auto scope = traced(file, trace::Counter::convert,
                        decomp->plan->send.count * static_cast<int64_t>(type_size(var.type)));
    range.add(cache.add(std::move(write), memtype, buf), file->io->group.rank);
  };
  if (local.is_ok()) {
    const datapath::Variable &var = file->vars[varid];
    hole_record = var.record ? record : 0;
    fill_holes = file->vars[varid].claim_hole_fill(hole_record);
    // A write that would overfill the cache waits for the flush the agreement decides on.
    const int64_t esize = static_cast<int64_t>(type_size(var.type));
    full = !cache.empty() && cache.bound_with(*decomp->plan, esize, fill_holes) > spec.size;
    if (!full) {
      add();
      added = true;
    }
  }
  const Status mine = local.is_ok() && range.count > 0 ? Status(ESMIO_ERANGE, "") : local;
  bool any_full = false;
  Status agreed = agree_darray(file, mine, "esmio_write_darray", varid, record, decomp, memtype,
                               full, &any_full);
  if (!agreed.is_ok() && agreed.code() != ESMIO_ERANGE) {
    if (added) cache.drop_last();
    if (fill_holes) file->vars[varid].release_hole_fill(hole_record);
    return agreed;
  }
  // From here on the call is valid on every rank, so every rank decides alike.
  Status status;
  if (any_full) {
    status = datapath::flush_cache(file->io->group, file);
    if (!status.is_ok()) {
      // The cache keeps what it could not write (a later sync retries it); this call is
      // refused rather than let the cache grow past its size on every call while the disk
      // stays full. The flush's outcome is agreed, so every rank takes this branch.
      if (added) cache.drop_last();
      if (fill_holes) file->vars[varid].release_hole_fill(hole_record);
      return status;
    }
    if (!added) add();
    agreed = range.count > 0 ? Status(ESMIO_ERANGE, "") : Status::ok();
  }
  const datapath::Variable &var = file->vars[varid];
  const int64_t esize = static_cast<int64_t>(type_size(var.type));
  const bool large = decomp->plan->max_rank_elements * esize >= spec.direct;
  if (spec.flush == aggregate::FlushPolicy::write || cache.bound() > spec.size || large) {
    const Status flushed = datapath::flush_cache(file->io->group, file);
    if (status.is_ok()) status = flushed;
  }
  // The out-of-range report (rare) needs the call's total and first rank: two more reductions.
  if (any_full || agreed.code() == ESMIO_ERANGE)
    agreed =
        agree_with_range(file, varid, "esmio_write_darray", memtype, var.type, Status::ok(), range);
  return status.is_ok() ? agreed : status;
}

// One write_darray call after the handles are resolved: rearranged through the cache, or
// gathered to rank 0 for the serial backend; the record count grows when it succeeds.
Status write_record(esmio_file *file, int varid, int64_t record, esmio_decomp *decomp,
                    esmio_type memtype, const void *buf, int64_t nelems) {
  Status agreed;
  if (file->gather_to_root) {
    ESMIO_RETURN_IF_ERROR(
        agree_darray(file, check_darray(file, varid, record, decomp, memtype, buf, nelems, true),
                     "esmio_write_darray", varid, record, decomp, memtype));
    datapath::RangeCount range;
    const datapath::Variable &var = file->vars[varid];
    const int64_t hole_record = var.record ? record : 0;
    const bool claimed_before =
        hole_record < var.filled_below || var.holes_filled.contains(hole_record);
    const Status status = datapath::write_gathered(file->io->group, file, varid, record, *decomp,
                                                   memtype, buf, &range);
    agreed = agree_with_range(file, varid, "esmio_write_darray", memtype, file->vars[varid].type,
                              status, range);
    // A write that claimed the record's holes and failed (on every rank, as agreed) gives the
    // claim back, so that a retry or the close's gap fill writes them.
    if (!claimed_before && !agreed.is_ok() && agreed.code() != ESMIO_ERANGE)
      file->vars[varid].release_hole_fill(hole_record);
  } else {
    agreed = write_rearranged(file, varid, record, decomp, memtype, buf, nelems);
  }
  if ((agreed.is_ok() || agreed.code() == ESMIO_ERANGE) && file->vars[varid].record) {
    file->nrecords = std::max(file->nrecords, record + 1);
    // A cached call under agree_writes=flush is agreed at the next flush.
    if (file->gather_to_root || !file->defer_agreement) file->nrecords_agreed = file->nrecords;
  }
  return agreed;
}

}  // namespace

Status fill_skipped_records(esmio_file *file) {
  if (!file->writable || file->define_mode) return Status::ok();
  // One decomposition with no elements per record shape: every element is a hole, so its
  // first write of a record writes the fill value there, through the I/O tasks' slabs.
  std::map<std::vector<int64_t>, std::unique_ptr<esmio_decomp>> holes_only;
  for (int varid = 0; varid < static_cast<int>(file->vars.size()); ++varid) {
    const datapath::Variable &var = file->vars[varid];
    if (!var.record) continue;
    for (const auto &[begin, end] : var.holes_filled.gaps(var.filled_below, file->nrecords)) {
      std::unique_ptr<esmio_decomp> &d = holes_only[var.shape];
      if (!d) {
        d = std::make_unique<esmio_decomp>();
        d->io = file->io;
        d->serial = -1;  // internal: alike on every rank
        d->dims = var.shape;
        ESMIO_RETURN_IF_ERROR(datapath::plan_decomp(file->io->group, d.get()));
      }
      for (int64_t r = begin; r < end; ++r)
        ESMIO_RETURN_IF_ERROR(write_record(file, varid, r, d.get(), var.type, nullptr, 0));
    }
  }
  return Status::ok();
}

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
    return esmio::api::write_record(file, varid, record, decomp, memtype, buf, nelems);
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
    // The agreement first (two ranks in different calls meet there), then the cache's writes,
    // so that the read sees them.
    ESMIO_RETURN_IF_ERROR(esmio::api::agree_darray(
        file, esmio::api::check_darray(file, varid, record, decomp, memtype, buf, nelems, false),
        "esmio_read_darray", varid, record, decomp, memtype));
    ESMIO_RETURN_IF_ERROR(esmio::datapath::flush_cache(file->io->group, file));
    esmio::datapath::RangeCount range;
    const Status status =
        file->gather_to_root
            ? esmio::datapath::read_gathered(file->io->group, file, varid, record, *decomp, memtype,
                                             buf, &range)
            : esmio::datapath::read_rearranged(file->io->group, file, varid, record, *decomp,
                                               memtype, buf, &range);
    return esmio::api::agree_with_range(file, varid, "esmio_read_darray", file->vars[varid].type,
                                        memtype, status, range);
  });
}

}  // extern "C"
