// Files: create/open/sync/close and the definition phase (inquiry is in inquire.cpp).
// Definitions are mirrored on every rank, so argument checks need no communication.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "api/handles.hpp"
#include "common/agree.hpp"
#include "common/digest.hpp"
#include "common/types.hpp"
#include "convert/convert.hpp"
#include "datapath/mirror.hpp"
#include "decomp/box_partition.hpp"
#include "stage/blocks.hpp"
#include "stage/publish.hpp"
#include "trace/traced_backend.hpp"

namespace esmio::api {
namespace {

// Agrees on the local checks and on the call (digest: the ranks compare their arguments), runs
// op on the ranks that hold the file, agrees on the outcome: a rank never enters a backend
// collective that another rank skipped, and no rank's arguments reach the file unless every
// rank passed the same.
template <typename Op>
Status collective(esmio_file *file, const Status &local, const Digest &digest,
                  const std::string &call, Op op) {
  ESMIO_RETURN_IF_ERROR(agree_call(file->io->group.comm, local, digest.value(),
                                   [&] { return call + " on " + where(file); }));
  Status status;
  if (file->backend) status = op(*file->backend);
  return agree(file->io->group.comm, status);
}

Status check_define_mode(const esmio_file *file, const char *what) {
  if (!file->define_mode)
    return Status(ESMIO_ENOTINDEFINE, std::string(what) + ": " + where(file) +
                                          " is in data mode (call esmio_redef to define more)");
  if (!file->writable)
    return Status(ESMIO_EPERM, std::string(what) + ": " + where(file) + " is open read-only");
  return Status::ok();
}

backend::FileOptions file_options(const esmio_file &file) {
  const Settings &s = file.settings;
  const aggregate::CacheSpec &cache = file.cache_spec;
  backend::FileOptions o;
  o.mpiio_hints = file.mpiio_hints;
  o.format = s.format;
  o.clobber = s.clobber;
  o.header_pad = s.header_pad;
  o.size_check = s.size_check;
  o.read_back = s.read_back;
  o.direct_write = s.direct_write;
  o.direct_read = s.direct_read;
  o.max_request_bytes = cache.max_request > 0 ? cache.max_request : s.max_request;
  o.align = cache.align;
  return o;
}

// backend=auto and format=auto: a new file is netCDF-4 through the netcdf4 backend when the
// format says so, else CDF-5 through pnetcdf; an existing file is opened by what it is.
void resolve_auto(const OnDisk *probe, Settings *s) {
  const bool opening = probe != nullptr;
  const std::string on_disk = opening ? probe->format : std::string();
  if (s->backend == "auto") {
    const std::string format = opening ? on_disk : s->format;
    s->backend = format == "netcdf4" ? "netcdf4" : "pnetcdf";
  }
  if (s->format == "auto") {
    if (!on_disk.empty())
      s->format = on_disk;
    else
      s->format = s->backend == "netcdf4" ? "netcdf4" : "cdf5";
  }
}

// Paths reach MPI-IO and the storage libraries, some of which copy them into fixed buffers
// (Open MPI's shared-file-pointer component overflows on a 300-character name): refuse what
// POSIX would refuse anyway, before any library sees it.
// publish=atomic writes here and renames at close.
const char *const kAtomicSuffix = ".esmio-tmp";

Status check_path(const char *what, const char *path) {
  if (path == nullptr || path[0] == '\0')
    return Status(ESMIO_EINVAL, std::string(what) + ": empty path");
  const std::size_t len = std::strlen(path);
  if (len >= PATH_MAX)
    return Status(ESMIO_EINVAL, std::string(what) + ": path of " + std::to_string(len) +
                                    " characters (at most " + std::to_string(PATH_MAX - 1) + ")");
  std::size_t component = 0;
  for (std::size_t i = 0; i <= len; ++i) {
    if (i == len || path[i] == '/') {
      if (component > NAME_MAX)
        return Status(ESMIO_EINVAL, std::string(what) + ": path '" + std::string(path, 0, 64) +
                                        "...' has a component of " + std::to_string(component) +
                                        " characters (at most " + std::to_string(NAME_MAX) + ")");
      component = 0;
    } else {
      ++component;
    }
  }
  return Status::ok();
}

// Settings, backend and the ranks that hold it; common to create and open (probe: what the
// file on disk is, for open; null for create).
Status prepare_file(esmio_instance *io, const char *path, const char *spec, const char *what,
                    int mode, OnDisk *probe, std::unique_ptr<esmio_file> *out) {
  const bool opening = probe != nullptr;
  auto file = std::make_unique<esmio_file>();
  file->io = io;
  Status status = check_path(what, path);
  file->path = status.is_ok() ? path : "";
  if (io->timeline) {
    file->counters.timeline = io->timeline.get();
    file->counters.file = io->next_trace_file++;
    io->timeline->name_file(file->counters.file, file->path);
  }
  file->storage_path = file->path;
  file->settings = io->settings;
  if (status.is_ok() && opening && mode != ESMIO_WRITE && mode != ESMIO_NOWRITE)
    status = Status(ESMIO_EINVAL, std::string(what) + ": file '" + file->path +
                                      "': mode must be ESMIO_NOWRITE or ESMIO_WRITE");
  if (status.is_ok())
    status =
        apply_settings(spec ? spec : "", false,
                       std::string(what) + " settings for '" + file->path + "'", &file->settings);
  // Path, mode and the caller's settings compared first, before any other collective (two
  // ranks in different calls meet in this allreduce) and before anything touches the file.
  {
    const std::string settings_text = format_settings(file->settings);
    Status local = status;
    if (!local.is_ok() && local.message().find(file->path) == std::string::npos)
      local = Status(local.code(),
                     std::string(what) + ": file '" + file->path + "': " + local.message());
    ESMIO_RETURN_IF_ERROR(
        agree_call(io->group.comm, local,
                   Digest(what).add(file->path).add(int64_t(mode)).add(settings_text).value(), [&] {
                     return std::string(what) + "('" + file->path + "'" +
                            (opening ? ", mode " + std::to_string(mode) : std::string()) +
                            ", settings '" + settings_text + "')";
                   }));
  }
  // The ESMIO_* overrides (rank 0's, broadcast): alike on every rank, so from here on every
  // rank reaches the same outcome.
  status = apply_settings(environment_settings(io->group.comm), true, "environment variable",
                          &file->settings);
  // An opened file is changed in place: publish=atomic (an instance default, perhaps) applies
  // to the files esmio_create makes.
  if (status.is_ok() && !opening && file->settings.publish == "atomic") {
    status = check_path(what, (file->path + kAtomicSuffix).c_str());
    file->atomic = status.is_ok();
    if (file->atomic) file->storage_path = file->path + kAtomicSuffix;
  }
  // Staging: a created file is written in the stage and copied to its path, verified, at
  // close, which publishes it atomically too (publish=atomic adds nothing).
  if (status.is_ok() && !opening && !file->settings.stage_dir.empty()) {
    file->atomic = false;
    file->staged = true;
    file->storage_path = stage::staged_path(file->settings.stage_dir, file->path);
    status = check_path(what, file->storage_path.c_str());
    if (status.is_ok()) status = check_path(what, stage::copy_path(file->path).c_str());
    if (status.is_ok() && file->settings.stage_block < 4096)
      status = Status(ESMIO_ESETTING, std::string(what) + ": file '" + file->path +
                                          "': stage_block must be at least 4K, got " +
                                          std::to_string(file->settings.stage_block));
  }
  if (opening) *probe = probe_file(io, file->path);
  if (status.is_ok()) resolve_auto(probe, &file->settings);
  if (status.is_ok())
    status = aggregate::parse_cache_spec(file->settings.cache, "cache setting", &file->cache_spec);
  if (status.is_ok() && file->settings.max_request < 1)
    status = Status(ESMIO_ESETTING, std::string(what) + ": file '" + file->path +
                                        "': max_request must be at least 1 byte, got " +
                                        std::to_string(file->settings.max_request));
  if (status.is_ok())
    status = parse_hints(file->settings.mpiio_hints, "mpiio_hints setting", &file->mpiio_hints);
  std::unique_ptr<backend::Backend> made;
  if (status.is_ok()) status = backend::make_backend(file->settings.backend, &made);
  if (status.is_ok()) {
    file->capabilities = made->capabilities();
    made = trace::traced(std::move(made), &file->counters, &io->group.counters);
  }
  if (!status.is_ok() && status.message().find(file->path) == std::string::npos)
    status = Status(status.code(),
                    std::string(what) + ": file '" + file->path + "': " + status.message());
  if (status.is_ok()) {
    // A backend that makes one collective call per request gets merged requests; one that
    // writes dense slabs straight to the file gets whole slabs.
    file->cache.set_merge(file->capabilities.merges_requests);
    file->cache.set_dense(file->capabilities.direct_dense_writes && file->settings.direct_write);
    file->defer_agreement = file->settings.agree_writes == "flush";
    std::vector<int> io_ranks;
    for (int t = 0; t < io->group.layout.ntasks(); ++t)
      io_ranks.push_back(io->group.layout.io_rank(t));
    file->cache.set_io_tasks(io_ranks, io->group.task);
    file->gather_to_root = file->capabilities.gathers_to_root;
    if (io->client) {
      // Asynchronous mode: the servers hold the file; the compute ranks keep the mirror.
      file->backend_root = -1;
    } else if (file->gather_to_root) {
      file->backend_root = 0;
      if (io->group.rank == 0) {
        file->backend = std::move(made);
        file->backend_comm = MPI_COMM_SELF;
      }
    } else {
      file->backend_root = io->group.layout.io_rank(0);
      if (io->group.task >= 0) {
        file->backend = std::move(made);
        file->backend_comm = io->group.io_comm;
      }
    }
  }
  *out = std::move(file);
  return agree(io->group.comm, status);
}

// The whole definition as this rank sees it at enddef: dimensions, variables, fill values and
// the storage resolved for the backend. Attribute values were compared call by call.
Digest definition_digest(const esmio_file &file,
                         const std::vector<std::pair<int, backend::VarStorage>> &storage) {
  Digest d("esmio_enddef");
  for (const datapath::Dimension &dim : file.dims)
    d.add(dim.name).add(dim.len).add(int64_t(dim.unlimited));
  for (const datapath::Variable &var : file.vars)
    d.add(var.name).add(int64_t(var.type)).add(var.dimids).add(var.fill);
  for (const auto &[varid, st] : storage)
    d.add(int64_t(varid))
        .add(st.chunks)
        .add(int64_t(st.contiguous))
        .add(st.codec)
        .add(int64_t(st.level))
        .add(int64_t(st.shuffle))
        .add(st.quantize)
        .add(int64_t(st.quantize_digits));
  return d;
}

// publish=atomic at close: the written file takes the target's name only when the close
// succeeded on every rank (rename is atomic, and the directory is synced so that the new name
// survives a crash); otherwise it is removed and the target keeps its previous version.
// Collective; rank 0 renames.
Status publish_atomic(esmio_file *file, const Status &closed) {
  Status status;
  if (file->io->group.rank == 0) {
    if (closed.is_ok()) {
      if (std::rename(file->storage_path.c_str(), file->path.c_str()) != 0) {
        status = Status(ESMIO_EIO, "esmio_close: publishing '" + file->storage_path + "' as '" +
                                       file->path + "': " + std::strerror(errno) + "; '" +
                                       file->path + "' was not replaced and '" +
                                       file->storage_path + "' was removed");
        std::remove(file->storage_path.c_str());
      } else {
        std::string dir = file->path.substr(0, file->path.find_last_of('/') + 1);
        if (dir.empty()) dir = ".";
        const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
        if (fd >= 0) {
          if (fsync(fd) != 0)
            status = Status(ESMIO_EIO, "esmio_close: '" + file->path +
                                           "' was published, but syncing its directory failed (" +
                                           std::strerror(errno) +
                                           "): after a crash the old version may be back");
          ::close(fd);
        }
      }
    } else {
      std::remove(file->storage_path.c_str());
    }
  }
  if (!closed.is_ok())
    return Status(closed.code(), closed.message() + "; publish=atomic: '" + file->path +
                                     "' was not replaced (the partial '" + file->storage_path +
                                     "' was removed)");
  return esmio::agree(file->io->group.comm, status);
}

stage::CopyBack copy_job(const esmio_file *file) {
  stage::CopyBack job;
  job.staged = file->storage_path;
  job.target = file->path;
  job.block_bytes = file->settings.stage_block;
  // Test hook (tests/faults): a block changed after its checksum, on its way to the target.
  if (const char *hook = std::getenv("ESMIO_TEST_STAGE_CORRUPT_BLOCK"))
    job.corrupt_block = std::atoll(hook);
  if (const char *hook = std::getenv("ESMIO_TEST_STAGE_BLOCK_DELAY_MS"))
    job.delay_ms = std::atoi(hook);
  return job;
}

// This rank's part of a copy-back in the trace: stage_write and stage_verify (the stage_copy
// around them also holds the agreement, the rename and, in the background, the wait).
void count_copy(const stage::CopyTimes &times, trace::Counters *first, trace::Counters *second) {
  for (trace::Counters *c : {first, second}) {
    if (!c) continue;
    c->add(trace::Counter::stage_write, times.bytes, times.write_seconds);
    c->add(trace::Counter::stage_verify, times.bytes, times.verify_seconds);
  }
}

// A staged file after its close: copied to its path now (stage_copy=close) or at
// esmio_finalize. A failed close copies nothing and keeps the staged file.
Status publish_staged(esmio_file *file, const Status &closed) {
  if (!closed.is_ok())
    return Status(closed.code(), closed.message() + "; the staged file '" + file->storage_path +
                                     "' is kept and '" + file->path + "' was not changed");
  const stage::CopyBack job = copy_job(file);
  if (file->settings.stage_copy == "finalize") {
    file->io->pending_copies.push_back(PendingCopy{job, nullptr});
    return Status::ok();
  }
  Status status;
  auto scope = traced(file, trace::Counter::stage_copy);
  if (file->settings.stage_copy == "background") {
    stage::CopyJob mine;
    status = stage::begin_copy(copiers(file->io), job, &mine);
    if (status.is_ok())
      file->io->pending_copies.push_back(
          PendingCopy{job, std::make_unique<stage::BackgroundCopy>(std::move(mine))});
  } else {
    stage::CopyTimes times;
    status = stage::copy_back(copiers(file->io), job, &times);
    count_copy(times, &file->counters, &file->io->group.counters);
  }
  return status.is_ok() ? status : Status(status.code(), "esmio_close: " + status.message());
}

}  // namespace

Status finish_pending(esmio_instance *io, PendingCopy *pending) {
  trace::Scope scope(trace::Counter::stage_copy, &io->group.counters);
  stage::CopyTimes times;
  Status status;
  if (pending->running) {
    const Status local = pending->running->join(&times);
    status = stage::finish_copy(copiers(io), pending->job, local);
  } else {
    status = stage::copy_back(copiers(io), pending->job, &times);
  }
  count_copy(times, &io->group.counters, nullptr);
  return status;
}

namespace {

// esmio_enddef's work (also done by esmio_close for a file left in define mode): storage
// resolved, the definitions compared across ranks, the backend's enddef. Collective.
Status end_definitions(esmio_file *file) {
  Status local = check_define_mode(file, "esmio_enddef");
  std::vector<std::pair<int, backend::VarStorage>> storage;
  std::vector<std::pair<int, codec::QuantizeChoice>> information;
  if (local.is_ok()) local = resolve_storage(file, &storage, &information);
  ESMIO_RETURN_IF_ERROR(collective(file, local, definition_digest(*file, storage),
                                   "esmio_enddef (definitions)", [&](backend::Backend &b) {
                                     for (const auto &[varid, s] : storage)
                                       ESMIO_RETURN_IF_ERROR(b.def_var_storage(varid, s));
                                     return b.enddef();
                                   }));
  for (auto &v : file->vars) v.storage_defined = true;
  for (const auto &[varid, choice] : information) {
    file->vars[varid].information = std::make_shared<aggregate::Information>();
    file->vars[varid].information->fraction = choice.fraction;
    file->vars[varid].information->maxrel = choice.maxrel;
    if (choice.minbits >= 0) file->vars[varid].information->minbits = choice.minbits;
  }
  file->define_mode = false;
  return Status::ok();
}

void count_open(esmio_file *file, double start) {
  const double seconds = trace::now() - start;
  file->counters.add(trace::Counter::open, 0, seconds);
  file->io->group.counters.add(trace::Counter::open, 0, seconds);
}

}  // namespace
}  // namespace esmio::api

