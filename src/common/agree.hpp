// Collective error agreement: every rank returns the same Status. One rank's failure becomes
// everyone's, so no rank goes on into a collective the others have left.
//
// The same allreduce compares what the ranks were asked to do: each passes a digest of its
// call and the call's collective arguments (common/digest.hpp); ranks that differ get
// ESMIO_EMISMATCH on every rank, naming the ranks and the calls, before anything is written.
// Every agreement has the same shape (six int64 in one MPI_MIN allreduce), so two ranks that
// are in different esmio calls meet in the same allreduce and find out, instead of hanging in
// two different collectives.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>

#include "common/status.hpp"

namespace esmio {

// What the one allreduce found.
struct Votes {
  int64_t key = 0;        // the winning error key (0: every rank fine)
  int from = 0;           // the rank whose message wins
  bool any_flag = false;  // some rank raised its flag
  bool mismatch = false;  // the digests differ
  bool mpi_failed = false;
};

// The allreduce itself: collective over comm. digest 0: an agreement inside a call. checked: the
// digest of arguments only a rank whose checks passed can read (values behind a pointer),
// compared among those ranks alone; a rank whose checks failed (an error other than
// ESMIO_ERANGE) takes no part in it, so that its own error, not a disagreement over values it
// could not read, is what every rank gets.
Votes vote(MPI_Comm comm, const Status &local, uint64_t digest, bool flag, uint64_t checked = 0);
// The status the votes agree on (broadcasts the winner's message when there is an error).
Status outcome(MPI_Comm comm, const Status &local, const Votes &votes);
// ESMIO_EMISMATCH naming the ranks whose digest differs from rank 0's and what rank 0 and the
// first of them were doing (descriptions broadcast). A description that is an encoded call or
// call list (common/call_words.hpp) is compared argument by argument, so that the message names
// what differs and both values. Collective; called by every rank when votes.mismatch.
Status mismatch(MPI_Comm comm, uint64_t digest, const std::string &description);
// One digest of a call's arguments and its checked ones, for mismatch() to tell the ranks apart.
uint64_t combined_digest(uint64_t digest, uint64_t checked);

// Collective over comm. The most negative error code wins, except that ESMIO_ERANGE (data
// written, some values as fill) yields to any real error; among equal codes the lowest rank
// wins, and its message is broadcast. Costs one allreduce when every rank is fine.
Status agree(MPI_Comm comm, const Status &local);

// The same, and in the same allreduce whether any rank raised flag (*any_flag).
Status agree(MPI_Comm comm, const Status &local, bool flag, bool *any_flag);

// The agreement at the start of a collective call: as agree(), and the ranks compare digest;
// on a mismatch every rank returns ESMIO_EMISMATCH (it wins over other errors: they are
// likely its consequence). describe() words the call and its arguments (free text, or
// encode() of a CallWords or CallList); it runs only on a mismatch.
template <typename Describe>
Status agree_call(MPI_Comm comm, const Status &local, uint64_t digest, Describe &&describe,
                  bool flag = false, bool *any_flag = nullptr) {
  const Votes votes = vote(comm, local, digest, flag);
  if (any_flag) *any_flag = votes.any_flag && !votes.mismatch;
  if (votes.mismatch) return mismatch(comm, digest, describe());
  return outcome(comm, local, votes);
}

// The same for a call with arguments that only its checks make readable (checked, as for vote():
// 0 where this rank's checks failed). Collective over comm.
template <typename Describe>
Status agree_checked_call(MPI_Comm comm, const Status &local, uint64_t digest, uint64_t checked,
                          Describe &&describe, bool flag = false, bool *any_flag = nullptr) {
  const Votes votes = vote(comm, local, digest, flag, checked);
  if (any_flag) *any_flag = votes.any_flag && !votes.mismatch;
  if (votes.mismatch) return mismatch(comm, combined_digest(digest, checked), describe());
  return outcome(comm, local, votes);
}

}  // namespace esmio
