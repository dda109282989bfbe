// The Zstandard HDF5 filter (registered id 32015) for netCDF-4 output: registration in this
// process and where the plugin for other programs lives.
#pragma once

#include <string>

#include "common/status.hpp"

namespace esmio::codec {

// HDF5's registered id of the community zstd filter (hdf5plugin, HDF5Plugin-Zstandard); files
// written with it are readable by any HDF5 reader that has a plugin for that id.
constexpr unsigned kZstdFilterId = 32015;

// Makes filter 32015 available to this process's libhdf5 (the one netCDF-C's MPI build uses),
// so that nc_def_var_filter(ncid, varid, kZstdFilterId, 1, &level) and reading such variables
// work. Replaces a copy already available (the plugin, loaded from HDF5_PLUGIN_PATH) with this
// one, whose calls the trace times (esmio_h5z_zstd_tallies). Idempotent; not thread-safe.
// ESMIO_EBACKEND if HDF5 refuses.
Status register_zstd_filter();

// The same filter is built as an HDF5 plugin, libesmio_h5zstd.so (build/plugins/, installed
// to <libdir>/esmio/hdf5-plugins): readers linked to any libhdf5 (ncdump, CDO, python netCDF4,
// h5py) decode the files when HDF5_PLUGIN_PATH names its directory.

}  // namespace esmio::codec
