// Calls in words: the encoding survives any bytes, and the contrast of two ranks' calls names
// the argument that differs with both values, or the call where two sequences part.
#include <gtest/gtest.h>

#include <string>

#include "common/call_words.hpp"

using esmio::CallList;
using esmio::CallWords;
using esmio::contrast;
using esmio::decode;
using esmio::encode;

namespace {

CallWords write(const std::string &var, int64_t record, const std::string &memtype = "double") {
  return CallWords{"esmio_write_darray",
                   "writes",
                   {{"file", "'a.nc'"},
                    {"variable", "'" + var + "'"},
                    {"record", std::to_string(record)},
                    {"memory type", memtype}},
                   ""};
}

CallList cached(std::initializer_list<CallWords> calls, int64_t total = -1) {
  CallList list;
  list.what = "cached esmio_write_darray call(s) on file 'a.nc' since the last flush";
  list.calls = calls;
  list.total = total < 0 ? static_cast<int64_t>(list.calls.size()) : total;
  return list;
}

}  // namespace

TEST(CallWords, RoundTrip) {
  CallList list = cached({write("T", 3), write(std::string("odd:\x1e\0name", 10), 4)}, 9);
  list.calls.back().refused = "12:34 buffer too short";
  CallList back;
  ASSERT_TRUE(decode(encode(list), &back));
  EXPECT_EQ(back.what, list.what);
  EXPECT_EQ(back.total, 9);
  ASSERT_EQ(back.calls.size(), 2u);
  EXPECT_EQ(back.calls[1].args, list.calls[1].args);
  EXPECT_EQ(back.calls[1].refused, list.calls[1].refused);
  EXPECT_FALSE(decode("esmio_sync(file 'a.nc')", &back));
  const std::string text = encode(list);
  EXPECT_FALSE(decode(text.substr(0, text.size() - 1), &back));
  EXPECT_FALSE(decode(text + "x", &back));
}

TEST(CallWords, OneCallNamesTheArgument) {
  EXPECT_EQ(contrast(0, encode(write("T", 0)), 2, encode(write("T", 1))),
            "esmio_write_darray on file 'a.nc', variable 'T', memory type double: rank 0 writes "
            "record 0, rank 2 writes record 1");
  EXPECT_EQ(contrast(0, encode(write("T", 0)), 1, encode(write("S", 0, "float"))),
            "esmio_write_darray on file 'a.nc', record 0: rank 0 writes variable 'T', memory "
            "type double, rank 1 writes variable 'S', memory type float");
}

TEST(CallWords, OtherCallsAndFreeTextAreQuoted) {
  EXPECT_EQ(contrast(0, encode(write("T", 0)), 1, "esmio_sync(file 'a.nc')"),
            "rank 0: esmio_write_darray(file 'a.nc', variable 'T', record 0, memory type "
            "double); rank 1: esmio_sync(file 'a.nc')");
  CallWords other = write("T", 0);
  other.call = "esmio_read_darray";
  EXPECT_NE(contrast(0, encode(write("T", 0)), 1, encode(other)).find("rank 1: esmio_read_darray("),
            std::string::npos);
}

TEST(CallWords, SequencesPartAtTheFirstDifference) {
  const std::string a = encode(cached({write("T", 0), write("T", 1), write("T", 2)}));
  const std::string b = encode(cached({write("T", 0), write("T", 5), write("T", 2)}));
  EXPECT_EQ(contrast(0, a, 2, b),
            "the 2nd of the cached esmio_write_darray call(s) on file 'a.nc' since the last "
            "flush: esmio_write_darray on file 'a.nc', variable 'T', memory type double: rank 0 "
            "writes record 1, rank 2 writes record 5");
  const std::string longer =
      encode(cached({write("T", 0), write("T", 1), write("T", 2), write("S", 3)}));
  EXPECT_NE(contrast(0, a, 1, longer)
                .find("rank 0 made 3, rank 1 made 4; the 4th, on rank 1 only: "
                      "esmio_write_darray(file 'a.nc', variable 'S'"),
            std::string::npos);
  // Beyond the calls kept: said, not guessed.
  const std::string many_a = encode(cached({write("T", 0)}, 100));
  const std::string many_b = encode(cached({write("T", 0)}, 100));
  EXPECT_NE(contrast(0, many_a, 1, many_b).find("the first 1 agree, a later one differs"),
            std::string::npos);
}

TEST(CallWords, ARefusalIsNamed) {
  CallWords refused = write("T", 1);
  refused.refused = "rank 1 buffer has 3 elements, the decomposition 4";
  EXPECT_EQ(contrast(0, encode(write("T", 1)), 1, encode(refused)),
            "esmio_write_darray on file 'a.nc', variable 'T', record 1, memory type double: rank 0 "
            "writes it; rank 1 writes it, which failed there: rank 1 buffer has 3 elements, the "
            "decomposition 4");
}
