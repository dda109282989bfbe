// Information quantisation's counting without MPI: a record split over two I/O tasks, the cut
// inside a row and a hole in the first task's range, counts the same pairs as the whole record
// in one piece, once each task passes its leading value to the previous one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "quantize/information_count.hpp"

using namespace esmio;
using namespace esmio::quantize;

namespace {

constexpr float kFill = -999.0f;

// A smooth record of 4 rows of 6, with the offsets 4 and 5 a hole (the fill value).
std::vector<float> record() {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = 280.0f + 3.0f * std::sin(0.37f * static_cast<float>(i));
  v[4] = v[5] = kFill;
  return v;
}

HeldSlab slab(const std::vector<float> &values, std::vector<HeldStretch> stretches, int64_t begin,
              int64_t end) {
  HeldSlab s;
  s.type = ESMIO_FLOAT;
  s.values = reinterpret_cast<const unsigned char *>(values.data());
  s.stretches = std::move(stretches);
  s.has_range = true;
  s.range_begin = begin;
  s.range_end = end;
  s.row = 6;
  s.fill = &kFill;
  return s;
}

}  // namespace

TEST(InformationCount, TwoTasksCountTheWholeRecordOnce) {
  const std::vector<float> whole = record();
  BitPairCounts expected(32);
  ASSERT_TRUE(count_neighbour_pairs(ESMIO_FLOAT, whole.data(), 0, 24, 6, nullptr, &kFill, &expected)
                  .is_ok());
  ASSERT_GT(expected.pairs(), 0u);

  // Task 0: offsets 0-9, the hole left out of its packed values; task 1: offsets 10-23.
  std::vector<float> first(whole.begin(), whole.begin() + 4);
  first.insert(first.end(), whole.begin() + 6, whole.begin() + 10);
  const std::vector<float> second(whole.begin() + 10, whole.end());
  const HeldSlab task0 = slab(first, {{0, 0, 4}, {6, 4, 4}}, 0, 10);
  const HeldSlab task1 = slab(second, {{10, 0, 14}}, 10, 24);

  const Halo from1 = leading_value(task1);
  ASSERT_EQ(from1.held, 1u);
  float passed;
  std::memcpy(&passed, &from1.bits, sizeof passed);
  EXPECT_EQ(passed, whole[10]);

  BitPairCounts counts = BitPairCounts::for_type(ESMIO_FLOAT);
  ASSERT_TRUE(count_held_pairs(task0, from1, &counts).is_ok());
  ASSERT_TRUE(count_held_pairs(task1, Halo{}, &counts).is_ok());
  EXPECT_EQ(counts.counts, expected.counts);

  // Without the halo the pair across the cut (offsets 9 and 10, one row) is missing.
  BitPairCounts without = BitPairCounts::for_type(ESMIO_FLOAT);
  ASSERT_TRUE(count_held_pairs(task0, Halo{}, &without).is_ok());
  ASSERT_TRUE(count_held_pairs(task1, Halo{}, &without).is_ok());
  EXPECT_EQ(without.pairs() + 1, expected.pairs());
}

TEST(InformationCount, NoLeadingValueWhereTheRangeStartsWithAHole) {
  const std::vector<float> values = {1.0f, 2.0f};
  EXPECT_EQ(leading_value(slab(values, {{3, 0, 2}}, 2, 5)).held, 0u);
  EXPECT_EQ(leading_value(slab(values, {{2, 0, 2}}, 2, 4)).held, 1u);
  HeldSlab none = slab(values, {{2, 0, 2}}, 2, 4);
  none.values = nullptr;
  EXPECT_EQ(leading_value(none).held, 0u);
  BitPairCounts counts = BitPairCounts::for_type(ESMIO_FLOAT);
  EXPECT_TRUE(count_held_pairs(none, Halo{}, &counts).is_ok());
  EXPECT_EQ(counts.pairs(), 0u);
}

TEST(InformationCount, FreshVariablesCountTheirFirstRecordOnly) {
  Information a, b;
  b.keepbits = 7;  // settled at an earlier flush
  const std::vector<Information *> information = {&a, nullptr, &b, &a, &a, &b};
  const std::vector<int64_t> records = {3, 0, 0, 2, 2, 1};
  const FreshVariables fresh = fresh_variables(information, records);
  ASSERT_EQ(fresh.variables.size(), 1u);
  EXPECT_EQ(fresh.variables[0], &a);
  EXPECT_EQ(fresh.counted[0], (std::vector<std::size_t>{3, 4}));
}

TEST(InformationCount, SettledFromTheSummedCounts) {
  // No pairs: nothing tells the real bits from the false ones, so every mantissa bit stays.
  Information none;
  settle_keepbits(ESMIO_FLOAT, BitPairCounts(32), &none);
  EXPECT_EQ(none.keepbits, 23);
  EXPECT_EQ(none.per_bit.size(), 32u);
  EXPECT_FALSE(none.reason.empty());

  // A smooth field: fewer bits, the same as the analysis gives on the same counts.
  std::vector<float> smooth(4096);
  for (std::size_t i = 0; i < smooth.size(); ++i)
    smooth[i] = 280.0f + 10.0f * std::sin(0.001f * static_cast<float>(i));
  BitPairCounts counts(32);
  ASSERT_TRUE(
      count_neighbour_pairs(ESMIO_FLOAT, smooth.data(), 0, 4096, 4096, nullptr, nullptr, &counts)
          .is_ok());
  Information info;
  settle_keepbits(ESMIO_FLOAT, counts, &info);
  const KeepbitsChoice choice =
      choose_keepbits(ESMIO_FLOAT, bit_information(counts), info.fraction, 0, info.minbits);
  EXPECT_EQ(info.keepbits, choice.keepbits);
  EXPECT_EQ(info.reference, choice.reference);
  EXPECT_LT(info.keepbits, 23);
}
