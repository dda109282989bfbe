// PIO's text format of decomposition files (PIOc_writemap, version 2001; 2000 is read too):
//
//   version 2001 npes <P> ndims <D>
//   <dims, FORTRAN order: fastest first>
//   <p> <n>                       for p = 0 .. P-1
//   <n offsets on one line, 1-based, 0 = hole>
//
// PIO appends a blank line, a stack trace ("Obtained 10 stack frames." ...) and, in newer
// versions, "ioid <id>"; everything after the P-th task is ignored, as PIOc_readmap does. The
// dims line is in Fortran order because the models that write these files (E3SM, CESM) call PIO
// from Fortran; the linear offsets are the same in both orders, so only the dims line is
// reversed on reading and writing. A task's offsets must lie on the one line after its header,
// as PIO writes them; that lets a wrong count be reported at its own line.
#pragma once

#include <string>

#include "common/status.hpp"
#include "decomp/decomp_file_rules.hpp"

namespace esmio::decomp {

// Reads rank's pieces (0 <= rank < nranks; processes rank, rank + nranks, ...) of the PIO map
// at path. Pure: no MPI. Errors (ESMIO_EDECOMP for the content) name the file, the line and
// the cause; on error *out is empty.
Status load_pio_decomp(const std::string &path, int rank, int nranks, LoadedDecomp *out);

}  // namespace esmio::decomp
