// Error agreement: every rank returns the same code and message; a real error on any rank wins
// over ESMIO_ERANGE (data written) on another; among equals the lowest rank's message is kept.
#include <cstdio>
#include <string>

#include "common/agree.hpp"

using esmio::Status;

namespace {
int rank = 0, nranks = 1, failures = 0;

void expect(const Status &got, int code, const std::string &message, const char *what) {
  if (got.code() != code || got.message() != message) {
    ++failures;
    std::fprintf(stderr, "[rank %d] FAIL %s: got %d '%s', want %d '%s'\n", rank, what, got.code(),
                 got.message().c_str(), code, message.c_str());
  }
}
}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const int last = nranks - 1;
  expect(esmio::agree(MPI_COMM_WORLD, Status()), ESMIO_NOERR, "", "all fine");

  Status s = rank == last ? Status(ESMIO_EIO, "disk full on " + std::to_string(rank)) : Status();
  expect(esmio::agree(MPI_COMM_WORLD, s), ESMIO_EIO, "disk full on " + std::to_string(last),
         "one failing rank");

  s = Status(ESMIO_ERANGE, "range " + std::to_string(rank));
  if (rank == last && nranks > 1) s = Status(ESMIO_EINVAL, "invalid");
  expect(esmio::agree(MPI_COMM_WORLD, s), nranks > 1 ? ESMIO_EINVAL : ESMIO_ERANGE,
         nranks > 1 ? "invalid" : "range 0", "an error beats ERANGE");

  s = rank >= 1 ? Status(ESMIO_ERANGE, "range " + std::to_string(rank)) : Status();
  if (nranks > 1)
    expect(esmio::agree(MPI_COMM_WORLD, s), ESMIO_ERANGE, "range 1", "lowest ERANGE rank");

  s = Status(rank % 2 ? ESMIO_EBACKEND : ESMIO_EINVAL, "code from " + std::to_string(rank));
  expect(esmio::agree(MPI_COMM_WORLD, s), nranks > 1 ? ESMIO_EBACKEND : ESMIO_EINVAL,
         nranks > 1 ? "code from 1" : "code from 0", "most negative code");

  // Digests compared in the same allreduce: the last rank's call differs.
  const auto words = [] { return std::string("call ") + std::to_string(rank == 0 ? 0 : 1); };
  Status m = esmio::agree_call(MPI_COMM_WORLD, Status(), rank == last ? 7 : 5, words);
  if (nranks > 1) {
    const std::string want = "ranks disagree on a collective call: rank 0: call 0; rank " +
                             std::to_string(last) + ": call 1 (1 of " + std::to_string(nranks) +
                             " ranks differ from rank 0: " + std::to_string(last) + ")";
    expect(m, ESMIO_EMISMATCH, want, "digests differ");
    // A rank inside another call's agreement (digest 0) meets the mismatch too.
    m = rank == last ? esmio::agree(MPI_COMM_WORLD, Status())
                     : esmio::agree_call(MPI_COMM_WORLD, Status(ESMIO_EIO, "x"), 9, words);
    expect(m, ESMIO_EMISMATCH,
           "ranks disagree on a collective call: rank 0: call 0; rank " + std::to_string(last) +
               ": another esmio call's internal agreement (1 of " + std::to_string(nranks) +
               " ranks differ from rank 0: " + std::to_string(last) + ")",
           "inner agreement meets a call");
  } else {
    expect(m, ESMIO_NOERR, "", "one rank agrees with itself");
  }

  // Checked digests (values behind a pointer) are compared among the ranks whose checks passed.
  m = esmio::agree_checked_call(MPI_COMM_WORLD, Status(), 5, rank == last ? 13 : 11, words);
  if (nranks > 1)
    expect(m, ESMIO_EMISMATCH,
           "ranks disagree on a collective call: rank 0: call 0; rank " + std::to_string(last) +
               ": call 1 (1 of " + std::to_string(nranks) +
               " ranks differ from rank 0: " + std::to_string(last) + ")",
           "checked digests differ");
  else
    expect(m, ESMIO_NOERR, "", "one rank's checked digest");
  // A rank whose checks failed could not read its values: its own error reaches every rank.
  s = rank == last ? Status(ESMIO_EINVAL, "null buffer on " + std::to_string(rank)) : Status();
  m = esmio::agree_checked_call(MPI_COMM_WORLD, s, 5, rank == last ? 0 : 11, words);
  expect(m, ESMIO_EINVAL, "null buffer on " + std::to_string(last), "a refusing rank's own error");
  // Every rank refused: no values to compare.
  m = esmio::agree_checked_call(MPI_COMM_WORLD, Status(ESMIO_EINVAL, "all"), 5, 0, words);
  expect(m, ESMIO_EINVAL, "all", "every rank refused");
  // Its other arguments still count: a refusing rank in another call is a disagreement.
  m = esmio::agree_checked_call(MPI_COMM_WORLD, s, rank == last ? 7 : 5, rank == last ? 0 : 11,
                                words);
  if (nranks > 1)
    expect(m, ESMIO_EMISMATCH,
           "ranks disagree on a collective call: rank 0: call 0; rank " + std::to_string(last) +
               ": call 1 (1 of " + std::to_string(nranks) +
               " ranks differ from rank 0: " + std::to_string(last) + ")",
           "a refusing rank's arguments differ");

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("test_agree on %d ranks: %s\n", nranks, total ? "FAILED" : "passed");
  MPI_Finalize();
  return total ? 1 : 0;
}
