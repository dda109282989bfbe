// The write paths of a decomposed record. Decomposed data is converted on the compute rank into
// the write cache, rearranged onto the I/O tasks at the flush and written there as whole file
// ranges; the serial backend instead gathers every record to rank 0 (gathered.cpp).
#include "datapath/write.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "aggregate/cache_bound.hpp"
#include "common/agree.hpp"
#include "common/digest.hpp"
#include "common/types.hpp"
#include "datapath/flush.hpp"
#include "datapath/gathered.hpp"

namespace esmio::datapath {
namespace {

// agree_writes=flush: through the write cache without a collective per call. The call's
// collective arguments, as the API checked them, are folded into the file's running digest and
// the call is entered in the ledger; the next flush (a full cache, a large write, sync, close, a
// read, redef) compares every rank's digest in one allreduce. A call that failed here (a short
// buffer, which no other rank can check) returns its error here at once and is entered as
// refused: at that flush every rank takes it back (the others drop what they cached for it) and
// the calls after it go on (flush.cpp). Calls that differ give ESMIO_EMISMATCH there, which
// drops everything pending on every rank (nothing inconsistent reaches the file). Every rank
// makes the same flush decisions as long as the calls agree; where they do not, the first flush
// anywhere meets the others' first collective, which is the same agreement, and the digests
// differ.
Status write_deferred(Group &group, FileState *file, const Call &call, int varid, int64_t record,
                      const Decomp *decomp, esmio_type memtype, const void *buf) {
  const Status &local = call.local;
  aggregate::WriteCache &cache = file->cache;
  const aggregate::CacheSpec &spec = file->cache_spec;
  // The arguments only, not the outcome: a call refused here is in the ledger at the same
  // position as on the ranks that cached it, and taken back everywhere at the flush.
  auto fold = [&] {
    file->pending_digest = Digest("pending")
                               .add(static_cast<int64_t>(file->pending_digest))
                               .add(static_cast<int64_t>(call.digest))
                               .value();
    if (file->pending_calls < FileState::kPendingKept)
      file->pending_kept[file->pending_calls] = {
          varid, record, decomp != nullptr, decomp ? decomp->serial : 0, memtype, local.code()};
    ++file->pending_calls;
    file->ledger.push_back({varid, record, local.is_ok() ? cache.pending_writes() - 1 : -1, local});
  };
  if (!local.is_ok()) {
    // A short buffer is a check only this rank makes: the other ranks cached the call and
    // decide on their flushes with it. This rank flushes where they do, so that all of them
    // meet at the same agreement (which takes the call back).
    const bool others_cached = local.code() == ESMIO_EBUFSIZE;
    int64_t esize = 0;
    bool would_fill = false;
    if (others_cached) {
      const Variable &var = file->vars[varid];
      const int64_t hole_record = var.record ? record : 0;
      would_fill = hole_record >= var.filled_below && !var.holes_filled.contains(hole_record);
      esize = static_cast<int64_t>(type_size(var.type));
      if (!cache.empty() && cache.bound_with(*decomp->plan, esize, would_fill) > spec.size) {
        const Status flushed = flush_cache_for(group, file, varid, record);
        if (!flushed.is_ok() && flushed.code() != ESMIO_ERANGE) return local;
      }
    }
    fold();
    if (file->deferred.is_ok())  // the first, for the message of the next flush
      file->deferred = Status(local.code(), local.message());
    if (others_cached && (spec.flush == aggregate::FlushPolicy::write ||
                          cache.bound_with(*decomp->plan, esize, would_fill) > spec.size ||
                          aggregate::goes_out_at_once(*decomp->plan, esize, spec.direct)))
      flush_cache(group, file);  // its outcome is the next sync's: this call returns its own
    return local;
  }
  const Variable &var = file->vars[varid];
  const int64_t hole_record = var.record ? record : 0;
  const bool fill_holes = file->vars[varid].claim_hole_fill(hole_record);
  const int64_t esize = static_cast<int64_t>(type_size(var.type));
  Status status;
  if (!cache.empty() && cache.bound_with(*decomp->plan, esize, fill_holes) > spec.size) {
    status = flush_cache_for(group, file, varid, record);
    if (!status.is_ok() && status.code() != ESMIO_ERANGE) {
      if (fill_holes) file->vars[varid].release_hole_fill(hole_record);
      return status;
    }
  }
  int64_t out_of_range = 0;
  {
    aggregate::CachedWrite write{varid,     var.type,   var.fill, fill_holes,     decomp->plan,
                                 var.shape, var.record, record,   var.information};
    auto scope = scope_of(group, file, trace::Counter::convert, decomp->plan->send.count * esize);
    out_of_range = cache.add(std::move(write), memtype, buf);
  }
  fold();
  if (out_of_range > 0) {
    if (file->pending_range == 0) file->pending_range_source = group.rank;
    file->pending_range += out_of_range;
  }
  const bool large = aggregate::goes_out_at_once(*decomp->plan, esize, spec.direct);
  if (spec.flush == aggregate::FlushPolicy::write || cache.bound() > spec.size || large) {
    const Status flushed = flush_cache(group, file);
    if (status.is_ok()) status = flushed;
  }
  if (status.is_ok() && out_of_range > 0)
    status =
        Status(ESMIO_ERANGE, "esmio_write_darray: " + where(*file, varid) + ": " +
                                 std::to_string(out_of_range) + " value(s) out of the range of " +
                                 type_name(var.type) + " on rank " + std::to_string(group.rank) +
                                 ", stored as the fill value (every rank is told at the "
                                 "next esmio_sync or esmio_close)");
  return status;
}

// agree_writes=call: through the write cache, the call's checks and its out-of-range count
// agreed in one allreduce: a model writing many small pieces pays one collective per call,
// and a call that failed anywhere is taken back everywhere before it returns.
Status write_rearranged(Group &group, FileState *file, const Call &call, int varid, int64_t record,
                        const Decomp *decomp, esmio_type memtype, const void *buf) {
  if (file->defer_agreement)
    return write_deferred(group, file, call, varid, record, decomp, memtype, buf);
  const Status &local = call.local;
  aggregate::WriteCache &cache = file->cache;
  const aggregate::CacheSpec &spec = file->cache_spec;
  RangeCount range;
  bool fill_holes = false, added = false, full = false;
  int64_t hole_record = 0;
  auto add = [&] {
    const Variable &var = file->vars[varid];
    aggregate::CachedWrite write{varid,     var.type,   var.fill, fill_holes,     decomp->plan,
                                 var.shape, var.record, record,   var.information};
    auto scope = scope_of(group, file, trace::Counter::convert,
                          decomp->plan->send.count * static_cast<int64_t>(type_size(var.type)));
    range.add(cache.add(std::move(write), memtype, buf), group.rank);
  };
  if (local.is_ok()) {
    const Variable &var = file->vars[varid];
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
  Status agreed = agree_call(group.comm, mine, call.digest, call.words, full, &any_full);
  if (!agreed.is_ok() && agreed.code() != ESMIO_ERANGE) {
    if (added) cache.drop_last();
    if (fill_holes) file->vars[varid].release_hole_fill(hole_record);
    return agreed;
  }
  // From here on the call is valid on every rank, so every rank decides alike.
  Status status;
  if (any_full) {
    // A write that was added (another rank was full) is the cache's tail: held back with its
    // record like the rest of it.
    status = flush_cache_for(group, file, varid, record);
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
  const Variable &var = file->vars[varid];
  const int64_t esize = static_cast<int64_t>(type_size(var.type));
  const bool large = aggregate::goes_out_at_once(*decomp->plan, esize, spec.direct);
  if (spec.flush == aggregate::FlushPolicy::write || cache.bound() > spec.size || large) {
    const Status flushed = flush_cache(group, file);
    if (status.is_ok()) status = flushed;
  }
  // The out-of-range report (rare) needs the call's total and first rank: two more reductions.
  if (any_full || agreed.code() == ESMIO_ERANGE)
    agreed = agree_with_range(group, *file, varid, "esmio_write_darray", memtype, var.type,
                              Status::ok(), range);
  return status.is_ok() ? agreed : status;
}

}  // namespace

// Rearranged through the cache, or gathered to rank 0 for the serial backend.

Status write_record(Group &group, FileState *file, const Call &call, int varid, int64_t record,
                    const Decomp *decomp, esmio_type memtype, const void *buf) {
  Status agreed;
  if (file->gather_to_root) {
    ESMIO_RETURN_IF_ERROR(agree_call(group.comm, call.local, call.digest, call.words));
    RangeCount range;
    const Variable &var = file->vars[varid];
    const int64_t hole_record = var.record ? record : 0;
    const bool claimed_before =
        hole_record < var.filled_below || var.holes_filled.contains(hole_record);
    const Status status = write_gathered(group, file, varid, record, *decomp, memtype, buf, &range);
    agreed = agree_with_range(group, *file, varid, "esmio_write_darray", memtype,
                              file->vars[varid].type, status, range);
    // A write that claimed the record's holes and failed (on every rank, as agreed) gives the
    // claim back, so that a retry or the close's gap fill writes them.
    if (!claimed_before && !agreed.is_ok() && agreed.code() != ESMIO_ERANGE)
      file->vars[varid].release_hole_fill(hole_record);
  } else {
    agreed = write_rearranged(group, file, call, varid, record, decomp, memtype, buf);
  }
  if ((agreed.is_ok() || agreed.code() == ESMIO_ERANGE) && file->vars[varid].record) {
    file->nrecords = std::max(file->nrecords, record + 1);
    // A cached call under agree_writes=flush is agreed at the next flush.
    if (file->gather_to_root || !file->defer_agreement) file->nrecords_agreed = file->nrecords;
  }
  return agreed;
}

}  // namespace esmio::datapath
