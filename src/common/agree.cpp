#include "common/agree.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "common/call_words.hpp"

namespace esmio {

namespace {

// Errors rank by 2*code (all <= -2); ERANGE by -1, after every error but before success.
int64_t key_of(const Status &local) {
  const int code = local.code();
  return code == ESMIO_ERANGE ? -1 : 2 * static_cast<int64_t>(code);
}

std::string broadcast(MPI_Comm comm, int root, const std::string &text) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string out = rank == root ? text : std::string();
  int len = static_cast<int>(out.size());
  MPI_Bcast(&len, 1, MPI_INT, root, comm);
  out.resize(static_cast<std::size_t>(len));
  if (len > 0) MPI_Bcast(out.data(), len, MPI_CHAR, root, comm);
  return out;
}

}  // namespace

Votes vote(MPI_Comm comm, const Status &local, uint64_t digest, bool flag, uint64_t checked) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // key * 2^32 + rank orders by key, then rank: MPI_MIN gives MINLOC; -flag gives "any";
  // the digest (63 bits) and its negation give its minimum and maximum; so does the checked
  // digest, where a rank whose checks failed gives the largest value twice: no part in it.
  const int64_t d = static_cast<int64_t>(digest >> 1);
  const bool refused = key_of(local) < -1;
  const int64_t c = refused ? INT64_MAX : static_cast<int64_t>(checked >> 1);
  const int64_t in[6] = {
      key_of(local) * (int64_t(1) << 32) + rank, flag ? -1 : 0, d, -d, c, refused ? INT64_MAX : -c};
  int64_t out[6] = {0, 0, 0, 0, 0, 0};
  Votes votes;
  if (MPI_Allreduce(in, out, 6, MPI_INT64_T, MPI_MIN, comm) != MPI_SUCCESS) {
    votes.mpi_failed = true;
    return votes;
  }
  votes.any_flag = out[1] != 0;
  const bool every_rank_refused = out[4] == INT64_MAX && out[5] == INT64_MAX;
  votes.mismatch = out[2] != -out[3] || (!every_rank_refused && out[4] != -out[5]);
  votes.key = out[0] >= 0 ? 0 : -((-out[0] + (int64_t(1) << 32) - 1) >> 32);
  votes.from = static_cast<int>(out[0] - votes.key * (int64_t(1) << 32));
  return votes;
}

Status outcome(MPI_Comm comm, const Status &local, const Votes &votes) {
  if (votes.mpi_failed) return Status(ESMIO_EMPI, "error agreement: MPI_Allreduce failed");
  if (votes.key == 0) return Status::ok();
  const int agreed = votes.key == -1 ? ESMIO_ERANGE : static_cast<int>(votes.key / 2);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return Status(agreed,
                broadcast(comm, votes.from, rank == votes.from ? local.message() : std::string()));
}

uint64_t combined_digest(uint64_t digest, uint64_t checked) {
  if (checked == 0) return digest;
  uint64_t x = digest ^ (checked + 0x9e3779b97f4a7c15ull + (digest << 6) + (digest >> 2));
  return x == 0 ? 1 : x;
}

Status mismatch(MPI_Comm comm, uint64_t digest, const std::string &description) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  // The rare path: every rank's digest, so that the message can name the ranks that differ.
  std::vector<uint64_t> all(static_cast<std::size_t>(nranks));
  MPI_Allgather(&digest, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm);
  std::vector<int> differ;
  for (int r = 1; r < nranks; ++r)
    if (all[r] != all[0]) differ.push_back(r);
  const int other = differ.empty() ? 0 : differ.front();
  const auto text = [&](uint64_t d, const std::string &words) {
    return d == 0 ? std::string("another esmio call's internal agreement") : words;
  };
  const std::string first = broadcast(comm, 0, text(digest, description));
  const std::string second = broadcast(comm, other, text(digest, description));
  std::string ranks;
  const std::size_t shown = std::min<std::size_t>(differ.size(), 16);
  for (std::size_t i = 0; i < shown; ++i) ranks += (i ? "," : "") + std::to_string(differ[i]);
  if (shown < differ.size()) ranks += ",...";
  return Status(ESMIO_EMISMATCH,
                "ranks disagree on a collective call: " + contrast(0, first, other, second) + " (" +
                    std::to_string(differ.size()) + " of " + std::to_string(nranks) +
                    " ranks differ from rank 0: " + ranks + ")");
}

Status agree(MPI_Comm comm, const Status &local) {
  const Votes votes = vote(comm, local, 0, false);
  // A rank that is at another call's first agreement: join its mismatch path.
  if (votes.mismatch) return mismatch(comm, 0, std::string());
  return outcome(comm, local, votes);
}

Status agree(MPI_Comm comm, const Status &local, bool flag, bool *any_flag) {
  const Votes votes = vote(comm, local, 0, flag);
  *any_flag = votes.any_flag && !votes.mismatch;
  if (votes.mismatch) return mismatch(comm, 0, std::string());
  return outcome(comm, local, votes);
}

}  // namespace esmio
