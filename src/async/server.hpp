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

namespace esmio::async {

// Serves until every compute rank has finalized. world: the instance's duplicate of
// esmio_init's communicator (collective over it with the compute ranks' Client); group: this
// server's group; settings: the instance settings for the servers' own instance;
// trace_epoch: with the timeline on, the instant (trace::now()) that is time 0 of the compute
// ranks' spans (the servers' spans go on the same scale), else NaN.
Status serve(MPI_Comm world, MPI_Comm group, const Placement &placement,
             const std::string &settings, double trace_epoch);

// True while this process is inside serve(): esmio_init then makes a synchronous instance
// (the servers' own), whatever the settings and the environment say about servers.
bool serving();

}  // namespace esmio::async
