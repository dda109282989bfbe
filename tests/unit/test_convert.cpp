// Type-conversion kernels against an oracle written from netCDF's rules (not from the kernels'
// own limits), plus hand-checked values at every edge the rules name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/types.hpp"
#include "convert/convert.hpp"

namespace esmio::convert {
namespace {

template <class T>
struct Tag {
  using type = T;
};

template <class T>
constexpr esmio_type type_of() {
  if constexpr (std::is_same_v<T, int8_t>) return ESMIO_BYTE;
  if constexpr (std::is_same_v<T, int16_t>) return ESMIO_SHORT;
  if constexpr (std::is_same_v<T, int32_t>) return ESMIO_INT;
  if constexpr (std::is_same_v<T, float>) return ESMIO_FLOAT;
  if constexpr (std::is_same_v<T, double>) return ESMIO_DOUBLE;
  if constexpr (std::is_same_v<T, int64_t>) return ESMIO_INT64;
  if constexpr (std::is_same_v<T, uint8_t>) return ESMIO_UBYTE;
  if constexpr (std::is_same_v<T, uint16_t>) return ESMIO_USHORT;
  if constexpr (std::is_same_v<T, uint32_t>) return ESMIO_UINT;
  if constexpr (std::is_same_v<T, uint64_t>) return ESMIO_UINT64;
  if constexpr (std::is_same_v<T, char>) return ESMIO_CHAR;
}

template <class F>
void for_each_numeric(F &&f) {
  f(Tag<int8_t>{});
  f(Tag<int16_t>{});
  f(Tag<int32_t>{});
  f(Tag<float>{});
  f(Tag<double>{});
  f(Tag<int64_t>{});
  f(Tag<uint8_t>{});
  f(Tag<uint16_t>{});
  f(Tag<uint32_t>{});
  f(Tag<uint64_t>{});
}

// Calls f(Tag<S>, Tag<D>) for all 100 numeric pairs.
template <class F>
void for_each_pair(F &&f) {
  for_each_numeric([&](auto s) { for_each_numeric([&](auto d) { f(s, d); }); });
}

template <class S, class D>
std::string pair_name() {
  return std::string(type_name(type_of<S>())) + "->" + type_name(type_of<D>());
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::string show(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
    return buf;
  } else if constexpr (std::is_signed_v<T>) {
    return std::to_string(static_cast<int64_t>(v));
  } else {
    return std::to_string(static_cast<uint64_t>(v));
  }
}

// netCDF's range rule, compared in double for a floating source, with esmio's two additions:
// NaN is out of range for an integer, and 2^63 (2^64) is out of range for int64 (uint64);
// between integers, the value against the destination's range, negative values apart.
template <class S, class D>
bool oracle_out_of_range(S v) {
  if constexpr (std::is_floating_point_v<S> && std::is_floating_point_v<D>) {
    if constexpr (sizeof(S) > sizeof(D))
      return v > FLT_MAX || v < -FLT_MAX;
    else
      return false;
  } else if constexpr (std::is_floating_point_v<S>) {
    const double x = v;
    if (std::isnan(x)) return true;
    if (x > static_cast<double>(std::numeric_limits<D>::max())) return true;
    if (x < static_cast<double>(std::numeric_limits<D>::min())) return true;
    if constexpr (std::is_same_v<D, int64_t>) return x >= 9223372036854775808.0;
    if constexpr (std::is_same_v<D, uint64_t>) return x >= 18446744073709551616.0;
    return false;
  } else if constexpr (std::is_floating_point_v<D>) {
    return false;
  } else {
    if constexpr (std::is_signed_v<S>) {
      if (v < 0) {
        if constexpr (!std::is_signed_v<D>) return true;
        return int64_t{v} < int64_t{std::numeric_limits<D>::min()};
      }
    }
    return static_cast<uint64_t>(v) > uint64_t{std::numeric_limits<D>::max()};
  }
}

template <class S, class D>
D oracle_value(S v, D fill) {
  return oracle_out_of_range<S, D>(v) ? fill : static_cast<D>(v);
}

// A fill that no in-range test value produces by accident.
template <class D>
D test_fill() {
  if constexpr (std::is_floating_point_v<D>)
    return D(-12345.5);
  else if constexpr (std::is_signed_v<D>)
    return static_cast<D>(std::numeric_limits<D>::min() + 3);
  else
    return static_cast<D>(std::numeric_limits<D>::max() - 3);
}

template <class T>
T from_bits(uint64_t bits) {
  T v;
  if constexpr (sizeof(T) == 8) {
    std::memcpy(&v, &bits, 8);
  } else if constexpr (sizeof(T) == 4) {
    const uint32_t b = static_cast<uint32_t>(bits);
    std::memcpy(&v, &b, 4);
  } else if constexpr (sizeof(T) == 2) {
    const uint16_t b = static_cast<uint16_t>(bits);
    std::memcpy(&v, &b, 2);
  } else {
    const uint8_t b = static_cast<uint8_t>(bits);
    std::memcpy(&v, &b, 1);
  }
  return v;
}

// Any value of S: for a floating S, any bit pattern (NaNs, infinities, denormals included) or a
// value near one of D's limits, where mistakes live.
template <class S, class D>
S random_any(std::mt19937_64 &rng) {
  const uint64_t r = rng();
  if constexpr (std::is_floating_point_v<S>) {
    switch (r % 4) {
      case 0:
        return from_bits<S>(rng());
      case 1: {
        const double lim = std::is_floating_point_v<D>
                               ? static_cast<double>(std::numeric_limits<D>::max())
                               : static_cast<double>(std::numeric_limits<D>::max()) + 1.0;
        const double x = lim * (1.0 + std::ldexp(static_cast<double>(rng() % 2048) - 1024, -40));
        return static_cast<S>((r & 16) ? x : -x);
      }
      case 2:
        return static_cast<S>(std::ldexp(static_cast<double>(static_cast<int64_t>(rng())), -32));
      default:
        return static_cast<S>(static_cast<double>(static_cast<int64_t>(rng() >> 20)) / 7.0);
    }
  } else {
    switch (r % 3) {
      case 0:
        return from_bits<S>(rng());
      case 1:  // near D's limits
        if constexpr (std::is_integral_v<D> && sizeof(D) < sizeof(S)) {
          const int64_t lim = (r & 16) ? int64_t{std::numeric_limits<D>::max()}
                                       : int64_t{std::numeric_limits<D>::min()};
          return static_cast<S>(lim + static_cast<int64_t>(rng() % 7) - 3);
        } else {
          return from_bits<S>(rng());
        }
      default:
        return static_cast<S>(static_cast<int64_t>(rng() % 201) - 100);
    }
  }
}

// A value of S that converts to D without error.
template <class S, class D>
S random_in_range(std::mt19937_64 &rng) {
  for (;;) {
    S v;
    if constexpr (std::is_floating_point_v<S>) {
      const double lim = std::is_floating_point_v<D>
                             ? (std::is_same_v<D, float> || std::is_same_v<S, float> ? 3e38 : 1e300)
                             : static_cast<double>(std::numeric_limits<D>::max());
      // Spread over magnitudes: uniform in the exponent, then in the mantissa.
      const double mag = std::ldexp(std::uniform_real_distribution<double>(1.0, 2.0)(rng),
                                    static_cast<int>(rng() % 64) - 32);
      const double x = (rng() % 8 == 0) ? std::uniform_real_distribution<double>(-lim, lim)(rng)
                                        : ((rng() & 1) ? mag : -mag);
      v = static_cast<S>(x);
    } else {
      v = random_any<S, D>(rng);
    }
    if (!oracle_out_of_range<S, D>(v)) return v;
  }
}

template <class D>
void expect_equal_values(const std::vector<D> &want, const std::vector<D> &got,
                         const std::string &what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  int64_t shown = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!same_bits(want[i], got[i]) && shown++ < 5)
      ADD_FAILURE() << what << " at " << i << ": want " << show(want[i]) << ", got "
                    << show(got[i]);
  }
}

