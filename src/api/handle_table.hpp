// Handles: what the public API hands out for instances, files and decompositions is not a
// pointer but a number: a slot in a table of live objects, the object's kind, and the slot's
// generation. A stale copy of a closed file's handle, a freed decomposition's, or a handle of
// the wrong kind is recognised and refused with ESMIO_EBADID instead of being dereferenced;
// a slot reused by a newer object has a newer generation, so an old handle never reaches it.
#pragma once

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace esmio::api {

template <typename T>
class HandleTable {
 public:
  explicit HandleTable(unsigned kind) : kind_(kind) {}

  // Registers obj (owned by the caller) and returns its handle.
  T *add(T *obj) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t slot = free_.empty() ? slots_.size() : free_.back();
    if (free_.empty()) {
      if (slot >= kMaxSlots) throw std::length_error("more than 16M live handles of one kind");
      slots_.push_back(Slot{});
    } else {
      free_.pop_back();
    }
    slots_[slot].obj = obj;
    return encode(slot, slots_[slot].generation);
  }

  // The live object behind handle, or nullptr.
  T *find(const T *handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t slot = 0;
    uint32_t generation = 0;
    if (!decode(handle, &slot, &generation)) return nullptr;
    const Slot &s = slots_[slot];
    return s.generation == generation ? s.obj : nullptr;
  }

  // Forgets the object behind handle (the caller deletes it); later copies are stale.
  void remove(const T *handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t slot = 0;
    uint32_t generation = 0;
    if (!decode(handle, &slot, &generation) || slots_[slot].generation != generation) return;
    slots_[slot].obj = nullptr;
    slots_[slot].generation = (slots_[slot].generation + 1) & kGenerationMask;
    free_.push_back(slot);
  }

 private:
  // handle = generation << 32 | kind << 24 | (slot + 1): never 0, never a small integer.
  static constexpr uint32_t kGenerationMask = 0x7fffffff;
  static constexpr std::size_t kMaxSlots = 0xffffff;
  struct Slot {
    T *obj = nullptr;
    uint32_t generation = 1;
  };
  T *encode(std::size_t slot, uint32_t generation) const {
    const uint64_t v = (uint64_t(generation) << 32) | (uint64_t(kind_) << 24) | (slot + 1);
    return reinterpret_cast<T *>(static_cast<uintptr_t>(v));
  }
  bool decode(const T *handle, std::size_t *slot, uint32_t *generation) const {
    const uint64_t v = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
    if (((v >> 24) & 0xff) != kind_ || (v & 0xffffff) == 0) return false;
    *slot = static_cast<std::size_t>(v & 0xffffff) - 1;
    *generation = static_cast<uint32_t>(v >> 32);
    return *slot < slots_.size() && slots_[*slot].obj != nullptr;
  }

  const unsigned kind_;
  mutable std::mutex mutex_;
  std::vector<Slot> slots_;
  std::vector<std::size_t> free_;
};

}  // namespace esmio::api
