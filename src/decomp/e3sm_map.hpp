// E3SM-IO's netCDF maps of decompositions, format "e3sm:Dk[:AxBxC][:runs|:fill]":
//
// Decomposition k of an E3SM-IO map file (map_*_16p.nc, any netCDF format netCDF-C reads), with
// per decomposition: Dk.raw_nreqs(P), Dk.raw_offsets (the per-element offsets of all processes,
// process after process, in memory order, holes dropped; 1-BASED, as in the PIO file they were
// converted from: E3SM-IO's own reader treats them so; a 0 is rejected, since netCDF-C reads the
// missing tail of a truncated classic file as zeros), and Dk.nreqs(P), Dk.fill_starts(P),
// Dk.offsets/Dk.lengths (the same elements merged into 0-based runs, then, from fill_starts[p]
// on, runs of elements no process holds, which E3SM-IO's "-f" option hands out so that a
// benchmark writes them with fill values: they are not the model's data and are not read).
// raw_offsets is used when present; ":runs", or a file without it, expands
// offsets/lengths[0 .. fill_starts[p]) instead; ":fill" reads the fill requests
// [fill_starts[p] .. nreqs[p]) instead of the data, for a replay that writes them as E3SM-IO
// does. The global dims come from the attribute Dk.dims (C order); a file without it needs them
// in the format string ("e3sm:D3:72x866", C order) unless it is one of the two maps of the
// E3SM-IO benchmark, known by file name (built-in table). Dims in the format string must agree
// with a stored attribute.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "decomp/decomp_file_rules.hpp"

namespace esmio::decomp {

// Reads rank's pieces (0 <= rank < nranks; processes rank, rank + nranks, ...) of decomposition
// Dk of the map at path; spec is the part of the format after "e3sm:", e.g. "D3", "D3:72x866",
// "D3:runs". No MPI. Errors name the file, the variable and entry, and the cause; on error
// *out is empty.
Status load_e3sm_decomp(const std::string &path, const std::string &spec, int rank, int nranks,
                        LoadedDecomp *out);

// The per-process tables of decomposition Dk of an E3SM-IO map (O(P) numbers, no offsets): for
// reports and for checks against what load_e3sm_decomp returns.
struct E3smMapInfo {
  std::vector<int64_t> dims;         // as load_e3sm_decomp gives them
  int64_t nprocs = 0;                // processes the map was captured from
  std::vector<int64_t> nreqs;        // Dk.nreqs: merged requests, fill requests included
  std::vector<int64_t> fill_starts;  // Dk.fill_starts (= nreqs when absent)
  std::vector<int64_t> raw_nreqs;    // Dk.raw_nreqs: elements of data; empty when absent
};
Status inq_e3sm_map(const std::string &path, const std::string &spec, E3smMapInfo *info);

}  // namespace esmio::decomp
