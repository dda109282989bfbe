// Settings: one table of keys (name, scope, kind, default, doc). A settings string
// "key=value,key=value" is parsed once into the typed struct; ESMIO_<KEY> environment variables
// override what the API set. Unknown keys and bad values are errors, never ignored.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/status.hpp"

namespace esmio {

// X(key, scope, kind, default, doc). scope: instance (esmio_init only) or file (esmio_init as
// default for every file, or esmio_create/esmio_open). kind: int, size, bool, name (lower-cased),
// text (kept as given).
#define ESMIO_SETTINGS_TABLE(X)                                                                    \
  X(num_iotasks, instance, int, "0",                                                               \
    "number of I/O tasks; 0 = automatic (every rank, up to 8 per node and one per core; with "     \
    "a stride or offset set: as many as fit)")                                                     \
  X(iotask_stride, instance, int, "1", "ranks between consecutive I/O tasks")                      \
  X(iotask_offset, instance, int, "0", "rank of the first I/O task")                               \
  X(layout, instance, name, "box",                                                                 \
    "box: each I/O task writes one contiguous slab; subset: each I/O task writes the pieces of "   \
    "a contiguous group of compute ranks")                                                         \
  X(max_message, instance, size, "256M",                                                           \
    "largest MPI message of the rearrangement; larger transfers are split (MPI counts are "        \
    "32-bit)")                                                                                     \
  X(max_outstanding, instance, int, "64",                                                          \
    "most MPI sends in flight per rank during rearrangement")                                      \
  X(backend, file, name, "auto",                                                                   \
    "auto | pnetcdf | netcdf4 | serial (gather-to-root baseline); auto: netcdf4 for format "       \
    "netcdf4 or an existing netCDF-4 file, else pnetcdf")                                          \
  X(format, file, name, "auto",                                                                    \
    "auto | cdf1 | cdf2 | cdf5 | netcdf4 (auto: the backend's own: netcdf4 for backend netcdf4, "  \
    "else cdf5)")                                                                                  \
  X(clobber, file, bool, "true", "esmio_create overwrites an existing file")                       \
  X(header_pad, file, size, "128K",                                                                \
    "free bytes reserved after the header, so that adding attributes later does not move data")    \
  X(max_request, file, size, "1G", "largest request handed to the backend in one call")            \
  X(publish, file, name, "in_place",                                                               \
    "in_place: the file is visible while it grows; atomic: esmio_create writes PATH.esmio-tmp, "   \
    "renamed to PATH when esmio_close succeeds on every rank (opened files change in place)")      \
  X(size_check, file, bool, "true",                                                                \
    "esmio_open refuses a classic file shorter than its header describes (ESMIO_ECORRUPT)")        \
  X(direct_write, file, bool, "true",                                                              \
    "pnetcdf backend: the I/O tasks write their data themselves (pwrite, big-endian, at the "      \
    "offsets PnetCDF gave the variables); false hands it to PnetCDF's collective write")           \
  X(direct_read, file, bool, "true",                                                               \
    "pnetcdf backend: the I/O tasks read data themselves (pread at the offsets PnetCDF gave the "  \
    "variables, big-endian to native); false reads through PnetCDF's collective read")             \
  X(agree_writes, file, name, "flush",                                                             \
    "flush: cached esmio_write_darray calls are compared across ranks at the next flush (no "      \
    "collective per call); call: each call agrees at once (the same code on every rank from "      \
    "that call)")                                                                                  \
  X(read_back, file, bool, "true",                                                                 \
    "after each write the I/O tasks read back the corners of every box they wrote (ESMIO_EIO "     \
    "where they differ): catches write errors that MPI-IO drops; false skips it")                  \
  X(cache, file, text, "size=8M",                                                                  \
    "write cache: size=<bytes per rank, 0 = off>;flush=full|write;max_request=<size>;align=<size>" \
    " (ESMIO_CACHE may use commas)")                                                               \
  X(mpiio_hints, file, text, "",                                                                   \
    "MPI-IO hints for the file: key=value;key=value (ESMIO_MPIIO_HINTS may use commas)")           \
  X(chunking, file, text, "",                                                                      \
    "netCDF-4 chunk shapes: NAME:AxBx...|auto|contiguous;default:... (entries named for a "        \
    "variable win over esmio_def_var_chunking, which wins over default)")                          \
  X(compression, file, text, "",                                                                   \
    "netCDF-4 codecs: NAME:none|deflate[:L][:shuffle]|zstd[:L][:shuffle];default:...")             \
  X(quantize, file, text, "",                                                                      \
    "lossy quantisation before the codec: NAME:none|bitround:NSB|granularbr:NSD|"                  \
    "information[:F][:maxrel=E][:minbits=N];default:...")                                          \
  X(stage_dir, file, text, "",                                                                     \
    "a fast directory files are created in; esmio_close copies each to its path, verified, and "   \
    "renames it into place (empty: write in place)")                                               \
  X(stage_copy, file, name, "close",                                                               \
    "when a staged file is copied to its path: close (in esmio_close), background (begun in "      \
    "esmio_close, on a thread of each I/O task; esmio_stage_wait or esmio_finalize ends it) or "   \
    "finalize (in esmio_finalize)")                                                                \
  X(stage_block, file, size, "64M", "block of the copy-back: each I/O task copies whole blocks")   \
  X(io_servers, instance, int, "0",                                                                \
    "dedicated asynchronous I/O server ranks taken from esmio_init's communicator; 0: every "      \
    "write is synchronous")                                                                        \
  X(io_server_placement, instance, name, "last",                                                   \
    "last: the last io_servers ranks serve; spread: the last rank of each of io_servers equal "    \
    "blocks, so that every node gets its share")                                                   \
  X(io_server_groups, instance, int, "1",                                                          \
    "server groups: the k-th file created or opened goes to group k mod io_server_groups; 1: "     \
    "every file over all servers")                                                                 \
  X(async_buffer, instance, size, "256M",                                                          \
    "bytes per compute rank for calls and data on their way to the servers; a call that would "    \
    "exceed it waits until the servers have taken earlier ones (back-pressure)")                   \
  X(trace, instance, text, "",                                                                     \
    "path of a JSON report of every rank's trace counters and timeline, written at "               \
    "esmio_finalize")                                                                              \
  X(trace_timeline, instance, bool, "false",                                                       \
    "keep the timeline of spans without a trace path (for esmio_trace_write); on with trace")      \
  X(trace_spans, instance, int, "100000",                                                          \
    "timeline spans kept per rank with trace on (40 bytes each); later ones are only counted")

struct Settings {
  int64_t num_iotasks = 0;
  int64_t iotask_stride = 1;
  int64_t iotask_offset = 0;
  std::string layout = "box";
  int64_t max_message = int64_t(256) << 20;
  int64_t max_outstanding = 64;
  std::string backend = "auto";
  std::string format = "auto";
  bool clobber = true;
  int64_t header_pad = int64_t(128) << 10;
  int64_t max_request = int64_t(1) << 30;
  std::string publish = "in_place";
  bool size_check = true;
  bool direct_write = true;
  bool direct_read = true;
  std::string agree_writes = "flush";
  bool read_back = true;
  std::string cache = "size=8M";
  std::string mpiio_hints;
  std::string chunking;
  std::string compression;
  std::string quantize;
  std::string stage_dir;
  std::string stage_copy = "close";
  int64_t stage_block = int64_t(64) << 20;
  int64_t io_servers = 0;
  std::string io_server_placement = "last";
  int64_t io_server_groups = 1;
  int64_t async_buffer = int64_t(256) << 20;
  std::string trace;
  bool trace_timeline = false;
  int64_t trace_spans = 100000;
};

enum class SettingScope { instance, file };

// Applies "key=value,..." to settings. Keys outside allowed_scope are errors (a layout key
// given to esmio_create, say). origin names the source in messages ("esmio_init", "ESMIO_LAYOUT").
Status apply_settings(const std::string &spec, bool allow_instance_keys, const std::string &origin,
                      Settings *settings);

// The ESMIO_<KEY> variables set in this process's environment, one "key=value" line each
// (values may contain commas).
std::string settings_from_environment();

// "key=value,..." of every setting, for the trace and esmio_inq_settings.
std::string format_settings(const Settings &settings);

// "a=1;b=2" or "a=1,b=2" -> {{"a","1"},{"b","2"}}: the MPI-IO hints setting. An item without
// '=' or with an empty key is an error naming origin.
Status parse_hints(const std::string &text, const std::string &origin,
                   std::vector<std::pair<std::string, std::string>> *hints);

// "1G", "256M", "64K", "4096" -> bytes. False on a bad value.
bool parse_size(const std::string &text, int64_t *bytes);

}  // namespace esmio
