// The pnetcdf backend's read ahead into memory (Prefetcher), on a real file: what it read
// ahead is what a later read gets (proved by changing the file in between), only the runs
// inside it are served, mispredicted reads are dropped, a failed read ahead serves nothing,
// and the limit and the smallest read are kept.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend/pnetcdf/big_endian.hpp"
#include "backend/pnetcdf/prefetch.hpp"
#include "gtest/gtest.h"

using esmio::backend::pnetcdf::copy_to_big_endian;
using esmio::backend::pnetcdf::Prefetcher;
using esmio::backend::pnetcdf::ReadRun;

namespace {

constexpr int64_t kMiB = int64_t(1) << 20;
constexpr int64_t kFloats = 3 * kMiB;  // 12 MiB of float32: three 4 MiB "variables"

struct TempFile {
  char name[64] = "/tmp/esmio_prefetch_XXXXXX";
  int fd = -1;
  TempFile() { fd = mkstemp(name); }
  ~TempFile() {
    if (fd >= 0) close(fd);
    unlink(name);
  }
};

// Writes value(i) = base + i as big-endian float32 at element i.
void fill(int fd, float base) {
  std::vector<float> native(kFloats);
  for (int64_t i = 0; i < kFloats; ++i) native[i] = base + static_cast<float>(i % 100000);
  std::vector<char> big(kFloats * 4);
  copy_to_big_endian(big.data(), reinterpret_cast<const char *>(native.data()), kFloats * 4, 4);
  ASSERT_EQ(pwrite(fd, big.data(), big.size(), 0), static_cast<ssize_t>(big.size()));
}

float expected(float base, int64_t i) { return base + static_cast<float>(i % 100000); }

// Runs reading elements [first, first + n) into out, in pieces of `piece` elements.
std::vector<ReadRun> runs_of(int64_t first, int64_t n, int64_t piece, std::vector<float> *out) {
  out->assign(static_cast<std::size_t>(n), -1.0f);
  std::vector<ReadRun> runs;
  for (int64_t at = 0; at < n; at += piece) {
    const int64_t m = std::min(piece, n - at);
    runs.push_back(ReadRun{(first + at) * 4, reinterpret_cast<char *>(out->data() + at), m * 4, 4});
  }
  return runs;
}

TEST(Prefetch, ServesWhatItReadAheadNotWhatTheFileHoldsLater) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  fill(file.fd, 1.0f);
  Prefetcher prefetch;
  // Variable 1 = elements [1M, 2M): 4 MiB at byte 4 MiB.
  EXPECT_EQ(prefetch.ask(file.fd, 1, 0, {{4 * kMiB, 4 * kMiB}}, 64 * kMiB), 4 * kMiB);
  prefetch.wait_idle();
  EXPECT_EQ(prefetch.held_bytes(), 4 * kMiB);
  fill(file.fd, 5000.0f);  // the file changes: a read from it would see 5000 + i
  std::vector<float> out;
  std::vector<ReadRun> runs = runs_of(kMiB, kMiB, 100000, &out);
  EXPECT_EQ(prefetch.serve(1, 0, &runs), 4 * kMiB);
  int64_t wrong = 0;
  for (int64_t i = 0; i < kMiB; ++i) wrong += out[i] != expected(1.0f, kMiB + i);
  EXPECT_EQ(wrong, 0);
  for (const ReadRun &r : runs) EXPECT_EQ(r.bytes, 0) << "every run served";
  EXPECT_EQ(prefetch.held_bytes(), 0) << "a read served is let go";
}

TEST(Prefetch, OnlyRunsInsideWhatWasReadAheadAreServed) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  fill(file.fd, 1.0f);
  Prefetcher prefetch;
  // Two stretches: elements [0, 256K) and [512K, 768K).
  ASSERT_EQ(prefetch.ask(file.fd, 0, 0, {{0, kMiB}, {2 * kMiB, kMiB}}, 64 * kMiB), 2 * kMiB);
  prefetch.wait_idle();
  std::vector<float> out;
  // Elements [0, 1M) in pieces of 128K: pieces 0-1 and 4-5 lie inside, the rest outside.
  std::vector<ReadRun> runs = runs_of(0, kMiB, 128 * 1024, &out);
  EXPECT_EQ(prefetch.serve(0, 0, &runs), 2 * kMiB);
  int64_t left = 0;
  for (const ReadRun &r : runs) left += r.bytes > 0;
  EXPECT_EQ(left, 4) << "the pieces outside are left for the reader";
  for (int64_t i = 0; i < 256 * 1024; ++i) ASSERT_EQ(out[i], expected(1.0f, i));
  for (int64_t i = 512 * 1024; i < 768 * 1024; ++i) ASSERT_EQ(out[i], expected(1.0f, i));
  EXPECT_EQ(out[300 * 1024], -1.0f) << "outside: untouched";
}

