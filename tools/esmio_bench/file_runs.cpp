// Contiguous runs and hyperslabs; see file_runs.hpp.
#include "file_runs.hpp"

#include <algorithm>

namespace esmio_bench {

std::vector<Run> runs_in_sequence(const std::vector<int64_t> &offsets) {
  std::vector<Run> runs;
  int64_t pos = 0;
  for (int64_t g : offsets) {
    if (g < 0) continue;
    if (!runs.empty() && runs.back().offset + runs.back().length == g)
      ++runs.back().length;
    else
      runs.push_back(Run{g, 1, pos});
    ++pos;
  }
  return runs;
}

void run_to_hyperslabs(const std::vector<int64_t> &shape, int64_t offset, int64_t length,
                       std::vector<int64_t> *starts, std::vector<int64_t> *counts) {
  const std::size_t n = shape.size();
  std::vector<int64_t> stride(n, 1);
  for (std::size_t i = n - 1; i-- > 0;) stride[i] = stride[i + 1] * shape[i + 1];
  int64_t a = offset;
  const int64_t end = offset + length;
  while (a < end) {
    // The slowest dimension i such that a starts a whole block of stride[i] elements and at
    // least one such block fits: take as many of those blocks as fit along dimension i.
    std::size_t i = 0;
    while (i < n && (a % stride[i] != 0 || stride[i] > end - a)) ++i;
    const int64_t coord_i = (a / stride[i]) % shape[i];
    const int64_t blocks = std::min((end - a) / stride[i], shape[i] - coord_i);
    for (std::size_t d = 0; d < n; ++d) {
      starts->push_back((a / stride[d]) % shape[d]);
      counts->push_back(d < i ? 1 : d == i ? blocks : shape[d]);
    }
    a += blocks * stride[i];
  }
}

}  // namespace esmio_bench
