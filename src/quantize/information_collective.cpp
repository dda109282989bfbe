#include "quantize/information_collective.hpp"

#include <algorithm>

namespace esmio::quantize {

Status settle_information(MPI_Comm comm, const TaskNeighbours &neighbours,
                          const FreshVariables &fresh,
                          const std::vector<std::vector<HeldSlab>> &slabs) {
  Status status;
  std::vector<const HeldSlab *> counted;
  for (const auto &list : slabs)
    for (const HeldSlab &slab : list) counted.push_back(&slab);
  std::vector<Halo> mine(counted.size()), next(counted.size());
  for (std::size_t k = 0; k < counted.size(); ++k) mine[k] = leading_value(*counted[k]);
  if (neighbours.task) {
    const int n = static_cast<int>(2 * counted.size());
    if (MPI_Sendrecv(mine.data(), n, MPI_UINT64_T, neighbours.previous, 0, next.data(), n,
                     MPI_UINT64_T, neighbours.next, 0, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      status = Status(ESMIO_EMPI, "information quantisation: halo exchange failed");
  }
  std::vector<uint64_t> counts;
  std::size_t k = 0;
  for (std::size_t s = 0; s < fresh.variables.size(); ++s) {
    BitPairCounts c = BitPairCounts::for_type(slabs[s].front().type);
    for (const HeldSlab &slab : slabs[s]) {
      const Status counted_ok = count_held_pairs(slab, next[k++], &c);
      if (status.is_ok()) status = counted_ok;
    }
    counts.insert(counts.end(), c.counts.begin(), c.counts.end());
  }
  std::vector<uint64_t> total(counts.size(), 0);
  if (MPI_Allreduce(counts.data(), total.data(), static_cast<int>(counts.size()), MPI_UINT64_T,
                    MPI_SUM, comm) != MPI_SUCCESS &&
      status.is_ok())
    status = Status(ESMIO_EMPI, "information quantisation: MPI_Allreduce of counts failed");
  std::size_t at = 0;
  for (std::size_t s = 0; s < fresh.variables.size(); ++s) {
    const esmio_type type = slabs[s].front().type;
    BitPairCounts c = BitPairCounts::for_type(type);
    std::copy(total.begin() + static_cast<long>(at),
              total.begin() + static_cast<long>(at + c.counts.size()), c.counts.begin());
    at += c.counts.size();
    settle_keepbits(type, c, fresh.variables[s]);
  }
  return status;
}

}  // namespace esmio::quantize