using esmio::Status;
using esmio::api::check_define_mode;
using esmio::api::check_name;
using esmio::api::check_varid;
using esmio::api::collective;
using esmio::api::guarded;
using esmio::api::traced;
using esmio::api::where;

extern "C" {

int esmio_create(esmio_t io_handle, const char *path, const char *settings, esmio_file_t *out) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_create", &io));
    if (out == nullptr) return Status(ESMIO_EINVAL, "esmio_create: null file handle pointer");
    *out = nullptr;
    std::unique_ptr<esmio_file> file;
    const double start = esmio::trace::now();
    ESMIO_RETURN_IF_ERROR(
        esmio::api::prepare_file(io, path, settings, "esmio_create", -1, nullptr, &file));
    const auto options = esmio::api::file_options(*file);
    Status status;
    // clobber=false protects the published name, which atomic create does not touch.
    if ((file->atomic || file->staged) && !options.clobber && io->group.rank == 0 &&
        access(file->path.c_str(), F_OK) == 0)
      status = Status(ESMIO_EEXIST,
                      "esmio_create: file '" + file->path + "' exists and clobber is false");
    ESMIO_RETURN_IF_ERROR(esmio::agree(io->group.comm, status));
    // The stage must be there, and the same directory for every task that copies it back (the
    // servers check their own).
    if (file->staged && !esmio::api::remote(file.get())) {
      status = esmio::stage::check_stage_dir(esmio::api::copiers(io), file->settings.stage_dir);
      if (!status.is_ok())
        return Status(status.code(),
                      "esmio_create: file '" + file->path + "': " + status.message());
    }
    if (file->backend) {
      // The temporary name is esmio's: a partial one left by a killed run is overwritten.
      esmio::backend::FileOptions tmp_options = options;
      if (file->atomic || file->staged) tmp_options.clobber = true;
      status = file->backend->create(file->backend_comm, file->storage_path, tmp_options);
    }
    ESMIO_RETURN_IF_ERROR(
        esmio::api::explain_create_failure(io, file->path, esmio::agree(io->group.comm, status)));
    file->define_mode = true;
    file->writable = true;
    if (esmio::api::remote(file.get())) {
      file->serial = io->next_file++;
      esmio::async::Packer args;
      args.str(file->path).str(settings ? settings : "");
      // A create the servers refuse is reported at the file's next esmio_sync or esmio_close.
      ESMIO_RETURN_IF_ERROR(esmio::api::forward(file.get(), esmio::async::Op::create, args));
    }
    esmio::api::count_open(file.get(), start);
    ++io->open_files;
    *out = esmio::api::publish(file.release());
    return Status::ok();
  });
}

