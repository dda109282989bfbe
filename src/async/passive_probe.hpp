// Whether MPI moves a compute rank's ring while that rank computes.
//
// The servers pull messages with MPI_Get under a passive-target lock (client.hpp). Some MPI
// set-ups move such a read only when the target rank itself is inside MPI: Open MPI's
// osc/pt2pt, which it falls back to on one node when vader's single copy is off (containers
// without ptrace permission). There the servers wait for the compute ranks' next call and hide
// nothing, and every run is slower than synchronous I/O (docs/async.md, "What the servers need
// from MPI"). esmio_init finds out once, so that the modeller reads the cause instead of a slow
// run.
#pragma once

#include <mpi.h>

#include "async/placement.hpp"
#include "common/status.hpp"

namespace esmio::async {

// How long a probed compute rank stays out of MPI (once, in esmio_init). The server writes its
// byte a fifth of the way in; one that moves on its own lands in microseconds.
constexpr long kProbeSleepNs = 50'000'000;

// Collective over world, right after the window is made (the servers with open_server_window,
// the compute ranks with Client::make). Each server puts one byte into its first compute rank's
// window while that rank sleeps outside MPI; the rank looks for it when it wakes, before it
// calls MPI again, so nothing is timed. own_buffer: a compute rank's async buffer (the window's
// memory; its first byte is used), nullptr on a server or where the buffer could not be
// allocated (then nothing is probed and *passive is true). *passive: the same on every rank.
Status probe_passive_reads(MPI_Comm world, MPI_Win window, const Placement &placement,
                           char *own_buffer, bool *passive);

// The warning printed (on world rank 0) when the reads wait for the target.
const char *passive_reads_warning();

}  // namespace esmio::async