const int64_t kLengths[] = {0,  1,    2,    3,    15,   16,   17,   31,
                            33, 1023, 1024, 1025, 1040, 2047, 3089, 5000};

// ---- convertible ------------------------------------------------------------------------------

TEST(Convertible, TruthTable) {
  const esmio_type numeric[] = {ESMIO_BYTE,  ESMIO_SHORT, ESMIO_INT,    ESMIO_FLOAT, ESMIO_DOUBLE,
                                ESMIO_INT64, ESMIO_UBYTE, ESMIO_USHORT, ESMIO_UINT,  ESMIO_UINT64};
  for (esmio_type a : numeric) {
    for (esmio_type b : numeric) EXPECT_TRUE(convertible(a, b)) << a << "->" << b;
    EXPECT_FALSE(convertible(a, ESMIO_CHAR)) << a;
    EXPECT_FALSE(convertible(ESMIO_CHAR, a)) << a;
  }
  EXPECT_TRUE(convertible(ESMIO_CHAR, ESMIO_CHAR));
  // Codes that are not esmio types (12: netCDF-4's string, which esmio lacks).
  for (int bad : {0, 12, 13, -1, 100}) {
    const auto t = static_cast<esmio_type>(bad);
    EXPECT_FALSE(convertible(t, t)) << bad;
    EXPECT_FALSE(convertible(t, ESMIO_DOUBLE)) << bad;
    EXPECT_FALSE(convertible(ESMIO_DOUBLE, t)) << bad;
    EXPECT_FALSE(convertible(ESMIO_CHAR, t)) << bad;
  }
}

TEST(Convert, NotConvertibleWritesNothing) {
  const char text[4] = {'a', 'b', 'c', 'd'};
  int32_t out[4] = {7, 7, 7, 7};
  EXPECT_EQ(convert(ESMIO_CHAR, text, ESMIO_INT, out, 4, nullptr), -1);
  for (int32_t v : out) EXPECT_EQ(v, 7);
  char cout[4] = {'x', 'x', 'x', 'x'};
  const int32_t in[4] = {1, 2, 3, 4};
  EXPECT_EQ(convert(ESMIO_INT, in, ESMIO_CHAR, cout, 4, nullptr), -1);
  for (char c : cout) EXPECT_EQ(c, 'x');
  EXPECT_EQ(convert(static_cast<esmio_type>(12), in, ESMIO_INT, out, 4, nullptr), -1);
  EXPECT_EQ(convert(ESMIO_INT, in, ESMIO_INT, out, -1, nullptr), -1);
  for (int32_t v : out) EXPECT_EQ(v, 7);
  const convert::Run runs[1] = {{0, 4}};
  EXPECT_EQ(gather_convert(ESMIO_CHAR, text, runs, 1, ESMIO_INT, out, nullptr), -1);
  EXPECT_EQ(scatter_convert(ESMIO_CHAR, text, runs, 1, ESMIO_INT, out, nullptr), -1);
  EXPECT_EQ(gather_convert(ESMIO_INT, in, runs, -1, ESMIO_INT, out, nullptr), -1);
  for (int32_t v : out) EXPECT_EQ(v, 7);
}

// ---- whole-array conversion against the oracle -------------------------------------------

TEST(Convert, EveryPairRandomInRangeMatchesStaticCast) {
  std::mt19937_64 rng(20240601);
  for_each_pair([&](auto s, auto d) {
    using S = typename decltype(s)::type;
    using D = typename decltype(d)::type;
    for (int64_t n : kLengths) {
      std::vector<S> src(n);
      for (auto &v : src) v = random_in_range<S, D>(rng);
      std::vector<D> want(n);
      for (int64_t i = 0; i < n; ++i) want[i] = static_cast<D>(src[i]);
      // One guard value past the end catches a kernel that writes a whole block.
      std::vector<D> got(n + 1, D(42));
      const D fill = test_fill<D>();
      EXPECT_EQ(convert(type_of<S>(), src.data(), type_of<D>(), got.data(), n, &fill), 0)
          << pair_name<S, D>() << " n=" << n;
      EXPECT_TRUE(same_bits(got[n], D(42))) << pair_name<S, D>() << " wrote past n=" << n;
      got.resize(n);
      expect_equal_values(want, got, pair_name<S, D>() + " n=" + std::to_string(n));
    }
  });
}

TEST(Convert, EveryPairRandomAnyValueMatchesOracle) {
  std::mt19937_64 rng(7);
  for_each_pair([&](auto s, auto d) {
    using S = typename decltype(s)::type;
    using D = typename decltype(d)::type;
    for (int64_t n : kLengths) {
      std::vector<S> src(n);
      for (auto &v : src) v = random_any<S, D>(rng);
      const D fill = test_fill<D>();
      std::vector<D> want(n);
      int64_t want_bad = 0;
      for (int64_t i = 0; i < n; ++i) {
        want[i] = oracle_value<S, D>(src[i], fill);
        want_bad += oracle_out_of_range<S, D>(src[i]);
      }
      std::vector<D> got(n, D(0));
      EXPECT_EQ(convert(type_of<S>(), src.data(), type_of<D>(), got.data(), n, &fill), want_bad)
          << pair_name<S, D>() << " n=" << n;
      expect_equal_values(want, got, pair_name<S, D>() + " n=" + std::to_string(n));
    }
  });
}

