// Collective error agreement: every rank returns the same Status. One rank's failure becomes
// everyone's, so no rank goes on into a collective the others have left.
#pragma once

#include <mpi.h>

#include "common/status.hpp"

namespace esmio {

// Collective over comm. The most negative error code wins, except that ESMIO_ERANGE (data
// written, some values as fill) yields to any real error; among equal codes the lowest rank
// wins, and its message is broadcast. Costs one allreduce when every rank is fine.
Status agree(MPI_Comm comm, const Status &local);

// The same, and in the same allreduce whether any rank raised flag (*any_flag).
Status agree(MPI_Comm comm, const Status &local, bool flag, bool *any_flag);

}  // namespace esmio
