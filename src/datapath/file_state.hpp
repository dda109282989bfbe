// What the data path knows of one open file on this rank: where it is, its state (define or data
// mode, writable), the backend on the ranks that hold it, the schema every rank mirrors, the
// records written, the write cache with the agreement it defers, and the buffers reused across
// calls. Plain state, moved out of the API's file object so that the data path and the I/O
// servers hold a file the same way.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aggregate/cache_spec.hpp"
#include "aggregate/write_cache.hpp"
#include "backend/backend.hpp"
#include "common/status.hpp"
#include "datapath/group.hpp"
#include "datapath/read_ahead.hpp"
#include "datapath/read_batch.hpp"
#include "datapath/schema.hpp"
#include "trace/counters.hpp"

namespace esmio::datapath {

struct FileState {
  std::string path;          // the name the user gave (and the published one)
  std::string storage_path;  // where the backend writes: path, or path + ".esmio-tmp" (atomic)
  bool atomic = false;       // publish=atomic: renamed to path when close succeeds everywhere
  bool staged = false;       // stage_dir: storage_path is in the stage, copied to path at close
  bool define_mode = true;
  bool writable = true;
  bool gather_to_root = false;  // the serial baseline's data path
  int backend_root = 0;         // rank in the group's comm that reads/writes undecomposed data
  MPI_Comm backend_comm = MPI_COMM_NULL;
  std::unique_ptr<backend::Backend> backend;  // on the ranks that hold the file
  backend::Capabilities capabilities;         // the backend's, on every rank
  std::vector<Dimension> dims;
  std::vector<Variable> vars;
  // dims and vars by name (kept by mirror.cpp): a file of thousands of variables is defined
  // and looked up without a scan per call.
  std::unordered_map<std::string, int> dim_ids, var_ids;
  int64_t nrecords = 0;
  // One past the highest record some successful write reached (the records the file may
  // claim after a failed write: lower ones may have lost data, but a higher one is real).
  int64_t written_records = 0;
  trace::Counters counters;
  aggregate::CacheSpec cache_spec;
  std::vector<std::pair<std::string, std::string>> mpiio_hints;
  aggregate::WriteCache cache;
  bool defer_agreement = true;  // the agree_writes setting is "flush" (parsed once, at create/open)
  // nrecords as every rank agrees on it (put back when the cached calls since the last flush
  // are dropped: they may have counted records on some ranks only).
  int64_t nrecords_agreed = 0;
  // agree_writes=flush: the cached esmio_write_darray calls since the last flush, compared
  // across ranks at the next one instead of one allreduce per call. A running digest of their
  // arguments, how many there were, the first that failed on this rank, and the values out of
  // range (count and the lowest rank).
  uint64_t pending_digest = 0;
  int64_t pending_calls = 0;
  // The arguments and outcome of the first of those calls, so that a mismatch names the call
  // where the ranks' sequences part and its differing arguments. A fixed number: the cache's
  // memory does not grow with the calls it takes.
  struct PendingCall {
    int varid = 0;
    int64_t record = 0;
    bool has_decomp = false;
    int64_t decomp = 0;  // its creation number
    esmio_type memtype = ESMIO_DOUBLE;
    int code = ESMIO_NOERR;  // this rank's checks
  };
  static constexpr int kPendingKept = 16;
  std::array<PendingCall, kPendingKept> pending_kept;
  Status deferred;
  // A definition the storage library refused on this rank after every rank's checks passed
  // (define.hpp): the vote of every later definition, esmio_enddef and esmio_close carries it.
  Status refused_definition;
  // The ledger of those calls, in order: what a take-back needs (flush.cpp). The digest holds
  // their arguments only, so that a call refused on some ranks (a short buffer: a check no
  // other rank can make) is found there by position and taken back on every rank.
  struct LedgerCall {
    int varid;
    int64_t record;
    int64_t cached_at;  // its index in cache.pending(); -1: refused on this rank
    Status refused;     // this rank's refusal
  };
  std::vector<LedgerCall> ledger;
  // Calls refused on some ranks, taken back on every rank, and whose variable record no later
  // call has written: esmio_sync and esmio_close report them on every rank.
  struct TakenBack {
    int varid;
    int64_t record;
    Status cause;  // the refusing rank's
    int rank;
  };
  std::vector<TakenBack> taken_back;
  int64_t pending_range = 0;
  int pending_range_source = 0;
  // Reused across calls so the hot path does not allocate.
  std::vector<unsigned char> send_buffer, recv_buffer, io_buffer;
  // Reads: how far an I/O task reads ahead (the read_ahead setting; 0: off) and what it
  // predicts from the reads so far.
  int64_t read_ahead_bytes = 0;
  ReadAhead read_ahead;
  // On a file open read-only (not writable), small reads are made in batches of about this many
  // bytes per I/O task (the read_ahead setting; 0: one by one), the parts of the predicted ones
  // kept here.
  int64_t read_batch_bytes = 0;
  ReadBatch read_batch;
  std::vector<int> next_same_shape;  // per variable, the next of its shape (-1: none)
};

// Times a scope of a file's call into the file's and the group's counters.
inline trace::Scope scope_of(Group &group, FileState *file, trace::Counter counter,
                             int64_t bytes = 0) {
  return trace::Scope(counter, &file->counters, &group.counters, bytes);
}

// "file 'path'", or "variable 'name' in file 'path'" for a valid varid: for messages.
std::string where(const FileState &file, int varid = ESMIO_GLOBAL);
// The id of the dimension or variable called name, or -1.
int dim_id(const FileState &file, const std::string &name);
int var_id(const FileState &file, const std::string &name);

}  // namespace esmio::datapath