// Edge values of S and of D, as S: each goes through the scalar tail (alone) and the vector path
// (one odd value in a block of ordinary ones, at the start, middle and end of a block).
template <class S, class D>
std::vector<S> edge_values() {
  using SL = std::numeric_limits<S>;
  using DL = std::numeric_limits<D>;
  std::vector<S> v = {S(0), S(1), static_cast<S>(-1), SL::max(), SL::lowest(), SL::min()};
  if constexpr (std::is_floating_point_v<S>) {
    const S inf = SL::infinity();
    v.insert(v.end(), {S(-0.0), inf, -inf, SL::quiet_NaN(), -SL::quiet_NaN(), SL::signaling_NaN(),
                       SL::denorm_min(), -SL::denorm_min(), SL::min() / 2, S(0.5), S(-0.5),
                       S(0.9999), S(-0.9999), S(1.5), S(-1.5), S(2.5)});
    // D's limits as S and their neighbours; D's limits +-1 and +-0.5 in double, rounded to S.
    for (double lim : {static_cast<double>(DL::max()), static_cast<double>(DL::lowest())}) {
      if (std::fabs(lim) > static_cast<double>(SL::max())) continue;  // D's limits beyond S's
      const S x = static_cast<S>(lim);
      v.insert(v.end(),
               {x, std::nextafter(x, inf), std::nextafter(x, -inf),
                std::nextafter(std::nextafter(x, -inf), -inf),
                std::nextafter(std::nextafter(x, inf), inf), static_cast<S>(lim + 1.0),
                static_cast<S>(lim - 1.0), static_cast<S>(lim + 0.5), static_cast<S>(lim - 0.5),
                static_cast<S>(lim + 0.9), static_cast<S>(lim - 0.9), -x});
    }
    if constexpr (std::is_integral_v<D>) {
      // Truncation toward zero just inside the negative limit.
      v.push_back(static_cast<S>(static_cast<double>(DL::min()) + 0.9));
    }
  } else {
    v.insert(v.end(), {S(2), static_cast<S>(-2), static_cast<S>(SL::max() - 1),
                       static_cast<S>(SL::min() + 1)});
    if constexpr (std::is_integral_v<D> && sizeof(D) < sizeof(S)) {
      for (int64_t lim : {int64_t{DL::max()}, int64_t{DL::min()}})
        for (int64_t k = -2; k <= 2; ++k) v.push_back(static_cast<S>(lim + k));
    }
    if constexpr (std::is_floating_point_v<D>) {
      // Integers that float must round: 2^24 + 1 and 2^53 + 1.
      v.push_back(static_cast<S>(SL::max() > 16777217 ? 16777217 : 1));
      if constexpr (sizeof(S) == 8) v.push_back(static_cast<S>(9007199254740993LL));
    }
  }
  return v;
}

template <class S>
S ordinary_value() {
  return S(3);  // in range of every type
}

TEST(Convert, EveryPairEdgeValuesMatchOracle) {
  for_each_pair([&](auto s, auto d) {
    using S = typename decltype(s)::type;
    using D = typename decltype(d)::type;
    const D fill = test_fill<D>();
    for (S x : edge_values<S, D>()) {
      const std::string what = pair_name<S, D>() + " of " + show(x);
      const D want = oracle_value<S, D>(x, fill);
      const int64_t want_bad = oracle_out_of_range<S, D>(x) ? 1 : 0;
      D one = D(0);
      EXPECT_EQ(convert(type_of<S>(), &x, type_of<D>(), &one, 1, &fill), want_bad) << what;
      EXPECT_TRUE(same_bits(want, one)) << what << ": want " << show(want) << ", got " << show(one);
      for (int64_t n : {int64_t{16}, int64_t{1024}, int64_t{2048 + 16 + 5}}) {
        for (int64_t pos : {int64_t{0}, n / 2 + 1, n - 1}) {
          std::vector<S> src(n, ordinary_value<S>());
          src[pos] = x;
          std::vector<D> got(n, D(0));
          EXPECT_EQ(convert(type_of<S>(), src.data(), type_of<D>(), got.data(), n, &fill), want_bad)
              << what << " n=" << n << " pos=" << pos;
          std::vector<D> want_all(n, static_cast<D>(ordinary_value<S>()));
          want_all[pos] = want;
          expect_equal_values(want_all, got, what + " n=" + std::to_string(n));
        }
      }
    }
  });
}

// ---- hand-checked values: the oracle could share a misreading of the rules ------------------

template <class S, class D>
void expect_converts(S x, D want) {
  const D fill = test_fill<D>();
  D got = fill;
  EXPECT_EQ(convert(type_of<S>(), &x, type_of<D>(), &got, 1, &fill), 0)
      << pair_name<S, D>() << " of " << show(x);
  EXPECT_TRUE(same_bits(want, got))
      << pair_name<S, D>() << " of " << show(x) << ": want " << show(want) << ", got " << show(got);
}

template <class S, class D>
void expect_erange(S x) {
  const D fill = test_fill<D>();
  D got = D(1);
  EXPECT_EQ(convert(type_of<S>(), &x, type_of<D>(), &got, 1, &fill), 1)
      << pair_name<S, D>() << " of " << show(x);
  EXPECT_TRUE(same_bits(fill, got)) << pair_name<S, D>() << " of " << show(x);
  // The same value in a full vector block.
  std::vector<S> src(1024, S(1));
  src[517] = x;
  std::vector<D> out(1024);
  EXPECT_EQ(convert(type_of<S>(), src.data(), type_of<D>(), out.data(), 1024, &fill), 1)
      << pair_name<S, D>() << " of " << show(x) << " in a block";
  EXPECT_TRUE(same_bits(fill, out[517]));
  EXPECT_EQ(out[516], D(1));
  EXPECT_EQ(out[518], D(1));
}

