// Staging's arithmetic, pure and unit-tested without I/O: where a target's staged copy lives,
// and which blocks of a file each copying task takes.
#pragma once

#include <cstdint>
#include <string>

namespace esmio::stage {

// The staged file of target `path` in `stage_dir`: the target's name, made unique by a hash of
// its whole path (two targets of one name in different directories do not meet in the stage).
std::string staged_path(const std::string &stage_dir, const std::string &path);

// The name the copy is written under next to the target, renamed to the target once verified.
std::string copy_path(const std::string &path);

// Blocks of block_bytes (the last one shorter) of a file of size bytes; task t of ntasks copies
// blocks [first, first + count): contiguous, balanced, the same on every rank.
struct BlockRange {
  int64_t first = 0;
  int64_t count = 0;
};
int64_t block_count(int64_t size, int64_t block_bytes);
BlockRange blocks_of_task(int64_t size, int64_t block_bytes, int task, int ntasks);

}  // namespace esmio::stage
