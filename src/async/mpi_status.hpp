// A failing MPI call between the compute ranks and the I/O servers as a Status: ESMIO_EMPI,
// naming the call, what it was doing, and MPI's own words for the failure.
#pragma once

#include <mpi.h>

#include "common/status.hpp"

namespace esmio::async {

// ok when rc is MPI_SUCCESS. call: "MPI_Recv"; what: what the call was for ("a notice").
Status mpi_status(int rc, const char *call, const char *what);

}  // namespace esmio::async
