#include "rearrange/exchange.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace esmio::rearrange {
namespace {

constexpr int kTag = 7301;

Status mpi_error(const char *what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return Status(ESMIO_EMPI, std::string("rearrangement: ") + what +
                                " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

}  // namespace

Status exchange(MPI_Comm comm, const std::vector<SendSegment> &sends,
                const std::vector<RecvSegment> &recvs, const ExchangeLimits &limits) {
  const int64_t max_message =
      std::max<int64_t>(1, std::min<int64_t>(limits.max_message, INT32_MAX));
  const int max_outstanding = std::max(1, limits.max_outstanding);

  // What a rank sends itself is copied, not sent: no message, no matching, no MPI buffering.
  int me = -1;
  MPI_Comm_rank(comm, &me);
  const SendSegment *self_send = nullptr;
  for (const SendSegment &s : sends)
    if (s.rank == me) self_send = &s;
  Status self_status;  // reported after the others' messages: they are on their way
  for (const RecvSegment &r : recvs) {
    if (r.rank != me) continue;
    const int64_t sent = self_send != nullptr ? self_send->bytes : 0;
    if (sent != r.bytes)
      self_status = Status(ESMIO_EMPI, "rearrangement: rank " + std::to_string(me) +
                                           " sends itself " + std::to_string(sent) +
                                           " bytes but expects " + std::to_string(r.bytes));
    else if (r.bytes > 0)
      std::memcpy(r.data, self_send->data, static_cast<std::size_t>(r.bytes));
  }

  std::vector<MPI_Request> requests;
  for (const RecvSegment &r : recvs) {
    if (r.rank == me) continue;
    char *p = static_cast<char *>(r.data);
    for (int64_t done = 0; done < r.bytes; done += max_message) {
      const int n = static_cast<int>(std::min(max_message, r.bytes - done));
      MPI_Request req;
      const int rc = MPI_Irecv(p + done, n, MPI_BYTE, r.rank, kTag, comm, &req);
      if (rc != MPI_SUCCESS) return mpi_error("MPI_Irecv", rc);
      requests.push_back(req);
    }
  }
  const std::size_t nrecv = requests.size();

  // Sends in a bounded window after the receives; the window slots are reused as they finish.
  struct Piece {
    int rank;
    const char *data;
    int bytes;
  };
  std::vector<Piece> pieces;
  for (const SendSegment &s : sends) {
    if (s.rank == me) continue;
    const char *p = static_cast<const char *>(s.data);
    for (int64_t done = 0; done < s.bytes; done += max_message)
      pieces.push_back(
          Piece{s.rank, p + done, static_cast<int>(std::min(max_message, s.bytes - done))});
  }
  std::size_t next = 0;
  const std::size_t window = std::min<std::size_t>(pieces.size(), max_outstanding);
  for (; next < window; ++next) {
    MPI_Request req;
    const int rc = MPI_Isend(pieces[next].data, pieces[next].bytes, MPI_BYTE, pieces[next].rank,
                             kTag, comm, &req);
    if (rc != MPI_SUCCESS) return mpi_error("MPI_Isend", rc);
    requests.push_back(req);
  }
  std::size_t active = requests.size();
  std::vector<int> done_index(requests.size());
  while (active > 0) {
    int ndone = 0;
    const int rc = MPI_Waitsome(static_cast<int>(requests.size()), requests.data(), &ndone,
                                done_index.data(), MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return mpi_error("MPI_Waitsome", rc);
    if (ndone == MPI_UNDEFINED) break;
    active -= static_cast<std::size_t>(ndone);
    for (int k = 0; k < ndone; ++k) {
      const std::size_t i = static_cast<std::size_t>(done_index[k]);
      if (i < nrecv || next >= pieces.size()) continue;
      const int rc2 = MPI_Isend(pieces[next].data, pieces[next].bytes, MPI_BYTE, pieces[next].rank,
                                kTag, comm, &requests[i]);
      if (rc2 != MPI_SUCCESS) return mpi_error("MPI_Isend", rc2);
      ++next;
      ++active;
    }
  }
  return self_status;
}

}  // namespace esmio::rearrange
