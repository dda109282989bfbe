#include "synthetic_maps.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

using esmio::decomp::LocalMap;
using esmio::decomp::MapRun;

namespace esmio_bench {
namespace {

// Appends a run, joined to the last one where both memory and file offsets follow on.
void append(std::vector<MapRun> *runs, MapRun r) {
  if (!runs->empty()) {
    MapRun &last = runs->back();
    if (last.memory + last.length == r.memory && last.offset + last.length == r.offset) {
      last.length += r.length;
      return;
    }
  }
  runs->push_back(r);
}

// Cell (x, y) of the d-th step of the Hilbert curve over an n x n square (n a power of two).
void hilbert_cell(int64_t n, int64_t d, int64_t *x, int64_t *y) {
  *x = *y = 0;
  for (int64_t s = 1; s < n; s *= 2) {
    const int64_t rx = 1 & (d / 2), ry = 1 & (d ^ rx);
    if (ry == 0) {
      if (rx == 1) {
        *x = s - 1 - *x;
        *y = s - 1 - *y;
      }
      std::swap(*x, *y);
    }
    *x += s * rx;
    *y += s * ry;
    d /= 4;
  }
}

class CubedSphereMap : public HorizontalMap {
 public:
  CubedSphereMap(int ne, int nranks) : ne_(ne) {
    nranks_ = nranks;
    per_face_ = int64_t(ne) * ne;
    elements_ = 6 * per_face_;
    points_ = covered_ = 9 * elements_ + 2;
    // The curve over the smallest power-of-two square that holds the face, the cells outside
    // the face skipped: ne = 120 is a multiple of 8, so every aligned 2x2 (4x4, 8x8) block the
    // curve visits in one stretch lies wholly inside or outside, and the clipped curve keeps
    // the Hilbert curve's locality. One face's order: ne^2 cells, the only table kept.
    int64_t n = 1;
    while (n < ne) n *= 2;
    order_.reserve(static_cast<std::size_t>(per_face_));
    for (int64_t d = 0; d < n * n; ++d) {
      int64_t x = 0, y = 0;
      hilbert_cell(n, d, &x, &y);
      if (x < ne && y < ne) order_.push_back(static_cast<int32_t>(y * ne + x));
    }
    char text[640];
    std::snprintf(text, sizeof text,
                  "synthetic E3SM ne%d np4 map: 6 x %d x %d = %lld spectral elements, %lld unique "
                  "GLL columns numbered element by element in the file (face by face, row-major "
                  "within a face; 9 columns each, the 2 extra to elements 0 and 1); elements dealt "
                  "to the %d ranks in contiguous stretches (%lld..%lld each) of a space-filling "
                  "curve: a Hilbert curve over each face (over %lldx%lld, clipped to %dx%d), "
                  "faces in sequence; a rank holds its elements' columns in curve order",
                  ne, ne, ne, static_cast<long long>(elements_), static_cast<long long>(points_),
                  nranks, static_cast<long long>(elements_ / nranks),
                  static_cast<long long>((elements_ + nranks - 1) / nranks),
                  static_cast<long long>(n), static_cast<long long>(n), ne, ne);
    description_ = text;
  }

  void rank_runs(int rank, std::vector<MapRun> *runs) const override {
    runs->clear();
    const int64_t first = elements_ * rank / nranks_, end = elements_ * (rank + 1) / nranks_;
    int64_t memory = 0;
    for (int64_t s = first; s < end; ++s) {
      const int64_t element = s / per_face_ * per_face_ + order_[s % per_face_];
      const int64_t column = 9 * element + std::min<int64_t>(element, 2);
      const int64_t n = element < 2 ? 10 : 9;
      append(runs, MapRun{memory, column, n});
      memory += n;
    }
  }

