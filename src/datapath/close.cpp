#include "datapath/close.hpp"

#include <algorithm>
#include <string>

#include "common/agree.hpp"
#include "datapath/define.hpp"
#include "datapath/flush.hpp"
#include "datapath/skipped.hpp"
#include "datapath/unwritten.hpp"

namespace esmio::datapath {

namespace {

// "record 4" or "records 4 to 7": [begin, end).
std::string records_text(int64_t begin, int64_t end) {
  return end - begin == 1 ? "record " + std::to_string(begin)
                          : "records " + std::to_string(begin) + " to " + std::to_string(end - 1);
}

}  // namespace

// After the API's agreement on the call: the pending calls settled, the records skipped over and
// the variables never written filled, the cache flushed, the backend closed.
Status close_file(Group &group, FileState *file, const Ending *ending) {
  // A definition the storage library refused on some rank fails the close on every rank, as it
  // failed every definition after it (define.hpp): the file lacks what the model defined.
  const Status refused = agree(group.comm, file->refused_definition);
  Status status;
  {
    // A file still in define mode is ended as esmio_enddef would, so that records skipped
    // over are filled. If that fails (definitions esmio_enddef already refused), the backend
    // ends the file itself at close, as before.
    bool ended = true;
    if (ending) ended = end_definitions(group, file, ending->call, ending->plan).is_ok();
    // Cached calls that differ between ranks leave them with different records: settled
    // first, or the gap fill below would start its collectives on some ranks only. After a
    // failed settlement the file is closed with the state every rank agrees on.
    Status flushed = settle_pending(group, file);
    // Before the gap fill, whose fill values for a record taken back are no write of the model.
    if (flushed.is_ok()) flushed = report_taken_back(file);
    // A failed flush is reported, and the file closed all the same: a handle cannot be kept.
    SkippedRecords skipped;
    if (ended) {
      skipped = skipped_records(*file);
      const Status filled = fill_skipped_records(group, file, skipped);
      if (flushed.is_ok()) flushed = filled;
      // Fixed-size variables no call wrote: their fill value, as netCDF's fill mode gives.
      const Status unwritten = fill_unwritten(group, file, unwritten_variables(*file));
      if (flushed.is_ok()) flushed = unwritten;
    }
    // Flushed whatever went before: what every rank agreed on still reaches the file.
    const Status last_flush = flush_cache(group, file);
    if (flushed.is_ok()) flushed = last_flush;
    if (flushed.is_ok()) flushed = record_information(group, file);
    // Records past the last one a successful write reached hold only data a failed flush
    // kept: the file must not count them (the header would claim data that is not there).
    const bool lost = !file->cache.empty();
    int64_t written = lost ? std::min(file->nrecords, file->written_records) : file->nrecords;
    const int64_t lost_records = file->cache.pending_writes();
    if (file->gather_to_root && file->backend_root >= 0) {
      // No cache there, but netCDF's buffers: the records the serial file holds are its own count.
      int64_t held = written;
      const Status synced = sync_gathered(group, file, &held);
      if (flushed.is_ok()) flushed = synced;
      written = std::min(written, held);
    }
    // A skipped record whose fill did not reach the file (a disk too full for it) reads as
    // zeros, not as the fill value. The records above it that reached the file stay counted
    // (a sync said they were there); the close fails and names the records without fill.
    const int64_t reached = written;
    const SkippedRecords unfilled = unfilled_records(*file, skipped);
    const bool some_unfilled = first_record(unfilled) < reached;
    if (flushed.is_ok() && some_unfilled)
      flushed = Status(ESMIO_ENOSPC, "esmio_close: " + where(*file) +
                                         ": the fill value of skipped records found no room");
    // Records an earlier failure kept out of the file fail the close too, whatever it wrote.
    if (flushed.is_ok() && written < file->nrecords)
      flushed = Status(ESMIO_EIO, "esmio_close: " + where(*file) + ": an earlier write failed");
    if (file->backend && written < file->nrecords) file->backend->limit_records(written);
    if (file->backend) status = file->backend->close();
    status = agree(group.comm, status);
    if (flushed.is_ok() && !status.is_ok())
      status = Status(status.code(), status.message() + "; the file handle was released");
    if (!flushed.is_ok()) {
      std::string why =
          lost ? std::to_string(lost_records) + " pending writes were lost" +
                     (reached < file->nrecords
                          ? ", and " + records_text(reached, file->nrecords) + " with them"
                          : std::string())
          : reached < file->nrecords ? records_text(reached, file->nrecords) + " did not reach it"
                                     : std::string();
      if (some_unfilled)
        why += std::string(why.empty() ? "" : "; ") + "skipped records hold no fill value (" +
               describe_records(*file, unfilled, reached) + "): they read as zeros";
      status = Status(
          flushed.code(),
          flushed.message() + "; the file was closed with " + std::to_string(written) + " records" +
              (why.empty() ? std::string() : " (" + why + ")") +
              // The backend's own failure (its record count could not be lowered,
              // say) is not dropped: the count above is then only what esmio
              // asked for.
              (status.is_ok() ? std::string() : "; closing it failed too: " + status.message()));
    }
  }
  if (!refused.is_ok())
    status = Status(
        refused.code(),
        refused.message() + "; the file was closed" +
            (status.is_ok() ? std::string() : ", and the close failed too: " + status.message()));
  return status;
}

}  // namespace esmio::datapath
