// esmio_init / esmio_finalize: the instance owns the duplicated communicator, the settings and
// the I/O layout that every file and decomposition of it shares.
#include <cstring>
#include <string>

#include "api/handles.hpp"
#include "common/agree.hpp"
#include "common/digest.hpp"

namespace esmio::api {

// Rank 0 reads the environment and broadcasts it, so every rank applies the same overrides.
std::string environment_settings(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string spec = rank == 0 ? settings_from_environment() : std::string();
  int len = static_cast<int>(spec.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, comm);
  spec.resize(static_cast<std::size_t>(len));
  MPI_Bcast(spec.data(), len, MPI_CHAR, 0, comm);
  return spec;
}

Status copy_text(const char *what, const std::string &text, char *buf, int64_t buflen) {
  if (buf == nullptr || buflen < 1)
    return Status(ESMIO_EINVAL, std::string(what) + ": null or empty buffer");
  if (static_cast<int64_t>(text.size()) >= buflen)
    return Status(ESMIO_EINVAL, std::string(what) + ": buffer of " + std::to_string(buflen) +
                                    " bytes is too short for " + std::to_string(text.size() + 1));
  std::memcpy(buf, text.c_str(), text.size() + 1);
  return Status::ok();
}

std::string effective_settings(const esmio_instance *io) {
  // num_iotasks resolved (0 means every rank): the text is valid settings for esmio_init.
  Settings resolved = io->settings;
  resolved.num_iotasks = io->group.layout.ntasks();
  return format_settings(resolved);
}

namespace {

Status init(MPI_Comm user_comm, const char *spec, esmio_t *out) {
  if (out == nullptr) return Status(ESMIO_EINVAL, "esmio_init: null handle pointer");
  *out = nullptr;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return Status(ESMIO_EMPI, "esmio_init: MPI is not initialized");
  // MPI's default error handler aborts the job on a null communicator: refuse it here.
  if (user_comm == MPI_COMM_NULL) return Status(ESMIO_EINVAL, "esmio_init: MPI_COMM_NULL");
  int inter = 0;
  if (MPI_Comm_test_inter(user_comm, &inter) != MPI_SUCCESS || inter)
    return Status(ESMIO_EINVAL,
                  "esmio_init: an intercommunicator (esmio needs an "
                  "intracommunicator)");
  auto io = std::make_unique<esmio_instance>();
  if (MPI_Comm_dup(user_comm, &io->group.comm) != MPI_SUCCESS)
    return Status(ESMIO_EMPI, "esmio_init: MPI_Comm_dup failed");
  MPI_Comm_rank(io->group.comm, &io->group.rank);
  MPI_Comm_size(io->group.comm, &io->group.nranks);

  const std::string env = environment_settings(io->group.comm);
  Status status = apply_settings(spec ? spec : "", true, "esmio_init settings", &io->settings);
  if (status.is_ok()) status = apply_settings(env, true, "environment variable", &io->settings);
  if (status.is_ok())
    status = decomp::IoLayout::make(io->group.nranks, static_cast<int>(io->settings.num_iotasks),
                                    static_cast<int>(io->settings.iotask_stride),
                                    static_cast<int>(io->settings.iotask_offset),
                                    io->settings.layout, &io->group.layout);
  if (status.is_ok() && io->settings.max_message < 1)
    status = Status(ESMIO_ESETTING, "esmio_init: max_message must be at least 1 byte");
  if (status.is_ok() && io->settings.max_outstanding < 1)
    status = Status(ESMIO_ESETTING, "esmio_init: max_outstanding must be at least 1, got " +
                                        std::to_string(io->settings.max_outstanding));
  if (status.is_ok()) {
    // The default backend of every file: a bad name is the caller's mistake here, not later.
    std::unique_ptr<backend::Backend> probe;
    if (io->settings.backend != "auto")
      status = backend::make_backend(io->settings.backend, &probe);
    if (!status.is_ok()) status = Status(status.code(), "esmio_init: " + status.message());
  }
  // Every rank must run the same layout and defaults: compared before they are used.
  const std::string effective = status.is_ok() ? effective_settings(io.get()) : std::string();
  status = agree_call(io->group.comm, status, Digest("esmio_init").add(effective).value(),
                      [&] { return "esmio_init(settings '" + effective + "')"; });
  if (!status.is_ok()) {
    MPI_Comm_free(&io->group.comm);
    return status;
  }
  io->group.limits.max_message = io->settings.max_message;
  io->group.limits.max_outstanding = static_cast<int>(io->settings.max_outstanding);
  io->group.task = io->group.layout.task_of_rank(io->group.rank);
  MPI_Comm_split(io->group.comm, io->group.task >= 0 ? 0 : MPI_UNDEFINED, io->group.rank,
                 &io->group.io_comm);
  *out = publish(io.release());
  return Status::ok();
}

}  // namespace
}  // namespace esmio::api

using esmio::Status;
using esmio::api::guarded;

extern "C" {

int esmio_init(MPI_Comm comm, const char *settings, esmio_t *io) {
  return guarded([&] { return esmio::api::init(comm, settings, io); });
}

int esmio_init_f(MPI_Fint comm, const char *settings, esmio_t *io) {
  return esmio_init(MPI_Comm_f2c(comm), settings, io);
}

int esmio_finalize(esmio_t *handle) {
  return guarded([&] {
    if (handle == nullptr) return Status(ESMIO_EBADID, "esmio_finalize: null instance pointer");
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(*handle, "esmio_finalize", &io));
    Status status;
    if (io->open_files > 0 || io->open_decomps > 0)
      status =
          Status(ESMIO_EINVAL, "esmio_finalize: " + std::to_string(io->open_files) +
                                   " file(s) still open and " + std::to_string(io->open_decomps) +
                                   " decomposition(s) not freed");
    status = esmio::agree_call(io->group.comm, status, esmio::Digest("esmio_finalize").value(),
                               [] { return std::string("esmio_finalize"); });
    if (!status.is_ok()) return status;
    if (!io->settings.trace.empty())
      status = esmio::api::write_trace_report(io, esmio::api::effective_settings(io));
    if (io->group.io_comm != MPI_COMM_NULL) MPI_Comm_free(&io->group.io_comm);
    MPI_Comm_free(&io->group.comm);
    esmio::api::retire(*handle);
    delete io;
    *handle = nullptr;
    return status;
  });
}

int esmio_inq_settings(esmio_t io_handle, char *buf, int64_t buflen) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_inq_settings", &io));
    return esmio::api::copy_text("esmio_inq_settings", esmio::api::effective_settings(io), buf,
                                 buflen);
  });
}

int esmio_inq_file_settings(esmio_file_t file_handle, char *buf, int64_t buflen) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_file_settings", &file));
    return esmio::api::copy_text("esmio_inq_file_settings", esmio::format_settings(file->settings),
                                 buf, buflen);
  });
}

int esmio_inq_iotasks(esmio_t io_handle, int *num_iotasks, int *is_iotask) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_inq_iotasks", &io));
    if (num_iotasks) *num_iotasks = io->group.layout.ntasks();
    if (is_iotask) *is_iotask = io->group.task >= 0 ? 1 : 0;
    return Status::ok();
  });
}

}  // extern "C"
