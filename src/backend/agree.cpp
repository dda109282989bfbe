#include "backend/agree.hpp"

#include <string>
#include <utility>

namespace esmio::backend {

Status agree(MPI_Comm comm, const Status &local) {
  int rank = 0;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) {
    return Status(ESMIO_EMPI, "MPI_Comm_rank failed while agreeing on a status");
  }
  // MINLOC on (ok ? 1 : 0, rank) finds the lowest failing rank in one reduction; a reduction
  // on the code alone would pick the most negative code, whose rank nobody would know.
  struct {
    int failed_is_zero;
    int rank;
  } in{local.is_ok() ? 1 : 0, rank}, out{1, 0};
  if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS) {
    return Status(ESMIO_EMPI, "MPI_Allreduce failed while agreeing on a status");
  }
  if (out.failed_is_zero == 1) return Status::ok();

  const int root = out.rank;
  // The message travels with its length so that no rank needs a fixed-size buffer.
  long long header[2] = {local.code(), static_cast<long long>(local.message().size())};
  if (MPI_Bcast(header, 2, MPI_LONG_LONG, root, comm) != MPI_SUCCESS) {
    return Status(ESMIO_EMPI, "MPI_Bcast failed while agreeing on a status");
  }
  std::string message = rank == root ? local.message() : std::string(header[1], '\0');
  if (header[1] > 0 &&
      MPI_Bcast(message.data(), static_cast<int>(header[1]), MPI_CHAR, root, comm) != MPI_SUCCESS) {
    return Status(ESMIO_EMPI, "MPI_Bcast failed while agreeing on a status");
  }
  return Status(static_cast<int>(header[0]), std::move(message));
}

}  // namespace esmio::backend
