#include "async/polite_wait.hpp"

#include <time.h>

#include <algorithm>

namespace esmio::async {

namespace {

// Polls without pause for this long before the first sleep.
constexpr long kSpinNs = 50'000;
// The first sleep; each pause doubles, up to 1 ms, or 1 % of the time waited so far once that is
// more (a long wait: a compute phase), but never more than 10 ms. A wake costs 20-30 us of CPU on
// a virtual machine (measured on the development VM, sleep alone): at 1 ms that is 2-3 % of a
// core, at 10 ms 0.3 %.
constexpr long kFirstNapNs = 50'000;
constexpr long kShortCapNs = 1'000'000;
constexpr long kLongCapNs = 10'000'000;
constexpr long kCapFraction = 100;

long now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1'000'000'000L + t.tv_nsec;
}

}  // namespace

int polite_probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  int flag = 0;
  int rc = MPI_Iprobe(source, tag, comm, &flag, status);
  if (rc != MPI_SUCCESS || flag) return rc;
  const long start = now_ns();
  do {
    rc = MPI_Iprobe(source, tag, comm, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
  } while (now_ns() - start < kSpinNs);
  long nap = kFirstNapNs;
  for (;;) {
    const timespec pause{0, nap};
    nanosleep(&pause, nullptr);
    rc = MPI_Iprobe(source, tag, comm, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    const long cap = std::clamp((now_ns() - start) / kCapFraction, kShortCapNs, kLongCapNs);
    nap = std::min(2 * nap, cap);
  }
}

}  // namespace esmio::async
