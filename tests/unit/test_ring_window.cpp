// The transport async_transport=auto takes (async/ring_window.hpp) and the shared transport's
// notice board (async/notice_board.hpp): pure, without MPI.
#include <gtest/gtest.h>

#include <vector>

#include "async/notice_board.hpp"
#include "async/ring_window.hpp"

using esmio::async::Notice;
using esmio::async::NoticeBoard;

using esmio::async::choose_transport;
using esmio::async::RingTransport;

TEST(RingTransport, SharedMemoryWhereOneNodeHasRoomForEveryRing) {
  const int64_t mib = int64_t(1) << 20;
  EXPECT_EQ(choose_transport(true, 15 * 256 * mib, 64 * 1024 * mib, -1), RingTransport::shared);
  // The rings and the library's own state, exactly the room left: the file grows page by page,
  // never past them.
  EXPECT_EQ(choose_transport(true, 64 * mib, 65 * mib, -1), RingTransport::shared);
  EXPECT_EQ(choose_transport(true, 64 * mib, 65 * mib, 65 * mib), RingTransport::shared);
}

TEST(RingTransport, OneSidedAcrossNodesOrWithoutRoom) {
  const int64_t mib = int64_t(1) << 20;
  EXPECT_EQ(choose_transport(false, 64 * mib, 64 * 1024 * mib, -1), RingTransport::rma);
  // A container's 64 MiB /dev/shm cannot hold three rings of 256 MiB.
  EXPECT_EQ(choose_transport(true, 3 * 256 * mib, 64 * mib, -1), RingTransport::rma);
  EXPECT_EQ(choose_transport(true, 64 * mib, 64 * mib, -1), RingTransport::rma);
  // No /dev/shm to look at.
  EXPECT_EQ(choose_transport(true, 64 * mib, -1, -1), RingTransport::rma);
  // A file-size limit (ulimit -f) below the one file the library would write.
  EXPECT_EQ(choose_transport(true, 64 * mib, 64 * 1024 * mib, 16 * mib), RingTransport::rma);
  EXPECT_FALSE(esmio::async::shared_memory_holds(64 * mib, 64 * 1024 * mib, 64 * mib));
}

TEST(NoticeBoard, WholePagesForEveryGroup) {
  for (int groups : {1, 2, 5}) {
    const int64_t bytes = NoticeBoard::bytes(groups);
    EXPECT_EQ(bytes % 4096, 0);
    EXPECT_GE(bytes, groups * (16 + NoticeBoard::kSlots * int64_t(sizeof(Notice))));
  }
}

TEST(NoticeBoard, NoticesComeInOrderPerGroupAndReturnsFreeUpToAnId) {
  const int groups = 2;
  std::vector<char> memory(static_cast<std::size_t>(NoticeBoard::bytes(groups)), 'x');
  NoticeBoard client(memory.data(), groups);
  client.clear();
  // The servers see the same memory through boards of their own.
  const NoticeBoard server0(memory.data(), groups);
  NoticeBoard server1(memory.data(), groups);
  Notice n{};
  EXPECT_FALSE(server0.take(0, 0, &n));
  EXPECT_EQ(client.freed(0), 0);
  EXPECT_EQ(client.freed(1), 0);
  client.publish(0, Notice{0, 0, 64});
  client.publish(1, Notice{1, 64, 32});
  client.publish(0, Notice{2, 96, 8});
  ASSERT_TRUE(server0.take(0, 0, &n));
  EXPECT_EQ(n.id, 0);
  EXPECT_EQ(n.length, 64);
  ASSERT_TRUE(server0.take(0, 1, &n));
  EXPECT_EQ(n.id, 2);
  EXPECT_EQ(n.offset, 96);
  EXPECT_FALSE(server0.take(0, 2, &n));
  ASSERT_TRUE(server1.take(1, 0, &n));
  EXPECT_EQ(n.id, 1);
  EXPECT_FALSE(server1.take(1, 1, &n));
  // Group 1's server read id 1: its messages below 2 are free; group 0's are not.
  server1.give_back(1, 1);
  EXPECT_EQ(client.freed(1), 2);
  EXPECT_EQ(client.freed(0), 0);
}

TEST(NoticeBoard, SlotsAreReusedAfterEveryNoticeWasTaken) {
  std::vector<char> memory(static_cast<std::size_t>(NoticeBoard::bytes(1)));
  NoticeBoard board(memory.data(), 1);
  board.clear();
  Notice n{};
  for (int64_t i = 0; i < 3 * NoticeBoard::kSlots + 5; ++i) {
    board.publish(0, Notice{i, i * 8, 8});
    ASSERT_TRUE(board.take(0, i, &n));
    EXPECT_EQ(n.id, i);
    EXPECT_EQ(n.offset, i * 8);
    EXPECT_FALSE(board.take(0, i + 1, &n));
    board.give_back(0, i);
    EXPECT_EQ(board.freed(0), i + 1);
  }
}
