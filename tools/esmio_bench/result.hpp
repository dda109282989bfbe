// What one variant measured for one operation (write or read) over all repeats, gathered on
// rank 0. The JSON writer turns it into one entry of "results" (schema: docs/bench.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace esmio_bench {

// One variable of a checked file (the verify pass, first repeat; docs/bench.md "The table").
struct VarCheck {
  std::string name, source;  // source: "pop.nc:t" with --fields real, else ""
  double zoom = 0;  // horizontal grid points per source point (FieldSource::zoom); 0: formula
  int64_t float32_bytes = 0;  // the variable's extent (holes included), all records, float32
  int64_t stored_bytes = -1;  // its HDF5 dataset's storage (netCDF-4 files); -1: not known
  int keepbits = -1;          // esmio_keepbits (information quantisation); -1: none
  bool has_keepbits_reference = false;
  int keepbits_reference = 0;   // esmio_keepbits_reference: the reference method's count
  std::string keepbits_reason;  // esmio_keepbits_reason
  double max_abs_error = 0, max_rel_error = 0;  // over the values checked (fill values apart)
  int64_t values_checked = 0, mismatches = 0;
};

struct Result {
  std::string case_name;
  std::string operation;  // "write" or "read"
  std::string variant;
  std::string durability;  // "durable" or "cache"
  std::string read_mode;   // reads: "cold" or "warm"; writes: ""
  std::string label;       // how to read the rate: "durable (fsync)", "page cache", "cold read"
  int ranks = 0;
  int io_tasks = 0;
  std::string settings;
  int64_t bytes = 0;   // float32 data bytes of the valid values
  int64_t values = 0;  // valid values, all records
  int64_t file_bytes = -1;
  std::vector<double> seconds;                        // one per repeat
  std::vector<std::map<std::string, double>> phases;  // per repeat: max over ranks
  std::vector<double> peak_rss_mib;                   // per rank, max over repeats
  std::vector<double> baseline_rss_mib;               // per rank: RSS before the variant ran
  std::vector<int64_t> request_histogram;             // last repeat, summed over ranks
  std::vector<double> residency;                      // reads: fraction resident before each
  bool verified = false;
  std::string verify_note;
  std::vector<VarCheck> variables;  // writes of checkable variants: per variable, from verify
  std::string error;                // non-empty: the variant failed and was dropped
};

// The run as a whole: what the table's header and the JSON's top level show.
struct RunInfo {
  std::string case_name, description, command;
  int ranks = 0, records = 0, repeat = 0;
  int nvars = 0;  // variables in the file
  double scale = 1;
  double setup_seconds = 0;  // decompositions (esmio), max over ranks
  int64_t file_bytes = 0;    // what the file's variables hold, holes included (raw writes this)
  std::string dir;
  // /proc/loadavg when the run started and ended: other jobs on the machine show up here.
  std::string loadavg_start, loadavg_end;
};

// The first three fields of /proc/loadavg ("1-min 5-min 15-min"), or "" where unreadable.
std::string read_loadavg();

}  // namespace esmio_bench
