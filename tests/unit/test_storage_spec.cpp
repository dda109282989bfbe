// The storage spec parsers (codec, quantize, chunks, per-variable lists): every accepted form with
// its defaults, every rejection with its code and a message naming the origin and the bad text, a
// failed parse leaving the output untouched, and a fuzz run of random strings that must give a
// clean error or values in the documented ranges, never a crash.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "codec/storage_spec.hpp"
#include "quantize/bit_information.hpp"

using esmio::Status;
using esmio::codec::ChunkChoice;
using esmio::codec::CodecChoice;
using esmio::codec::parse_chunks;
using esmio::codec::parse_codec;
using esmio::codec::parse_per_variable;
using esmio::codec::parse_quantize;
using esmio::codec::QuantizeChoice;

namespace {

using Entries = std::map<std::string, std::string>;

// Sentinel outputs: values no successful parse can produce, so any write on failure shows.
CodecChoice codec_sentinel() {
  CodecChoice c;
  c.codec = "sentinel";
  c.level = 12345;
  c.shuffle = true;
  return c;
}

QuantizeChoice quantize_sentinel() {
  QuantizeChoice q;
  q.mode = "sentinel";
  q.digits = 777;
  q.fraction = -3.5;
  q.maxrel = 0.25;
  q.minbits = 31;
  return q;
}

ChunkChoice chunks_sentinel() {
  ChunkChoice c;
  c.kind = ChunkChoice::Kind::contiguous;  // contiguous with a shape: never parsed
  c.shape = {42, 43};
  return c;
}

Entries entries_sentinel() { return {{"sentinel", "value"}}; }

bool same(const CodecChoice &a, const CodecChoice &b) {
  return a.codec == b.codec && a.level == b.level && a.shuffle == b.shuffle;
}
bool same(const QuantizeChoice &a, const QuantizeChoice &b) {
  return a.mode == b.mode && a.digits == b.digits && a.fraction == b.fraction &&
         a.maxrel == b.maxrel && a.minbits == b.minbits;
}
bool same(const ChunkChoice &a, const ChunkChoice &b) {
  return a.kind == b.kind && a.shape == b.shape;
}

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

// The status has `code`, and its message names the origin and every one of `needles`.
::testing::AssertionResult failed_with(const Status &s, int code, const std::string &origin,
                                       const std::vector<std::string> &needles) {
  if (s.is_ok()) return ::testing::AssertionFailure() << "parse succeeded";
  if (s.code() != code)
    return ::testing::AssertionFailure()
           << "code " << s.code() << ", expected " << code << " (" << s.message() << ")";
  if (!contains(s.message(), origin))
    return ::testing::AssertionFailure()
           << "message does not name origin '" << origin << "': " << s.message();
  for (const std::string &needle : needles)
    if (!contains(s.message(), needle))
      return ::testing::AssertionFailure()
             << "message does not name '" << needle << "': " << s.message();
  return ::testing::AssertionSuccess();
}

CodecChoice codec_ok(const std::string &text) {
  CodecChoice c = codec_sentinel();
  const Status s = parse_codec(text, "test", &c);
  EXPECT_TRUE(s.is_ok()) << "'" << text << "': " << s.message();
  return c;
}

QuantizeChoice quantize_ok(const std::string &text) {
  QuantizeChoice q = quantize_sentinel();
  const Status s = parse_quantize(text, "test", &q);
  EXPECT_TRUE(s.is_ok()) << "'" << text << "': " << s.message();
  return q;
}

ChunkChoice chunks_ok(const std::string &text) {
  ChunkChoice c = chunks_sentinel();
  const Status s = parse_chunks(text, "test", &c);
  EXPECT_TRUE(s.is_ok()) << "'" << text << "': " << s.message();
  return c;
}

Entries per_variable_ok(const std::string &text) {
  Entries e = entries_sentinel();
  const Status s = parse_per_variable(text, "test", &e);
  EXPECT_TRUE(s.is_ok()) << "'" << text << "': " << s.message();
  return e;
}

// Each rejecting check also verifies that the output is left as it was.
void codec_rejects(const std::string &text, int code, const std::vector<std::string> &needles) {
  SCOPED_TRACE("codec '" + text + "'");
  CodecChoice c = codec_sentinel();
  EXPECT_TRUE(failed_with(parse_codec(text, "ESMIO_CODEC", &c), code, "ESMIO_CODEC", needles));
  EXPECT_TRUE(same(c, codec_sentinel())) << "a failed parse must leave *out unchanged";
}

void quantize_rejects(const std::string &text, int code, const std::vector<std::string> &needles) {
  SCOPED_TRACE("quantize '" + text + "'");
  QuantizeChoice q = quantize_sentinel();
  EXPECT_TRUE(
      failed_with(parse_quantize(text, "ESMIO_QUANTIZE", &q), code, "ESMIO_QUANTIZE", needles));
  EXPECT_TRUE(same(q, quantize_sentinel())) << "a failed parse must leave *out unchanged";
}

void chunks_rejects(const std::string &text, const std::vector<std::string> &needles) {
  SCOPED_TRACE("chunks '" + text + "'");
  ChunkChoice c = chunks_sentinel();
  EXPECT_TRUE(
      failed_with(parse_chunks(text, "ESMIO_CHUNKS", &c), ESMIO_ESETTING, "ESMIO_CHUNKS", needles));
  EXPECT_TRUE(same(c, chunks_sentinel())) << "a failed parse must leave *out unchanged";
}

void per_variable_rejects(const std::string &text, const std::vector<std::string> &needles) {
  SCOPED_TRACE("per-variable '" + text + "'");
  Entries e = entries_sentinel();
  EXPECT_TRUE(failed_with(parse_per_variable(text, "ESMIO_STORAGE", &e), ESMIO_ESETTING,
                          "ESMIO_STORAGE", needles));
  EXPECT_EQ(e, entries_sentinel()) << "a failed parse must leave *entries unchanged";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Codec

TEST(StorageSpecCodec, DefaultConstructedIsNone) {
  const CodecChoice c;
  EXPECT_EQ(c.codec, "none");
  EXPECT_EQ(c.level, 0);
  EXPECT_FALSE(c.shuffle);
}

TEST(StorageSpecCodec, None) {
  const CodecChoice c = codec_ok("none");
  EXPECT_EQ(c.codec, "none");
  EXPECT_EQ(c.level, 0);
  EXPECT_FALSE(c.shuffle);
}

TEST(StorageSpecCodec, DeflateDefaultsToLevelOne) {
  const CodecChoice c = codec_ok("deflate");
  EXPECT_EQ(c.codec, "deflate");
  EXPECT_EQ(c.level, 1);
  EXPECT_FALSE(c.shuffle);
}

TEST(StorageSpecCodec, DeflateWithLevel) {
  const CodecChoice c = codec_ok("deflate:9");
  EXPECT_EQ(c.codec, "deflate");
  EXPECT_EQ(c.level, 9);
  EXPECT_FALSE(c.shuffle);
  for (int level = 1; level <= 9; ++level)
    EXPECT_EQ(codec_ok("deflate:" + std::to_string(level)).level, level);
}

TEST(StorageSpecCodec, DeflateWithLevelAndShuffle) {
  const CodecChoice c = codec_ok("deflate:4:shuffle");
  EXPECT_EQ(c.codec, "deflate");
  EXPECT_EQ(c.level, 4);
  EXPECT_TRUE(c.shuffle);
}

TEST(StorageSpecCodec, DeflateShuffleKeepsDefaultLevel) {
  const CodecChoice c = codec_ok("deflate:shuffle");
  EXPECT_EQ(c.codec, "deflate");
  EXPECT_EQ(c.level, 1);
  EXPECT_TRUE(c.shuffle);
}

TEST(StorageSpecCodec, ZstdDefaultsToLevelOne) {
  const CodecChoice c = codec_ok("zstd");
  EXPECT_EQ(c.codec, "zstd");
  EXPECT_EQ(c.level, 1);
  EXPECT_FALSE(c.shuffle);
}

TEST(StorageSpecCodec, ZstdLevels) {
  EXPECT_EQ(codec_ok("zstd:-5").level, -5);
  EXPECT_EQ(codec_ok("zstd:22").level, 22);
  EXPECT_EQ(codec_ok("zstd:1").level, 1);
  EXPECT_EQ(codec_ok("zstd:-1").level, -1);
  EXPECT_EQ(codec_ok("zstd:-131072").level, -131072);
  const CodecChoice c = codec_ok("zstd:-5");
  EXPECT_EQ(c.codec, "zstd");
  EXPECT_FALSE(c.shuffle);
}

TEST(StorageSpecCodec, ZstdWithLevelAndShuffle) {
  const CodecChoice c = codec_ok("zstd:3:shuffle");
  EXPECT_EQ(c.codec, "zstd");
  EXPECT_EQ(c.level, 3);
  EXPECT_TRUE(c.shuffle);
  const CodecChoice d = codec_ok("zstd:shuffle");
  EXPECT_EQ(d.level, 1) << "the default level";
  EXPECT_TRUE(d.shuffle);
}

TEST(StorageSpecCodec, CaseAndWhitespaceInsensitive) {
  CodecChoice c = codec_ok("  ZSTD : 7 : Shuffle\t");
  EXPECT_EQ(c.codec, "zstd");
  EXPECT_EQ(c.level, 7);
  EXPECT_TRUE(c.shuffle);
  c = codec_ok("Deflate:SHUFFLE");
  EXPECT_EQ(c.codec, "deflate");
  EXPECT_EQ(c.level, 1);
  EXPECT_TRUE(c.shuffle);
  c = codec_ok("\n None \n");
  EXPECT_EQ(c.codec, "none");
  c = codec_ok(" deflate : 6 ");
  EXPECT_EQ(c.codec, "deflate");
  EXPECT_EQ(c.level, 6);
  EXPECT_FALSE(c.shuffle);
}

TEST(StorageSpecCodec, SuccessOverwritesEveryField) {
  CodecChoice c = codec_sentinel();
  ASSERT_TRUE(parse_codec("none", "t", &c).is_ok());
  EXPECT_TRUE(same(c, CodecChoice())) << "'none' resets level and shuffle";
}

TEST(StorageSpecCodec, UnknownCodecIsBadName) {
  codec_rejects("gzip", ESMIO_EBADNAME, {"gzip", "unknown codec"});
  codec_rejects("lz4:3", ESMIO_EBADNAME, {"lz4", "lz4:3"});
  codec_rejects("szip", ESMIO_EBADNAME, {"szip"});
  codec_rejects("", ESMIO_EBADNAME, {"unknown codec"});
  codec_rejects("shuffle", ESMIO_EBADNAME, {"shuffle"});
  codec_rejects("zstd3", ESMIO_EBADNAME, {"zstd3"});
  codec_rejects("deflate;zstd", ESMIO_EBADNAME, {"deflate;zstd"});
}

TEST(StorageSpecCodec, BadLevelIsBadSetting) {
  codec_rejects("deflate:0", ESMIO_ESETTING, {"'0'", "deflate level", "1 to 9"});
  codec_rejects("deflate:10", ESMIO_ESETTING, {"'10'", "deflate level"});
  codec_rejects("deflate:-1", ESMIO_ESETTING, {"'-1'", "deflate level"});
  codec_rejects("zstd:0", ESMIO_ESETTING, {"'0'", "zstd level"});
  codec_rejects("zstd:23", ESMIO_ESETTING, {"'23'", "zstd level"});
  codec_rejects("zstd:-131073", ESMIO_ESETTING, {"'-131073'", "zstd level"});
  codec_rejects("zstd:99999999999999999999999", ESMIO_ESETTING, {"99999999999999999999999"});
  codec_rejects("zstd:2147483648", ESMIO_ESETTING, {"2147483648", "zstd level"});
}

TEST(StorageSpecCodec, MalformedIsBadSetting) {
  codec_rejects("none:1", ESMIO_ESETTING, {"none:1"});
  codec_rejects("none:shuffle", ESMIO_ESETTING, {"none:shuffle"});
  codec_rejects("deflate:", ESMIO_ESETTING, {"deflate:"});
  codec_rejects("deflate:fast", ESMIO_ESETTING, {"deflate:fast"});
  codec_rejects("deflate:4.5", ESMIO_ESETTING, {"deflate:4.5"});
  codec_rejects("deflate:4:4", ESMIO_ESETTING, {"deflate:4:4"});
  // The level comes before shuffle.
  codec_rejects("deflate:shuffle:4", ESMIO_ESETTING, {"deflate:shuffle:4"});
  codec_rejects("deflate:shuffle:shuffle", ESMIO_ESETTING, {"deflate:shuffle:shuffle"});
  codec_rejects("zstd:3:shuffle:extra", ESMIO_ESETTING, {"zstd:3:shuffle:extra"});
  codec_rejects("zstd::shuffle", ESMIO_ESETTING, {"zstd::shuffle"});
  codec_rejects("zstd:3 4", ESMIO_ESETTING, {"zstd:3 4"});
  codec_rejects("zstd:3x", ESMIO_ESETTING, {"zstd:3x"});
  codec_rejects("zstd:noshuffle", ESMIO_ESETTING, {"zstd:noshuffle"});
}

TEST(StorageSpecCodec, MessageQuotesTheOriginalText) {
  CodecChoice c;
  const Status s = parse_codec("Deflate:Fast", "ESMIO_CODEC[T]", &c);
  EXPECT_TRUE(failed_with(s, ESMIO_ESETTING, "ESMIO_CODEC[T]", {"'Deflate:Fast'"}));
  const Status u = parse_codec("  GZIP:4 ", "cfg", &c);
  EXPECT_TRUE(failed_with(u, ESMIO_EBADNAME, "cfg", {"'gzip'", "GZIP:4"}));
}

// ---------------------------------------------------------------------------------------------
// Quantize

TEST(StorageSpecQuantize, DefaultConstructedIsNone) {
  const QuantizeChoice q;
  EXPECT_EQ(q.mode, "none");
  EXPECT_EQ(q.digits, 0);
  EXPECT_DOUBLE_EQ(q.fraction, 0.99);
}

TEST(StorageSpecQuantize, None) {
  const QuantizeChoice q = quantize_ok("none");
  EXPECT_EQ(q.mode, "none");
  EXPECT_EQ(q.digits, 0);
  EXPECT_DOUBLE_EQ(q.fraction, 0.99);
  EXPECT_EQ(quantize_ok(" NONE ").mode, "none");
}

TEST(StorageSpecQuantize, BitRoundWholeRange) {
  for (int nsb = 1; nsb <= 52; ++nsb) {
    const QuantizeChoice q = quantize_ok("bitround:" + std::to_string(nsb));
    EXPECT_EQ(q.mode, "bitround");
    EXPECT_EQ(q.digits, nsb);
  }
  const QuantizeChoice q = quantize_ok(" BitRound : 7 ");
  EXPECT_EQ(q.mode, "bitround");
  EXPECT_EQ(q.digits, 7);
}

TEST(StorageSpecQuantize, GranularBrWholeRange) {
  for (int nsd = 1; nsd <= 15; ++nsd) {
    const QuantizeChoice q = quantize_ok("granularbr:" + std::to_string(nsd));
    EXPECT_EQ(q.mode, "granularbr");
    EXPECT_EQ(q.digits, nsd);
  }
  EXPECT_EQ(quantize_ok("GRANULARBR:3").digits, 3);
}

TEST(StorageSpecQuantize, Information) {
  QuantizeChoice q = quantize_ok("information");
  EXPECT_EQ(q.mode, "information");
  EXPECT_DOUBLE_EQ(q.fraction, 0.99) << "default fraction";
  q = quantize_ok("information:0.5");
  EXPECT_EQ(q.mode, "information");
  EXPECT_DOUBLE_EQ(q.fraction, 0.5);
  q = quantize_ok("information:1");
  EXPECT_DOUBLE_EQ(q.fraction, 1.0);
  q = quantize_ok(" Information : 0.999 ");
  EXPECT_EQ(q.mode, "information");
  EXPECT_DOUBLE_EQ(q.fraction, 0.999);
  q = quantize_ok("information:1e-3");
  EXPECT_DOUBLE_EQ(q.fraction, 1e-3);
  EXPECT_EQ(q.maxrel, 0.0) << "no bound unless asked";
  q = quantize_ok("information:0.99:maxrel=1e-3");
  EXPECT_DOUBLE_EQ(q.fraction, 0.99);
  EXPECT_DOUBLE_EQ(q.maxrel, 1e-3);
  q = quantize_ok("information:maxrel=0.01");
  EXPECT_DOUBLE_EQ(q.fraction, 0.99) << "default fraction with a bound";
  EXPECT_DOUBLE_EQ(q.maxrel, 0.01);
  EXPECT_EQ(q.minbits, -1) << "not given: the default floor";
}

TEST(StorageSpecQuantize, InformationMinbits) {
  QuantizeChoice q = quantize_ok("information");
  EXPECT_EQ(q.minbits, -1) << "not given: information quantisation uses kKeepbitsFloor";
  EXPECT_EQ(esmio::quantize::kKeepbitsFloor, 4);
  q = quantize_ok("information:0.99:minbits=2");
  EXPECT_DOUBLE_EQ(q.fraction, 0.99);
  EXPECT_EQ(q.minbits, 2);
  EXPECT_EQ(q.maxrel, 0.0);
  q = quantize_ok("information:minbits=0");
  EXPECT_DOUBLE_EQ(q.fraction, 0.99) << "default fraction with a floor";
  EXPECT_EQ(q.minbits, 0);
  q = quantize_ok("information:minbits=52");
  EXPECT_EQ(q.minbits, 52);
  q = quantize_ok(" INFORMATION : 0.9 : MinBits=7 : maxrel=1e-2 ");
  EXPECT_DOUBLE_EQ(q.fraction, 0.9);
  EXPECT_EQ(q.minbits, 7);
  EXPECT_DOUBLE_EQ(q.maxrel, 1e-2);
  q = quantize_ok("information:0.99:maxrel=1e-3:minbits=5");
  EXPECT_DOUBLE_EQ(q.maxrel, 1e-3);
  EXPECT_EQ(q.minbits, 5);
}

TEST(StorageSpecQuantize, BadMinbitsIsBadSetting) {
  for (const char *text :
       {"information:minbits=-1", "information:minbits=53",
        "information:minbits=", "information:minbits=x", "information:minbits=4.5",
        "information:minbits=+4", "information:minbits=99999999999999999999"})
    quantize_rejects(text, ESMIO_ESETTING, {text, "minbits=N with N 0 to 52"});
  quantize_rejects("information:minbits=4:minbits=5", ESMIO_ESETTING, {"minbits"});
  quantize_rejects("information:minbits=4:0.99", ESMIO_ESETTING, {"information:minbits=4:0.99"});
  quantize_rejects("information:0.99:maxrel=0.1:minbits=4:x", ESMIO_ESETTING,
                   {"information[:FRACTION][:maxrel=E][:minbits=N]"});
  quantize_rejects("bitround:7:minbits=4", ESMIO_ESETTING, {"bitround:7:minbits=4"});
}

TEST(StorageSpecQuantize, BadMaxrelIsBadSetting) {
  quantize_rejects("information:0.99:maxrel=0", ESMIO_ESETTING, {"maxrel=0", "0 < E < 1"});
  quantize_rejects("information:0.99:maxrel=1", ESMIO_ESETTING, {"maxrel=1"});
  quantize_rejects("information:0.99:maxrel=", ESMIO_ESETTING, {"maxrel="});
  quantize_rejects("information:0.99:maxrel=x", ESMIO_ESETTING, {"maxrel=x"});
  quantize_rejects("information:maxrel=0.1:0.99", ESMIO_ESETTING, {"maxrel=0.1:0.99"});
  quantize_rejects("information:maxrel=0.1:maxrel=0.2", ESMIO_ESETTING, {"maxrel"});
  quantize_rejects("information:0.9:0.99", ESMIO_ESETTING, {"information:0.9:0.99"});
  quantize_rejects("information:0.9:0.99:maxrel=0.1", ESMIO_ESETTING, {"information"});
}

TEST(StorageSpecQuantize, SuccessOverwritesEveryField) {
  QuantizeChoice q = quantize_sentinel();
  ASSERT_TRUE(parse_quantize("none", "t", &q).is_ok());
  EXPECT_TRUE(same(q, QuantizeChoice()));
}

TEST(StorageSpecQuantize, BadDigitsAreBadSetting) {
  quantize_rejects("bitround:0", ESMIO_ESETTING, {"bitround:0", "1 to 52"});
  quantize_rejects("bitround:53", ESMIO_ESETTING, {"bitround:53", "1 to 52"});
  quantize_rejects("bitround:-1", ESMIO_ESETTING, {"bitround:-1"});
  quantize_rejects("bitround", ESMIO_ESETTING, {"bitround"});
  quantize_rejects("bitround:", ESMIO_ESETTING, {"bitround:"});
  quantize_rejects("bitround:x", ESMIO_ESETTING, {"bitround:x"});
  quantize_rejects("bitround:7:7", ESMIO_ESETTING, {"bitround:7:7"});
  quantize_rejects("bitround:99999999999999999999", ESMIO_ESETTING,
                   {"bitround:99999999999999999999"});
  quantize_rejects("granularbr:0", ESMIO_ESETTING, {"granularbr:0", "1 to 15"});
  quantize_rejects("granularbr:16", ESMIO_ESETTING, {"granularbr:16", "1 to 15"});
  quantize_rejects("granularbr", ESMIO_ESETTING, {"granularbr"});
  quantize_rejects("granularbr:3.5", ESMIO_ESETTING, {"granularbr:3.5"});
}

TEST(StorageSpecQuantize, BadFractionIsBadSetting) {
  quantize_rejects("information:0", ESMIO_ESETTING, {"information:0", "0 < F <= 1"});
  quantize_rejects("information:1.5", ESMIO_ESETTING, {"information:1.5"});
  quantize_rejects("information:x", ESMIO_ESETTING, {"information:x"});
  quantize_rejects("information:-0.5", ESMIO_ESETTING, {"information:-0.5"});
  quantize_rejects("information:", ESMIO_ESETTING, {"information:"});
  quantize_rejects("information:0.5x", ESMIO_ESETTING, {"information:0.5x"});
  quantize_rejects("information:nan", ESMIO_ESETTING, {"information:nan"});
  quantize_rejects("information:inf", ESMIO_ESETTING, {"information:inf"});
  quantize_rejects("information:0.5:1", ESMIO_ESETTING, {"information:0.5:1"});
  quantize_rejects("none:3", ESMIO_ESETTING, {"none:3"});
}

TEST(StorageSpecQuantize, BitGroomIsRefusedWithTheLayoutReason) {
  quantize_rejects("bitgroom:3", ESMIO_EINVAL,
                   {"bitgroom:3", "BitGroom", "I/O layout", "granularbr", "bitround"});
  quantize_rejects("BitGroom", ESMIO_EINVAL, {"BitGroom", "I/O layout"});
}

TEST(StorageSpecQuantize, UnknownModeIsBadName) {
  quantize_rejects("digitround:3", ESMIO_EBADNAME, {"digitround", "digitround:3", "known:"});
  quantize_rejects("", ESMIO_EBADNAME, {"unknown quantize mode"});
  quantize_rejects("3", ESMIO_EBADNAME, {"'3'"});
  quantize_rejects("  Truncate ", ESMIO_EBADNAME, {"'truncate'", "Truncate"});
}

// ---------------------------------------------------------------------------------------------
// Chunks

TEST(StorageSpecChunks, DefaultConstructedIsAutomatic) {
  const ChunkChoice c;
  EXPECT_EQ(c.kind, ChunkChoice::Kind::automatic);
  EXPECT_TRUE(c.shape.empty());
}

TEST(StorageSpecChunks, AutoAndContiguous) {
  ChunkChoice c = chunks_ok("auto");
  EXPECT_EQ(c.kind, ChunkChoice::Kind::automatic);
  EXPECT_TRUE(c.shape.empty()) << "a successful parse replaces the old shape";
  c = chunks_ok("contiguous");
  EXPECT_EQ(c.kind, ChunkChoice::Kind::contiguous);
  EXPECT_TRUE(c.shape.empty());
  EXPECT_EQ(chunks_ok(" AUTO ").kind, ChunkChoice::Kind::automatic);
  EXPECT_EQ(chunks_ok("\tContiguous\n").kind, ChunkChoice::Kind::contiguous);
}

TEST(StorageSpecChunks, Shapes) {
  ChunkChoice c = chunks_ok("1x26x64x576");
  EXPECT_EQ(c.kind, ChunkChoice::Kind::shape);
  EXPECT_EQ(c.shape, (std::vector<int64_t>{1, 26, 64, 576}));
  c = chunks_ok("7");
  EXPECT_EQ(c.kind, ChunkChoice::Kind::shape);
  EXPECT_EQ(c.shape, (std::vector<int64_t>{7}));
  c = chunks_ok(" 1 X 26 x 64 ");
  EXPECT_EQ(c.kind, ChunkChoice::Kind::shape);
  EXPECT_EQ(c.shape, (std::vector<int64_t>{1, 26, 64}));
  c = chunks_ok("4294967296x1");
  EXPECT_EQ(c.shape, (std::vector<int64_t>{int64_t(1) << 32, 1})) << "lengths are 64-bit";
}

TEST(StorageSpecChunks, Rejections) {
  chunks_rejects("0x5", {"'0x5'", "chunk shape"});
  chunks_rejects("1xx2", {"'1xx2'"});
  chunks_rejects("-1", {"'-1'"});
  chunks_rejects("a", {"'a'"});
  chunks_rejects("", {"chunk shape"});
  chunks_rejects("x", {"'x'"});
  chunks_rejects("1x", {"'1x'"});
  chunks_rejects("x1", {"'x1'"});
  chunks_rejects("2x0", {"'2x0'"});
  chunks_rejects("1.5", {"'1.5'"});
  chunks_rejects("1 2", {"'1 2'"});
  chunks_rejects("1*2", {"'1*2'"});
  chunks_rejects("automatic", {"'automatic'"});
  chunks_rejects("auto:1", {"'auto:1'"});
  chunks_rejects("99999999999999999999x1", {"'99999999999999999999x1'"});
}

TEST(StorageSpecChunks, MessageQuotesTheOriginalText) {
  ChunkChoice c;
  const Status s = parse_chunks(" 1X0 ", "ESMIO_CHUNKS[PS]", &c);
  EXPECT_TRUE(failed_with(s, ESMIO_ESETTING, "ESMIO_CHUNKS[PS]", {"' 1X0 '", "1x26x64x576"}));
}

// ---------------------------------------------------------------------------------------------
// Per-variable lists

TEST(StorageSpecPerVariable, NamesAndDefault) {
  const Entries e = per_variable_ok("T:zstd:5;default:zstd:3");
  EXPECT_EQ(e, (Entries{{"T", "zstd:5"}, {"default", "zstd:3"}}));
}

TEST(StorageSpecPerVariable, ValuesFeedTheOtherParsers) {
  const Entries e = per_variable_ok("T:deflate:4:shuffle; Q : bitround:7 ;default:1x26x64x576");
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e.at("T"), "deflate:4:shuffle");
  EXPECT_EQ(e.at("Q"), "bitround:7");
  EXPECT_EQ(e.at("default"), "1x26x64x576");
  CodecChoice c;
  ASSERT_TRUE(parse_codec(e.at("T"), "t", &c).is_ok());
  EXPECT_EQ(c.level, 4);
  EXPECT_TRUE(c.shuffle);
}

TEST(StorageSpecPerVariable, LaterEntriesWin) {
  const Entries e = per_variable_ok("T:zstd:5;U:none;T:deflate:2;default:zstd;default:none");
  EXPECT_EQ(e, (Entries{{"T", "deflate:2"}, {"U", "none"}, {"default", "none"}}));
}

TEST(StorageSpecPerVariable, NamesKeepTheirCase) {
  const Entries e = per_variable_ok("t:zstd;T:deflate");
  EXPECT_EQ(e, (Entries{{"T", "deflate"}, {"t", "zstd"}}));
}

TEST(StorageSpecPerVariable, EmptyTextGivesNoEntries) {
  EXPECT_TRUE(per_variable_ok("").empty()) << "the old entries are replaced, not merged";
  EXPECT_TRUE(per_variable_ok("   \t ").empty());
  EXPECT_TRUE(per_variable_ok(";").empty());
  EXPECT_TRUE(per_variable_ok(" ; ;; ").empty());
}

TEST(StorageSpecPerVariable, StraySemicolonsAreIgnored) {
  EXPECT_EQ(per_variable_ok(";T:zstd:5;;default:none;"),
            (Entries{{"T", "zstd:5"}, {"default", "none"}}));
  EXPECT_EQ(per_variable_ok(" T : zstd:5 ; ; "), (Entries{{"T", "zstd:5"}}));
}

TEST(StorageSpecPerVariable, SuccessReplacesTheMap) {
  const Entries e = per_variable_ok("T:zstd");
  EXPECT_EQ(e, (Entries{{"T", "zstd"}})) << "the sentinel entry is gone";
}

TEST(StorageSpecPerVariable, Rejections) {
  per_variable_rejects("T", {"'T'", "NAME:VALUE"});
  per_variable_rejects("zstd", {"'zstd'"});
  per_variable_rejects("T:zstd;U", {"'U'"});
  per_variable_rejects(":zstd", {"':zstd'"});
  per_variable_rejects("  :zstd", {":zstd"});
  per_variable_rejects("T:", {"'T:'"});
  per_variable_rejects("T:   ", {"'T:'"});
  per_variable_rejects(":", {"':'"});
  per_variable_rejects("default:zstd;T:", {"'T:'"});
}

// ---------------------------------------------------------------------------------------------
// Fuzz: random strings from the grammar's alphabet, and random token sequences that hit the
// accepting paths more often. Every call gives ok with values in the documented ranges, or an
// error with the right kind of code and a message naming the origin; a failure changes nothing.

namespace {

std::string random_text(std::mt19937 &rng) {
  static const std::string alphabet =
      "nonedeflatezstdshufflebitroundgranularbrinformationbitgroomautocontiguousdefault"
      "NOEDFLATZSH0123456789::::;;;xxx--.. \t";
  static const std::vector<std::string> tokens = {
      "none",     "deflate",     "zstd",        "shuffle",    "bitround", "granularbr",
      "bitgroom", "information", "auto",        "contiguous", "default",  "T",
      "ZSTD",     " ",           ":",           ":",          ";",        "x",
      "-",        ".",           "0",           "1",          "3",        "9",
      "15",       "22",          "52",          "53",         "0.5",      "-5",
      "131072",   "1e-3",        "99999999999", "x",          "minbits=", "maxrel="};
  std::uniform_int_distribution<int> coin(0, 1);
  std::string text;
  if (coin(rng)) {
    std::uniform_int_distribution<std::size_t> len(0, 30), pick(0, alphabet.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255), percent(0, 99);
    for (std::size_t n = len(rng); n > 0; --n)
      text += percent(rng) < 3 ? static_cast<char>(byte(rng)) : alphabet[pick(rng)];
  } else {
    std::uniform_int_distribution<std::size_t> len(0, 6), pick(0, tokens.size() - 1);
    for (std::size_t n = len(rng); n > 0; --n) text += tokens[pick(rng)];
  }
  return text;
}

bool trimmed_nonempty(const std::string &s) {
  return !s.empty() && !std::isspace(static_cast<unsigned char>(s.front())) &&
         !std::isspace(static_cast<unsigned char>(s.back()));
}

}  // namespace

TEST(StorageSpecFuzz, NeverCrashesAndStaysInRange) {
  std::mt19937 rng(20260);
  const std::string origin = "FUZZ_ORIGIN";
  int codec_ok_count = 0, quantize_ok_count = 0, chunks_ok_count = 0, per_variable_ok_count = 0;
  int codec_err = 0, quantize_err = 0, chunks_err = 0, per_variable_err = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string text = random_text(rng);
    SCOPED_TRACE("text '" + text + "'");

    CodecChoice c = codec_sentinel();
    const Status cs = parse_codec(text, origin, &c);
    if (cs.is_ok()) {
      ++codec_ok_count;
      if (c.codec == "none") {
        EXPECT_EQ(c.level, 0);
        EXPECT_FALSE(c.shuffle);
      } else if (c.codec == "deflate") {
        EXPECT_GE(c.level, 1);
        EXPECT_LE(c.level, 9);
      } else if (c.codec == "zstd") {
        EXPECT_TRUE((c.level >= -131072 && c.level <= -1) || (c.level >= 1 && c.level <= 22))
            << c.level;
      } else {
        ADD_FAILURE() << "codec '" << c.codec << "'";
      }
    } else {
      ++codec_err;
      EXPECT_TRUE(cs.code() == ESMIO_EBADNAME || cs.code() == ESMIO_ESETTING) << cs.code();
      EXPECT_FALSE(cs.message().empty());
      EXPECT_TRUE(contains(cs.message(), origin)) << cs.message();
      EXPECT_TRUE(same(c, codec_sentinel()));
    }

    QuantizeChoice q = quantize_sentinel();
    const Status qs = parse_quantize(text, origin, &q);
    if (qs.is_ok()) {
      ++quantize_ok_count;
      if (q.mode == "none") {
        EXPECT_EQ(q.digits, 0);
      } else if (q.mode == "bitround") {
        EXPECT_GE(q.digits, 1);
        EXPECT_LE(q.digits, 52);
      } else if (q.mode == "granularbr") {
        EXPECT_GE(q.digits, 1);
        EXPECT_LE(q.digits, 15);
      } else if (q.mode == "information") {
        EXPECT_GT(q.fraction, 0.0);
        EXPECT_LE(q.fraction, 1.0);
        EXPECT_GE(q.minbits, -1);  // -1: not given
        EXPECT_LE(q.minbits, 52);
      } else {
        ADD_FAILURE() << "quantize mode '" << q.mode << "'";
      }
    } else {
      ++quantize_err;
      EXPECT_TRUE(qs.code() == ESMIO_EBADNAME || qs.code() == ESMIO_ESETTING ||
                  qs.code() == ESMIO_EINVAL)
          << qs.code();
      EXPECT_FALSE(qs.message().empty());
      EXPECT_TRUE(contains(qs.message(), origin)) << qs.message();
      EXPECT_TRUE(same(q, quantize_sentinel()));
    }

    ChunkChoice k = chunks_sentinel();
    const Status ks = parse_chunks(text, origin, &k);
    if (ks.is_ok()) {
      ++chunks_ok_count;
      if (k.kind == ChunkChoice::Kind::shape) {
        EXPECT_FALSE(k.shape.empty());
        for (int64_t len : k.shape) EXPECT_GE(len, 1);
      } else {
        EXPECT_TRUE(k.shape.empty());
      }
    } else {
      ++chunks_err;
      EXPECT_EQ(ks.code(), ESMIO_ESETTING);
      EXPECT_FALSE(ks.message().empty());
      EXPECT_TRUE(contains(ks.message(), origin)) << ks.message();
      EXPECT_TRUE(same(k, chunks_sentinel()));
    }

    Entries e = entries_sentinel();
    const Status es = parse_per_variable(text, origin, &e);
    if (es.is_ok()) {
      ++per_variable_ok_count;
      for (const auto &entry : e) {
        EXPECT_TRUE(trimmed_nonempty(entry.first)) << "'" << entry.first << "'";
        EXPECT_TRUE(trimmed_nonempty(entry.second)) << "'" << entry.second << "'";
        EXPECT_EQ(entry.first.find(':'), std::string::npos);
        EXPECT_EQ(entry.first.find(';'), std::string::npos);
        EXPECT_EQ(entry.second.find(';'), std::string::npos);
      }
    } else {
      ++per_variable_err;
      EXPECT_EQ(es.code(), ESMIO_ESETTING);
      EXPECT_FALSE(es.message().empty());
      EXPECT_TRUE(contains(es.message(), origin)) << es.message();
      EXPECT_EQ(e, entries_sentinel());
    }

    if (HasFailure()) break;  // one bad input is enough to read; don't flood the log
  }
  // The generator reaches both the accepting and the rejecting paths of every parser.
  EXPECT_GT(codec_ok_count, 0);
  EXPECT_GT(quantize_ok_count, 0);
  EXPECT_GT(chunks_ok_count, 0);
  EXPECT_GT(per_variable_ok_count, 0);
  EXPECT_GT(codec_err, 0);
  EXPECT_GT(quantize_err, 0);
  EXPECT_GT(chunks_err, 0);
  EXPECT_GT(per_variable_err, 0);
  std::cout << "fuzz ok/error: codec " << codec_ok_count << "/" << codec_err << ", quantize "
            << quantize_ok_count << "/" << quantize_err << ", chunks " << chunks_ok_count << "/"
            << chunks_err << ", per-variable " << per_variable_ok_count << "/" << per_variable_err
            << "\n";
}

// Text after an embedded NUL is part of the value, not ignored.
TEST(StorageSpecNul, EmbeddedNulIsAnError) {
  esmio::codec::ChunkChoice c;
  EXPECT_EQ(esmio::codec::parse_chunks(std::string("4\0junk", 6), "test", &c).code(),
            ESMIO_ESETTING);
  esmio::codec::CodecChoice k;
  EXPECT_EQ(esmio::codec::parse_codec(std::string("zstd:5\0x", 8), "test", &k).code(),
            ESMIO_ESETTING);
  esmio::codec::QuantizeChoice q;
  EXPECT_EQ(esmio::codec::parse_quantize(std::string("information:0.5\0z", 17), "test", &q).code(),
            ESMIO_ESETTING);
}
