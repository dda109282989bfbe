// What a case writes: the file's dimensions and variables, and for each kind of variable
// (a "grid") how this rank's part is laid out in memory. Every variant writes exactly this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace esmio_bench {

// One decomposition: the shape of a variable's record and this rank's part of it.
struct Grid {
  std::string name;
  std::vector<int> dimids;     // into Workload::dims, file order, record dimension excluded
  std::vector<int64_t> shape;  // lengths of those dimensions
  enum class Kind { block, offsets, e3sm } kind = Kind::block;
  // Kind::block: this rank's block in file order and its memory order (esmio's convention).
  std::vector<int64_t> start, count;
  std::vector<int> mem_order;  // empty: file order
  // Kind::offsets: global C-order offsets in memory order (-1: a slot nobody writes).
  std::vector<int64_t> offsets;
  // Kind::e3sm: a map file and esmio_decomp_load's format ("e3sm:D3").
  std::string map_path, map_format;
  // Elements per contiguous memory slice that a model hands over one at a time (case
  // 'small'): pnetcdf-direct then posts one request per slice, in memory order. 0: not so.
  int64_t slice_len = 0;
  // Elements per write_darray call when the esmio variants write slice by slice (--calls
  // slice): consecutive memory slices of this length, one decomposition each. 0: no slices.
  int64_t call_len = 0;
  // Trailing dimensions that span the horizontal: 2 (y, x), or 1 for unstructured columns
  // (ncol). The leading ones are levels. --fields real resamples its sources accordingly.
  int horizontal_dims = 2;
};

struct Var {
  std::string name;
  int grid;
};

struct Workload {
  std::string case_name;
  std::string description;                            // one line, for the table and the JSON
  std::vector<std::pair<std::string, int64_t>> dims;  // dims[0] is the unlimited "time"
  std::vector<Grid> grids;
  std::vector<Var> vars;
  int records = 1;
  bool single_process = false;  // cdi: only rank 0 takes part
  bool slice_calls = false;     // esmio variants: one write_darray per Grid::call_len slice
  // cdo's cdiwrite parameters for the same number of values (case cdi only).
  int cdo_levels = 0, cdo_steps = 0, cdo_vars = 0;
  std::string cdo_grid;
};

// The value every variant writes for variable v (0-based, definition order), record t, at the
// global C-order index g within the variable's record with --fields formula (the default): the
// demo's formula, so that a file can be checked value by value (as float32, after rounding).
// FieldSource::expected (real_fields.hpp) is the definition both writer and checker use.
inline double value_of(int v, int t, int64_t g) {
  return static_cast<double>(1000 * v + t) + static_cast<double>(g) * 1.0e-6;
}

}  // namespace esmio_bench