TEST(ConvertEdges, DoubleToFloat) {
  const double inf = std::numeric_limits<double>::infinity();
  expect_converts<double, float>(FLT_MAX, FLT_MAX);
  expect_converts<double, float>(-FLT_MAX, -FLT_MAX);
  expect_erange<double, float>(3.4028235e38);  // rounds to FLT_MAX in C, but is beyond it
  expect_erange<double, float>(-3.4028235e38);
  expect_erange<double, float>(std::nextafter(static_cast<double>(FLT_MAX), inf));
  expect_erange<double, float>(1e300);
  expect_erange<double, float>(DBL_MAX);
  expect_erange<double, float>(inf);
  expect_erange<double, float>(-inf);
  expect_converts<double, float>(1e-320, 0.0f);
  expect_converts<double, float>(-1e-320, -0.0f);
  expect_converts<double, float>(-0.0, -0.0f);
  expect_converts<double, float>(1e-40, 1e-40f);  // a float denormal
  expect_converts<double, float>(0.1, 0.1f);
  // Ties round to even: 1 + 2^-24 is halfway between 1 and 1 + 2^-23.
  expect_converts<double, float>(1.0 + std::ldexp(1.0, -24), 1.0f);
  expect_converts<double, float>(1.0 + std::ldexp(3.0, -24), 1.0f + std::ldexp(1.0f, -22));
  expect_converts<double, float>(1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -50),
                                 1.0f + std::ldexp(1.0f, -23));

  const double nans[] = {std::numeric_limits<double>::quiet_NaN(),
                         -std::numeric_limits<double>::quiet_NaN()};
  for (double x : nans) {
    float got = 0.0f;
    EXPECT_EQ(convert(ESMIO_DOUBLE, &x, ESMIO_FLOAT, &got, 1, nullptr), 0);
    EXPECT_TRUE(std::isnan(got));
    EXPECT_EQ(std::signbit(got), std::signbit(x));
  }
}

TEST(ConvertEdges, FloatToDouble) {
  const float inf = std::numeric_limits<float>::infinity();
  expect_converts<float, double>(inf, std::numeric_limits<double>::infinity());
  expect_converts<float, double>(-inf, -std::numeric_limits<double>::infinity());
  expect_converts<float, double>(FLT_MAX, static_cast<double>(FLT_MAX));
  expect_converts<float, double>(-0.0f, -0.0);
  expect_converts<float, double>(std::numeric_limits<float>::denorm_min(), std::ldexp(1.0, -149));
  float x = -std::numeric_limits<float>::quiet_NaN();
  double got = 0.0;
  EXPECT_EQ(convert(ESMIO_FLOAT, &x, ESMIO_DOUBLE, &got, 1, nullptr), 0);
  EXPECT_TRUE(std::isnan(got));
  EXPECT_TRUE(std::signbit(got));
}

TEST(ConvertEdges, FloatingToInt32) {
  expect_converts<double, int32_t>(2147483647.0, INT32_MAX);
  expect_converts<double, int32_t>(-2147483648.0, INT32_MIN);
  expect_converts<double, int32_t>(-2147483647.9, -2147483647);  // truncation toward zero
  expect_converts<double, int32_t>(2147483646.9, 2147483646);
  expect_converts<double, int32_t>(-0.9, 0);
  expect_converts<double, int32_t>(-1.9, -1);
  expect_erange<double, int32_t>(2147483647.9);  // would truncate into range; netCDF says no
  expect_erange<double, int32_t>(2147483648.0);
  expect_erange<double, int32_t>(-2147483648.9);
  expect_erange<double, int32_t>(-2147483649.0);
  expect_erange<double, int32_t>(std::numeric_limits<double>::quiet_NaN());
  expect_erange<double, int32_t>(std::numeric_limits<double>::infinity());
  expect_erange<double, int32_t>(-std::numeric_limits<double>::infinity());
  // float: (float)INT_MAX is 2^31, out of range; the largest float below is 2^31 - 128.
  expect_converts<float, int32_t>(2147483520.0f, 2147483520);
  expect_converts<float, int32_t>(-2147483648.0f, INT32_MIN);
  expect_erange<float, int32_t>(2147483648.0f);
  expect_erange<float, int32_t>(-2147483904.0f);
  expect_erange<float, int32_t>(std::numeric_limits<float>::quiet_NaN());
}

TEST(ConvertEdges, FloatingToInt64) {
  const double two63 = 9223372036854775808.0;
  expect_erange<double, int64_t>(two63);  // == (double)INT64_MAX, but its cast is undefined
  expect_erange<double, int64_t>(-std::nextafter(-two63, -INFINITY));
  expect_erange<double, int64_t>(std::nextafter(-two63, -INFINITY));
  expect_erange<double, int64_t>(1e19);
  expect_erange<double, int64_t>(std::numeric_limits<double>::quiet_NaN());
  expect_converts<double, int64_t>(std::nextafter(two63, 0.0), INT64_C(9223372036854774784));
  expect_converts<double, int64_t>(-two63, INT64_MIN);
  expect_converts<double, int64_t>(-1e18 - 0.5, INT64_C(-1000000000000000000));
  expect_erange<float, int64_t>(9223372036854775808.0f);
  expect_erange<float, int64_t>(std::numeric_limits<float>::infinity());
  expect_converts<float, int64_t>(-9223372036854775808.0f, INT64_MIN);
  expect_converts<float, int64_t>(9223371487098961920.0f, INT64_C(9223371487098961920));
}

TEST(ConvertEdges, FloatingToSmallIntegers) {
  expect_converts<double, int8_t>(127.0, 127);
  expect_converts<double, int8_t>(-128.0, -128);
  expect_converts<double, int8_t>(-127.5, -127);
  expect_converts<float, int8_t>(126.9f, 126);
  expect_erange<double, int8_t>(127.5);
  expect_erange<double, int8_t>(128.0);
  expect_erange<double, int8_t>(-128.5);
  expect_erange<float, int8_t>(127.00001f);
  expect_erange<float, int8_t>(-std::numeric_limits<float>::quiet_NaN());
  expect_converts<double, int16_t>(32767.0, 32767);
  expect_converts<float, int16_t>(-32768.0f, -32768);
  expect_erange<double, int16_t>(32767.5);
  expect_erange<float, int16_t>(-32768.5f);
  expect_erange<float, int16_t>(-std::numeric_limits<float>::infinity());
}

TEST(ConvertEdges, IntegerNarrowing) {
  expect_converts<int16_t, int8_t>(127, 127);
  expect_converts<int16_t, int8_t>(-128, -128);
  expect_erange<int16_t, int8_t>(128);
  expect_erange<int16_t, int8_t>(-129);
  expect_erange<int16_t, int8_t>(256);  // would wrap to 0
  expect_converts<int32_t, int16_t>(-32768, -32768);
  expect_erange<int32_t, int16_t>(32768);
  expect_erange<int32_t, int16_t>(65536);
  expect_converts<int64_t, int32_t>(INT32_MIN, INT32_MIN);
  expect_erange<int64_t, int32_t>(INT64_C(2147483648));
  expect_erange<int64_t, int32_t>(INT64_C(4294967296));  // would wrap to 0
  expect_erange<int64_t, int32_t>(INT64_MIN);
  expect_erange<int64_t, int8_t>(INT64_C(0x100000000000007f));  // low byte in range
  expect_converts<int8_t, int64_t>(-128, -128);
  expect_converts<int32_t, int64_t>(INT32_MIN, INT32_MIN);
}

