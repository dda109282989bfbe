// The automatic choice of I/O tasks (num_iotasks=0) and its description. Pure, without MPI.
#include <gtest/gtest.h>

#include "decomp/io_layout.hpp"

using namespace esmio::decomp;

TEST(AutomaticIoTasks, EveryRankUpToEightPerNode) {
  // A laptop and the 2-core build machine: every rank.
  AutomaticIoTasks a = automatic_iotasks(4, 1, 4);
  EXPECT_EQ(a.ntasks, 4);
  EXPECT_EQ(a.stride, 1);
  // One 16-core node: 8 tasks, every other rank.
  a = automatic_iotasks(16, 1, 16);
  EXPECT_EQ(a.ntasks, 8);
  EXPECT_EQ(a.stride, 2);
  // E3SM F at ne120: 21,600 ranks on 169 nodes of 128: 8 per node, every 15th rank.
  a = automatic_iotasks(21600, 169, 128);
  EXPECT_EQ(a.ntasks, 1352);
  EXPECT_EQ(a.stride, 15);
  EXPECT_LE(static_cast<long long>(a.ntasks - 1) * a.stride, 21599);
  // Fewer ranks per node than the cap: every rank.
  a = automatic_iotasks(96, 16, 6);
  EXPECT_EQ(a.ntasks, 96);
  EXPECT_EQ(a.stride, 1);
  // More ranks than cores: one I/O task per core (4 ranks on the 2-core build machine: 2,
  // every other rank); cores not known: the node's ranks count.
  a = automatic_iotasks(4, 1, 4, 2);
  EXPECT_EQ(a.ntasks, 2);
  EXPECT_EQ(a.stride, 2);
  a = automatic_iotasks(16, 1, 16, 16);
  EXPECT_EQ(a.ntasks, 8);
  a = automatic_iotasks(21600, 169, 128, 128);
  EXPECT_EQ(a.ntasks, 1352);
  // Degenerate inputs stay valid.
  a = automatic_iotasks(1, 0, 0);
  EXPECT_EQ(a.ntasks, 1);
  EXPECT_EQ(a.stride, 1);
}

TEST(AutomaticIoTasks, SaysWhy) {
  const AutomaticIoTasks a = automatic_iotasks(16, 1, 16, 32);
  EXPECT_NE(a.why.find("16 ranks on 1 node, at most 16 on one, 32 cores per node"),
            std::string::npos)
      << a.why;
  EXPECT_NE(a.why.find("iotask_stride=2"), std::string::npos) << a.why;
  EXPECT_NE(a.why.find("8 I/O tasks: ranks 0, 2, 4, 6, 8, 10, 12, 14"), std::string::npos) << a.why;
}

TEST(RankList, ShortAndLong) {
  EXPECT_EQ(rank_list({0}), "1 I/O task: rank 0");
  EXPECT_EQ(rank_list({0, 2}), "2 I/O tasks: ranks 0, 2");
  EXPECT_EQ(rank_list({0, 1, 2, 3, 4, 5, 6, 7}), "8 I/O tasks: ranks 0, 1, 2, 3, 4, 5, 6, 7");
  EXPECT_EQ(rank_list({0, 1, 2, 3, 4, 5, 6, 7, 8}), "9 I/O tasks: ranks 0, 1, 2, ..., 6, 7, 8");
}
