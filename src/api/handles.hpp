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

#include "codec/zstd_h5filter.h"
#include "common/settings.hpp"
#include "common/status.hpp"
#include "datapath/decomp.hpp"
#include "datapath/engine.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"
#include "datapath/instance_engine.hpp"
#include "esmio.h"
#include "trace/counters.hpp"
#include "trace/timeline.hpp"

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
  // On a server rank the instance only says so (server true): its serving ended in esmio_init.
  bool server = false;
  // What runs the instance's own calls and makes its files' engines: the local data path, or
  // in asynchronous mode (io_servers > 0) on a compute rank the forwarding client of the I/O
  // servers (group.comm then holds the compute ranks). Chosen once, in esmio_init;
  // null on an I/O server's instance, which answers none of the calls that use it.
  std::unique_ptr<esmio::datapath::InstanceEngine> engine;
};

// The data path's decomposition (serial: creation number in its instance), and its instance.
struct esmio_decomp : esmio::datapath::Decomp {
  esmio_instance *io = nullptr;
};

// The API's file: the data path's state of it, with its instance, its settings and the engine
// that runs its calls (the local data path, or the forwarding client in asynchronous mode).
struct esmio_file : esmio::datapath::FileState {
  esmio_instance *io = nullptr;
  esmio::Settings settings;
  std::unique_ptr<esmio::datapath::Engine> engine;
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
// The same for a name being defined, and netCDF's rule for it (common/netcdf_name.hpp).
Status check_new_name(const char *what, const char *name);
// ESMIO_EBADID for a variable id the file does not have (ESMIO_GLOBAL allowed if allow_global).
Status check_varid(const esmio_file *file, int varid, const char *what, bool allow_global);
// The storage of every variable defined since the last enddef, as (varid, storage) for the
// backend: settings entries named for the variable, then the API's choices, then default
// entries, then esmio's defaults (chunked storage: chunks of one box-partition unit). Local (the
// same on every rank); errors name the variable. (storage_api.cpp)
// Variables with information quantisation come back in information with their choice.
Status resolve_storage(const esmio_file *file, datapath::StoragePlan *plan);

}  // namespace esmio::api
