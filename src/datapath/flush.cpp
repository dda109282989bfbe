// The write cache's flush and what goes with it: settling the cached calls' deferred
// agreement, the out-of-range report at sync and close, and the information-quantisation
// attributes once a variable's keepbits are known.
#include "datapath/flush.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/agree.hpp"
#include "common/call_words.hpp"
#include "datapath/call.hpp"

namespace esmio::datapath {

namespace {

// Forgets the deferred calls' state (after a flush, or after their agreement failed).
void reset_pending(FileState *file) {
  file->pending_digest = 0;
  file->pending_calls = 0;
  file->deferred = Status();
  file->ledger.clear();
}

// Broadcasts a refusal (code and message) from root. Collective over comm.
Status broadcast_status(MPI_Comm comm, int root, const Status &mine) {
  int head[2] = {mine.code(), static_cast<int>(mine.message().size())};
  MPI_Bcast(head, 2, MPI_INT, root, comm);
  std::string text = mine.message();
  text.resize(static_cast<std::size_t>(head[1]));
  if (head[1] > 0) MPI_Bcast(text.data(), head[1], MPI_CHAR, root, comm);
  return Status(head[0], text);
}

// Takes back, on every rank, every ledger call that some rank refused (a check only that rank
// could make: its buffer). Why this and not ESMIO_EMISMATCH for everything pending: the ranks
// agree on every call's arguments (the digest), so the refused call is known by its position,
// and dropping it alone leaves every rank with the same cache, the same hole-fill claims and
// the same records; the model's later calls (a retry of the refused one) go on. Collective over
// the group's communicator; called only when some rank refused a call (a rare path: two
// allgathers and a broadcast per refused call).
void take_back_refused(const Group &group, FileState *file) {
  std::vector<int64_t> mine;
  for (std::size_t i = 0; i < file->ledger.size(); ++i)
    if (!file->ledger[i].refused.is_ok()) mine.push_back(static_cast<int64_t>(i));
  int nranks = 1;
  MPI_Comm_size(group.comm, &nranks);
  std::vector<int> counts(static_cast<std::size_t>(nranks)), displs(counts.size());
  int count = static_cast<int>(mine.size());
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, group.comm);
  int total = 0;
  for (int r = 0; r < nranks; ++r) displs[r] = total, total += counts[r];
  std::vector<int64_t> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(), displs.data(),
                 MPI_INT64_T, group.comm);
  // Each refused position: the lowest rank that refused it, and by how many ranks.
  std::map<int64_t, std::pair<int, int>> refused;
  for (int r = 0; r < nranks; ++r)
    for (int k = displs[r]; k < displs[r] + counts[r]; ++k) {
      auto it = refused.try_emplace(all[k], r, 0).first;
      ++it->second.second;
    }
  // Every rank drops what it cached for those calls and gives back their hole-fill claims.
  std::vector<std::size_t> drop;
  for (const auto &entry : refused) {
    const FileState::LedgerCall &call = file->ledger[static_cast<std::size_t>(entry.first)];
    if (call.cached_at < 0) continue;
    const aggregate::CachedWrite &w =
        file->cache.pending()[static_cast<std::size_t>(call.cached_at)];
    if (w.fill_holes) file->vars[w.varid].release_hole_fill(w.record_variable ? w.record : 0);
    drop.push_back(static_cast<std::size_t>(call.cached_at));
  }
  std::sort(drop.begin(), drop.end());
  file->cache.take_back(drop);
  // A claim given back goes to the first remaining write of that record, as on the refusing
  // rank, where that write claimed it itself.
  for (std::size_t i = 0; i < file->cache.pending().size(); ++i) {
    const aggregate::CachedWrite &w = file->cache.pending()[i];
    if (!w.fill_holes && file->vars[w.varid].claim_hole_fill(w.record_variable ? w.record : 0))
      file->cache.set_fill_holes(i);
  }
  // The ledger without them, the records as the remaining calls count them, and what the
  // model has not written again: its cause broadcast from the refusing rank.
  std::vector<FileState::LedgerCall> kept;
  int64_t records = file->nrecords_agreed;
  for (std::size_t i = 0; i < file->ledger.size(); ++i) {
    FileState::LedgerCall call = file->ledger[i];
    if (refused.count(static_cast<int64_t>(i))) continue;
    call.cached_at -=
        std::lower_bound(drop.begin(), drop.end(), static_cast<std::size_t>(call.cached_at)) -
        drop.begin();
    if (file->vars[call.varid].record) records = std::max(records, call.record + 1);
    kept.push_back(call);
  }
  for (const auto &[position, who] : refused) {
    const FileState::LedgerCall &call = file->ledger[static_cast<std::size_t>(position)];
    const Status cause = broadcast_status(group.comm, who.first, call.refused);
    if (who.second == nranks) continue;  // refused everywhere: every rank was told at the call
    bool rewritten = false;
    for (std::size_t i = static_cast<std::size_t>(position) + 1; i < file->ledger.size(); ++i)
      rewritten = rewritten ||
                  (!refused.count(static_cast<int64_t>(i)) && file->ledger[i].varid == call.varid &&
                   file->ledger[i].record == call.record);
    if (!rewritten) file->taken_back.push_back({call.varid, call.record, cause, who.first});
  }
  file->ledger = std::move(kept);
  file->deferred = Status();
  file->nrecords = records;
}

