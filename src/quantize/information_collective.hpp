// Information quantisation over slabs held by different I/O tasks, the collective half: each
// task passes its leading values to the previous task, counts what it holds, and every rank
// sums the counts and settles the same keepbits (information_count holds the arithmetic).
#pragma once

#include <mpi.h>

#include <vector>

#include "common/status.hpp"
#include "quantize/information.hpp"
#include "quantize/information_count.hpp"

namespace esmio::quantize {

// The ranks of the I/O tasks before and after this rank's task (MPI_PROC_NULL at either end);
// task false on a rank that is no I/O task, which takes no part in the halo.
struct TaskNeighbours {
  bool task = false;
  int previous = MPI_PROC_NULL;
  int next = MPI_PROC_NULL;
};

// Settles the keepbits of each variable of fresh (fresh_variables) from the pairs of its
// counted writes over every task: slabs[s][j] is what this rank holds of fresh.counted[s][j]
// (values null where it holds none). Collective over comm: every rank passes the same fresh
// variables and counted writes. Returns this rank's first error; keepbits are settled anyway.
Status settle_information(MPI_Comm comm, const TaskNeighbours &neighbours,
                          const FreshVariables &fresh,
                          const std::vector<std::vector<HeldSlab>> &slabs);

}  // namespace esmio::quantize
