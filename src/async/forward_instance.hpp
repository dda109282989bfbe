// The forwarding instance engine: on a compute rank in asynchronous mode, the instance's calls
// (decompositions, esmio_stage_wait, esmio_finalize, the servers' part of the trace report) are
// posted to the I/O servers, which replay them on their own instance (server.hpp), and its
// files get forwarding engines (forward_engine.hpp). It holds the client of the servers' window
// (client.hpp), the number the next file gets, and the staged files whose copy the servers
// finish later.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>

#include "async/placement.hpp"
#include "common/status.hpp"
#include "datapath/group.hpp"
#include "datapath/instance_engine.hpp"

namespace esmio::async {

// Collective over world with the servers' serve(): the client's window over a ring of
// buffer_bytes by the async_transport named, its pages taken at once with pages_at_init
// (Client::make). world: the instance's duplicate of esmio_init's communicator, compute ranks
// and servers, which the engine keeps and frees at finalize. group: the compute ranks; it
// outlives the engine.
Status make_forward_instance(MPI_Comm world, const Placement &placement, int64_t buffer_bytes,
                             const std::string &transport, bool pages_at_init,
                             datapath::Group &group,
                             std::unique_ptr<datapath::InstanceEngine> *out);

}  // namespace esmio::async
