// The schema every rank mirrors (FileState::dims, vars, nrecords): filled from a file's schema
// when the file is opened, and grown by the definitions the ranks agreed on. Both engines keep
// it the same way, so that the API's checks read the same mirror in either mode.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common/schema_codec.hpp"
#include "common/status.hpp"
#include "datapath/file_state.hpp"
#include "datapath/group.hpp"
#include "esmio.h"

namespace esmio::datapath {

// Replaces the mirror by schema: the record count is the unlimited dimension's length, the
// records already in the file count as written and filled (their holes are not refilled), and
// every variable's storage is fixed. Local.
void mirror_schema(const FileSchema &schema, FileState *file);

// After the backend opened the file on the ranks that hold it: they read the fill values, the
// backend root encodes the schema and broadcasts it, and every rank mirrors it. Collective
// over the group; every MPI call checked, the outcome agreed.
Status share_schema(const Group &group, FileState *file, const backend::Schema &schema);

// The mirror's side of the definitions, after every rank agreed on them.
void mirror_def_dim(FileState *file, const std::string &name, int64_t len);
void mirror_def_var(FileState *file, const std::string &name, esmio_type type,
                    const std::vector<int> &dimids);
// An attribute: a variable's _FillValue becomes its fill value.
void mirror_put_att(FileState *file, int varid, const std::string &name, esmio_type type,
                    int64_t len, const void *values);

}  // namespace esmio::datapath
