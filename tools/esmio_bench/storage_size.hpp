// The bytes each variable of a netCDF-4 file takes on disk, compressed: what a per-variable
// compression ratio divides by. netCDF-C does not expose it; HDF5 does (H5Dget_storage_size).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace esmio_bench {

// Opens path read-only with serial HDF5 (the file must be closed by every writer) and sets
// (*bytes)[i] to the allocated storage of the dataset of variable names[i] (-1 where it cannot
// be opened). Returns false with the reason when the file cannot be opened.
bool dataset_storage_bytes(const std::string &path, const std::vector<std::string> &names,
                           std::vector<int64_t> *bytes, std::string *why);

}  // namespace esmio_bench
