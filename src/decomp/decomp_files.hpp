// Decomposition files: reading and writing the maps that say which global elements each process
// holds, so that a model's decomposition can be captured once and replayed by benchmarks and tests
// on any number of ranks.
//
// A file written for P processes and read on N ranks gives rank r the pieces of processes
// r, r+N, r+2N, ... concatenated in that order (every process's memory order preserved). Read on
// more ranks than processes (N > P), the ranks r, r+P, r+2P, ... share process r mod P's
// elements: in that order, each takes the next of as many equal consecutive parts of them (a
// map of 16 processes replayed on 64 ranks: every rank a quarter of one process). Each
// rank streams through the file and keeps only its own pieces: memory follows the rank's share,
// never the whole map. Offsets are global linear offsets (C order, 0-based) into the shape dims
// (C order, slowest first, no record dimension); -1 is a hole (a memory slot nobody writes).
//
// Formats (the format argument), each described in its own header:
//
//   "pio"    PIO's text format (PIOc_writemap, version 2001): pio_format.hpp
//   "esmio"  esmio's own text format, offsets as runs: esmio_format.hpp
//   "e3sm:Dk[:AxBxC][:runs|:fill]"
//            decomposition k of an E3SM-IO netCDF map file: e3sm_map.hpp
//
// The readers of each format are pure (no MPI); the writer streams (decomp_file_writer.hpp);
// the collective save and load (decomp_file_collective.cpp) decide which rank reads and writes
// what, and agree on the outcome.
//
// Error codes: ESMIO_EIO (missing or unreadable file, write failure), ESMIO_ENOTNC (an e3sm map
// that netCDF-C cannot open), ESMIO_EBADNAME (unknown format), ESMIO_EINVAL (bad arguments: rank,
// dims in the format string, a decomposition Dk the map file lacks), ESMIO_EDECOMP (the content:
// bad header, wrong or negative count, offset out of range, truncation). Messages name the file,
// the line or variable, and the cause.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "decomp/decomp_file_rules.hpp"
#include "decomp/decomp_file_writer.hpp"
#include "decomp/e3sm_map.hpp"
#include "decomp/esmio_format.hpp"
#include "decomp/pio_format.hpp"

namespace esmio::decomp {

// Reads rank's pieces (0 <= rank < nranks) of the file at path in the given format (see above).
// Pure: no MPI. Damage in the map is found only by the ranks whose pieces lie at or after it.
Status load_decomp_file(const std::string &path, const std::string &format, int rank, int nranks,
                        LoadedDecomp *out);

// Collective over comm: each rank reads its pieces (its rank and the size of comm, as above),
// and the ranks agree on the outcome. A rank whose before is an error (bad arguments) reads
// nothing and brings that error. On every rank the result is the status of the lowest rank that
// failed with the most severe code: the cause the reading rank found (ESMIO_EDECOMP for damage,
// naming the file, the line or entry, and what is wrong), never only its consequence elsewhere;
// *out is then empty on every rank.
Status load_decomp_file(MPI_Comm comm, const std::string &path, const std::string &format,
                        LoadedDecomp *out, const Status &before = Status::ok());

// Collective over comm: rank p's offsets become process p of the file (format "pio" or
// "esmio"). Rank 0 writes the header and then the pieces of ranks 0, 1, 2, ..., receiving one
// rank's piece at a time in bounded chunks. Every rank checks its own offsets; dims must be equal
// on all ranks. Returns the same code on every rank (the message of the lowest failing rank).
Status save_decomp_file(MPI_Comm comm, const std::string &path, const std::string &format,
                        const std::vector<int64_t> &dims, const int64_t *offsets, int64_t nlocal);

}  // namespace esmio::decomp