TEST(ConvertEdges, IntegerToFloating) {
  expect_converts<int32_t, float>(16777217, 16777216.0f);
  expect_converts<int32_t, float>(INT32_MAX, 2147483648.0f);
  expect_converts<int64_t, float>(INT64_MAX, 9223372036854775808.0f);
  expect_converts<int64_t, double>(INT64_MAX, 9223372036854775808.0);
  expect_converts<int64_t, double>(INT64_C(9007199254740993), 9007199254740992.0);
  expect_converts<int64_t, double>(INT64_MIN, -9223372036854775808.0);
  expect_converts<int8_t, double>(-128, -128.0);
}

// ---- fill and count ------------------------------------------------------------------------

TEST(Convert, NullFillUsesDefaultFill) {
  for_each_numeric([&](auto d) {
    using D = typename decltype(d)::type;
    if constexpr (!std::is_same_v<D, double>) {
      const double x = 1e300;  // out of range of every type but double
      D got = D(1);
      EXPECT_EQ(convert(ESMIO_DOUBLE, &x, type_of<D>(), &got, 1, nullptr), 1);
      D want;
      default_fill_value(type_of<D>(), &want);
      EXPECT_TRUE(same_bits(want, got)) << type_name(type_of<D>());
    }
  });
  const double x[2] = {1e300, 2.0};
  float got[2] = {0, 0};
  EXPECT_EQ(convert(ESMIO_DOUBLE, x, ESMIO_FLOAT, got, 2, nullptr), 1);
  EXPECT_EQ(got[0], 9.9692099683868690e+36f);
  EXPECT_EQ(got[1], 2.0f);
}

TEST(Convert, CountsEveryOutOfRangeValueAndKeepsTheRest) {
  const int64_t n = 10000;
  std::vector<double> src(n);
  int64_t want_bad = 0;
  std::mt19937_64 rng(3);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng() % 100;
    if (r < 3) {
      src[i] = (r == 0) ? 1e39 : (r == 1) ? -1e39 : std::numeric_limits<double>::infinity();
      ++want_bad;
    } else {
      src[i] = static_cast<double>(i) * 0.25;
    }
  }
  // Dense bad values in one block: every one is counted, not just the block.
  for (int64_t i = 4096; i < 4096 + 1024; i += 2) {
    if (std::fabs(src[i]) <= 1e38) ++want_bad;
    src[i] = -1e300;
  }
  const float fill = -1.0f;
  std::vector<float> dst(n);
  EXPECT_EQ(convert(ESMIO_DOUBLE, src.data(), ESMIO_FLOAT, dst.data(), n, &fill), want_bad);
  for (int64_t i = 0; i < n; ++i) {
    if (std::fabs(src[i]) > 1e38)
      EXPECT_EQ(dst[i], -1.0f) << i;
    else
      EXPECT_EQ(dst[i], static_cast<float>(src[i])) << i;
  }
}

// ---- same type -----------------------------------------------------------------------------

TEST(Convert, SameTypeIsABitwiseCopy) {
  std::mt19937_64 rng(11);
  for_each_numeric([&](auto t) {
    using T = typename decltype(t)::type;
    for (int64_t n : kLengths) {
      std::vector<T> src(n);
      for (auto &v : src) v = from_bits<T>(rng());  // signalling NaNs stay signalling
      std::vector<T> dst(n);
      EXPECT_EQ(convert(type_of<T>(), src.data(), type_of<T>(), dst.data(), n, nullptr), 0);
      expect_equal_values(src, dst, "copy n=" + std::to_string(n));
      // In place is allowed for the same type and leaves the values alone.
      std::vector<T> copy = src;
      EXPECT_EQ(convert(type_of<T>(), copy.data(), type_of<T>(), copy.data(), n, nullptr), 0);
      expect_equal_values(src, copy, "in place n=" + std::to_string(n));
    }
  });
  const char text[] = "hello, world";
  char out[sizeof text] = {};
  EXPECT_EQ(convert(ESMIO_CHAR, text, ESMIO_CHAR, out, sizeof text, nullptr), 0);
  EXPECT_STREQ(out, text);
}

TEST(Convert, ZeroLengthWritesNothing) {
  const double x = 1.0;
  float out = 5.0f;
  EXPECT_EQ(convert(ESMIO_DOUBLE, &x, ESMIO_FLOAT, &out, 0, nullptr), 0);
  EXPECT_EQ(out, 5.0f);
}

// ---- gather / scatter ----------------------------------------------------------------------

// Runs with lengths 0 and 1 among longer ones that cross block boundaries.
std::vector<convert::Run> random_runs(std::mt19937_64 &rng, int64_t nsrc, int64_t count) {
  const int64_t lengths[] = {0, 1, 1, 1, 2, 3, 15, 16, 17, 100, 1024, 1100, 2100};
  std::vector<convert::Run> runs;
  for (int64_t r = 0; r < count; ++r) {
    int64_t len = lengths[rng() % (sizeof lengths / sizeof lengths[0])];
    if (len > nsrc) len = nsrc;
    const int64_t begin = static_cast<int64_t>(rng() % static_cast<uint64_t>(nsrc - len + 1));
    runs.push_back(convert::Run{begin, len});
  }
  return runs;
}

// Shortens runs (holding `total` elements) from the end until they hold `count`.
void cut_to(std::vector<convert::Run> *runs, int64_t total, int64_t count) {
  while (total > count) {
    convert::Run &last = runs->back();
    const int64_t cut = std::min(total - count, last.length);
    last.length -= cut;
    total -= cut;
    if (last.length == 0) runs->pop_back();
  }
}

TEST(GatherConvert, EveryPairMatchesOracle) {
  std::mt19937_64 rng(99);
  for_each_pair([&](auto s, auto d) {
    using S = typename decltype(s)::type;
    using D = typename decltype(d)::type;
    const int64_t nsrc = 5000;
    std::vector<S> src(nsrc);
    for (auto &v : src) v = random_any<S, D>(rng);
    const std::vector<convert::Run> runs = random_runs(rng, nsrc, 60);  // reads may overlap
    const D fill = test_fill<D>();
    std::vector<D> want;
    int64_t want_bad = 0;
    for (const convert::Run &r : runs) {
      for (int64_t i = r.begin; i < r.begin + r.length; ++i) {
        want.push_back(oracle_value<S, D>(src[i], fill));
        want_bad += oracle_out_of_range<S, D>(src[i]);
      }
    }
    std::vector<D> got(want.size() + 1, D(42));
    EXPECT_EQ(gather_convert(type_of<S>(), src.data(), runs.data(), runs.size(), type_of<D>(),
                             got.data(), &fill),
              want_bad)
        << pair_name<S, D>();
    EXPECT_TRUE(same_bits(got.back(), D(42))) << pair_name<S, D>() << " wrote past the end";
    got.pop_back();
    expect_equal_values(want, got, "gather " + pair_name<S, D>());
  });
}

