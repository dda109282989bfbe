// Element types: sizes, names and default fill values, keyed by esmio_type (netCDF's nc_type).
#pragma once

#include <cstddef>
#include <cstdint>

#include "esmio.h"

namespace esmio {

// 0 for a type esmio does not know.
std::size_t type_size(esmio_type type);
bool type_is_known(esmio_type type);
bool type_is_numeric(esmio_type type);
// The types of CDF-5 and netCDF-4 that CDF-1 and CDF-2 lack (int64 and the unsigned ones).
bool type_needs_cdf5(esmio_type type);
const char *type_name(esmio_type type);
// Writes the netCDF default fill value of type into out (type_size(type) bytes).
void default_fill_value(esmio_type type, void *out);

}  // namespace esmio
