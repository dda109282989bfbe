// Files: create/open/sync/close and the definition phase (inquiry is in inquire.cpp).
// Definitions are mirrored on every rank, so argument checks need no communication.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>
#include <string>

#include "aggregate/cache_spec.hpp"
#include "api/handles.hpp"
#include "common/agree.hpp"
#include "common/call_words.hpp"
#include "common/digest.hpp"
#include "common/mpiio_path_limit.hpp"
#include "common/types.hpp"
#include "convert/convert.hpp"
#include "datapath/describe.hpp"
#include "datapath/probe.hpp"
#include "stage/blocks.hpp"

namespace esmio::api {
namespace {

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
  o.read_ahead = s.read_ahead;
  o.early_writeback = s.writeback == "early";
  o.max_request_bytes = cache.max_request > 0 ? cache.max_request : s.max_request;
  o.align = cache.align;
  return o;
}

// backend=auto and format=auto: a new file is netCDF-4 through the netcdf4 backend when the
// format says so, else CDF-5 through pnetcdf; an existing file is opened by what it is.
void resolve_auto(const datapath::OnDisk *probe, Settings *s) {
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

// What the file's engine acts on, from its resolved settings.
datapath::FileSetup file_setup(const esmio_file &file, const char *spec) {
  datapath::FileSetup setup;
  setup.backend = file.settings.backend;
  setup.options = file_options(file);
  setup.settings = spec ? spec : "";
  setup.direct_write = file.settings.direct_write;
  setup.stage_dir = file.settings.stage_dir;
  setup.stage_copy = file.settings.stage_copy;
  setup.close_in_background = file.settings.io_server_close == "background";
  setup.stage_block = file.settings.stage_block;
  setup.read_ahead = file.settings.read_ahead;
  return setup;
}

// Settings, backend and the ranks that hold it; common to create and open (probe: what the
// file on disk is, for open; null for create).
Status prepare_file(esmio_instance *io, const char *path, const char *spec, const char *what,
                    int mode, datapath::OnDisk *probe, std::unique_ptr<esmio_file> *out) {
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
                     // Path and mode, then every setting, named where they differ.
                     CallWords call{what, "passes", {{"path", "'" + file->path + "'"}}, ""};
                     call.refused = local.is_ok() ? std::string() : local.message();
                     if (opening) call.args.emplace_back("mode", std::to_string(mode));
                     call.shared_named = static_cast<int64_t>(call.args.size());
                     for (const auto &[key, value] : settings_items(file->settings))
                       call.args.emplace_back("setting " + key, value);
                     return encode(call);
                   }));
  }
  // The ESMIO_* overrides (rank 0's, broadcast): alike on every rank, so from here on every
  // rank reaches the same outcome.
  status = apply_settings(environment_settings(io->group.comm), true, "environment variable",
                          &file->settings);
  // A close of the path still running on the I/O servers ends before the path is looked at.
  const Status waited = io->engine->before_file(file->path);
  if (status.is_ok()) status = waited;
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
  if (opening) *probe = datapath::probe_file(io->group, file->path);
  if (status.is_ok()) resolve_auto(probe, &file->settings);
  // Every backend: the serial one reads through PnetCDF too.
  if (status.is_ok()) {
    const int64_t longest = mpiio_path_limit(mpiio_selection());
    if (longest >= 0 && static_cast<int64_t>(file->storage_path.size()) > longest)
      status = Status(ESMIO_EINVAL,
                      std::string(what) + ": file '" + file->path + "': the path MPI-IO opens" +
                          (file->storage_path != file->path ? " ('" + file->storage_path + "')"
                                                            : std::string()) +
                          " has " + std::to_string(file->storage_path.size()) +
                          " characters; Open MPI 4's ompio aborts the job in MPI_File_open past " +
                          std::to_string(longest) +
                          " (its sharedfp component lockedfile): use a shorter path, or set "
                          "OMPI_MCA_sharedfp=^lockedfile (or OMPI_MCA_io=romio321) in the job's "
                          "environment");
  }
  if (status.is_ok())
    status = aggregate::parse_cache_spec(file->settings.cache, "cache setting", &file->cache_spec);
  if (status.is_ok() && file->settings.max_request < 1)
    status = Status(ESMIO_ESETTING, std::string(what) + ": file '" + file->path +
                                        "': max_request must be at least 1 byte, got " +
                                        std::to_string(file->settings.max_request));
  if (status.is_ok())
    status = parse_hints(file->settings.mpiio_hints, "mpiio_hints setting", &file->mpiio_hints);
  file->engine = io->engine->file_engine(*file);
  if (status.is_ok()) {
    file->defer_agreement = file->settings.agree_writes == "flush";
    status = file->engine->prepare(file_setup(*file, spec));
  }
  if (!status.is_ok() && status.message().find(file->path) == std::string::npos)
    status = Status(status.code(),
                    std::string(what) + ": file '" + file->path + "': " + status.message());
  *out = std::move(file);
  return agree(io->group.comm, status);
}

