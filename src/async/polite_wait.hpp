// Waiting for a message without holding a core.
//
// Open MPI's blocking MPI_Probe and MPI_Recv poll at full speed until the message comes. An I/O
// server waits for its compute ranks' next notice for as long as they compute, and a compute
// rank held back by a full ring waits for as long as its server writes: spinning there takes a
// core from the model, or from the very server being waited for, wherever ranks share cores.
//
// polite_probe is MPI_Probe with the same matching (source, tag, communicator; MPI_ANY_SOURCE
// allowed), made of MPI_Iprobe: it polls without pause for a few microseconds (a message that is
// on its way comes at once), then sleeps between polls, 50 us at first, doubling up to 1 ms. An
// idle wait then costs a thousand polls a second (well under 1 % of a core); a message is seen
// at most one pause after it arrives. MPI progresses at every poll. The caller receives the
// message with MPI_Recv from status->MPI_SOURCE and the same tag: on the instance's own
// communicator, with no receive in between, that is the message probed (MPI's non-overtaking
// rule keeps the order per source).
#pragma once

#include <mpi.h>

namespace esmio::async {

// Returns once a message matching (source, tag, comm) can be received; its envelope in *status
// (MPI_STATUS_IGNORE allowed). MPI's error code.
int polite_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);

}  // namespace esmio::async
