// Summaries over repeats: min, median, max (the median of an even count is the mean of the
// middle two). Medians, not means: one disturbed repeat on a shared machine must not move it.
#pragma once

#include <vector>

namespace esmio_bench {

struct Summary {
  double min = 0, median = 0, max = 0;
};

Summary summarize(std::vector<double> values);

}  // namespace esmio_bench
