#include "async/client.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "async/messages.hpp"
#include "async/mpi_status.hpp"
#include "async/notice_board.hpp"
#include "async/passive_probe.hpp"
#include "async/polite_wait.hpp"
#include "async/protocol.hpp"

namespace esmio::async {

Status Client::make(MPI_Comm world, const Placement &placement, int64_t buffer_bytes,
                    const std::string &transport, bool pages_at_init,
                    std::unique_ptr<Client> *out) {
  std::unique_ptr<Client> c(new Client());
  c->world_ = world;
  c->placement_ = placement;
  int rank = 0;
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_rank(world, &rank), "MPI_Comm_rank",
                                   "esmio_init: a compute rank's rank"));
  const auto it = std::find(placement.compute.begin(), placement.compute.end(), rank);
  c->compute_index_ = static_cast<int>(it - placement.compute.begin());
  c->freed_.resize(static_cast<std::size_t>(placement.groups));
  c->closes_due_.resize(static_cast<std::size_t>(placement.groups));
  c->unfreed_.assign(static_cast<std::size_t>(placement.groups), 0);
  c->seen_freed_.assign(static_cast<std::size_t>(placement.groups), 0);
  const Status status =
      open_ring_window(world, buffer_bytes, placement.groups, transport, &c->ring_);
  // Without a window (the ranks refused the transport) there is nothing to free collectively.
  if (c->ring_.window == MPI_WIN_NULL) return status;
  c->ring_size_ = c->ring_.ring != nullptr ? buffer_bytes : 0;
  // Taken here, the pages cost esmio_init what they would cost the first steps' calls (on a
  // virtual machine, a fault per 4 KiB page of every message until the ring has wrapped once).
  if (pages_at_init && c->ring_.ring != nullptr) take_pages(c->ring_.ring, c->ring_size_);
  // With rma, whether the servers' reads move while this rank computes depends on MPI.
  if (c->ring_.transport == RingTransport::rma) {
    bool passive = true;
    ESMIO_RETURN_IF_ERROR(
        probe_passive_reads(world, c->ring_.window, placement, c->ring_.ring, &passive));
    if (!passive && rank == placement.compute.front())
      std::fprintf(stderr, "%s\n", passive_reads_warning());
  }
  *out = std::move(c);
  return status;
}

// The window is freed by close_window (collective); a client dropped without it (esmio_init
// failing everywhere) leaves it to MPI_Finalize.
Client::~Client() = default;

