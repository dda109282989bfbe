// The one field of a classic netCDF (CDF-1/2/5) header that esmio edits itself: the record
// count. PnetCDF and netCDF-C count a record once it was posted, whether or not its data
// reached the disk; after a failed write esmio lowers the count to the records that did.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.hpp"

namespace esmio::backend::cdf {

// Lowers the record count in the header of the CDF file at path to nrecords when it is
// higher, and makes the change durable (fsync). *before receives the count found. Local: one
// rank calls it, after the file is closed everywhere.
Status lower_numrecs(const std::string &path, int64_t nrecords, int64_t *before);

}  // namespace esmio::backend::cdf
