// Bit-pair counting and the information analysis. The counting kernel works on blocks of pairs:
// one pass turns each pair into three masked words (left, right, left AND right), then a
// positional popcount adds up each bit position's ones in narrow fields of ordinary integers
// (SWAR), which gcc -O2 vectorises with the SSE2 baseline. The joint 2x2 counts follow from
// the ones of left, right and both, and the number of pairs.
#include "quantize/bit_information.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "quantize/bitround.hpp"

namespace esmio::quantize {
namespace {

// Pairs per block: 3 x 5 x 16 for the stages of the positional popcount, whose byte counters
// must stay below 256, and every stage's trip count a multiple of any vector width.
constexpr int64_t kBlock = 240;

// Per-bit tallies of one call, bit positions from the least significant, 0.
struct Tally {
  uint64_t ones_a[64] = {};
  uint64_t ones_b[64] = {};
  uint64_t ones_ab[64] = {};
  uint64_t pairs = 0;
};

template <class U>
struct PairCounter {
  static constexpr int kTop = 8 * sizeof(U) - 1;
  static constexpr U kAbs = ~U(0) >> 1;
  // IEEE layout: mantissa bits, the exponent field's mask and bias.
  static constexpr int kMantissa = sizeof(U) == 4 ? 23 : 52;
  static constexpr U kExponentMax = sizeof(U) == 4 ? 0xff : 0x7ff;
  static constexpr U kBias = kExponentMax >> 1;
  static constexpr U kSignAndMantissa = (U(1) << kTop) | ((U(1) << kMantissa) - 1);

  // BitInformation.jl's signed_exponent: the biased exponent e + bias becomes sign and
  // magnitude of e, the sign in the exponent's first bit (a value's own sign and mantissa stay).
  // xbitinfo counts these patterns; so does esmio, so that the exponent bits' share of the
  // information, and with it the cutoff, is the reference's. Branch-free, as stage() vectorises.
  static U signed_exponent(U x) {
    const U e = ((x >> kMantissa) & kExponentMax) - kBias;  // wraps when negative
    const U negative = U(0) - (e >> kTop);                  // all ones when e < 0
    const U magnitude = (e ^ negative) - negative;
    return (x & kSignAndMantissa) | (negative & (U(1) << (kTop - 1))) | (magnitude << kMantissa);
  }

  U inf_bits;
  U fill_bits;  // with no fill value: a NaN pattern, which is left out anyway
  // All ones except at row ends and beyond a short block's end: a pair's third validity factor.
  // Kept as an array so the scalar row bookkeeping stays out of the vectorised loop.
  U row_ok[kBlock];
  U wa[kBlock], wb[kBlock], wab[kBlock];
  Tally tally;

  // 1 if x is neither NaN nor the fill value, else 0. Borrow bits stand in for compares, which
  // SSE2 lacks for 64-bit lanes.
  U usable(U x) const {
    const U not_nan = (~(inf_bits - (x & kAbs))) >> kTop;
    const U d = x ^ fill_bits;
    const U not_fill = (d | (U(0) - d)) >> kTop;
    return not_nan & not_fill;
  }

  static U load(const unsigned char *p, int64_t i) {
    U x;
    std::memcpy(&x, p + i * sizeof(U), sizeof(U));
    return x;
  }

  // Pairs (left[i], right[i]) for i < kBlock; row_ok must be set up for the block.
  // __restrict: the slab is only read, so it never aliases the staging arrays; without it gcc
  // wants a runtime alias check, which its -O2 cost model refuses.
  void stage(const unsigned char *__restrict left, const unsigned char *__restrict right) {
    U pairs = 0;
    for (int64_t i = 0; i < kBlock; ++i) {
      const U a_ieee = load(left, i), b_ieee = load(right, i);
      const U m = U(0) - (usable(a_ieee) & usable(b_ieee) & row_ok[i]);
      const U a = signed_exponent(a_ieee), b = signed_exponent(b_ieee);
      wa[i] = a & m;
      wb[i] = b & m;
      wab[i] = a & b & m;
      pairs += m & 1;
    }
    tally.pairs += pairs;
  }

  // Field masks and stage sizes of popcount_positions.
  static constexpr U kM1 = ~U(0) / 3;     // 0x55...
  static constexpr U kM2 = ~U(0) / 5;     // 0x33...
  static constexpr U kM4 = ~U(0) / 0x11;  // 0x0f...
  static constexpr int64_t kT1 = kBlock / 3, kT2 = kT1 / 5;
  static_assert(kT2 * 15 == kBlock && kT2 * 15 < 256, "block must split 3 x 5 x kT2 < 256");

