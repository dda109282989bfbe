// Which ranks of esmio_init's communicator serve and which compute, and which server takes the
// calls of which compute rank: pure arithmetic, the same on every rank, unit-tested without MPI.
//
// The K servers form G groups of consecutive servers (file k goes to group k mod G). Within a
// group, the compute ranks are cut into as many contiguous blocks as the group has servers, one
// block per server: with `spread` placement a server then takes the compute ranks next to it,
// that is, on its own node.
#pragma once

#include <string>
#include <vector>

#include "common/status.hpp"

namespace esmio::async {

struct Placement {
  int nranks = 0;
  std::vector<int> servers;  // ranks of the servers, ascending
  std::vector<int> compute;  // ranks of the compute ranks, ascending
  int groups = 1;

  bool is_server(int rank) const;
  // The group of server number s (its index in servers), and the servers of group g.
  int group_of_server(int s) const;
  std::vector<int> group_servers(int g) const;
  // The rank of the server of group g that takes compute rank number c (its index in compute).
  int server_for(int c, int g) const;
  // The compute ranks (indices into compute, ascending) that server number s takes.
  std::vector<int> clients_of(int s) const;
};

// nranks ranks, k servers placed "last", "first" or "spread", in g groups. ESMIO_ESETTING when the
// numbers do not make sense: every group needs a server and every server a compute rank.
Status make_placement(int nranks, int k, const std::string &placement, int g, Placement *out);

}  // namespace esmio::async