int esmio_open(esmio_t io_handle, const char *path, int mode, const char *settings,
               esmio_file_t *out) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_open", &io));
    if (out == nullptr) return Status(ESMIO_EINVAL, "esmio_open: null file handle pointer");
    *out = nullptr;
    std::unique_ptr<esmio_file> file;
    const double start = esmio::trace::now();
    esmio::api::OnDisk probe;
    ESMIO_RETURN_IF_ERROR(
        esmio::api::prepare_file(io, path, settings, "esmio_open", mode, &probe, &file));
    const bool writable = mode == ESMIO_WRITE;
    esmio::backend::Schema schema;
    Status status;
    if (file->gather_to_root && !esmio::api::remote(file.get()))
      status =
          esmio::api::check_classic_extent(io, file->path, probe, esmio::api::file_options(*file));
    if (file->backend && status.is_ok())
      status = file->backend->open(file->backend_comm, file->path, writable,
                                   esmio::api::file_options(*file), &schema);
    ESMIO_RETURN_IF_ERROR(
        esmio::api::explain_open_failure(probe, file->path, esmio::agree(io->group.comm, status)));
    if (esmio::api::remote(file.get())) {
      file->serial = io->next_file++;
      ESMIO_RETURN_IF_ERROR(esmio::api::open_remote(file.get(), mode, settings));
    } else {
      ESMIO_RETURN_IF_ERROR(esmio::datapath::share_schema(io->group, file.get(), schema));
    }
    file->define_mode = false;
    file->writable = writable;
    esmio::api::count_open(file.get(), start);
    ++io->open_files;
    *out = esmio::api::publish(file.release());
    return Status::ok();
  });
}