Status Client::close_window() {
  return close_ring_window(&ring_, "esmio_finalize: the async buffer's window");
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

void Client::mark_freed(InFlight &m) {
  if (m.freed) return;
  m.freed = true;
  --unfreed_[static_cast<std::size_t>(m.group)];
}

Status Client::take_freed(bool wait) {
  if (ring_.board != nullptr) {
    // The servers' returns are on this rank's board.
    // Each group's watermark read once; the messages scanned only when one moved, and only up
    // to the highest (ids ascend along in_flight_).
    const NoticeBoard board(ring_.board, placement_.groups);
    const auto take = [&] {
      bool moved = false;
      int64_t highest = 0;
      for (int g = 0; g < placement_.groups; ++g) {
        int64_t &seen = seen_freed_[static_cast<std::size_t>(g)];
        const int64_t now = board.freed(g);
        moved = moved || now != seen;
        seen = now;
        highest = std::max(highest, now);
      }
      if (!moved) return false;
      bool any = false;
      for (InFlight &m : in_flight_) {
        if (m.id >= highest) break;
        if (!m.freed && m.id < seen_freed_[static_cast<std::size_t>(m.group)]) {
          mark_freed(m);
          any = true;
        }
      }
      return any;
    };
    // While the servers write; a server may first have to hand this rank a close's reply.
    Status polled;
    if (!take() && wait)
      polite_wait_until([&] {
        if (closes_due() && polled.is_ok()) polled = poll_closes();
        return take() || !polled.is_ok();
      });
    ESMIO_RETURN_IF_ERROR(polled);
  } else {
    ESMIO_RETURN_IF_ERROR(receive_freed(wait));
  }
  while (!in_flight_.empty() && in_flight_.front().freed) in_flight_.pop_front();
  if (in_flight_.empty()) head_ = 0;
  return Status::ok();
}

Status Client::receive_freed(bool wait) {
  const char *what = "the ids of the messages the I/O servers read";
  for (;;) {
    int flag = 0;
    MPI_Status st;
    if (wait && closes_due()) {
      // While the servers write; a server may first have to hand this rank a close's reply.
      Status polled;
      polite_wait_until([&] {
        if (closes_due() && polled.is_ok()) polled = poll_closes();
        if (polled.is_ok())
          polled = mpi_status(MPI_Iprobe(MPI_ANY_SOURCE, kTagFreed, world_, &flag, &st),
                              "MPI_Iprobe", what);
        return flag != 0 || !polled.is_ok();
      });
      ESMIO_RETURN_IF_ERROR(polled);
      wait = false;
    } else if (wait) {
      // While the servers write.
      ESMIO_RETURN_IF_ERROR(
          mpi_status(polite_probe(MPI_ANY_SOURCE, kTagFreed, world_, &st), "MPI_Iprobe", what));
      flag = 1;
      wait = false;
    } else {
      ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Iprobe(MPI_ANY_SOURCE, kTagFreed, world_, &flag, &st),
                                       "MPI_Iprobe", what));
    }
    if (!flag) break;
    int64_t id = -1;
    ESMIO_RETURN_IF_ERROR(mpi_status(
        MPI_Recv(&id, 1, MPI_INT64_T, st.MPI_SOURCE, kTagFreed, world_, MPI_STATUS_IGNORE),
        "MPI_Recv", what));
    for (InFlight &m : in_flight_)
      if (m.id == id) mark_freed(m);
  }
  return Status::ok();
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
  if (closes_due()) ESMIO_RETURN_IF_ERROR(poll_closes());
  ESMIO_RETURN_IF_ERROR(take_freed(false));
  // Room in the ring, and with the shared transport a free slot on the board.
  const auto room = [&] {
    return unfreed_[static_cast<std::size_t>(g)] < NoticeBoard::kSlots ? fits(length) : -1;
  };
  int64_t offset = room();
  if (offset < 0) {
    trace::Scope waited(trace::Counter::async_wait, file_counters, instance_counters, length);
    while ((offset = room()) < 0) ESMIO_RETURN_IF_ERROR(take_freed(true));
  }
  trace::Scope posted(trace::Counter::async_post, file_counters, instance_counters, length);
  char *at = ring_.ring + offset;
  std::memcpy(at, &head_bytes, sizeof head_bytes);
  std::memcpy(at + sizeof head_bytes, &data_bytes, sizeof data_bytes);
  at += 2 * sizeof(int64_t);
  std::memcpy(at, packed.data().data(), packed.size());
  if (args.size() > 0) std::memcpy(at + packed.size(), args.data().data(), args.size());
  if (data_bytes > 0) fill(at + head_bytes);
  ESMIO_RETURN_IF_ERROR(
      mpi_status(MPI_Win_sync(ring_.window), "MPI_Win_sync", "a message put in the async buffer"));
  freed_[static_cast<std::size_t>(g)].clear();  // told
  const Notice notice{next_id_++, offset, length};
  in_flight_.push_back(InFlight{notice.id, offset, length, g, false});
  ++unfreed_[static_cast<std::size_t>(g)];
  head_ = offset + length;
  if (ring_.board != nullptr) {
    NoticeBoard(ring_.board, placement_.groups).publish(g, notice);
    return refused;
  }
  const int server = placement_.server_for(compute_index_, g);
  const Status sent = mpi_status(MPI_Send(&notice, 3, MPI_INT64_T, server, kTagNotice, world_),
                                 "MPI_Send", "a notice to an I/O server");
  if (!sent.is_ok())
    return Status(sent.code(), "sending a notice to I/O server rank " + std::to_string(server) +
                                   " failed: " + sent.message());
  return refused;
}

Status Client::reply(int g, std::vector<char> *out) {
  while (!closes_due_[static_cast<std::size_t>(g)].empty()) ESMIO_RETURN_IF_ERROR(receive_close(g));
  return receive_reply(g, out);
}

