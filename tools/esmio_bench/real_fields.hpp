// The values the bench writes (--fields): the smooth formula value_of, or real model output,
// one source field per variable, resampled onto the case's grid. A smooth formula compresses
// like nothing a model writes, so compression figures count only with real fields. The writer
// (Context::generate, through values precomputed at setup with FieldSource::sample_into) and
// the checker (verify_file, through FieldSource::expected) call one function, so they cannot
// disagree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workload.hpp"

namespace esmio_bench {

// One real field as read: `levels` planes of ny x nx (ny = 1 for an unstructured source),
// float32, unpacked, missing values replaced by NC_FILL_FLOAT.
struct RealSource {
  std::string name;  // "pop.nc:t"
  std::string what;  // one line: what the field is
  int64_t levels = 1, ny = 1, nx = 1;
  bool unstructured = false;
  int level2d = 0;  // the level a variable without levels takes
  std::vector<float> values;
  double missing_fraction = 0;
};

class FieldSource {
 public:
  // Default: the formula.
  FieldSource() = default;

  // Chooses a source for every variable of w (the case's list, docs/bench.md "Values") and
  // loads those sources (serial netCDF-C, on the calling rank alone; small) from
  // $ESMIO_BENCH_REAL_DATA, else /usr/share/ncarg/data (Debian's libncarg-data). Returns false
  // with the reason when a file or variable cannot be read.
  static bool load_real(const Workload &w, FieldSource *out, std::string *why);

  bool real() const { return !sources_.empty(); }
  // "formula: ..." or "real: <file>:<variable> ..." for the table and the JSON.
  const std::string &label() const { return label_; }
  // The source of variable v: its index (real fields), and "file:variable" ("" for formula).
  int source_of(int v) const { return var_source_[static_cast<std::size_t>(v)]; }
  std::string source_name(int v) const {
    return real() ? sources_[static_cast<std::size_t>(source_of(v))].name : std::string();
  }

  // The value of source s at global C-order offset g of a record of grid: the source
  // resampled onto the grid (bilinear in the horizontal, linear between source levels; see
  // real_fields.cpp). The same for every record, rank and rank count.
  float sample(const Grid &grid, int s, int64_t g) const;
  // Grid points per source point in the horizontal: > 1 where the source is interpolated up
  // (smoother than a model of the grid's resolution: optimistic ratios), < 1 where thinned.
  double zoom(const Grid &grid, int s) const;
  // out[i] = sample(grid, s, offsets[i]) (0 where offsets[i] < 0, a slot nobody writes).
  void sample_into(const Grid &grid, int s, const std::vector<int64_t> &offsets,
                   std::vector<float> *out) const;

  // THE value of variable v (0-based, definition order), record t, global offset g of grid.
  double expected(const Grid &grid, int v, int t, int64_t g) const {
    return real() ? static_cast<double>(sample(grid, source_of(v), g)) : value_of(v, t, g);
  }

 private:
  std::vector<RealSource> sources_;
  std::vector<int> var_source_;
  std::string label_ = "formula: 1000 v + t + g * 1e-6";
};

// The label of the fields this process's run writes ("formula: ..." until setup_context loads
// real ones). The report reads it here: RunInfo does not carry it.
const std::string &fields_in_use();
void set_fields_in_use(const std::string &label);

}  // namespace esmio_bench
