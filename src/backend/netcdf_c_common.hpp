// What the drivers built on netCDF-C (serial, netcdf4) share. This header does not include
// netcdf.h (its NC_* macros clash with pnetcdf.h).
#pragma once

#include <string>
#include <vector>

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
// The names of varid's attributes (NC_GLOBAL: the file's), in order.
int inq_att_names(int ncid, int varid, std::vector<std::string> *names);
// The length of the unlimited dimension (0 if there is none).
int inq_nrecords(int ncid, int64_t *nrecords);

// nc_get_att_<memtype>: the attribute converted to memtype (netCDF's conversion).
int get_att_typed(int ncid, int varid, const char *name, esmio_type memtype, void *values);

// The dimensions and variables of the open file ncid; on failure returns the netCDF error and
// sets *bad_varid to the variable being read (ESMIO_GLOBAL for the dimensions).
int read_schema(int ncid, Schema *schema, int *bad_varid);

// The part of a driver on netCDF-C that does not depend on how the file was opened (serially
// or in parallel): definitions, attributes, records, sync. Derived drivers open, close and move
// data.
class NetcdfCBackend : public Backend {
 public:
  ~NetcdfCBackend() override;

  Status def_dim(const std::string &name, int64_t len, int *dimid) override;
  Status def_var(const std::string &name, esmio_type type, const std::vector<int> &dimids,
                 int *varid) override;
  Status put_att(int varid, const std::string &name, esmio_type type, int64_t len,
                 const void *values) override;
  Status redef() override;
  Status inq_att(int varid, const std::string &name, esmio_type *type, int64_t *len) override;
  Status inq_att_names(int varid, std::vector<std::string> *names) override;
  Status get_att(int varid, const std::string &name, esmio_type memtype, void *values) override;
  Status inq_nrecords(int64_t *nrecords) override;
  Status sync() override;

 protected:
  // driver: the prefix of every message ("serial netcdf", "netcdf4").
  explicit NetcdfCBackend(const char *driver) : driver_(driver) {}
  Status status_of(int err, const std::string &op, int varid = ESMIO_GLOBAL) const;
  std::string var_name(int varid) const;
  Status not_open(const char *op) const;
  // nc_close, once; the error of the close.
  int close_file();
  // Called before a netCDF call that writes metadata (sync, redef): a driver that must make
  // room first (parallel netCDF-4, see backend/space.hpp) does it here, collectively.
  virtual Status before_metadata(const char *op) {
    (void)op;
    return Status::ok();
  }

  int ncid_ = -1;
  std::string path_;
  FileOptions options_;

 private:
  const char *driver_;
};

}  // namespace esmio::backend::netcdf_c
