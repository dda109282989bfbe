// The objects behind the public opaque handles, and the helpers every entry point shares.
// api/ is the dispatcher: it checks arguments against the metadata every rank mirrors (so the
// checks need no communication) and agrees on errors before any collective data movement
// starts. What a file, a decomposition and the ranks are to the data path (the mirror
// included) is datapath/'s; the handles extend it with what only the API needs.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aggregate/cache_spec.hpp"
#include "aggregate/write_cache.hpp"
#include "async/client.hpp"
#include "async/messages.hpp"
#include "async/protocol.hpp"
#include "backend/backend.hpp"
#include "codec/storage_spec.hpp"
#include "codec/zstd_h5filter.h"
#include "common/record_set.hpp"
#include "common/settings.hpp"
#include "common/status.hpp"
#include "datapath/call.hpp"
#include "datapath/decomp.hpp"
#include "datapath/file_state.hpp"
#include "datapath/flush.hpp"
#include "datapath/group.hpp"
#include "datapath/schema.hpp"
#include "datapath/write.hpp"
#include "decomp/decomposition.hpp"
#include "decomp/io_layout.hpp"
#include "esmio.h"
#include "rearrange/exchange.hpp"
#include "rearrange/plan_builder.hpp"
#include "stage/background.hpp"
#include "stage/publish.hpp"
#include "trace/counters.hpp"
#include "trace/timeline.hpp"

namespace esmio::api {
// A staged file closed but not yet published: stage_copy=finalize (nothing begun) or background
// (this rank's part running on a thread).
struct PendingCopy {
  stage::CopyBack job;
  std::unique_ptr<stage::BackgroundCopy> running;
};
}  // namespace esmio::api

struct esmio_instance {
  esmio::datapath::Group group;  // the ranks, the I/O tasks, the layout and this rank's totals
  esmio::Settings settings;
  // How the I/O tasks were chosen (esmio_inq_iolayout; the trace report's io_layout).
  std::string iolayout;
  int open_files = 0;
  int open_decomps = 0;
  // Decompositions are numbered in creation order (collective, so alike on every rank): data
  // calls compare the number to find ranks that passed different decompositions.
  int64_t next_decomp_serial = 0;
  // Closed files' own counters, for the ESMIO_TRACE report.
  std::vector<std::pair<std::string, esmio::trace::Counters>> closed_files;
  // With trace on: this rank's spans (group.counters and every file's counters point here).
  std::unique_ptr<esmio::trace::Timeline> timeline;
  int32_t next_trace_file = 0;
  // An I/O server's instance (server_hooks.hpp): where esmio_finalize leaves its entry of the
  // trace report, and as which rank.
  // The zstd filter's totals (process-wide) at init or the last trace reset: the report shows
  // the difference.
  esmio_h5z_zstd_tally zstd_baseline[2] = {};
  std::string *final_trace_entry = nullptr;
  int server_report_rank = -1;
  int server_world_rank = -1;
  // Asynchronous mode (io_servers > 0). On a compute rank: group.comm holds the compute ranks,
  // world duplicates esmio_init's communicator and client posts every call to the servers. On
  // a server rank the instance only says so (server true): its serving ended in esmio_init.
  std::unique_ptr<esmio::async::Client> client;
  MPI_Comm world = MPI_COMM_NULL;
  bool server = false;
  int64_t next_file = 0;  // files created or opened, in order: the servers' name for a file
  // Staged files closed with stage_copy=finalize or background, in closing order: published by
  // esmio_stage_wait or esmio_finalize. In asynchronous mode the servers hold them; the compute
  // ranks keep each one's server group, by path.
  std::vector<esmio::api::PendingCopy> pending_copies;
  std::vector<std::pair<std::string, int>> remote_copies;
};

// The data path's decomposition (serial: creation number in its instance), and its instance.
struct esmio_decomp : esmio::datapath::Decomp {
  esmio_instance *io = nullptr;
};

