// What the MPI test programs share: this rank's place, a check that counts failures, a call
// that must succeed, the output directory, and the verdict agreed over all ranks.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "esmio.h"

namespace mpi_check {

inline int rank = 0, nranks = 1, failures = 0;

inline void start(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
}

// An esmio call that must succeed: on failure every rank stops (the test cannot go on).
inline void ok(int rc, const char *what) {
  if (rc != ESMIO_NOERR) {
    std::fprintf(stderr, "[rank %d] %s: %s: %s\n", rank, what, esmio_strerror(rc),
                 esmio_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

inline void check(bool cond, const std::string &what) {
  if (!cond) {
    ++failures;
    std::fprintf(stderr, "[rank %d] FAIL %s\n", rank, what.c_str());
  }
}

// A collective call's outcome: the expected code here, the same code on every rank of comm, and
// (for an error) a message that contains needle.
inline void expect_all(int rc, int want, const std::string &what, const std::string &needle = "",
                       MPI_Comm comm = MPI_COMM_WORLD) {
  const std::string message = esmio_last_error();
  check(rc == want, what + ": returned " + std::to_string(rc) + " (" + esmio_strerror(rc) +
                        "), expected " + std::to_string(want) + ": " + message);
  int lo = 0, hi = 0;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, comm);
  check(lo == hi, what + ": ranks returned different codes");
  if (want != ESMIO_NOERR && !needle.empty())
    check(message.find(needle) != std::string::npos,
          what + ": message does not name '" + needle + "': " + message);
}

// Where test files go: $ESMIO_TEST_OUT, or the current directory.
inline std::string out_dir() {
  const char *dir = std::getenv("ESMIO_TEST_OUT");
  return dir ? dir : ".";
}

// Sums the failures over all ranks, prints the verdict, finalizes MPI; the exit code.
inline int finish(const char *name) {
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s on %d ranks: %s\n", name, nranks, total ? "FAILED" : "passed");
  MPI_Finalize();
  return total ? 1 : 0;
}

}  // namespace mpi_check