// Disjoint runs covering part of [0, n), in shuffled order; the rest of dst keeps its value.
std::vector<convert::Run> random_disjoint_runs(std::mt19937_64 &rng, int64_t n) {
  const int64_t lengths[] = {0, 1, 1, 2, 5, 16, 17, 200, 1024, 1500};
  std::vector<convert::Run> runs;
  int64_t pos = 0;
  while (pos < n) {
    int64_t len = lengths[rng() % (sizeof lengths / sizeof lengths[0])];
    if (len > n - pos) len = n - pos;
    if (rng() % 4 != 0) runs.push_back(convert::Run{pos, len});  // else: a hole
    pos += len == 0 ? 1 : len;
  }
  std::shuffle(runs.begin(), runs.end(), rng);
  return runs;
}

TEST(ScatterConvert, EveryPairMatchesOracle) {
  std::mt19937_64 rng(123);
  for_each_pair([&](auto s, auto d) {
    using S = typename decltype(s)::type;
    using D = typename decltype(d)::type;
    const int64_t ndst = 6000;
    const std::vector<convert::Run> runs = random_disjoint_runs(rng, ndst);
    int64_t nsrc = 0;
    for (const convert::Run &r : runs) nsrc += r.length;
    std::vector<S> src(nsrc);
    for (auto &v : src) v = random_any<S, D>(rng);
    const D fill = test_fill<D>();
    const D untouched = D(42);
    std::vector<D> want(ndst, untouched);
    int64_t want_bad = 0;
    int64_t k = 0;
    for (const convert::Run &r : runs) {
      for (int64_t i = r.begin; i < r.begin + r.length; ++i, ++k) {
        want[i] = oracle_value<S, D>(src[k], fill);
        want_bad += oracle_out_of_range<S, D>(src[k]);
      }
    }
    std::vector<D> got(ndst, untouched);
    EXPECT_EQ(scatter_convert(type_of<S>(), src.data(), runs.data(), runs.size(), type_of<D>(),
                              got.data(), &fill),
              want_bad)
        << pair_name<S, D>();
    expect_equal_values(want, got, "scatter " + pair_name<S, D>());
  });
}

TEST(RemapConvert, EqualsGatherThenScatterForEveryPair) {
  std::mt19937_64 rng(77);
  for_each_pair([&](auto s, auto d) {
    using S = typename decltype(s)::type;
    using D = typename decltype(d)::type;
    const int64_t n = 5000;
    std::vector<convert::Run> from = random_disjoint_runs(rng, n);
    std::vector<convert::Run> to = random_disjoint_runs(rng, n);
    int64_t nfrom = 0, nto = 0;
    for (const convert::Run &r : from) nfrom += r.length;
    for (const convert::Run &r : to) nto += r.length;
    // Cut the longer list so that both hold as many elements, as a plan's do.
    cut_to(nfrom > nto ? &from : &to, std::max(nfrom, nto), std::min(nfrom, nto));
    std::vector<S> src(n);
    for (auto &v : src) v = random_any<S, D>(rng);
    const D fill = test_fill<D>();
    int64_t count = 0;
    for (const convert::Run &r : from) count += r.length;
    std::vector<D> packed(count), want(n, D(42)), got(n, D(42));
    const int64_t want_bad = gather_convert(type_of<S>(), src.data(), from.data(), from.size(),
                                            type_of<D>(), packed.data(), &fill);
    scatter_convert(type_of<D>(), packed.data(), to.data(), to.size(), type_of<D>(), want.data(),
                    nullptr);
    EXPECT_EQ(remap_convert(type_of<S>(), src.data(), from.data(), from.size(), type_of<D>(),
                            got.data(), to.data(), to.size(), &fill),
              want_bad)
        << pair_name<S, D>();
    expect_equal_values(want, got, "remap " + pair_name<S, D>());
  });
  // Lists of different totals: refused, nothing written.
  const convert::Run a[1] = {{0, 3}}, b[1] = {{0, 2}};
  const double in[3] = {1, 2, 3};
  float out[3] = {9, 9, 9};
  EXPECT_EQ(remap_convert(ESMIO_DOUBLE, in, a, 1, ESMIO_FLOAT, out, b, 1, nullptr), -1);
  EXPECT_EQ(out[0], 9.0f);
}

TEST(RemapPositionsConvert, EqualsRemapOfSingleElementRunsForEveryPair) {
  std::mt19937_64 rng(78);
  for_each_pair([&](auto s, auto d) {
    using S = typename decltype(s)::type;
    using D = typename decltype(d)::type;
    const int64_t n = 5000;
    // A scattered source: every element of src once, in random order, as one-element runs.
    std::vector<int32_t> positions(n);
    for (int64_t k = 0; k < n; ++k) positions[k] = static_cast<int32_t>(k);
    std::shuffle(positions.begin(), positions.end(), rng);
    std::vector<convert::Run> from;
    for (int32_t p : positions) from.push_back({p, 1});
    std::vector<convert::Run> to = random_disjoint_runs(rng, n);
    int64_t nto = 0;
    for (const convert::Run &r : to) nto += r.length;
    const int64_t count = std::min<int64_t>(n, nto);
    from.resize(static_cast<std::size_t>(count));
    cut_to(&to, nto, count);  // the destination to as many elements
    std::vector<S> src(n);
    for (auto &v : src) v = random_any<S, D>(rng);
    const D fill = test_fill<D>();
    std::vector<D> want(n, D(42)), got(n, D(42));
    const int64_t want_bad = remap_convert(type_of<S>(), src.data(), from.data(), from.size(),
                                           type_of<D>(), want.data(), to.data(), to.size(), &fill);
    EXPECT_EQ(remap_positions_convert(type_of<S>(), src.data(), positions.data(), count,
                                      type_of<D>(), got.data(), to.data(), to.size(), &fill),
              want_bad)
        << pair_name<S, D>();
    expect_equal_values(want, got, "remap positions " + pair_name<S, D>());
  });
  // A count other than the destination's: refused, nothing written. Out of range: the fill.
  const convert::Run b[2] = {{2, 1}, {0, 1}};
  const int32_t at[2] = {1, 0};
  const double in[2] = {1e300, 2.5};
  float out[3] = {9, 9, 9};
  EXPECT_EQ(remap_positions_convert(ESMIO_DOUBLE, in, at, 1, ESMIO_FLOAT, out, b, 2, nullptr), -1);
  EXPECT_EQ(out[0], 9.0f);
  const float fill = -7.0f;
  EXPECT_EQ(remap_positions_convert(ESMIO_DOUBLE, in, at, 2, ESMIO_FLOAT, out, b, 2, &fill), 1);
  EXPECT_EQ(out[2], 2.5f);   // in[at[0]] at the first position of b
  EXPECT_EQ(out[0], -7.0f);  // in[at[1]] = 1e300, out of float's range
  EXPECT_EQ(out[1], 9.0f);
}