TEST(Prefetch, SkippedAndUnaskedReadsServeNothing) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  fill(file.fd, 1.0f);
  Prefetcher prefetch;
  ASSERT_GT(prefetch.ask(file.fd, 0, 0, {{0, 4 * kMiB}}, 64 * kMiB), 0);
  ASSERT_GT(prefetch.ask(file.fd, 1, 0, {{4 * kMiB, 4 * kMiB}}, 64 * kMiB), 0);
  EXPECT_EQ(prefetch.ask(file.fd, 1, 0, {{4 * kMiB, 4 * kMiB}}, 64 * kMiB), 0) << "asked twice";
  prefetch.wait_idle();
  std::vector<float> out;
  std::vector<ReadRun> runs = runs_of(2 * kMiB, kMiB, kMiB, &out);
  EXPECT_EQ(prefetch.serve(2, 0, &runs), 0) << "never asked: nothing to serve";
  EXPECT_EQ(runs[0].bytes, 4 * kMiB);
  // A read that was not asked for (a coordinate between two fields) drops nothing.
  EXPECT_EQ(prefetch.held_bytes(), 8 * kMiB);
  runs = runs_of(kMiB, kMiB, kMiB, &out);
  EXPECT_EQ(prefetch.serve(1, 0, &runs), 4 * kMiB);
  EXPECT_EQ(prefetch.held_bytes(), 0) << "variable 0, asked before 1 and skipped, is dropped";
  runs = runs_of(0, kMiB, kMiB, &out);
  EXPECT_EQ(prefetch.serve(0, 0, &runs), 0);
  EXPECT_EQ(runs[0].bytes, 4 * kMiB);
}

TEST(Prefetch, ACancelledReadIsDroppedAndMakesRoom) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  fill(file.fd, 1.0f);
  Prefetcher prefetch;
  ASSERT_EQ(prefetch.ask(file.fd, 1, 0, {{4 * kMiB, 4 * kMiB}}, 4 * kMiB), 4 * kMiB);
  EXPECT_EQ(prefetch.ask(file.fd, 2, 0, {{8 * kMiB, 4 * kMiB}}, 4 * kMiB), 0) << "over the limit";
  prefetch.cancel(1, 0);  // variable 1 will not be read: a prediction that did not come true
  EXPECT_EQ(prefetch.held_bytes(), 0);
  EXPECT_EQ(prefetch.ask(file.fd, 2, 0, {{8 * kMiB, 4 * kMiB}}, 4 * kMiB), 4 * kMiB);
  std::vector<float> out;
  std::vector<ReadRun> runs = runs_of(kMiB, kMiB, kMiB, &out);
  EXPECT_EQ(prefetch.serve(1, 0, &runs), 0) << "cancelled: nothing served";
  prefetch.stop();
}

TEST(Prefetch, WithoutWaitingTheReadGetsTheRightValuesWhateverTheThreadDid) {
  // serve() right after ask(): the thread may not have started (the caller reads it), be
  // reading (serve waits) or be done. Whatever it served is right, and the rest is left.
  TempFile file;
  ASSERT_GE(file.fd, 0);
  fill(file.fd, 1.0f);
  Prefetcher prefetch;
  for (int round = 0; round < 20; ++round) {
    const int var = round % 3;
    ASSERT_GT(prefetch.ask(file.fd, var, round, {{var * 4 * kMiB, 4 * kMiB}}, 64 * kMiB), 0);
    std::vector<float> out;
    std::vector<ReadRun> runs = runs_of(var * kMiB, kMiB, 256 * 1024, &out);
    const int64_t served = prefetch.serve(var, round, &runs);
    EXPECT_TRUE(served == 0 || served == 4 * kMiB) << served;
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const int64_t first = static_cast<int64_t>(k) * 256 * 1024;
      if (runs[k].bytes > 0) {
        EXPECT_EQ(out[first], -1.0f) << "left for the reader: untouched";
        continue;
      }
      for (int64_t i = first; i < first + 256 * 1024; ++i)
        ASSERT_EQ(out[i], expected(1.0f, var * kMiB + i)) << "round " << round;
    }
  }
  // stop() while a read is queued or in progress returns, and nothing is left.
  ASSERT_GT(prefetch.ask(file.fd, 7, 0, {{0, 12 * kMiB}}, 64 * kMiB), 0);
  prefetch.stop();
  EXPECT_EQ(prefetch.held_bytes(), 0);
}

