// esmio's own trace counters (esmio.h) as the phases of a measurement: seconds per boundary
// of the data path, max over ranks, and the request-size histogram summed over ranks.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "context.hpp"

namespace esmio_bench {

// Zeroes esmio's counters on this rank (call before each measured write or read).
void reset_trace(Context &ctx);
// Collective: adds "<counter>" entries (max over ranks of this rank's seconds) to *phases on
// rank 0 for the counters of a write (or a read), and the histogram summed over ranks.
void collect_trace(Context &ctx, bool write, std::map<std::string, double> *phases,
                   std::vector<int64_t> *histogram);

}  // namespace esmio_bench
