// The HDF5 superblock's end-of-file address, read without HDF5: versions 0-3, other offset
// sizes, and inputs that are not (or not entirely) a superblock.
#include <gtest/gtest.h>

#include <vector>

#include "backend/netcdf4/hdf5_superblock.hpp"

using esmio::backend::hdf5::end_of_file_address;

namespace {

std::vector<unsigned char> superblock(int version, int offset_size, uint64_t eof) {
  std::vector<unsigned char> b = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  b.resize(96, 0);
  b[8] = static_cast<unsigned char>(version);
  std::size_t at;
  if (version <= 1) {
    b[13] = static_cast<unsigned char>(offset_size);
    b[14] = static_cast<unsigned char>(offset_size);
    at = (version == 0 ? 24 : 28) + 2 * offset_size;
  } else {
    b[9] = static_cast<unsigned char>(offset_size);
    b[10] = static_cast<unsigned char>(offset_size);
    at = 12 + 2 * offset_size;
  }
  for (int i = 0; i < offset_size; ++i) b[at + i] = static_cast<unsigned char>(eof >> (8 * i));
  return b;
}

}  // namespace

TEST(Hdf5Superblock, EveryVersion) {
  for (int version = 0; version <= 3; ++version) {
    auto b = superblock(version, 8, 6224);
    EXPECT_EQ(end_of_file_address(b.data(), b.size()), 6224) << "version " << version;
    b = superblock(version, 4, 123456789);
    EXPECT_EQ(end_of_file_address(b.data(), b.size()), 123456789) << "version " << version;
  }
}

TEST(Hdf5Superblock, RealNetcdf4Header) {
  // The first 36 bytes of a netCDF-4 file written by netCDF-C 4.9 (superblock version 2).
  const unsigned char head[36] = {0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0x02,
                                  0x08, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0x50, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(end_of_file_address(head, sizeof head), 0x1850);
}

TEST(Hdf5Superblock, NotASuperblock) {
  const unsigned char cdf[16] = {'C', 'D', 'F', 5};
  EXPECT_EQ(end_of_file_address(cdf, sizeof cdf), -1);
  auto b = superblock(2, 8, 100);
  EXPECT_EQ(end_of_file_address(b.data(), 20), -1);  // cut before the address
  b[8] = 7;                                          // unknown version
  EXPECT_EQ(end_of_file_address(b.data(), b.size()), -1);
  b = superblock(3, 8, ~uint64_t(0));  // undefined address
  EXPECT_EQ(end_of_file_address(b.data(), b.size()), -1);
  EXPECT_EQ(end_of_file_address(b.data(), 0), -1);
}
