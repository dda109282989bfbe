// esmio's own trace counters (esmio.h) as the phases of a measurement: seconds per boundary
// of the data path, max over ranks, and the request-size histogram summed over ranks.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "context.hpp"

namespace esmio_bench {

// Zeroes the counters of esmio's instance io on this rank (call before each measured write or
// read; nothing for a null instance).
void reset_trace(esmio_t io);
// Collective: adds "<counter>" entries (max over ranks of this rank's seconds) to *phases on
// rank 0 for io's counters of a write (or a read), and the histogram summed over ranks.
void collect_trace(Context &ctx, esmio_t io, bool write, std::map<std::string, double> *phases,
                   std::vector<int64_t> *histogram);

}  // namespace esmio_bench
