// Digest: a 64-bit hash of a collective call and its arguments, so that ranks can compare what
// they were asked to do in the allreduce they make anyway (common/agree.hpp). Not
// cryptographic: two ranks that disagree by accident differ in the digest with probability
// 1 - 2^-63.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace esmio {

class Digest {
 public:
  explicit Digest(const char *call) { add(std::string(call)); }

  Digest &add(int64_t v) {
    h_ = mix(h_ ^ (static_cast<uint64_t>(v) + 0x9e3779b97f4a7c15ull));
    return *this;
  }
  Digest &add(const void *bytes, std::size_t n) {
    add(static_cast<int64_t>(n));
    const auto *p = static_cast<const unsigned char *>(bytes);
    for (; n >= 8; n -= 8, p += 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h_ = mix(h_ ^ w);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, p, n);
    h_ = mix(h_ ^ tail ^ (uint64_t(n) << 56));
    return *this;
  }
  Digest &add(const std::string &s) { return add(s.data(), s.size()); }
  template <typename T>
  Digest &add(const std::vector<T> &v) {
    return add(v.data(), v.size() * sizeof(T));
  }

  // Never 0: 0 is the digest of "no call of its own" (an agreement inside a call).
  uint64_t value() const { return h_ == 0 ? 1 : h_; }

 private:
  // splitmix64's finalizer: every input bit reaches every output bit.
  static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  uint64_t h_ = 0x6a09e667f3bcc908ull;
};

}  // namespace esmio
