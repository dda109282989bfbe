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
// text (kept as given). doc is the reference: `esmio --settings-help` prints the table, and
// docs/settings.md is that text.
#define ESMIO_SETTINGS_TABLE(X)                                                                    \
  X(num_iotasks, instance, int, "0",                                                               \
    "Number of I/O tasks: the ranks that write and read the file. 0 (automatic): every rank, at "  \
    "most 8 per shared-memory node and one per core of the node, taken as every "                  \
    "iotask_stride-th rank so that every node gets the same number; `esmio --settings` and "       \
    "esmio_inq_iolayout say what was chosen and why. With iotask_stride or iotask_offset set, 0 "  \
    "means as many as fit.")                                                                       \
  X(iotask_stride, instance, int, "1", "Ranks between consecutive I/O tasks.")                     \
  X(iotask_offset, instance, int, "0", "Rank of the first I/O task.")                              \
  X(layout, instance, name, "box",                                                                 \
    "How the I/O tasks share a variable. box: each I/O task writes one contiguous, balanced slab " \
    "along the slowest dimensions; subset: each I/O task writes the union of the pieces of a "     \
    "contiguous group of compute ranks.")                                                          \
  X(max_message, instance, size, "256M",                                                           \
    "Largest MPI message of the rearrangement between compute ranks and I/O tasks; larger "        \
    "transfers are split (MPI counts are 32-bit).")                                                \
  X(max_outstanding, instance, int, "64",                                                          \
    "Most MPI sends in flight per rank during the rearrangement.")                                 \
  X(backend, file, name, "auto",                                                                   \
    "The storage library. pnetcdf: PnetCDF, classic formats; netcdf4: parallel netCDF-4/HDF5 "     \
    "(chunking, compression, quantisation); serial: the classic gather-to-root baseline, one "     \
    "task writes through serial netCDF; auto: netcdf4 for format netcdf4 or an existing "          \
    "netCDF-4 file, else pnetcdf.")                                                                \
  X(format, file, name, "auto",                                                                    \
    "The file format: cdf1, cdf2, cdf5 or netcdf4; auto: the backend's own (netcdf4 for backend "  \
    "netcdf4, else cdf5), and for esmio_open what the file is.")                                   \
  X(clobber, file, bool, "true",                                                                   \
    "esmio_create overwrites an existing file; false: ESMIO_EEXIST instead.")                      \
  X(header_pad, file, size, "128K",                                                                \
    "Free bytes reserved after the header when a file is created, so that attributes and "         \
    "variables added later (esmio_redef, or a reopened file) do not move the "                     \
    "data.")                                                                                       \
  X(max_request, file, size, "1G", "Largest request handed to the backend in one call.")           \
  X(publish, file, name, "in_place",                                                               \
    "in_place: the file is visible under its path while it grows; atomic: esmio_create writes "    \
    "PATH.esmio-tmp and renames it to PATH when esmio_close succeeds on every rank, so that PATH " \
    "is never a partial file (files opened with esmio_open change in place).")                     \
  X(size_check, file, bool, "true",                                                                \
    "esmio_open refuses a file shorter than its header (classic) or superblock (netCDF-4) says, "  \
    "with ESMIO_ECORRUPT; false opens it anyway (a file PnetCDF alone left short because its "     \
    "last variable was never written).")                                                           \
  X(direct_write, file, bool, "true",                                                              \
    "pnetcdf backend: each I/O task writes its data itself with pwrite, big-endian, at the "       \
    "offsets PnetCDF gave the variables (PnetCDF keeps the header and the record count); false "   \
    "hands the data to PnetCDF's collective write.")                                               \
  X(direct_read, file, bool, "true",                                                               \
    "pnetcdf backend: each I/O task reads its data itself with pread at the offsets PnetCDF gave " \
    "the variables and swaps it to native order; false reads through PnetCDF's collective read.")  \
  X(read_ahead, file, size, "4M",                                                                  \
    "pnetcdf backend with direct_read, a file open read-only: while an I/O task rearranges what "  \
    "it has read, a thread of its own reads what the task is predicted to read next into memory, " \
    "up to this many bytes ahead and at least one read (a task's share of a variable, so it "      \
    "holds at most one more such buffer). Reads under 1 MiB a task, on any backend, are made "     \
    "together with those predicted to follow them, up to this many bytes a task: one exchange "    \
    "for all, each rank keeping its parts until they are asked for. The prediction is the order "  \
    "of the file's reads so far: what followed each variable last time, and before that the next " \
    "variable of the same shape. 0 turns both off.")                                               \
  X(writeback, file, name, "early",                                                                \
    "pnetcdf backend with direct_write: early: each I/O task hands every few MiB it has written "  \
    "to the disk at once (sync_file_range), so that the disk writes while the task converts and "  \
    "rearranges the next, and a later fsync (esmio_sync's, or the model's after esmio_close) "     \
    "waits only for the last bytes; sync: the bytes wait in the page cache until then. Neither "   \
    "changes what is durable when: esmio_sync returns once everything is on disk.")                \
  X(agree_writes, file, name, "flush",                                                             \
    "flush: cached esmio_write_darray calls make no collective; every rank folds each call and "   \
    "its outcome into a digest that the next flush compares across ranks (ESMIO_EMISMATCH on "     \
    "every rank where they differ); call: each call agrees at once (one allreduce per call, the "  \
    "same code on every rank from that call).")                                                    \
  X(read_back, file, bool, "true",                                                                 \
    "After each write the I/O tasks read back what they wrote and fail with ESMIO_EIO where it "   \
    "differs: pnetcdf the first and last element of every box, netcdf4 the corners of the box "    \
    "between the first and last element written of each variable (one collective read per "        \
    "variable). This catches write errors that MPI-IO drops. false skips it, for file systems "    \
    "whose write errors reach the writer.")                                                        \
  X(cache, file, text, "size=8M",                                                                  \
    "The write cache, keys separated by ';' (ESMIO_CACHE may use commas). size=BYTES: what a "     \
    "rank may hold for pending writes; 0 turns the cache off. flush=full: when the next write "    \
    "would exceed size, and at sync, close, read and redef; flush=write: after every call. "       \
    "direct=BYTES: a write for which some rank would hold at least this many bytes goes out at "   \
    "once (default 1M). max_request=BYTES: the largest request handed to the backend in one "      \
    "collective call (default: the file's max_request). align=BYTES: alignment of the data "       \
    "sections in the file (PnetCDF/netCDF v_align and r_align).")                                  \
  X(mpiio_hints, file, text, "",                                                                   \
    "MPI-IO hints for the file's MPI_File_open, key=value;key=value (ESMIO_MPIIO_HINTS may use "   \
    "commas), e.g. striping_unit=4194304;striping_factor=8;cb_nodes=4;romio_cb_write=enable; "     \
    "PnetCDF's own hints (nc_var_align_size, ...) too. PNETCDF_HINTS still overrides. esmio sets " \
    "nc_in_place_swap=disable unless given.")                                                      \
  X(chunking, file, text, "",                                                                      \
    "netCDF-4 chunk shapes per variable, NAME:SHAPE;default:SHAPE, where SHAPE is auto, "          \
    "contiguous, or lengths with the record dimension first (T:1x26x64x576;default:auto). A "      \
    "variable's own entry wins over esmio_def_var_chunking, which wins over default; empty: "      \
    "esmio's default, one unit of the box layout per chunk.")                                      \
  X(compression, file, text, "",                                                                   \
    "netCDF-4 codecs per variable, NAME:CODEC;default:CODEC, where CODEC is none, "                \
    "deflate[:1-9][:shuffle] or zstd[:LEVEL][:shuffle], levels 1 if not given "                    \
    "(default:zstd:3;T:deflate:4:shuffle;lat:none). A variable's own entry wins over "             \
    "esmio_def_var_compress, which wins over default.")                                            \
  X(quantize, file, text, "",                                                                      \
    "Lossy quantisation before the codec (netCDF-4, floating-point variables), NAME:SPEC;"         \
    "default:SPEC, where SPEC is none, bitround:NSB (mantissa bits kept), granularbr:NSD "         \
    "(significant digits) or information[:F][:maxrel=E][:minbits=N] (F: the fraction of real "     \
    "information kept, default 0.99; E: a bound on the relative error; N: the fewest mantissa "    \
    "bits kept, default 4), e.g. default:bitround:9;PS:granularbr:4. A variable's own entry "      \
    "wins over esmio_def_var_quantize, which wins over default.")                                  \
  X(stage_dir, file, text, "",                                                                     \
    "A fast directory (node-local SSD, an on-demand file system, tmpfs) that esmio_create writes " \
    "files in; each is copied to its path in blocks, every block's checksum verified against "     \
    "the device, and renamed into place. Every I/O task of a file must see the same directory. "   \
    "Empty: write in place.")                                                                      \
  X(stage_copy, file, name, "close",                                                               \
    "When a staged file is copied to its path: close (in esmio_close), background (begun in "      \
    "esmio_close, copied on a thread of each I/O task while the model goes on, ended by "          \
    "esmio_stage_wait or esmio_finalize) or finalize (in esmio_finalize).")                        \
  X(stage_block, file, size, "64M",                                                                \
    "Block of the copy-back of a staged file: the I/O tasks copy whole blocks in parallel.")       \
  X(io_servers, instance, int, "0",                                                                \
    "Asynchronous mode: this many ranks of esmio_init's communicator become dedicated I/O "        \
    "servers, and the other ranks' calls are forwarded to them (docs/async.md); 0: every call "    \
    "is synchronous.")                                                                             \
  X(io_server_placement, instance, name, "last",                                                   \
    "Which ranks serve. last: the last io_servers ranks; first: the first ones (PIO's I/O "        \
    "processes in its asynchronous mode); spread: the last rank of each of io_servers equal "      \
    "blocks of ranks, so that every node gets its share.")                                         \
  X(io_server_groups, instance, int, "1",                                                          \
    "Server groups: the k-th file created or opened goes to group k mod io_server_groups; 1: "     \
    "every file over all servers.")                                                                \
  X(io_server_close, file, name, "wait",                                                           \
    "With I/O servers, what esmio_close waits for. wait: the servers' outcome (every record "      \
    "written, the file closed); background: the close posted, so that the model goes on while "    \
    "the servers write the file's last records; esmio_stage_wait(io, path) or esmio_finalize "     \
    "returns the outcome, and a later create or open of the path waits for it. Without servers "   \
    "the close does the writing, and waits.")                                                      \
  X(async_buffer, instance, size, "256M",                                                          \
    "Bytes per compute rank for calls and data on their way to the servers (64K to 1G); a call "   \
    "that does not fit waits until the servers have taken earlier ones (back-pressure).")          \
  X(async_transport, instance, name, "auto",                                                       \
    "How the I/O servers read the compute ranks' async buffers. shared: out of shared memory "     \
    "(MPI_Win_allocate_shared; every rank on one node), whatever MPI's one-sided component; "      \
    "rma: through MPI's one-sided component (any nodes; docs/async.md says what it needs); "       \
    "auto: shared where every rank shares one node, /dev/shm has room for every buffer and the "   \
    "ranks may write a file that large (ulimit -f), rma otherwise.")                               \
  X(async_buffer_pages, instance, name, "init",                                                    \
    "When a compute rank's async buffer takes its memory. init: esmio_init takes every page "      \
    "(MADV_POPULATE_WRITE), so that the first steps' calls do not pay for them (the buffer is "    \
    "held from the start, as a long run holds it anyway once it wraps); use: pages are taken as "  \
    "messages first reach them, so that a rank that posts little never holds the whole buffer.")   \
  X(trace, instance, text, "",                                                                     \
    "Path of a JSON report of every rank's trace counters (per file and in total), timeline and "  \
    "effective settings, written at esmio_finalize (read by esmio-report). Turns the timeline "    \
    "on. Empty: no report.")                                                                       \
  X(trace_timeline, instance, bool, "false",                                                       \
    "Keep the timeline of spans (for esmio_trace_write) without a report at esmio_finalize; on "   \
    "whenever trace is set.")                                                                      \
  X(trace_spans, instance, int, "100000",                                                          \
    "Timeline spans kept per rank (40 bytes each); later ones are only tallied per counter.")

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
  int64_t read_ahead = int64_t(4) << 20;
  std::string writeback = "early";
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
  std::string io_server_close = "wait";
  int64_t async_buffer = int64_t(256) << 20;
  std::string async_transport = "auto";
  std::string async_buffer_pages = "init";
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

