// The write cache's flush, and the agreements and reports that go with it. All collective over
// the group's communicator; every returned status is the same on every rank.
#pragma once

#include "common/status.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"

namespace esmio::datapath {

// Writes what the file's cache holds (nothing to do when it is empty), after settling the
// cached calls.
Status flush_cache(Group &group, FileState *file);
// The flush that makes room for a write of (varid, record) in a full cache: the writes of that
// variable record at the cache's tail stay in the cache (WriteCache::hold_back_record, up to
// half the cache), so that a record written piece by piece reaches the file whole.
Status flush_cache_for(Group &group, FileState *file, int varid, int64_t record);
// agree_writes=flush: compares the cached calls since the last flush, so that every rank holds
// the same records and cache before a collective that depends on them (close's gap fill); on a
// difference every rank drops them (ESMIO_EMISMATCH). Nothing to do otherwise.
Status settle_pending(const Group &group, FileState *file);
// agree_writes=flush: ESMIO_ERANGE on every rank, with the total, when cached writes since the
// last report stored values out of range as fill (each call said so on its own rank only).
// esmio_sync and esmio_close call it last.
Status report_pending_range(const Group &group, FileState *file);
// agree_writes=flush: the refusal (its code, the call, the rank and the cause) of a cached call
// that was refused on some ranks, taken back on every rank at a flush, and whose variable record
// no later call wrote, reported once. Local: every rank holds the same list after the flush.
// esmio_sync and esmio_close call it after their flush.
Status report_taken_back(FileState *file);
// Writes the keepbits chosen by information quantisation (esmio_keepbits) and the level
// (esmio_information_level) as attributes of each variable not yet recorded.
Status record_information(const Group &group, FileState *file);
// The gathered path (serial backend) at close: it has no cache, but netCDF buffers what it was
// given, and a put that returned success may not have reached the file. The backend's holder
// writes the buffers out (a sync; its failure is returned) and *records receives, on every rank,
// the records the file will claim (the backend's count: after a failed write, the records of
// its last successful sync), at most file->nrecords.
Status sync_gathered(const Group &group, FileState *file, int64_t *records);

}  // namespace esmio::datapath
