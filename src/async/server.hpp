// The I/O server: a server rank replays the calls of the compute ranks it takes (placement.hpp)
// on an esmio instance of its own over its server group, one call at a time, once every one of
// them has posted it. The servers are a synchronous esmio program whose model is the compute
// ranks: a write runs the same entry point, checks, agreement and data path (convert, rearrange
// onto the servers' layout, write cache, backend) as without servers.
//
// What a server cannot hand back at once (a failed write, a refused definition) is kept per
// file and returned at the file's next esmio_sync or esmio_close, per instance at
// esmio_finalize: alike on every server of the group (the replayed calls agree among them), so
// alike on every compute rank.
#pragma once

#include <mpi.h>

#include <string>

#include "async/placement.hpp"
#include "common/status.hpp"
#include "esmio.h"
#include "trace/counters.hpp"

namespace esmio::async {

// What a server needs of its own instance beyond the public API — its trace — from the layer
// that owns instances (api/server_hooks.hpp). Any of them may be null: no trace.
struct InstanceHooks {
  // The instance's counters (the server's own waits go there).
  trace::Counters *(*counters)(esmio_t io) = nullptr;
  // Puts the instance's timeline on the scale whose time 0 is epoch.
  void (*align_trace)(esmio_t io, double epoch) = nullptr;
  // The instance's entry of the trace report, as rank report_rank, role server.
  std::string (*trace_entry)(esmio_t io, int report_rank, int world_rank) = nullptr;
  // The instance's finalize leaves its entry in *sink.
  void (*keep_final_entry)(esmio_t io, int report_rank, int world_rank,
                           std::string *sink) = nullptr;
};

// Serves until every compute rank has finalized. world: the instance's duplicate of
// esmio_init's communicator (collective over it with the compute ranks' Client); group: this
// server's group; settings: the instance settings for the servers' own instance; transport:
// the async_transport setting (ring_window.hpp), the compute ranks' own; trace_epoch: with the
// timeline on, the instant (trace::now()) that is time 0 of the compute ranks' spans (the servers'
// spans go on the same scale), else NaN.
Status serve(MPI_Comm world, MPI_Comm group, const Placement &placement,
             const std::string &settings, const std::string &transport, double trace_epoch,
             const InstanceHooks &hooks);

// True while this process is inside serve(): esmio_init then makes a synchronous instance
// (the servers' own), whatever the settings and the environment say about servers.
bool serving();

}  // namespace esmio::async
