// The two outputs of a run: a table on stdout (rank 0) and the JSON file (docs/bench.md).
#pragma once

#include <string>
#include <vector>

#include "result.hpp"

namespace esmio_bench {

void print_table(const RunInfo &run, const std::vector<Result> &results);
// Returns false (errno set) when the file cannot be written.
bool write_json(const std::string &path, const RunInfo &run, const std::vector<Result> &results);

// Median rate of a against b for the same operation (b's median seconds / a's); 0 if either is
// missing or failed.
double ratio_of_medians(const Result &a, const Result *b);
const Result *find_result(const std::vector<Result> &results, const std::string &operation,
                          const std::string &variant);

}  // namespace esmio_bench
