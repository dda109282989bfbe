#include "async/ring_reader.hpp"

#include <cstring>
#include <string>
#include <utility>

#include "async/mpi_status.hpp"
#include "async/notice_board.hpp"
#include "async/polite_wait.hpp"

namespace esmio::async {

RingReader::RingReader(MPI_Comm world, const RingWindow &window, int group,
                       std::vector<int> clients, std::function<void(int64_t)> decomp_freed)
    : world_(world),
      window_(window),
      group_(group),
      clients_(std::move(clients)),
      segments_(clients_.size(), nullptr),
      taken_(clients_.size(), 0),
      decomp_freed_(std::move(decomp_freed)),
      current_(clients_.size()),
      buffers_(clients_.size()),
      views_(clients_.size(), nullptr) {}

Status RingReader::segment(std::size_t k, char **out) {
  if (segments_[k] == nullptr)
    ESMIO_RETURN_IF_ERROR(shared_segment(window_, clients_[k], &segments_[k]));
  *out = segments_[k];
  return Status::ok();
}

Status RingReader::wait_notice(std::size_t k, Notice *notice) {
  // The compute ranks may compute for long before their next call: the wait leaves the core.
  trace::Scope idle(trace::Counter::serve_wait, counters_);
  if (shared()) {
    char *board_at = nullptr;
    ESMIO_RETURN_IF_ERROR(segment(k, &board_at));
    const NoticeBoard board(board_at, window_.groups);
    const int64_t n = taken_[k];
    if (!board.take(group_, n, notice))
      polite_wait_until([&] { return board.take(group_, n, notice); });
    ++taken_[k];
    return Status::ok();
  }
  ESMIO_RETURN_IF_ERROR(mpi_status(polite_probe(clients_[k], kTagNotice, world_, MPI_STATUS_IGNORE),
                                   "MPI_Iprobe", "waiting for a compute rank's notice"));
  return mpi_status(
      MPI_Recv(notice, 3, MPI_INT64_T, clients_[k], kTagNotice, world_, MPI_STATUS_IGNORE),
      "MPI_Recv", "a compute rank's notice");
}

Status RingReader::start_read(std::size_t k) {
  Notice notice{};
  ESMIO_RETURN_IF_ERROR(wait_notice(k, &notice));
  Message m;
  m.source = clients_[k];
  m.id = notice.id;
  m.length = notice.length;
  if (shared()) {
    // Read in place: the board's count, read with acquire semantics, was stored after the
    // message, and the compute rank does not write over it before it is given back (release).
    views_[k] = segments_[k] + NoticeBoard::bytes(window_.groups) + notice.offset;
  } else {
    std::vector<char> &bytes = buffers_[k];
    if (bytes.size() < static_cast<std::size_t>(notice.length))
      bytes.resize(static_cast<std::size_t>(notice.length));
    views_[k] = bytes.data();
    ESMIO_RETURN_IF_ERROR(mpi_status(
        MPI_Get(bytes.data(), static_cast<int>(notice.length), MPI_BYTE, m.source, notice.offset,
                static_cast<int>(notice.length), MPI_BYTE, window_.window),
        "MPI_Get", "a message from a compute rank's ring"));
  }
  current_[k] = std::move(m);
  return Status::ok();
}

Status RingReader::finish_read(std::size_t k) {
  Message &m = *current_[k];
  // Copied out (rma): the space goes back to the compute rank at once, a small send. Read in
  // place (shared): when the message is released.
  if (!shared())
    ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Send(&m.id, 1, MPI_INT64_T, m.source, kTagFreed, world_),
                                     "MPI_Send",
                                     "giving a message's space back to its compute rank"));
  const char *bytes = views_[k];
  int64_t head_bytes = 0;
  std::memcpy(&head_bytes, bytes, sizeof head_bytes);
  std::memcpy(&m.data_bytes, bytes + sizeof head_bytes, sizeof m.data_bytes);
  const int64_t framing = 2 * int64_t(sizeof(int64_t));
  const bool framed =
      head_bytes >= 0 && m.data_bytes >= 0 && framing + head_bytes + m.data_bytes <= m.length;
  const char *head = bytes + framing;
  Unpacker u(head, framed ? static_cast<std::size_t>(head_bytes) : 0);
  Head h{};
  std::vector<int64_t> freed;
  const Status head_read = decode_head(u, &h, &freed);
  m.op = h.op;
  m.file = h.file;
  m.digest = h.digest;
  m.local = h.local;
  for (int64_t serial : freed) decomp_freed_(serial);
  const Status args_read = head_read.is_ok() ? decode_args(m.op, u, &m.args) : head_read;
  if (!framed || !head_read.is_ok())
    m.local = Status(ESMIO_EMPI,
                     "a message from compute rank " + std::to_string(m.source) + " was cut short");
  else if (!args_read.is_ok())
    m.local = Status(args_read.code(), args_read.message() + " (a message from compute rank " +
                                           std::to_string(m.source) + ")");
  m.data = framed ? head + head_bytes : nullptr;
  if (!framed) m.data_bytes = 0;
  return Status::ok();
}

void RingReader::release(std::size_t k) {
  if (current_[k] && shared())
    NoticeBoard(segments_[k], window_.groups).give_back(group_, current_[k]->id);
  current_[k].reset();
}

Status RingReader::receive(std::size_t k) {
  release(k);
  ESMIO_RETURN_IF_ERROR(start_read(k));
  trace::Scope read(trace::Counter::serve_receive, counters_, nullptr, current_[k]->length);
  if (!shared())
    ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Win_flush(clients_[k], window_.window), "MPI_Win_flush",
                                     "completing the read of a message"));
  return finish_read(k);
}

Status RingReader::receive_all() {
  for (std::size_t k = 0; k < clients_.size(); ++k) ESMIO_RETURN_IF_ERROR(start_read(k));
  int64_t bytes = 0;
  for (const auto &m : current_) bytes += m->length;
  trace::Scope read(trace::Counter::serve_receive, counters_, nullptr, bytes);
  if (!shared())
    ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Win_flush_all(window_.window), "MPI_Win_flush_all",
                                     "completing the reads of messages"));
  for (std::size_t k = 0; k < clients_.size(); ++k) ESMIO_RETURN_IF_ERROR(finish_read(k));
  return Status::ok();
}

Status RingReader::receive_next() {
  // None kept: after a call, all of them are read again.
  if (!current_[0]) return receive_all();
  for (std::size_t k = 0; k < clients_.size(); ++k)
    if (!current_[k]) ESMIO_RETURN_IF_ERROR(receive(k));
  return Status::ok();
}

Status RingReader::skip_to_boundary() {
  for (std::size_t k = 0; k < clients_.size(); ++k)
    while (current_[k]->op == Op::write_darray) ESMIO_RETURN_IF_ERROR(receive(k));
  return Status::ok();
}

void RingReader::drop_all() {
  for (std::size_t k = 0; k < current_.size(); ++k) release(k);
}

}  // namespace esmio::async
