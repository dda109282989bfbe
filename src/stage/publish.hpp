// Staging's collective steps: the check at create that every copying task sees the
// stage directory, and the copy-back at close: the staged file copied block by block by the
// copying tasks in parallel, verified against the staged checksums once durable and out of the
// page cache, renamed onto the target, and only then removed from the stage. Any failure leaves
// the target absent or at its previous version and keeps the staged file.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "common/status.hpp"
#include "stage/copy.hpp"

namespace esmio::stage {

// Who copies: this rank's copying task number (-1: none) of ntasks, over comm.
struct Copiers {
  MPI_Comm comm = MPI_COMM_NULL;
  int task = -1;
  int ntasks = 1;
};

// Collective over copiers.comm: stage_dir exists, is a writable directory, and every copying
// task sees the same directory (a node-local stage works only when the file's copying tasks
// share the node). ESMIO_EIO naming the directory and the cause, alike on every rank.
Status check_stage_dir(const Copiers &copiers, const std::string &stage_dir);

struct CopyBack {
  std::string staged;  // the closed staged file
  std::string target;  // where it is published
  int64_t block_bytes = int64_t(64) << 20;
  int64_t corrupt_block = -1;  // test hooks (copy.hpp)
  int delay_ms = 0;
};

// Collective over copiers.comm, after the staged file is closed on every rank. The same status
// on every rank; its message names both paths and says what was left where.
// *times (may be null): this rank's part, as in copy_and_verify.
Status copy_back(const Copiers &copiers, const CopyBack &job, CopyTimes *times = nullptr);

// copy_back in three steps, so that the middle one can run on a thread while the model goes on
// (background.hpp). begin_copy (collective): the copy created at full size; *mine is this
// rank's part (no blocks on a rank that does not copy). copy_and_verify (local, no MPI): the
// part copied and read back. finish_copy (collective): every rank's outcome agreed, the copy
// renamed into place, the staged file removed.
Status begin_copy(const Copiers &copiers, const CopyBack &job, CopyJob *mine);
Status copy_and_verify(const CopyJob &mine, CopyTimes *times);
Status finish_copy(const Copiers &copiers, const CopyBack &job, const Status &local);

}  // namespace esmio::stage
