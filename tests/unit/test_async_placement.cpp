// Where the I/O servers go and which compute ranks each one takes (async/placement.hpp), and
// the packing of forwarded calls (async/wire.hpp): pure, without MPI.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "async/placement.hpp"
#include "async/wire.hpp"

using esmio::async::make_placement;
using esmio::async::Packer;
using esmio::async::Placement;
using esmio::async::Unpacker;

TEST(Placement, LastPutsServersAtTheEnd) {
  Placement p;
  ASSERT_TRUE(make_placement(10, 2, "last", 1, &p).is_ok());
  EXPECT_EQ(p.servers, (std::vector<int>{8, 9}));
  EXPECT_EQ(p.compute.size(), 8u);
  EXPECT_EQ(p.server_for(0, 0), 8);
  EXPECT_EQ(p.server_for(3, 0), 8);
  EXPECT_EQ(p.server_for(4, 0), 9);
  EXPECT_EQ(p.server_for(7, 0), 9);
}

TEST(Placement, FirstPutsServersAtTheStart) {
  Placement p;
  ASSERT_TRUE(make_placement(10, 2, "first", 1, &p).is_ok());
  EXPECT_EQ(p.servers, (std::vector<int>{0, 1}));
  EXPECT_EQ(p.compute, (std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(p.server_for(0, 0), 0);
  EXPECT_EQ(p.server_for(7, 0), 1);
}

TEST(Placement, SpreadPutsOneServerAtTheEndOfEachBlock) {
  Placement p;
  ASSERT_TRUE(make_placement(16, 4, "spread", 1, &p).is_ok());
  EXPECT_EQ(p.servers, (std::vector<int>{3, 7, 11, 15}));
  // Each server takes the compute ranks of its own block (its node, with 4 ranks per node).
  for (int c = 0; c < 12; ++c) EXPECT_EQ(p.server_for(c, 0), (p.compute[c] / 4) * 4 + 3) << c;
}

TEST(Placement, EveryComputeRankHasOneServerPerGroup) {
  for (int n : {3, 5, 7, 12, 33})
    for (int k = 1; 2 * k <= n; ++k)
      for (int g = 1; g <= k; ++g)
        for (const char *where : {"last", "spread"}) {
          Placement p;
          ASSERT_TRUE(make_placement(n, k, where, g, &p).is_ok());
          ASSERT_EQ(p.servers.size() + p.compute.size(), static_cast<std::size_t>(n));
          std::set<int> seen;
          for (int s = 0; s < k; ++s) {
            const std::vector<int> mine = p.clients_of(s);
            EXPECT_FALSE(mine.empty()) << n << " " << k << " " << g << " server " << s;
            for (int c : mine) EXPECT_EQ(p.server_for(c, p.group_of_server(s)), p.servers[s]);
            for (int c : mine) seen.insert(c + 1000 * p.group_of_server(s));
          }
          // Every compute rank once in every group.
          EXPECT_EQ(seen.size(), p.compute.size() * static_cast<std::size_t>(g));
          int in_groups = 0;
          for (int gg = 0; gg < g; ++gg) in_groups += static_cast<int>(p.group_servers(gg).size());
          EXPECT_EQ(in_groups, k);
        }
}

TEST(Placement, RefusesWhatCannotWork) {
  Placement p;
  EXPECT_EQ(make_placement(4, 0, "last", 1, &p).code(), ESMIO_ESETTING);
  EXPECT_EQ(make_placement(4, 4, "last", 1, &p).code(), ESMIO_ESETTING);
  EXPECT_EQ(make_placement(4, 3, "last", 1, &p).code(), ESMIO_ESETTING);  // servers > compute
  EXPECT_EQ(make_placement(8, 2, "last", 3, &p).code(), ESMIO_ESETTING);  // groups > servers
  EXPECT_EQ(make_placement(8, 2, "middle", 1, &p).code(), ESMIO_EBADNAME);
}

TEST(Wire, RoundTripsAndRefusesACutMessage) {
  Packer p;
  p.i64(-7).str("name").ints({1, 2, 3}).i64s({10, 20});
  const double x[2] = {1.5, -2.5};
  p.bytes(x, sizeof x);
  Unpacker u(p.data().data(), p.size());
  EXPECT_EQ(u.i64(), -7);
  EXPECT_EQ(u.str(), "name");
  EXPECT_EQ(u.ints(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(u.i64s(), (std::vector<int64_t>{10, 20}));
  std::size_t n = 0;
  const char *b = u.bytes(&n);
  ASSERT_EQ(n, sizeof x);
  EXPECT_EQ(std::memcmp(b, x, n), 0);
  EXPECT_TRUE(u.ok());
  EXPECT_EQ(u.remaining(), 0u);
  // Cut anywhere: never a read past the end, and ok() says so.
  for (std::size_t cut = 0; cut < p.size(); ++cut) {
    Unpacker c(p.data().data(), cut);
    c.i64();
    c.str();
    c.ints();
    c.i64s();
    std::size_t m = 0;
    c.bytes(&m);
    EXPECT_FALSE(c.ok()) << cut;
  }
  // A length prefix larger than the message.
  Packer lie;
  lie.i64(int64_t(1) << 40);
  Unpacker l(lie.data().data(), lie.size());
  EXPECT_EQ(l.str(), "");
  EXPECT_FALSE(l.ok());
}
