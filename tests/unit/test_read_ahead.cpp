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
    ahead.learn({varid, record, plan});
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
  for (int v : {0, 1, 0}) g.learn({v, 0, f.plan});
  EXPECT_EQ(keys(g.after({0, 0, f.plan}, int64_t(1) << 40, fixed, none)), (Reads{{1, 0}}));
}

TEST(ReadAhead, AFreedDecompositionEndsThePrediction) {
  Fixture f;
  auto other = std::make_shared<const rearrange::Plan>();
  f.ahead.learn({0, 0, f.plan});
  f.ahead.learn({1, 0, other});
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

TEST(ReadAhead, TheChainFollowsWhatWasLearnedAsLongAsItIsTaken) {
  Fixture f;
  const auto all = [](const ReadAhead::Read &, const rearrange::Plan &) { return true; };
  // Nothing learned: the guess by shape, to the last variable.
  EXPECT_EQ(keys(f.ahead.chain({0, 0, f.plan}, f.next_var, all)), (Reads{{1, 0}, {2, 0}, {3, 0}}));
  for (int v : {0, 2, 1, 3}) f.ahead.learn({v, 0, f.plan});
  // Learned: 0 -> 2 -> 1 -> 3, and nothing after 3 (no guess either: the last variable).
  EXPECT_EQ(keys(f.ahead.chain({2, 0, f.plan}, f.next_var, all)), (Reads{{1, 0}, {3, 0}}));
  int taken = 0;
  const auto two = [&taken](const ReadAhead::Read &, const rearrange::Plan &) {
    return ++taken <= 2;
  };
  EXPECT_EQ(keys(f.ahead.chain({0, 1, f.plan}, f.next_var, two)), (Reads{{2, 1}, {1, 1}}));
  // 3 followed by 0 of the next record: record after record the order goes on, to
  // kMostReadsAhead, unless the caller refuses a record past the file's end.
  f.ahead.learn({0, 1, f.plan});
  EXPECT_EQ(keys(f.ahead.chain({2, 0, f.plan}, f.next_var, all)).size(),
            static_cast<std::size_t>(ReadAhead::kMostReadsAhead));
  const auto in_file = [&f](const ReadAhead::Read &r, const rearrange::Plan &) {
    return r.record < f.nrecords;
  };
  EXPECT_EQ(keys(f.ahead.chain({1, 2, f.plan}, f.next_var, in_file)), (Reads{{3, 2}}));
  // The chain keeps no window: the same question, the same answer.
  EXPECT_EQ(keys(f.ahead.chain({2, 0, f.plan}, f.next_var, in_file)),
            keys(f.ahead.chain({2, 0, f.plan}, f.next_var, in_file)));
  // Two variables of one record read in turn: the chain is back at its start after one.
  ReadAhead g;
  for (int v : {0, 1, 0}) g.learn({v, 0, f.plan});
  const auto none = [](int) { return -1; };
  EXPECT_EQ(keys(g.chain({0, 0, f.plan}, none, all)), (Reads{{1, 0}}));
}

}  // namespace
}  // namespace esmio::datapath
