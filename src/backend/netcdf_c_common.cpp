// netCDF-C's error space (negative NC_* codes, positive errno values) mapped onto esmio's.
#include <netcdf.h>

#include <string>
#include <utility>

#include "backend/serial/serial_backend.hpp"

namespace esmio::backend::serial {

namespace {

int esmio_code(int nc_err) {
  // netCDF-C passes the system's errno through for failed open/create/read/write calls.
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

Status translate_error(int nc_err, const std::string &operation, const std::string &path,
                       const std::string &variable) {
  if (nc_err == NC_NOERR) return Status::ok();
  std::string message = "serial netcdf: " + operation + " on '" + path + "'";
  if (!variable.empty()) message += " variable '" + variable + "'";
  message += ": ";
  message += nc_strerror(nc_err);
  message += " (code " + std::to_string(nc_err) + ")";
  return Status(esmio_code(nc_err), std::move(message));
}

}  // namespace esmio::backend::serial
