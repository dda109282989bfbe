// The state one run shares between its variants: the communicator, the case, esmio's instance
// and decompositions, and for each grid this rank's offsets, precomputed values and file runs.
#pragma once

#include <esmio.h>
#include <mpi.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "file_runs.hpp"
#include "options.hpp"
#include "real_fields.hpp"
#include "workload.hpp"

namespace esmio_bench {

// A failure inside a variant: the run records it and goes on with the other variants.
struct BenchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws BenchError naming `what` when an esmio call fails.
void check_esmio(int rc, const std::string &what);

// One grid on this rank, ready for every variant.
struct LocalGrid {
  esmio_decomp_t decomp = nullptr;
  std::vector<int64_t> offsets;     // memory order, -1 for slots nobody writes
  std::vector<int64_t> hole_slots;  // the memory slots whose offset is -1
  int64_t nvalid = 0;               // this rank's valid slots
  int64_t global_valid = 0;         // over all ranks
  std::vector<double> base;  // formula: g * 1e-6 per memory slot, value = base + (1000 v + t)
  // Real fields: each source this grid's variables take, sampled at every memory slot (0 for
  // a hole), computed at setup: this rank's part only, and generating a record is a copy.
  std::map<int, std::vector<float>> real_values;
  // Direct writers: the valid slots in ascending file order (empty when memory order already
  // is ascending file order), the file runs of that order and their hyperslabs.
  std::vector<int64_t> sorted_slots;
  std::vector<Run> runs;
  std::vector<int64_t> slab_starts, slab_counts;  // ndims values per hyperslab
  std::vector<int64_t> slab_buffer;               // buffer position of each hyperslab
  bool per_slice = false;  // small: one request per memory slice, in memory order
  // --calls slice: one decomposition per memory slice of call_len elements (the same count on
  // every rank; a rank with fewer slices has empty ones at the end).
  int64_t call_len = 0;
  std::vector<esmio_decomp_t> slices;
};

struct Context {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  const Options *opt = nullptr;
  const Workload *work = nullptr;
  esmio_t io = nullptr;
  std::vector<LocalGrid> grids;
  FieldSource fields;     // the values written (--fields), loaded on every rank
  int64_t values = 0;     // valid values in one file, all records
  int64_t my_values = 0;  // this rank's share of them
  // Values the file's variables hold, holes included (a land or ocean map leaves most of its
  // grid to the fill value), and this rank's even share: what `raw` writes, so that its time
  // counts the bytes the file must hold.
  int64_t file_values = 0;
  int64_t my_file_values = 0;
  double setup_seconds = 0;              // decompositions (max over ranks)
  std::vector<double> memory;            // f64 buffer of one variable record, memory order
  std::map<std::string, double> phases;  // this rank's bench-side phase seconds, per repeat
  double child_peak_rss_mib = 0;         // peak RSS of an external program a variant ran (cdo)

  // Fills `memory` with the values of variable v, record t (counted as phase "generate").
  void generate(int v, int t);
  // Reads: each variant folds every record it has read into `memory` into read_digest (one
  // hash pass inside the clock; hole slots, which reads leave untouched, count as 0), and the
  // runner compares it after the clock with the same digest of the values written.
  uint64_t read_digest = 0;
  void fold_read(int v, int t);
  // Adds the digest of variable v's record t as `memory` holds it to read_digest.
  void digest_record(int v, int t);
  // Adds seconds to a bench-side phase.
  void add_phase(const char *name, double seconds) { phases[name] += seconds; }
};

// Creates esmio's instance and decompositions and precomputes every grid. Collective.
void setup_context(Context *ctx);
void teardown_context(Context *ctx);

}  // namespace esmio_bench
