// One task's part of a copy-back: a range of blocks of the staged file written into the
// target's copy, a checksum of every block as read (xxHash XXH3-64), and the verification of
// what the target holds once it is on disk. Local POSIX I/O; the collective steps are
// publish.hpp's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "stage/blocks.hpp"

namespace esmio::stage {

struct CopyJob {
  std::string from;  // the staged file
  std::string to;    // the target's copy (exists; sized by the caller)
  int64_t size = 0;  // bytes of the staged file
  int64_t block_bytes = 0;
  BlockRange range;
  // Test hook: the block whose bytes are changed after their checksum and before they are
  // written (a block corrupted on its way), -1 for none.
  int64_t corrupt_block = -1;
  // Test hook: milliseconds of sleep after each block, so that a test can kill the job while
  // a copy is under way. 0: none.
  int delay_ms = 0;
};

// Where one rank's part of a copy-back spent its time: copy_blocks (read from the stage,
// written to the target's page cache) and verify_blocks (fdatasync and the read-back).
struct CopyTimes {
  int64_t bytes = 0;
  double write_seconds = 0;
  double verify_seconds = 0;
};

// Bytes of the job's blocks (the last block of the file may be short).
int64_t part_bytes(const CopyJob &job);

// Copies the job's blocks in 4 MiB chunks through one buffer; sums gets one checksum per block.
// ESMIO_ENOSPC for a full target, ESMIO_EIO for any other failure, naming both paths.
Status copy_blocks(const CopyJob &job, std::vector<uint64_t> *sums);

// Makes the job's blocks of the target durable (fdatasync), drops them from the page cache and
// reads them back: ESMIO_ECHECKSUM naming the block and both paths where a checksum differs.
Status verify_blocks(const CopyJob &job, const std::vector<uint64_t> &sums);

}  // namespace esmio::stage
