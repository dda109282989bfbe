// One collective data call as the API checked it, and the agreements the data path makes
// with it: the call's first vote (its checks and its arguments compared across ranks) and the
// vote on its outcome with the values stored as fill.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/call_words.hpp"
#include "common/status.hpp"
#include "datapath/decomp.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"
#include "datapath/schema.hpp"
#include "esmio.h"

namespace esmio::datapath {

// What the data path needs of a call to vote on it where its own sequence of collectives says:
// this rank's checks, a digest of the collective arguments, and the words for a mismatch.
struct Call {
  Status local;
  uint64_t digest = 0;
  std::function<std::string()> words;  // run only on a mismatch
  // The values the call passes behind a pointer (put_vara's, put_att's), which only a rank whose
  // checks passed reads: compared among those ranks (common/agree.hpp); 0 for none.
  uint64_t checked = 0;
};

// A data call's collective arguments: file, variable, record, decomposition (by its creation
// number: ranks that pass different decompositions differ here) and memory type. The buffer
// length is local and not compared.
uint64_t darray_digest(const FileState &file, const char *what, int varid, int64_t record,
                       const Decomp *decomp, esmio_type memtype);
// The call as an argument list (common/call_words.hpp), for a mismatch's message: decomposition
// by its creation number, or null.
CallWords darray_call(const FileState &file, const char *what, int varid, int64_t record,
                      const int64_t *decomp_serial, esmio_type memtype);
// The same, encoded for the agreement, with this rank's checks (local): a call they refused
// carries their message, so that a mismatch names the cause one rank knew.
// source: where a read's values come from (kept from a batch of small reads, or read from the
// file), or null.
std::string darray_words(const FileState &file, const char *what, int varid, int64_t record,
                         const Decomp *decomp, esmio_type memtype, const Status &local,
                         const char *source = nullptr);
// Agrees on the outcome of a data call. Out-of-range values are not one rank's error: the data
// is written (as fill) everywhere, and every rank reports the call's total count.
Status agree_with_range(const Group &group, const FileState &file, int varid, const char *what,
                        esmio_type from, esmio_type to, const Status &status,
                        const RangeCount &range);

}  // namespace esmio::datapath