// The API's file: the data path's state of it, with its instance and its settings.
struct esmio_file : esmio::datapath::FileState {
  esmio_instance *io = nullptr;
  esmio::Settings settings;
  int64_t serial = -1;  // the instance's next_file when it was created or opened
};

namespace esmio::api {

// The public handles (api/handle_table.hpp): publish registers a new object and returns its
// handle; resolve finds the live object behind a handle (ESMIO_EBADID naming what for a null,
// stale or foreign one); retire forgets it before the object is deleted.
esmio_t publish(esmio_instance *io);
esmio_file_t publish(esmio_file *file);
esmio_decomp_t publish(esmio_decomp *decomp);
Status resolve(esmio_t handle, const char *what, esmio_instance **io);
Status resolve(esmio_file_t handle, const char *what, esmio_file **file);
Status resolve(esmio_decomp_t handle, const char *what, esmio_decomp **decomp);
void retire(esmio_t handle);
void retire(esmio_file_t handle);
void retire(esmio_decomp_t handle);

// Stores the message for esmio_last_error and returns the code.
int finish(const Status &status);
const char *last_error_message();
// Runs body, turning exceptions into codes; body returns a Status.
template <typename Body>
int guarded(Body &&body) {
  try {
    return finish(body());
  } catch (const std::bad_alloc &) {
    return finish(Status(ESMIO_ENOMEM, "out of memory"));
  } catch (const std::exception &e) {
    return finish(Status(ESMIO_EINVAL, std::string("internal error: ") + e.what()));
  }
}

// The ESMIO_* overrides, read on rank 0 and broadcast. Collective over comm.
std::string environment_settings(MPI_Comm comm);

// An existing file as its first bytes show it (api/probe.cpp): format "" when it is neither
// CDF nor HDF5; readable false when rank 0 could not open it.
struct OnDisk {
  std::string format;
  bool readable = false;
  int64_t size = -1;
};
// Collective: rank 0 looks, every rank learns.
OnDisk probe_file(esmio_instance *io, const std::string &path);
// The same code and a plain cause for a create that failed because of the directory: missing,
// on a read-only file system or not writable (ESMIO_EIO; backends say "Permission denied" for a
// missing directory, or give three different codes for a read-only one). Collective.
Status explain_create_failure(esmio_instance *io, const std::string &path, const Status &failed);
// The serial backend reads classic files with netCDF-C, which opens a cut header or a file
// cut short without a word: rank 0 checks such a file through the pnetcdf backend's header and
// extent check first (on MPI_COMM_SELF). Local; the caller agrees.
Status check_classic_extent(esmio_instance *io, const std::string &path, const OnDisk &on_disk,
                            const backend::FileOptions &options);
// The code and words for an open that failed, the same whichever backend tried: ESMIO_ENOTNC
// for a file that is not netCDF, ESMIO_ECORRUPT for a classic one whose header is damaged.
Status explain_open_failure(const OnDisk &on_disk, const std::string &path, const Status &failed);

// "key=value,..." of the instance's settings and its number of I/O tasks.
std::string effective_settings(const esmio_instance *io);
// Copies text into the caller's buffer of buflen bytes, NUL-terminated; ESMIO_EINVAL naming
// what if it does not fit.
Status copy_text(const char *what, const std::string &text, char *buf, int64_t buflen);

// Collective over the instance's ranks: writes the trace report of every rank to path. In
// asynchronous mode the I/O servers' entries follow the compute ranks': those given (collected
// with the finalize replies) or, when servers is null, asked of the servers now.
Status write_trace_report(esmio_instance *io, const std::string &settings, const std::string &path,
                          const std::vector<std::string> *servers = nullptr);
// This rank's entry of the report (JSON text).
std::string trace_entry(const esmio_instance *io);

// Asynchronous mode (api/forward.cpp). True if the file's calls go to I/O servers.
inline bool remote(const esmio_file *file) { return file->io->client != nullptr; }
// Posts a call on the file to its servers, after the compute ranks agreed on it (digest 0) or,
// for write_darray, with its digest and this rank's checks. data_bytes bytes follow the
// arguments, written by fill. Local; an error (a call too large for async_buffer) is this
// rank's, and the servers see it too.
Status forward(esmio_file *file, async::Op op, const async::Packer &args, int64_t data_bytes = 0,
               const std::function<void(char *)> &fill = nullptr, uint64_t digest = 0,
               const Status &local = Status::ok());
// The same for a call whose answer the compute ranks wait for: *results reads what follows
// the status in the reply (valid while *reply lives). Returns the servers' status, alike on
// every compute rank.
Status forward_and_wait(esmio_file *file, async::Op op, const async::Packer &args,
                        std::vector<char> *reply, std::optional<async::Unpacker> *results,
                        int64_t data_bytes = 0, const std::function<void(char *)> &fill = nullptr);
// esmio_open's second half in asynchronous mode: the servers open the file and send its
// schema, which becomes the mirror. Collective (the servers' reply is alike everywhere).
Status open_remote(esmio_file *file, int mode, const char *settings);
// write_darray / read_darray in asynchronous mode (after the checks; a read after the compute
// ranks' agreement). The write returns once its values are in the buffer.
Status write_remote(esmio_file *file, const datapath::Call &call, int varid, int64_t record,
                    const esmio_decomp *decomp, esmio_type memtype, const void *buf);
Status read_remote(esmio_file *file, int varid, int64_t record, const esmio_decomp *decomp,
                   esmio_type memtype, void *buf);
// put_vara / get_vara in asynchronous mode (after the checks; the vote is theirs).
Status put_vara_remote(esmio_file *file, const datapath::Call &call, int varid,
                       const int64_t *start, const int64_t *count, int64_t n, esmio_type memtype,
                       const void *buf);
Status get_vara_remote(esmio_file *file, const datapath::Call &call, int varid,
                       const int64_t *start, const int64_t *count, int64_t n, esmio_type memtype,
                       void *buf);
// Staging: the ranks that copy a staged file back, the I/O tasks.
inline stage::Copiers copiers(const esmio_instance *io) {
  return stage::Copiers{io->group.comm, io->group.task, io->group.layout.ntasks()};
}
// A pending copy published: joined and finished, or copied whole (stage_copy=finalize).
// Collective.
Status finish_pending(esmio_instance *io, PendingCopy *pending);
// esmio_close's work on the ranks that hold the file (synchronous mode). Collective.
Status close_here(esmio_file *file);
// The ranks of an instance: ESMIO_EINVAL for calls made on an I/O server's instance.
Status check_compute_role(const esmio_instance *io, const char *what);

// Times a scope of a file call into the file's and the instance's counters.
inline trace::Scope traced(esmio_file *file, trace::Counter counter, int64_t bytes = 0) {
  return trace::Scope(counter, &file->counters, &file->io->group.counters, bytes);
}

// "in file 'path'" / "variable 'name' in file 'path'" for messages.
std::string where(const esmio_file *file, int varid = ESMIO_GLOBAL);
// ESMIO_EINVAL for a null, empty or too long name.
Status check_name(const char *what, const char *name);
// ESMIO_EBADID for a variable id the file does not have (ESMIO_GLOBAL allowed if allow_global).
Status check_varid(const esmio_file *file, int varid, const char *what, bool allow_global);
// The storage of every variable defined since the last enddef, as (varid, storage) for the
// backend: settings entries named for the variable, then the API's choices, then default
// entries, then esmio's defaults (netCDF-4: chunks of one box-partition unit). Local (the
// same on every rank); errors name the variable. (storage_api.cpp)
// Variables with information quantisation come back in information with their choice.
Status resolve_storage(const esmio_file *file,
                       std::vector<std::pair<int, backend::VarStorage>> *storage,
                       std::vector<std::pair<int, codec::QuantizeChoice>> *information);

}  // namespace esmio::api