// The whole definition as this rank sees it at enddef: dimensions, variables, fill values and
// the storage resolved for the backend. Attribute values were compared call by call.
Digest definition_digest(const esmio_file &file, const datapath::StoragePlan &plan) {
  Digest d("esmio_enddef");
  for (const datapath::Dimension &dim : file.dims)
    d.add(dim.name).add(dim.len).add(int64_t(dim.unlimited));
  for (const datapath::Variable &var : file.vars)
    d.add(var.name).add(int64_t(var.type)).add(var.dimids).add(var.fill);
  for (const auto &[varid, st] : plan.storage)
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

// The whole definition in words, for a mismatch at enddef: what definition_digest compares.
CallWords definition_words(const esmio_file &file, const datapath::StoragePlan &plan) {
  std::string dims, vars, storage;
  for (const datapath::Dimension &dim : file.dims)
    dims += (dims.empty() ? "" : ", ") + datapath::quoted(dim.name) + " " +
            (dim.unlimited ? std::string("unlimited") : std::to_string(dim.len));
  for (const datapath::Variable &var : file.vars) {
    std::string names;
    for (int d : var.dimids) names += (names.empty() ? "" : ",") + file.dims[d].name;
    vars += (vars.empty() ? "" : ", ") + datapath::quoted(var.name) + " " +
            datapath::type_text(var.type) + " (" + names + ") fill " +
            datapath::values_text(var.type, var.fill.data(), var.fill.empty() ? 0 : 1);
  }
  // Storage by what is set: chunks (or contiguous), then a codec, shuffle, quantisation.
  for (const auto &[varid, st] : plan.storage) {
    std::string text = st.contiguous ? " contiguous" : " chunks " + datapath::list_text(st.chunks);
    if (st.codec != "none") text += " " + st.codec + " level " + std::to_string(st.level);
    if (st.shuffle) text += " shuffle";
    if (st.quantize != "none")
      text += " quantize " + st.quantize + " " + std::to_string(st.quantize_digits);
    storage += (storage.empty() ? "" : ", ") + datapath::quoted(file.vars[varid].name) + text;
  }
  return datapath::enddef_call(file.path, "(" + dims + ")", "(" + vars + ")", "(" + storage + ")");
}

// esmio_enddef's call for the engine (also made by esmio_close for a file left in define mode):
// the storage resolved, the definitions to compare across ranks. Local.
datapath::Ending ending_of(esmio_file *file) {
  datapath::Ending ending;
  Status local = check_define_mode(file, "esmio_enddef");
  if (local.is_ok()) local = resolve_storage(file, &ending.plan);
  ending.call =
      datapath::Call{local, definition_digest(*file, ending.plan).add(file->path).value(),
                     [file, local, plan = ending.plan] {
                       return encode(datapath::checked(definition_words(*file, plan), local));
                     }};
  return ending;
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
using esmio::api::check_new_name;
using esmio::api::check_varid;
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
    Status status;
    // clobber=false protects the published name, which atomic create does not touch.
    if ((file->atomic || file->staged) && !file->settings.clobber && io->group.rank == 0 &&
        access(file->path.c_str(), F_OK) == 0)
      status = Status(ESMIO_EEXIST,
                      "esmio_create: file '" + file->path + "' exists and clobber is false");
    ESMIO_RETURN_IF_ERROR(esmio::agree(io->group.comm, status));
    ESMIO_RETURN_IF_ERROR(file->engine->create());
    file->define_mode = true;
    file->writable = true;
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
    esmio::datapath::OnDisk probe;
    ESMIO_RETURN_IF_ERROR(
        esmio::api::prepare_file(io, path, settings, "esmio_open", mode, &probe, &file));
    ESMIO_RETURN_IF_ERROR(file->engine->open(mode, probe));
    file->define_mode = false;
    file->writable = mode == ESMIO_WRITE;
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
    ESMIO_RETURN_IF_ERROR(esmio::agree_call(
        file->io->group.comm, local, esmio::Digest("esmio_sync").add(file->path).value(), [&] {
          return esmio::encode(esmio::datapath::checked(
              esmio::datapath::file_call("esmio_sync", file->path), local));
        }));
    return file->engine->sync();
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
      ESMIO_RETURN_IF_ERROR(esmio::agree_call(
          file->io->group.comm, Status(), esmio::Digest("esmio_close").add(file->path).value(),
          [&] { return esmio::encode(esmio::datapath::file_call("esmio_close", file->path)); }));
      std::optional<esmio::datapath::Ending> ending;
      if (file->define_mode && file->writable) ending = esmio::api::ending_of(file);
      status = file->engine->close(ending ? &*ending : nullptr);
    }
    // Published after the close scope, so that its counters hold the close alone.
    status = file->engine->publish(status);
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

int esmio_def_dim(esmio_file_t file_handle, const char *name, int64_t len, int *dimid) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_def_dim", &file));
    auto scope = traced(file, esmio::trace::Counter::define);
    Status local = check_define_mode(file, "esmio_def_dim");
    if (local.is_ok()) local = check_new_name("esmio_def_dim", name);
    if (local.is_ok() && dimid == nullptr)
      local = Status(ESMIO_EINVAL, "esmio_def_dim: null dimid pointer");
    if (local.is_ok() && len < 0)
      local = Status(ESMIO_EINVAL, "esmio_def_dim: negative length " + std::to_string(len) +
                                       " for dimension '" + name + "' in " + where(file));
    // What CDF-1 and CDF-2 can hold (netCDF-C's and PnetCDF's limits).
    const std::string &format = file->settings.format;
    const int64_t longest = format == "cdf1"   ? (int64_t(1) << 31) - 4
                            : format == "cdf2" ? (int64_t(1) << 32) - 4
                                               : INT64_MAX;
    if (local.is_ok() && len > longest)
      local = Status(ESMIO_EINVAL, "esmio_def_dim: dimension '" + std::string(name) + "' in " +
                                       where(file) + ": length " + std::to_string(len) +
                                       " is more than format " + format + " holds (" +
                                       std::to_string(longest) + ")");
    if (local.is_ok() && esmio::datapath::dim_id(*file, name) >= 0)
      local = Status(ESMIO_ENAMEINUSE, "esmio_def_dim: dimension '" + std::string(name) +
                                           "' already defined in " + where(file));
    if (local.is_ok() && len == ESMIO_UNLIMITED)
      for (const auto &d : file->dims) {
        if (d.unlimited)
          local =
              Status(ESMIO_EUNLIMPOS, "esmio_def_dim: " + where(file) +
                                          " already has an unlimited dimension ('" + d.name + "')");
      }
    const std::string dim_name = name ? name : "";
    const esmio::datapath::Call call{
        local, esmio::Digest("esmio_def_dim").add(file->path).add(dim_name).add(len).value(), [&] {
          return esmio::encode(esmio::datapath::checked(
              esmio::datapath::def_dim_call(file->path, dim_name, len), local));
        }};
    ESMIO_RETURN_IF_ERROR(file->engine->def_dim(call, dim_name, len));
    *dimid = static_cast<int>(file->dims.size()) - 1;
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
    if (local.is_ok()) local = check_new_name("esmio_def_var", name);
    if (local.is_ok() && varid == nullptr)
      local = Status(ESMIO_EINVAL, "esmio_def_var: null varid pointer");
    const std::string what =
        local.is_ok() ? "esmio_def_var: variable '" + std::string(name) + "' in " + where(file)
                      : std::string();
    if (local.is_ok() && !esmio::type_is_known(type))
      local = Status(ESMIO_EBADTYPE, what + ": unknown type " + std::to_string(type));
    if (local.is_ok() && esmio::type_needs_cdf5(type) &&
        (file->settings.format == "cdf1" || file->settings.format == "cdf2"))
      local = Status(ESMIO_EBADTYPE, what + ": " + esmio::type_name(type) +
                                         " needs format cdf5 or netcdf4, the file is " +
                                         file->settings.format);
    if (local.is_ok() && ndims < 0)
      local =
          Status(ESMIO_EINVAL, what + ": negative number of dimensions " + std::to_string(ndims));
    if (local.is_ok() && ndims > ESMIO_MAX_DIMS)
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
    if (local.is_ok() && esmio::datapath::var_id(*file, name) >= 0)
      local = Status(ESMIO_ENAMEINUSE, what + ": name already in use");
    const std::string var_name = name ? name : "";
    // The dimension ids as passed, whatever this rank's checks found (a null varid pointer on
    // one rank is that rank's error, not a disagreement over the dimensions).
    std::vector<int> passed;
    for (int i = 0; dimids && i < ndims && i < ESMIO_MAX_DIMS; ++i) passed.push_back(dimids[i]);
    const esmio::datapath::Call call{
        local,
        esmio::Digest("esmio_def_var")
            .add(file->path)
            .add(var_name)
            .add(int64_t(type))
            .add(int64_t(ndims))
            .add(passed)
            .value(),
        [&] {
          // The dimensions by name where the ids are valid (the ranks' ids name the same ones).
          std::string dims_text;
          for (std::size_t i = 0; i < passed.size(); ++i) {
            const int d = passed[i];
            dims_text += (i ? "," : "") + (d >= 0 && d < static_cast<int>(file->dims.size())
                                               ? file->dims[d].name
                                               : "#" + std::to_string(d));
          }
          return esmio::encode(esmio::datapath::checked(
              esmio::datapath::def_var_call(file->path, var_name, type, "(" + dims_text + ")"),
              local));
        }};
    ESMIO_RETURN_IF_ERROR(file->engine->def_var(call, var_name, type, ids));
    *varid = static_cast<int>(file->vars.size()) - 1;
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
  if (local.is_ok()) local = check_new_name("esmio_put_att", name);
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
  else if (is_fill && file->settings.format == "netcdf4" && file->vars[varid].storage_defined)
    local = Status(ESMIO_EINVAL, what +
                                     ": netCDF-4 fixes a variable's fill value at the esmio_enddef "
                                     "after its definition");
  if (local.is_ok() && esmio::type_needs_cdf5(type) &&
      (file->settings.format == "cdf1" || file->settings.format == "cdf2"))
    local = Status(ESMIO_EBADTYPE, what + ": " + esmio::type_name(type) +
                                       " needs format cdf5 or netcdf4, the file is " +
                                       file->settings.format);
  esmio::Digest digest("esmio_put_att");
  digest.add(file->path)
      .add(int64_t(varid))
      .add(std::string(name ? name : ""))
      .add(int64_t(type))
      .add(len);
  // The values where this rank's checks passed: compared among those ranks (a rank that
  // refused the call, a null pointer, has its own error reach every rank).
  uint64_t checked = 0;
  if (local.is_ok() && len > 0)
    checked = esmio::Digest("values")
                  .add(values, static_cast<std::size_t>(len) * esmio::type_size(type))
                  .value();
  const std::string att_name = name ? name : "";
  esmio::datapath::Call call{
      local, digest.value(), [&] {
        const bool known = varid >= 0 && varid < static_cast<int>(file->vars.size());
        const std::string values_text = local.is_ok()
                                            ? esmio::datapath::values_text(type, values, len)
                                            : std::string("not read");
        return esmio::encode(esmio::datapath::checked(
            esmio::datapath::put_att_call(
                file->path,
                esmio::datapath::variable_text(varid, known ? &file->vars[varid].name : nullptr),
                att_name, type, len, values_text),
            local));
      }};
  call.checked = checked;
  return file->engine->put_att(call, varid, att_name, type, len, values);
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
    const esmio::datapath::Ending ending = esmio::api::ending_of(file);
    return file->engine->enddef(ending.call, ending.plan);
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
    ESMIO_RETURN_IF_ERROR(esmio::agree_call(
        file->io->group.comm, local, esmio::Digest("esmio_redef").add(file->path).value(), [&] {
          return esmio::encode(esmio::datapath::checked(
              esmio::datapath::file_call("esmio_redef", file->path), local));
        }));
    return file->engine->redef();
  });
}

int esmio_stage_wait(esmio_t io_handle, const char *path) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_stage_wait", &io));
    const std::string target = path ? path : "";
    Status local;
    if (path == nullptr) local = Status(ESMIO_EINVAL, "esmio_stage_wait: null path");
    ESMIO_RETURN_IF_ERROR(esmio::agree_call(
        io->group.comm, local, esmio::Digest("esmio_stage_wait").add(target).value(), [&] {
          esmio::CallWords call{
              "esmio_stage_wait", "waits for", {{"path", "'" + target + "'"}}, ""};
          return esmio::encode(esmio::datapath::checked(call, local));
        }));
    const Status none(ESMIO_EINVAL, "esmio_stage_wait: no copy or background close of '" + target +
                                        "' is pending (not a staged file, or published already; "
                                        "not closed with io_server_close=background, or waited "
                                        "for already)");
    bool pending = false;
    const Status waited = io->engine->stage_wait(target, &pending);
    if (!pending) return none;
    return waited;
  });
}

}  // extern "C"
