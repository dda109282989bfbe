// Collective agreement on a Status: a storage library may fail on one rank only (a full disk
// seen by one writer, a bad box on one I/O task), and a collective call must return the same
// answer everywhere or the next collective hangs.
#pragma once

#include <mpi.h>

#include "common/status.hpp"

namespace esmio::backend {

// Collective over comm. Returns the status of the lowest-numbered failing rank (code and
// message) on every rank, or ok if no rank failed. ESMIO_EMPI if MPI itself fails.
Status agree(MPI_Comm comm, const Status &local);

}  // namespace esmio::backend