// The cached calls since the last flush as this rank made them: the first ones argument by
// argument (the first failure with its message), and how many there were.
CallList pending_words(const FileState &file) {
  CallList list;
  list.what = "cached esmio_write_darray call(s) on " + where(file) + " since the last flush";
  list.total = file.pending_calls;
  const int64_t kept = std::min<int64_t>(file.pending_calls, FileState::kPendingKept);
  bool failure_told = false;
  for (int64_t i = 0; i < kept; ++i) {
    const FileState::PendingCall &c = file.pending_kept[i];
    list.calls.push_back(darray_call(file, "esmio_write_darray", c.varid, c.record,
                                     c.has_decomp ? &c.decomp : nullptr, c.memtype));
    if (c.code != ESMIO_NOERR) {
      list.calls.back().refused = failure_told || file.deferred.is_ok()
                                      ? "error code " + std::to_string(c.code)
                                      : file.deferred.message();
      failure_told = true;
    }
  }
  if (!failure_told && !file.deferred.is_ok())
    list.what += ", one of which failed there: " + file.deferred.message();
  return list;
}

// agree_writes=flush: compares every rank's cached calls since the last flush (one allreduce).
// On a difference, every rank drops what is pending and gets ESMIO_EMISMATCH.
Status agree_pending(const Group &group, FileState *file) {
  bool any_refused = false;
  const Status agreed = agree_call(
      group.comm, Status(), file->pending_digest, [&] { return encode(pending_words(*file)); },
      !file->deferred.is_ok(), &any_refused);
  if (!agreed.is_ok()) {
    for (const aggregate::CachedWrite &w : file->cache.pending())
      if (w.fill_holes) file->vars[w.varid].release_hole_fill(w.record_variable ? w.record : 0);
    const int64_t lost = file->cache.pending_writes();
    file->cache.clear();
    reset_pending(file);
    file->nrecords = file->nrecords_agreed;
    return Status(agreed.code(), agreed.message() + "; the " + std::to_string(lost) +
                                     " cached write(s) since the last flush were dropped on "
                                     "every rank");
  }
  // Records taken back at an earlier flush are no longer missing once a call that every rank
  // made writes them again; those taken back now were checked against the later calls.
  std::vector<FileState::TakenBack> owed = std::move(file->taken_back);
  file->taken_back.clear();
  if (any_refused) take_back_refused(group, file);
  owed.erase(std::remove_if(owed.begin(), owed.end(),
                            [&](const FileState::TakenBack &t) {
                              for (const FileState::LedgerCall &call : file->ledger)
                                if (call.varid == t.varid && call.record == t.record) return true;
                              return false;
                            }),
             owed.end());
  owed.insert(owed.end(), file->taken_back.begin(), file->taken_back.end());
  file->taken_back = std::move(owed);
  return Status::ok();
}

}  // namespace

Status settle_pending(const Group &group, FileState *file) {
  if (!file->defer_agreement) return Status::ok();
  ESMIO_RETURN_IF_ERROR(agree_pending(group, file));
  file->nrecords_agreed = file->nrecords;
  return Status::ok();
}

namespace {

Status flush_held(Group &group, FileState *file, const int *varid, int64_t record) {
  ESMIO_RETURN_IF_ERROR(settle_pending(group, file));
  if (file->cache.empty()) {
    reset_pending(file);
    return Status::ok();
  }
  if (varid) file->cache.hold_back_record(*varid, record, file->cache_spec.size / 2);
  const Status status =
      agree(group.comm, file->cache.flush(group.comm, group.limits, file->backend.get(),
                                          &file->counters, &group.counters));
  if (status.is_ok()) {
    file->written_records = std::max(file->written_records, file->cache.pending_records_end());
    file->cache.clear();
    reset_pending(file);
  }
  // The calls held were settled with the others: they stay pending, agreed.
  file->cache.restore_held();
  return status;
}

}  // namespace

