// The transport async_transport=auto takes (async/ring_window.hpp): pure, without MPI.
#include <gtest/gtest.h>

#include "async/ring_window.hpp"

using esmio::async::choose_transport;
using esmio::async::RingTransport;

TEST(RingTransport, SharedMemoryWhereOneNodeHasRoomForEveryRing) {
  const int64_t mib = int64_t(1) << 20;
  EXPECT_EQ(choose_transport(true, 15 * 256 * mib, 64 * 1024 * mib), RingTransport::shared);
  // Exactly the room left is enough: the files grow page by page, never past the rings.
  EXPECT_EQ(choose_transport(true, 64 * mib, 64 * mib), RingTransport::shared);
}

TEST(RingTransport, OneSidedAcrossNodesOrWithoutRoom) {
  const int64_t mib = int64_t(1) << 20;
  EXPECT_EQ(choose_transport(false, 64 * mib, 64 * 1024 * mib), RingTransport::rma);
  // A container's 64 MiB /dev/shm cannot hold three rings of 256 MiB.
  EXPECT_EQ(choose_transport(true, 3 * 256 * mib, 64 * mib), RingTransport::rma);
  // No /dev/shm to look at.
  EXPECT_EQ(choose_transport(true, 64 * mib, -1), RingTransport::rma);
}

TEST(RingTransport, Names) {
  EXPECT_STREQ(esmio::async::transport_name(RingTransport::shared), "shared");
  EXPECT_STREQ(esmio::async::transport_name(RingTransport::rma), "rma");
}
