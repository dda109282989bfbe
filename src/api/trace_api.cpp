// The trace's public side: counters queried by name, and the ESMIO_TRACE report written at
// esmio_finalize (every rank's counters, per file and in total, gathered on rank 0; in
// asynchronous mode the I/O servers' after the compute ranks').
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "api/handles.hpp"
#include "api/server_hooks.hpp"
#include "common/agree.hpp"
#include "common/call_words.hpp"
#include "common/digest.hpp"

namespace esmio::api {

namespace {

using Json = nlohmann::ordered_json;

// Text from the user (paths, settings) as a JSON value: escaped by the library, bytes that are
// not UTF-8 replaced rather than thrown on.
std::string json_text(const Json &value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The peak resident memory of this process so far (Linux: ru_maxrss in KiB).
int64_t max_rss_bytes() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

// The zstd filter's work since the instance began (or its trace was reset), when it did any:
// {"zstd": {"compress": {calls, bytes_in, bytes_out, seconds}, "decompress": {...}}}. Only esmio's
// own codec is timed: HDF5's built-in filters (deflate, shuffle) run unseen inside
// backend_write.
std::string codecs_json(const esmio_instance *io) {
  esmio_h5z_zstd_tally now[2];
  esmio_h5z_zstd_tallies(now);
  Json zstd = Json::object();
  const char *direction[2] = {"compress", "decompress"};
  for (int d = 0; d < 2; ++d) {
    const esmio_h5z_zstd_tally &b = io->zstd_baseline[d];
    if (now[d].calls == b.calls) continue;
    zstd[direction[d]] = {{"calls", now[d].calls - b.calls},
                          {"bytes_in", now[d].bytes_in - b.bytes_in},
                          {"bytes_out", now[d].bytes_out - b.bytes_out},
                          {"seconds", now[d].seconds - b.seconds}};
  }
  Json out = Json::object();
  if (!zstd.empty()) out["zstd"] = zstd;
  return out.dump();
}

std::string entry(const esmio_instance *io, int rank, int io_task, const char *role,
                  int world_rank) {
  std::string out =
      "{\"rank\": " + std::to_string(rank) + ", \"io_task\": " + std::to_string(io_task);
  if (role)
    out += ", \"role\": " + json_text(role) + ", \"world_rank\": " + std::to_string(world_rank);
  out += ", \"memory\": {\"max_rss_bytes\": " + std::to_string(max_rss_bytes()) + "}";
  out += ", \"codecs\": " + codecs_json(io);
  out += ", \"totals\": " + trace::to_json(io->group.counters) + ", \"files\": [";
  for (std::size_t i = 0; i < io->closed_files.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"path\": " + json_text(io->closed_files[i].first) +
           ", \"counters\": " + trace::to_json(io->closed_files[i].second) + "}";
  out += "]";
  if (io->timeline) out += ", \"timeline\": " + io->timeline->to_json();
  return out + "}";
}

}  // namespace

std::string trace_entry(const esmio_instance *io) {
  if (io->final_trace_entry)
    return entry(io, io->server_report_rank, io->group.task, "server", io->server_world_rank);
  return entry(io, io->group.rank, io->group.task, nullptr, -1);
}

// Collective. Rank 0 receives one rank's entry at a time and writes it out.
Status write_trace_report(esmio_instance *io, const std::string &settings, const std::string &path,
                          const std::vector<std::string> *servers) {
  std::vector<std::string> asked;
  Status status;
  if (servers == nullptr) {
    status = io->engine->server_trace(&asked);
    servers = &asked;
  }
  // One entry per server (a group's entries come joined by ",\n").
  int server_entries = 0;
  if (servers)
    for (const std::string &group : *servers)
      server_entries += 1 + static_cast<int>(std::count(group.begin(), group.end(), '\n'));
  const std::string mine = trace_entry(io);
  std::FILE *out = nullptr;
  if (io->group.rank == 0) {
    out = std::fopen(path.c_str(), "w");
    if (out == nullptr) {
      if (status.is_ok())
        status = Status(ESMIO_EIO, "cannot write the trace report '" + path + "'");
    } else {
      std::fprintf(out,
                   "{\"settings\": %s, \"io_layout\": %s, \"nranks\": %d, \"server_ranks\": %d, "
                   "\"counters\": %s, \"ranks\": [\n%s",
                   json_text(settings).c_str(), json_text(io->iolayout).c_str(),
                   io->group.nranks + server_entries, server_entries,
                   json_text(trace::trace_counter_names()).c_str(), mine.c_str());
    }
  }
  for (int r = 1; r < io->group.nranks; ++r) {
    if (io->group.rank == r) {
      const int64_t len = static_cast<int64_t>(mine.size());
      MPI_Send(&len, 1, MPI_INT64_T, 0, 0, io->group.comm);
      MPI_Send(mine.data(), static_cast<int>(len), MPI_CHAR, 0, 1, io->group.comm);
    } else if (io->group.rank == 0) {
      int64_t len = 0;
      MPI_Recv(&len, 1, MPI_INT64_T, r, 0, io->group.comm, MPI_STATUS_IGNORE);
      std::string theirs(static_cast<std::size_t>(len), '\0');
      MPI_Recv(theirs.data(), static_cast<int>(len), MPI_CHAR, r, 1, io->group.comm,
               MPI_STATUS_IGNORE);
      if (out) std::fprintf(out, ",\n%s", theirs.c_str());
    }
  }
  if (out) {
    if (servers)
      for (const std::string &group : *servers) std::fprintf(out, ",\n%s", group.c_str());
    std::fprintf(out, "\n]}\n");
    if (std::fclose(out) != 0 && status.is_ok())
      status = Status(ESMIO_EIO, "writing the trace report '" + path + "' failed");
  }
  return agree(io->group.comm, status);
}

trace::Counters *server_counters(esmio_t handle) {
  esmio_instance *io = nullptr;
  return resolve(handle, "server_counters", &io).is_ok() ? &io->group.counters : nullptr;
}

void server_align_trace(esmio_t handle, double epoch) {
  esmio_instance *io = nullptr;
  if (resolve(handle, "server_align_trace", &io).is_ok() && io->timeline)
    io->timeline->set_epoch(epoch);
}

std::string server_trace_entry(esmio_t handle, int report_rank, int world_rank) {
  esmio_instance *io = nullptr;
  if (!resolve(handle, "server_trace_entry", &io).is_ok()) return std::string();
  return entry(io, report_rank, io->group.task, "server", world_rank);
}

void server_keep_final_entry(esmio_t handle, int report_rank, int world_rank, std::string *sink) {
  esmio_instance *io = nullptr;
  if (!resolve(handle, "server_keep_final_entry", &io).is_ok()) return;
  io->final_trace_entry = sink;
  io->server_report_rank = report_rank;
  io->server_world_rank = world_rank;
}

}  // namespace esmio::api

using esmio::Status;
using esmio::api::guarded;

extern "C" {

int esmio_trace_counter(esmio_t io_handle, const char *name, esmio_counter *counter) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_trace_counter", &io));
    esmio::trace::Counter c;
    if (name == nullptr || !esmio::trace::counter_by_name(name, &c))
      return Status(ESMIO_EBADNAME, std::string("esmio_trace_counter: unknown counter '") +
                                        (name ? name : "(null)") + "'");
    if (counter == nullptr) return Status(ESMIO_EINVAL, "esmio_trace_counter: null counter");
    const esmio::trace::Tally &t = io->group.counters[c];
    *counter = esmio_counter{t.calls, t.bytes, t.seconds};
    return Status::ok();
  });
}

