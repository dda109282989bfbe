// esmio_init / esmio_finalize: the instance owns the duplicated communicator, the settings and
// the I/O layout that every file and decomposition of it shares.
#include <unistd.h>

#include <cstring>
#include <limits>
#include <string>

#include "api/handles.hpp"
#include "api/server_hooks.hpp"
#include "async/forward_instance.hpp"
#include "async/placement.hpp"
#include "async/server.hpp"
#include "common/agree.hpp"
#include "common/call_words.hpp"
#include "common/digest.hpp"
#include "datapath/local_instance.hpp"

namespace esmio::api {

// Rank 0 reads the environment and broadcasts it, so every rank applies the same overrides.
std::string environment_settings(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string spec = rank == 0 ? settings_from_environment() : std::string();
  if (rank == 0 && !async::serving()) warn_unknown_environment();
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

namespace {

// num_iotasks (and the stride it chose) resolved: valid settings for esmio_init that give the
// same I/O tasks.
Settings resolved_settings(const esmio_instance *io) {
  Settings resolved = io->settings;
  resolved.num_iotasks = io->group.layout.ntasks();
  const std::vector<int> &ranks = io->group.layout.io_ranks();
  if (ranks.size() > 1) resolved.iotask_stride = ranks[1] - ranks[0];
  return resolved;
}

}  // namespace

std::string effective_settings(const esmio_instance *io) {
  return format_settings(resolved_settings(io));
}

namespace {

// The automatic rule's inputs: how many shared-memory nodes the ranks of comm run on, and the
// most ranks on one of them (collective).
decomp::AutomaticIoTasks choose_iotasks(MPI_Comm comm) {
  int nranks = 1, nodes = 1, most = 1;
  MPI_Comm_size(comm, &nranks);
  MPI_Comm node = MPI_COMM_NULL;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS &&
      node != MPI_COMM_NULL) {
    int node_rank = 0, node_size = 1;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    const int leader = node_rank == 0 ? 1 : 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(&node_size, &most, 1, MPI_INT, MPI_MAX, comm);
  }
  // The node's cores, not this process's affinity (mpirun binds a rank to one core).
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  int cores = online > 0 ? static_cast<int>(online) : 0;
  MPI_Allreduce(MPI_IN_PLACE, &cores, 1, MPI_INT, MPI_MIN, comm);
  return decomp::automatic_iotasks(nranks, nodes, most, cores);
}

// The I/O tasks as the settings asked for them.
std::string describe_layout(const Settings &settings, const decomp::IoLayout &layout) {
  std::string text = "num_iotasks=" + std::to_string(settings.num_iotasks) +
                     ", iotask_stride=" + std::to_string(settings.iotask_stride) +
                     ", iotask_offset=" + std::to_string(settings.iotask_offset) + " (as set";
  if (settings.io_servers != 0) text += "; the I/O servers of one group";
  return text + "): " + decomp::rank_list(layout.io_ranks());
}

// Asynchronous mode, after every rank agreed on the settings: the servers serve (until the
// compute ranks finalize) and come back as a server's instance; the compute ranks get an
// instance over the compute ranks, whose calls go to the servers.
Status start_async(std::unique_ptr<esmio_instance> io, const async::Placement &placement,
                   esmio_t *out) {
  MPI_Comm world = io->group.comm;
  const bool server = placement.is_server(io->group.rank);
  MPI_Comm role_comm = MPI_COMM_NULL;
  MPI_Comm_split(world, server ? 1 : 0, io->group.rank, &role_comm);
  if (server) {
    int s = 0;
    while (placement.servers[static_cast<std::size_t>(s)] != io->group.rank) ++s;
    MPI_Comm group = MPI_COMM_NULL;
    MPI_Comm_split(role_comm, placement.group_of_server(s), io->group.rank, &group);
    MPI_Comm_free(&role_comm);
    Settings served = io->settings;
    served.io_servers = 0;
    // The report is the compute ranks' to write; the servers keep a timeline for it.
    served.trace.clear();
    served.trace_timeline = io->timeline != nullptr;
    const double epoch =
        io->timeline ? io->timeline->epoch() : std::numeric_limits<double>::quiet_NaN();
    async::InstanceHooks hooks;
    hooks.counters = server_counters;
    hooks.align_trace = server_align_trace;
    hooks.trace_entry = server_trace_entry;
    hooks.keep_final_entry = server_keep_final_entry;
    const Status status = async::serve(world, group, placement, format_settings(served),
                                       io->settings.async_transport, epoch, hooks);
    MPI_Comm_free(&group);
    MPI_Comm_free(&world);
    io->group.comm = MPI_COMM_NULL;
    io->server = true;
    *out = publish(io.release());
    return status;
  }
  io->group.comm = role_comm;
  MPI_Comm_rank(role_comm, &io->group.rank);
  MPI_Comm_size(role_comm, &io->group.nranks);
  io->group.task = -1;  // the servers are the I/O tasks
  io->group.limits.max_message = io->settings.max_message;
  io->group.limits.max_outstanding = static_cast<int>(io->settings.max_outstanding);
  ESMIO_RETURN_IF_ERROR(async::make_forward_instance(
      world, placement, io->settings.async_buffer, io->settings.async_transport,
      io->settings.async_buffer_pages == "init", io->group, &io->engine));
  *out = publish(io.release());
  return Status::ok();
}

// Trace on: the timeline, its clock set to rank 0's. Collective over the instance's ranks (the
// servers too, in asynchronous mode). Every rank reads its clock as it leaves one barrier, and
// takes rank 0's reading as the same instant: good to the barrier's skew (microseconds on a
// node), enough for a timeline of I/O phases.
void start_timeline(esmio_instance *io) {
  io->timeline = std::make_unique<trace::Timeline>(io->settings.trace_spans);
  io->group.counters.timeline = io->timeline.get();
  MPI_Barrier(io->group.comm);
  const double mine = trace::now();
  double rank0[2] = {mine, io->timeline->origin()};
  MPI_Bcast(rank0, 2, MPI_DOUBLE, 0, io->group.comm);
  // A time t here is t - mine + rank0[0] on rank 0's clock, rank0[1] its origin.
  io->timeline->set_clock_offset(io->timeline->origin() - mine + rank0[0] - rank0[1]);
}

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
  esmio_h5z_zstd_tallies(io->zstd_baseline);
  if (MPI_Comm_dup(user_comm, &io->group.comm) != MPI_SUCCESS)
    return Status(ESMIO_EMPI, "esmio_init: MPI_Comm_dup failed");
  MPI_Comm_rank(io->group.comm, &io->group.rank);
  MPI_Comm_size(io->group.comm, &io->group.nranks);

  const std::string env = environment_settings(io->group.comm);
  Status status = apply_settings(spec ? spec : "", true, "esmio_init settings", &io->settings);
  if (status.is_ok()) status = apply_settings(env, true, "environment variable", &io->settings);
  // The servers' own instance is synchronous, and its trace goes into the compute ranks' report
  // (server_hooks.hpp), not a file of its own.
  if (async::serving()) {
    io->settings.io_servers = 0;
    io->settings.trace.clear();
  }
  // The report of a trace holds the timeline (start_timeline): the effective settings say so.
  if (!io->settings.trace.empty()) io->settings.trace_timeline = true;
  async::Placement placement;
  // The I/O layout is the servers' (one group of them) in asynchronous mode: checked here so
  // that a layout the servers cannot run fails in esmio_init on every rank.
  int layout_ranks = io->group.nranks;
  if (status.is_ok() && io->settings.io_servers != 0) {
    status = async::make_placement(io->group.nranks, static_cast<int>(io->settings.io_servers),
                                   io->settings.io_server_placement,
                                   static_cast<int>(io->settings.io_server_groups), &placement);
    if (status.is_ok())
      layout_ranks = static_cast<int>(placement.group_servers(placement.groups - 1).size());
    if (status.is_ok() && (io->settings.async_buffer < (int64_t(1) << 16) ||
                           io->settings.async_buffer > (int64_t(1) << 30)))
      status = Status(ESMIO_ESETTING, "async_buffer must be between 64K and 1G, got " +
                                          std::to_string(io->settings.async_buffer));
    if (!status.is_ok()) status = Status(status.code(), "esmio_init: " + status.message());
  }
  // num_iotasks=0 with the default stride and offset: esmio chooses from the node layout.
  int num_iotasks = static_cast<int>(io->settings.num_iotasks);
  int stride = static_cast<int>(io->settings.iotask_stride);
  if (status.is_ok() && io->settings.io_servers == 0 && num_iotasks == 0 && stride == 1 &&
      io->settings.iotask_offset == 0) {
    const decomp::AutomaticIoTasks chosen = choose_iotasks(io->group.comm);
    num_iotasks = chosen.ntasks;
    stride = chosen.stride;
    io->iolayout = chosen.why;
  }
  if (status.is_ok())
    status = decomp::IoLayout::make(layout_ranks, num_iotasks, stride,
                                    static_cast<int>(io->settings.iotask_offset),
                                    io->settings.layout, &io->group.layout);
  if (status.is_ok() && io->iolayout.empty())
    io->iolayout = describe_layout(io->settings, io->group.layout);
  if (!status.is_ok() && io->settings.io_servers != 0)
    status = Status(status.code(),
                    "esmio_init: with io_servers=" + std::to_string(io->settings.io_servers) +
                        " the I/O tasks are servers, " + std::to_string(layout_ranks) +
                        " in the smallest server group: " + status.message());
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
  status = agree_call(io->group.comm, status, Digest("esmio_init").add(effective).value(), [&] {
    // Named where they differ; a refused init has none to compare.
    CallWords call{"esmio_init", "passes", {}, status.is_ok() ? "" : status.message()};
    call.shared_named = 0;
    if (status.is_ok())
      for (const auto &[key, value] : settings_items(resolved_settings(io.get())))
        call.args.emplace_back("setting " + key, value);
    return encode(call);
  });
  if (!status.is_ok()) {
    MPI_Comm_free(&io->group.comm);
    return status;
  }
  if (!io->settings.trace.empty() || io->settings.trace_timeline) start_timeline(io.get());
  if (io->settings.io_servers != 0) return start_async(std::move(io), placement, out);
  io->group.limits.max_message = io->settings.max_message;
  io->group.limits.max_outstanding = static_cast<int>(io->settings.max_outstanding);
  io->group.task = io->group.layout.task_of_rank(io->group.rank);
  MPI_Comm_split(io->group.comm, io->group.task >= 0 ? 0 : MPI_UNDEFINED, io->group.rank,
                 &io->group.io_comm);
  io->engine = datapath::make_local_instance(io->group);
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
    if (io->server) {  // served already: nothing collective is left
      esmio::api::retire(*handle);
      delete io;
      *handle = nullptr;
      return Status::ok();
    }
    Status status;
    if (io->open_files > 0 || io->open_decomps > 0)
      status =
          Status(ESMIO_EINVAL, "esmio_finalize: " + std::to_string(io->open_files) +
                                   " file(s) still open and " + std::to_string(io->open_decomps) +
                                   " decomposition(s) not freed");
    status =
        esmio::agree_call(io->group.comm, status, esmio::Digest("esmio_finalize").value(), [&] {
          return esmio::encode(esmio::CallWords{
              "esmio_finalize", "calls", {}, status.is_ok() ? "" : status.message()});
        });
    if (!status.is_ok()) return status;
    // The servers' entries of the trace report come with their finalize.
    std::vector<std::string> server_entries;
    status = io->engine->finalize(&server_entries);
    if (io->final_trace_entry) *io->final_trace_entry = esmio::api::trace_entry(io);
    if (!io->settings.trace.empty()) {
      const Status traced = esmio::api::write_trace_report(io, esmio::api::effective_settings(io),
                                                           io->settings.trace, &server_entries);
      if (status.is_ok() && !traced.is_ok())
        status = Status(traced.code(), "esmio_finalize: " + traced.message());
    }
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

int esmio_inq_role(esmio_t io_handle, int *role) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_inq_role", &io));
    if (role == nullptr) return Status(ESMIO_EINVAL, "esmio_inq_role: null role pointer");
    *role = io->server ? ESMIO_ROLE_SERVER : ESMIO_ROLE_COMPUTE;
    return Status::ok();
  });
}

int esmio_inq_comm(esmio_t io_handle, MPI_Comm *comm) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_inq_comm", &io));
    if (comm == nullptr) return Status(ESMIO_EINVAL, "esmio_inq_comm: null communicator pointer");
    *comm = io->server ? MPI_COMM_NULL : io->group.comm;
    return Status::ok();
  });
}

int esmio_inq_comm_f(esmio_t io_handle, MPI_Fint *comm) {
  MPI_Comm c = MPI_COMM_NULL;
  const int code = esmio_inq_comm(io_handle, &c);
  if (code == ESMIO_NOERR && comm) *comm = MPI_Comm_c2f(c);
  return code;
}

int esmio_inq_iolayout(esmio_t io_handle, char *buf, int64_t buflen) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_inq_iolayout", &io));
    return esmio::api::copy_text("esmio_inq_iolayout", io->iolayout, buf, buflen);
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
