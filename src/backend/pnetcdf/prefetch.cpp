#include "backend/pnetcdf/prefetch.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <system_error>
#include <utility>

#include "backend/pnetcdf/big_endian.hpp"

namespace esmio::backend::pnetcdf {

Prefetcher::~Prefetcher() { stop(); }

int64_t Prefetcher::ask(int fd, int varid, int64_t record, std::vector<Stretch> stretches,
                        int64_t limit) {
  // A hint: memory or a thread that cannot be had means no read ahead, never an error.
  try {
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
    // One read is always taken, whatever its size: a task's share of a variable, no larger
    // than the buffer it reads the current one into. (Reads that were not made are dropped
    // by serve() and cancel(), so what is held is what is still to come.)
    if (held > 0 && held + unit->total > limit) return 0;
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    units_.push_back(unit);
    changed_.notify_all();
    return unit->total;
  } catch (const std::bad_alloc &) {
    return 0;
  } catch (const std::system_error &) {
    return 0;
  }
}

void Prefetcher::drop(std::size_t first, std::size_t last) {
  for (std::size_t k = first; k < last; ++k) units_[k]->cancelled = true;
  units_.erase(units_.begin() + static_cast<std::ptrdiff_t>(first),
               units_.begin() + static_cast<std::ptrdiff_t>(last));
  changed_.notify_all();
}

int64_t Prefetcher::serve(int varid, int64_t record, std::vector<ReadRun> *runs) {
  std::shared_ptr<Unit> unit;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto found = std::find_if(units_.begin(), units_.end(), [&](const auto &u) {
      return u->varid == varid && u->record == record;
    });
    if (found == units_.end()) return 0;
    drop(0, static_cast<std::size_t>(found - units_.begin()));  // asked before it: skipped
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

void Prefetcher::cancel(int varid, int64_t record) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t k = 0; k < units_.size(); ++k)
    if (units_[k]->varid == varid && units_[k]->record == record) return drop(k, k + 1);
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
  // Memory that cannot be had makes a failed read ahead, not an exception on this thread.
  unit->bytes.reset(new (std::nothrow) char[static_cast<std::size_t>(unit->total)]);
  if (!unit->bytes) return false;
  for (std::size_t k = 0; k < unit->stretches.size(); ++k) {
    char *data = unit->bytes.get() + unit->at[k];
    int64_t offset = unit->stretches[k].offset, left = unit->stretches[k].bytes;
    while (left > 0) {
      if (unit->cancelled) return false;
      const ssize_t got =
          pread(unit->fd, data, static_cast<std::size_t>(std::min(left, kPieceBytes)), offset);
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
    if (!ok) {
      // Failed or cancelled: nothing to serve, nor to hold against the limit.
      unit->bytes.reset();
      const auto at = std::find(units_.begin(), units_.end(), unit);
      if (at != units_.end()) units_.erase(at);
    }
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
    drop(0, units_.size());
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