int esmio_trace_histogram(esmio_t io_handle, int64_t *bins) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_trace_histogram", &io));
    if (bins == nullptr) return Status(ESMIO_EINVAL, "esmio_trace_histogram: null bins");
    for (int b = 0; b < ESMIO_TRACE_BINS; ++b) bins[b] = io->group.counters.request_sizes[b];
    return Status::ok();
  });
}

int esmio_trace_write(esmio_t io_handle, const char *path) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_trace_write", &io));
    // An I/O server's instance comes back from esmio_init when serving ended: its entry went
    // to the compute ranks' report already.
    if (io->server) return Status::ok();
    Status local;
    if (path == nullptr || *path == '\0')
      local = Status(ESMIO_EINVAL, "esmio_trace_write: null or empty path");
    // Every rank must be here (in asynchronous mode the call goes on to the servers).
    ESMIO_RETURN_IF_ERROR(
        esmio::agree_call(io->group.comm, local, esmio::Digest("esmio_trace_write").value(), [&] {
          return esmio::encode(esmio::CallWords{
              "esmio_trace_write", "calls", {}, local.is_ok() ? "" : local.message()});
        }));
    const Status written =
        esmio::api::write_trace_report(io, esmio::api::effective_settings(io), path);
    return written.is_ok() ? written
                           : Status(written.code(), "esmio_trace_write: " + written.message());
  });
}

int esmio_trace_reset(esmio_t io_handle) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_trace_reset", &io));
    esmio::trace::Counters fresh;
    fresh.timeline = io->group.counters.timeline;  // the timeline stays on, emptied
    io->group.counters = fresh;
    io->closed_files.clear();
    esmio_h5z_zstd_tallies(io->zstd_baseline);
    if (io->timeline) io->timeline->clear();
    return Status::ok();
  });
}

}  // extern "C"
