// The Zstandard HDF5 filter (id 32015): the filter function on its own (format, levels, corrupt
// input), and a netCDF-4 variable written and read back through it in this process.
#include <gtest/gtest.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codec/zstd_filter.hpp"
#include "codec/zstd_h5filter.h"

namespace esmio::codec {
namespace {

// A buffer as HDF5 hands it to a filter: malloc'ed, owned by whoever holds it last.
struct Chunk {
  void *data = nullptr;
  size_t size = 0;

  explicit Chunk(const std::vector<unsigned char> &bytes) : size(bytes.size()) {
    data = std::malloc(size > 0 ? size : 1);
    std::memcpy(data, bytes.data(), size);
  }
  Chunk(const Chunk &) = delete;
  Chunk &operator=(const Chunk &) = delete;
  ~Chunk() { std::free(data); }

  std::vector<unsigned char> bytes(size_t n) const {
    const auto *p = static_cast<const unsigned char *>(data);
    return std::vector<unsigned char>(p, p + n);
  }
};

size_t run_filter(unsigned flags, size_t nelmts, const unsigned *cd, size_t nbytes, Chunk *c) {
  return esmio_h5z_zstd_filter(flags, nelmts, cd, nbytes, &c->size, &c->data);
}

std::vector<unsigned char> sample_bytes(size_t n) {
  std::vector<unsigned char> v(n);
  std::mt19937 rng(7);
  // Few distinct values in runs: compressible, yet not trivially so.
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>((i / 37) % 11 + rng() % 2);
  return v;
}

std::vector<unsigned char> compress(const std::vector<unsigned char> &raw, int level) {
  Chunk c(raw);
  unsigned cd = static_cast<unsigned>(level);
  size_t n = run_filter(0, 1, &cd, raw.size(), &c);
  EXPECT_GT(n, 0u) << "level " << level;
  return c.bytes(n);
}

// Frame_Content_Size is in the header unless its flag is 0 and Single_Segment_flag is clear
// (zstd format, RFC 8878 section 3.1.1.1.1).
bool has_content_size(const std::vector<unsigned char> &frame) {
  unsigned fhd = frame.at(4);
  return (fhd >> 6) != 0 || (fhd & 0x20) != 0;
}

TEST(ZstdFilterFunction, RoundTripsOneFrameWithContentSize) {
  std::vector<unsigned char> raw = sample_bytes(300000);
  std::vector<unsigned char> frame = compress(raw, 5);
  ASSERT_GE(frame.size(), 6u);
  const unsigned char magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
  EXPECT_EQ(std::memcmp(frame.data(), magic, 4), 0);
  EXPECT_TRUE(has_content_size(frame));
  EXPECT_LT(frame.size(), raw.size() / 4);

  Chunk c(frame);
  size_t n = run_filter(H5Z_FLAG_REVERSE, 0, nullptr, frame.size(), &c);
  ASSERT_EQ(n, raw.size());
  EXPECT_GE(c.size, n);
  EXPECT_EQ(c.bytes(n), raw);
}

TEST(ZstdFilterFunction, NoParametersMeansLevelThree) {
  std::vector<unsigned char> raw = sample_bytes(100000);
  Chunk c(raw);
  size_t n = run_filter(0, 0, nullptr, raw.size(), &c);
  ASSERT_GT(n, 0u);
  EXPECT_EQ(c.bytes(n), compress(raw, 3));
  EXPECT_NE(c.bytes(n), compress(raw, 19));
}

TEST(ZstdFilterFunction, NegativeLevelsAreFastLevels) {
  std::vector<unsigned char> raw = sample_bytes(100000);
  std::vector<unsigned char> frame = compress(raw, -5);
  Chunk c(frame);
  size_t n = run_filter(H5Z_FLAG_REVERSE, 0, nullptr, frame.size(), &c);
  ASSERT_EQ(n, raw.size());
  EXPECT_EQ(c.bytes(n), raw);
}

TEST(ZstdFilterFunction, BadLevelFailsAndLeavesBufferAlone) {
  std::vector<unsigned char> raw = sample_bytes(1000);
  for (unsigned level : {23u, 1000u, 0x80000000u}) {
    Chunk c(raw);
    void *before = c.data;
    EXPECT_EQ(run_filter(0, 1, &level, raw.size(), &c), 0u) << "level " << level;
    EXPECT_EQ(c.data, before);
    EXPECT_EQ(c.size, raw.size());
    EXPECT_EQ(c.bytes(raw.size()), raw);
  }
}

TEST(ZstdFilterFunction, CorruptInputFailsWithoutCrashing) {
  std::mt19937 rng(11);
  std::vector<unsigned char> garbage(4096);
  for (auto &b : garbage) b = static_cast<unsigned char>(rng());
  std::vector<unsigned char> frame = compress(sample_bytes(200000), 3);
  std::vector<unsigned char> truncated(frame.begin(), frame.begin() + frame.size() / 2);
  std::vector<unsigned char> header_only(frame.begin(), frame.begin() + 4);
  // A frame header that announces 2^62 bytes and then ends.
  std::vector<unsigned char> huge = {0x28, 0xB5, 0x2F, 0xFD, 0xE0, 0, 0, 0, 0, 0, 0, 0, 0x40};
  std::vector<unsigned char> bad_magic = frame;
  bad_magic[0] ^= 0xFF;

  for (const auto *input : {&garbage, &truncated, &header_only, &huge, &bad_magic}) {
    Chunk c(*input);
    void *before = c.data;
    EXPECT_EQ(run_filter(H5Z_FLAG_REVERSE, 0, nullptr, input->size(), &c), 0u);
    EXPECT_EQ(c.data, before);
    EXPECT_EQ(c.bytes(input->size()), *input);
  }
}

// Frames from writers other than ZSTD_compress: no content size (streaming), and several frames
// in one chunk. Built by hand from RLE blocks so that the output (2 MB) outgrows the first guess.
TEST(ZstdFilterFunction, DecodesFramesWithoutContentSizeAndConcatenated) {
  const uint32_t block = 100000;
  const int nblocks = 20;
  std::vector<unsigned char> frame = {0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38};  // window 128 KiB
  std::vector<unsigned char> expect;
  for (int i = 0; i < nblocks; ++i) {
    uint32_t header = (block << 3) | (1u << 1) | (i == nblocks - 1 ? 1u : 0u);  // RLE block
    frame.push_back(header & 0xFF);
    frame.push_back((header >> 8) & 0xFF);
    frame.push_back((header >> 16) & 0xFF);
    frame.push_back(static_cast<unsigned char>('a' + i));
    expect.insert(expect.end(), block, static_cast<unsigned char>('a' + i));
  }
  ASSERT_FALSE(has_content_size(frame));
  {
    Chunk c(frame);
    size_t n = run_filter(H5Z_FLAG_REVERSE, 0, nullptr, frame.size(), &c);
    ASSERT_EQ(n, expect.size());
    EXPECT_EQ(c.bytes(n), expect);
  }

  std::vector<unsigned char> first = sample_bytes(5000);
  std::vector<unsigned char> both = compress(first, 3);
  both.insert(both.end(), frame.begin(), frame.end());
  first.insert(first.end(), expect.begin(), expect.end());
  Chunk c(both);
  size_t n = run_filter(H5Z_FLAG_REVERSE, 0, nullptr, both.size(), &c);
  ASSERT_EQ(n, first.size());
  EXPECT_EQ(c.bytes(n), first);
}

TEST(ZstdFilter, RegistrationIsIdempotent) {
  Status first = register_zstd_filter();
  ASSERT_TRUE(first.is_ok()) << first.message();
  Status again = register_zstd_filter();
  EXPECT_TRUE(again.is_ok()) << again.message();
  EXPECT_EQ(kZstdFilterId, 32015u);
}

#define NC_OK(call)                                                \
  do {                                                             \
    int rc_ = (call);                                              \
    ASSERT_EQ(rc_, NC_NOERR) << #call << ": " << nc_strerror(rc_); \
  } while (0)

// A model-like field: smooth large scales plus noise, stored to 1/16 as a model's output often
// is after quantisation, so that the low mantissa bits repeat and zstd finds structure.
std::vector<float> field(size_t nz, size_t ny, size_t nx) {
  std::vector<float> v(nz * ny * nx);
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0.0f, 0.5f);
  for (size_t k = 0; k < nz; ++k) {
    for (size_t j = 0; j < ny; ++j) {
      for (size_t i = 0; i < nx; ++i) {
        double s = 250.0 + 30.0 * std::sin(0.05 * j) * std::cos(0.07 * i) - 0.5 * k;
        v[(k * ny + j) * nx + i] = static_cast<float>(std::round((s + noise(rng)) * 16.0) / 16.0);
      }
    }
  }
  return v;
}

TEST(ZstdFilter, NetcdfVariableRoundTripsCompressed) {
  ASSERT_TRUE(register_zstd_filter().is_ok());
  const size_t nz = 64, ny = 128, nx = 128;
  std::vector<float> data = field(nz, ny, nx);
  std::string dir = testing::TempDir() + "esmio_zstd_" + std::to_string(getpid());
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0) << dir;
  std::string path = dir + "/zstd.nc";

