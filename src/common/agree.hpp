// Collective error agreement: every rank returns the same Status. One rank's failure becomes
// everyone's, so no rank goes on into a collective the others have left.
#pragma once

#include <mpi.h>

#include "common/status.hpp"

namespace esmio {

// MPI_Allreduce MINLOC of (code, rank): the most negative code wins, then the lowest rank
// holding it broadcasts its message. Costs one allreduce when every rank is fine.
Status agree(MPI_Comm comm, const Status &local);

}  // namespace esmio
