// esmio's own text format of decomposition files: whitespace-separated tokens ("#" starts a
// comment that runs to the end of the line; line breaks are free):
//
//   esmio-decomp 1
//   ndims <D>
//   dims <d_0> ... <d_(D-1)>           C order, slowest first, each >= 1
//   nprocs <P>
//   proc <p> <nlocal>                  for p = 0 .. P-1, in order
//   <begin> <length> ...               runs until their lengths sum to nlocal
//   end
//
// A run with begin >= 0 stands for the offsets begin, begin+1, ..., begin+length-1; begin = -1
// stands for length holes; length >= 1. Block decompositions thus take a few runs per row
// instead of one number per element. Limits that keep a corrupt count from allocating memory:
// per process, at most prod(dims) offsets that are not holes and at most max(prod(dims), 2^20)
// holes. The final "end" makes a truncated file an error even when it was cut at a run boundary.
#pragma once

#include <string>

#include "common/status.hpp"
#include "decomp/decomp_file_rules.hpp"

namespace esmio::decomp {

// Reads rank's pieces (0 <= rank < nranks; processes rank, rank + nranks, ...) of the esmio map
// at path. Pure: no MPI. Errors (ESMIO_EDECOMP for the content) name the file, the line and
// the cause; on error *out is empty.
Status load_esmio_decomp(const std::string &path, int rank, int nranks, LoadedDecomp *out);

}  // namespace esmio::decomp
