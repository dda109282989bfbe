#include "async/client.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "async/messages.hpp"
#include "async/polite_wait.hpp"
#include "async/protocol.hpp"

namespace esmio::async {

Status Client::make(MPI_Comm world, const Placement &placement, int64_t buffer_bytes,
                    std::unique_ptr<Client> *out) {
  std::unique_ptr<Client> c(new Client());
  c->world_ = world;
  c->placement_ = placement;
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  const auto it = std::find(placement.compute.begin(), placement.compute.end(), rank);
  c->compute_index_ = static_cast<int>(it - placement.compute.begin());
  c->freed_.resize(static_cast<std::size_t>(placement.groups));
  Status status;
  try {
    // Not value-initialised: the pages are taken as messages first reach them, so a rank
    // that writes little never holds the whole buffer.
    c->ring_.reset(new char[static_cast<std::size_t>(buffer_bytes)]);
    c->ring_size_ = buffer_bytes;
  } catch (const std::bad_alloc &) {
    status =
        Status(ESMIO_ENOMEM, "esmio_init: async_buffer of " + std::to_string(buffer_bytes) +
                                 " bytes could not be allocated on rank " + std::to_string(rank));
  }
  // Every rank of world takes part in the window, whatever happened above.
  const MPI_Aint size = status.is_ok() ? static_cast<MPI_Aint>(buffer_bytes) : 0;
  if (MPI_Win_create(size ? c->ring_.get() : nullptr, size, 1, MPI_INFO_NULL, world, &c->window_) !=
      MPI_SUCCESS)
    return Status(ESMIO_EMPI, "esmio_init: MPI_Win_create of the async buffer failed");
  // A shared lock on our own window for the whole run: MPI_Win_sync then orders the bytes we
  // store before the notice that tells a server to read them (separate memory model too).
  MPI_Win_lock_all(MPI_MODE_NOCHECK, c->window_);
  *out = std::move(c);
  return status;
}

// The window is freed by close_window (collective); a client dropped without it (esmio_init
// failing everywhere) leaves it to MPI_Finalize.
Client::~Client() = default;

void Client::close_window() {
  if (window_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(window_);
  MPI_Win_free(&window_);
}

void Client::decomp_freed(int64_t serial) {
  for (auto &list : freed_) list.push_back(serial);
}

bool Client::first_of_server(int g) const {
  return compute_index_ == 0 ||
         placement_.server_for(compute_index_ - 1, g) != placement_.server_for(compute_index_, g);
}

int64_t Client::fits(int64_t length) const {
  const int64_t size = ring_size_;
  if (in_flight_.empty()) return length <= size ? 0 : -1;
  const int64_t tail = in_flight_.front().offset;
  if (head_ > tail) {
    if (size - head_ >= length) return head_;
    if (tail >= length) return 0;
    return -1;
  }
  if (head_ < tail && tail - head_ >= length) return head_;
  return -1;  // head == tail with messages in flight: full
}

void Client::take_freed(bool wait) {
  for (;;) {
    int flag = 0;
    MPI_Status st;
    if (wait) {
      polite_probe(MPI_ANY_SOURCE, kTagFreed, world_, &st);  // while the servers write
      flag = 1;
      wait = false;
    } else {
      MPI_Iprobe(MPI_ANY_SOURCE, kTagFreed, world_, &flag, &st);
    }
    if (!flag) break;
    int64_t id = -1;
    MPI_Recv(&id, 1, MPI_INT64_T, st.MPI_SOURCE, kTagFreed, world_, MPI_STATUS_IGNORE);
    for (InFlight &m : in_flight_)
      if (m.id == id) m.freed = true;
  }
  while (!in_flight_.empty() && in_flight_.front().freed) in_flight_.pop_front();
  if (in_flight_.empty()) head_ = 0;
}

Status Client::post(int g, const Head &head, const Packer &args, int64_t data_bytes,
                    const std::function<void(char *)> &fill, trace::Counters *file_counters,
                    trace::Counters *instance_counters) {
  auto layout = [&](const Status &local) {
    return encode_head(Head{head.op, head.file, head.digest, local},
                       freed_[static_cast<std::size_t>(g)]);
  };
  Packer packed = layout(head.local);
  const auto framed = [&](int64_t data) {
    return (2 * int64_t(sizeof(int64_t)) + static_cast<int64_t>(packed.size() + args.size()) +
            data + 7) /
           8 * 8;
  };
  Status refused;
  if (framed(data_bytes) > ring_size_) {
    refused =
        Status(ESMIO_EINVAL,
               std::string(op_name(head.op)) + ": a call of " + std::to_string(framed(data_bytes)) +
                   " bytes does not fit the async_buffer of " + std::to_string(ring_size_) +
                   " bytes (raise the async_buffer setting)");
    packed = layout(refused);
    data_bytes = 0;
  }
  const int64_t head_bytes = static_cast<int64_t>(packed.size() + args.size());
  const int64_t length = framed(data_bytes);
  take_freed(false);
  int64_t offset = fits(length);
  if (offset < 0) {
    trace::Scope waited(trace::Counter::async_wait, file_counters, instance_counters, length);
    while ((offset = fits(length)) < 0) take_freed(true);
  }
  trace::Scope posted(trace::Counter::async_post, file_counters, instance_counters, length);
  char *at = ring_.get() + offset;
  std::memcpy(at, &head_bytes, sizeof head_bytes);
  std::memcpy(at + sizeof head_bytes, &data_bytes, sizeof data_bytes);
  at += 2 * sizeof(int64_t);
  std::memcpy(at, packed.data().data(), packed.size());
  if (args.size() > 0) std::memcpy(at + packed.size(), args.data().data(), args.size());
  if (data_bytes > 0) fill(at + head_bytes);
  MPI_Win_sync(window_);
  freed_[static_cast<std::size_t>(g)].clear();  // told
  const Notice notice{next_id_++, offset, length};
  in_flight_.push_back(InFlight{notice.id, offset, length, false});
  head_ = offset + length;
  const int server = placement_.server_for(compute_index_, g);
  if (MPI_Send(&notice, 3, MPI_INT64_T, server, kTagNotice, world_) != MPI_SUCCESS)
    return Status(ESMIO_EMPI,
                  "sending a notice to I/O server rank " + std::to_string(server) + " failed");
  return refused;
}

Status Client::reply(int g, std::vector<char> *out) {
  const int server = placement_.server_for(compute_index_, g);
  MPI_Status st;
  polite_probe(server, kTagReply, world_, &st);  // a sync or close may wait for long writes
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  out->resize(static_cast<std::size_t>(count));
  if (MPI_Recv(out->data(), count, MPI_BYTE, server, kTagReply, world_, MPI_STATUS_IGNORE) !=
      MPI_SUCCESS)
    return Status(ESMIO_EMPI,
                  "receiving a reply from I/O server rank " + std::to_string(server) + " failed");
  return Status::ok();
}

Status open_server_window(MPI_Comm world, MPI_Win *window) {
  if (MPI_Win_create(nullptr, 0, 1, MPI_INFO_NULL, world, window) != MPI_SUCCESS)
    return Status(ESMIO_EMPI, "esmio_init: MPI_Win_create of the async buffers failed");
  MPI_Win_lock_all(MPI_MODE_NOCHECK, *window);
  return Status::ok();
}

}  // namespace esmio::async
