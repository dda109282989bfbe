// Waiting for a message without holding a core.
//
// Open MPI's blocking MPI_Probe and MPI_Recv poll at full speed until the message comes. An I/O
// server waits for its compute ranks' next notice for as long as they compute, and a compute
// rank held back by a full ring waits for as long as its server writes: spinning there takes a
// core from the model, or from the very server being waited for, wherever ranks share cores.
//
// polite_probe is MPI_Probe with the same matching (source, tag, communicator; MPI_ANY_SOURCE
// allowed), made of MPI_Iprobe: it polls without pause for 300 us (a message on its way, or the
// next call of a burst, comes at once), then sleeps between polls, each pause a quarter of the
// time waited so far, at least 50 us and at most 1 ms; in a wait longer than 0.1 s at most 1 %
// of it, and never more than 20 ms. A message is seen at most one such pause after it came; an
// idle wait polls 50 times a second (0.15-0.2 % of a core, measured on the development VM).
// MPI progresses at every poll.
// The caller receives the message with MPI_Recv from status->MPI_SOURCE and the same tag: on
// the instance's own communicator, with no receive in between, that is the message probed
// (MPI's non-overtaking rule keeps the order per source).
#pragma once

#include <mpi.h>

#include <functional>

namespace esmio::async {

// Returns once a message matching (source, tag, comm) can be received; its envelope in *status
// (MPI_STATUS_IGNORE allowed). MPI's error code.
int polite_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);

// Returns once ready() is true, polled on the same schedule (without MPI calls: for what the
// other side stores into shared memory).
void polite_wait_until(const std::function<bool()> &ready);

}  // namespace esmio::async
