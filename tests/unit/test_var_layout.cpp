// The pnetcdf backend's own data path, without PnetCDF: the file stretches a box covers
// (box_runs), the big-endian copy, DirectWriter's joined, ordered writes to a real file and
// DirectReader's reads of them back.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "backend/pnetcdf/big_endian.hpp"
#include "backend/pnetcdf/direct_read.hpp"
#include "backend/pnetcdf/direct_write.hpp"
#include "backend/pnetcdf/var_layout.hpp"
#include "gtest/gtest.h"

using esmio::backend::pnetcdf::box_runs;
using esmio::backend::pnetcdf::DirectReader;
using esmio::backend::pnetcdf::DirectWriter;
using esmio::backend::pnetcdf::ReadRun;
using FileRun = esmio::backend::pnetcdf::Run;
using esmio::backend::pnetcdf::VarLayout;

namespace {

VarLayout layout(bool record, std::vector<int64_t> len, int64_t begin = 1000,
                 int64_t record_size = 0) {
  VarLayout l;
  l.begin = begin;
  l.record = record;
  l.len = std::move(len);
  l.esize = 4;
  l.type = ESMIO_FLOAT;
  int64_t n = 1;
  for (std::size_t d = record ? 1 : 0; d < l.len.size(); ++d) n *= l.len[d];
  l.record_size = record_size > 0 ? record_size : n * 4;
  return l;
}

// Every element of the box, by brute force: its file offset and its index in the buffer.
std::vector<int64_t> element_offsets(const VarLayout &l, const std::vector<int64_t> &start,
                                     const std::vector<int64_t> &count) {
  std::vector<int64_t> out, at(start.size(), 0);
  const std::size_t nd = start.size();
  int64_t total = 1;
  for (int64_t c : count) total *= c;
  for (int64_t k = 0; k < total; ++k) {
    int64_t rest = k;
    for (std::size_t d = nd; d-- > 0;) {
      at[d] = start[d] + rest % count[d];
      rest /= count[d];
    }
    int64_t linear = 0;
    for (std::size_t d = l.record ? 1 : 0; d < nd; ++d) linear = linear * l.len[d] + at[d];
    out.push_back(l.offset(l.record ? at[0] : 0, linear));
  }
  return out;
}

void expect_runs_cover(const VarLayout &l, const std::vector<int64_t> &start,
                       const std::vector<int64_t> &count, std::size_t expected_runs) {
  std::vector<char> buffer(4096 * 4);
  std::vector<FileRun> runs;
  box_runs(l, start.data(), count.data(), buffer.data(), &runs);
  EXPECT_EQ(runs.size(), expected_runs);
  // Unrolled element by element, the runs must name the same offsets in buffer order.
  std::vector<int64_t> got;
  const char *next = buffer.data();
  for (const FileRun &r : runs) {
    EXPECT_EQ(r.data, next);  // buffer order, no gaps
    EXPECT_EQ(r.esize, 4);
    for (int64_t b = 0; b < r.bytes; b += 4) got.push_back(r.offset + b);
    next += r.bytes;
  }
  EXPECT_EQ(got, element_offsets(l, start, count));
}

}  // namespace

TEST(BoxRuns, FullTrailingDimensionsJoinOneRun) {
  const VarLayout l = layout(false, {10, 20, 30});
  expect_runs_cover(l, {2, 0, 0}, {3, 20, 30}, 1);  // whole planes: one run
  expect_runs_cover(l, {2, 5, 0}, {3, 4, 30}, 3);   // one run per plane
  expect_runs_cover(l, {2, 5, 7}, {3, 4, 6}, 12);   // one run per row
  expect_runs_cover(l, {9, 19, 29}, {1, 1, 1}, 1);  // the last element
}

TEST(BoxRuns, RecordVariablesRunPerRecord) {
  // Two record variables interleaved: each record of this one is 600 bytes of 1000.
  const VarLayout l = layout(true, {0, 10, 15}, 2000, 1000);
  expect_runs_cover(l, {3, 0, 0}, {2, 10, 15}, 2);
  expect_runs_cover(l, {0, 4, 3}, {3, 2, 5}, 6);
  const VarLayout series = layout(true, {0}, 64, 8);  // a time series: one value per record
  expect_runs_cover(series, {5}, {3}, 3);
}

