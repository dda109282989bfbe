// Point-to-point exchange of byte segments: the one MPI data movement of the rearrangement.
// Every receive is posted before anything waits, so no ordering of ranks can deadlock; sends
// are throttled to max_outstanding in flight; segments longer than max_message are split into
// several messages (MPI counts are 32-bit), matched in order.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "common/status.hpp"

namespace esmio::rearrange {

struct SendSegment {
  int rank;
  const void *data;
  int64_t bytes;
};

struct RecvSegment {
  int rank;
  void *data;
  int64_t bytes;
};

struct ExchangeLimits {
  int64_t max_message = int64_t(256) << 20;
  int max_outstanding = 64;
};

// Collective in the sense that every rank named as a peer must call it with the matching
// segment; ranks with no segments may return at once. Zero-byte segments are skipped on both
// sides, so peers must agree on sizes (plans guarantee it).
Status exchange(MPI_Comm comm, const std::vector<SendSegment> &sends,
                const std::vector<RecvSegment> &recvs, const ExchangeLimits &limits);

}  // namespace esmio::rearrange
