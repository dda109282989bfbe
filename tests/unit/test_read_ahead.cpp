// The read-ahead's predictions (datapath/read_ahead): the order learned from the reads made, the
// guess before it is known, the byte budget, and nothing asked for twice; without I/O.
#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

#include "datapath/read_ahead.hpp"

namespace esmio::datapath {
namespace {

using Reads = std::vector<std::pair<int, int64_t>>;  // (varid, record)

Reads keys(const std::vector<ReadAhead::Read> &reads) {
  Reads out;
  for (const ReadAhead::Read &r : reads) out.emplace_back(r.varid, r.record);
  return out;
}

// Every read is 1 MiB here; variables at or past `nvars` have no successor by shape.
struct Fixture {
  std::shared_ptr<const rearrange::Plan> plan = std::make_shared<rearrange::Plan>();
  int nvars = 4;
  int64_t nrecords = 3;
  ReadAhead ahead;
  ReadAhead::BytesOf bytes = [this](int, int64_t record, const rearrange::Plan &) {
    return record < nrecords ? int64_t(1) << 20 : int64_t(0);
  };
  ReadAhead::SameShapeAfter next_var = [this](int varid) {
    return varid + 1 < nvars ? varid + 1 : -1;
  };
  Reads read(int varid, int64_t record, int64_t budget) {
    return keys(ahead.after({varid, record, plan}, budget, bytes, next_var));
  }
};

TEST(ReadAhead, GuessesTheNextVariableOfTheSameShapeFirst) {
  Fixture f;
  EXPECT_EQ(f.read(0, 0, 1), (Reads{{1, 0}}));
  // Already asked for var 1: reading it asks for var 2 only.
  EXPECT_EQ(f.read(1, 0, 1), (Reads{{2, 0}}));
  EXPECT_EQ(f.read(2, 0, 1), (Reads{{3, 0}}));
  // The last variable has no guess: nothing learned yet about what follows it.
  EXPECT_EQ(f.read(3, 0, 1), (Reads{}));
}

TEST(ReadAhead, LearnsTheOrderAcrossRecords) {
  Fixture f;
  for (int v = 0; v < 4; ++v) f.read(v, 0, 1);
  // Record 1: var 3 was followed by var 0 of the next record; the guesses by shape were right.
  EXPECT_EQ(f.read(0, 1, 1), (Reads{{1, 1}}));
  EXPECT_EQ(f.read(1, 1, 1), (Reads{{2, 1}}));
  EXPECT_EQ(f.read(2, 1, 1), (Reads{{3, 1}}));
  EXPECT_EQ(f.read(3, 1, 1), (Reads{{0, 2}}));
  // Past the last record there are no bytes to ask for.
  for (int v = 0; v < 3; ++v) f.read(v, 2, 1);
  EXPECT_EQ(f.read(3, 2, 1), (Reads{}));
}

TEST(ReadAhead, FollowsATimeSeriesOfOneVariable) {
  Fixture f;
  f.nrecords = 10;
  f.read(2, 0, 1);
  EXPECT_EQ(f.read(2, 1, 1), (Reads{{2, 2}}));
  EXPECT_EQ(f.read(2, 2, 1), (Reads{{2, 3}}));
}

TEST(ReadAhead, TheBudgetSetsHowFarAhead) {
  Fixture f;
  // 2.5 MiB: three reads of 1 MiB, then one more per read as the window moves on.
  const int64_t budget = (int64_t(5) << 20) / 2;
  EXPECT_EQ(f.read(0, 0, budget), (Reads{{1, 0}, {2, 0}, {3, 0}}));
  for (int v = 1; v < 4; ++v) f.read(v, 0, budget);
  EXPECT_EQ(f.read(0, 1, budget), (Reads{{1, 1}, {2, 1}, {3, 1}}));
  EXPECT_EQ(f.read(1, 1, budget), (Reads{{0, 2}}));
  EXPECT_EQ(f.read(2, 1, budget), (Reads{{1, 2}}));
}

TEST(ReadAhead, AMissedGuessIsAskedAgainWhenItComesBackIntoTheWindow) {
  Fixture f;
  EXPECT_EQ(f.read(0, 0, 1), (Reads{{1, 0}}));
  // The program reads var 3 instead: var 1 leaves the window.
  EXPECT_EQ(f.read(3, 0, 1), (Reads{}));
  // Var 0 was followed by var 3 last time: that is the prediction now.
  EXPECT_EQ(f.read(0, 1, 1), (Reads{{3, 1}}));
}

TEST(ReadAhead, PredictionsThatDidNotComeTrueAreReportedDropped) {
  Fixture f;
  const int64_t budget = int64_t(2) << 20;  // two reads ahead
  EXPECT_EQ(f.read(0, 0, budget), (Reads{{1, 0}, {2, 0}}));
  EXPECT_EQ(keys(f.ahead.dropped()), (Reads{}));
  // Var 1 as predicted: nothing dropped (var 1 is the read made, var 2 stays ahead).
  EXPECT_EQ(f.read(1, 0, budget), (Reads{{3, 0}}));
  EXPECT_EQ(keys(f.ahead.dropped()), (Reads{}));
  // Var 3 instead of var 2: var 2 was asked for and will not be read now.
  EXPECT_EQ(f.read(3, 0, budget), (Reads{}));
  EXPECT_EQ(keys(f.ahead.dropped()), (Reads{{2, 0}}));
}

TEST(ReadAhead, AReadOrderThatIsACycleStops) {
  Fixture f;
  f.nvars = 2;
  f.nrecords = 1 << 20;
  // One record variable read alone, record after record, would go on for ever: it stops at
  // kMostReadsAhead.
  f.read(0, 0, int64_t(1) << 40);
  const Reads r = f.read(0, 1, int64_t(1) << 40);
  EXPECT_EQ(r.size(), static_cast<std::size_t>(ReadAhead::kMostReadsAhead));
  // Two fixed-size variables read in turn: the chain is back at the current read after one.
  ReadAhead g;
  const auto fixed = [](int, int64_t, const rearrange::Plan &) { return int64_t(1) << 20; };
  const auto none = [](int) { return -1; };
  g.after({0, 0, f.plan}, int64_t(1) << 40, fixed, none);
  g.after({1, 0, f.plan}, int64_t(1) << 40, fixed, none);
  EXPECT_EQ(keys(g.after({0, 0, f.plan}, int64_t(1) << 40, fixed, none)), (Reads{{1, 0}}));
}

TEST(ReadAhead, AFreedDecompositionEndsThePrediction) {
  Fixture f;
  auto other = std::make_shared<const rearrange::Plan>();
  f.ahead.after({0, 0, f.plan}, 1, f.bytes, f.next_var);
  f.ahead.after({1, 0, other}, 1, f.bytes, f.next_var);
  other.reset();
  // Var 0 is followed by var 1 through a plan that is gone: no prediction.
  EXPECT_EQ(f.read(0, 1, 1), (Reads{}));
}

TEST(ReadAhead, EmptyReadsAreSkippedNotAskedFor) {
  Fixture f;
  // Records dealt to another group: odd records have no bytes on this rank.
  f.bytes = [](int, int64_t record, const rearrange::Plan &) {
    return record % 2 == 0 ? int64_t(1) << 20 : int64_t(0);
  };
  f.nrecords = 100;
  f.read(0, 0, 1);
  f.read(0, 1, 1);
  EXPECT_EQ(f.read(0, 2, 1), (Reads{{0, 4}}));
}

}  // namespace
}  // namespace esmio::datapath
