#include "backend/pnetcdf/prefetch.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "backend/pnetcdf/big_endian.hpp"

namespace esmio::backend::pnetcdf {

Prefetcher::~Prefetcher() { stop(); }

int64_t Prefetcher::ask(int fd, int varid, int64_t record, std::vector<Stretch> stretches,
                        int64_t limit) {
  auto unit = std::make_shared<Unit>();
  unit->fd = fd;
  unit->varid = varid;
  unit->record = record;
  for (const Stretch &s : stretches) {
    if (s.bytes <= 0) continue;
    unit->at.push_back(unit->total);
    unit->stretches.push_back(s);
    unit->total += s.bytes;
  }
  if (unit->total < kMinBytes) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t held = 0;
  for (const auto &u : units_) {
    if (u->varid == varid && u->record == record) return 0;
    held += u->total;
  }
  // Mispredictions that were never read stay until a later read passes them: the limit
  // bounds what they hold. One read is always taken, whatever its size: a task's share of a
  // variable, no larger than the buffer it reads the current one into.
  if (held > 0 && held + unit->total > limit) return 0;
  units_.push_back(std::move(unit));
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  changed_.notify_all();
  return units_.back()->total;
}

int64_t Prefetcher::serve(int varid, int64_t record, std::vector<ReadRun> *runs) {
  std::shared_ptr<Unit> unit;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto found = std::find_if(units_.begin(), units_.end(), [&](const auto &u) {
      return u->varid == varid && u->record == record;
    });
    if (found == units_.end()) return 0;
    units_.erase(units_.begin(), found);  // asked before it and skipped: mispredicted
    unit = units_.front();
    units_.pop_front();
    changed_.notify_all();
    if (unit->state == State::queued) return 0;  // the caller reads it now, not after the queue
    changed_.wait(lock, [&] { return unit->state != State::reading; });
    if (unit->state != State::read) return 0;
  }
  const auto by_offset = [](const ReadRun &a, const ReadRun &b) { return a.offset < b.offset; };
  if (!std::is_sorted(runs->begin(), runs->end(), by_offset))
    std::sort(runs->begin(), runs->end(), by_offset);
  return copy_runs(*unit, runs);
}

int64_t Prefetcher::copy_runs(const Unit &unit, std::vector<ReadRun> *runs) {
  int64_t served = 0;
  std::size_t k = 0;
  const std::size_t n = unit.stretches.size();
  for (ReadRun &r : *runs) {
    if (r.bytes <= 0) continue;
    while (k < n && unit.stretches[k].offset + unit.stretches[k].bytes <= r.offset) ++k;
    if (k == n) break;
    const Stretch &s = unit.stretches[k];
    if (r.offset < s.offset || r.offset + r.bytes > s.offset + s.bytes) continue;
    copy_from_big_endian(r.data, unit.bytes.get() + unit.at[k] + (r.offset - s.offset), r.bytes,
                         r.esize);
    served += r.bytes;
    r.bytes = 0;
  }
  return served;
}

bool Prefetcher::read_unit(Unit *unit) {
  unit->bytes.reset(new char[static_cast<std::size_t>(unit->total)]);
  for (std::size_t k = 0; k < unit->stretches.size(); ++k) {
    char *data = unit->bytes.get() + unit->at[k];
    int64_t offset = unit->stretches[k].offset, left = unit->stretches[k].bytes;
    while (left > 0) {
      const ssize_t got = pread(unit->fd, data, static_cast<std::size_t>(left), offset);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return false;
      if (got == 0) {  // past the end of the file: zeros, as the direct read gives
        std::memset(data, 0, static_cast<std::size_t>(left));
        break;
      }
      data += got;
      offset += got;
      left -= got;
    }
  }
  return true;
}

void Prefetcher::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    std::shared_ptr<Unit> unit;
    changed_.wait(lock, [&] {
      if (stopping_) return true;
      for (const auto &u : units_)
        if (u->state == State::queued) return true;
      return false;
    });
    if (stopping_) return;
    for (const auto &u : units_)
      if (u->state == State::queued) {
        unit = u;
        break;
      }
    unit->state = State::reading;
    busy_ = true;
    lock.unlock();
    const bool ok = read_unit(unit.get());
    lock.lock();
    unit->state = ok ? State::read : State::failed;
    if (!ok) unit->bytes.reset();
    busy_ = false;
    changed_.notify_all();
  }
}

void Prefetcher::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] {
    if (busy_) return false;
    for (const auto &u : units_)
      if (u->state == State::queued) return false;
    return true;
  });
}

void Prefetcher::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    units_.clear();
    changed_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = false;
  busy_ = false;
}

int64_t Prefetcher::held_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t held = 0;
  for (const auto &u : units_) held += u->total;
  return held;
}

}  // namespace esmio::backend::pnetcdf