int esmio_sync(esmio_file_t file_handle) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_sync", &file));
    auto scope = traced(file, esmio::trace::Counter::sync);
    Status local;
    if (file->define_mode)
      local = Status(ESMIO_EINDEFINE, "esmio_sync: " + where(file) + " is in define mode");
    ESMIO_RETURN_IF_ERROR(esmio::agree_call(file->io->group.comm, local,
                                            esmio::Digest("esmio_sync").value(),
                                            [&] { return "esmio_sync on " + where(file); }));
    if (esmio::api::remote(file)) {
      // The servers' outcome: their sync, or the first failure since the last report.
      std::vector<char> reply;
      std::optional<esmio::async::Unpacker> results;
      const Status synced = esmio::api::forward_and_wait(file, esmio::async::Op::sync,
                                                         esmio::async::Packer(), &reply, &results);
      const Status range = esmio::datapath::report_pending_range(file->io->group, file);
      return synced.is_ok() ? range : synced;
    }
    ESMIO_RETURN_IF_ERROR(esmio::datapath::flush_cache(file->io->group, file));
    ESMIO_RETURN_IF_ERROR(esmio::datapath::record_information(file->io->group, file));
    ESMIO_RETURN_IF_ERROR(
        esmio::agree(file->io->group.comm, file->backend ? file->backend->sync() : Status::ok()));
    return esmio::datapath::report_pending_range(file->io->group, file);
  });
}

