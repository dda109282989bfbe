// Bands of a record for the netCDF-4 write of a filtered variable: pure index arithmetic.
//
// HDF5 (1.10) writes a filtered dataset in collective calls only, and each call lasts as long
// as its slowest rank's compression. An I/O task's share of a record from the box layout is a
// linear range of the record: up to three boxes (the end of one level, whole levels, the start
// of another), so three calls, each waiting for the task with the most of that kind of box.
// Regrouped into bands, each task holds one box: a range of whole chunks along one dimension
// and the whole record along the others, so one call per record in which every task
// compresses its share at once, and no chunk is shared by two tasks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace esmio::backend::netcdf4 {

// A box of the variable: start and count per dimension (record dimension included).
struct BandBox {
  std::vector<int64_t> start, count;
  int64_t elements() const;
};

// How a record is cut into bands: along dimension dim, task t holds indices [bounds[t],
// bounds[t+1]) (whole chunks; empty for tasks beyond the chunks there are).
struct BandPlan {
  std::size_t dim = 0;
  std::vector<int64_t> bounds;  // ntasks + 1 entries
  // The band of task t in record `record` (shape: the variable's dimensions, the record one
  // first if record_dims is 1); count 0 along dim if the task holds none.
  BandBox band(const std::vector<int64_t> &shape, std::size_t record_dims, int64_t record,
               int task) const;
};

// The bands of one record of a variable of the given shape and chunk shape (both with the
// record dimension first when record_dims is 1), over ntasks tasks: along the first dimension
// after the record one with at least ntasks chunks, else the one with the most; the chunks
// along it dealt out in contiguous, balanced ranges. false if no dimension has two chunks
// (nothing to spread).
bool plan_bands(const std::vector<int64_t> &shape, const std::vector<int64_t> &chunks,
                std::size_t record_dims, int ntasks, BandPlan *out);

// The intersection of a and b; false if it is empty.
bool intersect(const BandBox &a, const BandBox &b, BandBox *out);

// Copies the elements of region (inside both boxes) from src, laid out as src_box in C order,
// into dst, laid out as dst_box in C order. esize: bytes per element.
void copy_region(const unsigned char *src, const BandBox &src_box, unsigned char *dst,
                 const BandBox &dst_box, const BandBox &region, std::size_t esize);

}  // namespace esmio::backend::netcdf4