TEST(BoxRuns, EmptyBoxesAndScalars) {
  const VarLayout l = layout(false, {10, 20});
  std::vector<FileRun> runs;
  const int64_t start[2] = {0, 0}, none[2] = {0, 5};
  char buffer[4];
  box_runs(l, start, none, buffer, &runs);
  EXPECT_TRUE(runs.empty());
  const VarLayout scalar = layout(false, {}, 500);
  box_runs(scalar, nullptr, nullptr, buffer, &runs);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].offset, 500);
  EXPECT_EQ(runs[0].bytes, 4);
}

TEST(BigEndian, EveryElementSize) {
  const unsigned char src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  unsigned char dst[8];
  esmio::backend::pnetcdf::copy_to_big_endian(reinterpret_cast<char *>(dst),
                                              reinterpret_cast<const char *>(src), 8, 4);
  const unsigned char four[8] = {4, 3, 2, 1, 8, 7, 6, 5};
  EXPECT_EQ(std::memcmp(dst, four, 8), 0);
  esmio::backend::pnetcdf::copy_to_big_endian(reinterpret_cast<char *>(dst),
                                              reinterpret_cast<const char *>(src), 8, 8);
  const unsigned char eight[8] = {8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_EQ(std::memcmp(dst, eight, 8), 0);
  esmio::backend::pnetcdf::copy_to_big_endian(reinterpret_cast<char *>(dst),
                                              reinterpret_cast<const char *>(src), 8, 2);
  const unsigned char two[8] = {2, 1, 4, 3, 6, 5, 8, 7};
  EXPECT_EQ(std::memcmp(dst, two, 8), 0);
  esmio::backend::pnetcdf::copy_to_big_endian(reinterpret_cast<char *>(dst),
                                              reinterpret_cast<const char *>(src), 8, 1);
  EXPECT_EQ(std::memcmp(dst, src, 8), 0);
}

// Long buffers take the vector path in blocks, then a scalar tail; in place goes through a
// 4 KiB block on the stack; neither may depend on alignment.
TEST(BigEndian, LongUnalignedAndInPlaceBuffersMatchAByteReversal) {
  for (int esize : {2, 4, 8}) {
    for (int64_t n : {int64_t(0), int64_t(1), int64_t(63), int64_t(1000), int64_t(4099)}) {
      const int64_t bytes = n * esize;
      std::vector<char> src(static_cast<std::size_t>(bytes + 1)), dst(src.size()), want(src.size());
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 7 + 3);
      for (int64_t e = 0; e < n; ++e)
        for (int b = 0; b < esize; ++b)
          want[1 + e * esize + b] = src[1 + e * esize + esize - 1 - b];
      // Unaligned: one byte into the buffers.
      esmio::backend::pnetcdf::copy_to_big_endian(dst.data() + 1, src.data() + 1, bytes, esize);
      EXPECT_EQ(std::memcmp(dst.data() + 1, want.data() + 1, static_cast<std::size_t>(bytes)), 0)
          << esize << " " << n;
      esmio::backend::pnetcdf::copy_to_big_endian(src.data() + 1, src.data() + 1, bytes, esize);
      EXPECT_EQ(std::memcmp(src.data() + 1, want.data() + 1, static_cast<std::size_t>(bytes)), 0)
          << "in place " << esize << " " << n;
    }
  }
}

namespace {

struct TempFile {
  std::string path;
  int fd = -1;
  TempFile() {
    char name[] = "/tmp/esmio_direct_XXXXXX";
    fd = mkstemp(name);
    path = name;
  }
  ~TempFile() {
    close(fd);
    unlink(path.c_str());
  }
  std::vector<unsigned char> contents() const {
    std::vector<unsigned char> out(static_cast<std::size_t>(lseek(fd, 0, SEEK_END)));
    EXPECT_EQ(pread(fd, out.data(), out.size(), 0), static_cast<ssize_t>(out.size()));
    return out;
  }
};

}  // namespace

