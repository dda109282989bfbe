// What an existing file is, from its first bytes (read on rank 0 and broadcast): the format
// for backend=auto and format=auto, and the words for an open that failed: not a netCDF file
// at all (ESMIO_ENOTNC), or a netCDF file whose header is damaged or cut (ESMIO_ECORRUPT) —
// the same code whichever backend tried, where PnetCDF alone says "file operation error" for
// an empty file and "format violates CDF" for a cut header.
#pragma once

#include <string>

#include "backend/backend.hpp"
#include "common/status.hpp"
#include "datapath/engine.hpp"
#include "datapath/group.hpp"

namespace esmio::datapath {

// Collective: rank 0 looks, every rank learns.
OnDisk probe_file(const Group &group, const std::string &path);
// The same code and a plain cause for a create that failed because of the directory: missing,
// on a read-only file system or not writable (ESMIO_EIO; backends say "Permission denied" for a
// missing directory, or give three different codes for a read-only one). Collective.
Status explain_create_failure(const Group &group, const std::string &path, const Status &failed);
// The serial backend reads classic files with netCDF-C, which opens a cut header or a file
// cut short without a word: rank 0 checks such a file through the pnetcdf backend's header and
// extent check first (on MPI_COMM_SELF). Local; the caller agrees.
Status check_classic_extent(const Group &group, const std::string &path, const OnDisk &on_disk,
                            const backend::FileOptions &options);
// The code and words for an open that failed, the same whichever backend tried: ESMIO_ENOTNC
// for a file that is not netCDF, ESMIO_ECORRUPT for a classic one whose header is damaged.
Status explain_open_failure(const OnDisk &on_disk, const std::string &path, const Status &failed);

}  // namespace esmio::datapath
