// The exchange that regroups one record of a variable from the I/O tasks' linear ranges into
// bands (band_regroup.hpp): one MPI_Alltoall of sizes and one MPI_Alltoallv of the boxes and
// their values among the I/O tasks.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "backend/netcdf4/band_regroup.hpp"
#include "common/status.hpp"

namespace esmio::backend::netcdf4 {

// A box of values this task holds, in C order.
struct BandPiece {
  BandBox box;
  const unsigned char *data;
};

// Buffers reused from one exchange to the next: the hot path allocates only as records grow.
struct BandScratch {
  std::vector<unsigned char> send, recv;
  std::vector<int> send_bytes, recv_bytes, send_at, recv_at;
};

// Collective over comm (the I/O tasks, task = rank): every task's pieces of record `record`
// (together the whole record, each element once) moved into the bands of plan. On return
// *band is this task's band (count 0 along plan.dim if it holds none) and *values its elements
// in C order. The bytes one task sends another must fit an int (the caller checks the record).
Status exchange_into_bands(MPI_Comm comm, const BandPlan &plan, const std::vector<int64_t> &shape,
                           std::size_t record_dims, int64_t record,
                           const std::vector<BandPiece> &mine, std::size_t esize,
                           std::vector<unsigned char> *values, BandBox *band, BandScratch *scratch);

}  // namespace esmio::backend::netcdf4