TEST(DirectWriter, WritesBigEndianInFileOrderAcrossTheStagingLimit) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  // Three runs out of order, the middle one larger than the staging buffer, adjacent in the
  // file, and a gap before the last.
  const int64_t big = DirectWriter::kStagingBytes / 4 + 3;  // floats
  std::vector<uint32_t> a(5), b(static_cast<std::size_t>(big)), c(7);
  std::iota(a.begin(), a.end(), 1u);
  std::iota(b.begin(), b.end(), 100u);
  std::iota(c.begin(), c.end(), 0x01020304u);
  std::vector<FileRun> runs = {
      {20 + 4 * 5, reinterpret_cast<const char *>(b.data()), big * 4, 4},
      {20 + 4 * 5 + big * 4 + 12, reinterpret_cast<const char *>(c.data()), 28, 4},
      {20, reinterpret_cast<const char *>(a.data()), 20, 4},
  };
  DirectWriter writer;
  int64_t failed_at = -1;
  ASSERT_EQ(writer.write(file.fd, &runs, &failed_at), 0);
  const std::vector<unsigned char> bytes = file.contents();
  ASSERT_EQ(bytes.size(), static_cast<std::size_t>(20 + 20 + big * 4 + 12 + 28));
  auto be32 = [&](int64_t at) {
    return static_cast<uint32_t>(bytes[at]) << 24 | static_cast<uint32_t>(bytes[at + 1]) << 16 |
           static_cast<uint32_t>(bytes[at + 2]) << 8 | bytes[at + 3];
  };
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(be32(20 + 4 * i), a[i]);
  int64_t wrong = 0;
  for (int64_t i = 0; i < big; ++i) wrong += be32(40 + 4 * i) != b[i];
  EXPECT_EQ(wrong, 0);
  for (int64_t i = 0; i < 7; ++i) EXPECT_EQ(be32(40 + big * 4 + 12 + 4 * i), c[i]);
  for (int64_t i = 0; i < 20; ++i) EXPECT_EQ(bytes[i], 0);  // nothing before the first run
}

TEST(DirectWriter, OverlappingRunsKeepTheirOrder) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  const uint32_t first[4] = {1, 1, 1, 1}, second[2] = {2, 2};
  // The later run starts before the earlier one ends: it must win where they overlap.
  std::vector<FileRun> runs = {{8, reinterpret_cast<const char *>(first), 16, 4},
                               {4, reinterpret_cast<const char *>(second), 8, 4}};
  DirectWriter writer;
  int64_t failed_at = -1;
  ASSERT_EQ(writer.write(file.fd, &runs, &failed_at), 0);
  const std::vector<unsigned char> bytes = file.contents();
  ASSERT_EQ(bytes.size(), 24u);
  EXPECT_EQ(bytes[11], 2);  // 4..11: the second run
  EXPECT_EQ(bytes[15], 1);  // 12..23: the first
  EXPECT_EQ(bytes[23], 1);
}

TEST(DirectWriter, ReportsTheErrnoAndWhere) {
  const int fd = open("/dev/null", O_RDONLY);
  ASSERT_GE(fd, 0);
  const uint32_t v[2] = {1, 2};
  std::vector<FileRun> runs = {{4096, reinterpret_cast<const char *>(v), 8, 4}};
  DirectWriter writer;
  int64_t failed_at = -1;
  EXPECT_EQ(writer.write(fd, &runs, &failed_at), EBADF);
  EXPECT_EQ(failed_at, 4096);
  close(fd);
}

