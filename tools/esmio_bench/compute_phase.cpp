// The model's compute phase: plain arithmetic or sleep. Deliberately no MPI and no esmio header
// here (see compute_phase.hpp): the compiler would reject any call to either.
#include "compute_phase.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace esmio_bench {

namespace {

using Clock = std::chrono::steady_clock;

// One pass over the array: a damped update that stays near 0.7 (no overflow, no denormals, so
// every pass costs the same), with a division and a square root to keep the FPU busy. 32 KiB:
// it runs from the core's own cache and measures a core, not memory bandwidth.
double one_pass(std::vector<double> &a) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i];
    a[i] = 0.5 * x + 0.5 / (1.0 + x * x) + 1e-3 * std::sqrt(x * x + 1.0);
    sum += a[i];
  }
  return sum;
}

}  // namespace

ComputePhase calibrate_compute_phase(double seconds, bool busy, std::vector<double> *scratch) {
  ComputePhase phase;
  phase.busy = busy;
  phase.seconds = seconds;
  if (!busy || seconds <= 0) return phase;
  if (scratch->empty()) scratch->assign(4096, 1.0);
  one_pass(*scratch);  // first touch and warm caches outside the measurement
  const double span = std::max(seconds, 0.5);
  const auto start = Clock::now();
  long long done = 0;
  double elapsed = 0;
  while (elapsed < span) {
    for (int i = 0; i < 64; ++i) one_pass(*scratch);
    done += 64;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  phase.passes = std::max(1LL, std::llround(static_cast<double>(done) * seconds / elapsed));
  return phase;
}

double run_compute_phase(const ComputePhase &phase, std::vector<double> *scratch) {
  if (!phase.busy) {
    std::this_thread::sleep_for(std::chrono::duration<double>(phase.seconds));
    return 0;
  }
  double sum = 0;
  for (long long p = 0; p < phase.passes; ++p) sum += one_pass(*scratch);
  return sum;
}

}  // namespace esmio_bench
