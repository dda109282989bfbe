#include "common/agree.hpp"

#include <string>

namespace esmio {

Status agree(MPI_Comm comm, const Status &local) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  struct {
    int code;
    int rank;
  } in{local.code(), rank}, out{0, 0};
  if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
    return Status(ESMIO_EMPI, "error agreement: MPI_Allreduce failed");
  if (out.code == ESMIO_NOERR) return Status::ok();
  std::string message = rank == out.rank ? local.message() : std::string();
  int len = static_cast<int>(message.size());
  MPI_Bcast(&len, 1, MPI_INT, out.rank, comm);
  message.resize(static_cast<std::size_t>(len));
  MPI_Bcast(message.data(), len, MPI_CHAR, out.rank, comm);
  return Status(out.code, message);
}

}  // namespace esmio