TEST(Prefetch, ARunAcrossTheEdgeOfWhatWasReadAheadIsLeft) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  fill(file.fd, 1.0f);
  Prefetcher prefetch;
  // Elements [0, 512K) read ahead; runs of 384K elements: the second crosses the edge.
  ASSERT_EQ(prefetch.ask(file.fd, 0, 0, {{0, 2 * kMiB}}, 64 * kMiB), 2 * kMiB);
  prefetch.wait_idle();
  std::vector<float> out;
  std::vector<ReadRun> runs = runs_of(0, 768 * 1024, 384 * 1024, &out);
  std::swap(runs[0], runs[1]);  // unsorted: serve sorts them
  EXPECT_EQ(prefetch.serve(0, 0, &runs), 384 * 1024 * 4);
  int64_t left = 0;
  for (const ReadRun &r : runs) left += r.bytes;
  EXPECT_EQ(left, 384 * 1024 * 4) << "the run across the edge is the reader's";
  EXPECT_EQ(out[0], expected(1.0f, 0));
  EXPECT_EQ(out[384 * 1024], -1.0f);
}

TEST(Prefetch, LimitAndSmallestRead) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  fill(file.fd, 1.0f);
  Prefetcher prefetch;
  EXPECT_EQ(prefetch.ask(file.fd, 0, 0, {{0, Prefetcher::kMinBytes - 4}}, 64 * kMiB), 0)
      << "under kMinBytes: left to the read";
  EXPECT_EQ(prefetch.ask(file.fd, 0, 0, {{0, 8 * kMiB}}, 4 * kMiB), 8 * kMiB)
      << "one read is taken whatever its size";
  EXPECT_EQ(prefetch.ask(file.fd, 1, 0, {{8 * kMiB, 2 * kMiB}}, 4 * kMiB), 0)
      << "a second past the limit is not";
  EXPECT_EQ(prefetch.held_bytes(), 8 * kMiB);
  prefetch.stop();
  EXPECT_EQ(prefetch.held_bytes(), 0);
  EXPECT_EQ(prefetch.ask(file.fd, 1, 0, {{8 * kMiB, 2 * kMiB}}, 4 * kMiB), 2 * kMiB)
      << "asked again after stop: a new thread";
  prefetch.wait_idle();
  std::vector<float> out;
  std::vector<ReadRun> runs = runs_of(2 * kMiB, 512 * 1024, 512 * 1024, &out);
  EXPECT_EQ(prefetch.serve(1, 0, &runs), 2 * kMiB);
  for (int64_t i = 0; i < 512 * 1024; ++i) ASSERT_EQ(out[i], expected(1.0f, 2 * kMiB + i));
}

TEST(Prefetch, PastTheEndReadsAsZerosAndAFailedReadServesNothing) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  fill(file.fd, 1.0f);
  Prefetcher prefetch;
  // The last 2 MiB of the file and 2 MiB past its end.
  ASSERT_GT(prefetch.ask(file.fd, 0, 0, {{10 * kMiB, 4 * kMiB}}, 64 * kMiB), 0);
  prefetch.wait_idle();
  std::vector<float> out;
  std::vector<ReadRun> runs = runs_of(10 * kMiB / 4, kMiB, kMiB, &out);
  EXPECT_EQ(prefetch.serve(0, 0, &runs), 4 * kMiB);
  EXPECT_EQ(out[0], expected(1.0f, 10 * kMiB / 4));
  EXPECT_EQ(out[kMiB - 1], 0.0f) << "past the end: zeros, as the direct read gives";

  // A descriptor that cannot be read (a directory): the read ahead fails, serves nothing,
  // and the read itself reads (and reports what it meets).
  const int dir = open("/tmp", O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dir, 0);
  ASSERT_GT(prefetch.ask(dir, 3, 0, {{0, 4 * kMiB}}, 64 * kMiB), 0);
  prefetch.wait_idle();
  runs = runs_of(0, kMiB, kMiB, &out);
  EXPECT_EQ(prefetch.serve(3, 0, &runs), 0);
  EXPECT_EQ(runs[0].bytes, 4 * kMiB);
  EXPECT_EQ(out[0], -1.0f);
  close(dir);
}

}  // namespace
