// The cache spec: valid strings, every error with its key named, and a fuzz run of random
// strings that must give a clean error or valid settings, never a crash.
#include <gtest/gtest.h>

#include <random>

#include "aggregate/cache_spec.hpp"

using esmio::aggregate::CacheSpec;
using esmio::aggregate::FlushPolicy;
using esmio::aggregate::parse_cache_spec;

TEST(CacheSpec, ParsesEveryKey) {
  CacheSpec spec;
  ASSERT_TRUE(
      parse_cache_spec("size=512M,flush=close,align=4M,max_request=64M,direct=2M", "t", &spec)
          .is_ok());
  EXPECT_EQ(spec.direct, int64_t(2) << 20);
  EXPECT_EQ(spec.size, int64_t(512) << 20);
  EXPECT_EQ(spec.flush, FlushPolicy::full);
  EXPECT_EQ(spec.align, int64_t(4) << 20);
  EXPECT_EQ(spec.max_request, int64_t(64) << 20);
  ASSERT_TRUE(parse_cache_spec(" SIZE = 0 ; flush = write ", "t", &spec).is_ok());
  EXPECT_EQ(spec.size, 0);
  EXPECT_EQ(spec.flush, FlushPolicy::write);
  EXPECT_EQ(spec.max_request, int64_t(64) << 20) << "keys not named keep their value";
  ASSERT_TRUE(parse_cache_spec("", "t", &spec).is_ok());
}

TEST(CacheSpec, ErrorsNameTheKeyAndOrigin) {
  CacheSpec spec;
  const CacheSpec before = spec;
  esmio::Status s = parse_cache_spec("size=12Q", "ESMIO_CACHE", &spec);
  EXPECT_EQ(s.code(), ESMIO_ESETTING);
  EXPECT_NE(s.message().find("ESMIO_CACHE"), std::string::npos);
  EXPECT_NE(s.message().find("'size'"), std::string::npos) << s.message();
  EXPECT_EQ(parse_cache_spec("colour=red", "t", &spec).code(), ESMIO_EBADNAME);
  EXPECT_EQ(parse_cache_spec("flush=sometimes", "t", &spec).code(), ESMIO_ESETTING);
  EXPECT_EQ(parse_cache_spec("align=3000", "t", &spec).code(), ESMIO_ESETTING);
  EXPECT_EQ(parse_cache_spec("max_request=0", "t", &spec).code(), ESMIO_ESETTING);
  EXPECT_EQ(parse_cache_spec("size", "t", &spec).code(), ESMIO_ESETTING);
  EXPECT_EQ(parse_cache_spec("size=-1", "t", &spec).code(), ESMIO_ESETTING);
  EXPECT_EQ(parse_cache_spec("size=99999999999T", "t", &spec).code(), ESMIO_ESETTING);
  EXPECT_EQ(parse_cache_spec("size=1M,bogus=1", "t", &spec).code(), ESMIO_EBADNAME);
  EXPECT_EQ(spec.size, before.size) << "a failed parse changes nothing";
}

TEST(CacheSpec, FuzzNeverCrashes) {
  std::mt19937 rng(2026);
  const std::string alphabet =
      "sizeflushalignmax_request=,;0123456789KMGTkmgt -writefullclose\x01\xff";
  std::uniform_int_distribution<std::size_t> len(0, 40), pick(0, alphabet.size() - 1);
  int ok = 0, errors = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (std::size_t n = len(rng); n > 0; --n) text += alphabet[pick(rng)];
    CacheSpec spec;
    const esmio::Status s = parse_cache_spec(text, "fuzz", &spec);
    if (s.is_ok()) {
      ++ok;
      EXPECT_GE(spec.size, 0);
      EXPECT_TRUE(spec.align == 0 || (spec.align & (spec.align - 1)) == 0);
    } else {
      ++errors;
      EXPECT_TRUE(s.code() == ESMIO_ESETTING || s.code() == ESMIO_EBADNAME) << s.code();
      EXPECT_FALSE(s.message().empty());
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(errors, 0);
}
