#include "common/agree.hpp"

#include <string>

namespace esmio {

Status agree(MPI_Comm comm, const Status &local) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Errors rank by 2*code (all <= -2); ERANGE by -1, after every error but before success.
  const int code = local.code();
  struct {
    int key;
    int rank;
  } in{code == ESMIO_ERANGE ? -1 : 2 * code, rank}, out{0, 0};
  if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
    return Status(ESMIO_EMPI, "error agreement: MPI_Allreduce failed");
  if (out.key == 0) return Status::ok();
  const int agreed = out.key == -1 ? ESMIO_ERANGE : out.key / 2;
  std::string message = rank == out.rank ? local.message() : std::string();
  int len = static_cast<int>(message.size());
  MPI_Bcast(&len, 1, MPI_INT, out.rank, comm);
  message.resize(static_cast<std::size_t>(len));
  MPI_Bcast(message.data(), len, MPI_CHAR, out.rank, comm);
  return Status(agreed, message);
}

}  // namespace esmio