namespace {

// "a.nc" and "./a.nc" name one file.
std::string path_key(const std::string &path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

}  // namespace

void Client::expect_close(int g, const std::string &path) {
  closes_due_[static_cast<std::size_t>(g)].emplace_back(path_key(path), path);
}

bool Client::closes_due() const {
  return std::any_of(closes_due_.begin(), closes_due_.end(),
                     [](const auto &due) { return !due.empty(); });
}

Status Client::poll_closes() {
  for (int g = 0; g < placement_.groups; ++g) {
    while (!closes_due_[static_cast<std::size_t>(g)].empty()) {
      int arrived = 0;
      ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Iprobe(placement_.server_for(compute_index_, g),
                                                  kTagReply, world_, &arrived, MPI_STATUS_IGNORE),
                                       "MPI_Iprobe", "a reply from an I/O server"));
      if (!arrived) break;
      ESMIO_RETURN_IF_ERROR(receive_close(g));
    }
  }
  return Status::ok();
}

Status Client::receive_close(int g) {
  auto &due = closes_due_[static_cast<std::size_t>(g)];
  const auto [key, path] = due.front();
  due.pop_front();
  std::vector<char> bytes;
  // A reply that does not come is the channel's failure as well as the close's.
  const Status received = receive_reply(g, &bytes);
  Status outcome = received;
  if (outcome.is_ok()) {
    Unpacker u(bytes.data(), bytes.size());
    CloseReply reply;
    outcome = CloseReply::decode(u, &reply);
    if (outcome.is_ok()) outcome = reply.status;
  }
  closed_.push_back(Closed{key, path, outcome});
  return received;
}

Status Client::wait_for_close(const std::string &path) {
  const std::string key = path_key(path);
  for (std::size_t g = 0; g < closes_due_.size(); ++g) {
    const auto &due = closes_due_[g];
    // Every reply up to the path's last close in this group.
    const auto last =
        std::find_if(due.rbegin(), due.rend(), [&](const auto &d) { return d.first == key; });
    if (last == due.rend()) continue;
    for (auto n = static_cast<std::size_t>(due.rend() - last); n > 0; --n)
      ESMIO_RETURN_IF_ERROR(receive_close(static_cast<int>(g)));
  }
  return Status::ok();
}

Status Client::settle_close(const std::string &path, bool *found, Status *outcome) {
  ESMIO_RETURN_IF_ERROR(wait_for_close(path));
  const std::string key = path_key(path);
  *found = false;
  *outcome = Status::ok();
  for (auto it = closed_.begin(); it != closed_.end();) {
    if (it->key != key) {
      ++it;
      continue;
    }
    *found = true;
    if (outcome->is_ok()) *outcome = it->outcome;
    it = closed_.erase(it);
  }
  return Status::ok();
}

Status Client::settle_all_closes(std::vector<std::pair<std::string, Status>> *outcomes) {
  for (std::size_t g = 0; g < closes_due_.size(); ++g)
    while (!closes_due_[g].empty()) ESMIO_RETURN_IF_ERROR(receive_close(static_cast<int>(g)));
  outcomes->clear();
  for (Closed &c : closed_) outcomes->emplace_back(std::move(c.path), std::move(c.outcome));
  closed_.clear();
  return Status::ok();
}

Status Client::receive_reply(int g, std::vector<char> *out) {
  const int server = placement_.server_for(compute_index_, g);
  const char *what = "a reply from an I/O server";
  MPI_Status st;
  // A sync or close may wait for long writes.
  Status s = mpi_status(polite_probe(server, kTagReply, world_, &st), "MPI_Iprobe", what);
  int count = 0;
  if (s.is_ok()) s = mpi_status(MPI_Get_count(&st, MPI_BYTE, &count), "MPI_Get_count", what);
  if (s.is_ok()) {
    out->resize(static_cast<std::size_t>(count));
    s = mpi_status(
        MPI_Recv(out->data(), count, MPI_BYTE, server, kTagReply, world_, MPI_STATUS_IGNORE),
        "MPI_Recv", what);
  }
  if (!s.is_ok())
    return Status(s.code(), "receiving a reply from I/O server rank " + std::to_string(server) +
                                " failed: " + s.message());
  return Status::ok();
}

Status open_server_window(MPI_Comm world, const Placement &placement, const std::string &transport,
                          RingWindow *window) {
  ESMIO_RETURN_IF_ERROR(open_ring_window(world, 0, placement.groups, transport, window));
  if (window->transport == RingTransport::shared) return Status::ok();
  bool passive = true;  // the compute ranks say it
  return probe_passive_reads(world, window->window, placement, nullptr, &passive);
}

}  // namespace esmio::async