TEST(GatherConvert, SingleElementRunsAndEmptyRuns) {
  const int64_t n = 3000;
  std::vector<double> src(n);
  for (int64_t i = 0; i < n; ++i) src[i] = (i % 97 == 0) ? 1e40 : i + 0.5;
  std::vector<convert::Run> runs;
  for (int64_t i = n - 1; i >= 0; i -= 2) {
    runs.push_back(convert::Run{i, 1});
    runs.push_back(convert::Run{i, 0});
  }
  const float fill = -7.0f;
  std::vector<float> dst(runs.size() / 2);
  int64_t want_bad = 0;
  for (int64_t i = n - 1; i >= 0; i -= 2) want_bad += (i % 97 == 0);
  EXPECT_EQ(gather_convert(ESMIO_DOUBLE, src.data(), runs.data(), runs.size(), ESMIO_FLOAT,
                           dst.data(), &fill),
            want_bad);
  for (std::size_t k = 0; k < dst.size(); ++k) {
    const int64_t i = n - 1 - 2 * static_cast<int64_t>(k);
    EXPECT_EQ(dst[k], (i % 97 == 0) ? -7.0f : static_cast<float>(i + 0.5)) << k;
  }
  // Only empty runs, or none: nothing written.
  const convert::Run empty[2] = {{5, 0}, {0, 0}};
  float out = 3.0f;
  EXPECT_EQ(gather_convert(ESMIO_DOUBLE, src.data(), empty, 2, ESMIO_FLOAT, &out, &fill), 0);
  EXPECT_EQ(gather_convert(ESMIO_DOUBLE, src.data(), empty, 0, ESMIO_FLOAT, &out, &fill), 0);
  EXPECT_EQ(scatter_convert(ESMIO_DOUBLE, src.data(), empty, 2, ESMIO_FLOAT, &out, &fill), 0);
  EXPECT_EQ(out, 3.0f);
}

TEST(GatherScatter, RoundTripSameTypeAndChar) {
  std::mt19937_64 rng(5);
  const int64_t n = 4000;
  std::vector<char> text(n);
  for (auto &c : text) c = static_cast<char>('a' + rng() % 26);
  const std::vector<convert::Run> runs = random_disjoint_runs(rng, n);
  int64_t packed_len = 0;
  for (const convert::Run &r : runs) packed_len += r.length;
  std::vector<char> packed(packed_len);
  EXPECT_EQ(gather_convert(ESMIO_CHAR, text.data(), runs.data(), runs.size(), ESMIO_CHAR,
                           packed.data(), nullptr),
            0);
  std::vector<char> back(n, '#');
  EXPECT_EQ(scatter_convert(ESMIO_CHAR, packed.data(), runs.data(), runs.size(), ESMIO_CHAR,
                            back.data(), nullptr),
            0);
  std::vector<char> want(n, '#');
  for (const convert::Run &r : runs)
    for (int64_t i = r.begin; i < r.begin + r.length; ++i) want[i] = text[i];
  EXPECT_EQ(want, back);

  // Same numeric type: bits pass through untouched, NaN payloads included.
  std::vector<double> bits(n);
  for (auto &v : bits) v = from_bits<double>(rng());
  std::vector<double> dpacked(packed_len);
  EXPECT_EQ(gather_convert(ESMIO_DOUBLE, bits.data(), runs.data(), runs.size(), ESMIO_DOUBLE,
                           dpacked.data(), nullptr),
            0);
  int64_t k = 0;
  for (const convert::Run &r : runs)
    for (int64_t i = r.begin; i < r.begin + r.length; ++i, ++k)
      ASSERT_TRUE(same_bits(bits[i], dpacked[k])) << i;
}

// A scattered map's placement: element k to dst[positions[k]], for every element size, the
// bytes untouched where no position points; and the gather that reads it back.
TEST(ScatterPositions, EveryElementSizeLandsWhereItsPositionSays) {
  std::mt19937 rng(11);
  for (std::size_t esize : {1u, 2u, 3u, 4u, 8u}) {
    const int64_t slots = 1000, n = 600;
    std::vector<int32_t> order(slots);
    for (int32_t i = 0; i < slots; ++i) order[static_cast<std::size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), rng);
    order.resize(static_cast<std::size_t>(n));  // 600 distinct positions, in random order
    std::vector<unsigned char> src(static_cast<std::size_t>(n) * esize);
    for (auto &b : src) b = static_cast<unsigned char>(rng());
    std::vector<unsigned char> dst(static_cast<std::size_t>(slots) * esize, 0xAB), want = dst;
    for (int64_t k = 0; k < n; ++k)
      std::memcpy(&want[static_cast<std::size_t>(order[static_cast<std::size_t>(k)]) * esize],
                  &src[static_cast<std::size_t>(k) * esize], esize);
    scatter_positions(esize, src.data(), order.data(), n, dst.data());
    EXPECT_EQ(dst, want) << "element size " << esize;
    // And back: the gather takes each element from where its position says.
    std::vector<unsigned char> back(src.size(), 0);
    gather_positions(esize, dst.data(), order.data(), n, back.data());
    EXPECT_EQ(back, src) << "element size " << esize;
  }
}

}  // namespace
}  // namespace esmio::convert

TEST(FillRuns, WritesTheValueExactlyAtTheRuns) {
  std::vector<double> buffer(100, 1.0);
  const double fill = -7.25;
  esmio::convert::fill_runs(buffer.data(), {{0, 1}, {3, 37}, {99, 1}, {50, 0}}, &fill, sizeof fill);
  for (int i = 0; i < 100; ++i) {
    const bool in = i == 0 || (i >= 3 && i < 40) || i == 99;
    EXPECT_EQ(buffer[i], in ? fill : 1.0) << i;
  }
}

TEST(FillRuns, EveryElementSizeShortAndLongRuns) {
  // Short runs take a store per element, long ones doubling copies: both exact at the edges.
  for (std::size_t size :
       {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(4), std::size_t(8)}) {
    const int64_t n = 1000;
    std::vector<unsigned char> buffer(n * size, 0xEE), value(size);
    for (std::size_t b = 0; b < size; ++b) value[b] = static_cast<unsigned char>(0x10 + b);
    const std::vector<esmio::convert::Run> runs = {{1, 1}, {5, 63}, {70, 64}, {140, 700}, {999, 1}};
    esmio::convert::fill_runs(buffer.data(), runs, value.data(), size);
    std::vector<unsigned char> want(n * size, 0xEE);
    for (const esmio::convert::Run &r : runs)
      for (int64_t i = r.begin; i < r.begin + r.length; ++i)
        std::memcpy(want.data() + i * size, value.data(), size);
    EXPECT_EQ(buffer, want) << size;
  }
}

