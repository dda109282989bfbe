// The end-of-file address an HDF5 file records in its superblock: a file shorter than that
// was cut (a failed copy, a full disk). HDF5 refuses such a file with a generic error, which
// netCDF-C reports as "HDF error"; esmio reads the address itself to say what happened.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.hpp"

namespace esmio::backend::hdf5 {

// The end-of-file address from the first bytes of a file (superblock at offset 0, versions
// 0-3), or -1 when they are not an HDF5 superblock this function knows. Pure.
int64_t end_of_file_address(const unsigned char *head, std::size_t n);

// ESMIO_ECORRUPT naming path and both sizes when the HDF5 file at path is shorter than its
// superblock says; OK otherwise (not HDF5, unreadable, or long enough). Local.
Status check_truncated(const std::string &path);

}  // namespace esmio::backend::hdf5