int esmio_close(esmio_file_t *handle) {
  return guarded([&] {
    if (handle == nullptr) return Status(ESMIO_EBADID, "esmio_close: null file handle pointer");
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(*handle, "esmio_close", &file));
    Status status;
    {
      auto scope = traced(file, esmio::trace::Counter::close);
      // Ranks that are not all closing this file (one syncs, one closes another) must not go
      // on: nothing is closed then, and the handle stays valid.
      ESMIO_RETURN_IF_ERROR(esmio::agree_call(file->io->group.comm, Status(),
                                              esmio::Digest("esmio_close").value(),
                                              [&] { return "esmio_close on " + where(file); }));
      if (esmio::api::remote(file)) {
        std::vector<char> reply;
        std::optional<esmio::async::Unpacker> results;
        status = esmio::api::forward_and_wait(file, esmio::async::Op::close, esmio::async::Packer(),
                                              &reply, &results);
      } else {
        status = esmio::api::close_here(file);
      }
    }
    // The servers published an atomic or staged file themselves; a copy they finish later is
    // waited for at the group that holds it.
    if (file->staged && esmio::api::remote(file) && file->settings.stage_copy != "close" &&
        (status.is_ok() || status.code() == ESMIO_ERANGE))
      file->io->remote_copies.emplace_back(file->path,
                                           file->io->client->group_of_file(file->serial));
    if (file->atomic && !esmio::api::remote(file))
      status = esmio::api::publish_atomic(file, status);
    if (file->staged && !esmio::api::remote(file))
      status = esmio::api::publish_staged(file, status);
    // After publishing: values stored as fill are reported, not a failed close.
    if (status.is_ok()) status = esmio::datapath::report_pending_range(file->io->group, file);
    file->io->closed_files.emplace_back(file->path, file->counters);
    if (file->io->timeline) {
      std::vector<std::string> names;
      for (const auto &v : file->vars) names.push_back(v.name);
      file->io->timeline->name_variables(file->counters.file, std::move(names));
    }
    // The handle is gone whatever happened: a failed close cannot be retried.
    --file->io->open_files;
    esmio::api::retire(*handle);
    delete file;
    *handle = nullptr;
    return status;
  });
}

}  // extern "C"

