// The trace's public side: counters queried by name, and the ESMIO_TRACE report written at
// esmio_finalize (every rank's counters, per file and in total, gathered on rank 0).
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "api/handles.hpp"
#include "common/agree.hpp"

namespace esmio::api {

namespace {

using Json = nlohmann::ordered_json;

// Text from the user (paths, settings) as a JSON value: escaped by the library, bytes that are
// not UTF-8 replaced rather than thrown on.
std::string json_text(const Json &value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string rank_report(const esmio_instance *io) {
  std::string out = "{\"rank\": " + std::to_string(io->group.rank) +
                    ", \"io_task\": " + std::to_string(io->group.task) +
                    ", \"totals\": " + trace::to_json(io->group.counters) + ", \"files\": [";
  for (std::size_t i = 0; i < io->closed_files.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"path\": " + json_text(io->closed_files[i].first) +
           ", \"counters\": " + trace::to_json(io->closed_files[i].second) + "}";
  out += "]";
  if (io->timeline) out += ", \"timeline\": " + io->timeline->to_json();
  return out + "}";
}

}  // namespace

// Collective. Rank 0 receives one rank's report at a time and writes it out.
Status write_trace_report(const esmio_instance *io, const std::string &settings,
                          const std::string &path) {
  const std::string mine = rank_report(io);
  Status status;
  std::FILE *out = nullptr;
  if (io->group.rank == 0) {
    out = std::fopen(path.c_str(), "w");
    if (out == nullptr)
      status = Status(ESMIO_EIO, "cannot write the trace report '" + path + "'");
    else
      std::fprintf(out, "{\"settings\": %s, \"nranks\": %d, \"counters\": %s, \"ranks\": [\n%s",
                   json_text(settings).c_str(), io->group.nranks,
                   json_text(trace::trace_counter_names()).c_str(), mine.c_str());
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
    std::fprintf(out, "\n]}\n");
    if (std::fclose(out) != 0 && status.is_ok())
      status = Status(ESMIO_EIO, "writing the trace report '" + path + "' failed");
  }
  return agree(io->group.comm, status);
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
    if (path == nullptr || *path == '\0')
      return Status(ESMIO_EINVAL, "esmio_trace_write: null or empty path");
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
    if (io->timeline) io->timeline->clear();
    return Status::ok();
  });
}

}  // extern "C"
