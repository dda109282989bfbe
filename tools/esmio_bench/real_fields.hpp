// The values the bench writes (--fields): the smooth formula value_of, or real model output
// tiled over the case's grids. A smooth formula compresses like nothing a model writes, so
// compression figures count only with real fields. The writer (Context::generate) and the
// checker (verify_file) both go through FieldSource, so they cannot disagree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workload.hpp"

namespace esmio_bench {

class FieldSource {
 public:
  // Which canvas plane and shift one variable record reads (real fields only).
  struct Record {
    uint32_t plane;  // first canvas element of slice (v + t) mod nslices
    uint32_t shift;  // whole canvas rows, so that variables reading one slice differ
  };

  // Default: the formula.
  FieldSource() = default;

  // Loads the real 2-D slices (serial netCDF-C, on the calling rank alone) from
  // $ESMIO_BENCH_REAL_DATA, else /usr/share/ncarg/data (Debian's libncarg-data). Returns false
  // with the reason when a file or variable cannot be read.
  static bool load_real(FieldSource *out, std::string *why);

  bool real() const { return !canvas_.empty(); }
  // "formula: ..." or "real: <file>:<variable> ..." for the table and the JSON.
  const std::string &label() const { return label_; }

  // Where global C-order offset g of a variable record of grid lies in the tiled sources: the
  // slice its level and tile take (before the record's own step) and its place in the canvas
  // plane. Real fields only; computed once per memory slot at setup, so that generating a
  // record is a gather.
  uint32_t key(const Grid &grid, int64_t g) const;
  Record record(int v, int t) const;
  // The source value at key for a record: one add, one wrap, one load.
  float at(Record r, uint32_t key) const {
    uint32_t i = key + r.plane;
    if (i >= wrap_) i -= wrap_;
    return canvas_[i + r.shift];
  }

  // THE value of variable v (0-based, definition order), record t, global offset g of grid.
  double expected(const Grid &grid, int v, int t, int64_t g) const {
    return real() ? static_cast<double>(at(record(v, t), key(grid, g))) : value_of(v, t, g);
  }

 private:
  // nslices planes of ny x nx (every slice cut to the smallest one's extent), each stored
  // twice in a row (stride 2 ny nx) so that a shifted position never leaves its plane.
  std::vector<float> canvas_;
  int64_t nslices_ = 0, ny_ = 0, nx_ = 0;
  uint32_t plane_ = 0, stride_ = 0, wrap_ = 0;  // ny nx, 2 ny nx, nslices stride
  std::string label_ = "formula: 1000 v + t + g * 1e-6";
};

// The label of the fields this process's run writes ("formula: ..." until setup_context loads
// real ones). The report reads it here: RunInfo does not carry it.
const std::string &fields_in_use();
void set_fields_in_use(const std::string &label);

}  // namespace esmio_bench