namespace esmio::api {

// esmio_close on the ranks that hold the file (synchronous mode), after the agreement: the
// pending calls settled, the records skipped over filled, the cache flushed, the backend closed.
Status close_here(esmio_file *file) {
  Status status;
  {
    // A file still in define mode is ended as esmio_enddef would, so that records skipped
    // over are filled. If that fails (definitions esmio_enddef already refused), the backend
    // ends the file itself at close, as before.
    bool ended = true;
    if (file->define_mode && file->writable) ended = esmio::api::end_definitions(file).is_ok();
    // Cached calls that differ between ranks leave them with different records: settled
    // first, or the gap fill below would start its collectives on some ranks only. After a
    // failed settlement the file is closed with the state every rank agrees on.
    Status flushed = esmio::datapath::settle_pending(file->io->group, file);
    // A failed flush is reported, and the file closed all the same: a handle cannot be kept.
    if (ended) {
      const Status filled = esmio::datapath::fill_skipped_records(file->io->group, file);
      if (flushed.is_ok()) flushed = filled;
    }
    // Flushed whatever went before: what every rank agreed on still reaches the file.
    const Status last_flush = esmio::datapath::flush_cache(file->io->group, file);
    if (flushed.is_ok()) flushed = last_flush;
    if (flushed.is_ok()) flushed = esmio::datapath::record_information(file->io->group, file);
    // Records past the last one a successful write reached hold only data a failed flush
    // kept: the file must not count them (the header would claim data that is not there).
    const bool lost = !file->cache.empty();
    int64_t written = lost ? std::min(file->nrecords, file->written_records) : file->nrecords;
    const int64_t lost_records = file->cache.pending_writes();
    if (file->gather_to_root && file->backend_root >= 0) {
      // No cache there, but netCDF's buffers: the records the serial file holds are its own count.
      int64_t held = written;
      const Status synced = esmio::datapath::sync_gathered(file->io->group, file, &held);
      if (flushed.is_ok()) flushed = synced;
      written = std::min(written, held);
    }
    // Records an earlier failure kept out of the file fail the close too, whatever it wrote.
    if (flushed.is_ok() && written < file->nrecords)
      flushed = Status(ESMIO_EIO, "esmio_close: " + where(file) + ": an earlier write failed");
    if (file->backend && written < file->nrecords) file->backend->limit_records(written);
    if (file->backend) status = file->backend->close();
    status = esmio::agree(file->io->group.comm, status);
    if (flushed.is_ok() && !status.is_ok())
      status = Status(status.code(), status.message() + "; the file handle was released");
    if (!flushed.is_ok())
      status = Status(
          flushed.code(),
          flushed.message() + "; the file was closed with " + std::to_string(written) + " records" +
              (lost ? " (" + std::to_string(lost_records) + " pending writes were lost" +
                          (written < file->nrecords
                               ? ", and records " + std::to_string(written) + " to " +
                                     std::to_string(file->nrecords - 1) + " with them"
                               : std::string()) +
                          ")"
               : written < file->nrecords
                   ? " (records " + std::to_string(written) + " to " +
                         std::to_string(file->nrecords - 1) + " did not reach it)"
                   : std::string()) +
              // The backend's own failure (its record count could not be lowered, say) is
              // not dropped: the count above is then only what esmio asked for.
              (status.is_ok() ? std::string() : "; closing it failed too: " + status.message()));
  }
  return status;
}

}  // namespace esmio::api

extern "C" {

int esmio_def_dim(esmio_file_t file_handle, const char *name, int64_t len, int *dimid) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_def_dim", &file));
    auto scope = traced(file, esmio::trace::Counter::define);
    Status local = check_define_mode(file, "esmio_def_dim");
    if (local.is_ok()) local = check_name("esmio_def_dim", name);
    if (local.is_ok() && dimid == nullptr)
      local = Status(ESMIO_EINVAL, "esmio_def_dim: null dimid pointer");
    if (local.is_ok() && len < 0)
      local = Status(ESMIO_EINVAL, "esmio_def_dim: negative length " + std::to_string(len) +
                                       " for dimension '" + name + "' in " + where(file));
    if (local.is_ok())
      for (const auto &d : file->dims) {
        if (d.name == name)
          local = Status(ESMIO_ENAMEINUSE, "esmio_def_dim: dimension '" + d.name +
                                               "' already defined in " + where(file));
        else if (len == ESMIO_UNLIMITED && d.unlimited)
          local =
              Status(ESMIO_EUNLIMPOS, "esmio_def_dim: " + where(file) +
                                          " already has an unlimited dimension ('" + d.name + "')");
      }
    int id = static_cast<int>(file->dims.size());
    const std::string dim_name = name ? name : "";
    ESMIO_RETURN_IF_ERROR(
        collective(file, local, esmio::Digest("esmio_def_dim").add(dim_name).add(len),
                   "esmio_def_dim('" + dim_name + "', " + std::to_string(len) + ")",
                   [&](esmio::backend::Backend &b) { return b.def_dim(name, len, &id); }));
    file->dims.push_back(esmio::datapath::Dimension{name, 0, len == ESMIO_UNLIMITED});
    if (len != ESMIO_UNLIMITED) file->dims.back().len = len;
    *dimid = static_cast<int>(file->dims.size()) - 1;
    if (esmio::api::remote(file)) {
      esmio::async::Packer args;
      args.str(dim_name).i64(len);
      return esmio::api::forward(file, esmio::async::Op::def_dim, args);
    }
    return Status::ok();
  });
}

