#include "backend/netcdf4/band_exchange.hpp"

#include <cstdint>
#include <cstring>
#include <string>

namespace esmio::backend::netcdf4 {
namespace {

Status mpi_failed(int rc, const char *call) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return Status(ESMIO_EMPI, std::string("netcdf4: regrouping a record into bands: ") + call +
                                " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

// A stream to one task: [int64 nboxes][per box: start, count (nd int64 each)][the values of
// every box, in the order of the boxes].
int64_t header_bytes(std::size_t nboxes, std::size_t nd) {
  return static_cast<int64_t>(sizeof(int64_t) * (1 + 2 * nd * nboxes));
}

}  // namespace

Status exchange_into_bands(MPI_Comm comm, const BandPlan &plan, const std::vector<int64_t> &shape,
                           std::size_t record_dims, int64_t record,
                           const std::vector<BandPiece> &mine, std::size_t esize,
                           std::vector<unsigned char> *values, BandBox *band,
                           BandScratch *scratch) {
  int rank = 0, ntasks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ntasks);
  const std::size_t nd = shape.size(), n = static_cast<std::size_t>(ntasks);
  BandScratch &s = *scratch;
  s.send_bytes.assign(n, 0);
  s.send_at.assign(n, 0);
  s.recv_bytes.assign(n, 0);
  s.recv_at.assign(n, 0);

  // What goes to each task: the parts of this task's pieces inside its band.
  std::vector<std::vector<BandBox>> parts(n);
  std::vector<std::vector<std::size_t>> part_of(n);  // the piece each part comes from
  for (int t = 0; t < ntasks; ++t) {
    const BandBox b = plan.band(shape, record_dims, record, t);
    if (b.elements() == 0) continue;
    for (std::size_t p = 0; p < mine.size(); ++p) {
      BandBox region;
      if (!intersect(mine[p].box, b, &region)) continue;
      parts[static_cast<std::size_t>(t)].push_back(region);
      part_of[static_cast<std::size_t>(t)].push_back(p);
    }
  }
  int64_t total = 0;
  for (std::size_t t = 0; t < n; ++t) {
    if (parts[t].empty()) continue;
    int64_t bytes = header_bytes(parts[t].size(), nd);
    for (const BandBox &r : parts[t]) bytes += r.elements() * static_cast<int64_t>(esize);
    s.send_at[t] = static_cast<int>(total);
    s.send_bytes[t] = static_cast<int>(bytes);
    total += bytes;
  }
  s.send.resize(static_cast<std::size_t>(total));
  for (std::size_t t = 0; t < n; ++t) {
    if (parts[t].empty()) continue;
    unsigned char *at = s.send.data() + s.send_at[t];
    const int64_t nboxes = static_cast<int64_t>(parts[t].size());
    std::memcpy(at, &nboxes, sizeof nboxes);
    at += sizeof nboxes;
    for (const BandBox &r : parts[t]) {
      std::memcpy(at, r.start.data(), nd * sizeof(int64_t));
      std::memcpy(at + nd * sizeof(int64_t), r.count.data(), nd * sizeof(int64_t));
      at += 2 * nd * sizeof(int64_t);
    }
    for (std::size_t k = 0; k < parts[t].size(); ++k) {
      const BandPiece &piece = mine[part_of[t][k]];
      copy_region(piece.data, piece.box, at, parts[t][k], parts[t][k], esize);
      at += static_cast<std::size_t>(parts[t][k].elements()) * esize;
    }
  }

  int rc = MPI_Alltoall(s.send_bytes.data(), 1, MPI_INT, s.recv_bytes.data(), 1, MPI_INT, comm);
  if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Alltoall");
  int64_t incoming = 0;
  for (std::size_t t = 0; t < n; ++t) {
    s.recv_at[t] = static_cast<int>(incoming);
    incoming += s.recv_bytes[t];
  }
  s.recv.resize(static_cast<std::size_t>(incoming));
  rc = MPI_Alltoallv(s.send.data(), s.send_bytes.data(), s.send_at.data(), MPI_BYTE, s.recv.data(),
                     s.recv_bytes.data(), s.recv_at.data(), MPI_BYTE, comm);
  if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Alltoallv");

  // Each incoming box into this task's band.
  *band = plan.band(shape, record_dims, record, rank);
  values->resize(static_cast<std::size_t>(band->elements()) * esize);
  BandBox region;
  region.start.resize(nd);
  region.count.resize(nd);
  for (std::size_t t = 0; t < n; ++t) {
    if (s.recv_bytes[t] == 0) continue;
    const unsigned char *at = s.recv.data() + s.recv_at[t];
    int64_t nboxes = 0;
    std::memcpy(&nboxes, at, sizeof nboxes);
    const unsigned char *boxes = at + sizeof nboxes;
    const unsigned char *data = at + header_bytes(static_cast<std::size_t>(nboxes), nd);
    for (int64_t k = 0; k < nboxes; ++k) {
      std::memcpy(region.start.data(), boxes, nd * sizeof(int64_t));
      std::memcpy(region.count.data(), boxes + nd * sizeof(int64_t), nd * sizeof(int64_t));
      boxes += 2 * nd * sizeof(int64_t);
      copy_region(data, region, values->data(), *band, region, esize);
      data += static_cast<std::size_t>(region.elements()) * esize;
    }
  }
  return Status::ok();
}

}  // namespace esmio::backend::netcdf4
