// What the drivers built on netCDF-C (serial, netcdf4) share. This header does not include
// netcdf.h (its NC_* macros clash with pnetcdf.h).
#pragma once

#include <string>

#include "backend/backend.hpp"
#include "common/status.hpp"

namespace esmio::backend::netcdf_c {

// Translates a netCDF-C error code (negative NC_* or positive errno) into an esmio Status whose
// message starts with driver ("serial netcdf", "netcdf4") and names the operation, the file
// and, if not empty, the variable. NC_NOERR gives ok.
Status translate_error(int nc_err, const std::string &driver, const std::string &operation,
                       const std::string &path, const std::string &variable);

// nc_put_att (text for ESMIO_CHAR) of len values of type.
int put_att(int ncid, int varid, const std::string &name, esmio_type type, int64_t len,
            const void *values);
// nc_inq_att, type and length as esmio's (either pointer may be null).
int inq_att(int ncid, int varid, const std::string &name, esmio_type *type, int64_t *len);
// The length of the unlimited dimension (0 if there is none).
int inq_nrecords(int ncid, int64_t *nrecords);

// nc_get_att_<memtype>: the attribute converted to memtype (netCDF's conversion).
int get_att_typed(int ncid, int varid, const char *name, esmio_type memtype, void *values);

// The dimensions and variables of the open file ncid; on failure returns the netCDF error and
// sets *bad_varid to the variable being read (ESMIO_GLOBAL for the dimensions).
int read_schema(int ncid, Schema *schema, int *bad_varid);

}  // namespace esmio::backend::netcdf_c
