#include "async/mpi_status.hpp"

#include <string>

namespace esmio::async {

Status mpi_status(int rc, const char *call, const char *what) {
  if (rc == MPI_SUCCESS) return Status::ok();
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  return Status(
      ESMIO_EMPI,
      std::string(call) + " (" + what + ") failed with MPI error " + std::to_string(rc) +
          (len > 0 ? ": " + std::string(text, static_cast<std::size_t>(len)) : std::string()));
}

}  // namespace esmio::async
