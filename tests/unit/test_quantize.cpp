// Quantisation kernels: bit-pair counts against a naive per-pair oracle and across slab splits,
// the information analysis on sequences whose answer is known, and BitRound against an oracle
// built from frexp/nearbyint (round to nearest even in the default floating-point mode).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "quantize/bit_information.hpp"
#include "quantize/bitround.hpp"

namespace esmio::quantize {
namespace {

constexpr double kPi = 3.14159265358979323846;

template <class T>
using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

template <class T>
constexpr esmio_type type_of() {
  return std::is_same_v<T, float> ? ESMIO_FLOAT : ESMIO_DOUBLE;
}

template <class T>
Bits<T> bits_of(T v) {
  Bits<T> b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

template <class T>
T from_bits(Bits<T> b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

template <class T>
bool same_bits(T a, T b) {
  return bits_of(a) == bits_of(b);
}

// BitInformation.jl's signed_exponent, written as its source reads (signed integers, branches):
// e = biased exponent - bias; the exponent field becomes (e < 0) in its first bit and |e| below.
template <class T>
Bits<T> signed_exponent(Bits<T> ui) {
  constexpr int kSbits = std::numeric_limits<T>::digits - 1;  // 23 or 52
  constexpr int kBits = 8 * sizeof(T);
  const Bits<T> emask = ((Bits<T>(1) << (kBits - 1)) - 1) & ~((Bits<T>(1) << kSbits) - 1);
  const Bits<T> sfmask = ~emask;
  const int64_t bias = std::numeric_limits<T>::max_exponent - 1;  // 127 or 1023
  const int64_t e = static_cast<int64_t>((ui & emask) >> kSbits) - bias;
  const Bits<T> eabs = static_cast<Bits<T>>(e < 0 ? -e : e);
  const Bits<T> esign = e < 0 ? Bits<T>(1) << (kBits - 2) : 0;
  return (ui & sfmask) | esign | (eabs << kSbits);
}

TEST(SignedExponent, MatchesBitInformationJlDocstring) {
  // bitstring(10f0) "0 10000010 0100..." becomes "0 00000011 0100..." (exponent +3).
  EXPECT_EQ(signed_exponent<float>(bits_of(10.0f)), (3u << 23) | (1u << 21));
  // 0.25f: exponent -2: the exponent's sign bit and magnitude 2.
  EXPECT_EQ(signed_exponent<float>(bits_of(0.25f)), (1u << 30) | (2u << 23));
  // -1.0: exponent 0, the value's sign kept.
  EXPECT_EQ(signed_exponent<double>(bits_of(-1.0)), uint64_t(1) << 63);
}

// The definition, one pair and one bit at a time, on the signed-exponent patterns.
template <class T>
BitPairCounts naive_counts(const std::vector<T> &v, int64_t row_length, const T *fill) {
  constexpr int kBits = 8 * sizeof(T);
  BitPairCounts c(kBits);
  auto usable = [&](T x) { return !std::isnan(x) && !(fill && same_bits(x, *fill)); };
  for (size_t g = 0; g + 1 < v.size(); ++g) {
    if ((g + 1) % row_length == 0 || !usable(v[g]) || !usable(v[g + 1])) continue;
    const Bits<T> a = signed_exponent<T>(bits_of(v[g])), b = signed_exponent<T>(bits_of(v[g + 1]));
    for (int bit = 0; bit < kBits; ++bit) {
      const int s = kBits - 1 - bit;
      c.counts[bit * 4 + 2 * ((a >> s) & 1) + ((b >> s) & 1)]++;
    }
  }
  return c;
}

// Counts v as slabs [cuts[k], cuts[k+1]), each with its halo, merged.
template <class T>
BitPairCounts split_counts(const std::vector<T> &v, std::vector<int64_t> cuts, int64_t row_length,
                           const T *fill) {
  const int64_t total = static_cast<int64_t>(v.size());
  cuts.push_back(0);
  cuts.push_back(total);
  std::sort(cuts.begin(), cuts.end());
  BitPairCounts sum;
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    const int64_t first = cuts[k], n = cuts[k + 1] - cuts[k];
    const T *next = first + n < total ? &v[first + n] : nullptr;
    BitPairCounts slab;
    Status s = count_neighbour_pairs(type_of<T>(), v.data() + first, first, n, row_length, next,
                                     fill, &slab);
    EXPECT_TRUE(s.is_ok()) << s.message();
    EXPECT_TRUE(sum.merge(slab));
  }
  return sum;
}

template <class T>
BitPairCounts whole_counts(const std::vector<T> &v, int64_t row_length, const T *fill) {
  return split_counts(v, {}, row_length, fill);
}

template <class T>
std::vector<double> information(const std::vector<T> &v, int64_t row_length,
                                double confidence = 0.99) {
  return bit_information(whole_counts<T>(v, row_length, nullptr), confidence);
}

double total(const std::vector<double> &info) {
  double s = 0;
  for (double x : info) s += x;
  return s;
}

// Random values over many binades, both signs, some NaN (with payloads), Inf, zeros and fills.
template <class T>
std::vector<T> mixed_values(size_t n, T fill, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> expo(-20, 20);
  std::uniform_int_distribution<int> kind(0, 99);
  std::vector<T> v(n);
  double x = 1;
  for (size_t i = 0; i < n; ++i) {
    // A random walk, so that neighbours share bits, with excursions to special values.
    x = x * 0.9 + 0.1 * std::ldexp(mant(rng), expo(rng) / 4);
    const int k = kind(rng);
    if (k < 3) {
      v[i] = fill;
    } else if (k < 5) {
      v[i] = from_bits<T>(bits_of(std::numeric_limits<T>::quiet_NaN()) | (rng() & 0xff));
    } else if (k < 6) {
      v[i] = (k & 1 ? 1 : -1) * std::numeric_limits<T>::infinity();
    } else if (k < 7) {
      v[i] = 0;
    } else {
      v[i] = static_cast<T>(k & 1 ? x : -x);
    }
  }
  return v;
}

TEST(NormalQuantile, KnownValues) {
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489004, 1e-12);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(normal_quantile(0.8413447460685429), 1.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-9);
  EXPECT_NEAR(normal_quantile(1 - 1e-10), 6.361340889697422, 1e-6);  // 1 - 1e-10 is inexact
  EXPECT_EQ(normal_quantile(0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(normal_quantile(1), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(normal_quantile(-0.1)));
  EXPECT_TRUE(std::isnan(normal_quantile(std::nan(""))));
  // Symmetric, across the three regions of the approximation (1 - p is exact enough for these).
  for (double p : {0.001, 0.02, 0.03, 0.2, 0.4999}) {
    EXPECT_NEAR(normal_quantile(p), -normal_quantile(1 - p), 1e-12) << p;
  }
}

TEST(NormalQuantile, InvertsPhi) {
  for (double z = -37; z <= 0; z += 0.37) {
    const double p = 0.5 * std::erfc(-z / std::sqrt(2.0));
    EXPECT_NEAR(normal_quantile(p), z, 1e-12 * std::max(1.0, std::fabs(z))) << z;
  }
  // Above the median p itself carries an absolute rounding error of up to 2^-53, which moves
  // the quantile by that over the density.
  for (double z = 0; z <= 7; z += 0.37) {
    const double p = 1 - 0.5 * std::erfc(z / std::sqrt(2.0));
    const double density = std::exp(-z * z / 2) / std::sqrt(2 * kPi);
    EXPECT_NEAR(normal_quantile(p), z, 1e-12 * std::max(1.0, z) + 0x1p-53 / density) << z;
  }
}

TEST(BinomialFreeEntropy, MatchesBitInformationJl) {
  // BitInformation.jl's documented example: binom_confidence(1000, 0.95) = 0.5309897516152281.
  const double p = 0.5309897516152281;
  const double h = -p * std::log2(p) - (1 - p) * std::log2(1 - p);
  EXPECT_NEAR(binomial_free_entropy(1000, 0.95), 1 - h, 1e-12);
  EXPECT_EQ(binomial_free_entropy(0, 0.99), 1.0);
  EXPECT_EQ(binomial_free_entropy(1, 0.99), 1.0);  // p capped at 1
  EXPECT_LT(binomial_free_entropy(1000000, 0.99), binomial_free_entropy(1000, 0.99));
  EXPECT_EQ(binomial_free_entropy(1000, 0.0), 0.0);
}

TEST(BitInformation, IdenticalNeighboursOnARandomBitGiveOneBit) {
  // Rows of two equal values: within a row the neighbours share a random mantissa bit, and
  // pairs never cross rows, so that bit carries ~1 bit and every constant bit none.
  std::mt19937 rng(42);
  const int bit = 15;  // position from the sign bit: mantissa bit 6
  std::vector<float> v;
  for (int r = 0; r < 100000; ++r) {
    const uint32_t b = 0x3f800000u | ((rng() & 1u) << (31 - bit));
    v.push_back(from_bits<float>(b));
    v.push_back(from_bits<float>(b));
  }
  const BitPairCounts c = whole_counts<float>(v, 2, nullptr);
  EXPECT_EQ(c.pairs(), 100000u);
  const std::vector<double> info = bit_information(c);
  ASSERT_EQ(info.size(), 32u);
  for (int i = 0; i < 32; ++i) {
    if (i == bit) {
      EXPECT_NEAR(info[i], 1.0, 1e-4);
    } else {
      EXPECT_EQ(info[i], 0.0) << i;
    }
  }
}

TEST(BitInformation, IndependentRandomBitsAreInsignificant) {
  std::mt19937 rng(7);
  std::vector<float> v(200000);
  for (float &x : v) x = from_bits<float>(0x3f800000u | (rng() & 0x7fffffu));  // [1, 2)
  // Raw mutual information is tiny but positive; the threshold is what clears it.
  const std::vector<double> raw = information(v, v.size(), 0.0);
  for (int i = 9; i < 32; ++i) EXPECT_LT(raw[i], 1e-4) << i;
  EXPECT_GT(total(raw), 0.0);
  // At a confidence of 1 - 1e-9 a false positive in any of 23 bits has odds of ~2e-8.
  const std::vector<double> strict = information(v, v.size(), 1 - 1e-9);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(strict[i], 0.0) << i;
  // At 0.99 the threshold lets each independent bit through with probability about 0.01 (that
  // is what the confidence means): allow a few, and only with negligible information.
  const std::vector<double> usual = information(v, v.size());
  int passed = 0;
  for (int i = 0; i < 32; ++i) {
    if (usual[i] > 0) ++passed;
    EXPECT_LT(usual[i], 1e-4) << i;
  }
  EXPECT_LE(passed, 3);
}

TEST(BitInformation, SmoothFieldIsInformativeOnlyInLeadingBits) {
  const int n = 100000;
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(std::sin(2 * kPi * 3 * i / n));
  const std::vector<double> info = information(v, n);
  EXPECT_GT(info[0], 0.9);  // the sign changes 6 times in 10^5 pairs
  double leading = 0;
  for (int i = 9; i < 9 + 8; ++i) leading += info[i];  // first 8 mantissa bits
  EXPECT_GT(leading, 4.0);
  double trailing = 0;
  for (int i = 32 - 6; i < 32; ++i) trailing += info[i];
  EXPECT_LT(trailing, 1e-3);
  // And in double the trailing ~40 mantissa bits are noise to a smooth field too.
  std::vector<double> d(n);
  for (int i = 0; i < n; ++i) d[i] = std::sin(2 * kPi * 3 * i / n);
  const std::vector<double> dinfo = information(d, n);
  ASSERT_EQ(dinfo.size(), 64u);
  EXPECT_GT(dinfo[0], 0.9);
  double dtrailing = 0;
  for (int i = 64 - 30; i < 64; ++i) dtrailing += dinfo[i];
  EXPECT_LT(dtrailing, 1e-3);
}

TEST(BitInformation, EmptyAndBadInput) {
  BitPairCounts none(32);
  const std::vector<double> zero = bit_information(none);
  ASSERT_EQ(zero.size(), 32u);
  EXPECT_EQ(total(zero), 0.0);
  EXPECT_TRUE(bit_information(none, 1.0).empty());
  EXPECT_TRUE(bit_information(none, -0.1).empty());
  EXPECT_TRUE(bit_information(BitPairCounts()).empty());
}

template <class T>
void check_layout_independence(uint32_t seed) {
  const T fill = static_cast<T>(9.9692099683868690e+36);
  // Long enough for several full blocks of the kernel, with rows of awkward lengths.
  const std::vector<T> v = mixed_values<T>(5003, fill, seed);
  const int64_t total_n = static_cast<int64_t>(v.size());
  std::mt19937_64 rng(seed + 1);
  for (int64_t row_length : {int64_t(1), int64_t(2), int64_t(37), int64_t(240), int64_t(241),
                             int64_t(1000), total_n, total_n * 3}) {
    for (const T *f : {&fill, static_cast<const T *>(nullptr)}) {
      const BitPairCounts oracle = naive_counts(v, row_length, f);
      const BitPairCounts whole = whole_counts(v, row_length, f);
      ASSERT_EQ(whole.counts, oracle.counts) << "row_length " << row_length;
      for (int trial = 0; trial < 20; ++trial) {
        std::vector<int64_t> cuts;
        const int ncuts = 1 + static_cast<int>(rng() % 12);
        for (int k = 0; k < ncuts; ++k) {
          switch (rng() % 4) {
            case 0:  // anywhere
              cuts.push_back(static_cast<int64_t>(rng() % (total_n + 1)));
              break;
            case 1:  // at a row boundary
              cuts.push_back(std::min(
                  total_n, static_cast<int64_t>(rng() % (total_n + 1)) / row_length * row_length));
              break;
            case 2:  // a slab of length 0 (duplicate cut) and of length 1
              cuts.push_back(static_cast<int64_t>(rng() % total_n));
              cuts.push_back(cuts.back());
              cuts.push_back(cuts.back() + 1);
              break;
            default:  // just after a row boundary
              cuts.push_back(std::min(
                  total_n, static_cast<int64_t>(rng() % total_n) / row_length * row_length + 1));
          }
        }
        const BitPairCounts split = split_counts(v, cuts, row_length, f);
        ASSERT_EQ(split.counts, oracle.counts) << "row_length " << row_length << " trial " << trial;
      }
    }
  }
  // Every element its own slab.
  std::vector<int64_t> all(v.size());
  for (size_t i = 0; i < v.size(); ++i) all[i] = static_cast<int64_t>(i);
  EXPECT_EQ(split_counts(v, all, 37, &fill).counts, naive_counts(v, 37, &fill).counts);
}

TEST(CountNeighbourPairs, LayoutIndependentFloat) { check_layout_independence<float>(11); }
TEST(CountNeighbourPairs, LayoutIndependentDouble) { check_layout_independence<double>(12); }

TEST(CountNeighbourPairs, SlabsMayStartMidRecord) {
  // A slab whose first global index is not 0 counts rows relative to the record, not the slab.
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  BitPairCounts c;
  // Global indices 5..10 with rows of 4: pairs (5,6), (6,7), (8,9), (9,10); 7|8 is a row end.
  ASSERT_TRUE(count_neighbour_pairs(ESMIO_FLOAT, v.data(), 5, 6, 4, nullptr, nullptr, &c).is_ok());
  EXPECT_EQ(c.pairs(), 4u);
  // With a halo at index 11 (not a row start): one more pair.
  const float halo = 7;
  BitPairCounts h;
  ASSERT_TRUE(count_neighbour_pairs(ESMIO_FLOAT, v.data(), 5, 6, 4, &halo, nullptr, &h).is_ok());
  EXPECT_EQ(h.pairs(), 5u);
  // Ending at a row end (global 4..7, rows of 4): the halo starts a row and is not paired.
  BitPairCounts r;
  ASSERT_TRUE(count_neighbour_pairs(ESMIO_FLOAT, v.data(), 4, 4, 4, &halo, nullptr, &r).is_ok());
  EXPECT_EQ(r.pairs(), 3u);
}

TEST(CountNeighbourPairs, FillAndNanAreLeftOut) {
  const float fill = 9.96921e36f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> v = {1, 2, fill, 3, nan, 4, 5, inf, -inf};
  // Pairs: (1,2) (4,5) (5,inf) (inf,-inf) are usable; (2,fill) (fill,3) (3,nan) (nan,4) are not.
  BitPairCounts c;
  ASSERT_TRUE(
      count_neighbour_pairs(ESMIO_FLOAT, v.data(), 0, v.size(), v.size(), nullptr, &fill, &c)
          .is_ok());
  EXPECT_EQ(c.pairs(), 4u);
  EXPECT_EQ(c.counts, naive_counts(v, v.size(), &fill).counts);
  // Without a fill value, the fill is an ordinary number: two more pairs.
  BitPairCounts nofill;
  ASSERT_TRUE(
      count_neighbour_pairs(ESMIO_FLOAT, v.data(), 0, v.size(), v.size(), nullptr, nullptr, &nofill)
          .is_ok());
  EXPECT_EQ(nofill.pairs(), 6u);
  // Bit-equal, not equal: -0 is not a fill of +0.
  const std::vector<float> zeros = {0.0f, -0.0f, -0.0f, 0.0f};
  const float zero_fill = 0.0f;
  BitPairCounts z;
  ASSERT_TRUE(
      count_neighbour_pairs(ESMIO_FLOAT, zeros.data(), 0, 4, 4, nullptr, &zero_fill, &z).is_ok());
  EXPECT_EQ(z.pairs(), 1u);
  // A halo that is fill or NaN drops the boundary pair.
  for (float halo : {fill, nan}) {
    BitPairCounts hc;
    ASSERT_TRUE(count_neighbour_pairs(ESMIO_FLOAT, v.data(), 0, 2, 100, &halo, &fill, &hc).is_ok());
    EXPECT_EQ(hc.pairs(), 1u);
  }
  // The same in double, with the default double fill.
  const double dfill = 9.9692099683868690e+36;
  const std::vector<double> d = {1, dfill, 2, 3, std::nan(""), 4, 5};
  BitPairCounts dc;
  ASSERT_TRUE(
      count_neighbour_pairs(ESMIO_DOUBLE, d.data(), 0, d.size(), d.size(), nullptr, &dfill, &dc)
          .is_ok());
  EXPECT_EQ(dc.pairs(), 2u);
}

TEST(CountNeighbourPairs, Errors) {
  const float v[2] = {1, 2};
  const int32_t iv[2] = {1, 2};
  BitPairCounts c;
  EXPECT_EQ(count_neighbour_pairs(ESMIO_INT, iv, 0, 2, 2, nullptr, nullptr, &c).code(),
            ESMIO_EBADTYPE);
  EXPECT_EQ(count_neighbour_pairs(ESMIO_FLOAT, v, 0, 2, 2, nullptr, nullptr, nullptr).code(),
            ESMIO_EINVAL);
  EXPECT_EQ(count_neighbour_pairs(ESMIO_FLOAT, v, -1, 2, 2, nullptr, nullptr, &c).code(),
            ESMIO_EINVAL);
  EXPECT_EQ(count_neighbour_pairs(ESMIO_FLOAT, v, 0, -2, 2, nullptr, nullptr, &c).code(),
            ESMIO_EINVAL);
  EXPECT_EQ(count_neighbour_pairs(ESMIO_FLOAT, v, 0, 2, 0, nullptr, nullptr, &c).code(),
            ESMIO_EINVAL);
  EXPECT_EQ(count_neighbour_pairs(ESMIO_FLOAT, nullptr, 0, 2, 2, nullptr, nullptr, &c).code(),
            ESMIO_EINVAL);
  EXPECT_TRUE(count_neighbour_pairs(ESMIO_FLOAT, nullptr, 0, 0, 2, nullptr, nullptr, &c).is_ok());
  EXPECT_EQ(c.nbits, 32);  // bound to the type even by an empty slab
  BitPairCounts d(64);
  EXPECT_EQ(count_neighbour_pairs(ESMIO_FLOAT, v, 0, 2, 2, nullptr, nullptr, &d).code(),
            ESMIO_EINVAL);
  EXPECT_FALSE(c.merge(d));
  BitPairCounts unbound;
  EXPECT_TRUE(c.merge(unbound));
  EXPECT_EQ(c.pairs(), 0u);
}

TEST(KeepbitsFor, ConstructedInformation) {
  std::vector<double> info(32, 0.0);
  info[0] = 0.5;               // sign
  for (int i = 1; i < 9; ++i)  // exponent
    info[i] = 0.2;
  for (int m = 0; m < 12; ++m) info[9 + m] = 1.0 / (m + 1);  // mantissa bits 0..11
  // 1.0: everything up to the last informative bit, mantissa bit 11 -> 12 bits.
  EXPECT_EQ(keepbits_for(ESMIO_FLOAT, info, 1.0), 12);
  // Information only in sign and exponent: no mantissa bit is needed.
  std::vector<double> exponent_only(32, 0.0);
  exponent_only[3] = 1;
  EXPECT_EQ(keepbits_for(ESMIO_FLOAT, exponent_only, 1.0), 0);
  EXPECT_EQ(keepbits_for(ESMIO_FLOAT, exponent_only, 0.5), 0);
  // The first mantissa bit reaching the fraction: sign+exponent hold 2.1 of the total.
  double sum = 0;
  for (double x : info) sum += x;
  const double after_first_mantissa_bit = (0.5 + 8 * 0.2 + 1.0) / sum;
  EXPECT_EQ(keepbits_for(ESMIO_FLOAT, info, after_first_mantissa_bit - 1e-12), 1);
  EXPECT_EQ(keepbits_for(ESMIO_FLOAT, info, after_first_mantissa_bit + 1e-9), 2);
  // Total zero: keep every bit.
  EXPECT_EQ(keepbits_for(ESMIO_FLOAT, std::vector<double>(32, 0.0), 0.99), 23);
  EXPECT_EQ(keepbits_for(ESMIO_DOUBLE, std::vector<double>(64, 0.0), 0.99), 52);
  // Double layout: 11 exponent bits.
  std::vector<double> dinfo(64, 0.0);
  dinfo[12 + 30] = 1;  // mantissa bit 30
  EXPECT_EQ(keepbits_for(ESMIO_DOUBLE, dinfo, 0.5), 31);
}

TEST(KeepbitsFor, Errors) {
  const std::vector<double> info(32, 0.1);
  for (double f : {0.0, -0.5, 1.0000001, 2.0, std::nan("")})
    EXPECT_EQ(keepbits_for(ESMIO_FLOAT, info, f), -1) << f;
  EXPECT_EQ(keepbits_for(ESMIO_DOUBLE, info, 0.9), -1);  // wrong size
  EXPECT_EQ(keepbits_for(ESMIO_INT, info, 0.9), -1);
  std::vector<double> negative = info;
  negative[5] = -1;
  EXPECT_EQ(keepbits_for(ESMIO_FLOAT, negative, 0.9), -1);
  std::vector<double> inf = info;
  inf[5] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(keepbits_for(ESMIO_FLOAT, inf, 0.9), -1);
}

// A smooth field of about 280 plus noise of 0.01 (2^-15 of the values), on rows of cols.
std::vector<float> noisy_field(int rows, int cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<float> v(static_cast<size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      v[static_cast<size_t>(r) * cols + c] = static_cast<float>(
          280 + 20 * std::sin(2 * kPi * c / cols) * std::cos(kPi * r / rows) + noise(rng));
  return v;
}

TEST(KeepbitsFor, MonotoneInFraction) {
  const std::vector<float> v = noisy_field(100, 1000, 3);
  const std::vector<double> info = information(v, 1000);
  int previous = 0;
  for (double f = 0.05; f <= 1.0; f += 0.05) {
    const int k = keepbits_for(ESMIO_FLOAT, info, f);
    EXPECT_GE(k, previous) << f;
    previous = k;
  }
  const double fine[] = {0.9, 0.99, 0.999, 0.9999, 1.0};
  for (double f : fine) {
    const int k = keepbits_for(ESMIO_FLOAT, info, f);
    EXPECT_GE(k, previous) << f;
    previous = k;
  }
}

// frexp/nearbyint oracle: for normal x, round the significand to keepbits+1 bits in the
// default rounding mode (to nearest, ties to even).
// At keepbits 0 the significand has no kept fraction bit to make even; there the exponent's
// lowest bit is the last kept bit (as in BitInformation.jl's round), so a tie between 2^(e-1) and
// 2^e goes to the even biased exponent: 2^(e-1) for even e, the biases being odd.
template <class T>
T oracle_round(T x, int keepbits) {
  int e;
  const T f = std::frexp(x, &e);  // x = f 2^e, 0.5 <= |f| < 1
  if (keepbits == 0 && std::fabs(f) == T(0.75))
    return std::copysign(std::ldexp(T(1), e % 2 == 0 ? e - 1 : e), x);
  return std::ldexp(std::nearbyint(std::ldexp(f, keepbits + 1)), e - keepbits - 1);
}

template <class T>
void check_bitround_random(uint32_t seed) {
  constexpr esmio_type kType = type_of<T>();
  const int mbits = mantissa_bits(kType);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> expo(-60, 60);
  std::vector<T> v(4099);  // not a multiple of the kernel's block sizes
  for (T &x : v) {
    const Bits<T> m = static_cast<Bits<T>>(rng()) & ((Bits<T>(1) << mbits) - 1);
    x = std::ldexp(from_bits<T>(bits_of(T(1)) | m), expo(rng)) * (rng() & 1 ? 1 : -1);
  }
  for (int keep = 0; keep <= mbits; ++keep) {
    std::vector<T> q = v;
    ASSERT_TRUE(bitround(kType, q.data(), q.size(), keep, nullptr).is_ok());
    const Bits<T> dropped = (Bits<T>(1) << (mbits - keep)) - 1;
    const double bound = bitround_max_relative_error(kType, keep);
    for (size_t i = 0; i < v.size(); ++i) {
      ASSERT_TRUE(same_bits(q[i], oracle_round(v[i], keep)))
          << v[i] << " keep " << keep << " got " << q[i];
      ASSERT_EQ(bits_of(q[i]) & dropped, 0u);
      const int e = std::ilogb(v[i]);
      // |x - q| <= 2^(e - keep - 1), exactly representable in double for either type.
      ASSERT_LE(std::fabs(static_cast<double>(v[i]) - static_cast<double>(q[i])),
                std::ldexp(bound, e))
          << v[i] << " keep " << keep;
    }
    // Idempotent.
    std::vector<T> twice = q;
    ASSERT_TRUE(bitround(kType, twice.data(), twice.size(), keep, nullptr).is_ok());
    ASSERT_EQ(0, std::memcmp(twice.data(), q.data(), q.size() * sizeof(T)));
    if (keep == mbits) {
      ASSERT_EQ(0, std::memcmp(v.data(), q.data(), v.size() * sizeof(T)));
    }
  }
}

TEST(Bitround, MatchesOracleFloat) { check_bitround_random<float>(21); }
TEST(Bitround, MatchesOracleDouble) { check_bitround_random<double>(22); }

TEST(Bitround, TiesToEven) {
  // keepbits 3: units of 1/8 on [1, 2); the ties are the odd multiples of 1/16.
  std::vector<float> v = {1.0625f,  1.1875f, 1.3125f,  1.4375f, -1.0625f,
                          -1.1875f, 1.9375f, 0.53125f, 1.125f,  1.09375f};
  const std::vector<float> want = {1.0f,   1.25f, 1.25f, 1.5f,   -1.0f,
                                   -1.25f, 2.0f,  0.5f,  1.125f, 1.125f};
  ASSERT_TRUE(bitround(ESMIO_FLOAT, v.data(), v.size(), 3, nullptr).is_ok());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], want[i]) << i;
  // keepbits 0: with no mantissa bit kept, the last kept bit is the exponent's lowest, so a tie
  // between two powers of two goes to the one with an even biased exponent (2 = 2^128 biased).
  std::vector<float> k0 = {1.5f, 3.0f, 1.25f, 1.75f, 6.0f, 0.75f};
  const std::vector<float> want0 = {2.0f, 2.0f, 1.0f, 2.0f, 8.0f, 0.5f};
  ASSERT_TRUE(bitround(ESMIO_FLOAT, k0.data(), k0.size(), 0, nullptr).is_ok());
  for (size_t i = 0; i < k0.size(); ++i) EXPECT_EQ(k0[i], want0[i]) << i;
  // Double, keepbits 50: the ties are odd multiples of 2^-51 above 1.
  std::vector<double> d = {1 + std::ldexp(1.0, -51), 1 + 3 * std::ldexp(1.0, -51)};
  ASSERT_TRUE(bitround(ESMIO_DOUBLE, d.data(), d.size(), 50, nullptr).is_ok());
  EXPECT_EQ(d[0], 1.0);
  EXPECT_EQ(d[1], 1 + std::ldexp(1.0, -49));
}

TEST(Bitround, SpecialValuesAndFillAreExact) {
  const float fill = 9.96921e36f;
  const float odd_fill = 1.2345678f;
  std::vector<float> v = {
      std::numeric_limits<float>::quiet_NaN(),
      from_bits<float>(0x7f800001u),  // a NaN that masking would turn into Inf
      from_bits<float>(0xffc00123u),
      std::numeric_limits<float>::infinity(),
      -std::numeric_limits<float>::infinity(),
      fill,
      odd_fill,
      0.0f,
      -0.0f,
      std::numeric_limits<float>::max(),  // overflows to Inf when rounded
      1.2345678f,
  };
  for (const float *f : {&fill, &odd_fill}) {
    std::vector<float> q = v;
    ASSERT_TRUE(bitround(ESMIO_FLOAT, q.data(), q.size(), 0, f).is_ok());
    for (size_t i = 0; i < 5; ++i) EXPECT_TRUE(same_bits(q[i], v[i])) << i;
    EXPECT_TRUE(same_bits(q[5], fill) || f != &fill);
    EXPECT_TRUE(same_bits(q[6], odd_fill) || f != &odd_fill);
    EXPECT_TRUE(same_bits(q[7], 0.0f));
    EXPECT_TRUE(same_bits(q[8], -0.0f));
    EXPECT_EQ(q[9], std::numeric_limits<float>::infinity());  // IEEE overflow, documented
  }
  // Without a fill, the fill is rounded like any number.
  std::vector<float> q = v;
  ASSERT_TRUE(bitround(ESMIO_FLOAT, q.data(), q.size(), 0, nullptr).is_ok());
  EXPECT_FALSE(same_bits(q[5], fill));
  EXPECT_EQ(q[10], 1.0f);
  // Double.
  const double dfill = 9.9692099683868690e+36;
  std::vector<double> d = {std::nan(""), from_bits<double>(0x7ff0000000000001ull),
                           -std::numeric_limits<double>::infinity(), dfill, 1.2345678901};
  const std::vector<double> d0 = d;
  ASSERT_TRUE(bitround(ESMIO_DOUBLE, d.data(), d.size(), 2, &dfill).is_ok());
  for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(same_bits(d[i], d0[i])) << i;
  EXPECT_EQ(d[4], 1.25);
}

TEST(Bitround, SubnormalsStayOnTheGrid) {
  // Subnormals round on the absolute grid of the smallest normal binade.
  std::mt19937 rng(5);
  std::vector<float> v(1000);
  for (float &x : v) x = from_bits<float>(rng() & 0x807fffffu);
  const int keep = 7;
  std::vector<float> q = v;
  ASSERT_TRUE(bitround(ESMIO_FLOAT, q.data(), q.size(), keep, nullptr).is_ok());
  const double half_unit = std::ldexp(1.0, -126 - keep - 1);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_LE(std::fabs(double(v[i]) - double(q[i])), half_unit) << i;
    EXPECT_EQ(bits_of(q[i]) & ((1u << (23 - keep)) - 1), 0u);
  }
}

TEST(Bitround, FullMantissaUnchangedAndErrors) {
  std::mt19937 rng(9);
  std::vector<float> v(100);
  for (float &x : v) x = from_bits<float>(rng());  // any pattern, NaNs included
  std::vector<float> q = v;
  ASSERT_TRUE(bitround(ESMIO_FLOAT, q.data(), q.size(), 23, nullptr).is_ok());
  EXPECT_EQ(0, std::memcmp(v.data(), q.data(), v.size() * sizeof(float)));
  EXPECT_EQ(bitround(ESMIO_FLOAT, q.data(), q.size(), 24, nullptr).code(), ESMIO_EINVAL);
  EXPECT_EQ(bitround(ESMIO_FLOAT, q.data(), q.size(), -1, nullptr).code(), ESMIO_EINVAL);
  EXPECT_EQ(bitround(ESMIO_DOUBLE, q.data(), 1, 53, nullptr).code(), ESMIO_EINVAL);
  EXPECT_TRUE(bitround(ESMIO_DOUBLE, q.data(), 1, 52, nullptr).is_ok());
  EXPECT_EQ(bitround(ESMIO_INT, q.data(), q.size(), 3, nullptr).code(), ESMIO_EBADTYPE);
  EXPECT_EQ(bitround(ESMIO_FLOAT, q.data(), -1, 3, nullptr).code(), ESMIO_EINVAL);
  EXPECT_EQ(bitround(ESMIO_FLOAT, nullptr, 5, 3, nullptr).code(), ESMIO_EINVAL);
  EXPECT_TRUE(bitround(ESMIO_FLOAT, nullptr, 0, 3, nullptr).is_ok());
  EXPECT_EQ(0, std::memcmp(v.data(), q.data(), v.size() * sizeof(float)));  // nothing written

  EXPECT_EQ(bitround_max_relative_error(ESMIO_FLOAT, 0), 0.5);
  EXPECT_EQ(bitround_max_relative_error(ESMIO_FLOAT, 7), std::ldexp(1.0, -8));
  EXPECT_EQ(bitround_max_relative_error(ESMIO_DOUBLE, 52), std::ldexp(1.0, -53));
  EXPECT_TRUE(std::isnan(bitround_max_relative_error(ESMIO_FLOAT, 24)));
  EXPECT_TRUE(std::isnan(bitround_max_relative_error(ESMIO_INT, 3)));
  EXPECT_EQ(mantissa_bits(ESMIO_FLOAT), 23);
  EXPECT_EQ(mantissa_bits(ESMIO_DOUBLE), 52);
  EXPECT_EQ(exponent_bits(ESMIO_FLOAT), 8);
  EXPECT_EQ(exponent_bits(ESMIO_DOUBLE), 11);
}

TEST(Quantize, RoundTripKeepsTheRealInformation) {
  const int rows = 200, cols = 1000;
  const std::vector<float> v = noisy_field(rows, cols, 17);
  // Counted as four I/O tasks would, with uneven slabs.
  const std::vector<int64_t> cuts = {12345, 70000, 150001};
  const BitPairCounts counts = split_counts<float>(v, cuts, cols, nullptr);
  const std::vector<double> info = bit_information(counts);
  const int keep = keepbits_for(ESMIO_FLOAT, info, 0.99);
  EXPECT_GE(keep, 3);
  EXPECT_LE(keep, 14);  // noise of 0.01 = 2^-6.6 on values in [256, 512) fills bits 14..23

  std::vector<float> q = v;
  ASSERT_TRUE(bitround(ESMIO_FLOAT, q.data(), q.size(), keep, nullptr).is_ok());
  const std::vector<double> after = information(q, cols);
  const double kept = total(after) / total(info);
  EXPECT_GE(kept, 0.99 - 0.01) << "keepbits " << keep;
  // Every dropped bit is now constant, so it holds no information.
  for (int i = 9 + keep; i < 32; ++i) EXPECT_EQ(after[i], 0.0) << i;
  // A fresh analysis of the rounded field asks for no more bits than were kept.
  EXPECT_LE(keepbits_for(ESMIO_FLOAT, after, 0.99), keep);
}

}  // namespace
}  // namespace esmio::quantize

