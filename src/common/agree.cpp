#include "common/agree.hpp"

#include <string>

namespace esmio {

namespace {

// Errors rank by 2*code (all <= -2); ERANGE by -1, after every error but before success.
int64_t key_of(const Status &local) {
  const int code = local.code();
  return code == ESMIO_ERANGE ? -1 : 2 * static_cast<int64_t>(code);
}

// The agreed status from the winning key and rank: its message broadcast from that rank.
Status outcome(MPI_Comm comm, int rank, const Status &local, int64_t key, int from) {
  if (key == 0) return Status::ok();
  const int agreed = key == -1 ? ESMIO_ERANGE : static_cast<int>(key / 2);
  std::string message = rank == from ? local.message() : std::string();
  int len = static_cast<int>(message.size());
  MPI_Bcast(&len, 1, MPI_INT, from, comm);
  message.resize(static_cast<std::size_t>(len));
  MPI_Bcast(message.data(), len, MPI_CHAR, from, comm);
  return Status(agreed, message);
}

}  // namespace

Status agree(MPI_Comm comm, const Status &local) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  struct {
    int key;
    int rank;
  } in{static_cast<int>(key_of(local)), rank}, out{0, 0};
  if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
    return Status(ESMIO_EMPI, "error agreement: MPI_Allreduce failed");
  return outcome(comm, rank, local, out.key, out.rank);
}

Status agree(MPI_Comm comm, const Status &local, bool flag, bool *any_flag) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // key * 2^32 + rank orders by key, then rank: MPI_MIN gives MINLOC; -flag gives "any".
  const int64_t in[2] = {key_of(local) * (int64_t(1) << 32) + rank, flag ? -1 : 0};
  int64_t out[2] = {0, 0};
  if (MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MIN, comm) != MPI_SUCCESS)
    return Status(ESMIO_EMPI, "error agreement: MPI_Allreduce failed");
  *any_flag = out[1] != 0;
  const int64_t key = out[0] >= 0 ? 0 : -((-out[0] + (int64_t(1) << 32) - 1) >> 32);
  const int from = static_cast<int>(out[0] - key * (int64_t(1) << 32));
  return outcome(comm, rank, local, key, from);
}

}  // namespace esmio