int esmio_def_var(esmio_file_t file_handle, const char *name, esmio_type type, int ndims,
                  const int *dimids, int *varid) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_def_var", &file));
    auto scope = traced(file, esmio::trace::Counter::define);
    Status local = check_define_mode(file, "esmio_def_var");
    if (local.is_ok()) local = check_name("esmio_def_var", name);
    if (local.is_ok() && varid == nullptr)
      local = Status(ESMIO_EINVAL, "esmio_def_var: null varid pointer");
    const std::string what =
        local.is_ok() ? "esmio_def_var: variable '" + std::string(name) + "' in " + where(file)
                      : std::string();
    if (local.is_ok() && !esmio::type_is_known(type))
      local = Status(ESMIO_EBADTYPE, what + ": unknown type " + std::to_string(type));
    if (local.is_ok() && type == ESMIO_INT64 &&
        (file->settings.format == "cdf1" || file->settings.format == "cdf2"))
      local = Status(ESMIO_EBADTYPE, what + ": int64 needs format cdf5 or netcdf4, the file is " +
                                         file->settings.format);
    if (local.is_ok() && (ndims < 0 || ndims > ESMIO_MAX_DIMS))
      local = Status(ESMIO_EMAXDIMS, what + ": " + std::to_string(ndims) + " dimensions (at most " +
                                         std::to_string(ESMIO_MAX_DIMS) + ")");
    if (local.is_ok() && ndims > 0 && dimids == nullptr)
      local = Status(ESMIO_EINVAL, what + ": null dimids");
    std::vector<int> ids;
    for (int i = 0; local.is_ok() && i < ndims; ++i) {
      if (dimids[i] < 0 || dimids[i] >= static_cast<int>(file->dims.size()))
        local = Status(ESMIO_EBADID, what + ": no dimension with id " + std::to_string(dimids[i]));
      else if (i > 0 && file->dims[dimids[i]].unlimited)
        local = Status(ESMIO_EUNLIMPOS, what + ": the unlimited dimension '" +
                                            file->dims[dimids[i]].name + "' must come first");
      else
        ids.push_back(dimids[i]);
    }
    if (local.is_ok())
      for (const auto &v : file->vars)
        if (v.name == name) local = Status(ESMIO_ENAMEINUSE, what + ": name already in use");
    int id = 0;
    const std::string var_name = name ? name : "";
    std::string dims_text;
    for (int d : ids) dims_text += (dims_text.empty() ? "" : ",") + std::to_string(d);
    ESMIO_RETURN_IF_ERROR(collective(
        file, local, esmio::Digest("esmio_def_var").add(var_name).add(int64_t(type)).add(ids),
        "esmio_def_var('" + var_name + "', " + esmio::type_name(type) + ", dimids (" + dims_text +
            "))",
        [&](esmio::backend::Backend &b) { return b.def_var(name, type, ids, &id); }));
    esmio::datapath::Variable v;
    v.name = name;
    v.type = type;
    v.dimids = ids;
    v.record = !ids.empty() && file->dims[ids[0]].unlimited;
    for (std::size_t k = v.record ? 1 : 0; k < ids.size(); ++k)
      v.shape.push_back(file->dims[ids[k]].len);
    v.fill.resize(esmio::type_size(type));
    esmio::default_fill_value(type, v.fill.data());
    file->vars.push_back(std::move(v));
    *varid = static_cast<int>(file->vars.size()) - 1;
    if (esmio::api::remote(file)) {
      esmio::async::Packer args;
      args.str(var_name).i64(type).ints(ids);
      return esmio::api::forward(file, esmio::async::Op::def_var, args);
    }
    return Status::ok();
  });
}

namespace {

// esmio_put_att, after the caller's own checks (preset): every rank takes this one collective
// path whatever its checks found, so that no rank waits in a collective the others skipped.
Status put_attribute(esmio_file *file, int varid, const char *name, esmio_type type, int64_t len,
                     const void *values, const Status &preset) {
  auto scope = traced(file, esmio::trace::Counter::define);
  Status local = preset;
  if (local.is_ok()) local = check_define_mode(file, "esmio_put_att");
  if (local.is_ok()) local = check_name("esmio_put_att", name);
  if (local.is_ok()) local = check_varid(file, varid, "esmio_put_att", true);
  const std::string what = local.is_ok()
                               ? "esmio_put_att: attribute '" + std::string(name) + "' of " +
                                     (varid == ESMIO_GLOBAL ? where(file) : where(file, varid))
                               : std::string();
  if (local.is_ok() && !esmio::type_is_known(type))
    local = Status(ESMIO_EBADTYPE, what + ": unknown type " + std::to_string(type));
  if (local.is_ok() && (len < 0 || (len > 0 && values == nullptr)))
    local = Status(ESMIO_EINVAL, what + ": negative length or null values");
  const bool is_fill = local.is_ok() && std::strcmp(name, "_FillValue") == 0;
  if (is_fill && varid == ESMIO_GLOBAL)
    local = Status(ESMIO_EINVAL, what + ": _FillValue belongs to a variable");
  else if (is_fill && (type != file->vars[varid].type || len != 1))
    local = Status(ESMIO_EBADTYPE, what +
                                       ": _FillValue must be one value of the variable's "
                                       "type " +
                                       esmio::type_name(file->vars[varid].type));
  esmio::Digest digest("esmio_put_att");
  digest.add(int64_t(varid)).add(std::string(name ? name : "")).add(int64_t(type)).add(len);
  if (local.is_ok() && len > 0)
    digest.add(values, static_cast<std::size_t>(len) * esmio::type_size(type));
  ESMIO_RETURN_IF_ERROR(collective(
      file, local, digest,
      "esmio_put_att(varid " + std::to_string(varid) + ", '" + (name ? name : "") + "', " +
          esmio::type_name(type) + ", " + std::to_string(len) + " values)",
      [&](esmio::backend::Backend &b) { return b.put_att(varid, name, type, len, values); }));
  if (is_fill) std::memcpy(file->vars[varid].fill.data(), values, esmio::type_size(type));
  if (esmio::api::remote(file)) {
    esmio::async::Packer args;
    args.i64(varid).str(name).i64(type).i64(len);
    const auto bytes = static_cast<int64_t>(len * esmio::type_size(type));
    return esmio::api::forward(file, esmio::async::Op::put_att, args, bytes,
                               [&](char *to) { std::memcpy(to, values, bytes); });
  }
  return Status::ok();
}

}  // namespace

int esmio_put_att(esmio_file_t file_handle, int varid, const char *name, esmio_type type,
                  int64_t len, const void *values) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_put_att", &file));
    return put_attribute(file, varid, name, type, len, values, Status::ok());
  });
}