// An ESMIO_* variable that is not a setting is ignored, with a warning that names the setting
// closest to it. The warnings for the entries ("NAME=value") of environment: variables that are
// settings or that esmio's tools and tests read (ESMIO_LIBRARY, ESMIO_TEST_*, ...) have none.
std::vector<std::string> unknown_environment_warnings(const char *const *environment);
// The setting's variable ("ESMIO_NUM_IOTASKS") closest to variable in edit distance, ignoring
// case; empty when none is close.
std::string closest_setting_variable(const std::string &variable);
// Prints the warnings for this process's environment on stderr, the first time only.
void warn_unknown_environment();

// "key=value,..." of every setting, for the trace and esmio_inq_settings.
std::string format_settings(const Settings &settings);
// The same, one (key, value) pair per setting, in the table's order.
std::vector<std::pair<std::string, std::string>> settings_items(const Settings &settings);

// "a=1;b=2" or "a=1,b=2" -> {{"a","1"},{"b","2"}}: the MPI-IO hints setting. An item without
// '=' or with an empty key is an error naming origin.
Status parse_hints(const std::string &text, const std::string &origin,
                   std::vector<std::pair<std::string, std::string>> *hints);

// "1G", "256M", "64K", "4096" -> bytes. False on a bad value.
bool parse_size(const std::string &text, int64_t *bytes);

}  // namespace esmio
