// esmio-bench plan CASE: esmio's rearrangement planning and the write cache's flushes simulated
// at production scale in one process, without MPI: every rank's map is built from a synthetic
// decomposition (synthetic_maps.hpp), planned with the library's own pure planner
// (decomp/plan.hpp), and the I/O tasks' writes placed at their CDF-5 file offsets, to count the
// storage requests each I/O task makes per flush and their sizes. See docs/bench.md, "plan".
#pragma once

#include "options.hpp"

namespace esmio_bench {

// Runs the simulation opt asks for (opt.plan_case, opt.ranks, opt.iotasks, opt.ranks_per_node,
// opt.records, opt.cache, opt.json_path), prints the report; returns the exit status.
int run_plan(const Options &opt);

}  // namespace esmio_bench
