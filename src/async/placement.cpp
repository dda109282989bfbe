#include "async/placement.hpp"

#include <algorithm>

namespace esmio::async {

bool Placement::is_server(int rank) const {
  return std::binary_search(servers.begin(), servers.end(), rank);
}

// Group g holds servers [g*K/G, (g+1)*K/G): sizes differ by at most one.
int Placement::group_of_server(int s) const {
  const int k = static_cast<int>(servers.size());
  for (int g = 0; g < groups; ++g)
    if (s < static_cast<int>((int64_t(g) + 1) * k / groups)) return g;
  return groups - 1;
}

std::vector<int> Placement::group_servers(int g) const {
  const int k = static_cast<int>(servers.size());
  const int first = static_cast<int>(int64_t(g) * k / groups);
  const int last = static_cast<int>((int64_t(g) + 1) * k / groups);
  return std::vector<int>(servers.begin() + first, servers.begin() + last);
}

// Compute rank c of n goes to block c*m/n of the group's m servers.
int Placement::server_for(int c, int g) const {
  const std::vector<int> mine = group_servers(g);
  const int n = static_cast<int>(compute.size());
  const int m = static_cast<int>(mine.size());
  return mine[static_cast<std::size_t>(int64_t(c) * m / n)];
}

std::vector<int> Placement::clients_of(int s) const {
  const int g = group_of_server(s);
  std::vector<int> out;
  for (int c = 0; c < static_cast<int>(compute.size()); ++c)
    if (server_for(c, g) == servers[static_cast<std::size_t>(s)]) out.push_back(c);
  return out;
}

Status make_placement(int nranks, int k, const std::string &placement, int g, Placement *out) {
  if (k < 1 || k >= nranks)
    return Status(ESMIO_ESETTING, "io_servers=" + std::to_string(k) + " on " +
                                      std::to_string(nranks) +
                                      " ranks: needs at least one server and one compute rank");
  if (2 * k > nranks)
    return Status(ESMIO_ESETTING, "io_servers=" + std::to_string(k) + " on " +
                                      std::to_string(nranks) +
                                      " ranks: more servers than compute ranks (each server "
                                      "needs a compute rank to serve)");
  if (g < 1 || g > k)
    return Status(ESMIO_ESETTING, "io_server_groups=" + std::to_string(g) +
                                      " must be between 1 and io_servers=" + std::to_string(k));
  Placement p;
  p.nranks = nranks;
  p.groups = g;
  if (placement == "last") {
    for (int r = nranks - k; r < nranks; ++r) p.servers.push_back(r);
  } else if (placement == "first") {
    for (int r = 0; r < k; ++r) p.servers.push_back(r);
  } else if (placement == "spread") {
    // The last rank of each of k blocks of nearly equal size.
    for (int i = 0; i < k; ++i)
      p.servers.push_back(static_cast<int>((int64_t(i) + 1) * nranks / k) - 1);
  } else {
    return Status(ESMIO_EBADNAME,
                  "io_server_placement '" + placement + "' (known: last|first|spread)");
  }
  for (int r = 0; r < nranks; ++r)
    if (!p.is_server(r)) p.compute.push_back(r);
  *out = std::move(p);
  return Status::ok();
}

}  // namespace esmio::async
