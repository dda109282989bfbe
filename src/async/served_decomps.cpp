#include "async/served_decomps.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "async/messages.hpp"
#include "async/mpi_status.hpp"
#include "async/outcome.hpp"
#include "common/agree.hpp"

namespace esmio::async {

namespace {

// The servers' check names the offset and server ranks: every server says which of its
// compute ranks give that offset, so that the message names compute ranks as without servers.
// Collective over the group (the failure is agreed, so every server is here).
template <typename Claims>
Status name_compute_ranks(MPI_Comm group, const Status &failed, const Claims &claims) {
  const std::string &text = failed.message();
  const std::size_t at = text.find("offset ");
  int64_t offset = -1;
  if (at != std::string::npos) offset = std::atoll(text.c_str() + at + 7);
  int range[2] = {INT_MAX, INT_MAX};  // lowest rank, and minus the highest
  for (const auto &c : claims)
    if (offset >= c.offset && offset < c.offset + c.length) {
      range[0] = std::min(range[0], c.rank);
      range[1] = std::min(range[1], -c.rank);
    }
  ESMIO_RETURN_IF_ERROR(mpi_status(MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MIN, group),
                                   "MPI_Allreduce", "the compute ranks that give an offset twice"));
  if (offset < 0 || range[0] == INT_MAX)
    return Status(failed.code(), text +
                                     " (ranks here are I/O servers, each holding the maps of a "
                                     "block of compute ranks)");
  const int lo = range[0], hi = -range[1];
  return Status(failed.code(), "decomposition: offset " + std::to_string(offset) +
                                   (lo == hi ? " is given twice by rank " + std::to_string(lo)
                                             : " is given by both rank " + std::to_string(lo) +
                                                   " and rank " + std::to_string(hi)));
}

}  // namespace

Status ServedDecomps::create(esmio_t io, MPI_Comm group, const RingReader &messages) {
  const auto &first = std::get<DecompCreateArgs>(messages.message(0).args);
  const int64_t serial = first.serial;
  const std::vector<int64_t> &dims = first.dims;
  ServedDecomp d;
  for (std::size_t k = 0; k < messages.size(); ++k) {
    d.nlocal.push_back(std::get<DecompCreateArgs>(messages.message(k).args).nlocal);
    d.total += d.nlocal.back();
  }
  // The compute ranks' maps one after the other: this server's memory is their values in
  // client order. Holes stay -1.
  std::vector<int64_t> offsets(static_cast<std::size_t>(d.total), -1);
  // Each run with its compute rank, to find offsets two of them give (named by compute rank,
  // as without servers; the servers' own check would name server ranks).
  struct Claim {
    int64_t offset, length;
    int rank;
  };
  std::vector<Claim> claims;
  Status s;
  int64_t base = 0;
  for (std::size_t k = 0; k < messages.size() && s.is_ok(); ++k) {
    const Message &m = messages.message(k);
    const auto *runs = reinterpret_cast<const int64_t *>(m.data);
    const int64_t nruns = m.data_bytes / int64_t(3 * sizeof(int64_t));
    for (int64_t r = 0; r < nruns; ++r) {
      int64_t triple[3];
      std::memcpy(triple, runs + 3 * r, sizeof triple);
      if (triple[0] < 0 || triple[2] < 0 || triple[0] + triple[2] > d.nlocal[k]) {
        s = Status(ESMIO_EMPI, "esmio_decomp_create: a map from compute rank " +
                                   std::to_string(client_ranks_[k]) + " was garbled on its way");
        break;
      }
      for (int64_t i = 0; i < triple[2]; ++i)
        offsets[static_cast<std::size_t>(base + triple[0] + i)] = triple[1] + i;
      claims.push_back(Claim{triple[1], triple[2], client_ranks_[k]});
    }
    base += d.nlocal[k];
  }
  std::sort(claims.begin(), claims.end(),
            [](const Claim &a, const Claim &b) { return a.offset < b.offset; });
  int64_t end = INT64_MIN;
  int end_rank = -1;
  for (const Claim &c : claims) {
    if (!s.is_ok()) break;
    if (c.offset < end) {
      const int lo = std::min(end_rank, c.rank), hi = std::max(end_rank, c.rank);
      s = Status(ESMIO_EDECOMP, "decomposition: offset " + std::to_string(c.offset) +
                                    (lo == hi ? " is given twice by rank " + std::to_string(lo)
                                              : " is given by both rank " + std::to_string(lo) +
                                                    " and rank " + std::to_string(hi)));
    }
    if (c.offset + c.length > end) {
      end = c.offset + c.length;
      end_rank = c.rank;
    }
  }
  // Agreed among the servers before their collective call (a clash found by one server).
  s = agree(group, s);
  // The same check over every server: a clash between two servers' ranks is found there, and
  // its rank numbers are the servers'.
  if (s.is_ok()) {
    s = outcome_of(esmio_decomp_create(io, static_cast<int>(dims.size()), dims.data(), d.total,
                                       offsets.data(), &d.handle));
    if (s.code() == ESMIO_EDECOMP) s = name_compute_ranks(group, s, claims);
  }
  if (s.is_ok()) decomps_[serial] = std::move(d);
  return s;
}

void ServedDecomps::freed_by(int64_t serial) {
  if (++free_votes_[serial] < client_ranks_.size()) return;
  free_votes_.erase(serial);
  const auto it = decomps_.find(serial);
  if (it == decomps_.end()) return;
  if (it->second.handle) esmio_decomp_free(&it->second.handle);
  decomps_.erase(it);
}

void ServedDecomps::free_all() {
  for (auto &d : decomps_)
    if (d.second.handle) esmio_decomp_free(&d.second.handle);
}

}  // namespace esmio::async
