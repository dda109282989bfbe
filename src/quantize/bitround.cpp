// BitRound kernels: integer arithmetic on the IEEE bit patterns, written so that gcc's -O2
// vectoriser takes the hot loop with the SSE2 baseline (no compares it lacks for 64-bit lanes).
#include "quantize/bitround.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace esmio::quantize {
namespace {

// Values per vectorised pass. The trip count is a compile-time constant because gcc -O2
// ("very-cheap" cost model) vectorises only loops that need no scalar epilogue.
constexpr int64_t kBlock = 1024;
constexpr int64_t kSmallBlock = 16;

template <class U>
struct Rounder {
  static constexpr int kTop = 8 * sizeof(U) - 1;
  static constexpr U kAbs = ~U(0) >> 1;

  U inf_bits;   // exponent all ones, mantissa zero
  U fill_bits;  // with no fill value: inf_bits, which is left exact anyway
  U half_base;  // half a kept unit, less one: the carry of the last kept bit makes the tie even
  U keep_mask;  // clears the dropped bits
  int shift;

  U round(U x) const {
    const U q = (x + half_base + ((x >> shift) & 1)) & keep_mask;
    const U a = x & kAbs;
    // The top bit of a difference of two values below 2^kTop is the borrow, i.e. a comparison;
    // this avoids vector compares, which SSE2 lacks for 64-bit lanes.
    const U non_finite = (~(a - inf_bits)) >> kTop;  // a >= inf_bits: Inf or NaN
    const U d = x ^ fill_bits;
    const U is_fill = U(1) - ((d | (U(0) - d)) >> kTop);
    const U exact = U(0) - (non_finite | is_fill);
    return q ^ ((q ^ x) & exact);
  }

  template <int64_t N>
  void block(unsigned char *p) const {
    for (int64_t i = 0; i < N; ++i) {
      U x;
      std::memcpy(&x, p + i * sizeof(U), sizeof(U));
      x = round(x);
      std::memcpy(p + i * sizeof(U), &x, sizeof(U));
    }
  }

  void run(unsigned char *p, int64_t n) const {
    for (; n >= kBlock; n -= kBlock, p += kBlock * sizeof(U)) block<kBlock>(p);
    for (; n >= kSmallBlock; n -= kSmallBlock, p += kSmallBlock * sizeof(U)) block<kSmallBlock>(p);
    for (; n > 0; --n, p += sizeof(U)) block<1>(p);
  }
};

template <class T, class U>
void round_all(void *values, int64_t n, int keepbits, const void *fill) {
  constexpr int kMantissa = std::numeric_limits<T>::digits - 1;
  Rounder<U> r;
  const T inf = std::numeric_limits<T>::infinity();
  std::memcpy(&r.inf_bits, &inf, sizeof(U));
  r.fill_bits = r.inf_bits;
  if (fill != nullptr) std::memcpy(&r.fill_bits, fill, sizeof(U));
  r.shift = kMantissa - keepbits;
  r.half_base = (U(1) << (r.shift - 1)) - 1;
  r.keep_mask = ~((U(1) << r.shift) - 1);
  r.run(static_cast<unsigned char *>(values), n);
}

}  // namespace

int mantissa_bits(esmio_type type) {
  if (type == ESMIO_FLOAT) return std::numeric_limits<float>::digits - 1;
  if (type == ESMIO_DOUBLE) return std::numeric_limits<double>::digits - 1;
  return 0;
}

int exponent_bits(esmio_type type) {
  if (type == ESMIO_FLOAT) return 8;
  if (type == ESMIO_DOUBLE) return 11;
  return 0;
}

Status bitround(esmio_type type, void *values, int64_t n, int keepbits, const void *fill) {
  if (type != ESMIO_FLOAT && type != ESMIO_DOUBLE)
    return Status(ESMIO_EBADTYPE, "bitround: only float and double values can be rounded");
  const int mbits = mantissa_bits(type);
  if (keepbits < 0 || keepbits > mbits)
    return Status(ESMIO_EINVAL, "bitround: keepbits " + std::to_string(keepbits) + " outside [0, " +
                                    std::to_string(mbits) + "]");
  if (n < 0 || (n > 0 && values == nullptr))
    return Status(ESMIO_EINVAL, "bitround: bad value count or null values");
  if (keepbits == mbits || n == 0) return Status::ok();
  if (type == ESMIO_FLOAT) {
    round_all<float, uint32_t>(values, n, keepbits, fill);
  } else {
    round_all<double, uint64_t>(values, n, keepbits, fill);
  }
  return Status::ok();
}

double bitround_max_relative_error(esmio_type type, int keepbits) {
  const int mbits = mantissa_bits(type);
  if (mbits == 0 || keepbits < 0 || keepbits > mbits)
    return std::numeric_limits<double>::quiet_NaN();
  return std::ldexp(1.0, -(keepbits + 1));
}

}  // namespace esmio::quantize
