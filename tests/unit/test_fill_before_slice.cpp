// Which records a put_vara slice must fill first (datapath/unwritten.hpp): pure, without MPI.
#include <gtest/gtest.h>

#include <vector>

#include "datapath/unwritten.hpp"

using esmio::datapath::fill_before_slice;
using esmio::datapath::Variable;

namespace {

Variable fixed(std::vector<int64_t> shape) {
  Variable v;
  v.record = false;
  v.shape = std::move(shape);
  return v;
}

Variable record(std::vector<int64_t> shape) {
  Variable v;
  v.record = true;
  v.shape = std::move(shape);
  return v;
}

using Records = std::vector<int64_t>;

}  // namespace

TEST(FillBeforeSlice, PartOfAFixedVariableNothingWroteIsFilledFirstOnce) {
  Variable v = fixed({4, 250});
  const int64_t start[2] = {1, 0}, count[2] = {1, 250};
  EXPECT_EQ(fill_before_slice(v, start, count), Records{0});
  v.vara_written = true;  // an earlier slice: filled then
  EXPECT_EQ(fill_before_slice(v, start, count), Records{});
}

TEST(FillBeforeSlice, TheWholeVariableOrAScalarNeedsNoFill) {
  const Variable v = fixed({4, 250});
  const int64_t start[2] = {0, 0}, count[2] = {4, 250};
  EXPECT_EQ(fill_before_slice(v, start, count), Records{});
  const Variable scalar = fixed({});
  EXPECT_EQ(fill_before_slice(scalar, nullptr, nullptr), Records{});
}

TEST(FillBeforeSlice, AVariableWrittenByDarrayOrFoundInTheFileIsLeftAlone) {
  Variable v = fixed({4, 250});
  const int64_t start[2] = {1, 0}, count[2] = {1, 250};
  v.holes_filled.insert(0);  // a write_darray wrote it
  EXPECT_EQ(fill_before_slice(v, start, count), Records{});
  Variable old = fixed({4, 250});
  old.filled_below = 1;  // in the file before this handle opened it
  EXPECT_EQ(fill_before_slice(old, start, count), Records{});
}

TEST(FillBeforeSlice, EachPartlyCoveredRecordNothingWroteYet) {
  Variable v = record({250});
  const int64_t part_start[2] = {1, 10}, part_count[2] = {3, 10};
  v.holes_filled.insert(2);  // record 2 was written before
  EXPECT_EQ(fill_before_slice(v, part_start, part_count), (Records{1, 3}));
  v.filled_below = 2;  // records below 2 were in the file
  EXPECT_EQ(fill_before_slice(v, part_start, part_count), (Records{3}));
  const int64_t whole_start[2] = {5, 0}, whole_count[2] = {2, 250};
  EXPECT_EQ(fill_before_slice(v, whole_start, whole_count), Records{});
  // A record variable without other dimensions: every slice covers its records whole.
  const Variable series = record({});
  const int64_t s[1] = {3}, c[1] = {1};
  EXPECT_EQ(fill_before_slice(series, s, c), Records{});
}
