// What the two drivers on netCDF-C (serial and netcdf4) share: netCDF-C's error space
// (negative NC_* codes, positive errno values) mapped onto esmio's, typed attribute reads and
// the schema of an open file.
#include "backend/netcdf_c_common.hpp"

#include <netcdf.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

namespace esmio::backend::netcdf_c {

namespace {

int esmio_code(int nc_err) {
  // netCDF-C passes the system's errno through for failed open/create/read/write calls.
  if (nc_err == ENOSPC || nc_err == EDQUOT || nc_err == EFBIG) return ESMIO_ENOSPC;
  if (nc_err > 0) return ESMIO_EIO;
  switch (nc_err) {
    case NC_EACCESS:
    case NC_EIO:
    case NC_ENOTFOUND:
    case NC_ECANTREAD:
    case NC_ECANTWRITE:
    case NC_ECANTCREATE:
      return ESMIO_EIO;
    case NC_ENOTNC:
      return ESMIO_ENOTNC;
    case NC_EEXIST:
      return ESMIO_EEXIST;
    case NC_ERANGE:
      return ESMIO_ERANGE;
    case NC_EPERM:
      return ESMIO_EPERM;
    // Codes with an exact esmio counterpart keep their meaning; the api layer checks these
    // cases itself, so they reach here only when the two disagree.
    case NC_ENOMEM:
      return ESMIO_ENOMEM;
    case NC_ENAMEINUSE:
      return ESMIO_ENAMEINUSE;
    case NC_EINDEFINE:
      return ESMIO_EINDEFINE;
    case NC_ENOTINDEFINE:
      return ESMIO_ENOTINDEFINE;
    case NC_EUNLIMPOS:
    case NC_EUNLIMIT:
      return ESMIO_EUNLIMPOS;
    case NC_EMAXDIMS:
      return ESMIO_EMAXDIMS;
    case NC_ENOTVAR:
      return ESMIO_ENOTVAR;
    case NC_ENOTATT:
      return ESMIO_ENOTATT;
    case NC_EBADID:
    case NC_EBADDIM:
      return ESMIO_EBADID;
    case NC_EBADTYPE:
    case NC_ECHAR:
      return ESMIO_EBADTYPE;
    case NC_EINVAL:
    case NC_EBADNAME:
    case NC_EINVALCOORDS:
    case NC_EEDGE:
      return ESMIO_EINVAL;
    default:
      return ESMIO_EBACKEND;
  }
}

}  // namespace

Status translate_error(int nc_err, const std::string &driver, const std::string &operation,
                       const std::string &path, const std::string &variable) {
  if (nc_err == NC_NOERR) return Status::ok();
  std::string message = driver + ": " + operation + " on '" + path + "'";
  if (!variable.empty()) message += " variable '" + variable + "'";
  message += ": ";
  message += nc_strerror(nc_err);
  message += " (code " + std::to_string(nc_err) + ")";
  return Status(esmio_code(nc_err), std::move(message));
}

int get_att_typed(int ncid, int varid, const char *name, esmio_type type, void *values) {
  switch (type) {
    case ESMIO_BYTE:
      return nc_get_att_schar(ncid, varid, name, static_cast<signed char *>(values));
    case ESMIO_CHAR:
      return nc_get_att_text(ncid, varid, name, static_cast<char *>(values));
    case ESMIO_SHORT:
      return nc_get_att_short(ncid, varid, name, static_cast<short *>(values));
    case ESMIO_INT:
      return nc_get_att_int(ncid, varid, name, static_cast<int *>(values));
    case ESMIO_FLOAT:
      return nc_get_att_float(ncid, varid, name, static_cast<float *>(values));
    case ESMIO_DOUBLE:
      return nc_get_att_double(ncid, varid, name, static_cast<double *>(values));
    case ESMIO_INT64:
      return nc_get_att_longlong(ncid, varid, name, static_cast<long long *>(values));
    case ESMIO_UBYTE:
      return nc_get_att_uchar(ncid, varid, name, static_cast<unsigned char *>(values));
    case ESMIO_USHORT:
      return nc_get_att_ushort(ncid, varid, name, static_cast<unsigned short *>(values));
    case ESMIO_UINT:
      return nc_get_att_uint(ncid, varid, name, static_cast<unsigned int *>(values));
    case ESMIO_UINT64:
      return nc_get_att_ulonglong(ncid, varid, name, static_cast<unsigned long long *>(values));
  }
  return NC_EBADTYPE;
}

int put_att(int ncid, int varid, const std::string &name, esmio_type type, int64_t len,
            const void *values) {
  if (len < 0) return NC_EINVAL;
  if (type == ESMIO_CHAR)
    return nc_put_att_text(ncid, varid, name.c_str(), static_cast<size_t>(len),
                           static_cast<const char *>(values));
  return nc_put_att(ncid, varid, name.c_str(), static_cast<nc_type>(type), static_cast<size_t>(len),
                    values);
}

int inq_att(int ncid, int varid, const std::string &name, esmio_type *type, int64_t *len) {
  nc_type xtype = NC_NAT;
  size_t n = 0;
  const int err = nc_inq_att(ncid, varid, name.c_str(), &xtype, &n);
  if (err == NC_NOERR) {
    if (type != nullptr) *type = static_cast<esmio_type>(xtype);
    if (len != nullptr) *len = static_cast<int64_t>(n);
  }
  return err;
}

int inq_att_names(int ncid, int varid, std::vector<std::string> *names) {
  int natts = 0;
  int err = nc_inq_varnatts(ncid, varid, &natts);
  names->clear();
  char name[NC_MAX_NAME + 1];
  for (int i = 0; err == NC_NOERR && i < natts; ++i) {
    err = nc_inq_attname(ncid, varid, i, name);
    if (err == NC_NOERR) names->emplace_back(name);
  }
  return err;
}

int inq_nrecords(int ncid, int64_t *nrecords) {
  int unlimdim = -1;
  size_t len = 0;
  int err = nc_inq_unlimdim(ncid, &unlimdim);
  if (err == NC_NOERR && unlimdim >= 0) err = nc_inq_dimlen(ncid, unlimdim, &len);
  if (err == NC_NOERR && nrecords != nullptr) *nrecords = static_cast<int64_t>(len);
  return err;
}

int read_schema(int ncid, Schema *schema, int *bad_varid) {
  int ndims = 0, nvars = 0, unlimdim = -1;
  int err = nc_inq(ncid, &ndims, &nvars, nullptr, &unlimdim);
  if (err != NC_NOERR) return err;
  schema->dims.assign(ndims, DimInfo());
  for (int i = 0; i < ndims; ++i) {
    char name[NC_MAX_NAME + 1] = {0};
    size_t len = 0;
    err = nc_inq_dim(ncid, i, name, &len);
    if (err != NC_NOERR) return err;
    schema->dims[i].name = name;
    schema->dims[i].len = static_cast<int64_t>(len);
    schema->dims[i].unlimited = i == unlimdim;
  }
  schema->vars.assign(nvars, VarInfo());
  for (int i = 0; i < nvars; ++i) {
    *bad_varid = i;
    char name[NC_MAX_NAME + 1] = {0};
    nc_type xtype = NC_NAT;
    int var_ndims = 0;
    err = nc_inq_varndims(ncid, i, &var_ndims);
    if (err != NC_NOERR) return err;
    std::vector<int> dimids(var_ndims);
    err = nc_inq_var(ncid, i, name, &xtype, &var_ndims, dimids.data(), nullptr);
    if (err != NC_NOERR) return err;
    schema->vars[i].name = name;
    // Types esmio does not know pass through as their nc_type code, so that the api layer
    // can refuse access to those variables alone.
    schema->vars[i].type = static_cast<esmio_type>(xtype);
    schema->vars[i].dimids = std::move(dimids);
  }
  *bad_varid = ESMIO_GLOBAL;
  return NC_NOERR;
}

NetcdfCBackend::~NetcdfCBackend() { close_file(); }

int NetcdfCBackend::close_file() {
  if (ncid_ < 0) return NC_NOERR;
  const int err = nc_close(ncid_);
  ncid_ = -1;
  return err;
}

std::string NetcdfCBackend::var_name(int varid) const {
  char name[NC_MAX_NAME + 1] = {0};
  if (varid == ESMIO_GLOBAL || ncid_ < 0 || nc_inq_varname(ncid_, varid, name) != NC_NOERR)
    return std::string();
  return name;
}

Status NetcdfCBackend::status_of(int err, const std::string &op, int varid) const {
  if (err == NC_NOERR) return Status::ok();
  return translate_error(err, driver_, op, path_, var_name(varid));
}

Status NetcdfCBackend::not_open(const char *op) const {
  return Status(ESMIO_EBADID, std::string(driver_) + ": " + op + ": no file is open");
}

Status NetcdfCBackend::def_dim(const std::string &name, int64_t len, int *dimid) {
  if (ncid_ < 0) return not_open("def_dim");
  if (len < 0) return status_of(NC_EDIMSIZE, "def_dim '" + name + "'");
  int id = -1;
  const int err = nc_def_dim(ncid_, name.c_str(), static_cast<size_t>(len), &id);
  if (err == NC_NOERR && dimid != nullptr) *dimid = id;
  return status_of(err, "def_dim '" + name + "'");
}

Status NetcdfCBackend::def_var(const std::string &name, esmio_type type,
                               const std::vector<int> &dimids, int *varid) {
  if (ncid_ < 0) return not_open("def_var");
  int id = -1;
  const int err = nc_def_var(ncid_, name.c_str(), static_cast<nc_type>(type),
                             static_cast<int>(dimids.size()), dimids.data(), &id);
  if (err == NC_NOERR && varid != nullptr) *varid = id;
  return status_of(err, "def_var '" + name + "'");
}

Status NetcdfCBackend::put_att(int varid, const std::string &name, esmio_type type, int64_t len,
                               const void *values) {
  if (ncid_ < 0) return not_open("put_att");
  return status_of(netcdf_c::put_att(ncid_, varid, name, type, len, values),
                   "put_att '" + name + "'", varid);
}

Status NetcdfCBackend::redef() {
  if (ncid_ < 0) return not_open("redef");
  ESMIO_RETURN_IF_ERROR(before_metadata("redef"));
  return status_of(nc_redef(ncid_), "redef");
}

Status NetcdfCBackend::inq_att(int varid, const std::string &name, esmio_type *type, int64_t *len) {
  if (ncid_ < 0) return not_open("inq_att");
  return status_of(netcdf_c::inq_att(ncid_, varid, name, type, len), "inq_att '" + name + "'",
                   varid);
}

Status NetcdfCBackend::inq_att_names(int varid, std::vector<std::string> *names) {
  if (ncid_ < 0) return not_open("inq_att_names");
  return status_of(netcdf_c::inq_att_names(ncid_, varid, names), "inq_att_names", varid);
}

Status NetcdfCBackend::get_att(int varid, const std::string &name, esmio_type memtype,
                               void *values) {
  if (ncid_ < 0) return not_open("get_att");
  return status_of(get_att_typed(ncid_, varid, name.c_str(), memtype, values),
                   "get_att '" + name + "'", varid);
}

Status NetcdfCBackend::inq_nrecords(int64_t *nrecords) {
  if (ncid_ < 0) return not_open("inq_nrecords");
  return status_of(netcdf_c::inq_nrecords(ncid_, nrecords), "inq_nrecords");
}

Status NetcdfCBackend::sync() {
  if (ncid_ < 0) return not_open("sync");
  ESMIO_RETURN_IF_ERROR(before_metadata("sync"));
  return status_of(nc_sync(ncid_), "sync");
}

}  // namespace esmio::backend::netcdf_c