TEST(GatherScatter, SameTypeRunsOfEveryShortLengthTouchNothingElse) {
  // Equal types copy short runs with overlapping fixed-size moves: every length up to past the
  // longest of them, each run surrounded by values that must stay.
  for (int64_t len = 0; len <= 70; ++len) {
    std::vector<uint32_t> src(200), packed(len + 2, 0xAAAAAAAAu), back(200, 0xBBBBBBBBu);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint32_t>(i * 2654435761u);
    const esmio::convert::Run run{7, len};
    EXPECT_EQ(esmio::convert::gather_convert(ESMIO_INT, src.data(), &run, 1, ESMIO_INT,
                                             packed.data() + 1, nullptr),
              0);
    EXPECT_EQ(packed[0], 0xAAAAAAAAu);
    EXPECT_EQ(packed[len + 1], 0xAAAAAAAAu);
    for (int64_t k = 0; k < len; ++k) EXPECT_EQ(packed[k + 1], src[7 + k]) << len << " " << k;
    EXPECT_EQ(esmio::convert::scatter_convert(ESMIO_INT, packed.data() + 1, &run, 1, ESMIO_INT,
                                              back.data(), nullptr),
              0);
    for (int64_t i = 0; i < 200; ++i)
      EXPECT_EQ(back[i], i >= 7 && i < 7 + len ? src[i] : 0xBBBBBBBBu) << len << " " << i;
  }
}

using esmio::convert::convert;

// The unsigned types: a conversion is out of range where the value is outside the destination's
// range, whatever the two types' signedness and sizes, and that in the vectorised blocks (the
// first 1024 values), in the small blocks and in the tail alike. S and D are the C++ types of
// st and dt; good and bad are values of S in and out of D's range.
template <class S, class D>
void expect_range(esmio_type st, esmio_type dt, S good, S bad) {
  for (std::size_t at : {std::size_t(500), std::size_t(1030), std::size_t(1999)}) {
    std::vector<S> in(2000, good);
    in[at] = bad;
    std::vector<D> out(in.size());
    EXPECT_EQ(convert(st, in.data(), dt, out.data(), static_cast<int64_t>(in.size()), nullptr), 1)
        << esmio::type_name(st) << " -> " << esmio::type_name(dt) << " at " << at;
    D fill;
    esmio::default_fill_value(dt, &fill);
    EXPECT_EQ(std::memcmp(&out[at], &fill, sizeof fill), 0) << "the fill value where out of range";
    EXPECT_EQ(out[0], static_cast<D>(good));
    EXPECT_EQ(out[1999 - (at == 1999)], static_cast<D>(good));
  }
}

TEST(Convert, UnsignedRangesWhateverTheSignednessAndSize) {
  // Negative into unsigned: a modular round trip would bring -1 back (int32 -> uint32 -> int32).
  expect_range<int32_t, uint32_t>(ESMIO_INT, ESMIO_UINT, 5, -1);
  expect_range<int8_t, uint64_t>(ESMIO_BYTE, ESMIO_UINT64, 100, -1);
  expect_range<int64_t, uint8_t>(ESMIO_INT64, ESMIO_UBYTE, 255, 256);
  // Unsigned into signed of the same size, or narrower, where the bits read as negative there.
  expect_range<uint32_t, int32_t>(ESMIO_UINT, ESMIO_INT, 2147483647U, 3000000000U);
  expect_range<uint32_t, int16_t>(ESMIO_UINT, ESMIO_SHORT, 32767U, 0xFFFF8000U);
  expect_range<uint8_t, int8_t>(ESMIO_UBYTE, ESMIO_BYTE, 127, 200);
  expect_range<uint64_t, int64_t>(ESMIO_UINT64, ESMIO_INT64, uint64_t(1) << 62, uint64_t(1) << 63);
  // Narrowing between unsigned types.
  expect_range<uint16_t, uint8_t>(ESMIO_USHORT, ESMIO_UBYTE, 255, 256);
  // Floating values into unsigned: negatives, and the top edge (2^64 is out of uint64's range,
  // the largest double below it in).
  expect_range<double, uint8_t>(ESMIO_DOUBLE, ESMIO_UBYTE, 255.0, -0.5);
  expect_range<double, uint8_t>(ESMIO_DOUBLE, ESMIO_UBYTE, 0.0, 255.5);
  expect_range<float, uint32_t>(ESMIO_FLOAT, ESMIO_UINT, 4294967040.0f, 4294967296.0f);
  expect_range<double, uint64_t>(ESMIO_DOUBLE, ESMIO_UINT64, 18446744073709549568.0,
                                 18446744073709551616.0);
  expect_range<double, uint16_t>(ESMIO_DOUBLE, ESMIO_USHORT, 1.0, std::nan(""));
}

TEST(Convert, UnsignedWithinRangeConvertsExactly) {
  // Every value of the source fits: nothing out of range, the values as C++ converts them.
  const uint32_t u[4] = {0, 1, 2147483648U, 4294967295U};
  int64_t wide[4];
  EXPECT_EQ(convert(ESMIO_UINT, u, ESMIO_INT64, wide, 4, nullptr), 0);
  EXPECT_EQ(wide[3], 4294967295LL);
  double d[4];
  EXPECT_EQ(convert(ESMIO_UINT, u, ESMIO_DOUBLE, d, 4, nullptr), 0);
  EXPECT_EQ(d[2], 2147483648.0);
  const uint64_t top = ~uint64_t(0);
  float f = 0;
  EXPECT_EQ(convert(ESMIO_UINT64, &top, ESMIO_FLOAT, &f, 1, nullptr), 0);
  EXPECT_EQ(f, 18446744073709551616.0f);
  // -0 is 0, in range for an unsigned type.
  const float minus_zero = -0.0f;
  uint8_t b = 7;
  EXPECT_EQ(convert(ESMIO_FLOAT, &minus_zero, ESMIO_UBYTE, &b, 1, nullptr), 0);
  EXPECT_EQ(b, 0);
  // The default fill values are netCDF's.
  uint64_t fill64 = 0;
  esmio::default_fill_value(ESMIO_UINT64, &fill64);
  EXPECT_EQ(fill64, 18446744073709551614ULL);
  uint8_t fill8 = 0;
  esmio::default_fill_value(ESMIO_UBYTE, &fill8);
  EXPECT_EQ(fill8, 255);
}
