// Lowering the record count of a closed netCDF-4 file. netCDF-4 keeps no record count: the
// length of the unlimited dimension is the largest extent any of its HDF5 datasets has along
// it. A record written in part (the time of a record whose data a failed flush lost) therefore
// counts in full; the datasets that reach past the limit are cut back to it.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.hpp"

namespace esmio::backend::hdf5 {

// Shrinks every dataset of the closed HDF5 file at path whose first dimension is unlimited and
// longer than nrecords to nrecords along it (H5Dset_extent: HDF5 drops the chunks past it).
// *before: the most records any dataset had. Local (one rank, the file closed everywhere).
Status lower_records(const std::string &path, int64_t nrecords, int64_t *before);

}  // namespace esmio::backend::hdf5
