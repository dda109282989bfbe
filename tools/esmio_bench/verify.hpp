// Checking a written netCDF file value by value against the expected values (FieldSource).
#pragma once

#include <string>
#include <vector>

#include "context.hpp"
#include "result.hpp"

namespace esmio_bench {

struct Verification {
  bool verified = false;  // every value checked and equal
  long long mismatches = 0;
  std::string note;
  // Rank 0: per variable, the values checked, the largest errors, esmio's keepbits
  // attributes and (netCDF-4 files) the dataset's storage on disk.
  std::vector<VarCheck> vars;
};

// Collective. Rank 0 reads every variable record of the file with serial netCDF-C and compares
// each value with (float)ctx.fields.expected(grid, v, t, g), the definition the writer used;
// offsets no rank writes must hold the fill value when check_holes. With tolerance > 0 (lossy
// quantisation) a value may differ from the expected one by that much, relative; with
// tolerance < 0 (information quantisation) by each variable's bound from its esmio_keepbits.
// Per variable it records the largest absolute and relative error (the latter where the
// expected value is not 0) and, for a netCDF-4 file, the stored bytes (storage_size.hpp).
// Builds a coverage bitmap of each grid's global size (outside any timing). A file that holds
// only some steps (model-loop's --files): records steps, from step first_step (record t holds
// step first_step + t); records < 0: the workload's.
Verification verify_file(Context &ctx, const std::string &path, bool check_holes, double tolerance,
                         int first_step = 0, int records = -1);

// Collective. The values a read returned against the values written: the digest that
// Context::fold_read made of every record read is made again from the values written, as the
// file holds them (float32) and in the same way. Returns the number of ranks whose values
// differ (the same on every rank). For exact files only (a quantised file holds other values).
int check_reads(Context &ctx);

}  // namespace esmio_bench