namespace esmio::quantize {
namespace {

// Information per bit for a float32: sign, 8 exponent bits, then mantissa bits (23 in all).
std::vector<double> float_info(std::vector<double> sign_exponent, std::vector<double> mantissa) {
  std::vector<double> info = sign_exponent;
  info.insert(info.end(), mantissa.begin(), mantissa.end());
  info.resize(32, 0.0);
  return info;
}

// Cases worked by hand from xbitinfo's get_keepbits (xbitinfo.py: the noise filter at 1.5 times
// the largest of the last four bits, sign and exponent included; the first position whose
// cumulative share is strictly above the level; keepbits = position + 1 - 9 for float32).
TEST(ReferenceKeepbits, WorkedByHand) {
  const std::vector<double> exponent = {0, 0, 0, 0, 0, 0, 0.1, 0.8, 0.9};
  // A smooth field: information decays to zero; total 6.123, 99 % = 6.0618 is passed by the
  // 7th mantissa bit (cumulative 6.1).
  const auto smooth = float_info(exponent, {0.95, 0.9, 0.85, 0.7, 0.5, 0.3, 0.1, 0.02, 0.003});
  EXPECT_EQ(reference_keepbits(ESMIO_FLOAT, smooth, 0.99), 7);
  EXPECT_EQ(keepbits_for(ESMIO_FLOAT, smooth, 0.99), 7);
  // The same with a floor of 0.05 in every later mantissa bit (runs of identical values): the
  // filter (0.075) removes the floor, the reference stays at 7; without it 22 bits.
  std::vector<double> mantissa = {0.95, 0.9, 0.85, 0.7, 0.5, 0.3, 0.1};
  mantissa.resize(23, 0.05);
  auto floored = float_info({0.2, 0, 0, 0, 0, 0, 0.1, 0.8, 0.9}, mantissa);
  EXPECT_EQ(reference_keepbits(ESMIO_FLOAT, floored, 0.99), 7);
  EXPECT_EQ(keepbits_for(ESMIO_FLOAT, floored, 0.99), 22);
  // Strictly above: a first mantissa bit holding exactly 99 % is not enough.
  EXPECT_EQ(
      reference_keepbits(ESMIO_FLOAT, float_info({0, 0, 0, 0, 0, 0, 0, 0, 0}, {0.99, 0.01}), 0.99),
      2);
  // Nothing above the noise: argmax of an all-false cdf, 0 + 1 - 9.
  EXPECT_EQ(reference_keepbits(ESMIO_FLOAT, std::vector<double>(32, 0.0), 0.99), -8);
  EXPECT_EQ(reference_keepbits(ESMIO_DOUBLE, std::vector<double>(64, 0.0), 0.99), -11);
  std::vector<double> flat(9, 0.02);
  flat.resize(28, 0.03);
  flat.resize(32, 0.06);
  EXPECT_EQ(reference_keepbits(ESMIO_FLOAT, flat, 0.99), -8);
  // Information only in the exponent: the cutoff at the last exponent bit, 0 mantissa bits.
  const auto exponent_only =
      float_info({0, 0, 0, 0, 0, 0, 0.5, 0.9, 0.9}, std::vector<double>(23, 0.001));
  EXPECT_EQ(reference_keepbits(ESMIO_FLOAT, exponent_only, 0.99), 0);
  EXPECT_EQ(reference_keepbits(ESMIO_FLOAT, smooth, 1.0), 23);
  EXPECT_EQ(reference_keepbits(ESMIO_FLOAT, smooth, 0.0), std::numeric_limits<int>::min());
  EXPECT_EQ(reference_keepbits(ESMIO_DOUBLE, smooth, 0.99), std::numeric_limits<int>::min());
}

// xbitinfo's own test case (tests/test_get_keepbits.py, relative humidity "RH2"): its
// information per bit; the 1.5x filter alone gives 19, the value that test expects without
// the optional gradient filter.
TEST(ReferenceKeepbits, XbitinfoRh2) {
  const std::vector<double> rh2 = {0,
                                   0,
                                   0,
                                   0,
                                   0,
                                   0,
                                   1.11799129e-01,
                                   8.19114977e-01,
                                   4.41578500e-01,
                                   3.25470303e-01,
                                   4.35195738e-01,
                                   2.81462993e-01,
                                   2.10719742e-01,
                                   1.46638224e-01,
                                   9.24534031e-02,
                                   4.41090879e-02,
                                   1.13842504e-02,
                                   8.20088050e-04,
                                   2.62239097e-06,
                                   7.11284508e-07,
                                   1.18183485e-06,
                                   9.49338973e-09,
                                   1.80859255e-07,
                                   7.72662891e-07,
                                   1.37865391e-05,
                                   2.11117224e-06,
                                   2.01353088e-07,
                                   3.20755770e-02,
                                   6.06721012e-03,
                                   2.25987148e-04,
                                   1.71530452e-06,
                                   5.13067595e-03};
  EXPECT_EQ(reference_keepbits(ESMIO_FLOAT, rh2, 0.99), 19);
}

TEST(ChooseKeepbits, GuardsTheReference) {
  const std::vector<double> exponent = {0, 0, 0, 0, 0, 0, 0.1, 0.8, 0.9};
  const auto smooth = float_info(exponent, {0.95, 0.9, 0.85, 0.7, 0.5, 0.3, 0.1, 0.02, 0.003});
  KeepbitsChoice c = choose_keepbits(ESMIO_FLOAT, smooth, 0.99);
  EXPECT_EQ(c.keepbits, 7);
  EXPECT_EQ(c.reference, 7);
  EXPECT_EQ(c.reason, KeepbitsReason::reference);
  // No information: every bit kept, whatever the reference says (-8).
  c = choose_keepbits(ESMIO_FLOAT, std::vector<double>(32, 0.0), 0.99);
  EXPECT_EQ(c.keepbits, 23);
  EXPECT_EQ(c.reference, -8);
  EXPECT_EQ(c.reason, KeepbitsReason::no_information);
  // Everything at the noise level: the reference's -8 would round values to powers of two; the
  // unfiltered cumulative count is kept instead.
  std::vector<double> flat(9, 0.02);
  flat.resize(28, 0.03);
  flat.resize(32, 0.06);
  c = choose_keepbits(ESMIO_FLOAT, flat, 0.99);
  EXPECT_EQ(c.reference, -8);
  EXPECT_EQ(c.keepbits, keepbits_for(ESMIO_FLOAT, flat, 0.99));
  EXPECT_GT(c.keepbits, 20);
  EXPECT_EQ(c.reason, KeepbitsReason::artificial_information);
  // A reference of 1 is raised to the floor.
  c = choose_keepbits(ESMIO_FLOAT, float_info({0, 0, 0, 0, 0, 0, 0, 0, 1.0}, {0.5}), 0.99);
  EXPECT_EQ(c.reference, 1);
  EXPECT_EQ(c.keepbits, kKeepbitsFloor);
  EXPECT_EQ(c.reason, KeepbitsReason::floor);
  // maxrel 1e-3: BitRound's bound 2^-(k+1) <= 1e-3 needs k >= 9; 0.1 needs only 3 (< 7).
  c = choose_keepbits(ESMIO_FLOAT, smooth, 0.99, 1e-3);
  EXPECT_EQ(c.keepbits, 9);
  EXPECT_EQ(c.reason, KeepbitsReason::maxrel);
  EXPECT_LE(bitround_max_relative_error(ESMIO_FLOAT, c.keepbits), 1e-3);
  EXPECT_GT(bitround_max_relative_error(ESMIO_FLOAT, c.keepbits - 1), 1e-3);
  c = choose_keepbits(ESMIO_FLOAT, smooth, 0.99, 0.1);
  EXPECT_EQ(c.keepbits, 7);
  EXPECT_EQ(c.reason, KeepbitsReason::reference);
  EXPECT_EQ(choose_keepbits(ESMIO_FLOAT, smooth, 0.99, 1.5).keepbits, -1);
  EXPECT_EQ(choose_keepbits(ESMIO_INT, smooth, 0.99).keepbits, -1);
  EXPECT_STREQ(keepbits_reason_name(KeepbitsReason::artificial_information),
               "artificial_information");
}

TEST(ChooseKeepbits, MinbitsSetsTheFloor) {
  // The documented default: 4 bits (BitRound's error at most 3.1 %).
  EXPECT_EQ(kKeepbitsFloor, 4);
  EXPECT_DOUBLE_EQ(bitround_max_relative_error(ESMIO_FLOAT, kKeepbitsFloor), 1.0 / 32);
  const std::vector<double> exponent = {0, 0, 0, 0, 0, 0, 0.1, 0.8, 0.9};
  const auto one = float_info({0, 0, 0, 0, 0, 0, 0, 0, 1.0}, {0.5});  // reference 1
  const auto two = float_info(exponent, {0.9, 0.6});                  // reference 2
  const auto smooth = float_info(exponent, {0.95, 0.9, 0.85, 0.7, 0.5, 0.3, 0.1, 0.02, 0.003});
  KeepbitsChoice c = choose_keepbits(ESMIO_FLOAT, two, 0.99);
  ASSERT_EQ(c.reference, 2);
  EXPECT_EQ(c.keepbits, kKeepbitsFloor) << "default floor";
  EXPECT_EQ(c.reason, KeepbitsReason::floor);
  // The floor of an earlier esmio (2) leaves a reference of 2 as it is and raises 1.
  c = choose_keepbits(ESMIO_FLOAT, two, 0.99, 0, 2);
  EXPECT_EQ(c.keepbits, 2);
  EXPECT_EQ(c.reason, KeepbitsReason::reference);
  c = choose_keepbits(ESMIO_FLOAT, one, 0.99, 0, 2);
  EXPECT_EQ(c.keepbits, 2);
  EXPECT_EQ(c.reason, KeepbitsReason::floor);
  // 0 and 1: no floor, the reference wherever it is positive.
  for (int minbits : {0, 1}) {
    c = choose_keepbits(ESMIO_FLOAT, one, 0.99, 0, minbits);
    EXPECT_EQ(c.keepbits, 1) << minbits;
    EXPECT_EQ(c.reason, KeepbitsReason::reference) << minbits;
  }
  // Above the reference on a sane field: raised, reason floor; at or below it: the reference.
  c = choose_keepbits(ESMIO_FLOAT, smooth, 0.99, 0, 9);
  EXPECT_EQ(c.keepbits, 9);
  EXPECT_EQ(c.reason, KeepbitsReason::floor);
  c = choose_keepbits(ESMIO_FLOAT, smooth, 0.99, 0, 7);
  EXPECT_EQ(c.keepbits, 7);
  EXPECT_EQ(c.reason, KeepbitsReason::reference);
  // More than the type has: every mantissa bit. 52 serves doubles.
  c = choose_keepbits(ESMIO_FLOAT, smooth, 0.99, 0, 52);
  EXPECT_EQ(c.keepbits, 23);
  EXPECT_EQ(c.reason, KeepbitsReason::floor);
  // The floor never touches the other guards: no information, artificial information.
  c = choose_keepbits(ESMIO_FLOAT, std::vector<double>(32, 0.0), 0.99, 0, 0);
  EXPECT_EQ(c.keepbits, 23);
  EXPECT_EQ(c.reason, KeepbitsReason::no_information);
  std::vector<double> flat(9, 0.02);
  flat.resize(28, 0.03);
  flat.resize(32, 0.06);
  c = choose_keepbits(ESMIO_FLOAT, flat, 0.99, 0, 0);
  EXPECT_EQ(c.reason, KeepbitsReason::artificial_information);
  EXPECT_EQ(c.keepbits, keepbits_for(ESMIO_FLOAT, flat, 0.99));
  // maxrel still raises above the floor, and a floor above maxrel's need wins.
  c = choose_keepbits(ESMIO_FLOAT, two, 0.99, 1e-3, 2);
  EXPECT_EQ(c.keepbits, 9);
  EXPECT_EQ(c.reason, KeepbitsReason::maxrel);
  c = choose_keepbits(ESMIO_FLOAT, one, 0.99, 0.1, 5);
  EXPECT_EQ(c.keepbits, 5);
  EXPECT_EQ(c.reason, KeepbitsReason::floor);
  EXPECT_EQ(choose_keepbits(ESMIO_FLOAT, smooth, 0.99, 0, -1).keepbits, -1);
}

}  // namespace
}  // namespace esmio::quantize
