#include "async/notice_board.hpp"

#include <cstring>

namespace esmio::async {

namespace {

constexpr int64_t kPage = 4096;

}  // namespace

int64_t NoticeBoard::bytes(int groups) {
  const int64_t raw = 2 * groups * int64_t(sizeof(int64_t)) +
                      groups * kSlots * static_cast<int64_t>(sizeof(Notice));
  return (raw + kPage - 1) / kPage * kPage;
}

NoticeBoard::NoticeBoard(char *base, int groups) : base_(base), groups_(groups) {}

int64_t *NoticeBoard::posted(int g) const { return reinterpret_cast<int64_t *>(base_) + g; }

int64_t *NoticeBoard::freed_slot(int g) const {
  return reinterpret_cast<int64_t *>(base_) + groups_ + g;
}

Notice *NoticeBoard::slot(int g, int64_t n) const {
  Notice *slots = reinterpret_cast<Notice *>(base_ + 2 * groups_ * int64_t(sizeof(int64_t)));
  return slots + g * kSlots + n % kSlots;
}

void NoticeBoard::clear() {
  std::memset(base_, 0, static_cast<std::size_t>(2 * groups_ * int64_t(sizeof(int64_t))));
}

void NoticeBoard::publish(int g, const Notice &n) {
  const int64_t count = __atomic_load_n(posted(g), __ATOMIC_RELAXED);
  *slot(g, count) = n;
  __atomic_store_n(posted(g), count + 1, __ATOMIC_RELEASE);
}

int64_t NoticeBoard::freed(int g) const { return __atomic_load_n(freed_slot(g), __ATOMIC_ACQUIRE); }

bool NoticeBoard::take(int g, int64_t taken, Notice *out) const {
  if (__atomic_load_n(posted(g), __ATOMIC_ACQUIRE) <= taken) return false;
  *out = *slot(g, taken);
  return true;
}

void NoticeBoard::give_back(int g, int64_t id) {
  __atomic_store_n(freed_slot(g), id + 1, __ATOMIC_RELEASE);
}

}  // namespace esmio::async
