// The compute phase of case model-loop: what a model does between two history records.
//
// It makes no MPI call and no esmio call, and cannot: compute_phase.cpp includes neither mpi.h
// nor esmio.h. That is the point of the case. Whatever reaches the I/O servers while a compute
// rank is in here gets there without that rank's help (docs/async.md: the servers pull).
#pragma once

#include <vector>

namespace esmio_bench {

struct ComputePhase {
  bool busy = true;      // arithmetic on one core; false: the rank sleeps (an idle core)
  double seconds = 0;    // the length asked for
  long long passes = 0;  // busy: passes over the scratch array per phase
};

// A busy phase is a fixed amount of work, not a span of wall time: a rank whose core is taken
// by someone else (an I/O server on a shared core) then computes longer, as a model would,
// instead of doing less work in the same time. Its amount is calibrated here: the passes this
// rank completes in `seconds` now (at least 0.5 s measured, scaled). Call it on every compute
// rank at once, so that ranks sharing cores calibrate under the same sharing they run under
// (model-loop then gives every rank the median of their counts: a balanced model).
ComputePhase calibrate_compute_phase(double seconds, bool busy, std::vector<double> *scratch);

// Runs one phase: phase.passes passes of arithmetic over *scratch (busy), or sleeps for
// phase.seconds. Returns a checksum of the arithmetic (so that it cannot be optimised away).
double run_compute_phase(const ComputePhase &phase, std::vector<double> *scratch);

}  // namespace esmio_bench