 private:
  int ne_;
  int64_t per_face_ = 0, elements_ = 0;
  std::vector<int32_t> order_;  // one face's cells (y * ne + x) in curve order
};

class LandMap : public HorizontalMap {
 public:
  LandMap(int nlat, int nlon, int nranks, int clumps_per_rank) : clumps_per_rank_(clumps_per_rank) {
    nranks_ = nranks;
    points_ = int64_t(nlat) * nlon;
    // Land as runs of cells along each latitude row: a few thousand runs, not a per-cell table.
    const double pi = std::acos(-1.0);
    for (int i = 0; i < nlat; ++i) {
      const double lat = (-90.0 + (i + 0.5) * 180.0 / nlat) * pi / 180;
      for (int j = 0; j < nlon; ++j) {
        const double lon = (j + 0.5) * 360.0 / nlon * pi / 180;
        // Smooth synthetic continents (about 30 % of the cells with the cap); deterministic.
        const double f = std::sin(2 * lon) * std::cos(lat) +
                         0.7 * std::cos(3 * lon + 1.0) * std::sin(2 * lat + 0.5) +
                         0.4 * std::sin(5 * lon + 2 * lat);
        const bool land = f > 0.62 || lat < -66 * pi / 180;
        if (!land) continue;
        const int64_t cell = int64_t(i) * nlon + j;
        if (!land_.empty() && land_.back().offset + land_.back().length == cell)
          ++land_.back().length;
        else
          land_.push_back(MapRun{covered_, cell, 1});  // memory: land points before it
        ++covered_;
      }
    }
    char text[640];
    std::snprintf(text, sizeof text,
                  "synthetic CLM land map: %d x %d cells (lon fastest), %lld land cells (%.1f %%: "
                  "smooth synthetic continents and an Antarctic cap, %zu runs of land along the "
                  "rows), ocean cells are holes; the land cells in file order cut into %d x %d "
                  "clumps of equal size, clump c to rank c mod %d (round-robin), so each rank "
                  "holds %d stretches of land points in latitude bands",
                  nlat, nlon, static_cast<long long>(covered_), 100.0 * covered_ / points_,
                  land_.size(), nranks, clumps_per_rank, nranks, clumps_per_rank);
    description_ = text;
  }

  void rank_runs(int rank, std::vector<MapRun> *runs) const override {
    runs->clear();
    const int64_t clumps = int64_t(nranks_) * clumps_per_rank_;
    int64_t memory = 0;
    for (int64_t c = rank; c < clumps; c += nranks_) {
      int64_t at = covered_ * c / clumps;
      const int64_t end = covered_ * (c + 1) / clumps;
      // The land run holding land point `at`: the last whose first land point is at or before.
      auto k = std::upper_bound(land_.begin(), land_.end(), at,
                                [](int64_t p, const MapRun &r) { return p < r.memory; }) -
               land_.begin() - 1;
      while (at < end) {
        const MapRun &r = land_[static_cast<std::size_t>(k)];
        const int64_t n = std::min(end, r.memory + r.length) - at;
        append(runs, MapRun{memory, r.offset + (at - r.memory), n});
        memory += n;
        at += n;
        ++k;
      }
    }
  }

 private:
  int clumps_per_rank_;
  std::vector<MapRun> land_;  // memory: index of the run's first land point among all of them
};

}  // namespace

std::unique_ptr<HorizontalMap> make_cubed_sphere_map(int ne, int nranks) {
  return std::make_unique<CubedSphereMap>(ne, nranks);
}

std::unique_ptr<HorizontalMap> make_land_map(int nlat, int nlon, int nranks, int clumps_per_rank) {
  return std::make_unique<LandMap>(nlat, nlon, nranks, clumps_per_rank);
}

void layered_map(const std::vector<MapRun> &horizontal, int levels, int64_t points, LocalMap *map) {
  int64_t nlocal = 0;
  for (const MapRun &r : horizontal) nlocal = std::max(nlocal, r.memory + r.length);
  map->nlocal = nlocal * levels;
  map->runs.clear();
  map->runs.reserve(horizontal.size() * static_cast<std::size_t>(levels));
  for (int l = 0; l < levels; ++l)
    for (const MapRun &r : horizontal)
      append(&map->runs, MapRun{l * nlocal + r.memory, l * points + r.offset, r.length});
}

}  // namespace esmio_bench
