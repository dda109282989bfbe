// netCDF's rule for the names of dimensions, variables and attributes, as netCDF-C and PnetCDF
// check them (NC_check_name): checked by esmio at the call, on every rank, so that a bad name
// fails where it is passed, with every backend alike, and never later inside the storage
// library.
#pragma once

#include <string>
#include <string_view>

namespace esmio {

// Empty if name is a netCDF name; otherwise why not, in words ("'/' is not allowed", ...).
// A netCDF name is well-formed UTF-8; starts with a letter, a digit, '_' or a non-ASCII
// character; holds no ASCII control character, DEL or '/'; and does not end in ASCII white
// space. Its length is the caller's to check.
std::string netcdf_name_fault(std::string_view name);

}  // namespace esmio