TEST(DirectWriter, HandsWrittenStretchesToTheDiskEarly) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  // 10 MiB in one contiguous run, then a run after a gap: the contiguous bytes go to the disk
  // in stretches of kWritebackBytes, the rest of them and the lone run each in one more.
  const int64_t n = (int64_t(10) << 20) / 4;
  std::vector<uint32_t> big(static_cast<std::size_t>(n), 7u), lone(16, 9u);
  std::vector<FileRun> runs = {
      {0, reinterpret_cast<const char *>(big.data()), n * 4, 4},
      {n * 4 + 4096, reinterpret_cast<const char *>(lone.data()), 64, 4},
  };
  DirectWriter writer;
  int64_t failed_at = -1;
  ASSERT_EQ(writer.write(file.fd, &runs, &failed_at), 0);
  const int64_t full = (n * 4) / DirectWriter::kWritebackBytes;  // 2
  EXPECT_EQ(writer.writebacks_started(), full + 2);
  EXPECT_EQ(writer.writeback_bytes(), n * 4 + 64);
  EXPECT_EQ(file.contents().size(), static_cast<std::size_t>(n * 4 + 4096 + 64));

  // writeback=sync: nothing is handed over before the fsync.
  DirectWriter waiting;
  waiting.set_early_writeback(false);
  ASSERT_EQ(waiting.write(file.fd, &runs, &failed_at), 0);
  EXPECT_EQ(waiting.writebacks_started(), 0);
  EXPECT_EQ(waiting.writeback_bytes(), 0);
}

TEST(DirectReader, ReadsBackWhatDirectWriterWroteInAnyOrder) {
  TempFile file;
  ASSERT_GE(file.fd, 0);
  // A file of n floats 0, 1, 2, ... (big-endian), written by DirectWriter.
  const int64_t n = 3 * DirectReader::kStagingBytes / 4 + 1000;
  std::vector<float> values(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<float>(i);
  std::vector<FileRun> out = {{0, reinterpret_cast<const char *>(values.data()), n * 4, 4}};
  DirectWriter writer;
  int64_t failed_at = -1;
  ASSERT_EQ(writer.write(file.fd, &out, &failed_at), 0);

  // Runs out of order: short ones close together (read through staging, across its limit),
  // one far away, one long one (read in place), one overlapping another, one past the end.
  struct Want {
    int64_t first;  // element index in the file
    int64_t length;
  };
  std::vector<Want> wants = {{5000, 3},
                             {1, 2},
                             {10, 4},
                             {20000, 1},
                             {n - 10, 10},
                             {12, 6},
                             {100, DirectReader::kDirectBytes / 4 + 5},
                             {n - 2, 4}};
  wants.push_back({200000, DirectReader::kPieceBytes / 2 + 7});  // several pieces in place
  // Short runs 4400 bytes apart, over the rest of the file and past its end.
  for (int64_t k = 0; k < 2000; ++k) wants.push_back({30000 + k * 1100, 7});
  std::vector<std::vector<float>> got;
  std::vector<ReadRun> runs;
  for (const Want &w : wants) got.emplace_back(static_cast<std::size_t>(w.length), -1.0f);
  for (std::size_t k = 0; k < wants.size(); ++k)
    runs.push_back(ReadRun{wants[k].first * 4, reinterpret_cast<char *>(got[k].data()),
                           wants[k].length * 4, 4});
  DirectReader reader;
  ASSERT_EQ(reader.read(file.fd, &runs, &failed_at), 0);
  int64_t wrong = 0;
  for (std::size_t k = 0; k < wants.size(); ++k)
    for (int64_t i = 0; i < wants[k].length; ++i) {
      const int64_t at = wants[k].first + i;
      const float want = at < n ? static_cast<float>(at) : 0.0f;  // past the end: zeros
      wrong += got[k][i] != want;
    }
  EXPECT_EQ(wrong, 0);
}

TEST(DirectReader, ReportsTheErrnoAndWhere) {
  const int fd = open("/dev/null", O_WRONLY);
  ASSERT_GE(fd, 0);
  uint32_t v[2] = {0, 0};
  std::vector<ReadRun> runs = {{4096, reinterpret_cast<char *>(v), 8, 4}};
  DirectReader reader;
  int64_t failed_at = -1;
  EXPECT_EQ(reader.read(fd, &runs, &failed_at), EBADF);
  EXPECT_EQ(failed_at, 4096);
  close(fd);
}
