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
// Formats (the format argument):
//
//   "pio"    PIO's text format (PIOc_writemap, version 2001; 2000 is read too):
//              version 2001 npes <P> ndims <D>
//              <dims, FORTRAN order: fastest first>
//              <p> <n>                       for p = 0 .. P-1
//              <n offsets on one line, 1-based, 0 = hole>
//            PIO appends a blank line, a stack trace ("Obtained 10 stack frames." ...) and,
//            in newer versions, "ioid <id>"; everything after the P-th task is ignored, as
//            PIOc_readmap does. The dims line is in Fortran order because the models that
//            write these files (E3SM, CESM) call PIO from Fortran; the linear offsets are the
//            same in both orders, so only the dims line is reversed on reading and writing.
//            A task's offsets must lie on the one line after its header, as PIO writes them;
//            that lets a wrong count be reported at its own line.
//
//   "esmio"  esmio's own text format, whitespace-separated tokens ("#" starts a comment that
//            runs to the end of the line; line breaks are free):
//              esmio-decomp 1
//              ndims <D>
//              dims <d_0> ... <d_(D-1)>           C order, slowest first, each >= 1
//              nprocs <P>
//              proc <p> <nlocal>                  for p = 0 .. P-1, in order
//              <begin> <length> ...               runs until their lengths sum to nlocal
//              end
//            A run with begin >= 0 stands for the offsets begin, begin+1, ..., begin+length-1;
//            begin = -1 stands for length holes; length >= 1. Block decompositions thus take a
//            few runs per row instead of one number per element. Limits that keep a corrupt
//            count from allocating memory: per process, at most prod(dims) offsets that are not
//            holes and at most max(prod(dims), 2^20) holes. The final "end" makes a truncated
//            file an error even when it was cut at a run boundary.
//
//   "e3sm:Dk[:AxBxC][:runs|:fill]"
//            Decomposition k of an E3SM-IO map file (map_*_16p.nc, any netCDF format netCDF-C
//            reads), with per decomposition: Dk.raw_nreqs(P), Dk.raw_offsets (the per-element
//            offsets of all processes, process after process, in memory order, holes dropped;
//            1-BASED, as in the PIO file they were converted from: E3SM-IO's own reader
//            treats them so; a 0 is rejected, since netCDF-C reads the missing tail of a
//            truncated classic file as zeros), and Dk.nreqs(P), Dk.fill_starts(P),
//            Dk.offsets/Dk.lengths (the same elements merged into 0-based runs, then, from
//            fill_starts[p] on, runs of elements no process holds, which E3SM-IO's "-f"
//            option hands out so that a benchmark writes them with fill values: they are not
//            the model's data and are not read). raw_offsets is used when present; ":runs", or
//            a file without it, expands offsets/lengths[0 .. fill_starts[p]) instead; ":fill"
//            reads the fill requests [fill_starts[p] .. nreqs[p]) instead of the data, for a
//            replay that writes them as E3SM-IO does. The global dims come from the attribute
//            Dk.dims (C order); a file without it needs them in the format string
//            ("e3sm:D3:72x866", C order) unless it is one of the two maps of the E3SM-IO
//            benchmark, known by file name (built-in table). Dims in the format string must
//            agree with a stored attribute.
//
// Error codes: ESMIO_EIO (missing or unreadable file, write failure), ESMIO_ENOTNC (an e3sm map
// that netCDF-C cannot open), ESMIO_EBADNAME (unknown format), ESMIO_EINVAL (bad arguments: rank,
// dims in the format string, a decomposition Dk the map file lacks), ESMIO_EDECOMP (the content:
// bad header, wrong or negative count, offset out of range, truncation). Messages name the file,
// the line or variable, and the cause.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace esmio::decomp {

// What one rank reads from a decomposition file.
struct LoadedDecomp {
  std::vector<int64_t> dims;     // global shape, C order
  int64_t file_nprocs = 0;       // number of processes the file was written for
  std::vector<int64_t> offsets;  // this rank's pieces, concatenated; -1 = hole
};

// Reads rank's pieces (0 <= rank < nranks) of the file at path in the given format (see above).
// Pure: no MPI; the api layer agrees the result across ranks.
Status load_decomp_file(const std::string &path, const std::string &format, int rank, int nranks,
                        LoadedDecomp *out);

Status load_pio_decomp(const std::string &path, int rank, int nranks, LoadedDecomp *out);
Status load_esmio_decomp(const std::string &path, int rank, int nranks, LoadedDecomp *out);
// spec is the part of the format after "e3sm:", e.g. "D3", "D3:72x866", "D3:runs".
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

// Writes a decomposition file ("pio" or "esmio") process by process, streaming: the caller hands
// each process's offsets in pieces of any size, so no whole map is ever needed in memory. Writes
// to a temporary sibling of path and renames it on commit(), so that a failed or abandoned write
// never leaves a file at path that looks complete. Errors are sticky: after one, every call
// returns it.
class DecompFileWriter {
 public:
  DecompFileWriter() = default;
  DecompFileWriter(const DecompFileWriter &) = delete;
  DecompFileWriter &operator=(const DecompFileWriter &) = delete;
  ~DecompFileWriter();  // removes the temporary file unless committed

  Status open(const std::string &path, const std::string &format, const std::vector<int64_t> &dims,
              int64_t nprocs);
  // Pieces come in process order 0, 1, ..., nprocs-1; nlocal is the piece's total length.
  Status begin_piece(int64_t nlocal);
  Status add(const int64_t *offsets, int64_t n);
  Status end_piece();
  Status commit();

 private:
  Status fail(Status status);
  Status put(const char *text, std::size_t len);
  Status put_int(int64_t value, char after);
  Status flush();
  Status flush_run();

  Status sticky_;
  std::string path_, tmp_path_;
  bool pio_ = false;
  std::FILE *file_ = nullptr;
  std::string buf_;
  int64_t gsize_ = 0, nprocs_ = 0, proc_ = 0;
  bool in_piece_ = false;
  int64_t nlocal_ = 0, written_ = 0, data_ = 0, holes_ = 0;
  int64_t run_begin_ = 0, run_length_ = 0, runs_on_line_ = 0;
};

// Collective over comm: rank p's offsets become process p of the file (format "pio" or
// "esmio"). Rank 0 writes the header and then the pieces of ranks 0, 1, 2, ..., receiving one
// rank's piece at a time in bounded chunks. Every rank checks its own offsets; dims must be equal
// on all ranks. Returns the same code on every rank (the message of the lowest failing rank).
Status save_decomp_file(MPI_Comm comm, const std::string &path, const std::string &format,
                        const std::vector<int64_t> &dims, const int64_t *offsets, int64_t nlocal);

}  // namespace esmio::decomp
