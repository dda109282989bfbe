// The decompositions a server group serves: each server makes one decomposition of its own
// instance from the maps of the compute ranks it takes, laid one after the other in client
// order, so that a write_darray is the clients' values concatenated. The compute ranks free
// decompositions locally; a server frees its own once every compute rank it takes has.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <vector>

#include "async/ring_reader.hpp"
#include "common/status.hpp"
#include "esmio.h"

namespace esmio::async {

struct ServedDecomp {
  esmio_decomp_t handle = nullptr;
  std::vector<int64_t> nlocal;  // per client, in client order
  int64_t total = 0;
};

class ServedDecomps {
 public:
  // client_ranks: the ranks, among the compute ranks, of the clients this server takes.
  explicit ServedDecomps(std::vector<int> client_ranks) : client_ranks_(std::move(client_ranks)) {}

  // The decomposition whose maps the clients posted (messages: one decomp_create per client),
  // made on io over group, kept once made. An offset two compute ranks give is named by
  // compute rank, as without servers. Collective over group.
  Status create(esmio_t io, MPI_Comm group, const RingReader &messages);
  // One more compute rank freed decomposition serial: freed here once all of them did.
  void freed_by(int64_t serial);
  // Decomposition serial; one without parts where the servers did not make it.
  const ServedDecomp &get(int64_t serial) { return decomps_[serial]; }
  // Frees every decomposition still held (before the instance is finalized).
  void free_all();

 private:
  std::vector<int> client_ranks_;
  std::map<int64_t, ServedDecomp> decomps_;
  std::map<int64_t, std::size_t> free_votes_;  // decomposition -> compute ranks that freed it
};

}  // namespace esmio::async