  // Adds the number of words of w[0 .. kBlock) with each bit set to ones[bit]: a positional
  // popcount that sums in ever wider fields, each wide enough for its largest sum, so that no
  // field carries into the next: 3 words into 2-bit fields (at most 3), 5 of those into 4-bit
  // fields (at most 15), kT2 of those into bytes (at most 240). About a third of the work of
  // adding each bit position into bytes directly.
  static void popcount_positions(const U *w, uint64_t *ones) {
    U even[kT1], odd[kT1];  // 2-bit fields counting bit 2f (even) and 2f+1 (odd)
    for (int64_t i = 0; i < kT1; ++i) {
      const U x = w[i], y = w[i + kT1], z = w[i + 2 * kT1];
      even[i] = (x & kM1) + (y & kM1) + (z & kM1);
      odd[i] = ((x >> 1) & kM1) + ((y >> 1) & kM1) + ((z >> 1) & kM1);
    }
    U q[4][kT2];  // 4-bit fields counting bits 4g + {0, 2, 1, 3}
    for (int64_t i = 0; i < kT2; ++i) {
      U q0 = 0, q1 = 0, q2 = 0, q3 = 0;
      for (int64_t j = 0; j < 5; ++j) {
        const U e = even[i + j * kT2], o = odd[i + j * kT2];
        q0 += e & kM2;
        q1 += (e >> 2) & kM2;
        q2 += o & kM2;
        q3 += (o >> 2) & kM2;
      }
      q[0][i] = q0;
      q[1][i] = q1;
      q[2][i] = q2;
      q[3][i] = q3;
    }
    U a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;  // bytes: bit 8h + k
    for (int64_t i = 0; i < kT2; ++i) {
      a0 += q[0][i] & kM4;
      a4 += (q[0][i] >> 4) & kM4;
      a2 += q[1][i] & kM4;
      a6 += (q[1][i] >> 4) & kM4;
      a1 += q[2][i] & kM4;
      a5 += (q[2][i] >> 4) & kM4;
      a3 += q[3][i] & kM4;
      a7 += (q[3][i] >> 4) & kM4;
    }
    const U acc[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
    for (int k = 0; k < 8; ++k)
      for (int j = 0; j < int(sizeof(U)); ++j) ones[8 * j + k] += (acc[k] >> (8 * j)) & 0xff;
  }

  void count_block(const unsigned char *left, const unsigned char *right) {
    stage(left, right);
    popcount_positions(wa, tally.ones_a);
    popcount_positions(wb, tally.ones_b);
    popcount_positions(wab, tally.ones_ab);
  }

  // Sets row_ok to value where the pair's right element starts a row; local pair i has global
  // left index g0 + i.
  void mask_rows(int64_t g0, int64_t row_length, U value) {
    const int64_t i0 = (row_length - (g0 + 1) % row_length) % row_length;
    for (int64_t i = i0; i < kBlock; i += row_length) row_ok[i] = value;
  }

  void count(const unsigned char *v, int64_t first, int64_t n, int64_t row_length,
             const unsigned char *next) {
    std::fill(row_ok, row_ok + kBlock, ~U(0));
    // Pairs whose left element is local index i < npairs; the last one's right is `next`.
    const int64_t npairs = n == 0 ? 0 : (next != nullptr ? n : n - 1);
    int64_t i = 0;
    // Full blocks whose right elements all lie in the slab read it in place.
    for (; i + kBlock <= n - 1; i += kBlock) {
      mask_rows(first + i, row_length, 0);
      count_block(v + i * sizeof(U), v + (i + 1) * sizeof(U));
      mask_rows(first + i, row_length, ~U(0));
    }
    const int64_t len = npairs - i;
    if (len <= 0) return;
    // The rest (at most kBlock pairs, perhaps ending with the halo) goes through a padded copy.
    U tail[kBlock + 1] = {};
    const int64_t in_slab = std::min(len + 1, n - i);
    std::memcpy(tail, v + i * sizeof(U), in_slab * sizeof(U));
    if (in_slab == len) std::memcpy(&tail[len], next, sizeof(U));
    mask_rows(first + i, row_length, 0);
    std::fill(row_ok + len, row_ok + kBlock, U(0));
    const auto *bytes = reinterpret_cast<const unsigned char *>(tail);
    count_block(bytes, bytes + sizeof(U));
  }
};

template <class T, class U>
void count_pairs(const void *values, int64_t first, int64_t n, int64_t row_length, const void *next,
                 const void *fill, BitPairCounts *counts) {
  // About 3 KiB (float) to 6 KiB (double) of staging: on the heap, not the caller's stack.
  auto counter = std::make_unique<PairCounter<U>>();
  const T inf = std::numeric_limits<T>::infinity();
  std::memcpy(&counter->inf_bits, &inf, sizeof(U));
  counter->fill_bits = counter->inf_bits | 1;
  if (fill != nullptr) std::memcpy(&counter->fill_bits, fill, sizeof(U));
  counter->count(static_cast<const unsigned char *>(values), first, n, row_length,
                 static_cast<const unsigned char *>(next));

  const Tally &t = counter->tally;
  const int nbits = 8 * sizeof(U);
  for (int p = 0; p < nbits; ++p) {
    uint64_t *c = &counts->counts[static_cast<size_t>(nbits - 1 - p) * 4];
    const uint64_t a = t.ones_a[p], b = t.ones_b[p], ab = t.ones_ab[p];
    c[0] += t.pairs - a - b + ab;
    c[1] += b - ab;
    c[2] += a - ab;
    c[3] += ab;
  }
}

double binary_entropy(double p) {
  double h = 0;
  if (p > 0) h -= p * std::log2(p);
  if (p < 1) h -= (1 - p) * std::log2(1 - p);
  return h;
}

}  // namespace

BitPairCounts BitPairCounts::for_type(esmio_type type) {
  if (type == ESMIO_FLOAT) return BitPairCounts(32);
  if (type == ESMIO_DOUBLE) return BitPairCounts(64);
  return BitPairCounts();
}

uint64_t BitPairCounts::pairs() const {
  if (counts.size() < 4) return 0;
  return counts[0] + counts[1] + counts[2] + counts[3];
}

bool BitPairCounts::merge(const BitPairCounts &other) {
  if (other.nbits == 0) return true;
  if (nbits == 0) *this = BitPairCounts(other.nbits);
  if (nbits != other.nbits || counts.size() != other.counts.size()) return false;
  for (size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
  return true;
}

Status count_neighbour_pairs(esmio_type type, const void *values, int64_t first, int64_t n,
                             int64_t row_length, const void *next, const void *fill,
                             BitPairCounts *counts) {
  if (type != ESMIO_FLOAT && type != ESMIO_DOUBLE)
    return Status(ESMIO_EBADTYPE, "bit information: only float and double values");
  if (counts == nullptr || first < 0 || n < 0 || row_length <= 0 || (n > 0 && values == nullptr))
    return Status(ESMIO_EINVAL, "bit information: bad slab or null argument");
  const int nbits = type == ESMIO_FLOAT ? 32 : 64;
  if (counts->nbits == 0) *counts = BitPairCounts(nbits);
  if (counts->nbits != nbits || counts->counts.size() != static_cast<size_t>(nbits) * 4)
    return Status(ESMIO_EINVAL, "bit information: counts are for another type");
  if (type == ESMIO_FLOAT) {
    count_pairs<float, uint32_t>(values, first, n, row_length, next, fill, counts);
  } else {
    count_pairs<double, uint64_t>(values, first, n, row_length, next, fill, counts);
  }
  return Status::ok();
}

double normal_quantile(double p) {
  if (!(p >= 0 && p <= 1)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0) return -std::numeric_limits<double>::infinity();
  if (p == 1) return std::numeric_limits<double>::infinity();
  // P. J. Acklam's approximation, relative error below 1.15e-9 ...
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  double x;
  if (p < kLow || p > 1 - kLow) {
    const double q = std::sqrt(-2 * std::log(p < kLow ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > 1 - kLow) x = -x;
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  // ... which one Halley step on Phi(x) - p, with Phi from erfc, takes to double precision.
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  constexpr double kSqrt2Pi = 2.50662827463100050242;
  const double u = e * kSqrt2Pi * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double binomial_free_entropy(uint64_t n, double confidence) {
  if (n == 0) return 1;
  const double z = normal_quantile(1 - (1 - confidence) / 2);
  const double p = std::min(1.0, 0.5 + z / (2 * std::sqrt(static_cast<double>(n))));
  return 1 - binary_entropy(p);
}

std::vector<double> bit_information(const BitPairCounts &c, double confidence) {
  if (!(confidence >= 0 && confidence < 1) || c.nbits == 0 ||
      c.counts.size() != static_cast<size_t>(c.nbits) * 4)
    return {};
  std::vector<double> info(c.nbits, 0.0);
  const uint64_t total = c.pairs();
  if (total == 0) return info;
  const double n = static_cast<double>(total);
  const double free_entropy = binomial_free_entropy(total, confidence);
  for (int bit = 0; bit < c.nbits; ++bit) {
    double p[2][2];
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) p[a][b] = static_cast<double>(c.at(bit, a, b)) / n;
    const double pa[2] = {p[0][0] + p[0][1], p[1][0] + p[1][1]};
    const double pb[2] = {p[0][0] + p[1][0], p[0][1] + p[1][1]};
    double m = 0;
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b)
        if (p[a][b] > 0) m += p[a][b] * std::log2(p[a][b] / (pa[a] * pb[b]));
    // Rounding can leave a hair below 0 for independent bits; the threshold (>= 0) clears it.
    info[bit] = m > free_entropy ? m : 0.0;
  }
  return info;
}

int keepbits_for(esmio_type type, const std::vector<double> &info, double fraction) {
  const int mbits = mantissa_bits(type);
  const int ebits = exponent_bits(type);
  if (mbits == 0 || !(fraction > 0 && fraction <= 1)) return -1;
  if (info.size() != static_cast<size_t>(1 + ebits + mbits)) return -1;
  std::vector<double> cumulative(info.size());
  double sum = 0;
  for (size_t i = 0; i < info.size(); ++i) {
    if (!(info[i] >= 0) || !std::isfinite(info[i])) return -1;
    cumulative[i] = sum += info[i];
  }
  // The total is the last partial sum itself, so a fraction of 1 is reached exactly at the last
  // informative bit despite rounding in the sums.
  const double total = cumulative.back();
  if (!(total > 0)) return mbits;
  int position = static_cast<int>(info.size()) - 1;
  for (size_t i = 0; i < info.size(); ++i) {
    if (cumulative[i] / total >= fraction) {
      position = static_cast<int>(i);
      break;
    }
  }
  return std::clamp(position - (1 + ebits) + 1, 0, mbits);
}

int reference_keepbits(esmio_type type, const std::vector<double> &info, double fraction) {
  const int mbits = mantissa_bits(type);
  const int ebits = exponent_bits(type);
  if (mbits == 0 || !(fraction > 0 && fraction <= 1) ||
      info.size() != static_cast<size_t>(1 + ebits + mbits))
    return std::numeric_limits<int>::min();
  for (double x : info)
    if (!(x >= 0) || !std::isfinite(x)) return std::numeric_limits<int>::min();
  if (fraction == 1) return mbits;
  const size_t n = info.size();
  const double noise = 1.5 * std::max({info[n - 4], info[n - 3], info[n - 2], info[n - 1]});
  std::vector<double> cumulative(n);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) cumulative[i] = sum += info[i] > noise ? info[i] : 0.0;
  // xarray's argmax of an all-false (all-NaN) cdf is 0: the same position here.
  int position = 0;
  if (sum > 0)
    for (size_t i = 0; i < n; ++i)
      if (cumulative[i] / sum > fraction) {
        position = static_cast<int>(i);
        break;
      }
  return position + 1 - (1 + ebits);
}

const char *keepbits_reason_name(KeepbitsReason reason) {
  switch (reason) {
    case KeepbitsReason::reference:
      return "reference";
    case KeepbitsReason::floor:
      return "floor";
    case KeepbitsReason::no_information:
      return "no_information";
    case KeepbitsReason::artificial_information:
      return "artificial_information";
    case KeepbitsReason::maxrel:
      return "maxrel";
  }
  return "?";
}

KeepbitsChoice choose_keepbits(esmio_type type, const std::vector<double> &info, double fraction,
                               double maxrel, int minbits) {
  KeepbitsChoice c;
  const int mbits = mantissa_bits(type);
  const int unfiltered = keepbits_for(type, info, fraction);
  c.reference = reference_keepbits(type, info, fraction);
  if (unfiltered < 0 || c.reference == std::numeric_limits<int>::min() || maxrel < 0 ||
      !(maxrel < 1) || minbits < 0)
    return KeepbitsChoice{};
  double total = 0;
  for (double x : info) total += x;
  if (!(total > 0)) {
    c.keepbits = mbits;
    c.reason = KeepbitsReason::no_information;
  } else if (c.reference <= 0) {
    c.keepbits = unfiltered;
    c.reason = KeepbitsReason::artificial_information;
  } else if (c.reference < std::min(minbits, mbits)) {
    c.keepbits = std::min(minbits, mbits);
    c.reason = KeepbitsReason::floor;
  } else {
    c.keepbits = std::min(c.reference, mbits);
  }
  if (maxrel > 0) {
    // 2^-(k+1) <= maxrel  <=>  k >= -log2(maxrel) - 1
    const int needed = std::clamp(static_cast<int>(std::ceil(-std::log2(maxrel) - 1)), 0, mbits);
    if (needed > c.keepbits) {
      c.keepbits = needed;
      c.reason = KeepbitsReason::maxrel;
    }
  }
  return c;
}

}  // namespace esmio::quantize
