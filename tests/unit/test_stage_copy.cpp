// Staging's pieces without MPI (src/stage/): the staged name, the blocks each task copies, and
// one task's copy and verification, on blocks past 2 GiB (64-bit offsets everywhere) and
// with a block corrupted on its way.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "stage/blocks.hpp"
#include "stage/copy.hpp"

using namespace esmio::stage;

namespace {

std::string scratch(const char *name) {
  const char *dir = std::getenv("ESMIO_TEST_OUT");
  return std::string(dir ? dir : ".") + "/" + name;
}

// A sparse file of size bytes with a few non-zero bytes spread over it.
void make_sparse(const std::string &path, int64_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, size), 0);
  for (int64_t at : {int64_t(0), size / 3, (int64_t(1) << 31) + 5, size - 1})
    if (at < size) {
      const char c = static_cast<char>('A' + at % 26);
      ASSERT_EQ(::pwrite(fd, &c, 1, at), 1);
    }
  ::close(fd);
}

void make_empty_copy(const std::string &path, int64_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, size), 0);
  ::close(fd);
}

// The bytes [begin, end) of a and b are the same.
bool same_bytes(const std::string &a, const std::string &b, int64_t begin, int64_t end) {
  const int fa = ::open(a.c_str(), O_RDONLY), fb = ::open(b.c_str(), O_RDONLY);
  std::vector<char> x(1 << 24), y(1 << 24);
  bool same = fa >= 0 && fb >= 0;
  for (int64_t at = begin; same && at < end; at += int64_t(x.size())) {
    const size_t want = static_cast<size_t>(std::min<int64_t>(int64_t(x.size()), end - at));
    const ssize_t n = ::pread(fa, x.data(), want, at);
    same = n > 0 && ::pread(fb, y.data(), want, at) == n &&
           std::equal(x.begin(), x.begin() + n, y.begin());
  }
  ::close(fa);
  ::close(fb);
  return same;
}

}  // namespace

TEST(StageNames, UniquePerTargetAndStable) {
  EXPECT_EQ(staged_path("/fast/", "/a/out.nc"), staged_path("/fast", "/a/out.nc"));
  EXPECT_NE(staged_path("/fast", "/a/out.nc"), staged_path("/fast", "/b/out.nc"));
  EXPECT_EQ(staged_path("/fast", "/a/out.nc").rfind("/fast/out.nc.", 0), 0u);
  EXPECT_EQ(copy_path("/a/out.nc"), "/a/out.nc.esmio-copy");
}

TEST(StageBlocks, EveryBlockOnceBalanced) {
  EXPECT_EQ(block_count(0, 64), 0);
  EXPECT_EQ(block_count(1, 64), 1);
  EXPECT_EQ(block_count(128, 64), 2);
  EXPECT_EQ(block_count(129, 64), 3);
  for (int64_t size : {int64_t(0), int64_t(1), int64_t(1000), (int64_t(5) << 30) + 17})
    for (int ntasks : {1, 2, 3, 7, 64}) {
      int64_t next = 0, lo = INT64_MAX, hi = 0;
      for (int t = 0; t < ntasks; ++t) {
        const BlockRange r = blocks_of_task(size, 4096, t, ntasks);
        EXPECT_EQ(r.first, next);
        next += r.count;
        lo = std::min(lo, r.count);
        hi = std::max(hi, r.count);
      }
      EXPECT_EQ(next, block_count(size, 4096));
      EXPECT_LE(hi - lo, 1);
    }
  EXPECT_EQ(blocks_of_task(1000, 10, -1, 4).count, 0);  // not a copying task
}

// The copying tasks whose blocks reach past 2 GiB (the last two of many, 1 MiB blocks, the last
// one partial): 64-bit offsets in the copy and the verification, without copying the 2 GiB
// before them.
TEST(StageCopy, BlocksPast2GiB) {
  const int64_t size = (int64_t(1) << 31) + (int64_t(3) << 20) + 11;
  const std::string from = scratch("stage_big.src"), to = scratch("stage_big.copy");
  make_sparse(from, size);
  make_empty_copy(to, size);
  const int64_t block = int64_t(1) << 20;
  const int ntasks = 1024;
  const int64_t first = blocks_of_task(size, block, ntasks - 2, ntasks).first;
  // The two ranges meet at 2 GiB: the last starts there, the one before ends there.
  ASSERT_GE(blocks_of_task(size, block, ntasks - 1, ntasks).first * block, int64_t(1) << 31);
  for (int t = ntasks - 2; t < ntasks; ++t) {
    CopyJob job{from, to, size, block, blocks_of_task(size, block, t, ntasks), -1};
    ASSERT_GT(job.range.count, 0);
    std::vector<uint64_t> sums;
    ASSERT_TRUE(copy_blocks(job, &sums).is_ok());
    EXPECT_EQ(static_cast<int64_t>(sums.size()), job.range.count);
    const esmio::Status verified = verify_blocks(job, sums);
    EXPECT_TRUE(verified.is_ok()) << verified.message();
  }
  EXPECT_EQ(blocks_of_task(size, block, ntasks - 1, ntasks).first +
                blocks_of_task(size, block, ntasks - 1, ntasks).count,
            block_count(size, block));
  EXPECT_TRUE(same_bytes(from, to, first * block, size));
  // The blocks before the copied ones were not touched: the copy's first byte is still 0.
  EXPECT_FALSE(same_bytes(from, to, 0, block));
  std::remove(from.c_str());
  std::remove(to.c_str());
}

TEST(StageCopy, ACorruptedBlockFailsVerification) {
  const int64_t size = 100000;
  const std::string from = scratch("stage_small.src"), to = scratch("stage_small.copy");
  make_sparse(from, size);
  make_empty_copy(to, size);
  CopyJob job{from, to, size, 4096, blocks_of_task(size, 4096, 0, 1), 7};
  std::vector<uint64_t> sums;
  ASSERT_TRUE(copy_blocks(job, &sums).is_ok());
  const esmio::Status verified = verify_blocks(job, sums);
  EXPECT_EQ(verified.code(), ESMIO_ECHECKSUM);
  EXPECT_NE(verified.message().find("block 7"), std::string::npos) << verified.message();
  std::remove(from.c_str());
  std::remove(to.c_str());
}

TEST(StageCopy, AMissingStagedFileIsAnError) {
  CopyJob job{scratch("no_such.src"), scratch("no_such.copy"), 10, 4096, {0, 1}, -1};
  std::vector<uint64_t> sums;
  const esmio::Status s = copy_blocks(job, &sums);
  EXPECT_EQ(s.code(), ESMIO_EIO);
  EXPECT_NE(s.message().find("no_such.src"), std::string::npos);
}