int esmio_def_var_fill(esmio_file_t file_handle, int varid, const void *fill_value) {
  // The fill value is the _FillValue attribute, in the variable's own type.
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_def_var_fill", &file));
    const Status local = check_varid(file, varid, "esmio_def_var_fill", false);
    const esmio_type type = local.is_ok() ? file->vars[varid].type : ESMIO_BYTE;
    return put_attribute(file, varid, "_FillValue", type, 1, fill_value, local);
  });
}

int esmio_def_var_fill_typed(esmio_file_t file_handle, int varid, esmio_type memtype,
                             const void *fill_value) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_def_var_fill_typed", &file));
    Status local = check_varid(file, varid, "esmio_def_var_fill_typed", false);
    const esmio_type type = local.is_ok() ? file->vars[varid].type : ESMIO_BYTE;
    if (local.is_ok() &&
        !(esmio::type_is_known(memtype) && esmio::convert::convertible(memtype, type)))
      local = Status(ESMIO_EBADTYPE, "esmio_def_var_fill_typed: no conversion from type " +
                                         std::to_string(memtype) + " to " + esmio::type_name(type) +
                                         " of " + where(file, varid));
    if (local.is_ok() && fill_value == nullptr)
      local = Status(ESMIO_EINVAL,
                     "esmio_def_var_fill_typed: null fill value for " + where(file, varid));
    alignas(8) unsigned char value[8] = {};
    if (local.is_ok() && esmio::convert::convert(memtype, fill_value, type, value, 1, nullptr) != 0)
      local =
          Status(ESMIO_ERANGE, "esmio_def_var_fill_typed: the fill value of " + where(file, varid) +
                                   " is out of range of its type " + esmio::type_name(type));
    return put_attribute(file, varid, "_FillValue", type, 1, value, local);
  });
}

int esmio_enddef(esmio_file_t file_handle) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_enddef", &file));
    auto scope = traced(file, esmio::trace::Counter::define);
    ESMIO_RETURN_IF_ERROR(esmio::api::end_definitions(file));
    if (esmio::api::remote(file))
      return esmio::api::forward(file, esmio::async::Op::enddef, esmio::async::Packer());
    return Status::ok();
  });
}

int esmio_redef(esmio_file_t file_handle) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_redef", &file));
    auto scope = traced(file, esmio::trace::Counter::define);
    Status local;
    if (file->define_mode)
      local = Status(ESMIO_EINDEFINE, "esmio_redef: " + where(file) + " is already in define mode");
    else if (!file->writable)
      local = Status(ESMIO_EPERM, "esmio_redef: " + where(file) + " is open read-only");
    ESMIO_RETURN_IF_ERROR(esmio::agree_call(file->io->group.comm, local,
                                            esmio::Digest("esmio_redef").value(),
                                            [&] { return "esmio_redef on " + where(file); }));
    if (esmio::api::remote(file)) {
      file->define_mode = true;
      return esmio::api::forward(file, esmio::async::Op::redef, esmio::async::Packer());
    }
    ESMIO_RETURN_IF_ERROR(
        esmio::datapath::flush_cache(file->io->group, file));  // pending writes need data mode
    ESMIO_RETURN_IF_ERROR(
        esmio::agree(file->io->group.comm, file->backend ? file->backend->redef() : Status::ok()));
    file->define_mode = true;
    return Status::ok();
  });
}

int esmio_stage_wait(esmio_t io_handle, const char *path) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_stage_wait", &io));
    const std::string target = path ? path : "";
    Status local;
    if (path == nullptr) local = Status(ESMIO_EINVAL, "esmio_stage_wait: null path");
    ESMIO_RETURN_IF_ERROR(esmio::agree_call(io->group.comm, local,
                                            esmio::Digest("esmio_stage_wait").add(target).value(),
                                            [&] { return "esmio_stage_wait('" + target + "')"; }));
    const Status none(ESMIO_EINVAL, "esmio_stage_wait: no copy of '" + target +
                                        "' is pending (not a staged file, or published already)");
    if (io->client) {
      // Asynchronous mode: the servers of the file's group hold the copy.
      auto it = std::find_if(io->remote_copies.begin(), io->remote_copies.end(),
                             [&](const auto &c) { return c.first == target; });
      if (it == io->remote_copies.end()) return none;
      const int group = it->second;
      io->remote_copies.erase(it);
      esmio::async::Packer args;
      args.str(target);
      esmio::async::Client &client = *io->client;
      client.post(group, esmio::async::Head{esmio::async::Op::stage_wait, -1, 0, Status::ok()},
                  args, 0, nullptr, nullptr, &io->group.counters);
      std::vector<char> reply;
      ESMIO_RETURN_IF_ERROR(client.reply(group, &reply));
      esmio::async::Unpacker u(reply.data(), reply.size());
      return esmio::async::reply_status(&u);
    }
    auto it =
        std::find_if(io->pending_copies.begin(), io->pending_copies.end(),
                     [&](const esmio::api::PendingCopy &p) { return p.job.target == target; });
    if (it == io->pending_copies.end()) return none;
    const Status status = esmio::api::finish_pending(io, &*it);
    io->pending_copies.erase(it);
    return status.is_ok() ? status : Status(status.code(), "esmio_stage_wait: " + status.message());
  });
}

}  // extern "C"
