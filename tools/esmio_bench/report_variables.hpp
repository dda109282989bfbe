// The per-variable part of the table and the JSON: what each variable of a checked file holds
// against its float32 size, the keepbits esmio chose, and the errors the check found.
#pragma once

#include "bench_json.hpp"
#include "result.hpp"

namespace esmio_bench {

// float32 bytes / stored bytes over every variable of r with a known storage size; 0 if none.
double size_ratio(const Result &r);
// Prints r's per-variable table (write results whose stored sizes are known: netCDF-4 files).
void print_variable_table(const Result &r);
// The JSON array "variables" of r (docs/bench.md, JSON schema).
Json variables_json(const Result &r);

}  // namespace esmio_bench
