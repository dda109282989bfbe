// The schema codec: what is encoded decodes to the same schema, and bytes that are cut short,
// left over or describe a schema the mirror cannot hold are refused, never read past.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/schema_codec.hpp"
#include "common/types.hpp"

using esmio::FileSchema;
using esmio::SchemaDim;
using esmio::SchemaVar;

namespace {

FileSchema random_schema(std::mt19937_64 &rng) {
  const esmio_type types[] = {ESMIO_BYTE,  ESMIO_CHAR,   ESMIO_SHORT, ESMIO_INT,
                              ESMIO_FLOAT, ESMIO_DOUBLE, ESMIO_INT64};
  FileSchema s;
  const int ndims = static_cast<int>(rng() % 5);
  for (int d = 0; d < ndims; ++d)
    s.dims.push_back(SchemaDim{"dim" + std::to_string(rng() % 1000),
                               static_cast<int64_t>(rng() % 100000), d == 0 && rng() % 2 == 0});
  const int nvars = static_cast<int>(rng() % 6);
  for (int v = 0; v < nvars; ++v) {
    SchemaVar var;
    var.name = std::string(rng() % 20, 'a' + static_cast<char>(v));
    var.type = types[rng() % 7];
    for (int d = 0; d < ndims; ++d)
      if (rng() % 2) var.dimids.push_back(d);
    var.fill.resize(esmio::type_size(var.type));
    for (auto &b : var.fill) b = static_cast<unsigned char>(rng());
    s.vars.push_back(var);
  }
  return s;
}

void expect_equal(const FileSchema &a, const FileSchema &b) {
  ASSERT_EQ(a.dims.size(), b.dims.size());
  for (std::size_t d = 0; d < a.dims.size(); ++d) {
    EXPECT_EQ(a.dims[d].name, b.dims[d].name);
    EXPECT_EQ(a.dims[d].len, b.dims[d].len);
    EXPECT_EQ(a.dims[d].unlimited, b.dims[d].unlimited);
  }
  ASSERT_EQ(a.vars.size(), b.vars.size());
  for (std::size_t v = 0; v < a.vars.size(); ++v) {
    EXPECT_EQ(a.vars[v].name, b.vars[v].name);
    EXPECT_EQ(a.vars[v].type, b.vars[v].type);
    EXPECT_EQ(a.vars[v].dimids, b.vars[v].dimids);
    EXPECT_EQ(a.vars[v].fill, b.vars[v].fill);
  }
  EXPECT_EQ(a.nrecords(), b.nrecords());
}

}  // namespace

TEST(SchemaCodec, RoundTrip) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 200; ++round) {
    const FileSchema s = random_schema(rng);
    const std::string bytes = esmio::encode_schema(s);
    FileSchema back;
    ASSERT_TRUE(esmio::decode_schema(bytes.data(), bytes.size(), "test", &back).is_ok());
    expect_equal(s, back);
  }
}

TEST(SchemaCodec, RecordCountIsTheUnlimitedLength) {
  FileSchema s;
  s.dims = {SchemaDim{"x", 8, false}, SchemaDim{"time", 5, true}};
  EXPECT_EQ(s.nrecords(), 5);
  s.dims[1].unlimited = false;
  EXPECT_EQ(s.nrecords(), 0);
}

TEST(SchemaCodec, EveryTruncationAndExtensionIsRefused) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 30; ++round) {
    const std::string bytes = esmio::encode_schema(random_schema(rng));
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      FileSchema out;
      const esmio::Status s = esmio::decode_schema(bytes.data(), n, "esmio_open", &out);
      ASSERT_EQ(s.code(), ESMIO_EMPI) << "cut to " << n << " of " << bytes.size() << " bytes";
      EXPECT_NE(s.message().find("esmio_open"), std::string::npos);
    }
    const std::string longer = bytes + std::string(3, '\0');
    FileSchema out;
    EXPECT_EQ(esmio::decode_schema(longer.data(), longer.size(), "t", &out).code(), ESMIO_EMPI);
  }
}

TEST(SchemaCodec, SchemasTheMirrorCannotHoldAreRefused) {
  FileSchema good;
  good.dims = {SchemaDim{"time", 2, true}, SchemaDim{"x", 4, false}};
  SchemaVar v{"t", ESMIO_FLOAT, {0, 1}, std::vector<unsigned char>(4, 0)};
  good.vars = {v};
  FileSchema out;
  std::string bytes = esmio::encode_schema(good);
  ASSERT_TRUE(esmio::decode_schema(bytes.data(), bytes.size(), "t", &out).is_ok());

  FileSchema bad = good;
  bad.vars[0].dimids = {0, 2};  // no dimension 2
  bytes = esmio::encode_schema(bad);
  EXPECT_EQ(esmio::decode_schema(bytes.data(), bytes.size(), "t", &out).code(), ESMIO_EMPI);
  bad = good;
  bad.vars[0].dimids = {1, 0};  // the unlimited dimension second
  bytes = esmio::encode_schema(bad);
  EXPECT_EQ(esmio::decode_schema(bytes.data(), bytes.size(), "t", &out).code(), ESMIO_EMPI);
  bad = good;
  bad.vars[0].fill.resize(8);  // a double's fill for a float
  bytes = esmio::encode_schema(bad);
  EXPECT_EQ(esmio::decode_schema(bytes.data(), bytes.size(), "t", &out).code(), ESMIO_EMPI);
  bad = good;
  bad.dims[1].len = -1;
  bytes = esmio::encode_schema(bad);
  EXPECT_EQ(esmio::decode_schema(bytes.data(), bytes.size(), "t", &out).code(), ESMIO_EMPI);
  // A refused decode leaves the output alone.
  EXPECT_EQ(out.vars.size(), 1u);
}

TEST(SchemaCodec, TypesOutsideEsmioAreKept) {
  // A file may hold types esmio does not convert (ubyte, 7): its variables are mirrored, and
  // the calls that would convert them refuse.
  FileSchema s;
  s.dims = {SchemaDim{"x", 3, false}};
  const auto ubyte = static_cast<esmio_type>(7);
  s.vars = {SchemaVar{"ub", ubyte, {0}, std::vector<unsigned char>(esmio::type_size(ubyte), 0)}};
  const std::string bytes = esmio::encode_schema(s);
  FileSchema out;
  ASSERT_TRUE(esmio::decode_schema(bytes.data(), bytes.size(), "t", &out).is_ok());
  ASSERT_EQ(out.vars.size(), 1u);
  EXPECT_EQ(out.vars[0].type, ubyte);
}