Status flush_cache(Group &group, FileState *file) { return flush_held(group, file, nullptr, 0); }

Status flush_cache_for(Group &group, FileState *file, int varid, int64_t record) {
  return flush_held(group, file, &varid, record);
}

Status report_taken_back(FileState *file) {
  if (file->taken_back.empty()) return Status::ok();
  const FileState::TakenBack &first = file->taken_back.front();
  std::string text = "esmio_write_darray (cached; reported at sync or close): the call for " +
                     where(*file, first.varid) + ", record " + std::to_string(first.record) +
                     ", was refused on rank " + std::to_string(first.rank) + " (" +
                     first.cause.message() +
                     ") and taken back on every rank; no later call wrote that record of that "
                     "variable";
  if (file->taken_back.size() > 1)
    text += "; " + std::to_string(file->taken_back.size() - 1) + " more call(s) likewise";
  const Status status(first.cause.code(), text);
  file->taken_back.clear();
  return status;
}

Status report_pending_range(const Group &group, FileState *file) {
  if (!file->defer_agreement) return Status::ok();
  int64_t total = 0;
  MPI_Allreduce(&file->pending_range, &total, 1, MPI_INT64_T, MPI_SUM, group.comm);
  if (total == 0) return Status::ok();
  const int mine = file->pending_range > 0 ? file->pending_range_source : INT32_MAX;
  int source = 0;
  MPI_Allreduce(&mine, &source, 1, MPI_INT, MPI_MIN, group.comm);
  file->pending_range = 0;
  return Status(ESMIO_ERANGE, "esmio_write_darray (cached; reported at sync or close): " +
                                  where(*file) + ": " + std::to_string(total) +
                                  " value(s) out of the range of the file's type since the last "
                                  "report, stored as the fill value; the first from rank " +
                                  std::to_string(source));
}

Status record_information(const Group &group, FileState *file) {
  std::vector<int> due;
  for (std::size_t v = 0; v < file->vars.size(); ++v) {
    const auto &info = file->vars[v].information;
    if (info && info->keepbits >= 0 && !info->recorded) due.push_back(static_cast<int>(v));
  }
  if (due.empty() || file->define_mode || !file->writable) return Status::ok();
  Status status;
  if (file->backend) {
    status = file->backend->redef();
    for (int v : due) {
      const aggregate::Information &info = *file->vars[v].information;
      const int keepbits = info.keepbits, reference = info.reference;
      const double level = info.fraction;
      if (status.is_ok())
        status = file->backend->put_att(v, "esmio_keepbits", ESMIO_INT, 1, &keepbits);
      if (status.is_ok())
        status = file->backend->put_att(v, "esmio_information_level", ESMIO_DOUBLE, 1, &level);
      if (status.is_ok())
        status = file->backend->put_att(v, "esmio_keepbits_reference", ESMIO_INT, 1, &reference);
      if (status.is_ok())
        status =
            file->backend->put_att(v, "esmio_keepbits_reason", ESMIO_CHAR,
                                   static_cast<int64_t>(info.reason.size()), info.reason.data());
      if (status.is_ok() && info.maxrel > 0)
        status =
            file->backend->put_att(v, "esmio_information_maxrel", ESMIO_DOUBLE, 1, &info.maxrel);
      if (status.is_ok() && !info.per_bit.empty())
        status =
            file->backend->put_att(v, "esmio_information_per_bit", ESMIO_DOUBLE,
                                   static_cast<int64_t>(info.per_bit.size()), info.per_bit.data());
    }
  }
  // The attributes' outcome first: a task whose put_att failed must not enter the backend's
  // collective enddef with another header than the others (definitions do not communicate).
  status = agree(group.comm, status);
  if (status.is_ok() && file->backend) status = file->backend->enddef();
  status = agree(group.comm, status);
  if (status.is_ok())
    for (int v : due) file->vars[v].information->recorded = true;
  return status;
}

Status sync_gathered(const Group &group, FileState *file, int64_t *records) {
  Status status;
  int64_t held = file->nrecords;
  if (group.rank == file->backend_root && file->backend) {
    if (file->writable && !file->define_mode) status = file->backend->sync();
    int64_t counted = 0;
    const Status inquired = file->backend->inq_nrecords(&counted);
    if (inquired.is_ok())
      held = std::min(held, counted);
    else if (status.is_ok())
      status = inquired;
  }
  MPI_Bcast(&held, 1, MPI_INT64_T, file->backend_root, group.comm);
  *records = held;
  return agree(group.comm, status);
}

}  // namespace esmio::datapath
