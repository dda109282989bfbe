// Synthetic production-size decompositions for the planner simulation (esmio-bench plan): maps
// shaped like the models' own, built rank by rank from a formula, so that 21,600 ranks' maps
// never exist at once and no table of the whole grid is needed. Each rank's map comes as runs
// of consecutive file offsets (decomp::MapRun), the form esmio plans with.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "decomp/decomposition.hpp"

namespace esmio_bench {

// One horizontal decomposition: which points of one level each rank holds, in its memory order.
class HorizontalMap {
 public:
  virtual ~HorizontalMap() = default;
  int nranks() const { return nranks_; }
  // Points of one level in the file (columns, or lat x lon cells holes included).
  int64_t points() const { return points_; }
  // Points some rank holds (the rest are holes, written with the fill value).
  int64_t covered() const { return covered_; }
  // How the map is made, in one paragraph, for the report.
  const std::string &description() const { return description_; }
  // Rank's points as runs (memory, offset, length), memory positions 0.. in its memory order.
  virtual void rank_runs(int rank, std::vector<esmio::decomp::MapRun> *runs) const = 0;

 protected:
  int nranks_ = 1;
  int64_t points_ = 0;
  int64_t covered_ = 0;
  std::string description_;
};

// E3SM's spectral-element grid at resolution ne (6 faces of ne x ne elements, np = 4): the
// 6 ne^2 * 9 + 2 unique GLL columns numbered element by element in the file (face by face,
// row-major within a face, 9 columns per element, the 2 extra to the first two elements), and
// the elements dealt to the ranks in contiguous stretches of a space-filling curve (a Hilbert
// curve over each face, faces in sequence), as the dynamical core distributes them.
std::unique_ptr<HorizontalMap> make_cubed_sphere_map(int ne, int nranks);

// A land model's grid nlat x nlon (lon fastest): a deterministic land mask (smooth synthetic
// continents plus an Antarctic cap, about 30 % land); the land cells, in file order, are cut
// into nranks * clumps_per_rank clumps of equal size dealt to the ranks round-robin (CLM's
// clumps: each rank holds clumps_per_rank stretches of land points in latitude bands). Ocean
// cells belong to no rank: holes.
std::unique_ptr<HorizontalMap> make_land_map(int nlat, int nlon, int nranks, int clumps_per_rank);

// The map of a field with `levels` copies of the horizontal one (level l at file offsets
// l * points + offset; memory level by level, the horizontal points fastest, as the models
// hold (ncol, lev) and (gridcell, level) in Fortran order).
void layered_map(const std::vector<esmio::decomp::MapRun> &horizontal, int levels, int64_t points,
                 esmio::decomp::LocalMap *map);

}  // namespace esmio_bench
