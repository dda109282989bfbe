#include "async/polite_wait.hpp"

#include <time.h>

#include <algorithm>

namespace esmio::async {

namespace {

// Polls without pause for this long first. It must be longer than the shortest sleep really
// takes (50 us asked is 100-150 us on the development VM): else in a ping-pong of small calls
// each side would find the other asleep and sleep in turn, for good (measured: 0.4 ms per
// round trip with 50 us here, 3 ms with pauses that doubled; 15-26 us with 300 us).
constexpr long kSpinNs = 300'000;
// Then each pause is a quarter of the time waited so far: a wait ends at most 25 % late, and
// lateness on one side shrinks on the way back and forth instead of growing. At least 50 us;
// at most 1 ms, or in a long wait (a compute phase) 1 % of the time waited, up to 20 ms. A wake
// costs 20-60 us of CPU on a virtual machine (measured on the development VM, the last with
// esmio's windows): 2-6 % of a core at 1 ms; an idle server measured 0.15 % at 20 ms.
constexpr long kShare = 4;
constexpr long kFirstNapNs = 50'000;
constexpr long kShortCapNs = 1'000'000;
constexpr long kLongCapNs = 20'000'000;
constexpr long kCapFraction = 100;

long now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1'000'000'000L + t.tv_nsec;
}

// Polls done(&finished) until it sets finished: without pause for kSpinNs, then with pauses.
template <typename Poll>
int wait_politely(Poll &&done) {
  int flag = 0, rc = MPI_SUCCESS;
  const long start = now_ns();
  do {
    rc = done(&flag);
    if (rc != MPI_SUCCESS || flag) return rc;
  } while (now_ns() - start < kSpinNs);
  for (;;) {
    const long waited = now_ns() - start;
    const long cap = std::clamp(waited / kCapFraction, kShortCapNs, kLongCapNs);
    const timespec pause{0, std::clamp(waited / kShare, kFirstNapNs, cap)};
    nanosleep(&pause, nullptr);
    rc = done(&flag);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
}

}  // namespace

int polite_probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  return wait_politely([&](int *flag) { return MPI_Iprobe(source, tag, comm, flag, status); });
}

void polite_wait_until(const std::function<bool()> &ready) {
  wait_politely([&](int *flag) {
    *flag = ready() ? 1 : 0;
    return MPI_SUCCESS;
  });
}

}  // namespace esmio::async