  int ncid, varid, dimids[3];
  NC_OK(nc_create(path.c_str(), NC_NETCDF4 | NC_CLOBBER, &ncid));
  NC_OK(nc_def_dim(ncid, "lev", nz, &dimids[0]));
  NC_OK(nc_def_dim(ncid, "lat", ny, &dimids[1]));
  NC_OK(nc_def_dim(ncid, "lon", nx, &dimids[2]));
  NC_OK(nc_def_var(ncid, "T", NC_FLOAT, 3, dimids, &varid));
  const size_t chunks[3] = {8, ny, nx};
  NC_OK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
  const unsigned level = 9;
  NC_OK(nc_def_var_filter(ncid, varid, kZstdFilterId, 1, &level));
  size_t nfilters = 0;
  unsigned ids[8] = {};
  NC_OK(nc_inq_var_filter_ids(ncid, varid, &nfilters, ids));
  ASSERT_EQ(nfilters, 1u);
  EXPECT_EQ(ids[0], kZstdFilterId);
  NC_OK(nc_enddef(ncid));
  // The compression runs through esmio's registered copy, whose tallies the trace reads, even
  // where HDF5_PLUGIN_PATH offers the plugin (unit.test_zstd_filter_plugin_path).
  esmio_h5z_zstd_tally before[2], after[2];
  esmio_h5z_zstd_tallies(before);
  NC_OK(nc_put_var_float(ncid, varid, data.data()));
  NC_OK(nc_close(ncid));
  esmio_h5z_zstd_tallies(after);
  EXPECT_EQ(after[0].calls - before[0].calls, static_cast<long long>(nz / 8))
      << "chunks compressed by esmio's filter";
  EXPECT_EQ(after[0].bytes_in - before[0].bytes_in,
            static_cast<long long>(data.size() * sizeof(float)));

  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  const size_t raw = data.size() * sizeof(float);
  EXPECT_LT(static_cast<size_t>(st.st_size), raw / 2) << "file " << st.st_size << " raw " << raw;
  std::printf("zstd level %u: %zu raw bytes -> %lld file bytes\n", level, raw,
              static_cast<long long>(st.st_size));

  NC_OK(nc_open(path.c_str(), NC_NOWRITE, &ncid));
  NC_OK(nc_inq_varid(ncid, "T", &varid));
  NC_OK(nc_inq_var_filter_ids(ncid, varid, &nfilters, ids));
  ASSERT_EQ(nfilters, 1u);
  EXPECT_EQ(ids[0], kZstdFilterId);
  size_t nparams = 0;
  unsigned params[4] = {};
  NC_OK(nc_inq_var_filter_info(ncid, varid, kZstdFilterId, &nparams, params));
  ASSERT_EQ(nparams, 1u);
  EXPECT_EQ(params[0], level);
  std::vector<float> back(data.size(), -1.0f);
  NC_OK(nc_get_var_float(ncid, varid, back.data()));
  NC_OK(nc_close(ncid));
  EXPECT_EQ(std::memcmp(back.data(), data.data(), raw), 0);

  std::remove(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace esmio::codec
